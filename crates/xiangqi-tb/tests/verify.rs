//! Checks of generated tables that do not trust the generator: (a) every value agrees with
//! the values of the positions its legal moves reach, over whole tables; (b) random
//! positions agree with a plain depth-limited mate search of the rules core that knows
//! nothing of the tables; (c) results of endgame theory from a named source. The tables are
//! generated here (small sets only), written to files and read back through the probe code.

use std::path::PathBuf;

use xiangqi::adjudicate::insufficient_material;
use xiangqi::Position;
use xiangqi_tb::{build, Indexer, Material, Tablebase, Value};

/// Generates `sets` into a fresh folder; returns it with its tablebase.
fn tables(tag: &str, sets: &[&str]) -> (PathBuf, Tablebase) {
    let dir = std::env::temp_dir().join(format!("xiangqi-tb-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let names: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    build(&names, &dir, 2, &mut |_| {}).expect("generate");
    let tb = Tablebase::open(&dir).expect("open");
    (dir, tb)
}

/// Every legal position of a set with its index.
fn positions(set: &str) -> impl Iterator<Item = Position> {
    let ix = Indexer::new(Material::parse(set).unwrap().canonical());
    (0..ix.size()).filter_map(move |i| ix.position(i))
}

/// (a) A win has a move to a loss one ply shorter and none to a shorter loss; a loss has
/// only moves to wins, the longest one ply shorter (none at all: lost now); a draw has no
/// move to a loss and one to a draw.
fn check_consistent(tb: &Tablebase, set: &str) -> usize {
    let mut n = 0;
    for pos in positions(set) {
        let v = tb.probe(&pos).unwrap();
        let kids: Vec<Value> = tb
            .probe_moves(&pos)
            .unwrap()
            .into_iter()
            .map(|(_, c)| c)
            .collect();
        let fen = pos.fen();
        match v {
            Value::Win(d) => {
                assert!(kids.contains(&Value::Loss(d - 1)), "{set} {fen}: win {d}");
                assert!(
                    !kids
                        .iter()
                        .any(|k| matches!(k, Value::Loss(e) if *e < d - 1)),
                    "{set} {fen}: a faster win than {d}"
                );
            }
            Value::Loss(d) => {
                assert!(
                    kids.iter().all(|k| matches!(k, Value::Win(e) if *e < d)),
                    "{set} {fen}: loss {d} {kids:?}"
                );
                if d == 0 {
                    assert!(kids.is_empty(), "{set} {fen}");
                } else {
                    assert!(kids.contains(&Value::Win(d - 1)), "{set} {fen}: loss {d}");
                }
            }
            Value::Draw => {
                assert!(
                    !kids.iter().any(|k| matches!(k, Value::Loss(_))),
                    "{set} {fen}: draw"
                );
                assert!(
                    kids.contains(&Value::Draw),
                    "{set} {fen}: draw without a drawing move"
                );
            }
        }
        n += 1;
    }
    n
}

/// A depth-limited search's verdict for the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Found {
    /// Mates in this many plies (the fastest within the depth).
    Win(u16),
    /// Mated in this many plies whatever it does.
    Loss(u16),
    /// Can reach a position drawn by rule (no attacker left).
    DrawOrBetter,
    Unknown,
}

/// Plain full-width search with the rules core: no tables, no pruning.
fn search(pos: &Position, depth: u32) -> Found {
    if pos.has_no_legal_move() {
        return Found::Loss(0);
    }
    if depth == 0 {
        return Found::Unknown;
    }
    let mut best_win: Option<u16> = None;
    let mut longest_loss: u16 = 0;
    let mut all_lose = true;
    let mut draw = false;
    for &m in pos.legal_moves().iter() {
        let mut c = pos.clone();
        c.play_unchecked(m);
        let r = if insufficient_material(c.board()) && !c.has_no_legal_move() {
            draw = true;
            all_lose = false;
            continue;
        } else {
            search(&c, depth - 1)
        };
        match r {
            Found::Loss(e) => best_win = Some(best_win.map_or(e + 1, |b| b.min(e + 1))),
            Found::Win(e) => longest_loss = longest_loss.max(e + 1),
            _ => all_lose = false,
        }
    }
    if let Some(w) = best_win {
        Found::Win(w)
    } else if all_lose {
        Found::Loss(longest_loss)
    } else if draw {
        Found::DrawOrBetter
    } else {
        Found::Unknown
    }
}

/// (b) `samples` pseudo-random legal positions of `set` against the search to `depth`
/// (with `short`, only those the table says are decided within `depth` plies).
fn check_search(tb: &Tablebase, set: &str, samples: usize, depth: u32, short: bool) -> usize {
    let ix = Indexer::new(Material::parse(set).unwrap().canonical());
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15 ^ ix.size();
    let mut done = 0;
    let (mut wins, mut losses) = (0, 0);
    let mut tries = 0;
    while done < samples && tries < 200 * samples {
        tries += 1;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let Some(pos) = ix.position(x % ix.size()) else {
            continue;
        };
        // Probe a random orientation too: colours swapped or mirrored.
        let pos = match x >> 60 & 3 {
            1 => pos.swap_colors(),
            2 => pos.flip_horizontal(),
            _ => pos,
        };
        let v = tb.probe(&pos).unwrap();
        if short && v.dtm().is_none_or(|d| d as u32 > depth) {
            // Only positions whose table DTM the search can reach.
            continue;
        }
        done += 1;
        let f = search(&pos, depth);
        let fen = pos.fen();
        match f {
            Found::Win(d) => {
                assert_eq!(v, Value::Win(d), "{set} {fen}");
                wins += 1;
            }
            Found::Loss(d) => {
                assert_eq!(v, Value::Loss(d), "{set} {fen}");
                losses += 1;
            }
            Found::DrawOrBetter => {
                assert!(!matches!(v, Value::Loss(_)), "{set} {fen}: {v:?}")
            }
            Found::Unknown => {}
        }
        // And the converse: a short mate in the table is found by the search.
        if let Some(d) = v.dtm() {
            if d as u32 <= depth {
                assert!(
                    matches!(f, Found::Win(_) | Found::Loss(_)),
                    "{set} {fen}: {v:?} vs {f:?}"
                );
            } else if matches!(v, Value::Loss(_)) {
                assert_eq!(f, Found::Unknown, "{set} {fen}: {v:?}");
            } else {
                // A longer win may be there beside a capture that draws at once.
                assert!(
                    matches!(f, Found::Unknown | Found::DrawOrBetter),
                    "{set} {fen}: {v:?}"
                );
            }
        }
    }
    wins + losses
}

#[test]
fn horse_and_soldier_sets_are_consistent_and_agree_with_search() {
    let (dir, tb) = tables("hp", &["KHKA", "KPKE", "KPKP"]);
    for set in ["KHK", "KHKA", "KPK", "KPKE", "KPKP"] {
        assert!(check_consistent(&tb, set) > 1000, "{set}");
    }
    let mut proved = 0;
    for set in ["KHKA", "KPKE", "KPKP"] {
        proved += check_search(&tb, set, 1000, 3, false);
        proved += check_search(&tb, set, 100, 3, true);
        proved += check_search(&tb, set, 20, 5, false);
    }
    assert!(
        proved > 100,
        "the search proved only {proved} wins and losses"
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn chariot_and_cannon_sets_are_consistent_and_agree_with_search() {
    let (dir, tb) = tables("rc", &["KRKA", "KCKA"]);
    for set in ["KRK", "KRKA", "KCK", "KCKA"] {
        assert!(check_consistent(&tb, set) > 1000, "{set}");
    }
    // The block cache changes no value: the same tables keeping one inflated block (every
    // probe that moves to another block or table inflates again) answer as the default.
    let tiny = Tablebase::open(&dir).unwrap().with_cache_bytes(1);
    for set in ["KRK", "KRKA", "KCKA"] {
        for pos in positions(set).step_by(7) {
            assert_eq!(tiny.probe(&pos).unwrap(), tb.probe(&pos).unwrap());
            assert_eq!(
                tiny.probe_rules(&pos).unwrap(),
                tb.probe_rules(&pos).unwrap()
            );
        }
    }
    assert_eq!(tiny.cache_blocks(), (1, 1));
    let (capacity, held) = tb.cache_blocks();
    assert_eq!(capacity, xiangqi_tb::DEFAULT_CACHE_BYTES >> 16);
    assert!(held > 1 && held <= capacity, "{held} blocks held");
    let mut proved = 0;
    for set in ["KRKA", "KCKA"] {
        proved += check_search(&tb, set, 1000, 3, false);
        proved += check_search(&tb, set, 100, 3, true);
        proved += check_search(&tb, set, 15, 5, false);
    }
    assert!(
        proved > 100,
        "the search proved only {proved} wins and losses"
    );
    std::fs::remove_dir_all(dir).ok();
}
