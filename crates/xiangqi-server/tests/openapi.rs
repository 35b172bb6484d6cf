//! The OpenAPI document served at `/api/openapi.json`: it parses, is OpenAPI 3.x, lists exactly
//! the router's routes (a route added without documentation fails here), documents the error
//! body on every 4xx, and every schema it refers to is in it.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;
use xiangqi_server::api::route_table;
use xiangqi_server::{router, App, Store};

/// A data folder of its own for each test (they run at once).
fn temp_dir(name: &str) -> std::path::PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "xiangqi-openapi-test-{}-{name}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

async fn served_document() -> Value {
    let dir = temp_dir("doc");
    let app = router(Arc::new(App::new(Store::open(&dir).expect("open store"))));
    let req = Request::get("/api/openapi.json")
        .body(Body::empty())
        .expect("request");
    let res = app.oneshot(req).await.expect("response");
    assert_eq!(res.status(), StatusCode::OK);
    let ctype = res.headers()["content-type"].to_str().unwrap().to_string();
    assert!(ctype.starts_with("application/json"), "{ctype}");
    let bytes = res.into_body().collect().await.expect("body").to_bytes();
    let _ = std::fs::remove_dir_all(&dir);
    serde_json::from_slice(&bytes).expect("the document is JSON")
}

const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

#[tokio::test]
async fn the_document_is_openapi_3_and_lists_exactly_the_routes() {
    let doc = served_document().await;
    let version = doc["openapi"].as_str().expect("an openapi field");
    assert!(version.starts_with("3."), "OpenAPI 3.x, not {version}");
    assert!(doc["info"]["title"].is_string() && doc["info"]["version"].is_string());

    let mut documented = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for m in METHODS {
            if item.get(m).is_some() {
                documented.insert((m.to_uppercase(), path.clone()));
            }
        }
    }
    let routed: BTreeSet<(String, String)> = route_table()
        .into_iter()
        .map(|(m, p)| (m.to_string(), p.to_string()))
        .collect();
    let undocumented: Vec<_> = routed.difference(&documented).collect();
    let unrouted: Vec<_> = documented.difference(&routed).collect();
    assert!(
        undocumented.is_empty(),
        "routes without documentation: {undocumented:?}"
    );
    assert!(
        unrouted.is_empty(),
        "documented but not routed: {unrouted:?}"
    );
    assert!(routed.len() >= 30, "{} routes", routed.len());
}

#[tokio::test]
async fn every_operation_documents_its_answers_and_parameters() {
    let doc = served_document().await;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for m in METHODS {
            let Some(op) = item.get(m) else { continue };
            let responses = op["responses"].as_object().expect("responses");
            assert!(
                responses.keys().any(|s| s.starts_with('2') || s == "101"),
                "{m} {path}: no success answer"
            );
            // Every 4xx/5xx answer is the JSON error body.
            for (status, r) in responses {
                if status.starts_with('4') || status.starts_with('5') {
                    assert_eq!(
                        r["content"]["application/json"]["schema"]["$ref"],
                        "#/components/schemas/ErrorBody",
                        "{m} {path} {status}"
                    );
                }
            }
            // Every {name} of the path is a documented path parameter.
            let params: BTreeSet<&str> = op["parameters"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter(|p| p["in"] == "path")
                        .filter_map(|p| p["name"].as_str())
                        .collect()
                })
                .unwrap_or_default();
            let wanted: BTreeSet<&str> = path
                .split('/')
                .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
                .collect();
            assert_eq!(params, wanted, "{m} {path}: path parameters");
        }
    }
    // Statuses the handlers answer with, where they belong.
    let statuses = |m: &str, p: &str| -> BTreeSet<String> {
        doc["paths"][p][m]["responses"]
            .as_object()
            .unwrap_or_else(|| panic!("{m} {p}"))
            .keys()
            .cloned()
            .collect()
    };
    let has = |m: &str, p: &str, want: &[&str]| {
        let s = statuses(m, p);
        for w in want {
            assert!(s.contains(*w), "{m} {p} should document {w}: {s:?}");
        }
    };
    has("post", "/api/games", &["201", "400", "413", "422", "500"]);
    has(
        "post",
        "/api/games/{id}/moves",
        &["200", "400", "404", "409", "413", "422"],
    );
    has("post", "/api/import", &["201", "400", "413"]);
    has(
        "post",
        "/api/board/game/{id}/move/{move}",
        &["200", "401", "403", "404", "409", "422"],
    );
    let stream = &doc["paths"]["/api/board/game/stream/{id}"]["get"]["responses"]["200"];
    assert!(
        stream["content"]["application/x-ndjson"].is_object(),
        "{stream}"
    );
    let pgn = &doc["paths"]["/api/games/{id}/pgn"]["get"]["responses"]["200"];
    assert!(
        pgn["content"]["application/x-chess-pgn"].is_object(),
        "{pgn}"
    );
    assert!(doc["components"]["securitySchemes"]["seat"].is_object());
}

#[tokio::test]
async fn every_schema_referred_to_is_in_the_document() {
    let doc = served_document().await;
    let schemas = doc["components"]["schemas"].as_object().expect("schemas");
    let text = doc.to_string();
    let mut missing = BTreeSet::new();
    for part in text.split("\"#/components/schemas/").skip(1) {
        let name = &part[..part.find('"').unwrap()];
        if !schemas.contains_key(name) {
            missing.insert(name.to_string());
        }
    }
    assert!(missing.is_empty(), "dangling references: {missing:?}");
    let error = &schemas["ErrorBody"];
    assert_eq!(error["required"], serde_json::json!(["error"]), "{error}");
}

// What the schemathesis run (openapi/run.sh) found, each fixed and kept fixed here.

/// JSON Schema's `integer` takes `49.0`: so does every whole-number field of the API.
#[tokio::test]
async fn a_whole_number_written_as_a_float_is_taken() {
    let dir = temp_dir("float");
    let app = router(Arc::new(App::new(Store::open(&dir).expect("open store"))));
    let post = |uri: &str, body: &str| {
        let req = Request::post(uri)
            .header("content-type", "application/json")
            .body(Body::from(body.to_string()))
            .expect("request");
        let app = app.clone();
        async move {
            let res = app.oneshot(req).await.expect("response");
            let status = res.status();
            let bytes = res.into_body().collect().await.expect("body").to_bytes();
            (
                status,
                serde_json::from_slice::<Value>(&bytes).unwrap_or(Value::Null),
            )
        }
    };
    let (st, game) = post("/api/games", r#"{"mode": "computer", "level": 5.0}"#).await;
    assert_eq!(st, StatusCode::CREATED, "{game}");
    assert_eq!(game["level"], 5);
    let id = game["id"].as_i64().unwrap();
    let (st, v) = post(
        &format!("/api/games/{id}/moves"),
        r#"{"move": "h2e2", "ply": 0.0}"#,
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    // Not a whole number, or out of range: still refused, naming the field.
    for body in [
        r#"{"level": 5.5}"#,
        r#"{"level": 21.0}"#,
        r#"{"level": 1e300}"#,
    ] {
        let (st, v) = post("/api/games", body).await;
        assert_eq!(st, StatusCode::BAD_REQUEST, "{body}: {v}");
        assert_eq!(v["field"], "level", "{v}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A body that may be left out is not required, and is an object (never `null`); a body
/// that must be there is required; the board's actions need the seat token, the stream not.
#[tokio::test]
async fn optional_bodies_and_tokens_are_as_the_server_has_them() {
    let doc = served_document().await;
    let body = |m: &str, p: &str| doc["paths"][p][m]["requestBody"].clone();
    for p in [
        "/api/games",
        "/api/games/{id}/takeback",
        "/api/games/{id}/resign",
    ] {
        let b = body("post", p);
        assert_ne!(b["required"], true, "{p}: {b}");
        let schema = &b["content"]["application/json"]["schema"];
        assert!(schema["$ref"].is_string(), "{p}: {schema}");
    }
    for (p, ct) in [
        ("/api/challenge/open", "application/x-www-form-urlencoded"),
        ("/api/board/seek/{id}/accept", "application/json"),
    ] {
        let b = body("post", p);
        assert_ne!(b["required"], true, "{p}: {b}");
        assert!(b["content"][ct]["schema"]["$ref"].is_string(), "{p}: {b}");
    }
    for p in [
        "/api/games/{id}/moves",
        "/api/games/{id}/promote",
        "/api/import",
    ] {
        assert_eq!(body("post", p)["required"], true, "{p}");
    }
    // Names are cut to 40 characters, not refused: no maxLength to promise a 400.
    let fields = &doc["components"]["schemas"]["ChallengeFields"];
    assert!(
        fields["properties"]["red"].get("maxLength").is_none(),
        "{fields}"
    );
    assert_eq!(fields["additionalProperties"], false, "{fields}");
    let clock = &doc["components"]["schemas"]["ClockFields"];
    assert_eq!(clock["minProperties"], 1, "{clock}");
    assert!(clock.get("maxProperties").is_none(), "{clock}");
    let security = |m: &str, p: &str| doc["paths"][p][m]["security"].clone();
    // A seat's token, or a personal API token of the account holding the seat.
    let seat = serde_json::json!([{"seat": []}, {"apiToken": []}]);
    assert_eq!(security("post", "/api/board/game/{id}/move/{move}"), seat);
    assert_eq!(security("post", "/api/board/game/{id}/{action}"), seat);
    assert_eq!(
        security("post", "/api/board/game/{id}/{offer}/{answer}"),
        seat
    );
    assert_eq!(
        security("get", "/api/board/game/stream/{id}"),
        serde_json::json!([{}, {"seat": []}, {"apiToken": []}])
    );
    assert_eq!(
        security("post", "/api/account/logout"),
        serde_json::json!([{"session": []}])
    );
    let schemes = &doc["components"]["securitySchemes"];
    assert_eq!(schemes["session"]["in"], "cookie", "{schemes}");
    assert_eq!(schemes["session"]["name"], "xq_session", "{schemes}");
}

/// A nested object's fields are read as dotted names (`{"clock": {"limit": 60}}`), but an
/// empty object was dropped without a word: `{"black": {}}` made a game. It is refused now.
#[tokio::test]
async fn an_empty_object_for_a_field_is_refused() {
    let dir = temp_dir("empty");
    let app = router(Arc::new(App::new(Store::open(&dir).expect("open store"))));
    for (body, field) in [
        (r#"{"black": {}}"#, "black"),
        (r#"{"clock": {}}"#, "clock"),
        (r#"{"color": {}}"#, "color"),
    ] {
        let req = Request::post("/api/challenge/open")
            .header("content-type", "application/json")
            .body(Body::from(body))
            .expect("request");
        let res = app.clone().oneshot(req).await.expect("response");
        let status = res.status();
        let bytes = res.into_body().collect().await.expect("body").to_bytes();
        let v: Value = serde_json::from_slice(&bytes).expect("JSON");
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {v}");
        assert_eq!(v["field"], field, "{body}: {v}");
    }
    // A clock that says something is still read.
    let req = Request::post("/api/challenge/open")
        .header("content-type", "application/json")
        .body(Body::from(r#"{"clock": {"limit": 60}, "black": "Bo"}"#))
        .expect("request");
    assert_eq!(
        app.oneshot(req).await.expect("response").status(),
        StatusCode::OK
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The document has a body as a JSON object (or a form), or none: an empty body is `{}`, but a
/// blank one (whitespace only) was taken as `{}` too. It is refused now, as not JSON.
#[tokio::test]
async fn a_blank_body_is_refused_an_empty_one_is_not() {
    let dir = temp_dir("blank");
    let app = router(Arc::new(App::new(Store::open(&dir).expect("open store"))));
    let send = |uri: &'static str, ctype: &'static str, body: &'static str| {
        let app = app.clone();
        async move {
            let req = Request::post(uri)
                .header("content-type", ctype)
                .body(Body::from(body))
                .expect("request");
            let res = app.oneshot(req).await.expect("response");
            let status = res.status();
            let bytes = res.into_body().collect().await.expect("body").to_bytes();
            let v: Value = serde_json::from_slice(&bytes).expect("JSON");
            (status, v)
        }
    };
    let form = "application/x-www-form-urlencoded";
    for (uri, ctype) in [
        ("/api/games", "application/json"),
        ("/api/challenge/open", "application/json"),
        ("/api/challenge/open", form),
    ] {
        for blank in ["\t", " ", "\n\n"] {
            let (st, v) = send(uri, ctype, blank).await;
            assert_eq!(st, StatusCode::BAD_REQUEST, "{uri} {ctype} {blank:?}: {v}");
            assert!(v["error"].as_str().unwrap().contains("body"), "{v}");
        }
        let (st, v) = send(uri, ctype, "").await;
        assert!(st.is_success(), "{uri} {ctype}, empty body: {st} {v}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A body's schema in the document is the schema of the struct that parses it (one type for
/// both), and its fields' limits are the parser's: `level` 20 is taken, 21 refused.
#[tokio::test]
async fn a_body_schema_is_the_schema_of_its_parsing_struct() {
    use utoipa::PartialSchema;
    use xiangqi_server::api::request;
    let doc = served_document().await;
    let schemas = &doc["components"]["schemas"];
    let of = |s: utoipa::openapi::RefOr<utoipa::openapi::Schema>| serde_json::to_value(s).unwrap();
    for (path, name, schema) in [
        ("/api/games", "NewGame", of(request::NewGame::schema())),
        (
            "/api/games/{id}/moves",
            "PlayMove",
            of(request::PlayMove::schema()),
        ),
        (
            "/api/games/{id}/note",
            "SetNote",
            of(request::SetNote::schema()),
        ),
    ] {
        let body = &doc["paths"][path]["post"]["requestBody"]["content"]["application/json"];
        assert_eq!(
            body["schema"]["$ref"],
            format!("#/components/schemas/{name}")
        );
        assert_eq!(schemas[name], schema, "{name}");
    }
    let level = &schemas["NewGame"]["properties"]["level"]["oneOf"][1]["$ref"];
    assert_eq!(level, "#/components/schemas/Int0to20");
    assert_eq!(schemas["Int0to20"]["maximum"], 20);
    let dir = temp_dir("level");
    let app = router(Arc::new(App::new(Store::open(&dir).expect("open store"))));
    for (level, want) in [(20, StatusCode::CREATED), (21, StatusCode::BAD_REQUEST)] {
        let req = Request::post("/api/games")
            .header("content-type", "application/json")
            .body(Body::from(format!(
                r#"{{"mode": "computer", "level": {level}}}"#
            )))
            .expect("request");
        assert_eq!(
            app.clone().oneshot(req).await.expect("response").status(),
            want
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The bodies that may come as JSON or as a form (`JsonOrForm`): the JSON schema is the
/// parsing struct's, and the form's is the same struct seen as a form has it — an object
/// field as its dotted names, nothing `null` — and a form written from that schema's names
/// is taken by the server.
#[tokio::test]
async fn a_form_body_is_its_parsing_struct_seen_as_a_form() {
    use utoipa::PartialSchema;
    use xiangqi_server::api::request;
    let doc = served_document().await;
    let schemas = &doc["components"]["schemas"];
    let of = |s: utoipa::openapi::RefOr<utoipa::openapi::Schema>| serde_json::to_value(s).unwrap();
    let form_type = "application/x-www-form-urlencoded";
    for (path, name, schema, form) in [
        (
            "/api/challenge/open",
            "ChallengeFields",
            of(request::ChallengeFields::schema()),
            "ChallengeForm",
        ),
        (
            "/api/board/seek",
            "SeekFields",
            of(request::SeekFields::schema()),
            "SeekForm",
        ),
        (
            "/api/board/seek/{id}/accept",
            "AcceptFields",
            of(request::AcceptFields::schema()),
            "AcceptForm",
        ),
        (
            "/api/account/register",
            "Credentials",
            of(request::Credentials::schema()),
            "Credentials",
        ),
        (
            "/api/account/login",
            "Credentials",
            of(request::Credentials::schema()),
            "Credentials",
        ),
        (
            "/api/account/password",
            "PasswordChange",
            of(request::PasswordChange::schema()),
            "PasswordChange",
        ),
        (
            "/api/account/tokens",
            "TokenFields",
            of(request::TokenFields::schema()),
            "TokenForm",
        ),
    ] {
        let content = &doc["paths"][path]["post"]["requestBody"]["content"];
        let json = &content["application/json"]["schema"];
        let refers = |s: &Value, to: &str| {
            s["$ref"] == format!("#/components/schemas/{to}")
                || s["oneOf"].as_array().is_some_and(|o| {
                    o.iter()
                        .any(|s| s["$ref"] == format!("#/components/schemas/{to}"))
                })
        };
        assert!(refers(json, name), "{path}: {json}");
        assert_eq!(schemas[name], schema, "{name}");
        assert!(
            refers(&content[form_type]["schema"], form),
            "{path}: {content}"
        );
        let props = schemas[form]["properties"].as_object().expect("properties");
        for (field, p) in props {
            assert!(
                !p.to_string().contains("\"null\""),
                "{form}.{field} may be null: {p}"
            );
            assert!(
                !schemas[name]["properties"][field].is_null() || field.contains('.'),
                "{form}.{field}"
            );
        }
    }
    let seek: Vec<&String> = schemas["SeekForm"]["properties"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(
        seek,
        [
            "clock.increment",
            "clock.limit",
            "color",
            "days",
            "name",
            "rated"
        ]
    );
    // The form the document describes is taken.
    let dir = temp_dir("forms");
    let app = router(Arc::new(App::new(Store::open(&dir).expect("open store"))));
    let req = Request::post("/api/challenge/open")
        .header("content-type", form_type)
        .body(Body::from(
            "clock.limit=300&clock.increment=5&color=black&name=Li+Na&rated=false",
        ))
        .expect("request");
    let res = app.clone().oneshot(req).await.expect("response");
    let status = res.status();
    let body = axum::body::to_bytes(res.into_body(), 1 << 20)
        .await
        .unwrap();
    assert!(
        status.is_success(),
        "{status} {}",
        String::from_utf8_lossy(&body)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
