//! Deeply nested spec text is an error at the place it gets too deep, not a stack overflow:
//! the `spec_parse` and `rule_parse` fuzz targets crashed (segmentation fault) on hand-made
//! deep inputs, which libFuzzer had not reached, in the recursive parser and, for long
//! operator chains, in the recursive passes after it.

use semfuzz_spec::catalog::EMBEDDED;
use semfuzz_spec::diag::SourceFile;
use semfuzz_spec::parser::{parse_file, MAX_NESTING};
use semfuzz_spec::printer::print_file;
use semfuzz_spec::Spec;

/// A copysign-like instruction whose result is `expr`.
fn instr_with(expr: &str) -> String {
    format!(
        "instr deep {{\n  form \"deep.f32 d, a, b\" since ptx 2.0;\n  sem {{\n    d = {expr};\n  }}\n}}\n"
    )
}

fn load(text: &str) -> Result<Spec, String> {
    let prelude = EMBEDDED.iter().find(|(n, _)| *n == "prelude.sem").unwrap();
    Spec::from_files(vec![
        SourceFile::new(prelude.0, prelude.1),
        SourceFile::new("deep.sem", text),
    ])
    .map_err(|e| e.to_string())
}

#[test]
fn nesting_past_the_limit_is_a_located_error() {
    let n = 20_000;
    let cases = [
        // Parentheses, unary operators, `if` blocks, `else if` chains: recursion in the parser.
        format!("const K = {}1{};\n", "(".repeat(n), ")".repeat(n)),
        format!("const K = {}1;\n", "-".repeat(n)),
        format!(
            "def f(x) {{ {} return x; }}\n",
            "if x { ".repeat(n) + &"}".repeat(n)
        ),
        format!(
            "def f(x) {{ if x {{ return x; }} {}\n return x; }}\n",
            "else if x { return x; } ".repeat(n)
        ),
        // Operator and index chains: loops in the parser, deep trees for what follows it.
        format!("const K = 1{};\n", " + 1".repeat(n)),
        format!("const K = a{};\n", "[0]".repeat(n)),
    ];
    for text in &cases {
        let d =
            parse_file(&SourceFile::new("deep.sem", text.as_str())).expect_err("past the limit");
        assert_eq!(
            d.message,
            format!("nested more than {MAX_NESTING} levels deep")
        );
        let shown = d.to_string();
        assert!(shown.contains(" --> deep.sem:1:"), "{shown}");
        assert!(load(text).unwrap_err().contains("levels deep"));
    }
}

#[test]
fn nesting_just_below_the_limit_loads_checks_lowers_and_prints() {
    // `d = with_sign(b, sign((((a)))))`, and a chain of `^`: the deepest the parser accepts,
    // through checker, lowering and printer on this test's thread (2 MiB stack).
    let depth = MAX_NESTING - 8;
    let parens = format!(
        "with_sign(b, sign({}a{}))",
        "(".repeat(depth),
        ")".repeat(depth)
    );
    let chain = format!("with_sign(b, sign(a){})", " ^ sign(a)".repeat(depth));
    for expr in [parens, chain] {
        let text = instr_with(&expr);
        let spec = load(&text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(spec.variants.len(), 1);
        let tree = parse_file(&SourceFile::new("deep.sem", text.as_str())).unwrap();
        let printed = print_file(&tree);
        let again = parse_file(&SourceFile::new("printed.sem", printed.as_str())).unwrap();
        assert_eq!(print_file(&again), printed);
    }
}
