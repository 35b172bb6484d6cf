//! `xiangqi-engine datagen`: a few games' data written, read back, resumed.

use std::process::Command;

use xiangqi::{Position, Setup};
use xiangqi_engine::datagen::{self, Config};
use xiangqi_engine::Engine;
use xiangqi_nnue::data::{self, DataReader};

fn out(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("xiangqi-datagen-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join(name);
    let _ = std::fs::remove_file(&p);
    p
}

fn small(path: &std::path::Path) -> Config {
    Config {
        out: Some(path.to_path_buf()),
        threads: 2,
        nodes: 400,
        games: Some(4),
        seed: 7,
        min_ply: 12,
        max_plies: 160,
        hash_mb: 2,
        ..Config::default()
    }
}

#[test]
fn a_few_games_are_written_read_back_and_resumed() {
    let path = out("smoke.bin");
    let cfg = small(&path);
    let mut lines = Vec::new();
    let s = datagen::generate(&cfg, &mut |l| lines.push(l.to_string())).unwrap();
    assert_eq!(s.games, 4);
    assert!(s.positions > 40, "{s:?}");
    assert!(lines.last().unwrap().contains("positions/s"), "{lines:?}");
    let records = data::read_all(&path, None).unwrap();
    assert_eq!(records.len() as u64, s.positions);
    for r in &records {
        let pos = Position::from_setup(Setup {
            board: r.board.clone(),
            turn: r.turn,
            halfmoves: 0,
            fullmoves: 1,
        })
        .expect("a legal position");
        assert!(!pos.is_check(), "kept a position in check: {}", pos.fen());
        assert!(
            (r.score as i32).abs() < cfg.decided,
            "kept a decided score {}",
            r.score
        );
    }
    // A second run appends after the first.
    let more = Config {
        games: Some(2),
        first_game: 4,
        ..cfg.clone()
    };
    let s2 = datagen::generate(&more, &mut |_| {}).unwrap();
    assert_eq!(s2.total, s.positions + s2.positions);
    let mut r = DataReader::open(&path).unwrap();
    let n = r.by_ref().inspect(|x| assert!(x.is_ok(), "{x:?}")).count() as u64;
    assert_eq!(n, s2.total);
    assert_eq!(r.truncated, 0);
}

#[test]
fn a_game_depends_on_the_seed_and_its_index_not_on_earlier_games() {
    let path = out("unused.bin");
    let cfg = small(&path);
    let mut a = Engine::new();
    a.set_option("Hash", "2").unwrap();
    let mut b = Engine::new();
    b.set_option("Hash", "2").unwrap();
    let g1 = datagen::play_game(&mut a, &cfg, 3);
    let _ = datagen::play_game(&mut b, &cfg, 1);
    let g2 = datagen::play_game(&mut b, &cfg, 3);
    assert_eq!(g1, g2);
    assert_ne!(g1, datagen::play_game(&mut a, &cfg, 4));
}

#[test]
fn the_command_line_checks_its_arguments() {
    let exe = env!("CARGO_BIN_EXE_xiangqi-engine");
    for (args, want) in [
        (
            vec!["datagen"],
            "--out FILE or --games-out FILE is required",
        ),
        (
            vec!["datagen", "--out", "x.bin", "--nodes", "many"],
            "'many' is not",
        ),
        (
            vec!["datagen", "--out", "x.bin", "--threads", "0"],
            "--threads 0",
        ),
        (
            vec!["datagen", "--out", "x.bin", "--colour", "red"],
            "unknown option '--colour'",
        ),
        (vec!["datagen", "--out"], "--out needs a value"),
        (
            vec!["datagen", "--out", "x.bin", "--walk"],
            "--walk makes games without a search",
        ),
    ] {
        let o = Command::new(exe).args(&args).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
    }
    // A foreign file is refused, not appended to.
    let path = out("foreign.bin");
    std::fs::write(&path, b"not training data at all").unwrap();
    let o = Command::new(exe)
        .args(["datagen", "--out", path.to_str().unwrap(), "--games", "1"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a training-data file"));
    assert_eq!(std::fs::read(&path).unwrap(), b"not training data at all");
    // A network that cannot be loaded is refused before anything is written.
    let data = out("never.bin");
    let o = Command::new(exe)
        .args(["datagen", "--out", data.to_str().unwrap(), "--games", "1"])
        .args(["--eval", "/nonexistent/net.nnue"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--eval") && err.contains("/nonexistent/net.nnue"),
        "{err}"
    );
    assert!(!data.exists());
}

/// The binary's progress: a bar on a terminal (util-linux `script` gives it one), the plain
/// progress lines and no bar when stderr is a pipe.
#[test]
fn the_binary_shows_a_bar_on_a_terminal_and_lines_when_piped() {
    let bin = env!("CARGO_BIN_EXE_xiangqi-engine");
    let d = std::env::temp_dir().join(format!("xiangqi-datagen-bar-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let piped_out = d.join("piped.bin");
    let o = std::process::Command::new(bin)
        .args(["datagen", "--out", piped_out.to_str().unwrap()])
        .args(["--games", "2", "--nodes", "300"])
        .output()
        .unwrap();
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("datagen: done: 2 games"), "{err}");
    assert!(
        !err.contains("[=") && !err.contains('\u{1b}'),
        "a bar on a pipe: {err:?}"
    );
    let has_script = std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_script {
        assert!(
            std::env::var_os("CI").is_none(),
            "util-linux `script` is needed for the terminal test"
        );
        eprintln!("skipped: no util-linux script");
        return;
    }
    let tty_out = d.join("tty.bin");
    let cmd = format!(
        "{bin} datagen --out {} --games 2 --nodes 300",
        tty_out.display()
    );
    let o = std::process::Command::new("script")
        .args(["-qfec", &cmd, "/dev/null"])
        .env("TERM", "xterm-256color")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(o.status.success());
    let screen = String::from_utf8_lossy(&o.stdout);
    assert!(
        screen.contains("datagen [") && screen.contains("/2 games"),
        "no bar: {screen:?}"
    );
    assert!(screen.contains("datagen: done: 2 games"), "{screen:?}");
    std::fs::remove_dir_all(&d).ok();
}

/// The games of `--games-out` (self-play and `--walk`) as our record reader reads them: every
/// game's moves legal from the start, its result, and the same games again from the same seed.
#[test]
fn games_out_writes_pgn_that_reads_back() {
    use xiangqi_record::{detect::read_any, GameResult};
    let games = out("games.pgn");
    let data = out("games.bin");
    let cfg = Config {
        games_out: Some(games.clone()),
        games: Some(2),
        nodes: 64,
        ..small(&data)
    };
    datagen::generate(&cfg, &mut |_| {}).unwrap();
    let walk = out("walk.pgn");
    let walk_cfg = Config {
        out: None,
        games_out: Some(walk.clone()),
        walk: true,
        games: Some(300),
        ..small(&data)
    };
    let s = datagen::generate(&walk_cfg, &mut |_| {}).unwrap();
    assert_eq!((s.games, s.positions), (300, 0));
    for (path, n) in [(&games, 2), (&walk, 300)] {
        let bytes = std::fs::read(path).unwrap();
        let all = read_any(&bytes).unwrap();
        assert_eq!(all.games.len(), n, "{}", path.display());
        for g in &all.games {
            let g = g.as_ref().unwrap();
            assert_ne!(g.result, GameResult::Unknown);
            let mut pos = Position::new();
            let moves: Vec<_> = g.mainline().collect();
            assert!(moves.len() >= 10, "{} moves", moves.len());
            for m in moves {
                assert!(pos.is_legal(m));
                pos.play_unchecked(m);
            }
        }
    }
    // A game of the walk is decided by the seed and its number alone; openings are shared.
    let a = datagen::walk_game(&walk_cfg, 17);
    assert_eq!(a, datagen::walk_game(&walk_cfg, 17));
    assert_ne!(a, datagen::walk_game(&walk_cfg, 18));
    let mut firsts = std::collections::HashMap::new();
    for k in 0..300 {
        *firsts
            .entry(datagen::walk_game(&walk_cfg, k).moves[0])
            .or_insert(0) += 1;
    }
    let top = firsts.values().max().copied().unwrap_or(0);
    assert!(firsts.len() > 3 && top > 120, "{firsts:?}");
}
