-- Wide before deep (issue 21). migrations/sqlite/0002_wide_before_deep.sql is the same in
-- SQLite's dialect; the two differ only in the backfill (a variant's family, the sums' type).
--
-- Units are leased in `priority` order (then id), no longer in id order: a campaign's first
-- pass interleaves families and backends, and a continuous campaign's later units are
-- ordered by the cases their pair has run (fewer first, pairs with findings favoured).
-- `pass` is how many units of the same (variant, backend) pair were done before this one.
ALTER TABLE work_units ADD COLUMN priority BIGINT NOT NULL DEFAULT 0;
ALTER TABLE work_units ADD COLUMN pass BIGINT NOT NULL DEFAULT 0;
DROP INDEX work_units_queued;
CREATE INDEX work_units_queued ON work_units (priority, id) WHERE status = 'queued';
-- A worker that runs one backend leases from this one (its units, in priority order).
CREATE INDEX work_units_queued_backend ON work_units (backend, priority, id) WHERE status = 'queued';
-- The campaign page's pass estimate counts recent completions per backend.
CREATE INDEX work_units_done ON work_units (campaign_id, completed) WHERE status = 'done';

-- One row per (variant, backend) pair of a campaign: what the coverage matrix and the
-- campaign's passes are computed from, and what a successor's size and priority come from.
CREATE TABLE campaign_pairs (
    campaign_id BIGINT NOT NULL REFERENCES campaigns (id),
    variant TEXT NOT NULL,
    family TEXT NOT NULL,
    backend TEXT NOT NULL,
    -- Units completed, cases they ran, finding occurrences they reported.
    units BIGINT NOT NULL DEFAULT 0,
    cases BIGINT NOT NULL DEFAULT 0,
    findings BIGINT NOT NULL DEFAULT 0,
    -- Why the backend cannot run the variant, once a worker said so (NULL: it can, or no
    -- worker has tried yet).
    unsupported TEXT,
    PRIMARY KEY (campaign_id, variant, backend)
);
CREATE INDEX campaign_pairs_family ON campaign_pairs (family, backend);

-- Campaigns created before this migration: their pairs from their units.
INSERT INTO campaign_pairs (campaign_id, variant, family, backend, units, cases)
SELECT campaign_id, variant,
       split_part(variant, '.', 1),
       backend,
       CAST(SUM(CASE WHEN status = 'done' THEN 1 ELSE 0 END) AS BIGINT),
       CAST(COALESCE(SUM(CASE WHEN status = 'done' THEN done_cases ELSE 0 END), 0) AS BIGINT)
FROM work_units GROUP BY campaign_id, variant, backend;
