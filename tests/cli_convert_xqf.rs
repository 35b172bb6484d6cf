//! `xiangqi convert --to xqf`: one game a file (several games need `-o DIR`), binary on stdout
//! only when it is not a terminal; what is written reads back as XQF.

use std::process::{Command, Output};

fn xiangqi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xiangqi"))
        .args(args)
        .output()
        .expect("run xiangqi")
}

fn dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("xiangqi-xqf-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn several_games_go_to_a_directory_and_read_back() {
    let d = dir("many");
    let input = d.join("in.pgn");
    std::fs::write(
        &input,
        "[Event \"a\"]\n[Red \"甲\"]\n1. h2e2 {c} h9g7 (1... b9c7) 2. h0g2 1-0\n\n\
         [Event \"b\"]\n1. h2e2 h9h0 *\n\n\
         [Event \"c\"]\n[FEN \"3k5/9/9/9/9/9/9/9/4R4/5K3 b - - 0 1\"]\n1... d9d8 *\n",
    )
    .unwrap();
    let i = input.to_str().unwrap();
    // Without -o DIR: refused, naming the rule.
    let o = xiangqi(&["convert", i, "--to", "xqf"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("XQF holds one game a file") && err.contains("-o DIR"),
        "{err}"
    );
    // With it: game 2 is broken (h9h0 is illegal) and leaves a gap; status 1.
    let out = d.join("out");
    let o = xiangqi(&["convert", i, "--to", "xqf", "-o", out.to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["game-0001.xqf", "game-0003.xqf"]);
    let g1 = xiangqi_record::xqf::read(&std::fs::read(out.join("game-0001.xqf")).unwrap()).unwrap();
    assert_eq!(g1.tag("Event"), Some("a"));
    assert_eq!(g1.tag("Red"), Some("甲"));
    let ml: Vec<String> = g1.mainline().map(|m| m.to_string()).collect();
    assert_eq!(ml, ["h2e2", "h9g7", "h0g2"]);
    assert_eq!(g1.moves[0].comment.as_deref(), Some("c"));
    assert_eq!(g1.moves[1].variations[0][0].mv.to_string(), "b9c7");
    assert_eq!(g1.result, xiangqi_record::GameResult::RedWins);
    let g3 = xiangqi_record::xqf::read(&std::fs::read(out.join("game-0003.xqf")).unwrap()).unwrap();
    assert_eq!(g3.start.turn(), xiangqi::Color::Black);
    assert_eq!(g3.moves[0].mv.to_string(), "d9d8");
    // The written files convert on to PGN.
    let o = xiangqi(&[
        "convert",
        out.join("game-0001.xqf").to_str().unwrap(),
        "--notation",
        "iccs",
    ]);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout)
        .contains("1. h2e2 {c} 1... h9g7 (1... b9c7) 2. h0g2 1-0"));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn one_game_goes_to_a_file_or_a_piped_stdout() {
    let d = dir("one");
    let input = d.join("in.pgn");
    std::fs::write(&input, "1. h2e2 h9g7 1/2-1/2\n").unwrap();
    let i = input.to_str().unwrap();
    let file = d.join("g.xqf");
    let o = xiangqi(&["convert", i, "--to", "xqf", "-o", file.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let written = std::fs::read(&file).unwrap();
    // stdout is a pipe here, so the bytes come out there too, the same.
    let o = xiangqi(&["convert", i, "--to", "xqf"]);
    assert!(o.status.success());
    assert_eq!(o.stdout, written);
    let g = xiangqi_record::xqf::read(&written).unwrap();
    assert_eq!(g.result, xiangqi_record::GameResult::Draw);
    assert_eq!(g.mainline().count(), 2);
    let _ = std::fs::remove_dir_all(&d);
}
