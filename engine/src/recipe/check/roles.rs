//! The recipe's `roles`: each resolved (project, user, built-in, or a path), checked,
//! and narrowed by the recipe's overrides (never widened).

use std::sync::Arc;

use indexmap::IndexMap;

use super::Ctx;
use crate::policy::Decision;
use crate::recipe::diagnostic::Diagnostic;
use crate::recipe::document::{EnabledDocument, RoleRefDocument};
use crate::recipe::load::{Loader, looks_like_path};
use crate::recipe::template::{TemplateKind, references};
use crate::recipe::validated::ResolvedRole;
use crate::role::{LoadedRole, RoleLocation, load_role, template_syntax, unknown_tool};
use crate::tools;

pub(super) fn resolve_roles(
    ctx: &mut Ctx<'_>,
    loader: &Loader<'_>,
) -> IndexMap<String, Arc<ResolvedRole>> {
    let mut out = IndexMap::new();
    let doc = ctx.doc;
    for (key, rref) in &doc.roles {
        let ptr = format!("/roles/{key}");
        let name = rref.from.clone().unwrap_or_else(|| key.clone());
        let from_ptr = if rref.from.is_some() {
            format!("{ptr}/from")
        } else {
            ptr.clone()
        };
        let location = if looks_like_path(&name) {
            ctx.base_dir
                .as_ref()
                .map(|d| d.join(&name))
                .filter(|p| p.is_file())
                .map(RoleLocation::File)
        } else {
            loader.options.roles.find(&name)
        };
        let Some(location) = location else {
            let d = Diagnostic::new("recipe::role-not-found", format!("cannot find role `{name}`"))
                .with_label("no such role")
                .with_help(if looks_like_path(&name) {
                    "the path is relative to this recipe's directory".to_string()
                } else {
                    "roles are looked up in .protoflow/roles/, the user config directory, then the built-ins (`protoflow roles` lists them)".to_string()
                });
            if rref.from.is_some() {
                ctx.at(d, &from_ptr);
            } else {
                ctx.at_key(d, &from_ptr);
            }
            continue;
        };
        match load_role(&location, &loader.options.yaml) {
            Ok(loaded) => {
                let resolved = apply_overrides(ctx, key, rref, loaded, &ptr);
                out.insert(key.clone(), Arc::new(resolved));
            }
            Err(errors) => {
                ctx.at_key(
                    Diagnostic::new(
                        "recipe::invalid-role",
                        format!("role `{key}` ({}) is invalid", location.display_name()),
                    )
                    .with_help("see the role file's own errors"),
                    &ptr,
                );
                ctx.diags.extend(errors);
            }
        }
    }
    out
}

fn apply_overrides(
    ctx: &mut Ctx<'_>,
    key: &str,
    rref: &RoleRefDocument,
    loaded: LoadedRole,
    ptr: &str,
) -> ResolvedRole {
    let mut role = loaded.document;
    if let Some(tools) = &rref.tools {
        let mut narrowed = Vec::new();
        for (i, t) in tools.iter().enumerate() {
            let tptr = format!("{ptr}/tools/{i}");
            if tools::lookup(t).is_none() {
                ctx.at(unknown_tool("recipe::unknown-tool", t), &tptr);
            } else if !role.tools.contains(t) {
                ctx.at(
                    Diagnostic::new(
                        "recipe::tool-not-allowed",
                        format!("role `{}` does not have tool `{t}`; a recipe can only narrow a role's tools", role.name),
                    )
                    .with_label("not in the role's tools")
                    .with_help(format!("the role's tools are: {}", role.tools.join(", "))),
                    &tptr,
                );
            } else if !narrowed.contains(t) {
                narrowed.push(t.clone());
            }
        }
        role.tools = narrowed;
    }
    for (cap, decision) in &rref.capabilities {
        let current = role.capabilities.get(cap).copied().unwrap_or_default();
        role.capabilities.insert(*cap, current.narrow(*decision));
    }
    // After narrowing, every remaining tool must still be allowed.
    for t in &role.tools {
        if let Some(cap) = tools::lookup(t).and_then(|s| s.capability)
            && role.capabilities.get(&cap).copied().unwrap_or_default() == Decision::Deny
            && rref.capabilities.contains_key(&cap)
        {
            ctx.at_key(
                Diagnostic::new(
                    "recipe::tool-not-allowed",
                    format!(
                        "role `{key}` keeps tool `{t}` but its capability `{cap}` is now denied"
                    ),
                )
                .with_help(format!(
                    "also remove `{t}` with `tools:`, or do not deny `{cap}`"
                )),
                &format!("{ptr}/capabilities/{cap}"),
            );
        }
    }
    for (field, text) in [
        ("prompt", &rref.prompt),
        ("prompt_append", &rref.prompt_append),
    ] {
        if let Some(d) = text
            .as_deref()
            .and_then(|t| template_syntax("recipe::template-syntax", t))
        {
            ctx.at(d, &format!("{ptr}/{field}"));
        }
    }
    if let Some(p) = &rref.prompt {
        role.prompt = Some(p.clone());
    }
    if let Some(append) = &rref.prompt_append {
        role.prompt = Some(match role.prompt.take() {
            Some(p) => format!("{}\n\n{}", p.trim_end(), append),
            None => append.clone(),
        });
    }
    if let Some(l) = &rref.limits {
        for (field, value, ceiling) in l.over_ceiling() {
            ctx.at(
                super::limits::over_ceiling(field, value, ceiling),
                &format!("{ptr}/limits/{field}"),
            );
        }
        let mut limits = role.limits.take().unwrap_or_default();
        macro_rules! over {
            ($($f:ident),*) => { $( if l.$f.is_some() { limits.$f = l.$f; } )* };
        }
        over!(
            turns_per_window,
            windows,
            read_chars,
            corrections,
            output_tokens,
            continuations
        );
        role.limits = Some(limits);
    }
    ResolvedRole {
        key: key.to_string(),
        origin: loaded.origin,
        role,
        model: rref.model.clone(),
        enabled: !matches!(rref.enabled, Some(EnabledDocument::Fixed(false))),
        enabled_when: enabled_when(ctx, rref, ptr),
    }
}

/// A role's `enabled` expression, checked: valid syntax, and it reads only the
/// recipe's inputs (nothing else is known when the run starts).
fn enabled_when(ctx: &mut Ctx<'_>, rref: &RoleRefDocument, ptr: &str) -> Option<String> {
    let Some(EnabledDocument::When(expr)) = &rref.enabled else {
        return None;
    };
    let eptr = format!("{ptr}/enabled");
    match references(expr, TemplateKind::Expression) {
        Err(e) => ctx.at(
            Diagnostic::new(
                "recipe::template-syntax",
                format!("`enabled` is not a valid expression: {e}"),
            )
            .with_help("write `true`, `false` or an expression over inputs, e.g. `inputs.tester`"),
            &eptr,
        ),
        Ok(refs) => {
            let declared = &ctx.doc.inputs;
            for r in refs {
                let mut parts = r.split('.');
                let ok = parts.next() == Some("inputs")
                    && parts.next().is_some_and(|name| declared.contains_key(name));
                if !ok {
                    ctx.at(
                        Diagnostic::new(
                            "recipe::enabled-reference",
                            format!("`enabled` reads `{r}`; it may only read the recipe's declared inputs"),
                        )
                        .with_help("a role is switched on or off when the run starts, from its inputs (`inputs.NAME`)"),
                        &eptr,
                    );
                }
            }
        }
    }
    Some(expr.clone())
}
