//! The repetition rulings of `shared/data/rules/*.txt` (RULES.md §8), run in the normal test run.
//!
//! Each file's first line says at which occurrence its cases are ruled on. The AXF cases
//! (2nd occurrence) are also run under the default of 3 by appending the moves of their last
//! cycle once more. Every case is also run mirrored left-right (same verdict) and with the
//! colours swapped and the board turned over (the verdict's winner swapped).
//!
//! Set `XIANGQI_RULES_VERBOSE=1` to print every ruling with its explanation.

use std::io::Write;
use std::path::PathBuf;

use xiangqi::game::{Game, Outcome, Rules};
use xiangqi::{Color, Fen, FenError, Move, Position, PositionError};

/// Cases this implementation is known to rule differently from the data, by file and line
/// number; each is explained in docs/RULES-STATUS.md. The test fails if this list is wrong
/// either way (a regression or an improvement).
const KNOWN_FAILURES: &[(&str, usize)] = &[];

fn shared_dir() -> PathBuf {
    match std::env::var_os("XIANGQI_SHARED") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    }
}

#[derive(Clone, Debug)]
struct Case {
    file: &'static str,
    line: usize,
    name: String,
    fen: String,
    moves: Vec<String>,
    verdict: String,
}

fn load(file: &'static str) -> (u32, Vec<Case>) {
    let path = shared_dir().join("data/rules").join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e} (set XIANGQI_SHARED)", path.display()));
    let mut reps = None;
    let mut cases = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("# repetitions=") {
            reps = Some(rest.trim().parse::<u32>().expect("repetitions is a number"));
            continue;
        }
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = t.split('|').map(str::trim).collect();
        assert_eq!(fields.len(), 4, "{file}:{line_no}: expected 4 fields: {t}");
        cases.push(Case {
            file,
            line: line_no,
            name: fields[0].to_string(),
            fen: fields[1].to_string(),
            moves: fields[2].split_whitespace().map(str::to_string).collect(),
            verdict: fields[3].to_string(),
        });
    }
    (reps.expect("first line gives # repetitions=N"), cases)
}

/// A transformation of a whole game: board, moves and the expected winner.
#[derive(Copy, Clone, Debug, PartialEq)]
enum View {
    Plain,
    Mirrored,
    Swapped,
}

impl View {
    fn position(self, p: &Position) -> Position {
        match self {
            View::Plain => p.clone(),
            View::Mirrored => p.flip_horizontal(),
            View::Swapped => p.swap_colors(),
        }
    }
    fn mv(self, m: Move) -> Move {
        match self {
            View::Plain => m,
            View::Mirrored => m.flip_horizontal(),
            View::Swapped => m.flip_vertical(),
        }
    }
    fn color(self, c: Color) -> Color {
        match self {
            View::Swapped => !c,
            _ => c,
        }
    }
}

/// The case's start position. A few data FENs put a piece on a point it can never reach
/// (RULES.md §7 rejects those); the rulings still make sense, so they are read unvalidated
/// (docs/RULES-STATUS.md lists them).
fn data_position(case: &Case) -> Position {
    match Position::from_fen(&case.fen) {
        Ok(p) => p,
        Err(FenError::Position(PositionError::Unreachable { .. })) => {
            let fen: Fen = case.fen.parse().expect("the FEN parsed once");
            Position::from_setup_unchecked(fen.0)
        }
        Err(e) => panic!("{}:{}: bad FEN: {e}", case.file, case.line),
    }
}

/// Plays a case; returns the game (panics on bad data: the data is trusted to be legal).
fn play(case: &Case, reps: u32, view: View, extra_cycle: bool) -> Game {
    let start = data_position(case);
    let mut game = Game::with_rules(
        view.position(&start),
        Rules::default().with_repetitions(reps),
    );
    let mut plain = Game::with_rules(start, Rules::default().with_repetitions(reps));
    for (i, s) in case.moves.iter().enumerate() {
        let m = plain
            .position()
            .parse_uci(s)
            .unwrap_or_else(|e| panic!("{}:{}: move {} ({s}): {e}", case.file, case.line, i + 1));
        plain.push_unchecked(m);
        game.push(view.mv(m)).unwrap_or_else(|e| {
            panic!("{}:{}: {view:?} move {}: {e}", case.file, case.line, i + 1)
        });
    }
    if extra_cycle {
        // Under the default of 3: the moves up to the 2nd-occurrence ruling, then that
        // ruling's cycle once more (moves played after the ruling are dropped).
        let two = Game::with_rules(game.start().clone(), Rules::default().with_repetitions(2));
        let mut two = two;
        for m in game.moves() {
            two.push_unchecked(m);
        }
        if let Some(end) = two.ended_at() {
            let h = two.history();
            if h.occurrences_at(end) >= 2 {
                let first = h.first_occurrence_at(end);
                let mut g3 = Game::with_rules(
                    game.start().clone(),
                    Rules::default().with_repetitions(reps),
                );
                for p in 1..=end {
                    g3.push_unchecked(h.move_at(p).expect("a move"));
                }
                for p in first + 1..=end {
                    g3.push(h.move_at(p).expect("a move"))
                        .expect("repeating a cycle is legal");
                }
                return g3;
            }
        }
    }
    game
}

fn matches(verdict: &str, outcome: Option<Outcome>, view: View) -> bool {
    match (verdict, outcome) {
        ("none", None) => true,
        ("ends", Some(_)) => true,
        ("draw", Some(o)) => o.winner.is_none(),
        ("red-wins", Some(o)) => o.winner == Some(view.color(Color::Red)),
        ("black-wins", Some(o)) => o.winner == Some(view.color(Color::Black)),
        _ => false,
    }
}

fn describe(game: &Game) -> String {
    match game.ruling() {
        Some(r) => format!("{}: {}", r.outcome, r),
        None => "ongoing".to_string(),
    }
}

struct Tally {
    passed: usize,
    at_two: bool,
    failed: Vec<(&'static str, usize)>,
}

fn run_file(file: &'static str, verbose: bool) -> (usize, Tally) {
    let (reps, cases) = load(file);
    let mut tally = Tally {
        passed: 0,
        at_two: reps == 2,
        failed: Vec::new(),
    };
    for case in &cases {
        let mut ok = true;
        let mut notes = Vec::new();
        let game = play(case, reps, View::Plain, false);
        if !matches(&case.verdict, game.outcome(), View::Plain) {
            ok = false;
            notes.push(format!("at {reps} occurrences: {}", describe(&game)));
        }
        if reps == 2 {
            let g3 = play(case, 3, View::Plain, true);
            if !matches(&case.verdict, g3.outcome(), View::Plain) {
                ok = false;
                notes.push(format!(
                    "at 3 occurrences (cycle appended): {}",
                    describe(&g3)
                ));
            }
        }
        if verbose {
            println!(
                "{file}:{} {} [{}] expected {} -> {}",
                case.line,
                if ok { "ok  " } else { "FAIL" },
                case.name,
                case.verdict,
                describe(&game)
            );
        }
        if ok {
            tally.passed += 1;
        } else {
            if !verbose {
                println!(
                    "{file}:{} FAIL [{}] expected {}",
                    case.line, case.name, case.verdict
                );
            }
            for n in notes {
                println!("    {n}");
            }
            tally.failed.push((file, case.line));
        }
    }
    (cases.len(), tally)
}

#[test]
fn rulings_match_the_data() {
    let verbose = std::env::var_os("XIANGQI_RULES_VERBOSE").is_some();
    let mut failed = Vec::new();
    for (file, expected_count) in [("fairy-stockfish.txt", 33), ("axf-rulebook.txt", 171)] {
        let (total, tally) = run_file(file, verbose);
        assert_eq!(total, expected_count, "{file}: case count");
        // Written to stderr directly (not through the captured `println!`), so the counts show
        // in a normal `cargo test` run.
        let _ = writeln!(
            std::io::stderr(),
            "rules data: {file}: {}/{total} passed{}",
            tally.passed,
            if tally.at_two {
                " (at 2 occurrences, and at 3 with the cycle appended)"
            } else {
                ""
            }
        );
        failed.extend(tally.failed);
    }
    assert_eq!(
        failed, KNOWN_FAILURES,
        "the failing cases differ from the known list (update docs/RULES-STATUS.md)"
    );
}

#[test]
fn rulings_are_symmetric() {
    let mut problems = Vec::new();
    for file in ["fairy-stockfish.txt", "axf-rulebook.txt"] {
        let (reps, cases) = load(file);
        for case in &cases {
            let extras: &[bool] = if reps == 2 { &[false, true] } else { &[false] };
            for &extra in extras {
                let r = if extra { 3 } else { reps };
                let plain = play(case, r, View::Plain, extra).outcome();
                for view in [View::Mirrored, View::Swapped] {
                    let got = play(case, r, view, extra).outcome();
                    let want = plain.map(|o| Outcome {
                        winner: o.winner.map(|c| view.color(c)),
                        reason: o.reason,
                    });
                    if got != want {
                        problems.push(format!(
                            "{file}:{} [{}] {view:?} at {r}: {got:?}, plain {plain:?}",
                            case.line, case.name
                        ));
                    }
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "asymmetric rulings:\n{}",
        problems.join("\n")
    );
}
