//! Template and expression references: every `inputs.X` is declared, every
//! `steps.Y` exists and is upstream of the step that reads it, and a `foreach`
//! names a list.

use serde_json::Value;

use super::Ctx;
use super::graph::StepGraph;
use crate::recipe::diagnostic::Diagnostic;
use crate::recipe::document::InputType;
use crate::recipe::template::{TemplateKind, plain_path, references};

/// Where a template is evaluated.
#[derive(Debug, Clone, Copy)]
pub(super) struct Scope<'s> {
    /// The step it belongs to (`None` for recipe outputs: every step is readable).
    pub step: Option<usize>,
    /// The fan-out item variable, when the step has `foreach`.
    pub item_var: Option<&'s str>,
    /// Whether the step may read its own result (`loop.when`).
    pub allow_self: bool,
    /// Loop steps whose body contains this step: their previous round's result is
    /// readable (from the second round on; guard with `is defined`).
    pub loops: &'s [usize],
}

/// Checks one template or expression at `ptr`.
pub(super) fn check_template(
    ctx: &mut Ctx<'_>,
    g: &StepGraph,
    text: &str,
    kind: TemplateKind,
    ptr: &str,
    scope: Scope<'_>,
) {
    let refs = match references(text, kind) {
        Ok(r) => r,
        Err(e) => {
            let what = match kind {
                TemplateKind::Template => "template",
                TemplateKind::Expression => "expression",
            };
            let detail = e
                .detail()
                .map(str::to_string)
                .unwrap_or_else(|| e.to_string());
            ctx.at(
                Diagnostic::new("recipe::template-syntax", format!("invalid {what}: {detail}"))
                    .with_label("does not parse")
                    .with_help("templates use minijinja (Jinja2) syntax: `{{ inputs.task }}`, `{% if ... %}...{% endif %}`"),
                ptr,
            );
            return;
        }
    };
    for r in refs {
        check_reference(ctx, g, &r, ptr, scope);
    }
}

pub(super) fn check_reference(
    ctx: &mut Ctx<'_>,
    g: &StepGraph,
    reference: &str,
    ptr: &str,
    scope: Scope<'_>,
) {
    let doc = ctx.doc;
    let mut parts = reference.split('.');
    let root = parts.next().unwrap_or_default();
    let second = parts.next();
    match root {
        "inputs" => {
            if let Some(name) = second
                && !doc.inputs.contains_key(name)
            {
                let declared: Vec<&str> = doc.inputs.keys().map(String::as_str).collect();
                let d = Diagnostic::new(
                    "recipe::undefined-input",
                    format!("`inputs.{name}` is not a declared input"),
                )
                .with_label("undefined input")
                .with_help(if declared.is_empty() {
                    format!("declare it under `inputs:` (`{name}: {{type: string}}`)")
                } else {
                    format!(
                        "declared inputs: {}; or declare `{name}` under `inputs:`",
                        declared.join(", ")
                    )
                });
                report_narrowed(ctx, d, ptr, &format!("inputs.{name}"));
            }
        }
        "steps" => {
            let Some(id) = second else { return };
            let Some(&k) = g.index.get(id) else {
                let known: Vec<&str> = doc.steps.iter().map(|s| s.id.as_str()).collect();
                let d = Diagnostic::new(
                    "recipe::undefined-step",
                    format!("`steps.{id}` does not name a step"),
                )
                .with_label("no such step")
                .with_help(format!("steps are: {}", known.join(", ")));
                report_narrowed(ctx, d, ptr, &format!("steps.{id}"));
                return;
            };
            let Some(i) = scope.step else { return };
            let ok = if k == i {
                scope.allow_self
            } else {
                g.is_upstream(k, i) || scope.loops.contains(&k)
            };
            if !ok {
                let me = &doc.steps[i].id;
                let d = if k == i {
                    Diagnostic::new(
                        "recipe::not-upstream",
                        format!("step `{me}` reads its own result, which does not exist yet"),
                    )
                    .with_label("not available here")
                    .with_help("only `loop.when` can read the step's own result")
                } else {
                    Diagnostic::new(
                        "recipe::not-upstream",
                        format!("step `{me}` reads `steps.{id}`, which is not upstream of it"),
                    )
                    .with_label("not in this step's needs")
                    .with_help(format!(
                        "add `{id}` to the `needs` of `{me}` (directly or through another step)"
                    ))
                };
                report_narrowed(ctx, d, ptr, &format!("steps.{id}"));
            }
        }
        "index" if scope.item_var.is_some() => {}
        other if Some(other) == scope.item_var => {}
        other => {
            let mut names = vec!["inputs", "steps"];
            if let Some(v) = scope.item_var {
                names.push(v);
                names.push("index");
            }
            let d = Diagnostic::new(
                "recipe::undefined-variable",
                format!("`{other}` is not defined here"),
            )
            .with_label("undefined")
            .with_help(format!(
                "templates here can read: {}",
                names
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            report_narrowed(ctx, d, ptr, other);
        }
    }
}

/// Reports at the occurrence of `needle` inside the string at `ptr` when it can be
/// found there, otherwise at the whole value.
fn report_narrowed(ctx: &mut Ctx<'_>, d: Diagnostic, ptr: &str, needle: &str) {
    if let Some((src, span)) = ctx.map.value(ptr)
        && let Some(off) = src.text().get(span.clone()).and_then(|t| t.find(needle))
    {
        let start = span.start + off;
        ctx.diags.push(d.at(&src, start..start + needle.len()));
        return;
    }
    ctx.at(d, ptr);
}

/// Checks that a `foreach` names a list produced upstream.
pub(super) fn check_foreach(ctx: &mut Ctx<'_>, g: &StepGraph, i: usize, expr: &str, ptr: &str) {
    let doc = ctx.doc;
    let help = "write `foreach: steps.<id>.output.<field>` naming an array in that step's `output.schema` (or an input of type array), with the step in `needs`";
    let Some(path) = plain_path(expr) else {
        if let Err(e) = references(expr, TemplateKind::Expression) {
            let detail = e
                .detail()
                .map(str::to_string)
                .unwrap_or_else(|| e.to_string());
            ctx.at(
                Diagnostic::new(
                    "recipe::template-syntax",
                    format!("invalid expression: {detail}"),
                )
                .with_label("does not parse"),
                ptr,
            );
            return;
        }
        ctx.at(
            Diagnostic::new(
                "recipe::foreach-source",
                format!("`foreach: {expr}` is not a plain reference to a list"),
            )
            .with_label("not a reference")
            .with_help(help),
            ptr,
        );
        return;
    };
    let fail = |ctx: &mut Ctx<'_>, msg: String, label: &str| {
        ctx.at(
            Diagnostic::new("recipe::foreach-source", msg)
                .with_label(label.to_string())
                .with_help(help),
            ptr,
        );
    };
    match path.first().map(String::as_str) {
        Some("inputs") if path.len() == 2 => match doc.inputs.get(&path[1]) {
            Some(input) if input.ty == InputType::Array => {}
            Some(input) => fail(
                ctx,
                format!(
                    "`foreach` over input `{}` of type {}, not array",
                    path[1],
                    input.ty.as_str()
                ),
                "not a list",
            ),
            None => fail(
                ctx,
                format!("`inputs.{}` is not a declared input", path[1]),
                "undefined input",
            ),
        },
        Some("steps") if path.len() >= 3 && path[2] == "output" => {
            let id = &path[1];
            let Some(&k) = g.index.get(id) else {
                fail(
                    ctx,
                    format!("`steps.{id}` does not name a step"),
                    "no such step",
                );
                return;
            };
            if !g.is_upstream(k, i) {
                fail(
                    ctx,
                    format!(
                        "`foreach` reads `steps.{id}`, which is not in the needs of `{}`",
                        doc.steps[i].id
                    ),
                    "not upstream",
                );
                return;
            }
            let source = &doc.steps[k];
            if source.foreach.is_some() && path.len() == 3 {
                return; // a fan-out's output is the list of its items' outputs
            }
            let Some(schema) = source.output.as_ref().map(|o| &o.schema) else {
                fail(
                    ctx,
                    format!(
                        "step `{id}` declares no `output.schema`, so its output is not known to be a list"
                    ),
                    "not a declared list",
                );
                return;
            };
            match walk(schema, &path[3..]) {
                Some(node) if is_array(node) => {}
                Some(_) => fail(
                    ctx,
                    format!(
                        "`{}` is not declared as an array in the output schema of `{id}`",
                        path.join(".")
                    ),
                    "not a list",
                ),
                None => fail(
                    ctx,
                    format!(
                        "`{}` is not declared in the output schema of `{id}`",
                        path.join(".")
                    ),
                    "not declared",
                ),
            }
        }
        _ => fail(
            ctx,
            format!("`foreach: {expr}` does not name a step output or an input"),
            "not a list source",
        ),
    }
}

/// Follows `fields` through `properties` (and local `$ref`s) of a schema.
fn walk<'a>(root: &'a Value, fields: &[String]) -> Option<&'a Value> {
    let mut node = deref(root, root)?;
    for f in fields {
        node = deref(root, node.get("properties")?.get(f)?)?;
    }
    Some(node)
}

fn deref<'a>(root: &'a Value, mut node: &'a Value) -> Option<&'a Value> {
    for _ in 0..16 {
        match node.get("$ref").and_then(Value::as_str) {
            Some(r) => node = root.pointer(r.strip_prefix('#')?)?,
            None => return Some(node),
        }
    }
    None
}

fn is_array(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == "array",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "array"),
        _ => false,
    }
}

/// The recipe's `outputs`: expressions over inputs and any step.
pub(super) fn check_outputs(ctx: &mut Ctx<'_>, g: &StepGraph) {
    let outputs: Vec<(String, String)> = ctx
        .doc
        .outputs
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for (name, expr) in outputs {
        let ptr = format!("/outputs/{name}");
        check_template(
            ctx,
            g,
            &expr,
            TemplateKind::Expression,
            &ptr,
            Scope {
                step: None,
                item_var: None,
                allow_self: false,
                loops: &[],
            },
        );
    }
}
