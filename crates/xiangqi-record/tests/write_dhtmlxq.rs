//! Writing DhtmlXQ (`dhtmlxq::write_game`, `xiangqi convert --to dhtmlxq`): every game of the
//! test collection (the shared record set and this crate's tests/data) written as DhtmlXQ reads
//! back strictly to the same start, moves, variations, comments, result and information tags.

use xiangqi_record::detect::read_any;
use xiangqi_record::{dhtmlxq, GameRecord, MoveNode};

#[path = "common/collection.rs"]
mod collection;
use collection::{each_game, norm};

/// A comment as the writer keeps it: trimmed, brackets full-width.
fn comment(c: &Option<String>) -> Option<String> {
    c.as_deref()
        .map(|c| {
            c.trim()
                .replace("\r\n", "\n")
                .replace('[', "［")
                .replace(']', "］")
        })
        .filter(|c| !c.is_empty())
}

fn same_line(a: &[MoveNode], b: &[MoveNode], what: &str) {
    assert_eq!(norm(a, comment), norm(b, comment), "{what}");
}

fn round_trip(g: &GameRecord, what: &str) {
    let mut text = String::new();
    dhtmlxq::write_game(&mut text, g);
    let back = dhtmlxq::read_str(&text).unwrap_or_else(|e| panic!("{what}: {e}\n{text}"));
    // The board, the side to move and the move number (DhtmlXQ keeps no half-move clock).
    assert_eq!(back.start.board(), g.start.board(), "{what}");
    assert_eq!(back.start.turn(), g.start.turn(), "{what}");
    assert_eq!(back.start.fullmoves(), g.start.fullmoves(), "{what}");
    assert_eq!(back.result, g.result, "{what}");
    assert_eq!(comment(&g.comment), back.comment, "{what}");
    same_line(&g.moves, &back.moves, what);
    for tag in ["Event", "Red", "Black", "Date", "Site", "Round", "Title"] {
        let want = g
            .tag(tag)
            .map(|v| v.trim().replace('[', "［").replace(']', "］"));
        let want = want.filter(|v| !v.is_empty() && !v.contains('\n'));
        if want.is_some() {
            assert_eq!(back.tag(tag), want.as_deref(), "{what}: tag {tag}");
        }
    }
}

#[test]
fn every_game_of_the_test_collection_reads_back() {
    eprintln!("{}", each_game(round_trip));
}

#[test]
fn a_written_game_looks_as_dhtmlxq_pages_have_it() {
    let r = read_any(
        b"[Event \"A [x]\"]\n[Red \"R\"]\n1. h2e2 {good\nline} h9g7 (1... b9c7) 2. h0g2 1-0\n",
    )
    .unwrap();
    let g = r.games[0].as_ref().unwrap();
    let mut t = String::new();
    dhtmlxq::write_game(&mut t, g);
    assert_eq!(
        t,
        "[DhtmlXQ]\n[DhtmlXQ_event]A ［x］[/DhtmlXQ_event]\n[DhtmlXQ_red]R[/DhtmlXQ_red]\n\
         [DhtmlXQ_movelist]774770627967[/DhtmlXQ_movelist]\n\
         [DhtmlXQ_comment1]good||line[/DhtmlXQ_comment1]\n\
         [DhtmlXQ_move_0_2_1]1022[/DhtmlXQ_move_0_2_1]\n\
         [DhtmlXQ_result]红胜[/DhtmlXQ_result]\n[/DhtmlXQ]\n"
    );
    // A set-up start: binit and fen; Black to move survives through the fen.
    let r = read_any(b"[FEN \"3k5/9/9/9/9/9/9/9/4R4/5K3 b - - 0 1\"]\n1... d9d8 *\n").unwrap();
    let g = r.games[0].as_ref().unwrap();
    let mut t = String::new();
    dhtmlxq::write_game(&mut t, g);
    assert!(t.contains("[DhtmlXQ_binit]"), "{t}");
    assert!(
        t.contains("[DhtmlXQ_fen]3k5/9/9/9/9/9/9/9/4R4/5K3 b"),
        "{t}"
    );
    let back = dhtmlxq::read_str(&t).unwrap();
    assert_eq!(back.start, g.start);
    assert_eq!(back.moves[0].mv.to_string(), "d9d8");
}
