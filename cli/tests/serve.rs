//! `semfuzz serve` and `semfuzz token create` as processes: every finding acknowledged with a
//! 2xx survives `kill -9` of the server; SIGTERM shuts it down cleanly; errors are clear.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn semfuzz() -> Command {
    Command::new(env!("CARGO_BIN_EXE_semfuzz"))
}

fn token(db: &Path) -> String {
    token_in(&["--db".as_ref(), db.as_os_str()])
}

/// `semfuzz token create` in the database `db` names (`--db PATH`, `--database-url URL`).
fn token_in(db: &[&std::ffi::OsStr]) -> String {
    let out = semfuzz()
        .args(["token", "create"])
        .args(db)
        .env_remove("DATABASE_URL")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let t = String::from_utf8(out.stdout).unwrap().trim().to_string();
    assert!(t.starts_with("sft_") && t.len() > 40, "{t}");
    t
}

/// Starts `semfuzz serve` on a free port and waits for its "dashboard at" line.
fn serve(db: &Path) -> (Child, String) {
    serve_with(db, &[])
}

/// [`serve`] with more options.
fn serve_with(db: &Path, options: &[&str]) -> (Child, String) {
    serve_at(db, "127.0.0.1:0", options)
}

/// [`serve_with`] on `listen`.
fn serve_at(db: &Path, listen: &str, options: &[&str]) -> (Child, String) {
    let mut serve = semfuzz();
    serve
        .args(["serve", "--listen", listen, "--db"])
        .arg(db)
        .args(options)
        .env_remove("DATABASE_URL");
    started(serve)
}

/// Spawns `serve`, a `semfuzz serve` command, and waits for its "dashboard at" line: the
/// server and its URL.
fn started(mut serve: Command) -> (Child, String) {
    let mut child = serve.stderr(Stdio::piped()).spawn().unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let line = lines.next().expect("serve printed nothing").unwrap();
    let url = line
        .split("dashboard at ")
        .nth(1)
        .unwrap_or_else(|| panic!("{line}"))
        .split(' ')
        .next()
        .unwrap()
        .trim_end_matches('/')
        .to_string();
    std::thread::spawn(move || for _ in lines {});
    (child, url)
}

fn finding(i: usize) -> serde_json::Value {
    serde_json::json!({
        "variant": "add.rn.f32", "backend": "host", "backend_version": "1", "device": "cpu",
        "class": "bits", "part": "d", "signature": format!("sig{i}"), "operand_classes": ["+normal", "+normal"],
        "inputs": ["0x3f800000", "0x40000000"], "expected": "0x40400000 (3)", "actual": "0x40400001",
        "detail": "d differs", "count": 1, "first_seen": "2026-01-01T00:00:00Z", "last_seen": "2026-01-01T00:00:00Z"
    })
}

#[test]
fn acknowledged_findings_survive_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let tok = token(&db);
    let (mut child, url) = serve(&db);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let poster = {
        let (url, tok, stop) = (url.clone(), tok.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut acked = vec![];
            for i in 0.. {
                if stop.load(std::sync::atomic::Ordering::SeqCst) {
                    break;
                }
                let batch =
                    serde_json::Value::Array((0..20).map(|j| finding(i * 20 + j)).collect());
                match ureq::post(&format!("{url}/api/v1/findings"))
                    .set("authorization", &format!("Bearer {tok}"))
                    .timeout(Duration::from_secs(5))
                    .send_json(batch)
                {
                    Ok(r) if r.status() == 201 => acked.push(i),
                    Ok(r) => panic!("unexpected {}", r.status()),
                    Err(_) => break,
                }
            }
            acked
        })
    };
    std::thread::sleep(Duration::from_millis(1500));
    Command::new("kill")
        .args(["-9", &child.id().to_string()])
        .status()
        .unwrap();
    child.wait().unwrap();
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let acked = poster.join().unwrap();
    assert!(
        acked.len() > 5,
        "too few batches before the kill: {}",
        acked.len()
    );
    let (mut child, url) = serve(&db);
    let v: serde_json::Value = ureq::get(&format!("{url}/api/v1/findings?limit=1"))
        .call()
        .unwrap()
        .into_json()
        .unwrap();
    let total = v["total"].as_u64().unwrap() as usize;
    assert!(
        total >= acked.len() * 20,
        "lost acknowledged findings: {total} stored, {} acknowledged",
        acked.len() * 20
    );
    for &i in &acked {
        let v: serde_json::Value = ureq::get(&format!(
            "{url}/api/v1/findings?limit=1&variant=add.rn.f32&class=bits&sort=id&offset={}",
            i * 20
        ))
        .call()
        .unwrap()
        .into_json()
        .unwrap();
        assert_eq!(
            v["findings"][0]["signature"],
            serde_json::json!(format!("sig{}", i * 20))
        );
    }
    // SIGTERM: a clean exit.
    signal_and_wait(&mut child, "-TERM");
}

/// Sends `signal` to `child` and waits (at most 30 s) for it to exit with status 0.
fn signal_and_wait(child: &mut Child, signal: &str) {
    Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "serve ignored {signal}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status}");
}

fn get_json(url: &str) -> serde_json::Value {
    ureq::get(url).call().unwrap().into_json().unwrap()
}

/// Polls `url` until `done` accepts its JSON (at most 120 s).
fn wait_for(url: &str, what: &str, done: impl Fn(&serde_json::Value) -> bool) -> serde_json::Value {
    let start = Instant::now();
    loop {
        let v = get_json(url);
        if done(&v) {
            return v;
        }
        assert!(start.elapsed() < Duration::from_secs(120), "no {what}: {v}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// What `cargo xtask run` starts (`serve --local-worker`, here on the host backend and the
/// min variants only): findings of a real campaign appear through the API; Ctrl-C stops it
/// with status 0; a second start resumes the same campaign instead of creating another.
#[test]
fn local_worker_runs_a_continuous_campaign_and_resumes_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("run.db");
    let options = [
        "--local-worker",
        "--local-backend",
        "host",
        "--local-variants",
        "min.*",
        "--local-cases-per-unit",
        "5000",
    ];
    let (mut child, url) = serve_with(&db, &options);
    let found = wait_for(&format!("{url}/api/v1/findings?limit=1"), "findings", |v| {
        v["total"].as_u64() > Some(0)
    });
    assert_eq!(found["findings"][0]["backend"], "host", "{found}");
    let campaigns = get_json(&format!("{url}/api/v1/campaigns"));
    let first = &campaigns["campaigns"][0];
    assert_eq!(first["continuous"], true, "{campaigns}");
    signal_and_wait(&mut child, "-INT");
    let cases_before_restart = while_serving(&db, &options, |url| {
        let campaigns = get_json(&format!("{url}/api/v1/campaigns"));
        assert_eq!(
            campaigns["campaigns"].as_array().unwrap().len(),
            1,
            "{campaigns}"
        );
        let c = &campaigns["campaigns"][0];
        assert_eq!(c["id"], first["id"]);
        // Continuous: more units than one round, and the cases keep growing.
        let cases = c["cases"].as_i64().unwrap();
        wait_for(
            &format!("{url}/api/v1/campaigns/{}", c["id"]),
            "progress",
            |v| v["cases"].as_i64() > Some(cases) && v["units"].as_i64() > c["units"].as_i64(),
        );
        cases
    });
    assert!(cases_before_restart > 0);
}

/// Starts the server again on `db` with `options`, runs `check` against its URL, and stops it
/// with Ctrl-C.
fn while_serving<T>(db: &Path, options: &[&str], check: impl FnOnce(&str) -> T) -> T {
    let (mut child, url) = serve_with(db, options);
    let result = check(&url);
    signal_and_wait(&mut child, "-INT");
    result
}

#[test]
fn errors_are_clear() {
    let dir = tempfile::tempdir().unwrap();
    let out = semfuzz()
        .args(["serve", "--listen", "not-an-address", "--db"])
        .arg(dir.path().join("x.db"))
        .env_remove("DATABASE_URL")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot listen on not-an-address") && err.contains("--listen"),
        "{err}"
    );
    let out = semfuzz()
        .args(["token", "create", "--database-url", "mysql://x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("postgres://"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Chromium's binary, if the machine has one (`cargo xtask setup` installs Debian's).
fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| {
            Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

/// The DOM of `url` after headless Chromium has loaded it (and a screenshot of it into
/// `shot`, for people).
fn dump_dom(browser: &str, url: &str, shot: &Path) -> String {
    let profile = tempfile::tempdir().unwrap();
    let args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1280,900",
    ];
    let mut c = Command::new(browser);
    c.args(args)
        .arg(format!("--user-data-dir={}", profile.path().display()));
    let out = c.arg("--dump-dom").arg(url).output().unwrap();
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = Command::new(browser)
        .args(args)
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(url)
        .output();
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn dashboard_in_headless_chromium() {
    let Some(browser) = chromium() else {
        eprintln!("\n!!! SKIPPING the dashboard's browser test: no chromium (run `cargo xtask setup`) !!!\n");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let tok = token(&db);
    let (mut child, url) = serve(&db);
    // A real campaign: the host's min.f32 and fma.rn.f16, posted by `fuzz --report`.
    reporting(
        &[
            "fuzz",
            "--backend",
            "host",
            "--instr",
            "min.f32",
            "--instr",
            "fma.rn.f16",
            "--cases",
            "20000",
        ],
        &url,
        &tok,
        &dir.path().join("spool.jsonl"),
    );
    let listed = get_json(&format!(
        "{url}/api/v1/findings?variant=min.f32&limit=1&sort=id"
    ));
    let f = &listed["findings"][0];
    let id = f["id"]
        .as_i64()
        .expect("the campaign found min.f32 findings");
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let overview = dump_dom(
        browser,
        &format!("{url}/"),
        &shots.join("dashboard-overview.png"),
    );
    let matrix = &overview[overview.find("id=\"matrix\"").expect("the matrix")..];
    for want in ["<th>min</th>", "<th>fma</th>", "<th>host</th>"] {
        assert!(
            matrix.contains(want),
            "{want} not in the rendered matrix: {matrix}"
        );
    }
    let page = dump_dom(
        browser,
        &format!("{url}/findings/{id}"),
        &shots.join("dashboard-finding.png"),
    );
    let inputs: Vec<&str> = f["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i.as_str().unwrap())
        .collect();
    for want in [
        "min.f32".to_string(),
        f["class"].as_str().unwrap().to_string(),
        inputs[0].to_string(),
        format!("semfuzz eval min.f32 {}", inputs.join(" ")),
        "| semfuzz check".to_string(),
        "id=\"ptx-kernel\"".to_string(),
        ".entry".to_string(),
        "min.f32".to_string(),
        "cuModuleLoadData".to_string(),
        "data-copy=\"host-program\"".to_string(),
    ] {
        assert!(
            page.contains(&want),
            "{want} not on the rendered finding page: {page}"
        );
    }
    child.kill().unwrap();
    child.wait().unwrap();
}

/// `semfuzz validate-llc --report`'s pages (issue 19) as a browser renders them: verdicts posted
/// to the real server make `/llc/22.1.0`'s matrix, whose counterexample cell links to a page
/// with the counterexample and the bug report, and whose unsupported cell says why on hover.
#[test]
fn llc_matrix_in_headless_chromium() {
    let Some(browser) = chromium() else {
        eprintln!("\n!!! SKIPPING the LLVM matrix's browser test: no chromium (run `cargo xtask setup`) !!!\n");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let tok = token(&db);
    let (mut child, url) = serve(&db);
    let verdict = |function: &str, target: &str, verdict: &str, detail: &str| {
        serde_json::json!({
            "llvm": "22.1.0", "compiler": "llvmlite (LLVM 22.1.0)", "function": function,
            "target": target, "verdict": verdict, "detail": detail, "seconds": 0.5,
            "counterexample": if verdict == "counterexample" { "a = 0x7f80 (inf)\nPTX computes 0x7fc0 (NaN)" } else { "" },
            "report": if verdict == "counterexample" { "# [NVPTX] fadd bfloat on sm_70 loses infinity" } else { "" },
        })
    };
    let stored: serde_json::Value = ureq::post(&format!("{url}/api/v1/llc-verdicts"))
        .set("authorization", &format!("Bearer {tok}"))
        .set("idempotency-key", "browser-1")
        .send_json(serde_json::json!([
            verdict("fadd_bf16", "sm_70", "counterexample", ""),
            verdict("fadd_bf16", "sm_90", "proved", ""),
            verdict("frem_f32", "sm_90", "unsupported", "frem: no PTX semantics"),
        ]))
        .unwrap()
        .into_json()
        .unwrap();
    let cex = stored["ids"][0].as_i64().expect("stored ids");
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let matrix = dump_dom(
        browser,
        &format!("{url}/llc/22.1.0"),
        &shots.join("dashboard-llc-matrix.png"),
    );
    let table = &matrix[matrix.find("id=\"llc-matrix\"").expect("the matrix")..];
    for want in [
        "<th>sm_70</th>".to_string(),
        "<th><code>fadd_bf16</code></th>".to_string(),
        format!("<a href=\"/llc/verdicts/{cex}\">counterexample</a>"),
        "title=\"sm_90: unsupported: frem: no PTX semantics".to_string(),
    ] {
        assert!(
            table.contains(&want),
            "{want} not in the rendered matrix: {table}"
        );
    }
    let page = dump_dom(
        browser,
        &format!("{url}/llc/verdicts/{cex}"),
        &shots.join("dashboard-llc-verdict.png"),
    );
    for want in [
        "<code>fadd_bf16</code> on sm_70",
        "a = 0x7f80 (inf)\nPTX computes 0x7fc0 (NaN)",
        "# [NVPTX] fadd bfloat on sm_70 loses infinity",
        "href=\"/llc/22.1.0\"",
    ] {
        assert!(
            page.contains(want),
            "{want} not on the rendered verdict page: {page}"
        );
    }
    let nav = dump_dom(
        browser,
        &format!("{url}/llc"),
        &shots.join("dashboard-llc.png"),
    );
    assert!(
        nav.contains("<a href=\"/llc\">LLVM</a>") && nav.contains("href=\"/llc/22.1.0\""),
        "{nav}"
    );
    child.kill().unwrap();
    child.wait().unwrap();
}

/// Wide before deep (issue 21), through `serve --local-worker` on the host and a deliberately
/// slow external backend: the host's findings arrive while the slow backend is still on its
/// first pass, the matrix (in headless Chromium, where there is one) shows tried / supported
/// and the slow backend's never-run cells, and the slow backend runs every pair once before
/// any twice.
#[test]
fn local_worker_goes_wide_before_deep() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let log = dir.path().join("slow.log");
    let adapter = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/adapters/slow.py");
    // The first batch takes 12 s (time to look at the matrix), each later one 0.3 s.
    let slow = format!(
        "external:python3 {} {} 12 0.3",
        adapter.display(),
        log.display()
    );
    let (mut child, url) = serve_with(
        &db,
        &[
            "--local-worker",
            "--local-variants",
            "m??.f??",
            "--local-backend",
            "host",
            "--local-backend",
            &slow,
        ],
    );
    wait_for(
        &format!("{url}/api/v1/findings?backend=host&limit=1"),
        "host finding",
        |v| v["total"].as_i64() > Some(0),
    );
    let passes = |v: &serde_json::Value| -> (serde_json::Value, serde_json::Value) {
        let find = |b: &str| {
            v["passes"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["backend"] == b)
                .cloned()
                .unwrap_or_else(|| panic!("no pass for {b}: {v}"))
        };
        (find("host"), find(&slow))
    };
    let (_, slow_pass) = passes(&get_json(&format!("{url}/api/v1/campaigns/1")));
    assert_eq!(slow_pass["pass"], 0, "{slow_pass}");
    assert!(
        slow_pass["left"].as_i64() > Some(0),
        "the host's findings came only after the slow backend's first pass: {slow_pass}"
    );
    if let Some(browser) = chromium() {
        let page = dump_dom(
            browser,
            &format!("{url}/"),
            &Path::new(env!("CARGO_TARGET_TMPDIR")).join("dashboard-coverage.png"),
        );
        let matrix = &page[page.find("id=\"matrix\"").expect("the matrix")..];
        assert!(
            matrix.contains("class=\"untried\"") && matrix.contains("never run"),
            "no never-run cell for the slow backend: {matrix}"
        );
        assert!(
            matrix.contains(" tried") && matrix.contains("data-supported="),
            "no tried / supported in the matrix: {matrix}"
        );
        let host_tried = matrix.contains("data-tried=\"1\"")
            || matrix.contains("data-tried=\"2\"")
            || matrix.contains("data-tried=\"3\"");
        assert!(host_tried, "no cell the host has tried: {matrix}");
    } else {
        eprintln!("\n!!! SKIPPING the coverage matrix's browser check: no chromium (run `cargo xtask setup`) !!!\n");
    }
    let v = wait_for(
        &format!("{url}/api/v1/campaigns/1"),
        "second pass of the slow backend",
        |v| passes(v).1["pass"].as_i64() >= Some(1),
    );
    let (host, slow_pass) = passes(&v);
    assert!(
        host["pass"].as_i64() > Some(1),
        "the host went deeper meanwhile: {host}"
    );
    let pairs = slow_pass["pairs"].as_u64().unwrap() as usize;
    // The log until some variant's second batch: it holds every variant the log ever shows.
    let start = Instant::now();
    let (run, repeat) = loop {
        let text = std::fs::read_to_string(&log).unwrap();
        let run: Vec<String> = text.lines().map(str::to_string).collect();
        let mut seen = std::collections::HashSet::new();
        if let Some(i) = run.iter().position(|v| !seen.insert(v)) {
            break (run, i);
        }
        assert!(start.elapsed() < Duration::from_secs(60), "{run:?}");
        std::thread::sleep(Duration::from_millis(200));
    };
    let before: std::collections::HashSet<&String> = run[..repeat].iter().collect();
    let all: std::collections::HashSet<&String> = run.iter().collect();
    assert_eq!(before, all, "every pair once before any twice: {run:?}");
    let texts: std::collections::HashSet<&str> = run[..repeat]
        .iter()
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    assert_eq!(texts.len(), pairs, "every text in the first pass: {run:?}");
    child.kill().unwrap();
    child.wait().unwrap();
}

#[path = "../../service/tests/common/pg.rs"]
mod pg;

/// Starts `semfuzz serve` on `db_url`, creates a campaign, runs `workers` worker processes
/// (killing the first with -9 after `kill_after`, if given) until every unit is done; returns
/// the findings (signature → count) and the campaign.
fn distributed_run(
    db_url: &str,
    workers: usize,
    kill_after: Option<Duration>,
) -> (Vec<(String, u64)>, serde_json::Value) {
    let (mut server, url, tok) = serve_postgres(db_url);
    let auth = format!("Bearer {tok}");
    let c: serde_json::Value = ureq::post(&format!("{url}/api/v1/campaigns"))
        .set("authorization", &auth)
        .send_json(serde_json::json!({"name": "dist", "variants": "m??.NaN.f32", "backends": ["host"], "generator": "boundary", "cases_per_unit": CASES_PER_UNIT, "rounds": 3}))
        .unwrap()
        .into_json()
        .unwrap();
    let mut procs: Vec<Child> = (0..workers)
        .map(|_| {
            semfuzz()
                .args([
                    "worker",
                    "--server",
                    &url,
                    "--token",
                    &tok,
                    "--backend",
                    "host",
                    "--lease-seconds",
                    "2",
                    "--exit-when-idle",
                ])
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    if let Some(after) = kill_after {
        std::thread::sleep(after);
        Command::new("kill")
            .args(["-9", &procs[0].id().to_string()])
            .status()
            .unwrap();
    }
    let start = Instant::now();
    let campaign = loop {
        let v: serde_json::Value = ureq::get(&format!("{url}/api/v1/campaigns/{}", c["id"]))
            .call()
            .unwrap()
            .into_json()
            .unwrap();
        if v["units_done"] == v["units"] {
            break v;
        }
        // Workers that found the queue empty while a dead worker's lease ran out have exited:
        // keep one alive until the end.
        if procs.iter_mut().all(|p| p.try_wait().unwrap().is_some()) {
            procs.push(
                semfuzz()
                    .args([
                        "worker",
                        "--server",
                        &url,
                        "--token",
                        &tok,
                        "--lease-seconds",
                        "2",
                        "--exit-when-idle",
                    ])
                    .stderr(Stdio::null())
                    .spawn()
                    .unwrap(),
            );
        }
        assert!(
            start.elapsed() < Duration::from_secs(240),
            "campaign not done: {v}"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    for mut p in procs {
        let _ = p.wait();
    }
    let v: serde_json::Value = ureq::get(&format!("{url}/api/v1/findings?limit=1000&sort=id"))
        .call()
        .unwrap()
        .into_json()
        .unwrap();
    let mut found: Vec<(String, u64)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                format!("{} {} {}", f["variant"], f["class"], f["operand_classes"]),
                f["count"].as_u64().unwrap(),
            )
        })
        .collect();
    found.sort();
    server.kill().unwrap();
    server.wait().unwrap();
    (found, campaign)
}

/// A token in the PostgreSQL database `db_url`, then `semfuzz serve` on it: the server, its URL
/// and the token.
fn serve_postgres(db_url: &str) -> (Child, String, String) {
    let tok = token_in(&["--database-url".as_ref(), db_url.as_ref()]);
    let mut serve = semfuzz();
    serve.args(["serve", "--listen", "127.0.0.1:0", "--database-url", db_url]);
    let (server, url) = started(serve);
    (server, url, tok)
}

/// Cases per unit of the distributed test: long enough that the kill lands mid-unit.
const CASES_PER_UNIT: i64 = 4_000_000;

/// Real units of a real campaign (the host's `min.NaN`/`max.NaN`, which have findings) on
/// three worker processes, one killed mid-unit: each unit is done exactly once (the cases add
/// up to units × variants per unit × cases per unit; a second completion would add more), and the findings are
/// exactly those of one worker running the same campaign alone (same seeds): none lost to
/// the killed worker, none doubled by the unit it left behind.
#[test]
fn three_worker_processes_on_postgres_one_killed() {
    let Some(pg) = pg::pg() else { return };
    let (found, campaign) = distributed_run(&pg.fresh_db(), 3, Some(Duration::from_millis(700)));
    // Two texts (min.NaN.f32, max.NaN.f32) × 3 rounds; each unit runs both variants its text
    // spells (two and three sources) with CASES_PER_UNIT cases each.
    let units = campaign["units"].as_i64().unwrap();
    assert_eq!(units, 6, "{campaign}");
    assert_eq!(
        campaign["cases"],
        serde_json::json!(units * 2 * CASES_PER_UNIT),
        "every unit done exactly once: {campaign}"
    );
    assert!(!found.is_empty(), "the host's min/max.NaN have findings");
    let (alone, _) = distributed_run(&pg.fresh_db(), 1, None);
    assert_eq!(found, alone, "findings lost or doubled");
}

/// Runs `semfuzz ARGS --report URL --token T --spool SPOOL` and checks it succeeded.
fn reporting(args: &[&str], url: &str, tok: &str, spool: &Path) -> String {
    let out = semfuzz()
        .args(args)
        .args(["--report", url, "--token", tok, "--spool"])
        .arg(spool)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{args:?}: {err}");
    err
}

/// Signature → count of the service's findings.
fn stored_counts(url: &str) -> std::collections::BTreeMap<String, u64> {
    let v = get_json(&format!("{url}/api/v1/findings?limit=1000"));
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["signature"].as_str().unwrap().to_string(),
                f["count"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// `semfuzz fuzz --report` with the service down spools its findings; once the service is
/// up, the next reporting run resends them, and a batch resent again (its answer lost on the
/// way back) is not counted twice. `semfuzz prove --report` posts its verdicts.
#[test]
fn reports_spool_while_the_service_is_down_and_are_resent_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let tok = token(&db);
    let listen = {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        probe.local_addr().unwrap().to_string()
    };
    let url = format!("http://{listen}");
    let spool = dir.path().join("spool.jsonl");
    let json = dir.path().join("min.json");
    let min_f32 = [
        "fuzz",
        "--backend",
        "host",
        "--instr",
        "min.f32",
        "--cases",
        "20000",
        "--json",
        json.to_str().unwrap(),
    ];
    let err = reporting(&min_f32, &url, &tok, &spool);
    assert!(err.contains("waiting in"), "{err}");
    let spooled = std::fs::read_to_string(&spool).unwrap();
    assert!(spooled.lines().count() >= 1, "{spooled}");
    let found: std::collections::BTreeMap<String, u64> = std::fs::read_to_string(&json)
        .unwrap()
        .lines()
        .map(|l| {
            let f: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                f["signature"].as_str().unwrap().to_string(),
                f["count"].as_u64().unwrap(),
            )
        })
        .collect();
    assert!(!found.is_empty(), "host's min.f32 has known findings");

    let (mut server, _) = serve_at(&db, &listen, &[]);
    // add.rn.f32 has no findings on the host: this run only resends the spool.
    let add_f32 = [
        "fuzz",
        "--backend",
        "host",
        "--instr",
        "add.rn.f32",
        "--cases",
        "1000",
    ];
    reporting(&add_f32, &url, &tok, &spool);
    assert!(!spool.exists(), "the spool is emptied once resent");
    assert_eq!(stored_counts(&url), found);

    // The same batches again, as after answers lost on the way back: stored once already.
    std::fs::write(&spool, &spooled).unwrap();
    reporting(&add_f32, &url, &tok, &spool);
    assert!(!spool.exists());
    assert_eq!(
        stored_counts(&url),
        found,
        "a resent batch was counted twice"
    );

    let rules = dir.path().join("two.rules");
    std::fs::write(
        &rules,
        "name: add-commutes\nexpect: proved\n  add.rn.f32 d, a, b\n=>\n  add.rn.f32 d, b, a\n\n\
         name: sub-does-not-commute\nexpect: counterexample\n  sub.rn.f32 d, a, b\n=>\n  sub.rn.f32 d, b, a\n",
    )
    .unwrap();
    reporting(
        &["prove", "--no-cache", rules.to_str().unwrap()],
        &url,
        &tok,
        &spool,
    );
    let proofs = get_json(&format!("{url}/api/v1/proofs"));
    let mut verdicts: Vec<(String, String)> = proofs["proofs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["rule"].as_str().unwrap().to_string(),
                p["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    verdicts.sort();
    assert_eq!(
        verdicts,
        [
            ("add-commutes".to_string(), "proved".to_string()),
            (
                "sub-does-not-commute".to_string(),
                "counterexample".to_string()
            )
        ]
    );
    assert!(
        proofs["proofs"][0]["counterexample"]
            .as_str()
            .unwrap()
            .contains("a = "),
        "{proofs}"
    );
    signal_and_wait(&mut server, "-TERM");
}

/// `semfuzz validate-llc --report` posts every verdict, a counterexample with its bug report,
/// and the dashboard's page of that LLVM shows it.
#[test]
fn validate_llc_reports_its_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("llc.db");
    let tok = token(&db);
    while_serving(&db, &[], |url| {
        let out = semfuzz()
            .current_dir(dir.path())
            .args([
                "validate-llc",
                "--only",
                "fadd_f32,sitofp_bf16_i32",
                "--sm",
                "sm_70",
            ])
            .args(["--report", url, "--token", &tok])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(1),
            "a counterexample: {stdout}{stderr}"
        );
        assert!(stderr.contains("report: 1 batches posted"), "{stderr}");
        let stored = get_json(&format!("{url}/api/v1/llc-verdicts?limit=10"));
        let rows = stored["verdicts"].as_array().expect("a page of verdicts");
        assert_eq!(rows.len(), 2, "{stored}");
        let cex = rows
            .iter()
            .find(|r| r["function"] == "sitofp_bf16_i32")
            .expect("the counterexample was posted");
        assert_eq!(cex["verdict"], "counterexample");
        assert_eq!(cex["target"], "sm_70");
        assert!(cex["llvm"].as_str().unwrap().starts_with("22."), "{cex}");
        // The dashboard's bug report: the minimal module, the command with the LLVM version,
        // replayed; the same text as a reproducer's REPORT.md.
        let report = cex["report"].as_str().unwrap();
        for said in [
            "define bfloat @f(i32 %a)",
            "With LLVM 22.",
            "llc -O2 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_70 f.ll -o f.ptx",
            "the PTX semfuzz judged, byte for byte",
            "## Independent confirmation",
        ] {
            assert!(report.contains(said), "{said}: {report}");
        }
        let page = ureq::get(&format!("{url}/llc/{}", cex["llvm"].as_str().unwrap()))
            .call()
            .unwrap()
            .into_string()
            .unwrap();
        assert!(
            page.contains("sitofp_bf16_i32") && page.contains("fadd_f32"),
            "{page}"
        );
    });
}

/// `validate-llc --campaign` shares the catalogue out as work units: after a worker died
/// holding one (its lease runs out), two worker processes with llvmlite prove each unit once
/// through the path `validate-llc` takes, and the verdicts fill the LLVM version's matrix.
#[test]
fn validate_llc_campaign_runs_on_workers() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("llc-campaign.db");
    let tok = token(&db);
    while_serving(&db, &[], |url| llc_campaign(url, &tok, dir.path()));
}

/// [`validate_llc_campaign_runs_on_workers`] on PostgreSQL.
#[test]
fn validate_llc_campaign_runs_on_workers_on_postgres() {
    let Some(pg) = pg::pg() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (mut server, url, tok) = serve_postgres(&pg.fresh_db());
    llc_campaign(&url, &tok, dir.path());
    signal_and_wait(&mut server, "-INT");
}

/// Creates the campaign on the service at `url`, leases a unit as a worker that dies, runs two
/// worker processes in `dir` until they are idle, and checks the units and the verdicts.
fn llc_campaign(url: &str, tok: &str, dir: &Path) {
    let out = semfuzz()
        .current_dir(dir)
        .args(["validate-llc", "--campaign", "--only", "fadd_f32,fmul_f64"])
        .args(["--sm", "sm_70", "--report", url, "--token", tok])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(": 2 units (2 functions × 1 targets × llvmlite)"),
        "{stdout}"
    );
    let id: i64 = stdout
        .trim_start_matches("campaign ")
        .split(':')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{stdout}"));
    let auth = format!("Bearer {tok}");
    let dead: serde_json::Value = ureq::post(&format!("{url}/api/v1/units/lease"))
        .set("authorization", &auth)
        .send_json(serde_json::json!({"worker": "dies", "llcs": ["llvmlite"], "lease_seconds": 1}))
        .unwrap()
        .into_json()
        .unwrap();
    let dead = &dead["leases"][0];
    assert_eq!(dead["target"], "sm_70", "{dead}");
    std::thread::sleep(Duration::from_millis(1100));
    let workers: Vec<Child> = (0..2)
        .map(|_| {
            semfuzz()
                .current_dir(dir)
                .args([
                    "worker", "--server", url, "--token", tok, "--llc", "llvmlite",
                ])
                .args(["--lease-seconds", "5", "--exit-when-idle"])
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut said = String::new();
    let mut units = 0;
    for w in workers {
        let out = w.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(out.status.success(), "{err}");
        units += err
            .lines()
            .filter_map(|l| {
                l.strip_prefix("semfuzz worker: ")?
                    .split(" units,")
                    .next()?
                    .parse::<u64>()
                    .ok()
            })
            .sum::<u64>();
        said.push_str(&err);
    }
    assert_eq!(units, 2, "each unit completed once: {said}");
    for f in ["fadd_f32 sm_70: proved", "fmul_f64 sm_70: proved"] {
        assert!(said.contains(f), "{said}");
    }
    let c = get_json(&format!("{url}/api/v1/campaigns/{id}"));
    assert_eq!(c["units_done"], 2, "{c}");
    let late = ureq::post(&format!("{url}/api/v1/units/{}/complete", dead["unit"]))
        .set("authorization", &auth)
        .send_json(
            serde_json::json!({"lease_token": dead["lease_token"], "cases": 0, "findings": []}),
        );
    assert!(
        matches!(late, Err(ureq::Error::Status(409, _))),
        "the dead worker's unit is done by another"
    );
    let stored = get_json(&format!("{url}/api/v1/llc-verdicts"));
    let rows = stored["verdicts"].as_array().unwrap();
    let mut cells: Vec<String> = rows
        .iter()
        .map(|r| format!("{} {} {}", r["function"], r["target"], r["verdict"]))
        .collect();
    cells.sort();
    assert_eq!(
        cells,
        [
            r#""fadd_f32" "sm_70" "proved""#,
            r#""fmul_f64" "sm_70" "proved""#
        ],
        "{stored}"
    );
    let llvm = rows[0]["llvm"].as_str().unwrap();
    assert!(llvm.starts_with("22."), "{stored}");
    let page = ureq::get(&format!("{url}/llc/{llvm}"))
        .call()
        .unwrap()
        .into_string()
        .unwrap();
    assert!(
        page.contains("fadd_f32") && page.contains("fmul_f64"),
        "{page}"
    );
}
