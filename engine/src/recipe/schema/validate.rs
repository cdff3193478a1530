//! Validation against a compiled schema, mapping every error to a source span.

use std::sync::OnceLock;

use jsonschema::Validator;
use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::Value;

use super::generate::{recipe_schema, role_schema};
use crate::recipe::diagnostic::{Diagnostic, Diagnostics};
use crate::recipe::source::Source;
use crate::recipe::yaml::{SpanIndex, pointer_join};

/// A schema compiled once, kept with its JSON (for "expected one of" hints).
#[derive(Debug)]
pub struct CompiledSchema {
    schema: Value,
    validator: Validator,
}

impl CompiledSchema {
    /// Compiles `schema` (draft 2020-12; remote `$ref`s are refused).
    pub fn new(schema: Value) -> Result<Self, String> {
        let validator = jsonschema::draft202012::new(&schema).map_err(|e| e.to_string())?;
        Ok(CompiledSchema { schema, validator })
    }

    /// The schema's JSON.
    pub fn schema(&self) -> &Value {
        &self.schema
    }
}

/// The built-in document kinds with a published schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaKind {
    /// A recipe file.
    Recipe,
    /// A role file.
    Role,
}

impl SchemaKind {
    /// The compiled schema (compiled on first use, then shared).
    pub fn compiled(self) -> &'static CompiledSchema {
        static RECIPE: OnceLock<CompiledSchema> = OnceLock::new();
        static ROLE: OnceLock<CompiledSchema> = OnceLock::new();
        let (cell, make): (&OnceLock<CompiledSchema>, fn() -> Value) = match self {
            SchemaKind::Recipe => (&RECIPE, recipe_schema),
            SchemaKind::Role => (&ROLE, role_schema),
        };
        cell.get_or_init(|| {
            // The schemas are generated from our own types; failing to compile one
            // is a bug caught by the schema tests, never by user input.
            #[allow(clippy::expect_used)]
            CompiledSchema::new(make()).expect("generated schemas compile")
        })
    }
}

/// Validates `value` against `schema`, reporting every error at its span.
pub fn validate_against(
    schema: &CompiledSchema,
    value: &Value,
    source: &Source,
    spans: &SpanIndex,
) -> Diagnostics {
    let mut out: Vec<Diagnostic> = Vec::new();
    for error in schema.validator.iter_errors(value) {
        let ptr = error.instance_path().as_str().to_string();
        let instance = error.instance();
        let nearest = || spans.nearest(&ptr).map(|s| (source.clone(), s));
        // A value outside a fixed set (an enum, a constant, a choice of constants).
        let not_allowed = |help: String| {
            Diagnostic::new(
                "schema::invalid-value",
                format!("{instance} is not an allowed value{}", context(&ptr)),
            )
            .at_opt(nearest())
            .with_label("not allowed")
            .with_help(help)
        };
        match error.kind() {
            ValidationErrorKind::AdditionalProperties { unexpected }
            | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
                let allowed = allowed_fields(&schema.schema, &ptr);
                for key in unexpected {
                    let field_ptr = pointer_join(&ptr, key);
                    let span = spans.key_or_nearest(&field_ptr);
                    let mut help = String::new();
                    if let Some(best) = closest(key, &allowed) {
                        help.push_str(&format!("did you mean `{best}`? "));
                    }
                    if !allowed.is_empty() {
                        help.push_str(&format!("expected one of: {}", allowed.join(", ")));
                    } else {
                        help.push_str("remove this field");
                    }
                    out.push(
                        Diagnostic::new(
                            "schema::unknown-field",
                            format!("unknown field `{key}`{}", context(&ptr)),
                        )
                        .at_opt(span.map(|s| (source.clone(), s)))
                        .with_label("unknown field")
                        .with_help(help),
                    );
                }
            }
            ValidationErrorKind::Required { property } => {
                let name = property.as_str().unwrap_or_default();
                let span = spans.key_or_nearest(&ptr);
                out.push(
                    Diagnostic::new(
                        "schema::missing-field",
                        format!("missing required field `{name}`{}", context(&ptr)),
                    )
                    .at_opt(span.map(|s| (source.clone(), s)))
                    .with_label(format!("`{name}` is missing here"))
                    .with_help(format!("add `{name}:`")),
                );
            }
            ValidationErrorKind::Type { kind } => {
                let expected = match kind {
                    TypeKind::Single(t) => t.to_string(),
                    TypeKind::Multiple(set) => format!("{set:?}"),
                };
                let found = json_type(instance);
                out.push(
                    Diagnostic::new(
                        "schema::wrong-type",
                        format!(
                            "expected {}, found {found}{}",
                            article(&expected),
                            context(&ptr)
                        ),
                    )
                    .at_opt(nearest())
                    .with_label(format!("this is {}", article(found)))
                    .with_help(type_help(&expected, instance)),
                );
            }
            ValidationErrorKind::Enum { options } => {
                let opts = options
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .map(|v| v.to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    })
                    .unwrap_or_else(|| options.to_string());
                out.push(not_allowed(format!("expected one of: {opts}")));
            }
            ValidationErrorKind::Constant { expected_value } => {
                out.push(not_allowed(format!("expected {expected_value}")));
            }
            ValidationErrorKind::Pattern { pattern } => {
                out.push(
                    Diagnostic::new(
                        "schema::invalid-value",
                        format!(
                            "{instance} does not match the pattern `{pattern}`{}",
                            context(&ptr)
                        ),
                    )
                    .at_opt(nearest())
                    .with_label("does not match")
                    .with_help(pattern_help(pattern)),
                );
            }
            ValidationErrorKind::OneOfNotValid { context: branches }
            | ValidationErrorKind::AnyOf { context: branches }
                if !branches.is_empty()
                    && branches.iter().flatten().all(|e| {
                        matches!(
                            e.kind(),
                            ValidationErrorKind::Constant { .. } | ValidationErrorKind::Type { .. }
                        )
                    }) =>
            {
                let opts: Vec<String> = branches
                    .iter()
                    .flatten()
                    .filter_map(|e| match e.kind() {
                        ValidationErrorKind::Constant { expected_value } => {
                            Some(expected_value.to_string())
                        }
                        _ => None,
                    })
                    .collect();
                out.push(not_allowed(format!("expected one of: {}", opts.join(", "))));
            }
            ValidationErrorKind::PropertyNames { error } => {
                let key = error.instance().as_str().unwrap_or_default().to_string();
                let field_ptr = pointer_join(&ptr, &key);
                out.push(
                    Diagnostic::new(
                        "schema::invalid-key",
                        format!("`{key}` is not an allowed key{}", context(&ptr)),
                    )
                    .at_opt(
                        spans
                            .key_or_nearest(&field_ptr)
                            .map(|s| (source.clone(), s)),
                    )
                    .with_label("not allowed")
                    .with_help(error.to_string()),
                );
            }
            _ => {
                out.push(
                    Diagnostic::new("schema::invalid-value", format!("{error}{}", context(&ptr)))
                        .at_opt(nearest()),
                );
            }
        }
    }
    out.sort_by_key(|d| d.span.as_ref().map_or(0, |s| s.start));
    out.dedup_by(|a, b| a.rule == b.rule && a.span == b.span && a.message == b.message);
    Diagnostics(out)
}

/// " at `steps[0].agent`" for messages (empty at the root).
fn context(ptr: &str) -> String {
    if ptr.is_empty() {
        String::new()
    } else {
        format!(" at `{}`", dotted(ptr))
    }
}

/// `/steps/0/with/x` -> `steps[0].with.x`.
pub(crate) fn dotted(ptr: &str) -> String {
    let mut out = String::new();
    for token in ptr.split('/').skip(1) {
        let token = token.replace("~1", "/").replace("~0", "~");
        if token.chars().all(|c| c.is_ascii_digit()) && !token.is_empty() {
            out.push_str(&format!("[{token}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&token);
        }
    }
    out
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn article(t: &str) -> String {
    match t.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => format!("an {t}"),
        _ => format!("a {t}"),
    }
}

fn type_help(expected: &str, found: &Value) -> String {
    match (expected, found) {
        ("string", Value::Bool(_)) => "quote the value (`'true'`) to keep it a string".to_string(),
        ("string", Value::Number(_)) => "quote the value to keep it a string".to_string(),
        ("array", _) => "write a list: `- item` lines, or `[a, b]`".to_string(),
        ("object", Value::Null) => {
            "this field needs nested fields; remove it or fill it in".to_string()
        }
        ("object", _) => "write a mapping of `key: value` lines".to_string(),
        _ => format!("give {}", article(expected)),
    }
}

fn pattern_help(pattern: &str) -> String {
    if pattern.contains("ms|s|m|h") {
        "write a duration such as `90s`, `30m` or `2h`".to_string()
    } else if pattern.starts_with("^[a-z]") {
        "use lowercase letters, digits and dashes (or `_` where allowed), starting with a letter"
            .to_string()
    } else {
        format!("match `{pattern}`")
    }
}

/// The properties the schema allows at an instance pointer (for "expected one of").
fn allowed_fields(root: &Value, ptr: &str) -> Vec<String> {
    let Some(node) = schema_at(root, ptr) else {
        return Vec::new();
    };
    node.get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

/// Follows an instance pointer through `properties`, `items`, `additionalProperties`
/// and local `$ref`s to the schema that describes it.
fn schema_at<'a>(root: &'a Value, ptr: &str) -> Option<&'a Value> {
    let mut node = deref(root, root)?;
    for token in ptr.split('/').skip(1) {
        let token = token.replace("~1", "/").replace("~0", "~");
        let next = node
            .get("properties")
            .and_then(|p| p.get(&token))
            .or_else(|| node.get("items").filter(|_| token.parse::<usize>().is_ok()))
            .or_else(|| node.get("additionalProperties").filter(|v| v.is_object()))?;
        node = deref(root, next)?;
    }
    Some(node)
}

fn deref<'a>(root: &'a Value, mut node: &'a Value) -> Option<&'a Value> {
    for _ in 0..16 {
        match node.get("$ref").and_then(Value::as_str) {
            Some(r) => {
                let path = r.strip_prefix('#')?;
                node = root.pointer(path)?;
            }
            None => return Some(node),
        }
    }
    None
}

/// The allowed name closest to `word`, when it is close enough to be a typo.
fn closest(word: &str, candidates: &[String]) -> Option<String> {
    candidates
        .iter()
        .map(|c| (levenshtein(word, c), c))
        .filter(|(d, c)| *d <= 2.max(c.len() / 4) && *d < c.len())
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c.clone())
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn typos_find_their_field() {
        let fields = vec!["tools".to_string(), "needs".to_string(), "id".to_string()];
        assert_eq!(closest("tols", &fields).as_deref(), Some("tools"));
        assert_eq!(closest("zzzzzz", &fields), None);
    }

    #[test]
    fn pointers_read_as_paths() {
        assert_eq!(dotted("/steps/0/with/a~1b"), "steps[0].with.a/b");
        assert_eq!(dotted(""), "");
    }
}
