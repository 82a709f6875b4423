//! Form strings (the manual's syntax lines) as patterns, and their expansion into the
//! modifier sequences of concrete variants.

use crate::diag::{Diagnostic, Span};

/// One element of a form's modifier sequence.
#[derive(Clone, Debug, PartialEq)]
pub enum Elem {
    /// A modifier that must be written as is (`.f32`, `.approx`).
    Lit(String),
    /// One member of a group (`.rnd`), optional when written `{.rnd}`.
    Group {
        /// Index into the instruction's groups.
        group: usize,
        /// Whether it may be left out.
        optional: bool,
        /// The members this form allows, when it restricts the group (`; .rnd = { .rn }`).
        only: Option<Vec<String>>,
    },
    /// `{.ftz}` or `{.xorsign.abs}`: flags written together or not at all.
    Flags(Vec<String>),
}

/// A parsed form string.
#[derive(Clone, Debug)]
pub struct Pattern {
    /// The opcode before the first modifier.
    pub opcode: String,
    /// The modifier sequence.
    pub elems: Vec<Elem>,
    /// Operand names, destinations first.
    pub operands: Vec<String>,
    /// How many of `operands` are destinations: 1, 2 for `p|q` (9.7.6.2 `setp`), or the
    /// elements of a leading vector `{d, e}` (9.7.9.4 `mov` unpack).
    pub dests: usize,
    /// Per operand: whether the form writes it `{!}c`, so that instruction text may negate
    /// it (`!c`, PTX predicate negation). The negation is applied when the operand is read,
    /// before `sem` runs: `sem` sees the value of `!c` (see `OperandSig::read`).
    pub negatable: Vec<bool>,
    /// Per operand: how a SASS operand is written and what the text may write around it
    /// (`{-}{|}Ra{|}{.iswz}`); the default for PTX operands.
    pub mods: Vec<OperandMods>,
}

/// How a SASS source operand is written (register, constant bank, immediate).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OperandKind {
    /// A register (`Ra`), or any PTX operand.
    #[default]
    Register,
    /// A constant-bank reference: `c[#BankU05][#AddrU16]`.
    ConstBank,
    /// An immediate: `{{-}{|}#Immfp16H0{|}}`. Its `-` and `|..|` are folded into the value by
    /// the assembler (the outer braces), so they are not operand modifiers.
    Immediate,
}

/// What the instruction text may write around a SASS source operand. Each modifier is a
/// run-time field of the variant (an input `sem` reads with `negated(x)`, `absolute(x)` and
/// `group(x)`), not a separate variant: the SASS encoding holds them as instruction bits.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OperandMods {
    /// How the operand is written.
    pub kind: OperandKind,
    /// `{-}x`: the text may negate it.
    pub neg: bool,
    /// `{|}x{|}`: the text may take its absolute value.
    pub abs: bool,
    /// `x{.group}`: the text may write a member of this group (an index into the
    /// instruction's groups) after it.
    pub member: Option<usize>,
}

/// An operand modifier that is a run-time field of the variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldKind {
    /// `-x`: a predicate.
    Neg,
    /// `|x|`: a predicate.
    Abs,
    /// `x.member`: the member's index in the group (an index into the instruction's groups).
    Member(usize),
}

impl Pattern {
    /// The operand modifiers that are run-time fields, in the order their inputs follow the
    /// source operands: per operand (by index in `operands`), `-`, then `|..|`, then the member.
    pub fn fields(&self) -> Vec<(usize, FieldKind)> {
        let mut out = Vec::new();
        for (i, m) in self.mods.iter().enumerate() {
            if m.neg {
                out.push((i, FieldKind::Neg));
            }
            if m.abs {
                out.push((i, FieldKind::Abs));
            }
            if let Some(g) = m.member {
                out.push((i, FieldKind::Member(g)));
            }
        }
        out
    }
}

/// Parses one operand of a form: a name, `{!}c`, or a SASS operand with its modifiers
/// (`{-}{|}Ra{|}{.iswz}`, `{-}{|}c[#BankU05][#AddrU16]{|}`, `{{-}{|}#Immfp10H1{|}}`).
/// Returns the name, whether it is `{!}`-negatable, and its SASS modifiers.
fn parse_operand(
    text: &str,
    groups: &[GroupRef<'_>],
) -> Result<(String, bool, OperandMods), String> {
    let name_ok =
        |n: &str| !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    // `[a]` (9.7.9.8 `ld`, 9.7.9.11 `st`): the memory at an address, whose bits are the
    // operand's value.
    if let Some(inner) = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        return if name_ok(inner) {
            Ok((inner.to_string(), false, OperandMods::default()))
        } else {
            Err(format!("`{inner}` is not an operand name"))
        };
    }
    if let Some(rest) = text.strip_prefix("{!}") {
        return if name_ok(rest) {
            Ok((rest.to_string(), true, OperandMods::default()))
        } else {
            Err(format!("`{rest}` is not an operand name"))
        };
    }
    let mut mods = OperandMods::default();
    // `{{-}{|}#Imm{|}}`: an immediate, its sign and absolute value folded by the assembler.
    if text.starts_with("{{") && text.ends_with('}') {
        let inner = &text[1..text.len() - 1];
        let inner = inner.strip_prefix("{-}").unwrap_or(inner);
        let inner = match inner.strip_prefix("{|}") {
            Some(i) => i
                .strip_suffix("{|}")
                .ok_or("`{|}` before an immediate needs `{|}` after it")?,
            None => inner,
        };
        let name = inner
            .strip_prefix('#')
            .ok_or("an immediate is written `#Name`, as in `{{-}{|}#Immfp16H0{|}}`")?;
        if !name_ok(name) {
            return Err(format!("`{name}` is not an immediate name"));
        }
        mods.kind = OperandKind::Immediate;
        return Ok((name.to_string(), false, mods));
    }
    let mut rest = text;
    if let Some(r) = rest.strip_prefix("{-}") {
        mods.neg = true;
        rest = r;
    }
    if let Some(r) = rest.strip_prefix("{|}") {
        mods.abs = true;
        rest = r;
    }
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let name = &rest[..end];
    if !name_ok(name) {
        return Err(format!("`{text}` is not an operand name"));
    }
    rest = &rest[end..];
    if let Some(r) = rest.strip_prefix("[#BankU05][#AddrU16]") {
        mods.kind = OperandKind::ConstBank;
        rest = r;
    }
    if mods.abs {
        rest = rest
            .strip_prefix("{|}")
            .ok_or(format!("`{{|}}` before `{name}` needs `{{|}}` after it"))?;
    }
    if let Some(r) = rest.strip_prefix("{.").and_then(|r| r.strip_suffix('}')) {
        let g = groups.iter().position(|g| g.name == r).ok_or(format!(
            "`.{r}` after operand `{name}` is not a group of this instruction"
        ))?;
        mods.member = Some(g);
        rest = "";
    }
    if !rest.is_empty() {
        return Err(format!("unexpected `{rest}` after operand `{name}`"));
    }
    Ok((name.to_string(), false, mods))
}

/// A group as the pattern parser needs it.
pub struct GroupRef<'a> {
    /// The group name.
    pub name: &'a str,
    /// Its members.
    pub members: &'a [String],
}

/// Parses `syntax` (whose string literal is at `span`) against the instruction's groups.
///
/// After the operands, `; .group = { .member, ... }` restricts a group of this form to some
/// of its members, as the manual's syntax blocks do (9.7.4.1: `add{.rnd}.f16 ...; .rnd = { .rn };`
/// where the instruction's other forms take `.rn .rz .rm .rp`).
pub fn parse_pattern(
    syntax: &str,
    span: &Span,
    groups: &[GroupRef<'_>],
) -> Result<Pattern, Diagnostic> {
    // Byte offset `i` of the syntax is at `span.start + 1 + i` in the file (after the quote).
    let at = |s: usize, e: usize| {
        Diagnostic::at(
            &Span::new(
                &span.file,
                span.start + 1 + s,
                span.start + 1 + e.max(s + 1),
            ),
            "",
        )
    };
    let err = |s: usize, e: usize, msg: String| {
        let mut d = at(s, e);
        d.message = msg;
        d
    };
    let full = syntax;
    let (syntax, restrictions) = match syntax.find(';') {
        Some(semi) => (&syntax[..semi], Some(semi)),
        None => (syntax, None),
    };
    let head_end = syntax.find(char::is_whitespace).unwrap_or(syntax.len());
    let head = &syntax[..head_end];
    let op_end = head.find(['.', '{']).unwrap_or(head.len());
    let opcode = &head[..op_end];
    if opcode.is_empty()
        || !opcode
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return Err(err(0, op_end, "a form starts with the opcode".into())
            .with_hint("e.g. \"add{.rnd}.f32 d, a, b\""));
    }
    let name_at = |i: usize| -> (String, usize) {
        let end = head[i..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(head.len(), |n| i + n);
        (head[i..end].to_string(), end)
    };
    let group_of = |name: &str| groups.iter().position(|g| g.name == name);
    let mut elems = Vec::new();
    let mut i = op_end;
    while i < head.len() {
        if head[i..].starts_with('.') {
            let (name, end) = name_at(i + 1);
            if name.is_empty() {
                return Err(err(i, i + 1, "expected a modifier name after `.`".into()));
            }
            elems.push(match group_of(&name) {
                Some(group) => Elem::Group {
                    group,
                    optional: false,
                    only: None,
                },
                None => Elem::Lit(name),
            });
            i = end;
        } else if head[i..].starts_with('{') {
            let close = head[i..]
                .find('}')
                .map(|n| i + n)
                .ok_or_else(|| err(i, i + 1, "`{` without `}`".into()))?;
            let mut names = Vec::new();
            let mut j = i + 1;
            while j < close {
                if !head[j..].starts_with('.') {
                    let d = err(j, j + 1, "expected `.modifier` inside `{}`".into());
                    if !head[j..].starts_with('|') {
                        return Err(d);
                    }
                    // `{.FTZ|.FMZ}`: the manual writes alternatives as a group.
                    let alternatives: Vec<&str> = head[i + 1..close]
                        .split('|')
                        .map(|a| a.trim_start_matches('.'))
                        .collect();
                    return Err(d.with_hint(format!(
                        "alternatives are a named group: declare `group g = {{ .{} }};` and write `{{.g}}` in the form (the manual's `{{.fmz}}` with `.fmz: {{ .FTZ, .FMZ }}`)",
                        alternatives.join(", .")
                    )));
                }
                let (name, end) = name_at(j + 1);
                if name.is_empty() {
                    return Err(err(j, j + 1, "expected a modifier name after `.`".into()));
                }
                names.push((name, j, end));
                j = end;
            }
            match names.as_slice() {
                [] => return Err(err(i, close + 1, "empty `{}` in a form".into())),
                [(name, _, _)] if group_of(name).is_some() => elems.push(Elem::Group {
                    group: group_of(name).unwrap_or_default(),
                    optional: true,
                    only: None,
                }),
                _ => {
                    if let Some((name, s, e)) = names.iter().find(|(n, _, _)| group_of(n).is_some())
                    {
                        return Err(err(*s, *e, format!("group `.{name}` cannot be combined with other modifiers in one `{{}}`")));
                    }
                    elems.push(Elem::Flags(names.into_iter().map(|(n, _, _)| n).collect()));
                }
            }
            i = close + 1;
        } else {
            // The text is any UTF-8: the character here, not one byte of it.
            let c = head[i..].chars().next().unwrap_or(' ');
            return Err(err(
                i,
                i + c.len_utf8(),
                format!("unexpected `{c}` in the modifiers"),
            )
            .with_hint("modifiers are `.name` or optional `{.name}`"));
        }
    }
    let mut operands = Vec::new();
    let mut negatable = Vec::new();
    let mut mods = Vec::new();
    let (pieces, dests) = operand_pieces(syntax, head_end);
    for (start, trimmed) in pieces {
        let (name, neg, m) = parse_operand(trimmed, groups).map_err(|msg| {
            err(start, start + trimmed.len(), msg).with_hint(
                "operands are names separated by commas: `d, a, b`, `{!}c` for one that may be negated, SASS `{-}{|}Ra{|}{.iswz}`",
            )
        })?;
        if operands.contains(&name) {
            return Err(err(
                start,
                start + trimmed.len(),
                format!("operand `{name}` is named twice"),
            ));
        }
        negatable.push(neg);
        mods.push(m);
        operands.push(name);
    }
    if operands.len() < dests + 1 {
        return Err(err(
            0,
            syntax.len(),
            "a form needs a destination and at least one source operand".into(),
        ));
    }
    if mods[..dests].iter().any(|m| *m != OperandMods::default()) {
        return Err(err(
            head_end,
            syntax.len(),
            "the destination is a register: it takes no `-`, `|..|`, member or brackets".into(),
        ));
    }
    if negatable[..dests].contains(&true) {
        return Err(err(
            head_end,
            syntax.len(),
            "the destination cannot be `{!}`".into(),
        )
        .with_hint("`{!}` marks a source operand the instruction may negate: `d, a, b, {!}c`"));
    }
    if let Some(semi) = restrictions {
        restrict(full, semi, &mut elems, groups, &err)?;
    }
    Ok(Pattern {
        opcode: opcode.to_string(),
        elems,
        operands,
        dests,
        negatable,
        mods,
    })
}

/// The operands of a form's syntax (from byte `from`) as (byte offset, trimmed text), and how
/// many lead as destinations. The manual writes vector operands in braces (`mov.b32 d, {a, b}`,
/// `mov.b64 {d, e}, a`: each element is an operand) and two predicate destinations `p[|q]`
/// (`setp`); `{!}c`, `{-}{|}Ra{|}` and `{{-}#Imm}` are single operands, whose braces hold no
/// comma.
fn operand_pieces<'s>(syntax: &'s str, from: usize) -> (Vec<(usize, &'s str)>, usize) {
    let mut pieces: Vec<(usize, &'s str)> = Vec::new();
    let push = |s: usize, e: usize, pieces: &mut Vec<(usize, &'s str)>| {
        let piece = &syntax[s..e];
        let lead = piece.len() - piece.trim_start().len();
        pieces.push((s + lead, piece.trim()));
    };
    // Destinations: the elements of a leading vector, else one operand.
    let mut leading_vector = None;
    let mut start = from;
    let mut i = from;
    let is_vector = |i: usize| {
        syntax[i..]
            .find('}')
            .is_some_and(|c| syntax[i..i + c].contains(','))
    };
    while i < syntax.len() {
        let c = syntax.as_bytes()[i];
        if c == b'{' && is_vector(i) {
            let close = i + syntax[i..].find('}').unwrap_or(0);
            let before = pieces.len();
            for element in syntax[i + 1..close].split(',') {
                let at = element.as_ptr() as usize - syntax.as_ptr() as usize;
                push(at, at + element.len(), &mut pieces);
            }
            if syntax[start..i].trim().is_empty() && before == 0 {
                leading_vector = Some(pieces.len());
            }
            // Past the comma after the vector (or the end).
            start = syntax[close..]
                .find(',')
                .map_or(syntax.len(), |c| close + c + 1);
            i = start;
            continue;
        }
        if c == b',' {
            push(start, i, &mut pieces);
            start = i + 1;
        }
        i += 1;
    }
    if start < syntax.len() || pieces.is_empty() {
        push(start.min(syntax.len()), syntax.len(), &mut pieces);
    }
    if let Some(n) = leading_vector {
        return (pieces, n);
    }
    // `p[|q]` (9.7.6.2 `setp`: the second is optional in the text) or `p|q`: two
    // destinations written as one operand.
    if let Some(&(at, text)) = pieces.first() {
        let two = text.strip_suffix(']').map_or(text, |t| t);
        if let Some((p, q)) = two.split_once('|').filter(|_| !text.contains('{')) {
            let p = p.strip_suffix('[').unwrap_or(p);
            let q_at = at + two.len() - q.len();
            pieces.splice(0..1, [(at, p.trim()), (q_at, q.trim())]);
            return (pieces, 2);
        }
    }
    (pieces, 1)
}

/// Parses the `; .group = { .member, ... }` clauses of a form (from byte `semi` of `syntax`)
/// into the `only` of the group elements they name.
fn restrict(
    syntax: &str,
    semi: usize,
    elems: &mut [Elem],
    groups: &[GroupRef<'_>],
    err: &dyn Fn(usize, usize, String) -> Diagnostic,
) -> Result<(), Diagnostic> {
    let hint =
        "restrict a group of this form as the manual does: `add{.rnd}.f16 d, a, b; .rnd = { .rn }`";
    let mut at = semi;
    for clause in syntax[semi + 1..].split(';') {
        let start = at + 1;
        at = start + clause.len();
        let lead = clause.len() - clause.trim_start().len();
        let body = clause.trim();
        if body.is_empty() {
            continue;
        }
        let (s, e) = (start + lead, start + lead + body.len());
        let (name, set) = body.split_once('=').ok_or_else(|| {
            err(
                s,
                e,
                format!("expected `.group = {{ ... }}`, found `{body}`"),
            )
            .with_hint(hint)
        })?;
        let name = name.trim();
        let Some(gname) = name.strip_prefix('.') else {
            return Err(err(
                s,
                e,
                format!("expected `.group = {{ ... }}`, found `{body}`"),
            )
            .with_hint(hint));
        };
        let Some(gi) = groups.iter().position(|g| g.name == gname) else {
            let mut d = err(
                s,
                s + name.len(),
                format!("`{name}` is not a group of this instruction"),
            );
            if let Some(near) = crate::pattern::did_you_mean(gname, groups.iter().map(|g| g.name)) {
                d = d.with_hint(near);
            }
            return Err(d.with_hint(hint));
        };
        let set = set.trim();
        let inner = set
            .strip_prefix('{')
            .and_then(|x| x.strip_suffix('}'))
            .ok_or_else(|| {
                err(
                    s,
                    e,
                    format!("expected `{{ .member, ... }}` after `{name} =`"),
                )
                .with_hint(hint)
            })?;
        let mut members = Vec::new();
        for m in inner.split(',').map(str::trim) {
            let m = m.strip_prefix('.').unwrap_or(m);
            if !groups[gi].members.iter().any(|x| x == m) {
                let all: Vec<String> = groups[gi].members.iter().map(|x| format!(".{x}")).collect();
                let mut d = err(s, e, format!("`.{m}` is not a member of group `{gname}`"));
                if let Some(near) =
                    crate::pattern::did_you_mean(&format!(".{m}"), all.iter().map(String::as_str))
                {
                    d = d.with_hint(near);
                }
                return Err(d.with_hint(format!("its members are {}", all.join(" "))));
            }
            members.push(m.to_string());
        }
        let mut found = false;
        for el in elems.iter_mut() {
            if let Elem::Group { group, only, .. } = el {
                if *group == gi {
                    *only = Some(members.clone());
                    found = true;
                }
            }
        }
        if !found {
            return Err(err(s, e, format!("this form does not use `.{gname}`")).with_hint(hint));
        }
    }
    Ok(())
}

/// The modifier choices of one concrete variant of a form.
#[derive(Clone, Debug, Default)]
pub struct Choice {
    /// The modifiers as written, in order (without dots).
    pub tokens: Vec<String>,
    /// Flags that are set.
    pub flags: Vec<String>,
    /// Per group of the instruction: the member written, if any.
    pub written: Vec<Option<String>>,
}

impl Choice {
    /// The instruction text of this choice: `add.rn.ftz.f32`.
    pub fn text(&self, opcode: &str) -> String {
        std::iter::once(opcode)
            .chain(self.tokens.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(".")
    }
}

/// How many modifier sequences [`expand`] gives for a pattern, without building them
/// (saturating).
pub fn choice_count(pattern: &Pattern, groups: &[GroupRef<'_>]) -> u64 {
    pattern.elems.iter().fold(1u64, |n, elem| {
        let ways = match elem {
            Elem::Lit(_) => 1,
            Elem::Group {
                group,
                optional,
                only,
            } => {
                let members = groups[*group]
                    .members
                    .iter()
                    .filter(|m| only.as_ref().is_none_or(|o| o.contains(m)))
                    .count() as u64;
                members + u64::from(*optional)
            }
            Elem::Flags(_) => 2,
        };
        n.saturating_mul(ways)
    })
}

/// Every modifier sequence a pattern allows.
pub fn expand(pattern: &Pattern, groups: &[GroupRef<'_>]) -> Vec<Choice> {
    let mut out = vec![Choice {
        written: vec![None; groups.len()],
        ..Choice::default()
    }];
    for elem in &pattern.elems {
        let mut next = Vec::new();
        for c in &out {
            match elem {
                Elem::Lit(l) => {
                    let mut c = c.clone();
                    c.tokens.push(l.clone());
                    next.push(c);
                }
                Elem::Group {
                    group,
                    optional,
                    only,
                } => {
                    if *optional {
                        next.push(c.clone());
                    }
                    for m in groups[*group]
                        .members
                        .iter()
                        .filter(|m| only.as_ref().is_none_or(|o| o.contains(m)))
                    {
                        let mut c = c.clone();
                        c.tokens.push(m.clone());
                        c.written[*group] = Some(m.clone());
                        next.push(c);
                    }
                }
                Elem::Flags(fs) => {
                    next.push(c.clone());
                    let mut c = c.clone();
                    c.tokens.extend(fs.iter().cloned());
                    c.flags.extend(fs.iter().cloned());
                    next.push(c);
                }
            }
        }
        out = next;
    }
    out
}
