//! parse → print → parse: printing is a fixpoint, and covers every construct.

use semfuzz_spec::catalog::EMBEDDED;
use semfuzz_spec::diag::SourceFile;
use semfuzz_spec::parser::parse_file;
use semfuzz_spec::printer::print_file;

fn reprint(name: &str, text: &str) -> String {
    let file = SourceFile::new(name, text);
    let ast = parse_file(&file).unwrap_or_else(|d| panic!("{d}"));
    print_file(&ast)
}

#[test]
fn embedded_specs_round_trip() {
    for (name, text) in EMBEDDED {
        let once = reprint(name, text);
        let twice = reprint(name, &once);
        assert_eq!(once, twice, "{name} does not print to a fixpoint");
    }
}

#[test]
fn every_construct_round_trips() {
    let src = r#"
format h = ieee(5, 11);
format hx4 = h x 4;
const K = 0x7FFF;
def f(x, y) {
  let z = x;
  for i in 0 .. 4 { z = y; }
  if a { z = x; } else if b { z = y; } else { z = x; }
  return (z ? x : y) ? -x : ~y[3:0][1];
}
instr p, q {
  form "p{.rnd}{.x.y}.h d, a, b" since ptx 8.6 sm_100 rejected "why";
  group rnd = { .rn, .rz } default .rn fusable;
  operand d: pred;
  require since ptx 7.0 sm_80 if x && (rnd == .rz || !y);
  reject "no .rz with .x" if (rnd == .rz) == x;
  sem {
    d[0] = (a + b) * c - (d - e) - f(1.5, 2) << 3 >> 1 & 4 | 5 ^ 6 % 7 / 8 != (9 == true);
    d = a <= b || a >= b && a > b;
  }
}
"#;
    let once = reprint("t.sem", src);
    assert_eq!(once, reprint("t.sem", &once));
    for needle in [
        "(a + b) * c - (d - e)",
        "rejected \"why\"",
        "default .rn fusable",
        "else if b",
        "[3:0][1]",
        "hx4 = h x 4",
        "-x : ~y",
        "reject \"no .rz with .x\" if (rnd == .rz) == x;",
    ] {
        assert!(once.contains(needle), "`{needle}` missing from:\n{once}");
    }
}
