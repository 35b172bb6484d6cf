//! The `perft` and `moves` commands: output formats other tools depend on, and errors.

use std::process::{Command, Output};

fn xiangqi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xiangqi"))
        .args(args)
        .output()
        .expect("run xiangqi")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}
fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

#[test]
fn moves_from_start_sorted() {
    let o = xiangqi(&["moves"]);
    assert!(o.status.success());
    let text = stdout(&o);
    let moves: Vec<&str> = text.lines().collect();
    assert_eq!(moves.len(), 44);
    let mut sorted = moves.clone();
    sorted.sort();
    assert_eq!(moves, sorted);
    assert!(moves.contains(&"h2e2") && moves.contains(&"b0c2"));
}

#[test]
fn moves_after_moves_and_fen() {
    let o = xiangqi(&["moves", "h2e2", "h9g7", "H0-G2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).lines().any(|l| l == "g9e7"));
    // The general may not step onto the open d-file facing the black general.
    let o = xiangqi(&["moves", "--fen", "3k5/9/9/9/9/9/9/9/4A4/3AK4 w - - 0 1"]);
    assert_eq!(stdout(&o), "e0f0\ne1d2\ne1f0\ne1f2\n");
    let o = xiangqi(&["moves", "--fen", "3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1"]);
    assert_eq!(stdout(&o), "e0e1\ne0f0\n");
}

#[test]
fn moves_bad_fen_and_illegal_move() {
    let o = xiangqi(&[
        "moves",
        "--fen",
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C2/9/RNBAKABNR w",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.contains("rank 2 has 10 files"), "{e}");

    let o = xiangqi(&["moves", "h2e2", "h9g7", "e2e9"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.contains("move 3 (e2e9)"), "{e}");

    let o = xiangqi(&["moves", "h2e2", "nonsense"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("move 2 (nonsense)"));
}

#[test]
fn perft_output_format() {
    let o = xiangqi(&["perft", "--divide", "2"]);
    assert!(o.status.success());
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 44 + 2);
    assert!(lines[..44].iter().all(|l| l.contains(": ")));
    let sum: u64 = lines[..44]
        .iter()
        .map(|l| l.split(": ").nth(1).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, 1920);
    assert_eq!(lines[44], "nodes 1920");
    assert!(
        lines[45].starts_with("time ") && lines[45].ends_with("Mnps"),
        "{}",
        lines[45]
    );

    let o = xiangqi(&[
        "perft",
        "--fen",
        "4kcP1N/8n/3rb4/9/9/9/9/3p1A3/4K4/5CB2 w - - 0 1",
        "3",
    ]);
    assert!(stdout(&o).lines().any(|l| l.starts_with("nodes ")));
    let o = xiangqi(&["perft", "--no-bulk", "3"]);
    assert!(stdout(&o).contains("nodes 79666"));
}

#[test]
fn perft_errors() {
    let o = xiangqi(&["perft"]);
    assert_eq!(o.status.code(), Some(2));
    let o = xiangqi(&["perft", "x"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("depth 'x' is not a number"));
}
