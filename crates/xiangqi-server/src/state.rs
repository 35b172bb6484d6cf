//! Games in memory: each loaded game sits behind its own lock, so moves to one game are
//! checked and stored one at a time while different games proceed side by side.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{json, Map, Value};
use xiangqi::notation::Notation;
use xiangqi::{Color, Game, Move, Position};

use crate::store::{GameRow, Store};

/// A game as the server holds it: the stored row, the game replayed from its moves, and the
/// alternative lines kept beside the main line (analysis variations; each a whole line from
/// the start position).
pub struct Loaded {
    pub row: GameRow,
    pub game: Game,
    pub lines: Vec<Vec<Move>>,
}

/// How many games are kept in memory before idle ones are dropped.
const MAX_CACHED: usize = 4096;

pub type Slot = Arc<tokio::sync::Mutex<Option<Loaded>>>;

/// Shared server state.
pub struct App {
    pub store: Store,
    games: Mutex<HashMap<i64, Slot>>,
    /// Bounds the engine searches run at once for computer moves and draw offers.
    pub engine_slots: tokio::sync::Semaphore,
}

pub fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

pub fn color_name(c: Color) -> &'static str {
    c.name()
}

pub fn parse_color(s: &str) -> Option<Color> {
    match s.trim().to_ascii_lowercase().as_str() {
        "red" | "r" | "w" | "white" => Some(Color::Red),
        "black" | "b" => Some(Color::Black),
        _ => None,
    }
}

/// Replays a stored game. A stored move that is not legal (a damaged file) ends the replay
/// with an error naming the move.
pub fn replay(row: &GameRow, moves: &[String]) -> Result<Game, String> {
    let start = Position::from_fen(&row.start_fen)
        .map_err(|e| format!("game {}: stored start FEN is bad: {e}", row.id))?;
    let mut game = Game::new(start);
    for (i, m) in moves.iter().enumerate() {
        game.push_uci(m)
            .map_err(|e| format!("game {}: stored move {} ({m}): {e}", row.id, i + 1))?;
    }
    apply_declared(&mut game, row);
    Ok(game)
}

/// Reads stored alternative lines. A line is kept up to its first move that is not legal (a
/// damaged file loses only the rest of that line).
pub fn parse_lines(start: &Position, lines: &[String]) -> Vec<Vec<Move>> {
    let mut out = Vec::new();
    for l in lines {
        let mut pos = start.clone();
        let mut line = Vec::new();
        for t in l.split_whitespace() {
            match pos.parse_uci(t) {
                Ok(m) if pos.is_legal(m) => {
                    pos.play_unchecked(m);
                    line.push(m);
                }
                _ => break,
            }
        }
        out.push(line);
    }
    out
}

/// A line as stored: moves in coordinates separated by spaces.
pub fn line_text(line: &[Move]) -> String {
    line.iter().map(|&m| uci(m)).collect::<Vec<_>>().join(" ")
}

/// The alternative lines worth keeping beside `main`: no empty line, no repeat, none that is
/// the beginning of the main line or of another line (first occurrence order kept).
pub fn prune_lines(main: &[Move], lines: Vec<Vec<Move>>) -> Vec<Vec<Move>> {
    let mut out: Vec<Vec<Move>> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let redundant = l.is_empty()
            || main.starts_with(l)
            || out.contains(l)
            || lines
                .iter()
                .enumerate()
                .any(|(j, o)| j != i && o.len() > l.len() && o.starts_with(l));
        if !redundant {
            out.push(l.clone());
        }
    }
    out
}

pub fn apply_declared(game: &mut Game, row: &GameRow) {
    game.clear_declared();
    if row.declared.is_empty() || row.declared_ply != game.len() as i64 {
        return;
    }
    match row.declared.as_str() {
        "resign-red" => game.resign(Color::Red),
        "resign-black" => game.resign(Color::Black),
        "draw" => game.agree_draw(),
        _ => {}
    }
}

/// The derived result columns of a game: (`result`, `reason`).
pub fn result_cols(game: &Game) -> (String, String) {
    match game.outcome() {
        Some(o) => (o.verdict().to_string(), o.reason.as_str().to_string()),
        None => (String::new(), String::new()),
    }
}

impl App {
    pub fn new(store: Store) -> App {
        App {
            store,
            games: Mutex::new(HashMap::new()),
            engine_slots: tokio::sync::Semaphore::new(2),
        }
    }

    /// The slot of game `id` (loading it on first use); `None` if there is no such game.
    pub async fn slot(&self, id: i64) -> Result<Option<Slot>, String> {
        let slot = {
            let mut map = self.games.lock().unwrap_or_else(|p| p.into_inner());
            if map.len() >= MAX_CACHED && !map.contains_key(&id) {
                // Forget games nobody is using; they are read again from the store when needed.
                map.retain(|_, s| Arc::strong_count(s) > 1);
            }
            map.entry(id)
                .or_insert_with(|| Arc::new(tokio::sync::Mutex::new(None)))
                .clone()
        };
        {
            let mut g = slot.lock().await;
            if g.is_none() {
                match self.store.load(id).await? {
                    Some((row, moves, lines)) => {
                        let game = replay(&row, &moves)?;
                        let lines = parse_lines(game.start(), &lines);
                        *g = Some(Loaded { row, game, lines });
                    }
                    None => {
                        drop(g);
                        self.forget(id);
                        return Ok(None);
                    }
                }
            }
        }
        Ok(Some(slot))
    }

    /// Drops a game from memory (after deleting it, or when it is not found).
    pub fn forget(&self, id: i64) {
        let mut map = self.games.lock().unwrap_or_else(|p| p.into_inner());
        map.remove(&id);
    }

    /// Puts a freshly created game in memory.
    pub fn insert(&self, loaded: Loaded) {
        let id = loaded.row.id;
        let mut map = self.games.lock().unwrap_or_else(|p| p.into_inner());
        map.insert(id, Arc::new(tokio::sync::Mutex::new(Some(loaded))));
    }
}

/// The three notations of a move in `pos`.
pub fn move_json(pos: &Position, m: Move) -> Value {
    let mut after = pos.clone();
    let capture = after.play_unchecked(m).is_some();
    json!({
        "uci": uci(m),
        "iccs": xiangqi::UciMove::from_move(m).to_iccs(),
        "wxf": Notation::Wxf.write(pos, m),
        "chinese": Notation::Chinese.write(pos, m),
        "capture": capture,
        "check": after.is_check(),
        "fen": after.fen(),
    })
}

/// A move in coordinates (`h2e2`), without the formatting machinery (this is on the hot path).
pub fn uci(m: Move) -> String {
    let (a, b) = (m.from(), m.to());
    let mut s = String::with_capacity(4);
    s.push(a.file().char());
    s.push(a.rank().char());
    s.push(b.file().char());
    s.push(b.rank().char());
    s
}

pub fn legal_json(pos: &Position) -> Vec<String> {
    let mut v: Vec<String> = pos.legal_moves().iter().map(|&m| uci(m)).collect();
    v.sort_unstable();
    v
}

pub fn outcome_json(game: &Game) -> Value {
    match (game.outcome(), game.ruling()) {
        (Some(o), Some(r)) => json!({
            "winner": o.winner.map(color_name),
            "result": o.verdict(),
            "reason": o.reason.as_str(),
            "text": r.to_string(),
            "text_zh": r.text(game, xiangqi::prose::Lang::Zh),
        }),
        _ => Value::Null,
    }
}

/// Where the game stands now: position, legal moves, check, outcome.
pub fn now_json(game: &Game) -> Map<String, Value> {
    let pos = game.position();
    let mut m = Map::new();
    m.insert("ply".into(), json!(game.len()));
    m.insert("fen".into(), json!(pos.fen()));
    m.insert("turn".into(), json!(color_name(pos.turn())));
    m.insert("check".into(), json!(pos.is_check()));
    m.insert(
        "legal".into(),
        json!(if game.outcome().is_some() {
            Vec::new()
        } else {
            legal_json(pos)
        }),
    );
    m.insert("outcome".into(), outcome_json(game));
    m
}

pub fn tags_value(row: &GameRow) -> Value {
    serde_json::from_str(&row.tags).unwrap_or_else(|_| json!({}))
}

/// A game in full: its settings, every move in three notations, and where it stands.
pub fn game_json(l: &Loaded) -> Value {
    let row = &l.row;
    let mut pos = l.game.start().clone();
    let mut moves = Vec::with_capacity(l.game.len());
    for m in l.game.moves() {
        moves.push(move_json(&pos, m));
        pos.play_unchecked(m);
    }
    let mut v = now_json(&l.game);
    v.insert("id".into(), json!(row.id));
    v.insert("mode".into(), json!(row.mode));
    v.insert(
        "human".into(),
        if row.human.is_empty() {
            Value::Null
        } else {
            json!(row.human)
        },
    );
    v.insert("level".into(), json!(row.level));
    v.insert("created".into(), json!(row.created));
    v.insert("updated".into(), json!(row.updated));
    v.insert("start_fen".into(), json!(row.start_fen));
    v.insert("tags".into(), tags_value(row));
    v.insert("moves".into(), Value::Array(moves));
    v.insert("lines".into(), lines_json(l));
    Value::Object(v)
}

/// The alternative lines of a game as the UI shows them: each from where it leaves the main
/// line (`ply`: the number of main-line moves it shares), with the whole line in `uci`.
pub fn lines_json(l: &Loaded) -> Value {
    let main = l.game.moves();
    let mut out = Vec::new();
    for line in &l.lines {
        if main.starts_with(line) {
            continue;
        }
        let d = line.iter().zip(&main).take_while(|(a, b)| a == b).count();
        let mut pos = l.game.start().clone();
        let mut moves = Vec::new();
        for (i, &m) in line.iter().enumerate() {
            if i >= d {
                moves.push(move_json(&pos, m));
            }
            pos.play_unchecked(m);
        }
        out.push(json!({
            "ply": d,
            "moves": moves,
            "uci": line.iter().map(|&m| uci(m)).collect::<Vec<_>>(),
        }));
    }
    Value::Array(out)
}

/// A game's line in the game list.
pub fn summary_json(row: &GameRow) -> Value {
    let tags = tags_value(row);
    json!({
        "id": row.id,
        "mode": row.mode,
        "human": if row.human.is_empty() { Value::Null } else { json!(row.human) },
        "level": row.level,
        "created": row.created,
        "updated": row.updated,
        "plies": row.plies,
        "result": if row.result.is_empty() { Value::Null } else { json!(row.result) },
        "reason": if row.reason.is_empty() { Value::Null } else { json!(row.reason) },
        "start_fen": row.start_fen,
        "red": tags.get("Red").cloned().unwrap_or(Value::Null),
        "black": tags.get("Black").cloned().unwrap_or(Value::Null),
        "event": tags.get("Event").cloned().unwrap_or(Value::Null),
    })
}
