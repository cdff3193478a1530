//! `ask_user(question, options)`: ask the person running the flow. The answer
//! comes from an [`Asker`] (the CLI's terminal prompt); a headless run has no one
//! to ask and says so, so the caller continues or stops as its recipe says.

use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{output, payload, prepared};
use crate::tools::args::{builtin_spec, parse_args, schema_of};
use crate::tools::{PreparedCall, Tool, ToolContext, ToolError, ToolOutput, ToolSpec};

const NAME: &str = "ask_user";

/// A question for the person running the flow.
#[derive(Debug, Clone, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Question {
    /// The question, self-contained.
    pub question: String,
    /// Suggested answers (the person may still answer freely).
    #[serde(default)]
    pub options: Vec<String>,
}

/// Answers questions. Must never block without bound.
#[async_trait]
pub trait Asker: Send + Sync + std::fmt::Debug {
    /// The answer, or `None` when no one can answer.
    async fn ask(&self, question: &Question) -> Option<String>;
}

/// No one to ask: every question goes unanswered.
#[derive(Debug, Default, Clone, Copy)]
pub struct HeadlessAsker;

#[async_trait]
impl Asker for HeadlessAsker {
    async fn ask(&self, _question: &Question) -> Option<String> {
        None
    }
}

/// The `ask_user` tool over an [`Asker`].
#[derive(Debug, Clone)]
pub struct AskUser {
    asker: Arc<dyn Asker>,
}

impl AskUser {
    /// The tool with `asker` answering.
    pub fn new(asker: Arc<dyn Asker>) -> AskUser {
        AskUser { asker }
    }
}

#[async_trait]
impl Tool for AskUser {
    fn spec(&self) -> &'static ToolSpec {
        builtin_spec(NAME)
    }

    fn args_schema(&self) -> Value {
        schema_of::<Question>()
    }

    async fn prepare(&self, _ctx: &ToolContext, args: Value) -> Result<PreparedCall, ToolError> {
        let question: Question = parse_args(NAME, args.clone())?;
        let summary = format!("ask: {}", question.question);
        Ok(prepared(NAME, args, summary, question))
    }

    async fn execute(
        &self,
        ctx: &ToolContext,
        call: PreparedCall,
    ) -> Result<ToolOutput, ToolError> {
        let question: Question = payload(NAME, call)?;
        let answer = tokio::select! {
            answer = self.asker.ask(&question) => answer,
            () = ctx.cancel.cancelled() => return Err(ToolError::Canceled(NAME.into())),
        };
        let value = match &answer {
            Some(text) => json!({"answered": true, "answer": text}),
            None => json!({
                "answered": false,
                "answer": null,
                "note": "no one can answer (a headless run): continue with the most conservative reading of the task, or stop and say what is missing"
            }),
        };
        Ok(output(value, json!({"answered": answer.is_some()})))
    }
}
