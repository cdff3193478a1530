//! The `task:` block: its templates read only `inputs` (the request is classified
//! before any step runs), the contract's regular expressions compile, class names
//! are unique and the default names one of them.

use std::collections::BTreeSet;

use super::Ctx;
use super::graph::StepGraph;
use super::refs::{Scope, check_template};
use crate::recipe::diagnostic::Diagnostic;
use crate::recipe::template::{TemplateKind, references};

const SCOPE: Scope<'static> = Scope {
    step: None,
    item_var: None,
    allow_self: false,
    loops: &[],
};

fn only_inputs(ctx: &mut Ctx<'_>, text: &str, kind: TemplateKind, ptr: &str) {
    let Ok(refs) = references(text, kind) else {
        return; // reported by check_template
    };
    for r in refs {
        if r.split('.').next() == Some("steps") {
            ctx.at(
                Diagnostic::new(
                    "recipe::task-reference",
                    format!("`{r}` is read before any step runs"),
                )
                .with_label("not known yet")
                .with_help("the task is set up when the run starts: read only `inputs` here"),
                ptr,
            );
        }
    }
}

/// Checks the recipe's `task:` block.
pub(super) fn check_task(ctx: &mut Ctx<'_>, g: &StepGraph) {
    let Some(task) = ctx.doc.task.clone() else {
        return;
    };
    check_template(
        ctx,
        g,
        &task.request,
        TemplateKind::Template,
        "/task/request",
        SCOPE,
    );
    only_inputs(ctx, &task.request, TemplateKind::Template, "/task/request");
    if let Some(deferred) = &task.deferred {
        check_template(
            ctx,
            g,
            deferred,
            TemplateKind::Expression,
            "/task/deferred",
            SCOPE,
        );
        only_inputs(ctx, deferred, TemplateKind::Expression, "/task/deferred");
    }
    let Some(contract) = &task.contract else {
        return;
    };
    let mut names = BTreeSet::new();
    for (i, class) in contract.classes.iter().enumerate() {
        if !names.insert(class.name.as_str()) {
            ctx.at(
                Diagnostic::new(
                    "recipe::contract-class",
                    format!("the class `{}` is declared twice", class.name),
                )
                .with_help("give every class of the contract its own name"),
                &format!("/task/contract/classes/{i}/name"),
            );
        }
        for (field, list) in [("match", &class.matches), ("unless", &class.unless)] {
            for (j, pattern) in list.iter().enumerate() {
                if let Err(e) = regex::RegexBuilder::new(pattern)
                    .case_insensitive(true)
                    .size_limit(1 << 20)
                    .build()
                {
                    ctx.at(
                        Diagnostic::new(
                            "recipe::contract-regex",
                            format!("not a valid regular expression: {e}"),
                        )
                        .with_label("does not compile")
                        .with_help("contract rules use Rust `regex` syntax (case-insensitive)"),
                        &format!("/task/contract/classes/{i}/{field}/{j}"),
                    );
                }
            }
        }
    }
    if !names.contains(contract.default.as_str()) {
        let known: Vec<&str> = names.iter().copied().collect();
        ctx.at(
            Diagnostic::new(
                "recipe::contract-class",
                format!("the default class `{}` is not declared", contract.default),
            )
            .with_label("no such class")
            .with_help(format!("declared classes: {}", known.join(", "))),
            "/task/contract/default",
        );
    }
}
