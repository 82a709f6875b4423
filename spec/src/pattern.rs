//! The one language for choosing variants by name, shared by every command that takes a
//! pattern (`list`, `selfcheck`, `fuzz --instr`, …): shell-style globs over the whole variant
//! name (`*`, `?`, `[...]`, `{a,b}`); a pattern with no glob character matches every variant
//! whose name contains it.

use crate::{Spec, Variant};
use std::fmt;

/// The characters that make a pattern a glob; without any of them it is a substring.
const GLOB_CHARS: &[char] = &['*', '?', '[', '{'];

/// How the rule reads in `--help` and in the hint of every "no match" error.
pub const RULE: &str = "a pattern with `*`, `?`, `[...]` or `{a,b}` is a shell glob over the \
                        whole variant name (`add.*.f32`); any other pattern selects the \
                        names containing it (`min.NaN`)";

/// A parsed variant pattern: shell glob (`*`, `?`, `[...]`, `{a,b}`) over the whole variant
/// name; no glob character = substring match.
#[derive(Clone, Debug)]
pub struct Pattern {
    text: String,
    glob: Option<globset::GlobMatcher>,
}

/// A pattern that cannot be parsed, or patterns that select nothing: what is wrong, and what
/// to do about it (near variant names, the pattern rule).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct PatternError {
    /// What is wrong, e.g. "no variant matches `add.rn.f33`".
    pub message: String,
    /// What to do about it, one line each (did-you-mean names, then the pattern rule).
    pub hints: Vec<String>,
}

impl From<PatternError> for crate::Diagnostic {
    /// The error in the one error format: `error: message`, then a `hint:` line per hint.
    fn from(e: PatternError) -> crate::Diagnostic {
        crate::Diagnostic::plain(e.message).with_hint(e.hints.join("\n"))
    }
}

impl Pattern {
    /// Parses a pattern; fails only on a malformed glob (an unclosed `[` or `{`, a range `[z-a]`).
    pub fn parse(text: &str) -> Result<Pattern, PatternError> {
        let glob = if text.contains(GLOB_CHARS) {
            let glob = globset::GlobBuilder::new(text)
                .literal_separator(false)
                .backslash_escape(true)
                .build()
                .map_err(|e| PatternError {
                    message: format!("`{text}` is not a valid pattern: {}", e.kind()),
                    hints: vec![RULE.to_string()],
                })?;
            Some(glob.compile_matcher())
        } else {
            None
        };
        Ok(Pattern {
            text: text.to_string(),
            glob,
        })
    }

    /// Whether a variant name (e.g. `fma.rn.ftz.f32`) is selected.
    pub fn matches(&self, variant_text: &str) -> bool {
        match &self.glob {
            Some(g) => g.is_match(variant_text),
            None => variant_text.contains(&self.text),
        }
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// How far `name` is from matching: edits to the pattern's text (a substring pattern
    /// against the best part of `name`, a glob's text against the whole of it, glob
    /// characters counted as written), case ignored.
    fn distance(&self, name: &str) -> usize {
        edit_distance(
            &self.text.to_lowercase(),
            &name.to_lowercase(),
            self.glob.is_none(),
        )
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Every variant matching any of `patterns`, in catalogue order, each once. Err when none
/// matches (the error names the patterns and suggests near variant names; same message and
/// exit code in every command). No pattern at all selects every variant.
pub fn select<'s>(spec: &'s Spec, patterns: &[Pattern]) -> Result<Vec<&'s Variant>, PatternError> {
    let chosen: Vec<&Variant> = spec
        .variants
        .iter()
        .filter(|v| patterns.is_empty() || patterns.iter().any(|p| p.matches(&v.text)))
        .collect();
    if !chosen.is_empty() {
        return Ok(chosen);
    }
    let names: Vec<String> = patterns.iter().map(|p| format!("`{p}`")).collect();
    let message = match names.as_slice() {
        [one] => format!("no variant matches {one}"),
        many => format!("no variant matches any of {}", many.join(", ")),
    };
    let mut hints = Vec::new();
    for p in patterns {
        if let Some(h) = suggest(spec, p) {
            hints.push(h);
        }
    }
    hints.push(format!("{RULE}; `semfuzz list` shows every variant"));
    Err(PatternError { message, hints })
}

/// The most names a did-you-mean hint shows.
const MAX_SUGGESTIONS: usize = 4;

/// A did-you-mean line for a pattern that matched nothing: the same pattern in another case,
/// a glob that would match anywhere in the name, or the nearest names by edit distance.
fn suggest(spec: &Spec, p: &Pattern) -> Option<String> {
    let folded = p.as_str().to_lowercase();
    if let Ok(lower) = Pattern::parse(&folded) {
        let by_case = distinct_names(
            spec.variants
                .iter()
                .filter(|v| lower.matches(&v.text.to_lowercase())),
        );
        if !by_case.is_empty() {
            return Some(format!(
                "patterns are case-sensitive: `{p}` would match {}",
                listing(&by_case)
            ));
        }
    }
    if p.glob.is_some() {
        let anywhere = format!("*{}*", p.as_str().trim_matches('*'));
        if let Ok(glob) = Pattern::parse(&anywhere) {
            if spec.variants.iter().any(|v| glob.matches(&v.text)) {
                return Some(format!(
                    "a glob matches the whole name: `{anywhere}` matches anywhere in it"
                ));
            }
        }
    }
    // Close enough to be a typo: a third of the pattern's length, at least one edit.
    let limit = (p.as_str().chars().count() / 3).max(1);
    let mut best = usize::MAX;
    let mut near: Vec<&Variant> = Vec::new();
    for v in &spec.variants {
        let d = p.distance(&v.text);
        if d > limit || d > best {
            continue;
        }
        if d < best {
            best = d;
            near.clear();
        }
        near.push(v);
    }
    let near = distinct_names(near.into_iter());
    (!near.is_empty()).then(|| format!("did you mean {}?", listing(&near)))
}

/// The names of `variants`, each once, in order.
fn distinct_names<'s>(variants: impl Iterator<Item = &'s Variant>) -> Vec<&'s str> {
    let mut names: Vec<&str> = Vec::new();
    for v in variants {
        if !names.contains(&v.text.as_str()) {
            names.push(&v.text);
        }
    }
    names
}

/// `` `a`, `b` or `c` ``, at most [`MAX_SUGGESTIONS`] of them and how many more.
fn listing(names: &[&str]) -> String {
    let shown: Vec<String> = names
        .iter()
        .take(MAX_SUGGESTIONS)
        .map(|n| format!("`{n}`"))
        .collect();
    let more = names.len().saturating_sub(MAX_SUGGESTIONS);
    match (shown.split_last(), more) {
        (Some((last, [])), 0) => last.clone(),
        (Some((last, rest)), 0) => format!("{} or {last}", rest.join(", ")),
        (_, more) => format!("{} (and {more} more)", shown.join(", ")),
    }
}

/// "did you mean `x`?" for the `candidates` nearest to `word` (case ignored), when one is
/// within a third of its length (at least one edit); `None` when nothing is that near. For
/// every misspelt name a message reports: functions, modifiers, groups.
pub fn did_you_mean<'c>(
    word: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> Option<String> {
    let limit = (word.chars().count() / 3).max(1);
    let word = word.to_lowercase();
    let mut best = usize::MAX;
    let mut near: Vec<&str> = Vec::new();
    for c in candidates {
        let d = edit_distance(&word, &c.to_lowercase(), false);
        if d > limit || d > best || near.contains(&c) {
            continue;
        }
        if d < best {
            best = d;
            near.clear();
        }
        near.push(c);
    }
    (!near.is_empty()).then(|| format!("did you mean {}?", listing(&near)))
}

/// Levenshtein distance between `pattern` and `text`; with `within`, between `pattern` and the
/// part of `text` it is nearest to (Sellers' approximate substring matching: skipping text
/// before and after is free).
pub(crate) fn edit_distance(pattern: &str, text: &str, within: bool) -> usize {
    let text: Vec<char> = text.chars().collect();
    // prev[j]: distance of the pattern read so far to text[..j] (or a suffix of it, `within`).
    let mut prev: Vec<usize> = if within {
        vec![0; text.len() + 1]
    } else {
        (0..=text.len()).collect()
    };
    for (i, pc) in pattern.chars().enumerate() {
        let mut cur = Vec::with_capacity(text.len() + 1);
        cur.push(i + 1);
        for (j, tc) in text.iter().enumerate() {
            cur.push(
                (prev[j] + usize::from(pc != *tc))
                    .min(prev[j + 1] + 1)
                    .min(cur[j] + 1),
            );
        }
        prev = cur;
    }
    if within {
        prev.into_iter().min().unwrap_or(0)
    } else {
        prev[text.len()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::OnceLock;

    fn spec() -> &'static Spec {
        static SPEC: OnceLock<Spec> = OnceLock::new();
        SPEC.get_or_init(|| Spec::embedded().expect("built-in specs load"))
    }

    fn names(patterns: &[&str]) -> Result<Vec<String>, PatternError> {
        let ps: Vec<Pattern> = patterns
            .iter()
            .map(|p| Pattern::parse(p))
            .collect::<Result<_, _>>()?;
        Ok(select(spec(), &ps)?
            .into_iter()
            .map(|v| v.text.clone())
            .collect())
    }

    #[test]
    fn without_glob_characters_a_pattern_is_a_substring() {
        let p = Pattern::parse("NaN.f3").expect("parses");
        assert!(p.matches("min.NaN.f32"));
        assert!(p.matches("max.ftz.NaN.f32"));
        assert!(!p.matches("min.NaN.f16"));
        assert!(!p.matches("min.nan.f32"), "case-sensitive");
        assert_eq!(p.as_str(), "NaN.f3");
    }

    #[test]
    fn globs_match_the_whole_name() {
        let p = Pattern::parse("add.*f32").expect("parses");
        assert!(p.matches("add.rn.f32"));
        assert!(p.matches("add.rn.ftz.sat.f32"));
        assert!(!p.matches("add.rn.f32x2"), "the whole name, not a prefix");
        assert!(!p.matches("fma.add.rn.f32"), "the whole name, not a suffix");
        let q = Pattern::parse("?ul.r[nz].f{32,64}").expect("parses");
        assert!(q.matches("mul.rn.f32") && q.matches("mul.rz.f64"));
        assert!(!q.matches("mul.rm.f32") && !q.matches("mul.rn.f16"));
        assert!(Pattern::parse("HMUL2.*")
            .expect("parses")
            .matches("HMUL2.FTZ"));
    }

    #[test]
    fn malformed_globs_are_errors_that_state_the_rule() {
        for bad in ["add.[rn", "add.{rn,rz", "add.[z-a].f32"] {
            let e = Pattern::parse(bad).expect_err(bad);
            assert!(e.message.contains(bad), "{e:?}");
            assert!(e.hints.iter().any(|h| h.contains("shell glob")), "{e:?}");
        }
    }

    #[test]
    fn select_keeps_catalogue_order_and_takes_each_variant_once() {
        let both = names(&["min.NaN.f32", "min.*f32"]).expect("matches");
        let all: Vec<String> = spec()
            .variants
            .iter()
            // The substring `min.NaN.f32` is also in the warp collective `redux.sync.min.NaN.f32`.
            .filter(|v| {
                (v.text.starts_with("min.") && v.text.ends_with(".f32"))
                    || v.text.contains("min.NaN.f32")
            })
            .map(|v| v.text.clone())
            .collect();
        assert_eq!(both, all);
        assert!(both.iter().any(|n| n == "min.NaN.xorsign.abs.f32"));
        // No pattern selects every variant.
        assert_eq!(names(&[]).expect("all").len(), spec().variants.len());
    }

    #[test]
    fn no_match_names_the_patterns_and_suggests_near_names() {
        let e = names(&["add.rn.f33"]).expect_err("no such variant");
        assert_eq!(e.message, "no variant matches `add.rn.f33`");
        assert!(e.hints[0].contains("`add.rn.f32`"), "{e:?}");
        assert!(e.hints.last().is_some_and(|h| h.contains("shell glob")));

        let e = names(&["min.nan.f32"]).expect_err("case");
        assert!(
            e.hints[0].starts_with("patterns are case-sensitive"),
            "{e:?}"
        );
        assert!(e.hints[0].contains("`min.NaN.f32`"), "{e:?}");

        let e = names(&["rn.f32*"]).expect_err("glob anchored at the start");
        assert!(e.hints[0].contains("`*rn.f32*`"), "{e:?}");

        let e = names(&["min.NaN.xorsign.f32"]).expect_err("missing .abs");
        assert!(e.hints[0].contains("`min.NaN.xorsign.abs.f32`"), "{e:?}");

        let e = names(&["frobnicate", "zzz*"]).expect_err("nothing near");
        assert_eq!(e.message, "no variant matches any of `frobnicate`, `zzz*`");
        assert_eq!(e.hints.len(), 1, "only the rule: {e:?}");
    }

    #[test]
    fn edit_distance_whole_and_within() {
        assert_eq!(edit_distance("kitten", "sitting", false), 3);
        assert_eq!(edit_distance("", "abc", false), 3);
        assert_eq!(edit_distance("rn.f33", "add.rn.f32", true), 1);
        assert_eq!(edit_distance("rn.f32", "add.rn.f32", true), 0);
        assert_eq!(edit_distance("rn.f32", "add.rn.f32", false), 4);
    }
}
