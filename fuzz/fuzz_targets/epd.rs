//! Any text: the position-file reader (FEN/EPD lines, `title|FEN`) never panics; every
//! position it reads is legal, has no moves, and its FEN reads back to the same position; a
//! bad line names a line of the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xiangqi::Position;
use xiangqi_record::epd;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = epd::looks_like(&text);
    let lines = text.lines().count();
    for r in epd::read_str(&text) {
        match r {
            Ok(g) => {
                assert!(g.moves.is_empty());
                let fen = g.start.fen();
                let back = Position::from_fen(&fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
                assert_eq!(back, g.start, "{fen}");
            }
            Err(e) => assert!(e.line >= 1 && e.line <= lines, "{e}"),
        }
    }
    // The same through the any-format entry point, when it is taken for a position file, and
    // salvaging (`--lenient`): whatever format it is taken for, or named (a damaged or
    // unsupported one), never a panic.
    let _ = xiangqi_record::detect::read_any(data);
    let _ = xiangqi_record::detect::read_any_mode(data, xiangqi_record::detect::Mode::Salvage);
});
