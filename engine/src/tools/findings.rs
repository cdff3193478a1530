//! Findings tools: `parse_findings`, `merge_findings` and `render_report` expose the
//! findings mechanism (tolerant parsing, grounding and dedup, rendering) to recipes.
//!
//! They are pure computations over JSON (no capability, no effect); the work is the
//! findings module's. This file only adapts it to the `Tool` trait.

use async_trait::async_trait;
use serde_json::{Value, json};

use super::args::builtin_spec;
use super::{PreparedCall, Preview, Tool, ToolContext, ToolError, ToolOutput, ToolSpec};
use crate::evidence::ReceiptFacts;
use crate::findings::{
    FindingsError, merge_findings_json, parse_findings_json, render_report_json,
};

type JsonFn = fn(&Value) -> Result<Value, FindingsError>;

/// One findings function as a tool.
#[derive(Debug, Clone, Copy)]
pub struct FindingsTool {
    name: &'static str,
    function: JsonFn,
    summary: &'static str,
}

impl FindingsTool {
    /// `parse_findings({text, source?, extra_categories?})`.
    pub fn parse() -> Self {
        FindingsTool {
            name: "parse_findings",
            function: parse_findings_json,
            summary: "parse findings from model text",
        }
    }

    /// `merge_findings({parsed?, findings?, diff?, files?, prior?, ungrounded?, ...})`.
    pub fn merge() -> Self {
        FindingsTool {
            name: "merge_findings",
            function: merge_findings_json,
            summary: "ground, deduplicate and merge findings",
        }
    }

    /// `render_report({format, report? | merge outcome, verdicts?, coverage?, ...})`.
    pub fn render() -> Self {
        FindingsTool {
            name: "render_report",
            function: render_report_json,
            summary: "render a findings report",
        }
    }
}

#[async_trait]
impl Tool for FindingsTool {
    fn spec(&self) -> &'static ToolSpec {
        builtin_spec(self.name)
    }

    fn args_schema(&self) -> Value {
        // The findings functions check their own argument shapes and say precisely
        // what is wrong; the registry only needs to know it is an object.
        json!({"type": "object"})
    }

    async fn prepare(&self, _ctx: &ToolContext, args: Value) -> Result<PreparedCall, ToolError> {
        Ok(PreparedCall {
            tool: self.name,
            args,
            preview: Preview {
                summary: self.summary.to_string(),
                detail: None,
            },
            payload: Box::new(()),
        })
    }

    async fn execute(
        &self,
        _ctx: &ToolContext,
        call: PreparedCall,
    ) -> Result<ToolOutput, ToolError> {
        let value = (self.function)(&call.args).map_err(|e| ToolError::InvalidArguments {
            tool: self.name.to_string(),
            reason: e.to_string(),
        })?;
        Ok(ToolOutput {
            facts: ReceiptFacts {
                output_bytes: value.to_string().len() as u64,
                ..ReceiptFacts::default()
            },
            value,
        })
    }
}
