//! The JSON API on SQLite and on PostgreSQL: idempotent ingest, filters and paging, triage,
//! campaigns and leasing, proofs, LLVM verdicts (and the reporting client), auth, bad input,
//! OpenAPI and metrics.

mod common;

use axum::http::{Method, StatusCode};
use common::*;
use serde_json::{json, Value};

const T0: &str = "2026-01-01T00:00:00Z";
const T1: &str = "2026-01-02T00:00:00Z";
const T2: &str = "2026-01-03T00:00:00Z";

/// Posts `batch` to the batch endpoint `path` with the test token, under an idempotency key.
async fn post_batch(
    app: &TestApp,
    path: &str,
    batch: &Value,
    key: Option<&str>,
) -> (StatusCode, Value) {
    let headers: Vec<(&str, &str)> = key
        .map(|k| vec![("idempotency-key", k)])
        .unwrap_or_default();
    let (s, v, _) = app
        .send(
            Method::POST,
            path,
            Some(&app.token.clone()),
            Some(batch.to_string().into_bytes()),
            &headers,
        )
        .await;
    (s, v)
}

async fn post_findings(app: &TestApp, batch: &Value, key: Option<&str>) -> (StatusCode, Value) {
    post_batch(app, "/api/v1/findings", batch, key).await
}

both_databases!(
    ingest_merges_and_is_idempotent,
    |_| {},
    |app: TestApp| async move {
        let a = finding(
            "add.rn.f32",
            "host",
            "ulp-up-1",
            "00000000000000aa",
            &["0x3f800003", "0x40000000"],
            3,
            (T1, T1),
        );
        let (s, v) = post_findings(&app, &json!([a]), None).await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        let id = v["ids"][0].as_i64().unwrap();
        // The same signature again, seen earlier and later, with a smaller example.
        let b = finding(
            "add.rn.f32",
            "host",
            "ulp-up-1",
            "00000000000000aa",
            &["0x3f800000", "0x40000000"],
            2,
            (T0, T2),
        );
        let (s, v) = post_findings(&app, &json!([b]), Some("batch-1")).await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        assert_eq!(
            v["ids"][0].as_i64(),
            Some(id),
            "same signature, same finding"
        );
        // A retried batch (same key) changes nothing.
        let (s, v) = post_findings(&app, &json!([b]), Some("batch-1")).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(v["duplicate"], json!(true));
        let (s, v, _) = app.get(&format!("/api/v1/findings/{id}")).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(v["count"], json!(5));
        assert_eq!(v["first_seen"], json!(T0));
        assert_eq!(v["last_seen"], json!(T2));
        assert_eq!(
            v["inputs"],
            json!(["0x3f800000", "0x40000000"]),
            "the smaller example stays"
        );
        assert_eq!(v["status"], json!("new"));
        assert_eq!(
            v["history"].as_array().unwrap().len(),
            2,
            "two reports, the retry not recorded"
        );
        let (_, v, _) = app.get("/api/v1/findings").await;
        assert_eq!(v["total"], json!(1), "never duplicated");
    }
);

both_databases!(
    filters_paging_and_triage,
    |_| {},
    |app: TestApp| async move {
        let batch = json!([
            finding(
                "add.rn.f32",
                "host",
                "ulp-up-1",
                "s1",
                &["0x1", "0x2"],
                1,
                (T0, T0)
            ),
            finding(
                "add.rz.f32",
                "llvm",
                "sign-of-zero",
                "s2",
                &["0x1", "0x2"],
                9,
                (T0, T1)
            ),
            finding(
                "fma.rn.f32",
                "host",
                "sign-of-zero",
                "s3",
                &["0x1", "0x2", "0x3"],
                4,
                (T0, T2)
            ),
            finding(
                "mul.rn.f32",
                "host",
                "wrong-nan",
                "s4",
                &["0x1", "0x2"],
                2,
                (T0, T1)
            ),
            finding(
                "ADD_X.rn.f32",
                "host",
                "bits",
                "s5",
                &["0x1", "0x2"],
                2,
                (T0, T1)
            ),
        ]);
        assert_eq!(
            post_findings(&app, &batch, None).await.0,
            StatusCode::CREATED
        );
        let variants = |v: &Value| -> Vec<String> {
            v["findings"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["variant"].as_str().unwrap().to_string())
                .collect()
        };
        let (_, v, _) = app.get("/api/v1/findings?variant=add.*&sort=variant").await;
        assert_eq!(
            variants(&v),
            ["add.rn.f32", "add.rz.f32"],
            "glob, case-insensitive, `_` not a wildcard"
        );
        let (_, v, _) = app.get("/api/v1/findings?variant=ADD_*").await;
        assert_eq!(variants(&v), ["ADD_X.rn.f32"]);
        let (_, v, _) = app
            .get("/api/v1/findings?backend=host&class=sign-of-zero")
            .await;
        assert_eq!(variants(&v), ["fma.rn.f32"]);
        let (_, v, _) = app.get("/api/v1/findings?sort=-count&limit=2").await;
        assert_eq!(variants(&v), ["add.rz.f32", "fma.rn.f32"]);
        assert_eq!(
            (v["total"].clone(), v["next_offset"].clone()),
            (json!(5), json!(2))
        );
        let (_, v, _) = app
            .get("/api/v1/findings?sort=-count&limit=2&offset=4")
            .await;
        assert_eq!(v["findings"].as_array().unwrap().len(), 1);
        assert_eq!(v["next_offset"], Value::Null);
        // Triage.
        let id = app.get("/api/v1/findings?variant=mul.*").await.1["findings"][0]["id"]
            .as_i64()
            .unwrap();
        let (s, v) = app
            .write(
                Method::PATCH,
                &format!("/api/v1/findings/{id}"),
                &json!({"status": "backend-bug", "note": "LLVM folds it"}),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(
            (v["status"].clone(), v["note"].clone()),
            (json!("backend-bug"), json!("LLVM folds it"))
        );
        let (_, v, _) = app.get("/api/v1/findings?status=backend-bug").await;
        assert_eq!(variants(&v), ["mul.rn.f32"]);
        let (_, v, _) = app.get("/api/v1/findings?status=open").await;
        assert_eq!(v["total"], json!(4));
        let (s, v) = app
            .write(
                Method::PATCH,
                &format!("/api/v1/findings/{id}"),
                &json!({"status": "fixed?"}),
            )
            .await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
        assert!(v["error"].as_str().unwrap().contains("status"), "{v}");
        let (s, _) = app
            .write(
                Method::PATCH,
                "/api/v1/findings/999999",
                &json!({"note": "x"}),
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
    }
);

// Found by the api_body fuzz target: three posts of one finding with the largest count a post
// may carry overflowed its count (SQLite made it a REAL, and every read of the finding then
// failed with 503; PostgreSQL refuses the sum). The count stops at the largest integer.
both_databases!(
    a_count_past_the_largest_integer_stops_there,
    |_| {},
    |app: TestApp| async move {
        let big = (i64::MAX / 2) as u64;
        let f = finding(
            "add.rn.f32",
            "host",
            "bits",
            "big",
            &["0x1", "0x2"],
            big,
            (T0, T1),
        );
        for _ in 0..3 {
            let (s, v) = post_findings(&app, &json!([f]), None).await;
            assert_eq!(s, StatusCode::CREATED, "{v}");
        }
        let (s, v, _) = app.get("/api/v1/findings?variant=add.rn.f32").await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(v["findings"][0]["count"], json!(i64::MAX));
    }
);

both_databases!(auth, |_| {}, |app: TestApp| async move {
    let batch = json!([finding(
        "add.rn.f32",
        "host",
        "bits",
        "s1",
        &["0x1", "0x2"],
        1,
        (T0, T0)
    )])
    .to_string()
    .into_bytes();
    let (s, v, _) = app
        .send(
            Method::POST,
            "/api/v1/findings",
            None,
            Some(batch.clone()),
            &[],
        )
        .await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    assert!(v["error"].as_str().unwrap().contains("token"), "{v}");
    let (s, _, _) = app
        .send(
            Method::POST,
            "/api/v1/findings",
            Some("sft_not-a-token"),
            Some(batch),
            &[],
        )
        .await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    for (m, path) in [
        (Method::POST, "/api/v1/campaigns"),
        (Method::POST, "/api/v1/units/lease"),
        (Method::POST, "/api/v1/proofs"),
        (Method::POST, "/api/v1/llc-verdicts"),
        (Method::PATCH, "/api/v1/findings/1"),
    ] {
        let (s, _, _) = app.send(m, path, None, Some(b"{}".to_vec()), &[]).await;
        assert!(
            s == StatusCode::UNAUTHORIZED || s == StatusCode::UNPROCESSABLE_ENTITY,
            "{path}: {s}"
        );
    }
    let (s, _, _) = app.get("/api/v1/findings").await;
    assert_eq!(s, StatusCode::OK, "reads are open by default");
});

both_databases!(
    read_token_required,
    |c: &mut semfuzz_service::Config| c.read_token_required = true,
    |app: TestApp| async move {
        for path in [
            "/api/v1/findings",
            "/api/v1/campaigns",
            "/metrics",
            "/",
            "/findings",
            "/api/v1/llc-verdicts",
            "/llc",
        ] {
            let (s, _, _) = app.get(path).await;
            assert_eq!(s, StatusCode::UNAUTHORIZED, "{path}");
            let (s, _, _) = app
                .send(Method::GET, path, Some(&app.token.clone()), None, &[])
                .await;
            assert_eq!(s, StatusCode::OK, "{path}");
        }
    }
);

both_databases!(
    bad_input_is_a_4xx_naming_the_problem,
    |c: &mut semfuzz_service::Config| c.max_body_bytes = 4096,
    |app: TestApp| async move {
        let tok = app.token.clone();
        let post = |body: &'static [u8]| {
            app.send(
                Method::POST,
                "/api/v1/findings",
                Some(&tok),
                Some(body.to_vec()),
                &[],
            )
        };
        let cases: Vec<(StatusCode, Value, &str)> = vec![
            {
                let (s, v, _) = post(b"[{").await;
                (s, v, "EOF while parsing")
            },
            {
                let (s, v, _) = post(b"{\"variant\": 1}").await;
                (s, v, "expected")
            },
            {
                let (s, v, _) = post(b"[{\"variant\": \"add.rn.f32\"}]").await;
                (s, v, "missing field")
            },
        ];
        for (s, v, word) in cases {
            assert!(s.is_client_error(), "{s} {v}");
            assert!(
                v["error"].as_str().unwrap_or("").contains(word),
                "{word}: {v}"
            );
        }
        let mut bad = finding(
            "add.rn.f32",
            "host",
            "bits",
            "s1",
            &["0x1", "zz"],
            1,
            (T0, T0),
        );
        let (s, v) = post_findings(&app, &json!([bad.clone()]), None).await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
        assert!(
            v["error"]
                .as_str()
                .unwrap()
                .contains("findings[0].inputs[1]"),
            "{v}"
        );
        bad["inputs"] = json!(["0x1"]);
        bad["last_seen"] = json!("yesterday");
        let (s, v) = post_findings(&app, &json!([bad.clone()]), None).await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
        assert!(v["error"].as_str().unwrap().contains("last_seen"), "{v}");
        bad["last_seen"] = json!(T0);
        bad["count"] = json!(-1);
        assert!(post_findings(&app, &json!([bad]), None)
            .await
            .0
            .is_client_error());
        let big = json!([finding(
            "add.rn.f32",
            "host",
            "bits",
            &"x".repeat(5000),
            &["0x1"],
            1,
            (T0, T0)
        )])
        .to_string()
        .into_bytes();
        let (s, v, _) = app
            .send(Method::POST, "/api/v1/findings", Some(&tok), Some(big), &[])
            .await;
        assert_eq!(s, StatusCode::PAYLOAD_TOO_LARGE, "{v}");
        assert!(v["error"].is_string());
        let (s, v, _) = app
            .send(
                Method::POST,
                "/api/v1/findings",
                Some(&tok),
                Some(b"[]".to_vec()),
                &[("content-type", "text/plain")],
            )
            .await;
        assert!(s.is_client_error() && v["error"].is_string(), "{s} {v}");
        for (path, want) in [
            ("/api/v1/nothing", StatusCode::NOT_FOUND),
            ("/api/v1/findings/abc", StatusCode::BAD_REQUEST),
            ("/api/v1/findings/99999", StatusCode::NOT_FOUND),
            ("/api/v1/findings?limit=0", StatusCode::UNPROCESSABLE_ENTITY),
            ("/api/v1/findings?limit=x", StatusCode::BAD_REQUEST),
            ("/api/v1/findings?bogus=1", StatusCode::BAD_REQUEST),
            (
                "/api/v1/findings?sort=count;DROP%20TABLE%20findings",
                StatusCode::UNPROCESSABLE_ENTITY,
            ),
            ("/api/v1/campaigns/7", StatusCode::NOT_FOUND),
            ("/findings/abc", StatusCode::BAD_REQUEST),
            ("/findings/12345", StatusCode::NOT_FOUND),
        ] {
            let (s, v, body) = app.get(path).await;
            assert_eq!(s, want, "{path}: {body}");
            if path.starts_with("/api") {
                assert!(v["error"].is_string(), "{path}: {body}");
            }
        }
        let (s, v, _) = app
            .send(Method::DELETE, "/api/v1/findings", Some(&tok), None, &[])
            .await;
        assert_eq!(s, StatusCode::METHOD_NOT_ALLOWED);
        assert!(v["error"].as_str().unwrap().contains("DELETE"), "{v}");
        let (_, v, _) = app.get("/api/v1/findings").await;
        assert_eq!(v["total"], json!(0), "nothing bad was stored");
    }
);

both_databases!(
    campaigns_leases_and_completion,
    |_| {},
    |app: TestApp| async move {
        let (s, c) = app.write(Method::POST, "/api/v1/campaigns", &json!({
        "name": "t", "variants": "add.rn.f32", "backends": ["host", "llvm"], "generator": "boundary",
        "cases_per_unit": 1000, "rounds": 2
    })).await;
        assert_eq!(s, StatusCode::CREATED, "{c}");
        assert_eq!(c["units"], json!(4));
        let cid = c["id"].as_i64().unwrap();
        let (s, v) = app
            .write(
                Method::POST,
                "/api/v1/units/lease",
                &json!({"worker": "w1", "backends": ["host"], "max": 3}),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let leases = v["leases"].as_array().unwrap().clone();
        assert_eq!(leases.len(), 2, "only the host units");
        assert!(leases
            .iter()
            .all(|l| l["backend"] == "host" && l["variant"] == "add.rn.f32"));
        let (_, v) = app
            .write(
                Method::POST,
                "/api/v1/units/lease",
                &json!({"worker": "w2", "backends": ["host"]}),
            )
            .await;
        assert_eq!(v["leases"], json!([]), "a leased unit is not leased again");
        let (unit, token) = (
            leases[0]["unit"].as_i64().unwrap(),
            leases[0]["lease_token"].as_str().unwrap().to_string(),
        );
        let (s, _) = app
            .write(
                Method::POST,
                &format!("/api/v1/units/{unit}/heartbeat"),
                &json!({"lease_token": token}),
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        let (s, v) = app
            .write(
                Method::POST,
                &format!("/api/v1/units/{unit}/heartbeat"),
                &json!({"lease_token": "nope"}),
            )
            .await;
        assert_eq!(s, StatusCode::CONFLICT, "{v}");
        // More cases than any unit has would let the campaign's sums overflow.
        let (s, v) = app
            .write(
                Method::POST,
                &format!("/api/v1/units/{unit}/complete"),
                &json!({"lease_token": token, "cases": 1_000_000_001i64, "findings": []}),
            )
            .await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
        assert!(v["error"].as_str().unwrap().starts_with("cases: "), "{v}");
        let done = json!({"lease_token": token, "cases": 1000, "findings": [finding("add.rn.f32", "host", "bits", "u1", &["0x1", "0x2"], 7, (T0, T1))]});
        let (s, v) = app
            .write(
                Method::POST,
                &format!("/api/v1/units/{unit}/complete"),
                &done,
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(v["duplicate"], json!(false));
        let (s, v) = app
            .write(
                Method::POST,
                &format!("/api/v1/units/{unit}/complete"),
                &done,
            )
            .await;
        assert_eq!(
            (s, v["duplicate"].clone()),
            (StatusCode::OK, json!(true)),
            "a repeated completion changes nothing"
        );
        let (_, v, _) = app.get("/api/v1/findings?variant=add.rn.f32").await;
        assert_eq!(v["findings"][0]["count"], json!(7));
        // A lease that expires goes back to the queue; its old holder can no longer complete.
        let (_, v) = app
            .write(
                Method::POST,
                "/api/v1/units/lease",
                &json!({"worker": "w3", "backends": ["llvm"], "lease_seconds": 1}),
            )
            .await;
        let old = v["leases"][0].clone();
        tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
        let (_, v) = app
            .write(
                Method::POST,
                "/api/v1/units/lease",
                &json!({"worker": "w4", "backends": ["llvm"], "max": 5}),
            )
            .await;
        let units: Vec<i64> = v["leases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["unit"].as_i64().unwrap())
            .collect();
        assert!(
            units.contains(&old["unit"].as_i64().unwrap()),
            "expired lease re-leased: {v}"
        );
        assert_eq!(units.len(), 2);
        let late = json!({"lease_token": old["lease_token"], "cases": 1000, "findings": [finding("add.rn.f32", "llvm", "bits", "late", &["0x1", "0x2"], 1, (T0, T0))]});
        let (s, v) = app
            .write(
                Method::POST,
                &format!("/api/v1/units/{}/complete", old["unit"]),
                &late,
            )
            .await;
        assert_eq!(s, StatusCode::CONFLICT, "{v}");
        let (_, v, _) = app.get("/api/v1/findings?backend=llvm").await;
        assert_eq!(
            v["total"],
            json!(0),
            "a lost lease's findings are not stored"
        );
        let (s, v, _) = app.get(&format!("/api/v1/campaigns/{cid}")).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(
            (
                v["units_done"].clone(),
                v["cases"].clone(),
                v["findings"].clone()
            ),
            (json!(1), json!(1000), json!(7))
        );
        assert_eq!(v["throughput"].as_array().unwrap().len(), 1);
        // Paused campaigns hand out nothing.
        let (s, _) = app
            .write(
                Method::PATCH,
                &format!("/api/v1/campaigns/{cid}"),
                &json!({"status": "paused"}),
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        let (_, v) = app
            .write(
                Method::POST,
                "/api/v1/units/lease",
                &json!({"worker": "w5"}),
            )
            .await;
        assert_eq!(v["leases"], json!([]));
        let (s, v) = app.write(Method::POST, "/api/v1/campaigns", &json!({"name": "x", "variants": "nosuch.*", "backends": ["host"], "generator": "boundary"})).await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
        assert!(
            v["error"].as_str().unwrap().contains("matches no variant"),
            "{v}"
        );
        let (s, v) = app.write(Method::POST, "/api/v1/campaigns", &json!({"name": "x", "variants": "add.*", "backends": ["host"], "generator": "mixed"})).await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
        assert!(v["error"].as_str().unwrap().contains("generator"), "{v}");
    }
);

both_databases!(
    continuous_campaign_queues_successors,
    |_| {},
    |app: TestApp| async move {
        let (_, c) = app.write(Method::POST, "/api/v1/campaigns", &json!({"name": "c", "variants": "add.rn.f32", "backends": ["host"], "generator": "boundary", "continuous": true})).await;
        let mut seeds = vec![];
        for _ in 0..3 {
            let (_, v) = app
                .write(Method::POST, "/api/v1/units/lease", &json!({"worker": "w"}))
                .await;
            let l = v["leases"][0].clone();
            seeds.push(l["seed"].as_i64().unwrap());
            let (s, _) = app
                .write(
                    Method::POST,
                    &format!("/api/v1/units/{}/complete", l["unit"]),
                    &json!({"lease_token": l["lease_token"], "cases": 10, "findings": []}),
                )
                .await;
            assert_eq!(s, StatusCode::OK);
        }
        assert!(seeds.windows(2).all(|w| w[1] == w[0] + 1), "{seeds:?}");
        let (_, v, _) = app.get(&format!("/api/v1/campaigns/{}", c["id"])).await;
        assert_eq!(
            (
                v["units"].clone(),
                v["units_done"].clone(),
                v["cases"].clone()
            ),
            (json!(4), json!(3), json!(30))
        );
    }
);

both_databases!(
    concurrent_leases_never_share_a_unit,
    |_| {},
    |app: TestApp| async move {
        let (s, _) = app.write(Method::POST, "/api/v1/campaigns", &json!({"name": "c", "variants": "add.*", "backends": ["host"], "generator": "boundary", "rounds": 10})).await;
        assert_eq!(s, StatusCode::CREATED);
        let app = std::sync::Arc::new(app);
        let mut tasks = vec![];
        for w in 0..16 {
            let app = app.clone();
            tasks.push(tokio::spawn(async move {
                let mut got = vec![];
                loop {
                    let (s, v) = app
                        .write(
                            Method::POST,
                            "/api/v1/units/lease",
                            &json!({"worker": format!("w{w}"), "max": 3}),
                        )
                        .await;
                    assert_eq!(s, StatusCode::OK, "{v}");
                    let ls = v["leases"].as_array().unwrap();
                    if ls.is_empty() {
                        return got;
                    }
                    got.extend(ls.iter().map(|l| l["unit"].as_i64().unwrap()));
                }
            }));
        }
        let mut all = vec![];
        for t in tasks {
            all.extend(t.await.unwrap());
        }
        let n = all.len();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), n, "a unit went to two workers");
        let (_, v, _) = app.get("/api/v1/campaigns").await;
        assert_eq!(
            v["campaigns"][0]["units"].as_i64().unwrap() as usize,
            n,
            "every unit leased"
        );
    }
);

both_databases!(proofs, |_| {}, |app: TestApp| async move {
    let (s, v) = app.write(Method::POST, "/api/v1/proofs", &json!([
        {"rule": "mul-f16x2-to-hmul2-fmz", "verdict": "counterexample", "counterexample": "a=0x0001", "solver": "z3 4.13", "seconds": 0.5},
        {"rule": "<b>r2</b>", "verdict": "proved", "solver": "z3 4.13", "seconds": 1.25}
    ])).await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let (_, v, _) = app.get("/api/v1/proofs").await;
    assert_eq!(v["proofs"].as_array().unwrap().len(), 2);
    assert_eq!(v["proofs"][0]["verdict"], json!("proved"));
    let (s, v) = app
        .write(
            Method::POST,
            "/api/v1/proofs",
            &json!([{"rule": "r", "verdict": "maybe", "solver": "z3", "seconds": 1}]),
        )
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(v["error"].as_str().unwrap().contains("verdict"));
    let (s, _, html) = app.get("/proofs").await;
    assert_eq!(s, StatusCode::OK);
    assert!(
        html.contains("&lt;b&gt;r2&lt;/b&gt;") && !html.contains("<b>r2"),
        "escaped"
    );
});

both_databases!(openapi_and_metrics, |_| {}, |app: TestApp| async move {
    let (s, v, _) = app.get("/api/v1/openapi.json").await;
    assert_eq!(s, StatusCode::OK);
    for p in [
        "/api/v1/findings",
        "/api/v1/findings/{id}",
        "/api/v1/campaigns",
        "/api/v1/units/lease",
        "/api/v1/units/{id}/complete",
        "/api/v1/proofs",
    ] {
        assert!(
            v["paths"][p].is_object(),
            "{p} missing from the OpenAPI document"
        );
    }
    assert!(v["components"]["schemas"]["Finding"]["properties"]["signature"].is_object());
    assert!(v["components"]["securitySchemes"]["bearer"].is_object());
    post_findings(
        &app,
        &json!([finding(
            "add.rn.f32",
            "host",
            "bits",
            "m1",
            &["0x1", "0x2"],
            4,
            (T0, T0)
        )]),
        None,
    )
    .await;
    let (s, _, text) = app.get("/healthz").await;
    assert_eq!((s, text.as_str()), (StatusCode::OK, "ok\n"));
    let (s, _, text) = app.get("/metrics").await;
    assert_eq!(s, StatusCode::OK);
    for line in [
        "semfuzz_findings 1",
        "semfuzz_finding_occurrences 4",
        "semfuzz_queue_depth 0",
        "semfuzz_findings_ingested_total 1",
    ] {
        assert!(text.lines().any(|l| l == line), "{line} missing:\n{text}");
    }
    assert!(text.contains("semfuzz_http_request_duration_seconds_count{method=\"POST\",route=\"/api/v1/findings\",status=\"201\"} 1"), "{text}");
});

// PostgreSQL's text cannot hold U+0000, so a NUL anywhere would fail the insert there (a
// 5xx, found by schemathesis); both databases refuse it up front with the same 4xx. An
// array in place of an object, which serde alone accepts, is refused too; a whole float is
// an integer, as JSON Schema says.
both_databases!(
    bodies_follow_json_schema,
    |_| {},
    |app: TestApp| async move {
        let (s, v) = app
            .write(
                Method::POST,
                "/api/v1/proofs",
                &json!([{"rule": "a\u{0}b", "verdict": "proved", "solver": "z3", "seconds": 1}]),
            )
            .await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
        assert!(
            v["error"]
                .as_str()
                .unwrap()
                .contains("[0].rule: text must not contain U+0000"),
            "{v}"
        );
        let (s, v, _) = app.get("/api/v1/findings?variant=a%00b").await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert!(v["error"].as_str().unwrap().contains("U+0000"), "{v}");
        let (s, v) = app
            .write(
                Method::POST,
                "/api/v1/campaigns",
                &json!(["c", "add.rn.f32", ["host"], "boundary"]),
            )
            .await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
        assert!(
            v["error"]
                .as_str()
                .unwrap()
                .contains("expected a JSON object"),
            "{v}"
        );
        let (s, v) = app
            .write(
                Method::POST,
                "/api/v1/units/lease",
                &json!({"worker": "w", "max": 2.0, "lease_seconds": 60.0}),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let (s, v) = app
            .write(
                Method::POST,
                "/api/v1/units/lease",
                &json!({"worker": "w", "max": 2.5}),
            )
            .await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    }
);

async fn post_llc(app: &TestApp, batch: &Value, key: Option<&str>) -> (StatusCode, Value) {
    post_batch(app, "/api/v1/llc-verdicts", batch, key).await
}

/// The functions of a page of `GET /api/v1/llc-verdicts`, in its order.
fn llc_functions(v: &Value) -> Vec<String> {
    v["verdicts"]
        .as_array()
        .unwrap_or_else(|| panic!("{v}"))
        .iter()
        .map(|f| {
            format!(
                "{}@{}",
                f["function"].as_str().unwrap(),
                f["llvm"].as_str().unwrap()
            )
        })
        .collect()
}

both_databases!(llc_verdicts, |_| {}, |app: TestApp| async move {
    let batch = json!([
        llc("22.1.0", "fadd_f32", "sm_70", "proved"),
        llc("22.1.0", "fma_bf16", "sm_70", "counterexample"),
        llc("22.1.0", "frem_f32", "sm_70", "unsupported"),
    ]);
    let (s, v) = post_llc(&app, &batch, Some("llc-1")).await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    assert_eq!(v["ids"].as_array().unwrap().len(), 3, "{v}");
    assert_eq!(v["duplicate"], json!(false));
    // A retried batch (same key) stores nothing again.
    let (s, v) = post_llc(&app, &batch, Some("llc-1")).await;
    assert_eq!(
        (s, v["duplicate"].clone()),
        (StatusCode::OK, json!(true)),
        "{v}"
    );
    assert_eq!(v["ids"], json!([]));
    let (s, v) = post_llc(
        &app,
        &json!([llc("16.0.6", "fma_bf16", "sm_70", "unknown")]),
        None,
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let (s, v, _) = app.get("/api/v1/llc-verdicts").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(
        llc_functions(&v),
        [
            "fma_bf16@16.0.6",
            "frem_f32@22.1.0",
            "fma_bf16@22.1.0",
            "fadd_f32@22.1.0"
        ],
        "every report, newest first, the retry not stored"
    );
    // Every field comes back; the ones left out are empty.
    let cex = &v["verdicts"][2];
    assert_eq!(cex["compiler"], json!("llvmlite (LLVM 22.1.0)"));
    assert_eq!(cex["target"], json!("sm_70"));
    assert_eq!(cex["verdict"], json!("counterexample"));
    assert!(
        cex["counterexample"]
            .as_str()
            .unwrap()
            .contains("IR allows 0x4000"),
        "{cex}"
    );
    assert!(
        cex["report"]
            .as_str()
            .unwrap()
            .starts_with("# NVPTX miscompiles `fma_bf16`"),
        "{cex}"
    );
    assert_eq!(cex["seconds"], json!(0.25));
    assert!(cex["created"].as_str().unwrap().ends_with('Z'), "{cex}");
    assert_eq!(v["verdicts"][3]["detail"], json!(""));
    assert_eq!(v["verdicts"][0]["detail"], json!("z3: timeout after 10 s"));
    let (_, v, _) = app.get("/api/v1/llc-verdicts?llvm=22.1.0").await;
    assert_eq!(
        llc_functions(&v),
        ["frem_f32@22.1.0", "fma_bf16@22.1.0", "fadd_f32@22.1.0"]
    );
    let (_, v, _) = app
        .get("/api/v1/llc-verdicts?llvm=22.1.0&limit=1&offset=1")
        .await;
    assert_eq!(llc_functions(&v), ["fma_bf16@22.1.0"]);
    let (_, v, _) = app.get("/api/v1/llc-verdicts?llvm=14.0.0").await;
    assert_eq!(v["verdicts"], json!([]));

    // Bad input: a 422 naming the item and field, and nothing of the batch stored.
    let good = llc("22.1.0", "fneg_f16", "sm_80", "proved");
    let with = |field: &str, value: Value| {
        let mut bad = good.clone();
        bad[field] = value;
        json!([good.clone(), bad])
    };
    for (batch, want) in [
        (with("verdict", json!("maybe")), "verdicts[1].verdict: `maybe` is not one of proved, counterexample, unknown, unsupported"),
        (with("target", json!("s".repeat(51))), "verdicts[1].target: longer than 50 characters"),
        (with("llvm", json!("x".repeat(51))), "verdicts[1].llvm: longer than 50 characters"),
        (with("function", json!("f".repeat(501))), "verdicts[1].function: longer than 500"),
        (with("compiler", json!("c".repeat(201))), "verdicts[1].compiler: longer than 200"),
        (with("detail", json!("d".repeat(2001))), "verdicts[1].detail: longer than 2000"),
        (with("counterexample", json!("c".repeat(10_001))), "verdicts[1].counterexample: longer than 10000"),
        (with("report", json!("r".repeat(100_001))), "verdicts[1].report: longer than 100000"),
        (with("seconds", json!(-0.5)), "verdicts[1].seconds: must be a non-negative number"),
        (with("llvm", json!("  ")), "verdicts[1].llvm: must not be empty"),
        (with("function", json!("")), "verdicts[1].function: must not be empty"),
        (with("bogus", json!(1)), "unknown field `bogus`"),
        (with("seconds", json!("fast")), "[1].seconds: invalid type"),
        (json!([{"function": "f", "target": "sm_70", "verdict": "proved", "compiler": "c", "seconds": 1}]), "missing field `llvm`"),
    ] {
        let (s, v) = post_llc(&app, &batch, None).await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{want}: {v}");
        let error = v["error"].as_str().unwrap_or_default();
        assert!(error.contains(want), "wanted `{want}` in: {error}");
    }
    let (s, _, _) = app
        .send(
            Method::POST,
            "/api/v1/llc-verdicts",
            None,
            Some(json!([good]).to_string().into_bytes()),
            &[],
        )
        .await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    for (path, want) in [
        (
            "/api/v1/llc-verdicts?limit=0",
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            "/api/v1/llc-verdicts?offset=-1",
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        ("/api/v1/llc-verdicts?bogus=1", StatusCode::BAD_REQUEST),
    ] {
        let (s, v, body) = app.get(path).await;
        assert_eq!(s, want, "{path}: {body}");
        assert!(v["error"].is_string(), "{path}: {body}");
    }
    let (_, v, _) = app.get("/api/v1/llc-verdicts?limit=1000").await;
    assert_eq!(
        v["verdicts"].as_array().unwrap().len(),
        4,
        "nothing of a bad batch was stored"
    );
    let (_, v, _) = app.get("/api/v1/openapi.json").await;
    let post = &v["paths"]["/api/v1/llc-verdicts"]["post"];
    assert!(
        post.is_object() && v["paths"]["/api/v1/llc-verdicts"]["get"].is_object(),
        "{v}"
    );
    assert_eq!(
        v["components"]["schemas"]["NewLlcVerdict"]["properties"]["verdict"]["enum"],
        json!(["proved", "counterexample", "unknown", "unsupported"])
    );
});

// The client `semfuzz validate-llc --report` uses: a batch the service cannot take (nothing
// listening) goes to the spool with its key and is resent, first and once, by the next post;
// a batch the service refuses for its content is an error naming the field, never spooled.
both_databases!(
    reporter_posts_and_spools_llc_verdicts,
    |_| {},
    |app: TestApp| async move {
        use semfuzz_service::client::Reporter;
        use semfuzz_service::model::NewLlcVerdict;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(std::future::IntoFuture::into_future(axum::serve(
            listener,
            semfuzz_service::app(app.state.clone()),
        )));
        // A port nothing listens on any more.
        let down = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let spool = dir.path().join("spool.jsonl");
        let token = app.token.clone();
        let verdict = |function: &str, verdict: &str, seconds: f64| -> NewLlcVerdict {
            serde_json::from_value(llc("22.1.0", function, "sm_90", verdict))
                .map(|v: NewLlcVerdict| NewLlcVerdict { seconds, ..v })
                .unwrap()
        };
        let (first, second, bad) = (
            verdict("fadd_bf16", "counterexample", 1.0),
            [
                verdict("fmul_f64", "proved", 2.0),
                verdict("frem_f32", "unsupported", 3.0),
            ],
            verdict("fdiv_f32", "proved", -1.0),
        );
        tokio::task::spawn_blocking(move || {
            let offline = Reporter::new(&format!("http://{down}"), &token, &spool);
            let d = offline.llc_verdicts(&[first]).unwrap();
            assert_eq!((d.sent, d.spooled), (0, 1), "{d:?}");
            assert!(d.last_error.is_some());
            let lines = std::fs::read_to_string(&spool).unwrap();
            assert_eq!(lines.lines().count(), 1, "{lines}");
            assert!(
                lines.contains("/api/v1/llc-verdicts") && lines.contains("fadd_bf16"),
                "{lines}"
            );
            let online = Reporter::new(&url, &token, &spool);
            let d = online.llc_verdicts(&second).unwrap();
            assert_eq!(
                (d.sent, d.spooled),
                (2, 0),
                "the spooled batch, then this one: {d:?}"
            );
            assert!(!spool.exists(), "an empty spool is removed");
            let e = online.llc_verdicts(&[bad]).unwrap_err().to_string();
            assert!(
                e.contains("422") && e.contains("verdicts[0].seconds"),
                "{e}"
            );
            assert!(!spool.exists(), "a refused batch is not spooled");
            assert_eq!(online.flush().unwrap().sent, 0);
        })
        .await
        .unwrap();
        let (_, v, _) = app.get("/api/v1/llc-verdicts").await;
        assert_eq!(
            llc_functions(&v),
            ["frem_f32@22.1.0", "fmul_f64@22.1.0", "fadd_bf16@22.1.0"],
            "each batch stored once, in the order they were made"
        );
    }
);
