//! `discover_checks()`: the project's configured or discovered checks, and why.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};

use crate::checks::{CheckSpec, Discovery};
use crate::evidence::ReceiptFacts;
use crate::tools::args::builtin_spec;
use crate::tools::{PreparedCall, Preview, Tool, ToolContext, ToolError, ToolOutput, ToolSpec};

const NAME: &str = "discover_checks";

/// The `discover_checks` tool, over the run's frozen discovery.
#[derive(Debug, Clone)]
pub struct DiscoverChecks {
    discovery: Arc<Discovery>,
}

impl DiscoverChecks {
    /// The tool for one run's discovery.
    pub fn new(discovery: Arc<Discovery>) -> Self {
        DiscoverChecks { discovery }
    }
}

/// One check as callers see it: enough to choose and run it, not its file listing.
pub(super) fn check_summary(check: &CheckSpec) -> Value {
    json!({
        "id": check.id,
        "argv": check.argv,
        "cwd": check.cwd,
        "kind": check.kind,
        "purpose": check.purpose,
        "source": check.source.label(),
        "reason": check.source.describe(),
        "dependency_files": check.paths.files.len(),
        "dependency_files_truncated": check.paths.truncated,
    })
}

#[async_trait]
impl Tool for DiscoverChecks {
    fn spec(&self) -> &'static ToolSpec {
        builtin_spec(NAME)
    }

    fn args_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {},
            "additionalProperties": false,
            "description": "No arguments: lists the checks resolved when the run started."
        })
    }

    async fn prepare(&self, _ctx: &ToolContext, args: Value) -> Result<PreparedCall, ToolError> {
        if args.as_object().is_some_and(|a| !a.is_empty()) {
            return Err(ToolError::InvalidArguments {
                tool: NAME.to_string(),
                reason: "discover_checks takes no arguments".to_string(),
            });
        }
        Ok(PreparedCall {
            tool: NAME,
            args,
            preview: Preview {
                summary: "list the project's checks".to_string(),
                detail: None,
            },
            payload: Box::new(()),
        })
    }

    async fn execute(
        &self,
        _ctx: &ToolContext,
        _call: PreparedCall,
    ) -> Result<ToolOutput, ToolError> {
        let discovery = &self.discovery;
        let value = json!({
            "config_file": discovery.config_file,
            "checks": discovery.checks.iter().map(check_summary).collect::<Vec<_>>(),
            "ids": discovery.checks.ids().collect::<Vec<_>>(),
            "notes": discovery.notes,
            "skipped": discovery.skipped,
        });
        Ok(ToolOutput {
            facts: ReceiptFacts {
                output_bytes: value.to_string().len() as u64,
                detail: json!({"checks": discovery.checks.len()}),
                ..ReceiptFacts::default()
            },
            value,
        })
    }
}
