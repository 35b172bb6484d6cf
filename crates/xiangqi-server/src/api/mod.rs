//! The HTTP layer: the routes, typed requests (`request`), the one error type (`error`), the
//! JSON answers (`game_json`) and the endpoints (`handlers`). The game operations themselves
//! are in `crate::games`; this layer only reads requests and writes answers.

pub mod accounts;
pub mod bots;
pub mod error;
pub mod explorer;
pub mod game_json;
pub mod handlers;
pub mod lang;
pub mod online;
pub mod openapi;
pub mod request;
pub mod tablebase;

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, OnceLock};

use axum::body::Body;
use axum::extract::DefaultBodyLimit;
use axum::handler::Handler;
use axum::http::{header, HeaderMap, HeaderValue, Method, Request, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post, MethodRouter};
use axum::Router;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::predicate::{Predicate, SizeAbove};
use tower_http::compression::{CompressionLayer, CompressionLevel};

pub use error::ApiError;

use crate::App;
use lang::Lang;

/// The largest request body most endpoints take.
pub const BODY_LIMIT: usize = 64 * 1024;
/// The largest upload to `/api/import`.
pub const IMPORT_LIMIT: usize = 4 * 1024 * 1024;

const INDEX_HTML: &str = include_str!("../../web/index.html");
const APP_JS: &str = include_str!("../../web/app.js");
const BOARD_JS: &str = include_str!("../../web/board.js");
const ONLINE_JS: &str = include_str!("../../web/online.js");
const LOBBY_JS: &str = include_str!("../../web/lobby.js");
const MYGAMES_JS: &str = include_str!("../../web/mygames.js");
const SOUND_JS: &str = include_str!("../../web/sound.js");
const REVIEW_JS: &str = include_str!("../../web/review.js");
const NOTATION_JS: &str = include_str!("../../web/notation.js");
const MESSAGES_JS: &str = include_str!("../../web/messages.js");
const MOVELIST_JS: &str = include_str!("../../web/movelist.js");
const SETTINGS_JS: &str = include_str!("../../web/settings.js");
const MOTION_JS: &str = include_str!("../../web/motion.js");
const KEYBOARD_JS: &str = include_str!("../../web/keyboard.js");
const EXPLORER_JS: &str = include_str!("../../web/explorer.js");
const TABLEBASE_JS: &str = include_str!("../../web/tablebase.js");
const GIF_JS: &str = include_str!("../../web/gif.js");
const OPENINGS_JS: &str = include_str!("../../web/openings.js");
const CHAT_JS: &str = include_str!("../../web/chat.js");
const STYLE_CSS: &str = include_str!("../../web/style.css");
const FAVICON_SVG: &str = include_str!("../../web/favicon.svg");
const ACCOUNT_HTML: &str = include_str!("../../web/account.html");
const ACCOUNT_JS: &str = include_str!("../../web/account.js");
const I18N_JS: &str = include_str!("../../web/i18n.js");
const LOCALE_EN: &str = include_str!("../../web/locales/en.ftl");
const LOCALE_ZH_HANS: &str = include_str!("../../web/locales/zh-Hans.ftl");
const LOCALE_ZH_HANT: &str = include_str!("../../web/locales/zh-Hant.ftl");
const LOCALE_VI: &str = include_str!("../../web/locales/vi.ftl");

/// The content type of the page's scripts (ES modules).
const JS: &str = "text/javascript; charset=utf-8";
/// The content type of the message catalogues (Fluent text, web/locales/*.ftl).
const FTL: &str = "text/plain; charset=utf-8";

/// The page and its files: path, body, content type.
const ASSETS: [(&str, &str, &str); 31] = [
    ("/", INDEX_HTML, "text/html; charset=utf-8"),
    // A live game's page (spectators; a seat's secret follows '#'): the same app.
    ("/live/{id}", INDEX_HTML, "text/html; charset=utf-8"),
    ("/app.js", APP_JS, JS),
    ("/board.js", BOARD_JS, JS),
    ("/online.js", ONLINE_JS, JS),
    ("/lobby.js", LOBBY_JS, JS),
    ("/mygames.js", MYGAMES_JS, JS),
    ("/sound.js", SOUND_JS, JS),
    ("/review.js", REVIEW_JS, JS),
    ("/notation.js", NOTATION_JS, JS),
    ("/messages.js", MESSAGES_JS, JS),
    ("/movelist.js", MOVELIST_JS, JS),
    ("/settings.js", SETTINGS_JS, JS),
    ("/motion.js", MOTION_JS, JS),
    ("/keyboard.js", KEYBOARD_JS, JS),
    ("/explorer.js", EXPLORER_JS, JS),
    ("/tablebase.js", TABLEBASE_JS, JS),
    ("/gif.js", GIF_JS, JS),
    ("/openings.js", OPENINGS_JS, JS),
    ("/chat.js", CHAT_JS, JS),
    ("/style.css", STYLE_CSS, "text/css; charset=utf-8"),
    ("/favicon.svg", FAVICON_SVG, "image/svg+xml"),
    // The account pages: log in / register / tokens, a player's profile, the leaderboards.
    ("/account", ACCOUNT_HTML, "text/html; charset=utf-8"),
    ("/@/{name}", ACCOUNT_HTML, "text/html; charset=utf-8"),
    ("/leaderboard", ACCOUNT_HTML, "text/html; charset=utf-8"),
    ("/account.js", ACCOUNT_JS, JS),
    // The message catalogue: its code and one file per language (a page loads its own and
    // English, the fallback).
    ("/i18n.js", I18N_JS, JS),
    ("/locales/en.ftl", LOCALE_EN, FTL),
    ("/locales/zh-Hans.ftl", LOCALE_ZH_HANS, FTL),
    ("/locales/zh-Hant.ftl", LOCALE_ZH_HANT, FTL),
    ("/locales/vi.ftl", LOCALE_VI, FTL),
];

/// `page` (index.html or account.html, whose root is `<html lang="en">`) for a browser that
/// asks for `lang`: `<html lang="vi" data-accept-lang="vi">`. Made once a process.
fn localised(page: &'static str, lang: Lang) -> &'static str {
    static COPIES: LazyLock<[[&'static str; 4]; 2]> = LazyLock::new(|| {
        [INDEX_HTML, ACCOUNT_HTML].map(|p| {
            Lang::ALL.map(|l| {
                let code = l.code();
                let s = p.replacen(
                    "<html lang=\"en\">",
                    &format!("<html lang=\"{code}\" data-accept-lang=\"{code}\">"),
                    1,
                );
                &*Box::leak(s.into_boxed_str())
            })
        })
    });
    let i = usize::from(page != INDEX_HTML);
    COPIES[i][lang as usize]
}

/// A file's entity tag: a weak validator (the bytes sent may be compressed) from the SHA-256
/// of its content, so it changes exactly when the file does.
pub fn etag_of(body: &str) -> String {
    use sha2::{Digest, Sha256};
    let d = Sha256::digest(body.as_bytes());
    let hex: String = d[..12].iter().map(|b| format!("{b:02x}")).collect();
    format!("W/\"{hex}\"")
}

/// Whether an `If-None-Match` header matches `etag` (weak comparison, as GET allows: `*`, or
/// any listed tag with or without `W/`).
fn none_match(header: Option<&HeaderValue>, etag: &str) -> bool {
    let Some(v) = header.and_then(|h| h.to_str().ok()) else {
        return false;
    };
    let bare = |t: &str| t.trim().trim_start_matches("W/").to_string();
    v.split(',')
        .any(|t| t.trim() == "*" || bare(t) == bare(etag))
}

/// A page file compressed once, at the best levels, the first time it is asked for (or by the
/// warm-up `router` starts): brotli at quality 11 (88 KB for the game page's files against 96
/// KB at the quality 7 it was compressed at on every request before) and gzip at 9. `None`
/// for an encoding that does not make the file smaller.
struct Packed {
    br: Option<Vec<u8>>,
    gzip: Option<Vec<u8>>,
}

impl Packed {
    fn of(body: &str) -> Packed {
        use std::io::Write;
        let mut br = Vec::new();
        {
            let mut w = brotli::CompressorWriter::new(&mut br, 4096, 11, 22);
            // (Writing to a Vec does not fail.)
            let _ = w.write_all(body.as_bytes());
        }
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        let _ = gz.write_all(body.as_bytes());
        let gzip = gz.finish().ok();
        let smaller = |v: Vec<u8>| (v.len() < body.len()).then_some(v);
        Packed {
            br: smaller(br),
            gzip: gzip.and_then(smaller),
        }
    }
}

/// A page file's compressed forms, by its ETag (its content's hash: a `const`'s address is
/// not one address in every use), each made once a process.
fn packed(body: &str, etag: &str) -> &'static Packed {
    static ALL: LazyLock<Mutex<HashMap<String, &'static OnceLock<Packed>>>> =
        LazyLock::new(Default::default);
    let cell: &'static OnceLock<Packed> = {
        let mut all = ALL.lock().unwrap_or_else(|e| e.into_inner());
        all.entry(etag.to_owned())
            .or_insert_with(|| Box::leak(Box::new(OnceLock::new())))
    };
    cell.get_or_init(|| Packed::of(body))
}

/// Compresses every page file in a thread of its own, so the first browser finds them ready.
fn warm_up() {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        let _ = std::thread::Builder::new()
            .name("xiangqi-pack".into())
            .spawn(|| {
                let pages = [INDEX_HTML, ACCOUNT_HTML];
                let copies = pages
                    .iter()
                    .flat_map(|&p| Lang::ALL.map(|l| localised(p, l)));
                for body in ASSETS.iter().map(|&(_, b, _)| b).chain(copies) {
                    packed(body, &etag_of(body));
                }
            });
    });
}

/// Whether an `Accept-Encoding` header takes `coding` (listed with a weight above zero).
fn accepts(header: Option<&HeaderValue>, coding: &str) -> bool {
    let Some(v) = header.and_then(|h| h.to_str().ok()) else {
        return false;
    };
    v.split(',').any(|item| {
        let mut parts = item.split(';');
        let name = parts.next().unwrap_or("").trim();
        let zero = parts.any(|p| {
            p.trim()
                .strip_prefix("q=")
                .is_some_and(|q| q.trim().parse::<f32>().map_or(true, |q| q <= 0.0))
        });
        name.eq_ignore_ascii_case(coding) && !zero
    })
}

/// A page file: revalidated on every use (`no-cache`) with its ETag, answered `304 Not
/// Modified` without a body when the browser has it already; sent compressed (brotli, else
/// gzip) when the browser takes it.
fn asset(
    body: &'static str,
    ctype: &'static str,
    etag: &HeaderValue,
    headers: &HeaderMap,
) -> Response {
    let tag = etag.to_str().unwrap_or_default();
    let common = [
        (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        (header::ETAG, etag.clone()),
        (header::VARY, HeaderValue::from_static("accept-encoding")),
    ];
    if none_match(headers.get(header::IF_NONE_MATCH), tag) {
        return (StatusCode::NOT_MODIFIED, common).into_response();
    }
    let ae = headers.get(header::ACCEPT_ENCODING);
    let coded = match packed(body, tag) {
        Packed { br: Some(b), .. } if accepts(ae, "br") => Some(("br", b)),
        Packed { gzip: Some(g), .. } if accepts(ae, "gzip") => Some(("gzip", g)),
        _ => None,
    };
    let ct = [(header::CONTENT_TYPE, HeaderValue::from_static(ctype))];
    match coded {
        Some((coding, bytes)) => (
            common,
            ct,
            [(header::CONTENT_ENCODING, HeaderValue::from_static(coding))],
            bytes.as_slice(),
        )
            .into_response(),
        None => (common, ct, body).into_response(),
    }
}

/// Which API answers are compressed: JSON (never the streams, `application/x-ndjson`, whose
/// lines must go out as they come) of at least 16 KiB, such as a game with many variations
/// (a record with 98 of them is 1.5 MB of JSON). Smaller answers (a move's) are not worth
/// the time.
#[derive(Clone, Copy)]
struct LargeJson;

impl Predicate for LargeJson {
    fn should_compress<B: http_body::Body>(&self, res: &axum::http::Response<B>) -> bool {
        let json = res
            .headers()
            .get(header::CONTENT_TYPE)
            .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
        json && SizeAbove::new(16 * 1024).should_compress(res)
    }
}

/// Any error response of the API without a JSON body gets one (axum's own 404s and 405s), so clients always see `{"error": ...}`.
async fn json_errors(req: Request<Body>, next: Next) -> Response {
    let api = req.uri().path().starts_with("/api/");
    let res = next.run(req).await;
    let status = res.status();
    let is_json = res
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if !api || is_json || !(status.is_client_error() || status.is_server_error()) {
        return res;
    }
    let text = match axum::body::to_bytes(res.into_body(), 16 * 1024).await {
        Ok(b) => String::from_utf8_lossy(&b).trim().to_string(),
        Err(_) => String::new(),
    };
    let msg = match status {
        StatusCode::NOT_FOUND => "no such API endpoint".to_string(),
        StatusCode::METHOD_NOT_ALLOWED => "this method is not allowed on this endpoint".into(),
        StatusCode::PAYLOAD_TOO_LARGE => "the request body is too large".into(),
        _ if !text.is_empty() => text,
        _ => status.canonical_reason().unwrap_or("error").to_string(),
    };
    ApiError::new(status, msg).into_response()
}

fn panic_response(err: Box<dyn std::any::Any + Send + 'static>) -> Response {
    let detail = if let Some(s) = err.downcast_ref::<String>() {
        s.clone()
    } else if let Some(s) = err.downcast_ref::<&str>() {
        s.to_string()
    } else {
        "unknown".into()
    };
    eprintln!("xiangqi serve: a request handler panicked: {detail}");
    ApiError::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        "internal error (the request was not carried out)",
    )
    .into_response()
}

/// A group of routes that also records every method and path it gets, so the OpenAPI
/// document can be checked against the router itself (`route_table`).
struct Routes {
    router: Router<Arc<App>>,
    table: Vec<(Method, &'static str)>,
}

impl Routes {
    fn new() -> Routes {
        Routes {
            router: Router::new(),
            table: Vec::new(),
        }
    }

    fn add(mut self, method: Method, path: &'static str, mr: MethodRouter<Arc<App>>) -> Routes {
        self.table.push((method, path));
        self.router = self.router.route(path, mr);
        self
    }

    fn get<H: Handler<T, Arc<App>>, T: 'static>(self, path: &'static str, h: H) -> Routes {
        self.add(Method::GET, path, get(h))
    }

    fn post<H: Handler<T, Arc<App>>, T: 'static>(self, path: &'static str, h: H) -> Routes {
        self.add(Method::POST, path, post(h))
    }

    fn delete<H: Handler<T, Arc<App>>, T: 'static>(self, path: &'static str, h: H) -> Routes {
        self.add(Method::DELETE, path, delete(h))
    }
}

/// The JSON API's routes (all but `/api/import`, which takes larger bodies).
fn api_routes() -> Routes {
    Routes::new()
        .get("/api/health", handlers::health)
        .get("/api/openapi.json", openapi::serve)
        .get("/api/position", handlers::position)
        .get("/api/games", handlers::list)
        .post("/api/games", handlers::create)
        .get("/api/games/{id}", handlers::get_game)
        .delete("/api/games/{id}", handlers::delete_game)
        .post("/api/games/{id}/moves", handlers::post_move)
        .post("/api/games/{id}/computer-move", handlers::computer_move)
        .post("/api/games/{id}/takeback", handlers::takeback)
        .post("/api/games/{id}/promote", handlers::promote)
        .post("/api/games/{id}/note", handlers::set_note)
        .post("/api/games/{id}/resign", handlers::resign)
        .post("/api/games/{id}/draw", handlers::draw)
        .get("/api/games/{id}/pgn", handlers::export_pgn)
        .get("/api/games/{id}/fen", handlers::export_fen)
        .post("/api/games/{id}/review", handlers::start_review)
        .get("/api/games/{id}/review", handlers::get_review)
        .delete("/api/games/{id}/review", handlers::cancel_review)
        .get("/api/analysis", handlers::analysis)
        .get("/api/explorer/{db}", explorer::explorer)
        .get("/api/tablebase", tablebase::tablebase)
        .post("/api/challenge/open", online::open_challenge)
        .get("/api/board/game/stream/{id}", online::game_stream)
        .get("/api/board/game/{id}", online::game_full)
        .post("/api/board/game/{id}/move/{move}", online::board_move)
        .post("/api/board/game/{id}/chat", online::board_chat)
        .get("/api/board/game/{id}/chat", online::chat_history)
        .post("/api/board/game/{id}/{action}", online::board_action)
        .post(
            "/api/board/game/{id}/{offer}/{answer}",
            online::board_answer,
        )
        .post("/api/board/seek", online::seek)
        .post("/api/board/seek/{id}/accept", online::accept_seek)
        .get("/api/lobby/stream", online::lobby_stream)
        .post("/api/bot/account/upgrade", bots::upgrade)
        .get("/api/stream/event", bots::event_stream)
        .get("/api/challenge", bots::list)
        .post("/api/challenge/{username}", bots::create)
        .post("/api/challenge/{id}/accept", bots::accept)
        .post("/api/challenge/{id}/decline", bots::decline)
        .post("/api/challenge/{id}/cancel", bots::cancel)
        .get("/api/bot/game/stream/{id}", bots::stream)
        .post("/api/bot/game/{id}/move/{move}", bots::bot_move)
        .post("/api/bot/game/{id}/chat", bots::bot_chat)
        .get("/api/bot/game/{id}/chat", bots::bot_chat_history)
        .post("/api/bot/game/{id}/{action}", bots::bot_action)
        .post("/api/bot/game/{id}/{offer}/{answer}", bots::bot_answer)
        .post("/api/account/register", accounts::register)
        .post("/api/account/login", accounts::login)
        .post("/api/account/logout", accounts::logout)
        .get("/api/account", accounts::me)
        .get("/api/account/playing", online::playing)
        .post("/api/account/password", accounts::password)
        .post("/api/account/preferences", accounts::preferences)
        .post("/api/rel/block/{username}", accounts::block)
        .post("/api/rel/unblock/{username}", accounts::unblock)
        .get("/api/account/tokens", accounts::tokens)
        .post("/api/account/tokens", accounts::create_token)
        .delete("/api/account/tokens/{id}", accounts::revoke_token)
        .get("/api/users/{name}", accounts::profile)
        .get("/api/leaderboard/{speed}", accounts::leaderboard)
}

/// `/api/import`.
fn import_routes() -> Routes {
    Routes::new().post("/api/import", handlers::import)
}

/// Every method and path the router answers: the API's routes and the page's files.
pub fn route_table() -> Vec<(Method, &'static str)> {
    let mut out = api_routes().table;
    out.extend(import_routes().table);
    out.extend(ASSETS.iter().map(|&(path, ..)| (Method::GET, path)));
    out
}

/// The app's routes over `app`.
pub fn router(app: Arc<App>) -> Router {
    let api = api_routes().router.layer(DefaultBodyLimit::max(BODY_LIMIT));
    let import = import_routes()
        .router
        .layer(DefaultBodyLimit::max(IMPORT_LIMIT));
    let mut pages = Router::new();
    for (path, body, ctype) in ASSETS {
        let etag = HeaderValue::from_str(&etag_of(body)).expect("a hex ETag is a header value");
        if body == INDEX_HTML || body == ACCOUNT_HTML {
            // A page in the language the browser asks for (`<html lang>`; the page's script
            // starts in it on a first visit): one copy a language, each with its ETag.
            let copies = Lang::ALL.map(|l| {
                let b = localised(body, l);
                let tag = HeaderValue::from_str(&etag_of(b)).expect("a hex ETag is a header value");
                (b, tag)
            });
            pages = pages.route(
                path,
                get(move |headers: HeaderMap| async move {
                    let want = headers
                        .get(header::ACCEPT_LANGUAGE)
                        .and_then(|v| v.to_str().ok())
                        .and_then(Lang::accepted);
                    let (b, tag) = match want {
                        Some(l) => {
                            let (b, tag) = &copies[l as usize];
                            (*b, tag)
                        }
                        None => (body, &etag),
                    };
                    let mut res = asset(b, ctype, tag, &headers);
                    res.headers_mut()
                        .append(header::VARY, HeaderValue::from_static("Accept-Language"));
                    res
                }),
            );
            continue;
        }
        pages = pages.route(
            path,
            get(move |headers: HeaderMap| async move { asset(body, ctype, &etag, &headers) }),
        );
    }
    // The page's files go compressed (brotli or gzip, as the browser accepts), made once at
    // the best levels (`asset`); a browser that has them revalidates them (304) instead.
    warm_up();
    // Large JSON answers go compressed too (the page's files are compressed above).
    let api = api.merge(import).layer(
        CompressionLayer::new()
            .br(true)
            .gzip(true)
            .no_deflate()
            .no_zstd()
            .quality(CompressionLevel::Precise(5))
            .compress_when(LargeJson),
    );
    pages
        .merge(api)
        .fallback(|| async { ApiError::new(StatusCode::NOT_FOUND, "not found") })
        .layer(middleware::from_fn(json_errors))
        .layer(CatchPanicLayer::custom(panic_response))
        .with_state(app)
}
