//! The system prompt of one inference: the role's prompt with the chosen profile's
//! overlay, rendered as a minijinja template over the run's data.
//!
//! This file owns rendering only. It never chooses tools and never knows a role's
//! name; what the template may read is documented on [`render_system_prompt`].

use minijinja::{Environment, UndefinedBehavior};
use serde_json::{Map, Value};

use super::error::AgentError;
use super::profile::Profile;
use crate::recipe::{TEMPLATE_FUEL, TEMPLATE_OUTPUT_BYTES};
use crate::role::RoleDocument;

/// The role's prompt text for `profile`: the overlay's `prompt` replaces the role's,
/// then the overlay's `prompt_append` is appended (after a blank line).
pub fn prompt_for_profile(role: &RoleDocument, profile: Profile) -> String {
    let overlay = role.profiles.as_ref().and_then(|p| match profile {
        Profile::Small => p.small.as_ref(),
        Profile::Medium => p.medium.as_ref(),
        Profile::Large => p.large.as_ref(),
        Profile::Api => p.api.as_ref(),
    });
    let mut text = overlay
        .and_then(|o| o.prompt.clone())
        .or_else(|| role.prompt.clone())
        .unwrap_or_default();
    if let Some(append) = overlay.and_then(|o| o.prompt_append.as_deref()) {
        if text.trim().is_empty() {
            text = append.to_string();
        } else {
            text = format!("{}\n\n{}", text.trim_end(), append);
        }
    }
    text
}

/// Renders the role's system prompt for `profile`.
///
/// The template sees the run's data (`inputs`, `steps`, a fan-out item) plus
/// `task` (the step's rendered task), `profile` (`small` ...), `model` and `role`
/// (the role's name). Undefined variables are errors (strict).
pub fn render_system_prompt(
    role_key: &str,
    role: &RoleDocument,
    profile: Profile,
    model: &str,
    task: &str,
    data: &Value,
) -> Result<String, AgentError> {
    let text = prompt_for_profile(role, profile);
    if !text.contains("{{") && !text.contains("{%") && !text.contains("{#") {
        return Ok(text.trim_end().to_string());
    }
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
    // The same bounds as every run-time template: a prompt is data too.
    env.set_fuel(Some(TEMPLATE_FUEL));
    let mut context = match data {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    context.insert("task".into(), Value::String(task.to_string()));
    context.insert("profile".into(), Value::String(profile.as_str().into()));
    context.insert("model".into(), Value::String(model.to_string()));
    context.insert("role".into(), Value::String(role.name.clone()));
    env.render_str(
        &text,
        minijinja::value::Value::from(minijinja::value::Serde(Value::Object(context))),
    )
    .map_err(|e| AgentError::Prompt {
        role: role_key.to_string(),
        reason: e.to_string(),
    })
    .and_then(|s| {
        if s.len() > TEMPLATE_OUTPUT_BYTES {
            Err(AgentError::Prompt {
                role: role_key.to_string(),
                reason: format!("the rendered prompt is over {TEMPLATE_OUTPUT_BYTES} bytes"),
            })
        } else {
            Ok(s.trim_end().to_string())
        }
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use serde_json::json;

    fn role(extra: Value) -> RoleDocument {
        let mut doc = json!({
            "apiVersion": "protoflow/v1", "kind": "llm", "name": "worker",
            "prompt": "You work on {{ inputs.project }} as {{ role }} ({{ profile }})."
        });
        for (k, v) in extra.as_object().unwrap() {
            doc[k] = v.clone();
        }
        serde_json::from_value(doc).unwrap()
    }

    #[test]
    fn the_profile_overlay_appends_or_replaces_and_the_template_sees_run_data() {
        let r = role(json!({"profiles": {
            "small": {"prompt_append": "One tool at a time."},
            "api": {"prompt": "Short: {{ task }}"}
        }}));
        let data = json!({"inputs": {"project": "demo"}});
        let small = render_system_prompt("w", &r, Profile::Small, "m:7b", "fix it", &data).unwrap();
        assert_eq!(
            small,
            "You work on demo as worker (small).\n\nOne tool at a time."
        );
        let api = render_system_prompt("w", &r, Profile::Api, "gpt-4o", "fix it", &data).unwrap();
        assert_eq!(api, "Short: fix it");
        let large = render_system_prompt("w", &r, Profile::Large, "x:70b", "t", &data).unwrap();
        assert_eq!(large, "You work on demo as worker (large).");
    }

    #[test]
    fn a_runaway_prompt_template_is_stopped_not_rendered_forever() {
        let r = role(json!({
            "prompt": "{% for a in range(100000) %}{% for b in range(100000) %}x{% endfor %}{% endfor %}"
        }));
        let err = render_system_prompt("w", &r, Profile::Medium, "m", "t", &json!({})).unwrap_err();
        assert!(err.to_string().contains("role `w`"), "{err}");
    }

    #[test]
    fn an_undefined_variable_is_an_error_naming_the_role() {
        let r = role(json!({}));
        let err = render_system_prompt("w", &r, Profile::Medium, "m", "t", &json!({})).unwrap_err();
        assert!(err.to_string().contains("role `w`"), "{err}");
    }
}
