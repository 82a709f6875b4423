//! Rule files (`rules/*.rules`, docs/rules.md) on arbitrary text: `smt::rules::parse`, then
//! each rule's sides resolved against the built-in spec (`smt::sequence::resolve`) and posed
//! as Z3 formulas (`Query::build`, not solved).
//!
//! Properties: nothing panics; every error points into the file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use semfuzz_libfuzzer::{assert_located, spec};
use semfuzz_smt::{encode::ToBits, rules, sequence};
use semfuzz_spec::diag::SourceFile;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let file = SourceFile::new("fuzz.rules", text);
    let parsed = match rules::parse(&file) {
        Ok(parsed) => parsed,
        Err(errors) => {
            assert!(!errors.is_empty(), "parse failed with no error");
            return errors.iter().for_each(|d| assert_located(d, "parse"));
        }
    };
    for rule in &parsed {
        match sequence::resolve(spec(), rule) {
            Ok(query) => {
                // Both encodings `prove` builds: Z3's own (in process) and the portable one
                // (`--emit-smt2`, `--solver`).
                drop(query.build(ToBits::Native));
                drop(query.build(ToBits::Fresh));
            }
            Err(d) => assert_located(&d, &format!("resolving rule {}", rule.name)),
        }
    }
});
