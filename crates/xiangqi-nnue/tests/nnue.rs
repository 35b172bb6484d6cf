//! The data format, the features, the network files and the trainer.

use std::collections::BTreeSet;
use std::io::Write;
use std::process::Command;

use xiangqi::{Color, Position, Role};
use xiangqi_nnue::data::{
    self, DataReader, DataWriter, GameResult, Record, HEADER_LEN, RECORD_LEN,
};
use xiangqi_nnue::features::{self, Change, KingBuckets};
use xiangqi_nnue::net::{Arch, Checkpoint, FloatNet, QuantisedNet, SplitMix, QB_MAX};
use xiangqi_nnue::train::{self, Config};

fn tmp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("xiangqi-nnue-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// Positions of random games (each game up to `plies` moves).
fn random_positions(seed: u64, games: usize, plies: usize) -> Vec<Position> {
    let mut rng = SplitMix(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut pos = Position::new();
        for _ in 0..plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves[rng.below(moves.len())];
            pos.play_unchecked(m);
            out.push(pos.clone());
        }
    }
    out
}

fn record(pos: &Position, i: usize) -> Record {
    Record {
        board: pos.board().clone(),
        turn: pos.turn(),
        score: (i as i16).wrapping_mul(37) - 500,
        result: [GameResult::RedWin, GameResult::Draw, GameResult::BlackWin][i % 3],
    }
}

#[test]
fn records_round_trip_through_the_file_and_resume_appends() {
    let positions = random_positions(1, 4, 120);
    let records: Vec<Record> = positions
        .iter()
        .enumerate()
        .map(|(i, p)| record(p, i))
        .collect();
    let path = tmp("roundtrip.bin");
    let _ = std::fs::remove_file(&path);
    let mut w = DataWriter::open(&path).unwrap();
    assert_eq!(w.records(), 0);
    let half = records.len() / 2;
    w.append(&records[..half]).unwrap();
    drop(w);
    // A second run appends after the first.
    let mut w = DataWriter::open(&path).unwrap();
    assert_eq!(w.records(), half as u64);
    w.append(&records[half..]).unwrap();
    drop(w);
    let len = std::fs::metadata(&path).unwrap().len() as usize;
    assert_eq!(len, HEADER_LEN + records.len() * RECORD_LEN);
    let back = data::read_all(&path, None).unwrap();
    assert_eq!(back, records);
}

#[test]
fn an_interrupted_write_leaves_a_readable_file_and_resuming_cuts_the_partial_record() {
    let positions = random_positions(2, 1, 60);
    let records: Vec<Record> = positions
        .iter()
        .enumerate()
        .map(|(i, p)| record(p, i))
        .collect();
    let path = tmp("truncated.bin");
    let _ = std::fs::remove_file(&path);
    DataWriter::open(&path).unwrap().append(&records).unwrap();
    // Half a record more, as a killed writer would leave.
    let partial = records[0].encode().unwrap();
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(&partial[..13])
        .unwrap();
    let mut r = DataReader::open(&path).unwrap();
    let mut n = 0;
    while let Some(rec) = r.next_record() {
        assert_eq!(rec.unwrap(), records[n]);
        n += 1;
    }
    assert_eq!(n, records.len());
    assert_eq!(r.truncated, 13);
    // Resuming cuts the 13 bytes off and appends whole records after the last good one.
    let mut w = DataWriter::open(&path).unwrap();
    assert_eq!(w.records(), records.len() as u64);
    w.append(&records[..2]).unwrap();
    let back = data::read_all(&path, None).unwrap();
    assert_eq!(back.len(), records.len() + 2);
    assert_eq!(&back[records.len()..], &records[..2]);
}

#[test]
fn damaged_data_gives_errors_that_say_where() {
    let path = tmp("bad-header.bin");
    std::fs::write(&path, b"NOTDATA\0\x01\0\x20\0\0\0\0\0").unwrap();
    let e = DataReader::open(&path).err().unwrap().to_string();
    assert!(e.contains("not a training-data file"), "{e}");
    assert!(
        DataWriter::open(&path).is_err(),
        "the writer must not append to a foreign file"
    );
    // A header cut short by a killed first run is written again.
    let cut = tmp("cut-header.bin");
    std::fs::write(&cut, b"XQNNDA").unwrap();
    let mut w = DataWriter::open(&cut).unwrap();
    assert_eq!(w.records(), 0);
    w.append(&[record(&Position::new(), 0)]).unwrap();
    assert_eq!(data::read_all(&cut, None).unwrap().len(), 1);
    std::fs::write(&cut, b"hello").unwrap();
    assert!(DataWriter::open(&cut).is_err());
    assert_eq!(std::fs::read(&cut).unwrap(), b"hello");
    let mut h = std::fs::read(&path).unwrap();
    h[..8].copy_from_slice(b"XQNNDATA");
    h[8] = 9;
    std::fs::write(&path, &h).unwrap();
    let e = DataReader::open(&path).err().unwrap().to_string();
    assert!(e.contains("version 9"), "{e}");

    let path = tmp("bad-record.bin");
    let _ = std::fs::remove_file(&path);
    let rec = record(&Position::new(), 0);
    DataWriter::open(&path)
        .unwrap()
        .append(&[rec.clone(), rec])
        .unwrap();
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[HEADER_LEN + RECORD_LEN + 30] = 7; // the second record's result
    std::fs::write(&path, &bytes).unwrap();
    let e = data::read_all(&path, None).err().unwrap().to_string();
    assert!(
        e.contains("record 1") && e.contains("byte 48") && e.contains("result code 7"),
        "{e}"
    );
}

fn feature_set(pos: &Position, p: Color, b: KingBuckets) -> BTreeSet<u16> {
    let mut v = Vec::new();
    features::active(pos.board(), p, b, &mut v);
    let n = v.len();
    let s: BTreeSet<u16> = v.into_iter().collect();
    assert_eq!(s.len(), n, "features are distinct");
    assert!(s.iter().all(|&f| (f as usize) < b.inputs()));
    s
}

#[test]
fn mirrored_and_colour_flipped_positions_have_the_same_features() {
    for b in [KingBuckets::None, KingBuckets::Palace] {
        for pos in random_positions(3, 6, 150) {
            let m = pos.flip_horizontal();
            let s = pos.swap_colors();
            for p in Color::ALL {
                let f = feature_set(&pos, p, b);
                assert_eq!(f, feature_set(&m, p, b), "mirror of {}", pos.fen());
                assert_eq!(f, feature_set(&s, !p, b), "colour flip of {}", pos.fen());
            }
        }
    }
}

#[test]
fn a_move_changes_the_features_it_says_it_changes() {
    for b in [KingBuckets::None, KingBuckets::Palace] {
        let mut rng = SplitMix(4);
        let mut refreshes = 0;
        let mut moves = 0;
        for _ in 0..6 {
            let mut pos = Position::new();
            for _ in 0..200 {
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                let m = legal[rng.below(legal.len())];
                let piece = pos.piece_at(m.from()).unwrap();
                let before: Vec<_> = Color::ALL
                    .iter()
                    .map(|&p| (feature_set(&pos, p, b), features::view(pos.board(), p, b)))
                    .collect();
                let captured = pos.play_unchecked(m);
                moves += 1;
                for (i, &p) in Color::ALL.iter().enumerate() {
                    let after = feature_set(&pos, p, b);
                    match features::changes(
                        pos.board(),
                        p,
                        b,
                        before[i].1,
                        piece,
                        m.from(),
                        m.to(),
                        captured,
                    ) {
                        Change::Delta { removed, added } => {
                            let mut f = before[i].0.clone();
                            for r in removed.into_iter().flatten() {
                                assert!(f.remove(&r));
                            }
                            assert!(f.insert(added));
                            assert_eq!(f, after);
                        }
                        Change::Refresh(v) => {
                            refreshes += 1;
                            assert_eq!(v, features::view(pos.board(), p, b));
                        }
                    }
                }
            }
        }
        assert!(
            refreshes < moves,
            "most moves are incremental ({refreshes} of {moves})"
        );
    }
}

fn arch(hidden: usize, buckets: KingBuckets) -> Arch {
    Arch {
        hidden,
        buckets,
        outputs: 8,
    }
}

#[test]
fn network_files_round_trip_and_damage_is_detected() {
    let net = FloatNet::random(arch(32, KingBuckets::Palace), 5).quantise();
    let bytes = net.to_bytes();
    assert_eq!(QuantisedNet::from_bytes(&bytes, "net").unwrap(), net);
    let path = tmp("net.nnue");
    net.save(&path).unwrap();
    assert_eq!(QuantisedNet::load(&path).unwrap(), net);
    // `train --init` starts from the float net a file stands for: quantised again with the
    // file's factor, it is the file.
    assert_eq!(net.dequantise().quantise_with(net.qb), net);

    let mut bad = bytes.clone();
    bad[100] ^= 1;
    let e = QuantisedNet::from_bytes(&bad, "net")
        .unwrap_err()
        .to_string();
    assert!(e.contains("checksum"), "{e}");
    let e = QuantisedNet::from_bytes(&bytes[..bytes.len() / 2], "net")
        .unwrap_err()
        .to_string();
    assert!(e.contains("checksum"), "{e}");
    let e = QuantisedNet::from_bytes(b"hello", "net")
        .unwrap_err()
        .to_string();
    assert!(e.contains("not a network file"), "{e}");
    let mut v2 = bytes.clone();
    v2[8] = 2;
    let e = QuantisedNet::from_bytes(&v2, "net")
        .unwrap_err()
        .to_string();
    assert!(e.contains("version 2"), "{e}");

    let ck = Checkpoint::new(FloatNet::random(arch(16, KingBuckets::None), 6));
    let back = Checkpoint::from_bytes(&ck.to_bytes(), "ck").unwrap();
    assert_eq!(back, ck);
}

#[test]
fn each_net_gets_the_largest_safe_output_factor_and_unsafe_files_are_refused() {
    // Small output weights get a large factor (their largest quantised weight near 127).
    let mut f = FloatNet::random(arch(32, KingBuckets::None), 11);
    for w in &mut f.out_w {
        *w *= 2.0;
    }
    let q = f.quantise();
    let top = q.out_w.iter().map(|w| w.unsigned_abs()).max().unwrap();
    assert!(
        q.qb > 64 && (120..=127).contains(&top),
        "QB {} top {top}",
        q.qb
    );
    assert_eq!(QuantisedNet::from_bytes(&q.to_bytes(), "net").unwrap(), q);
    // Weights at the trainer's clip in a wide net: the factor is bounded by the largest
    // output sum, not by the weights, and the net passes the range check.
    let mut wide = FloatNet::random(arch(1024, KingBuckets::None), 12);
    for w in &mut wide.out_w {
        *w = if *w < 0.0 { -1.9 } else { 1.9 };
    }
    let qw = wide.quantise();
    assert!(qw.qb < 64, "QB {}", qw.qb);
    qw.check_output_range().unwrap();
    // A file whose output sum could overflow i32 is refused, naming the bucket.
    let mut over = f.quantise_with(64);
    over.arch = arch(1024, KingBuckets::None);
    over.ft_w = vec![0; over.arch.inputs() * 1024];
    over.ft_b = vec![0; 1024];
    over.out_w = vec![127; 8 * 2 * 1024];
    let e = QuantisedNet::from_bytes(&over.to_bytes(), "big.nnue")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("big.nnue: the output sum of bucket 0 can reach"),
        "{e}"
    );
    // A factor outside 1..=QB_MAX is refused.
    for qb in [0, QB_MAX + 1] {
        let mut bad = q.clone();
        bad.qb = qb;
        let e = QuantisedNet::from_bytes(&bad.to_bytes(), "net")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!("QB is {qb}, this build reads 1 to")),
            "{e}"
        );
    }
}

/// Quantisation error bound stated in docs/NNUE.md.
const QUANT_TOLERANCE_CP: f32 = 10.0;

#[test]
fn the_quantised_net_agrees_with_the_float_net() {
    for b in [KingBuckets::None, KingBuckets::Palace] {
        let f = FloatNet::random(arch(256, b), 7);
        let q = f.quantise();
        let mut worst = 0.0f32;
        for pos in random_positions(8, 4, 100) {
            let fe = f.evaluate(pos.board(), pos.turn());
            let qe = q.evaluate(pos.board(), pos.turn()) as f32;
            worst = worst.max((fe - qe).abs());
        }
        eprintln!("{b:?}: worst quantisation difference {worst} cp");
        assert!(
            worst <= QUANT_TOLERANCE_CP,
            "{b:?}: worst difference {worst} cp"
        );
    }
}

#[test]
fn the_float_and_quantised_nets_are_mirror_and_colour_symmetric() {
    let f = FloatNet::random(arch(64, KingBuckets::Palace), 9);
    let q = f.quantise();
    for pos in random_positions(10, 3, 120) {
        for p in [pos.flip_horizontal(), pos.swap_colors()] {
            assert_eq!(
                q.evaluate(pos.board(), pos.turn()),
                q.evaluate(p.board(), p.turn())
            );
            // The same features, summed in another order.
            let (a, b) = (
                f.evaluate(pos.board(), pos.turn()),
                f.evaluate(p.board(), p.turn()),
            );
            assert!((a - b).abs() < 1e-3, "{a} {b}");
        }
    }
}

/// A material count the tiny net can learn.
fn material(pos: &Position) -> i32 {
    let v = [0, 120, 120, 400, 900, 450, 100];
    let mut s = 0;
    for (_, p) in pos.board().pieces() {
        let x = v[p.role.index()];
        s += if p.color == pos.turn() { x } else { -x };
    }
    let _ = Role::General;
    s
}

#[test]
fn training_a_tiny_net_lowers_its_validation_loss() {
    let records: Vec<Record> = random_positions(11, 60, 140)
        .iter()
        .map(|p| Record {
            board: p.board().clone(),
            turn: p.turn(),
            score: material(p).clamp(-3000, 3000) as i16,
            result: GameResult::Draw,
        })
        .collect();
    let cfg = Config {
        arch: arch(32, KingBuckets::None),
        epochs: 12,
        batch: 256,
        lr: 0.01,
        lr_end: 0.001,
        lambda: 1.0,
        threads: 2,
        ..Config::default()
    };
    let (tr, va) = train::split(&records, &cfg, 0.1);
    assert!(tr.len() > 5000 && va.len() > 500);
    let mut ck = train::fresh(&cfg);
    let before = train::loss(&ck.net, &va, &cfg);
    let mut losses = Vec::new();
    train::train(&mut ck, &tr, &va, &cfg, None, &mut |r, _| {
        losses.push(r.val_loss)
    });
    assert_eq!(losses.len(), 12);
    let after = *losses.last().unwrap();
    assert!(
        after < before * 0.65,
        "validation loss {before} -> {after} ({losses:?})"
    );
    // The quantised net sees who is ahead in material.
    let q = ck.net.quantise();
    let (mut agree, mut n) = (0, 0);
    for r in records.iter().step_by(7) {
        let pos = Position::from_setup_unchecked(xiangqi::Setup {
            board: r.board.clone(),
            turn: r.turn,
            halfmoves: 0,
            fullmoves: 1,
        });
        let m = material(&pos);
        if m.abs() >= 400 {
            n += 1;
            agree += ((q.evaluate(&r.board, r.turn) > 0) == (m > 0)) as usize;
        }
    }
    assert!(n > 100 && agree * 10 >= n * 9, "{agree} of {n}");
    // Resuming from a checkpoint continues exactly where it stopped: the checkpoint saved
    // after epoch 4, loaded and trained on, gives the same net as the run in one go.
    let mut saved = None;
    let mut again = train::fresh(&cfg);
    train::train(&mut again, &tr, &va, &cfg, None, &mut |r, ck| {
        if r.epoch == 4 {
            saved = Some(ck.to_bytes());
        }
    });
    assert!(again == ck, "training is deterministic");
    let mut resumed = Checkpoint::from_bytes(&saved.unwrap(), "ck").unwrap();
    assert_eq!(resumed.epoch, 4);
    train::train(&mut resumed, &tr, &va, &cfg, None, &mut |_, _| {});
    assert_eq!(resumed.epoch, 12);
    assert!(resumed == ck, "the resumed run ends with the same net");
}

#[test]
fn the_command_line_trains_quantises_and_reports_errors() {
    let exe = env!("CARGO_BIN_EXE_xiangqi-nnue");
    let data = tmp("cli.bin");
    let _ = std::fs::remove_file(&data);
    let records: Vec<Record> = random_positions(12, 10, 100)
        .iter()
        .map(|p| Record {
            board: p.board().clone(),
            turn: p.turn(),
            score: material(p).clamp(-3000, 3000) as i16,
            result: GameResult::Draw,
        })
        .collect();
    DataWriter::open(&data).unwrap().append(&records).unwrap();
    let out = tmp("cli-run");
    let run = |args: &[&str]| Command::new(exe).args(args).output().unwrap();
    // `train` on the data into `dir`, in batches of 128, with more options.
    let train = |dir: &std::path::Path, more: &[&str]| {
        let dir = dir.to_str().unwrap();
        let base = ["train", "--data", data.to_str().unwrap(), "--out", dir];
        run(&[&base[..], &["--batch", "128"], more].concat())
    };
    let o = train(&out, &["--hidden", "16", "--epochs", "2", "--threads", "2"]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{stdout} {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        stdout.contains("epoch 2:") && stdout.contains("validation loss"),
        "{stdout}"
    );
    let net = QuantisedNet::load(&out.join("net.nnue")).unwrap();
    assert_eq!(net.arch.hidden, 16);
    let ck = out.join("epoch-2.ckpt");
    let again = out.join("again.nnue");
    assert!(
        run(&["quantise", ck.to_str().unwrap(), again.to_str().unwrap()])
            .status
            .success()
    );
    assert_eq!(QuantisedNet::load(&again).unwrap(), net);
    // Fine-tuning from the trained net starts where it ended, far below a fresh net's loss.
    let epoch0 = |stderr: &[u8]| -> f64 {
        let text = String::from_utf8_lossy(stderr);
        let line = text
            .lines()
            .find_map(|l| l.strip_prefix("epoch 0: validation loss "))
            .unwrap_or_else(|| panic!("no epoch 0 line in {text}"));
        line.trim().parse().unwrap()
    };
    let fresh_loss = epoch0(&o.stderr);
    let tuned = tmp("cli-init");
    let net_path = out.join("net.nnue");
    let init = ["--init", net_path.to_str().unwrap()];
    // (--hidden 32: the file's architecture wins.)
    let o = train(
        &tuned,
        &[
            &init[..],
            &["--hidden", "32", "--epochs", "1", "--lr", "0.0001"],
        ]
        .concat(),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let init_loss = epoch0(&o.stderr);
    // The first run's last validation loss (the quantised net differs from its float net a
    // little, so the loss it starts from is close to that, not equal).
    let last_loss: f64 = stdout
        .lines()
        .find_map(|l| l.strip_prefix("epoch 2: "))
        .and_then(|l| l.split("validation loss ").nth(1))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no epoch 2 validation loss in {stdout}"));
    eprintln!(
        "validation loss: fresh {fresh_loss}, trained {last_loss}, from its file {init_loss}"
    );
    assert!(
        init_loss < fresh_loss && (init_loss - last_loss).abs() < 0.25 * (fresh_loss - last_loss),
        "from the net {init_loss}, after training {last_loss}, fresh {fresh_loss}"
    );
    assert_eq!(
        QuantisedNet::load(&tuned.join("net.nnue")).unwrap().arch,
        net.arch
    );
    let o = run(&["info", data.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&o.stdout).contains(&format!("{} positions", records.len())));
    let o = run(&[
        "compare",
        ck.to_str().unwrap(),
        data.to_str().unwrap(),
        "200",
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{stdout}");
    assert!(
        stdout.starts_with("200 positions: quantised (QB ") && stdout.contains(") - float, mean "),
        "{stdout}"
    );
    for args in [
        vec!["help"],
        vec!["--help"],
        vec!["-h"],
        vec!["train", "--help"],
        vec!["compare", "-h"],
    ] {
        let o = run(&args);
        assert!(o.status.success(), "{args:?}");
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            out.starts_with("usage:") && out.contains("--king-buckets B"),
            "{args:?}: {out}"
        );
    }
    // `train --data x --out y` with each of these options.
    let bad_train = [
        (&["--hidden", "ten"][..], "'ten' is not"),
        (&["--king-buckets", "file"], "'file' is not none or palace"),
        (&["--hidden", "100"], "multiple of 16"),
        (&["--frobnicate"], "unknown option '--frobnicate'"),
        (
            &["--init", "a.nnue", "--resume", "b.ckpt"],
            "--resume and --init exclude each other",
        ),
        (&["--init", "/nonexistent/n.nnue"], "/nonexistent/n.nnue"),
    ]
    .map(|(more, want)| {
        let base = ["train", "--data", "x", "--out", "y"];
        ([&base[..], more].concat(), want)
    });
    for (args, want) in [
        (vec!["train", "--out", "x"], "--data FILE is required"),
        (vec!["train", "--data", "x"], "--out DIR is required"),
        (
            vec!["info", "/nonexistent/data.bin"],
            "/nonexistent/data.bin",
        ),
        (vec!["fly"], "unknown command 'fly'"),
    ]
    .into_iter()
    .chain(bad_train)
    {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

#[test]
fn the_validation_set_is_whole_blocks_of_consecutive_records() {
    let n = 64 * train::VAL_BLOCK + 100;
    let held = train::held_out(n, 7, 0.1);
    assert_eq!(held.len(), n);
    let count = held.iter().filter(|&&h| h).count();
    // About a tenth, in whole blocks (the short last block counts too).
    assert!(
        count >= n / 10 && count <= n / 10 + train::VAL_BLOCK,
        "{count}"
    );
    for block in held.chunks(train::VAL_BLOCK) {
        assert!(block.iter().all(|&h| h == block[0]));
    }
    // Seeded: the same seed holds out the same blocks, another seed others.
    assert_eq!(held, train::held_out(n, 7, 0.1));
    assert_ne!(held, train::held_out(n, 8, 0.1));
    assert!(train::held_out(n, 7, 0.0).iter().all(|&h| !h));
    assert!(train::held_out(10, 7, 1.0).iter().all(|&h| h));
    // A small file still gets a validation set of about the fraction asked for.
    let small = train::held_out(1000, 1, 0.05);
    let count = small.iter().filter(|&&h| h).count();
    assert!((50..=65).contains(&count), "{count}");
}
