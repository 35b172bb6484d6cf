//! Random command lines through the UCI loop (in-process): the loop must never panic, must
//! answer every `isready`, must end on end of input, and every `bestmove` must be legal in
//! the position the `go` was sent in (a model of the loop's position follows the input).

use std::io::{Cursor, Write};
use std::sync::{Arc, Mutex};

use xiangqi::Position;
use xiangqi_engine::uci::{parse_go, parse_go_ucci, run, GoCommand, Output};
use xiangqi_engine::Engine;

/// What the loop should be doing, followed line by line from its input: the position a
/// `go` searches, and for each `go` that starts a search, that position.
struct Model {
    oracle: Engine,
    ucci: bool,
    first: bool,
    /// Moves are banned (UCCI `banmoves`) until the next position.
    banned: bool,
    /// For each search started: its position and whether it may have no move to play.
    searches: Vec<(Position, bool)>,
}

impl Model {
    fn new() -> Model {
        Model {
            oracle: Engine::new(),
            ucci: false,
            first: true,
            banned: false,
            searches: Vec::new(),
        }
    }

    fn line(&mut self, line: &str) {
        let t: Vec<&str> = line.split_whitespace().collect();
        let Some(&cmd) = t.first() else { return };
        let first = std::mem::replace(&mut self.first, false);
        let args = &t[1..];
        match cmd {
            "uci" => self.ucci = false,
            "ucci" if first => self.ucci = true,
            "position" => {
                let mi = args.iter().position(|&w| w == "moves");
                let head = &args[..mi.unwrap_or(args.len())];
                let moves: &[&str] = mi.map_or(&[], |i| &args[i + 1..]);
                let fen = match head {
                    ["startpos"] => None,
                    ["fen", rest @ ..] if !rest.is_empty() => Some(rest.join(" ")),
                    _ => return,
                };
                if self.oracle.set_position_text(fen.as_deref(), moves).is_ok() {
                    self.banned = false;
                }
            }
            "banmoves" => {
                let pos = self.oracle.position();
                if args.iter().all(|m| pos.parse_uci(m).is_ok()) {
                    self.banned = true;
                }
            }
            "bench" => {
                // `bench` leaves the engine on its last position.
                let (fen, moves) = xiangqi_engine::bench::POSITIONS.last().unwrap();
                let fen = (*fen != "startpos").then_some(*fen);
                let moves: Vec<&str> = moves.split_whitespace().collect();
                self.oracle.set_position_text(fen, &moves).unwrap();
                self.banned = false;
            }
            "go" => {
                let pos = self.oracle.position().clone();
                let parsed = if self.ucci {
                    parse_go_ucci(args, &pos, false)
                } else {
                    parse_go(args, &pos)
                };
                if let Ok(GoCommand::Search(l)) = parsed {
                    let may_be_none = self.banned || !l.searchmoves.is_empty();
                    self.searches.push((pos, may_be_none));
                }
            }
            _ => {}
        }
    }
}

/// Checks the `bestmove` lines of `out` against the searches the model expected.
fn check_best_moves(model: &Model, out: &str, context: &str) {
    let best: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("bestmove") || *l == "nobestmove")
        .collect();
    assert_eq!(best.len(), model.searches.len(), "{context}");
    for (line, (pos, may_be_none)) in best.iter().zip(&model.searches) {
        match line.split_whitespace().nth(1) {
            None | Some("(none)") => assert!(
                *may_be_none || pos.legal_moves().is_empty(),
                "{line} in {}: {context}",
                pos.fen()
            ),
            Some(mv) => assert!(
                pos.parse_uci(mv).is_ok_and(|m| pos.is_legal(m)),
                "{line} is not legal in {}: {context}",
                pos.fen()
            ),
        }
    }
}

#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

const WORDS: &[&str] = &[
    "uci",
    "ucci",
    "isready",
    "ucinewgame",
    "position",
    "startpos",
    "fen",
    "moves",
    "go",
    "stop",
    "ponderhit",
    "quit",
    "d",
    "eval",
    "bench",
    "banmoves",
    "setoption",
    "name",
    "value",
    "Hash",
    "Threads",
    "MultiPV",
    "Skill",
    "Level",
    "UCI_Elo",
    "UCI_LimitStrength",
    "Ponder",
    "Clear",
    "depth",
    "nodes",
    "movetime",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "mate",
    "infinite",
    "ponder",
    "searchmoves",
    "perft",
    "time",
    "increment",
    "h2e2",
    "h9g7",
    "b0c2",
    "e2e9",
    "a0a9",
    "z9",
    "0",
    "1",
    "2",
    "3",
    "-1",
    "true",
    "false",
    "abc",
    "99999999999999999999",
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR",
    "w",
    "b",
    "-",
    "3k5/9/9",
    "\u{4e2d}",
    "bye",
];

#[test]
fn random_lines_never_break_the_loop() {
    let mut seed = 0x1234_5678_9abc_def1u64;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let mut searches = 0;
    for round in 0..30 {
        let mut input = String::new();
        let mut readies = 0;
        for _ in 0..40 {
            // Now and then a well-formed position (a random game) or search, so that many
            // searches run in many positions.
            if next(4) == 0 {
                let line = match next(3) {
                    0 => {
                        let mut pos = Position::new();
                        let mut moves = Vec::new();
                        for _ in 0..next(40) {
                            let legal = pos.legal_moves();
                            if legal.is_empty() {
                                break;
                            }
                            let m = legal[next(legal.len())];
                            moves.push(m.to_string());
                            pos.play_unchecked(m);
                        }
                        if next(2) == 0 {
                            format!("position startpos moves {}", moves.join(" "))
                        } else {
                            format!("position fen {}", pos.fen())
                        }
                    }
                    _ => ["go depth 2", "go nodes 400", "go movetime 10", "go depth 1"][next(4)]
                        .to_string(),
                };
                input.push_str(&line);
                input.push('\n');
                continue;
            }
            let len = 1 + next(6);
            let mut words: Vec<&str> = (0..len).map(|_| WORDS[next(WORDS.len())]).collect();
            // Keep searches and counts small so the test stays fast: a `go` gets a depth cap.
            if words[0] == "go" || words[0] == "bench" {
                words.retain(|w| {
                    !matches!(*w, "99999999999999999999" | "infinite" | "ponder" | "perft")
                });
                if words[0] == "go" {
                    words.extend(["depth", "2"]);
                } else {
                    words.truncate(1);
                    words.push("1");
                }
            }
            if words[0] == "setoption" {
                words.retain(|w| *w != "99999999999999999999");
            }
            if words[0] == "quit" || words[0] == "bye" {
                continue;
            }
            if words[0] == "isready" {
                readies += 1;
            }
            input.push_str(&words.join(" "));
            input.push('\n');
        }
        input.push_str("isready\n");
        readies += 1;
        let mut model = Model::new();
        for line in input.lines() {
            model.line(line);
        }
        let buf = Buffer::default();
        run(
            Cursor::new(input.clone()),
            Output::new(Box::new(buf.clone())),
        );
        let out = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        let n = out.lines().filter(|l| *l == "readyok").count();
        let context = format!("round {round}: input\n{input}\noutput\n{out}");
        assert_eq!(n, readies, "{context}");
        check_best_moves(&model, &out, &context);
        searches += model.searches.len();
    }
    assert!(searches >= 30, "only {searches} searches were checked");
    eprintln!("{searches} searches checked");
}
