//! The page's files over HTTP: compressed (brotli or gzip, as the browser asks) and
//! revalidated with ETags (`304 Not Modified`, no body, when the browser has the file).

use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use tower::ServiceExt;
use xiangqi_server::{router, App, Store};

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("xiangqi-static-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

struct Got {
    status: StatusCode,
    headers: axum::http::HeaderMap,
    body: Vec<u8>,
}

async fn get(app: &Router, uri: &str, headers: &[(&str, &str)]) -> Got {
    let mut req = Request::builder().method("GET").uri(uri);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let res = app
        .clone()
        .oneshot(req.body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = res.status();
    let headers = res.headers().clone();
    let body = res.into_body().collect().await.unwrap().to_bytes().to_vec();
    Got {
        status,
        headers,
        body,
    }
}

fn header<'a>(g: &'a Got, name: &str) -> Option<&'a str> {
    g.headers.get(name).map(|v| v.to_str().unwrap())
}

const FILES: [(&str, &str); 7] = [
    ("/", include_str!("../web/index.html")),
    ("/app.js", include_str!("../web/app.js")),
    ("/style.css", include_str!("../web/style.css")),
    ("/board.js", include_str!("../web/board.js")),
    // The message catalogue: its code and two languages' files.
    ("/i18n.js", include_str!("../web/i18n.js")),
    ("/locales/en.ftl", include_str!("../web/locales/en.ftl")),
    (
        "/locales/zh-Hant.ftl",
        include_str!("../web/locales/zh-Hant.ftl"),
    ),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn page_files_are_compressed_with_brotli_or_gzip() {
    let dir = temp_dir("compress");
    let app = router(Arc::new(App::new(Store::open(&dir).unwrap())));
    for (path, plain) in FILES {
        // No Accept-Encoding: the file as it is.
        let g = get(&app, path, &[]).await;
        assert_eq!(g.status, StatusCode::OK, "{path}");
        assert_eq!(header(&g, "content-encoding"), None, "{path}");
        assert_eq!(g.body, plain.as_bytes(), "{path}");

        let g = get(&app, path, &[("accept-encoding", "gzip")]).await;
        assert_eq!(header(&g, "content-encoding"), Some("gzip"), "{path}");
        // (The pages also vary by Accept-Language: one Vary header each.)
        assert!(g
            .headers
            .get_all("vary")
            .iter()
            .any(|v| v.to_str().unwrap().contains("accept-encoding")));
        let mut out = String::new();
        flate2::read::GzDecoder::new(&g.body[..])
            .read_to_string(&mut out)
            .unwrap();
        assert_eq!(out, plain, "{path}: gzip decodes to the file");
        assert!(
            g.body.len() * 2 < plain.len(),
            "{path}: gzip at least halves it"
        );

        // Brotli is preferred when the browser offers both (as browsers do).
        let g = get(&app, path, &[("accept-encoding", "gzip, deflate, br")]).await;
        assert_eq!(header(&g, "content-encoding"), Some("br"), "{path}");
        let mut out = String::new();
        brotli_decompressor::Decompressor::new(&g.body[..], 4096)
            .read_to_string(&mut out)
            .unwrap();
        assert_eq!(out, plain, "{path}: brotli decodes to the file");
        assert!(
            g.body.len() * 2 < plain.len(),
            "{path}: brotli at least halves it"
        );
    }
    // A coding refused with q=0 is not used; identity when nothing else is taken.
    for (ae, want) in [
        ("br;q=0, gzip", Some("gzip")),
        ("BR;q=0.5", Some("br")),
        ("gzip;q=0, br;q=0", None),
        ("zstd", None),
    ] {
        let g = get(&app, "/app.js", &[("accept-encoding", ae)]).await;
        assert_eq!(header(&g, "content-encoding"), want, "{ae}");
    }
    // The API's streams and JSON are not touched by the page's compression.
    let g = get(&app, "/api/health", &[("accept-encoding", "br")]).await;
    assert_eq!(g.status, StatusCode::OK);
    assert_eq!(header(&g, "content-encoding"), None);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The pages start in the language the browser asks for (`Accept-Language`): `<html lang>`
/// and `data-accept-lang` set, a copy (and an ETag) a language, `Vary: Accept-Language`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_start_in_the_language_the_browser_asks_for() {
    let dir = temp_dir("lang");
    let app = router(Arc::new(App::new(Store::open(&dir).unwrap())));
    let root = |g: &Got| {
        let s = String::from_utf8(g.body.clone()).unwrap();
        let start = s.find("<html").unwrap();
        s[start..start + s[start..].find('>').unwrap() + 1].to_string()
    };
    for path in ["/", "/live/AbCd1234", "/account", "/@/ann", "/leaderboard"] {
        let mut tags = Vec::new();
        for (accept, want) in [
            (None, r#"<html lang="en">"#),
            (Some("fr-FR, de;q=0.9"), r#"<html lang="en">"#),
            (
                Some("vi-VN,vi;q=0.9,en;q=0.8"),
                r#"<html lang="vi" data-accept-lang="vi">"#,
            ),
            (
                Some("fr, zh-TW;q=0.8, en;q=0.5"),
                r#"<html lang="zh-Hant" data-accept-lang="zh-Hant">"#,
            ),
            (
                Some("zh-CN"),
                r#"<html lang="zh-Hans" data-accept-lang="zh-Hans">"#,
            ),
            (Some("en-GB"), r#"<html lang="en" data-accept-lang="en">"#),
        ] {
            let headers: Vec<(&str, &str)> =
                accept.map(|a| ("accept-language", a)).into_iter().collect();
            let g = get(&app, path, &headers).await;
            assert_eq!(g.status, StatusCode::OK, "{path}");
            assert_eq!(root(&g), want, "{path} for {accept:?}");
            let vary: Vec<&str> = g
                .headers
                .get_all("vary")
                .iter()
                .map(|v| v.to_str().unwrap())
                .collect();
            assert!(
                vary.iter()
                    .any(|v| v.to_ascii_lowercase().contains("accept-language")),
                "{path}: {vary:?}"
            );
            let etag = header(&g, "etag").unwrap().to_string();
            // Revalidation is by the copy: the Vietnamese tag is not the English page's.
            let mut again = headers.clone();
            again.push(("if-none-match", &etag));
            assert_eq!(
                get(&app, path, &again).await.status,
                StatusCode::NOT_MODIFIED
            );
            tags.push(etag);
        }
        tags.sort();
        tags.dedup();
        assert_eq!(
            tags.len(),
            5,
            "{path}: the English page (asked for or not) and 4 copies"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn page_files_have_etags_and_answer_304_when_unchanged() {
    let dir = temp_dir("etag");
    let app = router(Arc::new(App::new(Store::open(&dir).unwrap())));
    let mut tags = Vec::new();
    for (path, _) in FILES {
        let g = get(&app, path, &[("accept-encoding", "br")]).await;
        assert_eq!(g.status, StatusCode::OK);
        assert_eq!(header(&g, "cache-control"), Some("no-cache"), "{path}");
        let etag = header(&g, "etag").expect("an ETag").to_string();
        assert!(etag.starts_with("W/\""), "{path}: {etag}");
        tags.push(etag.clone());

        // The same file again with its tag: 304, no body, the tag repeated.
        for inm in [
            etag.clone(),
            etag.trim_start_matches("W/").to_string(),
            format!("\"x\", {etag}"),
            "*".into(),
        ] {
            let g = get(
                &app,
                path,
                &[("if-none-match", &inm), ("accept-encoding", "br")],
            )
            .await;
            assert_eq!(g.status, StatusCode::NOT_MODIFIED, "{path} with {inm}");
            assert!(g.body.is_empty(), "{path}: a 304 has no body");
            assert_eq!(header(&g, "etag"), Some(etag.as_str()));
        }
        // Another tag (the file changed since): the whole file.
        let g = get(&app, path, &[("if-none-match", "W/\"0000\"")]).await;
        assert_eq!(g.status, StatusCode::OK, "{path}");
        assert!(!g.body.is_empty());
    }
    tags.sort();
    tags.dedup();
    assert_eq!(tags.len(), FILES.len(), "each file has its own tag");
    // The tag follows the content, the same from one server start to the next.
    assert_eq!(
        xiangqi_server::api::etag_of(include_str!("../web/app.js")),
        get(&app, "/app.js", &[]).await.headers["etag"]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_json_answers_are_compressed_small_ones_and_streams_are_not() {
    let dir = temp_dir("json");
    let app = router(Arc::new(App::new(Store::open(&dir).unwrap())));
    let root = match std::env::var_os("XIANGQI_SHARED") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    };
    let xqf =
        std::fs::read(root.join("data/records/xqf/hbsxcjp-hard-feixiangju-zu7jin1.xqf")).unwrap();
    let res = app
        .clone()
        .oneshot(
            Request::builder()
                .method("POST")
                .uri("/api/import")
                .body(Body::from(xqf))
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::CREATED);
    let plain = get(&app, "/api/games/1", &[]).await;
    assert_eq!(header(&plain, "content-encoding"), None);
    assert!(
        plain.body.len() > 100_000,
        "a game with 98 variations is large"
    );
    let g = get(&app, "/api/games/1", &[("accept-encoding", "br, gzip")]).await;
    assert_eq!(g.status, StatusCode::OK);
    assert_eq!(header(&g, "content-encoding"), Some("br"));
    let mut out = Vec::new();
    brotli_decompressor::Decompressor::new(&g.body[..], 4096)
        .read_to_end(&mut out)
        .unwrap();
    assert_eq!(out, plain.body, "the same JSON");
    assert!(
        g.body.len() * 5 < plain.body.len(),
        "{} of {}",
        g.body.len(),
        plain.body.len()
    );
    // A small answer is sent as it is.
    let g = get(
        &app,
        "/api/games?limit=5",
        &[("accept-encoding", "br, gzip")],
    )
    .await;
    assert_eq!(g.status, StatusCode::OK);
    assert_eq!(header(&g, "content-encoding"), None);
    // A stream (newline-delimited JSON) is never compressed: its lines must go out at once.
    let res = app
        .clone()
        .oneshot(
            Request::builder()
                .uri("/api/lobby/stream")
                .header("accept-encoding", "br, gzip")
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert!(res.headers().get("content-encoding").is_none());
    let _ = std::fs::remove_dir_all(&dir);
}
