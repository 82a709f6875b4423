//! The smallest module that compiles one function of a module as it is: what a bug report's
//! reproducer carries.
//!
//! [`minimal`] keeps the function, renamed to a short name (`f`), and of the rest of the module
//! only what it uses: the functions it calls that the module defines (the reader inlines
//! them), the `target` lines, the declarations and globals it names (and those they
//! name), the attribute groups it and they reference, and the numbered metadata its
//! instructions' `!fpmath` attachments point at. Everything else (other declarations, unused
//! attribute groups, named metadata such as `!llvm.ident` or `!nvvm.annotations`,
//! `source_filename`, debug information and the other attachments, which the reader drops
//! too, and `comdat`, whose implicit name would be the old one) is dropped. Value names are
//! kept: renaming them buys little and risks a clash.

use crate::syntax::{Attr, Function, Module, Statement};
use std::collections::BTreeSet;

/// `func` of `module` alone with what it uses, renamed to [`short_name`] (`f` unless the kept
/// module already names a global `f`).
pub fn minimal(module: &Module, func: &Function) -> Module {
    let mut f = func.clone();
    // Debug attachments point into debug information the reproducer does not carry.
    for s in &mut f.body {
        if let Statement::Instr(i) = s {
            i.metadata.retain(|m| m.name == "fpmath");
        }
    }
    f.attrs
        .retain(|a| !matches!(a, Attr::Word(w) if w.starts_with("comdat")));
    // What the function names (its callees, constants such as `@g`, the `!3` its attachments
    // point at), then what the kept lines name, until nothing new is kept.
    let body = Module {
        lines: Vec::new(),
        globals: Vec::new(),
        groups: Vec::new(),
        functions: vec![f.clone()],
    }
    .to_string();
    let own = format!("@{}", func.name);
    let mut used: BTreeSet<String> = refs(&body).into_iter().filter(|r| *r != own).collect();
    let mut kept: Vec<bool> = module
        .lines
        .iter()
        .map(|l| l.starts_with("target "))
        .collect();
    // The functions it calls that the module defines, which the reader inlines.
    let mut callees: Vec<bool> = vec![false; module.functions.len()];
    loop {
        let mut grew = false;
        for (k, line) in module.lines.iter().enumerate() {
            if !kept[k] && defines(line).is_some_and(|d| used.contains(&d)) {
                kept[k] = true;
                grew = true;
                used.extend(refs(line).into_iter().filter(|r| *r != own));
            }
        }
        for (k, g) in module.functions.iter().enumerate() {
            if !callees[k] && g.name != func.name && used.contains(&format!("@{}", g.name)) {
                callees[k] = true;
                grew = true;
                let text = Module {
                    lines: Vec::new(),
                    groups: Vec::new(),
                    globals: Vec::new(),
                    functions: vec![g.clone()],
                }
                .to_string();
                used.extend(refs(&text).into_iter().filter(|r| *r != own));
            }
        }
        if !grew {
            break;
        }
    }
    let callees: Vec<Function> = module
        .functions
        .iter()
        .zip(&callees)
        .filter(|(_, k)| **k)
        .map(|(g, _)| g.clone())
        .collect();
    let short = short_name(&used);
    let lines: Vec<String> = module
        .lines
        .iter()
        .zip(&kept)
        .filter(|(_, k)| **k)
        .map(|(l, _)| rename_global(l, &func.name, &short))
        .collect();
    for s in &mut f.body {
        if let Statement::Instr(i) = s {
            if i.callee.as_deref() == Some(func.name.as_str()) {
                i.callee = Some(short.clone());
            }
        }
    }
    f.name = short;
    let mut groups_used: BTreeSet<u32> = std::iter::once(&f)
        .chain(&callees)
        .flat_map(|g| &g.attrs)
        .filter_map(|a| match a {
            Attr::Group(n) => Some(*n),
            _ => None,
        })
        .collect();
    for l in &lines {
        groups_used.extend(group_refs(l));
    }
    Module {
        lines,
        globals: module
            .globals
            .iter()
            .filter(|g| used.contains(&format!("@{}", g.name)))
            .cloned()
            .collect(),
        groups: module
            .groups
            .iter()
            .filter(|g| groups_used.contains(&g.id))
            .cloned()
            .collect(),
        functions: std::iter::once(f).chain(callees).collect(),
    }
}

/// `f`, or `f0`, `f1`, ... where `taken` (names as [`refs`] writes them, `@g`) has it.
fn short_name(taken: &BTreeSet<String>) -> String {
    std::iter::once("f".to_string())
        .chain((0..).map(|k| format!("f{k}")))
        .find(|n| !taken.contains(&format!("@{n}")))
        .expect("an unused name")
}

/// What a module-level line declares or defines, as [`refs`] writes it: `declare ... @name(`
/// and `@name = ...` are `@name`, numbered metadata `!0 = ...` is `!0`.
fn defines(line: &str) -> Option<String> {
    if line.starts_with("declare") {
        return globals(line).into_iter().next().map(|g| format!("@{g}"));
    }
    let (head, _) = line.split_once('=')?;
    let head = head.trim();
    let named = |p: &str| {
        head.strip_prefix(p).is_some_and(|n| {
            !n.is_empty()
                && n.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$' | '-' | '"'))
        })
    };
    (named("@") || (named("!") && head[1..].chars().all(|c| c.is_ascii_digit())))
        .then(|| head.replace('"', ""))
}

/// The globals (`@name`) and numbered metadata (`!0`) `text` names, in order.
fn refs(text: &str) -> Vec<String> {
    let mut out: Vec<String> = globals(text).into_iter().map(|g| format!("@{g}")).collect();
    for (i, _) in text.match_indices('!') {
        let digits: String = text[i + 1..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        if !digits.is_empty() {
            out.push(format!("!{digits}"));
        }
    }
    out
}

/// The global name at byte `i` of `text` (which holds `@`), and the text after it.
fn global_at(text: &str, i: usize) -> Option<(String, &str)> {
    let rest = &text[i + 1..];
    if let Some(quoted) = rest.strip_prefix('"') {
        let end = quoted.find('"')?;
        return Some((quoted[..end].to_string(), &quoted[end + 1..]));
    }
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$' | '-')))
        .unwrap_or(rest.len());
    (end > 0).then(|| (rest[..end].to_string(), &rest[end..]))
}

/// Every `@name` in `text`, in order.
fn globals(text: &str) -> Vec<String> {
    text.match_indices('@')
        .filter_map(|(i, _)| global_at(text, i).map(|(n, _)| n))
        .collect()
}

/// `text` with the global `@from` (a whole name) written `@to`.
fn rename_global(text: &str, from: &str, to: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find('@') {
        out.push_str(&rest[..i]);
        match global_at(rest, i) {
            Some((name, after)) if name == from => {
                out.push('@');
                out.push_str(to);
                rest = after;
            }
            _ => {
                out.push('@');
                rest = &rest[i + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The attribute groups `#N` a line references (outside quoted strings).
fn group_refs(line: &str) -> Vec<u32> {
    let mut refs = Vec::new();
    let mut quoted = false;
    for (i, c) in line.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '#' if !quoted => {
                let digits: String = line[i + 1..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                if let Ok(n) = digits.parse() {
                    refs.push(n);
                }
            }
            _ => {}
        }
    }
    refs
}
