//! PTX modules (`semfuzz eval-ptx`, `check-ptx`, a rule's `@file.ptx:func`) on arbitrary text:
//! `semfuzz_ptx::parse`, printing, and every function with a body read into a program
//! against the built-in spec and evaluated once.
//!
//! Properties: nothing panics; every error points into the text; printing a parsed module
//! and parsing it again gives the same module (the same text printed again, and the same
//! functions and instruction counts).
#![no_main]

use libfuzzer_sys::fuzz_target;
use semfuzz_libfuzzer::{assert_located, spec};
use semfuzz_ptx::syntax::{parse, Statement};
use semfuzz_ptx::{read_function, Module};
use semfuzz_spec::diag::SourceFile;
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::outcome::Accept;

/// Each function's name and its number of statements, in order.
fn shape(m: &Module) -> Vec<(String, Option<usize>)> {
    fn count(body: &[Statement]) -> usize {
        body.iter()
            .map(|s| match s {
                Statement::Block(inner, _) => 1 + count(inner),
                _ => 1,
            })
            .sum()
    }
    m.functions
        .iter()
        .map(|f| (f.name.clone(), f.body.as_deref().map(count)))
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let module = match parse(&SourceFile::new("fuzz.ptx", text)) {
        Ok(m) => m,
        Err(d) => return assert_located(&d, "parse"),
    };
    let printed = module.to_string();
    let again = parse(&SourceFile::new("printed.ptx", &printed))
        .unwrap_or_else(|d| panic!("the printed module does not parse:\n{d}\n{printed}"));
    assert_eq!(again.to_string(), printed, "printing is not a fixpoint");
    assert_eq!(shape(&again), shape(&module), "{printed}");
    for f in module.functions.iter().filter(|f| f.body.is_some()) {
        match read_function(spec(), &module, Some(&f.name)) {
            Ok(read) => {
                let mut ev = Evaluator::new(&read.program);
                let mut out = vec![Accept::default(); ev.n_parts()];
                ev.eval(&vec![0; ev.n_inputs()], &mut out);
            }
            Err(d) => assert_located(&d, &format!("reading {}", f.name)),
        }
    }
});
