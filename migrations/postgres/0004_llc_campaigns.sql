-- A `validate-llc` catalogue run as a campaign (issue 19): its units are (IR function, target,
-- LLVM) triples leased to workers like fuzz units. migrations/sqlite/0004_llc_campaigns.sql is
-- the same statements (both dialects accept them).
--
-- `kind` says what a campaign's units are: `fuzz` (a variant on a backend) or `validate-llc`.
ALTER TABLE campaigns ADD COLUMN kind TEXT NOT NULL DEFAULT 'fuzz';
-- A validate-llc unit's target (`sm_70`); its `variant` is the IR function and its `backend`
-- the LLVM compiler (`llvmlite`, `llc-16`). NULL on fuzz units: a worker leases a unit with a
-- target only when it names the unit's compiler among those it has.
ALTER TABLE work_units ADD COLUMN target TEXT;
