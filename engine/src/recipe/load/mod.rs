//! Loading a recipe: find it (file or built-in), read it with spans, validate its
//! shape, apply `extends`, then run the semantic checks that produce a [`Recipe`].
//!
//! Every stage reports all the problems it can find at once; a later stage runs
//! only on the output of a successful earlier one. Nothing here runs anything.

mod any;
mod merge;
mod parse;
mod project_config;
mod source_map;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

pub use any::{DocumentKind, LoadedDocument, detect_kind, load_any};
pub use parse::{Parsed, parse_typed, parse_value, read_capped, to_typed};
pub use project_config::{load_project_config_yaml, project_discover_options};
pub use source_map::SourceMap;

use super::check::check_recipe;
use super::diagnostic::{Diagnostic, Diagnostics};
use super::document::RecipeDocument;
use super::schema::SchemaKind;
use super::source::Source;
use super::validated::{Origin, Recipe};
use super::yaml::{YamlLimits, pointer_join};
use crate::builtins::{self, Builtin};
use crate::role::RoleSearchPath;

/// Most recipes one `extends` chain may stack.
pub const MAX_EXTENDS_DEPTH: usize = 8;
/// Most recipes nested through `recipe:` steps.
pub const MAX_RECIPE_NESTING: usize = 8;

/// What loading needs from the outside: budgets and where roles come from.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// YAML budgets per document.
    pub yaml: YamlLimits,
    /// Where roles are resolved from.
    pub roles: RoleSearchPath,
}

impl LoadOptions {
    /// Options for a project rooted at `root` (its `.protoflow/roles/`, the user's
    /// config directory, then the built-ins).
    pub fn for_project(root: &Path) -> Self {
        LoadOptions {
            yaml: YamlLimits::default(),
            roles: RoleSearchPath::from_env(root),
        }
    }
}

/// Which recipe to load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecipeRef {
    /// A file on disk.
    File(PathBuf),
    /// Shipped in the binary.
    Builtin(&'static Builtin),
}

impl RecipeRef {
    /// The name diagnostics show: the path as given, or `builtin:recipes/NAME.yaml`.
    pub fn display_name(&self) -> String {
        match self {
            RecipeRef::File(p) => p.display().to_string(),
            RecipeRef::Builtin(b) => format!("builtin:{}", b.path),
        }
    }

    /// Where a recipe loaded from here comes from.
    pub fn origin(&self) -> Origin {
        match self {
            RecipeRef::File(p) => Origin::File(p.clone()),
            RecipeRef::Builtin(b) => Origin::Builtin(b.name.to_string()),
        }
    }

    /// A stable identity for cycle detection.
    pub(crate) fn identity(&self) -> String {
        match self {
            RecipeRef::File(p) => std::fs::canonicalize(p)
                .unwrap_or_else(|_| p.clone())
                .display()
                .to_string(),
            RecipeRef::Builtin(b) => format!("builtin:{}", b.name),
        }
    }

    /// The directory relative references are resolved against (none for built-ins).
    fn base_dir(&self) -> Option<PathBuf> {
        match self {
            RecipeRef::File(p) => Some(p.parent().map(Path::to_path_buf).unwrap_or_default()),
            RecipeRef::Builtin(_) => None,
        }
    }

    fn bytes(&self, limits: &YamlLimits) -> Result<Vec<u8>, Diagnostic> {
        match self {
            RecipeRef::File(p) => read_capped(p, &self.display_name(), limits),
            RecipeRef::Builtin(b) => Ok(b.text.as_bytes().to_vec()),
        }
    }
}

/// Resolves a command-line argument: an existing file wins, then a built-in name.
pub fn resolve_recipe_arg(arg: &str) -> Option<RecipeRef> {
    let path = Path::new(arg);
    if path.is_file() {
        return Some(RecipeRef::File(path.to_path_buf()));
    }
    builtins::recipe(arg).map(RecipeRef::Builtin)
}

/// Resolves a reference written inside a recipe (`extends:`, a `recipe:` step): a
/// path (containing `/` or ending in `.yaml`/`.yml`) relative to the recipe's
/// directory, otherwise a built-in name.
pub fn resolve_reference(reference: &str, base_dir: Option<&Path>) -> Option<RecipeRef> {
    if looks_like_path(reference) {
        let dir = base_dir?;
        let p = dir.join(reference);
        return p.is_file().then_some(RecipeRef::File(p));
    }
    builtins::recipe(reference).map(RecipeRef::Builtin)
}

/// Whether a reference names a file rather than a built-in.
pub fn looks_like_path(reference: &str) -> bool {
    reference.contains('/') || reference.ends_with(".yaml") || reference.ends_with(".yml")
}

/// Loads, validates and resolves a recipe.
pub fn load_recipe(
    reference: &RecipeRef,
    options: &LoadOptions,
) -> Result<Arc<Recipe>, Diagnostics> {
    Loader::new(options).load(reference)
}

/// Loads a recipe from text (named `name`, references resolved against `base_dir`).
pub fn load_recipe_str(
    name: &str,
    text: &str,
    base_dir: Option<&Path>,
    options: &LoadOptions,
) -> Result<Arc<Recipe>, Diagnostics> {
    let mut loader = Loader::new(options);
    let merged = loader.merge_text(name, text.as_bytes(), base_dir, &mut Vec::new())?;
    loader.finish(
        merged,
        Origin::File(PathBuf::from(name)),
        base_dir.map(Path::to_path_buf),
    )
}

/// A recipe document after `extends`, before the semantic checks.
#[derive(Debug)]
pub(crate) struct Merged {
    pub value: Value,
    pub map: SourceMap,
}

/// Loads recipes, tracking the chain of nested recipe steps (for cycles).
#[derive(Debug)]
pub(crate) struct Loader<'o> {
    pub options: &'o LoadOptions,
    /// Identities of the recipes being loaded through `recipe:` steps.
    pub nesting: Vec<String>,
}

impl<'o> Loader<'o> {
    pub fn new(options: &'o LoadOptions) -> Self {
        Loader {
            options,
            nesting: Vec::new(),
        }
    }

    pub fn load(&mut self, reference: &RecipeRef) -> Result<Arc<Recipe>, Diagnostics> {
        let identity = reference.identity();
        let mut chain = vec![identity.clone()];
        let bytes = reference.bytes(&self.options.yaml)?;
        let merged = self.merge_text(
            &reference.display_name(),
            &bytes,
            reference.base_dir().as_deref(),
            &mut chain,
        )?;
        self.nesting.push(identity);
        let result = self.finish(merged, reference.origin(), reference.base_dir());
        self.nesting.pop();
        result
    }

    fn finish(
        &mut self,
        merged: Merged,
        origin: Origin,
        base_dir: Option<PathBuf>,
    ) -> Result<Arc<Recipe>, Diagnostics> {
        let fallback = merged
            .map
            .main()
            .unwrap_or_else(|| Source::new("<recipe>", ""));
        let document: RecipeDocument = to_typed(
            &merged.value,
            |ptr, exact| merged.map.key_exact(ptr, exact),
            &fallback,
        )?;
        check_recipe(document, &merged.map, origin, base_dir, self).map(Arc::new)
    }

    /// Parses `bytes` and applies its `extends` chain.
    fn merge_text(
        &mut self,
        name: &str,
        bytes: &[u8],
        base_dir: Option<&Path>,
        chain: &mut Vec<String>,
    ) -> Result<Merged, Diagnostics> {
        let (source, doc) = parse_value(
            name,
            bytes,
            SchemaKind::Recipe.compiled(),
            &self.options.yaml,
        )?;
        let Some(extends) = doc
            .value
            .get("extends")
            .and_then(Value::as_str)
            .map(str::to_string)
        else {
            return Ok(Merged {
                value: doc.value,
                map: SourceMap::single(source, doc.spans),
            });
        };
        let at = doc.spans.nearest("/extends").map(|s| (source.clone(), s));
        let Some(base_ref) = resolve_reference(&extends, base_dir) else {
            let help = if looks_like_path(&extends) {
                "the path is relative to this recipe's directory".to_string()
            } else {
                format!(
                    "built-in recipes: {}",
                    builtins::recipes()
                        .iter()
                        .map(|b| b.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            return Err(Diagnostic::new(
                "recipe::extends-not-found",
                format!("cannot find the recipe `{extends}` to extend"),
            )
            .at_opt(at)
            .with_label("not found")
            .with_help(help)
            .into());
        };
        let identity = base_ref.identity();
        if let Some(pos) = chain.iter().position(|c| *c == identity) {
            let mut names: Vec<String> = chain[pos..].iter().map(|c| short_name(c)).collect();
            names.push(short_name(&identity));
            return Err(Diagnostic::new(
                "recipe::extends-cycle",
                format!("recipe extends itself: {}", names.join(" -> ")),
            )
            .at_opt(at)
            .with_label("closes the cycle")
            .with_help("a recipe can extend another recipe, never itself (directly or indirectly)")
            .into());
        }
        if chain.len() >= MAX_EXTENDS_DEPTH {
            return Err(Diagnostic::new(
                "recipe::extends-too-deep",
                format!("more than {MAX_EXTENDS_DEPTH} recipes stacked through `extends`"),
            )
            .at_opt(at)
            .with_help("extend a recipe closer to what you need")
            .into());
        }
        chain.push(identity);
        let base_bytes = base_ref.bytes(&self.options.yaml)?;
        let base = self.merge_text(
            &base_ref.display_name(),
            &base_bytes,
            base_ref.base_dir().as_deref(),
            chain,
        )?;
        chain.pop();
        widened_ceiling(&base.value, &doc.value, |ptr| {
            doc.spans.nearest(ptr).map(|s| (source.clone(), s))
        })?;
        let mut map = SourceMap::default();
        let child_file = map.add_file(source, doc.spans);
        let shift = map.absorb_files(&base.map);
        let value = merge::merge_documents(
            &base.value,
            &base.map,
            shift,
            &doc.value,
            child_file,
            &mut map,
        );
        Ok(Merged { value, map })
    }
}

/// Authority only narrows, across `extends` too: a recipe may tighten its base's
/// capability ceiling, never loosen it (a capability the base does not list is not
/// narrowed by the base, so the extending recipe may set it freely).
fn widened_ceiling(
    base: &Value,
    child: &Value,
    locate: impl Fn(&str) -> Option<(Source, std::ops::Range<usize>)>,
) -> Result<(), Diagnostics> {
    let rank = |d: &str| match d {
        "deny" => 0,
        "ask" => 1,
        _ => 2,
    };
    let (Some(base_caps), Some(child_caps)) = (
        base.get("capabilities").and_then(Value::as_object),
        child.get("capabilities").and_then(Value::as_object),
    ) else {
        return Ok(());
    };
    let mut diags = Diagnostics::new();
    for (capability, decision) in child_caps {
        let (Some(wanted), Some(base_decision)) = (
            decision.as_str(),
            base_caps.get(capability).and_then(Value::as_str),
        ) else {
            continue;
        };
        if rank(wanted) > rank(base_decision) {
            let ptr = pointer_join("/capabilities", capability);
            diags.push(
                Diagnostic::new(
                    "recipe::ceiling-widened",
                    format!(
                        "`{capability}: {wanted}` would widen the extended recipe's ceiling (`{base_decision}` there)"
                    ),
                )
                .at_opt(locate(&ptr))
                .with_label("wider than the base")
                .with_help(format!(
                    "authority only narrows: use `{base_decision}` or narrower, or write a recipe that does not extend this one"
                )),
            );
        }
    }
    if diags.is_empty() { Ok(()) } else { Err(diags) }
}

/// `builtin:coding` stays; a path shows its file name.
fn short_name(identity: &str) -> String {
    if identity.starts_with("builtin:") {
        return identity.to_string();
    }
    Path::new(identity).file_name().map_or_else(
        || identity.to_string(),
        |f| f.to_string_lossy().into_owned(),
    )
}
