//! What is kept of accounts: users (argon2id password hashes), sessions and personal API
//! tokens (both only as SHA-256 hashes), ratings per speed with their history, and which
//! accounts hold the seats of a live game (with the ratings before it and what it changed).
//!
//! The SQLite statements of accounts are in this file, the PostgreSQL ones (the same SQL with
//! `$n` parameters) in `store/postgres/accounts.rs`; the tables are migration 2
//! (`migrations/*/0002_accounts.sql`).

use rusqlite::{params, Connection, OptionalExtension};

use super::sql;
use crate::rating::{self, Rating, Speed};

/// An account as the store has it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserRow {
    pub id: i64,
    pub name: String,
    pub password_hash: String,
    pub created: i64,
    /// A bot account (upgraded with `POST /api/bot/account/upgrade`): its title is `BOT`.
    pub bot: bool,
}

/// A session's account and CSRF token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionRow {
    pub user_id: i64,
    pub name: String,
    pub csrf: String,
    /// A bot account.
    pub bot: bool,
}

/// A personal API token's listing (never the token).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenRow {
    pub id: i64,
    pub label: String,
    pub created: i64,
}

/// A rating of one speed.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingRow {
    pub speed: Speed,
    pub rating: Rating,
    pub games: i64,
}

/// One point of a rating's history.
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryRow {
    pub speed: Speed,
    pub at: i64,
    pub rating: f64,
    pub rd: f64,
    pub game_id: String,
}

/// A seat's account in a live game.
#[derive(Clone, Debug, PartialEq)]
pub struct SeatUser {
    pub id: i64,
    pub name: String,
    /// The rating (and deviation) before the game, in rated games.
    pub before: Option<(f64, f64)>,
    /// What the game changed, once rated.
    pub diff: Option<f64>,
    /// A bot account.
    pub bot: bool,
}

/// The accounts of a live game's seats.
#[derive(Clone, Debug, PartialEq)]
pub struct SeatsRow {
    pub users: [Option<SeatUser>; 2],
    pub rated: bool,
    pub speed: Speed,
    pub rated_at: Option<i64>,
}

/// A game in a profile's list.
#[derive(Clone, Debug, PartialEq)]
pub struct RecentGame {
    pub id: String,
    pub created: i64,
    pub status: String,
    /// `red`, `black` or '' (none).
    pub winner: String,
    pub names: [String; 2],
    /// The profile's side.
    pub side: xiangqi::Color,
    pub rated: bool,
    pub speed: Speed,
    pub diff: Option<f64>,
}

/// Wins, draws and losses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub wins: i64,
    pub draws: i64,
    pub losses: i64,
}

/// A profile: the account, its ratings and history, recent games and counts.
#[derive(Clone, Debug, PartialEq)]
pub struct ProfileRow {
    pub name: String,
    pub created: i64,
    pub ratings: Vec<RatingRow>,
    pub history: Vec<HistoryRow>,
    pub recent: Vec<RecentGame>,
    pub counts: Counts,
}

/// A leaderboard's line.
#[derive(Clone, Debug, PartialEq)]
pub struct LeaderRow {
    pub name: String,
    pub rating: Rating,
    pub games: i64,
}

/// One write to accounts.
#[derive(Clone, Debug)]
pub enum AccountWrite {
    /// A new account; answers its id.
    CreateUser {
        name: String,
        name_key: String,
        password_hash: String,
        created: i64,
    },
    /// A new password: every session of the account ends.
    SetPassword {
        user_id: i64,
        password_hash: String,
    },
    CreateSession {
        key: String,
        user_id: i64,
        csrf: String,
        created: i64,
        expires: i64,
    },
    DeleteSession {
        key: String,
    },
    /// A personal API token; answers its id.
    CreateToken {
        user_id: i64,
        key: String,
        label: String,
        created: i64,
    },
    /// Answers how many tokens went (0: none of this account's has that id).
    RevokeToken {
        user_id: i64,
        id: i64,
    },
    /// Account `user_id` becomes a bot, if it holds no seat of any live game; answers 1
    /// when it did, 0 when it has played (or is a bot already).
    UpgradeBot {
        user_id: i64,
    },
    /// Which accounts hold a live game's seats (with the game's creation).
    Seats {
        game_id: String,
        users: [Option<i64>; 2],
        rated: bool,
        speed: Speed,
    },
    /// A rated game ended: Red scored `score_red` (1, 0.5, 0). Updates both ratings once
    /// (a second call for the same game changes nothing); answers 1 when it rated.
    Rate {
        game_id: String,
        score_red: f64,
        at: i64,
    },
}

fn get_rating(c: &Connection, user: i64, speed: Speed) -> rusqlite::Result<(Rating, i64)> {
    Ok(c.prepare_cached(sql::RATING_GET.sqlite)?
        .query_row(params![user, speed.as_str()], |r| {
            Ok((
                Rating {
                    rating: r.get(0)?,
                    rd: r.get(1)?,
                    vol: r.get(2)?,
                },
                r.get(3)?,
            ))
        })
        .optional()?
        .unwrap_or((Rating::default(), 0)))
}

pub(super) fn apply(c: &Connection, w: &AccountWrite) -> rusqlite::Result<i64> {
    match w {
        AccountWrite::CreateUser {
            name,
            name_key,
            password_hash,
            created,
        } => c
            .prepare_cached(sql::USER_INSERT.sqlite)?
            .query_row(params![name, name_key, password_hash, created], |r| {
                r.get(0)
            }),
        AccountWrite::SetPassword {
            user_id,
            password_hash,
        } => {
            c.prepare_cached(sql::USER_SET_PASSWORD.sqlite)?
                .execute(params![user_id, password_hash])?;
            c.prepare_cached(sql::SESSIONS_DELETE_USER.sqlite)?
                .execute([user_id])?;
            Ok(*user_id)
        }
        AccountWrite::CreateSession {
            key,
            user_id,
            csrf,
            created,
            expires,
        } => {
            c.prepare_cached(sql::SESSION_INSERT.sqlite)?
                .execute(params![key, user_id, csrf, created, expires])?;
            // Sessions past their end are removed as new ones come.
            c.prepare_cached(sql::SESSIONS_DELETE_EXPIRED.sqlite)?
                .execute([created])?;
            Ok(*user_id)
        }
        AccountWrite::DeleteSession { key } => Ok(c
            .prepare_cached(sql::SESSION_DELETE.sqlite)?
            .execute([key])? as i64),
        AccountWrite::CreateToken {
            user_id,
            key,
            label,
            created,
        } => c
            .prepare_cached(sql::TOKEN_INSERT.sqlite)?
            .query_row(params![user_id, key, label, created], |r| r.get(0)),
        AccountWrite::RevokeToken { user_id, id } => {
            Ok(c.prepare_cached(sql::TOKEN_DELETE.sqlite)?
                .execute(params![id, user_id])? as i64)
        }
        AccountWrite::UpgradeBot { user_id } => Ok(c
            .prepare_cached(sql::USER_UPGRADE_BOT.sqlite)?
            .execute([user_id])? as i64),
        AccountWrite::Seats {
            game_id,
            users,
            rated,
            speed,
        } => {
            let before = |u: Option<i64>| -> rusqlite::Result<Option<Rating>> {
                match u {
                    Some(id) if *rated => Ok(Some(get_rating(c, id, *speed)?.0)),
                    _ => Ok(None),
                }
            };
            let (r, b) = (before(users[0])?, before(users[1])?);
            c.prepare_cached(sql::SEATS_INSERT.sqlite)?
                .execute(params![
                    game_id,
                    users[0],
                    users[1],
                    i64::from(*rated),
                    speed.as_str(),
                    r.map(|x| x.rating),
                    r.map(|x| x.rd),
                    b.map(|x| x.rating),
                    b.map(|x| x.rd)
                ])?;
            Ok(0)
        }
        AccountWrite::Rate {
            game_id,
            score_red,
            at,
        } => {
            let row = c
                .prepare_cached(sql::SEATS_TO_RATE.sqlite)?
                .query_row([game_id], |r| {
                    Ok((
                        r.get::<_, Option<i64>>(0)?,
                        r.get::<_, Option<i64>>(1)?,
                        r.get::<_, String>(2)?,
                    ))
                })
                .optional()?;
            let Some((Some(red), Some(black), speed)) = row else {
                return Ok(0);
            };
            let speed = Speed::parse(&speed).ok_or_else(|| {
                rusqlite::Error::FromSqlConversionFailure(
                    2,
                    rusqlite::types::Type::Text,
                    format!("a live game's speed '{speed}'").into(),
                )
            })?;
            let (rr, rn) = get_rating(c, red, speed)?;
            let (br, bn) = get_rating(c, black, speed)?;
            let nr = rating::update(rr, &[(br, *score_red)], rating::TAU);
            let nb = rating::update(br, &[(rr, 1.0 - score_red)], rating::TAU);
            for (user, new, games) in [(red, nr, rn), (black, nb, bn)] {
                c.prepare_cached(sql::RATING_PUT.sqlite)?.execute(params![
                    user,
                    speed.as_str(),
                    new.rating,
                    new.rd,
                    new.vol,
                    games + 1,
                    at
                ])?;
                c.prepare_cached(sql::RATING_HISTORY_INSERT.sqlite)?
                    .execute(params![
                        user,
                        game_id,
                        speed.as_str(),
                        at,
                        new.rating,
                        new.rd
                    ])?;
            }
            c.prepare_cached(sql::SEATS_RATED.sqlite)?.execute(params![
                game_id,
                at,
                nr.rating - rr.rating,
                nb.rating - br.rating
            ])?;
            Ok(1)
        }
    }
}

/// The account named `name_key` (lower case).
pub(super) fn user_by_key(c: &Connection, name_key: &str) -> rusqlite::Result<Option<UserRow>> {
    c.prepare_cached("SELECT id, name, password_hash, created, bot FROM users WHERE name_key = ?1")?
        .query_row([name_key], user_row)
        .optional()
}

/// A `users` row read as `SELECT id, name, password_hash, created, bot`.
fn user_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<UserRow> {
    Ok(UserRow {
        id: r.get(0)?,
        name: r.get(1)?,
        password_hash: r.get(2)?,
        created: r.get(3)?,
        bot: r.get::<_, i64>(4)? != 0,
    })
}

pub(super) fn user_by_id(c: &Connection, id: i64) -> rusqlite::Result<Option<UserRow>> {
    c.prepare_cached("SELECT id, name, password_hash, created, bot FROM users WHERE id = ?1")?
        .query_row([id], user_row)
        .optional()
}

/// The live session of key `key` at `now`.
pub(super) fn session(c: &Connection, key: &str, now: i64) -> rusqlite::Result<Option<SessionRow>> {
    c.prepare_cached(
        "SELECT s.user_id, u.name, s.csrf, u.bot FROM sessions s JOIN users u ON u.id = s.user_id \
         WHERE s.key = ?1 AND s.expires > ?2",
    )?
    .query_row(params![key, now], |r| {
        Ok(SessionRow {
            user_id: r.get(0)?,
            name: r.get(1)?,
            csrf: r.get(2)?,
            bot: r.get::<_, i64>(3)? != 0,
        })
    })
    .optional()
}

/// The account of a personal API token's key: its id, name and whether it is a bot.
pub(super) fn token_user(
    c: &Connection,
    key: &str,
) -> rusqlite::Result<Option<(i64, String, bool)>> {
    c.prepare_cached(
        "SELECT t.user_id, u.name, u.bot FROM api_tokens t JOIN users u ON u.id = t.user_id \
         WHERE t.key = ?1",
    )?
    .query_row([key], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)? != 0))
    })
    .optional()
}

pub(super) fn tokens(c: &Connection, user: i64) -> rusqlite::Result<Vec<TokenRow>> {
    c.prepare_cached("SELECT id, label, created FROM api_tokens WHERE user_id = ?1 ORDER BY id")?
        .query_map([user], |r| {
            Ok(TokenRow {
                id: r.get(0)?,
                label: r.get(1)?,
                created: r.get(2)?,
            })
        })?
        .collect()
}

fn speed_col(r: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Speed> {
    let s: String = r.get(i)?;
    Speed::parse(&s).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            i,
            rusqlite::types::Type::Text,
            format!("a speed '{s}'").into(),
        )
    })
}

pub(super) fn ratings(c: &Connection, user: i64) -> rusqlite::Result<Vec<RatingRow>> {
    c.prepare_cached("SELECT speed, rating, rd, vol, games FROM ratings WHERE user_id = ?1")?
        .query_map([user], |r| {
            Ok(RatingRow {
                speed: speed_col(r, 0)?,
                rating: Rating {
                    rating: r.get(1)?,
                    rd: r.get(2)?,
                    vol: r.get(3)?,
                },
                games: r.get(4)?,
            })
        })?
        .collect()
}

/// A rating of one speed (the starting one when the account has none yet).
pub(super) fn rating_of(c: &Connection, user: i64, speed: Speed) -> rusqlite::Result<Rating> {
    Ok(get_rating(c, user, speed)?.0)
}

pub(super) fn seats(c: &Connection, game_id: &str) -> rusqlite::Result<Option<SeatsRow>> {
    let row = c
        .prepare_cached(
            "SELECT s.red_user, ru.name, s.red_rating, s.red_rd, s.red_diff, \
                    s.black_user, bu.name, s.black_rating, s.black_rd, s.black_diff, \
                    s.rated, s.speed, s.rated_at, ru.bot, bu.bot \
             FROM live_seats s LEFT JOIN users ru ON ru.id = s.red_user \
             LEFT JOIN users bu ON bu.id = s.black_user WHERE s.game_id = ?1",
        )?
        .query_row([game_id], |r| {
            let user = |i: usize| -> rusqlite::Result<Option<SeatUser>> {
                let id: Option<i64> = r.get(i)?;
                let Some(id) = id else { return Ok(None) };
                let rating: Option<f64> = r.get(i + 2)?;
                let rd: Option<f64> = r.get(i + 3)?;
                Ok(Some(SeatUser {
                    id,
                    name: r.get::<_, Option<String>>(i + 1)?.unwrap_or_default(),
                    before: rating.zip(rd),
                    diff: r.get(i + 4)?,
                    bot: r.get::<_, Option<i64>>(if i == 0 { 13 } else { 14 })? == Some(1),
                }))
            };
            Ok(SeatsRow {
                users: [user(0)?, user(5)?],
                rated: r.get::<_, i64>(10)? != 0,
                speed: speed_col(r, 11)?,
                rated_at: r.get(12)?,
            })
        })
        .optional()?;
    Ok(row)
}

/// The most recent games a profile lists.
pub const RECENT: i64 = 20;

pub(super) fn profile(c: &Connection, name_key: &str) -> rusqlite::Result<Option<ProfileRow>> {
    let Some(user) = user_by_key(c, name_key)? else {
        return Ok(None);
    };
    let history = c
        .prepare_cached(
            "SELECT speed, at, rating, rd, game_id FROM rating_history WHERE user_id = ?1 \
             ORDER BY at, game_id",
        )?
        .query_map([user.id], |r| {
            Ok(HistoryRow {
                speed: speed_col(r, 0)?,
                at: r.get(1)?,
                rating: r.get(2)?,
                rd: r.get(3)?,
                game_id: r.get(4)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let recent = c
        .prepare_cached(
            "SELECT g.id, g.created, g.status, g.winner, g.red_name, g.black_name, s.red_user, \
                    s.rated, s.speed, s.red_diff, s.black_diff \
             FROM live_seats s JOIN live_games g ON g.id = s.game_id \
             WHERE s.red_user = ?1 OR s.black_user = ?1 \
             ORDER BY g.created DESC, g.id LIMIT ?2",
        )?
        .query_map(params![user.id, RECENT], |r| {
            let red: Option<i64> = r.get(6)?;
            let side = if red == Some(user.id) {
                xiangqi::Color::Red
            } else {
                xiangqi::Color::Black
            };
            let diffs: [Option<f64>; 2] = [r.get(9)?, r.get(10)?];
            Ok(RecentGame {
                id: r.get(0)?,
                created: r.get(1)?,
                status: r.get(2)?,
                winner: r.get(3)?,
                names: [r.get(4)?, r.get(5)?],
                side,
                rated: r.get::<_, i64>(7)? != 0,
                speed: speed_col(r, 8)?,
                diff: diffs[side.index()],
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let counts = c
        .prepare_cached(
            "SELECT \
               COALESCE(SUM(CASE WHEN (s.red_user = ?1 AND g.winner = 'red') \
                                   OR (s.black_user = ?1 AND g.winner = 'black') THEN 1 ELSE 0 END), 0), \
               COALESCE(SUM(CASE WHEN g.winner = '' THEN 1 ELSE 0 END), 0), \
               COALESCE(SUM(CASE WHEN (s.red_user = ?1 AND g.winner = 'black') \
                                   OR (s.black_user = ?1 AND g.winner = 'red') THEN 1 ELSE 0 END), 0) \
             FROM live_seats s JOIN live_games g ON g.id = s.game_id \
             WHERE (s.red_user = ?1 OR s.black_user = ?1) \
               AND g.status NOT IN ('created', 'started', 'aborted')",
        )?
        .query_row([user.id], |r| {
            Ok(Counts {
                wins: r.get(0)?,
                draws: r.get(1)?,
                losses: r.get(2)?,
            })
        })?;
    Ok(Some(ProfileRow {
        ratings: ratings(c, user.id)?,
        name: user.name,
        created: user.created,
        history,
        recent,
        counts,
    }))
}

/// The most ongoing games `playing` lists.
pub const PLAYING_MAX: i64 = 200;

/// The ongoing live games whose seat `user` holds, oldest first, with its side.
pub(super) fn playing(
    c: &Connection,
    user: i64,
) -> rusqlite::Result<Vec<(String, xiangqi::Color)>> {
    c.prepare_cached(
        "SELECT g.id, s.red_user FROM live_seats s JOIN live_games g ON g.id = s.game_id \
             WHERE (s.red_user = ?1 OR s.black_user = ?1) AND g.status IN ('created', 'started') \
             ORDER BY g.created, g.id LIMIT ?2",
    )?
    .query_map(params![user, PLAYING_MAX], |r| {
        let red: Option<i64> = r.get(1)?;
        let side = if red == Some(user) {
            xiangqi::Color::Red
        } else {
            xiangqi::Color::Black
        };
        Ok((r.get(0)?, side))
    })?
    .collect()
}

pub(super) fn leaderboard(
    c: &Connection,
    speed: Speed,
    limit: i64,
) -> rusqlite::Result<Vec<LeaderRow>> {
    c.prepare_cached(
        "SELECT u.name, r.rating, r.rd, r.vol, r.games FROM ratings r JOIN users u ON u.id = r.user_id \
         WHERE r.speed = ?1 AND u.bot = 0 ORDER BY r.rating DESC, u.name_key LIMIT ?2",
    )?
    .query_map(params![speed.as_str(), limit], |r| {
        Ok(LeaderRow {
            name: r.get(0)?,
            rating: Rating {
                rating: r.get(1)?,
                rd: r.get(2)?,
                vol: r.get(3)?,
            },
            games: r.get(4)?,
        })
    })?
    .collect()
}
