//! The built-in catalogue of `validate-llc`: each operation of the LLVM IR specs on each type it
//! takes, in the spellings that may select other PTX: no flags, `fast`, and the preserve-sign
//! denormal attributes clang sets for `-fcuda-flush-denormals-to-zero`.

/// One catalogue function.
pub struct Function {
    /// `fadd_f32_fast`: the operation, the types, the spelling.
    pub name: String,
    /// The operation × types it spells (`fadd_f32`, or `fadd_f32_ftz` under the denormal
    /// attributes), which `validate-llc` deduplicates by the PTX each spelling becomes.
    pub group: String,
    /// The module: the function and its declarations.
    pub text: String,
}

/// An IR type and its tag in function names and intrinsic suffixes.
#[derive(Clone, Copy)]
struct Ty {
    ir: &'static str,
    tag: &'static str,
}

const HALF: Ty = Ty {
    ir: "half",
    tag: "f16",
};
const BFLOAT: Ty = Ty {
    ir: "bfloat",
    tag: "bf16",
};
const FLOAT: Ty = Ty {
    ir: "float",
    tag: "f32",
};
const DOUBLE: Ty = Ty {
    ir: "double",
    tag: "f64",
};
const V2HALF: Ty = Ty {
    ir: "<2 x half>",
    tag: "v2f16",
};
const V2BFLOAT: Ty = Ty {
    ir: "<2 x bfloat>",
    tag: "v2bf16",
};
const V2FLOAT: Ty = Ty {
    ir: "<2 x float>",
    tag: "v2f32",
};
const I16: Ty = Ty {
    ir: "i16",
    tag: "i16",
};
const I32: Ty = Ty {
    ir: "i32",
    tag: "i32",
};
const I64: Ty = Ty {
    ir: "i64",
    tag: "i64",
};

const SCALARS: &[Ty] = &[HALF, BFLOAT, FLOAT, DOUBLE];
const WITH_VECTORS: &[Ty] = &[HALF, BFLOAT, FLOAT, DOUBLE, V2HALF, V2BFLOAT, V2FLOAT];

/// A function before spelling: its name stem, result type, parameter types and the body
/// computing `%r`, with `FLAGS ` where the fast-math flags go.
struct Shape {
    stem: String,
    ret: &'static str,
    params: Vec<&'static str>,
    body: String,
    /// The intrinsic declarations the body needs.
    decls: String,
}

/// The denormal attributes of the `_ftz` spelling.
const PRESERVE_SIGN: &str = "\"denormal-fp-math\"=\"preserve-sign,preserve-sign\" \"denormal-fp-math-f32\"=\"preserve-sign,preserve-sign\"";

/// Element-wise operations on one type: (name, arity, the instruction with `T` for the type
/// and `@llvm.NAME.S` for an overloaded intrinsic), and the types each applies to.
const ELEMENTWISE: &[(&str, usize, &str, &[Ty])] = &[
    ("fadd", 2, "fadd FLAGS T %a, %b", WITH_VECTORS),
    ("fsub", 2, "fsub FLAGS T %a, %b", SCALARS),
    ("fmul", 2, "fmul FLAGS T %a, %b", WITH_VECTORS),
    ("fdiv", 2, "fdiv FLAGS T %a, %b", SCALARS),
    ("frem", 2, "frem FLAGS T %a, %b", SCALARS),
    ("fneg", 1, "fneg FLAGS T %a", WITH_VECTORS),
    ("fabs", 1, "call FLAGS T @llvm.fabs.S(T %a)", WITH_VECTORS),
    (
        "copysign",
        2,
        "call FLAGS T @llvm.copysign.S(T %a, T %b)",
        SCALARS,
    ),
    ("sqrt", 1, "call FLAGS T @llvm.sqrt.S(T %a)", SCALARS),
    (
        "fma",
        3,
        "call FLAGS T @llvm.fma.S(T %a, T %b, T %c)",
        WITH_VECTORS,
    ),
    (
        "fmuladd",
        3,
        "call FLAGS T @llvm.fmuladd.S(T %a, T %b, T %c)",
        SCALARS,
    ),
    (
        "minnum",
        2,
        "call FLAGS T @llvm.minnum.S(T %a, T %b)",
        WITH_VECTORS,
    ),
    (
        "maxnum",
        2,
        "call FLAGS T @llvm.maxnum.S(T %a, T %b)",
        SCALARS,
    ),
    (
        "minimum",
        2,
        "call FLAGS T @llvm.minimum.S(T %a, T %b)",
        SCALARS,
    ),
    (
        "maximum",
        2,
        "call FLAGS T @llvm.maximum.S(T %a, T %b)",
        WITH_VECTORS,
    ),
    (
        "minimumnum",
        2,
        "call FLAGS T @llvm.minimumnum.S(T %a, T %b)",
        SCALARS,
    ),
    (
        "maximumnum",
        2,
        "call FLAGS T @llvm.maximumnum.S(T %a, T %b)",
        SCALARS,
    ),
    (
        "canonicalize",
        1,
        "call FLAGS T @llvm.canonicalize.S(T %a)",
        SCALARS,
    ),
    ("floor", 1, "call FLAGS T @llvm.floor.S(T %a)", SCALARS),
    ("ceil", 1, "call FLAGS T @llvm.ceil.S(T %a)", SCALARS),
    ("trunc", 1, "call FLAGS T @llvm.trunc.S(T %a)", SCALARS),
    ("rint", 1, "call FLAGS T @llvm.rint.S(T %a)", SCALARS),
    ("round", 1, "call FLAGS T @llvm.round.S(T %a)", SCALARS),
    (
        "roundeven",
        1,
        "call FLAGS T @llvm.roundeven.S(T %a)",
        SCALARS,
    ),
];

/// Comparisons, returned as `i32` (a PTX function returns no predicate): the predicates whose
/// PTX differs (ordered, unordered, their negations' NaN handling, the NaN test).
const PREDICATES: &[&str] = &["olt", "ult", "one", "ueq", "uno"];

/// Conversions: (operation, destination, source).
const CONVERSIONS: &[(&str, Ty, Ty)] = &[
    ("fptrunc", HALF, FLOAT),
    ("fptrunc", BFLOAT, FLOAT),
    ("fptrunc", FLOAT, DOUBLE),
    ("fptrunc", HALF, DOUBLE),
    ("fptrunc", BFLOAT, DOUBLE),
    ("fpext", FLOAT, HALF),
    ("fpext", FLOAT, BFLOAT),
    ("fpext", DOUBLE, FLOAT),
    ("fpext", DOUBLE, HALF),
    ("fpext", DOUBLE, BFLOAT),
    ("fptosi", I32, FLOAT),
    ("fptosi", I64, DOUBLE),
    ("fptosi", I16, HALF),
    ("fptosi", I32, BFLOAT),
    ("fptoui", I32, FLOAT),
    ("fptoui", I64, DOUBLE),
    ("fptoui", I16, HALF),
    ("sitofp", FLOAT, I32),
    ("sitofp", DOUBLE, I64),
    ("sitofp", HALF, I32),
    ("sitofp", BFLOAT, I32),
    ("sitofp", FLOAT, I64),
    ("uitofp", FLOAT, I32),
    ("uitofp", HALF, I16),
    ("uitofp", BFLOAT, I64),
];

/// Every catalogue function, in a stable order.
pub fn functions() -> Vec<Function> {
    let mut shapes = Vec::new();
    for (op, arity, instr, types) in ELEMENTWISE {
        for ty in *types {
            let decls = match instr.split_once('@') {
                Some((_, callee)) => format!(
                    "declare {t} @{}.{}({})\n",
                    &callee[..callee.find(".S(").unwrap_or(callee.len())],
                    ty.tag,
                    vec![ty.ir; *arity].join(", "),
                    t = ty.ir
                ),
                None => String::new(),
            };
            shapes.push(Shape {
                stem: format!("{op}_{}", ty.tag),
                ret: ty.ir,
                params: vec![ty.ir; *arity],
                body: format!(
                    "  %r = {}\n",
                    instr
                        .replace(".S(", &format!(".{}(", ty.tag))
                        .replace('T', ty.ir)
                ),
                decls,
            });
        }
    }
    for pred in PREDICATES {
        for ty in SCALARS {
            shapes.push(Shape {
                stem: format!("fcmp_{pred}_{}", ty.tag),
                ret: "i32",
                params: vec![ty.ir; 2],
                body: format!(
                    "  %p = fcmp FLAGS {pred} {} %a, %b\n  %r = zext i1 %p to i32\n",
                    ty.ir
                ),
                decls: String::new(),
            });
        }
    }
    // Division with the bound clang writes for OpenCL and HIP single precision, LangRef
    // "'fpmath' Metadata" (2.5 ulps): the licence libNVVM's `-prec-div=0` needs. Without a
    // `fast` spelling, whose `arcp` the bound does not combine with (docs/ambiguities.md 173).
    shapes.push(Shape {
        stem: "fdiv_f32_fpmath".into(),
        ret: FLOAT.ir,
        params: vec![FLOAT.ir; 2],
        body: "  %r = fdiv float %a, %b, !fpmath !0\n".into(),
        decls: "!0 = !{float 2.5}\n".into(),
    });
    // The max idiom of C's `a > b ? a : b`: a compare and a select, which the back end may
    // turn into a `max`.
    for ty in SCALARS {
        shapes.push(Shape {
            stem: format!("select_ogt_{}", ty.tag),
            ret: ty.ir,
            params: vec![ty.ir; 2],
            body: format!(
                "  %p = fcmp FLAGS ogt {t} %a, %b\n  %r = select FLAGS i1 %p, {t} %a, {t} %b\n",
                t = ty.ir
            ),
            decls: String::new(),
        });
    }
    for (op, to, from) in CONVERSIONS {
        let flags = if matches!(*op, "fptrunc" | "fpext") {
            "FLAGS "
        } else {
            ""
        };
        // NVPTX passes and returns an `i16` in a 32-bit parameter, whose upper half the
        // caller's extension decides: the catalogue extends (or truncates) explicitly and
        // passes an `i32`, so the PTX's parameters are the IR's.
        let (ret, param, body) = match (to.ir, from.ir) {
            ("i16", _) => (
                "i32",
                from.ir,
                format!(
                    "  %c = {op} {} %a to i16\n  %r = {} i16 %c to i32\n",
                    from.ir,
                    if *op == "fptosi" { "sext" } else { "zext" }
                ),
            ),
            (_, "i16") => (
                to.ir,
                "i32",
                format!(
                    "  %t = trunc i32 %a to i16\n  %r = {op} i16 %t to {}\n",
                    to.ir
                ),
            ),
            _ => (
                to.ir,
                from.ir,
                format!("  %r = {op} {flags}{} %a to {}\n", from.ir, to.ir),
            ),
        };
        shapes.push(Shape {
            stem: format!("{op}_{}_{}", to.tag, from.tag),
            ret,
            params: vec![param],
            body,
            decls: String::new(),
        });
    }
    let mut out = Vec::new();
    for shape in shapes {
        for (suffix, flags, attrs) in [
            ("", "", ""),
            ("_fast", "fast", ""),
            ("_ftz", "", PRESERVE_SIGN),
        ] {
            // An operation without fast-math flags has no `fast` spelling.
            if suffix == "_fast" && !shape.body.contains("FLAGS ") {
                continue;
            }
            out.push(spell(&shape, suffix, flags, attrs));
        }
    }
    out
}

/// One spelling of a shape as a module.
fn spell(shape: &Shape, suffix: &str, flags: &str, attrs: &str) -> Function {
    let name = format!("{}{suffix}", shape.stem);
    let body = shape.body.replace(
        "FLAGS ",
        &if flags.is_empty() {
            String::new()
        } else {
            format!("{flags} ")
        },
    );
    let params: Vec<String> = ["a", "b", "c"]
        .iter()
        .zip(&shape.params)
        .map(|(p, t)| format!("{t} %{p}"))
        .collect();
    let (attr_ref, group) = if attrs.is_empty() {
        (String::new(), String::new())
    } else {
        (
            " #0".to_string(),
            format!("\nattributes #0 = {{ {attrs} }}\n"),
        )
    };
    let text = format!(
        "define {} @{name}({}){attr_ref} {{\n{body}  ret {} %r\n}}\n{}{group}",
        shape.ret,
        params.join(", "),
        shape.ret,
        shape.decls
    );
    // The denormal attributes change what the IR allows both ways (LangRef: inputs "must" be
    // read as zero, outputs "may" be flushed), so that spelling is deduplicated only against
    // itself; `fast` only adds results, so it is deduplicated against the plain spelling.
    let group = if suffix == "_ftz" {
        format!("{}_ftz", shape.stem)
    } else {
        shape.stem.clone()
    };
    Function { name, group, text }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_function_parses_and_names_are_unique() {
        let all = functions();
        let mut names = std::collections::HashSet::new();
        for f in &all {
            assert!(names.insert(f.name.clone()), "{} twice", f.name);
            let file = semfuzz_spec::diag::SourceFile::new(f.name.clone(), f.text.as_str());
            let module = semfuzz_llir::parse(&file)
                .unwrap_or_else(|e| panic!("{}:\n{}\n{e}", f.name, f.text));
            assert_eq!(module.functions.len(), 1, "{}", f.name);
        }
        assert!(all.len() > 300, "{} functions", all.len());
    }

    #[test]
    fn intrinsic_declarations_match_calls() {
        let f = functions()
            .into_iter()
            .find(|f| f.name == "fma_v2f16_fast")
            .expect("in the catalogue");
        assert!(f
            .text
            .contains("%r = call fast <2 x half> @llvm.fma.v2f16(<2 x half> %a, <2 x half> %b, <2 x half> %c)"));
        assert!(f
            .text
            .contains("declare <2 x half> @llvm.fma.v2f16(<2 x half>, <2 x half>, <2 x half>)"));
    }
}
