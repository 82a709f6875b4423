-- Translation validation of LLVM's NVPTX backend (issue 19): `semfuzz validate-llc --report`
-- posts one verdict per (LLVM version, IR function, target). migrations/postgres/0003_llc_verdicts.sql
-- is the same table in PostgreSQL's types (id and float columns differ).
--
-- Every report is kept, not upserted: the dashboard's matrix shows each cell's latest row
-- (the highest id of its llvm, function and target), and a verdict's page reads the cell's
-- earlier rows to say since when the verdict has stood.
CREATE TABLE llc_verdicts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    llvm TEXT NOT NULL,
    compiler TEXT NOT NULL,
    function TEXT NOT NULL,
    target TEXT NOT NULL,
    verdict TEXT NOT NULL,
    detail TEXT NOT NULL,
    counterexample TEXT NOT NULL,
    report TEXT NOT NULL,
    seconds DOUBLE NOT NULL,
    created TEXT NOT NULL
);
-- The latest row of each cell (MAX(id) grouped by the cell), a version's matrix, and a cell's
-- history are all read along this index.
CREATE INDEX llc_verdicts_cell ON llc_verdicts (llvm, function, target, id);
-- A function and target across LLVM versions (the verdict page's regression range).
CREATE INDEX llc_verdicts_function ON llc_verdicts (function, target, llvm, id);
