//! The board API of live games between people, in lichess's manner (docs/API.md, "Online
//! play"): open challenges, a seat's actions with its bearer token, the newline-delimited
//! JSON streams of a game and of the lobby, seeks.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;

use axum::body::{Body as HttpBody, Bytes};
use axum::extract::{FromRequestParts, Path, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast::error::RecvError;
use utoipa::ToSchema;
use xiangqi::Color;

use super::accounts::Viewer;
use super::error::ApiError;
use super::request::{
    AcceptFields, ChallengeFields, ChatFields, ClockFields, JsonOrForm, MoveQuery, Query,
    SeekFields, Wish,
};
use crate::online::clock::TimeControl;
use crate::online::corr::Days;
use crate::online::events::Event;
use crate::online::hub::{
    clean_name, Action, ChatRoom, Credential, Hub, Msg, NewLive, NewSeats, NowPlaying, OnlineError,
    Seeker, KEEP_ALIVE,
};
use crate::online::lobby::{SeeksLine, SideWish};
use crate::App;

type AppState = State<Arc<App>>;
type ApiResult<T> = Result<T, ApiError>;

impl From<OnlineError> for ApiError {
    fn from(e: OnlineError) -> ApiError {
        let msg = e.to_string();
        match e {
            OnlineError::NotFound | OnlineError::NoChallenge => {
                ApiError::new(StatusCode::NOT_FOUND, msg)
            }
            OnlineError::NoToken | OnlineError::NeedsAccount => {
                ApiError::new(StatusCode::UNAUTHORIZED, msg)
            }
            OnlineError::OwnSeek => ApiError::new(StatusCode::CONFLICT, msg),
            OnlineError::WrongToken => ApiError::new(StatusCode::FORBIDDEN, msg),
            OnlineError::Refused(r) => ApiError::new(
                StatusCode::from_u16(r.status_code()).unwrap_or(StatusCode::CONFLICT),
                msg,
            ),
            OnlineError::Bad { field, .. } => ApiError::bad(msg).field(field),
            OnlineError::Unprocessable { field, .. } => {
                ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, msg).field(field)
            }
            OnlineError::Full(_) => ApiError::new(StatusCode::SERVICE_UNAVAILABLE, msg),
            OnlineError::Store(e) if e.is_unavailable() => ApiError::unavailable(msg),
            OnlineError::Store(_) | OnlineError::Random(_) => {
                ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, msg)
            }
            OnlineError::Unavailable(_) => ApiError::new(StatusCode::SERVICE_UNAVAILABLE, msg),
            OnlineError::Forbidden(_) => ApiError::new(StatusCode::FORBIDDEN, msg),
            OnlineError::LogIn(_) => ApiError::new(StatusCode::UNAUTHORIZED, msg),
            OnlineError::TooFast { retry, .. } => {
                let mut a = ApiError::new(StatusCode::TOO_MANY_REQUESTS, msg);
                a.retry_after = Some(retry);
                a
            }
            OnlineError::Remote(r) => {
                let status =
                    StatusCode::from_u16(r.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
                let mut a = match r.field {
                    Some(f) if status == StatusCode::BAD_REQUEST => ApiError::bad(msg).field(f),
                    Some(f) if status == StatusCode::UNPROCESSABLE_ENTITY => {
                        ApiError::new(status, msg).field(f)
                    }
                    _ => ApiError::new(status, msg),
                };
                a.retry_after = r.retry;
                a
            }
        }
    }
}

/// The seat token of `Authorization: Bearer TOKEN`, if the request has one, and whether the
/// request is the bot API's (`/api/bot/...`: only a bot's personal API token) or the board
/// API's (no bot account).
pub struct Bearer(pub Option<String>, pub bool);

impl<S: Send + Sync> FromRequestParts<S> for Bearer {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let bot = parts.uri.path().starts_with("/api/bot/");
        let Some(v) = parts.headers.get(header::AUTHORIZATION) else {
            return Ok(Bearer(None, bot));
        };
        let v = v
            .to_str()
            .map_err(|_| ApiError::new(StatusCode::UNAUTHORIZED, "bad Authorization header"))?;
        match v.split_once(' ') {
            Some((scheme, t)) if scheme.eq_ignore_ascii_case("bearer") && !t.trim().is_empty() => {
                Ok(Bearer(Some(t.trim().to_owned()), bot))
            }
            _ => Err(ApiError::new(
                StatusCode::UNAUTHORIZED,
                "the Authorization header must be 'Bearer TOKEN'",
            )),
        }
    }
}

/// Who a board request acts for: a seat token, or the account of a personal API token.
enum Cred {
    Seat(String),
    Account(i64),
}

impl Cred {
    fn as_credential(&self) -> Credential<'_> {
        match self {
            Cred::Seat(t) => Credential::Seat(t),
            Cred::Account(id) => Credential::Account(*id),
        }
    }
}

/// lichess's refusal of a person's token on the bot API.
pub const ONLY_BOTS: &str = "This endpoint only works for bot accounts. \
     See https://lichess.org/api#operation/botAccountUpgrade";
/// lichess's refusal of a bot's token on the board API.
pub const NOT_FOR_BOTS: &str = "This API endpoint is not for Bot accounts.";

async fn cred_of(app: &App, bearer: Bearer) -> ApiResult<Option<Cred>> {
    let bot_api = bearer.1;
    let Some(t) = bearer.0 else {
        if bot_api {
            return Err(ApiError::new(
                StatusCode::UNAUTHORIZED,
                "the bot API needs a bot account's personal API token (Authorization: Bearer xqt_...)",
            ));
        }
        return Ok(None);
    };
    if !t.starts_with(crate::accounts::TOKEN_PREFIX) {
        if bot_api {
            return Err(ApiError::new(
                StatusCode::UNAUTHORIZED,
                "the bot API takes a bot account's personal API token, not a seat's token",
            ));
        }
        return Ok(Some(Cred::Seat(t)));
    }
    match app.accounts.token_user(&t).await? {
        Some((_, _, false)) if bot_api => Err(ApiError::new(StatusCode::FORBIDDEN, ONLY_BOTS)),
        Some((_, _, true)) if !bot_api => Err(ApiError::new(StatusCode::FORBIDDEN, NOT_FOR_BOTS)),
        Some((id, ..)) => Ok(Some(Cred::Account(id))),
        None => Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "unknown or revoked API token",
        )),
    }
}

fn seeker(v: &Viewer) -> Option<Seeker> {
    v.0.as_ref().map(|u| Seeker {
        id: u.id,
        name: u.name.clone(),
    })
}

pub(super) fn time_control(clock: Option<&ClockFields>) -> ApiResult<Option<TimeControl>> {
    let Some(c) = clock else { return Ok(None) };
    if c.limit.is_none() && c.increment.is_none() {
        return Ok(None);
    }
    TimeControl::from_seconds(c.limit.unwrap_or(0.0), c.increment.unwrap_or(0.0))
        .map(Some)
        .map_err(|m| {
            let field = if m.starts_with("clock.increment") {
                "clock.increment"
            } else {
                "clock.limit"
            };
            ApiError::bad(m).field(field)
        })
}

/// The `days` of a correspondence challenge or seek: one of `corr::DAYS`, and no clock with it.
pub(super) fn days_of(days: Option<f64>, clock: Option<&ClockFields>) -> ApiResult<Option<Days>> {
    let Some(d) = days else { return Ok(None) };
    let whole = d.is_finite() && d.fract() == 0.0 && (0.0..=u32::MAX as f64).contains(&d);
    let days = Days::new(if whole { d as u32 } else { 0 }).map_err(|_| {
        ApiError::bad(format!(
            "days must be one of 1, 2, 3, 5, 7, 10 or 14 (days per move), not {d}"
        ))
        .field("days")
    })?;
    if clock.is_some_and(|c| c.limit.is_some() || c.increment.is_some()) {
        return Err(ApiError::bad(
            "give either days (correspondence) or clock.limit and clock.increment, not both",
        )
        .field("days"));
    }
    Ok(Some(days))
}

fn side_wish(color: Option<Wish>) -> SideWish {
    color.map_or(SideWish::Random, |Wish(w)| w)
}

fn random_side() -> Result<Color, ApiError> {
    let mut b = [0u8; 1];
    getrandom::fill(&mut b).map_err(|e| {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the system's random source failed: {e}"),
        )
    })?;
    Ok(if b[0] & 1 == 0 {
        Color::Red
    } else {
        Color::Black
    })
}

/// The answer to `POST /api/challenge/open`.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OpenChallenge {
    pub id: String,
    /// The spectators' page.
    pub url: String,
    /// The players' pages (each with its seat's secret after `#`).
    pub url_red: String,
    pub url_black: String,
    pub token_red: String,
    pub token_black: String,
    /// The creator's side (`color` of the request, drawn when random).
    // (A side's word, `Color::name`.)
    #[schema(value_type = super::request::Side)]
    pub color: &'static str,
}

/// The page of a live game (spectators), and of a seat (`#seat=TOKEN`).
fn page(id: &str, token: Option<&str>) -> String {
    match token {
        Some(t) => format!("/live/{id}#seat={t}"),
        None => format!("/live/{id}"),
    }
}

/// `POST /api/challenge/open`: a game whose two seats are taken by whoever opens their links.
#[utoipa::path(
    post,
    path = "/api/challenge/open",
    tag = "board",
    request_body(content((Option<ChallengeFields> = "application/json"), (Option<ChallengeFields> = "application/x-www-form-urlencoded")), description = "All fields optional"),
    security((), ("session" = []), ("apiToken" = [])),
    responses(
        (status = 200, description = "The game, its pages and its seats' tokens", body = OpenChallenge),
        (status = 401, description = "A rated challenge without an account, or an unknown or revoked API token", body = super::error::ErrorBody),
        (status = 403, description = "With the session cookie but without its CSRF token (or from another site)", body = super::error::ErrorBody),
        (status = 429, description = "Over a per-client limit (docs/API.md, \"Limits per client\"); `Retry-After` says when to try again", body = super::error::ErrorBody),
        (status = 400, description = "Malformed input: bad JSON or form, an unknown field, a wrong type or value", body = super::error::ErrorBody),
        (status = 413, description = "The request body is too large", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself (the store), never of the input", body = super::error::ErrorBody),
        (status = 503, description = "Too many live games or seeks open, or the database cannot be reached now (nothing was stored); try again later", body = super::error::ErrorBody),
    )
)]
pub async fn open_challenge(
    State(app): AppState,
    v: Viewer,
    JsonOrForm(f): JsonOrForm<ChallengeFields>,
) -> ApiResult<Json<OpenChallenge>> {
    let rated = f.rated.unwrap_or(false);
    let opponent = match f
        .opponent
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        None => None,
        Some(o) => {
            let u = app
                .store
                .user_by_key(&o.to_lowercase())
                .await
                .map_err(crate::accounts::AccountError::from)?
                .ok_or_else(|| ApiError::bad(format!("no player named '{o}'")).field("opponent"))?;
            Some(Seeker {
                id: u.id,
                name: u.name,
            })
        }
    };
    let me = seeker(&v);
    if rated && me.is_none() {
        return Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "a rated challenge needs an account: log in (or send a personal API token)",
        )
        .field("rated"));
    }
    if rated && opponent.is_none() {
        return Err(ApiError::bad(
            "a rated challenge names its opponent's account (field 'opponent')",
        )
        .field("opponent"));
    }
    if let (Some(m), Some(o)) = (&me, &opponent) {
        if m.id == o.id {
            return Err(ApiError::bad("you cannot challenge yourself").field("opponent"));
        }
        if super::accounts::blocks(&app, o.id, m.id).await? {
            return Err(ApiError::new(
                StatusCode::FORBIDDEN,
                format!("{} does not accept your challenges", o.name),
            )
            .field("opponent"));
        }
    }
    let tc = time_control(f.clock.as_ref())?;
    let days = days_of(f.days, f.clock.as_ref())?;
    let color = match side_wish(f.color) {
        SideWish::Red => Color::Red,
        SideWish::Black => Color::Black,
        SideWish::Random => random_side()?,
    };
    let name = clean_name(f.name.as_deref(), "");
    let mut names = [
        clean_name(f.red.as_deref(), "Red"),
        clean_name(f.black.as_deref(), "Black"),
    ];
    if !name.is_empty() {
        names[color.index()] = name;
    }
    let mut users = [None, None];
    if let Some(m) = &me {
        names[color.index()] = m.name.clone();
        users[color.index()] = Some(m.id);
    }
    if let Some(o) = &opponent {
        names[(!color).index()] = o.name.clone();
        users[(!color).index()] = Some(o.id);
    }
    let created = app
        .hub
        .create(NewLive {
            tc,
            days,
            fen: f.fen,
            names,
            seats: Some(NewSeats { users, rated }),
        })
        .await?;
    let [red, black] = &created.tokens;
    Ok(Json(OpenChallenge {
        url: page(&created.id, None),
        url_red: page(&created.id, Some(red.as_str())),
        url_black: page(&created.id, Some(black.as_str())),
        token_red: red.as_str().to_owned(),
        token_black: black.as_str().to_owned(),
        color: color.name(),
        id: created.id,
    }))
}

/// `{"ok": true}`: done.
#[derive(Serialize, ToSchema)]
#[schema(as = Done)]
pub struct Ok_ {
    pub ok: bool,
}

async fn act(app: &App, id: &str, bearer: Bearer, action: Action) -> ApiResult<Json<Ok_>> {
    let bot_api = bearer.1;
    let cred = cred_of(app, bearer).await?;
    if let (true, Some(Cred::Account(user))) = (bot_api, &cred) {
        app.hub.bot_take(*user, true)?;
    }
    app.hub
        .act(id, cred.as_ref().map(Cred::as_credential), action)
        .await?;
    Ok(Json(Ok_ { ok: true }))
}

/// `POST /api/board/game/{id}/move/{move}`
#[utoipa::path(
    post,
    path = "/api/board/game/{id}/move/{move}",
    tag = "board",
    params(
        ("id" = String, Path, description = "The live game's id (8 characters of `[0-9A-Za-z]`)"),
        ("move" = String, Path, description = "The move in any notation (percent-encoded)"),
        MoveQuery,
    ),
    security(("seat" = []), ("apiToken" = [])),
    responses(
        (status = 200, description = "Done", body = Ok_),
        (status = 400, description = "A bad query (`offeringDraw` not true or false)", body = super::error::ErrorBody),
        (status = 429, description = "Over a per-client limit (docs/API.md, \"Limits per client\"); `Retry-After` says when to try again", body = super::error::ErrorBody),
        (status = 401, description = "No seat token (or a malformed `Authorization` header, or an unknown or revoked personal API token)", body = super::error::ErrorBody),
        (status = 403, description = "The token holds no seat of this game", body = super::error::ErrorBody),
        (status = 404, description = "No such game", body = super::error::ErrorBody),
        (status = 409, description = "Refused in the game's state: not your turn, the game over, too late to abort, nothing to answer, opponent not gone long enough", body = super::error::ErrorBody),
        (status = 422, description = "A move that cannot be read or is not legal, naming it", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself (the store), never of the input", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting): nothing was stored; `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn board_move(
    State(app): AppState,
    Path((id, mv)): Path<(String, String)>,
    Query(q): Query<MoveQuery>,
    bearer: Bearer,
) -> ApiResult<Json<Ok_>> {
    let offering = match q.offering_draw.as_deref() {
        None | Some("false") => false,
        Some("true") => true,
        Some(o) => {
            return Err(ApiError::bad(format!(
                "query parameter 'offeringDraw' must be true or false, not '{o}'"
            ))
            .field("offeringDraw"))
        }
    };
    let bot_api = bearer.1;
    let token = bearer.0.clone();
    let done = act(&app, &id, bearer, Action::Move(mv)).await?;
    if offering {
        // The move went: the draw offer follows it (lichess's `offeringDraw`).
        let _ = act(&app, &id, Bearer(token, bot_api), Action::Draw(true)).await?;
    }
    Ok(done)
}

/// `POST /api/board/game/{id}/{action}`: resign, abort, claim-victory, claim-draw.
#[utoipa::path(
    post,
    path = "/api/board/game/{id}/{action}",
    tag = "board",
    params(
        ("id" = String, Path, description = "The live game's id (8 characters of `[0-9A-Za-z]`)"),
        ("action" = BoardAction, Path, description = "What the seat does (another word: `404`)"),
    ),
    security(("seat" = []), ("apiToken" = [])),
    responses(
        (status = 200, description = "Done", body = Ok_),
        (status = 429, description = "Over a per-client limit (docs/API.md, \"Limits per client\"); `Retry-After` says when to try again", body = super::error::ErrorBody),
        (status = 401, description = "No seat token (or a malformed `Authorization` header, or an unknown or revoked personal API token)", body = super::error::ErrorBody),
        (status = 403, description = "The token holds no seat of this game", body = super::error::ErrorBody),
        (status = 404, description = "No such game, or no such action", body = super::error::ErrorBody),
        (status = 409, description = "Refused in the game's state: not your turn, the game over, too late to abort, nothing to answer, opponent not gone long enough", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself (the store), never of the input", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting): nothing was stored; `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn board_action(
    State(app): AppState,
    BoardPath((id, what)): BoardPath<(String, BoardAction)>,
    bearer: Bearer,
) -> ApiResult<Json<Ok_>> {
    let action = match what {
        BoardAction::Resign => Action::Resign,
        BoardAction::Abort => Action::Abort,
        BoardAction::ClaimVictory => Action::ClaimVictory,
        BoardAction::ClaimDraw => Action::ClaimDraw,
    };
    act(&app, &id, bearer, action).await
}

/// `POST /api/board/game/{id}/{offer}/{yes|no}`: draw, takeback, rematch.
#[utoipa::path(
    post,
    path = "/api/board/game/{id}/{offer}/{answer}",
    tag = "board",
    params(
        ("id" = String, Path, description = "The live game's id (8 characters of `[0-9A-Za-z]`)"),
        ("offer" = Offer, Path, description = "What is offered or asked for (another word: `404`)"),
        ("answer" = Answer, Path, description = "`yes` offers or accepts, `no` declines or withdraws (another word: `404`)"),
    ),
    security(("seat" = []), ("apiToken" = [])),
    responses(
        (status = 200, description = "Done", body = Ok_),
        (status = 429, description = "Over a per-client limit (docs/API.md, \"Limits per client\"); `Retry-After` says when to try again", body = super::error::ErrorBody),
        (status = 401, description = "No seat token (or a malformed `Authorization` header, or an unknown or revoked personal API token)", body = super::error::ErrorBody),
        (status = 403, description = "The token holds no seat of this game", body = super::error::ErrorBody),
        (status = 404, description = "No such game, offer or answer", body = super::error::ErrorBody),
        (status = 409, description = "Refused in the game's state: not your turn, the game over, too late to abort, nothing to answer, opponent not gone long enough", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself (the store), never of the input", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting): nothing was stored; `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn board_answer(
    State(app): AppState,
    BoardPath((id, what, answer)): BoardPath<(String, Offer, Answer)>,
    bearer: Bearer,
) -> ApiResult<Json<Ok_>> {
    let yes = matches!(answer, Answer::Yes);
    let action = match what {
        Offer::Draw => Action::Draw(yes),
        Offer::Takeback => Action::Takeback(yes),
        Offer::Rematch => Action::Rematch(yes),
    };
    act(&app, &id, bearer, action).await
}

/// `GET /api/board/game/{id}`: the game as the stream's first line has it (`gameFull`).
#[utoipa::path(
    get,
    path = "/api/board/game/{id}",
    tag = "board",
    params(
        ("id" = String, Path, description = "The live game's id (8 characters of `[0-9A-Za-z]`)"),
    ),
    responses(
        (status = 200, description = "The game as the stream's first line (`gameFull`)", body = Event),
        (status = 404, description = "No such game", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself (the store), never of the input", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting): nothing was stored; `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn game_full(State(app): AppState, Path(id): Path<String>) -> ApiResult<Response> {
    let line = app.hub.full(&id).await?;
    Ok((
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        line,
    )
        .into_response())
}

fn ndjson(body: HttpBody) -> Response {
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/x-ndjson"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
            (
                header::HeaderName::from_static("x-accel-buffering"),
                HeaderValue::from_static("no"),
            ),
        ],
        body,
    )
        .into_response()
}

/// What a game stream holds between lines.
struct GameStream {
    hub: Arc<Hub>,
    queue: VecDeque<String>,
    sub: crate::online::hub::Subscription,
    tick: tokio::time::Interval,
    /// The viewer's account's chat: off (no `chatLine`), and the accounts it blocks.
    chat_off: bool,
    blocked: std::collections::HashSet<i64>,
}

/// What the account `user` (the viewer of a stream or a chat history) does not want to see:
/// whether its chat is off, and the accounts it blocks.
async fn chat_filter(app: &App, user: Option<i64>) -> ApiResult<(bool, Vec<(i64, String)>)> {
    let Some(u) = user else {
        return Ok((false, Vec::new()));
    };
    let map = |e: crate::store::StoreError| ApiError::from(OnlineError::Store(e));
    let on = app.store.chat_on(u).await.map_err(map)?;
    let blocked = app.store.blocking(u).await.map_err(map)?;
    Ok((!on, blocked))
}

/// `GET /api/board/game/stream/{id}`: `gameFull`, then a line for every change, and a blank
/// keep-alive line every few seconds. With a seat's token the stream is that player's (the
/// opponent sees them connected); without, a spectator's.
#[utoipa::path(
    get,
    path = "/api/board/game/stream/{id}",
    tag = "board",
    params(
        ("id" = String, Path, description = "The live game's id (8 characters of `[0-9A-Za-z]`)"),
    ),
    security((), ("seat" = []), ("apiToken" = [])),
    responses(
        (status = 200, description = "Newline-delimited JSON events, without end: `gameFull` first, then `gameState`, `crowd`, `opponentGone`, `rematch`, `chatLine`; a blank keep-alive line every 5 s", body = Event, content_type = "application/x-ndjson"),
        (status = 429, description = "Over a per-client limit (docs/API.md, \"Limits per client\"); `Retry-After` says when to try again", body = super::error::ErrorBody),
        (status = 401, description = "No seat token (or a malformed `Authorization` header, or an unknown or revoked personal API token)", body = super::error::ErrorBody),
        (status = 403, description = "The token holds no seat of this game", body = super::error::ErrorBody),
        (status = 404, description = "No such game", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself (the store), never of the input", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting): nothing was stored; `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn game_stream(
    State(app): AppState,
    Path(id): Path<String>,
    v: Viewer,
    bearer: Bearer,
) -> ApiResult<Response> {
    let cred = cred_of(&app, bearer).await?;
    let (chat_off, blocked) = chat_filter(&app, v.0.as_ref().map(|u| u.id)).await?;
    let sub = app
        .hub
        .subscribe(&id, cred.as_ref().map(Cred::as_credential))
        .await?;
    let mut queue = VecDeque::new();
    queue.push_back(sub.first.clone());
    queue.extend(sub.extra.iter().cloned());
    let mut tick = tokio::time::interval(KEEP_ALIVE);
    tick.reset();
    let s = GameStream {
        hub: app.hub.clone(),
        queue,
        sub,
        tick,
        chat_off,
        blocked: blocked.into_iter().map(|(id, _)| id).collect(),
    };
    let stream = futures_util::stream::unfold(s, |mut s| async move {
        loop {
            if let Some(line) = s.queue.pop_front() {
                return Some((Ok::<_, Infallible>(Bytes::from(line)), s));
            }
            tokio::select! {
                m = s.sub.rx.recv() => match m {
                    Ok(Msg { to, line, chat, author }) => {
                        let unwanted = chat
                            && (s.chat_off || author.is_some_and(|a| s.blocked.contains(&a)));
                        if to.admits(s.sub.seat()) && !unwanted {
                            s.tick.reset();
                            return Some((Ok(Bytes::from(line.to_string())), s));
                        }
                    }
                    // Too far behind: the whole state again, so nothing is lost.
                    Err(RecvError::Lagged(_)) => {
                        let id = s.sub.id().to_owned();
                        match s.hub.full(&id).await {
                            Ok(line) => s.queue.push_back(line),
                            Err(_) => return None,
                        }
                    }
                    Err(RecvError::Closed) => return None,
                },
                _ = s.tick.tick() => return Some((Ok(Bytes::from_static(b"\n")), s)),
            }
        }
    });
    Ok(ndjson(HttpBody::from_stream(stream)))
}

/// `GET /api/lobby/stream`: the open seeks now, then after every change.
#[utoipa::path(
    get,
    path = "/api/lobby/stream",
    tag = "lobby",
    responses(
        (status = 200, description = "Newline-delimited JSON, without end: the open seeks now and after every change, keep-alive blank lines", body = SeeksLine, content_type = "application/x-ndjson"),
        (status = 429, description = "Over a per-client limit (docs/API.md, \"Limits per client\"); `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn lobby_stream(State(app): AppState) -> Response {
    let (first, rx) = app.hub.lobby();
    let mut tick = tokio::time::interval(KEEP_ALIVE);
    tick.reset();
    let init = (Some(first), rx, tick);
    let stream = futures_util::stream::unfold(init, |(first, mut rx, mut tick)| async move {
        if let Some(f) = first {
            return Some((
                Ok::<_, Infallible>(Bytes::from(f.to_string())),
                (None, rx, tick),
            ));
        }
        loop {
            tokio::select! {
                m = rx.recv() => match m {
                    Ok(line) => return Some((Ok(Bytes::from(line.to_string())), (None, rx, tick))),
                    Err(RecvError::Lagged(_)) => continue,
                    Err(RecvError::Closed) => return None,
                },
                _ = tick.tick() => return Some((Ok(Bytes::from_static(b"\n")), (None, rx, tick))),
            }
        }
    });
    ndjson(HttpBody::from_stream(stream))
}

/// A seat handed out by the lobby.
#[derive(Serialize, ToSchema)]
pub struct GameStart {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub id: String,
    pub color: &'static str,
    pub token: String,
    pub url: String,
}

/// `POST /api/board/seek`: opens a seek (fields `clock.limit`, `clock.increment`, `color`,
/// `name`) and streams `{"type":"seek","id":...}`, keep-alive lines while it waits, then
/// `{"type":"gameStart", "id", "color", "token", "url"}` when someone takes it. The seek goes
/// when this connection closes.
#[utoipa::path(
    post,
    path = "/api/board/seek",
    tag = "lobby",
    request_body(content((Option<SeekFields> = "application/json"), (Option<SeekFields> = "application/x-www-form-urlencoded")), description = "All fields optional"),
    security((), ("session" = []), ("apiToken" = [])),
    responses(
        (status = 200, description = "Newline-delimited JSON: `seek` with its id, keep-alive blank lines while it waits, then `gameStart` when taken", body = GameStart, content_type = "application/x-ndjson"),
        (status = 401, description = "An unknown or revoked API token", body = super::error::ErrorBody),
        (status = 403, description = "With the session cookie but without its CSRF token (or from another site)", body = super::error::ErrorBody),
        (status = 429, description = "Over a per-client limit (docs/API.md, \"Limits per client\"); `Retry-After` says when to try again", body = super::error::ErrorBody),
        (status = 400, description = "Malformed input: bad JSON or form, an unknown field, a wrong type or value", body = super::error::ErrorBody),
        (status = 413, description = "The request body is too large", body = super::error::ErrorBody),
        (status = 503, description = "Too many live games or seeks open, or the database cannot be reached now (nothing was stored); try again later", body = super::error::ErrorBody),
    )
)]
pub async fn seek(
    State(app): AppState,
    v: Viewer,
    JsonOrForm(f): JsonOrForm<SeekFields>,
) -> ApiResult<Response> {
    let tc = time_control(f.clock.as_ref())?;
    let days = days_of(f.days, f.clock.as_ref())?;
    let color = side_wish(f.color);
    let rated = f.rated.unwrap_or(false);
    let name = clean_name(f.name.as_deref(), "Anonymous");
    let (seek, grant, guard) = app
        .hub
        .seek(name, tc, days, color, seeker(&v), rated)
        .await?;
    let first = format!("{}\n", serde_json::json!({"type": "seek", "id": seek.id}));
    let mut tick = tokio::time::interval(KEEP_ALIVE);
    tick.reset();
    let init = (Some(first), Some(grant), tick, guard);
    let stream = futures_util::stream::unfold(init, |(first, grant, mut tick, guard)| async move {
        if let Some(f) = first {
            return Some((
                Ok::<_, Infallible>(Bytes::from(f)),
                (None, grant, tick, guard),
            ));
        }
        let mut grant = grant?;
        tokio::select! {
            g = &mut grant => {
                let g = g.ok()?;
                let v = GameStart {
                    kind: "gameStart",
                    url: page(&g.id, Some(g.token.as_str())),
                    color: g.color.name(),
                    token: g.token.as_str().to_owned(),
                    id: g.id,
                };
                let line = format!("{}\n", serde_json::to_string(&v).ok()?);
                Some((Ok(Bytes::from(line)), (None, None, tick, guard)))
            }
            _ = tick.tick() => Some((Ok(Bytes::from_static(b"\n")), (None, Some(grant), tick, guard))),
        }
    });
    Ok(ndjson(HttpBody::from_stream(stream)))
}

/// `POST /api/board/seek/{id}/accept`: takes a seek (field `name`); answers the taker's seat.
#[utoipa::path(
    post,
    path = "/api/board/seek/{id}/accept",
    tag = "lobby",
    params(
        ("id" = String, Path, description = "The seek's id"),
    ),
    request_body(content((Option<AcceptFields> = "application/json"), (Option<AcceptFields> = "application/x-www-form-urlencoded")), description = "All fields optional"),
    security((), ("session" = []), ("apiToken" = [])),
    responses(
        (status = 200, description = "The taker's seat", body = GameStart),
        (status = 401, description = "A rated seek taken without an account, or an unknown or revoked API token", body = super::error::ErrorBody),
        (status = 403, description = "With the session cookie but without its CSRF token (or from another site)", body = super::error::ErrorBody),
        (status = 409, description = "An account taking its own seek", body = super::error::ErrorBody),
        (status = 429, description = "Over a per-client limit (docs/API.md, \"Limits per client\"); `Retry-After` says when to try again", body = super::error::ErrorBody),
        (status = 400, description = "Malformed input: bad JSON or form, an unknown field, a wrong type or value", body = super::error::ErrorBody),
        (status = 404, description = "No such seek (or it was taken)", body = super::error::ErrorBody),
        (status = 413, description = "The request body is too large", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself (the store), never of the input", body = super::error::ErrorBody),
        (status = 503, description = "Too many live games or seeks open, or the database cannot be reached now (nothing was stored); try again later", body = super::error::ErrorBody),
    )
)]
pub async fn accept_seek(
    State(app): AppState,
    Path(id): Path<String>,
    v: Viewer,
    JsonOrForm(f): JsonOrForm<AcceptFields>,
) -> ApiResult<Json<GameStart>> {
    let name = clean_name(f.name.as_deref(), "Anonymous");
    let g = app.hub.accept(&id, name, seeker(&v)).await?;
    Ok(Json(GameStart {
        kind: "gameStart",
        url: page(&g.id, Some(g.token.as_str())),
        color: g.color.name(),
        token: g.token.as_str().to_owned(),
        id: g.id,
    }))
}

/// `POST /api/board/game/{id}/chat`: a line in the game's chat (lichess's fields `room` and
/// `text`). The players' room takes a seat's line (its token, or the account that holds the
/// seat); the spectators' room a logged-in spectator's (session or personal API token).
#[utoipa::path(
    post,
    path = "/api/board/game/{id}/chat",
    tag = "board",
    params(
        ("id" = String, Path, description = "The live game's id (8 characters of `[0-9A-Za-z]`)"),
    ),
    request_body(content((ChatFields = "application/json"), (ChatFields = "application/x-www-form-urlencoded"))),
    security(("seat" = []), ("session" = []), ("apiToken" = [])),
    responses(
        (status = 200, description = "Written: stored, then streamed to the room's readers as `chatLine`", body = Ok_),
        (status = 400, description = "Malformed input: not JSON or a form, an unknown field, a `room` that is neither `player` nor `spectator`, no `text`", body = super::error::ErrorBody),
        (status = 401, description = "The players' room without a seat's token, or the spectators' room without an account (or a malformed `Authorization` header, an unknown or revoked API token)", body = super::error::ErrorBody),
        (status = 403, description = "The players' room by someone who holds no seat; the spectators' room by a player while the game goes on; with the session cookie but without its CSRF token", body = super::error::ErrorBody),
        (status = 404, description = "No such game", body = super::error::ErrorBody),
        (status = 413, description = "The request body is too large", body = super::error::ErrorBody),
        (status = 422, description = "An empty line (once trimmed) or one over 140 characters (field `text`)", body = super::error::ErrorBody),
        (status = 429, description = "More than 5 lines in 10 s by one writer (or over a per-client limit); `Retry-After` says when to try again", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself (the store), never of the input", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting): nothing was stored; `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn board_chat(
    State(app): AppState,
    Path(id): Path<String>,
    bearer: Bearer,
    v: Viewer,
    JsonOrForm(f): JsonOrForm<ChatFields>,
) -> ApiResult<Json<Ok_>> {
    let text = f
        .text
        .ok_or_else(|| ApiError::bad("missing field 'text'").field("text"))?;
    let room = f.room.unwrap_or(ChatRoom::Player);
    let account = v.0.map(|u| (u.id, u.name));
    let cred = match cred_of(&app, bearer).await? {
        Some(c) => Some(c),
        None => account.as_ref().map(|(id, _)| Cred::Account(*id)),
    };
    app.hub
        .chat(
            &id,
            cred.as_ref().map(Cred::as_credential),
            account,
            room,
            &text,
        )
        .await?;
    Ok(Json(Ok_ { ok: true }))
}

/// `GET /api/board/game/{id}/chat`: the chat lines the caller may read, in order (at most the
/// last 200): a seat's (its token, or the account that holds it) the players' room, and the
/// spectators' too once the game has ended; anyone else the spectators' room. Lines of
/// accounts the caller's account blocks are left out, and all of them when its chat is off.
#[utoipa::path(
    get,
    path = "/api/board/game/{id}/chat",
    tag = "board",
    params(
        ("id" = String, Path, description = "The live game's id (8 characters of `[0-9A-Za-z]`)"),
    ),
    security((), ("seat" = []), ("session" = []), ("apiToken" = [])),
    responses(
        (status = 200, description = "The lines, as the stream's `chatLine` events", body = Vec<crate::online::events::ChatLine>),
        (status = 401, description = "A malformed `Authorization` header, or an unknown or revoked API token", body = super::error::ErrorBody),
        (status = 403, description = "A token that holds no seat of this game", body = super::error::ErrorBody),
        (status = 404, description = "No such game", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself (the store), never of the input", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting); `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn chat_history(
    State(app): AppState,
    Path(id): Path<String>,
    bearer: Bearer,
    v: Viewer,
) -> ApiResult<Response> {
    let user = v.0.as_ref().map(|u| u.id);
    let cred = match cred_of(&app, bearer).await? {
        Some(c) => Some(c),
        None => user.map(Cred::Account),
    };
    let lines = app
        .hub
        .chat_lines(&id, cred.as_ref().map(Cred::as_credential))
        .await?;
    let (off, blocked) = chat_filter(&app, user).await?;
    let mut out = Vec::new();
    if !off {
        for l in lines {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(&l) else {
                continue;
            };
            let by = v["user"].as_str();
            if !blocked.iter().any(|(_, n)| Some(n.as_str()) == by) {
                out.push(v);
            }
        }
    }
    let mut res = Json(out).into_response();
    res.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(res)
}

/// The answer to `GET /api/account/playing`.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NowPlayingList {
    /// The account's ongoing games: those where it is its turn first, least time left first.
    pub now_playing: Vec<NowPlaying>,
}

/// `GET /api/account/playing`: the account's ongoing live games, "your turn" first.
#[utoipa::path(
    get,
    path = "/api/account/playing",
    tag = "accounts",
    security(("session" = []), ("apiToken" = [])),
    responses(
        (status = 200, description = "The ongoing games (at most 200): where it is the account's turn first, least time left first", body = NowPlayingList),
        (status = 401, description = "Not logged in (no session or API token), or an unknown or revoked API token", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting); `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn playing(State(app): AppState, v: Viewer) -> ApiResult<Json<NowPlayingList>> {
    let Some(u) = v.0 else {
        return Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "your games need an account: log in (or send a personal API token)",
        ));
    };
    Ok(Json(NowPlayingList {
        now_playing: app.hub.playing(u.id).await?,
    }))
}

/// A seat's action on `/api/board/game/{id}/{action}`.
#[derive(Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum BoardAction {
    Resign,
    Abort,
    ClaimVictory,
    ClaimDraw,
}

/// What `/api/board/game/{id}/{offer}/{answer}` answers.
#[derive(Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Offer {
    Draw,
    Takeback,
    Rematch,
}

/// `yes` or `no`.
#[derive(Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Answer {
    Yes,
    No,
}

/// A board path whose words say what it does (`T`: the id and those words): a path that
/// is not one of them is no endpoint (`404`), as the router's own answer.
pub struct BoardPath<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for BoardPath<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        match Path::<T>::from_request_parts(parts, state).await {
            Ok(Path(t)) => Ok(BoardPath(t)),
            // The segments are readable text: a word is not one of the path's.
            Err(e) => match Path::<Vec<String>>::from_request_parts(parts, state).await {
                Ok(_) => Err(ApiError::new(StatusCode::NOT_FOUND, "no such API endpoint")),
                Err(_) => Err(e.into()),
            },
        }
    }
}
