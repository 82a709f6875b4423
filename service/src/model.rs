//! The API's request and response types (their OpenAPI schemas come from these).

use semfuzz_fuzz::Finding;
use serde::{Deserialize, Serialize};
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, Schema, Type};
use utoipa::openapi::RefOr;
use utoipa::{IntoParams, PartialSchema, ToSchema};

/// The schema of [`Finding`], the object `semfuzz fuzz --json` writes (semfuzz-fuzz owns the
/// type, so its schema is spelled out here from its fields).
pub struct FindingSchema;

impl PartialSchema for FindingSchema {
    fn schema() -> RefOr<Schema> {
        let text = |d: &str| {
            ObjectBuilder::new()
                .schema_type(Type::String)
                .description(Some(d))
        };
        let texts = |d: &str| {
            ArrayBuilder::new()
                .items(ObjectBuilder::new().schema_type(Type::String))
                .description(Some(d))
        };
        let mut o =
            ObjectBuilder::new().description(Some("A finding as `semfuzz fuzz --json` writes it."));
        for (name, desc) in [
            ("variant", "The variant's text (`add.rn.f32`)."),
            ("backend", "The backend as named on the command line."),
            ("backend_version", "The backend's version."),
            ("device", "The machine or device the backend ran on."),
            (
                "class",
                "The kind of difference (`ulp-up-1`, `sign-of-zero`, ...).",
            ),
            ("part", "The destination part that differs (`d`, `d[1]`)."),
            ("signature", "The deduplication key (16 hex digits)."),
            ("expected", "What the spec allows for the example."),
            ("actual", "What the backend returned, hex."),
            ("detail", "One line for a person."),
            ("first_seen", "RFC 3339 UTC."),
            ("last_seen", "RFC 3339 UTC."),
        ] {
            o = o.property(name, text(desc)).required(name);
        }
        o = o
            .property("operand_classes", texts("The class of each input operand."))
            .required("operand_classes")
            .property(
                "inputs",
                texts("The smallest example's inputs, hex, in operand order."),
            )
            .required("inputs")
            .property(
                "count",
                ObjectBuilder::new()
                    .schema_type(Type::Integer)
                    .minimum(Some(1))
                    .description(Some("Cases under the signature.")),
            )
            .required("count");
        RefOr::T(Schema::Object(o.build()))
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
    pub status: String,
    /// The triager's note.
    pub note: String,
    /// The finding, merged over every report of its signature.
    #[serde(flatten)]
    #[schema(inline, schema_with = FindingSchema::schema)]
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
    pub sort: Option<String>,
    /// Page size, 1..=1000 (default 100).
    pub limit: Option<i64>,
    /// Findings to skip.
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
    pub status: Option<String>,
    /// A note (plain text).
    pub note: Option<String>,
}

/// A campaign to create.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewCampaign {
    /// A name for people.
    pub name: String,
    /// Variant glob (`*` for every variant).
    pub variants: String,
    /// Backend names (`host`, `llvm`, ...).
    pub backends: Vec<String>,
    /// Input generator: `boundary`, `uniform`, `exhaustive` (as `semfuzz fuzz --generator`).
    pub generator: String,
    /// Cases per work unit (default 100000).
    pub cases_per_unit: Option<i64>,
    /// Units per variant × backend (default 1).
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
    /// Variant glob.
    pub variants: String,
    /// Backends.
    pub backends: Vec<String>,
    /// Generator.
    pub generator: String,
    /// Cases per unit.
    pub cases_per_unit: i64,
    /// Whether finished units queue successors.
    pub continuous: bool,
    /// `running`, `paused` or `stopped`.
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

/// A campaign's status change.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CampaignPatch {
    /// `running`, `paused` or `stopped`.
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
    pub worker: String,
    /// Backends the worker can run; empty for any.
    #[serde(default)]
    pub backends: Vec<String>,
    /// Units wanted, 1..=100 (default 1).
    pub max: Option<i64>,
    /// Lease length, 1..=3600 s (default 60).
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
    /// The variant to run.
    pub variant: String,
    /// The backend to run it on.
    pub backend: String,
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
    /// Cases run.
    pub cases: i64,
    /// The findings (as `semfuzz fuzz --json` writes them).
    #[schema(schema_with = findings_schema)]
    pub findings: Vec<Finding>,
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
    pub rule: String,
    /// `proved`, `counterexample` or `unknown`.
    pub verdict: String,
    /// The counterexample, when there is one.
    #[serde(default)]
    pub counterexample: String,
    /// The solver and its version.
    pub solver: String,
    /// Time taken.
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

/// Stored proofs' ids.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct ProofIds {
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

/// Paging of lists other than findings.
#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct Paging {
    /// Page size, 1..=1000 (default 100).
    pub limit: Option<i64>,
    /// Items to skip.
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
