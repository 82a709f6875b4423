//! Explanations by a neighbouring variant: a rejected result that the same instruction
//! without `.ftz`, without `.sat`/`.relu`, without `.NaN`, with `.ftz` added, or with another
//! rounding modifier accepts is named by that difference (`ftz-not-applied`, `saturation`,
//! `nan-rule-ignored`, `ftz-over-applied`, `rounded-as-rz`). That says how a backend went
//! wrong, not only how far its bits are from the spec's.

use crate::finding::{first_rejected, Class};
use semfuzz_backend::{Words, ROUNDINGS};
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::{Spec, Variant};

/// One neighbour of a variant and the class its accepting a result stands for.
pub struct Neighbour<'s> {
    /// The class a result it accepts gets.
    pub class: String,
    evaluator: Evaluator<'s>,
    variant: &'s Variant,
}

/// The variant named `words` with `modifiers`, reading the same operands as `like`.
fn sibling<'s>(
    spec: &'s Spec,
    opcode: &str,
    modifiers: &[&str],
    like: &Variant,
) -> Option<&'s Variant> {
    let text = std::iter::once(opcode)
        .chain(modifiers.iter().copied())
        .collect::<Vec<_>>()
        .join(".");
    let same_operands = |v: &&Variant| {
        v.sources.len() == like.sources.len()
            && v.sources
                .iter()
                .zip(&like.sources)
                .all(|(a, b)| a.width == b.width)
            && v.program.dests.first().map(|d| d.width)
                == like.program.dests.first().map(|d| d.width)
    };
    spec.variants_named(&text).into_iter().find(same_operands)
}

/// The neighbours of `variant` that explain a difference, in the order they are tried: other
/// roundings, then without `.ftz`, `.sat`, `.relu`, `.NaN`, then with `.ftz`.
pub fn neighbours<'s>(spec: &'s Spec, variant: &'s Variant) -> Vec<Neighbour<'s>> {
    let words = Words::of(variant);
    let mut found: Vec<(String, &'s Variant)> = Vec::new();
    let without = |m: &str| -> Vec<&str> {
        words
            .modifiers
            .iter()
            .copied()
            .filter(|x| *x != m)
            .collect()
    };
    // Another rounding changes the least, so it is tried first.
    if let Some(rounding) = words.rounding() {
        for other in ROUNDINGS.iter().filter(|r| **r != rounding) {
            let swapped: Vec<&str> = words
                .modifiers
                .iter()
                .map(|m| if *m == rounding { *other } else { *m })
                .collect();
            if let Some(v) = sibling(spec, words.opcode, &swapped, variant) {
                found.push((format!("rounded-as-{other}"), v));
            }
        }
    }
    for (modifier, class) in [
        ("ftz", "ftz-not-applied"),
        ("sat", "saturation"),
        ("relu", "saturation"),
        ("NaN", "nan-rule-ignored"),
    ] {
        if words.has(modifier) {
            if let Some(v) = sibling(spec, words.opcode, &without(modifier), variant) {
                found.push((class.to_string(), v));
            }
        }
    }
    if !words.has("ftz") {
        // `.ftz` goes right after the rounding modifier, or first.
        let mut with = words.modifiers.clone();
        let at = with
            .iter()
            .position(|m| ROUNDINGS.contains(m))
            .map_or(0, |i| i + 1);
        with.insert(at, "ftz");
        if let Some(v) = sibling(spec, words.opcode, &with, variant) {
            found.push(("ftz-over-applied".to_string(), v));
        }
    }
    found
        .into_iter()
        .map(|(class, v)| Neighbour {
            class,
            evaluator: Evaluator::new(&v.program),
            variant: v,
        })
        .collect()
}

/// The class of the first neighbour that accepts `got` for `inputs`, if any. Only numbers that
/// differ as numbers are explained so (`spec_class`: a rounding, a wrong value, a zero's sign,
/// a clamp): a NaN where a number is due is that, and a flush the spec's own classes already
/// name, whichever neighbour would also produce it for these inputs.
pub fn explain(
    spec_class: &Class,
    neighbours: &mut [Neighbour<'_>],
    inputs: &[u64],
    got: u64,
    scratch: &mut Vec<Accept>,
) -> Option<String> {
    let numeric = matches!(
        spec_class,
        Class::Rounding { .. } | Class::WrongValue { .. } | Class::SignOfZero | Class::Saturation
    );
    if !numeric {
        return None;
    }
    for n in neighbours {
        scratch.clear();
        scratch.resize(n.evaluator.n_parts(), Accept::default());
        n.evaluator.eval(inputs, scratch);
        if first_rejected(&n.variant.program.dests[0], scratch, got).is_none() {
            return Some(n.class.clone());
        }
    }
    None
}
