//! `semfuzz repro FINDINGS [N]`: one finding as a standalone CUDA reproduction (the kernel's
//! PTX and a driver-API host program; see `semfuzz_cuda::repro`).

use anyhow::{anyhow, bail, Context, Result};
use semfuzz_fuzz::finding::Finding;
use semfuzz_spec::Spec;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The `n`th (1-based) finding of `text` (JSON lines, blank lines ignored); without `n`, the
/// only one.
fn pick(text: &str, n: Option<usize>, from: &str) -> Result<Finding> {
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .collect();
    let (line_no, line) = match (n, lines.len()) {
        (_, 0) => bail!("{from} holds no finding"),
        (None, 1) => lines[0],
        (None, count) => bail!(
            "{from} holds {count} findings: say which, e.g. `semfuzz repro {from} 1` for the first"
        ),
        (Some(0), _) => bail!("findings are counted from 1"),
        (Some(k), count) if k > count => bail!("{from} holds {count} findings, not {k}"),
        (Some(k), _) => lines[k - 1],
    };
    serde_json::from_str(line).with_context(|| {
        format!(
            "{from}, line {}: not a finding (one JSON object per line, as `semfuzz fuzz --json` \
             writes them)",
            line_no + 1
        )
    })
}

/// Writes the repro of finding `n` of `file` (`-` or none: standard input) into `out`
/// (default `repro-SIGNATURE`) and says how to build and run it.
pub fn run(spec: &Spec, file: Option<&Path>, n: Option<usize>, out: Option<PathBuf>) -> Result<()> {
    let (text, from) = match file {
        Some(p) if p != Path::new("-") => (
            std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?,
            p.display().to_string(),
        ),
        _ => {
            let mut t = String::new();
            std::io::stdin()
                .read_to_string(&mut t)
                .context("cannot read standard input")?;
            (t, "standard input".to_string())
        }
    };
    let finding = pick(&text, n, &from)?;
    let variant = spec
        .lookup(&finding.variant, Some(finding.inputs.len()))
        .map_err(|d| anyhow!("{}", d.message))?;
    let inputs = variant
        .sources
        .iter()
        .zip(&finding.inputs)
        .map(|(src, text)| {
            crate::operand::parse_hex(
                text,
                src.width,
                &format!("the finding's operand {}", src.name),
            )
        })
        .collect::<Result<Vec<u64>, _>>()?;
    let actual = crate::operand::parse_hex(
        &finding.actual,
        variant.dests[0].width,
        "the finding's actual result",
    )?;
    let repro = semfuzz_cuda::repro::repro(variant, &inputs, actual, &finding.expected)
        .map_err(|e| anyhow!("no CUDA repro of {}: {e}", finding.variant))?;
    let dir = out.unwrap_or_else(|| PathBuf::from(format!("repro-{}", finding.signature)));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for (name, body) in [
        (semfuzz_cuda::repro::PTX_FILE, &repro.ptx),
        (semfuzz_cuda::repro::HOST_FILE, &repro.host),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, body).with_context(|| format!("cannot write {}", path.display()))?;
    }
    let d = dir.display();
    outln!(
        "{}: {} -> {} ({})",
        finding.variant,
        finding.inputs.join(" "),
        finding.actual,
        finding.class
    );
    outln!(
        "wrote {d}/{} and {d}/{}",
        semfuzz_cuda::repro::PTX_FILE,
        semfuzz_cuda::repro::HOST_FILE
    );
    outln!(
        "build: g++ -std=c++11 -O2 {d}/{} -o {d}/repro -I\"$CUDA_HOME/include\" -l:libcuda.so.1",
        semfuzz_cuda::repro::HOST_FILE
    );
    outln!(
        "run:   {d}/repro | semfuzz check    (exit 0: the GPU returns the finding's result again)"
    );
    outln!("spec:  {}", repro.eval_line);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn findings_are_picked_by_their_place_from_1() {
        let err = |t: &str, n| pick(t, n, "f.jsonl").unwrap_err().to_string();
        assert!(err("", None).contains("no finding"));
        assert!(err("{}\n\n{}\n", None).contains("`semfuzz repro f.jsonl 1`"));
        assert!(err("{}\n", Some(0)).contains("from 1"));
        assert!(err("{}\n", Some(2)).contains("holds 1 findings, not 2"));
        assert!(err("{}\n", Some(1)).contains("line 1: not a finding"));
    }
}
