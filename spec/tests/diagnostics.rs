//! Every diagnostic path of the spec language: each broken source is reported with file,
//! line, column, the line, a caret and what was expected, never a panic.

use semfuzz_spec::catalog::EMBEDDED;
use semfuzz_spec::diag::SourceFile;
use semfuzz_spec::Spec;

/// Loads the prelude plus `src` as `test.sem`; returns the rendered diagnostics.
fn errors(src: &str) -> String {
    let files = vec![
        SourceFile::new("prelude.sem", EMBEDDED[0].1),
        SourceFile::new("test.sem", src),
    ];
    match Spec::from_files(files) {
        Ok(_) => panic!("expected an error for:\n{src}"),
        Err(d) => d.to_string(),
    }
}

fn assert_diag(src: &str, location: &str, message: &str) {
    let e = errors(src);
    assert!(
        e.contains(location),
        "missing location `{location}` in:\n{e}"
    );
    assert!(e.contains(message), "missing `{message}` in:\n{e}");
    assert!(e.contains('^'), "no caret in:\n{e}");
}

const GOOD_HEAD: &str = "instr foo {\n  form \"foo.f32 d, a\";\n  sem {\n";

fn with_sem(body: &str) -> String {
    format!("{GOOD_HEAD}{body}\n  }}\n}}\n")
}

#[test]
fn lexer_errors() {
    assert_diag(
        "instr foo { @ }",
        "test.sem:1:13",
        "unexpected character `@`",
    );
    assert_diag(
        "instr foo {\n  form \"foo.f32 d, a;\n}",
        "test.sem:2:8",
        "unterminated string",
    );
    assert_diag(
        "const X = 0x;",
        "test.sem:1:11",
        "`0x` must be followed by hex digits",
    );
    assert_diag(
        "const X = 0x1_0000_0000_0000_0000;",
        "test.sem:1:11",
        "does not fit in 64 bits",
    );
}

#[test]
fn parser_errors() {
    assert_diag(
        "instr foo {\n  form \"foo.f32 d, a\"\n  sem { d = a; }\n}",
        "test.sem:2:8",
        "expected `;` after this",
    );
    assert_diag(
        "frobnicate x;",
        "test.sem:1:1",
        "expected `format`, `const`, `def` or `instr`",
    );
    assert_diag(
        &with_sem("    d = a +;"),
        "test.sem:4:12",
        "expected an expression",
    );
    assert_diag(
        &with_sem("    d = a < a < a;"),
        "test.sem:4:15",
        "comparisons do not chain",
    );
    assert_diag(&with_sem("    d = |a|;"), "test.sem:4:9", "fabs(x)");
    assert_diag("format q = ieee(8 24);", "test.sem:1:19", "expected `,`");
    assert_diag(
        "instr foo {\n  frob;\n}",
        "test.sem:2:3",
        "expected `form`, `group`, `operand`, `require`, `reject`, `text`, `fuse` or `sem`",
    );
}

#[test]
fn resolution_errors() {
    assert_diag(
        "format f32 = ieee(8, 24);",
        "test.sem:1:8",
        "`f32` is declared twice",
    );
    assert_diag(
        "format big = ieee(15, 60);",
        "test.sem:1:8",
        "invalid format `big`",
    );
    assert_diag(
        "instr foo {\n  form \"foo{.rnd}.f32 d, a\";\n  group rnd = { .rn } default .rz;\n  sem { d = a; }\n}",
        "test.sem:3:31",
        "default `.rz` is not a member of group `rnd`",
    );
    assert_diag(
        "instr foo {\n  form \"bar.f32 d, a\";\n  sem { d = a; }\n}",
        "test.sem:2:8",
        "form of `bar` inside `instr foo`",
    );
    assert_diag(
        "instr foo {\n  sem { d = a; }\n}",
        "test.sem:1:7",
        "has no `form`",
    );
    assert_diag(
        "instr foo {\n  form \"foo.f32 d, a\";\n}",
        "test.sem:1:7",
        "has no `sem` block",
    );
    assert_diag(
        "instr foo {\n  form \"foo.f32 d, a\" since ptx 8;\n  sem { d = a; }\n}",
        "test.sem:2:33",
        "expected a PTX ISA version",
    );
}

/// `fuse` items: the product and sum are the block's own opcodes, the fused and negating
/// instructions start with a defined opcode (with a did-you-mean).
#[test]
fn fusion_errors() {
    let block = |fuse: &str| {
        format!(
            "instr fma {{\n  form \"fma.rn.f32 d, a, b, c\";\n  sem {{ d = a; }}\n}}\n\
             instr add, mul {{\n  form \"add.f32 d, a, b\";\n  form \"mul.f32 d, a, b\";\n  \
             {fuse}\n  sem {{ d = a; }}\n}}\n"
        )
    };
    assert_diag(
        &block("fuse mul, add into \"fmaa.rn\";"),
        "test.sem:8:22",
        "`fmaa.rn` does not start with an opcode the specs define",
    );
    assert!(errors(&block("fuse mul, add into \"fmaa.rn\";")).contains("did you mean `fma`?"));
    assert_diag(
        &block("fuse mul, add into \"fma.rn\" negating \"negg\";"),
        "test.sem:8:40",
        "`negg` does not start with an opcode",
    );
    assert_diag(
        &block("fuse mul, sub into \"fma.rn\";"),
        "test.sem:8:13",
        "`fuse` names `sub`, which this `instr add, mul` block does not specify",
    );
    assert_diag(
        &block("fuse mul, mul into \"fma.rn\";"),
        "test.sem:8:13",
        "a fusion's product and sum are two different opcodes",
    );
    assert_diag(
        &block("fuse mul add into \"fma.rn\";"),
        "test.sem:8:12",
        "expected `,`",
    );
}

#[test]
fn form_string_errors() {
    // Found by spec_parse (`ex2.approx.ftzҔtype`): the error took one byte of a two-byte
    // character and panicked.
    assert_diag(
        "instr foo {\n  form \"foo.ftzҔtype d, a\";\n  sem { d = a; }\n}",
        "test.sem:2:16",
        "unexpected `Ҕ` in the modifiers",
    );
    assert_diag(
        "instr foo {\n  form \"foo{.x d, a\";\n  sem { d = a; }\n}",
        "test.sem:2:12",
        "`{` without `}`",
    );
    assert_diag(
        "instr foo {\n  form \"foo.f32 d\";\n  sem { d = a; }\n}",
        "test.sem:2:9",
        "needs a destination and at least one source",
    );
    assert_diag(
        "instr foo {\n  form \"foo.f32 d, a, a\";\n  sem { d = a; }\n}",
        "test.sem:2:23",
        "operand `a` is named twice",
    );
    assert_diag(
        "instr foo {\n  form \"foo{.rnd.ftz}.f32 d, a\";\n  group rnd = { .rn };\n  sem { d = a; }\n}",
        "test.sem:2:13",
        "cannot be combined",
    );
}

#[test]
fn checker_errors() {
    assert_diag(&with_sem("    d = b;"), "test.sem:4:9", "unknown name `b`");
    assert_diag(
        &with_sem("    d = frob(a);"),
        "test.sem:4:9",
        "unknown function `frob`",
    );
    assert_diag(
        &with_sem("    d = add(a, a);"),
        "test.sem:4:9",
        "`add` takes 3 arguments, found 2",
    );
    assert_diag(
        &with_sem("    d = add(a, a, .rnn);"),
        "test.sem:4:19",
        "`.rnn` is not a rounding mode",
    );
    assert_diag(
        &with_sem("    return a;"),
        "test.sem:4:5",
        "`return` outside a `def`",
    );
    assert_diag(
        "def f(x) {\n  let y = x;\n}",
        "test.sem:1:5",
        "does not end with `return`",
    );
    assert_diag(
        "def f(x) {\n  return x;\n  return x;\n}",
        "test.sem:2:3",
        "must be the last statement",
    );
    assert_diag(
        &with_sem("    q = a;"),
        "test.sem:4:5",
        "`q` is not declared",
    );
    assert_diag(
        "def f(x) {\n  return ftz;\n}",
        "test.sem:2:10",
        "a def sees only its parameters",
    );
}

/// Sources whose work grows as a product (nested loops, defs calling defs twice, forms with
/// many groups) end in a located error within the budgets of `lower::MAX_LOAD_STEPS` and
/// `catalog::MAX_CHOICES`, not after minutes; found by the spec_parse fuzz target's kind of
/// input (each used to run past a minute).
#[test]
fn work_that_multiplies_is_bounded() {
    let started = std::time::Instant::now();
    assert_diag(
        &with_sem(
            "    let x = a;\n    for i in 0 .. 1000 { for j in 0 .. 1000 { for k in 0 .. 1000 { x = x; } } }\n    d = x;",
        ),
        "test.sem:5:",
        "lowering the specs took more than 16777216 steps",
    );
    let chain = |n: usize| {
        let mut text = String::from("def g0(x) { return x; }\n");
        for i in 1..n {
            text += &format!(
                "def g{i}(x) {{ return g{}(x) == g{}(x) ? x : x; }}\n",
                i - 1,
                i - 1
            );
        }
        text + &format!(
            "instr foo {{\n  form \"foo.f32 d, a\";\n  sem {{ d = g{}(a); }}\n}}\n",
            n - 1
        )
    };
    let e = errors(&chain(30));
    assert!(e.contains("took more than 16777216 steps"), "{e}");
    // Deeper than inlining goes: said as such, not as recursion.
    assert_diag(
        &chain(40),
        "test.sem:",
        "defs call defs more than 32 deep here",
    );
    let groups: String = "abcdefg"
        .chars()
        .map(|g| {
            let members: Vec<String> = (0..8).map(|m| format!(".{g}{m}")).collect();
            format!("  group {g} = {{ {} }};\n", members.join(", "))
        })
        .collect();
    assert_diag(
        &format!(
            "instr boom {{\n  form \"boom{{.a}}{{.b}}{{.c}}{{.d}}{{.e}}{{.f}}{{.g}}.f32 d, x\";\n{groups}  sem {{ d = x; }}\n}}\n"
        ),
        "test.sem:2:8",
        "the forms up to this one spell more than 65536 instruction texts",
    );
    assert_diag(
        &with_sem("    for i in -0x7FFFFFFFFFFFFFFF .. 0x7FFFFFFFFFFFFFFF { }\n    d = a;"),
        "test.sem:4:",
        "at most 1024 are unrolled",
    );
    let took = started.elapsed();
    assert!(took.as_secs() < 60, "the bounded cases took {took:?}");
}

#[test]
fn lowering_errors() {
    assert_diag(
        &with_sem("    d = a + a;"),
        "test.sem:4:9",
        "floating-point `+` needs a rounding mode",
    );
    assert_diag(
        &with_sem("    d = bits(a);"),
        "test.sem:4:9",
        "expected an f32 for `d`, found a value of type b32",
    );
    assert_diag(
        &with_sem("    let n = any_nan(a);\n    d = fabs(n);"),
        "test.sem:5:14",
        "a choice (any_nan, one_of) can only be assigned",
    );
    assert_diag(
        &with_sem("    let x = a;"),
        "test.sem:1:7",
        "`d` is never assigned",
    );
    assert_diag(
        &with_sem("    if is_nan(a) { d = a; }"),
        "test.sem:4:8",
        "assigned on only one side of this `if`",
    );
    assert_diag(
        &with_sem("    d = a[1];"),
        "test.sem:4:11",
        "lane 1 of an f32 value",
    );
    assert_diag(
        &with_sem("    d = is_nan(a) ? 0.1 : a;"),
        "test.sem:4:9",
        "not exactly representable in f32",
    );
    assert_diag(
        &with_sem("    d = bits(a)[40:0];"),
        "test.sem:4:9",
        "bits [40:0] of a 32-bit value",
    );
    assert_diag(
        &with_sem("    d = is_nan(a) ? a : bits(a);"),
        "test.sem:4:9",
        "the branches have different types",
    );
    assert_diag(
        &with_sem("    d = add(a, a, .rn) < 1.0 ? a : a;\n    d = sqrt(bits(a), .rn);"),
        "test.sem:5:14",
        "expected a floating-point value",
    );
    assert_diag("def f(x) {\n  return f(x);\n}\ninstr foo {\n  form \"foo.f32 d, a\";\n  sem { d = f(a); }\n}", "test.sem:2:10", "is recursive");
}

#[test]
fn approx_errors() {
    assert_diag(
        &with_sem("    d = approx(.bar, a, ulps(1));"),
        "test.sem:4:16",
        "`.bar` is not a rounding mode, a format, an approximated function",
    );
    assert_diag(
        &with_sem("    d = approx(.rn, a, ulps(1));"),
        "test.sem:4:16",
        "`.rn` is not an approximated function",
    );
    assert_diag(
        &with_sem("    d = approx(.div, a, ulps(1));"),
        "test.sem:4:9",
        "`approx(.div, ...)` takes 4 or 5 arguments, found 3",
    );
    assert_diag(
        &with_sem("    d = approx(.ex2, a, ulps(-1));"),
        "test.sem:4:25",
        "expected `ulps(N)` (N >= 0 an integer)",
    );
    assert_diag(
        &with_sem("    d = approx(.div, a, bits(a), ulps(2));"),
        "test.sem:4:25",
        "expected a floating-point value",
    );
    assert_diag(
        &with_sem("    d = approx(.ex2, a, rel_err(-3), 1);"),
        "test.sem:4:38",
        "expected a compile-time flag",
    );
    assert_diag(
        &with_sem("    d = ulps(2);"),
        "test.sem:4:9",
        "is an error bound: it is only the third argument of `approx`",
    );
}

#[test]
fn bit_range_assignment_errors() {
    assert_diag(
        &with_sem("    d[31:16] = 0;"),
        "test.sem:1:7",
        "bits [15:0] of `d` are never assigned",
    );
    assert_diag(
        &with_sem("    d[15:0] = 0;"),
        "test.sem:1:7",
        "bits [31:16] of `d` are never assigned",
    );
    assert_diag(
        &with_sem("    d[31:0] = 0;\n    d[20:10] = 0;"),
        "test.sem:5:16",
        "bits [20:10] overlap bits [31:0] of `d`",
    );
    assert_diag(
        &with_sem("    d[31:16] = 0;\n    d = a;"),
        "test.sem:5:9",
        "`d` is assigned by bit range in this variant",
    );
    assert_diag(
        &with_sem("    d = a;\n    d[31:16] = 0;"),
        "test.sem:5:16",
        "`d` is assigned whole in this variant",
    );
    assert_diag(
        &with_sem("    d[40:32] = 0;"),
        "test.sem:4:7",
        "bits [40:32] of `d`, which is 32 bits wide",
    );
    assert_diag(
        &with_sem("    d[31:16] = a;\n    d[15:0] = 0;"),
        "test.sem:4:16",
        "expected a 16-bit value for bits [31:16] of `d`",
    );
    assert_diag(
        &with_sem("    if is_nan(a) { d[31:16] = 0; d[15:0] = 0; } else { d[31:0] = 0; }"),
        "test.sem:4:8",
        "assigned different bit ranges on the two sides",
    );
}

/// Bit ranges that tile the destination load, and become its parts, named by range.
#[test]
fn bit_range_assignment_makes_parts() {
    let src = with_sem("    d[31:16] = bits(a)[15:0];\n    d[15:0] = 0x1234;");
    let files = vec![
        SourceFile::new("prelude.sem", EMBEDDED[0].1),
        SourceFile::new("test.sem", src.as_str()),
    ];
    let spec = Spec::from_files(files).expect("loads");
    let v = spec.lookup("foo.f32", Some(1)).expect("variant");
    let dest = &v.program.dests[0];
    assert_eq!(dest.parts.len(), 2);
    assert_eq!((dest.parts[0].lo, dest.parts[0].width), (0, 16));
    assert_eq!(dest.part_name(0), "d[15:0]");
    assert_eq!(dest.part_name(1), "d[31:16]");
    let mut ev = semfuzz_spec::eval::Evaluator::new(&v.program);
    let mut out = vec![Default::default(); 2];
    ev.eval(&[0x3f80_abcd], &mut out);
    use semfuzz_spec::outcome::Accept;
    assert_eq!(out, vec![Accept::Exact(0x1234), Accept::Exact(0xabcd)]);
}

#[test]
fn diagnostics_name_the_variant() {
    // An error only in the .f64 variant is found and says which variant it was building.
    let src = "instr foo {\n  form \"foo.type d, a\";\n  group type = { .f32, .f64 };\n  sem { d = type == .f64 ? bits(a) : a; }\n}";
    let e = errors(src);
    assert!(e.contains("while building variant `foo.f64`"), "{e}");
}

#[test]
fn rendering_shows_line_and_caret() {
    let e = errors(&with_sem("    d = frob(a);"));
    let expected =
        "error: unknown function `frob`\n --> test.sem:4:9\n  |\n4 |     d = frob(a);\n  |         ^^^^";
    assert!(e.starts_with(expected), "got:\n{e}");
}
