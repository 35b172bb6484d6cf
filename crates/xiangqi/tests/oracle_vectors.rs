//! Differential test against Fairy-Stockfish: the legal moves and check status of every
//! position in an oracle vector file (made by `tests/oracle/gen_vectors.py` with pyffish)
//! must match ours exactly (and `is_legal`, `is_checkmate`, `is_stalemate` and
//! `count_legal_moves` must agree with it; `gives_check` with `is_check` after each move).
//!
//! The committed file `tests/oracle/vectors/fixed-seed.txt` is read by default; the env var
//! `XIANGQI_ORACLE_VECTORS` names another (that is how `tests/oracle/run.sh` checks a set
//! freshly made with a new seed). Each line: `FEN | 0 or 1 (in check) | sorted moves a0..i9`.

use std::collections::BTreeSet;
use std::path::PathBuf;

use xiangqi::{attacks, Color, Move, Position, UciMove};

const ENV: &str = "XIANGQI_ORACLE_VECTORS";

fn vectors_path() -> (PathBuf, bool) {
    match std::env::var_os(ENV) {
        Some(p) => (PathBuf::from(p), true),
        None => (
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../tests/oracle/vectors/fixed-seed.txt"),
            false,
        ),
    }
}

/// One position of the vector file.
struct Vector<'a> {
    line: usize,
    fen: &'a str,
    check: bool,
    moves: BTreeSet<&'a str>,
}

fn parse_line(line: usize, text: &str) -> Result<Option<Vector<'_>>, String> {
    let t = text.trim();
    if t.is_empty() || t.starts_with('#') {
        return Ok(None);
    }
    let cols: Vec<&str> = t.split('|').collect();
    if cols.len() != 3 {
        return Err(format!(
            "line {line}: {} columns separated by '|' (expected 3: FEN | check | moves)",
            cols.len()
        ));
    }
    let check = match cols[1].trim() {
        "0" => false,
        "1" => true,
        other => {
            return Err(format!(
                "line {line}: check column is '{other}' (expected 0 or 1)"
            ))
        }
    };
    let mut moves = BTreeSet::new();
    for m in cols[2].split_whitespace() {
        if m.parse::<UciMove>().is_err() {
            return Err(format!("line {line}: '{m}' is not a move like h2e2"));
        }
        if !moves.insert(m) {
            return Err(format!("line {line}: move {m} listed twice"));
        }
    }
    Ok(Some(Vector {
        line,
        fen: cols[0].trim(),
        check,
        moves,
    }))
}

/// Generals on one file with exactly one piece between them: that piece is pinned by the
/// flying-general rule.
fn flying_general_pin(pos: &Position) -> bool {
    let red = pos.general(Color::Red);
    let black = pos.general(Color::Black);
    red.file() == black.file()
        && (attacks::between(red, black) & pos.board().occupied()).count() == 1
}

#[derive(Default)]
struct Tally {
    positions: usize,
    moves: usize,
    checks: usize,
    checkmates: usize,
    stalemates: usize,
    pins: usize,
    sparse: usize,
}

/// Compares one position; returns what disagrees (empty when all agrees).
fn compare(v: &Vector<'_>, tally: &mut Tally) -> Vec<String> {
    let mut errs = Vec::new();
    let where_ = format!("line {} [{}]", v.line, v.fen);
    let pos = match Position::from_fen(v.fen) {
        Ok(p) => p,
        Err(e) => return vec![format!("{where_}: our FEN reader rejects it: {e}")],
    };
    let ours: BTreeSet<String> = pos
        .legal_moves()
        .iter()
        .map(|&m| UciMove::from_move(m).to_string())
        .collect();
    let missing: Vec<&str> = v
        .moves
        .iter()
        .copied()
        .filter(|m| !ours.contains(*m))
        .collect();
    let extra: Vec<&str> = ours
        .iter()
        .map(String::as_str)
        .filter(|m| !v.moves.contains(m))
        .collect();
    if !missing.is_empty() {
        errs.push(format!(
            "{where_}: moves Fairy-Stockfish allows that we do not generate: {}",
            missing.join(" ")
        ));
    }
    if !extra.is_empty() {
        errs.push(format!(
            "{where_}: moves we generate that Fairy-Stockfish does not allow: {}",
            extra.join(" ")
        ));
    }
    if pos.legal_moves().len() != ours.len() {
        errs.push(format!("{where_}: legal_moves() lists a move twice"));
    }
    if pos.count_legal_moves() != v.moves.len() {
        errs.push(format!(
            "{where_}: count_legal_moves() = {}, Fairy-Stockfish has {} moves",
            pos.count_legal_moves(),
            v.moves.len()
        ));
    }
    if pos.is_check() != v.check {
        errs.push(format!(
            "{where_}: is_check() = {}, Fairy-Stockfish says {}",
            pos.is_check(),
            v.check
        ));
    }
    if pos.has_no_legal_move() != v.moves.is_empty() {
        errs.push(format!(
            "{where_}: has_no_legal_move() = {}, Fairy-Stockfish has {} moves",
            pos.has_no_legal_move(),
            v.moves.len()
        ));
    }
    if pos.is_checkmate() != (v.check && v.moves.is_empty())
        || pos.is_stalemate() != (!v.check && v.moves.is_empty())
    {
        errs.push(format!(
            "{where_}: is_checkmate() = {}, is_stalemate() = {}, Fairy-Stockfish: check {}, {} moves",
            pos.is_checkmate(),
            pos.is_stalemate(),
            v.check,
            v.moves.len()
        ));
    }
    // gives_check must predict the check status of the position after each legal move.
    for &m in pos.legal_moves().iter() {
        let mut child = pos.clone();
        child.play_unchecked(m);
        if pos.gives_check(m) != child.is_check() {
            errs.push(format!(
                "{where_}: gives_check({}) = {}, but after it is_check() = {}",
                UciMove::from_move(m),
                pos.gives_check(m),
                child.is_check()
            ));
        }
    }
    // is_legal must agree with the oracle on every pseudo-legal move of the side to move.
    let own = pos.board().by_color(pos.turn());
    for from in own {
        for to in pos.pseudo_targets(from) {
            let m = Move::new(from, to);
            let name = UciMove::from_move(m).to_string();
            let oracle = v.moves.contains(name.as_str());
            if pos.is_legal(m) != oracle {
                errs.push(format!(
                    "{where_}: is_legal({name}) = {}, Fairy-Stockfish says {oracle}",
                    pos.is_legal(m)
                ));
            }
        }
    }
    tally.positions += 1;
    tally.moves += v.moves.len();
    tally.checks += usize::from(v.check);
    tally.checkmates += usize::from(v.check && v.moves.is_empty());
    tally.stalemates += usize::from(!v.check && v.moves.is_empty());
    tally.pins += usize::from(flying_general_pin(&pos));
    tally.sparse += usize::from(pos.board().occupied().count() <= 10);
    errs
}

#[test]
fn legal_moves_and_checks_match_fairy_stockfish() {
    let (path, overridden) = vectors_path();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!("cannot read oracle vectors {}: {e}", path.display());
    });
    let mut tally = Tally::default();
    let mut errors = Vec::new();
    for (i, line) in text.lines().enumerate() {
        match parse_line(i + 1, line) {
            Ok(Some(v)) => errors.extend(compare(&v, &mut tally)),
            Ok(None) => {}
            Err(e) => errors.push(e),
        }
    }
    println!(
        "oracle vectors {}: {} positions, {} legal moves, {} checks, {} checkmates, \
         {} stalemates, {} flying-general pins, {} with at most 10 pieces",
        path.display(),
        tally.positions,
        tally.moves,
        tally.checks,
        tally.checkmates,
        tally.stalemates,
        tally.pins,
        tally.sparse
    );
    if !errors.is_empty() {
        for e in errors.iter().take(60) {
            eprintln!("{e}");
        }
        panic!(
            "{} disagreements with Fairy-Stockfish in {} (first ones above)",
            errors.len(),
            path.display()
        );
    }
    assert!(tally.positions > 0, "{} holds no positions", path.display());
    if !overridden {
        // The committed set must keep the coverage it was made for.
        assert!(
            tally.positions >= 20_000,
            "only {} positions",
            tally.positions
        );
        assert!(tally.checks >= 1_000, "only {} checks", tally.checks);
        assert!(
            tally.checkmates >= 300,
            "only {} checkmates",
            tally.checkmates
        );
        assert!(
            tally.stalemates >= 300,
            "only {} stalemates",
            tally.stalemates
        );
        assert!(tally.pins >= 1_000, "only {} pins", tally.pins);
        assert!(tally.sparse >= 5_000, "only {} sparse", tally.sparse);
    }
}

#[test]
fn vector_lines_are_read_strictly() {
    assert!(parse_line(1, "# comment").unwrap().is_none());
    assert!(parse_line(1, "   ").unwrap().is_none());
    let v = parse_line(3, "3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1 | 0 | e0e1 e0d0")
        .unwrap()
        .unwrap();
    assert_eq!(v.moves.len(), 2);
    assert!(!v.check);
    let e = parse_line(4, "3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1 | 2 | e0e1").err();
    assert_eq!(
        e.as_deref(),
        Some("line 4: check column is '2' (expected 0 or 1)")
    );
    let e = parse_line(5, "3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1 | 0").err();
    assert!(e.unwrap().contains("2 columns"));
    let e = parse_line(6, "3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1 | 0 | e1e2x").err();
    assert!(e.unwrap().contains("'e1e2x' is not a move"));
    let e = parse_line(7, "3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1 | 0 | e0e1 e0e1").err();
    assert!(e.unwrap().contains("listed twice"));
}

#[test]
fn a_wrong_vector_is_reported_with_its_fen() {
    // A vector that leaves out a legal move and claims a check: both must be caught.
    let v = parse_line(9, "3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1 | 1 | e0e1")
        .unwrap()
        .unwrap();
    let errs = compare(&v, &mut Tally::default());
    assert!(errs
        .iter()
        .any(|e| e.contains("line 9 [3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1]")
            && e.contains("we generate that Fairy-Stockfish does not allow: e0f0")));
    assert!(errs.iter().any(|e| e.contains("is_check() = false")));
}
