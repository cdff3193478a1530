//! Runtime templates: `with` values, prompts, `when` and `foreach` expressions.
//!
//! minijinja with strict undefined: a reference to anything not in the run's data
//! is an error, never an empty string. The data is `inputs.*`, `steps.<id>.output`,
//! `steps.<id>.status` (and `.attempt`, `.error`, `.instances` for fan-outs), and in
//! a fan-out instance the item variable and `index`. A string that is exactly one
//! `{{ expression }}` keeps the expression's type (a list stays a list). Every
//! evaluation is bounded: at most [`TEMPLATE_FUEL`] instructions and
//! [`TEMPLATE_OUTPUT_BYTES`] of rendered text, so a runaway template fails instead
//! of blocking the run past its timeouts. This module evaluates only; it never
//! decides what a result means.

use minijinja::value::Serde;
use minijinja::{Environment, ErrorKind, UndefinedBehavior, Value as JinjaValue};
use serde_json::{Map, Value};

use crate::recipe::{TEMPLATE_FUEL, TEMPLATE_OUTPUT_BYTES};

/// A template that could not be rendered or evaluated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateError {
    /// The template or expression.
    pub source: String,
    /// What went wrong.
    pub reason: String,
}

impl std::fmt::Display for TemplateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "template `{}`: {}", self.source, self.reason)
    }
}

/// The data templates see, converted once (cheap to clone and extend).
#[derive(Debug, Clone)]
pub struct Data(JinjaValue);

impl Data {
    /// Data from a JSON object (`inputs`, `steps`).
    pub fn from_json(value: &Value) -> Data {
        Data(JinjaValue::from(Serde(value)))
    }

    /// The data as JSON (for templates rendered outside the executor: role prompts).
    pub fn to_json(&self) -> Value {
        serde_json::to_value(&self.0).unwrap_or(Value::Null)
    }

    /// The same data plus a fan-out item variable and `index`.
    pub fn with_item(&self, var: &str, item: &Value, index: usize) -> Data {
        let mut extra = std::collections::BTreeMap::new();
        extra.insert(var.to_string(), JinjaValue::from(Serde(item)));
        extra.insert("index".to_string(), JinjaValue::from(index));
        let extra = JinjaValue::from(extra);
        Data(minijinja::value::merge_maps([extra, self.0.clone()]))
    }
}

/// The templating environment of runs (strict undefined, no auto-escaping).
#[derive(Debug)]
pub struct Templates {
    env: Environment<'static>,
}

impl Default for Templates {
    fn default() -> Self {
        Templates::new()
    }
}

fn error(source: &str, err: impl std::fmt::Display) -> TemplateError {
    TemplateError {
        source: source.to_string(),
        reason: err.to_string(),
    }
}

/// When `text` is exactly one `{{ expression }}`, the expression.
fn single_expression(text: &str) -> Option<&str> {
    let inner = text.trim().strip_prefix("{{")?.strip_suffix("}}")?;
    let inner = inner.strip_prefix('-').unwrap_or(inner);
    let inner = inner.strip_suffix('-').unwrap_or(inner);
    if inner.contains("{{") || inner.contains("}}") || inner.contains("{%") {
        return None;
    }
    Some(inner.trim())
}

impl Templates {
    /// A fresh environment.
    pub fn new() -> Self {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        env.set_fuel(Some(TEMPLATE_FUEL));
        Templates { env }
    }

    /// Renders a string template to a string (at most [`TEMPLATE_OUTPUT_BYTES`]).
    pub fn render_string(&self, template: &str, data: &Data) -> Result<String, TemplateError> {
        let compiled = self
            .env
            .template_from_str(template)
            .map_err(|e| error(template, describe(&e)))?;
        let mut out = CappedOutput::default();
        match compiled.render_captured_to(data.0.clone(), &mut out) {
            Ok(_) => String::from_utf8(out.bytes).map_err(|e| error(template, e)),
            Err(_) if out.over => Err(error(
                template,
                format!("the rendered text is over {TEMPLATE_OUTPUT_BYTES} bytes"),
            )),
            Err(e) => Err(error(template, describe(&e))),
        }
    }

    /// Evaluates an expression (with or without `{{ }}` around it) to a JSON value.
    pub fn eval(&self, expression: &str, data: &Data) -> Result<Value, TemplateError> {
        let expr = single_expression(expression).unwrap_or(expression.trim());
        let compiled = self
            .env
            .compile_expression(expr)
            .map_err(|e| error(expression, describe(&e)))?;
        let value = compiled
            .eval(data.0.clone())
            .map_err(|e| error(expression, describe(&e)))?;
        if value.is_undefined() {
            return Err(error(expression, "the expression is undefined"));
        }
        serde_json::to_value(&value).map_err(|e| error(expression, e))
    }

    /// Evaluates a condition. Undefined is an error; otherwise Jinja truthiness.
    pub fn condition(&self, expression: &str, data: &Data) -> Result<bool, TemplateError> {
        let value = self.eval(expression, data)?;
        Ok(match &value {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
            Value::String(s) => !s.is_empty(),
            Value::Array(a) => !a.is_empty(),
            Value::Object(o) => !o.is_empty(),
        })
    }

    /// Renders a `with` value: strings are templates (one `{{ expr }}` keeps its
    /// type), lists and maps are rendered item by item, other values pass through.
    pub fn render_value(&self, value: &Value, data: &Data) -> Result<Value, TemplateError> {
        match value {
            Value::String(text) => match single_expression(text) {
                Some(_) => self.eval(text, data),
                None if text.contains("{{") || text.contains("{%") => {
                    self.render_string(text, data).map(Value::String)
                }
                None => Ok(value.clone()),
            },
            Value::Array(items) => items
                .iter()
                .map(|item| self.render_value(item, data))
                .collect::<Result<Vec<_>, _>>()
                .map(Value::Array),
            Value::Object(map) => {
                let mut out = Map::new();
                for (key, item) in map {
                    out.insert(key.clone(), self.render_value(item, data)?);
                }
                Ok(Value::Object(out))
            }
            other => Ok(other.clone()),
        }
    }
}

/// Rendered text, refusing to grow past [`TEMPLATE_OUTPUT_BYTES`].
#[derive(Default)]
struct CappedOutput {
    bytes: Vec<u8>,
    over: bool,
}

impl std::io::Write for CappedOutput {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.bytes.len().saturating_add(buf.len()) > TEMPLATE_OUTPUT_BYTES {
            self.over = true;
            return Err(std::io::Error::other("template output limit reached"));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The error with its chain (minijinja puts the detail in the source).
fn describe(err: &minijinja::Error) -> String {
    if err.kind() == ErrorKind::OutOfFuel {
        return format!(
            "the template did more than {TEMPLATE_FUEL} steps of work and was stopped (a runaway loop?)"
        );
    }
    let mut text = err.to_string();
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use serde_json::json;

    fn data() -> Data {
        Data::from_json(&json!({
            "inputs": {"task": "fix", "n": 2},
            "steps": {"find": {"status": "succeeded", "output": {"files": ["a.rs", "b.rs"]}}}
        }))
    }

    #[test]
    fn a_fan_out_item_is_visible_with_its_index() {
        let t = Templates::new();
        let d = data().with_item("finding", &json!({"id": 7}), 3);
        assert_eq!(
            t.eval("[finding.id, index, inputs.n]", &d).unwrap(),
            json!([7, 3, 2])
        );
    }

    #[test]
    fn a_single_expression_keeps_its_type() {
        let t = Templates::new();
        let v = t
            .render_value(&json!("{{ steps.find.output.files }}"), &data())
            .unwrap();
        assert_eq!(v, json!(["a.rs", "b.rs"]));
        let n = t
            .render_value(&json!("{{ inputs.n + 1 }}"), &data())
            .unwrap();
        assert_eq!(n, json!(3));
    }

    #[test]
    fn mixed_text_renders_to_a_string_and_nested_values_render() {
        let t = Templates::new();
        let v = t
            .render_value(
                &json!({"msg": "do {{ inputs.task }} now", "list": ["{{ inputs.n }}", 7]}),
                &data(),
            )
            .unwrap();
        assert_eq!(v, json!({"msg": "do fix now", "list": [2, 7]}));
    }

    #[test]
    fn undefined_references_are_errors() {
        let t = Templates::new();
        let err = t
            .render_value(&json!("x {{ inputs.nope }} y"), &data())
            .unwrap_err();
        assert!(err.reason.contains("undefined"), "{err}");
        assert!(t.eval("steps.nope.output", &data()).is_err());
        assert!(t.condition("inputs.nope", &data()).is_err());
    }

    #[test]
    fn a_runaway_loop_is_stopped_by_the_fuel_bound() {
        let t = Templates::new();
        let err = t
            .render_string(
                "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
                &data(),
            )
            .unwrap_err();
        assert!(err.reason.contains("steps of work"), "{err}");
        // Real work stays well within the bound.
        let n = t
            .eval("range(10000) | map('string') | list | length", &data())
            .unwrap();
        assert_eq!(n, serde_json::json!(10000));
    }

    #[test]
    fn rendered_text_is_capped() {
        let t = Templates::new();
        let err = t
            .render_string(
                "{% for i in range(20) %}{{ 'x' * 1000000 }}{% endfor %}",
                &data(),
            )
            .unwrap_err();
        assert!(err.reason.contains("bytes"), "{err}");
        let ok = t
            .render_string("{% for i in range(10000) %}{{ i }},{% endfor %}", &data())
            .unwrap();
        assert!(ok.starts_with("0,1,2,") && ok.ends_with("9999,"));
    }

    #[test]
    fn conditions_accept_bare_and_braced_expressions() {
        let t = Templates::new();
        assert!(
            t.condition("steps.find.status == 'succeeded'", &data())
                .unwrap()
        );
        assert!(!t.condition("{{ inputs.n > 5 }}", &data()).unwrap());
    }
}
