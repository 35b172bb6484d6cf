//! NNUE inference: incremental accumulators, symmetry, SIMD against the fallback on the positions
//! of real games, the integer net against the float net, and searching with a network through
//! the options.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use xiangqi::{Color, Position};
use xiangqi_engine::nnue::{Accumulator, Kernel, Nnue};
use xiangqi_engine::{embedded_net, Engine, Event, Limits, EMBEDDED_NET};
use xiangqi_nnue::net::{Arch, FloatNet, QuantisedNet, SplitMix};
use xiangqi_nnue::KingBuckets;
use xiangqi_record::detect::read_any;
use xiangqi_record::{GameRecord, MoveNode};

fn net(buckets: KingBuckets, seed: u64) -> (FloatNet, Arc<QuantisedNet>) {
    let f = FloatNet::random(
        Arch {
            hidden: 256,
            buckets,
            outputs: 8,
        },
        seed,
    );
    let q = Arc::new(f.quantise());
    (f, q)
}

/// A random game of up to `plies` moves: the positions and the moves.
fn random_game(rng: &mut SplitMix, plies: usize) -> Vec<Position> {
    let mut pos = Position::new();
    let mut out = vec![pos.clone()];
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        pos.play_unchecked(moves[rng.below(moves.len())]);
        out.push(pos.clone());
    }
    out
}

#[test]
fn incremental_accumulators_equal_scratch_after_every_move_and_unmake() {
    for buckets in [KingBuckets::None, KingBuckets::Palace] {
        let (_, q) = net(buckets, 1);
        let nnue = Nnue::new(q.clone());
        let mut rng = SplitMix(2);
        for _ in 0..8 {
            let mut pos = Position::new();
            // The stack of accumulators a search keeps: make pushes, unmake pops.
            let mut stack = vec![nnue.accumulator(pos.board())];
            let mut positions = vec![pos.clone()];
            for ply in 0..300 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                // Now and then unmake a few moves and go another way.
                if ply % 37 == 36 && positions.len() > 4 {
                    for _ in 0..3 {
                        stack.pop();
                        positions.pop();
                    }
                    pos = positions.last().unwrap().clone();
                    assert_eq!(stack.last().unwrap(), &nnue.accumulator(pos.board()));
                    continue;
                }
                let m = moves[rng.below(moves.len())];
                let piece = pos.piece_at(m.from()).unwrap();
                let captured = pos.play_unchecked(m);
                let mut child = stack.last().unwrap().clone();
                nnue.make(
                    stack.last().unwrap(),
                    &mut child,
                    pos.board(),
                    piece,
                    m.from(),
                    m.to(),
                    captured,
                );
                let scratch = nnue.accumulator(pos.board());
                assert_eq!(child, scratch, "{buckets:?} after {m} in {}", pos.fen());
                assert_eq!(
                    nnue.evaluate(&child, pos.board(), pos.turn()),
                    q.evaluate(pos.board(), pos.turn())
                );
                stack.push(child);
                positions.push(pos.clone());
            }
        }
    }
}

#[test]
fn mirror_images_evaluate_equally_and_colour_flips_as_negated() {
    let (_, q) = net(KingBuckets::Palace, 3);
    let nnue = Nnue::new(q);
    let mut rng = SplitMix(4);
    let eval = |p: &Position| nnue.evaluate(&nnue.accumulator(p.board()), p.board(), p.turn());
    // From Red's side.
    let red = |p: &Position| {
        if p.turn() == Color::Red {
            eval(p)
        } else {
            -eval(p)
        }
    };
    let mut distinct = std::collections::BTreeSet::new();
    for _ in 0..4 {
        for pos in random_game(&mut rng, 150) {
            let e = eval(&pos);
            distinct.insert(e);
            assert_eq!(eval(&pos.flip_horizontal()), e, "mirror of {}", pos.fen());
            // The same game seen by the other side: the same for the side to move, the
            // negation from Red's side.
            let flipped = pos.swap_colors();
            assert_eq!(eval(&flipped), e, "colour flip of {}", pos.fen());
            assert_eq!(red(&flipped), -red(&pos));
        }
    }
    // (A random net evaluates within a few tens of centipawns.)
    assert!(
        distinct.len() > 30,
        "the net distinguishes positions: {distinct:?}"
    );
}

/// Whether this is a CI run (`CI=true`), where a missing prerequisite fails instead of
/// skipping.
fn in_ci() -> bool {
    std::env::var("CI").as_deref() == Ok("true")
}

/// The shared record set, `$XIANGQI_SHARED/data/records` (by default `<workspace>/../shared`);
/// `None`, after saying so, when it is missing outside CI. Under CI=true a missing set fails.
fn shared_records() -> Option<PathBuf> {
    let shared = match std::env::var_os("XIANGQI_SHARED") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    };
    let dir = shared.join("data/records");
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        !in_ci(),
        "the shared record set is not at {} and CI=true: the SIMD test needs its real games \
         (set XIANGQI_SHARED to the shared directory)",
        dir.display()
    );
    eprintln!(
        "SKIPPED: the shared record set is not at {} (set XIANGQI_SHARED); under CI=true this \
         fails",
        dir.display()
    );
    None
}

/// The directories of the record set whose games the SIMD test replays.
const RECORD_DIRS: &[&str] = &["pgn-iccs", "pgn-wxf", "pgn-chinese", "xqf"];

/// Every game that reads in [`RECORD_DIRS`], each with its file and number for messages.
fn real_games(records: &Path) -> Vec<(String, GameRecord)> {
    let mut out = Vec::new();
    for dir in RECORD_DIRS {
        let mut files: Vec<PathBuf> = std::fs::read_dir(records.join(dir))
            .unwrap_or_else(|e| panic!("{}: {e}", records.join(dir).display()))
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for f in files {
            let bytes = std::fs::read(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            let name = format!("{dir}/{}", f.file_name().unwrap().to_string_lossy());
            // The record tests check which files and games read; broken games (the bad-move
            // test files) are left out here.
            let Ok(all) = read_any(&bytes) else { continue };
            for (i, g) in all.games.into_iter().enumerate() {
                if let Ok(g) = g {
                    out.push((format!("{name} game {}", i + 1), g));
                }
            }
        }
    }
    out
}

/// One network evaluated by both kernels.
struct Kernels {
    name: &'static str,
    net: Arc<QuantisedNet>,
    simd: Nnue,
    scalar: Nnue,
}

/// The AVX2 and the fallback accumulator of each network, kept move by move.
type Accs = Vec<(Accumulator, Accumulator)>;

/// Replays game records through both kernels and compares them at every position.
struct Comparison {
    nets: Vec<Kernels>,
    distinct: HashSet<u64>,
    compared: usize,
}

impl Comparison {
    fn start(&mut self, pos: &Position, what: &str) -> Accs {
        let accs = self
            .nets
            .iter()
            .map(|k| {
                (
                    k.simd.accumulator(pos.board()),
                    k.scalar.accumulator(pos.board()),
                )
            })
            .collect();
        self.check(pos, &accs, what);
        accs
    }

    /// Plays `line` from `pos`, each move made incrementally on both kernels' accumulators;
    /// a variation starts from the position and accumulators before the move it replaces,
    /// as a search unmakes back to them.
    fn walk(&mut self, pos: &Position, accs: &Accs, line: &[MoveNode], what: &str) {
        let (mut pos, mut accs) = (pos.clone(), accs.clone());
        for (k, node) in line.iter().enumerate() {
            for v in &node.variations {
                self.walk(&pos, &accs, v, what);
            }
            let m = node.mv;
            assert!(pos.is_legal(m), "{what}: {m} is illegal in {}", pos.fen());
            let piece = pos.piece_at(m.from()).unwrap();
            let mut after = pos.clone();
            let captured = after.play_unchecked(m);
            let child: Accs = self
                .nets
                .iter()
                .zip(&accs)
                .map(|(k, (a, b))| {
                    let (mut a2, mut b2) = (a.clone(), b.clone());
                    let board = after.board();
                    k.simd
                        .make(a, &mut a2, board, piece, m.from(), m.to(), captured);
                    k.scalar
                        .make(b, &mut b2, board, piece, m.from(), m.to(), captured);
                    (a2, b2)
                })
                .collect();
            self.check(
                &after,
                &child,
                &format!("{what}, after move {} ({m})", k + 1),
            );
            (pos, accs) = (after, child);
        }
    }

    /// Both kernels' refresh and incremental accumulators are the same, and so are their
    /// evaluations for either side to move (and the trainer crate's own integer evaluation).
    fn check(&mut self, pos: &Position, accs: &Accs, what: &str) {
        let board = pos.board();
        for (k, (inc_simd, inc_scalar)) in self.nets.iter().zip(accs) {
            let name = k.name;
            let full_simd = k.simd.accumulator(board);
            let full_scalar = k.scalar.accumulator(board);
            assert_eq!(
                full_simd,
                full_scalar,
                "{name}: refresh, AVX2 against fallback; {what}: {}",
                pos.fen()
            );
            assert_eq!(
                inc_simd,
                &full_simd,
                "{name}: AVX2, incremental against refresh; {what}: {}",
                pos.fen()
            );
            assert_eq!(
                inc_scalar,
                &full_scalar,
                "{name}: fallback, incremental against refresh; {what}: {}",
                pos.fen()
            );
            for turn in Color::ALL {
                let e = k.scalar.evaluate(&full_scalar, board, turn);
                let all = [
                    k.simd.evaluate(&full_simd, board, turn),
                    k.simd.evaluate(inc_simd, board, turn),
                    k.scalar.evaluate(inc_scalar, board, turn),
                ];
                assert_eq!(
                    all,
                    [e; 3],
                    "{name}: AVX2 refresh, AVX2 incremental, fallback incremental against \
                     fallback refresh, {turn:?} to move; {what}: {}",
                    pos.fen()
                );
                if turn == pos.turn() {
                    assert_eq!(k.net.evaluate(board, turn), e, "{name}: {what}");
                }
            }
        }
        self.distinct.insert(pos.key());
        self.compared += 1;
    }
}

/// Positions of the shared record set's real games the SIMD test must compare at least.
const MIN_DISTINCT_POSITIONS: usize = 10_000;

/// The AVX2 kernels against the portable fallback, exactly (both are integer arithmetic), at
/// every position of every game in the shared record set's PGN and XQF files (main lines and
/// variations): the accumulator from scratch and the evaluation from it; and the incremental
/// path, each move made on both kernels' accumulators from the previous position's, a
/// variation going back to the accumulators before the move it replaces (a search's unmake).
/// With the embedded network (no king buckets) and a random net with palace buckets, whose
/// general moves refresh a perspective inside `make`. At least 10,000 distinct positions.
///
/// Without AVX2 this skips with a message, but under CI=true it fails: CI must run the SIMD
/// path. Missing shared data likewise skips, and fails under CI=true.
#[test]
fn simd_equals_the_portable_fallback_on_the_positions_of_real_games() {
    if !Kernel::Avx2.is_available() {
        assert!(
            !in_ci(),
            "this processor has no AVX2 and CI=true: the CI machine must have AVX2 so that the \
             SIMD kernels are tested against the fallback"
        );
        eprintln!(
            "SKIPPED: this processor has no AVX2, so only the fallback runs here; under \
             CI=true this fails"
        );
        return;
    }
    let Some(records) = shared_records() else {
        return;
    };
    let games = real_games(&records);
    let kernels = |name, net: Arc<QuantisedNet>| Kernels {
        name,
        simd: Nnue::with_kernel(net.clone(), Kernel::Avx2).unwrap(),
        scalar: Nnue::with_kernel(net.clone(), Kernel::Scalar).unwrap(),
        net,
    };
    let embedded = embedded_net();
    assert_eq!(
        embedded.arch.buckets,
        KingBuckets::None,
        "{:?}",
        embedded.arch
    );
    let mut c = Comparison {
        nets: vec![
            kernels("the embedded net", embedded),
            kernels("a random palace-bucket net", net(KingBuckets::Palace, 5).1),
        ],
        distinct: HashSet::new(),
        compared: 0,
    };
    for (what, g) in &games {
        let accs = c.start(&g.start, what);
        c.walk(&g.start, &accs, &g.moves, what);
    }
    eprintln!(
        "AVX2 and the fallback agree at {} positions ({} distinct) of {} real games, \
         with 2 nets",
        c.compared,
        c.distinct.len(),
        games.len()
    );
    assert!(
        c.distinct.len() >= MIN_DISTINCT_POSITIONS,
        "only {} distinct positions in the shared record set's games",
        c.distinct.len()
    );
}

/// The bound docs/NNUE.md states for a randomly initialised 256-neuron net.
const QUANT_TOLERANCE_CP: f32 = 10.0;

#[test]
fn the_quantised_net_agrees_with_the_float_net_within_the_stated_tolerance() {
    let (f, q) = net(KingBuckets::None, 7);
    let nnue = Nnue::new(q);
    let mut rng = SplitMix(8);
    let mut worst = 0.0f32;
    for _ in 0..4 {
        for pos in random_game(&mut rng, 150) {
            let i = nnue.evaluate(&nnue.accumulator(pos.board()), pos.board(), pos.turn()) as f32;
            worst = worst.max((i - f.evaluate(pos.board(), pos.turn())).abs());
        }
    }
    eprintln!("worst quantisation difference {worst} cp");
    assert!(worst <= QUANT_TOLERANCE_CP, "worst difference {worst} cp");
}

fn net_file(name: &str, buckets: KingBuckets) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("xiangqi-engine-nnue-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    net(buckets, 9).1.save(&path).unwrap();
    path
}

#[test]
fn searching_with_a_network_through_the_options() {
    let path = net_file("random.nnue", KingBuckets::Palace);
    let mut e = Engine::new();
    // By default the engine plays with the embedded network.
    assert!(e.options().use_nnue);
    assert!(Arc::ptr_eq(e.network(), &embedded_net()));
    let (best, events) = e.search(Limits::nodes(2000));
    assert!(best.is_some());
    assert!(
        !events.iter().any(|ev| matches!(ev, Event::Message(_))),
        "{events:?}"
    );
    // A bad file is refused with the reason, and nothing changes.
    let bad = path.with_file_name("missing.nnue");
    let err = e.set_option("EvalFile", bad.to_str().unwrap()).unwrap_err();
    assert!(
        err.contains("EvalFile") && err.contains("missing.nnue"),
        "{err}"
    );
    std::fs::write(path.with_file_name("junk.nnue"), b"junk").unwrap();
    let err = e
        .set_option(
            "EvalFile",
            path.with_file_name("junk.nnue").to_str().unwrap(),
        )
        .unwrap_err();
    assert!(err.contains("not a network file"), "{err}");
    assert!(Arc::ptr_eq(e.network(), &embedded_net()));
    e.set_option("EvalFile", path.to_str().unwrap()).unwrap();
    assert!(!Arc::ptr_eq(e.network(), &embedded_net()));
    assert_eq!(e.options().eval_file, path.to_str().unwrap());
    // Searches several positions of a game with the net (in debug builds every 16th evaluation
    // also checks the incremental accumulator against one from scratch).
    let mut rng = SplitMix(10);
    let game = random_game(&mut rng, 40);
    for pos in game.iter().step_by(8) {
        e.set_position(pos.clone(), &[]).unwrap();
        let (best, events) = e.search(Limits::nodes(4000));
        let best = best.expect("a move");
        assert!(pos.is_legal(best));
        assert!(
            !events.iter().any(|ev| matches!(ev, Event::Message(_))),
            "{events:?}"
        );
    }
    // Helper threads keep their own accumulators.
    e.set_option("Threads", "2").unwrap();
    let (best, events) = e.search(Limits::nodes(20000));
    assert!(e.position().is_legal(best.unwrap()));
    assert!(
        !events.iter().any(|ev| matches!(ev, Event::Message(_))),
        "{events:?}"
    );
    e.set_option("Threads", "1").unwrap();
    // Off: the classical evaluation, and the same node counts as a fresh engine with the
    // classical evaluation, whichever network is loaded.
    e.set_option("Use NNUE", "false").unwrap();
    e.set_position(Position::new(), &[]).unwrap();
    e.new_game();
    let (_, ev1) = e.search(Limits::depth(6));
    let mut fresh = Engine::new();
    fresh.set_option("Use NNUE", "false").unwrap();
    let (_, ev2) = fresh.search(Limits::depth(6));
    let nodes = |ev: &[Event]| {
        ev.iter()
            .rev()
            .find_map(|x| match x {
                Event::Info(i) => Some(i.nodes),
                _ => None,
            })
            .unwrap()
    };
    assert_eq!(nodes(&ev1), nodes(&ev2));
    // Back to the embedded network.
    e.set_option("EvalFile", "<empty>").unwrap();
    assert!(Arc::ptr_eq(e.network(), &embedded_net()));
    assert_eq!(e.options().eval_file, "");
}

#[test]
fn the_engine_evaluates_positions_with_the_network_it_loaded() {
    let path = net_file("eval.nnue", KingBuckets::None);
    let q = QuantisedNet::load(&path).unwrap();
    let mut e = Engine::new();
    e.set_position_text(None, &["h2e2", "h9g7"]).unwrap();
    let pos = e.position().clone();
    assert_eq!(
        e.nnue_evaluation(),
        embedded_net().evaluate(pos.board(), pos.turn())
    );
    e.set_option("EvalFile", path.to_str().unwrap()).unwrap();
    assert_eq!(e.nnue_evaluation(), q.evaluate(pos.board(), pos.turn()));
}

#[test]
fn the_embedded_network_is_a_valid_net_of_at_most_8_mb() {
    assert!(
        EMBEDDED_NET.len() <= 8 << 20,
        "{} bytes",
        EMBEDDED_NET.len()
    );
    let net = QuantisedNet::from_bytes(EMBEDDED_NET, "embedded").unwrap();
    assert!(net.arch.hidden >= 256, "{:?}", net.arch);
    // It knows the start position is about level, and a chariot up is winning.
    let start = Position::new();
    let level = net.evaluate(start.board(), start.turn());
    assert!(level.abs() < 100, "start position: {level} cp");
    let up = Position::from_fen("rnbakabn1/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w")
        .unwrap();
    let v = net.evaluate(up.board(), up.turn());
    assert!(v > 300, "a chariot up: {v} cp");
}

#[test]
fn reduced_strength_levels_keep_the_classical_evaluation() {
    // The levels' calibration (docs/STRENGTH.md) was measured with the classical evaluation:
    // below full strength the search is the same whether `Use NNUE` is on or off.
    let run = |nnue: &str| {
        let mut e = Engine::new();
        e.set_seed(5);
        e.set_option("Skill Level", "12").unwrap();
        e.set_option("Use NNUE", nnue).unwrap();
        let (best, events) = e.search(Limits::nodes(30_000));
        let nodes: u64 = events
            .iter()
            .filter_map(|x| match x {
                Event::Info(i) => Some(i.nodes),
                _ => None,
            })
            .sum();
        (best, nodes)
    };
    assert_eq!(run("true"), run("false"));
    // At full strength the network changes the search.
    let full = |nnue: &str| {
        let mut e = Engine::new();
        e.set_option("Use NNUE", nnue).unwrap();
        let (_, events) = e.search(Limits::depth(7));
        events
            .iter()
            .filter_map(|x| match x {
                Event::Info(i) => Some(i.nodes),
                _ => None,
            })
            .sum::<u64>()
    };
    assert_ne!(full("true"), full("false"));
}
