//! The book made from an index (`book::build`) against an independent count over the same
//! games: a plain map keyed by FEN text (the smaller of a position's and its mirror's FEN),
//! moves as text, walked from the start position breadth first — none of the index's or the
//! book's keys or encodings. Every position the walk reaches must probe to exactly the moves,
//! weights (by the documented formula), games and scores the count gives, and the book must
//! hold nothing else.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::path::PathBuf;

use xiangqi::{Color, Move, Position};
use xiangqi_explorer::book::{self, Book, BuildOptions, Weights};
use xiangqi_explorer::{Db, Explorer, GameMeta, NewGame, Options, Outcome, Target};

mod common;
use common::Rng;

fn temp(name: &str) -> PathBuf {
    common::temp("book", name)
}

/// `n` games from a fixed seed: their first plies among each position's first three moves (so
/// openings are shared), every 5th the mirror of the one before; results skewed by the first
/// move so that some moves score badly.
fn games(n: usize, seed: u64) -> Vec<NewGame> {
    let mut rng = Rng(seed);
    let mut out: Vec<NewGame> = Vec::new();
    while out.len() < n {
        let i = out.len();
        if i % 5 == 4 {
            let g = out[i - 1].clone();
            let mut meta = g.meta.clone();
            meta.date += 1;
            out.push(NewGame {
                meta,
                start: g.start.flip_horizontal(),
                moves: g.moves.iter().map(|m| m.flip_horizontal()).collect(),
                target: Target::Masters,
            });
            continue;
        }
        let mut pos = Position::new();
        let mut moves = vec![];
        for ply in 0..4 + rng.below(10) {
            let mut legal: Vec<Move> = pos.legal_moves().into_iter().copied().collect();
            legal.sort();
            let k = if ply < 8 {
                legal.len().min(3)
            } else {
                legal.len()
            };
            let m = legal[rng.below(k)];
            moves.push(m);
            pos.play_unchecked(m);
        }
        let bias = (moves[0].to_u16() % 3) as usize;
        let outcome = match (rng.below(6) + bias) % 6 {
            0..=2 => Outcome::RedWins,
            3 => Outcome::Draw,
            _ => Outcome::BlackWins,
        };
        out.push(NewGame {
            meta: GameMeta {
                red: format!("r{}", rng.below(40)),
                black: format!("b{}", rng.below(40)),
                outcome: Some(outcome),
                date: 20_000_101 + i as u32,
                source: format!("game {i}"),
                ..GameMeta::default()
            },
            start: Position::new(),
            moves,
            target: Target::Masters,
        });
    }
    out
}

fn fen_key(p: &Position) -> String {
    p.fen().split(' ').take(2).collect::<Vec<_>>().join(" ")
}

/// Per canonical FEN, per move text (canonical orientation): [red, draws, black].
type Count = HashMap<String, BTreeMap<String, [u64; 3]>>;

/// The canonical FEN of `p`, whether `p` is its mirror, and whether it is symmetric.
fn canonical(p: &Position) -> (String, bool, bool) {
    let (a, b) = (fen_key(p), fen_key(&p.flip_horizontal()));
    if a == b {
        (a, false, true)
    } else if b < a {
        (b, true, false)
    } else {
        (a, false, false)
    }
}

fn stored_text(p: &Position, m: Move) -> String {
    let (_, mirrored, symmetric) = canonical(p);
    let (t, f) = (m.to_string(), m.flip_horizontal().to_string());
    if mirrored {
        f
    } else if symmetric {
        t.min(f)
    } else {
        t
    }
}

/// A move text of the canonical orientation as a move of `p`.
fn from_canonical(p: &Position, mirrored: bool, m: &str) -> Move {
    if mirrored {
        p.flip_horizontal().parse_uci(m).unwrap().flip_horizontal()
    } else {
        p.parse_uci(m).unwrap()
    }
}

fn count(games: &[NewGame]) -> Count {
    let mut c = Count::new();
    for g in games {
        let mut p = g.start.clone();
        let r = match g.meta.outcome.unwrap() {
            Outcome::RedWins => 0,
            Outcome::Draw => 1,
            Outcome::BlackWins => 2,
        };
        for &m in &g.moves {
            let e = c.entry(canonical(&p).0).or_default();
            e.entry(stored_text(&p, m)).or_default()[r] += 1;
            p.play_unchecked(m);
        }
    }
    c
}

/// What the documented formula gives: per move of `p` (its orientation) the weight, share,
/// games and half points.
fn expected(c: &Count, p: &Position, o: &BuildOptions) -> BTreeSet<(String, u16, u8, u32, u32)> {
    let (fen, mirrored, symmetric) = canonical(p);
    let Some(moves) = c.get(&fen) else {
        return BTreeSet::new();
    };
    let mut kept = vec![];
    for (m, [red, draws, black]) in moves {
        let games = red + draws + black;
        let wins = if p.turn() == Color::Red { red } else { black };
        let points = 2 * wins + draws;
        let score = points as f64 / (2.0 * games as f64);
        let raw = match o.weights {
            Weights::Results => games as f64 * (score + 0.1),
            Weights::Games => games as f64,
            Weights::Points => points as f64,
        };
        if games >= u64::from(o.min_games) && score >= o.min_score && raw > 0.0 {
            kept.push((m.clone(), raw, games, points));
        }
    }
    let max = kept.iter().map(|k| k.1).fold(0.0, f64::max);
    let mut out = BTreeSet::new();
    for (m, raw, games, points) in kept {
        let w = ((raw / max * 65535.0).round() as u16).max(1);
        let mv = from_canonical(p, mirrored, &m);
        let mirror = mv.flip_horizontal();
        if symmetric && mirror != mv && p.is_legal(mirror) {
            out.insert((mv.to_string(), w, 2, games as u32, points as u32));
            out.insert((mirror.to_string(), w, 2, games as u32, points as u32));
        } else {
            out.insert((mv.to_string(), w, 1, games as u32, points as u32));
        }
    }
    out
}

fn check(o: BuildOptions, games_n: usize, seed: u64, name: &str) {
    let games = games(games_n, seed);
    check_db(o, &games, &games, &Db::Masters, name);
}

/// The book of `db` in an index of `all` against the count of `counted` (the games `db`
/// holds).
fn check_db(o: BuildOptions, all: &[NewGame], counted: &[NewGame], db: &Db, name: &str) {
    let ex = Explorer::open(&temp(name), Options::default()).unwrap();
    ex.add(all).unwrap();
    let games = counted;
    let built = book::build(&ex, db, &o, &mut |_, _| {}).unwrap();
    let bytes = book::encode(built.entries.clone(), built.header).unwrap();
    let book = Book::from_bytes(bytes, name).unwrap();
    assert_eq!(book.header().max_ply, o.max_ply);
    assert_eq!(book.header().min_games, o.min_games);

    let c = count(games);
    // Breadth first from the start along moves played at least min_games times.
    let mut seen = BTreeSet::from([canonical(&Position::new()).0]);
    let mut queue = VecDeque::from([(Position::new(), 0u16)]);
    let (mut entries, mut positions, mut probed_moves) = (0usize, 0usize, 0usize);
    while let Some((p, ply)) = queue.pop_front() {
        if ply >= o.max_ply {
            continue;
        }
        positions += 1;
        let want = expected(&c, &p, &o);
        let got: BTreeSet<_> = book
            .probe(&p)
            .iter()
            .map(|m| (m.mv.to_string(), m.weight, m.share, m.games, m.score))
            .collect();
        assert_eq!(got, want, "{}", p.fen());
        probed_moves += got.len();
        entries += want
            .iter()
            .map(|w| if w.2 == 2 { 1 } else { 2 })
            .sum::<usize>()
            / 2;
        // The mirror of the position answers the mirrored moves.
        let mirrored: BTreeSet<_> = book
            .probe(&p.flip_horizontal())
            .iter()
            .map(|m| m.mv.flip_horizontal().to_string())
            .collect();
        let plain: BTreeSet<_> = got.iter().map(|g| g.0.clone()).collect();
        assert_eq!(mirrored, plain, "{}", p.fen());
        let (fen, mirrored, _) = canonical(&p);
        for (m, n) in c.get(&fen).into_iter().flatten() {
            if n.iter().sum::<u64>() < u64::from(o.min_games) {
                continue;
            }
            let mv = from_canonical(&p, mirrored, m);
            let mut next = p.clone();
            next.play_unchecked(mv);
            if seen.insert(canonical(&next).0) {
                queue.push_back((next, ply + 1));
            }
        }
    }
    assert_eq!(
        book.len(),
        entries,
        "the book holds entries the walk did not reach"
    );
    assert_eq!(built.positions as usize, positions);
    assert!(
        probed_moves > 50,
        "too small a book to test: {probed_moves}"
    );
    // Some moves were left out for their score.
    eprintln!("{name}: {positions} positions, {} entries", book.len());
}

#[test]
fn the_book_holds_the_counted_moves_with_the_documented_weights() {
    check(BuildOptions::default(), 1500, 0x5eed, "results");
}

#[test]
fn other_weights_limits_and_thresholds() {
    check(
        BuildOptions {
            min_games: 1,
            max_ply: 5,
            weights: Weights::Points,
            min_score: 0.0,
        },
        400,
        7,
        "points",
    );
    check(
        BuildOptions {
            min_games: 10,
            max_ply: 30,
            weights: Weights::Games,
            min_score: 0.5,
        },
        1500,
        11,
        "games",
    );
}

/// A player's book (`Db::Player`): the games an account played with that colour on the site,
/// as if they were the only ones: another account's games, the same account's games with
/// the other colour and the masters' are not in it.
#[test]
fn a_player_book_holds_that_players_games_of_that_colour_only() {
    let mut all = games(1500, 0xbeef);
    let names = ["Ann", "bo", "cy"];
    for (i, g) in all.iter_mut().enumerate() {
        // Every 7th game stays a masters game; the others are site games of two accounts (a
        // mirrored copy keeps its original's seats, so mirrors count for the same player).
        if i % 7 == 6 {
            continue;
        }
        let k = if i % 5 == 4 { i - 1 } else { i };
        g.target = Target::Site {
            speed: xiangqi_explorer::Speed::Blitz,
            accounts: [Some(names[k % 3].into()), Some(names[(k + 1) % 3].into())],
        };
    }
    let is_anns_red = |i: usize, g: &NewGame| {
        matches!(&g.target, Target::Site { accounts, .. } if accounts[0].as_deref() == Some("Ann"))
            && i % 7 != 6
    };
    let counted: Vec<NewGame> = all
        .iter()
        .enumerate()
        .filter(|(i, g)| is_anns_red(*i, g))
        .map(|(_, g)| g.clone())
        .collect();
    assert!(counted.len() > 300 && counted.len() < all.len() / 2);
    let o = BuildOptions {
        min_games: 2,
        ..BuildOptions::default()
    };
    // The name in any case.
    for (name, tag) in [("Ann", "player"), ("ann", "player-lower")] {
        let db = Db::Player {
            name: name.into(),
            color: Color::Red,
        };
        check_db(o, &all, &counted, &db, tag);
    }
}

#[test]
fn a_written_book_file_reads_back() {
    let games = games(300, 3);
    let ex = Explorer::open(&temp("file"), Options::default()).unwrap();
    ex.add(&games).unwrap();
    let built = book::build(&ex, &Db::Masters, &BuildOptions::default(), &mut |_, _| {}).unwrap();
    let path = temp("file").with_file_name("book.xqb");
    std::fs::write(
        &path,
        book::encode(built.entries.clone(), built.header).unwrap(),
    )
    .unwrap();
    let b = Book::load(&path).unwrap();
    let mut want = built.entries.clone();
    want.sort_by_key(|e| (e.key, e.mv.to_u16()));
    assert_eq!(b.entries().collect::<Vec<_>>(), want);
    let e = Book::load(&path.with_file_name("missing.xqb")).unwrap_err();
    assert!(
        e.0.contains("cannot read") && e.0.contains("missing.xqb"),
        "{e}"
    );
}
