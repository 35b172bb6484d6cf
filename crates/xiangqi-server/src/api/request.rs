//! Typed requests: the body, path and query of every endpoint as `serde` structs, read by
//! the extractors [`Body`], [`Query`] and [`GameId`]. Every way a request can be malformed
//! becomes an [`ApiError`] here, in one mapping (`from_value`), naming the field, parameter
//! or list index at fault.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Path, Request};
use axum::http::request::Parts;
use serde::de::{
    DeserializeOwned, Deserializer, Error as _, IntoDeserializer, MapAccess, SeqAccess, Unexpected,
    Visitor,
};
use serde::Deserialize;
use serde_json::{Map, Value};
use utoipa::{IntoParams, ToSchema};
use xiangqi::notation::Notation;
use xiangqi::Color;

use super::error::ApiError;
use crate::games::parse_color;
use crate::online::lobby::SideWish;
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

/// A body of named fields read as `T`, JSON or form-encoded (`application/x-www-form-urlencoded`,
/// as lichess's API takes them). A dotted name is a field of an object: the form's
/// `clock.limit=60` is the JSON `{"clock": {"limit": 60}}` (a JSON body may use the dotted
/// name too). A form's values are text: there, and only there, a number or a `true`/`false`
/// may be written as text (the field types read them with [`number`] and [`flag`]).
pub struct JsonOrForm<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonOrForm<T> {
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
            let fields = form_fields(text)?;
            return read(FormValue::Group(fields), Source::Body).map(JsonOrForm);
        }
        let mut out = Map::new();
        for (k, v) in body_object(&body)? {
            match k.split_once('.') {
                Some((head, rest)) => match out
                    .entry(head.to_owned())
                    .or_insert_with(|| Value::Object(Map::new()))
                {
                    Value::Object(inner) => {
                        inner.insert(rest.to_owned(), v);
                    }
                    _ => return Err(conflict(&k, head)),
                },
                None => match (out.get_mut(&k), v) {
                    // (`"clock.limit"` came first: `"clock"` adds to it.)
                    (Some(Value::Object(inner)), Value::Object(more)) => inner.extend(more),
                    (Some(_), _) => return Err(conflict(&k, &k)),
                    (None, v) => {
                        out.insert(k, v);
                    }
                },
            }
        }
        from_value(Value::Object(out), Source::Body).map(JsonOrForm)
    }
}

/// A dotted field given with a field of its first name that is not an object.
fn conflict(name: &str, head: &str) -> ApiError {
    ApiError::bad(format!(
        "field '{name}' and field '{head}' cannot both be given unless '{head}' is an object"
    ))
    .field(name)
}

/// A form's value: a field's text, or the fields of a dotted name's first part.
enum FormValue {
    Text(String),
    Group(Vec<(String, FormValue)>),
}

/// The form's fields, the dotted ones grouped by their first name (`clock.limit=60` is
/// `clock` of `limit`); of a repeated name, the last.
fn form_fields(text: &str) -> Result<Vec<(String, FormValue)>, ApiError> {
    fn put(fields: &mut Vec<(String, FormValue)>, k: &str, v: FormValue) {
        match fields.iter_mut().find(|(name, _)| name == k) {
            Some(slot) => slot.1 = v,
            None => fields.push((k.to_owned(), v)),
        }
    }
    let mut out: Vec<(String, FormValue)> = Vec::new();
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
        let Some((head, rest)) = k.split_once('.') else {
            if matches!(
                out.iter().find(|(name, _)| *name == k),
                Some((_, FormValue::Group(_)))
            ) {
                return Err(conflict(&k, &k));
            }
            put(&mut out, &k, FormValue::Text(v));
            continue;
        };
        match out.iter_mut().find(|(name, _)| name == head) {
            Some((_, FormValue::Group(inner))) => put(inner, rest, FormValue::Text(v)),
            Some((_, FormValue::Text(_))) => return Err(conflict(&k, head)),
            None => out.push((
                head.to_owned(),
                FormValue::Group(vec![(rest.to_owned(), FormValue::Text(v))]),
            )),
        }
    }
    Ok(out)
}

/// A form's values as serde reads them: text is a string, except where a number or a
/// boolean is asked for (by [`number`] and [`flag`]): there it is read as one (blank: none).
impl<'de> Deserializer<'de> for FormValue {
    type Error = serde::de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
        match self {
            FormValue::Text(s) => v.visit_string(s),
            FormValue::Group(fields) => {
                let mut map = serde::de::value::MapDeserializer::new(fields.into_iter());
                let out = v.visit_map(&mut map)?;
                map.end()?;
                Ok(out)
            }
        }
    }

    // A form has no `null`: a field given is some value.
    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
        v.visit_some(self)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
        match &self {
            FormValue::Text(s) if s.trim().is_empty() => v.visit_none(),
            FormValue::Text(s) => match s.trim().parse::<f64>() {
                Ok(n) => v.visit_f64(n),
                Err(_) => Err(Self::Error::invalid_type(Unexpected::Str(s), &v)),
            },
            FormValue::Group(_) => Err(Self::Error::invalid_type(Unexpected::Map, &v)),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
        match &self {
            FormValue::Text(s) => match s.trim() {
                "true" => v.visit_bool(true),
                "false" => v.visit_bool(false),
                "" => v.visit_none(),
                _ => Err(Self::Error::invalid_type(Unexpected::Str(s), &v)),
            },
            FormValue::Group(_) => Err(Self::Error::invalid_type(Unexpected::Map, &v)),
        }
    }

    // A word naming one of an enum's unit variants (`room=spectator`), as JSON's string does.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Self::Error> {
        match self {
            FormValue::Text(s) => v.visit_enum(s.into_deserializer()),
            FormValue::Group(_) => Err(Self::Error::invalid_type(Unexpected::Map, &v)),
        }
    }

    serde::forward_to_deserialize_any! {
        i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 char str string bytes byte_buf unit
        unit_struct newtype_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

impl<'de> IntoDeserializer<'de, serde::de::value::Error> for FormValue {
    type Deserializer = FormValue;

    fn into_deserializer(self) -> FormValue {
        self
    }
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

/// Reads `T` from a JSON object.
fn from_value<T: DeserializeOwned>(v: Value, source: Source) -> Result<T, ApiError> {
    read(v, source)
}

/// Reads `T` from a JSON object or a form; the one place a deserialization error becomes an
/// API error.
///
/// serde's own messages (an unknown or missing field) are reworded; the field types below
/// say what they must be ("must be a string"), and the path of the error names the field
/// (`field 'ply' must be ...`, `field 'clock.limit' must be ...`, `query parameter 'limit'
/// must be ...`) or the list element (`moves[3] must be a string`, with its `index`).
fn read<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
    source: Source,
) -> Result<T, ApiError> {
    use serde_path_to_error::Segment;
    let err = match serde_path_to_error::deserialize::<_, T>(d) {
        Ok(t) => return Ok(t),
        Err(e) => e,
    };
    let msg = err.inner().to_string();
    let (noun, unknown_noun) = match source {
        Source::Body => ("field", "unknown field"),
        Source::Query => ("query parameter", "unknown query parameter"),
    };
    // The dotted name of the object the error is in (`clock.`; none at the top).
    let within =
        |segments: &[Segment]| -> String { segments.iter().map(|s| format!("{s}.")).collect() };
    let segments: Vec<Segment> = err.path().iter().cloned().collect();
    // serde writes "unknown field `NAME`, expected one of `a`, `b`" (or "expected `a` or `b`",
    // or "there are no fields"): the client's NAME may hold anything, the known names are ours
    // and hold no backquote, so the list is read from the end. The path ends with NAME.
    if let Some(rest) = msg.strip_prefix("unknown field `") {
        let (name, expected) = match rest.rfind("`, expected ") {
            Some(k) => (&rest[..k], &rest[k..]),
            None => (
                rest.strip_suffix("`, there are no fields").unwrap_or(rest),
                "",
            ),
        };
        let prefix = within(&segments[..segments.len().saturating_sub(1)]);
        let name = format!("{prefix}{name}");
        let expected: Vec<String> = expected
            .split('`')
            .skip(2)
            .step_by(2)
            .map(|e| format!("{prefix}{e}"))
            .collect();
        let expected = expected.join(", ");
        let a = ApiError::bad(format!(
            "{unknown_noun} '{name}' (expected one of: {expected})"
        ));
        return Err(match source {
            Source::Body => a.field(name),
            Source::Query => a,
        });
    }
    // (Here the path is the object's that misses it.)
    if let Some(rest) = msg.strip_prefix("missing field `") {
        let name = rest.strip_suffix('`').unwrap_or(rest);
        let name = format!("{}{name}", within(&segments));
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
    match segments.last() {
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

/// A number, if given (`null`: none): a JSON number, or a form's text of one (blank: none).
/// A field's `deserialize_with` (with `default`).
pub fn number<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    struct Number;
    impl<'de> Visitor<'de> for Number {
        type Value = Option<f64>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a number")
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Option<f64>, E> {
            Ok(None)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<f64>, D::Error> {
            d.deserialize_f64(Number)
        }
        fn visit_f64<E: serde::de::Error>(self, n: f64) -> Result<Option<f64>, E> {
            Ok(Some(n))
        }
        fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<Option<f64>, E> {
            Ok(Some(n as f64))
        }
        fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<Option<f64>, E> {
            Ok(Some(n as f64))
        }
    }
    d.deserialize_option(Number)
}

/// `true` or `false`, if given (`null`: none): JSON's, or a form's text of one (blank: none).
/// A field's `deserialize_with` (with `default`).
pub fn flag<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    struct Flag;
    impl<'de> Visitor<'de> for Flag {
        type Value = Option<bool>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("true or false")
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Option<bool>, E> {
            Ok(None)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<bool>, D::Error> {
            d.deserialize_bool(Flag)
        }
        fn visit_bool<E: serde::de::Error>(self, b: bool) -> Result<Option<bool>, E> {
            Ok(Some(b))
        }
    }
    d.deserialize_option(Flag)
}

/// The side a player wants: `red`, `black` or `random`.
pub struct Wish(pub SideWish);

impl<'de> Deserialize<'de> for Wish {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Wish, D::Error> {
        let s = string(d)?;
        SideWish::parse(&s)
            .map(Wish)
            .ok_or_else(|| D::Error::custom(format!("must be red, black or random, not '{s}'")))
    }
}

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
    #[schema(max_length = 20_000)]
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

/// `GET /api/tablebase`, in lichess's tablebase manner.
#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct TablebaseQuery {
    /// The position (any material; `unknown` where no table holds it).
    #[param(inline)]
    pub fen: Text,
}

/// `GET /api/explorer/{db}`, in lila-openingexplorer's manner.
#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ExplorerQuery {
    /// The position (default: the start position).
    #[param(inline)]
    pub fen: Option<Text>,
    /// Moves played from it first: UCI, separated by commas (`h2e2,h9g7`).
    #[param(inline)]
    pub play: Option<Text>,
    /// `site`: the speeds, separated by commas (bullet, blitz, rapid, classical,
    /// correspondence; default all).
    #[param(inline)]
    pub speeds: Option<Text>,
    /// `site`: the rating bands by their lower bound, separated by commas (0, 1000, 1200,
    /// 1400, 1600, 1800, 2000, 2200, 2500; default all).
    #[param(inline)]
    pub ratings: Option<Text>,
    /// `player`: the account (required there).
    #[param(inline)]
    pub player: Option<Text>,
    /// `player`: the colour the player had (default red).
    #[param(inline)]
    pub color: Option<Side>,
    /// How many moves, most played first (default 12).
    #[param(inline)]
    pub moves: Option<Count<50>>,
    /// How many of the highest-rated games (default 4).
    #[serde(rename = "topGames")]
    #[param(inline, rename = "topGames")]
    pub top_games: Option<Count<15>>,
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

// ---------------------------------------------------------------------------------------
// Bodies of named fields, JSON or form-encoded ([`JsonOrForm`]). A form's field names are
// the dotted ones (`clock.limit`); the document's form schemas are made from these
// (`openapi::FormBodies`).

/// A clock, in seconds: `limit` and `increment`. Not empty (`{"clock": {}}` is refused;
/// `minProperties` and `additionalProperties` are set in `openapi::NonEmptyClock`).
// (Read by hand, not derived: an empty object is refused, which no attribute says.)
#[derive(ToSchema)]
pub struct ClockFields {
    /// The initial time, at most 3 hours.
    #[schema(minimum = 0, maximum = 10_800)]
    pub limit: Option<f64>,
    /// The increment, at most 180 s.
    #[schema(minimum = 0, maximum = 180)]
    pub increment: Option<f64>,
}

impl<'de> Deserialize<'de> for ClockFields {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ClockFields, D::Error> {
        struct Seconds(Option<f64>);
        impl<'de> Deserialize<'de> for Seconds {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Seconds, D::Error> {
                number(d).map(Seconds)
            }
        }
        struct Clock;
        impl<'de> Visitor<'de> for Clock {
            type Value = ClockFields;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of limit and increment")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<ClockFields, A::Error> {
                // (A key not one of these is refused as it is read, so the error's path
                // ends with it, as a derived struct's does.)
                #[derive(Deserialize)]
                #[serde(field_identifier, rename_all = "lowercase")]
                enum Field {
                    Limit,
                    Increment,
                }
                let mut c = ClockFields {
                    limit: None,
                    increment: None,
                };
                let mut empty = true;
                while let Some(k) = m.next_key::<Field>()? {
                    empty = false;
                    let Seconds(n) = m.next_value()?;
                    match k {
                        Field::Limit => c.limit = n,
                        Field::Increment => c.increment = n,
                    }
                }
                if empty {
                    return Err(A::Error::custom(
                        "is an empty object: give clock.limit or clock.increment, or no clock",
                    ));
                }
                Ok(c)
            }
        }
        d.deserialize_map(Clock)
    }
}

/// `POST /api/challenge/open` (`clock` as an object, or the dotted `clock.limit`).
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ChallengeFields {
    /// Neither limit nor increment: no clock.
    pub clock: Option<ClockFields>,
    /// Correspondence: the days each move may take, one of 1, 2, 3, 5, 7, 10, 14, instead
    /// of `clock` (a side that does not move in time loses on time).
    #[serde(default, deserialize_with = "number")]
    #[schema(value_type = Option<u32>, minimum = 1, maximum = 14)]
    pub days: Option<f64>,
    /// The creator's side (drawn when random).
    #[schema(value_type = Option<SideWish>)]
    pub color: Option<Wish>,
    /// The start position.
    pub fen: Option<String>,
    /// The creator's name (cut to 40 characters).
    pub name: Option<String>,
    /// Cut to 40 characters.
    pub red: Option<String>,
    /// Cut to 40 characters.
    pub black: Option<String>,
    /// Rated: needs an account (session or API token) and `opponent`.
    #[serde(default, deserialize_with = "flag")]
    pub rated: Option<bool>,
    /// The opponent's account: its seat is theirs (their API token acts for it).
    pub opponent: Option<String>,
}

/// `POST /api/board/seek`.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SeekFields {
    pub clock: Option<ClockFields>,
    /// Correspondence: the days each move may take, one of 1, 2, 3, 5, 7, 10, 14, instead
    /// of `clock` (a side that does not move in time loses on time).
    #[serde(default, deserialize_with = "number")]
    #[schema(value_type = Option<u32>, minimum = 1, maximum = 14)]
    pub days: Option<f64>,
    #[schema(value_type = Option<SideWish>)]
    pub color: Option<Wish>,
    /// Cut to 40 characters (an account's seek shows its username).
    pub name: Option<String>,
    /// Rated: needs an account, and only accounts can take it.
    #[serde(default, deserialize_with = "flag")]
    pub rated: Option<bool>,
}

/// `POST /api/board/seek/{id}/accept`.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AcceptFields {
    /// Cut to 40 characters.
    pub name: Option<String>,
}

/// `POST /api/board/game/{id}/chat`: lichess's fields.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ChatFields {
    /// `player` (the two players' room; the default) or `spectator`.
    pub room: Option<crate::online::hub::ChatRoom>,
    /// 1 to 140 characters once trimmed; control characters are dropped (line breaks and
    /// tabs become spaces). Kept as written: clients show it as text.
    #[schema(required, nullable = false)]
    pub text: Option<String>,
}

/// `POST /api/account/preferences`.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PreferenceFields {
    /// The game chat on (the default) or off: off, the app shows no chat and the account's
    /// game streams carry no `chatLine`.
    #[serde(default, deserialize_with = "flag")]
    pub chat: Option<bool>,
    /// Take challenges from bot accounts (the default) or refuse them (lichess's decline
    /// reason `noBot`).
    #[serde(default, deserialize_with = "flag")]
    pub bots: Option<bool>,
    /// The app's language for this account: `en`, `zh-Hans`, `zh-Hant` or `vi`. The pages
    /// switch to it when the account logs in, on any browser.
    #[serde(default)]
    pub lang: Option<super::lang::Lang>,
}

/// A username and a password (both required; `null` counts as missing).
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Credentials {
    /// 2 to 30 characters, no control characters; unique regardless of case.
    #[schema(required, nullable = false)]
    pub username: Option<String>,
    /// 8 to 256 characters.
    #[schema(required, nullable = false, min_length = 8, max_length = 256)]
    pub password: Option<String>,
}

/// `POST /api/account/password` (both required; `null` counts as missing).
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PasswordChange {
    /// The password now.
    #[schema(required, nullable = false)]
    pub current: Option<String>,
    /// 8 to 256 characters.
    #[schema(required, nullable = false)]
    pub new: Option<String>,
}

/// `POST /api/account/tokens`.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TokenFields {
    /// What the token is for (at most 60 characters, after trimming).
    pub label: Option<String>,
}

#[cfg(test)]
mod tests {
    //! The form reader ([`JsonOrForm`]): the same struct from a JSON body and from a form,
    //! and each way a body can be wrong named in its answer.
    use super::*;

    const FORM: &str = "application/x-www-form-urlencoded";
    const JSON: &str = "application/json";

    async fn read_as<T: DeserializeOwned>(kind: &str, body: &str) -> Result<T, ApiError> {
        let req = Request::builder()
            .method("POST")
            .uri("/")
            .header("content-type", kind)
            .body(axum::body::Body::from(body.to_owned()))
            .expect("request");
        JsonOrForm::<T>::from_request(req, &()).await.map(|f| f.0)
    }

    /// A seek's fields, comparable: the clock's limit and increment, side, name, rated.
    type SeekSeen = (
        Option<(Option<f64>, Option<f64>)>,
        Option<SideWish>,
        Option<String>,
        Option<bool>,
    );

    fn seek(s: &SeekFields) -> SeekSeen {
        (
            s.clock.as_ref().map(|c| (c.limit, c.increment)),
            s.color.as_ref().map(|w| w.0),
            s.name.clone(),
            s.rated,
        )
    }

    /// The refusal's message and the field it names.
    async fn refusal<T: DeserializeOwned>(kind: &str, body: &str) -> (String, Option<String>) {
        match read_as::<T>(kind, body).await {
            Ok(_) => panic!("{kind} body {body:?} was taken"),
            Err(e) => {
                assert_eq!(e.status, axum::http::StatusCode::BAD_REQUEST, "{body:?}");
                (e.body.error.clone(), e.body.field.clone())
            }
        }
    }

    #[tokio::test]
    async fn an_enum_field_reads_from_a_form_as_from_json() {
        use crate::online::hub::ChatRoom;
        for (kind, body) in [
            (FORM, "room=spectator&text=hi"),
            (JSON, r#"{"room":"spectator","text":"hi"}"#),
        ] {
            let f = read_as::<ChatFields>(kind, body).await.expect(body);
            assert_eq!(f.room, Some(ChatRoom::Spectator), "{body}");
            assert_eq!(f.text.as_deref(), Some("hi"));
        }
        // An empty text is read (the handler refuses it, naming `text`); a word that is no
        // room is refused naming `room`, from a form as from JSON.
        let f = read_as::<ChatFields>(FORM, "room=player&text=")
            .await
            .expect("empty text");
        assert_eq!(f.room, Some(ChatRoom::Player));
        for (kind, body) in [
            (FORM, "room=lobby&text=hi"),
            (JSON, r#"{"room":"lobby","text":"hi"}"#),
        ] {
            let (msg, field) = refusal::<ChatFields>(kind, body).await;
            assert_eq!(field.as_deref(), Some("room"), "{body}: {msg}");
        }
    }

    #[tokio::test]
    async fn a_form_and_json_read_as_the_same_struct() {
        let want = (
            Some((Some(60.0), Some(2.0))),
            Some(SideWish::Red),
            Some("A b!".to_owned()),
            Some(true),
        );
        let form = "clock.limit=60&clock.increment=2&color=red&rated=true&name=A+b%21";
        for (kind, body) in [
            (FORM, form),
            // Form fields in any order, and spaces about numbers.
            (
                FORM,
                "name=A%20b!&rated=true&clock.increment=+2+&color=red&clock.limit=60",
            ),
            (
                JSON,
                r#"{"clock": {"limit": 60, "increment": 2}, "color": "red", "rated": true, "name": "A b!"}"#,
            ),
            // A JSON body may use the dotted names too, or mix them with the object.
            (
                JSON,
                r#"{"clock.limit": 60, "clock.increment": 2, "color": "red", "rated": true, "name": "A b!"}"#,
            ),
            (
                JSON,
                r#"{"clock.limit": 60, "clock": {"increment": 2}, "color": "red", "rated": true, "name": "A b!"}"#,
            ),
            (
                JSON,
                r#"{"clock": {"increment": 2}, "clock.limit": 60, "color": "red", "rated": true, "name": "A b!"}"#,
            ),
        ] {
            let got = read_as::<SeekFields>(kind, body).await.unwrap_or_else(|e| {
                panic!("{kind} {body:?}: {}", e.body.error);
            });
            assert_eq!(seek(&got), want, "{kind} {body:?}");
        }
    }

    #[tokio::test]
    async fn no_body_and_no_fields_are_all_absent() {
        for (kind, body) in [(FORM, ""), (JSON, ""), (JSON, "{}"), (FORM, "&&")] {
            let got = read_as::<SeekFields>(kind, body).await.expect("taken");
            assert_eq!(seek(&got), (None, None, None, None), "{kind} {body:?}");
        }
        // A blank number in a form is no number: the clock is there, without a limit.
        let got = read_as::<SeekFields>(FORM, "clock.limit=&clock.increment=3")
            .await
            .expect("taken");
        assert_eq!(seek(&got).0, Some((None, Some(3.0))));
    }

    #[tokio::test]
    async fn of_a_repeated_form_field_the_last_counts() {
        let got = read_as::<SeekFields>(FORM, "name=a&clock.limit=1&name=b&clock.limit=90")
            .await
            .expect("taken");
        assert_eq!(got.name.as_deref(), Some("b"));
        assert_eq!(seek(&got).0, Some((Some(90.0), None)));
    }

    #[tokio::test]
    async fn numbers_and_flags_are_text_only_in_a_form() {
        let (msg, field) = refusal::<SeekFields>(JSON, r#"{"clock": {"limit": "60"}}"#).await;
        assert_eq!(field.as_deref(), Some("clock.limit"), "{msg}");
        assert!(
            msg.contains("clock.limit") && msg.contains("number"),
            "{msg}"
        );
        let (msg, field) = refusal::<SeekFields>(JSON, r#"{"rated": "true"}"#).await;
        assert_eq!(field.as_deref(), Some("rated"), "{msg}");
        let (msg, field) = refusal::<SeekFields>(FORM, "rated=yes").await;
        assert_eq!(field.as_deref(), Some("rated"), "{msg}");
        assert!(msg.contains("true or false"), "{msg}");
        let (msg, field) = refusal::<SeekFields>(FORM, "clock.limit=sixty").await;
        assert_eq!(field.as_deref(), Some("clock.limit"), "{msg}");
        assert!(msg.contains("number"), "{msg}");
    }

    #[tokio::test]
    async fn a_dotted_name_beside_a_field_that_is_not_an_object_is_refused() {
        for (kind, body, named) in [
            (FORM, "clock=5&clock.limit=60", "clock.limit"),
            (FORM, "clock.limit=60&clock=5", "clock"),
            (JSON, r#"{"clock": 5, "clock.limit": 60}"#, "clock.limit"),
            // (A JSON object's names are read in sorted order: the dotted one comes second.)
            (JSON, r#"{"clock.limit": 60, "clock": 5}"#, "clock.limit"),
        ] {
            let (msg, field) = refusal::<SeekFields>(kind, body).await;
            assert_eq!(field.as_deref(), Some(named), "{kind} {body:?}: {msg}");
            assert!(msg.contains("cannot both be given"), "{msg}");
        }
    }

    #[tokio::test]
    async fn unknown_names_and_an_empty_clock_are_refused_by_name() {
        let (msg, field) = refusal::<SeekFields>(FORM, "colour=red").await;
        assert_eq!(field.as_deref(), Some("colour"), "{msg}");
        assert!(msg.contains("unknown field 'colour'"), "{msg}");
        let (msg, field) = refusal::<SeekFields>(FORM, "clock.lmit=60").await;
        assert_eq!(field.as_deref(), Some("clock.lmit"), "{msg}");
        let (msg, field) = refusal::<SeekFields>(JSON, r#"{"clock": {}}"#).await;
        assert_eq!(field.as_deref(), Some("clock"), "{msg}");
        assert!(msg.contains("empty object"), "{msg}");
        let (msg, field) = refusal::<SeekFields>(FORM, "color=green").await;
        assert_eq!(field.as_deref(), Some("color"), "{msg}");
        assert!(msg.contains("red, black or random"), "{msg}");
    }

    #[tokio::test]
    async fn bad_encodings_and_blank_bodies_are_refused() {
        let (msg, field) = refusal::<SeekFields>(FORM, "name=%ZZ").await;
        assert_eq!(field.as_deref(), Some("name"), "{msg}");
        assert!(msg.contains("percent-encoded"), "{msg}");
        let (msg, field) = refusal::<SeekFields>(FORM, "name=%FF%FE").await;
        assert_eq!(field.as_deref(), Some("name"), "{msg}");
        let (msg, _) = refusal::<SeekFields>(FORM, "na%G1me=x").await;
        assert!(msg.contains("bad form field name"), "{msg}");
        let (msg, _) = refusal::<SeekFields>(FORM, "   ").await;
        assert!(msg.contains("blank"), "{msg}");
        let (msg, _) = refusal::<SeekFields>(JSON, "   ").await;
        assert!(msg.contains("not valid JSON"), "{msg}");
        let (msg, _) = refusal::<SeekFields>(JSON, "[1]").await;
        assert!(msg.contains("must be a JSON object"), "{msg}");
    }

    #[tokio::test]
    async fn required_fields_are_missing_when_absent_or_null() {
        let got = read_as::<Credentials>(FORM, "username=li&password=p%40ss+word")
            .await
            .expect("taken");
        assert_eq!(got.username.as_deref(), Some("li"));
        assert_eq!(got.password.as_deref(), Some("p@ss word"));
        // The struct takes the absence; the handler answers it with [`missing`].
        let got = read_as::<Credentials>(JSON, r#"{"username": null}"#)
            .await
            .expect("taken");
        assert!(got.username.is_none() && got.password.is_none());
        let (msg, field) = refusal::<Credentials>(JSON, r#"{"username": 5}"#).await;
        assert_eq!(field.as_deref(), Some("username"), "{msg}");
    }
}

/// `POST /api/board/game/{id}/move/{move}` and the bot API's: lichess's query.
#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct MoveQuery {
    /// `true`: offer a draw (or accept the opponent's) with the move.
    #[serde(rename = "offeringDraw")]
    #[param(value_type = bool, required = false, nullable = false)]
    pub offering_draw: Option<String>,
}

/// A challenge's side for the challenger: `red` (lichess's `white`), `black` or `random`.
pub struct ChallengeColor(pub SideWish);

impl<'de> Deserialize<'de> for ChallengeColor {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ChallengeColor, D::Error> {
        let s = string(d)?;
        let w = if s == "white" {
            Some(SideWish::Red)
        } else {
            SideWish::parse(&s)
        };
        w.map(ChallengeColor).ok_or_else(|| {
            D::Error::custom(format!(
                "must be red (or white), black or random, not '{s}'"
            ))
        })
    }
}

/// `standard` or `xiangqi`: the only game here.
#[derive(Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum VariantName {
    Standard,
    Xiangqi,
}

/// `POST /api/challenge/{username}` (lichess's fields; `clock` as an object, or the dotted
/// `clock.limit`).
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DirectChallengeFields {
    /// Neither limit nor increment (and no `days`): no clock.
    pub clock: Option<ClockFields>,
    /// Correspondence: days per move, one of 1, 2, 3, 5, 7, 10, 14, instead of `clock`.
    #[serde(default, deserialize_with = "number")]
    #[schema(value_type = Option<u32>, minimum = 1, maximum = 14)]
    pub days: Option<f64>,
    /// The challenger's side: `red` (or lichess's `white`), `black`, `random` (default).
    #[schema(value_type = Option<String>, pattern = "^(red|white|black|random)$")]
    pub color: Option<ChallengeColor>,
    /// Default casual.
    #[serde(default, deserialize_with = "flag")]
    pub rated: Option<bool>,
    /// `standard` (or `xiangqi`); any other variant is refused.
    pub variant: Option<VariantName>,
    /// The start position (lichess's `fen`; default the usual one).
    pub fen: Option<String>,
}

/// `POST /api/challenge/{id}/decline`.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DeclineFields {
    /// lichess's key: generic (default), later, tooFast, tooSlow, timeControl, rated,
    /// casual, standard, variant, noBot, onlyBot (any case).
    pub reason: Option<String>,
}
