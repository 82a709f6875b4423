//! Instruction text as `semfuzz eval` and `check` read it: SASS (`HMUL2.SAT R3, |R8|.H1_H1,
//! c[6][60672];`, through `sass::parse`) when the opcode is upper-case, else a PTX variant name
//! (`fma.rn.ftz.f32`, through `Spec::lookup`) with the operands that follow it.
//!
//! Properties: nothing panics; SASS errors point into the text; what parses names one variant
//! and prints back (`SassInstr`'s `Display`, a PTX variant's text) to text that names the
//! same variant, fields, immediates and register list.
#![no_main]

use libfuzzer_sys::fuzz_target;
use semfuzz_libfuzzer::{assert_located, spec};
use semfuzz_spec::sass;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let spec = spec();
    if sass::looks_like_sass(text) {
        let first = match sass::parse(spec, text) {
            Ok(parsed) => parsed,
            Err(d) => return assert_located(&d, "SASS"),
        };
        let printed = first.to_string();
        let again = sass::parse(spec, &printed).unwrap_or_else(|d| {
            panic!("`{text}` printed as `{printed}`, which does not parse:\n{d}")
        });
        assert!(
            std::ptr::eq(first.variant, again.variant),
            "`{text}` names {}, printed `{printed}` names {}",
            first.variant.text,
            again.variant.text
        );
        assert_eq!(
            first.input_sources(),
            again.input_sources(),
            "fields of `{text}` / `{printed}`"
        );
        assert_eq!(
            first.values, again.values,
            "values of `{text}` / `{printed}`"
        );
        assert_eq!((&first.guard, &first.dest), (&again.guard, &again.dest));
        return;
    }
    // `semfuzz eval INSTR OPERAND...` / a `check` line: the words after the name are operands.
    let mut words = text.split_whitespace();
    let Some(name) = words.next() else { return };
    let operands = words.count();
    for n_sources in [None, Some(operands)] {
        if let Ok(v) = spec.lookup(name, n_sources) {
            let again = spec
                .lookup(&v.text, Some(v.sources.len()))
                .unwrap_or_else(|d| {
                    panic!("`{name}` names {}, which does not look up:\n{d}", v.text)
                });
            assert!(
                std::ptr::eq(v, again),
                "`{name}` and its text {} name different variants",
                v.text
            );
        }
    }
});
