//! The spec language on arbitrary text: lexer, parser, printer, then checker and lowering
//! (with the shipped prelude, as a spec file beside it would be loaded).
//!
//! Properties: nothing panics; every error points into a file; what parses prints to text
//! that parses again and prints the same (the printer's fixpoint), and that loads exactly when
//! the original does, to the same variants and lowered programs (the same tree, as far as
//! anything downstream can tell: the trees themselves hold spans into their own files).
#![no_main]

use libfuzzer_sys::fuzz_target;
use semfuzz_libfuzzer::assert_located;
use semfuzz_spec::catalog::EMBEDDED;
use semfuzz_spec::diag::SourceFile;
use semfuzz_spec::parser::parse_file;
use semfuzz_spec::printer::print_file;
use semfuzz_spec::{Diagnostics, Spec};
use std::sync::Arc;

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
    // Printing may not change the meaning: the printed text loads exactly when the original
    // does, into the same variants with the same lowered programs (which hold no spans).
    let original = load_with_prelude(file);
    let from_printed = load_with_prelude(SourceFile::new("printed.sem", printed.as_str()));
    match (&original, &from_printed) {
        (Ok(a), Ok(b)) => {
            assert_eq!(
                a.variants.len(),
                b.variants.len(),
                "variants of the printed text"
            );
            for (va, vb) in a.variants.iter().zip(&b.variants) {
                assert_eq!(va.text, vb.text, "variants of the printed text");
                assert!(
                    va.program == vb.program,
                    "{} lowers differently once printed",
                    va.text
                );
            }
        }
        (Err(a), Err(b)) => {
            a.0.iter().for_each(|d| assert_located(d, "check/lower"));
            assert_eq!(a.0.len(), b.0.len(), "errors of the printed text:\n{b}");
        }
        (Ok(_), Err(e)) => panic!("the printed text does not load:\n{e}\n--- printed:\n{printed}"),
        (Err(e), Ok(_)) => panic!("the printed text loads, the original does not:\n{e}"),
    }
});

/// Checks and lowers `file` after the shipped prelude, as a spec file beside it is loaded.
fn load_with_prelude(file: Arc<SourceFile>) -> Result<Spec, Diagnostics> {
    let prelude = EMBEDDED
        .iter()
        .find(|(name, _)| *name == "prelude.sem")
        .map(|(name, text)| SourceFile::new(*name, *text))
        .expect("the prelude is embedded");
    Spec::from_files(vec![prelude, file])
}
