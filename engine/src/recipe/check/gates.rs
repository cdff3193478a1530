//! Recipe gates: every `when` parses and reads only `inputs`, steps and declared
//! `outputs`; every `message` is a template over the same data.

use super::Ctx;
use super::graph::StepGraph;
use super::refs::{Scope, check_reference};
use crate::recipe::diagnostic::Diagnostic;
use crate::recipe::template::{TemplateKind, references};

/// Checks the recipe's `gates`.
pub(super) fn check_gates(ctx: &mut Ctx<'_>, g: &StepGraph) {
    let gates: Vec<(String, Option<String>)> = ctx
        .doc
        .gates
        .iter()
        .map(|gate| (gate.when.clone(), gate.message.clone()))
        .collect();
    for (i, (when, message)) in gates.into_iter().enumerate() {
        check(
            ctx,
            g,
            &when,
            TemplateKind::Expression,
            &format!("/gates/{i}/when"),
        );
        if let Some(message) = message {
            check(
                ctx,
                g,
                &message,
                TemplateKind::Template,
                &format!("/gates/{i}/message"),
            );
        }
    }
}

fn check(ctx: &mut Ctx<'_>, g: &StepGraph, text: &str, kind: TemplateKind, ptr: &str) {
    let refs = match references(text, kind) {
        Ok(refs) => refs,
        Err(e) => {
            let detail = e
                .detail()
                .map(str::to_string)
                .unwrap_or_else(|| e.to_string());
            ctx.at(
                Diagnostic::new("recipe::template-syntax", format!("invalid gate: {detail}"))
                    .with_label("does not parse")
                    .with_help("a gate's `when` is an expression such as `steps.report.output.over_threshold`"),
                ptr,
            );
            return;
        }
    };
    let scope = Scope {
        step: None,
        item_var: None,
        allow_self: false,
        loops: &[],
    };
    for reference in refs {
        let mut parts = reference.split('.');
        if parts.next() != Some("outputs") {
            check_reference(ctx, g, &reference, ptr, scope);
            continue;
        }
        let Some(name) = parts.next() else { continue };
        if !ctx.doc.outputs.contains_key(name) {
            let declared: Vec<&str> = ctx.doc.outputs.keys().map(String::as_str).collect();
            ctx.at(
                Diagnostic::new(
                    "recipe::undefined-output",
                    format!("`outputs.{name}` is not a declared output"),
                )
                .with_label("undefined output")
                .with_help(if declared.is_empty() {
                    "declare it under `outputs:`".to_string()
                } else {
                    format!("declared outputs: {}", declared.join(", "))
                }),
                ptr,
            );
        }
    }
}
