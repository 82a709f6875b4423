//! The dashboard: server-rendered HTML (maud escapes every interpolated value), one embedded
//! stylesheet and one small script for the copy buttons; every page works without
//! JavaScript.

use crate::api::{bearer, ApiError};
use crate::db::{family, STATUSES};
use crate::model::*;
use crate::AppState;
use axum::extract::rejection::FormRejection;
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Form, Router};
use maud::{html, Markup, DOCTYPE};
use semfuzz_spec::catalog::FormatInfo;
use semfuzz_spec::ir::{mask, PartKind};
use semfuzz_spec::outcome::describe;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};

mod llc;

const STYLE: &str = include_str!("../assets/style.css");
const SCRIPT: &str = include_str!("../assets/copy.js");
/// The cookie the login form sets when reads need a token.
const COOKIE: &str = "semfuzz_token";

/// The dashboard's routes.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/", get(overview))
        .route("/findings", get(findings))
        .route("/findings/{id}", get(finding))
        .route("/findings/{id}/triage", post(triage))
        .route("/campaigns", get(campaigns).post(start_campaign))
        .route("/campaigns/{id}", get(campaign))
        .route("/proofs", get(proofs))
        .route("/llc", get(llc::versions))
        .route("/llc/{version}", get(llc::matrix))
        .route("/llc/verdicts/{id}", get(llc::verdict))
        .route("/login", get(login_page).post(login))
        .route(
            "/assets/style.css",
            get(|| async { ([(header::CONTENT_TYPE, "text/css")], STYLE) }),
        )
        .route(
            "/assets/copy.js",
            get(|| async { ([(header::CONTENT_TYPE, "text/javascript")], SCRIPT) }),
        )
}

/// An HTML error page with a 4xx/5xx status.
struct PageError(StatusCode, String);

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let body = page(
            "Error",
            html! { h1 { "Error " (self.0.as_u16()) } p.error { (self.1) } },
        );
        (self.0, body).into_response()
    }
}

impl From<ApiError> for PageError {
    fn from(e: ApiError) -> PageError {
        PageError(e.0, e.1)
    }
}

impl From<crate::db::Error> for PageError {
    fn from(e: crate::db::Error) -> PageError {
        ApiError::from(e).into()
    }
}

type Page = Result<Html<String>, PageError>;

/// The token of a browser request: the bearer header or the login cookie.
fn browser_token(headers: &HeaderMap) -> Option<String> {
    if let Some(t) = bearer(headers) {
        return Some(t.to_string());
    }
    let cookies = headers.get(header::COOKIE)?.to_str().ok()?;
    cookies
        .split(';')
        .filter_map(|c| c.trim().strip_prefix(&format!("{COOKIE}=")))
        .next()
        .map(str::to_string)
}

/// Passes unless reads need a token and the browser has none that is valid.
async fn readable(s: &AppState, headers: &HeaderMap) -> Result<(), PageError> {
    if !s.config.read_token_required {
        return Ok(());
    }
    match browser_token(headers) {
        Some(t) if s.db.token_valid(&t).await? => Ok(()),
        _ => Err(PageError(
            StatusCode::UNAUTHORIZED,
            "This dashboard needs a token: log in at /login.".into(),
        )),
    }
}

fn page(title: &str, body: Markup) -> Html<String> {
    Html(
        html! {
            (DOCTYPE)
            html lang="en" {
                head {
                    meta charset="utf-8";
                    meta name="viewport" content="width=device-width, initial-scale=1";
                    title { (title) " · semfuzz" }
                    link rel="stylesheet" href="/assets/style.css";
                    script src="/assets/copy.js" defer {}
                }
                body {
                    nav {
                        a.brand href="/" { "semfuzz" }
                        a href="/" { "Overview" }
                        a href="/findings" { "Findings" }
                        a href="/campaigns" { "Campaigns" }
                        a href="/proofs" { "Proofs" }
                        a href="/llc" { "LLVM" }
                        a href="/api/v1/openapi.json" { "API" }
                    }
                    main { (body) }
                }
            }
        }
        .into_string(),
    )
}

/// `s` percent-encoded for a URL's path segment or query value (RFC 3986's unreserved
/// characters stay).
fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A `/findings` link with these filters.
fn findings_link(variant: &str, backend: &str, status: &str) -> String {
    format!(
        "/findings?variant={}&backend={}&status={}",
        enc(variant),
        enc(backend),
        enc(status)
    )
}

/// A count in a few characters: `950`, `12.3k`, `4.5M`.
fn short(n: i64) -> String {
    match n {
        ..=9_999 => n.to_string(),
        10_000..=999_999 => format!("{:.1}k", n as f64 / 1e3),
        1_000_000..=999_999_999 => format!("{:.1}M", n as f64 / 1e6),
        _ => format!("{:.1}G", n as f64 / 1e9),
    }
}

/// One cell of the overview matrix: coverage from the campaigns, findings from any source.
#[derive(Default)]
struct Cell {
    coverage: Option<CoverageCell>,
    open: i64,
    total: i64,
}

async fn overview(State(s): State<AppState>, headers: HeaderMap) -> Page {
    readable(&s, &headers).await?;
    let totals = s.db.totals().await?;
    let mut cells: BTreeMap<(String, String), Cell> = BTreeMap::new();
    for (f, b, c) in s.db.coverage().await? {
        cells.entry((f, b)).or_default().coverage = Some(c);
    }
    for (variant, backend, open, total) in s.db.matrix_counts().await? {
        let c = cells
            .entry((family(&variant).to_string(), backend))
            .or_default();
        c.open += open;
        c.total += total;
    }
    let families: BTreeSet<&String> = cells.keys().map(|(f, _)| f).collect();
    let backends: BTreeSet<&String> = cells.keys().map(|(_, b)| b).collect();
    let heat = |open: i64| match open {
        0 => "c0",
        1..=2 => "c1",
        3..=9 => "c2",
        10..=49 => "c3",
        _ => "c4",
    };
    Ok(page(
        "Overview",
        html! {
            h1 { "Overview" }
            p.totals {
                b { (totals.open) } " open of " b { (totals.findings) } " findings ("
                (totals.occurrences) " occurrences) · " (totals.cases) " cases run"
            }
            @if families.is_empty() {
                p { "No campaigns and no findings yet. Start one (" code { "cargo xtask run" } ", or the form on "
                    a href="/campaigns" { "Campaigns" } "), start a worker (" code { "semfuzz worker --server URL --token T" } ") or post "
                    code { "semfuzz fuzz --json" } " output to " code { "/api/v1/findings" } "." }
            } @else {
                table.matrix id="matrix" {
                    thead { tr { th { "family \\ backend" } @for b in &backends { th { (b) } } } }
                    tbody {
                        @for f in &families {
                            tr {
                                th { (f) }
                                @for b in &backends {
                                    @let cell = cells.get(&((*f).clone(), (*b).clone()));
                                    @let cov = cell.and_then(|c| c.coverage.clone());
                                    @let (open, total) = cell.map_or((0, 0), |c| (c.open, c.total));
                                    @let supported = cov.as_ref().map_or(0, |c| c.variants - c.unsupported);
                                    @let tried = cov.as_ref().map_or(0, |c| c.tried);
                                    @let cases = cov.as_ref().map_or(0, |c| c.cases);
                                    @let class = match (&cov, total) {
                                        (_, 1..) => heat(open),
                                        (None, _) => "none",
                                        (Some(_), _) if supported == 0 => "unsupported",
                                        (Some(_), _) if tried == 0 => "untried",
                                        _ => "c0",
                                    };
                                    @let title = match &cov {
                                        Some(c) => format!("{tried} of {supported} variants tried ({} the backend cannot run), {cases} cases; {open} open of {total} findings", c.unsupported),
                                        None => format!("{open} open of {total} findings (from reports outside campaigns)"),
                                    };
                                    td class=(class) title=(title) data-tried=[cov.as_ref().map(|_| tried)] data-supported=[cov.as_ref().map(|_| supported)] {
                                        @if total > 0 {
                                            a href=(findings_link(&format!("{f}.*"), b, "")) { (open) small { " / " (total) } }
                                        } @else if class == "none" {
                                            "·"
                                        } @else if class == "unsupported" {
                                            "n/a"
                                        } @else if class == "untried" {
                                            "never run"
                                        } @else {
                                            "clean"
                                        }
                                        @if cov.is_some() && supported > 0 {
                                            small.cov { (tried) "/" (supported) " tried" @if cases > 0 { " · " (short(cases)) } }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                p.legend {
                    "Cells: open findings (new or confirmed) / all findings of the instruction family on the backend; below, variants tried / variants the backend supports, and cases run. "
                    span.untried { "never run" } ": the campaigns have not reached it yet; "
                    span.c0 { "clean" } ": tried, nothing found; "
                    span.unsupported { "n/a" } ": the backend runs none of the family's variants. "
                    "A variant counts as supported until a worker finds it is not."
                }
            }
        },
    ))
}

/// The findings list's query: the API's filters, as the form sends them.
#[derive(Deserialize, Default)]
struct ListForm {
    variant: Option<String>,
    backend: Option<String>,
    class: Option<String>,
    status: Option<String>,
    sort: Option<String>,
    offset: Option<i64>,
}

async fn findings(
    State(s): State<AppState>,
    headers: HeaderMap,
    q: Result<Query<ListForm>, axum::extract::rejection::QueryRejection>,
) -> Page {
    readable(&s, &headers).await?;
    let Query(f) = q.map_err(|e| PageError(StatusCode::BAD_REQUEST, e.body_text()))?;
    let q = FindingQuery {
        variant: f.variant.clone(),
        backend: f.backend.clone(),
        class: f.class.clone(),
        status: f.status.clone(),
        sort: f.sort.clone().filter(|s| !s.is_empty()),
        limit: Some(100),
        offset: f.offset,
    };
    let (rows, total) = s.db.list_findings(&q).await?;
    let offset = f.offset.unwrap_or(0);
    let text = |o: &Option<String>| o.clone().unwrap_or_default();
    let sort_link = |key: &str| {
        let cur = f.sort.as_deref().unwrap_or("-last_seen");
        let next = if cur == format!("-{key}") {
            key.to_string()
        } else {
            format!("-{key}")
        };
        format!(
            "{}&class={}&sort={next}",
            findings_link(&text(&f.variant), &text(&f.backend), &text(&f.status)),
            text(&f.class)
        )
    };
    Ok(page(
        "Findings",
        html! {
            h1 { "Findings" }
            form.filters method="get" action="/findings" {
                label { "variant " input name="variant" placeholder="*.rn.f32" value=(text(&f.variant)); }
                label { "backend " input name="backend" value=(text(&f.backend)); }
                label { "class " input name="class" value=(text(&f.class)); }
                label { "status "
                    select name="status" {
                        option value="" { "any" }
                        option value="open" selected[f.status.as_deref() == Some("open")] { "open" }
                        @for st in STATUSES { option value=(st) selected[f.status.as_deref() == Some(st)] { (st) } }
                    }
                }
                input type="hidden" name="sort" value=(text(&f.sort));
                button type="submit" { "Filter" }
            }
            p { (total) " matching" @if total > 0 { ", showing " (offset + 1) "–" (offset + rows.len() as i64) } }
            table.findings id="findings" {
                thead { tr {
                    th { "#" }
                    th { a href=(sort_link("variant")) { "variant" } }
                    th { a href=(sort_link("backend")) { "backend" } }
                    th { a href=(sort_link("class")) { "class" } }
                    th { "detail" }
                    th { a href=(sort_link("count")) { "count" } }
                    th { a href=(sort_link("last_seen")) { "last seen" } }
                    th { a href=(sort_link("status")) { "status" } }
                } }
                tbody {
                    @for r in &rows {
                        tr {
                            td { a href=(format!("/findings/{}", r.id)) { (r.id) } }
                            td { a href=(format!("/findings/{}", r.id)) { code { (r.finding.variant) } } }
                            td { (r.finding.backend) }
                            td { (r.finding.class) }
                            td.detail { (r.finding.detail) }
                            td.num { (r.finding.count) }
                            td { (r.finding.last_seen) }
                            td { span class=(format!("status {}", r.status)) { (r.status) } }
                        }
                    }
                }
            }
            @if offset + (rows.len() as i64) < total {
                p { a href=(format!("{}&class={}&sort={}&offset={}", findings_link(&text(&f.variant), &text(&f.backend), &text(&f.status)),
                    text(&f.class), text(&f.sort), offset + 100)) { "Next page →" } }
            }
        },
    ))
}

/// One decoded operand: name, hex, value.
fn decode_inputs(s: &AppState, f: &semfuzz_fuzz::Finding) -> Vec<(String, String, String)> {
    let variant = s.spec.lookup(&f.variant, Some(f.inputs.len())).ok();
    f.inputs
        .iter()
        .enumerate()
        .map(|(i, hex)| {
            let bits = parse_bits(hex);
            let src = variant.and_then(|v| v.sources.get(i));
            let name = src.map_or(format!("#{i}"), |s| s.name.clone());
            let value = match (src.and_then(|src| s.spec.format(&src.ty)), bits) {
                (Some(FormatInfo::Scalar(fmt)), Some(b)) => describe(PartKind::Float(fmt), b),
                (Some(FormatInfo::Packed(fmt, n)), Some(b)) => (0..n)
                    .map(|l| {
                        format!(
                            "[{l}] {}",
                            describe(
                                PartKind::Float(fmt),
                                (b >> (l * fmt.width())) & mask(fmt.width())
                            )
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
                _ => String::new(),
            };
            (name, hex.clone(), value)
        })
        .collect()
}

/// The actual result's parts, decoded.
fn decode_actual(s: &AppState, f: &semfuzz_fuzz::Finding) -> Vec<(String, String)> {
    let (Some(v), Some(bits)) = (
        s.spec.lookup(&f.variant, Some(f.inputs.len())).ok(),
        parse_bits(&f.actual),
    ) else {
        return vec![];
    };
    let Some(dest) = v.program.dests.first() else {
        return vec![];
    };
    dest.parts
        .iter()
        .enumerate()
        .map(|(i, p)| {
            (
                dest.part_name(i),
                describe(p.kind, (bits >> p.lo) & mask(p.width)),
            )
        })
        .collect()
}

/// The PTX kernel and host program `semfuzz repro` writes for `f`, or why there is none.
fn cuda_repro(
    s: &AppState,
    f: &semfuzz_fuzz::Finding,
) -> Result<semfuzz_cuda::repro::Repro, String> {
    let variant = s
        .spec
        .lookup(&f.variant, Some(f.inputs.len()))
        .map_err(|d| d.message)?;
    let inputs = f
        .inputs
        .iter()
        .map(|hex| parse_bits(hex).ok_or_else(|| format!("`{hex}` is not a hex bit pattern")))
        .collect::<Result<Vec<u64>, _>>()?;
    let actual =
        parse_bits(&f.actual).ok_or_else(|| format!("`{}` is not a hex bit pattern", f.actual))?;
    semfuzz_cuda::repro::repro(variant, &inputs, actual, &f.expected).map_err(|e| e.to_string())
}

fn parse_bits(hex: &str) -> Option<u64> {
    u64::from_str_radix(hex.strip_prefix("0x")?, 16).ok()
}

fn copyable(id: &str, text: &str) -> Markup {
    html! {
        div.copy {
            pre id=(id) { (text) }
            button type="button" data-copy=(id) { "Copy" }
        }
    }
}

async fn finding(State(s): State<AppState>, headers: HeaderMap, Path(id): Path<String>) -> Page {
    readable(&s, &headers).await?;
    let id: i64 = id.parse().map_err(|_| {
        PageError(
            StatusCode::BAD_REQUEST,
            format!("`{id}` is not a finding id"),
        )
    })?;
    let (r, history) = s.db.finding(id).await?;
    let f = &r.finding;
    let inputs = decode_inputs(&s, f);
    let actual = decode_actual(&s, f);
    let eval = format!("semfuzz eval {} {}", f.variant, f.inputs.join(" "));
    let check = f.check_line();
    Ok(page(
        &format!("Finding {id}"),
        html! {
            h1 { "Finding " (id) ": " code { (f.variant) } " on " (f.backend) }
            p { span class=(format!("status {}", r.status)) { (r.status) } " · class " b.class { (f.class) } " · part " code { (f.part) }
                " · " (f.count) " occurrences · first seen " (f.first_seen) " · last seen " (f.last_seen) }
            p.detail { (f.detail) }
            @if !r.note.is_empty() { blockquote.note { (r.note) } }
            h2 { "Example" }
            table.operands id="operands" {
                thead { tr { th { "operand" } th { "bits" } th { "value" } th { "class" } } }
                tbody {
                    @for (i, (name, hex, value)) in inputs.iter().enumerate() {
                        tr { td { code { (name) } } td { code { (hex) } } td { (value) } td { (f.operand_classes.get(i).map_or("", String::as_str)) } }
                    }
                }
            }
            table.outcome {
                tr { th { "expected (spec)" } td { (f.expected) } }
                tr { th { "actual (backend)" } td { code { (f.actual) } @for (part, v) in &actual { " · " (part) " = " (v) } } }
            }
            h2 { "Reproduce" }
            p { "Check the backend's result against the spec (a mismatch):" }
            (copyable("check-line", &format!("echo '{check}' | semfuzz check")))
            p { "What the spec allows for these inputs:" }
            (copyable("eval-line", &eval))
            @match cuda_repro(&s, f) {
                Ok(r) => {
                    p { "The same case on an NVIDIA GPU, as `semfuzz repro` writes it: the PTX kernel (" code { (semfuzz_cuda::repro::PTX_FILE) } ")" }
                    (copyable("ptx-kernel", &r.ptx))
                    p { "and the CUDA driver-API host program that runs it once and compares (" code { (semfuzz_cuda::repro::HOST_FILE) } "; its first comment is the build line):" }
                    (copyable("host-program", &r.host))
                }
                Err(why) => p.muted { "No CUDA reproducer: " (why) }
            }
            p.muted { "Backend " (f.backend) " " (f.backend_version) " on " (f.device) "; signature " code { (f.signature) } "." }
            h2 { "Triage" }
            form.triage method="post" action=(format!("/findings/{id}/triage")) {
                label { "status "
                    select name="status" { @for st in STATUSES { option value=(st) selected[r.status == st] { (st) } } }
                }
                label { "note " textarea name="note" rows="3" cols="60" { (r.note) } }
                label { "token " input type="password" name="token" required; }
                button type="submit" { "Save" }
            }
            h2 { "History" }
            table.history {
                thead { tr { th { "when" } th { "what" } th { "count" } th { "detail" } } }
                tbody { @for e in &history { tr { td { (e.at) } td { (e.kind) } td.num { (e.count) } td { (e.detail) } } } }
            }
        },
    ))
}

#[derive(Deserialize)]
struct TriageForm {
    status: String,
    note: String,
    token: String,
}

async fn triage(
    State(s): State<AppState>,
    Path(id): Path<i64>,
    form: Result<Form<TriageForm>, FormRejection>,
) -> Result<Response, PageError> {
    let Form(t) = form.map_err(|e| PageError(StatusCode::BAD_REQUEST, e.body_text()))?;
    if !s.db.token_valid(&t.token).await? {
        return Err(PageError(
            StatusCode::UNAUTHORIZED,
            "Unknown token: make one with `semfuzz token create`.".into(),
        ));
    }
    s.db.triage(
        id,
        &FindingPatch {
            status: Some(t.status),
            note: Some(t.note),
        },
    )
    .await?;
    Ok(Redirect::to(&format!("/findings/{id}")).into_response())
}

/// The throughput chart: cases per minute as an SVG polyline.
fn chart(samples: &[Sample]) -> Markup {
    let (w, h) = (600.0, 160.0);
    if samples.is_empty() {
        return html! { p.muted { "No finished units yet." } };
    }
    let first = samples[0].minute;
    let span = (samples[samples.len() - 1].minute - first).max(1) as f64;
    let peak = samples.iter().map(|s| s.cases).max().unwrap_or(1).max(1) as f64;
    let points: Vec<String> = samples
        .iter()
        .map(|s| {
            format!(
                "{:.1},{:.1}",
                40.0 + (s.minute - first) as f64 / span * (w - 50.0),
                h - 20.0 - s.cases as f64 / peak * (h - 30.0)
            )
        })
        .collect();
    html! {
        svg.chart width=(w) height=(h) viewBox=(format!("0 0 {w} {h}")) role="img" aria-label="cases per minute" {
            line x1="40" y1=(h - 20.0) x2=(w - 10.0) y2=(h - 20.0) stroke="#888" {}
            line x1="40" y1="10" x2="40" y2=(h - 20.0) stroke="#888" {}
            text x="2" y="18" font-size="10" { (peak as i64) }
            text x="2" y=(h - 22.0) font-size="10" { "0" }
            text x="40" y=(h - 4.0) font-size="10" { "cases per minute over " (span as i64 + 1) " min" }
            polyline fill="none" stroke="#c0392b" stroke-width="2" points=(points.join(" ")) {}
            @for p in &points { @let (x, y) = p.split_once(',').unwrap_or(("0", "0")); circle cx=(x) cy=(y) r="2" fill="#c0392b" {} }
        }
    }
}

fn progress(c: &Campaign) -> Markup {
    let pct = if c.units > 0 {
        c.units_done as f64 * 100.0 / c.units as f64
    } else {
        0.0
    };
    html! {
        div.progress title=(format!("{} of {} units done, {} leased", c.units_done, c.units, c.units_leased)) {
            div.bar style=(format!("width: {pct:.1}%")) {}
        }
        small { (c.units_done) " / " (c.units) " units" @if c.continuous { " (continuous)" } }
    }
}

async fn campaigns(State(s): State<AppState>, headers: HeaderMap) -> Page {
    readable(&s, &headers).await?;
    let list = s.db.campaigns().await?;
    Ok(page(
        "Campaigns",
        html! {
            h1 { "Campaigns" }
            table.campaigns id="campaigns" {
                thead { tr { th { "#" } th { "name" } th { "variants" } th { "backends" } th { "status" } th { "progress" } th { "cases" } th { "findings" } } }
                tbody {
                    @for c in &list {
                        tr {
                            td { a href=(format!("/campaigns/{}", c.id)) { (c.id) } }
                            td { a href=(format!("/campaigns/{}", c.id)) { (c.name) } }
                            td { code { (c.variants) } }
                            td { (c.backends.join(", ")) }
                            td { (c.status) }
                            td { (progress(c)) }
                            td.num { (c.cases) }
                            td.num { (c.findings) }
                        }
                    }
                }
            }
            h2 { "Start a campaign" }
            form.start method="post" action="/campaigns" {
                label { "name " input name="name" required; }
                label { "variants " input name="variants" value="*" required; }
                label { "backends " input name="backends" value="host" required; }
                label { "generator " input name="generator" value="boundary" required; }
                label { "cases per unit " input name="cases_per_unit" type="number" value="100000" min="1"; }
                label { "continuous " input name="continuous" type="checkbox" value="true"; }
                label { "token " input type="password" name="token" required; }
                button type="submit" { "Start" }
            }
        },
    ))
}

#[derive(Deserialize)]
struct StartForm {
    name: String,
    variants: String,
    backends: String,
    generator: String,
    cases_per_unit: Option<i64>,
    continuous: Option<String>,
    token: String,
}

async fn start_campaign(
    State(s): State<AppState>,
    form: Result<Form<StartForm>, FormRejection>,
) -> Result<Response, PageError> {
    let Form(f) = form.map_err(|e| PageError(StatusCode::BAD_REQUEST, e.body_text()))?;
    if !s.db.token_valid(&f.token).await? {
        return Err(PageError(
            StatusCode::UNAUTHORIZED,
            "Unknown token: make one with `semfuzz token create`.".into(),
        ));
    }
    let c = NewCampaign {
        name: f.name,
        variants: f.variants,
        backends: f
            .backends
            .split([',', ' '])
            .filter(|b| !b.is_empty())
            .map(str::to_string)
            .collect(),
        generator: f.generator,
        cases_per_unit: f.cases_per_unit,
        rounds: None,
        continuous: f.continuous.is_some(),
    };
    let created = s.db.create_campaign(&c, &s.config.variants).await?;
    Ok(Redirect::to(&format!("/campaigns/{}", created.id)).into_response())
}

async fn campaign(State(s): State<AppState>, headers: HeaderMap, Path(id): Path<String>) -> Page {
    readable(&s, &headers).await?;
    let id: i64 = id.parse().map_err(|_| {
        PageError(
            StatusCode::BAD_REQUEST,
            format!("`{id}` is not a campaign id"),
        )
    })?;
    let c = s.db.campaign(id).await?;
    let samples = s.db.throughput(id).await?;
    let passes = s.db.passes(id).await?;
    // The campaign is on its slowest backend's pass, which ends with that backend's last.
    let pass = passes.iter().filter_map(|p| p.pass).min();
    let on_it: Vec<&BackendPass> = passes
        .iter()
        .filter(|p| p.pass.is_some() && p.pass == pass)
        .collect();
    let eta = on_it
        .iter()
        .map(|p| p.eta_seconds)
        .collect::<Option<Vec<i64>>>()
        .and_then(|e| e.into_iter().max());
    Ok(page(
        &format!("Campaign {id}"),
        html! {
            h1 { "Campaign " (id) ": " (c.name) }
            p { code { (c.variants) } " on " (c.backends.join(", "))
                @if c.kind == "fuzz" { " · generator " (c.generator) " · " (c.cases_per_unit) " cases per unit" }
                " · " (c.status) " · created " (c.created) }
            (progress(&c))
            @if c.kind == "validate-llc" {
                p id="llc-campaign" { "Each unit proves one IR function at one target under one compiler (leased now: " (c.units_leased) "); the verdicts fill each LLVM version's matrix at " a href="/llc" { "/llc" } "." }
            } @else {
                p { (c.cases) " cases run · " (c.findings) " finding occurrences" }
                h2 { "Passes" }
                @match pass {
                    Some(p) => { p id="pass" {
                        "Pass " b { (p + 1) } @if p == 0 { " (the first: every variant once on every backend)" }
                        ": " (on_it.iter().map(|b| b.left).sum::<i64>()) " variant × backend pairs left"
                        @match eta { Some(e) => { ", ends in about " b { (duration(e)) } } None => { ", no estimate yet" } }
                        @if c.status != "running" { " (the campaign is " (c.status) ")" }
                        "."
                    } }
                    None => { p.muted id="pass" { "No backend of this campaign runs any of its variants." } }
                }
                table.passes id="passes" {
                    thead { tr { th { "backend" } th { "pass" } th { "done" } th { "left" } th { "cannot run" } th { "ends in" } } }
                    tbody {
                        @for b in &passes {
                            tr {
                                td { (b.backend) }
                                td.num { (b.pass.map_or("–".to_string(), |p| (p + 1).to_string())) }
                                td.num { (b.done) }
                                td.num { (b.left) }
                                td.num { (b.unsupported) }
                                td { (b.eta_seconds.map_or("–".to_string(), duration)) }
                            }
                        }
                    }
                }
                p.legend { "A pass runs every (variant, backend) pair the backend supports once more; the first with "
                    (crate::db::FIRST_PASS_CASES) " cases, each later unit of a pair as many cases as it has run so far (up to the campaign's cases per unit). Pairs with findings run ahead of the pass. Estimates come from the units of the pass finished in the last ten minutes." }
                h2 { "Throughput" }
                (chart(&samples))
            }
        },
    ))
}

/// `45 s`, `12 min`, `3 h 20 min`.
fn duration(seconds: i64) -> String {
    match seconds {
        ..=59 => format!("{seconds} s"),
        60..=3599 => format!("{} min", (seconds + 59) / 60),
        _ => format!("{} h {} min", seconds / 3600, seconds % 3600 / 60),
    }
}

async fn proofs(State(s): State<AppState>, headers: HeaderMap) -> Page {
    readable(&s, &headers).await?;
    let list = s.db.proofs(500, 0).await?;
    Ok(page(
        "Proofs",
        html! {
            h1 { "Proofs" }
            @if list.is_empty() { p { "No proofs yet: " code { "semfuzz prove --report URL --token T RULES" } " posts them." } }
            table.proofs id="proofs" {
                thead { tr { th { "rule" } th { "verdict" } th { "counterexample" } th { "solver" } th { "time" } th { "when" } } }
                tbody {
                    @for p in &list {
                        tr {
                            td { code { (p.rule) } }
                            td { span class=(format!("verdict {}", p.verdict)) { (p.verdict) } }
                            td { code { (p.counterexample) } }
                            td { (p.solver) }
                            td.num { (format!("{:.2} s", p.seconds)) }
                            td { (p.created) }
                        }
                    }
                }
            }
        },
    ))
}

async fn login_page() -> Html<String> {
    page(
        "Log in",
        html! {
            h1 { "Log in" }
            form method="post" action="/login" {
                label { "token " input type="password" name="token" required; }
                button type="submit" { "Log in" }
            }
        },
    )
}

#[derive(Deserialize)]
struct LoginForm {
    token: String,
}

async fn login(
    State(s): State<AppState>,
    form: Result<Form<LoginForm>, FormRejection>,
) -> Result<Response, PageError> {
    let Form(f) = form.map_err(|e| PageError(StatusCode::BAD_REQUEST, e.body_text()))?;
    if !s.db.token_valid(&f.token).await? {
        return Err(PageError(StatusCode::UNAUTHORIZED, "Unknown token.".into()));
    }
    let cookie = format!("{COOKIE}={}; Path=/; HttpOnly; SameSite=Strict", f.token);
    Ok(([(header::SET_COOKIE, cookie)], Redirect::to("/")).into_response())
}
