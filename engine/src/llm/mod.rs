//! Model providers: the provider-neutral conversation types, the [`Provider`] trait,
//! the OpenAI-compatible and Anthropic HTTP providers (streaming, retries, fallback
//! models), JSON action mode for models without native tool calling, the scripted
//! TEST DOUBLE, and provider configuration.
//!
//! This module owns talking to models. It must never run tools, decide policy, count
//! a run's budget (it reports every attempt so the caller can), or know a role's or
//! a flow's name. No key ever leaves it: keys live in [`ApiKey`], never in Debug
//! output, errors, attempts or [`ProviderDescription`].
//!
//! Typical use by the agent loop:
//! ```no_run
//! # async fn demo() -> Result<(), protoflow_engine::llm::LlmError> {
//! use protoflow_engine::llm::{resolve_provider, ChatRequest, Message};
//! use tokio_util::sync::CancellationToken;
//! let provider = resolve_provider(None, None, &|name| std::env::var(name).ok())?;
//! let request = ChatRequest::new(vec![Message::user("hello")], 1024);
//! let response = provider.complete(&request, CancellationToken::new()).await?;
//! println!("{} ({} attempts)", response.text, response.attempts.len());
//! # Ok(()) }
//! ```

mod action;
mod anthropic;
mod config;
mod error;
mod http;
mod key;
mod message;
mod openai;
mod probe;
mod provider;
mod retry;
mod scripted;
mod sse;

pub use action::{Action, JsonActionProvider, action_instructions, parse_action};
pub use anthropic::ANTHROPIC_VERSION;
pub use config::{
    ConfiguredProvider, ProviderConfig, ProviderKind, UserConfig, build_http_provider, config_dir,
    config_file, describe_configured, ollama_base_url, resolve_provider, resolve_with_config,
};
pub use error::LlmError;
pub use http::HttpSettings;
pub use key::ApiKey;
pub use message::{
    Attempt, AttemptNext, ChatRequest, ChatResponse, Message, RequestSize, StopReason,
    ToolArguments, ToolCall, ToolDeclaration, Usage, estimate_tokens,
};
pub use probe::{Reachability, models_url, probe};
pub use provider::{AttemptObserver, IgnoreAttempts, Provider, ProviderDescription};
pub use retry::RetryPolicy;
pub use scripted::{ScriptOrder, ScriptedCall, ScriptedProvider, ScriptedTurn};
