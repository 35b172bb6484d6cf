//! The endpoints: each reads its typed request, runs the game operation and answers its
//! JSON (docs/API.md).

use std::sync::Arc;

use axum::extract::{State, WebSocketUpgrade};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use xiangqi::notation::Notation;
use xiangqi::Position;

use super::error::{ApiError, ErrorBody};
use super::game_json::{
    BoardJson, Deleted, DrawReply, FenJson, GameJson, GameList, Health, ImportReply, MoveOrGame,
    MoveReply, Summary,
};
use super::request::{self as req, Body, GameId, Query, RawBody};
use crate::engine::review::{self, ReviewStatus};
use crate::games::create::{self, NewGame};
use crate::games::moves::{self, MoveRequest, Moved};
use crate::games::{detached, ends, export, Change, GameError, Loaded, Snapshot};
use crate::store::Mode;
use crate::App;

type AppState = State<Arc<App>>;
type ApiResult<T> = Result<T, ApiError>;

#[utoipa::path(
    get,
    path = "/api/health",
    tag = "server",
    responses(
        (status = 200, description = "The server is up", body = Health),
    )
)]
pub async fn health() -> Json<Health> {
    Json(Health {
        ok: true,
        version: env!("CARGO_PKG_VERSION"),
    })
}

/// Live engine analysis over a WebSocket (the session is `engine::analysis`'s).
///
/// Send `{"type": "go", "id", "fen", "moves", "multipv", "movetime_ms"}` or
/// `{"type": "stop"}`; the server sends `info`, `bestmove` and `error` messages (docs/API.md).
/// A request that is not a WebSocket upgrade is refused with `400` (or `426` when the
/// connection cannot be upgraded).
#[utoipa::path(
    get,
    path = "/api/analysis",
    tag = "analysis",
    responses(
        (status = 101, description = "Switching to the WebSocket protocol"),
        (status = 400, description = "Not a WebSocket upgrade request", body = ErrorBody),
        (status = 426, description = "The connection cannot be upgraded", body = ErrorBody),
    )
)]
pub async fn analysis(state: AppState, ws: WebSocketUpgrade) -> Response {
    crate::engine::analysis::ws_handler(state, ws).await
}

/// `GET /api/position?fen=...`: checks a position and lists its legal moves.
#[utoipa::path(
    get,
    path = "/api/position",
    tag = "games",
    params(
        req::PositionQuery,
    ),
    responses(
        (status = 200, description = "The position, its legal moves and how it ended", body = BoardJson),
        (status = 400, description = "Malformed input: bad JSON, an unknown field, a wrong type, a bad FEN or id", body = super::error::ErrorBody),
    )
)]
pub async fn position(Query(q): Query<req::PositionQuery>) -> ApiResult<Json<BoardJson>> {
    let fen = q.fen.0.trim();
    let pos = Position::from_fen(fen).map_err(|e| GameError::BadFen {
        fen: fen.to_string(),
        error: e.to_string(),
    })?;
    Ok(Json(BoardJson::position(pos)))
}

/// `POST /api/games`: a new game.
#[utoipa::path(
    post,
    path = "/api/games",
    tag = "games",
    request_body(content = Option<req::NewGame>, description = "All fields optional (an empty body is `{}`)"),
    responses(
        (status = 201, description = "The new game", body = GameJson),
        (status = 400, description = "Malformed input: bad JSON, an unknown field, a wrong type, a bad FEN or id", body = super::error::ErrorBody),
        (status = 409, description = "The game is not in the state the request assumes (over, the computer's turn, another number of moves than `ply`, or what its moves or mode do not allow)", body = super::error::ErrorBody),
        (status = 413, description = "The request body is too large", body = super::error::ErrorBody),
        (status = 422, description = "A move that is not legal or not understood in the position", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself (the store or the engine), never of the input", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting): nothing was stored; `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn create(
    State(app): AppState,
    Body(b): Body<req::NewGame>,
) -> ApiResult<(StatusCode, Json<GameJson>)> {
    let new = NewGame {
        mode: b.mode.map_or(Mode::TwoPlayer, |m| m.0),
        human: b.human.map(|s| s.0),
        level: b.level.map(|n| n.0),
        fen: b.fen.map(|f| f.0),
        moves: b.moves.map(|m| m.0).unwrap_or_default(),
        red: b.red.map(|n| n.0),
        black: b.black.map(|n| n.0),
    };
    let loaded = create::create(&app.store, new).await?;
    let v = GameJson::of(&loaded);
    app.games.insert(loaded);
    Ok((StatusCode::CREATED, Json(v)))
}

/// `GET /api/games?limit=&offset=`
#[utoipa::path(
    get,
    path = "/api/games",
    tag = "games",
    params(
        req::ListQuery,
    ),
    responses(
        (status = 200, description = "The games, most recently changed first", body = GameList),
        (status = 400, description = "Malformed input: bad JSON, an unknown field, a wrong type, a bad FEN or id", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself (the store or the engine), never of the input", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting): nothing was stored; `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn list(
    State(app): AppState,
    Query(q): Query<req::ListQuery>,
) -> ApiResult<Json<GameList>> {
    let limit = q.limit.map_or(50, |n| n.0);
    let offset = q.offset.map_or(0, |n| n.0);
    let (rows, total) = app
        .store
        .list(limit, offset)
        .await
        .map_err(GameError::from)?;
    Ok(Json(GameList {
        total,
        games: rows.iter().map(Summary::of).collect(),
    }))
}

/// Runs `f` on game `id` (holding its lock) and answers what it makes of the game.
async fn with_game<T>(
    app: &App,
    id: i64,
    f: impl AsyncFnOnce(&mut Loaded) -> Result<T, ApiError>,
) -> ApiResult<T> {
    app.games.with(&app.store, id, f).await
}

#[utoipa::path(
    get,
    path = "/api/games/{id}",
    tag = "games",
    params(
        ("id" = i64, Path, description = "The game's id", minimum = 1),
    ),
    responses(
        (status = 200, description = "The game", body = GameJson),
        (status = 400, description = "Malformed input: bad JSON, an unknown field, a wrong type, a bad FEN or id", body = super::error::ErrorBody),
        (status = 404, description = "No such game", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself (the store or the engine), never of the input", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting): nothing was stored; `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn get_game(State(app): AppState, GameId(id): GameId) -> ApiResult<Json<GameJson>> {
    with_game(&app, id, async |l: &mut Loaded| Ok(Json(GameJson::of(l)))).await
}

#[utoipa::path(
    delete,
    path = "/api/games/{id}",
    tag = "games",
    params(
        ("id" = i64, Path, description = "The game's id", minimum = 1),
    ),
    responses(
        (status = 200, description = "The game is deleted", body = Deleted),
        (status = 400, description = "Malformed input: bad JSON, an unknown field, a wrong type, a bad FEN or id", body = super::error::ErrorBody),
        (status = 404, description = "No such game", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself (the store or the engine), never of the input", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting): nothing was stored; `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn delete_game(State(app): AppState, GameId(id): GameId) -> ApiResult<Json<Deleted>> {
    detached(async move { app.games.delete(&app.store, id).await }).await?;
    Ok(Json(Deleted { deleted: id }))
}

/// `POST /api/games/{id}/moves` `{"move": "h2e2", "ply": 0}`: a move at the end of the main
/// line (answers the move), or with `at` from an earlier move (answers the game).
#[utoipa::path(
    post,
    path = "/api/games/{id}/moves",
    tag = "games",
    params(
        ("id" = i64, Path, description = "The game's id", minimum = 1),
    ),
    request_body(content = req::PlayMove),
    responses(
        (status = 200, description = "The move and where the game stands (with `at` before the end: the game)", body = MoveOrGame),
        (status = 400, description = "Malformed input: bad JSON, an unknown field, a wrong type, a bad FEN or id", body = super::error::ErrorBody),
        (status = 404, description = "No such game", body = super::error::ErrorBody),
        (status = 409, description = "The game is not in the state the request assumes (over, the computer's turn, another number of moves than `ply`, or what its moves or mode do not allow)", body = super::error::ErrorBody),
        (status = 413, description = "The request body is too large", body = super::error::ErrorBody),
        (status = 422, description = "A move that is not legal or not understood in the position", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself (the store or the engine), never of the input", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting): nothing was stored; `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn post_move(
    State(app): AppState,
    GameId(id): GameId,
    Body(b): Body<req::PlayMove>,
) -> ApiResult<Json<MoveOrGame>> {
    let r = MoveRequest {
        text: b.mv.ok_or_else(|| req::missing("move"))?.0,
        claimed_ply: b.ply.map(|n| n.0),
        at: b.at.map(|n| n.0 as usize),
    };
    detached(async move {
        with_game(&app, id, async |l: &mut Loaded| {
            Ok(match moves::human_move(&app.store, l, &r).await? {
                Moved::Played => Json(MoveOrGame::Move(MoveReply::of(l))),
                Moved::Branched => Json(MoveOrGame::Game(GameJson::of(l))),
            })
        })
        .await
    })
    .await
}

/// Makes `change` to game `id` and answers the game.
async fn change(app: Arc<App>, id: i64, change: Change) -> ApiResult<Json<GameJson>> {
    detached(async move {
        with_game(&app, id, async |l: &mut Loaded| {
            change.apply(&app.store, l).await?;
            Ok(Json(GameJson::of(l)))
        })
        .await
    })
    .await
}

/// `POST /api/games/{id}/promote` `{"line": ["h2e2", ...], "ply": n}`
#[utoipa::path(
    post,
    path = "/api/games/{id}/promote",
    tag = "games",
    params(
        ("id" = i64, Path, description = "The game's id", minimum = 1),
    ),
    request_body(content = req::Promote),
    responses(
        (status = 200, description = "The game, the line now its main line", body = GameJson),
        (status = 400, description = "Malformed input: bad JSON, an unknown field, a wrong type, a bad FEN or id", body = super::error::ErrorBody),
        (status = 404, description = "No such game", body = super::error::ErrorBody),
        (status = 409, description = "The game is not in the state the request assumes (over, the computer's turn, another number of moves than `ply`, or what its moves or mode do not allow)", body = super::error::ErrorBody),
        (status = 413, description = "The request body is too large", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself (the store or the engine), never of the input", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting): nothing was stored; `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn promote(
    State(app): AppState,
    GameId(id): GameId,
    Body(b): Body<req::Promote>,
) -> ApiResult<Json<GameJson>> {
    let line = b.line.ok_or_else(|| req::missing("line"))?;
    let line = line
        .0
        .iter()
        .map(|s| s.trim().to_ascii_lowercase())
        .collect();
    let claimed_ply = b.ply.map(|n| n.0);
    change(app, id, Change::Promote { line, claimed_ply }).await
}

/// `POST /api/games/{id}/note` `{"path": ["h2e2", ...], "comment": "..."}`: sets, changes or
/// removes the comment (and NAGs) at a move of the main line or of a line.
#[utoipa::path(
    post,
    path = "/api/games/{id}/note",
    tag = "games",
    params(
        ("id" = i64, Path, description = "The game's id", minimum = 1),
    ),
    request_body(content = req::SetNote),
    responses(
        (status = 200, description = "The game, with the note in `notes`", body = GameJson),
        (status = 400, description = "Malformed input: bad JSON, an unknown field, a wrong type, a comment too long", body = super::error::ErrorBody),
        (status = 404, description = "No such game", body = super::error::ErrorBody),
        (status = 409, description = "The game has no such move (it changed since it was read)", body = super::error::ErrorBody),
        (status = 413, description = "The request body is too large", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself (the store or the engine), never of the input", body = super::error::ErrorBody),
    )
)]
pub async fn set_note(
    State(app): AppState,
    GameId(id): GameId,
    Body(b): Body<req::SetNote>,
) -> ApiResult<Json<GameJson>> {
    let path: Vec<String> = b
        .path
        .ok_or_else(|| req::missing("path"))?
        .0
        .iter()
        .map(|s| s.trim().to_ascii_lowercase())
        .collect();
    detached(async move {
        with_game(&app, id, async |l: &mut Loaded| {
            let nags = match b.nags {
                Some(n) => n.iter().map(|n| n.0 as u8).collect(),
                None => l
                    .notes
                    .get(&path.join(" "))
                    .map(|n| n.nags.clone())
                    .unwrap_or_default(),
            };
            let note = crate::store::Note {
                text: b.comment.unwrap_or_default(),
                nags,
            };
            crate::games::notes::set(&app.store, l, &path, note).await?;
            Ok(Json(GameJson::of(l)))
        })
        .await
    })
    .await
}

/// `POST /api/games/{id}/computer-move` `{"ply": n}`: the engine plays the side to move at
/// the game's level; the move is stored like any other.
#[utoipa::path(
    post,
    path = "/api/games/{id}/computer-move",
    tag = "games",
    params(
        ("id" = i64, Path, description = "The game's id", minimum = 1),
    ),
    request_body(content = Option<req::ComputerMove>, description = "All fields optional"),
    responses(
        (status = 200, description = "The engine's move and where the game stands", body = MoveReply),
        (status = 400, description = "Malformed input: bad JSON, an unknown field, a wrong type, a bad FEN or id", body = super::error::ErrorBody),
        (status = 404, description = "No such game", body = super::error::ErrorBody),
        (status = 409, description = "The game is not in the state the request assumes (over, the computer's turn, another number of moves than `ply`, or what its moves or mode do not allow)", body = super::error::ErrorBody),
        (status = 413, description = "The request body is too large", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself (the store or the engine), never of the input", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting): nothing was stored; `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn computer_move(
    State(app): AppState,
    GameId(id): GameId,
    Body(b): Body<req::ComputerMove>,
) -> ApiResult<Json<MoveReply>> {
    // Snapshot the game, search without holding its lock, then play if nothing changed.
    let snap = with_game(&app, id, async |l: &mut Loaded| {
        Ok(Snapshot::of(l, b.ply.map(|n| n.0))?)
    })
    .await?;
    let movetime = b.movetime_ms.map_or(300 + 40 * snap.level, |n| n.0) as u64;
    let found = app
        .engines
        .search(id, snap.start, snap.moves, snap.level as i32, movetime)
        .await
        .map_err(GameError::from)?;
    let best = found.best.ok_or(GameError::NoLegalMove)?;
    detached(async move {
        with_game(&app, id, async |l: &mut Loaded| {
            moves::computer_move(&app.store, l, snap.ply, best).await?;
            Ok(Json(MoveReply::of(l)))
        })
        .await
    })
    .await
}

/// `POST /api/games/{id}/takeback` `{"plies": 1}`
#[utoipa::path(
    post,
    path = "/api/games/{id}/takeback",
    tag = "games",
    params(
        ("id" = i64, Path, description = "The game's id", minimum = 1),
    ),
    request_body(content = Option<req::Takeback>, description = "All fields optional"),
    responses(
        (status = 200, description = "The game after the takeback", body = GameJson),
        (status = 400, description = "Malformed input: bad JSON, an unknown field, a wrong type, a bad FEN or id", body = super::error::ErrorBody),
        (status = 404, description = "No such game", body = super::error::ErrorBody),
        (status = 409, description = "The game is not in the state the request assumes (over, the computer's turn, another number of moves than `ply`, or what its moves or mode do not allow)", body = super::error::ErrorBody),
        (status = 413, description = "The request body is too large", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself (the store or the engine), never of the input", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting): nothing was stored; `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn takeback(
    State(app): AppState,
    GameId(id): GameId,
    Body(b): Body<req::Takeback>,
) -> ApiResult<Json<GameJson>> {
    let plies = b.plies.map_or(1, |n| n.0 as usize);
    let claimed_ply = b.ply.map(|n| n.0);
    change(app, id, Change::Takeback { plies, claimed_ply }).await
}

/// `POST /api/games/{id}/resign` `{"side": "red"}`
#[utoipa::path(
    post,
    path = "/api/games/{id}/resign",
    tag = "games",
    params(
        ("id" = i64, Path, description = "The game's id", minimum = 1),
    ),
    request_body(content = Option<req::SideOf>, description = "All fields optional"),
    responses(
        (status = 200, description = "The game, now over", body = GameJson),
        (status = 400, description = "Malformed input: bad JSON, an unknown field, a wrong type, a bad FEN or id", body = super::error::ErrorBody),
        (status = 404, description = "No such game", body = super::error::ErrorBody),
        (status = 409, description = "The game is not in the state the request assumes (over, the computer's turn, another number of moves than `ply`, or what its moves or mode do not allow)", body = super::error::ErrorBody),
        (status = 413, description = "The request body is too large", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself (the store or the engine), never of the input", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting): nothing was stored; `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn resign(
    State(app): AppState,
    GameId(id): GameId,
    Body(b): Body<req::SideOf>,
) -> ApiResult<Json<GameJson>> {
    change(app, id, Change::Resign(b.side.map(|s| s.0))).await
}

/// `POST /api/games/{id}/draw` `{"side": "red"}`: a draw offer. Against the computer the
/// engine decides; otherwise the offer stands for an agreement the players made at the board.
#[utoipa::path(
    post,
    path = "/api/games/{id}/draw",
    tag = "games",
    params(
        ("id" = i64, Path, description = "The game's id", minimum = 1),
    ),
    request_body(content = Option<req::SideOf>, description = "All fields optional"),
    responses(
        (status = 200, description = "Whether the draw was accepted (then the game too)", body = DrawReply),
        (status = 400, description = "Malformed input: bad JSON, an unknown field, a wrong type, a bad FEN or id", body = super::error::ErrorBody),
        (status = 404, description = "No such game", body = super::error::ErrorBody),
        (status = 409, description = "The game is not in the state the request assumes (over, the computer's turn, another number of moves than `ply`, or what its moves or mode do not allow)", body = super::error::ErrorBody),
        (status = 413, description = "The request body is too large", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself (the store or the engine), never of the input", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting): nothing was stored; `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn draw(
    State(app): AppState,
    GameId(id): GameId,
    Body(_): Body<req::SideOf>,
) -> ApiResult<Json<DrawReply>> {
    let snap = with_game(&app, id, async |l: &mut Loaded| Ok(Snapshot::of(l, None)?)).await?;
    let verdict = ends::judge_draw(&app.engines, &snap).await?;
    if !verdict.accepted {
        return Ok(Json(DrawReply {
            accepted: false,
            why: verdict.why,
            code: verdict.code,
            game: None,
        }));
    }
    let game = detached(async move {
        with_game(&app, id, async |l: &mut Loaded| {
            ends::agree_draw(&app.store, l, snap.ply).await?;
            Ok(GameJson::of(l))
        })
        .await
    })
    .await?;
    Ok(Json(DrawReply {
        accepted: true,
        why: verdict.why,
        code: verdict.code,
        game: Some(game),
    }))
}

/// `GET /api/games/{id}/pgn?notation=wxf[&download=1]`
#[utoipa::path(
    get,
    path = "/api/games/{id}/pgn",
    tag = "games",
    params(
        ("id" = i64, Path, description = "The game's id", minimum = 1),
        req::PgnQuery,
    ),
    responses(
        (status = 200, description = "The game as PGN", body = String, content_type = "application/x-chess-pgn"),
        (status = 400, description = "Malformed input: bad JSON, an unknown field, a wrong type, a bad FEN or id", body = super::error::ErrorBody),
        (status = 404, description = "No such game", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself (the store or the engine), never of the input", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting): nothing was stored; `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn export_pgn(
    State(app): AppState,
    GameId(id): GameId,
    Query(q): Query<req::PgnQuery>,
) -> ApiResult<Response> {
    let notation = q.notation.map_or(Notation::Iccs, |n| n.0);
    let download = q.download.is_some_and(|v| v.0 != "0" && v.0 != "false");
    let text = with_game(&app, id, async |l: &mut Loaded| {
        let mut s = String::new();
        xiangqi_record::pgn::write_game(&mut s, &export::record_of(l), notation);
        Ok(s)
    })
    .await?;
    let mut headers = HeaderMap::new();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/x-chess-pgn; charset=utf-8"),
    );
    if download {
        if let Ok(v) =
            HeaderValue::from_str(&format!("attachment; filename=\"xiangqi-game-{id}.pgn\""))
        {
            headers.insert(header::CONTENT_DISPOSITION, v);
        }
    }
    Ok((headers, text).into_response())
}

/// `GET /api/games/{id}/fen?ply=n`
#[utoipa::path(
    get,
    path = "/api/games/{id}/fen",
    tag = "games",
    params(
        ("id" = i64, Path, description = "The game's id", minimum = 1),
        req::FenQuery,
    ),
    responses(
        (status = 200, description = "The position after `ply` moves", body = FenJson),
        (status = 400, description = "Malformed input: bad JSON, an unknown field, a wrong type, a bad FEN or id", body = super::error::ErrorBody),
        (status = 404, description = "No such game", body = super::error::ErrorBody),
        (status = 409, description = "`ply` is past the game's end", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself (the store or the engine), never of the input", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting): nothing was stored; `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn export_fen(
    State(app): AppState,
    GameId(id): GameId,
    Query(q): Query<req::FenQuery>,
) -> ApiResult<Json<FenJson>> {
    with_game(&app, id, async |l: &mut Loaded| {
        let len = l.game.len();
        let ply = match &q.ply {
            None => len,
            Some(s) => {
                s.0.parse::<usize>()
                    .ok()
                    .filter(|&p| p <= len)
                    .ok_or_else(|| {
                        // (A number past the game's end is the game's state: 409.)
                        let digits = !s.0.is_empty() && s.0.bytes().all(|b| b.is_ascii_digit());
                        let status = if digits {
                            StatusCode::CONFLICT
                        } else {
                            StatusCode::BAD_REQUEST
                        };
                        ApiError::new(
                            status,
                            format!(
                                "query parameter 'ply' must be a whole number from 0 to {len}, got '{}'",
                                s.0
                            ),
                        )
                        .field("ply")
                    })?
            }
        };
        Ok(Json(FenJson {
            id,
            ply,
            fen: l.game.history().position_at(ply).fen(),
        }))
    })
    .await
}

/// `POST /api/import`: PGN (any notation), XQF, CBR/CBL, or a FEN; raw bytes in the body.
#[utoipa::path(
    post,
    path = "/api/import",
    tag = "games",
    params(
        req::ImportQuery,
    ),
    request_body(content = Vec<u8>, content_type = "application/octet-stream", description = "The raw file: PGN (any notation, GBK or UTF-8), XQF, CBR/CBL or a FEN"),
    responses(
        (status = 201, description = "The games stored, and those that could not be read", body = ImportReply),
        (status = 400, description = "Nothing could be imported (with `errors`), or a bad query parameter", body = super::error::ErrorBody),
        (status = 413, description = "The body is too large, or holds too many games", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself (the store or the engine), never of the input", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting): nothing was stored; `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn import(
    State(app): AppState,
    Query(q): Query<req::ImportQuery>,
    RawBody(body): RawBody,
) -> ApiResult<(StatusCode, Json<ImportReply>)> {
    let mode = q.mode.map_or(Mode::Analysis, |m| m.0);
    let done = create::import(&app.store, &app.games, body.to_vec(), mode).await?;
    Ok((
        StatusCode::CREATED,
        Json(ImportReply {
            games: done.games.iter().map(Summary::of).collect(),
            errors: done.errors,
            warnings: done.warnings,
        }),
    ))
}

/// The game's start and main line for a review, if it may be reviewed: a game with moves that
/// is over, or one not played against the computer (two players, analysis, imported).
async fn reviewable(app: &App, id: i64) -> ApiResult<(Position, Vec<xiangqi::Move>)> {
    with_game(app, id, async |l: &mut Loaded| {
        if l.game.is_empty() {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "the game has no moves to review",
            ));
        }
        if l.row.mode == Mode::Computer && l.game.outcome().is_none() {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "the game against the computer is still being played: review it when it is over",
            ));
        }
        Ok((l.game.start().clone(), l.game.moves()))
    })
    .await
}

/// `POST /api/games/{id}/review` `{"depth": 10}`: starts reviewing the game in the background
/// (every position searched on the engine pool); answers at once with its progress. A review
/// already running goes on (the answer is its progress).
#[utoipa::path(
    post,
    path = "/api/games/{id}/review",
    tag = "games",
    params(
        ("id" = i64, Path, description = "The game's id", minimum = 1),
    ),
    request_body(content = Option<req::StartReview>, description = "All fields optional"),
    responses(
        (status = 202, description = "The review runs (or ran already); its progress", body = ReviewStatus),
        (status = 400, description = "Malformed input: bad JSON, an unknown field, a wrong type, a bad FEN or id", body = super::error::ErrorBody),
        (status = 404, description = "No such game", body = super::error::ErrorBody),
        (status = 409, description = "The game has no moves, or is a game against the computer still being played", body = super::error::ErrorBody),
        (status = 413, description = "The request body is too large", body = super::error::ErrorBody),
        (status = 429, description = "Too many reviews are running; try again later", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself (the store or the engine), never of the input", body = super::error::ErrorBody),
    )
)]
pub async fn start_review(
    State(app): AppState,
    GameId(id): GameId,
    Body(b): Body<req::StartReview>,
) -> ApiResult<(StatusCode, Json<ReviewStatus>)> {
    let depth = b.depth.map_or(review::DEFAULT_DEPTH, |d| d.0);
    let (start, moves) = reviewable(&app, id).await?;
    review::start(&app, id, start, moves.clone(), depth).map_err(|_| {
        ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            format!(
                "too many reviews are running (at most {}); try again later",
                review::MAX_RUNNING
            ),
        )
    })?;
    let s = review::status(&app, id, &moves)
        .await
        .map_err(GameError::from)?;
    Ok((StatusCode::ACCEPTED, Json(s)))
}

/// `GET /api/games/{id}/review`: the review's progress while it runs, and the stored review.
#[utoipa::path(
    get,
    path = "/api/games/{id}/review",
    tag = "games",
    params(
        ("id" = i64, Path, description = "The game's id", minimum = 1),
    ),
    responses(
        (status = 200, description = "Where the review stands, with the stored review if there is one", body = ReviewStatus),
        (status = 400, description = "Malformed input: bad JSON, an unknown field, a wrong type, a bad FEN or id", body = super::error::ErrorBody),
        (status = 404, description = "No such game", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself (the store or the engine), never of the input", body = super::error::ErrorBody),
    )
)]
pub async fn get_review(State(app): AppState, GameId(id): GameId) -> ApiResult<Json<ReviewStatus>> {
    let moves = with_game(&app, id, async |l: &mut Loaded| Ok(l.game.moves())).await?;
    let s = review::status(&app, id, &moves)
        .await
        .map_err(GameError::from)?;
    Ok(Json(s))
}

/// `DELETE /api/games/{id}/review`: cancels a running review (a stored earlier review stays).
#[utoipa::path(
    delete,
    path = "/api/games/{id}/review",
    tag = "games",
    params(
        ("id" = i64, Path, description = "The game's id", minimum = 1),
    ),
    responses(
        (status = 200, description = "The review is cancelled (its state is `cancelled` once the position being searched is done)", body = ReviewStatus),
        (status = 400, description = "Malformed input: bad JSON, an unknown field, a wrong type, a bad FEN or id", body = super::error::ErrorBody),
        (status = 404, description = "No such game", body = super::error::ErrorBody),
        (status = 409, description = "No review of the game is running", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself (the store or the engine), never of the input", body = super::error::ErrorBody),
    )
)]
pub async fn cancel_review(
    State(app): AppState,
    GameId(id): GameId,
) -> ApiResult<Json<ReviewStatus>> {
    let moves = with_game(&app, id, async |l: &mut Loaded| Ok(l.game.moves())).await?;
    if !app.reviews.cancel(id) {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "no review of this game is running",
        ));
    }
    let s = review::status(&app, id, &moves)
        .await
        .map_err(GameError::from)?;
    Ok(Json(s))
}
