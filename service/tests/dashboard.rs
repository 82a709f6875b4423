//! The dashboard's pages: the matrix, the findings list, a finding page with decoded operands
//! and reproducer lines, triage through the form, campaigns with their chart, and HTML
//! escaping of everything stored.

mod common;

use axum::http::{Method, StatusCode};
use common::*;
use serde_json::json;

const T0: &str = "2026-01-01T00:00:00Z";

async fn form(
    app: &TestApp,
    path: &str,
    body: &str,
    cookie: Option<&str>,
) -> (StatusCode, String, Option<String>) {
    use axum::body::Body;
    use http_body_util::BodyExt;
    use tower::ServiceExt;
    let mut req = axum::http::Request::builder()
        .method(Method::POST)
        .uri(path)
        .header("content-type", "application/x-www-form-urlencoded");
    if let Some(c) = cookie {
        req = req.header("cookie", c);
    }
    let resp = semfuzz_service::app(app.state.clone())
        .oneshot(req.body(Body::from(body.to_string())).unwrap())
        .await
        .unwrap();
    let status = resp.status();
    let set_cookie = resp
        .headers()
        .get("set-cookie")
        .map(|v| v.to_str().unwrap().to_string());
    let body =
        String::from_utf8_lossy(&resp.into_body().collect().await.unwrap().to_bytes()).to_string();
    (status, body, set_cookie)
}

both_databases!(pages_show_the_data, |_| {}, |app: TestApp| async move {
    let (s, v) = app
        .write(
            Method::POST,
            "/api/v1/findings",
            &json!([
                finding(
                    "add.rn.f32",
                    "host",
                    "ulp-up-1",
                    "d1",
                    &["0x3f800000", "0x40000000"],
                    3,
                    (T0, T0)
                ),
                finding(
                    "add.rz.f32",
                    "host",
                    "sign-of-zero",
                    "d2",
                    &["0x80000000", "0x00000000"],
                    1,
                    (T0, T0)
                ),
                finding(
                    "fma.rn.f32",
                    "llvm",
                    "bits",
                    "d3",
                    &["0x3f800000", "0x3f800000", "0x7fc00000"],
                    1,
                    (T0, T0)
                ),
            ]),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let id = v["ids"][0].as_i64().unwrap();
    let (s, _, html) = app.get("/").await;
    assert_eq!(s, StatusCode::OK);
    let matrix = &html[html.find("id=\"matrix\"").expect("matrix")..];
    for cell in [
        "<th>add</th>",
        "<th>fma</th>",
        "<th>host</th>",
        "<th>llvm</th>",
        "2<small> / 2</small>",
    ] {
        assert!(matrix.contains(cell), "{cell} not in the matrix: {matrix}");
    }
    let (s, _, html) = app.get("/findings?variant=add.*&sort=-count").await;
    assert_eq!(s, StatusCode::OK);
    assert!(
        html.contains("add.rn.f32")
            && html.contains("add.rz.f32")
            && !html.contains("<code>fma.rn.f32"),
        "{html}"
    );
    let (s, _, html) = app.get(&format!("/findings/{id}")).await;
    assert_eq!(s, StatusCode::OK);
    for want in [
        "0x3f800000",
        "(1)",
        "(2)",
        "semfuzz eval add.rn.f32 0x3f800000 0x40000000",
        "echo 'add.rn.f32 0x3f800000 0x40000000 0x40400001' | semfuzz check",
        "ulp-up-1",
        "data-copy=\"eval-line\"",
    ] {
        assert!(
            html.contains(want),
            "{want} not on the finding page: {html}"
        );
    }
    // Triage through the form needs a token.
    let (s, _, _) = form(
        &app,
        &format!("/findings/{id}/triage"),
        "status=confirmed&note=hi&token=wrong",
        None,
    )
    .await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    let (s, _, _) = form(
        &app,
        &format!("/findings/{id}/triage"),
        &format!("status=confirmed&note=seen+on+sm_90&token={}", app.token),
        None,
    )
    .await;
    assert_eq!(s, StatusCode::SEE_OTHER);
    let (_, v, _) = app.get(&format!("/api/v1/findings/{id}")).await;
    assert_eq!(
        (v["status"].clone(), v["note"].clone()),
        (json!("confirmed"), json!("seen on sm_90"))
    );
    // Campaigns: start from the form, then see its progress and chart.
    let (s, _, _) = form(&app, "/campaigns", &format!("name=nightly&variants=add.rn.f32&backends=host&generator=boundary&cases_per_unit=10&token={}", app.token), None).await;
    assert_eq!(s, StatusCode::SEE_OTHER);
    let (_, v) = app
        .write(Method::POST, "/api/v1/units/lease", &json!({"worker": "w"}))
        .await;
    let l = v["leases"][0].clone();
    app.write(
        Method::POST,
        &format!("/api/v1/units/{}/complete", l["unit"]),
        &json!({"lease_token": l["lease_token"], "cases": 10, "findings": []}),
    )
    .await;
    let (s, _, html) = app.get("/campaigns").await;
    assert_eq!(s, StatusCode::OK);
    assert!(
        html.contains("nightly") && html.contains("1 / 1 units"),
        "{html}"
    );
    let (s, _, html) = app.get(&format!("/campaigns/{}", l["campaign"])).await;
    assert_eq!(s, StatusCode::OK);
    assert!(
        html.contains("<svg") && html.contains("<polyline"),
        "{html}"
    );
    let (s, _, css) = app.get("/assets/style.css").await;
    assert!(s == StatusCode::OK && css.contains("matrix"));
});

both_databases!(everything_is_escaped, |_| {}, |app: TestApp| async move {
    let evil = "<script>alert(1)</script>";
    let (_, v) = app
        .write(
            Method::POST,
            "/api/v1/findings",
            &json!([finding(
                evil,
                "<img src=x onerror=alert(2)>",
                evil,
                "e1",
                &["0x1"],
                1,
                (T0, T0)
            )]),
        )
        .await;
    let id = v["ids"][0].as_i64().unwrap();
    app.write(
        Method::PATCH,
        &format!("/api/v1/findings/{id}"),
        &json!({"note": "<script>alert(3)</script>"}),
    )
    .await;
    for path in [
        "/".to_string(),
        "/findings".to_string(),
        format!("/findings/{id}"),
    ] {
        let (s, _, html) = app.get(&path).await;
        assert_eq!(s, StatusCode::OK, "{path}");
        assert!(
            !html.contains("<script>alert") && !html.contains("<img src=x"),
            "{path} has raw markup: {html}"
        );
        assert!(html.contains("&lt;script&gt;alert("), "{path}: {html}");
    }
});

both_databases!(
    login_cookie_opens_the_dashboard,
    |c: &mut semfuzz_service::Config| c.read_token_required = true,
    |app: TestApp| async move {
        let (s, _, _) = app.get("/").await;
        assert_eq!(s, StatusCode::UNAUTHORIZED);
        let (s, _, cookie) = form(&app, "/login", &format!("token={}", app.token), None).await;
        assert_eq!(s, StatusCode::SEE_OTHER);
        let cookie = cookie.expect("a cookie");
        let pair = cookie.split(';').next().unwrap();
        let (s, _, _) = app
            .send(Method::GET, "/", None, None, &[("cookie", pair)])
            .await;
        assert_eq!(s, StatusCode::OK);
    }
);

/// Posts `batch` of LLVM verdicts; their ids.
async fn post_llc(app: &TestApp, batch: serde_json::Value) -> Vec<i64> {
    let (s, v) = app
        .write(Method::POST, "/api/v1/llc-verdicts", &batch)
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    v["ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i.as_i64().unwrap())
        .collect()
}

/// The text of the element with `id="{id}"` onwards, to its first `</{tag}>`.
fn element<'a>(html: &'a str, id: &str, tag: &str) -> &'a str {
    let start = html
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no #{id} in {html}"));
    let end = html[start..].find(&format!("</{tag}>")).unwrap() + start;
    &html[start..end]
}

both_databases!(llc_pages, |_| {}, |app: TestApp| async move {
    let (s, _, html) = app.get("/llc").await;
    assert_eq!(s, StatusCode::OK);
    assert!(
        html.contains("No verdicts yet") && html.contains("href=\"/llc\""),
        "{html}"
    );
    let ids = post_llc(
        &app,
        json!([
            llc("22.1.0", "fma_bf16", "sm_90", "proved"),
            llc("22.1.0", "fma_bf16", "sm_70", "counterexample"),
            llc("22.1.0", "frem_f32", "sm_100", "unsupported"),
            llc("22.1.0", "fdiv_f64", "sm_70", "unknown"),
            llc("16.0.6", "fma_bf16", "sm_70", "counterexample"),
        ]),
    )
    .await;
    let cex = ids[1];
    // A second run of LLVM 22: the same counterexample again, so it stands since the first.
    let again = post_llc(
        &app,
        json!([llc("22.1.0", "fma_bf16", "sm_70", "counterexample")]),
    )
    .await[0];

    let (s, _, html) = app.get("/llc").await;
    assert_eq!(s, StatusCode::OK);
    let list = element(&html, "llc-versions", "table");
    let (new, old) = (
        list.find("href=\"/llc/22.1.0\"").expect("22.1.0 listed"),
        list.find("href=\"/llc/16.0.6\"").expect("16.0.6 listed"),
    );
    assert!(new < old, "newest LLVM first: {list}");
    // 22.1.0's cells by their latest report: 1 proved, 1 counterexample, 1 unknown, 1 unsupported.
    let row22 = &list[new..old];
    assert_eq!(
        row22.matches("<td class=\"num\">1</td>").count(),
        4,
        "{row22}"
    );

    let (s, _, html) = app.get("/llc/22.1.0").await;
    assert_eq!(s, StatusCode::OK);
    let matrix = element(&html, "llc-matrix", "table");
    let (t70, t90, t100) = (
        matrix.find("<th>sm_70</th>").expect("sm_70"),
        matrix.find("<th>sm_90</th>").expect("sm_90"),
        matrix.find("<th>sm_100</th>").expect("sm_100"),
    );
    assert!(
        t70 < t90 && t90 < t100,
        "targets in numeric order: {matrix}"
    );
    for want in [
        // The counterexample cell is the latest report, and links to its page.
        "<td class=\"llc-counterexample\" title=\"sm_70: counterexample (llvmlite (LLVM 22.1.0), 0.25 s, ".to_string(),
        format!("<a href=\"/llc/verdicts/{again}\">counterexample</a>"),
        format!("<a href=\"/llc/verdicts/{}\">proved</a>", ids[0]),
        // Unknown and unsupported show why on hover.
        "title=\"sm_100: unsupported: frem: no PTX semantics for the call".to_string(),
        "title=\"sm_70: unknown: z3: timeout after 10 s".to_string(),
        "<th><code>fma_bf16</code></th>".to_string(),
        "<td class=\"none\"".to_string(),
    ] {
        assert!(matrix.contains(&want), "{want} not in the matrix: {matrix}");
    }
    assert!(
        !matrix.contains(&format!("/llc/verdicts/{cex}\"")),
        "an older report is not a cell: {matrix}"
    );
    let list = element(&html, "llc-counterexamples", "ul");
    assert!(
        list.contains(&format!("/llc/verdicts/{again}")) && list.contains("a = 0x3f80 (1)"),
        "{list}"
    );

    // The counterexample's page: everything needed to act on it.
    let (s, _, html) = app.get(&format!("/llc/verdicts/{again}")).await;
    assert_eq!(s, StatusCode::OK);
    for want in [
        "<code>fma_bf16</code> on sm_70",
        "class=\"llc-counterexample\"",
        "LLVM <a href=\"/llc/22.1.0\">22.1.0</a>",
        "llvmlite (LLVM 22.1.0)",
        "a = 0x3f80 (1)\nIR allows 0x4000 (2)\nPTX computes 0x3fff on sm_70",
        "# NVPTX miscompiles `fma_bf16` on sm_70\n\n```\nllc -march=nvptx64 -mcpu=sm_70\n```",
        "data-copy=\"llc-report\"",
        "2 of the cell's 2 reports",
    ] {
        assert!(
            html.contains(want),
            "{want} not on the verdict page: {html}"
        );
    }
    let standing = element(&html, "llc-standing", "p");
    let first = app
        .get("/api/v1/llc-verdicts?llvm=22.1.0&limit=1000")
        .await
        .1["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["id"] == json!(cex))
        .unwrap()["created"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        standing.contains(&format!("since <b>{first}</b>")),
        "{standing}"
    );
    let across = element(&html, "llc-across", "table");
    assert!(
        across.contains("href=\"/llc/16.0.6\"") && across.contains("href=\"/llc/22.1.0\""),
        "the same function and target under each LLVM: {across}"
    );

    // A fix: the cell turns proved, and the old counterexample's page says so.
    let fixed = post_llc(&app, json!([llc("22.1.0", "fma_bf16", "sm_70", "proved")])).await[0];
    let (_, _, html) = app.get("/llc/22.1.0").await;
    let matrix = element(&html, "llc-matrix", "table");
    assert!(
        matrix.contains(&format!("<a href=\"/llc/verdicts/{fixed}\">proved</a>"))
            && !matrix.contains("llc-counterexample"),
        "{matrix}"
    );
    let (_, _, html) = app.get(&format!("/llc/verdicts/{cex}")).await;
    assert!(html.contains(&format!("A later report of this function and target says <a href=\"/llc/verdicts/{fixed}\">proved</a>")), "{html}");

    for (path, want) in [
        ("/llc/14.0.0", StatusCode::NOT_FOUND),
        ("/llc/verdicts/abc", StatusCode::BAD_REQUEST),
        ("/llc/verdicts/999999", StatusCode::NOT_FOUND),
    ] {
        let (s, _, body) = app.get(path).await;
        assert_eq!(s, want, "{path}: {body}");
    }
});

both_databases!(llc_pages_are_escaped, |_| {}, |app: TestApp| async move {
    let evil = "<script>alert(1)</script>";
    let mut v = llc(evil, evil, evil, "counterexample");
    v["compiler"] = json!(evil);
    v["counterexample"] = json!(evil);
    v["report"] = json!(evil);
    let mut u = llc(evil, "g", "sm_70", "unknown");
    u["detail"] = json!("\"><script>alert(2)</script>");
    let ids = post_llc(&app, json!([v, u])).await;
    for path in [
        "/llc".to_string(),
        "/llc/%3Cscript%3Ealert(1)%3C%2Fscript%3E".to_string(),
        format!("/llc/verdicts/{}", ids[0]),
        format!("/llc/verdicts/{}", ids[1]),
    ] {
        let (s, _, html) = app.get(&path).await;
        assert_eq!(s, StatusCode::OK, "{path}: {html}");
        assert!(
            !html.contains("<script>alert"),
            "{path} has raw markup: {html}"
        );
        assert!(html.contains("&lt;script&gt;alert("), "{path}: {html}");
    }
    let (_, _, html) = app.get("/llc").await;
    assert!(
        html.contains("href=\"/llc/%3Cscript%3Ealert%281%29%3C%2Fscript%3E\""),
        "the version is encoded in its link: {html}"
    );
});
