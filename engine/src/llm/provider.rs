//! The `Provider` trait every model backend implements, and what a provider says
//! about itself (for `protoflow doctor`).
//!
//! This module owns the contract only. It must never hold a key in anything it
//! returns: `describe()` is printed to terminals and reports.

use async_trait::async_trait;
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use super::error::LlmError;
use super::message::{Attempt, ChatRequest, ChatResponse, RequestSize};

/// Receives every attempt of a model call as it ends, so the run budget can charge it
/// (including attempts that failed and were retried or fell back).
pub trait AttemptObserver: Send + Sync {
    fn attempt(&self, attempt: &Attempt);
}

/// An observer that ignores attempts (they are still listed in `ChatResponse::attempts`).
#[derive(Debug, Clone, Copy, Default)]
pub struct IgnoreAttempts;

impl AttemptObserver for IgnoreAttempts {
    fn attempt(&self, _attempt: &Attempt) {}
}

impl<F> AttemptObserver for F
where
    F: Fn(&Attempt) + Send + Sync,
{
    fn attempt(&self, attempt: &Attempt) {
        self(attempt)
    }
}

/// What a provider is, for diagnostics. Never contains a key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProviderDescription {
    /// The provider's name (config name, or `openai` / `anthropic` / `ollama` / `scripted`).
    pub name: String,
    /// Wire kind: `openai` (Chat Completions), `anthropic` (Messages) or `scripted`.
    pub kind: String,
    /// Base URL (or the script's path for the scripted double).
    pub base_url: String,
    /// The model asked when a request names none.
    pub model: String,
    /// Fallback models, tried in order after the model's retries are exhausted.
    pub fallback_models: Vec<String>,
    /// `true`: native tool calling; `false`: JSON action mode.
    pub native_tools: bool,
    /// Whether a key is configured (the key itself is never shown).
    pub has_api_key: bool,
    /// The name of the environment variable the key comes from, if any.
    pub api_key_env: Option<String>,
    /// The model's context window, when configured.
    pub context_window: Option<u32>,
    /// `true` only for the scripted test double.
    pub test_double: bool,
}

/// A model backend. Dyn-compatible: the engine holds `Box<dyn Provider>`.
#[async_trait]
pub trait Provider: Send + Sync + std::fmt::Debug {
    /// The provider's name.
    fn name(&self) -> &str;

    /// What this provider is (for `protoflow doctor`); never includes a key.
    fn describe(&self) -> ProviderDescription;

    /// The size `request` would have on the wire (for context admission before a call).
    fn measure(&self, request: &ChatRequest) -> RequestSize;

    /// Performs one model call, with retries and fallbacks as configured, reporting
    /// every attempt to `observer` as it ends.
    async fn complete_observed(
        &self,
        request: &ChatRequest,
        cancel: CancellationToken,
        observer: &dyn AttemptObserver,
    ) -> Result<ChatResponse, LlmError>;

    /// Performs one model call; attempts are listed in the response only.
    async fn complete(
        &self,
        request: &ChatRequest,
        cancel: CancellationToken,
    ) -> Result<ChatResponse, LlmError> {
        self.complete_observed(request, cancel, &IgnoreAttempts)
            .await
    }
}
