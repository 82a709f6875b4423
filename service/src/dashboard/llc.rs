//! The pages of `semfuzz validate-llc`'s verdicts (issue 19): `/llc` lists the LLVM versions,
//! `/llc/{version}` is one version's function × target matrix, `/llc/verdicts/{id}` is one
//! verdict with what a person needs to act on it (the counterexample, the bug report, since
//! when it stands, and the same function and target under the other versions).

use super::{copyable, enc, page, readable, Page, PageError};
use crate::db::LLC_VERDICTS;
use crate::model::{Campaign, LlcVerdict};
use crate::AppState;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use maud::{html, Markup};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

/// One piece of a [`natural`] key: a run of digits (by value) or of other characters.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Piece {
    Number(u128, usize),
    Text(String),
}

/// A sort key in which runs of digits compare as numbers, so that `sm_90` comes before
/// `sm_100` and LLVM `9.0.1` before `22.1.0`.
fn natural(s: &str) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        let digits = c.is_ascii_digit();
        let end = rest
            .find(|ch: char| ch.is_ascii_digit() != digits)
            .unwrap_or(rest.len());
        let (run, tail) = rest.split_at(end);
        out.push(if digits {
            // Leading zeros (and runs too long for a u128) break ties by length.
            Piece::Number(run.parse().unwrap_or(u128::MAX), run.len())
        } else {
            Piece::Text(run.to_string())
        });
        rest = tail;
    }
    out
}

/// The link to one LLVM version's matrix.
fn version_link(llvm: &str) -> String {
    format!("/llc/{}", enc(llvm))
}

/// The link to one verdict's page.
fn verdict_link(id: i64) -> String {
    format!("/llc/verdicts/{id}")
}

/// A verdict as a coloured label.
fn label(verdict: &str) -> Markup {
    html! { span class=(format!("llc-{verdict}")) { (verdict) } }
}

/// `0.42 s`, `3 min 5 s`.
fn took(seconds: f64) -> String {
    if seconds < 60.0 {
        format!("{seconds:.2} s")
    } else {
        humantime::format_duration(Duration::from_secs(seconds as u64)).to_string()
    }
}

/// `/llc`: every LLVM version, newest first, with its cells per verdict.
pub(super) async fn versions(State(s): State<AppState>, headers: HeaderMap) -> Page {
    readable(&s, &headers).await?;
    let mut list = s.db.llc_versions().await?;
    list.sort_by_cached_key(|v| std::cmp::Reverse(natural(&v.llvm)));
    let campaigns: Vec<Campaign> =
        s.db.campaigns()
            .await?
            .into_iter()
            .filter(|c| c.kind == "validate-llc")
            .collect();
    Ok(page(
        "LLVM",
        html! {
            h1 { "LLVM's NVPTX backend" }
            p { "Translation validation by " code { "semfuzz validate-llc" } ": for each IR function and target, whether the PTX that LLVM emits refines the IR (LangRef's semantics against the PTX manual's), for every input. Each count is of (function, target) cells, by their latest report." }
            @if list.is_empty() {
                p { "No verdicts yet: " code { "semfuzz validate-llc --report URL --token T" } " posts them." }
            } @else {
                table.llc-versions id="llc-versions" {
                    thead { tr {
                        th { "LLVM" }
                        @for v in LLC_VERDICTS { th { (label(v)) } }
                        th { "last report" }
                    } }
                    tbody {
                        @for v in &list {
                            tr {
                                td { a href=(version_link(&v.llvm)) { (v.llvm) } }
                                @for n in v.cells { td.num { (n) } }
                                td { (v.last) }
                            }
                        }
                    }
                }
            }
            @if !campaigns.is_empty() {
                h2 { "Campaigns" }
                p { "Catalogue runs shared out to " code { "semfuzz worker" } "s (" code { "semfuzz validate-llc --campaign" } "): one unit per function, target and compiler; each verdict lands in its version's matrix above." }
                table.campaigns id="llc-campaigns" {
                    thead { tr { th { "#" } th { "functions" } th { "compilers" } th { "status" } th { "progress" } } }
                    tbody {
                        @for c in &campaigns {
                            tr {
                                td { a href=(format!("/campaigns/{}", c.id)) { (c.id) } }
                                td { code { (c.variants) } }
                                td { (c.backends.join(", ")) }
                                td { (c.status) }
                                td { (super::progress(c)) }
                            }
                        }
                    }
                }
            }
        },
    ))
}

/// `/llc/{version}`: the version's function × target matrix, each cell its latest verdict,
/// linking to the verdict's page.
pub(super) async fn matrix(
    State(s): State<AppState>,
    headers: HeaderMap,
    Path(llvm): Path<String>,
) -> Page {
    readable(&s, &headers).await?;
    let cells = s.db.llc_matrix(&llvm).await?;
    if cells.is_empty() {
        return Err(PageError(
            StatusCode::NOT_FOUND,
            format!("No verdicts for LLVM `{llvm}`: see /llc for the versions there are."),
        ));
    }
    let mut targets: Vec<&str> = cells
        .iter()
        .map(|c| c.target.as_str())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    targets.sort_by_cached_key(|t| natural(t));
    let mut rows: BTreeMap<&str, BTreeMap<&str, &LlcVerdict>> = BTreeMap::new();
    for c in &cells {
        rows.entry(c.function.as_str())
            .or_default()
            .insert(c.target.as_str(), c);
    }
    let compilers: BTreeSet<&str> = cells.iter().map(|c| c.compiler.as_str()).collect();
    let count = |verdict: &str| cells.iter().filter(|c| c.verdict == verdict).count();
    let counterexamples: Vec<&LlcVerdict> = cells
        .iter()
        .filter(|c| c.verdict == "counterexample")
        .collect();
    Ok(page(
        &format!("LLVM {llvm}"),
        html! {
            h1 { "LLVM " (llvm) }
            p { "Compiled by " (compilers.into_iter().collect::<Vec<_>>().join(", ")) " · "
                @for (i, v) in LLC_VERDICTS.iter().enumerate() {
                    @if i > 0 { ", " }
                    (count(v)) " " (label(v))
                }
                " (of " (cells.len()) " function × target cells)" }
            table.llc id="llc-matrix" {
                thead { tr { th { "function \\ target" } @for t in &targets { th { (t) } } } }
                tbody {
                    @for (function, row) in &rows {
                        tr {
                            th { code { (function) } }
                            @for t in &targets {
                                @match row.get(t) {
                                    Some(c) => {
                                        @let title = if c.detail.is_empty() {
                                            format!("{}: {} ({}, {}, {})", c.target, c.verdict, c.compiler, took(c.seconds), c.created)
                                        } else {
                                            format!("{}: {}: {} ({}, {}, {})", c.target, c.verdict, c.detail, c.compiler, took(c.seconds), c.created)
                                        };
                                        td class=(format!("llc-{}", c.verdict)) title=(title) data-verdict=(c.verdict) {
                                            a href=(verdict_link(c.id)) { (c.verdict) }
                                        }
                                    }
                                    None => { td.none title="not validated at this target" { "·" } }
                                }
                            }
                        }
                    }
                }
            }
            p.legend {
                "Each cell is the latest report of the function at the target; hover for the detail of "
                span.llc-unknown { "unknown" } " and " span.llc-unsupported { "unsupported" } ", follow it for the whole verdict. "
                span.llc-counterexample { "counterexample" } ": the PTX can produce a result the IR does not allow, a miscompilation."
            }
            @if !counterexamples.is_empty() {
                h2 { "Counterexamples" }
                ul id="llc-counterexamples" {
                    @for c in &counterexamples {
                        li { a href=(verdict_link(c.id)) { code { (c.function) } " on " (c.target) }
                            @if let Some(first) = c.counterexample.lines().next() { " · " code { (first) } } }
                    }
                }
            }
        },
    ))
}

/// The first and last report of the run of equal verdicts that `id` belongs to in its cell's
/// `history` (oldest first): since when, and until when, the verdict has stood.
fn standing(history: &[LlcVerdict], id: i64) -> Option<(&str, &str)> {
    let at = history.iter().position(|h| h.id == id)?;
    let verdict = &history[at].verdict;
    let first = history[..at]
        .iter()
        .rposition(|h| &h.verdict != verdict)
        .map_or(0, |p| p + 1);
    let last = history[at..]
        .iter()
        .position(|h| &h.verdict != verdict)
        .map_or(history.len(), |p| at + p)
        - 1;
    Some((&history[first].created, &history[last].created))
}

/// `/llc/verdicts/{id}`: one verdict in full.
pub(super) async fn verdict(
    State(s): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Page {
    readable(&s, &headers).await?;
    let id: i64 = id.parse().map_err(|_| {
        PageError(
            StatusCode::BAD_REQUEST,
            format!("`{id}` is not an LLVM verdict id"),
        )
    })?;
    let (v, history, versions) = s.db.llc_verdict(id).await?;
    let (first, last) = standing(&history, id).unwrap_or((v.created.as_str(), v.created.as_str()));
    let latest = history.last().filter(|h| h.id != id);
    Ok(page(
        &format!("{} on {}", v.function, v.target),
        html! {
            h1 { code { (v.function) } " on " (v.target) ": " (label(&v.verdict)) }
            p id="llc-facts" { "LLVM " a href=(version_link(&v.llvm)) { (v.llvm) } " · compiled by " (v.compiler)
                " · took " (took(v.seconds)) " · reported " (v.created) }
            p id="llc-standing" { (v.verdict) " since " b { (first) } ", last seen " b { (last) }
                " (" (history.iter().filter(|h| h.verdict == v.verdict).count()) " of the cell's " (history.len()) " reports)" }
            @if let Some(l) = latest {
                p.error { "A later report of this function and target says " a href=(verdict_link(l.id)) { (l.verdict) } " (" (l.created) ")." }
            }
            @if !v.detail.is_empty() { h2 { "Why" } p.detail id="llc-detail" { (v.detail) } }
            @if !v.counterexample.is_empty() {
                h2 { "Counterexample" }
                (copyable("llc-counterexample", &v.counterexample))
            }
            @if !v.report.is_empty() {
                h2 { "Bug report" }
                p.muted { "Markdown, ready to file upstream:" }
                (copyable("llc-report", &v.report))
            }
            h2 { "Under each LLVM" }
            table.llc-across id="llc-across" {
                thead { tr { th { "LLVM" } th { "compiler" } th { "verdict" } th { "reported" } } }
                tbody {
                    @for o in &versions {
                        tr {
                            td { a href=(version_link(&o.llvm)) { (o.llvm) } }
                            td { (o.compiler) }
                            td class=(format!("llc-{}", o.verdict)) { a href=(verdict_link(o.id)) { (o.verdict) } }
                            td { (o.created) }
                        }
                    }
                }
            }
            h2 { "Reports of this cell" }
            table.llc-history id="llc-history" {
                thead { tr { th { "#" } th { "reported" } th { "compiler" } th { "verdict" } th { "time" } th { "detail" } } }
                tbody {
                    @for h in history.iter().rev() {
                        tr {
                            td { @if h.id == id { (h.id) } @else { a href=(verdict_link(h.id)) { (h.id) } } }
                            td { (h.created) }
                            td { (h.compiler) }
                            td { (label(&h.verdict)) }
                            td.num { (took(h.seconds)) }
                            td.detail { (h.detail) }
                        }
                    }
                }
            }
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_sort_as_numbers() {
        let mut t = vec!["sm_100", "sm_90a", "sm_90", "sm_120", "sm_50", "sm_9"];
        t.sort_by_cached_key(|s| natural(s));
        assert_eq!(t, ["sm_9", "sm_50", "sm_90", "sm_90a", "sm_100", "sm_120"]);
        let mut v = vec!["22.1.0", "9.0.1", "16.0.6", "19.1.7", "16.0.10"];
        v.sort_by_cached_key(|s| natural(s));
        assert_eq!(v, ["9.0.1", "16.0.6", "16.0.10", "19.1.7", "22.1.0"]);
    }

    fn report(id: i64, verdict: &str, created: &str) -> LlcVerdict {
        LlcVerdict {
            id,
            llvm: "22.1.0".into(),
            compiler: "llvmlite".into(),
            function: "f".into(),
            target: "sm_70".into(),
            verdict: verdict.into(),
            detail: String::new(),
            counterexample: String::new(),
            report: String::new(),
            seconds: 0.0,
            created: created.into(),
        }
    }

    #[test]
    fn a_verdict_stands_since_its_run_began() {
        let h = [
            report(1, "counterexample", "t1"),
            report(4, "proved", "t2"),
            report(7, "counterexample", "t3"),
            report(9, "counterexample", "t4"),
            report(12, "unknown", "t5"),
        ];
        assert_eq!(standing(&h, 9), Some(("t3", "t4")));
        assert_eq!(standing(&h, 7), Some(("t3", "t4")));
        assert_eq!(standing(&h, 1), Some(("t1", "t1")));
        assert_eq!(standing(&h, 12), Some(("t5", "t5")));
        assert_eq!(standing(&h, 5), None);
    }
}
