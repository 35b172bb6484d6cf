//! `xiangqi convert --lenient` on a damaged binary record: the game is kept up to its last
//! good main-line move with a warning naming the byte; without `--lenient` the game is an
//! error naming the byte.

use std::path::PathBuf;
use std::process::{Command, Output};

fn xiangqi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xiangqi"))
        .args(args)
        .output()
        .expect("run xiangqi")
}

/// A made-up XQF 1.0 file (the layout `xqf::write_game` writes): the standard start, then
/// h2e2 h9g7 h0g2 i9h9 with move 3 (h0g2) made illegal: its to-square is its from-square.
fn damaged_xqf() -> (Vec<u8>, Vec<u8>, usize) {
    let pgn = "[Event \"damaged\"]\n1. h2e2 h9g7 2. h0g2 i9h9 *\n";
    let g = xiangqi_record::pgn::PgnReader::new(pgn)
        .next()
        .unwrap()
        .unwrap();
    let good = xiangqi_record::xqf::write_game(&g).unwrap();
    // Records of 8 bytes (no comments): the start's, then one a move.
    let at = 1024 + 3 * 8;
    let mut f = good.clone();
    f[at + 1] = f[at] - 0x18 + 0x20;
    (good, f, at)
}

#[test]
fn lenient_keeps_a_damaged_xqf_up_to_the_bad_move() {
    let d = std::env::temp_dir().join(format!("xiangqi-lenient-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let (good, f, at) = damaged_xqf();
    let input: PathBuf = d.join("damaged.xqf");
    std::fs::write(&input, &f).unwrap();
    let i = input.to_str().unwrap();

    // By default: the game is an error naming the byte; no game is read: status 2.
    let o = xiangqi(&["convert", i, "--notation", "iccs"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "XQF at byte {at} (0x{at:x}): illegal move h0h0 at ply 3"
        )),
        "{err}"
    );

    // --lenient: the two moves before it are written, with a warning naming game and byte.
    let out = d.join("out.pgn");
    let o = xiangqi(&[
        "convert",
        i,
        "--lenient",
        "--notation",
        "iccs",
        "-o",
        out.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains(&format!(
            "warning: {i} (XQF), game 1: XQF game 1 at byte {at} (0x{at:x}): kept as far as \
             Black's move 1: illegal move h0h0 at ply 3 (main line) in position"
        )) && err.contains("; this move record and the 1 after it were left out"),
        "{err}"
    );
    let pgn = std::fs::read_to_string(&out).unwrap();
    assert!(pgn.contains("[Event \"damaged\"]"), "{pgn}");
    assert!(pgn.contains("1. h2e2 h9g7 *"), "{pgn}");
    assert!(!pgn.contains("h0g2"), "{pgn}");

    // The undamaged file cut inside move 4's record: three moves kept (on stdout).
    let cut = d.join("cut.xqf");
    let at = 1024 + 4 * 8;
    std::fs::write(&cut, &good[..at + 5]).unwrap();
    let c = cut.to_str().unwrap();
    let o = xiangqi(&["convert", c, "--notation", "iccs"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "XQF at byte {at} (0x{at:x}): data ends inside a move record's comment length"
        )),
        "{err}"
    );
    let o = xiangqi(&["convert", c, "--lenient", "--notation", "iccs"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains(&format!(
            "XQF game 1 at byte {at} (0x{at:x}): kept as far as Red's move 2: data ends inside \
             a move record's comment length; the last 5 bytes of the file, from this record on, \
             were left out"
        )),
        "{err}"
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("1. h2e2 h9g7 2. h0g2 *"), "{out}");
    let _ = std::fs::remove_dir_all(&d);
}
