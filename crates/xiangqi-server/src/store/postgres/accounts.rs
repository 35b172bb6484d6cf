//! Accounts in PostgreSQL: the writes are the statements of `store/sql.rs`, the same as
//! `store/accounts.rs` (SQLite) runs, on a pooled connection; reads of several queries run in
//! one snapshot.

use deadpool_postgres::Transaction;
use tokio_postgres::Row;

use super::{exec, get, pg_error, read_error, snapshot, PgStore};
use crate::rating::{self, Rating, Speed};
use crate::store::accounts::{
    AccountWrite, Counts, HistoryRow, LeaderRow, ProfileRow, RatingRow, RecentGame, SeatUser,
    SeatsRow, SessionRow, TokenRow, UserRow, RECENT,
};
use crate::store::sql::{self, Sql};
use crate::store::StoreError;

fn speed_of(r: &Row, i: usize) -> Result<Speed, StoreError> {
    let s: String = get(r, i)?;
    Speed::parse(&s).ok_or_else(|| StoreError::Corrupt(format!("a speed '{s}'")))
}

async fn get_rating(
    tx: &Transaction<'_>,
    user: i64,
    speed: Speed,
) -> Result<(Rating, i64), StoreError> {
    let st = tx
        .prepare_cached(sql::RATING_GET.postgres)
        .await
        .map_err(pg_error)?;
    match tx
        .query_opt(&st, &[&user, &speed.as_str()])
        .await
        .map_err(pg_error)?
    {
        Some(r) => Ok((
            Rating {
                rating: get(&r, 0)?,
                rd: get(&r, 1)?,
                vol: get(&r, 2)?,
            },
            get(&r, 3)?,
        )),
        None => Ok((Rating::default(), 0)),
    }
}

async fn returning_id(
    tx: &Transaction<'_>,
    statement: Sql,
    params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
) -> Result<i64, StoreError> {
    let st = tx
        .prepare_cached(statement.postgres)
        .await
        .map_err(pg_error)?;
    let r = tx.query_one(&st, params).await.map_err(pg_error)?;
    get(&r, 0)
}

pub(super) async fn apply(tx: &Transaction<'_>, w: &AccountWrite) -> Result<i64, StoreError> {
    match w {
        AccountWrite::CreateUser {
            name,
            name_key,
            password_hash,
            created,
        } => {
            returning_id(
                tx,
                sql::USER_INSERT,
                &[name, name_key, password_hash, created],
            )
            .await
        }
        AccountWrite::SetPassword {
            user_id,
            password_hash,
        } => {
            exec(tx, sql::USER_SET_PASSWORD, &[user_id, password_hash]).await?;
            exec(tx, sql::SESSIONS_DELETE_USER, &[user_id]).await?;
            Ok(*user_id)
        }
        AccountWrite::CreateSession {
            key,
            user_id,
            csrf,
            created,
            expires,
        } => {
            exec(
                tx,
                sql::SESSION_INSERT,
                &[key, user_id, csrf, created, expires],
            )
            .await?;
            // Sessions past their end are removed as new ones come.
            exec(tx, sql::SESSIONS_DELETE_EXPIRED, &[created]).await?;
            Ok(*user_id)
        }
        AccountWrite::DeleteSession { key } => {
            Ok(exec(tx, sql::SESSION_DELETE, &[key]).await? as i64)
        }
        AccountWrite::CreateToken {
            user_id,
            key,
            label,
            created,
        } => returning_id(tx, sql::TOKEN_INSERT, &[user_id, key, label, created]).await,
        AccountWrite::RevokeToken { user_id, id } => {
            Ok(exec(tx, sql::TOKEN_DELETE, &[id, user_id]).await? as i64)
        }
        AccountWrite::UpgradeBot { user_id } => {
            Ok(exec(tx, sql::USER_UPGRADE_BOT, &[user_id]).await? as i64)
        }
        AccountWrite::Seats {
            game_id,
            users,
            rated,
            speed,
        } => {
            let mut before = [None, None];
            for (i, u) in users.iter().enumerate() {
                if let (Some(id), true) = (u, *rated) {
                    before[i] = Some(get_rating(tx, *id, *speed).await?.0);
                }
            }
            let [r, b] = before;
            exec(
                tx,
                sql::SEATS_INSERT,
                &[
                    game_id,
                    &users[0],
                    &users[1],
                    &i64::from(*rated),
                    &speed.as_str(),
                    &r.map(|x| x.rating),
                    &r.map(|x| x.rd),
                    &b.map(|x| x.rating),
                    &b.map(|x| x.rd),
                ],
            )
            .await?;
            Ok(0)
        }
        AccountWrite::Rate {
            game_id,
            score_red,
            at,
        } => {
            // FOR UPDATE: two nodes ending the same game rate it once.
            let st = tx
                .prepare_cached(sql::SEATS_TO_RATE.postgres)
                .await
                .map_err(pg_error)?;
            let Some(row) = tx.query_opt(&st, &[game_id]).await.map_err(pg_error)? else {
                return Ok(0);
            };
            let (red, black, speed): (Option<i64>, Option<i64>, Speed) =
                (get(&row, 0)?, get(&row, 1)?, speed_of(&row, 2)?);
            let (Some(red), Some(black)) = (red, black) else {
                return Ok(0);
            };
            let (rr, rn) = get_rating(tx, red, speed).await?;
            let (br, bn) = get_rating(tx, black, speed).await?;
            let nr = rating::update(rr, &[(br, *score_red)], rating::TAU);
            let nb = rating::update(br, &[(rr, 1.0 - score_red)], rating::TAU);
            for (user, new, games) in [(red, nr, rn), (black, nb, bn)] {
                exec(
                    tx,
                    sql::RATING_PUT,
                    &[
                        &user,
                        &speed.as_str(),
                        &new.rating,
                        &new.rd,
                        &new.vol,
                        &(games + 1),
                        at,
                    ],
                )
                .await?;
                exec(
                    tx,
                    sql::RATING_HISTORY_INSERT,
                    &[&user, game_id, &speed.as_str(), at, &new.rating, &new.rd],
                )
                .await?;
            }
            exec(
                tx,
                sql::SEATS_RATED,
                &[
                    game_id,
                    at,
                    &(nr.rating - rr.rating),
                    &(nb.rating - br.rating),
                ],
            )
            .await?;
            Ok(1)
        }
    }
}

fn user_of(r: &Row) -> Result<UserRow, StoreError> {
    Ok(UserRow {
        id: get(r, 0)?,
        name: get(r, 1)?,
        password_hash: get(r, 2)?,
        created: get(r, 3)?,
        bot: get::<i64>(r, 4)? != 0,
    })
}

fn rating_row(r: &Row) -> Result<RatingRow, StoreError> {
    Ok(RatingRow {
        speed: speed_of(r, 0)?,
        rating: Rating {
            rating: get(r, 1)?,
            rd: get(r, 2)?,
            vol: get(r, 3)?,
        },
        games: get(r, 4)?,
    })
}

pub(super) async fn one<T>(
    tx: &Transaction<'_>,
    sql: &str,
    params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    f: impl Fn(&Row) -> Result<T, StoreError>,
) -> Result<Option<T>, StoreError> {
    let st = tx.prepare_cached(sql).await.map_err(read_error)?;
    tx.query_opt(&st, params)
        .await
        .map_err(read_error)?
        .as_ref()
        .map(f)
        .transpose()
}

pub(super) async fn all<T>(
    tx: &Transaction<'_>,
    sql: &str,
    params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    f: impl Fn(&Row) -> Result<T, StoreError>,
) -> Result<Vec<T>, StoreError> {
    let st = tx.prepare_cached(sql).await.map_err(read_error)?;
    tx.query(&st, params)
        .await
        .map_err(read_error)?
        .iter()
        .map(f)
        .collect()
}

const USER: &str = "SELECT id, name, password_hash, created, bot FROM users";

impl PgStore {
    /// Runs `f` in a read-only snapshot on a pooled connection.
    pub(super) async fn reading<T>(
        &self,
        f: impl AsyncFnOnce(&Transaction<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut c = self.pool.get().await.map_err(super::pool_error)?;
        let tx = snapshot(&mut c).await?;
        let v = f(&tx).await?;
        tx.commit().await.map_err(read_error)?;
        Ok(v)
    }

    pub async fn user_by_key(&self, name_key: &str) -> Result<Option<UserRow>, StoreError> {
        self.reading(async |tx| {
            one(
                tx,
                &format!("{USER} WHERE name_key = $1"),
                &[&name_key],
                user_of,
            )
            .await
        })
        .await
    }

    pub async fn user_by_id(&self, id: i64) -> Result<Option<UserRow>, StoreError> {
        self.reading(async |tx| one(tx, &format!("{USER} WHERE id = $1"), &[&id], user_of).await)
            .await
    }

    pub async fn session(&self, key: &str, now: i64) -> Result<Option<SessionRow>, StoreError> {
        self.reading(async |tx| {
            one(
                tx,
                "SELECT s.user_id, u.name, s.csrf, u.bot FROM sessions s \
                 JOIN users u ON u.id = s.user_id WHERE s.key = $1 AND s.expires > $2",
                &[&key, &now],
                |r| {
                    Ok(SessionRow {
                        user_id: get(r, 0)?,
                        name: get(r, 1)?,
                        csrf: get(r, 2)?,
                        bot: get::<i64>(r, 3)? != 0,
                    })
                },
            )
            .await
        })
        .await
    }

    pub async fn token_user(&self, key: &str) -> Result<Option<(i64, String, bool)>, StoreError> {
        self.reading(async |tx| {
            one(
                tx,
                "SELECT t.user_id, u.name, u.bot FROM api_tokens t \
                 JOIN users u ON u.id = t.user_id WHERE t.key = $1",
                &[&key],
                |r| Ok((get(r, 0)?, get(r, 1)?, get::<i64>(r, 2)? != 0)),
            )
            .await
        })
        .await
    }

    pub async fn tokens(&self, user: i64) -> Result<Vec<TokenRow>, StoreError> {
        self.reading(async |tx| {
            all(
                tx,
                "SELECT id, label, created FROM api_tokens WHERE user_id = $1 ORDER BY id",
                &[&user],
                |r| {
                    Ok(TokenRow {
                        id: get(r, 0)?,
                        label: get(r, 1)?,
                        created: get(r, 2)?,
                    })
                },
            )
            .await
        })
        .await
    }

    pub async fn ratings(&self, user: i64) -> Result<Vec<RatingRow>, StoreError> {
        self.reading(async |tx| ratings(tx, user).await).await
    }

    pub async fn rating_of(&self, user: i64, speed: Speed) -> Result<Rating, StoreError> {
        self.reading(async |tx| Ok(get_rating(tx, user, speed).await?.0))
            .await
    }

    pub async fn live_seats(&self, game_id: &str) -> Result<Option<SeatsRow>, StoreError> {
        self.reading(async |tx| {
            one(
                tx,
                "SELECT s.red_user, ru.name, s.red_rating, s.red_rd, s.red_diff, \
                        s.black_user, bu.name, s.black_rating, s.black_rd, s.black_diff, \
                        s.rated, s.speed, s.rated_at, ru.bot, bu.bot \
                 FROM live_seats s LEFT JOIN users ru ON ru.id = s.red_user \
                 LEFT JOIN users bu ON bu.id = s.black_user WHERE s.game_id = $1",
                &[&game_id],
                |r| {
                    let user = |i: usize| -> Result<Option<SeatUser>, StoreError> {
                        let id: Option<i64> = get(r, i)?;
                        let Some(id) = id else { return Ok(None) };
                        let rating: Option<f64> = get(r, i + 2)?;
                        let rd: Option<f64> = get(r, i + 3)?;
                        Ok(Some(SeatUser {
                            id,
                            name: get::<Option<String>>(r, i + 1)?.unwrap_or_default(),
                            before: rating.zip(rd),
                            diff: get(r, i + 4)?,
                            bot: get::<Option<i64>>(r, if i == 0 { 13 } else { 14 })? == Some(1),
                        }))
                    };
                    Ok(SeatsRow {
                        users: [user(0)?, user(5)?],
                        rated: get::<i64>(r, 10)? != 0,
                        speed: speed_of(r, 11)?,
                        rated_at: get(r, 12)?,
                    })
                },
            )
            .await
        })
        .await
    }

    /// The ongoing live games whose seat `user` holds, oldest first, with its side.
    pub async fn playing(&self, user: i64) -> Result<Vec<(String, xiangqi::Color)>, StoreError> {
        self.reading(async |tx| {
            all(
                tx,
                "SELECT g.id, s.red_user FROM live_seats s JOIN live_games g ON g.id = s.game_id \
             WHERE (s.red_user = $1 OR s.black_user = $1) AND g.status IN ('created', 'started') \
             ORDER BY g.created, g.id LIMIT $2",
                &[&user, &crate::store::accounts::PLAYING_MAX],
                |r| {
                    let red: Option<i64> = get(r, 1)?;
                    let side = if red == Some(user) {
                        xiangqi::Color::Red
                    } else {
                        xiangqi::Color::Black
                    };
                    Ok((get(r, 0)?, side))
                },
            )
            .await
        })
        .await
    }

    pub async fn profile(&self, name_key: &str) -> Result<Option<ProfileRow>, StoreError> {
        self.reading(async |tx| {
            let Some(user) = one(
                tx,
                &format!("{USER} WHERE name_key = $1"),
                &[&name_key],
                user_of,
            )
            .await?
            else {
                return Ok(None);
            };
            let history = all(
                tx,
                "SELECT speed, at, rating, rd, game_id FROM rating_history WHERE user_id = $1 \
                 ORDER BY at, game_id",
                &[&user.id],
                |r| {
                    Ok(HistoryRow {
                        speed: speed_of(r, 0)?,
                        at: get(r, 1)?,
                        rating: get(r, 2)?,
                        rd: get(r, 3)?,
                        game_id: get(r, 4)?,
                    })
                },
            )
            .await?;
            let recent = all(
                tx,
                "SELECT g.id, g.created, g.status, g.winner, g.red_name, g.black_name, \
                        s.red_user, s.rated, s.speed, s.red_diff, s.black_diff \
                 FROM live_seats s JOIN live_games g ON g.id = s.game_id \
                 WHERE s.red_user = $1 OR s.black_user = $1 \
                 ORDER BY g.created DESC, g.id LIMIT $2",
                &[&user.id, &RECENT],
                |r| {
                    let red: Option<i64> = get(r, 6)?;
                    let side = if red == Some(user.id) {
                        xiangqi::Color::Red
                    } else {
                        xiangqi::Color::Black
                    };
                    let diffs: [Option<f64>; 2] = [get(r, 9)?, get(r, 10)?];
                    Ok(RecentGame {
                        id: get(r, 0)?,
                        created: get(r, 1)?,
                        status: get(r, 2)?,
                        winner: get(r, 3)?,
                        names: [get(r, 4)?, get(r, 5)?],
                        side,
                        rated: get::<i64>(r, 7)? != 0,
                        speed: speed_of(r, 8)?,
                        diff: diffs[side.index()],
                    })
                },
            )
            .await?;
            let counts = one(
                tx,
                "SELECT \
                   COALESCE(SUM(CASE WHEN (s.red_user = $1 AND g.winner = 'red') \
                                       OR (s.black_user = $1 AND g.winner = 'black') \
                                THEN 1 ELSE 0 END), 0), \
                   COALESCE(SUM(CASE WHEN g.winner = '' THEN 1 ELSE 0 END), 0), \
                   COALESCE(SUM(CASE WHEN (s.red_user = $1 AND g.winner = 'black') \
                                       OR (s.black_user = $1 AND g.winner = 'red') \
                                THEN 1 ELSE 0 END), 0) \
                 FROM live_seats s JOIN live_games g ON g.id = s.game_id \
                 WHERE (s.red_user = $1 OR s.black_user = $1) \
                   AND g.status NOT IN ('created', 'started', 'aborted')",
                &[&user.id],
                |r| {
                    Ok(Counts {
                        wins: get(r, 0)?,
                        draws: get(r, 1)?,
                        losses: get(r, 2)?,
                    })
                },
            )
            .await?
            .unwrap_or_default();
            Ok(Some(ProfileRow {
                ratings: ratings(tx, user.id).await?,
                name: user.name,
                created: user.created,
                history,
                recent,
                counts,
            }))
        })
        .await
    }

    pub async fn leaderboard(
        &self,
        speed: Speed,
        limit: i64,
    ) -> Result<Vec<LeaderRow>, StoreError> {
        self.reading(async |tx| {
            all(
                tx,
                "SELECT u.name, r.rating, r.rd, r.vol, r.games FROM ratings r \
                 JOIN users u ON u.id = r.user_id \
                 WHERE r.speed = $1 AND u.bot = 0 ORDER BY r.rating DESC, u.name_key LIMIT $2",
                &[&speed.as_str(), &limit],
                |r| {
                    Ok(LeaderRow {
                        name: get(r, 0)?,
                        rating: Rating {
                            rating: get(r, 1)?,
                            rd: get(r, 2)?,
                            vol: get(r, 3)?,
                        },
                        games: get(r, 4)?,
                    })
                },
            )
            .await
        })
        .await
    }
}

async fn ratings(tx: &Transaction<'_>, user: i64) -> Result<Vec<RatingRow>, StoreError> {
    all(
        tx,
        "SELECT speed, rating, rd, vol, games FROM ratings WHERE user_id = $1",
        &[&user],
        rating_row,
    )
    .await
}
