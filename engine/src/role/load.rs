//! Loading a role file: YAML -> schema -> typed document -> role checks.

use std::path::Path;

use super::document::{RoleDocument, RoleKind};
use super::search::RoleLocation;
use crate::policy::Decision;
use crate::recipe::Origin;
use crate::recipe::diagnostic::{Diagnostic, Diagnostics};
use crate::recipe::load::{Parsed, parse_typed, read_capped};
use crate::recipe::schema::SchemaKind;
use crate::recipe::source::Source;
use crate::recipe::yaml::{SpanIndex, YamlLimits};
use crate::tools;

/// A role file, parsed and checked.
#[derive(Debug, Clone)]
pub struct LoadedRole {
    /// The typed document.
    pub document: RoleDocument,
    /// Where it came from.
    pub origin: Origin,
    /// Its text.
    pub source: Source,
    /// Where each node is.
    pub spans: SpanIndex,
}

/// Loads and checks the role at `location`.
pub fn load_role(location: &RoleLocation, limits: &YamlLimits) -> Result<LoadedRole, Diagnostics> {
    let name = location.display_name();
    let (bytes, origin) = match location {
        RoleLocation::File(p) => (read_capped(p, &name, limits)?, Origin::File(p.clone())),
        RoleLocation::Project(p) => (read_capped(p, &name, limits)?, Origin::Project(p.clone())),
        RoleLocation::User(p) => (read_capped(p, &name, limits)?, Origin::User(p.clone())),
        RoleLocation::Builtin(b) => (
            b.text.as_bytes().to_vec(),
            Origin::Builtin(b.name.to_string()),
        ),
    };
    load_role_bytes(&name, &bytes, origin, limits)
}

/// Loads and checks a role file at `path` (shown as `path`).
pub fn load_role_file(path: &Path, limits: &YamlLimits) -> Result<LoadedRole, Diagnostics> {
    load_role(&RoleLocation::File(path.to_path_buf()), limits)
}

/// Loads and checks role text.
pub fn load_role_bytes(
    name: &str,
    bytes: &[u8],
    origin: Origin,
    limits: &YamlLimits,
) -> Result<LoadedRole, Diagnostics> {
    let Parsed {
        document,
        source,
        spans,
        ..
    } = parse_typed::<RoleDocument>(name, bytes, SchemaKind::Role.compiled(), limits)?;
    let diags = check_role(&document, &source, &spans);
    diags.into_result(LoadedRole {
        document,
        origin,
        source,
        spans,
    })
}

/// The role's own rules: known tools, listed once, each allowed by the role's policy.
pub fn check_role(doc: &RoleDocument, source: &Source, spans: &SpanIndex) -> Diagnostics {
    let mut diags = Diagnostics::new();
    let at = |ptr: &str| spans.nearest(ptr).map(|s| (source.clone(), s));
    for (i, tool) in doc.tools.iter().enumerate() {
        let ptr = format!("/tools/{i}");
        if doc.tools[..i].contains(tool) {
            diags.push(
                Diagnostic::new(
                    "role::duplicate-tool",
                    format!("tool `{tool}` is listed twice"),
                )
                .at_opt(at(&ptr))
                .with_help("list each tool once"),
            );
            continue;
        }
        let Some(spec) = tools::lookup(tool) else {
            diags.push(unknown_tool("role::unknown-tool", tool).at_opt(at(&ptr)));
            continue;
        };
        if let Some(cap) = spec.capability {
            let decision = doc.capabilities.get(&cap).copied().unwrap_or_default();
            if decision == Decision::Deny {
                diags.push(
                    Diagnostic::new(
                        "role::tool-denied",
                        format!(
                            "role `{}` lists tool `{tool}` but denies its capability `{cap}`",
                            doc.name
                        ),
                    )
                    .at_opt(at(&ptr))
                    .with_label("never allowed")
                    .with_help(format!(
                        "add `{cap}: allow` (or `ask`) under `capabilities`, or remove the tool"
                    )),
                );
            }
        }
    }
    if let Some(limits) = &doc.limits {
        for (field, value, ceiling) in limits.over_ceiling() {
            diags.push(
                Diagnostic::new(
                    "role::limit-over-ceiling",
                    format!("`{field}` of {value} is over the engine ceiling of {ceiling}"),
                )
                .at_opt(at(&format!("/limits/{field}")))
                .with_label("over the ceiling")
                .with_help(format!("use at most {ceiling}")),
            );
        }
    }
    let mut prompts: Vec<(String, &str)> = Vec::new();
    if let Some(p) = &doc.prompt {
        prompts.push(("/prompt".into(), p));
    }
    if let Some(profiles) = &doc.profiles {
        for (name, overlay) in [
            ("small", &profiles.small),
            ("medium", &profiles.medium),
            ("large", &profiles.large),
            ("api", &profiles.api),
        ] {
            let Some(o) = overlay else { continue };
            if let Some(p) = &o.prompt {
                prompts.push((format!("/profiles/{name}/prompt"), p));
            }
            if let Some(p) = &o.prompt_append {
                prompts.push((format!("/profiles/{name}/prompt_append"), p));
            }
        }
    }
    for (ptr, text) in prompts {
        if let Some(d) = template_syntax("role::template-syntax", text) {
            diags.push(d.at_opt(at(&ptr)));
        }
    }
    if doc.kind == RoleKind::Llm && doc.prompt.as_deref().is_none_or(|p| p.trim().is_empty()) {
        diags.push(
            Diagnostic::new(
                "role::missing-prompt",
                format!("llm role `{}` has no prompt", doc.name),
            )
            .at_opt(spans.key_or_nearest("/kind").map(|s| (source.clone(), s)))
            .with_help("add a `prompt:` telling the model what this role does and how"),
        );
    }
    diags
}

/// A syntax diagnostic for a prompt template, when it does not parse.
pub(crate) fn template_syntax(rule: &'static str, text: &str) -> Option<Diagnostic> {
    let env = crate::recipe::template::environment();
    let err = env.template_from_str(text).err()?;
    let detail = err
        .detail()
        .map(str::to_string)
        .unwrap_or_else(|| err.to_string());
    Some(
        Diagnostic::new(rule, format!("invalid template: {detail}"))
            .with_label("does not parse")
            .with_help("prompts are minijinja (Jinja2) templates: `{{ name }}`, `{% if ... %}...{% endif %}`"),
    )
}

/// "unknown tool" with the closest catalog names as help.
pub(crate) fn unknown_tool(rule: &'static str, tool: &str) -> Diagnostic {
    let names: Vec<&str> = tools::catalog().iter().map(|s| s.name).collect();
    let close: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| n.contains(tool) || tool.contains(n) || shares_word(n, tool))
        .take(3)
        .collect();
    let help = if close.is_empty() {
        format!("known tools: {}", names.join(", "))
    } else {
        format!(
            "did you mean {}? (`protoflow` knows {} tools, listed in docs/recipe-language.md)",
            close
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(" or "),
            names.len()
        )
    };
    Diagnostic::new(rule, format!("unknown tool `{tool}`"))
        .with_label("not in the tool catalog")
        .with_help(help)
}

fn shares_word(a: &str, b: &str) -> bool {
    a.split('_')
        .any(|w| w.len() > 3 && b.split('_').any(|v| v == w))
}
