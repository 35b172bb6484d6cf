//! How the JSON of a game is made: every answer of the API as a `Serialize` struct (a game,
//! a move, where a game stands, a game's line in the list, ...), built from a loaded game.

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;
use xiangqi::notation::Notation;
use xiangqi::{Game, Move, Position};

use super::explorer::OpeningJson;
use crate::games::{legal_moves, uci, Ending, ImportFailure, Loaded};
use crate::store::{GameRow, Mode, Verdict};

/// A move in every notation, with what it did (`fen`: the position after it).
#[derive(Serialize, ToSchema)]
pub struct MoveJson {
    pub uci: String,
    pub iccs: String,
    pub wxf: String,
    pub chinese: String,
    pub capture: bool,
    pub check: bool,
    pub fen: String,
    /// The opening named by the position after the move, when it is a named one (absent
    /// otherwise): a game's opening at a move is the last one given up to it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opening: Option<OpeningJson>,
}

impl MoveJson {
    /// Move `m` from `before` to `after`.
    pub fn new(before: &Position, m: Move, after: &Position, capture: bool) -> MoveJson {
        MoveJson {
            uci: uci(m),
            iccs: xiangqi::UciMove::from_move(m).to_iccs(),
            wxf: Notation::Wxf.write(before, m),
            chinese: Notation::Chinese.write(before, m),
            capture,
            check: after.is_check(),
            fen: after.fen(),
            opening: xiangqi_explorer::opening_of(after).map(OpeningJson::of),
        }
    }

    /// Move `m` played in `pos`.
    pub fn played(pos: &Position, m: Move) -> MoveJson {
        let mut after = pos.clone();
        let capture = after.play_unchecked(m).is_some();
        MoveJson::new(pos, m, &after, capture)
    }

    /// Move number `ply` (from 1) of `game`.
    pub fn of_game(game: &Game, ply: usize) -> Option<MoveJson> {
        let h = game.history();
        let m = h.move_at(ply)?;
        Some(MoveJson::new(
            h.position_at(ply - 1),
            m,
            h.position_at(ply),
            h.captured_at(ply).is_some(),
        ))
    }
}

/// A position as the API shows it: whose turn, check, the legal moves, how it ended.
#[derive(Serialize, ToSchema)]
pub struct BoardJson {
    pub fen: String,
    pub turn: &'static str,
    pub check: bool,
    pub legal: Vec<String>,
    /// How the game ended (`null` while it goes on).
    #[schema(required)]
    pub outcome: Option<Ending>,
}

/// Where a game stands: the number of moves played and the position now (no legal moves once
/// the game is over).
#[derive(Serialize, ToSchema)]
pub struct NowJson {
    pub ply: usize,
    #[serde(flatten)]
    pub board: BoardJson,
}

impl NowJson {
    pub fn of(game: &Game) -> NowJson {
        let outcome = Ending::of(game);
        let over = outcome.is_some();
        NowJson {
            ply: game.len(),
            board: BoardJson::of(game.position(), outcome, over),
        }
    }
}

impl BoardJson {
    fn of(pos: &Position, outcome: Option<Ending>, over: bool) -> BoardJson {
        BoardJson {
            fen: pos.fen(),
            turn: pos.turn().name(),
            check: pos.is_check(),
            legal: if over { Vec::new() } else { legal_moves(pos) },
            outcome,
        }
    }

    /// `GET /api/position`: a position on its own (its legal moves even if a game from it
    /// would be over at once).
    pub fn position(pos: Position) -> BoardJson {
        let outcome = Ending::of(&Game::new(pos.clone()));
        BoardJson::of(&pos, outcome, false)
    }
}

/// The answer to a move played at the end of the main line.
#[derive(Serialize, ToSchema)]
pub struct MoveReply {
    pub id: i64,
    /// The last move (`null` when no move has been played).
    #[serde(rename = "move")]
    #[schema(required)]
    pub mv: Option<MoveJson>,
    #[serde(flatten)]
    pub now: NowJson,
}

impl MoveReply {
    /// The game's last move and where the game stands after it.
    pub fn of(l: &Loaded) -> MoveReply {
        MoveReply {
            id: l.row.id,
            mv: MoveJson::of_game(&l.game, l.game.len()),
            now: NowJson::of(&l.game),
        }
    }
}

/// An alternative line from where it leaves the main line (`ply`: the main-line moves it
/// shares), with the whole line in `uci`.
#[derive(Serialize, ToSchema)]
pub struct LineJson {
    pub ply: usize,
    pub moves: Vec<MoveJson>,
    pub uci: Vec<String>,
}

/// What the game list and the full game both tell of a game's settings.
#[derive(Serialize, ToSchema)]
pub struct Settings {
    pub id: i64,
    pub mode: Mode,
    /// The human's side in computer mode, else `null`.
    #[schema(required)]
    pub human: Option<&'static str>,
    pub level: i64,
    pub created: i64,
    pub updated: i64,
    pub start_fen: String,
}

impl Settings {
    pub fn of(row: &GameRow) -> Settings {
        Settings {
            id: row.id,
            mode: row.mode,
            human: row.human.map(|c| c.name()),
            level: row.level,
            created: row.created,
            updated: row.updated,
            start_fen: row.start_fen.clone(),
        }
    }
}

/// A game in full: its settings, every move in three notations, its alternative lines, and
/// where it stands.
#[derive(Serialize, ToSchema)]
pub struct GameJson {
    #[serde(flatten)]
    pub settings: Settings,
    /// The record's tags (`Red`, `Black`, `Event`, ...), names to strings.
    #[schema(value_type = Object)]
    pub tags: Value,
    pub moves: Vec<MoveJson>,
    pub lines: Vec<LineJson>,
    /// The comments and NAGs of the record at its moves, by path: the moves from the start
    /// to the move in coordinates separated by spaces (`""`: before the first move), of the
    /// main line or of a line. `{}` when there are none.
    #[schema(value_type = Object)]
    pub notes: Value,
    #[serde(flatten)]
    pub now: NowJson,
}

fn notes_value(l: &Loaded) -> Value {
    let mut m = serde_json::Map::new();
    for (path, n) in crate::games::notes::shown(l) {
        m.insert(
            path.clone(),
            serde_json::json!({ "comment": n.text, "nags": n.nags }),
        );
    }
    Value::Object(m)
}

fn tags_value(row: &GameRow) -> Value {
    serde_json::from_str(&row.tags).unwrap_or_else(|_| Value::Object(Default::default()))
}

impl GameJson {
    pub fn of(l: &Loaded) -> GameJson {
        GameJson {
            settings: Settings::of(&l.row),
            tags: tags_value(&l.row),
            moves: (1..=l.game.len())
                .filter_map(|k| MoveJson::of_game(&l.game, k))
                .collect(),
            lines: lines_json(l),
            notes: notes_value(l),
            now: NowJson::of(&l.game),
        }
    }
}

/// The alternative lines of a game as the UI shows them (each once, from where it leaves the
/// main line).
fn lines_json(l: &Loaded) -> Vec<LineJson> {
    let main = l.game.moves();
    let mut out = Vec::new();
    for line in &l.lines {
        if main.starts_with(line) {
            continue;
        }
        let d = line.iter().zip(&main).take_while(|(a, b)| a == b).count();
        let mut pos = l.game.history().position_at(d).clone();
        let mut moves = Vec::with_capacity(line.len() - d);
        for &m in &line[d..] {
            moves.push(MoveJson::played(&pos, m));
            pos.play_unchecked(m);
        }
        out.push(LineJson {
            ply: d,
            moves,
            uci: line.iter().map(|&m| uci(m)).collect(),
        });
    }
    out
}

/// A game's line in the game list.
#[derive(Serialize, ToSchema)]
pub struct Summary {
    #[serde(flatten)]
    pub settings: Settings,
    pub plies: i64,
    #[schema(required)]
    pub result: Option<Verdict>,
    #[schema(required)]
    pub reason: Option<String>,
    #[schema(value_type = Option<String>, required)]
    pub red: Value,
    #[schema(value_type = Option<String>, required)]
    pub black: Value,
    #[schema(value_type = Option<String>, required)]
    pub event: Value,
}

impl Summary {
    pub fn of(row: &GameRow) -> Summary {
        let tags = tags_value(row);
        let tag = |k: &str| tags.get(k).cloned().unwrap_or(Value::Null);
        Summary {
            settings: Settings::of(row),
            plies: row.plies,
            result: row.result,
            reason: Some(row.reason.clone()).filter(|r| !r.is_empty()),
            red: tag("Red"),
            black: tag("Black"),
            event: tag("Event"),
        }
    }
}

/// `GET /api/games`
#[derive(Serialize, ToSchema)]
pub struct GameList {
    pub total: i64,
    pub games: Vec<Summary>,
}

/// `GET /api/health`
#[derive(Serialize, ToSchema)]
pub struct Health {
    pub ok: bool,
    pub version: &'static str,
}

/// `DELETE /api/games/{id}`
#[derive(Serialize, ToSchema)]
pub struct Deleted {
    pub deleted: i64,
}

/// `GET /api/games/{id}/fen`
#[derive(Serialize, ToSchema)]
pub struct FenJson {
    pub id: i64,
    pub ply: usize,
    pub fen: String,
}

/// `POST /api/games/{id}/draw`
#[derive(Serialize, ToSchema)]
pub struct DrawReply {
    pub accepted: bool,
    pub why: &'static str,
    /// Why, as a code: `agreed` (not against the computer), `opening` (the computer never
    /// accepts in the opening), `not-better` (accepted: its evaluation is dead equal or worse
    /// for it), `better` (declined).
    pub code: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game: Option<GameJson>,
}

/// `POST /api/import`
#[derive(Serialize, ToSchema)]
pub struct ImportReply {
    pub games: Vec<Summary>,
    pub errors: Vec<ImportFailure>,
    /// What was left out of imported games (a variation dropped from an illegal move on),
    /// each naming its game and place in the file, as `xiangqi convert` prints them.
    pub warnings: Vec<String>,
}

/// `POST /api/games/{id}/moves`: the move answer, or (a move with `at` before the end) the
/// game.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
pub enum MoveOrGame {
    Move(MoveReply),
    Game(GameJson),
}
