//! NVIDIA's `nvcc` end to end (`semfuzz validate-nvcc`): a catalogue of CUDA C `__device__`
//! functions, one per CUDA Math API intrinsic (`nvcc/catalogue.cu`), is compiled with the CUDA
//! wheel's `nvcc -ptx -rdc=true` under each configuration of `-ftz`, `-prec-div` and
//! `-use_fast_math`, and each function's PTX is proved to refine the function's documented
//! semantics written as LLVM IR (`nvcc/reference.ll`, one function per catalogue function, the
//! documentation's sentence above each) through the same [`crate::validate`] as LLVM's and
//! libNVVM's output: the refinement, the confirmation by both evaluators, the counterexample.

use crate::compile::{Compiler, Llc};
use crate::{validate, Unit, Verdict};
use anyhow::{anyhow, Result};
use semfuzz_smt::solve::Options;
use semfuzz_spec::Spec;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The catalogue's file name in the work directory, as the printed command names it.
pub const CATALOGUE_FILE: &str = "catalogue.cu";
const CATALOGUE: &str = include_str!("nvcc/catalogue.cu");
const REFERENCE: &str = include_str!("nvcc/reference.ll");

/// How `a / b` reads under a configuration (nvcc --help: "'--prec-div=true' enables the IEEE
/// round-to-nearest mode and '--prec-div=false' enables the fast approximation mode").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Divide {
    /// IEEE division, `fdiv`.
    Ieee,
    /// The fast approximation over the full range: PTX `div.full.f32` (2 ulp).
    Full,
    /// `__fdividef`, which `-use_fast_math` makes of `x/y` (the Programming Guide's table of
    /// functions `-use_fast_math` affects): PTX `div.approx.ftz.f32`.
    Approx,
}

/// One nvcc configuration: its flags and the documented semantics they select.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// Its name in verdicts and `--config` (`default`, `ftz`, `prec-div-false`, `fast-math`).
    pub name: &'static str,
    /// The nvcc flags.
    pub flags: &'static [&'static str],
    /// Single-precision denormals flushed ("'--ftz=true' flushes denormal values to zero").
    ftz: bool,
    divide: Divide,
}

/// Every configuration, nvcc's defaults first ("'--use_fast_math' implies '--ftz=true
/// --prec-div=false --prec-sqrt=false --fmad=true'").
pub const CONFIGS: [Config; 4] = [
    Config {
        name: "default",
        flags: &[],
        ftz: false,
        divide: Divide::Ieee,
    },
    Config {
        name: "ftz",
        flags: &["-ftz=true"],
        ftz: true,
        divide: Divide::Ieee,
    },
    Config {
        name: "prec-div-false",
        flags: &["-prec-div=false"],
        ftz: false,
        divide: Divide::Full,
    },
    Config {
        name: "fast-math",
        flags: &["-use_fast_math"],
        ftz: true,
        divide: Divide::Approx,
    },
];

/// The configurations `--config` names (comma-separated; `all` or none: every one).
pub fn configs(names: &[String]) -> Result<Vec<Config>> {
    if names.is_empty() || names.iter().any(|n| n == "all") {
        return Ok(CONFIGS.to_vec());
    }
    names
        .iter()
        .map(|n| {
            CONFIGS
                .iter()
                .copied()
                .find(|c| c.name == n)
                .ok_or_else(|| {
                    anyhow!(
                        "--config: no configuration `{n}`\n  hint: the configurations are {}",
                        CONFIGS.map(|c| c.name).join(", ")
                    )
                })
        })
        .collect()
}

/// The reference module of `config`: the documented semantics under its flags.
pub fn reference(config: &Config) -> String {
    let ftz = if config.ftz { ".ftz" } else { "" };
    let divide = match config.divide {
        Divide::Ieee => "  %r = fdiv float %a, %b".to_string(),
        Divide::Full => "  %r = call float @llvm.nvvm.div.full(float %a, float %b)".to_string(),
        Divide::Approx => {
            "  %r = call float @llvm.nvvm.div.approx.ftz.f(float %a, float %b)".to_string()
        }
    };
    let attrs = if config.ftz {
        "\"denormal-fp-math-f32\"=\"preserve-sign,preserve-sign\""
    } else {
        "nounwind"
    };
    REFERENCE
        .replace("{FTZ}", ftz)
        .replace("{DIVIDE}", &divide)
        .replace("{ATTRS}", attrs)
}

/// The catalogue's function names, in its order.
pub fn functions() -> Vec<String> {
    CATALOGUE
        .lines()
        .filter_map(|l| l.strip_prefix("__device__ "))
        .filter_map(|l| l.split('(').next()?.split_whitespace().last())
        .map(str::to_string)
        .collect()
}

/// The CUDA wheel's `nvcc` (`.deps/py/nvidia/cu13/bin/nvcc`), as a compiler with `flags`.
pub fn compiler(flags: &[&str]) -> Result<(PathBuf, Compiler)> {
    let nvcc = semfuzz_backend::python_deps("nvidia/cu13/bin/nvcc")
        .map(|p| p.join("nvidia/cu13/bin/nvcc"))
        .map_err(|e| anyhow!("{e}\n  hint: `cargo xtask setup` installs the CUDA wheel (nvidia-cuda-nvcc) and the CCCL headers into .deps/py"))?;
    let out = Command::new(&nvcc)
        .arg("--version")
        .output()
        .map_err(|e| anyhow!("cannot run {}: {e}", nvcc.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    // "Cuda compilation tools, release 13.5, V13.5.37"
    let version = text
        .split(", V")
        .nth(1)
        .and_then(|v| v.split_whitespace().next())
        .ok_or_else(|| anyhow!("`nvcc --version` names no version:\n{text}"))?
        .to_string();
    Ok((
        nvcc,
        Compiler {
            llc: Llc::Nvcc,
            name: "nvcc".into(),
            version,
            commit: None,
            flags: flags.iter().map(|f| f.to_string()).collect(),
        },
    ))
}

/// One verdict: a catalogue function under a configuration at a target.
pub struct Row {
    /// The catalogue function.
    pub function: String,
    /// The configuration's name.
    pub config: &'static str,
    /// The target.
    pub sm: String,
    /// The verdict.
    pub verdict: Verdict,
    /// The compiler that judged it (its flags are the configuration's).
    pub compiler: Compiler,
}

/// Compiles the catalogue for every configuration and target into `work` and judges each
/// function (all, or those in `only`), calling `each` with every verdict as it comes.
pub fn run(
    spec: &Spec,
    configs: &[Config],
    sms: &[String],
    only: &[String],
    work: &Path,
    opts: &Options,
    mut each: impl FnMut(&Row),
) -> Result<Vec<Row>> {
    let names = functions();
    if let Some(bad) = only.iter().find(|o| !names.contains(o)) {
        return Err(anyhow!(
            "--only: `{bad}` is not in the catalogue\n  hint: the functions are {}",
            names.join(", ")
        ));
    }
    std::fs::create_dir_all(work).map_err(|e| anyhow!("cannot create {}: {e}", work.display()))?;
    let work = std::fs::canonicalize(work)?;
    std::fs::write(work.join(CATALOGUE_FILE), CATALOGUE)?;
    let mut rows = Vec::new();
    for config in configs {
        let (nvcc, compiler) = compiler(config.flags)?;
        let dir = work.join(config.name);
        std::fs::create_dir_all(&dir)?;
        let ll = dir.join("reference.ll");
        std::fs::write(&ll, reference(config))?;
        for sm in sms {
            let ptx_file = dir.join(format!("catalogue-{sm}.ptx"));
            let out = Command::new(&nvcc)
                .args(compiler.options(sm))
                .arg(work.join(CATALOGUE_FILE))
                .arg("-o")
                .arg(&ptx_file)
                .output()
                .map_err(|e| anyhow!("cannot run {}: {e}", nvcc.display()))?;
            let compiled = if out.status.success() {
                Ok(std::fs::read_to_string(&ptx_file)?)
            } else {
                let err = String::from_utf8_lossy(&out.stderr);
                Err(err
                    .lines()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("failed")
                    .to_string())
            };
            for name in names.iter().filter(|n| only.is_empty() || only.contains(n)) {
                let unit = Unit {
                    func: name.clone(),
                    module: config.name.to_string(),
                    ll: ll.clone(),
                    compiled: ll.clone(),
                    short: name.clone(),
                    group: None,
                };
                let verdict = validate(spec, &unit, sm, &compiled, &dir, &compiler, opts, None)?;
                let row = Row {
                    function: name.clone(),
                    config: config.name,
                    sm: sm.clone(),
                    verdict,
                    compiler: compiler.clone(),
                };
                each(&row);
                rows.push(row);
            }
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_catalogue_function_has_a_reference_in_every_configuration() {
        let names = functions();
        assert!(names.len() >= 16, "{names:?}");
        for config in &CONFIGS {
            let text = reference(config);
            assert!(
                !text.contains("{FTZ}") && !text.contains("{DIVIDE}") && !text.contains("{ATTRS}"),
                "{}",
                config.name
            );
            let module = semfuzz_llir::parse(&semfuzz_spec::diag::SourceFile::new(
                "reference.ll",
                text.as_str(),
            ))
            .unwrap_or_else(|e| panic!("{}: {e}", config.name));
            for n in &names {
                assert!(
                    module.functions.iter().any(|f| &f.name == n),
                    "{}: no reference for {n}",
                    config.name
                );
            }
        }
    }
}
