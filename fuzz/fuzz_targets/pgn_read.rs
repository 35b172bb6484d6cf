//! Any bytes: reading PGN never panics; every game read writes, in each notation, a PGN that
//! reads back to the same game (tags, start, comments, moves, variations, result).
#![no_main]

use libfuzzer_sys::fuzz_target;
use xiangqi::notation::Notation;
use xiangqi_record::pgn;

fuzz_target!(|data: &[u8]| {
    for game in pgn::read_bytes(data).into_iter().flatten() {
        for n in [Notation::Iccs, Notation::Wxf, Notation::Chinese] {
            let text = pgn::write_games([&game], n);
            let back = pgn::read_all(&text);
            assert_eq!(back.len(), 1, "{n}: {text}");
            match &back[0] {
                Ok(g) => assert_eq!(g, &game, "{n}: {text}"),
                Err(e) => panic!("{n}: written game does not read back: {e}\n{text}"),
            }
        }
    }
});
