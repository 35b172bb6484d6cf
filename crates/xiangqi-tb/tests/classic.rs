//! (c) Results of endgame theory that published sources state, against generated tables.
//! Each assertion names its source; "sure win" (例胜) and "sure draw" (例和) in the books mean
//! the usual result, not every placement (a piece may stand where it is lost at once), so
//! they are checked as shares of the positions with the attacking side to move.

use xiangqi::{Color, Position};
use xiangqi_tb::{build, Indexer, Material, Tablebase, Value};

fn tables(tag: &str, sets: &[&str]) -> (std::path::PathBuf, Tablebase) {
    let dir = std::env::temp_dir().join(format!("xiangqi-tb-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let names: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    build(&names, &dir, 2, &mut |_| {}).expect("generate");
    (dir.clone(), Tablebase::open(&dir).expect("open"))
}

/// Won, drawn and lost shares (per cent) of the legal positions of `set` with its first
/// (attacking) side to move.
fn shares(tb: &Tablebase, set: &str) -> [f64; 3] {
    let ix = Indexer::new(Material::parse(set).unwrap().canonical());
    let mut c = [0u64; 3];
    for i in 0..ix.size() {
        let Some(pos): Option<Position> = ix.position(i) else {
            continue;
        };
        if pos.turn() != Color::Red {
            continue;
        }
        match tb.probe(&pos).unwrap() {
            Value::Win(_) => c[0] += 1,
            Value::Draw => c[1] += 1,
            Value::Loss(_) => c[2] += 1,
        }
    }
    let n = c.iter().sum::<u64>() as f64;
    c.map(|x| 100.0 * x as f64 / n)
}

#[test]
fn single_attacker_results_of_the_books() {
    let (dir, tb) = tables("classic", &["KHKA", "KHKEE", "KCK", "KPK"]);
    let s = |set| {
        let v = shares(&tb, set);
        eprintln!(
            "{set}: won {:.1}% drawn {:.1}% lost {:.1}%",
            v[0], v[1], v[2]
        );
        v
    };
    // xqinenglish.com, "The Anatomy of the Xiangqi part 4 -- the end game": "one horse against
    // one advisor is a sure win situation no matter where the horse is placed or how the
    // advisor defends", "one horse versus a solitary king is a sure win situation", "A horse
    // against 2 elephants is a sure draw".
    assert!(s("KHKA")[0] > 90.0);
    assert!(s("KHK")[0] > 90.0);
    assert!(s("KHKEE")[1] > 90.0);
    // rec.games.chinese-chess, "Sufficient strength to checkmate in XiangQi?" (2005, R. Becker,
    // citing David Li's "First Syllabus in XiangQi"): "A lone cannon isn't enough material to
    // mate" -- no position of KCK is won, whoever moves; "you can also win by stalemate with a
    // lone horse or lone pawn".
    let ix = Indexer::new(Material::parse("KCK").unwrap());
    for i in 0..ix.size() {
        if let Some(pos) = ix.position(i) {
            assert!(
                !matches!(tb.probe(&pos).unwrap(), Value::Win(_)),
                "{}",
                pos.fen()
            );
        }
    }
    assert!(s("KPK")[0] > 0.0);
    std::fs::remove_dir_all(dir).ok();
}
