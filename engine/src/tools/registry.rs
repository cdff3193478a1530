//! The tool registry: name -> executor, with each tool's compiled argument schema.
//!
//! Recipe validation checks names against the catalog; the registry is what a
//! run can actually execute. It never decides authority.

use std::collections::BTreeMap;
use std::sync::Arc;

use jsonschema::Validator;
use serde_json::Value;

use super::Tool;
use super::echo::Echo;
use super::fs::{CreateFile, EditFile, ListDirectory, ReadFile, ReplaceFile, SearchRegex};
use super::git::{GitDiff, GitStatus};
use super::process::ExecuteCommand;

struct Entry {
    tool: Arc<dyn Tool>,
    schema: Value,
    validator: Result<Arc<Validator>, String>,
}

/// The executable tools of a run, by name.
#[derive(Default)]
pub struct ToolRegistry {
    entries: BTreeMap<&'static str, Entry>,
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolRegistry")
            .field("tools", &self.entries.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl ToolRegistry {
    /// A registry with no tools.
    pub fn empty() -> ToolRegistry {
        ToolRegistry::default()
    }

    /// Every tool built into the engine: the file, process and git tools and `echo`.
    /// (`run_check` / `discover_checks` are registered by whoever wraps the checks module.)
    pub fn builtin() -> ToolRegistry {
        let mut registry = ToolRegistry::empty();
        let tools: [Arc<dyn Tool>; 10] = [
            Arc::new(ReadFile),
            Arc::new(ListDirectory),
            Arc::new(SearchRegex),
            Arc::new(EditFile),
            Arc::new(CreateFile),
            Arc::new(ReplaceFile),
            Arc::new(ExecuteCommand),
            Arc::new(GitStatus),
            Arc::new(GitDiff),
            Arc::new(Echo),
        ];
        for tool in tools {
            registry.register(tool);
        }
        registry
    }

    /// Adds (or replaces) a tool under its catalog name.
    pub fn register(&mut self, tool: Arc<dyn Tool>) {
        let schema = tool.args_schema();
        let validator = jsonschema::validator_for(&schema)
            .map(Arc::new)
            .map_err(|e| e.to_string());
        self.entries.insert(
            tool.spec().name,
            Entry {
                tool,
                schema,
                validator,
            },
        );
    }

    /// The tool registered under `name`.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.entries.get(name).map(|e| &e.tool)
    }

    /// Whether a tool is registered under `name`.
    pub fn contains(&self, name: &str) -> bool {
        self.entries.contains_key(name)
    }

    /// Registered names, sorted.
    pub fn names(&self) -> Vec<&'static str> {
        self.entries.keys().copied().collect()
    }

    /// The argument schema of a registered tool (offered to models).
    pub fn schema(&self, name: &str) -> Option<&Value> {
        self.entries.get(name).map(|e| &e.schema)
    }

    /// Checks `args` against the tool's schema: `Ok(())`, or the list of problems.
    pub fn validate_args(&self, name: &str, args: &Value) -> Result<(), Vec<String>> {
        let Some(entry) = self.entries.get(name) else {
            return Err(vec![format!("`{name}` is not registered")]);
        };
        let validator = entry
            .validator
            .as_ref()
            .map_err(|e| vec![format!("the tool's own schema is invalid: {e}")])?;
        let problems: Vec<String> = validator
            .iter_errors(args)
            .map(|e| {
                let at = e.instance_path().to_string();
                if at.is_empty() {
                    e.to_string()
                } else {
                    format!("{at}: {e}")
                }
            })
            .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_tools_are_in_the_catalog_with_valid_schemas() {
        let registry = ToolRegistry::builtin();
        assert_eq!(registry.names().len(), 10);
        for name in registry.names() {
            assert!(super::super::lookup(name).is_some(), "{name}");
            assert!(registry.entries[name].validator.is_ok(), "{name}");
        }
    }

    #[test]
    fn schemas_reject_unknown_and_missing_fields() {
        let registry = ToolRegistry::builtin();
        assert!(
            registry
                .validate_args("read_file", &serde_json::json!({"path": "a"}))
                .is_ok()
        );
        assert!(
            registry
                .validate_args("read_file", &serde_json::json!({}))
                .is_err()
        );
        assert!(
            registry
                .validate_args("read_file", &serde_json::json!({"path": "a", "lines": 3}))
                .is_err()
        );
        assert!(
            registry
                .validate_args(
                    "execute_command",
                    &serde_json::json!({"argv": ["ls"], "timeout_seconds": 601})
                )
                .is_err()
        );
    }
}
