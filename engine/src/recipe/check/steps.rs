//! Each step: what it runs (agent, tool or recipe), which tools it may use in its
//! phase, its delegates, limits, timeout, loop, fan-out and templates.

use std::sync::Arc;

use indexmap::IndexMap;
use serde_json::Value;

use super::Ctx;
use super::graph::StepGraph;
use super::limits;
use super::refs::{Scope, check_foreach, check_template};
use crate::policy::{Capability, Decision, Phase};
use crate::recipe::diagnostic::Diagnostic;
use crate::recipe::document::StepDocument;
use crate::recipe::load::{Loader, MAX_RECIPE_NESTING, looks_like_path, resolve_reference};
use crate::recipe::template::TemplateKind;
use crate::recipe::validated::{
    BackEdge, Delegate, Foreach, OutputSpec, ResolvedRole, Step, StepKind,
};
use crate::recipe::{Limits, bounds};
use crate::role::{RoleKind, unknown_tool};
use crate::tools::{self, Effect};

/// Default corrections of an invalid typed output.
pub const DEFAULT_CORRECTIONS: u32 = 2;
/// Default calls of one delegate per attempt.
pub const DEFAULT_DELEGATE_CALLS: u32 = 32;

pub(super) fn check_steps(
    ctx: &mut Ctx<'_>,
    g: &StepGraph,
    roles: &IndexMap<String, Arc<ResolvedRole>>,
    run_limits: &Limits,
    loader: &mut Loader<'_>,
) -> Vec<Step> {
    let doc = ctx.doc;
    let mut out = Vec::new();
    // Loop bodies: a loop on L back to T re-runs T and every step between T and L.
    let loop_edges: Vec<(usize, usize)> = doc
        .steps
        .iter()
        .enumerate()
        .filter_map(|(l, s)| {
            let to = g.index.get(&s.back_edge.as_ref()?.to)?;
            Some((l, *to))
        })
        .collect();
    for (i, s) in doc.steps.iter().enumerate() {
        let loops: Vec<usize> = loop_edges
            .iter()
            .filter(|(l, t)| *l != i && (*t == i || (g.is_upstream(*t, i) && g.is_upstream(i, *l))))
            .map(|(l, _)| *l)
            .collect();
        let ptr = format!("/steps/{i}");
        let phase = s.phase.unwrap_or_default();
        let kind = step_kind(ctx, s, i, &ptr, phase, roles, loader);
        let item_var = s.item_var.clone().unwrap_or_else(|| "item".to_string());
        if s.item_var.is_some() && s.foreach.is_none() {
            ctx.at_key(
                Diagnostic::new(
                    "recipe::field-not-allowed",
                    "`as` names the item of a `foreach`, but this step has none",
                )
                .with_help("remove `as`, or add `foreach`"),
                &format!("{ptr}/as"),
            );
        }
        if s.foreach.is_some() && matches!(item_var.as_str(), "inputs" | "steps" | "index") {
            ctx.at(
                Diagnostic::new(
                    "recipe::foreach-var",
                    format!("the item variable cannot be called `{item_var}`"),
                )
                .with_help("`inputs`, `steps` and `index` are already defined; pick another name"),
                &format!("{ptr}/as"),
            );
        }
        let scope = Scope {
            step: Some(i),
            item_var: s.foreach.as_ref().map(|_| item_var.as_str()),
            allow_self: false,
            loops: &loops,
        };
        if let Some(p) = &s.prompt {
            check_template(
                ctx,
                g,
                p,
                TemplateKind::Template,
                &format!("{ptr}/prompt"),
                scope,
            );
        }
        for (k, v) in &s.with {
            check_value_templates(ctx, g, v, &format!("{ptr}/with/{k}"), scope);
        }
        if let Some(w) = &s.when {
            check_template(
                ctx,
                g,
                w,
                TemplateKind::Expression,
                &format!("{ptr}/when"),
                scope,
            );
        }
        let foreach = s.foreach.as_ref().map(|expr| {
            let fptr = format!("{ptr}/foreach");
            check_foreach(ctx, g, i, expr, &fptr);
            Foreach {
                expr: expr.clone(),
                item_var: item_var.clone(),
            }
        });
        let back_edge = s.back_edge.as_ref().and_then(|l| {
            let lptr = format!("{ptr}/loop");
            check_template(
                ctx,
                g,
                &l.when,
                TemplateKind::Expression,
                &format!("{lptr}/when"),
                Scope { allow_self: true, ..scope },
            );
            if l.max == 0 || u64::from(l.max) > bounds::LOOP_MAX.ceiling {
                ctx.at(
                    Diagnostic::new(
                        "recipe::loop-bound",
                        format!("a loop's `max` must be between 1 and {}, not {}", bounds::LOOP_MAX.ceiling, l.max),
                    )
                    .with_label("out of bounds")
                    .with_help("every loop is bounded: give the most times it may be taken (the coding loop uses 2)"),
                    &format!("{lptr}/max"),
                );
            }
            match g.index.get(&l.to) {
                None => {
                    ctx.at(
                        Diagnostic::new("recipe::loop-target", format!("`loop.to: {}` is not a step", l.to))
                            .with_label("no such step")
                            .with_help("name the step to run again from: this step or one it needs"),
                        &format!("{lptr}/to"),
                    );
                    None
                }
                Some(&k) if k == i || g.is_upstream(k, i) => Some(BackEdge {
                    to: l.to.clone(),
                    when: l.when.clone(),
                    max: l.max,
                }),
                Some(_) => {
                    ctx.at(
                        Diagnostic::new(
                            "recipe::loop-target",
                            format!("`loop.to: {}` is not upstream of `{}`", l.to, s.id),
                        )
                        .with_label("not an ancestor")
                        .with_help("a loop goes back: `to` must be this step or a step it needs (transitively)"),
                        &format!("{lptr}/to"),
                    );
                    None
                }
            }
        });
        let timeout = s.timeout.as_ref().and_then(|t| {
            limits::duration(ctx, t, bounds::STEP_TIMEOUT_SECS, &format!("{ptr}/timeout"))
        });
        let step_limits =
            limits::resolve(ctx, s.limits.as_ref(), run_limits, &format!("{ptr}/limits"));
        let output = s.output.as_ref().map(|o| {
            if let Err(e) = jsonschema::draft202012::meta::validate(&o.schema) {
                ctx.at(
                    Diagnostic::new("recipe::output-schema", format!("the output schema is not a valid JSON Schema: {e}"))
                        .with_help("write a JSON Schema (draft 2020-12), e.g. `{type: object, properties: {...}}`"),
                    &format!("{ptr}/output/schema"),
                );
            } else if let Err(e) = jsonschema::draft202012::new(&o.schema) {
                ctx.at(
                    Diagnostic::new("recipe::output-schema", format!("the output schema cannot be used: {e}"))
                        .with_help("only local `$ref`s (`#/$defs/...`) are supported"),
                    &format!("{ptr}/output/schema"),
                );
            }
            let bound = crate::recipe::bounds::OUTPUT_CORRECTIONS;
            let mut corrections = o.corrections.unwrap_or(DEFAULT_CORRECTIONS);
            if u64::from(corrections) > bound.ceiling {
                ctx.at(
                    super::limits::over_ceiling(bound.name, corrections.into(), bound.ceiling),
                    &format!("{ptr}/output/corrections"),
                );
                corrections = bound.ceiling as u32;
            }
            OutputSpec {
                schema: o.schema.clone(),
                corrections,
            }
        });
        if let Some(kind) = kind {
            out.push(Step {
                id: s.id.clone(),
                description: s.description.clone(),
                kind,
                needs: s.needs.clone(),
                when: s.when.clone(),
                foreach,
                output,
                phase,
                timeout,
                limits: run_limits.narrow(&step_limits),
                back_edge,
                allow_failure: s.allow_failure,
            });
        }
    }
    out
}

fn check_value_templates(ctx: &mut Ctx<'_>, g: &StepGraph, v: &Value, ptr: &str, scope: Scope<'_>) {
    match v {
        Value::String(s) => check_template(ctx, g, s, TemplateKind::Template, ptr, scope),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                check_value_templates(ctx, g, item, &format!("{ptr}/{i}"), scope);
            }
        }
        Value::Object(map) => {
            for (k, item) in map {
                check_value_templates(
                    ctx,
                    g,
                    item,
                    &crate::recipe::yaml::pointer_join(ptr, k),
                    scope,
                );
            }
        }
        _ => {}
    }
}

fn not_allowed(ctx: &mut Ctx<'_>, field: &str, kind: &str, ptr: &str) {
    let rule = if field == "prompt" {
        "recipe::prompt-on-non-agent"
    } else {
        "recipe::field-not-allowed"
    };
    ctx.at_key(
        Diagnostic::new(rule, format!("`{field}` is not allowed on a {kind} step"))
            .with_label(format!("not for {kind} steps"))
            .with_help(match field {
                "prompt" => {
                    "only agent steps take a prompt; a tool step takes its arguments in `with`"
                }
                "with" => "an agent step takes its task in `prompt`",
                _ => "`tools` and `delegates` narrow an agent step's role; remove them here",
            }),
        &format!("{ptr}/{field}"),
    );
}

fn is_verify_like(phase: Phase) -> bool {
    matches!(phase, Phase::Verify | Phase::Baseline)
}

fn write_in_verify(ctx: &mut Ctx<'_>, what: String, phase: Phase, ptr: &str) {
    ctx.at(
        Diagnostic::new(
            "recipe::write-in-verify",
            format!("{what} in a `{phase}` step; nothing may be written during {phase}"),
        )
        .with_label("writes files")
        .with_help("move the write to an `edit` or `repair` step, or narrow the step's `tools`"),
        ptr,
    );
}

#[allow(clippy::too_many_arguments)]
fn step_kind(
    ctx: &mut Ctx<'_>,
    s: &StepDocument,
    i: usize,
    ptr: &str,
    phase: Phase,
    roles: &IndexMap<String, Arc<ResolvedRole>>,
    loader: &mut Loader<'_>,
) -> Option<StepKind> {
    let given: Vec<&str> = [
        s.agent.as_ref().map(|_| "agent"),
        s.tool.as_ref().map(|_| "tool"),
        s.recipe.as_ref().map(|_| "recipe"),
    ]
    .into_iter()
    .flatten()
    .collect();
    if given.len() != 1 {
        let msg = if given.is_empty() {
            format!("step `{}` says neither `agent`, `tool` nor `recipe`", s.id)
        } else {
            format!(
                "step `{}` sets {}; a step runs exactly one thing",
                s.id,
                given
                    .iter()
                    .map(|g| format!("`{g}`"))
                    .collect::<Vec<_>>()
                    .join(" and ")
            )
        };
        ctx.at(
            Diagnostic::new("recipe::step-kind", msg)
                .with_label("exactly one of agent, tool, recipe")
                .with_help("give exactly one of `agent: ROLE`, `tool: TOOL` or `recipe: RECIPE`"),
            &format!("{ptr}/id"),
        );
        return None;
    }
    let doc = ctx.doc;
    if let Some(role_key) = &s.agent {
        if !s.with.is_empty() {
            not_allowed(ctx, "with", "agent", ptr);
        }
        let aptr = format!("{ptr}/agent");
        let Some(role) = roles.get(role_key) else {
            if !doc.roles.contains_key(role_key) {
                let keys: Vec<&str> = doc.roles.keys().map(String::as_str).collect();
                ctx.at(
                    Diagnostic::new(
                        "recipe::unknown-role",
                        format!(
                            "step `{}` uses role `{role_key}`, which the recipe does not declare",
                            s.id
                        ),
                    )
                    .with_label("unknown role")
                    .with_help(if keys.is_empty() {
                        format!("declare it under `roles:` (`{role_key}: {{}}`)")
                    } else {
                        format!(
                            "declared roles: {}; or add `{role_key}: {{}}` under `roles:`",
                            keys.join(", ")
                        )
                    }),
                    &aptr,
                );
            }
            return None;
        };
        if !role.enabled {
            ctx.at(
                Diagnostic::new("recipe::role-disabled", format!("step `{}` uses role `{role_key}`, which is disabled", s.id))
                    .with_label("disabled role")
                    .with_help(format!("enable it (`roles: {{{role_key}: {{enabled: true}}}}`) or remove the step; a disabled role can only be listed as a delegate, where it is simply not offered")),
                &aptr,
            );
        }
        if role.role.kind == RoleKind::ToolOnly {
            ctx.at(
                Diagnostic::new(
                    "recipe::agent-tool-only",
                    format!("role `{role_key}` is tool-only: it has no model to run an agent step"),
                )
                .with_label("tool-only role")
                .with_help(
                    "use a `tool:` step, or expose the role to a controller with `delegates`",
                ),
                &aptr,
            );
        }
        if s.prompt.as_deref().is_none_or(|p| p.trim().is_empty()) {
            ctx.at_key(
                Diagnostic::new(
                    "recipe::missing-prompt",
                    format!("agent step `{}` has no `prompt`", s.id),
                )
                .with_help("give the task as `prompt:` (a template over `inputs` and `steps`)"),
                &format!("{ptr}/id"),
            );
        }
        // Tools: role tools, narrowed by the step's.
        let mut tools: Vec<String> = role.role.tools.clone();
        if let Some(step_tools) = &s.tools {
            let mut narrowed = Vec::new();
            for (j, t) in step_tools.iter().enumerate() {
                let tptr = format!("{ptr}/tools/{j}");
                if tools::lookup(t).is_none() {
                    ctx.at(unknown_tool("recipe::unknown-tool", t), &tptr);
                } else if !role.role.tools.contains(t) {
                    ctx.at(
                        Diagnostic::new("recipe::tool-not-allowed", format!("role `{role_key}` does not allow tool `{t}`"))
                            .with_label("not in the role's tools")
                            .with_help(if role.role.tools.is_empty() {
                                format!("role `{role_key}` has no tools; a step can only narrow its role's tools")
                            } else {
                                format!("a step can only narrow its role's tools: {}", role.role.tools.join(", "))
                            }),
                        &tptr,
                    );
                } else if !narrowed.contains(t) {
                    narrowed.push(t.clone());
                }
            }
            tools = narrowed;
        }
        let mut writes = Vec::new();
        for t in &tools {
            let Some(spec) = tools::lookup(t) else {
                continue;
            };
            if let Some(cap) = spec.capability
                && doc.capabilities.get(&cap) == Some(&Decision::Deny)
            {
                ctx.at(
                        Diagnostic::new("recipe::tool-not-allowed", format!("step `{}` gets tool `{t}` from role `{role_key}`, but the recipe denies `{cap}`", s.id))
                            .with_help(format!("narrow the step's `tools` to leave `{t}` out, or allow `{cap}` in the recipe's `capabilities`")),
                        &aptr,
                    );
            }
            if spec.effect == Effect::Write {
                writes.push(format!("`{t}`"));
            }
        }
        if !writes.is_empty() && is_verify_like(phase) {
            let p = if s.tools.is_some() {
                format!("{ptr}/tools")
            } else {
                format!("{ptr}/phase")
            };
            let what = if writes.len() == 1 {
                format!("role `{role_key}` brings the write tool {}", writes[0])
            } else {
                format!(
                    "role `{role_key}` brings the write tools {}",
                    writes.join(", ")
                )
            };
            write_in_verify(ctx, what, phase, &p);
        }
        // Delegates.
        let mut delegates = Vec::new();
        if !s.delegates.is_empty()
            && role
                .role
                .capabilities
                .get(&Capability::RoleDelegate)
                .copied()
                .unwrap_or_default()
                == Decision::Deny
        {
            ctx.at_key(
                Diagnostic::new("recipe::delegate-not-allowed", format!("role `{role_key}` may not delegate (`role.delegate` is denied)"))
                    .with_help("give the role `role.delegate: allow` in its capabilities, or remove `delegates`"),
                &format!("{ptr}/delegates"),
            );
        }
        for (j, d) in s.delegates.iter().enumerate() {
            let dptr = format!("{ptr}/delegates/{j}");
            let Some(target) = roles.get(&d.role) else {
                if !doc.roles.contains_key(&d.role) {
                    ctx.at(
                        Diagnostic::new(
                            "recipe::unknown-role",
                            format!("delegate `{}` is not a role the recipe declares", d.role),
                        )
                        .with_label("unknown role")
                        .with_help(format!("declare it under `roles:` (`{}: {{}}`)", d.role)),
                        &format!("{dptr}/role"),
                    );
                }
                continue;
            };
            if is_verify_like(phase)
                && let Some(w) = target
                    .role
                    .tools
                    .iter()
                    .find(|t| tools::lookup(t).is_some_and(|sp| sp.effect == Effect::Write))
            {
                write_in_verify(
                    ctx,
                    format!("delegate `{}` can write (tool `{w}`)", d.role),
                    phase,
                    &format!("{dptr}/role"),
                );
            }
            let tool = d.tool.clone().unwrap_or_else(|| d.role.replace('-', "_"));
            if tools.contains(&tool) || delegates.iter().any(|x: &Delegate| x.tool == tool) {
                ctx.at(
                    Diagnostic::new(
                        "recipe::duplicate-tool",
                        format!("the tool name `{tool}` is offered twice to step `{}`", s.id),
                    )
                    .with_help("give the delegate another `tool:` name"),
                    &dptr,
                );
            }
            if !target.enabled {
                continue; // a disabled delegate is simply not offered
            }
            delegates.push(Delegate {
                role: d.role.clone(),
                tool,
                description: d
                    .description
                    .clone()
                    .or_else(|| target.role.description.clone())
                    .unwrap_or_else(|| format!("Delegate a task to the `{}` role.", d.role)),
                max_calls: d.max_calls.unwrap_or(DEFAULT_DELEGATE_CALLS),
            });
        }
        return Some(StepKind::Agent {
            role: role_key.clone(),
            prompt: s.prompt.clone().unwrap_or_default(),
            tools,
            delegates,
        });
    }
    for (field, present) in [
        ("prompt", s.prompt.is_some()),
        ("tools", s.tools.is_some()),
        ("delegates", !s.delegates.is_empty()),
    ] {
        if present {
            not_allowed(
                ctx,
                field,
                if s.tool.is_some() { "tool" } else { "recipe" },
                ptr,
            );
        }
    }
    if let Some(tool) = &s.tool {
        let tptr = format!("{ptr}/tool");
        let Some(spec) = tools::lookup(tool) else {
            ctx.at(unknown_tool("recipe::unknown-tool", tool), &tptr);
            return None;
        };
        if spec.effect == Effect::Write && is_verify_like(phase) {
            write_in_verify(ctx, format!("the write tool `{tool}`"), phase, &tptr);
        }
        if let Some(cap) = spec.capability
            && doc.capabilities.get(&cap) == Some(&Decision::Deny)
        {
            ctx.at(
                Diagnostic::new(
                    "recipe::tool-not-allowed",
                    format!("tool `{tool}` needs `{cap}`, which the recipe denies"),
                )
                .with_help(format!(
                    "allow `{cap}` in the recipe's `capabilities`, or remove the step"
                )),
                &tptr,
            );
        }
        return Some(StepKind::Tool {
            name: tool.clone(),
            with: s.with.clone(),
        });
    }
    let reference = s.recipe.as_deref().unwrap_or_default();
    let rptr = format!("{ptr}/recipe");
    let Some(child_ref) = resolve_reference(reference, ctx.base_dir.as_deref()) else {
        ctx.at(
            Diagnostic::new(
                "recipe::unknown-recipe",
                format!("cannot find the recipe `{reference}`"),
            )
            .with_label("not found")
            .with_help(if looks_like_path(reference) {
                "the path is relative to this recipe's directory".to_string()
            } else {
                format!(
                    "built-in recipes: {}",
                    crate::builtins::recipes()
                        .iter()
                        .map(|b| b.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }),
            &rptr,
        );
        return None;
    };
    let identity = child_ref.identity();
    if loader.nesting.contains(&identity) {
        ctx.at(
            Diagnostic::new(
                "recipe::recipe-cycle",
                format!(
                    "step `{}` runs recipe `{reference}`, which is already running it",
                    s.id
                ),
            )
            .with_label("recipe runs itself")
            .with_help("a recipe cannot include itself, directly or through another recipe"),
            &rptr,
        );
        return None;
    }
    if loader.nesting.len() >= MAX_RECIPE_NESTING {
        ctx.at(
            Diagnostic::new(
                "recipe::recipe-too-deep",
                format!("recipes nest deeper than {MAX_RECIPE_NESTING} levels"),
            )
            .with_help("flatten the composition"),
            &rptr,
        );
        return None;
    }
    let child = match loader.load(&child_ref) {
        Ok(c) => c,
        Err(errors) => {
            ctx.at(
                Diagnostic::new(
                    "recipe::invalid-recipe",
                    format!("the recipe `{reference}` run by step `{}` is invalid", s.id),
                )
                .with_help("see that recipe's own errors"),
                &rptr,
            );
            ctx.diags.extend(errors);
            return None;
        }
    };
    for (k, _) in &s.with {
        if !child.inputs.contains_key(k) {
            ctx.at_key(
                Diagnostic::new(
                    "recipe::unknown-input",
                    format!("recipe `{}` has no input `{k}`", child.name),
                )
                .with_help(format!(
                    "its inputs are: {}",
                    child.inputs.keys().cloned().collect::<Vec<_>>().join(", ")
                )),
                &format!("{ptr}/with/{k}"),
            );
        }
    }
    for (k, input) in &child.inputs {
        if input.required && input.default.is_none() && !s.with.contains_key(k) {
            ctx.at(
                Diagnostic::new(
                    "recipe::missing-input",
                    format!("recipe `{}` needs input `{k}`", child.name),
                )
                .with_help(format!("add `{k}: ...` under `with`")),
                &rptr,
            );
        }
    }
    let _ = i;
    Some(StepKind::Recipe {
        recipe: child,
        with: s.with.clone(),
    })
}
