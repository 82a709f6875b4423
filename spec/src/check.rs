//! The semantic checker: what can be known about a spec before any variant is built.
//!
//! It walks every branch, including those a given variant folds away, so a misspelt name in
//! a rarely taken branch is still reported. Types depend on the modifiers and are checked
//! when each variant is lowered ([`crate::lower`]).

use crate::ast::{Block, Else, Expr, ExprKind, Index, Stmt};
use crate::diag::Diagnostic;
use crate::pattern::did_you_mean;
use crate::resolved::{Family, Resolved};

/// Built-in functions and their argument counts (`None`: any number).
pub const BUILTINS: &[(&str, Option<usize>)] = &[
    ("add", Some(3)),
    ("sub", Some(3)),
    ("mul", Some(3)),
    ("div", Some(3)),
    ("fma", Some(4)),
    ("sqrt", Some(2)),
    ("fmod", Some(2)),
    ("cvt", Some(3)),
    ("round_int", Some(2)),
    ("to_int", Some(3)),
    ("to_float", Some(4)),
    ("is_nan", Some(1)),
    ("is_snan", Some(1)),
    ("is_inf", Some(1)),
    ("is_zero", Some(1)),
    ("is_subnormal", Some(1)),
    ("is_normal", Some(1)),
    ("is_finite", Some(1)),
    ("sign", Some(1)),
    ("with_sign", Some(2)),
    ("fabs", Some(1)),
    ("quiet", Some(1)),
    ("zero", Some(1)),
    ("one", Some(1)),
    ("bits", Some(1)),
    ("like", Some(2)),
    ("lanes", Some(1)),
    ("width", Some(1)),
    ("format_of", Some(1)),
    ("present", Some(1)),
    ("any_nan", Some(1)),
    ("one_of", None),
    ("approx", None),
    ("any_value", Some(1)),
    ("poison", Some(1)),
    ("undefined", Some(1)),
    ("ulps", Some(1)),
    ("abs_err", Some(1)),
    ("rel_err", Some(1)),
    ("zext", Some(2)),
    ("sext", Some(2)),
    ("slt", Some(2)),
    ("mul_hi", Some(3)),
    ("ashr", Some(2)),
    ("negated", Some(1)),
    ("absolute", Some(1)),
    ("old", Some(1)),
];

const ROUNDING: &[&str] = &["rn", "rz", "rm", "rp", "rna"];

struct Scope<'a> {
    spec: &'a Resolved,
    family: Option<&'a Family>,
    names: Vec<String>,
    errors: Vec<Diagnostic>,
}

/// Checks every def and instruction; returns all problems found.
pub fn check_spec(spec: &Resolved) -> Vec<Diagnostic> {
    let mut errors = check_fusions(spec);
    let mut defs: Vec<_> = spec.defs.values().collect();
    defs.sort_by_key(|d| (d.name.span.file.name.clone(), d.name.span.start));
    for def in defs {
        let mut s = Scope {
            spec,
            family: None,
            names: def.params.iter().map(|p| p.text.clone()).collect(),
            errors: Vec::new(),
        };
        match def.body.stmts.last() {
            Some(Stmt::Return { .. }) => {}
            _ => s.errors.push(
                Diagnostic::at(
                    &def.name.span,
                    format!("`{}` does not end with `return`", def.name.text),
                )
                .with_hint("a def computes one value: finish its body with `return e;`"),
            ),
        }
        s.block(&def.body, true);
        errors.extend(s.errors);
    }
    for fam in &spec.families {
        let mut names: Vec<String> = fam
            .forms
            .iter()
            .flat_map(|f| f.pattern.operands.iter().cloned())
            .collect();
        names.dedup();
        let mut s = Scope {
            spec,
            family: Some(fam),
            names,
            errors: Vec::new(),
        };
        for cond in fam
            .requires
            .iter()
            .map(|(_, c)| c)
            .chain(fam.rejects.iter().map(|(_, c)| c))
        {
            s.expr(cond);
        }
        for cond in fam
            .operand_types
            .values()
            .flatten()
            .filter_map(|(_, c)| c.as_ref())
        {
            s.expr(cond);
        }
        s.block(&fam.sem, false);
        errors.extend(s.errors);
    }
    errors
}

impl Scope<'_> {
    fn block(&mut self, b: &Block, in_def: bool) {
        let mark = self.names.len();
        let n = b.stmts.len();
        for (i, stmt) in b.stmts.iter().enumerate() {
            self.stmt(stmt, in_def, i + 1 == n);
        }
        self.names.truncate(mark);
    }

    fn stmt(&mut self, stmt: &Stmt, in_def: bool, last: bool) {
        match stmt {
            Stmt::Let { name, value } => {
                self.expr(value);
                self.names.push(name.text.clone());
            }
            Stmt::Assign { place, value } => {
                self.expr(value);
                if !self.names.contains(&place.name.text) {
                    self.errors.push(
                        Diagnostic::at(
                            &place.name.span,
                            format!("`{}` is not declared", place.name.text),
                        )
                        .with_hint(format!(
                            "declare it first: `let {} = ...;`",
                            place.name.text
                        )),
                    );
                }
                match &place.index {
                    Some(Index::Lane(e)) => self.expr(e),
                    Some(Index::Slice(a, b)) => {
                        self.expr(a);
                        self.expr(b);
                    }
                    None => {}
                }
            }
            Stmt::If { cond, then, els } => {
                self.expr(cond);
                self.block(then, in_def);
                match els {
                    Some(Else::Block(b)) => self.block(b, in_def),
                    Some(Else::If(s)) => self.stmt(s, in_def, false),
                    None => {}
                }
            }
            Stmt::For {
                var,
                from,
                to,
                body,
            } => {
                self.expr(from);
                self.expr(to);
                self.names.push(var.text.clone());
                self.block(body, in_def);
                self.names.pop();
            }
            Stmt::Return { value, span } => {
                self.expr(value);
                if !in_def {
                    self.errors.push(
                        Diagnostic::at(span, "`return` outside a `def`")
                            .with_hint("a `sem` block assigns its destination instead"),
                    );
                } else if !last {
                    self.errors.push(
                        Diagnostic::at(span, "`return` must be the last statement of a `def`")
                            .with_hint("use `c ? a : b` to choose the returned value"),
                    );
                }
            }
        }
    }

    fn known_name(&self, n: &str) -> bool {
        self.names.iter().any(|x| x == n)
            || self.spec.consts.contains_key(n)
            || self.family.is_some_and(|f| {
                n == "type"
                    || n == "opcode"
                    || f.groups.iter().any(|g| g.name == n)
                    || f.forms.iter().any(|form| {
                        form.pattern.elems.iter().any(|e| match e {
                            crate::form::Elem::Flags(fs) => fs.iter().any(|x| x == n),
                            // A required modifier that is not a format is a flag too (lower::Params).
                            crate::form::Elem::Lit(l) => {
                                l == n && !self.spec.formats.contains_key(l)
                            }
                            crate::form::Elem::Group { .. } => false,
                        })
                    })
            })
    }

    /// The families whose groups and opcodes a modifier in this scope may name: its own in
    /// an instruction (a member of another file's group means nothing there), any in a `def`,
    /// which every instruction may call.
    fn families(&self) -> Vec<&Family> {
        match self.family {
            Some(f) => vec![f],
            None => self.spec.families.iter().collect(),
        }
    }

    /// Every modifier a `sem` in this scope may compare: rounding modes, approximated
    /// functions, formats, and the opcodes and group members of [`Scope::families`].
    fn modifiers(&self) -> Vec<&str> {
        let mut all: Vec<&str> = ROUNDING.to_vec();
        all.extend(crate::ir::ApproxFn::ALL.iter().map(|f| f.name()));
        all.extend(self.spec.formats.keys().map(String::as_str));
        for f in self.families() {
            all.extend(f.opcodes.iter().map(String::as_str));
            all.extend(
                f.groups
                    .iter()
                    .flat_map(|g| g.members.iter().map(String::as_str)),
            );
        }
        all
    }

    fn known_modifier(&self, m: &str) -> bool {
        self.modifiers().contains(&m)
    }

    /// The names a `sem` or `def` of this scope may read, for "did you mean".
    fn names_in_scope(&self) -> Vec<&str> {
        let mut all: Vec<&str> = self.names.iter().map(String::as_str).collect();
        all.extend(self.spec.consts.keys().map(String::as_str));
        if let Some(f) = self.family {
            all.extend(["type", "opcode"]);
            all.extend(f.groups.iter().map(|g| g.name.as_str()));
            for form in &f.forms {
                for e in &form.pattern.elems {
                    match e {
                        crate::form::Elem::Flags(fs) => all.extend(fs.iter().map(String::as_str)),
                        crate::form::Elem::Lit(l) if !self.spec.formats.contains_key(l) => {
                            all.push(l)
                        }
                        _ => {}
                    }
                }
            }
        }
        all
    }

    /// The functions this scope may call, for "did you mean".
    fn functions(&self) -> Vec<&str> {
        let mut all: Vec<&str> = BUILTINS.iter().map(|(n, _)| *n).collect();
        all.extend(self.spec.defs.keys().map(String::as_str));
        all.extend(self.spec.formats.keys().map(String::as_str));
        if let Some(f) = self.family {
            all.extend(f.groups.iter().map(|g| g.name.as_str()));
        }
        all
    }

    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Int(_) | ExprKind::Real(_) | ExprKind::Bool(_) => {}
            ExprKind::Mod(m) => {
                if !self.known_modifier(m) {
                    let (what, hint) = match self.family {
                        Some(f) => (
                            format!("a member of a group of `{}`", f.name),
                            "modifiers compared in `sem` must be declared in a `group` of the instruction or be a format (another instruction's groups mean nothing here)",
                        ),
                        None => (
                            "a member of any group".to_string(),
                            "modifiers compared in `sem` must be declared in a `group` or be a format",
                        ),
                    };
                    let dotted: Vec<String> =
                        self.modifiers().iter().map(|x| format!(".{x}")).collect();
                    let mut d = Diagnostic::at(&e.span, format!("`.{m}` is not a rounding mode, a format, an approximated function, or {what}"));
                    if let Some(near) =
                        did_you_mean(&format!(".{m}"), dotted.iter().map(String::as_str))
                    {
                        d = d.with_hint(near);
                    }
                    self.errors.push(d.with_hint(hint));
                }
            }
            ExprKind::Name(n) => {
                if !self.known_name(n) {
                    let hint = if self.family.is_none() {
                        "a def sees only its parameters, its lets and constants: pass modifiers as arguments"
                    } else {
                        "names are operands, lets, loop variables, flags, groups, `type` and constants"
                    };
                    let mut d = Diagnostic::at(&e.span, format!("unknown name `{n}`"));
                    if let Some(near) = did_you_mean(n, self.names_in_scope()) {
                        d = d.with_hint(near);
                    }
                    self.errors.push(d.with_hint(hint));
                }
            }
            ExprKind::Call { func, args } => {
                let expected = if let Some(d) = self.spec.defs.get(&func.text) {
                    Some(Some(d.params.len()))
                } else if self
                    .family
                    .is_some_and(|f| f.groups.iter().any(|g| g.name == func.text))
                {
                    // `iswz(Ra)`: the member of a group written on an operand.
                    Some(Some(1))
                } else if self.spec.formats.contains_key(&func.text) {
                    Some(Some(1))
                } else {
                    BUILTINS
                        .iter()
                        .find(|(n, _)| *n == func.text)
                        .map(|(_, a)| *a)
                };
                match expected {
                    None => {
                        let mut d =
                            Diagnostic::at(&func.span, format!("unknown function `{}`", func.text));
                        if let Some(near) = did_you_mean(&func.text, self.functions()) {
                            d = d.with_hint(near);
                        }
                        self.errors.push(d.with_hint("built-ins are listed in docs/spec-language.md; helpers are declared with `def`"));
                    }
                    Some(Some(n)) if n != args.len() => self.errors.push(Diagnostic::at(
                        &e.span,
                        format!(
                            "`{}` takes {n} argument{}, found {}",
                            func.text,
                            if n == 1 { "" } else { "s" },
                            args.len()
                        ),
                    )),
                    _ => {}
                }
                if func.text == "present" {
                    return;
                }
                for a in args {
                    self.expr(a);
                }
            }
            ExprKind::Unary { expr, .. } => self.expr(expr),
            ExprKind::Binary { lhs, rhs, .. } => {
                self.expr(lhs);
                self.expr(rhs);
            }
            ExprKind::Ternary { cond, then, els } => {
                self.expr(cond);
                self.expr(then);
                self.expr(els);
            }
            ExprKind::Index { base, index } => {
                self.expr(base);
                match index {
                    Index::Lane(i) => self.expr(i),
                    Index::Slice(a, b) => {
                        self.expr(a);
                        self.expr(b);
                    }
                }
            }
        }
    }
}

/// Each `fuse` item's fused and negating instructions start with an opcode some block
/// specifies (whether a given fused variant exists is asked when a sequence is fused).
fn check_fusions(spec: &Resolved) -> Vec<Diagnostic> {
    let opcodes: Vec<&str> = spec
        .families
        .iter()
        .flat_map(|f| f.opcodes.iter().map(String::as_str))
        .collect();
    let mut errors = Vec::new();
    for fusion in spec.families.iter().flat_map(|f| &f.fusions) {
        for name in std::iter::once(&fusion.fused).chain(&fusion.negate) {
            let opcode = name.text.split('.').next().unwrap_or_default();
            if opcodes.contains(&opcode) {
                continue;
            }
            let mut d = Diagnostic::at(
                &name.span,
                format!(
                    "`{}` does not start with an opcode the specs define",
                    name.text
                ),
            );
            d = match did_you_mean(opcode, opcodes.iter().copied()) {
                Some(near) => d.with_hint(near),
                None => d.with_hint(
                    "write the instruction's opcode and fixed modifiers, e.g. \"fma.rn\"",
                ),
            };
            errors.push(d);
        }
    }
    errors
}
