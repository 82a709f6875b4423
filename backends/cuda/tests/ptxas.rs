//! `ptxas` (CUDA 13.5, installed by `cargo xtask setup`) assembles the generated kernel of every
//! PTX variant of the catalogue, and the kernel of a repro: a bug in the kernel text fails here,
//! on machines without a GPU.
//!
//! ptxas 13 assembles for sm_75 and newer only; the catalogue is assembled for sm_90, or for the
//! variant's own target when that is newer (sm_100 for `f32x2` and three-input `min`/`max`).
//! Skipped: SASS variants (PTX cannot name a SASS instruction), `ld`/`st` (a kernel passes
//! values in registers, and their operand is an address) and the warp collectives (their
//! variants read 32 lanes: `probes/warp_collectives.cu`), and nothing else.
//!
//! Expected to fail: the `set` variants of 9.7.7.1 (half-precision `set`) that the spec lists
//! but ptxas refuses ([`ptxas_refuses`]): the ISA excerpt writes the cross product of every
//! `CmpOp`, `.ftz` and `stype`, while ptxas applies the integer `set` rules to integer source
//! types. The test asserts that exactly those fail, with those errors, so it notices when the
//! spec (or ptxas) changes.

use semfuzz_cuda::kernel::{self, Kernel, Layout, Target};
use semfuzz_cuda::repro;
use semfuzz_spec::{Spec, Variant};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The target every variant is assembled for unless it needs a newer one.
const FLOOR_SM: u32 = 90;
/// Entries per module: a handful of ptxas runs cover the catalogue.
const ENTRIES_PER_MODULE: usize = 400;

/// `.deps`, from `SEMFUZZ_DEPS` or beside the workspace root.
fn deps() -> PathBuf {
    std::env::var_os("SEMFUZZ_DEPS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.deps"),
        PathBuf::from,
    )
}

fn ptxas() -> PathBuf {
    let p = deps().join("py/nvidia/cu13/bin/ptxas");
    assert!(
        p.is_file(),
        "{} is missing: run `cargo xtask setup` (it installs nvidia-cuda-nvcc 13.5 into .deps/py)",
        p.display()
    );
    p
}

/// Assembles `ptx` for `sm_<sm>`; `Err` is ptxas's complaint.
fn assemble(ptx: &str, sm: u32, name: &str) -> Result<(), String> {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let file = dir.join(format!("{name}.ptx"));
    std::fs::write(&file, ptx).unwrap();
    let out = Command::new(ptxas())
        .arg(format!("-arch=sm_{sm}"))
        // The check is of the text; optimising it would only take longer.
        .arg("-O0")
        .arg(&file)
        .arg("-o")
        .arg(dir.join(format!("{name}.cubin")))
        .output()
        .unwrap();
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// The variants named in ptxas's errors about `ptx` (`ptxas f.ptx, line N; error ...`): each
/// error line is mapped to the entry around it, whose first line names its variant.
fn blame(ptx: &str, errors: &str) -> Vec<String> {
    let lines: Vec<&str> = ptx.lines().collect();
    let mut named: Vec<String> = errors
        .lines()
        .filter_map(|e| {
            let n: usize = e.split(", line ").nth(1)?.split(';').next()?.parse().ok()?;
            let comment = lines[..n.min(lines.len())]
                .iter()
                .rev()
                .find(|l| l.starts_with("// "))?;
            Some(format!("{} ({})", &comment[3..], e.trim()))
        })
        .collect();
    named.dedup();
    named
}

/// Why ptxas 13.5 refuses a variant the spec lists, if it does: `.ftz` on a `set` whose
/// source type is not `f16`/`f32`/packed, and a comparison the source type has none of (bit
/// types compare `eq`/`ne` only; integers have no unordered `equ`...`geu`, `num`, `nan`).
fn ptxas_refuses(v: &Variant) -> Vec<&'static str> {
    let words: Vec<&str> = v.text.split('.').collect();
    let mut errors = Vec::new();
    if words[0] != "set" {
        return errors;
    }
    let stype = words[words.len() - 1];
    let integer = stype.len() == 3 && ["b", "u", "s"].iter().any(|p| stype.starts_with(p));
    let unordered = ["equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"].contains(&words[1]);
    let ordering = ["lt", "le", "gt", "ge"].contains(&words[1]);
    // In the order ptxas reports them.
    if words.contains(&"ftz") && (integer || stype == "f64") {
        errors.push("Illegal modifier '.ftz' for instruction 'set'");
    }
    if (integer && unordered) || (integer && stype.starts_with('b') && ordering) {
        errors.push("Mismatch between instruction type and comparison qualifier");
    }
    errors
}

/// A module of entries, assembled for their target.
type Module<'v> = (Target, Vec<(&'v Variant, Layout)>);

/// Groups `variants` by target, in modules of at most [`ENTRIES_PER_MODULE`] entries.
fn modules<'v>(variants: impl IntoIterator<Item = (&'v Variant, Layout)>) -> Vec<Module<'v>> {
    let mut by_sm: BTreeMap<u32, Vec<(&Variant, Layout)>> = BTreeMap::new();
    for (v, layout) in variants {
        by_sm
            .entry(v.requirement.sm.unwrap_or(0).max(FLOOR_SM))
            .or_default()
            .push((v, layout));
    }
    let mut out = Vec::new();
    for (sm, vs) in by_sm {
        let mut vs = vs.into_iter().peekable();
        while vs.peek().is_some() {
            let chunk: Vec<_> = vs.by_ref().take(ENTRIES_PER_MODULE).collect();
            let target =
                Target::for_requirements(chunk.iter().map(|(v, _)| v.requirement), sm).unwrap();
            out.push((target, chunk));
        }
    }
    out
}

/// Assembles `modules` in parallel; per module, its target, size, and the variants ptxas
/// blames (with its errors).
fn assemble_all(modules: &[Module<'_>], tag: &str) -> Vec<(Target, usize, Vec<String>)> {
    std::thread::scope(|s| {
        let jobs: Vec<_> = modules
            .iter()
            .enumerate()
            .map(|(k, (target, entries))| {
                s.spawn(move || {
                    let ptx = kernel::module(*target, entries.iter().map(|(v, l)| (*v, l)));
                    let blamed = match assemble(&ptx, target.sm, &format!("{tag}-{k}")) {
                        Ok(()) => Vec::new(),
                        Err(e) => blame(&ptx, &e),
                    };
                    (*target, entries.len(), blamed)
                })
            })
            .collect();
        jobs.into_iter().map(|j| j.join().unwrap()).collect()
    })
}

#[test]
fn ptxas_assembles_the_kernel_of_every_ptx_variant() {
    let spec = Spec::embedded().unwrap();
    let (mut good, mut refused, mut skipped) = (Vec::new(), Vec::new(), Vec::new());
    for v in &spec.variants {
        match Layout::of(v) {
            Ok(layout) if ptxas_refuses(v).is_empty() => good.push((v, layout)),
            Ok(layout) => refused.push((v, layout)),
            Err(why) => skipped.push(why),
        }
    }
    // Only SASS, LLVM IR and memory operands (ld, st) are skipped: a PTX variant the
    // generator refuses otherwise is a regression.
    assert!(
        skipped.iter().all(|why| why.contains("is SASS")
            || why.contains("is LLVM IR")
            || why.contains("has a memory operand")
            || why.contains("is a warp collective")),
        "{skipped:?}"
    );

    let start = Instant::now();
    let results = assemble_all(&modules(good), "catalogue");
    let secs = start.elapsed().as_secs_f64();
    let mut per_sm: BTreeMap<u32, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for (target, n, blamed) in results {
        *per_sm.entry(target.sm).or_default() += n;
        failures.extend(blamed);
    }
    assert!(
        failures.is_empty(),
        "ptxas rejects:\n{}",
        failures.join("\n")
    );
    let total: usize = per_sm.values().sum();
    eprintln!(
        "ptxas assembled {total} kernels ({per_sm:?} by sm) in {secs:.1} s ({:.0} variants/s); \
         skipped {} SASS, LLVM IR, memory-operand and warp-collective variants; {} set variants the spec lists but ptxas refuses",
        total as f64 / secs,
        skipped.len(),
        refused.len()
    );

    // The refused ones fail, each with exactly the errors predicted.
    let expected: BTreeMap<String, Vec<&str>> = refused
        .iter()
        .map(|(v, _)| (v.signature(), ptxas_refuses(v)))
        .collect();
    let mut got: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for b in assemble_all(&modules(refused), "refused")
        .into_iter()
        .flat_map(|(_, _, b)| b)
    {
        let (signature, why) = expected
            .iter()
            .flat_map(|(sig, whys)| whys.iter().map(move |w| (sig, *w)))
            .find(|(sig, why)| b.starts_with(&format!("{sig} (")) && b.contains(why))
            .unwrap_or_else(|| panic!("unexpected: {b}"));
        got.entry(signature.clone()).or_default().push(why);
    }
    for (signature, whys) in &expected {
        assert_eq!(
            got.get(signature),
            Some(whys),
            "ptxas refuses {signature} otherwise than ptxas_refuses says: update it"
        );
    }
    assert_eq!(total + expected.len() + skipped.len(), spec.variants.len());
}

#[test]
fn a_wrong_kernel_fails_ptxas_and_is_blamed_on_its_variant() {
    let spec = Spec::embedded().unwrap();
    let v = spec.lookup("add.rn.f32", None).unwrap();
    let mut layout = Layout::of(v).unwrap();
    // An f32 instruction on f64 registers: ptxas must refuse it.
    layout.sources[0].reg = "f64";
    let target = Target::for_requirements([v.requirement], FLOOR_SM).unwrap();
    let ptx = kernel::module(target, [(v, &layout)]);
    let err = assemble(&ptx, target.sm, "wrong").unwrap_err();
    let blamed = blame(&ptx, &err);
    assert!(
        blamed.iter().any(|b| b.starts_with("add.rn.f32 d, a, b")),
        "{err}\n{blamed:?}"
    );
}

#[test]
fn a_single_variant_kernel_assembles_for_its_own_target() {
    let spec = Spec::embedded().unwrap();
    for text in [
        "set.lt.and.f16x2.f16x2",
        "testp.subnormal.f64",
        "add.rn.f32x2",
    ] {
        let v = spec.lookup(text, None).unwrap();
        let k = Kernel::new(v, kernel::PTXAS_MIN_SM).unwrap();
        assert!(k.ptx.contains(&format!("\t{text} %d0, %s0")), "{}", k.ptx);
        assemble(&k.ptx, k.target.sm, &format!("single-{text}")).unwrap();
    }
}

/// The repro of a finding on `set` (pred operand, f16x2 lanes): its kernel assembles, and its
/// host program compiles against the CUDA headers of the nvcc wheel when g++ is here.
#[test]
fn a_repro_assembles_and_its_host_program_compiles() {
    let spec = Spec::embedded().unwrap();
    let v = spec.lookup("set.lt.and.f16x2.f16x2", Some(3)).unwrap();
    let r = repro::repro(
        v,
        &[0x3c00_7e00, 0x4000_3c00, 0x1],
        0xffff_0000,
        "0x3c000000 \"?\"",
    )
    .unwrap();
    assert!(r
        .host
        .contains("set.lt.and.f16x2.f16x2 %d0, %s0, %s1, %s2;"));
    assert_eq!(
        r.eval_line,
        "semfuzz eval set.lt.and.f16x2.f16x2 0x3c007e00 0x40003c00 0x1"
    );
    let target = Kernel::new(v, kernel::PTXAS_MIN_SM).unwrap().target;
    assemble(&r.ptx, target.sm, "repro").unwrap();

    let include = deps().join("py/nvidia/cu13/include");
    let has_gxx = Command::new("g++").arg("--version").output().is_ok();
    if !(has_gxx && include.join("cuda.h").is_file()) {
        eprintln!(
            "no g++ or no cuda.h under {}: host program not compiled",
            include.display()
        );
        return;
    }
    let file = Path::new(env!("CARGO_TARGET_TMPDIR")).join(repro::HOST_FILE);
    std::fs::write(&file, &r.host).unwrap();
    let out = Command::new("g++")
        .args(["-std=c++11", "-fsyntax-only", "-Wall", "-Werror", "-I"])
        .arg(&include)
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stderr),
        r.host
    );
}

/// A kernel that runs `instr` on two f16 registers (`%rs1`, `%rs2`) or two f16x2 registers
/// (`%r1`, `%r2`) into predicates `%p1`, `%p2` (`%p3` a source).
fn half_setp_kernel(instr: &str) -> String {
    format!(
        ".version 8.5\n.target sm_90\n.address_size 64\n\
         .visible .entry k(.param .u64 out)\n{{\n\
         \t.reg .pred %p<4>;\n\t.reg .b16 %rs<3>;\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<2>;\n\
         \tmov.b16 %rs1, 0x3C00;\n\tmov.b16 %rs2, 0x4000;\n\
         \tmov.b32 %r1, 0x3C004000;\n\tmov.b32 %r2, 0x40003C00;\n\
         \tsetp.ne.u32 %p3, %r1, 0;\n\
         \t{instr};\n\
         \tselp.u32 %r3, 1, 0, %p1;\n\t@%p2 add.u32 %r3, %r3, 2;\n\
         \tld.param.u64 %rd1, [out];\n\tst.global.u32 [%rd1], %r3;\n\tret;\n}}\n"
    )
}

/// 9.7.7.2's destinations as ptxas takes them, and the spec with it (docs/ambiguities.md 72):
/// a scalar `.f16`/`.bf16` compare writes `p` only, a packed one `p|q` or `p` alone, and the
/// bf16 forms have no `.ftz`.
#[test]
fn half_setp_destinations_and_ftz_are_what_ptxas_takes() {
    let spec = Spec::embedded().unwrap();
    for (k, (instr, text, dests, sources, refusal)) in [
        (
            "setp.eq.f16x2 %p1|%p2, %r1, %r2",
            "setp.eq.f16x2",
            2,
            2,
            None,
        ),
        ("setp.eq.f16x2 %p1, %r1, %r2", "setp.eq.f16x2", 2, 2, None),
        (
            "setp.lt.and.bf16x2 %p1|%p2, %r1, %r2, !%p3",
            "setp.lt.and.bf16x2",
            2,
            3,
            None,
        ),
        (
            "setp.lt.ftz.f16 %p1, %rs1, %rs2",
            "setp.lt.ftz.f16",
            1,
            2,
            None,
        ),
        (
            "setp.lt.or.bf16 %p1, %rs1, %rs2, %p3",
            "setp.lt.or.bf16",
            1,
            3,
            None,
        ),
        (
            "setp.eq.f16 %p1|%p2, %rs1, %rs2",
            "setp.eq.f16",
            2,
            2,
            Some("Predicate output not allowed"),
        ),
        (
            "setp.eq.bf16 %p1|%p2, %rs1, %rs2",
            "setp.eq.bf16",
            2,
            2,
            Some("Predicate output not allowed"),
        ),
        (
            "setp.lt.ftz.bf16 %p1, %rs1, %rs2",
            "setp.lt.ftz.bf16",
            1,
            2,
            Some("Illegal modifier '.ftz'"),
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let assembled = assemble(&half_setp_kernel(instr), 90, &format!("half-setp-{k}"));
        // A text naming only `p` of a packed compare reads the first of the variant's two.
        let specified = spec.lookup_shape(text, dests, sources);
        match refusal {
            None => {
                assembled.unwrap_or_else(|e| panic!("{instr}: {e}"));
                specified.unwrap_or_else(|d| panic!("{text}: {d}"));
            }
            Some(why) => {
                let err = assembled.expect_err(instr);
                assert!(err.contains(why), "{instr}: {err}");
                assert!(specified.is_err(), "{instr} is specified");
            }
        }
    }
}

/// `call::harness`'s kernel for every function of the `validate-llc` fixtures (llc's own
/// output: half, bfloat and f32 parameters, `.b8` arrays, predicated code) assembles, so
/// `check-ptx --backend cuda` sends the GPU text ptxas takes; a module without the function,
/// and a kernel, are refused with the reason.
#[test]
fn the_call_harness_of_llc_functions_assembles() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../cli/tests/llc");
    let mut called = 0;
    for name in ["bf16.ptx", "contract.ptx", "control.ptx", "poison.ptx"] {
        let text = std::fs::read_to_string(fixtures.join(name)).unwrap();
        let file = semfuzz_spec::diag::SourceFile::new(name.to_string(), text.clone());
        let funcs: Vec<String> = semfuzz_ptx::syntax::parse(&file)
            .unwrap()
            .functions
            .into_iter()
            .filter(|f| f.body.is_some())
            .map(|f| f.name)
            .collect();
        assert!(!funcs.is_empty(), "{name}");
        for f in funcs {
            let (ptx, ni, no) = semfuzz_cuda::call::harness(&text, &f)
                .unwrap_or_else(|why| panic!("{name} {f}: {why}"));
            assert!(ni > 0 && no == 1, "{name} {f}: {ni} in, {no} out");
            assemble(&ptx, 90, &format!("call-{f}")).unwrap_or_else(|e| panic!("{name} {f}: {e}"));
            called += 1;
        }
    }
    assert!(called >= 10, "{called} functions");
    let text = std::fs::read_to_string(fixtures.join("bf16.ptx")).unwrap();
    let why = semfuzz_cuda::call::harness(&text, "nosuch").unwrap_err();
    assert!(why.contains("defines no function `nosuch`"), "{why}");
}
