//! The shipped recipes and roles, embedded in the binary so they work in any
//! directory (`protoflow validate coding`).
//!
//! Owns only the embedding and lookup by name; the files themselves live in
//! `recipes/` and `roles/` at the repository root and are ordinary documents.

/// One embedded document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Builtin {
    /// Its name (the file stem): what `extends:`, `from:` and the CLI use.
    pub name: &'static str,
    /// Its path in the repository (`recipes/coding.yaml`), for diagnostics.
    pub path: &'static str,
    /// Its text.
    pub text: &'static str,
}

macro_rules! embed {
    ($dir:literal, $($name:literal),* $(,)?) => {
        &[$(Builtin {
            name: $name,
            path: concat!($dir, "/", $name, ".yaml"),
            text: include_str!(concat!("../../", $dir, "/", $name, ".yaml")),
        }),*]
    };
}

static RECIPES: &[Builtin] = embed!(
    "recipes",
    "code-review",
    "coding",
    "deep-research",
    "due-diligence",
    "verify"
);

static ROLES: &[Builtin] = embed!(
    "roles",
    "antagonist",
    "architect",
    "brief-writer",
    "claim-verifier",
    "codebase-mapper",
    "coder",
    "dissenter",
    "explorer",
    "researcher",
    "review-finder",
    "review-synthesizer",
    "scout",
    "synthesizer",
    "tester",
    "verifier",
);

/// Every built-in recipe, by name.
pub fn recipes() -> &'static [Builtin] {
    RECIPES
}

/// Every built-in role, by name.
pub fn roles() -> &'static [Builtin] {
    ROLES
}

/// The built-in recipe called `name`.
pub fn recipe(name: &str) -> Option<&'static Builtin> {
    RECIPES.iter().find(|b| b.name == name)
}

/// The built-in role called `name`.
pub fn role(name: &str) -> Option<&'static Builtin> {
    ROLES.iter().find(|b| b.name == name)
}
