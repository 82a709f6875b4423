//! Instruction text: every syntax the manual allows is found; invalid text gets a message that
//! names the problem.

mod common;
use common::spec;

fn error(text: &str, n: usize) -> String {
    match spec().lookup(text, Some(n)) {
        Ok(v) => panic!("`{text}` unexpectedly names {}", v.text),
        Err(d) => format!("{}\n{}", d.message, d.hint.unwrap_or_default()),
    }
}

#[test]
fn manual_syntax_is_accepted() {
    for (text, n) in [
        ("fma.rn.ftz.sat.f32", 3),
        ("min.NaN.xorsign.abs.f32", 2),
        ("add.rp.ftz.f32x2", 2),
        ("add.f32", 2),
        ("add.rz.ftz.f32", 2),
        ("sub.rn.ftz.f32", 2),
        ("mul.ftz.f32", 2),
        ("fma.rp.ftz.f32x2", 3),
        ("fma.rn.f64", 3),
        ("div.rn.f64", 2),
        ("max.NaN.f32", 2),
        ("min.ftz.NaN.abs.f32", 3),
        ("testp.notanumber.f32", 1),
        ("testp.infinite.f64", 1),
        ("copysign.f64", 2),
        ("rcp.rn.ftz.f32", 1),
        ("sqrt.rn.f64", 1),
        ("abs.ftz.f32", 1),
        ("neg.ftz.f32", 1),
        ("mad.rn.f64", 3),
        // The examples of 9.7.3.8, 9.7.3.14 and 9.7.3.17-22.
        ("div.approx.ftz.f32", 2),
        ("div.full.ftz.f32", 2),
        ("rcp.approx.ftz.f64", 1),
        ("rsqrt.approx.ftz.f64", 1),
        ("sin.approx.ftz.f32", 1),
        ("cos.approx.ftz.f32", 1),
        ("lg2.approx.ftz.f32", 1),
        ("ex2.approx.ftz.f32", 1),
        ("tanh.approx.f32", 1),
    ] {
        let v = spec()
            .lookup(text, Some(n))
            .unwrap_or_else(|d| panic!("{text}: {d}"));
        assert_eq!(v.text, text);
    }
}

#[test]
fn missing_rounding_modifier() {
    let e = error("fma.f32", 3);
    assert!(e.contains("lacks its required .rnd modifier"), "{e}");
    assert!(e.contains(".rn .rz .rm .rp"), "{e}");
}

#[test]
fn xorsign_needs_abs() {
    let e = error("min.xorsign.f32", 2);
    assert!(e.contains("needs `.abs`"), "{e}");
}

#[test]
fn sat_not_allowed_on_f64() {
    let e = error("add.sat.f64", 2);
    assert!(e.contains("`.sat` is not allowed in `add.sat.f64`"), "{e}");
    assert!(e.contains("add{.rnd}.f64 d, a, b"), "{e}");
}

#[test]
fn xorsign_takes_two_sources() {
    let e = error("min.xorsign.abs.f32", 3);
    assert!(e.contains("takes 2 (a, b)"), "{e}");
    assert!(e.contains("3 were given"), "{e}");
}

#[test]
fn legacy_forms_are_refused_with_the_reason() {
    let e = error("mad.f32", 3);
    assert!(e.contains("not supported") && e.contains("sm_1x"), "{e}");
    let e = error("div.f32", 2);
    assert!(e.contains(".approx, .full or .rnd is required"), "{e}");
    let e = error("mad.f64", 3);
    assert!(e.contains("mad.rn.f64"), "{e}");
}

#[test]
fn unknown_modifier_and_instruction() {
    let e = error("add.rq.f32", 2);
    assert!(e.contains("`.rq` is not a modifier of `add`"), "{e}");
    let e = error("fmaa.rn.f32", 3);
    assert!(
        e.contains("unknown instruction `fmaa`") && e.contains("fma"),
        "{e}"
    );
}

#[test]
fn modifiers_out_of_order() {
    let e = error("add.ftz.rn.f32", 2);
    assert!(
        e.contains("out of order") && e.contains("add.rn.ftz.f32"),
        "{e}"
    );
}

#[test]
fn ambiguous_arity_is_resolved_by_operands() {
    assert_eq!(spec().lookup("min.f32", Some(2)).unwrap().sources.len(), 2);
    assert_eq!(spec().lookup("min.f32", Some(3)).unwrap().sources.len(), 3);
    let e = spec().lookup("min.f32", None).unwrap_err();
    assert!(e.message.contains("has 2 forms"), "{}", e.message);
}
