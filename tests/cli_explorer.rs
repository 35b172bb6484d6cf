//! `xiangqi explorer build` and `query` on real record files.

use std::process::{Command, Output};

fn xiangqi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xiangqi"))
        .args(args)
        .output()
        .expect("run xiangqi")
}

const DATA: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/crates/xiangqi-record/tests/data/issue18"
);

#[test]
fn build_then_query_counts_the_games_and_names_bad_input() {
    let dir = std::env::temp_dir().join(format!("xq_cli_explorer_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.to_str().unwrap();
    let big5 = format!("{DATA}/big5.pgn");
    let cbl = format!("{DATA}/compressed.cbl");
    let o = xiangqi(&[
        "explorer",
        "build",
        &big5,
        &cbl,
        "-o",
        out,
        "--max-ply",
        "40",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("games indexed"), "{err}");

    let o = xiangqi(&["explorer", "query", out, "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let json = String::from_utf8_lossy(&o.stdout).to_string();
    let v: serde_json::Value = serde_json::from_str(json.trim()).expect(&json);
    let total =
        v["red"].as_u64().unwrap() + v["draws"].as_u64().unwrap() + v["black"].as_u64().unwrap();
    let moves = v["moves"].as_array().unwrap();
    assert!(total >= 1 && !moves.is_empty(), "{json}");
    let per_move: u64 = moves
        .iter()
        .map(|m| {
            m["red"].as_u64().unwrap() + m["draws"].as_u64().unwrap() + m["black"].as_u64().unwrap()
        })
        .sum();
    assert_eq!(per_move, total, "{json}");
    assert!(moves.iter().any(|m| m["chinese"] == "炮八平五"), "{json}");

    // Adding the same files again counts nothing twice.
    let o = xiangqi(&["explorer", "build", &big5, &cbl, "-o", out]);
    assert!(o.status.success());
    let again = String::from_utf8_lossy(&o.stderr);
    assert!(
        again.contains(": 0 games indexed")
            || again.starts_with("xiangqi explorer: 0 games indexed"),
        "{again}"
    );
    let o = xiangqi(&["explorer", "query", out, "--json"]);
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), json.trim());

    // The opening of the line queried, in the table and in the JSON.
    let o = xiangqi(&["explorer", "query", out, "--play", "h2e2,h9g7,h0g2,b9c7"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("Opening: 中炮对屏风马 (Central Cannon vs Screen Horses)"),
        "{text}"
    );
    let o = xiangqi(&["explorer", "query", out, "--json", "--play", "g3g4"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["opening"]["eco"], "E00", "{v}");
    assert_eq!(v["opening"]["nameZh"], "仙人指路", "{v}");
    assert_eq!(v["opening"]["name"], "Pawn Opening", "{v}");

    // Bad input: exit status 2 and a message naming it.
    let o = xiangqi(&["explorer", "query", out, "--play", "h2e2,h2e3"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("move 2 'h2e3'"));
    let o = xiangqi(&["explorer", "query", out, "--fen", "rnbakabnr/9/x w"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("bad FEN"));
    let o = xiangqi(&["explorer", "build", &big5, "-o", out, "--max-ply", "10"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--max-ply 40"));
    let o = xiangqi(&["explorer", "query", "/nonexistent/xq"]);
    assert_eq!(o.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `xiangqi serve --explorer DIR` answers `/api/explorer/masters` as `explorer query --json`
/// prints it; a folder with no index is refused at start, naming it.
#[test]
fn serve_answers_the_explorer_query_as_the_command_does() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let dir = std::env::temp_dir().join(format!("xq_cli_explorer_serve_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let index = dir.join("ex");
    let out = index.to_str().unwrap();
    let big5 = format!("{DATA}/big5.pgn");
    let o = xiangqi(&["explorer", "build", &big5, "-o", out]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = xiangqi(&["explorer", "query", out, "--json", "--play", "b2e2"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let want: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();

    let data = dir.join("data");
    let mut child = Command::new(env!("CARGO_BIN_EXE_xiangqi"))
        .args([
            "serve",
            "--port",
            "0",
            "--no-fallback",
            "--data",
            data.to_str().unwrap(),
            "--explorer",
            out,
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the server");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port: u16 = line
        .trim()
        .trim_end_matches('/')
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no URL in {line:?}"));
    let res = xiangqi_server::client::blocking(
        std::net::SocketAddr::from(([127, 0, 0, 1], port)),
        &xiangqi_server::client::Request::get("/api/explorer/masters?play=b2e2&moves=50"),
        std::time::Duration::from_secs(30),
    );
    let _ = child.kill();
    let _ = child.wait();
    let res = res.expect("an answer");
    assert_eq!(res.status, 200, "{}", res.text());
    assert_eq!(res.json().unwrap(), want);

    let o = xiangqi(&[
        "serve",
        "--port",
        "0",
        "--data",
        data.to_str().unwrap(),
        "--explorer",
        "/nonexistent/xq",
    ]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--explorer /nonexistent/xq"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
