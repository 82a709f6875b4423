//! The service's JSON bodies and query strings through its real router (`semfuzz_service::app`:
//! extractors, deserialisers, validation, handlers) in-process, on a SQLite database in a
//! temporary directory, with a valid token.
//!
//! Input: a route (one byte), flags (one byte: bit 0 sends the token, bit 1 an
//! `Idempotency-Key`, bit 2 a `content-type` other than JSON, bit 3 the structured mode), then
//! the body (for GET routes, the query string). In the structured mode the rest of the input
//! instead picks one of the committed seeds' bodies for that route and replaces one to four of
//! its values, at any depth, by short strings, extreme numbers, `null`s and the like
//! (`arbitrary`): a valid body with one bad field is what reaches the field-by-field validation,
//! and raw byte mutations keep a large JSON body valid too rarely to get there (a deliberately
//! broken hex parser went unfound for 10 minutes without this mode, see fuzz/README.md).
//!
//! Properties: nothing panics; no 500 (a 503 would be a failing database, which this one is
//! not); every 4xx is the API's one error shape `{"error": "..."}`.
#![no_main]

use arbitrary::Unstructured;
use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use http_body_util::BodyExt;
use libfuzzer_sys::fuzz_target;
use semfuzz_libfuzzer::spec;
use semfuzz_service::{app, AppState, Config, Db, Target};
use std::sync::{Arc, OnceLock};
use tower::ServiceExt;

/// Every route that reads a body or a query string: (method, path). Ids are 1, which exists
/// once the fuzzer has created a finding or campaign.
const ROUTES: &[(Method, &str)] = &[
    (Method::POST, "/api/v1/findings"),
    (Method::PATCH, "/api/v1/findings/1"),
    (Method::POST, "/api/v1/campaigns"),
    (Method::PATCH, "/api/v1/campaigns/1"),
    (Method::POST, "/api/v1/units/lease"),
    (Method::POST, "/api/v1/units/1/heartbeat"),
    (Method::POST, "/api/v1/units/1/complete"),
    (Method::POST, "/api/v1/proofs"),
    (Method::GET, "/api/v1/findings"),
    (Method::GET, "/api/v1/proofs"),
    // Appended, so that the committed seeds' route bytes keep naming the same routes.
    (Method::POST, "/api/v1/llc-verdicts"),
    (Method::GET, "/api/v1/llc-verdicts"),
    (Method::POST, "/api/v1/llc-campaigns"),
];

struct Service {
    runtime: tokio::runtime::Runtime,
    state: AppState,
    token: String,
    _dir: tempfile::TempDir,
}

/// What the database directories of this target start with, followed by the process id.
const DIR_PREFIX: &str = "semfuzz-api-body-";

/// A fresh directory for the database, memory-backed where there is one (every write commits
/// with synchronous=FULL). libFuzzer ends a process with `exit`, which drops no static, so the
/// directory outlives it: those of processes that are gone are removed here first.
fn database_dir() -> tempfile::TempDir {
    let shm = std::path::Path::new("/dev/shm");
    let base = if shm.is_dir() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    for entry in std::fs::read_dir(&base).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let pid = name
            .strip_prefix(DIR_PREFIX)
            .and_then(|rest| rest.split('.').next());
        if pid.is_some_and(|pid| !std::path::Path::new("/proc").join(pid).exists()) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
    tempfile::Builder::new()
        .prefix(&format!("{DIR_PREFIX}{}.", std::process::id()))
        .tempdir_in(base)
        .expect("a temporary directory")
}

fn service() -> &'static Service {
    static SERVICE: OnceLock<Service> = OnceLock::new();
    SERVICE.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime");
        let dir = database_dir();
        let target = Target::Sqlite(dir.path().join("fuzz.db"));
        let (db, token) = runtime.block_on(async {
            let db = Db::open(&target).await.expect("opening the database");
            let token = db.create_token().await.expect("a token");
            (db, token)
        });
        let state = AppState {
            db,
            config: Arc::new(Config::new(
                spec().variants.iter().map(|v| v.text.clone()).collect(),
            )),
            metrics: Default::default(),
            spec: Arc::new(semfuzz_spec::Spec::embedded().expect("the built-in spec")),
        };
        Service {
            runtime,
            state,
            token,
            _dir: dir,
        }
    })
}

/// The committed seeds' JSON bodies, by route index: the templates of the structured mode.
fn templates() -> &'static [Vec<serde_json::Value>] {
    static TEMPLATES: OnceLock<Vec<Vec<serde_json::Value>>> = OnceLock::new();
    TEMPLATES.get_or_init(|| {
        let mut by_route = vec![Vec::new(); ROUTES.len()];
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/seeds/api_body");
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let Ok(bytes) = std::fs::read(entry.path()) else {
                continue;
            };
            let (Some(&route), Some(body)) = (bytes.first(), bytes.get(2..)) else {
                continue;
            };
            if let (Some(list), Ok(v)) = (
                by_route.get_mut(usize::from(route)),
                serde_json::from_slice::<serde_json::Value>(body),
            ) {
                list.push(v);
            }
        }
        by_route
    })
}

/// A JSON value that validation must refuse or take: short and odd strings, extreme numbers,
/// the wrong kinds.
fn odd_value(u: &mut Unstructured) -> arbitrary::Result<serde_json::Value> {
    use serde_json::Value;
    Ok(match u.int_in_range(0..=9)? {
        0 => Value::String(u.arbitrary::<String>()?.chars().take(3).collect()),
        1 => Value::String(u.arbitrary()?),
        2 => Value::from(u.arbitrary::<i64>()?),
        3 => Value::from(u.arbitrary::<u64>()?),
        4 => serde_json::Number::from_f64(u.arbitrary()?).map_or(Value::Null, Value::Number),
        5 => Value::Null,
        6 => Value::Bool(u.arbitrary()?),
        7 => Value::Array(Vec::new()),
        8 => Value::Object(Default::default()),
        _ => Value::from(*u.choose(&[0, -1, 1, i64::MAX, i64::MIN, 1 << 53])?),
    })
}

/// Replaces one value of `v`, at a depth and place the input chooses (the whole of `v` when
/// it has nothing inside).
fn replace_somewhere(v: &mut serde_json::Value, u: &mut Unstructured) -> arbitrary::Result<()> {
    use serde_json::Value;
    let descend = u.ratio(3, 4)?;
    match v {
        Value::Object(map) if descend && !map.is_empty() => {
            let key = u.choose_index(map.len())?;
            let child = map
                .values_mut()
                .nth(key)
                .expect("an index below the length");
            replace_somewhere(child, u)
        }
        Value::Array(items) if descend && !items.is_empty() => {
            let i = u.choose_index(items.len())?;
            replace_somewhere(&mut items[i], u)
        }
        _ => {
            *v = odd_value(u)?;
            Ok(())
        }
    }
}

/// The structured mode's body: a seed's body for `route` with one to four values replaced.
fn structured_body(route: usize, u: &mut Unstructured) -> Option<Vec<u8>> {
    let mut body = u.choose(templates().get(route)?).ok()?.clone();
    for _ in 0..=u.int_in_range(0..=3).ok()? {
        replace_somewhere(&mut body, u).ok()?;
    }
    serde_json::to_vec(&body).ok()
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let (Ok(route), Ok(flags)) = (u.choose_index(ROUTES.len()), u.arbitrary::<u8>()) else {
        return;
    };
    let (method, path) = &ROUTES[route];
    let structured;
    let rest = if flags & 8 != 0 && *method != Method::GET {
        let Some(body) = structured_body(route, &mut u) else {
            return;
        };
        structured = body;
        &structured[..]
    } else {
        u.take_rest()
    };
    let s = service();
    let mut req = Request::builder().method(method.clone());
    let mut body = Body::from(rest.to_vec());
    if *method == Method::GET {
        // The bytes are the query string; text that is no URI is refused before any handler.
        let Ok(query) = std::str::from_utf8(rest) else {
            return;
        };
        let Ok(uri) = format!("{path}?{query}").parse::<axum::http::Uri>() else {
            return;
        };
        req = req.uri(uri);
        body = Body::empty();
    } else {
        req = req.uri(*path);
    }
    if flags & 1 != 0 {
        req = req.header("authorization", format!("Bearer {}", s.token));
    }
    if flags & 2 != 0 {
        req = req.header("idempotency-key", format!("key-{}", flags >> 4));
    }
    let content_type = if flags & 4 != 0 {
        "text/plain"
    } else {
        "application/json"
    };
    let req = req
        .header("content-type", content_type)
        .body(body)
        .expect("a request");
    let (status, text) = s.runtime.block_on(async {
        let resp = app(s.state.clone())
            .oneshot(req)
            .await
            .expect("the router answers");
        let status = resp.status();
        let bytes = resp
            .into_body()
            .collect()
            .await
            .expect("the body")
            .to_bytes();
        (status, String::from_utf8_lossy(&bytes).into_owned())
    });
    assert!(
        !status.is_server_error(),
        "{method} {path}: {status} {text}"
    );
    if status.is_client_error() && status != StatusCode::METHOD_NOT_ALLOWED {
        let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| {
            panic!("{method} {path}: {status}, body is not JSON ({e}): {text}")
        });
        assert!(
            v.get("error").is_some_and(|e| e.is_string())
                && v.as_object().is_some_and(|o| o.len() == 1),
            "{method} {path}: {status}, not the error shape: {text}"
        );
    }
});
