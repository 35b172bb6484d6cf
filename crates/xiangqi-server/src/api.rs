//! The JSON API (docs/API.md). Every handler takes its input as raw text and checks it
//! itself, so every bad request gets a JSON error that names the problem.

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Map, Value};
use xiangqi::notation::Notation;
use xiangqi::{Color, Game, Position};
use xiangqi_record::{GameRecord, GameResult, MoveNode};

use crate::engine;
use crate::state::{
    apply_declared, color_name, game_json, legal_json, line_text, now, now_json, outcome_json,
    parse_color, prune_lines, result_cols, summary_json, uci, App, Loaded,
};
use crate::store::{GameRow, Write};

/// An API error: a status and a JSON body `{"error": "...", ...}`.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub body: Value,
}

impl ApiError {
    pub fn new(status: StatusCode, msg: impl Into<String>) -> ApiError {
        ApiError {
            status,
            body: json!({ "error": msg.into() }),
        }
    }
    pub fn bad(msg: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, msg)
    }
    pub fn with(mut self, key: &str, v: Value) -> ApiError {
        if let Value::Object(m) = &mut self.body {
            m.insert(key.to_string(), v);
        }
        self
    }
    pub fn internal(msg: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, msg)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(self.body)).into_response()
    }
}

pub type ApiResult = Result<Response, ApiError>;
type AppState = State<Arc<App>>;

fn ok(v: Value) -> ApiResult {
    Ok(Json(v).into_response())
}

/// Parses a JSON object body; an empty body is an empty object.
fn body_object(body: &Bytes) -> Result<Map<String, Value>, ApiError> {
    if body.iter().all(|b| b.is_ascii_whitespace()) {
        return Ok(Map::new());
    }
    let text = std::str::from_utf8(body)
        .map_err(|e| ApiError::bad(format!("the request body is not UTF-8 text: {e}")))?;
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(ApiError::bad("the request body must be a JSON object")),
        Err(e) => Err(ApiError::bad(format!(
            "the request body is not valid JSON: {e}"
        ))),
    }
}

/// Rejects fields the endpoint does not know (a typo would otherwise go unnoticed).
fn known_fields(m: &Map<String, Value>, known: &[&str]) -> Result<(), ApiError> {
    for k in m.keys() {
        if !known.contains(&k.as_str()) {
            return Err(ApiError::bad(format!(
                "unknown field '{k}' (expected one of: {})",
                known.join(", ")
            ))
            .with("field", json!(k)));
        }
    }
    Ok(())
}

fn opt_str<'a>(m: &'a Map<String, Value>, k: &str) -> Result<Option<&'a str>, ApiError> {
    match m.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => {
            Err(ApiError::bad(format!("field '{k}' must be a string")).with("field", json!(k)))
        }
    }
}

fn opt_int(m: &Map<String, Value>, k: &str, min: i64, max: i64) -> Result<Option<i64>, ApiError> {
    match m.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_i64() {
            Some(n) if (min..=max).contains(&n) => Ok(Some(n)),
            _ => Err(ApiError::bad(format!(
                "field '{k}' must be a whole number from {min} to {max}, got {v}"
            ))
            .with("field", json!(k))),
        },
    }
}

fn parse_query(q: &Option<String>) -> Result<HashMap<String, String>, ApiError> {
    let mut out = HashMap::new();
    let Some(q) = q else { return Ok(out) };
    for part in q.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        let k = percent_decode(k)
            .ok_or_else(|| ApiError::bad(format!("bad query parameter name '{k}'")))?;
        let v = percent_decode(v).ok_or_else(|| {
            ApiError::bad(format!(
                "query parameter '{k}' is not valid percent-encoded UTF-8"
            ))
        })?;
        out.insert(k, v);
    }
    Ok(out)
}

fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let h = s.get(i + 1..i + 3)?;
                out.push(u8::from_str_radix(h, 16).ok()?);
                i += 2;
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8(out).ok()
}

fn known_params(q: &HashMap<String, String>, known: &[&str]) -> Result<(), ApiError> {
    for k in q.keys() {
        if !known.contains(&k.as_str()) {
            return Err(ApiError::bad(format!(
                "unknown query parameter '{k}' (expected one of: {})",
                known.join(", ")
            )));
        }
    }
    Ok(())
}

fn parse_id(s: &str) -> Result<i64, ApiError> {
    s.parse::<i64>()
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| ApiError::bad(format!("game id '{s}' is not a positive whole number")))
}

fn parse_fen(s: &str) -> Result<Position, ApiError> {
    Position::from_fen(s.trim())
        .map_err(|e| ApiError::bad(format!("bad FEN '{}': {e}", s.trim())).with("fen", json!(s)))
}

fn parse_notation(s: &str) -> Result<Notation, ApiError> {
    Notation::from_format_tag(s).ok_or_else(|| {
        ApiError::bad(format!(
            "unknown notation '{s}' (expected iccs, wxf or chinese)"
        ))
    })
}

/// Reads a move in any notation (coordinates, WXF or Chinese) against `pos`.
pub fn read_move(pos: &Position, s: &str) -> Result<xiangqi::Move, ApiError> {
    let t = s.trim();
    if t.is_empty() {
        return Err(ApiError::bad("the move is empty"));
    }
    if t.chars().count() > 16 {
        return Err(ApiError::bad(format!("'{t}' is too long to be a move")));
    }
    let notation = Notation::guess(t).unwrap_or(Notation::Iccs);
    notation.read(pos, t).map_err(|e| {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, format!("{e}"))
            .with("move", json!(t))
            .with("fen", json!(pos.fen()))
    })
}

async fn with_game<T>(
    app: &App,
    id: &str,
    f: impl AsyncFnOnce(&mut Loaded) -> Result<T, ApiError>,
) -> Result<T, ApiError> {
    let id = parse_id(id)?;
    let slot = app
        .slot(id)
        .await
        .map_err(ApiError::internal)?
        .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, format!("no game with id {id}")))?;
    let mut guard = slot.lock().await;
    let loaded = guard
        .as_mut()
        .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, format!("no game with id {id}")))?;
    f(loaded).await
}

/// Runs a change to a game to completion even if the client goes away: the in-memory game
/// and the store must not part (a dropped handler could otherwise leave a committed move
/// out of memory).
async fn detached<T: Send + 'static>(
    f: impl std::future::Future<Output = Result<T, ApiError>> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::spawn(f)
        .await
        .map_err(|e| ApiError::internal(format!("the request failed: {e}")))?
}

fn not_over(game: &Game) -> Result<(), ApiError> {
    if let Some(o) = game.outcome() {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            format!("the game is over ({} {})", o.verdict(), o.reason.as_str()),
        )
        .with("outcome", outcome_json(game)));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Handlers

pub async fn health() -> ApiResult {
    ok(json!({ "ok": true, "version": env!("CARGO_PKG_VERSION") }))
}

/// `GET /api/position?fen=...`: checks a position and lists its legal moves.
pub async fn position(RawQuery(q): RawQuery) -> ApiResult {
    let q = parse_query(&q)?;
    known_params(&q, &["fen"])?;
    let fen = q
        .get("fen")
        .ok_or_else(|| ApiError::bad("query parameter 'fen' is missing"))?;
    let pos = parse_fen(fen)?;
    let game = Game::new(pos.clone());
    let mut v = now_json(&game);
    v.remove("ply");
    v.insert("legal".into(), json!(legal_json(&pos)));
    ok(Value::Object(v))
}

/// `POST /api/games`: a new game.
pub async fn create(State(app): AppState, body: Bytes) -> ApiResult {
    let m = body_object(&body)?;
    known_fields(
        &m,
        &["mode", "human", "level", "fen", "moves", "red", "black"],
    )?;
    let mode = opt_str(&m, "mode")?.unwrap_or("two-player");
    if !["computer", "two-player", "analysis"].contains(&mode) {
        return Err(ApiError::bad(format!(
            "field 'mode' must be computer, two-player or analysis, got '{mode}'"
        ))
        .with("field", json!("mode")));
    }
    let human = match opt_str(&m, "human")? {
        Some(s) => Some(parse_color(s).ok_or_else(|| {
            ApiError::bad(format!("field 'human' must be red or black, got '{s}'"))
                .with("field", json!("human"))
        })?),
        None => None,
    };
    let level = opt_int(&m, "level", 0, 20)?.unwrap_or(if mode == "computer" { 3 } else { 0 });
    let start = match opt_str(&m, "fen")? {
        Some(f) => parse_fen(f)?,
        None => Position::new(),
    };
    let mut game = Game::new(start.clone());
    let mut moves = Vec::new();
    match m.get("moves") {
        None | Some(Value::Null) => {}
        Some(Value::Array(a)) => {
            if a.len() > 2000 {
                return Err(ApiError::bad("field 'moves' has more than 2000 moves"));
            }
            for (i, v) in a.iter().enumerate() {
                let s = v.as_str().ok_or_else(|| {
                    ApiError::bad(format!("moves[{i}] must be a string")).with("index", json!(i))
                })?;
                let mv = read_move(game.position(), s).map_err(|e| e.with("index", json!(i)))?;
                game.push_unchecked(mv);
                moves.push(mv.to_string());
            }
        }
        Some(_) => return Err(ApiError::bad("field 'moves' must be an array of moves")),
    }
    let mut tags = Map::new();
    for k in ["red", "black"] {
        if let Some(s) = opt_str(&m, k)? {
            if s.chars().count() > 100 {
                return Err(ApiError::bad(format!(
                    "field '{k}' is longer than 100 characters"
                )));
            }
            let tag = if k == "red" { "Red" } else { "Black" };
            tags.insert(tag.into(), json!(s));
        }
    }
    let human = if mode == "computer" {
        Some(human.unwrap_or(Color::Red))
    } else {
        None
    };
    let t = now();
    let (result, reason) = result_cols(&game);
    let mut row = GameRow {
        id: 0,
        created: t,
        updated: t,
        mode: mode.to_string(),
        human: human.map(color_name).unwrap_or("").to_string(),
        level,
        start_fen: start.fen(),
        tags: Value::Object(tags).to_string(),
        declared: String::new(),
        declared_ply: 0,
        result,
        reason,
        plies: moves.len() as i64,
    };
    let id = app
        .store
        .write(Write::Create {
            row: row.clone(),
            moves,
            lines: Vec::new(),
        })
        .await
        .map_err(ApiError::internal)?;
    row.id = id;
    let loaded = Loaded {
        row,
        game,
        lines: Vec::new(),
    };
    let v = game_json(&loaded);
    app.insert(loaded);
    Ok((StatusCode::CREATED, Json(v)).into_response())
}

/// `GET /api/games?limit=&offset=`
pub async fn list(State(app): AppState, RawQuery(q): RawQuery) -> ApiResult {
    let q = parse_query(&q)?;
    known_params(&q, &["limit", "offset"])?;
    let num = |k: &str, def: i64, max: i64| -> Result<i64, ApiError> {
        match q.get(k) {
            None => Ok(def),
            Some(s) => s
                .parse::<i64>()
                .ok()
                .filter(|n| (0..=max).contains(n))
                .ok_or_else(|| {
                    ApiError::bad(format!(
                        "query parameter '{k}' must be a whole number from 0 to {max}, got '{s}'"
                    ))
                }),
        }
    };
    let limit = num("limit", 50, 500)?;
    let offset = num("offset", 0, i64::MAX / 2)?;
    let (rows, total) = app
        .store
        .list(limit, offset)
        .await
        .map_err(ApiError::internal)?;
    ok(json!({
        "total": total,
        "games": rows.iter().map(summary_json).collect::<Vec<_>>(),
    }))
}

pub async fn get_game(State(app): AppState, Path(id): Path<String>) -> ApiResult {
    let v = with_game(&app, &id, async |l: &mut Loaded| Ok(game_json(l))).await?;
    ok(v)
}

pub async fn delete_game(State(app): AppState, Path(id): Path<String>) -> ApiResult {
    let n = parse_id(&id)?;
    detached(async move {
        // Hold the game's lock while deleting, so no move is stored into a deleted game.
        let slot = app
            .slot(n)
            .await
            .map_err(ApiError::internal)?
            .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, format!("no game with id {n}")))?;
        let mut g = slot.lock().await;
        app.store
            .write(Write::Delete { id: n })
            .await
            .map_err(ApiError::internal)?;
        *g = None;
        drop(g);
        app.forget(n);
        Ok(())
    })
    .await?;
    ok(json!({ "deleted": n }))
}

/// Checks a move against the game, stores it durably, then applies it in memory.
/// The answer to a move (typed, so no JSON tree is built on the hot path).
#[derive(serde::Serialize)]
struct MoveReply {
    id: i64,
    #[serde(rename = "move")]
    mv: MoveText,
    ply: usize,
    fen: String,
    turn: &'static str,
    check: bool,
    legal: Vec<String>,
    outcome: Value,
}

#[derive(serde::Serialize)]
struct MoveText {
    uci: String,
    iccs: String,
    wxf: String,
    chinese: String,
    capture: bool,
    check: bool,
    fen: String,
}

async fn play_move(app: &App, l: &mut Loaded, mv: xiangqi::Move) -> ApiResult {
    let ply = l.game.len() as i64;
    let wxf = Notation::Wxf.write(l.game.position(), mv);
    let chinese = Notation::Chinese.write(l.game.position(), mv);
    // Play it in memory first (no copy of the game), and take it back if the store fails.
    let captured = l.game.push_unchecked(mv);
    let (result, reason) = result_cols(&l.game);
    let t = now();
    let stored = app
        .store
        .write(Write::AddMove {
            id: l.row.id,
            ply,
            uci: uci(mv),
            updated: t,
            result: result.clone(),
            reason: reason.clone(),
        })
        .await;
    if let Err(e) = stored {
        l.game.pop();
        return Err(ApiError::internal(e));
    }
    l.row.updated = t;
    l.row.plies = ply + 1;
    l.row.result = result;
    l.row.reason = reason;
    let pos = l.game.position();
    let fen = pos.fen();
    let check = pos.is_check();
    let over = l.game.outcome().is_some();
    let reply = MoveReply {
        id: l.row.id,
        mv: MoveText {
            uci: uci(mv),
            iccs: xiangqi::UciMove::from_move(mv).to_iccs(),
            wxf,
            chinese,
            capture: captured.is_some(),
            check,
            fen: fen.clone(),
        },
        ply: l.game.len(),
        fen,
        turn: color_name(pos.turn()),
        check,
        legal: if over { Vec::new() } else { legal_json(pos) },
        outcome: outcome_json(&l.game),
    };
    Ok(Json(reply).into_response())
}

/// `POST /api/games/{id}/moves` `{"move": "h2e2", "ply": 0}`
pub async fn post_move(State(app): AppState, Path(id): Path<String>, body: Bytes) -> ApiResult {
    let m = body_object(&body)?;
    known_fields(&m, &["move", "ply", "at"])?;
    let text = opt_str(&m, "move")?
        .ok_or_else(|| ApiError::bad("field 'move' is missing").with("field", json!("move")))?
        .to_string();
    let expect = opt_int(&m, "ply", 0, 1_000_000)?;
    let at = opt_int(&m, "at", 0, 1_000_000)?;
    parse_id(&id)?;
    detached(async move {
        with_game(&app, &id, async |l: &mut Loaded| {
            check_ply(l, expect)?;
            if let Some(at) = at.map(|n| n as usize).filter(|&n| n != l.game.len()) {
                let g = branch(&app, l, at, &text).await?;
                return ok(g);
            }
            not_over(&l.game)?;
            if l.row.mode == "computer" {
                let human = parse_color(&l.row.human).unwrap_or(Color::Red);
                if l.game.position().turn() != human {
                    return Err(ApiError::new(
                        StatusCode::CONFLICT,
                        "it is the computer's turn: ask for its move at /computer-move",
                    ));
                }
            }
            let mv = read_move(l.game.position(), &text)?;
            play_move(&app, l, mv).await
        })
        .await
    })
    .await
}

/// Plays `text` after the first `at` moves of an analysis game's main line: the new move
/// starts the new main line and the old main line is kept as an alternative line. Answers
/// the game.
async fn branch(app: &App, l: &mut Loaded, at: usize, text: &str) -> Result<Value, ApiError> {
    let len = l.game.len();
    if l.row.mode != "analysis" {
        return Err(ApiError::bad(
            "field 'at' (playing from an earlier move, keeping the old line) is for analysis games",
        )
        .with("field", json!("at")));
    }
    if at > len {
        return Err(ApiError::bad(format!(
            "field 'at' must be at most the number of moves ({len}), got {at}"
        ))
        .with("field", json!("at")));
    }
    let mut next = l.game.clone();
    while next.len() > at {
        next.pop();
    }
    let mut row = l.row.clone();
    if row.declared_ply >= at as i64 {
        row.declared.clear();
    }
    apply_declared(&mut next, &row);
    not_over(&next)?;
    let mv = read_move(next.position(), text)?;
    let old = l.game.moves();
    if old.get(at) == Some(&mv) {
        // The main line's own move: nothing changes.
        return Ok(game_json(l));
    }
    next.push_unchecked(mv);
    let main = next.moves();
    let mut lines = l.lines.clone();
    lines.push(old);
    let lines = prune_lines(&main, lines);
    set_lines(app, l, row, next, lines).await?;
    Ok(game_json(l))
}

/// Stores a new main line (`next`) and alternative lines of a game, then holds them.
async fn set_lines(
    app: &App,
    l: &mut Loaded,
    mut row: GameRow,
    next: Game,
    lines: Vec<Vec<xiangqi::Move>>,
) -> Result<(), ApiError> {
    let moves: Vec<String> = next.moves().into_iter().map(uci).collect();
    let texts: Vec<String> = lines.iter().map(|x| line_text(x)).collect();
    row.plies = moves.len() as i64;
    commit_change(app, l, row, next, |row, result, reason, t| {
        let mut row = row.clone();
        row.updated = t;
        row.result = result.to_string();
        row.reason = reason.to_string();
        vec![Write::SetLines {
            row,
            moves,
            lines: texts,
        }]
    })
    .await?;
    l.lines = lines;
    Ok(())
}

/// `POST /api/games/{id}/promote` `{"line": ["h2e2", ...], "ply": n}`: makes a stored
/// alternative line the main line; the old main line becomes an alternative line.
pub async fn promote(State(app): AppState, Path(id): Path<String>, body: Bytes) -> ApiResult {
    let m = body_object(&body)?;
    known_fields(&m, &["line", "ply"])?;
    let expect = opt_int(&m, "ply", 0, 1_000_000)?;
    let want: Vec<String> = match m.get("line") {
        Some(Value::Array(a)) => a
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.as_str()
                    .map(|s| s.trim().to_ascii_lowercase())
                    .ok_or_else(|| {
                        ApiError::bad(format!("line[{i}] must be a string")).with("index", json!(i))
                    })
            })
            .collect::<Result<_, _>>()?,
        None | Some(Value::Null) => {
            return Err(ApiError::bad("field 'line' is missing").with("field", json!("line")))
        }
        Some(_) => {
            return Err(
                ApiError::bad("field 'line' must be an array of moves in coordinates")
                    .with("field", json!("line")),
            )
        }
    };
    detached(async move {
        with_game(&app, &id, async |l: &mut Loaded| {
            check_ply(l, expect)?;
            let Some(k) = l
                .lines
                .iter()
                .position(|x| x.iter().map(|&m| uci(m)).eq(want.iter().cloned()))
            else {
                return Err(ApiError::new(
                    StatusCode::CONFLICT,
                    "the game has no such alternative line: reload it",
                ));
            };
            let mut lines = l.lines.clone();
            let line = lines.remove(k);
            lines.push(l.game.moves());
            let mut next = Game::new(l.game.start().clone());
            for &mv in &line {
                next.push_unchecked(mv);
            }
            let lines = prune_lines(&line, lines);
            // A declared end belongs to the line it was declared in: it is withdrawn.
            let mut row = l.row.clone();
            row.declared.clear();
            set_lines(&app, l, row, next, lines).await?;
            Ok(game_json(l))
        })
        .await
    })
    .await
    .and_then(ok)
}

fn check_ply(l: &Loaded, expect: Option<i64>) -> Result<(), ApiError> {
    if let Some(p) = expect {
        if p != l.game.len() as i64 {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                format!("the game has {} moves, not {p}: reload it", l.game.len()),
            )
            .with("ply", json!(l.game.len())));
        }
    }
    Ok(())
}

/// `POST /api/games/{id}/computer-move` `{"ply": n}`: the engine plays the side to move at
/// the game's level; the move is stored like any other.
pub async fn computer_move(State(app): AppState, Path(id): Path<String>, body: Bytes) -> ApiResult {
    let m = body_object(&body)?;
    known_fields(&m, &["ply", "movetime_ms"])?;
    let expect = opt_int(&m, "ply", 0, 1_000_000)?;
    let movetime = opt_int(&m, "movetime_ms", 10, 10_000)?;
    // Snapshot the game, search without holding its lock, then play if nothing changed.
    let (start, moves, level, ply) = with_game(&app, &id, async |l: &mut Loaded| {
        check_ply(l, expect)?;
        not_over(&l.game)?;
        Ok((
            l.game.start().clone(),
            l.game.moves(),
            l.row.level,
            l.game.len() as i64,
        ))
    })
    .await?;
    let movetime = movetime.unwrap_or(300 + 40 * level) as u64;
    let permit = app
        .engine_slots
        .acquire()
        .await
        .map_err(|_| ApiError::internal("the engine is shutting down"))?;
    let (best, _score) = engine::search_once(start, moves, level as i32, movetime)
        .await
        .map_err(ApiError::internal)?;
    drop(permit);
    let best = best
        .ok_or_else(|| ApiError::new(StatusCode::CONFLICT, "the side to move has no legal move"))?;
    detached(async move {
        with_game(&app, &id, async |l: &mut Loaded| {
            check_ply(l, Some(ply))?;
            not_over(&l.game)?;
            play_move(&app, l, best).await
        })
        .await
    })
    .await
}

/// `POST /api/games/{id}/takeback` `{"plies": 1}`
pub async fn takeback(State(app): AppState, Path(id): Path<String>, body: Bytes) -> ApiResult {
    let m = body_object(&body)?;
    known_fields(&m, &["plies", "ply"])?;
    let n = opt_int(&m, "plies", 1, 10_000)?.unwrap_or(1) as usize;
    let expect = opt_int(&m, "ply", 0, 1_000_000)?;
    detached(async move {
        with_game(&app, &id, async |l: &mut Loaded| {
            check_ply(l, expect)?;
            if n > l.game.len() {
                return Err(ApiError::bad(format!(
                    "cannot take back {n} moves: the game has {}",
                    l.game.len()
                )));
            }
            let mut next = l.game.clone();
            for _ in 0..n {
                next.pop();
            }
            let keep = next.len() as i64;
            let mut row = l.row.clone();
            let had_declared = !row.declared.is_empty();
            if row.declared_ply > keep || (row.declared_ply == keep && n > 0) {
                row.declared.clear();
            }
            row.plies = keep;
            commit_change(&app, l, row, next, |row, result, reason, t| {
                let mut writes = vec![Write::Truncate {
                    id: row.id,
                    ply: keep,
                    updated: t,
                    result: result.to_string(),
                    reason: reason.to_string(),
                }];
                // Truncate clears a declaration made after the kept moves; one made at them
                // stays in the store, so clear it there too when we cleared it here.
                if row.declared.is_empty() && had_declared {
                    writes.push(Write::Declare {
                        id: row.id,
                        declared: String::new(),
                        ply: 0,
                        updated: t,
                        result: result.to_string(),
                        reason: reason.to_string(),
                    });
                }
                writes
            })
            .await?;
            Ok(game_json(l))
        })
        .await
    })
    .await
    .and_then(ok)
}

/// Makes `next` (with `row`) the game's new state: applies the declared end to it, computes
/// the derived result columns, stores the writes `writes` builds from them (in order, each
/// durable before the next), and only then changes the game in memory.
async fn commit_change(
    app: &App,
    l: &mut Loaded,
    mut row: GameRow,
    mut next: Game,
    writes: impl FnOnce(&GameRow, &str, &str, i64) -> Vec<Write>,
) -> Result<(), ApiError> {
    apply_declared(&mut next, &row);
    let (result, reason) = result_cols(&next);
    let t = now();
    for w in writes(&row, &result, &reason, t) {
        app.store.write(w).await.map_err(ApiError::internal)?;
    }
    row.updated = t;
    row.result = result;
    row.reason = reason;
    l.row = row;
    l.game = next;
    Ok(())
}

async fn declare(app: &App, l: &mut Loaded, declared: &str) -> Result<(), ApiError> {
    let mut row = l.row.clone();
    row.declared = declared.to_string();
    row.declared_ply = l.game.len() as i64;
    let next = l.game.clone();
    commit_change(app, l, row, next, |row, result, reason, t| {
        vec![Write::Declare {
            id: row.id,
            declared: row.declared.clone(),
            ply: row.declared_ply,
            updated: t,
            result: result.to_string(),
            reason: reason.to_string(),
        }]
    })
    .await
}

/// `POST /api/games/{id}/resign` `{"side": "red"}`
pub async fn resign(State(app): AppState, Path(id): Path<String>, body: Bytes) -> ApiResult {
    let m = body_object(&body)?;
    known_fields(&m, &["side"])?;
    let side = opt_str(&m, "side")?.map(|s| {
        parse_color(s).ok_or_else(|| {
            ApiError::bad(format!("field 'side' must be red or black, got '{s}'"))
                .with("field", json!("side"))
        })
    });
    let side = side.transpose()?;
    detached(async move {
        with_game(&app, &id, async |l: &mut Loaded| {
            not_over(&l.game)?;
            let side = match side {
                Some(s) => s,
                None if l.row.mode == "computer" => parse_color(&l.row.human).unwrap_or(Color::Red),
                None => l.game.position().turn(),
            };
            declare(
                &app,
                l,
                if side == Color::Red {
                    "resign-red"
                } else {
                    "resign-black"
                },
            )
            .await?;
            Ok(game_json(l))
        })
        .await
    })
    .await
    .and_then(ok)
}

/// `POST /api/games/{id}/draw` `{"side": "red"}`: a draw offer. Against the computer the
/// engine decides (it accepts when it does not think itself better); otherwise the offer
/// stands for an agreement the players made at the board.
pub async fn draw(State(app): AppState, Path(id): Path<String>, body: Bytes) -> ApiResult {
    let m = body_object(&body)?;
    known_fields(&m, &["side"])?;
    if let Some(s) = opt_str(&m, "side")? {
        parse_color(s).ok_or_else(|| {
            ApiError::bad(format!("field 'side' must be red or black, got '{s}'"))
                .with("field", json!("side"))
        })?;
    }
    let (mode, start, moves, ply) = with_game(&app, &id, async |l: &mut Loaded| {
        not_over(&l.game)?;
        Ok((
            l.row.mode.clone(),
            l.game.start().clone(),
            l.game.moves(),
            l.game.len() as i64,
        ))
    })
    .await?;
    let mut accepted = true;
    let mut why = "the players agreed".to_string();
    if mode == "computer" {
        // The computer judges the position from its own side after a short search.
        let permit = app
            .engine_slots
            .acquire()
            .await
            .map_err(|_| ApiError::internal("the engine is shutting down"))?;
        let mut pos = start.clone();
        for &mv in &moves {
            pos.play_unchecked(mv);
        }
        let (_, score) = engine::search_once(start, moves, 20, 300)
            .await
            .map_err(ApiError::internal)?;
        drop(permit);
        let human = with_game(&app, &id, async |l: &mut Loaded| {
            Ok(parse_color(&l.row.human).unwrap_or(Color::Red))
        })
        .await?;
        // `score` is from the side to move's view; turn it to the computer's.
        let flip = pos.turn() == human;
        accepted = match score {
            Some(xiangqi_engine::Score::Cp(cp)) => (if flip { -cp } else { cp }) <= 30,
            Some(xiangqi_engine::Score::Mate(n)) => (if flip { -n } else { n }) < 0,
            None => true,
        };
        why = if accepted {
            "the computer does not think itself better".into()
        } else {
            "the computer thinks it is better and plays on".into()
        };
    }
    if !accepted {
        return ok(json!({ "accepted": false, "why": why }));
    }
    let v = detached(async move {
        with_game(&app, &id, async |l: &mut Loaded| {
            check_ply(l, Some(ply))?;
            not_over(&l.game)?;
            declare(&app, l, "draw").await?;
            Ok(game_json(l))
        })
        .await
    })
    .await?;
    ok(json!({ "accepted": true, "why": why, "game": v }))
}

/// The record of a stored game.
fn record_of(l: &Loaded) -> GameRecord {
    let mut rec = GameRecord {
        start: l.game.start().clone(),
        ..GameRecord::default()
    };
    if let Ok(Value::Object(tags)) = serde_json::from_str::<Value>(&l.row.tags) {
        for (k, v) in tags {
            if let Some(s) = v.as_str() {
                rec.set_tag(&k, s);
            }
        }
    }
    if rec.tag("Event").is_none() {
        rec.set_tag("Event", "xiangqi");
    }
    let names = |c: Color| -> String {
        if l.row.mode == "computer" {
            if l.row.human == color_name(c) {
                "Player".into()
            } else {
                format!("xiangqi engine (level {})", l.row.level)
            }
        } else {
            "?".into()
        }
    };
    if rec.tag("Red").is_none() {
        rec.set_tag("Red", names(Color::Red));
    }
    if rec.tag("Black").is_none() {
        rec.set_tag("Black", names(Color::Black));
    }
    rec.moves = l.game.moves().into_iter().map(MoveNode::new).collect();
    for line in &l.lines {
        insert_line(&mut rec.moves, line);
    }
    rec.result = match l.game.outcome() {
        Some(o) => match o.winner {
            Some(Color::Red) => GameResult::RedWins,
            Some(Color::Black) => GameResult::BlackWins,
            None => GameResult::Draw,
        },
        None => GameResult::Unknown,
    };
    if let Some(r) = l.game.ruling() {
        rec.set_tag("Termination", r.outcome.reason.as_str());
    }
    rec
}

/// Adds `line` (a whole line from the start) to the move tree `list` as variations.
fn insert_line(list: &mut Vec<MoveNode>, line: &[xiangqi::Move]) {
    let mut i = 0;
    while i < line.len() {
        if i == list.len() {
            list.extend(line[i..].iter().map(|&m| MoveNode::new(m)));
            return;
        }
        if list[i].mv != line[i] {
            let node = &mut list[i];
            match node
                .variations
                .iter()
                .position(|v| v.first().map(|n| n.mv) == Some(line[i]))
            {
                Some(k) => insert_line(&mut node.variations[k], &line[i..]),
                None => node
                    .variations
                    .push(line[i..].iter().map(|&m| MoveNode::new(m)).collect()),
            }
            return;
        }
        i += 1;
    }
}

/// Every line of a record's move tree other than the main line, each from the start; a
/// variation comes before its own sub-variations (so writing them back nests them the same).
fn lines_of(
    list: &[MoveNode],
    prefix: &[xiangqi::Move],
    main: bool,
    out: &mut Vec<Vec<xiangqi::Move>>,
) {
    let mut path = prefix.to_vec();
    if !main {
        out.push(
            path.iter()
                .copied()
                .chain(list.iter().map(|n| n.mv))
                .collect(),
        );
    }
    for node in list {
        for v in &node.variations {
            lines_of(v, &path, false, out);
        }
        path.push(node.mv);
    }
}

/// `GET /api/games/{id}/pgn?notation=wxf`
pub async fn export_pgn(
    State(app): AppState,
    Path(id): Path<String>,
    RawQuery(q): RawQuery,
) -> ApiResult {
    let q = parse_query(&q)?;
    known_params(&q, &["notation", "download"])?;
    let notation = match q.get("notation") {
        Some(s) => parse_notation(s)?,
        None => Notation::Iccs,
    };
    let download = q.get("download").is_some_and(|v| v != "0" && v != "false");
    let (text, gid) = with_game(&app, &id, async |l: &mut Loaded| {
        let rec = record_of(l);
        let mut s = String::new();
        xiangqi_record::pgn::write_game(&mut s, &rec, notation);
        Ok((s, l.row.id))
    })
    .await?;
    let mut headers = HeaderMap::new();
    headers.insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/x-chess-pgn; charset=utf-8"),
    );
    if download {
        if let Ok(v) = header::HeaderValue::from_str(&format!(
            "attachment; filename=\"xiangqi-game-{gid}.pgn\""
        )) {
            headers.insert(header::CONTENT_DISPOSITION, v);
        }
    }
    Ok((headers, text).into_response())
}

/// `GET /api/games/{id}/fen?ply=n`
pub async fn export_fen(
    State(app): AppState,
    Path(id): Path<String>,
    RawQuery(q): RawQuery,
) -> ApiResult {
    let q = parse_query(&q)?;
    known_params(&q, &["ply"])?;
    let v = with_game(&app, &id, async |l: &mut Loaded| {
        let len = l.game.len();
        let ply = match q.get("ply") {
            None => len,
            Some(s) => s
                .parse::<usize>()
                .ok()
                .filter(|&p| p <= len)
                .ok_or_else(|| {
                    ApiError::bad(format!(
                        "query parameter 'ply' must be a whole number from 0 to {len}, got '{s}'"
                    ))
                })?,
        };
        let mut pos = l.game.start().clone();
        for mv in l.game.moves().into_iter().take(ply) {
            pos.play_unchecked(mv);
        }
        Ok(json!({ "id": l.row.id, "ply": ply, "fen": pos.fen() }))
    })
    .await?;
    ok(v)
}

/// The most alternative lines kept from one imported game.
const MAX_LINES: usize = 500;

/// `POST /api/import`: PGN (any notation), XQF, CBR/CBL, or a FEN; raw bytes in the body.
pub async fn import(State(app): AppState, RawQuery(q): RawQuery, body: Bytes) -> ApiResult {
    let q = parse_query(&q)?;
    known_params(&q, &["mode"])?;
    let mode = q.get("mode").map(String::as_str).unwrap_or("analysis");
    if !["two-player", "analysis"].contains(&mode) {
        return Err(ApiError::bad(format!(
            "query parameter 'mode' must be two-player or analysis, got '{mode}'"
        )));
    }
    if body.is_empty() {
        return Err(ApiError::bad(
            "nothing to import: the request body is empty",
        ));
    }
    let text = std::str::from_utf8(&body).ok().map(str::trim);
    // A single line that reads as a FEN is a position.
    let records: Vec<Result<GameRecord, String>> = match text {
        Some(t) if !t.contains('\n') && !t.starts_with('[') && t.contains('/') => {
            let t = t.strip_prefix("fen ").unwrap_or(t);
            let pos = parse_fen(t)?;
            vec![Ok(GameRecord {
                start: pos,
                ..GameRecord::default()
            })]
        }
        _ => {
            let bytes = body.to_vec();
            let all = tokio::task::spawn_blocking(move || xiangqi_record::detect::read_any(&bytes))
                .await
                .map_err(|e| ApiError::internal(format!("reading the record: {e}")))?
                .map_err(|e| ApiError::bad(format!("{e}")))?;
            all.games
                .into_iter()
                .map(|r| r.map_err(|e| e.to_string()))
                .collect()
        }
    };
    if records.len() > 500 {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "the file holds {} games; import at most 500 at once",
                records.len()
            ),
        ));
    }
    let mut games = Vec::new();
    let mut errors = Vec::new();
    for (i, r) in records.into_iter().enumerate() {
        let rec = match r {
            Ok(rec) => rec,
            Err(e) => {
                errors.push(json!({ "game": i + 1, "error": e }));
                continue;
            }
        };
        let mut game = Game::new(rec.start.clone());
        let mut moves = Vec::new();
        let mut bad = None;
        for (k, mv) in rec.mainline().enumerate() {
            if let Err(e) = game.push(mv) {
                bad = Some(format!("move {}: {e}", k + 1));
                break;
            }
            moves.push(mv.to_string());
        }
        if let Some(e) = bad {
            errors.push(json!({ "game": i + 1, "error": e }));
            continue;
        }
        let mut tags = Map::new();
        for (k, v) in &rec.tags {
            if k.len() <= 64 && v.len() <= 1000 {
                tags.insert(k.clone(), json!(v));
            }
        }
        // A recorded result the rules do not show (a resignation, say) is kept as declared.
        let mut row = GameRow {
            id: 0,
            created: now(),
            updated: now(),
            mode: mode.to_string(),
            human: String::new(),
            level: 0,
            start_fen: rec.start.fen(),
            tags: Value::Object(tags).to_string(),
            plies: moves.len() as i64,
            ..GameRow::default()
        };
        if game.outcome().is_none() {
            let declared = match rec.result {
                GameResult::RedWins => "resign-black",
                GameResult::BlackWins => "resign-red",
                GameResult::Draw => "draw",
                GameResult::Unknown => "",
            };
            row.declared = declared.into();
            row.declared_ply = moves.len() as i64;
            apply_declared(&mut game, &row);
        }
        let (result, reason) = result_cols(&game);
        row.result = result;
        row.reason = reason;
        // Variations are kept as alternative lines (at most MAX_LINES; a line is cut at a move
        // that is not legal).
        let mut all = Vec::new();
        lines_of(&rec.moves, &[], true, &mut all);
        all.truncate(MAX_LINES);
        let texts: Vec<String> = all.iter().map(|x| line_text(x)).collect();
        let lines = prune_lines(
            &game.moves(),
            crate::state::parse_lines(game.start(), &texts),
        );
        let id = app
            .store
            .write(Write::Create {
                row: row.clone(),
                moves,
                lines: lines.iter().map(|x| line_text(x)).collect(),
            })
            .await
            .map_err(ApiError::internal)?;
        row.id = id;
        games.push(summary_json(&row));
        app.insert(Loaded { row, game, lines });
    }
    if games.is_empty() {
        return Err(ApiError::bad("no game could be imported").with("errors", json!(errors)));
    }
    Ok((
        StatusCode::CREATED,
        Json(json!({ "games": games, "errors": errors })),
    )
        .into_response())
}
