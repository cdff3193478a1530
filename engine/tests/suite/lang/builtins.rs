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
fn the_scout_is_off_by_default_in_due_diligence() {
    let r = load_recipe(
        &RecipeRef::Builtin(builtins::recipe("due-diligence").unwrap()),
        &LoadOptions::default(),
    )
    .unwrap();
    assert!(!r.roles["scout"].enabled);
    let research = r.steps.iter().find(|s| s.id == "research").unwrap();
    match &research.kind {
        StepKind::Agent { delegates, .. } => assert!(delegates.is_empty()),
        other => panic!("{other:?}"),
    }
}
