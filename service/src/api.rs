//! The JSON API under `/api/v1`, `/healthz`, `/metrics`, and the errors every route answers
//! with.

use crate::db::Error;
use crate::model::*;
use crate::AppState;
use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use semfuzz_fuzz::Finding;
use serde::Serialize;
use utoipa::OpenApi;

/// An error answer: a status and `{"error": "..."}`.
#[derive(Debug)]
pub struct ApiError(pub StatusCode, pub String);

impl ApiError {
    /// 401 for a missing or unknown token.
    pub fn unauthorized(why: &str) -> ApiError {
        ApiError(
            StatusCode::UNAUTHORIZED,
            format!("{why}: send `Authorization: Bearer TOKEN` with a token from `semfuzz token create`"),
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut r = (self.0, axum::Json(ErrorBody { error: self.1 })).into_response();
        if self.0 == StatusCode::UNAUTHORIZED {
            r.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                header::HeaderValue::from_static("Bearer"),
            );
        }
        r
    }
}

impl From<Error> for ApiError {
    fn from(e: Error) -> ApiError {
        let status = match &e {
            Error::Invalid(_) => StatusCode::UNPROCESSABLE_ENTITY,
            Error::NotFound(_) => StatusCode::NOT_FOUND,
            Error::Conflict(_) => StatusCode::CONFLICT,
            Error::Database(_) | Error::Migrate(_) => StatusCode::SERVICE_UNAVAILABLE,
        };
        ApiError(status, e.to_string())
    }
}

impl From<JsonRejection> for ApiError {
    fn from(r: JsonRejection) -> ApiError {
        ApiError(r.status(), format!("request body: {}", r.body_text()))
    }
}

impl From<QueryRejection> for ApiError {
    fn from(r: QueryRejection) -> ApiError {
        ApiError(
            StatusCode::BAD_REQUEST,
            format!("query string: {}", r.body_text()),
        )
    }
}

impl From<PathRejection> for ApiError {
    fn from(r: PathRejection) -> ApiError {
        ApiError(StatusCode::BAD_REQUEST, format!("path: {}", r.body_text()))
    }
}

/// A JSON body read by JSON Schema's rules ([`crate::strict_json`]), whose rejections are
/// [`ApiError`]s: 415 without `Content-Type: application/json`, 413 over the body limit, 400
/// for text that is not JSON, 422 for JSON of the wrong shape (naming the field).
pub struct Json<T>(pub T);

impl<S: Send + Sync, T: serde::de::DeserializeOwned> FromRequest<S> for Json<T> {
    type Rejection = ApiError;

    async fn from_request(req: axum::extract::Request, state: &S) -> Result<Self, ApiError> {
        let axum::Json(value) = axum::Json::<serde_json::Value>::from_request(req, state).await?;
        serde_path_to_error::deserialize(crate::strict_json::StrictValue(&value))
            .map(Json)
            .map_err(|e| {
                let at = e.path().to_string();
                let at = if at == "." {
                    String::new()
                } else {
                    format!("{at}: ")
                };
                ApiError(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    format!("request body: {at}{}", e.into_inner()),
                )
            })
    }
}

impl<T: Serialize> IntoResponse for Json<T> {
    fn into_response(self) -> Response {
        axum::Json(self.0).into_response()
    }
}

/// `axum::extract::Query` whose rejections are [`ApiError`]s; a query string with U+0000
/// (`%00`) is refused as [`crate::strict_json`] refuses it in bodies.
pub struct Query<T>(pub T);

impl<S: Send + Sync, T: serde::de::DeserializeOwned> FromRequestParts<S> for Query<T> {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &S,
    ) -> Result<Self, ApiError> {
        // A NUL can reach a URI only percent-encoded.
        if parts
            .uri
            .query()
            .is_some_and(|q| q.to_ascii_lowercase().contains("%00"))
        {
            return Err(ApiError(
                StatusCode::BAD_REQUEST,
                format!("query string: {}", crate::strict_json::NUL_REFUSED),
            ));
        }
        let axum::extract::Query(t) =
            axum::extract::Query::<T>::from_request_parts(parts, state).await?;
        Ok(Query(t))
    }
}

/// `axum::extract::Path` whose rejections are [`ApiError`]s.
#[derive(FromRequestParts)]
#[from_request(via(axum::extract::Path), rejection(ApiError))]
pub struct Path<T>(pub T);

/// The bearer token of a request, if any.
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .strip_prefix("Bearer ")
        .map(str::trim)
}

/// Passes when the request carries a valid token.
pub async fn require_token(state: &AppState, headers: &HeaderMap) -> Result<(), ApiError> {
    let token =
        bearer(headers).ok_or_else(|| ApiError::unauthorized("this request needs a token"))?;
    if state.db.token_valid(token).await? {
        Ok(())
    } else {
        Err(ApiError::unauthorized("unknown token"))
    }
}

/// Passes writes with a token, and reads unless `--read-token-required`.
async fn require_read(state: &AppState, headers: &HeaderMap) -> Result<(), ApiError> {
    if state.config.read_token_required {
        require_token(state, headers).await
    } else {
        Ok(())
    }
}

type ApiResult<T> = Result<Json<T>, ApiError>;

/// The 422 of operations that take findings: the checks a schema cannot state (see
/// [`FindingSchema`]).
const FINDING_RULES: &str = "Out of range, or a finding's time is no calendar date from 1970 on, \
    its `last_seen` is before its `first_seen`, or a hex pattern is wider than 64 bits.";

/// The OpenAPI document, generated from the handlers' annotations and types.
#[derive(OpenApi)]
#[openapi(
    info(title = "semfuzz service", description = "Findings, campaigns, work units, proofs and LLVM \
        translation-validation verdicts of semfuzz. \
        No text, in a body or a query, may contain U+0000 (NUL): PostgreSQL cannot store it, so \
        the server answers 422 (body) or 400 (query) on either database."),
    paths(
        post_findings, list_findings, get_finding, patch_finding,
        create_campaign, create_llc_campaign, list_campaigns, get_campaign, patch_campaign,
        lease_units, heartbeat_unit, complete_unit, post_proofs, list_proofs,
        post_llc_verdicts, list_llc_verdicts
    ),
    components(schemas(FindingSchema, ErrorBody)),
    modifiers(&BearerAuth, &ExtractorErrors)
)]
pub struct ApiDoc;

/// Documents on every operation the errors its extractors and the server around it answer
/// with, derived from the operation's shape, so that no handler can forget one: the
/// [`Json`], [`Path`] and [`Query`] wrappers above reject the same way on every route.
/// - a request body: 400 (not JSON), 413 (over `--max-body-bytes`), 415 (no
///   `Content-Type: application/json`), 422 (JSON of the wrong shape, naming the field);
/// - a path, query or header parameter: 400 (not of its type, or an unknown query field);
/// - a security requirement: 401 (no or unknown token; reads only with
///   `--read-token-required`);
/// - every operation: 503 (the database does not answer).
struct ExtractorErrors;

impl utoipa::Modify for ExtractorErrors {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        for item in doc.paths.paths.values_mut() {
            for op in [
                &mut item.get,
                &mut item.post,
                &mut item.patch,
                &mut item.put,
                &mut item.delete,
            ]
            .into_iter()
            .flatten()
            {
                let mut errors = vec![("503", "The database does not answer; retry later.")];
                if op.request_body.is_some() {
                    errors.extend([
                        ("400", "The body is not JSON."),
                        ("413", "The body is larger than the server's limit."),
                        ("415", "The body is not sent as `Content-Type: application/json`."),
                        ("422", "The body is JSON of the wrong shape or out of range; the error names the field."),
                    ]);
                }
                if op.parameters.as_ref().is_some_and(|p| !p.is_empty()) {
                    errors.push((
                        "400",
                        "A path, query or header parameter is not of its type, or the query has an unknown field.",
                    ));
                }
                if op.security.as_ref().is_some_and(|s| !s.is_empty()) {
                    errors.push((
                        "401",
                        "No token, or an unknown one (reads need one only with `--read-token-required`).",
                    ));
                }
                for (status, description) in errors {
                    op.responses
                        .responses
                        .entry(status.to_string())
                        .or_insert_with(|| error_response(description));
                }
            }
        }
    }
}

/// An error response: `description` and an [`ErrorBody`].
fn error_response(description: &str) -> utoipa::openapi::RefOr<utoipa::openapi::Response> {
    use utoipa::openapi::{ContentBuilder, Ref, ResponseBuilder};
    ResponseBuilder::new()
        .description(description)
        .content(
            "application/json",
            ContentBuilder::new()
                .schema(Some(Ref::from_schema_name("ErrorBody")))
                .build(),
        )
        .build()
        .into()
}

struct BearerAuth;

impl utoipa::Modify for BearerAuth {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
        let components = doc.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
    }
}

/// The `/api/v1` routes, `/healthz` and `/metrics`.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/v1/openapi.json", get(openapi))
        .route("/api/v1/findings", post(post_findings).get(list_findings))
        .route(
            "/api/v1/findings/{id}",
            get(get_finding).patch(patch_finding),
        )
        .route(
            "/api/v1/campaigns",
            post(create_campaign).get(list_campaigns),
        )
        .route("/api/v1/llc-campaigns", post(create_llc_campaign))
        .route(
            "/api/v1/campaigns/{id}",
            get(get_campaign).patch(patch_campaign),
        )
        .route("/api/v1/units/lease", post(lease_units))
        .route("/api/v1/units/{id}/heartbeat", post(heartbeat_unit))
        .route("/api/v1/units/{id}/complete", post(complete_unit))
        .route("/api/v1/proofs", post(post_proofs).get(list_proofs))
        .route(
            "/api/v1/llc-verdicts",
            post(post_llc_verdicts).get(list_llc_verdicts),
        )
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
}

async fn openapi() -> Json<utoipa::openapi::OpenApi> {
    Json(ApiDoc::openapi())
}

/// Stores a batch of findings. Send `Idempotency-Key: K` (any unique text per batch, e.g. a
/// UUID) to make retries safe: a batch whose key was stored already changes nothing.
#[utoipa::path(post, path = "/api/v1/findings", request_body(content = Vec<FindingSchema>),
    params(("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 200, description = "Unique per batch (1 to 200 characters); a repeated key is not stored again")),
    responses((status = 201, body = IngestResult), (status = 200, description = "Repeated batch", body = IngestResult),
        (status = 422, description = FINDING_RULES, body = ErrorBody)),
    security(("bearer" = [])))]
async fn post_findings(
    State(s): State<AppState>,
    headers: HeaderMap,
    Json(batch): Json<Vec<Finding>>,
) -> Result<Response, ApiError> {
    require_token(&s, &headers).await?;
    let result =
        s.db.ingest(&batch, idempotency_key(&headers)?, "api")
            .await?;
    s.metrics.add_findings(result.accepted as u64);
    Ok(stored(result.duplicate, result))
}

/// The answer to a stored batch: 201, or 200 when its `Idempotency-Key` was stored before.
fn stored(duplicate: bool, body: impl Serialize) -> Response {
    let status = if duplicate {
        StatusCode::OK
    } else {
        StatusCode::CREATED
    };
    (status, Json(body)).into_response()
}

/// The request's `Idempotency-Key`, if it has one.
fn idempotency_key(headers: &HeaderMap) -> Result<Option<&str>, ApiError> {
    headers
        .get("idempotency-key")
        .map(|v| {
            v.to_str().map_err(|_| {
                ApiError(
                    StatusCode::BAD_REQUEST,
                    "Idempotency-Key: must be ASCII".into(),
                )
            })
        })
        .transpose()
}

/// Findings matching the filters, with paging.
#[utoipa::path(get, path = "/api/v1/findings", params(FindingQuery),
    responses((status = 200, body = FindingPage), (status = 422, body = ErrorBody)),
    security((), ("bearer" = [])))]
async fn list_findings(
    State(s): State<AppState>,
    headers: HeaderMap,
    Query(q): Query<FindingQuery>,
) -> ApiResult<FindingPage> {
    require_read(&s, &headers).await?;
    let (findings, total) = s.db.list_findings(&q).await?;
    let (limit, offset) = (q.limit.unwrap_or(100), q.offset.unwrap_or(0));
    let next_offset =
        (offset + (findings.len() as i64) < total).then_some(offset + findings.len() as i64);
    Ok(Json(FindingPage {
        findings,
        total,
        limit,
        offset,
        next_offset,
    }))
}

/// One finding and its history.
#[utoipa::path(get, path = "/api/v1/findings/{id}", params(("id" = i64, Path)),
    responses((status = 200, body = FindingDetail), (status = 404, body = ErrorBody)),
    security((), ("bearer" = [])))]
async fn get_finding(
    State(s): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<i64>,
) -> ApiResult<FindingDetail> {
    require_read(&s, &headers).await?;
    let (finding, history) = s.db.finding(id).await?;
    Ok(Json(FindingDetail { finding, history }))
}

/// Triage: sets a finding's status and/or note.
#[utoipa::path(patch, path = "/api/v1/findings/{id}", params(("id" = i64, Path)), request_body = FindingPatch,
    responses((status = 200, body = StoredFinding), (status = 404, body = ErrorBody),
        (status = 422, body = ErrorBody)),
    security(("bearer" = [])))]
async fn patch_finding(
    State(s): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<i64>,
    Json(p): Json<FindingPatch>,
) -> ApiResult<StoredFinding> {
    require_token(&s, &headers).await?;
    Ok(Json(s.db.triage(id, &p).await?))
}

/// Creates a campaign and its work units.
#[utoipa::path(post, path = "/api/v1/campaigns", request_body = NewCampaign,
    responses((status = 201, body = Campaign),
        (status = 422, description = "Out of range, or the `variants` glob matches no variant, or the campaign would have more than 200000 work units (rules a schema cannot state: see `NewCampaign`).", body = ErrorBody)),
    security(("bearer" = [])))]
async fn create_campaign(
    State(s): State<AppState>,
    headers: HeaderMap,
    Json(c): Json<NewCampaign>,
) -> Result<Response, ApiError> {
    require_token(&s, &headers).await?;
    let campaign = s.db.create_campaign(&c, &s.config.variants).await?;
    Ok((StatusCode::CREATED, Json(campaign)).into_response())
}

/// Creates a `semfuzz validate-llc` campaign: one work unit per function × target × LLVM
/// compiler, leased to workers that name the compiler among their `llcs`; each posts its
/// verdict to `/api/v1/llc-verdicts` and completes the unit. The campaign is listed with the
/// others (`kind: validate-llc`).
#[utoipa::path(post, path = "/api/v1/llc-campaigns", request_body = NewLlcCampaign,
    responses((status = 201, body = Campaign),
        (status = 422, description = "Out of range, or the campaign would have more than 200000 work units (a rule a schema cannot state: see `NewLlcCampaign`).", body = ErrorBody)),
    security(("bearer" = [])))]
async fn create_llc_campaign(
    State(s): State<AppState>,
    headers: HeaderMap,
    Json(c): Json<NewLlcCampaign>,
) -> Result<Response, ApiError> {
    require_token(&s, &headers).await?;
    let campaign = s.db.create_llc_campaign(&c).await?;
    Ok((StatusCode::CREATED, Json(campaign)).into_response())
}

/// Every campaign with its progress.
#[utoipa::path(get, path = "/api/v1/campaigns", responses((status = 200, body = CampaignList)),
    security((), ("bearer" = [])))]
async fn list_campaigns(State(s): State<AppState>, headers: HeaderMap) -> ApiResult<CampaignList> {
    require_read(&s, &headers).await?;
    Ok(Json(CampaignList {
        campaigns: s.db.campaigns().await?,
    }))
}

/// One campaign's progress, throughput over time, and each backend's pass.
#[utoipa::path(get, path = "/api/v1/campaigns/{id}", params(("id" = i64, Path)),
    responses((status = 200, body = CampaignProgress), (status = 404, body = ErrorBody)),
    security((), ("bearer" = [])))]
async fn get_campaign(
    State(s): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<i64>,
) -> ApiResult<CampaignProgress> {
    require_read(&s, &headers).await?;
    let campaign = s.db.campaign(id).await?;
    Ok(Json(CampaignProgress {
        campaign,
        throughput: s.db.throughput(id).await?,
        passes: s.db.passes(id).await?,
    }))
}

/// Pauses, resumes or stops a campaign.
#[utoipa::path(patch, path = "/api/v1/campaigns/{id}", params(("id" = i64, Path)), request_body = CampaignPatch,
    responses((status = 200, body = Campaign), (status = 404, body = ErrorBody)),
    security(("bearer" = [])))]
async fn patch_campaign(
    State(s): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<i64>,
    Json(p): Json<CampaignPatch>,
) -> ApiResult<Campaign> {
    require_token(&s, &headers).await?;
    Ok(Json(s.db.set_campaign_status(id, &p.status).await?))
}

/// Leases work units for a worker.
#[utoipa::path(post, path = "/api/v1/units/lease", request_body = LeaseRequest,
    responses((status = 200, body = Leases), (status = 422, body = ErrorBody)),
    security(("bearer" = [])))]
async fn lease_units(
    State(s): State<AppState>,
    headers: HeaderMap,
    Json(r): Json<LeaseRequest>,
) -> ApiResult<Leases> {
    require_token(&s, &headers).await?;
    Ok(Json(Leases {
        leases: s.db.lease(&r).await?,
    }))
}

/// Extends a unit's lease.
#[utoipa::path(post, path = "/api/v1/units/{id}/heartbeat", params(("id" = i64, Path)), request_body = Heartbeat,
    responses((status = 200, body = HeartbeatResult), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)),
    security(("bearer" = [])))]
async fn heartbeat_unit(
    State(s): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<i64>,
    Json(h): Json<Heartbeat>,
) -> ApiResult<HeartbeatResult> {
    require_token(&s, &headers).await?;
    Ok(Json(HeartbeatResult {
        expires_ms: s.db.heartbeat(id, &h).await?,
    }))
}

/// Finishes a unit with its cases and findings; repeating it changes nothing.
#[utoipa::path(post, path = "/api/v1/units/{id}/complete", params(("id" = i64, Path)), request_body = Completion,
    responses((status = 200, body = IngestResult), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody),
        (status = 422, description = FINDING_RULES, body = ErrorBody)),
    security(("bearer" = [])))]
async fn complete_unit(
    State(s): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<i64>,
    Json(c): Json<Completion>,
) -> ApiResult<IngestResult> {
    require_token(&s, &headers).await?;
    let r = s.db.complete(id, &c).await?;
    if !r.duplicate {
        s.metrics.add_findings(r.accepted as u64);
        s.metrics.add_cases(c.cases.max(0) as u64);
    }
    Ok(Json(r))
}

/// Stores proof results. With `Idempotency-Key`, a batch whose key was stored already
/// changes nothing (200, `duplicate: true`).
#[utoipa::path(post, path = "/api/v1/proofs", request_body = Vec<NewProof>,
    params(("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 200, description = "Unique per batch (1 to 200 characters); a repeated key is not stored again")),
    responses((status = 201, body = BatchIds), (status = 200, description = "Repeated batch", body = BatchIds),
        (status = 422, body = ErrorBody)),
    security(("bearer" = [])))]
async fn post_proofs(
    State(s): State<AppState>,
    headers: HeaderMap,
    Json(p): Json<Vec<NewProof>>,
) -> Result<Response, ApiError> {
    require_token(&s, &headers).await?;
    let ids = s.db.add_proofs(&p, idempotency_key(&headers)?).await?;
    Ok(stored(ids.duplicate, ids))
}

/// Proof results, newest first.
#[utoipa::path(get, path = "/api/v1/proofs", params(Paging),
    responses((status = 200, body = ProofPage), (status = 422, body = ErrorBody)),
    security((), ("bearer" = [])))]
async fn list_proofs(
    State(s): State<AppState>,
    headers: HeaderMap,
    Query(p): Query<Paging>,
) -> ApiResult<ProofPage> {
    require_read(&s, &headers).await?;
    Ok(Json(ProofPage {
        proofs: s
            .db
            .proofs(p.limit.unwrap_or(100), p.offset.unwrap_or(0))
            .await?,
    }))
}

/// Stores `semfuzz validate-llc` verdicts (every report is kept; the dashboard's
/// `/llc/{version}` matrix shows each function and target's latest). With
/// `Idempotency-Key`, a batch whose key was stored already changes nothing (200,
/// `duplicate: true`).
#[utoipa::path(post, path = "/api/v1/llc-verdicts", request_body = Vec<NewLlcVerdict>,
    params(("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 200, description = "Unique per batch (1 to 200 characters); a repeated key is not stored again")),
    responses((status = 201, body = BatchIds), (status = 200, description = "Repeated batch", body = BatchIds),
        (status = 422, body = ErrorBody)),
    security(("bearer" = [])))]
async fn post_llc_verdicts(
    State(s): State<AppState>,
    headers: HeaderMap,
    Json(v): Json<Vec<NewLlcVerdict>>,
) -> Result<Response, ApiError> {
    require_token(&s, &headers).await?;
    let ids =
        s.db.add_llc_verdicts(&v, idempotency_key(&headers)?)
            .await?;
    Ok(stored(ids.duplicate, ids))
}

/// `semfuzz validate-llc` verdicts, every report, newest first; `llvm` keeps one LLVM
/// version's.
#[utoipa::path(get, path = "/api/v1/llc-verdicts", params(LlcVerdictQuery),
    responses((status = 200, body = LlcVerdictPage), (status = 422, body = ErrorBody)),
    security((), ("bearer" = [])))]
async fn list_llc_verdicts(
    State(s): State<AppState>,
    headers: HeaderMap,
    Query(q): Query<LlcVerdictQuery>,
) -> ApiResult<LlcVerdictPage> {
    require_read(&s, &headers).await?;
    Ok(Json(LlcVerdictPage {
        verdicts: s
            .db
            .llc_verdicts(
                q.llvm.as_deref(),
                q.limit.unwrap_or(100),
                q.offset.unwrap_or(0),
            )
            .await?,
    }))
}

async fn healthz(State(s): State<AppState>) -> Result<&'static str, ApiError> {
    s.db.queue_depth().await?;
    Ok("ok\n")
}

async fn metrics(State(s): State<AppState>, headers: HeaderMap) -> Result<Response, ApiError> {
    require_read(&s, &headers).await?;
    let totals = s.db.totals().await?;
    let queue = s.db.queue_depth().await?;
    let recent = s.db.recent_cases(60_000).await?;
    let mut out = s.metrics.render();
    let gauge = |out: &mut String, name: &str, help: &str, v: f64| {
        out.push_str(&format!(
            "# HELP {name} {help}\n# TYPE {name} gauge\n{name} {v}\n"
        ));
    };
    gauge(
        &mut out,
        "semfuzz_findings",
        "Distinct findings stored.",
        totals.findings as f64,
    );
    gauge(
        &mut out,
        "semfuzz_findings_open",
        "Findings with status new or confirmed.",
        totals.open as f64,
    );
    gauge(
        &mut out,
        "semfuzz_finding_occurrences",
        "Sum of the findings' counts.",
        totals.occurrences as f64,
    );
    gauge(
        &mut out,
        "semfuzz_campaign_cases",
        "Cases run by all campaigns.",
        totals.cases as f64,
    );
    gauge(
        &mut out,
        "semfuzz_cases_per_second",
        "Cases finished per second over the last minute.",
        recent as f64 / 60.0,
    );
    gauge(
        &mut out,
        "semfuzz_queue_depth",
        "Work units waiting for a worker.",
        queue as f64,
    );
    Ok(([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], out).into_response())
}

/// 404 for a path no route has.
pub async fn not_found(uri: axum::http::Uri) -> ApiError {
    ApiError(
        StatusCode::NOT_FOUND,
        format!("no such path: {}", uri.path()),
    )
}

/// 405 for a method a path does not take.
pub async fn method_not_allowed(method: axum::http::Method, uri: axum::http::Uri) -> ApiError {
    ApiError(
        StatusCode::METHOD_NOT_ALLOWED,
        format!("{} does not take {method}", uri.path()),
    )
}
