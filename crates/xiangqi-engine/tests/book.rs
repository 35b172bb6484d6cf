//! The engine's opening book (`OwnBook`, `BookFile`): its first moves follow the book's
//! weights, a book entry whose move is not legal in the position is never played, mirrored
//! positions get mirrored moves, and bad files are refused on `setoption`.

use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use xiangqi::{Move, Position};
use xiangqi_engine::{Engine, Event, Limits};
use xiangqi_explorer::book::{encode, Entry, Header};
use xiangqi_explorer::Keyed;

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("xq_engine_book_{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn play(moves: &[&str]) -> Position {
    let mut p = Position::new();
    for m in moves {
        let mv = p.parse_uci(m).unwrap();
        p.play_unchecked(mv);
    }
    p
}

/// A raw entry: `mv` (any packed move, legal or not) under `pos`'s key, as stored.
fn raw(pos: &Position, mv: &str, weight: u16) -> Entry {
    let sq = |s: &str| s.parse::<xiangqi::Square>().unwrap();
    let m = Move::new(sq(&mv[..2]), sq(&mv[2..]));
    Entry {
        key: Keyed::of(pos).key,
        mv: m,
        weight,
        games: 1,
        score: 1,
        learn: 0,
    }
}

/// Writes the book to a file of its own and renames it to `name`: tests running side by side
/// write the same book, and a reader must never see it half written (one CI run read an
/// empty file: "not a book file").
fn write_book(name: &str, entries: Vec<Entry>) -> PathBuf {
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let path = temp(name);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let part = temp(&format!("{name}.part{n}"));
    std::fs::write(&part, encode(entries, Header::default()).unwrap()).unwrap();
    std::fs::rename(&part, &path).unwrap();
    path
}

/// The start position's book: h2e2 600 (with b2e2, 300 each), h0g2 300 (with b0c2), c3c4 100
/// (with g3g4), a move of weight 0, and three entries no move of the start can be: a rook
/// through its own pawn, Black's h9g7 (a move of another position) and a king leaving the
/// palace.
fn start_book() -> PathBuf {
    let s = Position::new();
    write_book(
        "start.xqb",
        vec![
            Entry::new(&s, s.parse_uci("h2e2").unwrap(), 600, 60, 70),
            Entry::new(&s, s.parse_uci("h0g2").unwrap(), 300, 30, 30),
            Entry::new(&s, s.parse_uci("c3c4").unwrap(), 100, 10, 10),
            Entry::new(&s, s.parse_uci("i0i1").unwrap(), 0, 5, 0),
            raw(&s, "a0a5", 60000),
            raw(&s, "h9g7", 60000),
            raw(&s, "e0e2", 60000),
        ],
    )
}

fn book_engine(path: &std::path::Path, seed: u64) -> Engine {
    let mut e = Engine::new();
    e.set_seed(seed);
    e.set_option("BookFile", path.to_str().unwrap()).unwrap();
    e.set_option("OwnBook", "true").unwrap();
    e
}

fn messages(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Message(m) => Some(m.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn first_moves_follow_the_documented_weights() {
    let path = start_book();
    let mut e = book_engine(&path, 0xb00c);
    let expected = [
        ("h2e2", 300.0),
        ("b2e2", 300.0),
        ("h0g2", 150.0),
        ("b0c2", 150.0),
        ("c3c4", 50.0),
        ("g3g4", 50.0),
    ];
    let total: f64 = expected.iter().map(|x| x.1).sum();
    let n = 4000;
    let mut counts = std::collections::HashMap::<String, u32>::new();
    for i in 0..n {
        e.set_position(Position::new(), &[]).unwrap();
        let (best, events) = e.search(Limits::depth(30));
        let best = best.unwrap().to_string();
        if i == 0 {
            let m = messages(&events);
            assert!(
                m.len() == 1 && m[0].starts_with(&format!("book move {best} weight ")),
                "{m:?}"
            );
            // A book answer is at once: no search info.
            assert!(!events.iter().any(|e| matches!(e, Event::Info(_))));
        }
        *counts.entry(best).or_default() += 1;
    }
    let mut chi2 = 0.0;
    for (mv, w) in expected {
        let want = f64::from(n) * w / total;
        let got = f64::from(counts.remove(mv).unwrap_or(0));
        eprintln!("{mv}: {got} of {n} (expected {want:.0})");
        chi2 += (got - want).powi(2) / want;
    }
    assert!(counts.is_empty(), "moves outside the book: {counts:?}");
    eprintln!("chi-square {chi2:.2} (5 degrees of freedom)");
    // 5 degrees of freedom: 20.5 is the 0.1 % tail.
    assert!(chi2 < 20.5, "chi-square {chi2:.1}");
    // Another seed, another sequence; the same seed, the same one.
    let firsts = |seed| {
        let mut e = book_engine(&path, seed);
        (0..20)
            .map(|_| {
                e.set_position(Position::new(), &[]).unwrap();
                e.search(Limits::depth(30)).0.unwrap().to_string()
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(firsts(1), firsts(1));
    assert_ne!(firsts(1), firsts(2));
}

#[test]
fn an_illegal_book_move_is_never_played() {
    let s = Position::new();
    // Only moves the start does not have: the engine searches instead.
    let path = write_book(
        "illegal.xqb",
        vec![
            raw(&s, "a0a5", 100),
            raw(&s, "h9g7", 100),
            raw(&s, "e0e2", 100),
            raw(&s, "i3i5", 100),
        ],
    );
    let mut e = book_engine(&path, 5);
    for _ in 0..50 {
        e.set_position(Position::new(), &[]).unwrap();
        let (best, events) = e.search(Limits::depth(1));
        assert!(s.is_legal(best.unwrap()));
        assert!(messages(&events).iter().all(|m| !m.contains("book")));
    }
}

#[test]
fn mirrored_positions_get_mirrored_moves() {
    let after = play(&["h2e2"]);
    let path = write_book(
        "mirror.xqb",
        vec![Entry::new(
            &after,
            after.parse_uci("h9g7").unwrap(),
            1,
            1,
            1,
        )],
    );
    let mut e = book_engine(&path, 9);
    for (line, want) in [("h2e2", "h9g7"), ("b2e2", "b9c7")] {
        for _ in 0..20 {
            e.set_position_text(None, &[line]).unwrap();
            assert_eq!(e.search(Limits::depth(30)).0.unwrap().to_string(), want);
        }
    }
}

#[test]
fn own_book_off_searchmoves_and_banned_moves_are_respected() {
    let path = start_book();
    let mut e = book_engine(&path, 3);
    // Only c3c4 and g3g4 may be played.
    for _ in 0..30 {
        e.set_position(Position::new(), &[]).unwrap();
        let s = Position::new();
        let limits = Limits {
            searchmoves: vec![s.parse_uci("c3c4").unwrap(), s.parse_uci("a3a4").unwrap()],
            ..Limits::depth(30)
        };
        assert_eq!(e.search(limits).0.unwrap().to_string(), "c3c4");
        e.ban_moves(vec![s.parse_uci("c3c4").unwrap()]);
        let (best, _) = e.search(Limits {
            searchmoves: vec![s.parse_uci("c3c4").unwrap(), s.parse_uci("g3g4").unwrap()],
            ..Limits::depth(30)
        });
        assert_eq!(best.unwrap().to_string(), "g3g4");
    }
    // Off (the default for analysis): the engine searches.
    e.set_option("OwnBook", "false").unwrap();
    e.set_position(Position::new(), &[]).unwrap();
    let (_, events) = e.search(Limits::depth(2));
    assert!(events.iter().any(|e| matches!(e, Event::Info(_))));
    assert!(!Engine::new().options().own_book);
    // go infinite is analysis: no book move either.
    e.set_option("OwnBook", "true").unwrap();
    e.go(
        Limits {
            infinite: true,
            ..Limits::default()
        },
        Arc::new(|_| {}),
    );
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert!(e.is_searching());
    e.stop();
    e.wait();
}

#[test]
fn bad_files_are_refused_and_the_book_in_use_stays() {
    let good = start_book();
    let mut e = book_engine(&good, 1);
    let junk = temp("junk.xqb");
    std::fs::write(
        &junk,
        b"\x00\x01 not a book at all, but long enough for a header",
    )
    .unwrap();
    let err = e
        .set_option("BookFile", junk.to_str().unwrap())
        .unwrap_err();
    assert!(
        err.starts_with("BookFile: ") && err.contains("junk.xqb") && err.contains("not a book"),
        "{err}"
    );
    let mut bytes = std::fs::read(&good).unwrap();
    bytes.truncate(bytes.len() - 5);
    let cut = temp("cut.xqb");
    std::fs::write(&cut, bytes).unwrap();
    let err = e.set_option("BookFile", cut.to_str().unwrap()).unwrap_err();
    assert!(err.contains("truncated"), "{err}");
    let err = e
        .set_option("BookFile", temp("none.xqb").to_str().unwrap())
        .unwrap_err();
    assert!(err.contains("cannot read"), "{err}");
    assert_eq!(e.options().book_file, good.to_str().unwrap());
    e.set_position(Position::new(), &[]).unwrap();
    let (_, events) = e.search(Limits::depth(30));
    assert!(messages(&events)[0].starts_with("book move "));
    e.set_option("BookFile", "<empty>").unwrap();
    assert!(e.book().is_none());
}

/// Writes into a shared buffer.
#[derive(Clone, Default)]
struct Buf(Arc<Mutex<Vec<u8>>>);
impl Write for Buf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn converse(input: &str) -> Vec<String> {
    let buf = Buf::default();
    xiangqi_engine::uci::run(
        input.as_bytes(),
        xiangqi_engine::uci::Output::new(Box::new(buf.clone())),
    );
    let out = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
    out.lines().map(str::to_string).collect()
}

#[test]
fn uci_and_ucci_options() {
    let good = start_book();
    let lines = converse(&format!(
        "uci\nsetoption name BookFile value {}\nsetoption name OwnBook value true\nposition startpos\ngo depth 20\nisready\nsetoption name BookFile value {}\nisready\n",
        good.display(),
        temp("missing.xqb").display()
    ));
    assert!(lines.contains(&"option name OwnBook type check default false".to_string()));
    assert!(lines.contains(&"option name BookFile type string default <empty>".to_string()));
    let i = lines
        .iter()
        .position(|l| l.starts_with("info string book move "))
        .unwrap_or_else(|| panic!("{lines:?}"));
    let best = lines[i + 1].strip_prefix("bestmove ").unwrap();
    assert!(["h2e2", "b2e2", "h0g2", "b0c2", "c3c4", "g3g4"].contains(&best));
    assert!(lines.iter().any(
        |l| l.starts_with("info string error: BookFile: cannot read") && l.contains("missing.xqb")
    ));

    let lines = converse(&format!(
        "ucci\nsetoption bookfiles {}\nsetoption usebook true\nposition startpos\ngo depth 20\n",
        good.display()
    ));
    assert!(lines.contains(&"option usebook type check default false".to_string()));
    assert!(lines.contains(&"option bookfiles type string default <empty>".to_string()));
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string book move ")),
        "{lines:?}"
    );
    assert!(!lines.iter().any(|l| l.contains("error")), "{lines:?}");
}

/// `BookFile <openings>`: the book that ships (the named openings' lines). The first moves
/// come from it, each as often as its weight says within a wide bound, and every one is a
/// first move of a named line; `<empty>` turns it off again.
#[test]
fn the_shipped_openings_book_is_a_book_file() {
    let mut e = Engine::new();
    e.set_seed(7);
    e.set_option("BookFile", "<openings>").unwrap();
    e.set_option("OwnBook", "true").unwrap();
    let book = e.book().expect("the openings' book").clone();
    let start = book.probe(&Position::new());
    let total: f64 = start.iter().map(|m| m.chance_weight()).sum();
    let n = 2000;
    let mut counts = std::collections::HashMap::<String, u32>::new();
    for _ in 0..n {
        e.set_position(Position::new(), &[]).unwrap();
        let best = e.search(Limits::depth(30)).0.unwrap().to_string();
        *counts.entry(best).or_default() += 1;
    }
    for m in &start {
        let want = f64::from(n) * m.chance_weight() / total;
        let got = f64::from(counts.remove(&m.mv.to_string()).unwrap_or(0));
        // Within 5 standard deviations of a binomial count.
        let sd = (want * (1.0 - want / f64::from(n))).sqrt();
        assert!(
            (got - want).abs() <= 5.0 * sd + 1.0,
            "{}: {got} of {n}, expected {want:.0}",
            m.mv
        );
    }
    assert!(
        counts.is_empty(),
        "first moves outside the book: {counts:?}"
    );
    e.set_option("BookFile", "<empty>").unwrap();
    assert!(e.book().is_none());
}
