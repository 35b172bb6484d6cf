//! Chat in PostgreSQL: the writes are the statements of `store/sql.rs`, as `store/chat.rs`
//! runs them on SQLite; the reads the same queries with `$n` parameters.

use deadpool_postgres::Transaction;

use super::accounts::all;
use super::{exec, get, PgStore};
use crate::store::chat::{ChatRow, ChatWrite, LINE_COLUMNS};
use crate::store::sql;
use crate::store::StoreError;

pub(super) async fn apply(tx: &Transaction<'_>, w: &ChatWrite) -> Result<i64, StoreError> {
    match w {
        ChatWrite::Line(l) => {
            exec(
                tx,
                sql::CHAT_INSERT,
                &[
                    &l.game_id, &l.seq, &l.room, &l.author, &l.user_id, &l.seat, &l.text, &l.at,
                ],
            )
            .await?;
            Ok(l.seq)
        }
        ChatWrite::Block {
            user_id,
            blocked_id,
            created,
        } => Ok(exec(tx, sql::BLOCK_PUT, &[user_id, blocked_id, created]).await? as i64),
        ChatWrite::Unblock {
            user_id,
            blocked_id,
        } => Ok(exec(tx, sql::BLOCK_DELETE, &[user_id, blocked_id]).await? as i64),
        ChatWrite::SetChat { user_id, on } => {
            exec(tx, sql::PREF_CHAT_PUT, &[user_id, &i64::from(*on)]).await?;
            Ok(*user_id)
        }
        ChatWrite::SetBotChallenges { user_id, on } => {
            exec(
                tx,
                sql::PREF_BOT_CHALLENGES_PUT,
                &[user_id, &i64::from(*on)],
            )
            .await?;
            Ok(*user_id)
        }
        ChatWrite::SetLang { user_id, lang } => {
            exec(tx, sql::PREF_LANG_PUT, &[user_id, lang]).await?;
            Ok(*user_id)
        }
    }
}

impl PgStore {
    pub async fn chat_lines(&self, game_id: &str) -> Result<Vec<ChatRow>, StoreError> {
        self.reading(async |tx| {
            all(
                tx,
                &format!("{LINE_COLUMNS} WHERE l.game_id = $1 ORDER BY l.seq"),
                &[&game_id],
                |r| {
                    Ok(ChatRow {
                        game_id: get(r, 0)?,
                        seq: get(r, 1)?,
                        room: get(r, 2)?,
                        author: get(r, 3)?,
                        user_id: get(r, 4)?,
                        user: get(r, 5)?,
                        seat: get(r, 6)?,
                        text: get(r, 7)?,
                        at: get(r, 8)?,
                    })
                },
            )
            .await
        })
        .await
    }

    pub async fn blocking(&self, user_id: i64) -> Result<Vec<(i64, String)>, StoreError> {
        self.reading(async |tx| {
            all(
                tx,
                "SELECT u.id, u.name FROM blocks b JOIN users u ON u.id = b.blocked_id \
                 WHERE b.user_id = $1 ORDER BY u.name_key",
                &[&user_id],
                |r| Ok((get(r, 0)?, get(r, 1)?)),
            )
            .await
        })
        .await
    }

    pub async fn chat_on(&self, user_id: i64) -> Result<bool, StoreError> {
        self.reading(async |tx| {
            let v = super::accounts::one(
                tx,
                "SELECT chat FROM user_prefs WHERE user_id = $1",
                &[&user_id],
                |r| get::<i64>(r, 0),
            )
            .await?;
            Ok(v.is_none_or(|v| v != 0))
        })
        .await
    }

    pub async fn lang_of(&self, user_id: i64) -> Result<Option<String>, StoreError> {
        self.reading(async |tx| {
            let v = super::accounts::one(
                tx,
                "SELECT lang FROM user_prefs WHERE user_id = $1",
                &[&user_id],
                |r| get::<Option<String>>(r, 0),
            )
            .await?;
            Ok(v.flatten())
        })
        .await
    }

    pub async fn bot_challenges_on(&self, user_id: i64) -> Result<bool, StoreError> {
        self.reading(async |tx| {
            let v = super::accounts::one(
                tx,
                "SELECT bot_challenges FROM user_prefs WHERE user_id = $1",
                &[&user_id],
                |r| get::<i64>(r, 0),
            )
            .await?;
            Ok(v.is_none_or(|v| v != 0))
        })
        .await
    }
}
