//! What is kept of a live game between people: its row (players, clock, seat keys, how it
//! ended) and its moves. A move is committed before either player sees it confirmed; the
//! clocks are stored with every change, so a restart brings them back.

use rusqlite::{params, Connection, OptionalExtension};
use xiangqi::Color;

use super::sql;

/// How a live game's players (or its clock) ended it, as its row keeps it; an end the moves
/// themselves reach (mate, stalemate, a repetition ruling) is not stored: the moves give it.
/// Stored as text ("aborted", "claim-red", "claim-draw", "resign-black", "draw", "flag-red"),
/// the same on SQLite and PostgreSQL, read back by [`LiveEnd::parse`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LiveEnd {
    /// Aborted before both sides had moved.
    Aborted,
    /// A side claimed the game after its opponent left (`None`: claimed as a draw).
    Claimed(Option<Color>),
    /// This side resigned.
    Resigned(Color),
    /// Drawn by agreement.
    Agreed,
    /// This side's flag fell (whether that loses or draws, the position decides).
    Flagged(Color),
}

impl LiveEnd {
    /// Every end, for tests and documentation.
    pub const ALL: [LiveEnd; 9] = [
        LiveEnd::Aborted,
        LiveEnd::Claimed(Some(Color::Red)),
        LiveEnd::Claimed(Some(Color::Black)),
        LiveEnd::Claimed(None),
        LiveEnd::Resigned(Color::Red),
        LiveEnd::Resigned(Color::Black),
        LiveEnd::Agreed,
        LiveEnd::Flagged(Color::Red),
        LiveEnd::Flagged(Color::Black),
    ];

    /// The stored text.
    pub const fn as_str(self) -> &'static str {
        match self {
            LiveEnd::Aborted => "aborted",
            LiveEnd::Claimed(Some(Color::Red)) => "claim-red",
            LiveEnd::Claimed(Some(Color::Black)) => "claim-black",
            LiveEnd::Claimed(None) => "claim-draw",
            LiveEnd::Resigned(Color::Red) => "resign-red",
            LiveEnd::Resigned(Color::Black) => "resign-black",
            LiveEnd::Agreed => "draw",
            LiveEnd::Flagged(Color::Red) => "flag-red",
            LiveEnd::Flagged(Color::Black) => "flag-black",
        }
    }

    /// The end a stored text names (`""`: none); `Err` names a text no version wrote.
    pub fn parse(s: &str) -> Result<Option<LiveEnd>, String> {
        if s.is_empty() {
            return Ok(None);
        }
        LiveEnd::ALL
            .into_iter()
            .find(|e| e.as_str() == s)
            .map(Some)
            .ok_or_else(|| format!("declared end '{s}' is none this server knows"))
    }

    /// The stored text of an optional end.
    pub fn text(end: Option<LiveEnd>) -> &'static str {
        end.map_or("", LiveEnd::as_str)
    }
}

/// A live game's stored row.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LiveRow {
    pub id: String,
    pub created: i64,
    pub updated: i64,
    pub start_fen: String,
    /// Initial time and increment in ms.
    pub clock: Option<(u64, u64)>,
    pub names: [String; 2],
    /// Hex SHA-256 of Red's and Black's seat token.
    pub keys: [String; 2],
    /// The clocks after the last change: `[red, black, red quota, black quota]`.
    pub times: Option<[u64; 4]>,
    pub declared: Option<LiveEnd>,
    pub status: String,
    pub winner: String,
    pub rematch: String,
    /// Correspondence: days per move (`None`: not a correspondence game).
    pub days: Option<u32>,
    /// Correspondence: the side to move's deadline, wall ms since 1970.
    pub deadline: Option<i64>,
}

/// What changes in a live game's row with a write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveChange {
    pub updated: i64,
    pub times: Option<[u64; 4]>,
    pub declared: Option<LiveEnd>,
    pub status: String,
    pub winner: String,
    /// Correspondence: the side to move's deadline, wall ms (`None`: none).
    pub deadline: Option<i64>,
}

/// One write to a live game.
#[derive(Clone, Debug)]
pub enum LiveWrite {
    Create {
        row: LiveRow,
        moves: Vec<String>,
    },
    /// The move at `ply`, and the row as it is after it.
    Move {
        id: String,
        ply: i64,
        uci: String,
        change: LiveChange,
    },
    /// Moves from `ply` on are taken back (an accepted takeback).
    Truncate {
        id: String,
        ply: i64,
        change: LiveChange,
    },
    /// The row changes without a move (an end, a clock).
    Update {
        id: String,
        change: LiveChange,
    },
    /// Both players asked for a rematch: its id.
    Rematch {
        id: String,
        rematch: String,
    },
}

pub(super) fn times_text(t: Option<[u64; 4]>) -> String {
    t.map_or(String::new(), |t| {
        format!("{} {} {} {}", t[0], t[1], t[2], t[3])
    })
}

pub(super) fn parse_times(s: &str) -> Option<Option<[u64; 4]>> {
    if s.is_empty() {
        return Some(None);
    }
    let v: Vec<u64> = s
        .split(' ')
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    v.try_into().ok().map(Some)
}

fn update_row(c: &Connection, id: &str, ch: &LiveChange) -> rusqlite::Result<()> {
    let n = c.prepare_cached(sql::LIVE_UPDATE.sqlite)?.execute(params![
        id,
        ch.updated,
        times_text(ch.times),
        LiveEnd::text(ch.declared),
        ch.status,
        ch.winner,
        ch.deadline
    ])?;
    if n == 0 {
        return Err(rusqlite::Error::QueryReturnedNoRows);
    }
    Ok(())
}

pub(super) fn apply(c: &Connection, w: &LiveWrite) -> rusqlite::Result<()> {
    match w {
        LiveWrite::Create { row, moves } => {
            c.prepare_cached(sql::LIVE_INSERT.sqlite)?.execute(params![
                row.id,
                row.created,
                row.updated,
                row.start_fen,
                row.clock.map(|c| c.0 as i64),
                row.clock.map(|c| c.1 as i64),
                row.names[0],
                row.names[1],
                row.keys[0],
                row.keys[1],
                times_text(row.times),
                LiveEnd::text(row.declared),
                row.status,
                row.winner,
                row.rematch,
                row.days,
                row.deadline
            ])?;
            super::sqlite::insert_moves(c, sql::LIVE_MOVE_INSERT, &row.id, moves)
        }
        LiveWrite::Move {
            id,
            ply,
            uci,
            change,
        } => {
            super::sqlite::insert_move(c, sql::LIVE_MOVE_PUT, id, *ply, uci)?;
            update_row(c, id, change)
        }
        LiveWrite::Truncate { id, ply, change } => {
            c.prepare_cached(sql::LIVE_MOVES_DELETE_FROM.sqlite)?
                .execute(params![id, ply])?;
            update_row(c, id, change)
        }
        LiveWrite::Update { id, change } => update_row(c, id, change),
        LiveWrite::Rematch { id, rematch } => {
            c.prepare_cached(sql::LIVE_REMATCH.sqlite)?
                .execute(params![id, rematch])?;
            Ok(())
        }
    }
}

const COLUMNS: &str = "id, created, updated, start_fen, clock_initial, clock_increment, \
                       red_name, black_name, red_key, black_key, clock, declared, status, \
                       winner, rematch, days, deadline";

fn row_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<LiveRow> {
    let initial: Option<i64> = r.get(4)?;
    let increment: Option<i64> = r.get(5)?;
    let times: String = r.get(10)?;
    let corrupt = |i: usize, what: String| {
        rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, what.into())
    };
    let clock = match (initial, increment) {
        (Some(a), Some(b)) if a >= 0 && b >= 0 => Some((a as u64, b as u64)),
        (None, None) => None,
        _ => return Err(corrupt(4, "a live game's time control".into())),
    };
    Ok(LiveRow {
        id: r.get(0)?,
        created: r.get(1)?,
        updated: r.get(2)?,
        start_fen: r.get(3)?,
        clock,
        names: [r.get(6)?, r.get(7)?],
        keys: [r.get(8)?, r.get(9)?],
        times: parse_times(&times)
            .ok_or_else(|| corrupt(10, format!("a live game's clocks '{times}'")))?,
        declared: LiveEnd::parse(&r.get::<_, String>(11)?).map_err(|e| corrupt(11, e))?,
        status: r.get(12)?,
        winner: r.get(13)?,
        rematch: r.get(14)?,
        days: r.get(15)?,
        deadline: r.get(16)?,
    })
}

fn moves_of(c: &Connection, id: &str) -> rusqlite::Result<Vec<String>> {
    let mut st = c.prepare_cached("SELECT uci FROM live_moves WHERE game_id = ?1 ORDER BY ply")?;
    let v = st
        .query_map([id], |r| r.get::<_, String>(0))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(v)
}

/// A live game's row and moves, or `None`.
pub(super) fn load(c: &Connection, id: &str) -> rusqlite::Result<Option<(LiveRow, Vec<String>)>> {
    let Some(row) = c
        .query_row(
            &format!("SELECT {COLUMNS} FROM live_games WHERE id = ?1"),
            [id],
            row_of,
        )
        .optional()?
    else {
        return Ok(None);
    };
    let moves = moves_of(c, id)?;
    Ok(Some((row, moves)))
}

/// Every live game that has not ended, with its moves (to resume after a restart).
pub(super) fn unfinished(c: &Connection) -> rusqlite::Result<Vec<(LiveRow, Vec<String>)>> {
    games_where(c, "status IN ('created', 'started')", [])
}

/// The live games that `cond` (what follows WHERE, with `params`) selects, with their moves.
fn games_where(
    c: &Connection,
    cond: &str,
    params: impl rusqlite::Params,
) -> rusqlite::Result<Vec<(LiveRow, Vec<String>)>> {
    let mut st = c.prepare(&format!("SELECT {COLUMNS} FROM live_games WHERE {cond}"))?;
    let rows = st
        .query_map(params, row_of)?
        .collect::<Result<Vec<_>, _>>()?;
    rows.into_iter()
        .map(|row| {
            let moves = moves_of(c, &row.id)?;
            Ok((row, moves))
        })
        .collect()
}

/// The live games that ended (not aborted) after `(updated, id)` in that order, at most
/// `limit`, with their moves.
pub(super) fn ended_after(
    c: &Connection,
    updated: i64,
    id: &str,
    limit: u32,
) -> rusqlite::Result<Vec<(LiveRow, Vec<String>)>> {
    games_where(
        c,
        &format!("{ENDED_AFTER} LIMIT ?3"),
        params![updated, id, limit],
    )
}

/// The condition and order of [`ended_after`] (`?1` updated, `?2` id): the ended games after
/// a point of the order (updated, id), which the index `live_games_updated` walks.
pub(crate) const ENDED_AFTER: &str = "status NOT IN ('created', 'started', 'aborted') \
     AND (updated > ?1 OR (updated = ?1 AND id > ?2)) ORDER BY updated, id";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_round_trip() {
        assert_eq!(parse_times(""), Some(None));
        let t = Some([1, 2, 3, 4]);
        assert_eq!(parse_times(&times_text(t)), Some(t));
        assert_eq!(parse_times("1 2 3"), None);
        assert_eq!(parse_times("1 2 x 4"), None);
    }
}
