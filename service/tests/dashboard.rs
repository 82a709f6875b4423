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
