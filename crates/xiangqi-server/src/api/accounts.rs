//! Accounts over HTTP (docs/API.md, "Accounts"): register, log in and out, the account and
//! its password, personal API tokens, profiles and leaderboards; and `Viewer`, the account
//! a request acts for (its session cookie, with the CSRF token on state changes, or a
//! personal API token as `Authorization: Bearer`).

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{ConnectInfo, FromRequestParts, Path, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;
use utoipa::ToSchema;

use super::error::ApiError;
use super::lang::Lang;
use super::online::Ok_;
use super::request::{
    missing, Credentials, JsonOrForm, PasswordChange, PreferenceFields, TokenFields,
};
use crate::accounts::{AccountError, NewSession, SESSION_MS, TOKEN_PREFIX};
use crate::rating::{Rating, Speed, START};
use crate::store::accounts::RatingRow;
use crate::store::chat::ChatWrite;
use crate::App;

type AppState = State<Arc<App>>;
type ApiResult<T> = Result<T, ApiError>;

/// The session cookie's name.
pub const COOKIE: &str = "xq_session";
/// The header that carries the CSRF token of a session.
pub const CSRF_HEADER: &str = "x-csrf-token";

impl From<AccountError> for ApiError {
    fn from(e: AccountError) -> ApiError {
        let msg = e.to_string();
        match e {
            AccountError::Bad { field, .. } => ApiError::bad(msg).field(field),
            AccountError::NameTaken | AccountError::TooManyTokens => {
                ApiError::new(StatusCode::CONFLICT, msg)
            }
            AccountError::WrongLogin => ApiError::new(StatusCode::UNAUTHORIZED, msg),
            AccountError::TooMany { retry, .. } => {
                let mut a = ApiError::new(StatusCode::TOO_MANY_REQUESTS, msg);
                a.retry_after = Some(retry);
                a
            }
            AccountError::NoSuchToken => ApiError::new(StatusCode::NOT_FOUND, msg),
            AccountError::Store(e) if e.is_unavailable() => ApiError::unavailable(msg),
            AccountError::Store(_) | AccountError::Internal(_) => {
                ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, msg)
            }
        }
    }
}

/// How a request proved its account.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Via {
    /// The session cookie (its secret).
    Session(String),
    /// A personal API token.
    Token,
}

/// An account a request acts for.
#[derive(Clone, Debug)]
pub struct User {
    pub id: i64,
    pub name: String,
    pub via: Via,
    /// The session's CSRF token.
    pub csrf: Option<String>,
    /// A bot account.
    pub bot: bool,
}

/// The account a request acts for, if any: `Authorization: Bearer xqt_...` (a personal API
/// token), else the session cookie. With the cookie, a state change (any method but GET and
/// HEAD) must carry the session's CSRF token in `X-CSRF-Token` and, when the browser sends
/// an `Origin`, come from this server's own origin; else `403`. An unknown or revoked API
/// token is `401`; an unknown or ended session is no account (a guest).
pub struct Viewer(pub Option<User>);

fn cookie(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == COOKIE)
        .map(|(_, v)| v.trim().to_owned())
        .filter(|v| !v.is_empty())
}

/// Whether the request's `Origin` (when it has one) is this server's.
pub fn same_origin(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    let host = headers
        .get("x-forwarded-host")
        .or_else(|| headers.get(header::HOST))
        .and_then(|h| h.to_str().ok());
    let Some(rest) = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
    else {
        return false;
    };
    host.is_some_and(|h| h.eq_ignore_ascii_case(rest))
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    let v = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, t) = v.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| t.trim())
        .filter(|t| !t.is_empty())
}

fn forbidden(msg: &str) -> ApiError {
    ApiError::new(StatusCode::FORBIDDEN, msg)
}

impl FromRequestParts<Arc<App>> for Viewer {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, app: &Arc<App>) -> Result<Self, ApiError> {
        if let Some(t) = bearer(&parts.headers).filter(|t| t.starts_with(TOKEN_PREFIX)) {
            return match app.accounts.token_user(t).await? {
                Some((id, name, bot)) => Ok(Viewer(Some(User {
                    id,
                    name,
                    via: Via::Token,
                    csrf: None,
                    bot,
                }))),
                None => Err(ApiError::new(
                    StatusCode::UNAUTHORIZED,
                    "unknown or revoked API token",
                )),
            };
        }
        let Some(secret) = cookie(&parts.headers) else {
            return Ok(Viewer(None));
        };
        let Some(s) = app.accounts.session(&secret).await? else {
            return Ok(Viewer(None));
        };
        if parts.method != Method::GET && parts.method != Method::HEAD {
            let sent = parts
                .headers
                .get(CSRF_HEADER)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("");
            if !crate::accounts::same(sent, &s.csrf) {
                return Err(forbidden(
                    "a change made with the session cookie needs the session's CSRF token in the X-CSRF-Token header",
                ));
            }
            if !same_origin(&parts.headers) {
                return Err(forbidden("a request from another site's page is refused"));
            }
        }
        Ok(Viewer(Some(User {
            id: s.user_id,
            name: s.name,
            via: Via::Session(secret),
            csrf: Some(s.csrf),
            bot: s.bot,
        })))
    }
}

/// The client's address, when the server was started with it (`xiangqi serve` is).
pub struct Client(pub Option<IpAddr>);

impl<S: Send + Sync> FromRequestParts<S> for Client {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        Ok(Client(
            parts
                .extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map(|c| c.0.ip()),
        ))
    }
}

fn logged_in(v: Viewer) -> ApiResult<User> {
    v.0.ok_or_else(|| {
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            "this needs an account: log in (or send a personal API token)",
        )
    })
}

fn session_of(v: Viewer) -> ApiResult<(User, String)> {
    let u = logged_in(v)?;
    match u.via.clone() {
        Via::Session(s) => Ok((u, s)),
        Via::Token => Err(forbidden(
            "this needs a logged-in session (the account page), not an API token",
        )),
    }
}

fn secure(app: &App, headers: &HeaderMap) -> bool {
    app.https
        || headers
            .get("x-forwarded-proto")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.eq_ignore_ascii_case("https"))
}

fn set_cookie(value: &str, max_age: i64, secure: bool) -> HeaderValue {
    let mut c = format!("{COOKIE}={value}; Path=/; HttpOnly; SameSite=Lax; Max-Age={max_age}");
    if secure {
        c.push_str("; Secure");
    }
    HeaderValue::from_str(&c).expect("a cookie of hex digits")
}

/// The answer to registering, logging in, changing the password.
#[derive(Serialize, ToSchema)]
pub struct Session {
    /// The account's name.
    pub name: String,
    /// Send it back as `X-CSRF-Token` with every change made with the session cookie.
    pub csrf: String,
}

fn session_response(app: &App, headers: &HeaderMap, s: NewSession) -> Response {
    let mut res = Json(Session {
        name: s.name,
        csrf: s.csrf,
    })
    .into_response();
    res.headers_mut().insert(
        header::SET_COOKIE,
        set_cookie(&s.secret, SESSION_MS / 1000, secure(app, headers)),
    );
    res.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}

fn credentials(c: Credentials) -> ApiResult<(String, String)> {
    let u = c.username.ok_or_else(|| missing("username"))?;
    let p = c.password.ok_or_else(|| missing("password"))?;
    Ok((u, p))
}

fn check_origin(headers: &HeaderMap) -> ApiResult<()> {
    if same_origin(headers) {
        Ok(())
    } else {
        Err(forbidden("a request from another site's page is refused"))
    }
}

/// `POST /api/account/register`: a new account, logged in at once.
#[utoipa::path(
    post,
    path = "/api/account/register",
    tag = "accounts",
    request_body(content((Credentials = "application/json"), (Credentials = "application/x-www-form-urlencoded"))),
    responses(
        (status = 200, description = "The account, logged in: the session cookie is set (`HttpOnly`, `SameSite=Lax`, `Secure` over https)", body = Session),
        (status = 400, description = "Malformed input: a username of 2 to 30 characters without control characters, a password of 8 to 256", body = super::error::ErrorBody),
        (status = 403, description = "Sent from another site's page (`Origin`)", body = super::error::ErrorBody),
        (status = 409, description = "The username is taken (in any case)", body = super::error::ErrorBody),
        (status = 413, description = "The request body is too large", body = super::error::ErrorBody),
        (status = 429, description = "Too many attempts from this address; `Retry-After` says when to try again", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting): nothing was stored; `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn register(
    State(app): AppState,
    Client(ip): Client,
    headers: HeaderMap,
    JsonOrForm(c): JsonOrForm<Credentials>,
) -> ApiResult<Response> {
    check_origin(&headers)?;
    let (u, p) = credentials(c)?;
    let s = app.accounts.register(&u, &p, ip).await?;
    Ok(session_response(&app, &headers, s))
}

/// `POST /api/account/login`.
#[utoipa::path(
    post,
    path = "/api/account/login",
    tag = "accounts",
    request_body(content((Credentials = "application/json"), (Credentials = "application/x-www-form-urlencoded"))),
    responses(
        (status = 200, description = "Logged in: the session cookie is set", body = Session),
        (status = 400, description = "Malformed input: a field missing or not a string", body = super::error::ErrorBody),
        (status = 401, description = "Wrong username or password (the same answer, in the same time, for both)", body = super::error::ErrorBody),
        (status = 403, description = "Sent from another site's page (`Origin`)", body = super::error::ErrorBody),
        (status = 413, description = "The request body is too large", body = super::error::ErrorBody),
        (status = 429, description = "Too many failed log-ins for this account, or attempts from this address; `Retry-After` says when to try again", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting): nothing was stored; `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn login(
    State(app): AppState,
    Client(ip): Client,
    headers: HeaderMap,
    JsonOrForm(c): JsonOrForm<Credentials>,
) -> ApiResult<Response> {
    check_origin(&headers)?;
    let (u, p) = credentials(c)?;
    let s = app.accounts.login(&u, &p, ip).await?;
    Ok(session_response(&app, &headers, s))
}

/// `POST /api/account/logout`: ends this session.
#[utoipa::path(
    post,
    path = "/api/account/logout",
    tag = "accounts",
    security(("session" = [])),
    responses(
        (status = 200, description = "The session has ended; the cookie is cleared", body = Ok_),
        (status = 401, description = "Not logged in (or a revoked API token)", body = super::error::ErrorBody),
        (status = 403, description = "Without the session's CSRF token, from another site, or with an API token", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting): nothing was stored; `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn logout(State(app): AppState, headers: HeaderMap, v: Viewer) -> ApiResult<Response> {
    let (_, secret) = session_of(v)?;
    app.accounts.logout(&secret).await?;
    let mut res = Json(Ok_ { ok: true }).into_response();
    res.headers_mut().insert(
        header::SET_COOKIE,
        set_cookie("", 0, secure(&app, &headers)),
    );
    Ok(res)
}

/// A rating of one speed.
#[derive(Serialize, ToSchema)]
pub struct RatingJson {
    pub speed: Speed,
    /// Rounded to a whole number.
    pub rating: i64,
    pub rd: i64,
    /// The deviation is above 110: shown with a `?`.
    pub provisional: bool,
    /// Rated games played at this speed.
    pub games: i64,
}

fn rating_json(speed: Speed, r: Rating, games: i64) -> RatingJson {
    RatingJson {
        speed,
        rating: r.rating.round() as i64,
        rd: r.rd.round() as i64,
        provisional: r.provisional(),
        games,
    }
}

/// Every speed's rating, the starting one where none was played.
fn all_ratings(rows: &[RatingRow]) -> Vec<RatingJson> {
    Speed::ALL
        .into_iter()
        .map(|s| match rows.iter().find(|r| r.speed == s) {
            Some(r) => rating_json(s, r.rating, r.games),
            None => rating_json(s, START, 0),
        })
        .collect()
}

/// `GET /api/account`.
#[derive(Serialize, ToSchema)]
pub struct Me {
    pub name: String,
    /// The session's CSRF token (absent with an API token).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub csrf: Option<String>,
    pub ratings: Vec<RatingJson>,
    /// The game chat on or off (`POST /api/account/preferences`).
    pub chat: bool,
    /// The accounts it blocks (`POST /api/rel/block/{username}`), by name.
    pub blocking: Vec<String>,
    /// `BOT` for a bot account (`POST /api/bot/account/upgrade`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<&'static str>,
    /// Takes challenges from bots (`POST /api/account/preferences`, `bots`).
    pub bots: bool,
    /// The language the account chose for the app (`POST /api/account/preferences`,
    /// `lang`); absent until one is chosen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lang: Option<Lang>,
}

/// `GET /api/account`: who is logged in.
#[utoipa::path(
    get,
    path = "/api/account",
    tag = "accounts",
    security((), ("session" = []), ("apiToken" = [])),
    responses(
        (status = 200, description = "The account, its CSRF token and its ratings", body = Me),
        (status = 401, description = "Not logged in (or a revoked API token)", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting): nothing was stored; `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn me(State(app): AppState, v: Viewer) -> ApiResult<Response> {
    let u = logged_in(v)?;
    let ratings = app.store.ratings(u.id).await.map_err(AccountError::from)?;
    let chat = app.store.chat_on(u.id).await.map_err(AccountError::from)?;
    let blocking = app.store.blocking(u.id).await.map_err(AccountError::from)?;
    let bots = app
        .store
        .bot_challenges_on(u.id)
        .await
        .map_err(AccountError::from)?;
    // A stored code this server does not know (written by a later version) counts as none.
    let lang = app
        .store
        .lang_of(u.id)
        .await
        .map_err(AccountError::from)?
        .and_then(|c| Lang::ALL.into_iter().find(|l| l.code() == c));
    let mut res = Json(Me {
        title: u.bot.then_some("BOT"),
        bots,
        lang,
        name: u.name,
        csrf: u.csrf,
        ratings: all_ratings(&ratings),
        chat,
        blocking: blocking.into_iter().map(|(_, n)| n).collect(),
    })
    .into_response();
    res.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(res)
}

/// `POST /api/account/password`: a new password; every session of the account ends, this
/// client gets a new one.
#[utoipa::path(
    post,
    path = "/api/account/password",
    tag = "accounts",
    security(("session" = [])),
    request_body(content((PasswordChange = "application/json"), (PasswordChange = "application/x-www-form-urlencoded"))),
    responses(
        (status = 200, description = "Changed; a new session cookie and CSRF token", body = Session),
        (status = 400, description = "The current password is wrong, or the new one too short or long", body = super::error::ErrorBody),
        (status = 401, description = "Not logged in", body = super::error::ErrorBody),
        (status = 403, description = "Without the session's CSRF token, from another site, or with an API token", body = super::error::ErrorBody),
        (status = 413, description = "The request body is too large", body = super::error::ErrorBody),
        (status = 429, description = "Too many failed attempts; `Retry-After` says when to try again", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting): nothing was stored; `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn password(
    State(app): AppState,
    Client(ip): Client,
    headers: HeaderMap,
    v: Viewer,
    JsonOrForm(f): JsonOrForm<PasswordChange>,
) -> ApiResult<Response> {
    let (u, _) = session_of(v)?;
    let current = f.current.ok_or_else(|| missing("current"))?;
    let new = f.new.ok_or_else(|| missing("new"))?;
    let s = app
        .accounts
        .change_password(u.id, &current, &new, ip)
        .await?;
    Ok(session_response(&app, &headers, s))
}

/// A personal API token as listed (never the token itself).
#[derive(Serialize, ToSchema)]
pub struct TokenJson {
    pub id: i64,
    pub label: String,
    /// ms since the epoch.
    pub created: i64,
}

/// `GET /api/account/tokens`: this account's personal API tokens.
#[utoipa::path(
    get,
    path = "/api/account/tokens",
    tag = "accounts",
    security(("session" = [])),
    responses(
        (status = 200, description = "The tokens (labels and dates; a token is shown only when created)", body = Vec<TokenJson>),
        (status = 401, description = "Not logged in", body = super::error::ErrorBody),
        (status = 403, description = "With an API token (tokens are managed with a session)", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting): nothing was stored; `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn tokens(State(app): AppState, v: Viewer) -> ApiResult<Json<Vec<TokenJson>>> {
    let (u, _) = session_of(v)?;
    let rows = app.accounts.tokens(u.id).await?;
    Ok(Json(
        rows.into_iter()
            .map(|t| TokenJson {
                id: t.id,
                label: t.label,
                created: t.created,
            })
            .collect(),
    ))
}

/// A new personal API token: shown this once.
#[derive(Serialize, ToSchema)]
pub struct NewToken {
    pub id: i64,
    pub label: String,
    /// `xqt_` and 64 hex digits: send it as `Authorization: Bearer TOKEN`.
    pub token: String,
}

/// `POST /api/account/tokens`: a new personal API token.
#[utoipa::path(
    post,
    path = "/api/account/tokens",
    tag = "accounts",
    security(("session" = [])),
    request_body(content((Option<TokenFields> = "application/json"), (Option<TokenFields> = "application/x-www-form-urlencoded")), description = "All fields optional"),
    responses(
        (status = 200, description = "The token, shown this once (the server keeps only its hash)", body = NewToken),
        (status = 400, description = "Malformed input: a label over 60 characters, an unknown field", body = super::error::ErrorBody),
        (status = 401, description = "Not logged in", body = super::error::ErrorBody),
        (status = 403, description = "Without the session's CSRF token, from another site, or with an API token", body = super::error::ErrorBody),
        (status = 409, description = "The account has 20 tokens already", body = super::error::ErrorBody),
        (status = 413, description = "The request body is too large", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting): nothing was stored; `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn create_token(
    State(app): AppState,
    v: Viewer,
    JsonOrForm(f): JsonOrForm<TokenFields>,
) -> ApiResult<Json<NewToken>> {
    let (u, _) = session_of(v)?;
    let label = f.label.unwrap_or_default();
    let (id, token) = app.accounts.create_token(u.id, &label).await?;
    let label = app
        .accounts
        .tokens(u.id)
        .await?
        .into_iter()
        .find(|t| t.id == id)
        .map(|t| t.label)
        .unwrap_or_default();
    Ok(Json(NewToken { id, label, token }))
}

/// `DELETE /api/account/tokens/{id}`: revokes one of this account's tokens.
#[utoipa::path(
    delete,
    path = "/api/account/tokens/{id}",
    tag = "accounts",
    security(("session" = [])),
    params(("id" = i64, Path, description = "The token's id")),
    responses(
        (status = 200, description = "Revoked: it is refused from now on", body = Ok_),
        (status = 400, description = "The id is not a whole number", body = super::error::ErrorBody),
        (status = 401, description = "Not logged in", body = super::error::ErrorBody),
        (status = 403, description = "Without the session's CSRF token, from another site, or with an API token", body = super::error::ErrorBody),
        (status = 404, description = "No token of this account has this id", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting): nothing was stored; `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn revoke_token(
    State(app): AppState,
    v: Viewer,
    Path(id): Path<String>,
) -> ApiResult<Json<Ok_>> {
    let (u, _) = session_of(v)?;
    let id: i64 = id
        .parse()
        .map_err(|_| ApiError::bad(format!("token id '{id}' is not a whole number")).field("id"))?;
    app.accounts.revoke_token(u.id, id).await?;
    Ok(Json(Ok_ { ok: true }))
}

/// `POST /api/account/preferences`: the account's preferences: `chat` on or off, `bots`
/// (take bots' challenges) and `lang`, the app's language.
#[utoipa::path(
    post,
    path = "/api/account/preferences",
    tag = "accounts",
    security(("session" = []), ("apiToken" = [])),
    request_body(content((PreferenceFields = "application/json"), (PreferenceFields = "application/x-www-form-urlencoded"))),
    responses(
        (status = 200, description = "Stored", body = Ok_),
        (status = 400, description = "Malformed input: an unknown field, a value that is not a boolean, a language that is not en, zh-Hans, zh-Hant or vi", body = super::error::ErrorBody),
        (status = 401, description = "Not logged in (or a revoked API token)", body = super::error::ErrorBody),
        (status = 403, description = "Without the session's CSRF token, or from another site", body = super::error::ErrorBody),
        (status = 413, description = "The request body is too large", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting): nothing was stored; `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn preferences(
    State(app): AppState,
    v: Viewer,
    JsonOrForm(f): JsonOrForm<PreferenceFields>,
) -> ApiResult<Json<Ok_>> {
    let u = logged_in(v)?;
    if let Some(on) = f.chat {
        app.store
            .write(crate::store::Write::Chat(ChatWrite::SetChat {
                user_id: u.id,
                on,
            }))
            .await
            .map_err(AccountError::from)?;
    }
    if let Some(lang) = f.lang {
        app.store
            .write(crate::store::Write::Chat(ChatWrite::SetLang {
                user_id: u.id,
                lang: lang.code().to_owned(),
            }))
            .await
            .map_err(AccountError::from)?;
    }
    if let Some(on) = f.bots {
        app.store
            .write(crate::store::Write::Chat(ChatWrite::SetBotChallenges {
                user_id: u.id,
                on,
            }))
            .await
            .map_err(AccountError::from)?;
    }
    Ok(Json(Ok_ { ok: true }))
}

/// The account named `name` (in any case), or `404`.
async fn account_named(app: &App, name: &str) -> ApiResult<crate::store::accounts::UserRow> {
    app.store
        .user_by_key(&name.trim().to_lowercase())
        .await
        .map_err(AccountError::from)?
        .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, format!("no player named '{name}'")))
}

/// Whether account `user` blocks account `other`.
pub async fn blocks(app: &App, user: i64, other: i64) -> ApiResult<bool> {
    let b = app.store.blocking(user).await.map_err(AccountError::from)?;
    Ok(b.iter().any(|(id, _)| *id == other))
}

/// `POST /api/rel/block/{username}` (lichess's): the account no longer sees that player's
/// chat lines and refuses their challenges.
#[utoipa::path(
    post,
    path = "/api/rel/block/{username}",
    tag = "accounts",
    params(("username" = String, Path, description = "The player to block (any case)")),
    security(("session" = []), ("apiToken" = [])),
    responses(
        (status = 200, description = "Blocked (already blocked: no change)", body = Ok_),
        (status = 400, description = "Blocking yourself", body = super::error::ErrorBody),
        (status = 401, description = "Not logged in (or a revoked API token)", body = super::error::ErrorBody),
        (status = 403, description = "Without the session's CSRF token, or from another site", body = super::error::ErrorBody),
        (status = 404, description = "No such player", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting): nothing was stored; `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn block(
    State(app): AppState,
    v: Viewer,
    Path(name): Path<String>,
) -> ApiResult<Json<Ok_>> {
    let u = logged_in(v)?;
    let other = account_named(&app, &name).await?;
    if other.id == u.id {
        return Err(ApiError::bad("you cannot block yourself").field("username"));
    }
    app.store
        .write(crate::store::Write::Chat(ChatWrite::Block {
            user_id: u.id,
            blocked_id: other.id,
            created: crate::store::now(),
        }))
        .await
        .map_err(AccountError::from)?;
    Ok(Json(Ok_ { ok: true }))
}

/// `POST /api/rel/unblock/{username}` (lichess's).
#[utoipa::path(
    post,
    path = "/api/rel/unblock/{username}",
    tag = "accounts",
    params(("username" = String, Path, description = "The player to unblock (any case)")),
    security(("session" = []), ("apiToken" = [])),
    responses(
        (status = 200, description = "Unblocked (not blocked: no change)", body = Ok_),
        (status = 401, description = "Not logged in (or a revoked API token)", body = super::error::ErrorBody),
        (status = 403, description = "Without the session's CSRF token, or from another site", body = super::error::ErrorBody),
        (status = 404, description = "No such player", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting): nothing was stored; `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn unblock(
    State(app): AppState,
    v: Viewer,
    Path(name): Path<String>,
) -> ApiResult<Json<Ok_>> {
    let u = logged_in(v)?;
    let other = account_named(&app, &name).await?;
    app.store
        .write(crate::store::Write::Chat(ChatWrite::Unblock {
            user_id: u.id,
            blocked_id: other.id,
        }))
        .await
        .map_err(AccountError::from)?;
    Ok(Json(Ok_ { ok: true }))
}

/// A point of a rating's history.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HistoryJson {
    pub speed: Speed,
    /// ms since the epoch.
    pub at: i64,
    pub rating: i64,
    pub game_id: String,
}

/// A game of a profile.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProfileGame {
    pub id: String,
    /// ms since the epoch.
    pub created: i64,
    pub speed: Speed,
    pub rated: bool,
    /// The profile's side.
    // (A side's word, `Color::name`.)
    #[schema(value_type = super::request::Side)]
    pub color: &'static str,
    pub opponent: String,
    /// `win`, `draw`, `loss`, `aborted` or `playing`.
    pub result: &'static str,
    /// The board API's status (`mate`, `resign`, `outoftime`, ...).
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating_diff: Option<i64>,
}

/// Wins, draws and losses.
#[derive(Serialize, ToSchema)]
pub struct CountsJson {
    pub wins: i64,
    pub draws: i64,
    pub losses: i64,
}

/// `GET /api/users/{name}`.
#[derive(Serialize, ToSchema)]
pub struct Profile {
    pub name: String,
    /// ms since the epoch.
    pub created: i64,
    pub ratings: Vec<RatingJson>,
    /// Every rating after every rated game, oldest first.
    pub history: Vec<HistoryJson>,
    /// The 20 most recent games.
    pub recent: Vec<ProfileGame>,
    pub counts: CountsJson,
    /// `BOT` for a bot account.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<&'static str>,
}

/// `GET /api/users/{name}`: a player's profile.
#[utoipa::path(
    get,
    path = "/api/users/{name}",
    tag = "accounts",
    params(("name" = String, Path, description = "The username (any case; percent-encoded)")),
    responses(
        (status = 200, description = "Ratings, their history, recent games, wins, draws and losses", body = Profile),
        (status = 404, description = "No such player", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting): nothing was stored; `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn profile(State(app): AppState, Path(name): Path<String>) -> ApiResult<Json<Profile>> {
    let p = app
        .store
        .profile(&name.trim().to_lowercase())
        .await
        .map_err(AccountError::from)?
        .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, "no such player"))?;
    let bot = app
        .store
        .user_by_key(&name.trim().to_lowercase())
        .await
        .map_err(AccountError::from)?
        .is_some_and(|u| u.bot);
    let recent = p
        .recent
        .into_iter()
        .map(|g| {
            let me = g.side;
            let result = match g.status.as_str() {
                "created" | "started" => "playing",
                "aborted" => "aborted",
                _ if g.winner.is_empty() => "draw",
                _ if g.winner == me.name() => "win",
                _ => "loss",
            };
            ProfileGame {
                opponent: g.names[(!me).index()].clone(),
                id: g.id,
                created: g.created,
                speed: g.speed,
                rated: g.rated,
                color: me.name(),
                result,
                status: g.status,
                rating_diff: g.diff.map(|d| d.round() as i64),
            }
        })
        .collect();
    Ok(Json(Profile {
        title: bot.then_some("BOT"),
        ratings: all_ratings(&p.ratings),
        history: p
            .history
            .into_iter()
            .map(|h| HistoryJson {
                speed: h.speed,
                at: h.at,
                rating: h.rating.round() as i64,
                game_id: h.game_id,
            })
            .collect(),
        recent,
        counts: CountsJson {
            wins: p.counts.wins,
            draws: p.counts.draws,
            losses: p.counts.losses,
        },
        name: p.name,
        created: p.created,
    }))
}

/// A leaderboard's line.
#[derive(Serialize, ToSchema)]
pub struct Leader {
    pub rank: usize,
    pub name: String,
    pub rating: i64,
    pub rd: i64,
    pub provisional: bool,
    pub games: i64,
}

/// `GET /api/leaderboard/{speed}`.
#[derive(Serialize, ToSchema)]
pub struct Leaderboard {
    pub speed: Speed,
    pub players: Vec<Leader>,
}

/// `GET /api/leaderboard/{speed}`: the 100 best ratings of a speed.
#[utoipa::path(
    get,
    path = "/api/leaderboard/{speed}",
    tag = "accounts",
    params(("speed" = Speed, Path, description = "bullet, blitz, rapid, classical or correspondence")),
    responses(
        (status = 200, description = "The players with a rating of this speed, best first (provisional ones marked)", body = Leaderboard),
        (status = 404, description = "No such speed", body = super::error::ErrorBody),
        (status = 500, description = "A failure of the server itself", body = super::error::ErrorBody),
        (status = 503, description = "The database cannot be reached now (PostgreSQL stopped or restarting): nothing was stored; `Retry-After` says when to try again", body = super::error::ErrorBody),
    )
)]
pub async fn leaderboard(
    State(app): AppState,
    Path(speed): Path<String>,
) -> ApiResult<Json<Leaderboard>> {
    let sp = Speed::parse(&speed).ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            format!("no speed '{speed}' (bullet, blitz, rapid, classical or correspondence)"),
        )
    })?;
    let rows = app
        .store
        .leaderboard(sp, 100)
        .await
        .map_err(AccountError::from)?;
    Ok(Json(Leaderboard {
        speed: sp,
        players: rows
            .into_iter()
            .enumerate()
            .map(|(i, r)| Leader {
                rank: i + 1,
                name: r.name,
                rating: r.rating.rating.round() as i64,
                rd: r.rating.rd.round() as i64,
                provisional: r.rating.provisional(),
                games: r.games,
            })
            .collect(),
    }))
}
