//! Storage: one [`Db`] over SQLite or PostgreSQL through sqlx's `Any` driver.
//!
//! Every statement is written once, in SQL both databases accept (`$N` parameters, `ON
//! CONFLICT`, `RETURNING`, `CASE`), and bound with parameters; the only statement that
//! differs is the work-unit lease, which adds `FOR UPDATE SKIP LOCKED` on PostgreSQL. SQLite
//! has one writer at a time, so writes on it go through one in-process lock (no
//! `SQLITE_BUSY` under concurrent requests); PostgreSQL writes run concurrently.

use crate::model::*;
use semfuzz_fuzz::Finding;
use sha2::{Digest, Sha256};
use sqlx::any::{AnyPoolOptions, AnyRow};
use sqlx::{Any, AnyPool, Executor, Row, Transaction};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::sync::Mutex;

/// What went wrong in storage, in words the API hands to the client.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The request's content is invalid; the text names the field.
    #[error("{0}")]
    Invalid(String),
    /// Nothing with that id.
    #[error("{0}")]
    NotFound(String),
    /// The request conflicts with the stored state (a lost lease).
    #[error("{0}")]
    Conflict(String),
    /// The database failed.
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    /// The migrations failed.
    #[error("migrating the database: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
}

/// Storage results.
pub type Result<T> = std::result::Result<T, Error>;

/// Which database a [`Db`] talks to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A SQLite file (WAL, foreign keys on).
    Sqlite,
    /// A PostgreSQL server.
    Postgres,
}

/// Where the database is: a SQLite file or a database URL.
#[derive(Clone, Debug)]
pub enum Target {
    /// A SQLite file, created if missing.
    Sqlite(std::path::PathBuf),
    /// `postgres://…` or `sqlite://…`.
    Url(String),
}

impl Target {
    /// The sqlx URL and the database kind.
    fn url(&self) -> Result<(String, Kind)> {
        match self {
            Target::Sqlite(path) => Ok((
                format!("sqlite://{}?mode=rwc", path.display()),
                Kind::Sqlite,
            )),
            Target::Url(url)
                if url.starts_with("postgres://") || url.starts_with("postgresql://") =>
            {
                Ok((url.clone(), Kind::Postgres))
            }
            Target::Url(url) if url.starts_with("sqlite:") => Ok((url.clone(), Kind::Sqlite)),
            Target::Url(url) => Err(Error::Invalid(format!(
                "unsupported database URL `{url}`: expected postgres://… or sqlite://…"
            ))),
        }
    }
}

/// The service's database.
#[derive(Clone)]
pub struct Db {
    pool: AnyPool,
    kind: Kind,
    /// SQLite's single writer, taken by every write transaction; `None` on PostgreSQL.
    write: Option<Arc<Mutex<()>>>,
    /// Hashes of tokens found valid. Tokens are never revoked, so one seen valid stays
    /// valid, and each authenticated request saves a round trip to the database.
    valid_tokens: Arc<std::sync::RwLock<std::collections::HashSet<String>>>,
}

/// Statuses a finding can have; `new` and `confirmed` are open.
pub const STATUSES: [&str; 5] = ["new", "confirmed", "spec-bug", "backend-bug", "wont-fix"];

/// Operands a posted finding may have (its `inputs` and their `operand_classes`).
pub const MAX_OPERANDS: usize = 16;

/// Statuses a campaign can have; workers lease units of `running` campaigns only.
pub const CAMPAIGN_STATUSES: [&str; 3] = ["running", "paused", "stopped"];

/// Kinds a campaign can have: its units run a variant on a backend (`fuzz`), or prove an IR
/// function at a target under an LLVM compiler (`validate-llc`).
pub const CAMPAIGN_KINDS: [&str; 2] = ["fuzz", "validate-llc"];

/// Verdicts a stored proof can have (as `semfuzz prove` prints them).
pub const VERDICTS: [&str; 3] = ["proved", "counterexample", "unknown"];

/// Verdicts a stored `semfuzz validate-llc` result can have (as it prints them).
pub const LLC_VERDICTS: [&str; 4] = ["proved", "counterexample", "unknown", "unsupported"];

/// The columns `GET /api/v1/findings?sort=` takes (prefix `-` for descending). The OpenAPI
/// document lists them from here, so the schema and the check cannot drift apart.
pub const SORT_KEYS: [&str; 8] = [
    "last_seen",
    "first_seen",
    "count",
    "variant",
    "backend",
    "class",
    "status",
    "id",
];

/// RFC 3339 of now, seconds, UTC.
pub fn now_text() -> String {
    humantime::format_rfc3339_seconds(SystemTime::now()).to_string()
}

/// Unix milliseconds of now.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// SHA-256 of a token, hex: what the database keeps instead of the token.
fn token_hash(token: &str) -> String {
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `n` random bytes as hex.
fn random_hex(n: usize) -> Result<String> {
    let mut bytes = vec![0u8; n];
    getrandom::getrandom(&mut bytes)
        .map_err(|e| Error::Invalid(format!("no randomness from the operating system: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// A variant glob (`*` any run, `?` one character) as a case-insensitive SQL `LIKE`
/// pattern with `\` escaping `%`, `_` and `\`.
fn like_pattern(glob: &str) -> String {
    let mut out = String::new();
    for c in glob.to_lowercase().chars() {
        match c {
            '*' => out.push('%'),
            '?' => out.push('_'),
            '%' | '_' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// True when `text` matches `glob` (`*`, `?`), case-insensitively. Linear in each: on a
/// mismatch only the last `*` takes one more character (a recursive matcher backtracks into
/// every `*`, exponential in their number, and the glob is request input).
pub fn glob_match(glob: &str, text: &str) -> bool {
    let g: Vec<char> = glob.to_lowercase().chars().collect();
    let t: Vec<char> = text.to_lowercase().chars().collect();
    let (mut gi, mut ti) = (0, 0);
    // The last `*` seen, and the text position it currently stands for the end of.
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        match g.get(gi) {
            Some('*') => {
                star = Some((gi, ti));
                gi += 1;
            }
            Some(&c) if c == '?' || c == t[ti] => {
                gi += 1;
                ti += 1;
            }
            _ => match star {
                Some((sg, st)) => {
                    gi = sg + 1;
                    ti = st + 1;
                    star = Some((sg, st + 1));
                }
                None => return false,
            },
        }
    }
    g[gi.min(g.len())..].iter().all(|&c| c == '*')
}

/// The opcode of a variant's text: `fma` for `fma.rn.f32`, `HMUL2` for `HMUL2.FTZ`.
pub fn family(variant: &str) -> &str {
    variant.split(['.', ' ']).next().unwrap_or(variant)
}

/// Checks a text field's length in characters (Unicode code points), the unit of JSON
/// Schema's `maxLength`, so that the OpenAPI document states the limit the server applies.
fn bounded(field: &str, value: &str, max: usize) -> Result<()> {
    if value.chars().count() > max {
        return Err(Error::Invalid(format!(
            "{field}: longer than {max} characters"
        )));
    }
    Ok(())
}

/// The most cases one completion may report: the most a unit can have (`cases_per_unit`), so
/// that no sum of them over a campaign's life overflows.
const MAX_CASES_PER_UNIT: i64 = 1_000_000_000;

/// Cases of a continuous campaign's first-pass unit: one chunk of the generators (the
/// boundary generator's edges of every operand are all in it), enough for the host's
/// `min`/`max` or LLVM's folding bugs to show, small enough that a pass over every
/// (variant, backend) pair takes minutes. Later units double a pair's cases, up to the
/// campaign's `cases_per_unit`.
pub const FIRST_PASS_CASES: i64 = 1024;

/// The priority every successor unit starts from: above any unit created with the campaign
/// (at most 200,000 units × 1,000 rounds), so every pair is run once (each round) before
/// any successor.
const LATER: i64 = 1 << 40;

/// How much more often a pair that found something runs than one that did not: its
/// successor's priority counts a quarter of its cases.
const FOUND_WEIGHT: i64 = 4;

/// The priority of a continuous campaign's next unit of a pair that has run `cases` cases
/// and reported `findings` occurrences: fewer cases first, pairs with findings favoured.
pub fn successor_priority(cases: i64, findings: i64) -> i64 {
    let weighted = if findings > 0 {
        cases / FOUND_WEIGHT
    } else {
        cases
    };
    LATER.saturating_add(weighted.max(0))
}

/// The cases of a continuous campaign's next unit of a pair that has run `cases`: as many
/// again (each pass deepens), at least [`FIRST_PASS_CASES`], at most `cases_per_unit`.
pub fn successor_cases(cases: i64, cases_per_unit: i64) -> i64 {
    cases.max(FIRST_PASS_CASES).min(cases_per_unit)
}

/// The order of a campaign's first pass: the first variant of every family (families in
/// catalogue order), then the second of every family that has one, and so on, so that the
/// first units touch every family before any family's second variant.
pub fn interleaved<'a>(variants: &[&'a String]) -> Vec<&'a String> {
    let mut families: Vec<(&str, Vec<&'a String>)> = Vec::new();
    for &v in variants {
        let f = family(v);
        match families.iter_mut().find(|(name, _)| *name == f) {
            Some((_, members)) => members.push(v),
            None => families.push((f, vec![v])),
        }
    }
    let deepest = families.iter().map(|(_, m)| m.len()).max().unwrap_or(0);
    (0..deepest)
        .flat_map(|r| families.iter().filter_map(move |(_, m)| m.get(r).copied()))
        .collect()
}

/// SQL for `a + b` of two non-negative BIGINTs that stops at the largest one instead of
/// overflowing: SQLite would turn the sum into a REAL that no longer reads back as an
/// integer (the finding then fails every read), PostgreSQL would refuse it. Counts grow by
/// every repeated post, each up to 2^62, so a few posts of a large count reach it.
fn saturating_sum(a: &str, b: &str) -> String {
    format!(
        "CASE WHEN {a} > {max} - {b} THEN {max} ELSE {a} + {b} END",
        max = i64::MAX
    )
}

/// Parses a hex bit pattern (`0x3f800000`), as `semfuzz check` reads it.
fn parse_hex(field: &str, s: &str) -> Result<u64> {
    s.strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .and_then(|h| u64::from_str_radix(h, 16).ok())
        .ok_or_else(|| {
            Error::Invalid(format!(
                "{field}: `{s}` is not a hex bit pattern like 0x3f800000"
            ))
        })
}

/// Normalises an RFC 3339 time to `YYYY-MM-DDTHH:MM:SSZ` so text order is time order.
fn parse_time(field: &str, s: &str) -> Result<String> {
    humantime::parse_rfc3339_weak(s)
        .map(|t| humantime::format_rfc3339_seconds(t).to_string())
        .map_err(|e| Error::Invalid(format!("{field}: `{s}` is not an RFC 3339 time ({e})")))
}

/// A finding checked and normalised for storage.
struct Checked<'a> {
    f: &'a Finding,
    operand_classes: String,
    inputs: String,
    example_size: i64,
    count: i64,
    first_seen: String,
    last_seen: String,
}

/// Checks one posted finding; errors name `findings[i].field`.
fn check_finding(i: usize, f: &Finding) -> Result<Checked<'_>> {
    let at = |field: &str| format!("findings[{i}].{field}");
    for (field, value, max) in [
        ("variant", &f.variant, 200),
        ("backend", &f.backend, 200),
        ("backend_version", &f.backend_version, 200),
        ("device", &f.device, 500),
        ("class", &f.class, 100),
        ("part", &f.part, 100),
        ("signature", &f.signature, 128),
        ("expected", &f.expected, 4000),
        ("detail", &f.detail, 4000),
    ] {
        bounded(&at(field), value, max)?;
    }
    for (field, value) in [
        ("variant", &f.variant),
        ("backend", &f.backend),
        ("signature", &f.signature),
        ("class", &f.class),
    ] {
        if value.trim().is_empty() {
            return Err(Error::Invalid(format!("{}: must not be empty", at(field))));
        }
    }
    if f.inputs.len() > MAX_OPERANDS || f.operand_classes.len() > MAX_OPERANDS {
        return Err(Error::Invalid(format!(
            "{}: more than {MAX_OPERANDS} operands",
            at("inputs")
        )));
    }
    let mut values = Vec::with_capacity(f.inputs.len());
    for (j, s) in f.inputs.iter().enumerate() {
        values.push(parse_hex(&at(&format!("inputs[{j}]")), s)?);
    }
    for (j, c) in f.operand_classes.iter().enumerate() {
        bounded(&at(&format!("operand_classes[{j}]")), c, 100)?;
    }
    parse_hex(&at("actual"), &f.actual)?;
    if f.count == 0 || f.count > i64::MAX as u64 / 2 {
        return Err(Error::Invalid(format!(
            "{}: must be between 1 and 2^62",
            at("count")
        )));
    }
    let first_seen = parse_time(&at("first_seen"), &f.first_seen)?;
    let last_seen = parse_time(&at("last_seen"), &f.last_seen)?;
    if last_seen < first_seen {
        return Err(Error::Invalid(format!(
            "{}: earlier than first_seen",
            at("last_seen")
        )));
    }
    Ok(Checked {
        f,
        operand_classes: serde_json::to_string(&f.operand_classes).unwrap_or_default(),
        inputs: serde_json::to_string(&f.inputs).unwrap_or_default(),
        example_size: semfuzz_fuzz::finding::example_size(&values) as i64,
        count: f.count as i64,
        first_seen,
        last_seen,
    })
}

const FINDING_COLUMNS: &str =
    "id, signature, variant, backend, backend_version, device, class, part, \
    operand_classes, inputs, expected, actual, detail, count, first_seen, last_seen, status, note";

fn stored_finding(row: &AnyRow) -> std::result::Result<StoredFinding, sqlx::Error> {
    let list = |col: &str| -> std::result::Result<Vec<String>, sqlx::Error> {
        let text: String = row.try_get(col)?;
        Ok(serde_json::from_str(&text).unwrap_or_default())
    };
    Ok(StoredFinding {
        id: row.try_get("id")?,
        status: row.try_get("status")?,
        note: row.try_get("note")?,
        finding: Finding {
            variant: row.try_get("variant")?,
            backend: row.try_get("backend")?,
            backend_version: row.try_get("backend_version")?,
            device: row.try_get("device")?,
            class: row.try_get("class")?,
            part: row.try_get("part")?,
            signature: row.try_get("signature")?,
            operand_classes: list("operand_classes")?,
            inputs: list("inputs")?,
            expected: row.try_get("expected")?,
            actual: row.try_get("actual")?,
            detail: row.try_get("detail")?,
            count: row.try_get::<i64, _>("count")?.max(0) as u64,
            first_seen: row.try_get("first_seen")?,
            last_seen: row.try_get("last_seen")?,
        },
    })
}

const CAMPAIGN_COLUMNS: &str = "c.id, c.name, c.kind, c.variants, c.backends, c.generator, c.cases_per_unit, \
    c.continuous, c.status, c.created, c.cases, c.findings, \
    (SELECT COUNT(*) FROM work_units u WHERE u.campaign_id = c.id) AS units, \
    (SELECT COUNT(*) FROM work_units u WHERE u.campaign_id = c.id AND u.status = 'done') AS units_done, \
    (SELECT COUNT(*) FROM work_units u WHERE u.campaign_id = c.id AND u.status = 'leased' AND u.lease_expires_ms >= $1) AS units_leased";

fn campaign(row: &AnyRow) -> std::result::Result<Campaign, sqlx::Error> {
    let backends: String = row.try_get("backends")?;
    Ok(Campaign {
        id: row.try_get("id")?,
        name: row.try_get("name")?,
        kind: row.try_get("kind")?,
        variants: row.try_get("variants")?,
        backends: serde_json::from_str(&backends).unwrap_or_default(),
        generator: row.try_get("generator")?,
        cases_per_unit: row.try_get("cases_per_unit")?,
        continuous: row.try_get::<i64, _>("continuous")? != 0,
        status: row.try_get("status")?,
        created: row.try_get("created")?,
        cases: row.try_get("cases")?,
        findings: row.try_get("findings")?,
        units: row.try_get("units")?,
        units_done: row.try_get("units_done")?,
        units_leased: row.try_get("units_leased")?,
    })
}

fn proof(row: &AnyRow) -> std::result::Result<Proof, sqlx::Error> {
    Ok(Proof {
        id: row.try_get("id")?,
        rule: row.try_get("rule")?,
        verdict: row.try_get("verdict")?,
        counterexample: row.try_get("counterexample")?,
        solver: row.try_get("solver")?,
        seconds: row.try_get("seconds")?,
        created: row.try_get("created")?,
    })
}

/// Every column of `llc_verdicts`, in [`LlcVerdict`]'s names.
const LLC_COLUMNS: &str = "id, llvm, compiler, function, target, verdict, detail, \
    counterexample, report, seconds, created";

/// [`LLC_COLUMNS`] with the Markdown report left empty: lists of verdicts do not show it, and
/// it is the one column that can be 100,000 characters.
const LLC_SUMMARY_COLUMNS: &str = "id, llvm, compiler, function, target, verdict, detail, \
    counterexample, '' AS report, seconds, created";

fn llc_verdict(row: &AnyRow) -> std::result::Result<LlcVerdict, sqlx::Error> {
    Ok(LlcVerdict {
        id: row.try_get("id")?,
        llvm: row.try_get("llvm")?,
        compiler: row.try_get("compiler")?,
        function: row.try_get("function")?,
        target: row.try_get("target")?,
        verdict: row.try_get("verdict")?,
        detail: row.try_get("detail")?,
        counterexample: row.try_get("counterexample")?,
        report: row.try_get("report")?,
        seconds: row.try_get("seconds")?,
        created: row.try_get("created")?,
    })
}

impl Db {
    /// Opens (creating a SQLite file if needed) and migrates the database.
    pub async fn open(target: &Target) -> Result<Db> {
        sqlx::any::install_default_drivers();
        let (url, kind) = target.url()?;
        let pool = AnyPoolOptions::new()
            .max_connections(if kind == Kind::Sqlite { 8 } else { 32 })
            .acquire_timeout(Duration::from_secs(30))
            .after_connect(move |conn, _| {
                Box::pin(async move {
                    if kind == Kind::Sqlite {
                        conn.execute(
                            "PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; \
                             PRAGMA synchronous = FULL; PRAGMA busy_timeout = 10000;",
                        )
                        .await?;
                    }
                    Ok(())
                })
            })
            .connect(&url)
            .await?;
        match kind {
            Kind::Sqlite => sqlx::migrate!("../migrations/sqlite").run(&pool).await?,
            Kind::Postgres => sqlx::migrate!("../migrations/postgres").run(&pool).await?,
        }
        Ok(Db {
            pool,
            kind,
            write: (kind == Kind::Sqlite).then(|| Arc::new(Mutex::new(()))),
            valid_tokens: Default::default(),
        })
    }

    /// Which database this is.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// Closes the pool, waiting for connections to finish.
    pub async fn close(&self) {
        self.pool.close().await;
    }

    /// Starts a write transaction, holding SQLite's writer lock for its life.
    async fn write(
        &self,
    ) -> Result<(
        Option<tokio::sync::OwnedMutexGuard<()>>,
        Transaction<'static, Any>,
    )> {
        let guard = match &self.write {
            Some(m) => Some(m.clone().lock_owned().await),
            None => None,
        };
        Ok((guard, self.pool.begin().await?))
    }

    /// Creates an API token, returning it; only its hash is stored.
    pub async fn create_token(&self) -> Result<String> {
        let token = format!("sft_{}", random_hex(24)?);
        let (_g, mut tx) = self.write().await?;
        sqlx::query("INSERT INTO tokens (hash, created) VALUES ($1, $2)")
            .bind(token_hash(&token))
            .bind(now_text())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(token)
    }

    /// True when `token` was created by [`Db::create_token`].
    pub async fn token_valid(&self, token: &str) -> Result<bool> {
        let hash = token_hash(token);
        if self.known_token(&hash) {
            return Ok(true);
        }
        let row = sqlx::query("SELECT id FROM tokens WHERE hash = $1")
            .bind(&hash)
            .fetch_optional(&self.pool)
            .await?;
        if row.is_some() {
            if let Ok(mut known) = self.valid_tokens.write() {
                known.insert(hash);
            }
        }
        Ok(row.is_some())
    }

    fn known_token(&self, hash: &str) -> bool {
        self.valid_tokens
            .read()
            .is_ok_and(|known| known.contains(hash))
    }

    /// Stores a batch of findings, merging each into the one with its signature: counts add,
    /// first/last seen widen, the smaller example stays. With `key`, a batch already stored
    /// under that key changes nothing (`duplicate: true`).
    pub async fn ingest(
        &self,
        findings: &[Finding],
        key: Option<&str>,
        reporter: &str,
    ) -> Result<IngestResult> {
        let checked: Vec<Checked> = findings
            .iter()
            .enumerate()
            .map(|(i, f)| check_finding(i, f))
            .collect::<Result<_>>()?;
        let (_g, mut tx) = self.write().await?;
        if !claim_batch_key(&mut tx, key, findings.len()).await? {
            tx.rollback().await?;
            return Ok(IngestResult {
                accepted: 0,
                ids: vec![],
                duplicate: true,
            });
        }
        let ids = upsert_findings(&mut tx, &checked, reporter).await?;
        tx.commit().await?;
        Ok(IngestResult {
            accepted: ids.len(),
            ids,
            duplicate: false,
        })
    }

    /// Findings matching `q`, newest first unless `q.sort` says otherwise, and how many match.
    pub async fn list_findings(&self, q: &FindingQuery) -> Result<(Vec<StoredFinding>, i64)> {
        let mut conds = Vec::new();
        let mut args: Vec<String> = Vec::new();
        if let Some(v) = q.variant.as_deref().filter(|s| !s.is_empty()) {
            args.push(like_pattern(v));
            conds.push(format!("LOWER(variant) LIKE ${} ESCAPE '\\'", args.len()));
        }
        for (col, val) in [
            ("backend", &q.backend),
            ("class", &q.class),
            ("status", &q.status),
        ] {
            if let Some(v) = val.as_deref().filter(|s| !s.is_empty()) {
                if col == "status" && v == "open" {
                    conds.push("status IN ('new', 'confirmed')".to_string());
                    continue;
                }
                args.push(v.to_string());
                conds.push(format!("{col} = ${}", args.len()));
            }
        }
        let where_ = if conds.is_empty() {
            String::new()
        } else {
            format!("WHERE {}", conds.join(" AND "))
        };
        let (col, desc) = sort_column(q.sort.as_deref())?;
        let limit = q.limit.unwrap_or(100);
        if !(1..=1000).contains(&limit) {
            return Err(Error::Invalid("limit: must be between 1 and 1000".into()));
        }
        let offset = q.offset.unwrap_or(0);
        if offset < 0 {
            return Err(Error::Invalid("offset: must not be negative".into()));
        }
        let sql = format!(
            "SELECT {FINDING_COLUMNS} FROM findings {where_} ORDER BY {col} {}, id {} LIMIT {limit} OFFSET {offset}",
            if desc { "DESC" } else { "ASC" },
            if desc { "DESC" } else { "ASC" },
        );
        let mut query = sqlx::query(&sql);
        for a in &args {
            query = query.bind(a.clone());
        }
        let rows = query.fetch_all(&self.pool).await?;
        let findings = rows
            .iter()
            .map(stored_finding)
            .collect::<std::result::Result<_, _>>()?;
        let count_sql = format!("SELECT COUNT(*) AS n FROM findings {where_}");
        let mut query = sqlx::query(&count_sql);
        for a in &args {
            query = query.bind(a.clone());
        }
        let total: i64 = query.fetch_one(&self.pool).await?.try_get("n")?;
        Ok((findings, total))
    }

    /// One finding and its history.
    pub async fn finding(&self, id: i64) -> Result<(StoredFinding, Vec<Event>)> {
        let row = sqlx::query(&format!(
            "SELECT {FINDING_COLUMNS} FROM findings WHERE id = $1"
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        .ok_or_else(|| Error::NotFound(format!("no finding {id}")))?;
        let events = sqlx::query("SELECT at, kind, count, detail FROM finding_events WHERE finding_id = $1 ORDER BY id DESC LIMIT 200")
            .bind(id)
            .fetch_all(&self.pool)
            .await?
            .iter()
            .map(|r| {
                Ok(Event { at: r.try_get("at")?, kind: r.try_get("kind")?, count: r.try_get("count")?, detail: r.try_get("detail")? })
            })
            .collect::<std::result::Result<_, sqlx::Error>>()?;
        Ok((stored_finding(&row)?, events))
    }

    /// Sets a finding's status and/or note, recording the change in its history.
    pub async fn triage(&self, id: i64, patch: &FindingPatch) -> Result<StoredFinding> {
        if let Some(s) = &patch.status {
            if !STATUSES.contains(&s.as_str()) {
                return Err(Error::Invalid(format!(
                    "status: `{s}` is not one of {}",
                    STATUSES.join(", ")
                )));
            }
        }
        if let Some(n) = &patch.note {
            bounded("note", n, 10_000)?;
        }
        let (_g, mut tx) = self.write().await?;
        let changed = sqlx::query("UPDATE findings SET status = COALESCE($1, status), note = COALESCE($2, note) WHERE id = $3")
            .bind(patch.status.clone())
            .bind(patch.note.clone())
            .bind(id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if changed == 0 {
            return Err(Error::NotFound(format!("no finding {id}")));
        }
        let mut what = Vec::new();
        if let Some(s) = &patch.status {
            what.push(format!("status: {s}"));
        }
        if let Some(n) = &patch.note {
            what.push(format!("note: {n}"));
        }
        sqlx::query("INSERT INTO finding_events (finding_id, at, kind, count, detail) VALUES ($1, $2, 'triage', 0, $3)")
            .bind(id)
            .bind(now_text())
            .bind(what.join("; "))
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(self.finding(id).await?.0)
    }

    /// Open findings (`new`, `confirmed`) and all findings per (variant, backend).
    pub async fn matrix_counts(&self) -> Result<Vec<(String, String, i64, i64)>> {
        let rows = sqlx::query(
            "SELECT variant, backend, \
             CAST(SUM(CASE WHEN status IN ('new', 'confirmed') THEN 1 ELSE 0 END) AS BIGINT) AS open, \
             COUNT(*) AS total FROM findings GROUP BY variant, backend",
        )
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok((
                    r.try_get("variant")?,
                    r.try_get("backend")?,
                    r.try_get("open")?,
                    r.try_get("total")?,
                ))
            })
            .collect::<std::result::Result<_, sqlx::Error>>()
            .map_err(Error::from)
    }

    /// The coverage matrix: per (family, backend), over every campaign, the distinct
    /// variants some campaign runs, those found unsupported, those tried, and cases run.
    pub async fn coverage(&self) -> Result<Vec<(String, String, CoverageCell)>> {
        let rows = sqlx::query(
            "SELECT family, backend, COUNT(DISTINCT variant) AS variants, \
             COUNT(DISTINCT CASE WHEN unsupported IS NOT NULL THEN variant END) AS unsupported, \
             COUNT(DISTINCT CASE WHEN unsupported IS NULL AND units > 0 THEN variant END) AS tried, \
             CAST(COALESCE(SUM(cases), 0) AS BIGINT) AS cases \
             FROM campaign_pairs GROUP BY family, backend",
        )
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok((
                    r.try_get("family")?,
                    r.try_get("backend")?,
                    CoverageCell {
                        variants: r.try_get("variants")?,
                        unsupported: r.try_get("unsupported")?,
                        tried: r.try_get("tried")?,
                        cases: r.try_get("cases")?,
                    },
                ))
            })
            .collect::<std::result::Result<_, sqlx::Error>>()
            .map_err(Error::from)
    }

    /// Where each backend of campaign `id` stands in its passes, with an estimate of when
    /// the current one ends from the units of that pass finished in the last ten minutes.
    pub async fn passes(&self, id: i64) -> Result<Vec<BackendPass>> {
        let rows = sqlx::query(
            "SELECT backend, COUNT(*) AS pairs, \
             CAST(SUM(CASE WHEN unsupported IS NOT NULL THEN 1 ELSE 0 END) AS BIGINT) AS unsupported, \
             MIN(CASE WHEN unsupported IS NULL THEN units END) AS pass \
             FROM campaign_pairs WHERE campaign_id = $1 GROUP BY backend ORDER BY backend",
        )
        .bind(id)
        .fetch_all(&self.pool)
        .await?;
        let window_ms = 10 * 60 * 1000;
        let now = SystemTime::now();
        let since = humantime::format_rfc3339_seconds(
            now.checked_sub(Duration::from_millis(window_ms))
                .unwrap_or(UNIX_EPOCH),
        )
        .to_string();
        let mut out = Vec::with_capacity(rows.len());
        for r in &rows {
            let backend: String = r.try_get("backend")?;
            let pass: Option<i64> = r.try_get("pass")?;
            let (pairs, unsupported): (i64, i64) = (r.try_get("pairs")?, r.try_get("unsupported")?);
            let (mut done, mut eta_seconds) = (0, None);
            if let Some(pass) = pass {
                done = sqlx::query(
                    "SELECT COUNT(*) AS n FROM campaign_pairs WHERE campaign_id = $1 AND backend = $2 \
                     AND unsupported IS NULL AND units > $3",
                )
                .bind(id)
                .bind(&backend)
                .bind(pass)
                .fetch_one(&self.pool)
                .await?
                .try_get("n")?;
                // Units that ran cases: the ones that say what the pass's rest will cost (a
                // unit the backend cannot run ends at once).
                let recent = sqlx::query(
                    "SELECT COUNT(*) AS n, MIN(completed) AS first FROM work_units WHERE campaign_id = $1 \
                     AND status = 'done' AND completed >= $2 AND backend = $3 AND pass = $4 AND done_cases > 0",
                )
                .bind(id)
                .bind(&since)
                .bind(&backend)
                .bind(pass)
                .fetch_one(&self.pool)
                .await?;
                let n: i64 = recent.try_get("n")?;
                let first: Option<String> = recent.try_get("first")?;
                // In the first pass some of the pairs left will turn out unsupported, in the
                // proportion found so far.
                let left = pairs - unsupported - done;
                let runnable = if pass == 0 && done + unsupported > 0 {
                    done as f64 / (done + unsupported) as f64
                } else {
                    1.0
                };
                if let (true, Some(first)) = (n >= 2, first) {
                    let elapsed = humantime::parse_rfc3339(&first)
                        .ok()
                        .and_then(|t| now.duration_since(t).ok())
                        .map_or(0.0, |d| d.as_secs_f64())
                        .max(1.0);
                    eta_seconds = Some((left as f64 * runnable * elapsed / n as f64).ceil() as i64);
                }
            }
            out.push(BackendPass {
                backend,
                pairs,
                unsupported,
                pass,
                done,
                left: if pass.is_some() {
                    pairs - unsupported - done
                } else {
                    0
                },
                eta_seconds,
            });
        }
        Ok(out)
    }

    /// Creates a campaign and its work units: `rounds` units of `cases_per_unit` cases for
    /// each matching variant × backend. `catalogue` is every variant's text.
    pub async fn create_campaign(&self, c: &NewCampaign, catalogue: &[String]) -> Result<Campaign> {
        bounded("name", &c.name, 200)?;
        bounded("variants", &c.variants, 200)?;
        bounded("generator", &c.generator, 100)?;
        // A text names every variant spelled so (`min.f32` with two or three sources): one
        // pair, whose unit runs them all.
        let mut seen = std::collections::HashSet::new();
        let variants: Vec<&String> = catalogue
            .iter()
            .filter(|v| glob_match(&c.variants, v) && seen.insert(v.as_str()))
            .collect();
        if variants.is_empty() {
            return Err(Error::Invalid(format!(
                "variants: `{}` matches no variant (see `semfuzz list`)",
                c.variants
            )));
        }
        if c.backends.is_empty()
            || c.backends
                .iter()
                .any(|b| b.trim().is_empty() || b.chars().count() > 200)
        {
            return Err(Error::Invalid(
                "backends: give one or more backend names, e.g. [\"host\"]".into(),
            ));
        }
        c.generator
            .parse::<semfuzz_fuzz::GeneratorKind>()
            .map_err(|e| Error::Invalid(format!("generator: {e}")))?;
        let rounds = c.rounds.unwrap_or(1);
        let cases = c.cases_per_unit.unwrap_or(100_000);
        if !(1..=1_000).contains(&rounds) || !(1..=MAX_CASES_PER_UNIT).contains(&cases) {
            return Err(Error::Invalid(
                "rounds: 1..=1000 and cases_per_unit: 1..=10^9".into(),
            ));
        }
        let units = variants.len() * c.backends.len() * rounds as usize;
        if units > 200_000 {
            return Err(Error::Invalid(format!(
                "the campaign would have {units} work units; at most 200000"
            )));
        }
        let (_g, mut tx) = self.write().await?;
        let id: i64 = sqlx::query(
            "INSERT INTO campaigns (name, variants, backends, generator, cases_per_unit, continuous, status, created) \
             VALUES ($1, $2, $3, $4, $5, $6, 'running', $7) RETURNING id",
        )
        .bind(&c.name)
        .bind(&c.variants)
        .bind(serde_json::to_string(&c.backends).unwrap_or_default())
        .bind(&c.generator)
        .bind(cases)
        .bind(c.continuous as i64)
        .bind(now_text())
        .fetch_one(&mut *tx)
        .await?
        .try_get("id")?;
        // Wide before deep: each round runs every pair once, families interleaved and each
        // variant on every backend in turn; a continuous campaign's first round is small.
        let order = interleaved(&variants);
        // A backend named twice is one backend: one pair per variant.
        let mut named = std::collections::HashSet::new();
        let backends: Vec<&String> = c.backends.iter().filter(|b| named.insert(*b)).collect();
        let pairs: Vec<(&String, &String)> = order
            .iter()
            .flat_map(|&v| backends.iter().map(move |&b| (v, b)))
            .collect();
        insert_pairs(&mut tx, id, &pairs).await?;
        let n = pairs.len() as i64;
        let mut units = Vec::with_capacity(pairs.len() * rounds as usize);
        for round in 0..rounds {
            let size = if c.continuous && round == 0 {
                cases.min(FIRST_PASS_CASES)
            } else {
                cases
            };
            for (k, &(v, b)) in pairs.iter().enumerate() {
                units.push(NewUnit {
                    variant: v,
                    backend: b,
                    target: None,
                    seed: unit_seed(id, round),
                    cases: size,
                    priority: round * n + k as i64,
                    pass: round,
                });
            }
        }
        insert_units(&mut tx, id, &units).await?;
        tx.commit().await?;
        self.campaign(id).await
    }

    /// Creates a `validate-llc` campaign: one unit per function × target × LLVM compiler,
    /// functions outermost, so that a function's row of the matrix fills before the next.
    pub async fn create_llc_campaign(&self, c: &NewLlcCampaign) -> Result<Campaign> {
        bounded("name", &c.name, 200)?;
        let distinct = |field: &str, names: &[String], max: usize| -> Result<Vec<String>> {
            let mut seen = std::collections::HashSet::new();
            for (i, n) in names.iter().enumerate() {
                bounded(&format!("{field}[{i}]"), n, max)?;
                // Each names a row, column or page of the dashboard, or a compiler to find.
                if n.trim().is_empty() {
                    return Err(Error::Invalid(format!("{field}[{i}]: must not be empty")));
                }
            }
            let names: Vec<String> = names.iter().filter(|n| seen.insert(*n)).cloned().collect();
            if names.is_empty() {
                return Err(Error::Invalid(format!("{field}: give one or more")));
            }
            Ok(names)
        };
        // The limits of a verdict's function and target, and of a campaign's backend.
        let functions = distinct("functions", &c.functions, 500)?;
        let targets = distinct("targets", &c.targets, 50)?;
        let llcs = distinct("llcs", &c.llcs, 200)?;
        let n = functions.len() * targets.len() * llcs.len();
        if n > 200_000 {
            return Err(Error::Invalid(format!(
                "the campaign would have {n} work units; at most 200000"
            )));
        }
        // What the campaign list shows in its variants column: the functions, or how many.
        let chosen = if functions.len() <= 5 {
            functions.join(", ")
        } else {
            format!("{} functions", functions.len())
        };
        let (_g, mut tx) = self.write().await?;
        let id: i64 = sqlx::query(
            "INSERT INTO campaigns (name, kind, variants, backends, generator, cases_per_unit, continuous, status, created) \
             VALUES ($1, 'validate-llc', $2, $3, 'validate-llc', 1, 0, 'running', $4) RETURNING id",
        )
        .bind(&c.name)
        .bind(format!("{chosen} at {}", targets.join(", ")))
        .bind(serde_json::to_string(&llcs).unwrap_or_default())
        .bind(now_text())
        .fetch_one(&mut *tx)
        .await?
        .try_get("id")?;
        let mut units = Vec::with_capacity(n);
        for f in &functions {
            for t in &targets {
                for l in &llcs {
                    units.push(NewUnit {
                        variant: f,
                        backend: l,
                        target: Some(t),
                        seed: 0,
                        cases: 1,
                        priority: units.len() as i64,
                        pass: 0,
                    });
                }
            }
        }
        insert_units(&mut tx, id, &units).await?;
        tx.commit().await?;
        self.campaign(id).await
    }

    /// Every campaign with its progress, newest first.
    pub async fn campaigns(&self) -> Result<Vec<Campaign>> {
        let rows = sqlx::query(&format!(
            "SELECT {CAMPAIGN_COLUMNS} FROM campaigns c ORDER BY c.id DESC"
        ))
        .bind(now_ms())
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .iter()
            .map(campaign)
            .collect::<std::result::Result<_, _>>()?)
    }

    /// One campaign with its progress.
    pub async fn campaign(&self, id: i64) -> Result<Campaign> {
        let row = sqlx::query(&format!(
            "SELECT {CAMPAIGN_COLUMNS} FROM campaigns c WHERE c.id = $2"
        ))
        .bind(now_ms())
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        .ok_or_else(|| Error::NotFound(format!("no campaign {id}")))?;
        Ok(campaign(&row)?)
    }

    /// Cases done per minute over a campaign's life: (Unix minute, cases).
    pub async fn throughput(&self, id: i64) -> Result<Vec<Sample>> {
        let rows = sqlx::query(
            "SELECT at_ms / 60000 AS minute, CAST(SUM(cases) AS BIGINT) AS cases FROM campaign_samples \
             WHERE campaign_id = $1 GROUP BY at_ms / 60000 ORDER BY minute",
        )
        .bind(id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(Sample {
                    minute: r.try_get("minute")?,
                    cases: r.try_get("cases")?,
                })
            })
            .collect::<std::result::Result<_, sqlx::Error>>()
            .map_err(Error::from)
    }

    /// Sets a campaign's status (`running`, `paused`, `stopped`).
    pub async fn set_campaign_status(&self, id: i64, status: &str) -> Result<Campaign> {
        if !CAMPAIGN_STATUSES.contains(&status) {
            return Err(Error::Invalid(format!(
                "status: `{status}` is not one of running, paused, stopped"
            )));
        }
        let (_g, mut tx) = self.write().await?;
        let n = sqlx::query("UPDATE campaigns SET status = $1 WHERE id = $2")
            .bind(status)
            .bind(id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if n == 0 {
            return Err(Error::NotFound(format!("no campaign {id}")));
        }
        tx.commit().await?;
        self.campaign(id).await
    }

    /// Leases up to `req.max` queued (or expired) units of running campaigns: fuzz units whose
    /// backend is one of `req.backends` (any when empty) and `validate-llc` units whose
    /// compiler is one of `req.llcs` (none when empty), lowest priority first: a campaign's
    /// passes in order, families and backends interleaved within each. On PostgreSQL concurrent leases skip each
    /// other's rows (`FOR UPDATE SKIP LOCKED`), so no unit goes to two workers.
    pub async fn lease(&self, req: &LeaseRequest) -> Result<Vec<Lease>> {
        let max = req.max.unwrap_or(1);
        let secs = req.lease_seconds.unwrap_or(60);
        if !(1..=100).contains(&max) || !(1..=3600).contains(&secs) {
            return Err(Error::Invalid(
                "max: 1..=100 and lease_seconds: 1..=3600".into(),
            ));
        }
        bounded("worker", &req.worker, 200)?;
        if req.backends.len() > 50 || req.llcs.len() > 50 {
            return Err(Error::Invalid("backends, llcs: at most 50 each".into()));
        }
        let now = now_ms();
        let expires = now + secs * 1000;
        let token = random_hex(16)?;
        // Parameters: $1 lease token, $2 worker, $3 expiry, then (PostgreSQL) $4 now, then
        // the backends, then the compilers.
        let first_backend = if self.kind == Kind::Postgres { 5 } else { 4 };
        let one_of = |first: usize, n: usize| {
            let ps: Vec<String> = (first..first + n).map(|i| format!("${i}")).collect();
            format!("backend IN ({})", ps.join(", "))
        };
        // A fuzz unit has no target; a worker without the compiler of a validate-llc unit
        // leaves it to one that has it.
        let mut fuzz = "target IS NULL".to_string();
        if !req.backends.is_empty() {
            fuzz = format!("{fuzz} AND {}", one_of(first_backend, req.backends.len()));
        }
        let backend_cond = if req.llcs.is_empty() {
            format!("AND {fuzz}")
        } else {
            let llc = one_of(first_backend + req.backends.len(), req.llcs.len());
            format!("AND (({fuzz}) OR (target IS NOT NULL AND {llc}))")
        };
        let set = "UPDATE work_units SET status = 'leased', lease_token = $1, lease_owner = $2, \
             lease_expires_ms = $3, attempts = attempts + 1";
        let returning =
            "RETURNING id, campaign_id, variant, backend, target, seed, cases, attempts, priority, \
             (SELECT generator FROM campaigns c WHERE c.id = work_units.campaign_id) AS generator";
        let bind_all = |sql| {
            let mut q = sqlx::query(sql)
                .bind(&token)
                .bind(&req.worker)
                .bind(expires);
            if self.kind == Kind::Postgres {
                q = q.bind(now);
            }
            for b in req.backends.iter().chain(&req.llcs) {
                q = q.bind(b.clone());
            }
            q
        };
        let rows = match self.kind {
            Kind::Postgres => {
                // The running campaigns are an array computed once (an InitPlan), so the
                // planner keeps the partial index's id order and stops at the LIMIT; as a
                // semi-join, on a freshly filled table without statistics, it read and sorted
                // every queued unit (14 ms instead of 0.7 ms per lease with 14,525 queued;
                // docs/BENCHMARKS.md).
                let filter = format!(
                    "{backend_cond} AND campaign_id = ANY(ARRAY(SELECT id FROM campaigns WHERE status = 'running'))"
                );
                // One statement: one round trip, no explicit transaction. The candidates are
                // the first units with an expired lease (their holders' heartbeats and
                // completions then get 409) and the first queued units, each from a small
                // partial index, each taken with SKIP LOCKED in the SELECT that has its
                // LIMIT, so concurrent requests take different rows and never wait for each
                // other. Candidates not leased are unlocked when the statement ends. Queued
                // units go in priority order (the campaign's passes); expired ones keep theirs.
                let sql = format!(
                    "WITH expired AS (SELECT id, priority FROM work_units WHERE status = 'leased' AND lease_expires_ms < $4 {filter} \
                     ORDER BY lease_expires_ms LIMIT {max} FOR UPDATE SKIP LOCKED), \
                     queued AS (SELECT id, priority FROM work_units WHERE status = 'queued' {filter} \
                     ORDER BY priority, id LIMIT {max} FOR UPDATE SKIP LOCKED) \
                     {set} WHERE id IN (SELECT id FROM (SELECT id, priority FROM expired UNION ALL SELECT id, priority FROM queued) AS c \
                     ORDER BY priority, id LIMIT {max}) {returning}"
                );
                bind_all(&sql).fetch_all(&self.pool).await?
            }
            Kind::Sqlite => {
                // One writer at a time under the process lock, so two statements cost little;
                // SQLite runs the CTE form of the UPDATE 400 times slower (20 ms against 0.05
                // ms with 54,100 units queued).
                let (_g, mut tx) = self.write().await?;
                sqlx::query(
                    "UPDATE work_units SET status = 'queued', lease_token = NULL \
                     WHERE status = 'leased' AND lease_expires_ms < $1",
                )
                .bind(now)
                .execute(&mut *tx)
                .await?;
                let sql = format!(
                    "{set} WHERE id IN (SELECT id FROM work_units WHERE status = 'queued' {backend_cond} \
                     AND campaign_id IN (SELECT id FROM campaigns WHERE status = 'running') \
                     ORDER BY priority, id LIMIT {max}) {returning}"
                );
                let rows = bind_all(&sql).fetch_all(&mut *tx).await?;
                tx.commit().await?;
                rows
            }
        };
        let mut leases: Vec<(i64, Lease)> = Vec::with_capacity(rows.len());
        for r in &rows {
            leases.push((
                r.try_get("priority")?,
                Lease {
                    unit: r.try_get("id")?,
                    lease_token: token.clone(),
                    campaign: r.try_get("campaign_id")?,
                    variant: r.try_get("variant")?,
                    backend: r.try_get("backend")?,
                    target: r.try_get("target")?,
                    generator: r.try_get("generator")?,
                    seed: r.try_get("seed")?,
                    cases: r.try_get("cases")?,
                    attempt: r.try_get("attempts")?,
                    expires_ms: expires,
                },
            ));
        }
        // In the order the queue gives them, so a worker taking several runs them so too.
        leases.sort_by_key(|(priority, l)| (*priority, l.unit));
        Ok(leases.into_iter().map(|(_, l)| l).collect())
    }

    /// Extends a lease; a lease that another worker has taken over is a conflict.
    pub async fn heartbeat(&self, unit: i64, hb: &Heartbeat) -> Result<i64> {
        let secs = hb.lease_seconds.unwrap_or(60);
        if !(1..=3600).contains(&secs) {
            return Err(Error::Invalid("lease_seconds: 1..=3600".into()));
        }
        let expires = now_ms() + secs * 1000;
        let (_g, mut tx) = self.write().await?;
        let n = sqlx::query("UPDATE work_units SET lease_expires_ms = $1 WHERE id = $2 AND lease_token = $3 AND status = 'leased'")
            .bind(expires)
            .bind(unit)
            .bind(&hb.lease_token)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        tx.commit().await?;
        if n == 0 {
            return Err(self.lost_lease(unit).await);
        }
        Ok(expires)
    }

    /// Why a unit's lease is not the caller's: no such unit, or lost.
    async fn lost_lease(&self, unit: i64) -> Error {
        match sqlx::query("SELECT status FROM work_units WHERE id = $1").bind(unit).fetch_optional(&self.pool).await {
            Ok(None) => Error::NotFound(format!("no work unit {unit}")),
            Ok(Some(_)) => Error::Conflict(format!(
                "work unit {unit}: the lease is no longer yours (it expired and was taken, or the unit is done); drop the unit"
            )),
            Err(e) => e.into(),
        }
    }

    /// Finishes a leased unit: its findings are stored, the campaign's counters grow, and a
    /// continuous campaign gets the unit's successor. Completing again with the same lease
    /// changes nothing (`duplicate: true`); with a lost lease it is a conflict and nothing is
    /// stored.
    pub async fn complete(&self, unit: i64, c: &Completion) -> Result<IngestResult> {
        let checked: Vec<Checked> = c
            .findings
            .iter()
            .enumerate()
            .map(|(i, f)| check_finding(i, f))
            .collect::<Result<_>>()?;
        if !(0..=MAX_CASES_PER_UNIT).contains(&c.cases) {
            return Err(Error::Invalid(format!(
                "cases: 0..={MAX_CASES_PER_UNIT}, the most a unit has"
            )));
        }
        if let Some(why) = &c.unsupported {
            bounded("unsupported", why, 1000)?;
        }
        let (_g, mut tx) = self.write().await?;
        let row = sqlx::query(
            "UPDATE work_units SET status = 'done', done_cases = $1, completed = $2 \
             WHERE id = $3 AND lease_token = $4 AND status = 'leased' \
             RETURNING campaign_id, variant, backend, target, seed, cases, lease_owner",
        )
        .bind(c.cases)
        .bind(now_text())
        .bind(unit)
        .bind(&c.lease_token)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(row) = row else {
            tx.rollback().await?;
            let done = sqlx::query(
                "SELECT id FROM work_units WHERE id = $1 AND lease_token = $2 AND status = 'done'",
            )
            .bind(unit)
            .bind(&c.lease_token)
            .fetch_optional(&self.pool)
            .await?;
            return match done {
                Some(_) => Ok(IngestResult {
                    accepted: 0,
                    ids: vec![],
                    duplicate: true,
                }),
                None => Err(self.lost_lease(unit).await),
            };
        };
        let campaign_id: i64 = row.try_get("campaign_id")?;
        let owner: Option<String> = row.try_get("lease_owner")?;
        let ids = upsert_findings(
            &mut tx,
            &checked,
            &format!("unit {unit} ({})", owner.unwrap_or_default()),
        )
        .await?;
        let occurrences = checked
            .iter()
            .fold(0i64, |total, f| total.saturating_add(f.count));
        sqlx::query(&format!(
            "UPDATE campaigns SET cases = cases + $1, findings = {} WHERE id = $3",
            saturating_sum("findings", "$2")
        ))
        .bind(c.cases)
        .bind(occurrences)
        .bind(campaign_id)
        .execute(&mut *tx)
        .await?;
        sqlx::query("INSERT INTO campaign_samples (campaign_id, at_ms, cases) VALUES ($1, $2, $3)")
            .bind(campaign_id)
            .bind(now_ms())
            .bind(c.cases)
            .execute(&mut *tx)
            .await?;
        // A validate-llc unit's result is its verdict, posted to the verdicts on its own: it
        // is no pair of the coverage matrix, and has no successor.
        if row.try_get::<Option<String>, _>("target")?.is_none() {
            let (variant, backend): (String, String) =
                (row.try_get("variant")?, row.try_get("backend")?);
            // The pair's totals, with this unit's: what its successor's size and place follow.
            let pair = sqlx::query(&format!(
                "INSERT INTO campaign_pairs (campaign_id, variant, family, backend, units, cases, findings, unsupported) \
                 VALUES ($1, $2, $3, $4, 1, $5, $6, $7) \
                 ON CONFLICT (campaign_id, variant, backend) DO UPDATE SET units = campaign_pairs.units + 1, \
                 cases = {}, findings = {}, unsupported = excluded.unsupported \
                 RETURNING units, cases, findings",
                saturating_sum("campaign_pairs.cases", "excluded.cases"),
                saturating_sum("campaign_pairs.findings", "excluded.findings"),
            ))
            .bind(campaign_id)
            .bind(&variant)
            .bind(family(&variant))
            .bind(&backend)
            .bind(c.cases)
            .bind(occurrences)
            .bind(c.unsupported.clone())
            .fetch_one(&mut *tx)
            .await?;
            let campaign =
                sqlx::query("SELECT continuous, cases_per_unit FROM campaigns WHERE id = $1")
                    .bind(campaign_id)
                    .fetch_one(&mut *tx)
                    .await?;
            // A backend that cannot run the variant gets no successor: it would say so again.
            if campaign.try_get::<i64, _>("continuous")? != 0 && c.unsupported.is_none() {
                let seed: i64 = row.try_get("seed")?;
                let (units, cases, findings): (i64, i64, i64) = (
                    pair.try_get("units")?,
                    pair.try_get("cases")?,
                    pair.try_get("findings")?,
                );
                let unit = NewUnit {
                    variant: &variant,
                    backend: &backend,
                    target: None,
                    seed: seed.wrapping_add(1),
                    cases: successor_cases(cases, campaign.try_get("cases_per_unit")?),
                    priority: successor_priority(cases, findings),
                    pass: units,
                };
                insert_units(&mut tx, campaign_id, &[unit]).await?;
            }
        }
        tx.commit().await?;
        Ok(IngestResult {
            accepted: ids.len(),
            ids,
            duplicate: false,
        })
    }

    /// Units waiting for a worker (queued, or leased with an expired lease).
    pub async fn queue_depth(&self) -> Result<i64> {
        Ok(sqlx::query(
            "SELECT COUNT(*) AS n FROM work_units u JOIN campaigns c ON c.id = u.campaign_id WHERE c.status = 'running' \
             AND (u.status = 'queued' OR (u.status = 'leased' AND u.lease_expires_ms < $1))",
        )
        .bind(now_ms())
        .fetch_one(&self.pool)
        .await?
        .try_get("n")?)
    }

    /// Distinct findings, their occurrences, and cases run by all campaigns.
    pub async fn totals(&self) -> Result<Totals> {
        let f = sqlx::query(
            "SELECT COUNT(*) AS n, CAST(COALESCE(SUM(count), 0) AS BIGINT) AS occ, \
             CAST(COALESCE(SUM(CASE WHEN status IN ('new', 'confirmed') THEN 1 ELSE 0 END), 0) AS BIGINT) AS open FROM findings",
        )
        .fetch_one(&self.pool)
        .await?;
        let c =
            sqlx::query("SELECT CAST(COALESCE(SUM(cases), 0) AS BIGINT) AS cases FROM campaigns")
                .fetch_one(&self.pool)
                .await?;
        Ok(Totals {
            findings: f.try_get("n")?,
            occurrences: f.try_get("occ")?,
            open: f.try_get("open")?,
            cases: c.try_get("cases")?,
        })
    }

    /// Cases reported in the last `window_ms` milliseconds.
    pub async fn recent_cases(&self, window_ms: i64) -> Result<i64> {
        Ok(sqlx::query("SELECT CAST(COALESCE(SUM(cases), 0) AS BIGINT) AS n FROM campaign_samples WHERE at_ms >= $1")
            .bind(now_ms() - window_ms)
            .fetch_one(&self.pool)
            .await?
            .try_get("n")?)
    }

    /// Stores proof results. With `key`, a batch already stored under that key changes
    /// nothing (`duplicate: true`).
    pub async fn add_proofs(&self, proofs: &[NewProof], key: Option<&str>) -> Result<BatchIds> {
        self.add_batch(proofs, key).await
    }

    /// Proof results, newest first.
    pub async fn proofs(&self, limit: i64, offset: i64) -> Result<Vec<Proof>> {
        check_page(limit, offset)?;
        let rows = sqlx::query("SELECT id, rule, verdict, counterexample, solver, seconds, created FROM proofs ORDER BY id DESC LIMIT $1 OFFSET $2")
            .bind(limit)
            .bind(offset)
            .fetch_all(&self.pool)
            .await?;
        Ok(rows
            .iter()
            .map(proof)
            .collect::<std::result::Result<_, _>>()?)
    }

    /// Stores `semfuzz validate-llc` verdicts, every report as a row of its own (the latest
    /// of a cell is what the matrix shows). With `key`, a batch already stored under that key
    /// changes nothing (`duplicate: true`).
    pub async fn add_llc_verdicts(
        &self,
        verdicts: &[NewLlcVerdict],
        key: Option<&str>,
    ) -> Result<BatchIds> {
        self.add_batch(verdicts, key).await
    }

    /// LLVM verdicts, every report, newest first; only `llvm`'s when given.
    pub async fn llc_verdicts(
        &self,
        llvm: Option<&str>,
        limit: i64,
        offset: i64,
    ) -> Result<Vec<LlcVerdict>> {
        check_page(limit, offset)?;
        // Two statements rather than one with `($1 IS NULL OR llvm = $1)`: a plain equality
        // lets PostgreSQL's plan use the index on llvm, and binds no NULL of a guessed type.
        let sql = |filter: &str, first: usize| {
            format!(
                "SELECT {LLC_COLUMNS} FROM llc_verdicts {filter} ORDER BY id DESC LIMIT ${first} OFFSET ${}",
                first + 1
            )
        };
        let rows = match llvm {
            Some(v) => {
                sqlx::query(&sql("WHERE llvm = $1", 2))
                    .bind(v)
                    .bind(limit)
                    .bind(offset)
                    .fetch_all(&self.pool)
                    .await?
            }
            None => {
                sqlx::query(&sql("", 1))
                    .bind(limit)
                    .bind(offset)
                    .fetch_all(&self.pool)
                    .await?
            }
        };
        Ok(rows
            .iter()
            .map(llc_verdict)
            .collect::<std::result::Result<_, _>>()?)
    }

    /// Every LLVM version with its cells per verdict (each cell by its latest report), in text
    /// order (the dashboard orders them by version number).
    pub async fn llc_versions(&self) -> Result<Vec<LlcVersion>> {
        let rows = sqlx::query(
            "SELECT llvm, verdict, COUNT(*) AS n, MAX(created) AS last FROM llc_verdicts \
             WHERE id IN (SELECT MAX(id) FROM llc_verdicts GROUP BY llvm, function, target) \
             GROUP BY llvm, verdict ORDER BY llvm",
        )
        .fetch_all(&self.pool)
        .await?;
        let mut out: Vec<LlcVersion> = Vec::new();
        for r in &rows {
            let llvm: String = r.try_get("llvm")?;
            if out.last().is_none_or(|v| v.llvm != llvm) {
                out.push(LlcVersion {
                    llvm,
                    ..Default::default()
                });
            }
            let v = out.last_mut().expect("pushed above");
            let verdict: String = r.try_get("verdict")?;
            if let Some(i) = LLC_VERDICTS.iter().position(|&k| k == verdict) {
                v.cells[i] += r.try_get::<i64, _>("n")?;
            }
            let last: String = r.try_get("last")?;
            if last > v.last {
                v.last = last;
            }
        }
        Ok(out)
    }

    /// The latest report of every (function, target) cell of `llvm`, by function and target,
    /// without the reports' Markdown (the matrix does not show it).
    pub async fn llc_matrix(&self, llvm: &str) -> Result<Vec<LlcVerdict>> {
        let rows = sqlx::query(&format!(
            "SELECT {LLC_SUMMARY_COLUMNS} FROM llc_verdicts WHERE id IN \
             (SELECT MAX(id) FROM llc_verdicts WHERE llvm = $1 GROUP BY function, target) \
             ORDER BY function, target"
        ))
        .bind(llvm)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .iter()
            .map(llc_verdict)
            .collect::<std::result::Result<_, _>>()?)
    }

    /// One verdict; its cell's reports, oldest first (the newest 1000); and the latest report of the same
    /// function and target under every LLVM version. The two lists leave out the Markdown.
    pub async fn llc_verdict(
        &self,
        id: i64,
    ) -> Result<(LlcVerdict, Vec<LlcVerdict>, Vec<LlcVerdict>)> {
        let v = sqlx::query(&format!(
            "SELECT {LLC_COLUMNS} FROM llc_verdicts WHERE id = $1"
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        .ok_or_else(|| Error::NotFound(format!("no LLVM verdict {id}")))?;
        let v = llc_verdict(&v)?;
        let history = sqlx::query(&format!(
            "SELECT {LLC_SUMMARY_COLUMNS} FROM llc_verdicts \
             WHERE llvm = $1 AND function = $2 AND target = $3 ORDER BY id DESC LIMIT 1000"
        ))
        .bind(&v.llvm)
        .bind(&v.function)
        .bind(&v.target)
        .fetch_all(&self.pool)
        .await?;
        let versions = sqlx::query(&format!(
            "SELECT {LLC_SUMMARY_COLUMNS} FROM llc_verdicts WHERE id IN \
             (SELECT MAX(id) FROM llc_verdicts WHERE function = $1 AND target = $2 GROUP BY llvm) \
             ORDER BY llvm"
        ))
        .bind(&v.function)
        .bind(&v.target)
        .fetch_all(&self.pool)
        .await?;
        let rows = |rs: Vec<AnyRow>| -> std::result::Result<Vec<LlcVerdict>, sqlx::Error> {
            rs.iter().map(llc_verdict).collect()
        };
        // The newest 1000 reports of the cell, turned oldest first.
        let mut history = rows(history)?;
        history.reverse();
        Ok((v, history, rows(versions)?))
    }

    /// Stores a batch of posted items (proofs, LLVM verdicts): checks every item first, so
    /// a bad one stores nothing, then inserts them in one transaction with the batch's
    /// `Idempotency-Key`; a key stored before changes nothing (`duplicate: true`).
    async fn add_batch<T: BatchItem>(&self, items: &[T], key: Option<&str>) -> Result<BatchIds> {
        for (i, item) in items.iter().enumerate() {
            item.check(&|field| format!("{}[{i}].{field}", T::NAME))?;
        }
        let (_g, mut tx) = self.write().await?;
        if !claim_batch_key(&mut tx, key, items.len()).await? {
            tx.rollback().await?;
            return Ok(BatchIds {
                ids: vec![],
                duplicate: true,
            });
        }
        let now = now_text();
        let mut ids = Vec::with_capacity(items.len());
        for item in items {
            ids.push(item.insert(&mut tx, &now).await?);
        }
        tx.commit().await?;
        Ok(BatchIds {
            ids,
            duplicate: false,
        })
    }
}

/// An item of a batch `POST` ([`Db::add_batch`]): proofs and LLVM verdicts share the
/// checks-then-transaction path and its idempotency.
trait BatchItem {
    /// The items' name in errors (`proofs[2].verdict`).
    const NAME: &'static str;
    /// Checks what the schema states and serde cannot (lengths, enumerations, ranges);
    /// `at(field)` names the field in the error.
    fn check(&self, at: &dyn Fn(&str) -> String) -> Result<()>;
    /// Inserts the item, stored at `now`; returns its id.
    async fn insert(&self, tx: &mut Transaction<'static, Any>, now: &str) -> Result<i64>;
}

impl BatchItem for NewProof {
    const NAME: &'static str = "proofs";

    fn check(&self, at: &dyn Fn(&str) -> String) -> Result<()> {
        bounded(&at("rule"), &self.rule, 500)?;
        bounded(&at("counterexample"), &self.counterexample, 10_000)?;
        bounded(&at("solver"), &self.solver, 200)?;
        one_of(&at("verdict"), &self.verdict, &VERDICTS)?;
        seconds(&at("seconds"), self.seconds)
    }

    async fn insert(&self, tx: &mut Transaction<'static, Any>, now: &str) -> Result<i64> {
        Ok(sqlx::query(
            "INSERT INTO proofs (rule, verdict, counterexample, solver, seconds, created) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
        )
        .bind(&self.rule)
        .bind(&self.verdict)
        .bind(&self.counterexample)
        .bind(&self.solver)
        .bind(self.seconds)
        .bind(now)
        .fetch_one(&mut **tx)
        .await?
        .try_get("id")?)
    }
}

impl BatchItem for NewLlcVerdict {
    const NAME: &'static str = "verdicts";

    fn check(&self, at: &dyn Fn(&str) -> String) -> Result<()> {
        for (field, value, max) in [
            ("llvm", &self.llvm, 50),
            ("function", &self.function, 500),
            ("target", &self.target, 50),
        ] {
            bounded(&at(field), value, max)?;
            // Each names a row, column or page of the dashboard.
            if value.trim().is_empty() {
                return Err(Error::Invalid(format!("{}: must not be empty", at(field))));
            }
        }
        bounded(&at("compiler"), &self.compiler, 200)?;
        bounded(&at("detail"), &self.detail, 2000)?;
        bounded(&at("counterexample"), &self.counterexample, 10_000)?;
        bounded(&at("report"), &self.report, 100_000)?;
        one_of(&at("verdict"), &self.verdict, &LLC_VERDICTS)?;
        seconds(&at("seconds"), self.seconds)
    }

    async fn insert(&self, tx: &mut Transaction<'static, Any>, now: &str) -> Result<i64> {
        Ok(sqlx::query(
            "INSERT INTO llc_verdicts (llvm, compiler, function, target, verdict, detail, counterexample, report, seconds, created) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id",
        )
        .bind(&self.llvm)
        .bind(&self.compiler)
        .bind(&self.function)
        .bind(&self.target)
        .bind(&self.verdict)
        .bind(&self.detail)
        .bind(&self.counterexample)
        .bind(&self.report)
        .bind(self.seconds)
        .bind(now)
        .fetch_one(&mut **tx)
        .await?
        .try_get("id")?)
    }
}

/// Checks `value` is one of `allowed`; the error lists them.
fn one_of(field: &str, value: &str, allowed: &[&str]) -> Result<()> {
    if allowed.contains(&value) {
        return Ok(());
    }
    Err(Error::Invalid(format!(
        "{field}: `{value}` is not one of {}",
        allowed.join(", ")
    )))
}

/// Checks a duration in seconds is a finite number, not negative.
fn seconds(field: &str, value: f64) -> Result<()> {
    if value.is_finite() && value >= 0.0 {
        return Ok(());
    }
    Err(Error::Invalid(format!(
        "{field}: must be a non-negative number"
    )))
}

/// Checks a page of a list other than findings.
fn check_page(limit: i64, offset: i64) -> Result<()> {
    if !(1..=1000).contains(&limit) || offset < 0 {
        return Err(Error::Invalid("limit: 1..=1000, offset: 0 or more".into()));
    }
    Ok(())
}

/// `ORDER BY` column for a `sort` parameter (`-count` is descending); a fixed list, never
/// the client's text.
fn sort_column(sort: Option<&str>) -> Result<(&'static str, bool)> {
    let s = sort.unwrap_or("-last_seen");
    let (name, desc) = match s.strip_prefix('-') {
        Some(n) => (n, true),
        None => (s, false),
    };
    let col = SORT_KEYS.iter().find(|&&k| k == name).ok_or_else(|| {
        Error::Invalid(format!(
            "sort: `{s}` is not one of {} (prefix - for descending)",
            SORT_KEYS.join(", ")
        ))
    })?;
    Ok((col, desc))
}

/// Records a batch's `Idempotency-Key` in `tx`; false when the key was recorded before (the
/// batch is a retry and must change nothing). No key: true.
async fn claim_batch_key(
    tx: &mut Transaction<'static, Any>,
    key: Option<&str>,
    items: usize,
) -> Result<bool> {
    let Some(k) = key else { return Ok(true) };
    if k.is_empty() || k.len() > 200 {
        return Err(Error::Invalid(
            "Idempotency-Key: must be 1 to 200 bytes".into(),
        ));
    }
    let inserted = sqlx::query("INSERT INTO batches (key, received, findings) VALUES ($1, $2, $3) ON CONFLICT (key) DO NOTHING")
        .bind(k)
        .bind(now_text())
        .bind(items as i64)
        .execute(&mut **tx)
        .await?
        .rows_affected();
    Ok(inserted == 1)
}

/// A unit's seed: distinct per campaign and round.
fn unit_seed(campaign: i64, round: i64) -> i64 {
    campaign.wrapping_mul(1_000_003).wrapping_add(round)
}

/// A work unit to queue.
struct NewUnit<'a> {
    variant: &'a str,
    backend: &'a str,
    /// A `validate-llc` unit's target; `None` for a fuzz unit.
    target: Option<&'a str>,
    seed: i64,
    cases: i64,
    priority: i64,
    pass: i64,
}

/// Rows per multi-row `INSERT`: a campaign of 80,000 pairs is 160 statements instead of
/// 80,000 round trips, and 8 parameters a row stay far below SQLite's 32,766.
const INSERT_ROWS: usize = 500;

/// `($1, $2, ...{extra}), (...)` for `rows` rows of `width` parameters, each row ending with
/// the constant columns `extra`.
fn values(rows: usize, width: usize, extra: &str) -> String {
    (0..rows)
        .map(|r| {
            let ps: Vec<String> = (1..=width).map(|c| format!("${}", r * width + c)).collect();
            format!("({}{extra})", ps.join(", "))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

async fn insert_units(
    tx: &mut Transaction<'static, Any>,
    campaign: i64,
    units: &[NewUnit<'_>],
) -> Result<()> {
    for chunk in units.chunks(INSERT_ROWS) {
        let sql = format!(
            "INSERT INTO work_units (campaign_id, variant, backend, target, seed, cases, priority, pass, status) VALUES {}",
            values(chunk.len(), 8, ", 'queued'")
        );
        let mut q = sqlx::query(&sql);
        for u in chunk {
            q = q
                .bind(campaign)
                .bind(u.variant)
                .bind(u.backend)
                .bind(u.target.map(str::to_string))
                .bind(u.seed)
                .bind(u.cases)
                .bind(u.priority)
                .bind(u.pass);
        }
        q.execute(&mut **tx).await?;
    }
    Ok(())
}

/// Records a new campaign's (variant, backend) pairs, not yet run.
async fn insert_pairs(
    tx: &mut Transaction<'static, Any>,
    campaign: i64,
    pairs: &[(&String, &String)],
) -> Result<()> {
    for chunk in pairs.chunks(INSERT_ROWS) {
        let sql = format!(
            "INSERT INTO campaign_pairs (campaign_id, variant, family, backend) VALUES {}",
            values(chunk.len(), 4, "")
        );
        let mut q = sqlx::query(&sql);
        for (v, b) in chunk {
            q = q
                .bind(campaign)
                .bind(v.as_str())
                .bind(family(v))
                .bind(b.as_str());
        }
        q.execute(&mut **tx).await?;
    }
    Ok(())
}

/// Merges checked findings into the table, one statement each, and records a `seen` event;
/// returns their ids in `checked`'s order. Rows are written in signature order, so
/// concurrent batches on PostgreSQL lock them in the same order and cannot deadlock.
async fn upsert_findings(
    tx: &mut Transaction<'static, Any>,
    checked: &[Checked<'_>],
    reporter: &str,
) -> Result<Vec<i64>> {
    let now = now_text();
    let mut order: Vec<usize> = (0..checked.len()).collect();
    order.sort_by(|&a, &b| checked[a].f.signature.cmp(&checked[b].f.signature));
    let mut ids = vec![0; checked.len()];
    for i in order {
        let c = &checked[i];
        let f = c.f;
        let id: i64 = sqlx::query(&format!(
            "INSERT INTO findings (signature, variant, family, backend, backend_version, device, class, part, \
             operand_classes, inputs, example_size, expected, actual, detail, count, first_seen, last_seen) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) \
             ON CONFLICT (signature) DO UPDATE SET count = {}, \
             first_seen = CASE WHEN excluded.first_seen < findings.first_seen THEN excluded.first_seen ELSE findings.first_seen END, \
             last_seen = CASE WHEN excluded.last_seen > findings.last_seen THEN excluded.last_seen ELSE findings.last_seen END, \
             inputs = CASE WHEN excluded.example_size < findings.example_size THEN excluded.inputs ELSE findings.inputs END, \
             expected = CASE WHEN excluded.example_size < findings.example_size THEN excluded.expected ELSE findings.expected END, \
             actual = CASE WHEN excluded.example_size < findings.example_size THEN excluded.actual ELSE findings.actual END, \
             detail = CASE WHEN excluded.example_size < findings.example_size THEN excluded.detail ELSE findings.detail END, \
             example_size = CASE WHEN excluded.example_size < findings.example_size THEN excluded.example_size ELSE findings.example_size END \
             RETURNING id",
            saturating_sum("findings.count", "excluded.count")
        ))
        .bind(&f.signature)
        .bind(&f.variant)
        .bind(family(&f.variant))
        .bind(&f.backend)
        .bind(&f.backend_version)
        .bind(&f.device)
        .bind(&f.class)
        .bind(&f.part)
        .bind(&c.operand_classes)
        .bind(&c.inputs)
        .bind(c.example_size)
        .bind(&f.expected)
        .bind(&f.actual)
        .bind(&f.detail)
        .bind(c.count)
        .bind(&c.first_seen)
        .bind(&c.last_seen)
        .fetch_one(&mut **tx)
        .await?
        .try_get("id")?;
        sqlx::query("INSERT INTO finding_events (finding_id, at, kind, count, detail) VALUES ($1, $2, 'seen', $3, $4)")
            .bind(id)
            .bind(&now)
            .bind(c.count)
            .bind(reporter)
            .execute(&mut **tx)
            .await?;
        ids[i] = id;
    }
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match("", ""));
        assert!(!glob_match("", "a"));
        assert!(glob_match("*", ""));
        assert!(glob_match("a*b*c", "aXbYc"));
        assert!(!glob_match("a*b*c", "aXbY"));
        assert!(glob_match("*.f32", "fma.rn.f32"));
        assert!(glob_match("*?", "x"));
        assert!(!glob_match("?", ""));
        // Many stars against a long non-match: answered at once (exponential before).
        let many = "*a".repeat(40) + "b";
        assert!(!glob_match(&many, &"a".repeat(200)));
        assert!(glob_match("add.*", "add.rn.f32"));
        assert!(glob_match("*f32", "ADD.RN.F32"));
        assert!(!glob_match("add.*", "fma.rn.f32"));
        assert!(glob_match("a?d", "add"));
        assert_eq!(like_pattern("add_*%"), "add\\_%\\%");
    }

    #[test]
    fn first_pass_interleaves_families() {
        let texts: Vec<String> = [
            "add.f32",
            "add.rn.f32",
            "add.rz.f32",
            "min.f32",
            "HMUL2",
            "HMUL2.FTZ",
        ]
        .map(String::from)
        .to_vec();
        let refs: Vec<&String> = texts.iter().collect();
        let order: Vec<&str> = interleaved(&refs).iter().map(|s| s.as_str()).collect();
        assert_eq!(
            order,
            [
                "add.f32",
                "min.f32",
                "HMUL2",
                "add.rn.f32",
                "HMUL2.FTZ",
                "add.rz.f32"
            ]
        );
    }

    #[test]
    fn later_units_deepen_and_favour_findings() {
        assert_eq!(successor_cases(0, 20_000), FIRST_PASS_CASES);
        assert_eq!(successor_cases(4096, 20_000), 4096);
        assert_eq!(successor_cases(1 << 30, 20_000), 20_000);
        assert_eq!(successor_cases(4096, 100), 100);
        // Above every unit a campaign starts with, fewer cases first, findings first.
        assert!(successor_priority(0, 0) > 200_000 * 1000);
        assert!(successor_priority(1024, 0) < successor_priority(2048, 0));
        assert!(successor_priority(4096, 1) < successor_priority(2048, 0));
        assert_eq!(successor_priority(i64::MAX, 0), i64::MAX);
    }

    #[test]
    fn sort_is_a_fixed_list() {
        assert_eq!(sort_column(Some("-count")).unwrap(), ("count", true));
        assert!(sort_column(Some("count; DROP TABLE findings")).is_err());
    }
}
