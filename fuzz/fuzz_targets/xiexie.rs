//! Any text: the XieXie `.wxf` reader never panics, and every game it reads replays legally
//! and writes as PGN that reads back to the same game. The input is also wrapped in a XieXie
//! header and `START{ ... END}`, so mutations reach the move list.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xiangqi::notation::Notation;
use xiangqi_record::{pgn, xiexie};

#[path = "../../crates/xiangqi-record/tests/common/readers.rs"]
mod readers;

fn check(text: &str) {
    let _ = xiexie::looks_like(text);
    for game in xiexie::read_str(text).into_iter().flatten() {
        readers::replay_legally(&game.start, &game.moves);
        let written = pgn::write_games([&game], Notation::Wxf);
        let back = pgn::read_all(&written);
        assert_eq!(back.len(), 1, "{written}");
        match &back[0] {
            Ok(g) => assert_eq!(g.moves, game.moves, "{written}"),
            Err(e) => panic!("written game does not read back: {e}\n{written}"),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    check(&text);
    check(&format!("FORMAT WXF\nRED A\nBLACK B\nSTART{{\n{text}\nEND}}\n"));
});
