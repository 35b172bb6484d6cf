//! The opening explorer's storage comparison (issue #30): the same batches of the explorer's
//! own entries (keys and 52-byte counts from `xiangqi_explorer::key_games`) merged into
//! redb, fjall, LMDB (heed) and RocksDB, and looked up as the explorer does (one range scan
//! of a position's moves). `benches/explorer.sh` runs it; docs/EXPLORER.md has the figures.
//!
//! ```text
//! explorer-storage STORE DIR --batch N --lookups N GAMES... [--more GAMES...]
//! ```
//!
//! STORE is `redb`, `fjall`, `lmdb`, `rocksdb` (read-modify-write, as the others) or
//! `rocksdb-merge` (RocksDB's merge operator: no read when adding). DIR is made anew.
//! Every store commits each batch durably (an fsync), as the explorer's redb transaction
//! does. Only the merge is timed for the build figures (reading and keying the games are the
//! same work for every store, and are reported apart). The games' headers and the
//! duplicate check (the explorer's `games` and `seen` tables) are left out: they are one
//! insert each per game whatever the store.
//!
//! Lookups: positions drawn from the entries (every 61st entry of the build, shuffled);
//! warm: after a pass over them all, three timed passes; cold: the store closed, the page
//! cache dropped (`sync; echo 3 > /proc/sys/vm/drop_caches`, needs root), reopened, and
//! 5,000 lookups timed, three times.

use std::path::{Path, PathBuf};
use std::time::Instant;

use redb::ReadableTable;
use xiangqi_explorer::stats::STATS_LEN;
use xiangqi_explorer::{key_games, record, KeyedBatch, MoveStats, NewGame};
use xiangqi_record::detect::read_any;

enum Store {
    Redb(redb::Database),
    Fjall(fjall::Keyspace, fjall::PartitionHandle),
    Lmdb(
        heed::Env,
        heed::Database<heed::types::Bytes, heed::types::Bytes>,
    ),
    Rocks(rocksdb::DB, bool),
}

const MOVES: redb::TableDefinition<&[u8], &[u8]> = redb::TableDefinition::new("moves");

type Res<T> = Result<T, String>;

fn e<E: std::fmt::Display>(what: &'static str) -> impl Fn(E) -> String {
    move |err| format!("{what}: {err}")
}

fn add_bytes(old: Option<&[u8]>, delta: &MoveStats) -> Res<[u8; STATS_LEN]> {
    let mut s = match old {
        Some(v) => MoveStats::decode(v).ok_or("a damaged entry (not 44 bytes)")?,
        None => MoveStats::default(),
    };
    s.add(delta);
    Ok(s.encode())
}

fn rocks_merge(
    _key: &[u8],
    existing: Option<&[u8]>,
    operands: &rocksdb::MergeOperands,
) -> Option<Vec<u8>> {
    let mut s = existing.and_then(MoveStats::decode).unwrap_or_default();
    for op in operands {
        s.add(&MoveStats::decode(op)?);
    }
    Some(s.encode().to_vec())
}

impl Store {
    fn open(kind: &str, dir: &Path) -> Res<Store> {
        std::fs::create_dir_all(dir).map_err(e("mkdir"))?;
        Ok(match kind {
            "redb" => {
                Store::Redb(redb::Database::create(dir.join("moves.redb")).map_err(e("redb"))?)
            }
            "fjall" => {
                let ks = fjall::Config::new(dir).open().map_err(e("fjall"))?;
                let p = ks
                    .open_partition("moves", fjall::PartitionCreateOptions::default())
                    .map_err(e("fjall"))?;
                Store::Fjall(ks, p)
            }
            "lmdb" => {
                // SAFETY: the environment is opened once in this process and nobody else
                // opens the directory while it is (heed's condition for `open`).
                let env = unsafe {
                    heed::EnvOpenOptions::new()
                        .map_size(64 << 30)
                        .max_dbs(2)
                        .open(dir)
                }
                .map_err(e("lmdb"))?;
                let mut tx = env.write_txn().map_err(e("lmdb"))?;
                let db = env
                    .create_database(&mut tx, Some("moves"))
                    .map_err(e("lmdb"))?;
                tx.commit().map_err(e("lmdb"))?;
                Store::Lmdb(env, db)
            }
            "rocksdb" | "rocksdb-merge" => {
                let mut o = rocksdb::Options::default();
                o.create_if_missing(true);
                o.set_max_background_jobs(2);
                let merge = kind == "rocksdb-merge";
                if merge {
                    o.set_merge_operator_associative("explorer-add", rocks_merge);
                }
                Store::Rocks(rocksdb::DB::open(&o, dir).map_err(e("rocksdb"))?, merge)
            }
            _ => {
                return Err(format!(
                    "unknown store '{kind}' (redb, fjall, lmdb, rocksdb, rocksdb-merge)"
                ))
            }
        })
    }

    /// Merges a batch durably.
    fn merge(&mut self, b: &KeyedBatch) -> Res<()> {
        match self {
            Store::Redb(db) => {
                let tx = db.begin_write().map_err(e("redb"))?;
                {
                    let mut t = tx.open_table(MOVES).map_err(e("redb"))?;
                    for (k, d) in b.entries() {
                        let old = t.get(k).map_err(e("redb"))?;
                        let v = add_bytes(old.as_ref().map(|v| v.value()), d)?;
                        drop(old);
                        t.insert(k, v.as_slice()).map_err(e("redb"))?;
                    }
                }
                tx.commit().map_err(e("redb"))?;
            }
            Store::Fjall(ks, p) => {
                let mut batch = ks.batch().durability(Some(fjall::PersistMode::SyncAll));
                for (k, d) in b.entries() {
                    let old = p.get(k).map_err(e("fjall"))?;
                    let v = add_bytes(old.as_deref(), d)?;
                    batch.insert(p, k, v.as_slice());
                }
                batch.commit().map_err(e("fjall"))?;
            }
            Store::Lmdb(env, db) => {
                let mut tx = env.write_txn().map_err(e("lmdb"))?;
                for (k, d) in b.entries() {
                    let v = add_bytes(db.get(&tx, k).map_err(e("lmdb"))?, d)?;
                    db.put(&mut tx, k, v.as_slice()).map_err(e("lmdb"))?;
                }
                tx.commit().map_err(e("lmdb"))?;
            }
            Store::Rocks(db, merge) => {
                let mut wb = rocksdb::WriteBatch::default();
                for (k, d) in b.entries() {
                    if *merge {
                        wb.merge(k, d.encode());
                    } else {
                        let old = db.get_pinned(k).map_err(e("rocksdb"))?;
                        wb.put(k, add_bytes(old.as_deref(), d)?);
                    }
                }
                let mut wo = rocksdb::WriteOptions::default();
                wo.set_sync(true);
                db.write_opt(wb, &wo).map_err(e("rocksdb"))?;
            }
        }
        Ok(())
    }

    /// A position's moves: one range scan of `prefix` (database prefix and position key)
    /// followed by a 2-byte move; answers (moves, games).
    fn lookup(&self, prefix: &[u8]) -> Res<(u32, u64)> {
        let mut lo = prefix.to_vec();
        lo.extend_from_slice(&[0, 0]);
        let mut hi = prefix.to_vec();
        hi.extend_from_slice(&[0xff, 0xff]);
        let (mut n, mut games) = (0u32, 0u64);
        let mut eat = |v: &[u8]| -> Res<()> {
            let s = MoveStats::decode(v).ok_or("a damaged entry")?;
            n += 1;
            games += s.games();
            Ok(())
        };
        match self {
            Store::Redb(db) => {
                use redb::ReadableDatabase;
                let tx = db.begin_read().map_err(e("redb"))?;
                let t = tx.open_table(MOVES).map_err(e("redb"))?;
                for r in t.range(lo.as_slice()..=hi.as_slice()).map_err(e("redb"))? {
                    let (_, v) = r.map_err(e("redb"))?;
                    eat(v.value())?;
                }
            }
            Store::Fjall(_, p) => {
                for r in p.range(lo.as_slice()..=hi.as_slice()) {
                    let (_, v) = r.map_err(e("fjall"))?;
                    eat(&v)?;
                }
            }
            Store::Lmdb(env, db) => {
                let tx = env.read_txn().map_err(e("lmdb"))?;
                for r in db.prefix_iter(&tx, prefix).map_err(e("lmdb"))? {
                    let (_, v) = r.map_err(e("lmdb"))?;
                    eat(v)?;
                }
            }
            Store::Rocks(db, _) => {
                let mut it = db.raw_iterator();
                it.seek(&lo);
                while it.valid() {
                    let (Some(k), Some(v)) = (it.key(), it.value()) else {
                        break;
                    };
                    if k > hi.as_slice() {
                        break;
                    }
                    eat(v)?;
                    it.next();
                }
                it.status().map_err(e("rocksdb"))?;
            }
        }
        Ok((n, games))
    }

    /// Entries and distinct positions (17-byte prefixes), by a full scan.
    fn count(&self) -> Res<(u64, u64)> {
        let (mut entries, mut positions) = (0u64, 0u64);
        let mut last: Vec<u8> = Vec::new();
        let mut see = |k: &[u8]| {
            entries += 1;
            let p = &k[..k.len() - 2];
            if p != last.as_slice() {
                positions += 1;
                last.clear();
                last.extend_from_slice(p);
            }
        };
        match self {
            Store::Redb(db) => {
                use redb::ReadableDatabase;
                let tx = db.begin_read().map_err(e("redb"))?;
                let t = tx.open_table(MOVES).map_err(e("redb"))?;
                for r in t.iter().map_err(e("redb"))? {
                    see(r.map_err(e("redb"))?.0.value());
                }
            }
            Store::Fjall(_, p) => {
                for k in p.keys() {
                    see(&k.map_err(e("fjall"))?);
                }
            }
            Store::Lmdb(env, db) => {
                let tx = env.read_txn().map_err(e("lmdb"))?;
                for r in db.iter(&tx).map_err(e("lmdb"))? {
                    see(r.map_err(e("lmdb"))?.0);
                }
            }
            Store::Rocks(db, _) => {
                let mut it = db.raw_iterator();
                it.seek_to_first();
                while it.valid() {
                    if let Some(k) = it.key() {
                        see(k);
                    }
                    it.next();
                }
            }
        }
        Ok((entries, positions))
    }

    /// Flushes what is in memory (fjall's and RocksDB's memtables) so the size is the
    /// files', then closes.
    fn close(self) -> Res<()> {
        match self {
            Store::Redb(db) => drop(db),
            Store::Fjall(ks, p) => {
                p.rotate_memtable_and_wait().map_err(e("fjall"))?;
                ks.persist(fjall::PersistMode::SyncAll)
                    .map_err(e("fjall"))?;
                drop(p);
                drop(ks);
                // fjall's background threads let go of the keyspace a moment after.
                std::thread::sleep(std::time::Duration::from_millis(500));
            }
            Store::Lmdb(env, _) => {
                env.prepare_for_closing().wait();
            }
            Store::Rocks(db, _) => {
                db.flush().map_err(e("rocksdb"))?;
                drop(db);
            }
        }
        Ok(())
    }
}

fn dir_size(dir: &Path) -> u64 {
    let mut n = 0;
    if let Ok(rd) = std::fs::read_dir(dir) {
        for f in rd.flatten() {
            match f.metadata() {
                Ok(m) if m.is_dir() => n += dir_size(&f.path()),
                Ok(m) => n += m.len(),
                Err(_) => {}
            }
        }
    }
    n
}

fn drop_caches() -> bool {
    let _ = std::process::Command::new("sync").status();
    std::fs::write("/proc/sys/vm/drop_caches", b"3").is_ok()
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn time_lookups(s: &Store, keys: &[Vec<u8>]) -> Res<(f64, f64, f64)> {
    let mut t = Vec::with_capacity(keys.len());
    let mut found = 0u64;
    for k in keys {
        let t0 = Instant::now();
        let (n, _) = s.lookup(k)?;
        t.push(t0.elapsed().as_secs_f64() * 1e6);
        found += u64::from(n > 0);
    }
    if found != keys.len() as u64 {
        return Err(format!(
            "{} of {} positions not found",
            keys.len() as u64 - found,
            keys.len()
        ));
    }
    t.sort_by(f64::total_cmp);
    Ok((pct(&t, 0.5), pct(&t, 0.99), t[t.len() - 1]))
}

struct Games {
    files: Vec<PathBuf>,
}

/// Reads the games of `files` in order, calling `f` with each batch of `n` (numbered from
/// `first_id`); answers (games, seconds keying).
fn batches(
    g: &Games,
    n: usize,
    first_id: &mut u64,
    mut f: impl FnMut(&KeyedBatch) -> Res<()>,
) -> Res<(u64, f64)> {
    let (mut games, mut key_s) = (0u64, 0.0);
    let mut pending: Vec<NewGame> = Vec::with_capacity(n);
    let mut flush = |pending: &mut Vec<NewGame>, key_s: &mut f64| -> Res<()> {
        let t = Instant::now();
        let with_ids: Vec<(u64, &NewGame)> = pending
            .iter()
            .map(|g| {
                *first_id += 1;
                (*first_id, g)
            })
            .collect();
        let b = key_games(&with_ids, 50);
        *key_s += t.elapsed().as_secs_f64();
        f(&b)?;
        pending.clear();
        Ok(())
    };
    for file in &g.files {
        let bytes = std::fs::read(file).map_err(|err| format!("{}: {err}", file.display()))?;
        let all = read_any(&bytes).map_err(|err| format!("{}: {err}", file.display()))?;
        let name = file.display().to_string();
        for (i, rec) in all.games.iter().enumerate() {
            let rec = rec
                .as_ref()
                .map_err(|err| format!("{name} game {}: {err}", i + 1))?;
            pending.push(record::from_record(rec, format!("{name}#{}", i + 1)));
            games += 1;
            if pending.len() >= n {
                flush(&mut pending, &mut key_s)?;
            }
        }
    }
    if !pending.is_empty() {
        flush(&mut pending, &mut key_s)?;
    }
    Ok((games, key_s))
}

fn main() {
    if let Err(err) = run() {
        eprintln!("explorer-storage: {err}");
        std::process::exit(1);
    }
}

fn run() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage =
        "usage: explorer-storage STORE DIR --batch N --lookups N GAMES... [--more GAMES...]";
    if args.len() < 3 {
        return Err(usage.into());
    }
    let (kind, dir) = (args[0].clone(), PathBuf::from(&args[1]));
    let (mut batch, mut lookups) = (20_000usize, 100_000usize);
    let (mut games, mut more) = (Vec::new(), Vec::new());
    let mut into_more = false;
    let mut i = 2;
    while i < args.len() {
        let num = |j: usize| -> Res<usize> {
            args.get(j)
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("{} needs a whole number\n{usage}", args[j - 1]))
        };
        match args[i].as_str() {
            "--batch" => {
                batch = num(i + 1)?.max(1);
                i += 1;
            }
            "--lookups" => {
                lookups = num(i + 1)?.max(1);
                i += 1;
            }
            "--more" => into_more = true,
            f if into_more => more.push(PathBuf::from(f)),
            f => games.push(PathBuf::from(f)),
        }
        i += 1;
    }
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(e("removing the old store"))?;
    }
    let mut store = Store::open(&kind, &dir)?;
    let mut sample: Vec<Vec<u8>> = Vec::new();
    let mut seen_entries = 0u64;
    let mut id = 0u64;
    let (mut merge_s, mut entries_merged) = (0.0f64, 0u64);
    let wall = Instant::now();
    let (n_games, key_s) = batches(&Games { files: games }, batch, &mut id, |b| {
        for (k, _) in b.entries() {
            seen_entries += 1;
            if seen_entries % 61 == 0 {
                sample.push(k[..k.len() - 2].to_vec());
            }
        }
        let t = Instant::now();
        store.merge(b)?;
        merge_s += t.elapsed().as_secs_f64();
        entries_merged += b.len() as u64;
        Ok(())
    })?;
    let wall_s = wall.elapsed().as_secs_f64();
    store.close()?;
    let size = dir_size(&dir);
    let store = Store::open(&kind, &dir)?;
    let (entries, positions) = store.count()?;
    println!(
        "{kind} build: {n_games} games in batches of {batch}: merge {merge_s:.1} s = {:.0} games/s ({entries_merged} batch entries); reading {:.1} s, keying {key_s:.1} s, wall {wall_s:.1} s; size {size} bytes = {:.1} bytes/entry, {:.1} bytes/position ({entries} entries, {positions} positions)",
        n_games as f64 / merge_s,
        (wall_s - key_s - merge_s).max(0.0),
        size as f64 / entries as f64,
        size as f64 / positions as f64,
    );
    let mut store = store;
    if !more.is_empty() {
        let mut merge2 = 0.0f64;
        let (n_more, _) = batches(&Games { files: more }, batch, &mut id, |b| {
            let t = Instant::now();
            store.merge(b)?;
            merge2 += t.elapsed().as_secs_f64();
            Ok(())
        })?;
        store.close()?;
        let size2 = dir_size(&dir);
        store = Store::open(&kind, &dir)?;
        println!(
            "{kind} incremental: {n_more} more games merged in {merge2:.1} s = {:.0} games/s; size {size2} bytes (+{:.1} %)",
            n_more as f64 / merge2,
            100.0 * (size2 as f64 - size as f64) / size as f64
        );
    }
    // Shuffle the sample (a fixed xorshift) and keep `lookups` of it.
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for i in (1..sample.len()).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        sample.swap(i, (x % (i as u64 + 1)) as usize);
    }
    sample.truncate(lookups);
    time_lookups(&store, &sample)?;
    for run in 1..=3 {
        let (p50, p99, max) = time_lookups(&store, &sample)?;
        println!(
            "{kind} warm lookups (run {run}, {} positions): p50 {p50:.1} us, p99 {p99:.1} us, max {max:.0} us",
            sample.len()
        );
    }
    for run in 1..=3 {
        store.close()?;
        if !drop_caches() {
            println!("{kind} cold lookups: cannot drop the page cache (not root?); skipped");
            return Ok(());
        }
        store = Store::open(&kind, &dir)?;
        let from = (run - 1) * 5_000 % sample.len().max(1);
        let part: Vec<Vec<u8>> = sample
            .iter()
            .cycle()
            .skip(from)
            .take(5_000)
            .cloned()
            .collect();
        let (p50, p99, max) = time_lookups(&store, &part)?;
        println!(
            "{kind} cold lookups (run {run}, {} positions after dropping the page cache and reopening): p50 {p50:.1} us, p99 {p99:.1} us, max {max:.0} us",
            part.len()
        );
    }
    store.close()?;
    Ok(())
}
