//! `validate-llc` as a campaign of the service: `semfuzz validate-llc --campaign` posts the
//! catalogue's (function, target, LLVM) triples as work units, and `semfuzz worker` runs each
//! one it leases through the steps `validate-llc` takes for one function at one target
//! ([`crate::units`], the compile, [`crate::validate`], [`crate::stored`]), so a fleet of
//! machines shares the proofs and their verdicts fill the dashboard's `/llc` matrix.
//!
//! Each unit is proved on its own: a campaign does not skip a spelling whose PTX is that of a
//! stricter spelling at the same target, as a run in one process does, since the two may be
//! units of different machines.

use crate::compile::Compiler;
use crate::Args;
use anyhow::{anyhow, Result};
use semfuzz_service::client::Reporter;
use semfuzz_service::model::{Lease, NewLlcCampaign, NewLlcVerdict};
use semfuzz_smt::solve::{Options, Unknowns};
use semfuzz_spec::Spec;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The solver options of `validate-llc` and of a worker's `validate-llc` units: `timeout_ms`
/// per query, the proof cache `semfuzz prove` keeps, the default fallback solvers, and
/// unknowns reused (the catalogue has queries no solver decides within the timeout); proofs
/// are cached in `cache` (`semfuzz prove`'s cache, so either reuses the other's).
pub fn options(timeout_ms: u32, cache: &Path) -> Options {
    Options {
        timeout_ms,
        cache: Some(cache.into()),
        emit_smt2: None,
        portfolio: Vec::new(),
        fallback: Options::default_fallback(),
        explain: false,
        unknowns: Unknowns::Reuse,
        unroll: None,
        licences: Default::default(),
        may_alias: false,
    }
}

/// The names (`llvmlite`, `llc-16`) of every LLVM compiler this machine has, as `--llc all`
/// finds them: the `validate-llc` units a worker can take by default.
pub fn available() -> Vec<String> {
    Compiler::all()
        .map(|all| all.into_iter().map(|c| c.name).collect())
        .unwrap_or_default()
}

/// Creates the campaign of `args` (the catalogue functions `--only` chooses, at its targets,
/// under each compiler `--llc` names, `all` for every one of this machine) on `service`; the
/// line returned says how workers join it.
pub fn create(args: &Args, service: &Reporter) -> Result<String> {
    if !args.files.is_empty() {
        return Err(anyhow!(
            "--campaign validates the built-in catalogue: the workers have no copy of {}",
            args.files[0].display()
        ));
    }
    let llcs = if args.llc == "all" {
        available()
    } else {
        vec![args.llc.clone()]
    };
    if llcs.is_empty() {
        return Err(anyhow!(
            "--llc all: no LLVM compiler on this machine; name one (llvmlite, llc-16) for the workers"
        ));
    }
    std::fs::create_dir_all(&args.work)
        .map_err(|e| anyhow!("cannot create {}: {e}", args.work.display()))?;
    let (units, _) = crate::units(args, &args.work)?;
    let targets = crate::targets(&args.sms)?;
    let campaign = NewLlcCampaign {
        name: format!(
            "validate-llc{} at {} with {}",
            if args.only.is_empty() {
                String::new()
            } else {
                format!(" --only {}", args.only.join(","))
            },
            targets.join(","),
            llcs.join(",")
        ),
        functions: units.into_iter().map(|u| u.func).collect(),
        targets,
        llcs,
    };
    let created = service.llc_campaign(&campaign)?;
    let server = service.server();
    Ok(format!(
        "campaign {}: {} units ({} functions × {} targets × {}); each `semfuzz worker --server {server} --token T` with the compiler takes them; progress at {server}/campaigns/{}, verdicts at {server}/llc",
        created.id,
        created.units,
        campaign.functions.len(),
        campaign.targets.len(),
        campaign.llcs.join(", "),
        created.id
    ))
}

/// Runs a worker's `validate-llc` units, keeping each compiler it found for the next unit.
pub struct LlcRunner {
    spec: Arc<Spec>,
    opts: Options,
    /// This process's own work directory: two workers of one machine write files of the same
    /// names.
    work: PathBuf,
    compilers: HashMap<String, Compiler>,
}

impl LlcRunner {
    /// A runner proving with `opts`, writing its `.ll` and `.ptx` files under a directory of
    /// its own in the system's temporary directory (removed when it is dropped).
    pub fn new(spec: Arc<Spec>, opts: Options) -> LlcRunner {
        LlcRunner {
            spec,
            opts,
            work: std::env::temp_dir().join(format!("semfuzz-worker-{}", std::process::id())),
            compilers: HashMap::new(),
        }
    }

    /// The verdict of `lease`'s function at its target under its compiler, as `validate-llc
    /// --report` posts it.
    pub fn run(&mut self, lease: &Lease) -> Result<NewLlcVerdict> {
        let sm = lease
            .target
            .clone()
            .ok_or_else(|| anyhow!("unit {} has no target", lease.unit))?;
        if !self.compilers.contains_key(&lease.backend) {
            let c = Compiler::named(&lease.backend)?;
            self.compilers.insert(lease.backend.clone(), c);
        }
        let compiler = &self.compilers[&lease.backend];
        std::fs::create_dir_all(&self.work)?;
        let args = Args {
            files: Vec::new(),
            llc: lease.backend.clone(),
            sms: sm.clone(),
            json: None,
            work: self.work.clone(),
            repro: None,
            only: vec![lease.variant.clone()],
            fold: 0,
            run_lines: false,
        };
        let (units, modules) = crate::units(&args, &self.work)?;
        let u = units
            .iter()
            .find(|u| u.func == lease.variant)
            .ok_or_else(|| anyhow!("no catalogue function `{}` in this semfuzz", lease.variant))?;
        let ptx = compiler.compile(&modules, std::slice::from_ref(&sm))?;
        let compiled = &ptx[&sm][&u.module];
        let ptx_dir = self.work.join(compiler.name.replace('/', "_"));
        std::fs::create_dir_all(&ptx_dir)?;
        let v = crate::validate(
            &self.spec, u, &sm, compiled, &ptx_dir, compiler, &self.opts, None,
        )?;
        eprintln!(
            "semfuzz worker: {} {sm}: {} ({:.2}s, {})",
            u.func,
            v.kind,
            v.seconds,
            compiler.label()
        );
        Ok(crate::stored(u, &sm, compiled, compiler, &v, &ptx_dir, None)?.0)
    }
}

impl Drop for LlcRunner {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.work);
    }
}
