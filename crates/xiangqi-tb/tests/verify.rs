//! Checks of generated tables that do not trust the generator: (a) every value agrees with
//! the values of the positions its legal moves reach, over whole tables; (b) random
//! positions agree with a plain depth-limited mate search of the rules core that knows
//! nothing of the tables; (c) results of endgame theory from a named source. The tables are
//! generated here (small sets only), written to files and read back through the probe code.

use std::path::PathBuf;

use xiangqi::Position;
use xiangqi_tb::verify::check_moves;
use xiangqi_tb::{build, verify_set, Indexer, Material, Tablebase, Value, VerifyOptions};

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

/// (a) Every legal position of `set` agrees with its moves' values
/// ([`xiangqi_tb::verify::check_moves`]); returns how many were checked.
fn check_consistent(tb: &Tablebase, set: &str) -> usize {
    let mut n = 0;
    for pos in positions(set) {
        if let Err(e) = check_moves(tb, &pos) {
            panic!("{set} {e}");
        }
        n += 1;
    }
    n
}

/// (b) `searched` pseudo-random positions of `set` against the search to `depth`
/// ([`verify_set`] with no position checked against its moves: half at random, half among
/// those the table decides within `depth` plies); returns the wins and losses the search
/// proved.
fn check_with_search(tb: &Tablebase, set: &str, searched: u64, depth: u32) -> u64 {
    let opts = VerifyOptions {
        samples: Some(0),
        searched,
        depth,
        ..VerifyOptions::default()
    };
    let m = Material::parse(set).unwrap();
    let r = verify_set(tb, m, &opts, &mut |_| {}).unwrap();
    assert_eq!(r.faults, 0, "{set}: {:?}", r.examples);
    r.proved
}

#[test]
fn horse_and_soldier_sets_are_consistent_and_agree_with_search() {
    let (dir, tb) = tables("hp", &["KHKA", "KPKE", "KPKP"]);
    for set in ["KHK", "KHKA", "KPK", "KPKE", "KPKP"] {
        assert!(check_consistent(&tb, set) > 1000, "{set}");
    }
    let mut proved = 0;
    for set in ["KHKA", "KPKE", "KPKP"] {
        proved += check_with_search(&tb, set, 1100, 3);
        proved += check_with_search(&tb, set, 20, 5);
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
        proved += check_with_search(&tb, set, 1100, 3);
        proved += check_with_search(&tb, set, 15, 5);
    }
    assert!(
        proved > 100,
        "the search proved only {proved} wins and losses"
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn verify_set_checks_every_position_and_finds_a_changed_value() {
    let (dir, tb) = tables("verify-set", &["KRKA"]);
    let all = VerifyOptions {
        samples: None,
        searched: 200,
        ..VerifyOptions::default()
    };
    let m = Material::parse("KRKA").unwrap();
    let r = verify_set(&tb, m, &all, &mut |_| {}).unwrap();
    assert_eq!(r.faults, 0, "{:?}", r.examples);
    assert_eq!(r.checked, check_consistent(&tb, "KRKA") as u64);
    assert_eq!(r.checked, r.wins + r.draws + r.losses);
    assert_eq!(r.searched, 200);
    assert!(r.proved > 50, "{}", r.proved);
    // KRKA has rule results (format 2): every position checked under the rule as well.
    assert_eq!(r.rule_checked, r.checked);
    // A sample: as many positions, drawn at random.
    let some = VerifyOptions {
        samples: Some(5_000),
        searched: 0,
        ..VerifyOptions::default()
    };
    let r = verify_set(&tb, m, &some, &mut |_| {}).unwrap();
    assert_eq!((r.checked, r.faults, r.searched), (5_000, 0, 0));

    // One won position's DTM made two plies longer, the file written again with its
    // checksums: the check names that position (and its neighbours that now disagree).
    let path = dir.join("KRKA.xqtb");
    let file = xiangqi_tb::TableFile::open(&path).unwrap();
    let mut values = file.values().unwrap();
    let ix = Indexer::new(m);
    let (i, fen) = (0..ix.size())
        .find_map(|i| match Value::from_byte(values[i as usize]) {
            Some(Value::Win(d)) if d >= 5 => Some((i, ix.position(i).unwrap().fen())),
            _ => None,
        })
        .unwrap();
    let Some(Value::Win(d)) = Value::from_byte(values[i as usize]) else {
        unreachable!()
    };
    values[i as usize] = Value::Win(d + 2).to_byte();
    let stats = xiangqi_tb::Stats {
        max_dtm: file.max_dtm,
        ..xiangqi_tb::Stats::default()
    };
    drop(file);
    xiangqi_tb::file::write(&path, &m, &values, &stats).unwrap();
    let tb = Tablebase::open(&dir).unwrap();
    let r = verify_set(&tb, m, &all, &mut |_| {}).unwrap();
    assert!(r.faults >= 1);
    assert!(
        r.examples.iter().any(|e| e.starts_with(&fen)),
        "{fen} not among {:?}",
        r.examples
    );
    std::fs::remove_dir_all(dir).ok();
}
