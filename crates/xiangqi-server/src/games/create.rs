//! New games: started from a position (and moves already played), or imported from a record.

use serde_json::{Map, Value};
use xiangqi::{Color, Game, Position};
use xiangqi_record::{GameRecord, GameResult as RecordResult};

use super::{
    apply_declared, derived, moves::read_move, now, uci, GameError, GameResult, Games,
    ImportFailure, Loaded,
};
use crate::lines::{
    line_text, parse_lines, prune_lines, tree_lines, tree_notes, tree_of, tree_paths,
};
use crate::store::{Declared, GameRow, Mode, Store, Write};

/// A new game as asked for (each field already checked for its form).
#[derive(Default)]
pub struct NewGame {
    pub mode: Mode,
    pub human: Option<Color>,
    pub level: Option<i64>,
    pub fen: Option<String>,
    pub moves: Vec<String>,
    pub red: Option<String>,
    pub black: Option<String>,
}

/// The most games imported from one upload.
pub const MAX_IMPORT: usize = 500;
/// The most moves (plies: Red's and Black's each count one) a game is created with, by
/// `POST /api/games` or by an import.
pub const MAX_MOVES: usize = 2000;
/// The most alternative lines kept from one imported game.
const MAX_LINES: usize = 500;
/// The longest tag name and value kept from an imported record (in bytes; longer ones are
/// left out: no record program writes such tags).
const MAX_TAG_NAME: usize = 64;
const MAX_TAG_VALUE: usize = 10_000;

fn parse_fen(s: &str) -> GameResult<Position> {
    Position::from_fen(s.trim()).map_err(|e| GameError::BadFen {
        fen: s.trim().to_string(),
        error: e.to_string(),
    })
}

/// Starts a game: checks its start position and moves, stores it; the caller keeps it.
pub async fn create(store: &Store, new: NewGame) -> GameResult<Loaded> {
    let start = match &new.fen {
        Some(f) => parse_fen(f)?,
        None => Position::new(),
    };
    let mut game = Game::new(start.clone());
    let mut moves = Vec::with_capacity(new.moves.len());
    for (index, s) in new.moves.iter().enumerate() {
        let mv = read_move(game.position(), s).map_err(|e| GameError::AtIndex {
            index,
            error: Box::new(e),
        })?;
        game.push_unchecked(mv);
        moves.push(uci(mv));
    }
    let mut tags = Map::new();
    if let Some(s) = new.red {
        tags.insert("Red".into(), Value::String(s));
    }
    if let Some(s) = new.black {
        tags.insert("Black".into(), Value::String(s));
    }
    let computer = new.mode == Mode::Computer;
    let t = now();
    let d = derived(&game);
    let mut row = GameRow {
        id: 0,
        created: t,
        updated: t,
        mode: new.mode,
        human: if computer {
            Some(new.human.unwrap_or(Color::Red))
        } else {
            None
        },
        level: new.level.unwrap_or(if computer { 3 } else { 0 }),
        start_fen: start.fen(),
        tags: Value::Object(tags).to_string(),
        declared: None,
        declared_ply: 0,
        result: d.result,
        reason: d.reason,
        plies: moves.len() as i64,
    };
    row.id = store
        .write(Write::Create {
            row: row.clone(),
            moves,
            lines: Vec::new(),
            notes: Vec::new(),
        })
        .await?;
    Ok(Loaded {
        row,
        game,
        lines: Vec::new(),
        notes: Default::default(),
    })
}

/// What an import did: the stored games' rows, and the games that could not be imported.
pub struct Imported {
    pub games: Vec<GameRow>,
    pub errors: Vec<ImportFailure>,
    /// What was left out of games that were imported (a variation dropped from an illegal
    /// move on), each naming its game and place in the file.
    pub warnings: Vec<String>,
}

/// Imports every game of an upload (PGN in any notation, XQF, CBR/CBL, or a single-line FEN)
/// as a stored game in `mode`, keeping its tags, its recorded result (as declared when the
/// rules do not show it) and its variations (as alternative lines).
pub async fn import(
    store: &Store,
    games: &Games,
    body: Vec<u8>,
    mode: Mode,
) -> GameResult<Imported> {
    if body.is_empty() {
        return Err(GameError::BadRecord(
            "nothing to import: the request body is empty".into(),
        ));
    }
    let text = std::str::from_utf8(&body).ok().map(str::trim);
    // A single line that reads as a FEN is a position.
    let mut warnings = Vec::new();
    let records: Vec<Result<GameRecord, String>> = match text {
        Some(t) if !t.contains('\n') && !t.starts_with('[') && t.contains('/') => {
            let t = t.strip_prefix("fen ").unwrap_or(t);
            vec![Ok(GameRecord {
                start: parse_fen(t)?,
                ..GameRecord::default()
            })]
        }
        _ => {
            let all = tokio::task::spawn_blocking(move || xiangqi_record::detect::read_any(&body))
                .await
                .map_err(|e| GameError::Task(format!("reading the record: {e}")))?
                .map_err(|e| GameError::BadRecord(e.to_string()))?;
            warnings = all.warnings.iter().map(|w| w.to_string()).collect();
            all.games
                .into_iter()
                .map(|r| r.map_err(|e| e.to_string()))
                .collect()
        }
    };
    if records.len() > MAX_IMPORT {
        return Err(GameError::TooManyGames(records.len()));
    }
    let mut out = Imported {
        games: Vec::new(),
        errors: Vec::new(),
        warnings,
    };
    for (i, r) in records.into_iter().enumerate() {
        let failed = |error| ImportFailure { game: i + 1, error };
        let rec = match r {
            Ok(rec) => rec,
            Err(e) => {
                out.errors.push(failed(e));
                continue;
            }
        };
        let mut game = Game::new(rec.start.clone());
        let mut bad = None;
        let mut rest = rec.mainline();
        for mv in rest.by_ref() {
            if let Err(e) = game.push(mv) {
                bad = Some(format!("{}: {e}", move_label(game.start(), game.len() + 1)));
                break;
            }
            // The game ends where the rules end it (a repetition, a mate, the move limit)
            // or at the most moves a game may have; the record's further moves are left out.
            if game.outcome().is_some() || game.len() == MAX_MOVES {
                break;
            }
        }
        if let Some(e) = bad {
            out.errors.push(failed(e));
            continue;
        }
        let left_out = rest.count();
        if left_out > 0 {
            let why = match game.outcome() {
                Some(o) => format!(
                    "the rules end the game after {} ({})",
                    move_label(game.start(), game.len()),
                    o.reason
                ),
                None => format!("a game has at most {MAX_MOVES} plies"),
            };
            out.warnings.push(format!(
                "game {}: imported as far as {}: {why}; the {left_out} later plies of the \
                 record were left out",
                i + 1,
                move_label(game.start(), game.len()),
            ));
        }
        let loaded = imported_game(&rec, game, mode);
        let moves = loaded.game.moves().into_iter().map(uci).collect();
        let lines = loaded.lines.iter().map(|x| line_text(x)).collect();
        let notes = loaded
            .notes
            .iter()
            .map(|(p, n)| (p.clone(), n.clone()))
            .collect();
        let mut loaded = loaded;
        loaded.row.id = store
            .write(Write::Create {
                row: loaded.row.clone(),
                moves,
                lines,
                notes,
            })
            .await?;
        out.games.push(loaded.row.clone());
        games.insert(loaded);
    }
    if out.games.is_empty() {
        return Err(GameError::NothingImported(out.errors));
    }
    Ok(out)
}

/// The ply `ply` (from 1) of a game from `start` as the move list numbers it: "Red's move 5",
/// "Black's move 12".
pub fn move_label(start: &Position, ply: usize) -> String {
    let black_first = start.turn() == Color::Black;
    let idx = ply - 1 + usize::from(black_first);
    let number = start.fullmoves() as usize + idx / 2;
    let side = if idx.is_multiple_of(2) {
        "Red"
    } else {
        "Black"
    };
    format!("{side}'s move {number}")
}

/// The game to store for a record whose main line `game` holds: its tags, result, variations
/// and the comments and NAGs of every move kept.
fn imported_game(rec: &GameRecord, mut game: Game, mode: Mode) -> Loaded {
    let mut tags = Map::new();
    for (k, v) in &rec.tags {
        if k.len() <= MAX_TAG_NAME && v.len() <= MAX_TAG_VALUE {
            tags.insert(k.clone(), Value::String(v.clone()));
        }
    }
    // The record's result as a tag too (the PGN reader keeps it apart from the tags).
    if !tags.contains_key("Result") {
        tags.insert("Result".into(), Value::String(rec.result.as_pgn().into()));
    }
    let t = now();
    let mut row = GameRow {
        created: t,
        updated: t,
        mode,
        start_fen: rec.start.fen(),
        tags: Value::Object(tags).to_string(),
        plies: game.len() as i64,
        ..GameRow::default()
    };
    // A recorded result the rules do not show (a resignation, say) is kept as declared.
    if game.outcome().is_none() {
        row.declared = match rec.result {
            RecordResult::RedWins => Some(Declared::Resign(Color::Black)),
            RecordResult::BlackWins => Some(Declared::Resign(Color::Red)),
            RecordResult::Draw => Some(Declared::Draw),
            RecordResult::Unknown => None,
        };
        row.declared_ply = game.len() as i64;
        apply_declared(&mut game, &row);
    }
    let d = derived(&game);
    row.result = d.result;
    row.reason = d.reason;
    // Variations are kept as alternative lines (at most MAX_LINES; a line is cut at a move
    // that is not legal).
    let mut all = tree_lines(&rec.moves);
    all.truncate(MAX_LINES);
    let texts: Vec<String> = all.iter().map(|x| line_text(x)).collect();
    let main = game.moves();
    // A line that leaves the main line only after its end (a rules ending, the move limit)
    // is not kept.
    let lines: Vec<_> = prune_lines(&main, parse_lines(game.start(), &texts))
        .into_iter()
        .filter(|l| l.iter().zip(&main).take_while(|(a, b)| a == b).count() < main.len())
        .collect();
    // The comments and NAGs of the moves kept (a note on a move of a dropped line goes too,
    // and so does one on a move after the game's end).
    let kept = tree_paths(&tree_of(&main, &lines));
    let notes = tree_notes(rec.comment.as_deref(), &rec.moves)
        .into_iter()
        .filter(|(p, _)| kept.contains(p))
        .map(|(p, mut n)| {
            n.text = n.text.replace("\r\n", "\n").replace('\r', "\n");
            (p, n)
        })
        .collect();
    Loaded {
        row,
        game,
        lines,
        notes,
    }
}
