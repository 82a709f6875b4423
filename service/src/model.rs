//! The API's request and response types (their OpenAPI schemas come from these).

use crate::db;
use semfuzz_fuzz::{Finding, GeneratorKind};
use serde::{Deserialize, Serialize};
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, Schema, SchemaType, Type};
use utoipa::openapi::RefOr;
use utoipa::{IntoParams, PartialSchema, ToSchema};

/// One character outside Unicode's `White_Space` (what `str::trim` removes), spelled out
/// rather than `\S` because Python's `\s`, which schemathesis validates with, also counts
/// U+001C..U+001F as space: with `\S` a name made of those would be "blank" to the document
/// and not to the server.
const NON_BLANK: &str =
    "[^\\t\\n\\u000b\\u000c\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";

/// A string of at most `max` characters.
fn text(max: usize) -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .max_length(Some(max))
}

/// A string of at most `max` characters with at least one that is not white space, as the
/// server's `trim().is_empty()` check wants.
fn non_blank(max: usize) -> ObjectBuilder {
    text(max).min_length(Some(1)).pattern(Some(NON_BLANK))
}

/// A string that is one of `values`, or also `null` when `nullable`.
fn one_of(values: &[&str], nullable: bool) -> Schema {
    let mut o = ObjectBuilder::new();
    if nullable {
        o = o
            .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
            .enum_values(Some(
                values
                    .iter()
                    .map(|v| serde_json::Value::from(*v))
                    .chain([serde_json::Value::Null]),
            ));
    } else {
        o = o
            .schema_type(Type::String)
            .enum_values(Some(values.iter().copied()));
    }
    Schema::Object(o.build())
}

/// A finding's status (`new`, `confirmed`, ...), from [`db::STATUSES`].
pub fn finding_status_schema() -> Schema {
    one_of(&db::STATUSES, false)
}

/// A triage's optional new status.
pub fn finding_status_patch_schema() -> Schema {
    one_of(&db::STATUSES, true)
}

/// A campaign's status, from [`db::CAMPAIGN_STATUSES`].
pub fn campaign_status_schema() -> Schema {
    one_of(&db::CAMPAIGN_STATUSES, false)
}

/// A campaign's kind, from [`db::CAMPAIGN_KINDS`].
pub fn campaign_kind_schema() -> Schema {
    one_of(&db::CAMPAIGN_KINDS, false)
}

/// A proof's verdict, from [`db::VERDICTS`].
pub fn verdict_schema() -> Schema {
    one_of(&db::VERDICTS, false)
}

/// A `semfuzz validate-llc` verdict, from [`db::LLC_VERDICTS`].
pub fn llc_verdict_schema() -> Schema {
    one_of(&db::LLC_VERDICTS, false)
}

/// A name of at most 50 characters, not blank (an LLVM version, a target).
pub fn short_name_schema() -> ObjectBuilder {
    non_blank(50)
}

/// A name of at most 500 characters, not blank (an IR function).
pub fn long_name_schema() -> ObjectBuilder {
    non_blank(500)
}

/// A campaign's generator, from the generators `semfuzz fuzz --generator` knows.
pub fn generator_schema() -> Schema {
    let names: Vec<&str> = GeneratorKind::ALL.iter().map(|(n, _)| *n).collect();
    one_of(&names, false)
}

/// `sort` of the findings list: each of [`db::SORT_KEYS`], ascending or `-` descending.
pub fn sort_schema() -> Schema {
    let keys: Vec<String> = db::SORT_KEYS
        .iter()
        .flat_map(|k| [k.to_string(), format!("-{k}")])
        .collect();
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    // A query parameter is left out, never null; `sort=` (empty) is refused.
    one_of(&keys, false)
}

/// A campaign's backend names: one or more, none blank.
pub fn backend_names_schema() -> ArrayBuilder {
    ArrayBuilder::new().items(non_blank(200)).min_items(Some(1))
}

/// A hex bit pattern as `semfuzz check` reads it (`0x3f800000`).
fn hex(description: &str) -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some("^0[xX]\\+?[0-9a-fA-F]+$"))
        .description(Some(description))
}

/// An RFC 3339 UTC time as the server parses it (`2026-01-02T03:04:05Z`; a space for the `T`,
/// fractional seconds and a missing `Z` are accepted). Only the fixed-width prefix is a
/// pattern: the calendar (month lengths, leap years, no year before 1970) is the server's
/// check, answered with 422.
fn time(description: &str) -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some(
            "^[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}",
        ))
        .description(Some(description))
}

/// The schema of [`Finding`], the object `semfuzz fuzz --json` writes (semfuzz-fuzz owns the
/// type, so its schema is spelled out here from its fields), with the limits the server
/// checks on ingest. What a schema cannot say is answered with 422 and documented on the
/// operations that take findings: a time that is not a calendar date, `last_seen` before
/// `first_seen`, a hex pattern wider than 64 bits.
pub struct FindingSchema;

impl FindingSchema {
    /// The object, `count` at most `max_count`: a posted count is at most 2^62 - 1, a stored
    /// one (the sum of many posts) saturates at 2^63 - 1.
    fn object(max_count: i64) -> Schema {
        let mut o =
            ObjectBuilder::new().description(Some("A finding as `semfuzz fuzz --json` writes it."));
        for (name, schema) in [
            (
                "variant",
                non_blank(200).description(Some("The variant's text (`add.rn.f32`).")),
            ),
            (
                "backend",
                non_blank(200).description(Some("The backend as named on the command line.")),
            ),
            (
                "backend_version",
                text(200).description(Some("The backend's version.")),
            ),
            (
                "device",
                text(500).description(Some("The machine or device the backend ran on.")),
            ),
            (
                "class",
                non_blank(100).description(Some(
                    "The kind of difference (`ulp-up-1`, `sign-of-zero`, ...).",
                )),
            ),
            (
                "part",
                text(100).description(Some("The destination part that differs (`d`, `d[1]`).")),
            ),
            (
                "signature",
                non_blank(128).description(Some("The deduplication key (16 hex digits).")),
            ),
            (
                "expected",
                text(4000).description(Some("What the spec allows for the example.")),
            ),
            ("actual", hex("What the backend returned, hex.")),
            (
                "detail",
                text(4000).description(Some("One line for a person.")),
            ),
            ("first_seen", time("RFC 3339 UTC.")),
            ("last_seen", time("RFC 3339 UTC, not before `first_seen`.")),
        ] {
            o = o.property(name, schema).required(name);
        }
        o = o
            .property(
                "operand_classes",
                ArrayBuilder::new()
                    .items(text(100))
                    .max_items(Some(db::MAX_OPERANDS))
                    .description(Some("The class of each input operand.")),
            )
            .required("operand_classes")
            .property(
                "inputs",
                ArrayBuilder::new()
                    .items(hex("An input's bits."))
                    .max_items(Some(db::MAX_OPERANDS))
                    .description(Some(
                        "The smallest example's inputs, hex, in operand order.",
                    )),
            )
            .required("inputs")
            .property(
                "count",
                ObjectBuilder::new()
                    .schema_type(Type::Integer)
                    .minimum(Some(1))
                    .maximum(Some(max_count))
                    .description(Some("Cases under the signature.")),
            )
            .required("count");
        Schema::Object(o.build())
    }

    /// A stored finding's fields: as posted, with the count's ceiling of a sum.
    pub fn stored() -> Schema {
        FindingSchema::object(i64::MAX)
    }
}

impl PartialSchema for FindingSchema {
    fn schema() -> RefOr<Schema> {
        RefOr::T(FindingSchema::object(i64::MAX / 2))
    }
}

impl ToSchema for FindingSchema {
    fn name() -> std::borrow::Cow<'static, str> {
        "Finding".into()
    }
}

/// A stored finding: the posted object, its id and its triage.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct StoredFinding {
    /// The finding's id.
    pub id: i64,
    /// `new`, `confirmed`, `spec-bug`, `backend-bug` or `wont-fix`.
    #[schema(schema_with = finding_status_schema)]
    pub status: String,
    /// The triager's note.
    pub note: String,
    /// The finding, merged over every report of its signature.
    #[serde(flatten)]
    #[schema(inline, schema_with = FindingSchema::stored)]
    pub finding: Finding,
}

/// One line of a finding's history.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct Event {
    /// When (RFC 3339).
    pub at: String,
    /// `seen` (a report) or `triage`.
    pub kind: String,
    /// Cases the report added.
    pub count: i64,
    /// Who reported, or what changed.
    pub detail: String,
}

/// A finding with its history.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct FindingDetail {
    /// The finding.
    #[serde(flatten)]
    pub finding: StoredFinding,
    /// Reports and triage, newest first.
    pub history: Vec<Event>,
}

/// Filters and paging of `GET /api/v1/findings`.
#[derive(Clone, Debug, Default, Deserialize, Serialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct FindingQuery {
    /// Variant glob, case-insensitive (`fma.*.f32`).
    pub variant: Option<String>,
    /// Backend name, exact.
    pub backend: Option<String>,
    /// Class, exact (`sign-of-zero`).
    pub class: Option<String>,
    /// Status, exact, or `open` for new and confirmed.
    pub status: Option<String>,
    /// `last_seen` (default, descending), `first_seen`, `count`, `variant`, `backend`,
    /// `class`, `status`, `id`; prefix `-` for descending.
    #[param(schema_with = sort_schema)]
    pub sort: Option<String>,
    /// Page size, 1..=1000 (default 100).
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<i64>,
    /// Findings to skip.
    #[param(minimum = 0)]
    pub offset: Option<i64>,
}

/// A page of findings.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct FindingPage {
    /// The findings.
    pub findings: Vec<StoredFinding>,
    /// How many match the filters.
    pub total: i64,
    /// The page size used.
    pub limit: i64,
    /// The offset used.
    pub offset: i64,
    /// The offset of the next page, when there is one.
    pub next_offset: Option<i64>,
}

/// What `POST /api/v1/findings` and unit completion stored.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct IngestResult {
    /// Findings stored (0 for a repeated batch).
    pub accepted: usize,
    /// The stored findings' ids, in the batch's order.
    pub ids: Vec<i64>,
    /// True when this batch (Idempotency-Key) or completion was already stored.
    pub duplicate: bool,
}

/// Triage of one finding; absent fields stay.
#[derive(Clone, Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FindingPatch {
    /// `new`, `confirmed`, `spec-bug`, `backend-bug` or `wont-fix`.
    #[schema(schema_with = finding_status_patch_schema)]
    pub status: Option<String>,
    /// A note (plain text).
    #[schema(max_length = 10000)]
    pub note: Option<String>,
}

/// A campaign to create. Two rules are the server's alone, answered with 422, since a schema
/// cannot state them: the `variants` glob must match a variant of the built-in catalogue
/// (a list that changes with the spec, and a glob's match is no regular expression a client
/// generator could invert), and the campaign may have at most 200,000 work units (matching
/// variants × backends × rounds).
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewCampaign {
    /// A name for people.
    #[schema(max_length = 200)]
    pub name: String,
    /// Variant glob (`*` for every variant); it must match at least one variant.
    #[schema(max_length = 200)]
    pub variants: String,
    /// Backend names (`host`, `llvm`, ...).
    #[schema(schema_with = backend_names_schema)]
    pub backends: Vec<String>,
    /// Input generator: `boundary`, `uniform`, `exhaustive`, `witness` (as `semfuzz fuzz
    /// --generator`).
    #[schema(schema_with = generator_schema)]
    pub generator: String,
    /// Cases per work unit, 1..=10^9 (default 100000).
    #[schema(minimum = 1, maximum = 1000000000)]
    pub cases_per_unit: Option<i64>,
    /// Units per variant × backend, 1..=1000 (default 1).
    #[schema(minimum = 1, maximum = 1000)]
    pub rounds: Option<i64>,
    /// When true, each finished unit queues its successor (next seed): the campaign runs
    /// until paused or stopped.
    #[serde(default)]
    pub continuous: bool,
}

/// A campaign and its progress.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct Campaign {
    /// Its id.
    pub id: i64,
    /// Its name.
    pub name: String,
    /// `fuzz` (variants on backends) or `validate-llc` (IR functions of `semfuzz
    /// validate-llc`'s catalogue at targets, each compiled by the LLVMs in `backends`).
    #[schema(schema_with = campaign_kind_schema)]
    pub kind: String,
    /// Variant glob; for `validate-llc`, the functions chosen.
    pub variants: String,
    /// Backends; for `validate-llc`, the LLVM compilers (`llvmlite`, `llc-16`).
    pub backends: Vec<String>,
    /// Generator.
    pub generator: String,
    /// Cases per unit.
    pub cases_per_unit: i64,
    /// Whether finished units queue successors.
    pub continuous: bool,
    /// `running`, `paused` or `stopped`.
    #[schema(schema_with = campaign_status_schema)]
    pub status: String,
    /// When created (RFC 3339).
    pub created: String,
    /// Cases run so far.
    pub cases: i64,
    /// Finding occurrences reported so far.
    pub findings: i64,
    /// Work units in all.
    pub units: i64,
    /// Units done.
    pub units_done: i64,
    /// Units under a live lease.
    pub units_leased: i64,
}

/// A `semfuzz validate-llc` catalogue run to share out: one work unit per function, target and
/// LLVM compiler, leased to workers that have that compiler. The campaign may have at most
/// 200,000 units (functions × targets × compilers), a rule of the server answered with 422.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewLlcCampaign {
    /// A name for people.
    #[schema(max_length = 200)]
    pub name: String,
    /// Names of the catalogue's IR functions (`fadd_f32`).
    #[schema(schema_with = llc_functions_schema)]
    pub functions: Vec<String>,
    /// Targets (`sm_70`).
    #[schema(schema_with = llc_targets_schema)]
    pub targets: Vec<String>,
    /// LLVM compilers as `validate-llc --llc` names them (`llvmlite`, `llc-16`).
    #[schema(schema_with = backend_names_schema)]
    pub llcs: Vec<String>,
}

/// A `validate-llc` campaign's functions: one or more names, none blank.
pub fn llc_functions_schema() -> ArrayBuilder {
    ArrayBuilder::new()
        .items(long_name_schema())
        .min_items(Some(1))
}

/// A `validate-llc` campaign's targets: one or more names, none blank.
pub fn llc_targets_schema() -> ArrayBuilder {
    ArrayBuilder::new()
        .items(short_name_schema())
        .min_items(Some(1))
}

/// A campaign's status change.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CampaignPatch {
    /// `running`, `paused` or `stopped`.
    #[schema(schema_with = campaign_status_schema)]
    pub status: String,
}

/// A campaign with its throughput over time.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct CampaignProgress {
    /// The campaign.
    #[serde(flatten)]
    pub campaign: Campaign,
    /// Cases finished per minute.
    pub throughput: Vec<Sample>,
    /// Where each backend stands in its passes over the campaign's variants.
    pub passes: Vec<BackendPass>,
}

/// One backend's pass over a campaign's variants. Pass 0 runs every (variant, backend) pair
/// once with a small unit; a pass ends when every pair the backend can run has one more unit
/// done. Pairs with findings run ahead of the pass, so they are not waited for.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct BackendPass {
    /// The backend.
    pub backend: String,
    /// The campaign's variants on it.
    pub pairs: i64,
    /// Variants a worker reported the backend cannot run (never queued again).
    pub unsupported: i64,
    /// The pass it is on (0: the first); null when it can run none of the variants.
    pub pass: Option<i64>,
    /// Variants done with this pass.
    pub done: i64,
    /// Variants this pass still has to run.
    pub left: i64,
    /// Seconds until the pass ends at the rate of its last ten minutes; null until two units
    /// of the pass have finished in that window.
    pub eta_seconds: Option<i64>,
}

/// One cell of the dashboard's family × backend matrix, over every campaign.
#[derive(Clone, Debug, Default)]
pub struct CoverageCell {
    /// Distinct variants of the family that some campaign runs on the backend.
    pub variants: i64,
    /// Of those, variants a worker reported the backend cannot run.
    pub unsupported: i64,
    /// Variants run at least once.
    pub tried: i64,
    /// Cases run.
    pub cases: i64,
}

/// Cases finished in one minute of a campaign.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct Sample {
    /// Unix time / 60.
    pub minute: i64,
    /// Cases finished in that minute.
    pub cases: i64,
}

/// A worker's request for work.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LeaseRequest {
    /// The worker's name (host and process), shown on the dashboard.
    #[schema(max_length = 200)]
    pub worker: String,
    /// Backends the worker can run (at most 50); empty for any.
    #[serde(default)]
    #[schema(max_items = 50)]
    pub backends: Vec<String>,
    /// LLVM compilers the worker has (`llvmlite`, `llc-16`; at most 50): it is leased
    /// `validate-llc` units of these only, and none when empty.
    #[serde(default)]
    #[schema(max_items = 50)]
    pub llcs: Vec<String>,
    /// Units wanted, 1..=100 (default 1).
    #[schema(minimum = 1, maximum = 100)]
    pub max: Option<i64>,
    /// Lease length, 1..=3600 s (default 60).
    #[schema(minimum = 1, maximum = 3600)]
    pub lease_seconds: Option<i64>,
}

/// A leased work unit.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct Lease {
    /// The unit's id.
    pub unit: i64,
    /// Proof of the lease, for heartbeat and completion.
    pub lease_token: String,
    /// The campaign.
    pub campaign: i64,
    /// The variant to run; of a `validate-llc` unit, the IR function.
    pub variant: String,
    /// The backend to run it on; of a `validate-llc` unit, the LLVM compiler.
    pub backend: String,
    /// The target of a `validate-llc` unit (`sm_70`); null for a fuzz unit.
    pub target: Option<String>,
    /// The generator.
    pub generator: String,
    /// The generator's seed.
    pub seed: i64,
    /// Cases to run.
    pub cases: i64,
    /// Which lease of this unit this is (1 for the first).
    pub attempt: i64,
    /// When the lease expires without a heartbeat (Unix ms).
    pub expires_ms: i64,
}

/// The leases handed out.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct Leases {
    /// Empty when there is no work.
    pub leases: Vec<Lease>,
}

/// A heartbeat extending a lease.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Heartbeat {
    /// The lease's token.
    pub lease_token: String,
    /// New lease length from now, 1..=3600 s (default 60).
    #[schema(minimum = 1, maximum = 3600)]
    pub lease_seconds: Option<i64>,
}

/// A heartbeat's answer.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct HeartbeatResult {
    /// When the lease now expires (Unix ms).
    pub expires_ms: i64,
}

/// A finished unit's results.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Completion {
    /// The lease's token.
    pub lease_token: String,
    /// Cases run, 0..=10^9 (the most a unit has).
    #[schema(minimum = 0, maximum = 1000000000)]
    pub cases: i64,
    /// The findings (as `semfuzz fuzz --json` writes them).
    #[schema(schema_with = findings_schema)]
    pub findings: Vec<Finding>,
    /// Set when the backend cannot run the unit's variant at all: why (`no NVVM intrinsic`).
    /// The pair then counts as unsupported on the dashboard and gets no successor.
    #[serde(default)]
    #[schema(max_length = 1000)]
    pub unsupported: Option<String>,
}

/// An array of [`FindingSchema`].
pub fn findings_schema() -> ArrayBuilder {
    ArrayBuilder::new().items(FindingSchema::schema())
}

/// A proof result to store.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewProof {
    /// The rule's name.
    #[schema(max_length = 500)]
    pub rule: String,
    /// `proved`, `counterexample` or `unknown`.
    #[schema(schema_with = verdict_schema)]
    pub verdict: String,
    /// The counterexample, when there is one.
    #[serde(default)]
    #[schema(max_length = 10000)]
    pub counterexample: String,
    /// The solver and its version.
    #[schema(max_length = 200)]
    pub solver: String,
    /// Time taken, seconds.
    #[schema(minimum = 0)]
    pub seconds: f64,
}

/// A stored proof result.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct Proof {
    /// Its id.
    pub id: i64,
    /// The rule's name.
    pub rule: String,
    /// `proved`, `counterexample` or `unknown`.
    #[schema(schema_with = verdict_schema)]
    pub verdict: String,
    /// The counterexample, or empty.
    pub counterexample: String,
    /// The solver.
    pub solver: String,
    /// Time taken.
    pub seconds: f64,
    /// When stored (RFC 3339).
    pub created: String,
}

/// The ids of a stored batch of proofs or LLVM verdicts.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct BatchIds {
    /// In the posted order (empty for a repeated batch).
    pub ids: Vec<i64>,
    /// True when the batch's `Idempotency-Key` was stored already: nothing was stored.
    #[serde(default)]
    pub duplicate: bool,
}

/// A page of proofs.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct ProofPage {
    /// Newest first.
    pub proofs: Vec<Proof>,
}

/// One `semfuzz validate-llc` verdict: a function at a target under one LLVM.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewLlcVerdict {
    /// LLVM's version (`22.1.0`): the dashboard has a page per version.
    #[schema(schema_with = short_name_schema)]
    pub llvm: String,
    /// The compiler that emitted the PTX and its LLVM (`llvmlite (LLVM 22.1.0)`, `llc-16
    /// (LLVM 16.0.6)`).
    #[schema(max_length = 200)]
    pub compiler: String,
    /// The IR function's name, without `@` (`fma_bf16`).
    #[schema(schema_with = long_name_schema)]
    pub function: String,
    /// The target (`sm_70`).
    #[schema(schema_with = short_name_schema)]
    pub target: String,
    /// `proved`, `counterexample`, `unknown` or `unsupported`.
    #[schema(schema_with = llc_verdict_schema)]
    pub verdict: String,
    /// Why, for `unknown` (the solver's reason) and `unsupported` (the instruction or IR
    /// feature that stops it).
    #[serde(default)]
    #[schema(max_length = 2000)]
    pub detail: String,
    /// For a counterexample: the inputs, what the IR allows and what the PTX computes, one
    /// per line.
    #[serde(default)]
    #[schema(max_length = 10000)]
    pub counterexample: String,
    /// For a counterexample: a bug report in Markdown, ready to file upstream.
    #[serde(default)]
    #[schema(max_length = 100000)]
    pub report: String,
    /// Time taken, seconds.
    #[schema(minimum = 0)]
    pub seconds: f64,
}

/// A stored `semfuzz validate-llc` verdict.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct LlcVerdict {
    /// Its id (`/llc/verdicts/{id}` on the dashboard).
    pub id: i64,
    /// LLVM's version.
    pub llvm: String,
    /// The compiler and its LLVM.
    pub compiler: String,
    /// The IR function's name.
    pub function: String,
    /// The target.
    pub target: String,
    /// `proved`, `counterexample`, `unknown` or `unsupported`.
    #[schema(schema_with = llc_verdict_schema)]
    pub verdict: String,
    /// Why, for `unknown` and `unsupported`; or empty.
    pub detail: String,
    /// The counterexample's lines, or empty.
    pub counterexample: String,
    /// The bug report in Markdown, or empty.
    pub report: String,
    /// Time taken, seconds.
    pub seconds: f64,
    /// When stored (RFC 3339).
    pub created: String,
}

/// A page of LLVM verdicts.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct LlcVerdictPage {
    /// Every report (not only each cell's latest), newest first.
    pub verdicts: Vec<LlcVerdict>,
}

/// Filter and paging of `GET /api/v1/llc-verdicts`.
#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct LlcVerdictQuery {
    /// Only this LLVM version, exact (`22.1.0`).
    pub llvm: Option<String>,
    /// Page size, 1..=1000 (default 100).
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<i64>,
    /// Items to skip.
    #[param(minimum = 0)]
    pub offset: Option<i64>,
}

/// One LLVM version on the dashboard: how many of its (function, target) cells stand at each
/// verdict (by their latest report).
#[derive(Clone, Debug, Default)]
pub struct LlcVersion {
    /// LLVM's version.
    pub llvm: String,
    /// Cells per verdict, in [`db::LLC_VERDICTS`]' order.
    pub cells: [i64; 4],
    /// The latest report's time.
    pub last: String,
}

/// Paging of lists other than findings.
#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct Paging {
    /// Page size, 1..=1000 (default 100).
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<i64>,
    /// Items to skip.
    #[param(minimum = 0)]
    pub offset: Option<i64>,
}

/// Campaigns.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct CampaignList {
    /// Newest first.
    pub campaigns: Vec<Campaign>,
}

/// Every error's body.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct ErrorBody {
    /// What was wrong, naming the field or header.
    pub error: String,
}

/// Totals for the dashboard and /metrics.
#[derive(Clone, Debug, Default)]
pub struct Totals {
    /// Distinct findings.
    pub findings: i64,
    /// Their occurrences (sum of counts).
    pub occurrences: i64,
    /// Open (new or confirmed) findings.
    pub open: i64,
    /// Cases run by campaigns.
    pub cases: i64,
}
