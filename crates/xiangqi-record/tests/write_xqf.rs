//! Writing XQF (`xqf::write_game`, `xiangqi convert --to xqf`): every game of the test
//! collection (the shared record set and this crate's tests/data, the one
//! tests/write_dhtmlxq.rs writes) written as XQF reads back with the strict reader to the same
//! start, moves, variations, comments, result and the tags XQF holds.

use xiangqi_record::detect::read_any;
use xiangqi_record::{xqf, GameRecord, GameResult};

#[path = "common/collection.rs"]
mod collection;
use collection::{each_game, norm};

/// A comment as XQF keeps it: trimmed (the reader trims whitespace and NULs).
fn comment(c: &Option<String>) -> Option<String> {
    c.as_deref()
        .map(|c| {
            c.trim_matches(|c: char| c.is_whitespace() || c == '\0')
                .to_owned()
        })
        .filter(|c| !c.is_empty())
}

const XQF_TAGS: [&str; 11] = [
    "Title",
    "Event",
    "Date",
    "Site",
    "Red",
    "Black",
    "TimeControl",
    "RedTime",
    "BlackTime",
    "Annotator",
    "Author",
];

/// Writes `g` and reads it back; `Err` is the writer's refusal.
fn round_trip(g: &GameRecord, what: &str) -> Result<(), String> {
    let bytes = xqf::write_game(g).map_err(|e| e.to_string())?;
    let back = xqf::read(&bytes).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(back.start.board(), g.start.board(), "{what}");
    assert_eq!(back.start.turn(), g.start.turn(), "{what}");
    assert_eq!(back.result, g.result, "{what}");
    assert_eq!(back.tag("Result"), Some(g.result.as_pgn()), "{what}");
    assert_eq!(comment(&g.comment), back.comment, "{what}");
    assert_eq!(
        norm(&g.moves, comment),
        norm(&back.moves, comment),
        "{what}"
    );
    for tag in XQF_TAGS {
        let want = g.tag(tag).map(str::trim).filter(|v| !v.is_empty());
        assert_eq!(back.tag(tag), want, "{what}: tag {tag}");
    }
    Ok(())
}

#[test]
fn every_game_of_the_test_collection_reads_back() {
    let mut refused = 0;
    let held = each_game(|g, what| {
        if let Err(e) = round_trip(g, what) {
            // Only what XQF cannot hold is refused; without the over-long tags the rest of
            // the game still reads back.
            refused += 1;
            assert!(e.contains("XQF holds at most"), "{what}: {e}");
            let mut short = g.clone();
            short.tags.retain(|(k, v)| {
                let cap = match k.as_str() {
                    "Title" => 127,
                    "Event" | "TimeControl" => 63,
                    _ => 15,
                };
                xiangqi_record::encoding::encode_gb18030(v.trim()).len() <= cap
            });
            round_trip(&short, what).unwrap_or_else(|e| panic!("{what}: {e}"));
        }
    });
    eprintln!("{held}; {refused} refused for an over-long tag and read back without it");
}

#[test]
fn a_written_game_has_xqf_1_0_layout() {
    let r = read_any(
        "[Event \"甲级联赛\"]\n[Red \"R\"]\n{开局} 1. h2e2 {good} h9g7 (1... b9c7 {alt}) 2. h0g2 1-0\n"
            .as_bytes(),
    )
    .unwrap();
    let g = r.games[0].as_ref().unwrap();
    let f = xqf::write_game(g).unwrap();
    assert_eq!(&f[..3], b"XQ\x0a");
    assert_eq!(f[51], 1, "Red wins");
    assert_eq!(f[208] as usize, "甲级联赛".len() / 3 * 2, "event in GBK");
    // Root record: code 0 -> 0, a move follows, opening comment of 4 GBK bytes.
    assert_eq!(&f[0x400..0x408], &[0x18, 0x20, 0xf0, 0, 4, 0, 0, 0]);
    let back = xqf::read(&f).unwrap();
    assert_eq!(back.comment.as_deref(), Some("开局"));
    assert_eq!(
        back.moves[1].variations[0][0].comment.as_deref(),
        Some("alt")
    );
    assert_eq!(back.result, GameResult::RedWins);
    assert_eq!(back.tag("Event"), Some("甲级联赛"));
}

#[test]
fn set_ups_and_what_xqf_cannot_hold() {
    // Black to move in a set-up, no moves: the header's side to move carries it.
    let r = read_any(b"[FEN \"3k5/9/9/9/9/9/9/9/4R4/5K3 b - - 0 1\"]\n*\n").unwrap();
    let g = r.games[0].as_ref().unwrap();
    let f = xqf::write_game(g).unwrap();
    assert_eq!(f[64], 3, "an endgame record");
    let back = xqf::read(&f).unwrap();
    assert_eq!(back.start.board(), g.start.board());
    assert_eq!(back.start.turn(), xiangqi::Color::Black);
    // (More pieces of a kind than XQF's slots, three chariots, is refused too, but no
    // reader makes such a position.)
    // A name of 16 bytes: the slot holds 15.
    let mut g = GameRecord::default();
    g.set_tag("Red", "abcdefghijklmnop");
    let e = xqf::write_game(&g).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot write XQF: the Red tag is 16 bytes in GBK, XQF holds at most 15: \"abcdefghijklmnop\""
    );
}
