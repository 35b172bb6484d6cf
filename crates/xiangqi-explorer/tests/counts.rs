//! The index's counts against an independent count: a plain in-memory map over the same
//! games, keyed by FEN text (the smaller of a position's and its mirror's FEN), with moves as
//! text — none of the index's keys, hashes or encodings. Games are random legal games from a
//! fixed seed, with openings shared often, mirrored copies and exact duplicates among them.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use xiangqi::{Color, Move, Position};
use xiangqi_explorer::{
    Db, Explorer, GameMeta, MoveStats, NewGame, Options, Outcome, Speed, Target, RATING_BANDS,
};

mod common;
use common::Rng;

fn temp(name: &str) -> PathBuf {
    common::temp("explorer", name)
}

const NAMES: [&str; 5] = ["ann", "bo", "chen", "dao", "eve"];

/// `n` random games: short shared openings, then random moves; every 7th game the mirror of
/// the one before it, every 11th an exact copy of an earlier one.
fn games(n: usize, seed: u64) -> Vec<NewGame> {
    let mut rng = Rng(seed);
    let mut out: Vec<NewGame> = Vec::new();
    while out.len() < n {
        let i = out.len();
        if i % 11 == 10 {
            let j = rng.below(i);
            out.push(out[j].clone());
            continue;
        }
        if i % 7 == 6 {
            let g = out[i - 1].clone();
            let moves = g.moves.iter().map(|m| m.flip_horizontal()).collect();
            let mut meta = g.meta.clone();
            meta.source = format!("mirror of {}", g.meta.source);
            meta.date += 1; // another game, not a duplicate
            out.push(NewGame {
                meta,
                start: g.start.flip_horizontal(),
                moves,
                target: g.target.clone(),
            });
            continue;
        }
        let mut pos = Position::new();
        let mut moves = vec![];
        let len = 4 + rng.below(40);
        for ply in 0..len {
            let legal: Vec<Move> = pos.legal_moves().into_iter().copied().collect();
            if legal.is_empty() {
                break;
            }
            let k = if ply < 6 {
                legal.len().min(3)
            } else {
                legal.len()
            };
            let m = legal[rng.below(k)];
            moves.push(m);
            pos.play_unchecked(m);
        }
        let outcome = match rng.below(4) {
            0 => None,
            1 => Some(Outcome::RedWins),
            2 => Some(Outcome::Draw),
            _ => Some(Outcome::BlackWins),
        };
        let rating = |r: &mut Rng| (r.below(3) > 0).then(|| 800 + r.below(2000) as u16);
        let accounts = [
            (rng.below(3) > 0).then(|| NAMES[rng.below(5)].to_string()),
            (rng.below(3) > 0).then(|| NAMES[rng.below(5)].to_uppercase()),
        ];
        let target = if rng.below(2) == 0 {
            Target::Masters
        } else {
            Target::Site {
                speed: Speed::ALL[rng.below(5)],
                accounts,
            }
        };
        out.push(NewGame {
            meta: GameMeta {
                red: format!("red{}", rng.below(50)),
                black: format!("black{}", rng.below(50)),
                red_rating: rating(&mut rng),
                black_rating: rating(&mut rng),
                outcome,
                date: 20_000_101 + rng.below(250_000) as u32,
                event: String::new(),
                source: format!("game {i}"),
            },
            start: Position::new(),
            moves,
            target,
        });
    }
    out
}

/// The board and side of a FEN, without the counters.
fn fen_key(p: &Position) -> String {
    let f = p.fen();
    f.split(' ').take(2).collect::<Vec<_>>().join(" ")
}

#[derive(Default, Clone, Copy, PartialEq, Eq, Debug)]
struct Count {
    red: u32,
    draws: u32,
    black: u32,
}

/// The oracle: (database filter key, canonical FEN) -> move text in the canonical
/// orientation -> counts.
#[derive(Default)]
struct Oracle {
    map: HashMap<(String, String), BTreeMap<String, Count>>,
}

fn mirror_text(m: &str) -> String {
    let b: Vec<char> = m.chars().collect();
    let f = |c: char| (b'a' + (b'i' - c as u8)) as char;
    format!("{}{}{}{}", f(b[0]), b[1], f(b[2]), b[3])
}

impl Oracle {
    fn add(&mut self, games: &[NewGame], max_ply: usize) {
        let mut seen = std::collections::HashSet::new();
        for g in games {
            let Some(outcome) = g.meta.outcome else {
                continue;
            };
            let id = (
                fen_key(&g.start),
                g.moves.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
                format!("{outcome:?}"),
                g.meta.red.to_lowercase(),
                g.meta.black.to_lowercase(),
                g.meta.date,
            );
            if !seen.insert(id) {
                continue;
            }
            let mut dbs = vec![];
            match &g.target {
                Target::Masters => dbs.push("masters".to_string()),
                Target::Site { speed, accounts } => {
                    let r = g.meta.rating();
                    let band = RATING_BANDS.iter().filter(|&&b| r >= b).count() - 1;
                    dbs.push(format!("site {} {band}", speed.as_str()));
                    if let Some(a) = &accounts[0] {
                        dbs.push(format!("player {} red", a.to_lowercase()));
                    }
                    if let Some(a) = &accounts[1] {
                        dbs.push(format!("player {} black", a.to_lowercase()));
                    }
                }
            }
            let mut pos = g.start.clone();
            for m in g.moves.iter().take(max_ply) {
                let (a, b) = (fen_key(&pos), fen_key(&pos.flip_horizontal()));
                let mut text = m.to_string();
                let canonical = if a == b {
                    text = text.clone().min(mirror_text(&text));
                    a
                } else if a < b {
                    a
                } else {
                    text = mirror_text(&text);
                    b
                };
                for db in &dbs {
                    let c = self
                        .map
                        .entry((db.clone(), canonical.clone()))
                        .or_default()
                        .entry(text.clone())
                        .or_default();
                    match outcome {
                        Outcome::RedWins => c.red += 1,
                        Outcome::Draw => c.draws += 1,
                        Outcome::BlackWins => c.black += 1,
                    }
                }
                pos.play_unchecked(*m);
            }
        }
    }

    /// The moves of `pos` in the databases `dbs` (summed), as text in `pos`'s orientation
    /// (a symmetric position's move as the smaller text of it and its mirror).
    fn answer(&self, dbs: &[String], pos: &Position) -> BTreeMap<String, Count> {
        let (a, b) = (fen_key(pos), fen_key(&pos.flip_horizontal()));
        let mut out: BTreeMap<String, Count> = BTreeMap::new();
        for db in dbs {
            let canonical = a.clone().min(b.clone());
            let Some(moves) = self.map.get(&(db.clone(), canonical)) else {
                continue;
            };
            for (m, c) in moves {
                let m = if a <= b { m.clone() } else { mirror_text(m) };
                let e = out.entry(m).or_default();
                e.red += c.red;
                e.draws += c.draws;
                e.black += c.black;
            }
        }
        out
    }
}

/// The index's answer as the oracle writes it.
fn as_text(ans: &xiangqi_explorer::Answer, pos: &Position) -> BTreeMap<String, Count> {
    let symmetric = fen_key(pos) == fen_key(&pos.flip_horizontal());
    ans.moves
        .iter()
        .map(|m| {
            let t = m.mv.to_string();
            let t = if symmetric {
                t.clone().min(mirror_text(&t))
            } else {
                t
            };
            let s: MoveStats = m.stats;
            (
                t,
                Count {
                    red: s.red,
                    draws: s.draws,
                    black: s.black,
                },
            )
        })
        .collect()
}

/// Positions the games reach (both orientations), to look up.
fn positions(games: &[NewGame], max_ply: usize) -> Vec<Position> {
    let mut seen = std::collections::HashSet::new();
    let mut out = vec![];
    for g in games {
        let mut pos = g.start.clone();
        for (ply, m) in g.moves.iter().take(max_ply + 1).enumerate() {
            // The shared openings whole, and a sample of the deeper positions (the test's
            // time is the lookups').
            if ply <= 12 || ply % 4 == 0 || ply >= max_ply - 1 {
                for p in [pos.clone(), pos.flip_horizontal()] {
                    if seen.insert(fen_key(&p)) {
                        out.push(p);
                    }
                }
            }
            pos.play_unchecked(*m);
        }
    }
    out
}

fn check_all(ex: &Explorer, oracle: &Oracle, positions: &[Position]) -> usize {
    let mut queries: Vec<(Db, Vec<String>)> = vec![(Db::Masters, vec!["masters".into()])];
    let all_site = |speeds: &[Speed], bands: &[u8]| -> Vec<String> {
        let sp: Vec<Speed> = if speeds.is_empty() {
            Speed::ALL.to_vec()
        } else {
            speeds.to_vec()
        };
        let bd: Vec<u8> = if bands.is_empty() {
            (0..9).collect()
        } else {
            bands.to_vec()
        };
        sp.iter()
            .flat_map(|s| bd.iter().map(move |b| format!("site {} {b}", s.as_str())))
            .collect()
    };
    for (speeds, bands) in [
        (vec![], vec![]),
        (vec![Speed::Blitz], vec![]),
        (vec![Speed::Bullet, Speed::Correspondence], vec![2, 3, 4]),
        (vec![], vec![8]),
    ] {
        let names = all_site(&speeds, &bands);
        queries.push((Db::Site { speeds, bands }, names));
    }
    for n in NAMES {
        for (color, c) in [(Color::Red, "red"), (Color::Black, "black")] {
            queries.push((
                // The case of a name does not matter.
                Db::Player {
                    name: n.to_uppercase(),
                    color,
                },
                vec![format!("player {n} {c}")],
            ));
        }
    }
    let mut nonempty = 0;
    for p in positions {
        for (db, names) in &queries {
            let ans = ex.lookup(db, p).unwrap();
            let want = oracle.answer(names, p);
            assert_eq!(as_text(&ans, p), want, "{db:?} at {}", p.fen());
            let total: u32 = want.values().map(|c| c.red + c.draws + c.black).sum();
            assert_eq!(ans.total.games(), u64::from(total));
            for m in &ans.moves {
                assert!(p.is_legal(m.mv), "{} is not legal at {}", m.mv, p.fen());
            }
            nonempty += usize::from(!want.is_empty());
        }
    }
    nonempty
}

#[test]
fn counts_equal_an_independent_count_in_every_database() {
    let max_ply = 30;
    let gs = games(1500, 0x9e37_79b9_7f4a_7c15);
    let path = temp("counts");
    let ex = Explorer::open(
        &path,
        Options {
            max_ply: max_ply as u16,
        },
    )
    .unwrap();
    let added = ex.add(&gs).unwrap();
    let mut oracle = Oracle::default();
    oracle.add(&gs, max_ply);
    assert!(added.duplicates > 100, "{added:?}");
    assert!(added.unfinished > 100, "{added:?}");
    let ps = positions(&gs, max_ply);
    let nonempty = check_all(&ex, &oracle, &ps);
    assert!(nonempty > 5000, "only {nonempty} lookups found moves");
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

#[test]
fn adding_in_batches_and_reopening_equals_one_build() {
    let max_ply = 24;
    let gs = games(900, 0x1234_5678_9abc_def1);
    let whole = temp("whole");
    let a = Explorer::open(&whole, Options { max_ply: 24 }).unwrap();
    let total = a.add(&gs).unwrap();
    let parts = temp("parts");
    let mut sum = xiangqi_explorer::Added::default();
    for (k, chunk) in gs.chunks(250).enumerate() {
        // Reopened for every batch: adding never rebuilds, and what is there stays; the mark
        // set with each batch is the last one's.
        let b = Explorer::open_existing(&parts)
            .unwrap_or_else(|_| Explorer::open(&parts, Options { max_ply: 24 }).unwrap());
        assert_eq!(b.mark("read").unwrap(), (k > 0).then_some(k as u64 * 10));
        sum += b
            .add_marked(chunk, Some(("read", (k as u64 + 1) * 10)))
            .unwrap();
    }
    assert_eq!(
        Explorer::open_existing(&parts)
            .unwrap()
            .mark("read")
            .unwrap(),
        Some(40)
    );
    assert_eq!(a.mark("read").unwrap(), None);
    assert_eq!(
        (sum.games, sum.duplicates, sum.unfinished),
        (total.games, total.duplicates, total.unfinished)
    );
    // The whole set again is all duplicates.
    let b = Explorer::open_existing(&parts).unwrap();
    let again = b.add(&gs).unwrap();
    assert_eq!(again.games, 0);
    assert_eq!(again.duplicates + again.unfinished, gs.len() as u64);
    let mut oracle = Oracle::default();
    oracle.add(&gs, max_ply);
    for p in positions(&gs, max_ply) {
        for db in [
            Db::Masters,
            Db::Site {
                speeds: vec![],
                bands: vec![],
            },
            Db::Player {
                name: "chen".into(),
                color: Color::Black,
            },
        ] {
            assert_eq!(a.lookup(&db, &p).unwrap(), b.lookup(&db, &p).unwrap());
        }
    }
    assert_eq!(a.counts().unwrap(), b.counts().unwrap());
    // Top and recent games are real games with their headers.
    let start = a.lookup(&Db::Masters, &Position::new()).unwrap();
    let top = start.top_games(4);
    assert!(!top.is_empty());
    for w in top.windows(2) {
        assert!(w[0].1.rating >= w[1].1.rating);
    }
    let meta = a.game(top[0].1.id).unwrap().expect("the top game's header");
    assert_eq!(meta.rating(), top[0].1.rating);
    let _ = std::fs::remove_dir_all(whole.parent().unwrap());
    let _ = std::fs::remove_dir_all(parts.parent().unwrap());
}

#[test]
fn another_ply_limit_or_a_foreign_file_is_refused() {
    let path = temp("limit");
    drop(Explorer::open(&path, Options { max_ply: 20 }).unwrap());
    let e = Explorer::open(&path, Options { max_ply: 30 })
        .err()
        .expect("refused");
    assert!(e.to_string().contains("ply limit of 20"), "{e}");
    assert_eq!(
        Explorer::open_existing(&path).unwrap().options().max_ply,
        20
    );
    let junk = path.with_file_name("junk.redb");
    std::fs::write(&junk, b"not a database at all").unwrap();
    let e = Explorer::open_existing(&junk).err().expect("refused");
    assert!(
        e.to_string().contains("junk.redb") || e.to_string().contains("index"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

#[test]
fn a_bulk_load_equals_adding_batch_by_batch() {
    let max_ply = 30;
    let gs = games(1500, 0x0bad_cafe_f00d_d00d);
    let options = Options {
        max_ply: max_ply as u16,
    };
    let plain = temp("bulk-plain");
    let a = Explorer::open(&plain, options).unwrap();
    let mut sum_a = xiangqi_explorer::Added::default();
    for chunk in gs.chunks(200) {
        sum_a += a.add(chunk).unwrap();
    }
    let bulk = temp("bulk-bulk");
    let b = Explorer::open(&bulk, options).unwrap();
    assert!(b.is_empty().unwrap());
    let mut load = b.bulk_load().unwrap();
    // Duplicates across batches (the copies of earlier games) are found as in `add`. Every
    // other batch is added as played legally already (the games are legal): their moves are
    // not checked again, and the counts are the same.
    for (i, chunk) in gs.chunks(200).enumerate() {
        if i % 2 == 0 {
            load.add(chunk).unwrap();
        } else {
            load.add_legal(chunk).unwrap();
        }
    }
    let runs = |dir: &std::path::Path| {
        std::fs::read_dir(dir)
            .unwrap()
            .filter(|e| {
                let name = e.as_ref().unwrap().file_name();
                name.to_string_lossy().contains(".run-")
            })
            .count()
    };
    assert!(
        runs(bulk.parent().unwrap()) > 1,
        "the batches are kept as runs"
    );
    let sum_b = load.finish().unwrap();
    assert_eq!(runs(bulk.parent().unwrap()), 0, "the runs are removed");
    assert_eq!(
        (sum_b.games, sum_b.duplicates, sum_b.unfinished, sum_b.cut),
        (sum_a.games, sum_a.duplicates, sum_a.unfinished, sum_a.cut)
    );
    assert!(sum_b.duplicates > 100 && sum_b.games > 900, "{sum_b:?}");
    assert_eq!(a.counts().unwrap(), b.counts().unwrap());
    // The same answers as the ordinary build, and as the independent count, in every
    // database and filter (top and recent games included: `Answer` holds them).
    let mut oracle = Oracle::default();
    oracle.add(&gs, max_ply);
    let ps = positions(&gs, max_ply);
    assert!(check_all(&b, &oracle, &ps) > 5000);
    let mut dbs = vec![Db::Masters];
    for speed in Speed::ALL {
        for band in 0..RATING_BANDS.len() as u8 {
            dbs.push(Db::Site {
                speeds: vec![speed],
                bands: vec![band],
            });
        }
    }
    for n in NAMES {
        for color in [Color::Red, Color::Black] {
            dbs.push(Db::Player {
                name: n.into(),
                color,
            });
        }
    }
    for p in &ps {
        for db in &dbs {
            assert_eq!(a.lookup(db, p).unwrap(), b.lookup(db, p).unwrap(), "{db:?}");
        }
    }
    for id in 1..=a.counts().unwrap().0 + 1 {
        assert_eq!(a.game(id).unwrap(), b.game(id).unwrap());
    }
    // The bulk-loaded index takes more games as any index does, and refuses another bulk load.
    assert!(b.bulk_load().is_err());
    let more = games(300, 77);
    assert_eq!(a.add(&more).unwrap(), b.add(&more).unwrap());
    for p in positions(&more, max_ply) {
        assert_eq!(
            a.lookup(&Db::Masters, &p).unwrap(),
            b.lookup(&Db::Masters, &p).unwrap()
        );
    }
    // A bulk load dropped before `finish` leaves the index empty and no runs behind.
    let dropped = temp("bulk-dropped");
    let c = Explorer::open(&dropped, options).unwrap();
    let mut load = c.bulk_load().unwrap();
    load.add(&gs[..300]).unwrap();
    drop(load);
    assert_eq!(c.counts().unwrap(), (0, 0));
    assert_eq!(runs(dropped.parent().unwrap()), 0);
    let _ = std::fs::remove_dir_all(plain.parent().unwrap());
    let _ = std::fs::remove_dir_all(bulk.parent().unwrap());
    let _ = std::fs::remove_dir_all(dropped.parent().unwrap());
}
