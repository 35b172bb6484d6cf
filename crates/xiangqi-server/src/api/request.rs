//! Typed requests: the body, path and query of every endpoint as `serde` structs, read by
//! the extractors [`Body`], [`Query`] and [`GameId`]. Every way a request can be malformed
//! becomes an [`ApiError`] here, in one mapping (`from_value`), naming the field, parameter
//! or list index at fault.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Path, Request};
use axum::http::request::Parts;
use serde::de::{DeserializeOwned, Deserializer, Error as _, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};
use utoipa::{IntoParams, ToSchema};
use xiangqi::notation::Notation;
use xiangqi::Color;

use super::error::ApiError;
use crate::games::parse_color;
use crate::store::Mode;

// ---------------------------------------------------------------------------------------
// Extractors

/// A JSON object body read as `T` (an empty body is `{}`).
pub struct Body<T>(pub T);

/// The query string read as `T`.
pub struct Query<T>(pub T);

/// The `{id}` of a game's path: a positive whole number.
pub struct GameId(pub i64);

/// Where a malformed value was: the names differ in the messages.
#[derive(Clone, Copy)]
enum Source {
    Body,
    Query,
}

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let body = Bytes::from_request(req, state).await?;
        let map = body_object(&body)?;
        from_value(Value::Object(map), Source::Body).map(Body)
    }
}

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for Query<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let map = query_object(parts.uri.query())?;
        from_value(Value::Object(map), Source::Query).map(Query)
    }
}

impl<S: Send + Sync> FromRequestParts<S> for GameId {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Path(s) = Path::<String>::from_request_parts(parts, state).await?;
        s.parse::<i64>()
            .ok()
            .filter(|&n| n > 0)
            .map(GameId)
            .ok_or_else(|| ApiError::bad(format!("game id '{s}' is not a positive whole number")))
    }
}

/// A body of named fields, JSON or form-encoded (`application/x-www-form-urlencoded`, as
/// lichess's API takes them). A nested JSON object is flattened to dotted names
/// (`{"clock": {"limit": 60}}` is `clock.limit`); form values are strings (the second field
/// says the body was a form: there, and only there, a number may be written as text).
pub struct Fields(pub Map<String, Value>, pub bool);

impl<S: Send + Sync> FromRequest<S> for Fields {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let form = req
            .headers()
            .get(axum::http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"));
        let body = Bytes::from_request(req, state).await?;
        if form {
            let text = std::str::from_utf8(&body)
                .map_err(|e| ApiError::bad(format!("the request body is not UTF-8 text: {e}")))?;
            if !text.is_empty() && text.trim().is_empty() {
                return Err(ApiError::bad(
                    "the request body is blank: send no body, or fields",
                ));
            }
            return form_object(text).map(|m| Fields(m, true));
        }
        let mut out = Map::new();
        for (k, v) in body_object(&body)? {
            match v {
                // (An empty object stays a value of its own, so it is refused, not dropped.)
                Value::Object(inner) if !inner.is_empty() => {
                    for (k2, v2) in inner {
                        out.insert(format!("{k}.{k2}"), v2);
                    }
                }
                v => {
                    out.insert(k, v);
                }
            }
        }
        Ok(Fields(out, false))
    }
}

impl Fields {
    /// Refuses a field not in `known`, naming it.
    pub fn only(&self, known: &[&str]) -> Result<(), ApiError> {
        match self.0.keys().find(|k| !known.contains(&k.as_str())) {
            Some(k) => Err(ApiError::bad(format!(
                "unknown field '{k}' (expected one of: {})",
                known.join(", ")
            ))
            .field(k.clone())),
            None => Ok(()),
        }
    }

    /// A number (JSON number, or a form's text of one), if given.
    pub fn number(&self, name: &str) -> Result<Option<f64>, ApiError> {
        let bad = || ApiError::bad(format!("field '{name}' must be a number")).field(name);
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => n.as_f64().map(Some).ok_or_else(bad),
            Some(Value::String(_)) if !self.1 => Err(bad()),
            Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
            Some(Value::String(s)) => s.trim().parse().map(Some).map_err(|_| bad()),
            Some(_) => Err(bad()),
        }
    }

    /// A boolean (JSON `true`/`false`, or a form's text `true`/`false`), if given.
    pub fn flag(&self, name: &str) -> Result<Option<bool>, ApiError> {
        let bad = || ApiError::bad(format!("field '{name}' must be true or false")).field(name);
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(Value::String(s)) if self.1 => match s.trim() {
                "true" => Ok(Some(true)),
                "false" => Ok(Some(false)),
                "" => Ok(None),
                _ => Err(bad()),
            },
            Some(_) => Err(bad()),
        }
    }

    /// A string, if given.
    pub fn text(&self, name: &str) -> Result<Option<&str>, ApiError> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(ApiError::bad(format!("field '{name}' must be a string")).field(name)),
        }
    }
}

fn form_object(text: &str) -> Result<Map<String, Value>, ApiError> {
    let mut out = Map::new();
    for part in text.trim().split('&').filter(|p| !p.is_empty()) {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        let k =
            percent_decode(k).ok_or_else(|| ApiError::bad(format!("bad form field name '{k}'")))?;
        let v = percent_decode(v).ok_or_else(|| {
            ApiError::bad(format!(
                "form field '{k}' is not valid percent-encoded UTF-8"
            ))
            .field(k.clone())
        })?;
        out.insert(k, Value::String(v));
    }
    Ok(out)
}

/// Parses a JSON object body; an empty body (no bytes) is an empty object. A blank one
/// (whitespace only) is neither: it is refused as not JSON.
fn body_object(body: &[u8]) -> Result<Map<String, Value>, ApiError> {
    if body.is_empty() {
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

/// The query string's parameters as a JSON object of strings (the last of a repeated name).
fn query_object(q: Option<&str>) -> Result<Map<String, Value>, ApiError> {
    let mut out = Map::new();
    for part in q.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        let k = percent_decode(k)
            .ok_or_else(|| ApiError::bad(format!("bad query parameter name '{k}'")))?;
        let v = percent_decode(v).ok_or_else(|| {
            ApiError::bad(format!(
                "query parameter '{k}' is not valid percent-encoded UTF-8"
            ))
        })?;
        out.insert(k, Value::String(v));
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

/// Reads `T` from a JSON object; the one place a deserialization error becomes an API error.
///
/// serde's own messages (an unknown or missing field) are reworded; the field types below
/// say what they must be ("must be a string"), and the path of the error names the field
/// (`field 'ply' must be ...`, `query parameter 'limit' must be ...`) or the list element
/// (`moves[3] must be a string`, with its `index`).
fn from_value<T: DeserializeOwned>(v: Value, source: Source) -> Result<T, ApiError> {
    use serde_path_to_error::Segment;
    let err = match serde_path_to_error::deserialize::<_, T>(v) {
        Ok(t) => return Ok(t),
        Err(e) => e,
    };
    let msg = err.inner().to_string();
    let (noun, unknown_noun) = match source {
        Source::Body => ("field", "unknown field"),
        Source::Query => ("query parameter", "unknown query parameter"),
    };
    // serde writes "unknown field `NAME`, expected one of `a`, `b`" (or "expected `a` or `b`",
    // or "there are no fields"): the client's NAME may hold anything, the known names are ours
    // and hold no backquote, so the list is read from the end.
    if let Some(rest) = msg.strip_prefix("unknown field `") {
        let (name, expected) = match rest.rfind("`, expected ") {
            Some(k) => (&rest[..k], &rest[k..]),
            None => (
                rest.strip_suffix("`, there are no fields").unwrap_or(rest),
                "",
            ),
        };
        let expected: Vec<&str> = expected.split('`').skip(2).step_by(2).collect();
        let expected = expected.join(", ");
        let a = ApiError::bad(format!(
            "{unknown_noun} '{name}' (expected one of: {expected})"
        ));
        return Err(match source {
            Source::Body => a.field(name),
            Source::Query => a,
        });
    }
    if let Some(rest) = msg.strip_prefix("missing field `") {
        let name = rest.strip_suffix('`').unwrap_or(rest);
        let a = ApiError::bad(format!("{noun} '{name}' is missing"));
        return Err(match source {
            Source::Body => a.field(name),
            Source::Query => a,
        });
    }
    let what = match msg.split_once(", expected ") {
        Some((head, expected)) if head.starts_with("invalid type: ") => {
            format!("must be {expected}")
        }
        _ => msg,
    };
    let path = err.path().to_string();
    match err.path().iter().next_back() {
        Some(Segment::Seq { index }) => Err(ApiError::bad(format!("{path} {what}")).index(*index)),
        _ => match source {
            Source::Body => Err(ApiError::bad(format!("{noun} '{path}' {what}")).field(path)),
            Source::Query => Err(ApiError::bad(format!("{noun} '{path}' {what}"))),
        },
    }
}

// ---------------------------------------------------------------------------------------
// Field types: each reads a JSON value and says what it must be when it is not, and its
// schema (`PartialSchema`, `ToSchema`) says the same to the OpenAPI document, so that the
// request structs below are both the parser and the document.

use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, Schema, Type};
use utoipa::openapi::RefOr;
use utoipa::PartialSchema;

/// Implements `ToSchema` with `name` and `PartialSchema` with `schema`.
macro_rules! schema {
    ($t:ty, $name:expr, $schema:expr) => {
        impl PartialSchema for $t {
            fn schema() -> RefOr<Schema> {
                $schema
            }
        }
        impl ToSchema for $t {
            fn name() -> std::borrow::Cow<'static, str> {
                $name.into()
            }
        }
    };
}

/// A string schema.
fn string_schema() -> ObjectBuilder {
    ObjectBuilder::new().schema_type(Type::String)
}

/// A string that is one of `words`.
fn words_schema(words: &[&str], description: &str) -> RefOr<Schema> {
    string_schema()
        .enum_values(Some(words.iter().copied()))
        .description(Some(description))
        .into()
}

/// An array of strings, at most `max` long (none: any length).
fn strings_schema(max: Option<usize>) -> RefOr<Schema> {
    ArrayBuilder::new()
        .items(string_schema())
        .max_items(max)
        .into()
}

fn value<'de, D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
    Value::deserialize(d)
}

fn string<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    match value(d)? {
        Value::String(s) => Ok(s),
        _ => Err(D::Error::custom("must be a string")),
    }
}

/// A string.
pub struct Text(pub String);

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Text, D::Error> {
        string(d).map(Text)
    }
}

// A string.
schema!(Text, "Text", string_schema().into());

/// A whole number from `MIN` to `MAX`.
pub struct Int<const MIN: i64, const MAX: i64>(pub i64);

/// An integer from `MIN` to `MAX`.
impl<const MIN: i64, const MAX: i64> PartialSchema for Int<MIN, MAX> {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::Integer)
            .minimum(Some(MIN))
            .maximum(Some(MAX))
            .into()
    }
}

impl<const MIN: i64, const MAX: i64> ToSchema for Int<MIN, MAX> {
    fn name() -> std::borrow::Cow<'static, str> {
        format!("Int{MIN}to{MAX}").into()
    }
}

impl<'de, const MIN: i64, const MAX: i64> Deserialize<'de> for Int<MIN, MAX> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = value(d)?;
        // A whole number may be written as a float (`49.0`), as JSON Schema's `integer` has it.
        let whole = v.as_i64().or_else(|| {
            v.as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() <= 9.0e15)
                .map(|f| f as i64)
        });
        match whole {
            Some(n) if (MIN..=MAX).contains(&n) => Ok(Int(n)),
            _ => Err(D::Error::custom(format!(
                "must be a whole number from {MIN} to {MAX}, got {v}"
            ))),
        }
    }
}

/// A string that must be one of a few words: `parse` reads it, `expected` names them.
fn choice<'de, D: Deserializer<'de>, T>(
    d: D,
    parse: impl Fn(&str) -> Option<T>,
    expected: &str,
) -> Result<T, D::Error> {
    let s = string(d)?;
    parse(&s).ok_or_else(|| D::Error::custom(format!("must be {expected}, got '{s}'")))
}

/// A side: `red` or `black` (also `r`, `b`, `w`, `white`, any case).
pub struct Side(pub Color);

impl<'de> Deserialize<'de> for Side {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Side, D::Error> {
        choice(d, parse_color, "red or black").map(Side)
    }
}

schema!(
    Side,
    "Side",
    words_schema(
        &["red", "black"],
        "A side (`red` or `black`; `r`, `b`, `w`, `white` in any case are taken too)"
    )
);

/// A game mode: `computer`, `two-player` or `analysis`.
pub struct GameMode(pub Mode);

impl<'de> Deserialize<'de> for GameMode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<GameMode, D::Error> {
        choice(d, Mode::parse, "computer, two-player or analysis").map(GameMode)
    }
}

schema!(GameMode, "Mode", Mode::schema());

/// The mode of imported games: `two-player` or `analysis`.
pub struct ImportMode(pub Mode);

impl<'de> Deserialize<'de> for ImportMode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ImportMode, D::Error> {
        let parse = |s: &str| Mode::parse(s).filter(|&m| m != Mode::Computer);
        choice(d, parse, "two-player or analysis").map(ImportMode)
    }
}

schema!(
    ImportMode,
    "ImportMode",
    words_schema(&["two-player", "analysis"], "The mode of imported games")
);

/// A player's name: at most 100 characters.
pub struct Name(pub String);

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Name, D::Error> {
        let s = string(d)?;
        if s.chars().count() > 100 {
            return Err(D::Error::custom("is longer than 100 characters"));
        }
        Ok(Name(s))
    }
}

schema!(Name, "Name", string_schema().max_length(Some(100)).into());

/// A list of strings, at most `max` long, `expecting` what it must be.
struct Strings {
    max: usize,
    expecting: &'static str,
}

impl<'de> Visitor<'de> for Strings {
    type Value = Vec<String>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(self.expecting)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<String>, A::Error> {
        let mut out = Vec::new();
        while let Some(Text(s)) = seq.next_element()? {
            if out.len() == self.max {
                return Err(A::Error::custom(format!(
                    "has more than {} moves",
                    self.max
                )));
            }
            out.push(s);
        }
        Ok(out)
    }
}

/// Moves already played (any notation), at most 2000.
pub struct MoveList(pub Vec<String>);

impl<'de> Deserialize<'de> for MoveList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<MoveList, D::Error> {
        d.deserialize_seq(Strings {
            max: crate::games::create::MAX_MOVES,
            expecting: "an array of moves",
        })
        .map(MoveList)
    }
}

schema!(
    MoveList,
    "MoveList",
    strings_schema(Some(crate::games::create::MAX_MOVES))
);

/// A whole line in coordinates (as a game's `lines[].uci`).
pub struct Line(pub Vec<String>);

impl<'de> Deserialize<'de> for Line {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Line, D::Error> {
        d.deserialize_seq(Strings {
            max: usize::MAX,
            expecting: "an array of moves in coordinates",
        })
        .map(Line)
    }
}

schema!(Line, "Line", strings_schema(None));

/// A whole number from 0 to `MAX`, in a query parameter.
pub struct Count<const MAX: i64>(pub i64);

impl<'de, const MAX: i64> Deserialize<'de> for Count<MAX> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = string(d)?;
        s.parse::<i64>()
            .ok()
            .filter(|n| (0..=MAX).contains(n))
            .map(Count)
            .ok_or_else(|| {
                D::Error::custom(format!("must be a whole number from 0 to {MAX}, got '{s}'"))
            })
    }
}

impl<const MAX: i64> PartialSchema for Count<MAX> {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::Integer)
            .minimum(Some(0))
            .maximum(Some(MAX))
            .into()
    }
}

impl<const MAX: i64> ToSchema for Count<MAX> {
    fn name() -> std::borrow::Cow<'static, str> {
        format!("Count{MAX}").into()
    }
}

/// A notation for moves: `iccs`, `wxf` or `chinese`.
pub struct NotationParam(pub Notation);

impl<'de> Deserialize<'de> for NotationParam {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<NotationParam, D::Error> {
        choice(d, Notation::from_format_tag, "iccs, wxf or chinese").map(NotationParam)
    }
}

schema!(
    NotationParam,
    "Notation",
    words_schema(&["iccs", "wxf", "chinese"], "A notation for moves")
);

/// A required field that was absent or `null`.
pub fn missing(name: &str) -> ApiError {
    ApiError::bad(format!("field '{name}' is missing")).field(name)
}

// ---------------------------------------------------------------------------------------
// Requests

/// A number of moves (`ply`: how many the client believes were played; `at`).
pub type Ply = Int<0, 1_000_000>;

/// `POST /api/games`
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewGame {
    /// Default `two-player`.
    pub mode: Option<GameMode>,
    /// The human's side in computer mode (default `red`).
    pub human: Option<Side>,
    /// The engine's Skill Level in computer mode (default 3).
    pub level: Option<Int<0, 20>>,
    /// The start position.
    pub fen: Option<Text>,
    /// Moves already played, in any notation.
    pub moves: Option<MoveList>,
    pub red: Option<Name>,
    pub black: Option<Name>,
}

/// `POST /api/games/{id}/moves`
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PlayMove {
    /// The move in any notation. Required (`null` counts as missing).
    // (An `Option` so that `null` gets the message of a missing field; the document has it
    // required and not nullable, as the handler takes it.)
    #[serde(rename = "move")]
    #[schema(required, nullable = false)]
    pub mv: Option<Text>,
    /// The number of moves the client believes were played (`409` if not).
    pub ply: Option<Ply>,
    /// Analysis games: play after the first `at` main-line moves.
    pub at: Option<Ply>,
}

/// `POST /api/games/{id}/promote`
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Promote {
    /// A stored alternative line, whole, in coordinates. Required (`null` counts as missing).
    #[schema(required, nullable = false)]
    pub line: Option<Line>,
    pub ply: Option<Ply>,
}

/// `POST /api/games/{id}/note`
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SetNote {
    /// The move the note is on: the moves from the start position to it, in coordinates, of
    /// the main line or of a line; `[]` for a comment before the first move. Required.
    #[schema(required, nullable = false)]
    pub path: Option<Line>,
    /// The comment (at most 20,000 characters); `""` or absent removes it.
    pub comment: Option<String>,
    /// NAG numbers (`1` is `!`, `2` is `?`, ...); absent keeps those the move has.
    pub nags: Option<Vec<Int<0, 255>>>,
}

/// `POST /api/games/{id}/computer-move`
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ComputerMove {
    pub ply: Option<Ply>,
    pub movetime_ms: Option<Int<10, 10_000>>,
}

/// `POST /api/games/{id}/review`
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StartReview {
    /// The search depth of every position (default 10).
    pub depth: Option<Int<1, 16>>,
}

/// `POST /api/games/{id}/takeback`
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Takeback {
    /// Default 1.
    pub plies: Option<Int<1, 10_000>>,
    pub ply: Option<Ply>,
}

/// `POST /api/games/{id}/resign` and `/draw`
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SideOf {
    pub side: Option<Side>,
}

/// `GET /api/position`
#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct PositionQuery {
    /// The position to check.
    #[param(inline)]
    pub fen: Text,
}

/// `GET /api/games`
#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// Default 50.
    #[param(inline)]
    pub limit: Option<Count<500>>,
    #[param(inline)]
    pub offset: Option<Count<{ i64::MAX / 2 }>>,
}

/// `GET /api/games/{id}/pgn`
#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct PgnQuery {
    /// The moves' notation (default `iccs`).
    #[param(inline)]
    pub notation: Option<NotationParam>,
    /// Anything but `0` or `false` adds `Content-Disposition: attachment`.
    #[param(inline)]
    pub download: Option<Text>,
}

/// `GET /api/games/{id}/fen` (`ply` is checked against the game's length).
#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct FenQuery {
    /// After this many moves, at most the game's length (default: now).
    // (Read as text, not `Count`: the handler checks it against the game's length and names
    // that range in its message, which no type knows; so the schema is given here.)
    #[param(value_type = Option<i64>, minimum = 0)]
    pub ply: Option<Text>,
}

/// `POST /api/import`
#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ImportQuery {
    /// The imported games' mode (default `analysis`).
    #[param(inline)]
    pub mode: Option<ImportMode>,
}

/// A raw body (an uploaded file).
pub struct RawBody(pub Bytes);

impl<S: Send + Sync> FromRequest<S> for RawBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        Ok(RawBody(Bytes::from_request(req, state).await?))
    }
}
