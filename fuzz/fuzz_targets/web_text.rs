//! Any text: the web-page reader (PGN and Chinese text records in `<pre>`/`<textarea>`) and the
//! Chinese text reader (`标题：` header block) never panic; every game they read replays
//! legally; a page's element line numbers are lines of the page; a salvaged reading has at
//! least as many games as the strict one has good games. The input is also tried wrapped in a
//! page's `<pre>` and behind a Chinese header block, so mutations reach the move text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xiangqi_record::detect::{read_any_mode, Mode};
use xiangqi_record::{cntext, html};

#[path = "../../crates/xiangqi-record/tests/common/readers.rs"]
mod readers;

fn check(text: &str) {
    let lines = text.split('\n').count();
    for b in html::blocks(text) {
        assert!(b.line >= 1 && b.line <= lines, "{} of {lines}", b.line);
        let _ = html::holds(&b.text);
    }
    let _ = html::looks_like(text);
    let _ = cntext::looks_like(text);
    assert_eq!(
        cntext::to_pgn(text).split('\n').count(),
        text.trim_start_matches('\u{feff}').split('\n').count() + 1
    );
    let strict = read_any_mode(text.as_bytes(), Mode::Strict);
    let salvage = read_any_mode(text.as_bytes(), Mode::Salvage);
    if let (Ok(s), Ok(v)) = (&strict, &salvage) {
        assert_eq!(s.format, v.format);
        let good = s.games.iter().filter(|g| g.is_ok()).count();
        let kept = v.games.iter().filter(|g| g.is_ok()).count();
        assert!(kept >= good, "{kept} < {good}");
    }
    for all in [strict, salvage].into_iter().flatten() {
        for g in all.games.iter().flatten() {
            readers::replay_legally(&g.start, &g.moves);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    check(&text);
    check(&format!("<html><body>\n<pre>\n{text}\n</pre></body></html>\n"));
    check(&format!("标题：x\n红方：甲\n黑方：乙\n\n{text}\n"));
});
