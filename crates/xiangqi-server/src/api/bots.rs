//! lichess's Bot API (docs/API.md, "Bots"): the upgrade to a bot account, the accounts'
//! event stream, challenges between accounts, and `/api/bot/game/...`, which are the board
//! API's own handlers (`super::online`) behind the bot check of `Bearer` (a bot's personal
//! API token only; the board API refuses a bot's).

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;

use axum::body::{Body as HttpBody, Bytes};
use axum::extract::{Path, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;
use tokio::sync::broadcast::error::RecvError;
use utoipa::ToSchema;

use super::accounts::{User, Viewer};
use super::error::ApiError;
use super::online::{
    board_action, board_answer, board_chat, board_move, chat_history, days_of, game_stream,
    time_control, Answer, Bearer, BoardAction, BoardPath, Offer, Ok_,
};
use super::request::{
    ChatFields, DeclineFields, DirectChallengeFields, JsonOrForm, MoveQuery, Query,
};
use crate::accounts::AccountError;
use crate::online::hub::{ChallengeJson, DeclineReason, Party, KEEP_ALIVE};
use crate::online::lobby::SideWish;
use crate::rating::Speed;
use crate::store::accounts::AccountWrite;
use crate::store::Write;
use crate::App;

type AppState = State<Arc<App>>;
type ApiResult<T> = Result<T, ApiError>;

/// lichess's refusal of an upgrade of an account that has played.
pub const HAS_PLAYED: &str = "You already have games played. Make a new account.";

fn account(v: Viewer) -> ApiResult<User> {
    v.0.ok_or_else(|| {
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            "this needs an account's personal API token (Authorization: Bearer xqt_...)",
        )
    })
}

/// `POST /api/bot/account/upgrade`: the account becomes a bot, for good.
#[utoipa::path(
    post,
    path = "/api/bot/account/upgrade",
    tag = "bots",
    security(("apiToken" = []), ("session" = [])),
    responses(
        (status = 200, description = "The account is a bot (or was already)", body = Ok_),
        (status = 400, description = "The account has played games (lichess's refusal)", body = super::error::ErrorBody),
        (status = 401, description = "No account (or an unknown or revoked API token)", body = super::error::ErrorBody),
        (status = 403, description = "With the session cookie but without its CSRF token", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now; `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn upgrade(State(app): AppState, v: Viewer) -> ApiResult<Json<Ok_>> {
    let u = account(v)?;
    if u.bot {
        return Ok(Json(Ok_ { ok: true }));
    }
    let n = app
        .store
        .write(Write::Account(AccountWrite::UpgradeBot { user_id: u.id }))
        .await
        .map_err(AccountError::from)?;
    if n == 0 {
        return Err(ApiError::bad(HAS_PLAYED));
    }
    Ok(Json(Ok_ { ok: true }))
}

/// `GET /api/stream/event`: the account's ongoing games (`gameStart`) and challenges
/// (`challenge`) first, then every event as it comes, and a blank keep-alive line every 5 s.
#[utoipa::path(
    get,
    path = "/api/stream/event",
    tag = "bots",
    security(("apiToken" = []), ("session" = [])),
    responses(
        (status = 200, description = "Newline-delimited JSON: `gameStart`, `gameFinish`, `challenge`, `challengeCanceled`, `challengeDeclined`, and blank keep-alive lines", body = crate::online::hub::UserEvent, content_type = "application/x-ndjson"),
        (status = 401, description = "No account (or an unknown or revoked API token)", body = super::error::ErrorBody),
        (status = 429, description = "Over a per-client limit; `Retry-After` says when to try again", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself", body = super::error::ErrorBody),
        (status = 503, description = "The database or Redis cannot be reached now; try again", body = super::error::ErrorBody),
    )
)]
pub async fn event_stream(State(app): AppState, v: Viewer) -> ApiResult<Response> {
    let u = account(v)?;
    // Subscribed before the first lines are read: nothing falls between.
    let rx = app.hub.user_events();
    let first: VecDeque<String> = app.hub.first_events(u.id).await?.into();
    let mut tick = tokio::time::interval(KEEP_ALIVE);
    tick.reset();
    let hub = app.hub.clone();
    let user = u.id;
    let init = (first, rx, tick, hub);
    let stream = futures_util::stream::unfold(
        init,
        move |(mut q, mut rx, mut tick, hub)| async move {
            loop {
                if let Some(l) = q.pop_front() {
                    return Some((Ok::<_, Infallible>(Bytes::from(l)), (q, rx, tick, hub)));
                }
                tokio::select! {
                    m = rx.recv() => match m {
                        Ok((to, line)) if to == user => {
                            tick.reset();
                            return Some((Ok(Bytes::from(line.to_string())), (q, rx, tick, hub)));
                        }
                        Ok(_) => {}
                        // Too far behind: the games and challenges again.
                        Err(RecvError::Lagged(_)) => match hub.first_events(user).await {
                            Ok(v) => q.extend(v),
                            Err(_) => return None,
                        },
                        Err(RecvError::Closed) => return None,
                    },
                    _ = tick.tick() => return Some((Ok(Bytes::from_static(b"\n")), (q, rx, tick, hub))),
                }
            }
        },
    );
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/x-ndjson"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        HttpBody::from_stream(stream),
    )
        .into_response())
}

async fn party(app: &App, id: i64, name: String, bot: bool, speed: Speed) -> ApiResult<Party> {
    let r = app
        .store
        .rating_of(id, speed)
        .await
        .map_err(AccountError::from)?;
    Ok(Party {
        id,
        name,
        bot,
        rating: r.rating.round() as i64,
        provisional: r.provisional(),
    })
}

/// `POST /api/challenge/{username}`: challenges an account; it answers on its event stream.
#[utoipa::path(
    post,
    path = "/api/challenge/{username}",
    tag = "bots",
    params(("username" = String, Path, description = "The account challenged (any case)")),
    request_body(content((Option<DirectChallengeFields> = "application/json"), (Option<DirectChallengeFields> = "application/x-www-form-urlencoded")), description = "All fields optional"),
    security(("apiToken" = []), ("session" = [])),
    responses(
        (status = 200, description = "The challenge, as lichess's", body = ChallengeJson),
        (status = 400, description = "Malformed input (a field named), or yourself", body = super::error::ErrorBody),
        (status = 401, description = "No account (or an unknown or revoked API token)", body = super::error::ErrorBody),
        (status = 403, description = "The account blocks you, or takes no challenges from bots (`noBot`); the session without its CSRF token", body = super::error::ErrorBody),
        (status = 404, description = "No such player", body = super::error::ErrorBody),
        (status = 413, description = "The request body is too large", body = super::error::ErrorBody),
        (status = 429, description = "Too many challenges from this bot or client, or a bot paused after losses on time; `Retry-After` says when to try again", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself", body = super::error::ErrorBody),
        (status = 503, description = "Too many challenges open, or the database or Redis cannot be reached now", body = super::error::ErrorBody),
    )
)]
pub async fn create(
    State(app): AppState,
    Path(username): Path<String>,
    v: Viewer,
    JsonOrForm(f): JsonOrForm<DirectChallengeFields>,
) -> ApiResult<Json<ChallengeJson>> {
    let me = account(v)?;
    let tc = time_control(f.clock.as_ref())?;
    let days = days_of(f.days, f.clock.as_ref())?;
    let speed = Speed::of(if days.is_some() {
        None
    } else {
        tc.map(|t| (t.initial, t.increment))
    });
    let dest = app
        .store
        .user_by_key(&username.trim().to_lowercase())
        .await
        .map_err(AccountError::from)?
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::NOT_FOUND,
                format!("no player named '{username}'"),
            )
        })?;
    if dest.id == me.id {
        return Err(ApiError::bad("you cannot challenge yourself").field("username"));
    }
    if me.bot {
        app.hub.bot_take(me.id, false)?;
        app.hub.bot_not_paused(me.id).await?;
    }
    if super::accounts::blocks(&app, dest.id, me.id).await? {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            format!("{} does not accept your challenges", dest.name),
        ));
    }
    if me.bot
        && !dest.bot
        && !app
            .store
            .bot_challenges_on(dest.id)
            .await
            .map_err(AccountError::from)?
    {
        let r = DeclineReason::NoBot;
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            format!(
                "{} does not accept challenges from bots (declineReasonKey {}: {})",
                dest.name,
                r.key(),
                r.text()
            ),
        ));
    }
    let from = party(&app, me.id, me.name, me.bot, speed).await?;
    let to = party(&app, dest.id, dest.name, dest.bot, speed).await?;
    let color = f.color.map_or(SideWish::Random, |c| c.0);
    let c = app
        .hub
        .challenge(
            from,
            to,
            f.rated.unwrap_or(false),
            tc,
            days,
            color,
            f.fen.filter(|s| !s.trim().is_empty()),
        )
        .await?;
    Ok(Json(ChallengeJson::of(&c, "created", None)))
}

/// `GET /api/challenge`: the challenges to the account (`in`) and from it (`out`).
#[derive(Serialize, ToSchema)]
pub struct ChallengeLists {
    #[serde(rename = "in")]
    pub incoming: Vec<ChallengeJson>,
    #[serde(rename = "out")]
    pub outgoing: Vec<ChallengeJson>,
}

/// `GET /api/challenge`
#[utoipa::path(
    get,
    path = "/api/challenge",
    tag = "bots",
    security(("apiToken" = []), ("session" = [])),
    responses(
        (status = 200, description = "The challenges waiting for an answer", body = ChallengeLists),
        (status = 401, description = "No account (or an unknown or revoked API token)", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself", body = super::error::ErrorBody),
        (status = 503, description = "Redis cannot be reached now", body = super::error::ErrorBody),
    )
)]
pub async fn list(State(app): AppState, v: Viewer) -> ApiResult<Json<ChallengeLists>> {
    let me = account(v)?;
    let all = app.hub.challenges_of(me.id).await?;
    let (out, inc): (Vec<_>, Vec<_>) = all.iter().partition(|c| c.from.id == me.id);
    let json = |v: Vec<&crate::online::hub::Challenge>| {
        v.into_iter()
            .map(|c| ChallengeJson::of(c, "created", Some(me.id)))
            .collect()
    };
    Ok(Json(ChallengeLists {
        incoming: json(inc),
        outgoing: json(out),
    }))
}

/// `POST /api/challenge/{id}/accept`: the game starts (`gameStart` on both event streams);
/// its id is the challenge's.
#[utoipa::path(
    post,
    path = "/api/challenge/{id}/accept",
    tag = "bots",
    params(("id" = String, Path, description = "The challenge's id")),
    security(("apiToken" = []), ("session" = [])),
    responses(
        (status = 200, description = "Accepted: the game has started", body = Ok_),
        (status = 401, description = "No account (or an unknown or revoked API token)", body = super::error::ErrorBody),
        (status = 403, description = "Not the challenged account; the session without its CSRF token", body = super::error::ErrorBody),
        (status = 404, description = "No such challenge (or it was answered)", body = super::error::ErrorBody),
        (status = 429, description = "Too many challenges from this bot, or a bot paused after losses on time; `Retry-After` says when to try again", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself", body = super::error::ErrorBody),
        (status = 503, description = "The database or Redis cannot be reached now", body = super::error::ErrorBody),
    )
)]
pub async fn accept(
    State(app): AppState,
    Path(id): Path<String>,
    v: Viewer,
) -> ApiResult<Json<Ok_>> {
    let me = account(v)?;
    if me.bot {
        app.hub.bot_take(me.id, false)?;
        app.hub.bot_not_paused(me.id).await?;
    }
    app.hub.accept_challenge(&id, me.id).await?;
    Ok(Json(Ok_ { ok: true }))
}

/// `POST /api/challenge/{id}/decline` (field `reason`): the challenger is told why.
#[utoipa::path(
    post,
    path = "/api/challenge/{id}/decline",
    tag = "bots",
    params(("id" = String, Path, description = "The challenge's id")),
    request_body(content((Option<DeclineFields> = "application/json"), (Option<DeclineFields> = "application/x-www-form-urlencoded")), description = "All fields optional"),
    security(("apiToken" = []), ("session" = [])),
    responses(
        (status = 200, description = "Declined", body = Ok_),
        (status = 400, description = "Malformed input, or a reason lichess does not have (field `reason`)", body = super::error::ErrorBody),
        (status = 401, description = "No account (or an unknown or revoked API token)", body = super::error::ErrorBody),
        (status = 403, description = "Not the challenged account; the session without its CSRF token", body = super::error::ErrorBody),
        (status = 404, description = "No such challenge (or it was answered)", body = super::error::ErrorBody),
        (status = 413, description = "The request body is too large", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself", body = super::error::ErrorBody),
        (status = 503, description = "Redis cannot be reached now", body = super::error::ErrorBody),
    )
)]
pub async fn decline(
    State(app): AppState,
    Path(id): Path<String>,
    v: Viewer,
    JsonOrForm(f): JsonOrForm<DeclineFields>,
) -> ApiResult<Json<Ok_>> {
    let me = account(v)?;
    let reason = match f.reason.as_deref() {
        None | Some("") => DeclineReason::Generic,
        Some(r) => DeclineReason::parse(r).ok_or_else(|| {
            ApiError::bad(format!(
                "reason must be one of generic, later, tooFast, tooSlow, timeControl, rated, \
                 casual, standard, variant, noBot, onlyBot, not '{r}'"
            ))
            .field("reason")
        })?,
    };
    app.hub.decline_challenge(&id, me.id, reason).await?;
    Ok(Json(Ok_ { ok: true }))
}

/// `POST /api/challenge/{id}/cancel`: withdraws a challenge (both accounts are told).
#[utoipa::path(
    post,
    path = "/api/challenge/{id}/cancel",
    tag = "bots",
    params(("id" = String, Path, description = "The challenge's id")),
    security(("apiToken" = []), ("session" = [])),
    responses(
        (status = 200, description = "Cancelled", body = Ok_),
        (status = 401, description = "No account (or an unknown or revoked API token)", body = super::error::ErrorBody),
        (status = 403, description = "Neither the challenger nor the challenged; the session without its CSRF token", body = super::error::ErrorBody),
        (status = 404, description = "No such challenge (or it was answered)", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself", body = super::error::ErrorBody),
        (status = 503, description = "Redis cannot be reached now", body = super::error::ErrorBody),
    )
)]
pub async fn cancel(
    State(app): AppState,
    Path(id): Path<String>,
    v: Viewer,
) -> ApiResult<Json<Ok_>> {
    let me = account(v)?;
    app.hub.cancel_challenge(&id, me.id).await?;
    Ok(Json(Ok_ { ok: true }))
}

/// `GET /api/bot/game/stream/{id}`: the board API's game stream, for a bot's token.
#[utoipa::path(
    get,
    path = "/api/bot/game/stream/{id}",
    tag = "bots",
    params(("id" = String, Path, description = "The live game's id")),
    security(("apiToken" = [])),
    responses(
        (status = 200, description = "As `GET /api/board/game/stream/{id}`: `gameFull`, then `gameState`, `chatLine` ... and keep-alive lines", body = crate::online::events::Event, content_type = "application/x-ndjson"),
        (status = 401, description = "No bot token (no token, a seat's token, an unknown or revoked one)", body = super::error::ErrorBody),
        (status = 403, description = "A person's token, or a bot holding no seat of this game", body = super::error::ErrorBody),
        (status = 404, description = "No such game", body = super::error::ErrorBody),
        (status = 429, description = "Over a per-client limit", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself", body = super::error::ErrorBody),
        (status = 503, description = "The game's node or Redis cannot be reached now", body = super::error::ErrorBody),
    )
)]
pub async fn stream(
    state: AppState,
    id: Path<String>,
    v: Viewer,
    bearer: Bearer,
) -> ApiResult<Response> {
    game_stream(state, id, v, bearer).await
}

/// `POST /api/bot/game/{id}/move/{move}` (`?offeringDraw=true` offers a draw with it).
#[utoipa::path(
    post,
    path = "/api/bot/game/{id}/move/{move}",
    tag = "bots",
    params(
        ("id" = String, Path, description = "The live game's id"),
        ("move" = String, Path, description = "The move (UCI, or any notation, percent-encoded)"),
        MoveQuery,
    ),
    security(("apiToken" = [])),
    responses(
        (status = 200, description = "Done", body = Ok_),
        (status = 400, description = "A bad query (`offeringDraw` not true or false)", body = super::error::ErrorBody),
        (status = 401, description = "No bot token (no token, a seat's token, an unknown or revoked one)", body = super::error::ErrorBody),
        (status = 403, description = "A person's token, or a bot holding no seat of this game", body = super::error::ErrorBody),
        (status = 404, description = "No such game", body = super::error::ErrorBody),
        (status = 409, description = "Not your turn, the game over", body = super::error::ErrorBody),
        (status = 422, description = "A move that cannot be read or is not legal, naming it", body = super::error::ErrorBody),
        (status = 429, description = "Too many moves from this bot or client; `Retry-After` says when to try again", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself", body = super::error::ErrorBody),
        (status = 503, description = "The database, the game's node or Redis cannot be reached now", body = super::error::ErrorBody),
    )
)]
pub async fn bot_move(
    state: AppState,
    path: Path<(String, String)>,
    q: Query<MoveQuery>,
    bearer: Bearer,
) -> ApiResult<Json<Ok_>> {
    board_move(state, path, q, bearer).await
}

/// `POST /api/bot/game/{id}/{action}`: resign, abort, claim-victory, claim-draw.
#[utoipa::path(
    post,
    path = "/api/bot/game/{id}/{action}",
    tag = "bots",
    params(
        ("id" = String, Path, description = "The live game's id"),
        ("action" = BoardAction, Path, description = "What the bot does (another word: `404`)"),
    ),
    security(("apiToken" = [])),
    responses(
        (status = 200, description = "Done", body = Ok_),
        (status = 401, description = "No bot token (no token, a seat's token, an unknown or revoked one)", body = super::error::ErrorBody),
        (status = 403, description = "A person's token, or a bot holding no seat of this game", body = super::error::ErrorBody),
        (status = 404, description = "No such game (or action)", body = super::error::ErrorBody),
        (status = 409, description = "Refused in the game's state", body = super::error::ErrorBody),
        (status = 429, description = "Too many actions from this bot or client; `Retry-After` says when to try again", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself", body = super::error::ErrorBody),
        (status = 503, description = "The database, the game's node or Redis cannot be reached now", body = super::error::ErrorBody),
    )
)]
pub async fn bot_action(
    state: AppState,
    path: BoardPath<(String, BoardAction)>,
    bearer: Bearer,
) -> ApiResult<Json<Ok_>> {
    board_action(state, path, bearer).await
}

/// `POST /api/bot/game/{id}/{offer}/{yes|no}`: draw, takeback, rematch.
#[utoipa::path(
    post,
    path = "/api/bot/game/{id}/{offer}/{answer}",
    tag = "bots",
    params(
        ("id" = String, Path, description = "The live game's id"),
        ("offer" = Offer, Path, description = "What is offered or asked for (another word: `404`)"),
        ("answer" = Answer, Path, description = "`yes` or `no` (another word: `404`)"),
    ),
    security(("apiToken" = [])),
    responses(
        (status = 200, description = "Done", body = Ok_),
        (status = 401, description = "No bot token (no token, a seat's token, an unknown or revoked one)", body = super::error::ErrorBody),
        (status = 403, description = "A person's token, or a bot holding no seat of this game", body = super::error::ErrorBody),
        (status = 404, description = "No such game (or offer, or answer)", body = super::error::ErrorBody),
        (status = 409, description = "Refused in the game's state", body = super::error::ErrorBody),
        (status = 429, description = "Too many actions from this bot or client; `Retry-After` says when to try again", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself", body = super::error::ErrorBody),
        (status = 503, description = "The database, the game's node or Redis cannot be reached now", body = super::error::ErrorBody),
    )
)]
pub async fn bot_answer(
    state: AppState,
    path: BoardPath<(String, Offer, Answer)>,
    bearer: Bearer,
) -> ApiResult<Json<Ok_>> {
    board_answer(state, path, bearer).await
}

/// `POST /api/bot/game/{id}/chat`: as the board API's, for a bot's token.
#[utoipa::path(
    post,
    path = "/api/bot/game/{id}/chat",
    tag = "bots",
    params(("id" = String, Path, description = "The live game's id")),
    request_body(content((ChatFields = "application/json"), (ChatFields = "application/x-www-form-urlencoded"))),
    security(("apiToken" = [])),
    responses(
        (status = 200, description = "Written", body = Ok_),
        (status = 400, description = "Malformed input", body = super::error::ErrorBody),
        (status = 401, description = "No bot token (no token, a seat's token, an unknown or revoked one)", body = super::error::ErrorBody),
        (status = 403, description = "A person's token, a bot holding no seat of this game, the spectators' room during the game", body = super::error::ErrorBody),
        (status = 404, description = "No such game", body = super::error::ErrorBody),
        (status = 413, description = "The request body is too large", body = super::error::ErrorBody),
        (status = 422, description = "An empty line or one over 140 characters (field `text`)", body = super::error::ErrorBody),
        (status = 429, description = "More than 5 lines in 10 s; `Retry-After` says when to try again", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself", body = super::error::ErrorBody),
        (status = 503, description = "The database, the game's node or Redis cannot be reached now", body = super::error::ErrorBody),
    )
)]
pub async fn bot_chat(
    state: AppState,
    id: Path<String>,
    bearer: Bearer,
    v: Viewer,
    body: JsonOrForm<ChatFields>,
) -> ApiResult<Json<Ok_>> {
    board_chat(state, id, bearer, v, body).await
}

/// `GET /api/bot/game/{id}/chat`: as the board API's, for a bot's token.
#[utoipa::path(
    get,
    path = "/api/bot/game/{id}/chat",
    tag = "bots",
    params(("id" = String, Path, description = "The live game's id")),
    security(("apiToken" = [])),
    responses(
        (status = 200, description = "The lines, as the stream's `chatLine` events", body = Vec<crate::online::events::ChatLine>),
        (status = 401, description = "No bot token (no token, a seat's token, an unknown or revoked one)", body = super::error::ErrorBody),
        (status = 403, description = "A person's token, or a bot holding no seat of this game", body = super::error::ErrorBody),
        (status = 404, description = "No such game", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now", body = super::error::ErrorBody),
    )
)]
pub async fn bot_chat_history(
    state: AppState,
    id: Path<String>,
    bearer: Bearer,
    v: Viewer,
) -> ApiResult<Response> {
    chat_history(state, id, bearer, v).await
}
