//! Templates and expressions: the one minijinja configuration every part of protoflow
//! uses, and the static analysis validation needs (which variables a template reads).
//!
//! Step prompts and `with` strings are templates (`Fix {{ inputs.task }}`); `when`,
//! `foreach`, `loop.when` and recipe `outputs` are expressions
//! (`steps.verify.output.passed == false`), and may also be written wrapped in one
//! `{{ ... }}`. This module never renders anything with run data itself.

use std::collections::BTreeSet;

use minijinja::{Environment, UndefinedBehavior};

/// Names minijinja provides itself; never reported as undefined.
const GLOBALS: &[&str] = &[
    "range",
    "dict",
    "namespace",
    "debug",
    "loop",
    "true",
    "false",
    "none",
];

/// The environment templates are checked and rendered with: strict undefined
/// behaviour (a missing variable or attribute is an error, never an empty string).
pub fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env
}

/// The expression inside `text`: `{{ a.b }}` -> `a.b`; anything else unchanged.
pub fn expression_source(text: &str) -> &str {
    let t = text.trim();
    if let Some(inner) = t.strip_prefix("{{").and_then(|s| s.strip_suffix("}}"))
        && !inner.contains("{{")
        && !inner.contains("}}")
    {
        return inner.trim();
    }
    t
}

/// How a string is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TemplateKind {
    /// Text with `{{ }}` / `{% %}` blocks.
    Template,
    /// One expression (optionally wrapped in `{{ }}`).
    Expression,
}

/// The dotted variable paths a template or expression reads from its context
/// (`inputs.task`, `steps.find.output.findings`), excluding minijinja's globals.
/// Fails with minijinja's syntax error.
pub fn references(text: &str, kind: TemplateKind) -> Result<BTreeSet<String>, minijinja::Error> {
    let env = environment();
    let vars = match kind {
        TemplateKind::Template => env.template_from_str(text)?.undeclared_variables(true),
        TemplateKind::Expression => env
            .compile_expression(expression_source(text))?
            .undeclared_variables(true),
    };
    Ok(vars
        .into_iter()
        .filter(|v| {
            let root = v.split('.').next().unwrap_or_default();
            !GLOBALS.contains(&root)
        })
        .collect())
}

/// The path segments of an expression that is a plain dotted reference
/// (`steps.find.output.findings`, also `steps['find'].output`), or `None`.
pub fn plain_path(expr: &str) -> Option<Vec<String>> {
    let e = expression_source(expr);
    let mut out = Vec::new();
    let mut rest = e;
    let ident = |s: &str| -> usize {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .count()
    };
    let n = ident(rest);
    if n == 0 || rest.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    out.push(rest[..n].to_string());
    rest = &rest[n..];
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let n = ident(r);
            if n == 0 {
                return None;
            }
            out.push(r[..n].to_string());
            rest = &r[n..];
        } else if let Some(r) = rest.strip_prefix("['").or_else(|| rest.strip_prefix("[\"")) {
            let end = r.find(['\'', '"'])?;
            out.push(r[..end].to_string());
            rest = r[end + 1..].strip_prefix(']')?;
        } else {
            return None;
        }
    }
    Some(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn references_are_dotted_paths() {
        let refs = references(
            "Fix {{ inputs.task }} using {{ steps.find.output.findings | length }}{% for f in steps.list.output %}{{ f.x }}{% endfor %}",
            TemplateKind::Template,
        )
        .unwrap();
        let refs: Vec<_> = refs.into_iter().collect();
        assert_eq!(
            refs,
            vec![
                "inputs.task",
                "steps.find.output.findings",
                "steps.list.output"
            ]
        );
    }

    #[test]
    fn expressions_may_be_wrapped() {
        assert_eq!(expression_source("{{ a.b }}"), "a.b");
        assert_eq!(expression_source(" a.b "), "a.b");
        let refs = references(
            "{{ steps.v.output.passed == false }}",
            TemplateKind::Expression,
        )
        .unwrap();
        assert!(refs.contains("steps.v.output.passed"));
    }

    #[test]
    fn syntax_errors_are_reported() {
        assert!(references("{{ inputs.task ", TemplateKind::Template).is_err());
        assert!(references("a ==", TemplateKind::Expression).is_err());
    }

    #[test]
    fn plain_paths() {
        assert_eq!(
            plain_path("steps.find.output.findings"),
            Some(vec![
                "steps".into(),
                "find".into(),
                "output".into(),
                "findings".into()
            ])
        );
        assert_eq!(
            plain_path("{{ steps['code-review'].output }}"),
            Some(vec!["steps".into(), "code-review".into(), "output".into()])
        );
        assert_eq!(plain_path("steps.a.output | list"), None);
        assert_eq!(plain_path("1"), None);
    }
}
