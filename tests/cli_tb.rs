//! `xiangqi tb generate`, `xiangqi tb probe` and `xiangqi tb verify`: a real generation of small sets, probes of
//! its positions, and the errors (exit status 2, one line naming what is wrong).

use std::process::{Command, Output, Stdio};

fn xiangqi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xiangqi"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run xiangqi")
}

fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).unwrap()
}

#[test]
fn generate_probe_and_errors() {
    let dir = std::env::temp_dir().join(format!("xiangqi-cli-tb-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    // FEN letters and the weaker side first are accepted: this is KHKA, after KHK.
    let o = xiangqi(&["tb", "generate", "kakn", "KRK", "-o", d, "--threads", "2"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.starts_with("set positions won drawn lost"), "{out}");
    for set in ["KHK ", "KHKA ", "KRK "] {
        assert!(out.contains(&format!("\n{set}")), "{set}: {out}");
        assert!(dir.join(format!("{}.xqtb", set.trim())).exists());
    }
    // Again: every set is there already and is not generated anew.
    let o = xiangqi(&["tb", "generate", "KHKA", "-o", d]);
    assert!(o.status.success());
    assert!(
        text(&o.stdout).contains("KHKA (already there)"),
        "{}",
        text(&o.stdout)
    );

    // A chariot one move from mate: a8a9 (the general on d9, held off file e by Red's).
    let fen = "3k5/R8/9/9/9/9/9/9/9/4K4 w - - 0 1";
    let o = xiangqi(&["tb", "probe", fen, "--tb", d]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "set KRK");
    assert_eq!(lines[1], "category win");
    assert_eq!(lines[2], "dtm 1");
    // The best moves first: a chariot move along rank 8 (but to d8, where the general takes
    // it) stalemates Black (d8 covered, e9 facing Red's general), which loses: the position
    // after it is lost now. The check a8a9 frees d8 and mates only 4 plies later.
    assert_eq!(lines[3], "a8b8 loss 0", "{out}");
    assert!(lines.contains(&"e0e1 loss 0"), "{out}");
    assert!(lines.contains(&"a8a9 loss 4"), "{out}");
    assert!(lines.contains(&"a8d8 draw"), "{out}");
    let moves = xiangqi(&["moves", "--fen", fen]);
    assert_eq!(
        lines.len() - 3,
        text(&moves.stdout).lines().count(),
        "{out}"
    );
    // The same position with colours swapped is probed in the same table.
    let o = xiangqi(&[
        "tb",
        "probe",
        "4k4/9/9/9/9/9/9/9/r8/5K3 b - - 0 1",
        "--tb",
        d,
    ]);
    let out = text(&o.stdout);
    assert!(
        out.starts_with("set KRK\ncategory win\ndtm 1\na1b1 loss 0\n"),
        "{out}"
    );

    // Errors: status 2, one line naming the problem.
    let cases: Vec<(Vec<&str>, &str)> =
        vec![
        (
            vec!["tb", "generate", "KRKX", "-o", d],
            "xiangqi: tb generate: bad piece set 'KRKX': 'X' at position 4 is not a piece letter",
        ),
        (
            vec!["tb", "generate", "KAKA", "-o", d],
            "xiangqi: tb generate: KAKA: a set without a chariot",
        ),
        (
            vec!["tb", "probe", "3k5/9/9/9/9/9/9/9/R8/3AK4 w - - 0 1", "--tb", d],
            "xiangqi: tb probe: no table for KRAK: ",
        ),
        (
            vec!["tb", "probe", "9/9 w", "--tb", d],
            "xiangqi: bad FEN '9/9 w': ",
        ),
        (
            vec!["tb", "probe", fen, "--tb", "/no/such/folder"],
            "xiangqi: tb probe: /no/such/folder: no such folder",
        ),
    ];
    for (args, msg) in cases {
        let o = xiangqi(&args);
        let e = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        assert!(e.starts_with(msg), "{args:?}: {e}");
        assert_eq!(e.lines().count(), 1, "{args:?}: {e}");
    }
    // A damaged file: one byte changed in a block.
    let path = dir.join("KRK.xqtb");
    let mut bytes = std::fs::read(&path).unwrap();
    let n = bytes.len();
    bytes[n - 5] ^= 0x55;
    std::fs::write(&path, &bytes).unwrap();
    let o = xiangqi(&["tb", "probe", fen, "--tb", d]);
    let e = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("KRK.xqtb: damaged table: block 0 checksum mismatch"),
        "{e}"
    );
    // Not a table at all.
    std::fs::write(&path, b"hello").unwrap();
    let o = xiangqi(&["tb", "probe", fen, "--tb", d]);
    let e = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("damaged table: not a table file"), "{e}");
    // Generation refuses to build on a damaged table.
    let o = xiangqi(&["tb", "generate", "KRK", "-o", d]);
    assert_eq!(o.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).ok();
}

/// The perpetual-check rule's categories in `tb probe`: a KRKH position the standard table
/// draws, where Black's horse can only check forever (docs/TABLEBASES.md).
#[test]
fn probe_shows_the_perpetual_check_rule() {
    let dir = std::env::temp_dir().join(format!("xiangqi-cli-tb-rules-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    let o = xiangqi(&["tb", "generate", "KRKH", "-o", d]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains(" 315 1291 graph "), "{out}");
    // The lean method makes the same files (its summary says so).
    let lean = dir.join("lean");
    let l = lean.to_str().unwrap();
    let o = xiangqi(&["tb", "generate", "KRKH", "-o", l, "--method", "lean"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains(" 315 1291 lean "), "{out}");
    assert!(text(&o.stderr).contains("KRKH: the lean method"));
    for set in ["KRK", "KHK", "KRKH"] {
        let f = format!("{set}.xqtb");
        assert!(
            std::fs::read(dir.join(&f)).unwrap() == std::fs::read(lean.join(&f)).unwrap(),
            "{f}"
        );
    }
    let o = xiangqi(&[
        "tb",
        "probe",
        "9/9/4k4/9/9/9/9/9/1n7/R2K5 w - - 0 1",
        "--tb",
        d,
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout),
        "set KRKH\ncategory draw\nrules win-by-rule\nd0d1 draw loss-by-rule\n"
    );
    // `tb verify`: every KRKH position against its moves, with the rule's 315 and 1291.
    let o = xiangqi(&[
        "tb",
        "verify",
        "KHKR",
        "--tb",
        d,
        "--samples",
        "all",
        "--searched",
        "100",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.starts_with("KRKH: "), "{out}");
    assert!(out.contains("(315 won and 1291 lost by it)"), "{out}");
    assert!(out.contains("100 against a 3-ply mate search"), "{out}");
    assert!(out.contains("; 0 faults;"), "{out}");
    for (args, says) in [
        (
            vec!["--samples", "many"],
            "--samples \"many\": a number of positions or `all`",
        ),
        (vec!["--depth", "9"], "9 is not in 1..=7"),
    ] {
        let mut a = vec!["tb", "verify", "KRKH", "--tb", d];
        a.extend(args);
        let o = xiangqi(&a);
        assert_eq!(o.status.code(), Some(2));
        assert!(text(&o.stderr).contains(says), "{}", text(&o.stderr));
    }
    // A set whose table is not there.
    let o = xiangqi(&["tb", "verify", "KCKH", "--tb", d]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("KCKH"), "{}", text(&o.stderr));

    // `tb list`: the counts of the files' headers, smaller sets first; the generation's.
    let o = xiangqi(&["tb", "list", "--tb", d]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "set positions won drawn lost illegal max-dtm won-by-rule lost-by-rule format bytes"
    );
    assert!(
        lines[1].starts_with("KHK 9720 3060 66 3210 3384 14 0 0 2 "),
        "{out}"
    );
    assert!(
        lines[2].starts_with("KRK 9720 2556 66 3210 3888 4 0 0 2 "),
        "{out}"
    );
    assert!(
        lines[3].starts_with("KRKH 874800 255530 2435 248696 368139 26 315 1291 2 "),
        "{out}"
    );
    let bytes = std::fs::metadata(dir.join("KRKH.xqtb")).unwrap().len();
    assert!(lines[3].ends_with(&format!(" {bytes}")), "{out}");
    assert_eq!(lines.len(), 4, "{out}");
    assert!(
        text(&o.stderr).contains(
            "3 tables listed; the perpetual-check rule changes results in 1 of the 3 read"
        ),
        "{}",
        text(&o.stderr)
    );
    // Only the sets the rule changes; two folders as the engine's TbPath lists them.
    let both = format!("{l}:{d}");
    let o = xiangqi(&["tb", "list", "--tb", &both, "--changed"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(
        out.lines().nth(1).unwrap().starts_with("KRKH 874800 "),
        "{out}"
    );
    // A damaged header is named, the others still listed, and the status is 1.
    let krk = dir.join("KRK.xqtb");
    let mut head = std::fs::read(&krk).unwrap();
    head[30] ^= 0x55;
    std::fs::write(&krk, &head).unwrap();
    let o = xiangqi(&["tb", "list", "--tb", d]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("\nKRK unreadable: "), "{out}");
    assert!(out.contains("header checksum mismatch"), "{out}");
    assert!(out.contains("\nKRKH 874800 "), "{out}");
    assert!(
        text(&o.stderr).contains("tb list: 1 files unreadable"),
        "{}",
        text(&o.stderr)
    );
    let o = xiangqi(&["tb", "list", "--tb", "/no/such/folder"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).starts_with("xiangqi: tb list: /no/such/folder: no such folder"),
        "{}",
        text(&o.stderr)
    );
    std::fs::remove_dir_all(&dir).ok();
}
