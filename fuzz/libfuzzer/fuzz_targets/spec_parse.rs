//! The spec language on arbitrary text: lexer, parser, printer, then checker and lowering
//! (with the shipped prelude, as a spec file beside it would be loaded).
//!
//! Properties: nothing panics; every error points into a file; what parses prints to text
//! that parses again and prints the same (the printer's fixpoint: the same tree).
#![no_main]

use libfuzzer_sys::fuzz_target;
use semfuzz_libfuzzer::assert_located;
use semfuzz_spec::catalog::EMBEDDED;
use semfuzz_spec::diag::SourceFile;
use semfuzz_spec::parser::parse_file;
use semfuzz_spec::printer::print_file;
use semfuzz_spec::Spec;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let file = SourceFile::new("fuzz.sem", text);
    let tree = match parse_file(&file) {
        Ok(tree) => tree,
        Err(d) => return assert_located(&d, "parse"),
    };
    let printed = print_file(&tree);
    let reparsed =
        parse_file(&SourceFile::new("printed.sem", printed.as_str())).unwrap_or_else(|d| {
            panic!("the printed text does not parse:\n{d}\n--- printed:\n{printed}")
        });
    assert_eq!(
        print_file(&reparsed),
        printed,
        "printing the reparsed text gives other text (not the same tree)"
    );
    let prelude = EMBEDDED
        .iter()
        .find(|(name, _)| *name == "prelude.sem")
        .map(|(name, text)| SourceFile::new(*name, *text))
        .expect("the prelude is embedded");
    if let Err(errors) = Spec::from_files(vec![prelude, file]) {
        for d in &errors.0 {
            assert_located(d, "check/lower");
        }
    }
});
