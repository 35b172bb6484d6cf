//! Random command lines through the UCI loop (in-process): the loop must never panic, must
//! answer every `isready`, and must end on end of input.

use std::io::{Cursor, Write};
use std::sync::{Arc, Mutex};

use xiangqi_engine::uci::{run, Output};

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
    for round in 0..30 {
        let mut input = String::new();
        let mut readies = 0;
        for _ in 0..40 {
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
        let buf = Buffer::default();
        run(
            Cursor::new(input.clone()),
            Output::new(Box::new(buf.clone())),
        );
        let out = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        let n = out.lines().filter(|l| *l == "readyok").count();
        assert_eq!(n, readies, "round {round}: input\n{input}\noutput\n{out}");
    }
}
