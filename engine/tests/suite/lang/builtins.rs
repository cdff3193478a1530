//! The shipped recipes and roles are embedded, and all of them validate.

use protoflow_engine::builtins;
use protoflow_engine::recipe::yaml::YamlLimits;
use protoflow_engine::recipe::{LoadOptions, Origin, RecipeRef, StepKind, load_recipe};
use protoflow_engine::role::{RoleLocation, load_role};

#[test]
fn every_builtin_recipe_validates() {
    for b in builtins::recipes() {
        let r = load_recipe(&RecipeRef::Builtin(b), &LoadOptions::default())
            .unwrap_or_else(|d| panic!("{}:\n{d}", b.path));
        assert_eq!(r.name, b.name);
    }
}

#[test]
fn every_builtin_role_validates() {
    for b in builtins::roles() {
        let r = load_role(&RoleLocation::Builtin(b), &YamlLimits::default())
            .unwrap_or_else(|d| panic!("{}:\n{d}", b.path));
        assert_eq!(r.document.name, b.name);
    }
}

#[test]
fn the_verify_recipe_uses_no_model() {
    let r = load_recipe(
        &RecipeRef::Builtin(builtins::recipe("verify").unwrap()),
        &LoadOptions::default(),
    )
    .unwrap();
    assert!(r.roles.is_empty());
    assert!(
        r.steps
            .iter()
            .all(|s| matches!(s.kind, StepKind::Tool { .. }))
    );
}

#[test]
fn every_role_a_shipped_recipe_names_is_shipped() {
    for b in builtins::recipes() {
        let r = load_recipe(&RecipeRef::Builtin(b), &LoadOptions::default()).unwrap();
        for role in r.roles.values() {
            assert!(matches!(role.origin, Origin::Builtin(_)), "{}", role.key);
        }
    }
}

#[test]
fn the_web_is_off_by_default_in_the_research_recipes() {
    use protoflow_engine::policy::{Capability, Decision};
    for name in ["due-diligence", "deep-research"] {
        let r = load_recipe(
            &RecipeRef::Builtin(builtins::recipe(name).unwrap()),
            &LoadOptions::default(),
        )
        .unwrap();
        assert_eq!(
            r.inputs["web"].default,
            Some(serde_json::json!(false)),
            "{name}"
        );
        let networked = |key: &str| {
            let role = &r.roles[key].role;
            role.tools
                .iter()
                .any(|t| t == "fetch_url" || t == "web_search")
                && role.capabilities.get(&Capability::NetworkRead).copied() != Some(Decision::Deny)
        };
        let mut guarded = 0;
        for step in &r.steps {
            if let StepKind::Agent {
                role, delegates, ..
            } = &step.kind
            {
                assert!(
                    delegates.iter().all(|d| !networked(&d.role)),
                    "{name}: {} delegates to a role with network access",
                    step.id
                );
                if networked(role) {
                    assert_eq!(
                        step.when.as_deref(),
                        Some("inputs.web"),
                        "{name}: step {} can reach the network without the web switch",
                        step.id
                    );
                    guarded += 1;
                }
            }
        }
        assert_eq!(
            guarded, 2,
            "{name}: the web research and web verification steps"
        );
    }
}
