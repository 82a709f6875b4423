//! Inline `asm` whose text is PTX (`call i32 asm sideeffect "mov.u32 $0, 0x0;\0A\09@$2
//! ld.global.b32 { $0 }, [ $1 + 0 ];", "=r,l,b"(ptr addrspace(1) %p, i1 %m)`, Triton's masked
//! load): the constraint string binds each operand to a register of the type its letter names
//! (LLVM's NVPTX constraints: `r` 32 bits, `l` 64, `h` 16, `f` f32, `d` f64, `b` a predicate,
//! `n` an immediate, a digit an input tied to that output), and the statements are read by
//! the PTX reader into this reader's program, memory and path (`semfuzz_ptx::read_inline_asm`).

use super::{at, unsupported, Reader, StateValue};
use crate::syntax::{FloatTy, Instr, Type, Value};
use semfuzz_ptx::lower::{read_inline_asm, AsmContext, AsmRegister};
use semfuzz_spec::diag::Diagnostic;

/// One entry of the constraint string.
enum Constraint {
    /// `=r`: an output register of this PTX type.
    Output(&'static str),
    /// `r`: an input register of this type.
    Input(&'static str),
    /// `0`: an input in output N's register.
    Tied(usize),
    /// `n`: an immediate, written into the text.
    Immediate,
}

/// The PTX register type LLVM's NVPTX constraint letter names.
fn register_type(letter: &str) -> Option<&'static str> {
    Some(match letter {
        // `c` is an i8 or i16 in a 16-bit register (PTX has no 8-bit ones).
        "h" | "c" => "b16",
        "r" => "b32",
        "l" => "b64",
        "f" => "f32",
        "d" => "f64",
        "b" => "pred",
        _ => return None,
    })
}

/// LLVM's string escapes (`\0A`, `\09`, `\22`, `\5C`) decoded.
fn unescape(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut k = 0;
    while k < bytes.len() {
        if bytes[k] == b'\\' && k + 2 < bytes.len() + 1 {
            if let Some(b) = s
                .get(k + 1..k + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                out.push(b);
                k += 3;
                continue;
            }
        }
        out.push(bytes[k]);
        k += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `"text"` at the start of `s` (after blanks): the text and what follows.
fn string_literal(s: &str) -> Option<(&str, &str)> {
    let s = s.trim_start().strip_prefix('"')?;
    let end = s.find('"')?;
    Some((&s[..end], &s[end + 1..]))
}

/// Splits at the commas outside parentheses and braces.
fn top_level(s: &str) -> Vec<&str> {
    let (mut depth, mut from, mut out) = (0i32, 0, Vec::new());
    for (k, c) in s.char_indices() {
        match c {
            '(' | '{' | '<' | '[' => depth += 1,
            ')' | '}' | '>' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[from..k].trim());
                from = k + 1;
            }
            _ => {}
        }
    }
    if !s[from..].trim().is_empty() {
        out.push(s[from..].trim());
    }
    out
}

/// A scalar type as an argument or result of an `asm` call spells it.
fn scalar_type(t: &str) -> Option<Type> {
    let t = t.trim();
    Some(match t {
        "half" => Type::Float(FloatTy::Half),
        "bfloat" => Type::Float(FloatTy::BFloat),
        "float" => Type::Float(FloatTy::Float),
        "double" => Type::Float(FloatTy::Double),
        "ptr" => Type::Ptr(0),
        _ => {
            if let Some(n) = t.strip_prefix('i').and_then(|n| n.parse().ok()) {
                Type::Int(n)
            } else {
                let space = t
                    .strip_prefix("ptr addrspace(")?
                    .strip_suffix(')')?
                    .parse()
                    .ok()?;
                Type::Ptr(space)
            }
        }
    })
}

impl Reader<'_> {
    /// `call T asm [sideeffect] "TEXT", "CONSTRAINTS"(ARGS)`: the statements read as PTX, each
    /// output the value its register holds at the end (a struct of them for several).
    pub(super) fn inline_asm(&mut self, i: &Instr) -> Result<(), Diagnostic> {
        let refuse = |why: &str| unsupported(&i.opcode_span, format!("inline `asm`: {why}"));
        let (ret, rest) = i
            .raw
            .split_once(" asm ")
            .or_else(|| i.raw.strip_prefix("asm ").map(|r| ("void", r)))
            .ok_or_else(|| refuse("no `asm` keyword where the reader expects it"))?;
        let rest = rest.trim_start();
        let words_end = rest.find('"').ok_or_else(|| refuse("no assembly string"))?;
        if rest[..words_end]
            .split_whitespace()
            .any(|w| !matches!(w, "sideeffect" | "alignstack" | "convergent"))
        {
            return Err(refuse("a dialect or unwinding the reader does not model"));
        }
        let (text, after) =
            string_literal(&rest[words_end..]).ok_or_else(|| refuse("an unterminated string"))?;
        let after = after
            .trim_start()
            .strip_prefix(',')
            .ok_or_else(|| refuse("no constraint string"))?;
        let (constraints, after) =
            string_literal(after).ok_or_else(|| refuse("no constraint string"))?;
        let after = after.trim_start();
        let args_text = after
            .strip_prefix('(')
            .and_then(|a| {
                let mut depth = 1;
                a.char_indices().find_map(|(k, c)| {
                    match c {
                        '(' => depth += 1,
                        ')' => depth -= 1,
                        _ => {}
                    }
                    (depth == 0).then(|| &a[..k])
                })
            })
            .ok_or_else(|| refuse("no argument list"))?;
        // Outputs first, then inputs; `~{...}` entries are clobbers, which change nothing a
        // thread's result depends on.
        let mut parsed = Vec::new();
        for c in constraints.split(',').filter(|c| !c.starts_with('~')) {
            parsed.push(if let Some(out) = c.strip_prefix('=') {
                let letter = out.trim_start_matches('&');
                Constraint::Output(
                    register_type(letter)
                        .ok_or_else(|| refuse(&format!("the output constraint `{c}`")))?,
                )
            } else if let Ok(n) = c.parse::<usize>() {
                Constraint::Tied(n)
            } else if c == "n" || c == "i" {
                Constraint::Immediate
            } else {
                Constraint::Input(
                    register_type(c).ok_or_else(|| refuse(&format!("the constraint `{c}`")))?,
                )
            });
        }
        let args = top_level(args_text);
        let outputs = parsed
            .iter()
            .take_while(|c| matches!(c, Constraint::Output(_)))
            .count();
        if parsed[outputs..]
            .iter()
            .any(|c| matches!(c, Constraint::Output(_)))
        {
            return Err(refuse("an output constraint after an input"));
        }
        if args.len() + outputs != parsed.len() {
            return Err(refuse(&format!(
                "{} constraints for {outputs} outputs and {} arguments",
                parsed.len(),
                args.len()
            )));
        }
        let mut registers: Vec<AsmRegister> = Vec::new();
        let mut register_of: Vec<usize> = (0..parsed.len()).collect();
        let mut statements = unescape(text);
        let mut poison = None;
        for (k, c) in parsed.iter().enumerate() {
            let value = match c {
                Constraint::Output(_) => None,
                _ => {
                    let arg = args[k - outputs];
                    let (ty_text, v) = arg
                        .rsplit_once(' ')
                        .ok_or_else(|| refuse(&format!("the argument `{arg}`")))?;
                    let ty = scalar_type(ty_text)
                        .ok_or_else(|| refuse(&format!("the argument type `{ty_text}`")))?;
                    let v = match v.strip_prefix('%') {
                        Some(name) => Value::Local(name.to_string()),
                        None => Value::Const(v.to_string()),
                    };
                    if matches!(c, Constraint::Immediate) {
                        let Value::Const(n) = &v else {
                            return Err(refuse("an `n` operand that is no constant"));
                        };
                        statements = statements.replace(&format!("${k}"), n);
                        registers.push(AsmRegister {
                            ty: "b32",
                            value: None,
                        });
                        continue;
                    }
                    let sv = self.value(&v, &ty, &i.span)?;
                    poison = self.b.or_pred(poison, sv.poison);
                    Some(sv.bits)
                }
            };
            let ty = match c {
                Constraint::Output(t) | Constraint::Input(t) => *t,
                Constraint::Tied(n) => match parsed.get(*n).filter(|_| *n < outputs) {
                    Some(Constraint::Output(t)) => *t,
                    _ => return Err(refuse(&format!("operand {k} tied to no output"))),
                },
                Constraint::Immediate => unreachable!("handled above"),
            };
            // A tied input is its output's register (LLVM: "an input operand that must be
            // in the same register as output N"), which holds the input on entry.
            if let Constraint::Tied(n) = c {
                registers[*n].value = value;
                register_of[k] = *n;
            }
            registers.push(AsmRegister { ty, value });
        }
        // `$N` names operand N; from the highest, so that `$1` does not eat `$10`'s start.
        for k in (0..registers.len()).rev() {
            statements = statements.replace(&format!("${k}"), &format!("%asm{}", register_of[k]));
        }
        let path = self.path;
        let outcome = read_inline_asm(
            self.spec,
            &statements,
            &registers,
            AsmContext {
                b: &mut self.b,
                heap: &mut self.memory,
                choices: &mut self.choices,
                choice_sites: &mut self.choice_sites,
                path,
            },
            &i.opcode_span,
        )?;
        if outcome.wanted.is_some() {
            self.wanted = outcome.wanted;
            return Err(unsupported(
                &i.opcode_span,
                "memory: a block is being declared",
            ));
        }
        // An access the statements make outside its block is undefined behaviour of the
        // source, as an IR `load` there is.
        self.add_ub(outcome.fault);
        let mut fields = Vec::new();
        for (k, c) in parsed.iter().enumerate() {
            if let Constraint::Output(_) = c {
                let bits = outcome.registers[k]
                    .ok_or_else(|| refuse(&format!("output `${k}` is never written")))?;
                fields.push(StateValue { bits, poison });
            }
        }
        let Some(result) = &i.result else {
            return Ok(());
        };
        let ret = ret.trim();
        if let Some(inner) = ret.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
            let types: Option<Vec<Type>> = top_level(inner).into_iter().map(scalar_type).collect();
            let types = types.ok_or_else(|| refuse(&format!("the result type `{ret}`")))?;
            if types.len() != fields.len() {
                return Err(refuse(&format!("{} outputs for `{ret}`", fields.len())));
            }
            let parts = fields.into_iter().zip(types).collect();
            self.state.aggregates.insert(result.clone(), parts);
        } else {
            let ty = scalar_type(ret).ok_or_else(|| refuse(&format!("the result type `{ret}`")))?;
            let [field] = fields.as_slice() else {
                return Err(refuse(&format!("{} outputs for `{ret}`", fields.len())));
            };
            if self.b.widths[field.bits as usize] != self.width_of(&ty, &i.span)? {
                return Err(at(
                    &i.opcode_span,
                    format!("the `asm` output's register is not as wide as `{ret}`"),
                ));
            }
            self.state.env.insert(result.clone(), (*field, ty));
        }
        Ok(())
    }
}
