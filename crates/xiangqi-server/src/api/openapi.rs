//! The OpenAPI 3 document of the HTTP API, served at `/api/openapi.json`. It is generated
//! (utoipa) from the handlers' `#[utoipa::path]` attributes and the request and answer types'
//! `ToSchema` derives; the page's files are added from the router's own table (`ASSETS`).
//! `tests/openapi.rs` checks that it lists exactly the router's routes.

use std::borrow::Cow;
use std::sync::OnceLock;

use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use utoipa::openapi::path::{OperationBuilder, ParameterBuilder, ParameterIn, PathItem};
use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{ContentBuilder, HttpMethod, Required, ResponseBuilder};
use utoipa::{Modify, OpenApi, PartialSchema, ToSchema};

use super::ASSETS;
use crate::store::{Mode, Verdict};

/// The document.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "xiangqi",
        description = "The HTTP API of `xiangqi serve`: stored games against the computer, \
                       for two players or analysis; live engine analysis (WebSocket); online \
                       games between people (the board API, in lichess's manner). See \
                       docs/API.md. Every error is JSON `{\"error\": ...}`."
    ),
    paths(
        super::handlers::health,
        serve,
        super::handlers::position,
        super::handlers::list,
        super::handlers::create,
        super::handlers::get_game,
        super::handlers::delete_game,
        super::handlers::post_move,
        super::handlers::computer_move,
        super::handlers::takeback,
        super::handlers::promote,
        super::handlers::set_note,
        super::handlers::resign,
        super::handlers::draw,
        super::handlers::export_pgn,
        super::handlers::export_fen,
        super::handlers::start_review,
        super::handlers::get_review,
        super::handlers::cancel_review,
        super::handlers::import,
        super::handlers::analysis,
        super::explorer::explorer,
        super::tablebase::tablebase,
        super::online::open_challenge,
        super::online::game_stream,
        super::online::game_full,
        super::online::board_move,
        super::online::board_action,
        super::online::board_answer,
        super::online::board_chat,
        super::online::chat_history,
        super::online::seek,
        super::online::accept_seek,
        super::online::lobby_stream,
        super::accounts::register,
        super::accounts::login,
        super::accounts::logout,
        super::accounts::me,
        super::accounts::password,
        super::accounts::preferences,
        super::accounts::block,
        super::accounts::unblock,
        super::accounts::tokens,
        super::online::playing,
        super::accounts::create_token,
        super::accounts::revoke_token,
        super::accounts::profile,
        super::accounts::leaderboard,
        super::bots::upgrade,
        super::bots::event_stream,
        super::bots::list,
        super::bots::create,
        super::bots::accept,
        super::bots::decline,
        super::bots::cancel,
        super::bots::stream,
        super::bots::bot_move,
        super::bots::bot_action,
        super::bots::bot_answer,
        super::bots::bot_chat,
        super::bots::bot_chat_history,
    ),
    components(schemas(
        // Named by parameters (whose schemas are not collected on their own).
        super::online::BoardAction,
        super::online::Offer,
        super::online::Answer,
        crate::rating::Speed,
    )),
    modifiers(&SeatToken, &Pages, &OptionalBodies, &NonEmptyClock, &FormBodies),
    tags(
        (name = "games", description = "Stored games (computer, two-player, analysis)"),
        (name = "analysis", description = "Live engine analysis"),
        (name = "board", description = "Online games between people: the board API"),
        (name = "lobby", description = "Seeks: finding an opponent"),
        (name = "accounts", description = "Accounts, sessions, API tokens, profiles, leaderboards"),
        (name = "explorer", description = "The opening explorer: a position's moves with their results"),
        (name = "tablebase", description = "Endgame tablebases: a position's exact result and every move's"),
        (name = "server", description = "The server itself"),
        (name = "page", description = "The browser app's page and files"),
    )
)]
pub struct ApiDoc;

/// The document as JSON (made once).
pub fn json() -> &'static str {
    static DOC: OnceLock<String> = OnceLock::new();
    DOC.get_or_init(|| {
        ApiDoc::openapi()
            .to_pretty_json()
            .expect("the OpenAPI document serializes")
    })
}

/// This document.
#[utoipa::path(
    get,
    path = "/api/openapi.json",
    tag = "server",
    responses((status = 200, description = "The OpenAPI document", body = Object))
)]
pub async fn serve() -> Response {
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        json(),
    )
        .into_response()
}

/// The seat token of a live game: `Authorization: Bearer TOKEN`.
struct SeatToken;

impl Modify for SeatToken {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        let c = doc.components.get_or_insert_with(Default::default);
        c.add_security_scheme(
            "seat",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
        // A session: the cookie, and on changes its CSRF token in `X-CSRF-Token`.
        c.add_security_scheme(
            "session",
            SecurityScheme::ApiKey(utoipa::openapi::security::ApiKey::Cookie(
                utoipa::openapi::security::ApiKeyValue::new(super::accounts::COOKIE),
            )),
        );
        // A personal API token (`xqt_...`) as `Authorization: Bearer`.
        c.add_security_scheme(
            "apiToken",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
    }
}

/// An optional body is written `content = Option<T>` (so that utoipa marks it not required),
/// which also makes its schema "`T` or `null`"; but the body is a JSON object or nothing,
/// never `null`: this keeps the requiredness and drops the `null`.
struct OptionalBodies;

impl Modify for OptionalBodies {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::schema::Schema;
        use utoipa::openapi::RefOr;
        for item in doc.paths.paths.values_mut() {
            let ops = [&mut item.get, &mut item.post, &mut item.delete];
            for op in ops.into_iter().flatten() {
                let Some(body) = op.request_body.as_mut() else {
                    continue;
                };
                for content in body.content.values_mut() {
                    let Some(RefOr::T(Schema::OneOf(one))) = &content.schema else {
                        continue;
                    };
                    let not_null: Vec<_> =
                        one.items.iter().filter(|s| !is_null(s)).cloned().collect();
                    if not_null.len() == 1 && one.items.len() == 2 {
                        content.schema = not_null.into_iter().next();
                    }
                }
            }
        }
    }
}

fn is_null(s: &utoipa::openapi::RefOr<utoipa::openapi::Schema>) -> bool {
    use utoipa::openapi::schema::Schema;
    use utoipa::openapi::RefOr;
    matches!(s, RefOr::T(Schema::Object(o)) if o.schema_type == SchemaType::Type(Type::Null))
}

/// `{"clock": {}}` is refused: the clock object needs a field; and it has no others. (utoipa
/// 5.5 writes its `min_properties` attribute as `maxProperties`, so it is set here; the
/// struct is read by hand, without serde's `deny_unknown_fields` for utoipa to see.)
struct NonEmptyClock;

impl Modify for NonEmptyClock {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::schema::{AdditionalProperties, Schema};
        use utoipa::openapi::RefOr;
        let schemas = doc.components.as_mut().map(|c| &mut c.schemas);
        if let Some(RefOr::T(Schema::Object(o))) = schemas.and_then(|s| s.get_mut("ClockFields")) {
            o.min_properties = Some(1);
            o.additional_properties = Some(Box::new(AdditionalProperties::FreeForm(false)));
        }
    }
}

/// A form-encoded body is the same struct as its JSON one (`request::JsonOrForm` reads
/// both), seen as a form has it: an object field's fields by their dotted names
/// (`clock.limit`), and nothing `null` (a form has none). Where that differs from the JSON
/// schema `X`, the form's content refers to `XForm` (`ChallengeFields`: `ChallengeForm`),
/// made here from `X`.
struct FormBodies;

const FORM: &str = "application/x-www-form-urlencoded";

impl Modify for FormBodies {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::schema::Schema;
        use utoipa::openapi::{Ref, RefOr};
        let Some(components) = doc.components.as_mut() else {
            return;
        };
        let mut made = Vec::new();
        for item in doc.paths.paths.values_mut() {
            let ops = [&mut item.get, &mut item.post, &mut item.delete];
            for op in ops.into_iter().flatten() {
                let Some(body) = op.request_body.as_mut() else {
                    continue;
                };
                let Some(content) = body.content.get_mut(FORM) else {
                    continue;
                };
                let Some(RefOr::Ref(r)) = &content.schema else {
                    continue;
                };
                let name = r.ref_location.rsplit('/').next().unwrap_or_default();
                let Some(RefOr::T(Schema::Object(o))) = components.schemas.get(name) else {
                    continue;
                };
                let form = form_object(o, &components.schemas);
                if form == *o {
                    continue;
                }
                let form_name = match name.strip_suffix("Fields") {
                    Some(stem) => format!("{stem}Form"),
                    None => format!("{name}Form"),
                };
                content.schema = Some(RefOr::Ref(Ref::from_schema_name(form_name.clone())));
                made.push((form_name, form));
            }
        }
        for (name, form) in made {
            components
                .schemas
                .insert(name, RefOr::T(Schema::Object(form)));
        }
    }
}

/// An object schema as a form has it: see [`FormBodies`].
fn form_object(
    o: &utoipa::openapi::schema::Object,
    schemas: &std::collections::BTreeMap<String, utoipa::openapi::RefOr<utoipa::openapi::Schema>>,
) -> utoipa::openapi::schema::Object {
    use utoipa::openapi::schema::Schema;
    use utoipa::openapi::RefOr;
    let mut form = o.clone();
    form.properties.clear();
    for (name, prop) in &o.properties {
        let prop = not_null(prop);
        let inner = match &prop {
            RefOr::Ref(r) => {
                match schemas.get(r.ref_location.rsplit('/').next().unwrap_or_default()) {
                    Some(RefOr::T(Schema::Object(inner))) if !inner.properties.is_empty() => {
                        Some(inner)
                    }
                    _ => None,
                }
            }
            RefOr::T(Schema::Object(inner)) if !inner.properties.is_empty() => Some(inner),
            _ => None,
        };
        match inner {
            Some(inner) => {
                for (sub, p) in &inner.properties {
                    form.properties.insert(format!("{name}.{sub}"), not_null(p));
                }
            }
            None => {
                form.properties.insert(name.clone(), prop);
            }
        }
    }
    form
}

/// A schema without its `null`: `T` of "`T` or `null`" (`oneOf`), a type without `"null"`.
fn not_null(
    s: &utoipa::openapi::RefOr<utoipa::openapi::Schema>,
) -> utoipa::openapi::RefOr<utoipa::openapi::Schema> {
    use utoipa::openapi::schema::Schema;
    use utoipa::openapi::RefOr;
    match s {
        RefOr::T(Schema::OneOf(one)) => {
            let rest: Vec<_> = one.items.iter().filter(|s| !is_null(s)).cloned().collect();
            match <[_; 1]>::try_from(rest) {
                Ok([only]) => only,
                Err(_) => s.clone(),
            }
        }
        RefOr::T(Schema::Object(o)) => match &o.schema_type {
            SchemaType::Array(types) if types.contains(&Type::Null) => {
                let rest: Vec<Type> = types
                    .iter()
                    .filter(|t| **t != Type::Null)
                    .cloned()
                    .collect();
                let mut o = o.clone();
                o.schema_type = match <[_; 1]>::try_from(rest) {
                    Ok([only]) => SchemaType::Type(only),
                    Err(rest) => SchemaType::Array(rest),
                };
                RefOr::T(Schema::Object(o))
            }
            _ => s.clone(),
        },
        _ => s.clone(),
    }
}

/// The page and its files, from the router's table.
struct Pages;

impl Modify for Pages {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        for (path, _, ctype) in ASSETS {
            let media = ctype.split(';').next().unwrap_or(ctype).trim();
            let mut op = OperationBuilder::new()
                .tag("page")
                .summary(Some(format!("The app's {path}")))
                .response(
                    "200",
                    ResponseBuilder::new()
                        .description("The file")
                        .content(
                            media,
                            ContentBuilder::new().schema(Some(String::schema())).build(),
                        )
                        .build(),
                );
            for name in path_params(path) {
                op = op.parameter(
                    ParameterBuilder::new()
                        .name(name)
                        .parameter_in(ParameterIn::Path)
                        .required(Required::True)
                        .schema(Some(String::schema())),
                );
            }
            doc.paths
                .paths
                .insert(path.to_string(), PathItem::new(HttpMethod::Get, op));
        }
    }
}

/// The `{name}`s of a route's path.
pub fn path_params(path: &str) -> Vec<&str> {
    path.split('/')
        .filter_map(|seg| seg.strip_prefix('{')?.strip_suffix('}'))
        .collect()
}

/// A string that is one of `words`.
fn words(words: &[&str], description: &str) -> utoipa::openapi::RefOr<utoipa::openapi::Schema> {
    ObjectBuilder::new()
        .schema_type(SchemaType::Type(Type::String))
        .enum_values(Some(words.iter().copied()))
        .description(Some(description))
        .into()
}

impl PartialSchema for Mode {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::Schema> {
        let names: Vec<&str> = Mode::ALL.iter().map(|m| m.as_str()).collect();
        words(&names, "How a game is played")
    }
}

impl ToSchema for Mode {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("Mode")
    }
}

impl PartialSchema for Verdict {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::Schema> {
        let names: Vec<&str> = [Verdict::RedWins, Verdict::BlackWins, Verdict::Draw]
            .iter()
            .map(|v| v.as_str())
            .collect();
        words(&names, "A finished game's result")
    }
}

impl ToSchema for Verdict {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("Verdict")
    }
}
