//! `GET /api/explorer/{masters|site|player}`: a position's moves with their results and its
//! best games, from the opening explorer (`xiangqi-explorer`), in lila-openingexplorer's
//! shape (`red`/`black` where lichess says `white`/`black`). `xiangqi explorer query --json`
//! prints the same answer. And the site database's feed: every game that ends on this node
//! is added to it (`index_ended`).

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::Json;
use serde::Serialize;
use utoipa::ToSchema;
use xiangqi::notation::Notation;
use xiangqi::{Color, Move, Position};
use xiangqi_explorer::{
    opening_of_line, Answer, Db, Explorer, GameMeta, NewGame, Opening, Outcome, Speed, Target,
    RATING_BANDS,
};

use super::error::ApiError;
use super::request::{self as req, Query};
use crate::online::hub::Ended;
use crate::App;

type ApiResult<T> = Result<T, ApiError>;

/// The totals of a position, its moves and its best games.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExplorerJson {
    pub red: u64,
    pub draws: u64,
    pub black: u64,
    pub moves: Vec<ExplorerMove>,
    pub top_games: Vec<ExplorerGame>,
    /// The opening: the last named position along `fen` and `play` (the position itself or one
    /// before it), `null` when none is named (crates/xiangqi-explorer/openings.tsv).
    #[schema(required)]
    pub opening: Option<OpeningJson>,
}

/// A named opening, in both languages.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OpeningJson {
    /// The ECCO code (`C20`), `null` where the table gives none.
    #[schema(required)]
    pub eco: Option<&'static str>,
    /// The English name.
    pub name: &'static str,
    /// The Chinese name.
    pub name_zh: &'static str,
}

impl OpeningJson {
    pub fn of(o: &Opening) -> OpeningJson {
        OpeningJson {
            eco: o.eco,
            name: o.name,
            name_zh: o.name_zh,
        }
    }

    /// The opening of the line from `start` with `moves` (legal in turn).
    pub fn of_line(start: &Position, moves: &[Move]) -> Option<OpeningJson> {
        opening_of_line(start, moves).map(OpeningJson::of)
    }
}

/// One move of the position: its games' results.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExplorerMove {
    pub uci: String,
    pub wxf: String,
    pub chinese: String,
    pub red: u64,
    pub draws: u64,
    pub black: u64,
    /// The mean rating of the games' players, where known.
    pub average_rating: Option<u16>,
}

/// A game of the position.
#[derive(Debug, Serialize, ToSchema)]
pub struct ExplorerGame {
    /// The move the game played here.
    pub uci: String,
    pub id: u64,
    pub red: ExplorerPlayer,
    pub black: ExplorerPlayer,
    /// `red` or `black`; absent for a draw.
    pub winner: Option<&'static str>,
    /// YYYYMMDD, 0 when unknown.
    pub date: u32,
    pub event: String,
    /// Where the game came from (a record file, or the site).
    pub source: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ExplorerPlayer {
    pub name: String,
    pub rating: Option<u16>,
}

/// A refusal naming the query's field.
#[derive(Debug)]
pub struct Refusal {
    pub field: &'static str,
    pub message: String,
}

fn refuse(field: &'static str, message: String) -> Refusal {
    Refusal { field, message }
}

/// The position a query names: the FEN (or the start) with the `play` moves made.
pub fn query_position(fen: Option<&str>, play: Option<&str>) -> Result<Position, Refusal> {
    query_line(fen, play).map(|(_, _, pos)| pos)
}

/// The line a query names: the FEN (or the start), the `play` moves, and the position they
/// reach.
pub fn query_line(
    fen: Option<&str>,
    play: Option<&str>,
) -> Result<(Position, Vec<Move>, Position), Refusal> {
    let start = match fen {
        Some(f) => {
            Position::from_fen(f).map_err(|e| refuse("fen", format!("bad FEN '{f}': {e}")))?
        }
        None => Position::new(),
    };
    let mut pos = start.clone();
    let mut moves = vec![];
    for (i, m) in play
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .enumerate()
    {
        let mv = pos
            .parse_uci(m)
            .map_err(|e| refuse("play", format!("move {} '{m}': {e}", i + 1)))?;
        pos.play_unchecked(mv);
        moves.push(mv);
    }
    Ok((start, moves, pos))
}

/// A comma-separated list, each item read by `one`; an unknown item is refused, named.
fn list<T>(
    s: Option<&str>,
    field: &'static str,
    one: impl Fn(&str) -> Option<T>,
) -> Result<Vec<T>, Refusal> {
    let mut out = vec![];
    for item in s
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|x| !x.is_empty())
    {
        out.push(
            one(item)
                .ok_or_else(|| refuse(field, format!("'{item}' is not one of the {field}")))?,
        );
    }
    Ok(out)
}

/// The database a query names (`masters`, `site` or `player`) with its filters.
pub fn query_db(
    db: &str,
    speeds: Option<&str>,
    ratings: Option<&str>,
    player: Option<&str>,
    color: Color,
) -> Result<Db, Refusal> {
    match db {
        "masters" => Ok(Db::Masters),
        "site" => Ok(Db::Site {
            speeds: list(speeds, "speeds", Speed::parse)?,
            bands: list(ratings, "ratings", |s| {
                let r: u16 = s.parse().ok()?;
                RATING_BANDS.iter().position(|&b| b == r).map(|i| i as u8)
            })?,
        }),
        "player" => Ok(Db::Player {
            name: player
                .filter(|p| !p.trim().is_empty())
                .ok_or_else(|| refuse("player", "the player database needs a player".into()))?
                .trim()
                .to_owned(),
            color,
        }),
        other => Err(refuse(
            "db",
            format!("'{other}' is not an explorer database (masters, site or player)"),
        )),
    }
}

/// The answer in lila-openingexplorer's shape: at most `moves` moves and `top` games, and
/// the line's `opening`.
pub fn answer_json(
    ex: &Explorer,
    pos: &Position,
    ans: &Answer,
    moves: usize,
    top: usize,
    opening: Option<OpeningJson>,
) -> Result<ExplorerJson, xiangqi_explorer::Error> {
    let t = &ans.total;
    let list = ans
        .moves
        .iter()
        .take(moves)
        .map(|m| {
            let s = &m.stats;
            ExplorerMove {
                uci: m.mv.to_string(),
                wxf: Notation::Wxf.write(pos, m.mv),
                chinese: Notation::Chinese.write(pos, m.mv),
                red: u64::from(s.red),
                draws: u64::from(s.draws),
                black: u64::from(s.black),
                average_rating: s.average_rating(),
            }
        })
        .collect();
    let mut games = vec![];
    for (mv, g) in ans.top_games(top) {
        let meta = ex.game(g.id)?.unwrap_or_default();
        games.push(ExplorerGame {
            uci: mv.to_string(),
            id: g.id,
            red: ExplorerPlayer {
                name: meta.red,
                rating: meta.red_rating,
            },
            black: ExplorerPlayer {
                name: meta.black,
                rating: meta.black_rating,
            },
            winner: match meta.outcome {
                Some(Outcome::RedWins) => Some("red"),
                Some(Outcome::BlackWins) => Some("black"),
                _ => None,
            },
            date: meta.date,
            event: meta.event,
            source: meta.source,
        });
    }
    Ok(ExplorerJson {
        red: u64::from(t.red),
        draws: u64::from(t.draws),
        black: u64::from(t.black),
        moves: list,
        top_games: games,
        opening,
    })
}

/// `GET /api/explorer/{db}`
#[utoipa::path(
    get,
    path = "/api/explorer/{db}",
    tag = "explorer",
    params(
        ("db" = String, Path, description = "`masters` (the operator's records), `site` (this server's games) or `player` (one account's games)", pattern = "^(masters|site|player)$"),
        req::ExplorerQuery,
    ),
    responses(
        (status = 200, description = "The position's moves with their results, and its best games (all zero where the explorer has no games, or none was built)", body = ExplorerJson),
        (status = 400, description = "Malformed input: a bad FEN, a `play` move that is not legal there (named by its number), an unknown speed or rating band, `player` missing for the player database", body = super::error::ErrorBody),
        (status = 404, description = "No such database", body = super::error::ErrorBody),
    )
)]
pub async fn explorer(
    State(app): State<Arc<App>>,
    Path(db): Path<String>,
    Query(q): Query<req::ExplorerQuery>,
) -> ApiResult<Json<ExplorerJson>> {
    let text = |t: &Option<req::Text>| t.as_ref().map(|t| t.0.clone());
    let bad = |r: Refusal| ApiError::bad(r.message).field(r.field);
    let db = match query_db(
        &db,
        text(&q.speeds).as_deref(),
        text(&q.ratings).as_deref(),
        text(&q.player).as_deref(),
        q.color.map_or(Color::Red, |c| c.0),
    ) {
        Ok(db) => db,
        Err(r) if r.field == "db" => {
            return Err(ApiError::new(axum::http::StatusCode::NOT_FOUND, r.message))
        }
        Err(r) => return Err(bad(r)),
    };
    let (start, line, pos) =
        query_line(text(&q.fen).as_deref(), text(&q.play).as_deref()).map_err(bad)?;
    let opening = OpeningJson::of_line(&start, &line);
    let moves = q.moves.map_or(12, |n| n.0 as usize);
    let top = q.top_games.map_or(4, |n| n.0 as usize);
    let Some(ex) = app.explorer.clone() else {
        return Ok(Json(ExplorerJson {
            red: 0,
            draws: 0,
            black: 0,
            moves: vec![],
            top_games: vec![],
            opening,
        }));
    };
    // redb reads block: off the async threads.
    let answer = tokio::task::spawn_blocking(move || {
        let ans = ex.lookup(&db, &pos)?;
        answer_json(&ex, &pos, &ans, moves, top, opening)
    })
    .await
    .map_err(|e| ApiError::unavailable(format!("the explorer's lookup failed: {e}")))?
    .map_err(|e| ApiError::unavailable(format!("the explorer's file: {e}")))?;
    Ok(Json(answer))
}

/// The explorer's entry of a site game that ended.
pub fn site_game(e: &Ended) -> NewGame {
    NewGame {
        meta: GameMeta {
            red: e.names[0].clone(),
            black: e.names[1].clone(),
            red_rating: e.ratings[0],
            black_rating: e.ratings[1],
            outcome: Some(match e.winner {
                Some(Color::Red) => Outcome::RedWins,
                Some(Color::Black) => Outcome::BlackWins,
                None => Outcome::Draw,
            }),
            date: xiangqi_record::date::yyyymmdd_of_ms(e.at),
            event: "online game".into(),
            source: format!("site {}", e.id),
        },
        start: e.start.clone(),
        moves: e.moves.clone(),
        target: Target::Site {
            // The server's speeds and the explorer's have the same names.
            speed: Speed::parse(e.speed.as_str()).unwrap_or(Speed::Correspondence),
            accounts: e.accounts.clone(),
        },
    }
}

/// Adds every game the hub tells of (`Hub::ended_games`) to the explorer's site database, as
/// they end (a batch of what has come meanwhile at a time, off the async threads). Runs until
/// the hub is gone.
pub async fn index_ended(ex: Arc<Explorer>, mut rx: tokio::sync::mpsc::UnboundedReceiver<Ended>) {
    while let Some(first) = rx.recv().await {
        let mut batch = vec![site_game(&first)];
        while let Ok(more) = rx.try_recv() {
            batch.push(site_game(&more));
            if batch.len() >= 1000 {
                break;
            }
        }
        let ex = ex.clone();
        let n = batch.len();
        match tokio::task::spawn_blocking(move || ex.add(&batch)).await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => {
                eprintln!("xiangqi serve: the explorer could not add {n} ended games: {e}")
            }
            Err(e) => eprintln!("xiangqi serve: the explorer's add failed: {e}"),
        }
    }
}

/// How often [`follow_site`] reads the store for games that ended.
pub const FOLLOW_EVERY: std::time::Duration = std::time::Duration::from_secs(2);

/// How far before the newest game it has added each read of [`follow_once`] starts: the nodes'
/// clocks may differ by this much, and a write stamped earlier may be committed later.
pub const FOLLOW_OVERLAP_MS: i64 = 10_000;

/// The explorer's mark ([`Explorer::mark`]) of how far the site database has read the store:
/// the newest end (wall ms) among the games added.
pub const FOLLOW_MARK: &str = "site-followed";

/// The games one [`follow_once`] read at most keeps in memory at a time.
const FOLLOW_PAGE: u32 = 500;

/// Keeps `ex`'s site database equal to the store's ended games, whichever node ended them:
/// [`follow_once`] every [`FOLLOW_EVERY`], for as long as the server runs. With several nodes
/// (sharing the store and Redis) every node's explorer so holds every node's games; on a single
/// node it adds what [`index_ended`] missed (a game stored as ended just as the process died)
/// and, for an explorer new to a server that has games, the whole past.
pub async fn follow_site(ex: Arc<Explorer>, hub: Arc<crate::online::hub::Hub>) {
    let mut told = std::collections::HashMap::new();
    loop {
        if let Err(e) = follow_once(&ex, &hub, &mut told).await {
            eprintln!("xiangqi serve: the explorer's site database could not read the store: {e}");
        }
        tokio::time::sleep(FOLLOW_EVERY).await;
    }
}

/// Adds to `ex`'s site database the games stored as ended from [`FOLLOW_OVERLAP_MS`] before its
/// mark on, a page at a time, each page in one transaction with the mark moved to the newest
/// end in it, so a crash loses nothing (the next read starts before the mark again). `told`
/// holds the ids read within the overlap, so they are not read into a batch again (the
/// explorer would count them once anyway: its duplicate check). Answers what was added.
pub async fn follow_once(
    ex: &Arc<Explorer>,
    hub: &crate::online::hub::Hub,
    told: &mut std::collections::HashMap<String, i64>,
) -> Result<xiangqi_explorer::Added, String> {
    let e2 = ex.clone();
    let mut mark = off_thread(move || e2.mark(FOLLOW_MARK)).await?.unwrap_or(0) as i64;
    let mut after = (mark - FOLLOW_OVERLAP_MS, String::new());
    let mut sum = xiangqi_explorer::Added::default();
    loop {
        let page = hub
            .ended_after(after.0, &after.1, FOLLOW_PAGE)
            .await
            .map_err(|e| e.to_string())?;
        let full = page.len() == FOLLOW_PAGE as usize;
        if let Some(last) = page.last() {
            after = (last.at, last.id.clone());
        }
        let games: Vec<NewGame> = page
            .iter()
            .filter(|e| !told.contains_key(&e.id))
            .map(site_game)
            .collect();
        if !games.is_empty() {
            mark = page.iter().map(|e| e.at).fold(mark, i64::max);
            let (e2, m) = (ex.clone(), mark.max(0) as u64);
            sum += off_thread(move || e2.add_marked(&games, Some((FOLLOW_MARK, m)))).await?;
        }
        for e in &page {
            told.insert(e.id.clone(), e.at);
        }
        if !full {
            break;
        }
    }
    told.retain(|_, at| *at >= mark - FOLLOW_OVERLAP_MS);
    Ok(sum)
}

/// Runs `f` (the explorer's file work) off the async threads.
async fn off_thread<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, xiangqi_explorer::Error> + Send + 'static,
) -> Result<T, String> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())
}
