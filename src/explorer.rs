//! `xiangqi explorer`: build an opening explorer index from record files, and query it.

use std::path::{Path, PathBuf};
use std::time::Instant;

use xiangqi::notation::Notation;
use xiangqi::{Color, Position};
use xiangqi_explorer::{record, Added, Answer, Explorer, NewGame, Options};
use xiangqi_record::detect::{detect, read_any, RecordError, RecordFormat};
use xiangqi_record::pgn::{PgnError, PgnErrorKind, PgnReader};
use xiangqi_record::GameRecord;

use crate::cli::{
    BookDbArg, BookWeightsArg, ExplorerBookArgs, ExplorerBuildArgs, ExplorerCommand, ExplorerDbArg,
    ExplorerQueryArgs, SideArg,
};
use crate::Fail;
use xiangqi_server::api::explorer as explorer_api;

/// Games added per transaction.
const BATCH: usize = 20_000;

/// Games of the first batch of a build (the first batch waits for its games' parsing with
/// nothing else to do).
const FIRST_BATCH: usize = 2_500;

/// The index file inside the index's folder.
pub fn index_path(dir: &str) -> PathBuf {
    Path::new(dir).join(xiangqi_explorer::FILE_NAME)
}

pub fn cmd_explorer(cmd: &ExplorerCommand) -> Result<(), Fail> {
    match cmd {
        ExplorerCommand::Build(a) => build(a),
        ExplorerCommand::Query(a) => query(a),
        ExplorerCommand::Book(a) => book(a),
    }
}

/// `explorer book`: the engine's opening book from an index (docs/EXPLORER.md, "The
/// engine's book").
fn book(a: &ExplorerBookArgs) -> Result<(), Fail> {
    use xiangqi_explorer::book::{self, BuildOptions, Weights};
    let path = index_path(&a.dir);
    if !path.exists() {
        return Err(Fail::input(format!(
            "explorer book: {} holds no index ({} is missing; make one with `xiangqi explorer build RECORDS -o {}`)",
            a.dir,
            path.display(),
            a.dir
        )));
    }
    let ex = Explorer::open_existing(&path).map_err(|e| Fail::input(e.to_string()))?;
    let db = match a.db {
        BookDbArg::Masters => xiangqi_explorer::Db::Masters,
        BookDbArg::Site => xiangqi_explorer::Db::Site {
            speeds: Vec::new(),
            bands: Vec::new(),
        },
        BookDbArg::Player => xiangqi_explorer::Db::Player {
            name: a
                .player
                .as_deref()
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .ok_or_else(|| Fail::input("explorer book: --db player needs --player NAME"))?
                .to_owned(),
            color: match a.color {
                SideArg::Red => Color::Red,
                SideArg::Black => Color::Black,
            },
        },
    };
    let o = BuildOptions {
        min_games: a.min_games,
        max_ply: a.max_ply,
        weights: match a.weights {
            BookWeightsArg::Results => Weights::Results,
            BookWeightsArg::Games => Weights::Games,
            BookWeightsArg::Points => Weights::Points,
        },
        min_score: a.min_score,
    };
    let started = Instant::now();
    let bar = crate::progress::spinner("walking the index");
    let built = book::build(&ex, &db, &o, &mut |positions, entries| {
        bar.set_message(format!("{positions} positions, {entries} book moves"));
    })
    .map_err(|e| Fail(e.to_string(), 1))?;
    bar.finish_and_clear();
    let n = built.entries.len();
    let bytes = book::encode(built.entries, built.header).map_err(|e| Fail(e.to_string(), 1))?;
    std::fs::write(&a.output, &bytes)
        .map_err(|e| Fail(format!("explorer book: {}: {e}", a.output), 1))?;
    eprintln!(
        "xiangqi explorer: {} positions looked up in {:.1} s; the book holds {n} moves ({} bytes) in {}",
        built.positions,
        started.elapsed().as_secs_f64(),
        bytes.len(),
        a.output
    );
    if n == 0 {
        eprintln!(
            "xiangqi explorer: no move was played {} times from the start within {} plies; the book is empty",
            a.min_games, a.max_ply
        );
    }
    Ok(())
}

fn build(a: &ExplorerBuildArgs) -> Result<(), Fail> {
    std::fs::create_dir_all(&a.output)
        .map_err(|e| Fail::input(format!("explorer: {}: {e}", a.output)))?;
    let path = index_path(&a.output);
    let ex = if path.exists() {
        let ex = Explorer::open_existing(&path).map_err(|e| Fail::input(e.to_string()))?;
        if let Some(n) = a.max_ply.filter(|&n| n != ex.options().max_ply) {
            return Err(Fail::input(format!(
                "explorer: {} was made with --max-ply {}, not {n} (a new folder makes a new index)",
                path.display(),
                ex.options().max_ply
            )));
        }
        ex
    } else {
        let options = Options {
            max_ply: a.max_ply.unwrap_or(Options::default().max_ply),
        };
        Explorer::open(&path, options).map_err(|e| Fail::input(e.to_string()))?
    };
    let sizes: Vec<u64> = a
        .records
        .iter()
        .map(|f| std::fs::metadata(f).map_or(0, |m| m.len()))
        .collect();
    let bar = crate::progress::bytes(sizes.iter().sum(), "indexing");
    let started = Instant::now();
    let mut total = Added::default();
    // One thread reads and parses the files into batches while this one adds the previous
    // batch (which keys its games on two threads and merges them): the two overlap.
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<NewGame>>(1);
    let reader_bar = bar.clone();
    let records = &a.records;
    let broken = std::thread::scope(|s| -> Result<u64, Fail> {
        let reader = s.spawn(move || {
            let bar = reader_bar;
            let mut broken = 0u64;
            let mut batch: Vec<NewGame> = Vec::with_capacity(BATCH);
            let mut sent = 0usize;
            // The files are read in order, a PGN file's games parsed one by one and sent in
            // batches as they come (so the first batch is keyed while the rest of the file is
            // parsed). An error says whether the file was read (then it counts as done on the
            // bar).
            for (file, size) in records.iter().zip(&sizes) {
                let bytes = match std::fs::read(file) {
                    Ok(b) => b,
                    Err(e) => {
                        bar.suspend(|| eprintln!("xiangqi explorer: {file}: {e}"));
                        broken += 1;
                        continue;
                    }
                };
                let mut stopped = false;
                let read = each_game(&bytes, &mut |i, g| {
                    match g {
                        Ok(rec) => batch.push(record::from_record(&rec, format!("{file}#{i}"))),
                        Err(e) => {
                            broken += 1;
                            bar.suspend(|| eprintln!("xiangqi explorer: {file}, game {i}: {e}"));
                        }
                    }
                    // The first batch is smaller: the keying starts sooner.
                    if batch.len() >= if sent == 0 { FIRST_BATCH } else { BATCH } {
                        let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
                        sent += 1;
                        if tx.send(full).is_err() {
                            // The adding side stopped on an error: stop reading.
                            stopped = true;
                            return false;
                        }
                    }
                    true
                });
                if stopped {
                    return broken;
                }
                if let Err(e) = read {
                    bar.suspend(|| eprintln!("xiangqi explorer: {file}: {e}"));
                    broken += 1;
                }
                bar.inc(*size);
            }
            let _ = tx.send(batch);
            broken
        });
        // An index with no entries yet is built by a bulk load (the entries written once, in
        // key order, at the end); one that has entries gets each batch merged in.
        let fail = |e: xiangqi_explorer::Error| Fail(e.to_string(), 1);
        if ex.is_empty().map_err(fail)? {
            let mut bulk = ex.bulk_load().map_err(fail)?;
            for batch in rx {
                bulk.add_legal(&batch).map_err(fail)?;
            }
            bar.set_message("writing the index");
            total += bulk.finish().map_err(fail)?;
        } else {
            for batch in rx {
                total += ex.add_legal(&batch).map_err(fail)?;
            }
        }
        Ok(reader.join().expect("the record reader does not panic"))
    })?;
    bar.finish_and_clear();
    let secs = started.elapsed().as_secs_f64();
    let (games, entries) = ex.counts().map_err(|e| Fail(e.to_string(), 1))?;
    eprintln!(
        "xiangqi explorer: {} games indexed in {secs:.1} s ({:.0} games/s); {} already there, {} without a result, {} cut at an illegal move, {broken} unreadable; the index holds {games} games, {entries} entries ({})",
        total.games,
        total.games as f64 / secs.max(1e-9),
        total.duplicates,
        total.unfinished,
        total.cut,
        path.display()
    );
    if broken > 0 {
        return Err(Fail(
            format!("explorer: {broken} unreadable files or games (above); the others are indexed"),
            1,
        ));
    }
    Ok(())
}

/// Hands every game of a record file's `bytes` to `each` in order, with its number from 1,
/// exactly as [`read_any`] reads them (the same games and errors; the warnings of a lenient
/// reading are not kept): a PGN file's games one by one as they are parsed, so that the first
/// ones are indexed while the rest of the file is read, any other format's once the whole file
/// is read. `each` returns false to stop. An error: the file is no record this program reads.
fn each_game(
    bytes: &[u8],
    each: &mut dyn FnMut(usize, Result<GameRecord, RecordError>) -> bool,
) -> Result<(), RecordError> {
    if detect(bytes) == Some(RecordFormat::Pgn) {
        // What `read_any` does with a PGN file, game by game.
        let (text, _) = xiangqi_record::encoding::decode(bytes);
        let mut n = 0;
        for r in PgnReader::new(&text).lenient() {
            n += 1;
            if !each(n, r.map_err(RecordError::Pgn)) {
                return Ok(());
            }
        }
        if n == 0 {
            let none = PgnError {
                game: 1,
                line: 1,
                kind: PgnErrorKind::NoGame,
            };
            each(1, Err(RecordError::Pgn(none)));
        }
        return Ok(());
    }
    for (i, g) in read_any(bytes)?.games.into_iter().enumerate() {
        if !each(i + 1, g) {
            break;
        }
    }
    Ok(())
}

fn query(a: &ExplorerQueryArgs) -> Result<(), Fail> {
    let refused =
        |r: explorer_api::Refusal| Fail::input(format!("explorer: {}: {}", r.field, r.message));
    let (start, line, pos) =
        explorer_api::query_line(a.fen.as_deref(), a.play.as_deref()).map_err(refused)?;
    let opening = explorer_api::OpeningJson::of_line(&start, &line);
    let db = explorer_api::query_db(
        match a.db {
            ExplorerDbArg::Masters => "masters",
            ExplorerDbArg::Player => "player",
            ExplorerDbArg::Site => "site",
        },
        a.speeds.as_deref(),
        a.ratings.as_deref(),
        a.player.as_deref(),
        match a.color {
            SideArg::Red => Color::Red,
            SideArg::Black => Color::Black,
        },
    )
    .map_err(|r| {
        if r.field == "player" {
            Fail::input("explorer: --db player needs --player NAME")
        } else {
            refused(r)
        }
    })?;
    let path = index_path(&a.dir);
    let ex = Explorer::open_existing(&path).map_err(|e| Fail::input(e.to_string()))?;
    let ans = ex.lookup(&db, &pos).map_err(|e| Fail(e.to_string(), 1))?;
    if a.json {
        let answer = explorer_api::answer_json(&ex, &pos, &ans, usize::MAX, a.top_games, opening)
            .map_err(|e| Fail(e.to_string(), 1))?;
        println!(
            "{}",
            serde_json::to_string(&answer).map_err(|e| Fail(e.to_string(), 1))?
        );
    } else {
        print!(
            "{}",
            table(&ex, &pos, opening, &ans, a.notation.into(), a.top_games)?
        );
    }
    Ok(())
}

fn pct(n: u32, of: u64) -> f64 {
    if of == 0 {
        0.0
    } else {
        100.0 * f64::from(n) / of as f64
    }
}

fn table(
    ex: &Explorer,
    pos: &Position,
    opening: Option<explorer_api::OpeningJson>,
    ans: &Answer,
    notation: Notation,
    top: usize,
) -> Result<String, Fail> {
    use std::fmt::Write;
    let mut out = String::new();
    let t = &ans.total;
    let _ = writeln!(out, "{}", pos.fen());
    if let Some(o) = opening {
        let code = o.eco.map(|c| format!("{c} ")).unwrap_or_default();
        let _ = writeln!(out, "Opening: {code}{} ({})", o.name_zh, o.name);
    }
    let _ = writeln!(
        out,
        "{} games: Red wins {:.1} %, draws {:.1} %, Black wins {:.1} %",
        t.games(),
        pct(t.red, t.games()),
        pct(t.draws, t.games()),
        pct(t.black, t.games())
    );
    if ans.moves.is_empty() {
        return Ok(out);
    }
    let _ = writeln!(
        out,
        "{:<10} {:>8} {:>6} {:>6} {:>6} {:>7}",
        "move", "games", "red%", "draw%", "black%", "rating"
    );
    for m in &ans.moves {
        let s = &m.stats;
        let g = s.games();
        let _ = writeln!(
            out,
            "{:<10} {:>8} {:>6.1} {:>6.1} {:>6.1} {:>7}",
            notation.write(pos, m.mv),
            g,
            pct(s.red, g),
            pct(s.draws, g),
            pct(s.black, g),
            s.average_rating()
                .map_or("-".to_string(), |r| r.to_string())
        );
    }
    let games = ans.top_games(top);
    if !games.is_empty() {
        let _ = writeln!(out, "top games:");
        for (mv, g) in games {
            let meta = ex
                .game(g.id)
                .map_err(|e| Fail(e.to_string(), 1))?
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "  {} {} - {} ({}) {} [{}]",
                notation.write(pos, mv),
                meta.red,
                meta.black,
                g.rating,
                meta.event,
                meta.source
            );
        }
    }
    Ok(out)
}
