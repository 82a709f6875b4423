-- The semfuzz service's schema (SQLite). migrations/postgres/0001_init.sql is the same
-- schema in PostgreSQL's types; the two differ only in id columns and float types.
-- Times are RFC 3339 UTC text (`2026-01-02T03:04:05Z`), which sorts as time; lease
-- deadlines are Unix milliseconds.

CREATE TABLE tokens (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    hash TEXT NOT NULL UNIQUE,
    created TEXT NOT NULL
);

CREATE TABLE findings (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    signature TEXT NOT NULL UNIQUE,
    variant TEXT NOT NULL,
    family TEXT NOT NULL,
    backend TEXT NOT NULL,
    backend_version TEXT NOT NULL,
    device TEXT NOT NULL,
    class TEXT NOT NULL,
    part TEXT NOT NULL,
    operand_classes TEXT NOT NULL,
    inputs TEXT NOT NULL,
    example_size BIGINT NOT NULL,
    expected TEXT NOT NULL,
    actual TEXT NOT NULL,
    detail TEXT NOT NULL,
    count BIGINT NOT NULL,
    first_seen TEXT NOT NULL,
    last_seen TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'new',
    note TEXT NOT NULL DEFAULT ''
);
CREATE INDEX findings_variant_backend ON findings (variant, backend);
CREATE INDEX findings_last_seen ON findings (last_seen);

CREATE TABLE finding_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    finding_id BIGINT NOT NULL REFERENCES findings (id),
    at TEXT NOT NULL,
    kind TEXT NOT NULL,
    count BIGINT NOT NULL,
    detail TEXT NOT NULL
);
CREATE INDEX finding_events_finding ON finding_events (finding_id);

CREATE TABLE batches (
    key TEXT PRIMARY KEY,
    received TEXT NOT NULL,
    findings BIGINT NOT NULL
);

CREATE TABLE campaigns (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    variants TEXT NOT NULL,
    backends TEXT NOT NULL,
    generator TEXT NOT NULL,
    cases_per_unit BIGINT NOT NULL,
    continuous BIGINT NOT NULL,
    status TEXT NOT NULL,
    created TEXT NOT NULL,
    cases BIGINT NOT NULL DEFAULT 0,
    findings BIGINT NOT NULL DEFAULT 0
);

CREATE TABLE campaign_samples (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    campaign_id BIGINT NOT NULL REFERENCES campaigns (id),
    at_ms BIGINT NOT NULL,
    cases BIGINT NOT NULL
);
CREATE INDEX campaign_samples_campaign ON campaign_samples (campaign_id, at_ms);

CREATE TABLE work_units (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    campaign_id BIGINT NOT NULL REFERENCES campaigns (id),
    variant TEXT NOT NULL,
    backend TEXT NOT NULL,
    seed BIGINT NOT NULL,
    cases BIGINT NOT NULL,
    status TEXT NOT NULL,
    lease_token TEXT,
    lease_owner TEXT,
    lease_expires_ms BIGINT,
    attempts BIGINT NOT NULL DEFAULT 0,
    done_cases BIGINT,
    completed TEXT
);
-- Leasing reads only these two small sets: queued units in id order, and leases by expiry.
CREATE INDEX work_units_queued ON work_units (id) WHERE status = 'queued';
CREATE INDEX work_units_leased ON work_units (lease_expires_ms) WHERE status = 'leased';

CREATE TABLE proofs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    rule TEXT NOT NULL,
    verdict TEXT NOT NULL,
    counterexample TEXT NOT NULL,
    solver TEXT NOT NULL,
    seconds DOUBLE NOT NULL,
    created TEXT NOT NULL
);
