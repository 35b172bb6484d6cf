//! What is kept of game chat: each line of a live game's rooms (numbered per game by the
//! game's owner node, which writes it before any stream sees it), which accounts an account
//! blocks, and an account's chat preference (on or off). The tables are migration 6
//! (`migrations/*/0006_chat.sql`); the SQLite reads are here, the PostgreSQL ones in
//! `store/postgres/chat.rs`; the writes are the statements of `store/sql.rs`.

use rusqlite::{params, Connection, OptionalExtension};

use super::sql;

/// A stored chat line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatRow {
    pub game_id: String,
    /// Its number in the game (0, 1, ...): the order its owner took the lines in.
    pub seq: i64,
    /// `player` or `spectator`.
    pub room: String,
    /// The name shown: the seat's player name, or the spectator's account name.
    pub author: String,
    /// The author's account (`None`: a guest's seat).
    pub user_id: Option<i64>,
    /// The author's account name (read back with the line; not written).
    pub user: Option<String>,
    /// `red` or `black` for a seat's line, empty for a spectator's.
    pub seat: String,
    pub text: String,
    /// ms since the Unix epoch.
    pub at: i64,
}

/// One write of chat, blocks or preferences.
#[derive(Clone, Debug)]
pub enum ChatWrite {
    /// A new line (its `user` is not written: the account's name is read back).
    Line(ChatRow),
    /// Account `user_id` blocks account `blocked_id` (again: no change).
    Block {
        user_id: i64,
        blocked_id: i64,
        created: i64,
    },
    /// Account `user_id` unblocks `blocked_id`; answers 1, or 0 when it was not blocked.
    Unblock { user_id: i64, blocked_id: i64 },
    /// Account `user_id`'s chat preference.
    SetChat { user_id: i64, on: bool },
    /// Account `user_id`'s preference to take challenges from bots.
    SetBotChallenges { user_id: i64, on: bool },
    /// Account `user_id`'s language for the app (a code of `api::lang::Lang`).
    SetLang { user_id: i64, lang: String },
}

pub(super) fn apply(c: &Connection, w: &ChatWrite) -> rusqlite::Result<i64> {
    match w {
        ChatWrite::Line(l) => {
            c.prepare_cached(sql::CHAT_INSERT.sqlite)?.execute(params![
                l.game_id, l.seq, l.room, l.author, l.user_id, l.seat, l.text, l.at
            ])?;
            Ok(l.seq)
        }
        ChatWrite::Block {
            user_id,
            blocked_id,
            created,
        } => Ok(c
            .prepare_cached(sql::BLOCK_PUT.sqlite)?
            .execute(params![user_id, blocked_id, created])? as i64),
        ChatWrite::Unblock {
            user_id,
            blocked_id,
        } => Ok(c
            .prepare_cached(sql::BLOCK_DELETE.sqlite)?
            .execute(params![user_id, blocked_id])? as i64),
        ChatWrite::SetChat { user_id, on } => {
            c.prepare_cached(sql::PREF_CHAT_PUT.sqlite)?
                .execute(params![user_id, i64::from(*on)])?;
            Ok(*user_id)
        }
        ChatWrite::SetBotChallenges { user_id, on } => {
            c.prepare_cached(sql::PREF_BOT_CHALLENGES_PUT.sqlite)?
                .execute(params![user_id, i64::from(*on)])?;
            Ok(*user_id)
        }
        ChatWrite::SetLang { user_id, lang } => {
            c.prepare_cached(sql::PREF_LANG_PUT.sqlite)?
                .execute(params![user_id, lang])?;
            Ok(*user_id)
        }
    }
}

/// The columns of a line as read (with the author's account name).
pub(super) const LINE_COLUMNS: &str =
    "SELECT l.game_id, l.seq, l.room, l.author, l.user_id, u.name, l.seat, l.text, l.at \
     FROM chat_lines l LEFT JOIN users u ON u.id = l.user_id";

/// Game `game_id`'s lines in order.
pub(super) fn lines(c: &Connection, game_id: &str) -> rusqlite::Result<Vec<ChatRow>> {
    let mut st = c.prepare_cached(&format!(
        "{LINE_COLUMNS} WHERE l.game_id = ?1 ORDER BY l.seq"
    ))?;
    let v = st
        .query_map([game_id], |r| {
            Ok(ChatRow {
                game_id: r.get(0)?,
                seq: r.get(1)?,
                room: r.get(2)?,
                author: r.get(3)?,
                user_id: r.get(4)?,
                user: r.get(5)?,
                seat: r.get(6)?,
                text: r.get(7)?,
                at: r.get(8)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(v)
}

/// The accounts `user_id` blocks: (id, name), by name.
pub(super) fn blocking(c: &Connection, user_id: i64) -> rusqlite::Result<Vec<(i64, String)>> {
    let mut st = c.prepare_cached(
        "SELECT u.id, u.name FROM blocks b JOIN users u ON u.id = b.blocked_id \
         WHERE b.user_id = ?1 ORDER BY u.name_key",
    )?;
    let v = st
        .query_map([user_id], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(v)
}

/// Whether account `user_id` has chat on (the default).
pub(super) fn chat_on(c: &Connection, user_id: i64) -> rusqlite::Result<bool> {
    Ok(c.query_row(
        "SELECT chat FROM user_prefs WHERE user_id = ?1",
        [user_id],
        |r| r.get::<_, i64>(0),
    )
    .optional()?
    .is_none_or(|v| v != 0))
}

/// Account `user_id`'s language for the app, if it chose one.
pub(super) fn lang_of(c: &Connection, user_id: i64) -> rusqlite::Result<Option<String>> {
    Ok(c.query_row(
        "SELECT lang FROM user_prefs WHERE user_id = ?1",
        [user_id],
        |r| r.get::<_, Option<String>>(0),
    )
    .optional()?
    .flatten())
}

/// Whether account `user_id` takes challenges from bots (the default).
pub(super) fn bot_challenges_on(c: &Connection, user_id: i64) -> rusqlite::Result<bool> {
    Ok(c.query_row(
        "SELECT bot_challenges FROM user_prefs WHERE user_id = ?1",
        [user_id],
        |r| r.get::<_, i64>(0),
    )
    .optional()?
    .is_none_or(|v| v != 0))
}
