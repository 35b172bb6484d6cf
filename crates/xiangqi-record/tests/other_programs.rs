//! Records of other programs (issue 29, later parts): PengFei `.pfc`, QQ象棋 `.che`, XQR
//! `.xqr`, 中国游戏中心 `.ccm`, 弈天 `.mxq` and 联众 `.chn`. No real file of these was found, so the files in
//! tests/data/records were made here from the layouts described in docs/RECORDS.md, each
//! holding the game of `made-up-formats-reference.pgn` (as much of it as the format keeps); each
//! is read by content, compared with the PGN, and cut and garbled without a panic.

use xiangqi_record::detect::{read_any_strict, RecordFormat};
use xiangqi_record::{GameRecord, GameResult, MoveNode};

#[path = "common/readers.rs"]
mod readers;

use readers::{data, game};

/// The game of the reference PGN.
fn reference() -> GameRecord {
    let (format, g) = game("made-up-formats-reference.pgn");
    assert_eq!(format, RecordFormat::Pgn);
    g
}

/// A line without its comments and variations.
fn bare(line: &[MoveNode]) -> Vec<String> {
    line.iter().map(|n| n.mv.to_string()).collect()
}

/// Cut and garbled copies: no panic, whatever reads replays legally.
fn cut_and_garbled_never_panic(bytes: &[u8]) {
    readers::cut_and_garbled_never_panic(bytes, 1, 200);
}

#[test]
fn pengfei_pfc_is_the_reference_game() {
    let want = reference();
    let (format, g) = game("made-up-pengfei.pfc");
    assert_eq!(format, RecordFormat::Pfc);
    // Moves, the variation (the default child is the main line, the other an alternative),
    // comments, result and the start position: all as in the PGN.
    assert_eq!(g.moves, want.moves);
    assert_eq!(g.comment, want.comment);
    assert_eq!(g.start, want.start);
    assert_eq!(g.result, GameResult::RedWins);
    for tag in ["Event", "Red", "Black"] {
        assert_eq!(g.tag(tag), want.tag(tag), "{tag}");
    }
    assert_eq!(g.tag("Date"), Some("2024.05.01"));
    assert_eq!(bare(&g.moves[3].variations[0]), ["b9c7", "i0h0"]);
    cut_and_garbled_never_panic(&data("made-up-pengfei.pfc"));
}

/// A line with its variations, without comments or NAGs.
fn uncommented(line: &[MoveNode]) -> Vec<MoveNode> {
    line.iter()
        .map(|n| MoveNode {
            mv: n.mv,
            comment: None,
            nags: Vec::new(),
            variations: n.variations.iter().map(|v| uncommented(v)).collect(),
        })
        .collect()
}

#[test]
fn qq_che_files_are_the_reference_game() {
    let want = reference();
    // Kind 1: coordinates from 0, the main line only.
    let (format, g) = game("made-up-qq-kind1.che");
    assert_eq!(format, RecordFormat::Che);
    assert_eq!(bare(&g.moves), bare(&want.moves));
    assert!(g.moves.iter().all(|n| n.variations.is_empty()));
    assert_eq!(g.start, want.start);
    // Kind 0: coordinates from 1, each move naming the move it follows: the variation too.
    let (format, g) = game("made-up-qq-kind0.che");
    assert_eq!(format, RecordFormat::Che);
    assert_eq!(g.moves, uncommented(&want.moves));
    for f in ["made-up-qq-kind1.che", "made-up-qq-kind0.che"] {
        cut_and_garbled_never_panic(&data(f));
    }
}

#[test]
fn xqr_file_is_the_reference_game() {
    let want = reference();
    let (format, g) = game("made-up.xqr");
    assert_eq!(format, RecordFormat::Xqr);
    // The tree in pre-order: the variation after the main line's end; comments kept.
    assert_eq!(g.moves, want.moves);
    assert_eq!(g.comment, want.comment);
    assert_eq!(g.result, GameResult::RedWins);
    for tag in ["Event", "Red", "Black"] {
        assert_eq!(g.tag(tag), want.tag(tag), "{tag}");
    }
    assert_eq!(g.tag("Date"), Some("2024.05.01"));
    let bytes = data("made-up.xqr");
    cut_and_garbled_never_panic(&bytes);
    // A damaged byte is caught by the CRC, naming where it is kept.
    let mut b = bytes.clone();
    b[0x80] ^= 0x10;
    let e = read_any_strict(&b).unwrap().games.remove(0).unwrap_err();
    assert!(e.to_string().contains("CRC-32"), "{e}");
}

#[test]
fn ccm_file_is_the_reference_main_line() {
    let want = reference();
    let (format, g) = game("made-up-turned.ccm");
    assert_eq!(format, RecordFormat::Ccm);
    // The board turned round (Red's first move starts in the stored top half): read upright.
    assert_eq!(bare(&g.moves), bare(&want.moves));
    assert_eq!(g.start, want.start);
    cut_and_garbled_never_panic(&data("made-up-turned.ccm"));
}

#[test]
fn mutated_samples_pass_the_fuzz_checks() {
    // A deterministic stand-in for the `cb_dhtmlxq` fuzz target's part for these formats
    // (common/readers.rs `other_programs_target`: no panic, whatever reads replays legally,
    // strict and lenient readings agree), on mutated and cut copies of the samples.
    let seeds: Vec<Vec<u8>> = [
        "made-up-pengfei.pfc",
        "made-up-qq-kind1.che",
        "made-up-qq-kind0.che",
        "made-up.xqr",
        "made-up-turned.ccm",
        "made-up-yitian.mxq",
        "made-up-ourgame.chn",
    ]
    .iter()
    .map(|f| data(f))
    .collect();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut strict_reads = 0;
    for seed in &seeds {
        strict_reads += readers::other_programs_target(seed);
        for _ in 0..150 {
            let mut v = seed.clone();
            for _ in 0..(next() % 6 + 1) {
                let i = (next() as usize) % v.len();
                v[i] = next() as u8;
            }
            if next() % 4 == 0 {
                let n = (next() as usize) % v.len();
                v.truncate(n);
            }
            strict_reads += readers::other_programs_target(&v);
        }
    }
    // The unmutated samples read (each as itself, and some as the move area of another).
    assert!(strict_reads >= seeds.len(), "{strict_reads}");
}

#[test]
fn yitian_mxq_file_is_the_reference_main_line() {
    let want = reference();
    let (format, g) = game("made-up-yitian.mxq");
    assert_eq!(format, RecordFormat::Mxq);
    assert_eq!(bare(&g.moves), bare(&want.moves));
    // The event names the players and the result; the comment follows the last move.
    assert_eq!(g.result, GameResult::RedWins);
    for tag in ["Red", "Black"] {
        assert_eq!(g.tag(tag), want.tag(tag), "{tag}");
    }
    assert_eq!(g.tag("Event"), Some("红方甲-胜-黑方乙"));
    assert_eq!(g.tag("RedElo"), Some("2100"));
    assert_eq!(
        g.moves.last().unwrap().comment.as_deref(),
        Some("红方多子胜势")
    );
    cut_and_garbled_never_panic(&data("made-up-yitian.mxq"));
}

#[test]
fn ourgame_chn_file_is_the_reference_main_line() {
    let want = reference();
    let (format, g) = game("made-up-ourgame.chn");
    assert_eq!(format, RecordFormat::Chn);
    assert_eq!(bare(&g.moves), bare(&want.moves));
    cut_and_garbled_never_panic(&data("made-up-ourgame.chn"));
}
