//! Wide before deep (issue 21): a continuous campaign's first pass runs every (variant,
//! backend) pair once, touching every family on every backend before any family's second
//! variant; later passes double a pair's cases and run the pairs with findings first; a pair
//! the backend cannot run is never queued again and counts as unsupported.

mod common;

use axum::http::Method;
use common::*;
use semfuzz_service::db::{family, FIRST_PASS_CASES};
use serde_json::{json, Value};
use std::collections::{BTreeSet, HashMap, HashSet};

/// Leases one unit for any backend.
async fn lease(app: &TestApp) -> Value {
    let (s, v) = app
        .write(
            Method::POST,
            "/api/v1/units/lease",
            &json!({"worker": "t", "max": 1}),
        )
        .await;
    assert!(s.is_success(), "{v}");
    v["leases"][0].clone()
}

/// Completes `l` with its cases, `findings` (signatures) and `unsupported`.
async fn complete(app: &TestApp, l: &Value, findings: &[String], unsupported: Option<&str>) {
    let found: Vec<Value> = findings
        .iter()
        .map(|sig| {
            finding(
                l["variant"].as_str().unwrap(),
                l["backend"].as_str().unwrap(),
                "bits",
                sig,
                &["0x1", "0x2"],
                1,
                ("2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"),
            )
        })
        .collect();
    let cases = if unsupported.is_some() {
        json!(0)
    } else {
        l["cases"].clone()
    };
    let (s, v) = app
        .write(
            Method::POST,
            &format!("/api/v1/units/{}/complete", l["unit"]),
            &json!({"lease_token": l["lease_token"], "cases": cases, "findings": found, "unsupported": unsupported}),
        )
        .await;
    assert!(s.is_success(), "{v}");
}

fn pair(l: &Value) -> (String, String) {
    (
        l["variant"].as_str().unwrap().to_string(),
        l["backend"].as_str().unwrap().to_string(),
    )
}

both_databases!(wide_before_deep, |_| {}, |app: TestApp| async move {
    let glob = "*.f64";
    let backends = ["fast", "slow"];
    let (s, c) = app
        .write(
            Method::POST,
            "/api/v1/campaigns",
            &json!({"name": "wide", "variants": glob, "backends": backends, "generator": "boundary",
                    "cases_per_unit": 20000, "continuous": true}),
        )
        .await;
    assert!(s.is_success(), "{c}");
    let texts: BTreeSet<String> = catalogue()
        .into_iter()
        .filter(|v| semfuzz_service::db::glob_match(glob, v))
        .collect();
    let families: BTreeSet<&str> = texts.iter().map(|v| family(v)).collect();
    let pairs = texts.len() * backends.len();
    assert!(families.len() >= 10, "{families:?}");

    // The first pass. `mad` is what `slow` cannot run; the first `fast` pair finds something.
    let mut first = Vec::new();
    let mut finder = None;
    for _ in 0..pairs {
        let l = lease(&app).await;
        let (v, b) = pair(&l);
        assert_eq!(
            l["cases"],
            json!(FIRST_PASS_CASES),
            "a small first unit: {l}"
        );
        if family(&v) == "mad" && b == "slow" {
            complete(&app, &l, &[], Some("no mad on this backend")).await;
        } else if finder.is_none() && b == "fast" {
            finder = Some((v.clone(), b.clone()));
            complete(&app, &l, &["found".to_string()], None).await;
        } else {
            complete(&app, &l, &[], None).await;
        }
        first.push((v, b));
    }
    let distinct: HashSet<&(String, String)> = first.iter().collect();
    assert_eq!(distinct.len(), pairs, "every pair once in the first pass");
    // Families interleaved: the first families × backends units touch every cell.
    let cells: HashSet<(&str, &str)> = first[..families.len() * backends.len()]
        .iter()
        .map(|(v, b)| (family(v), b.as_str()))
        .collect();
    assert_eq!(
        cells.len(),
        families.len() * backends.len(),
        "every family on every backend before any family's second variant: {:?}",
        &first[..families.len() * backends.len()]
    );

    // The first pass is over: the passes say so, and `mad` on `slow` is unsupported.
    let (_, v, _) = app.get(&format!("/api/v1/campaigns/{}", c["id"])).await;
    let passes: HashMap<&str, &Value> = v["passes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["backend"].as_str().unwrap(), p))
        .collect();
    let mads = texts.iter().filter(|v| family(v) == "mad").count() as i64;
    assert_eq!(passes["slow"]["unsupported"], json!(mads), "{v}");
    assert_eq!(passes["fast"]["unsupported"], json!(0), "{v}");
    for b in backends {
        assert_eq!(passes[b]["pass"], json!(1), "{b}: second pass: {v}");
    }

    // Deeper: the pair with a finding first, its cases doubling, before any other pair's
    // second unit; no unit for the unsupported pairs.
    let finder = finder.unwrap();
    let mut sizes = Vec::new();
    let mut l = lease(&app).await;
    while pair(&l) == finder {
        sizes.push(l["cases"].as_i64().unwrap());
        complete(&app, &l, &[], None).await;
        l = lease(&app).await;
    }
    assert_eq!(
        sizes,
        [FIRST_PASS_CASES, 2 * FIRST_PASS_CASES],
        "the finding pair runs ahead, doubling"
    );
    let mut second = HashSet::new();
    for _ in 0..pairs {
        let (v, b) = pair(&l);
        assert!(
            !(family(&v) == "mad" && b == "slow"),
            "an unsupported pair was queued again"
        );
        if (v.clone(), b.clone()) != finder {
            assert_eq!(l["cases"], json!(FIRST_PASS_CASES), "{l}");
            assert!(second.insert((v, b)), "a pair twice in the second pass");
        }
        complete(&app, &l, &[], None).await;
        if second.len() == pairs - mads as usize - 1 {
            break;
        }
        l = lease(&app).await;
    }
    assert_eq!(second.len(), pairs - mads as usize - 1);

    // The matrix: tried / supported per cell, `mad` on `slow` not supported at all.
    let coverage = app.state.db.coverage().await.unwrap();
    let cell = |f: &str, b: &str| {
        coverage
            .iter()
            .find(|(cf, cb, _)| cf == f && cb == b)
            .map(|(_, _, c)| c.clone())
            .unwrap()
    };
    let add = texts.iter().filter(|v| family(v) == "add").count() as i64;
    assert_eq!(
        (cell("add", "fast").tried, cell("add", "fast").variants),
        (add, add)
    );
    let mad = cell("mad", "slow");
    assert_eq!((mad.unsupported, mad.tried), (mads, 0));
    let (_, _, page) = app.get("/").await;
    assert!(page.contains("class=\"unsupported\""), "{page}");
    assert!(
        page.contains(&format!("data-tried=\"{add}\" data-supported=\"{add}\"")),
        "{page}"
    );
});

both_databases!(rounds_before_rounds, |_| {}, |app: TestApp| async move {
    // A campaign of rounds runs each round over every pair before the next round.
    let (s, c) = app
        .write(
            Method::POST,
            "/api/v1/campaigns",
            &json!({"name": "r", "variants": "min.*", "backends": ["a", "b"], "generator": "boundary",
                    "cases_per_unit": 100, "rounds": 3}),
        )
        .await;
    assert!(s.is_success(), "{c}");
    let units = c["units"].as_i64().unwrap() as usize;
    let per_round = units / 3;
    let mut seen: Vec<Value> = Vec::new();
    for _ in 0..units {
        let l = lease(&app).await;
        complete(&app, &l, &[], None).await;
        seen.push(l);
    }
    for round in seen.chunks(per_round) {
        let pairs: HashSet<(String, String)> = round.iter().map(pair).collect();
        assert_eq!(pairs.len(), per_round, "each round runs every pair once");
        let seeds: HashSet<i64> = round.iter().map(|l| l["seed"].as_i64().unwrap()).collect();
        assert_eq!(seeds.len(), 1, "one round at a time");
    }
    assert!(lease(&app).await.is_null(), "not continuous: no more units");
});
