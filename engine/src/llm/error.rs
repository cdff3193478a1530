//! Errors of the model providers and their configuration.
//!
//! Every variant carries enough to act on (provider, model, HTTP status, a trimmed
//! response body) and a `help`. No variant may ever hold an API key: bodies are
//! trimmed and scrubbed of the configured key before they get here.

use miette::Diagnostic;
use thiserror::Error;

/// Errors from providers, the scripted double and provider configuration.
#[derive(Debug, Error, Diagnostic)]
pub enum LlmError {
    #[error("no model provider is configured\n{instructions}")]
    #[diagnostic(
        code(protoflow::llm::not_configured),
        help("configure a provider as shown above, or pass --provider")
    )]
    NotConfigured { instructions: String },

    #[error("several model providers are configured ({candidates}); none is chosen")]
    #[diagnostic(
        code(protoflow::llm::ambiguous_provider),
        help(
            "pass --provider NAME, or set \"default_provider\" in {config_path}; protoflow never picks one for you"
        )
    )]
    AmbiguousProvider {
        candidates: String,
        config_path: String,
    },

    #[error("unknown provider `{name}`")]
    #[diagnostic(
        code(protoflow::llm::unknown_provider),
        help(
            "known: {known}; a provider is a name from the config file, `openai`, `anthropic`, `ollama` or `scripted:FILE`"
        )
    )]
    UnknownProvider { name: String, known: String },

    #[error("provider `{provider}` has no model")]
    #[diagnostic(
        code(protoflow::llm::missing_model),
        help("pass --model NAME, or set \"model\" for this provider in {config_path}")
    )]
    MissingModel {
        provider: String,
        config_path: String,
    },

    #[error(
        "provider `{provider}` needs an API key in the environment variable {env_var}, which is not set"
    )]
    #[diagnostic(
        code(protoflow::llm::missing_api_key),
        help("export {env_var}=... in the environment that runs protoflow")
    )]
    MissingApiKey { provider: String, env_var: String },

    #[error("invalid provider configuration in {path}: {message}")]
    #[diagnostic(
        code(protoflow::llm::config),
        help(
            "see docs/providers.md for the format; keys are never written in the file, only the name of the variable that holds one (api_key_env)"
        )
    )]
    Config { path: String, message: String },

    #[error("invalid base URL `{url}` for provider `{provider}`: {message}")]
    #[diagnostic(
        code(protoflow::llm::base_url),
        help("use an absolute http:// or https:// URL, e.g. http://localhost:11434/v1")
    )]
    InvalidBaseUrl {
        provider: String,
        url: String,
        message: String,
    },

    #[error("{provider} ({model}) answered HTTP {status}: {body}")]
    #[diagnostic(
        code(protoflow::llm::http_status),
        help(
            "4xx other than 429 is never retried: check the model name, the request and the key's permissions"
        )
    )]
    HttpStatus {
        provider: String,
        model: String,
        status: u16,
        body: String,
    },

    #[error("could not reach {provider} ({model}): {message}")]
    #[diagnostic(
        code(protoflow::llm::transport),
        help("check that the server is running and the base URL is right")
    )]
    Transport {
        provider: String,
        model: String,
        message: String,
    },

    #[error("{provider} ({model}) did not answer within {seconds} s")]
    #[diagnostic(
        code(protoflow::llm::timeout),
        help("raise the provider's \"timeout\" in the config file, or use a faster model")
    )]
    Timeout {
        provider: String,
        model: String,
        seconds: u64,
    },

    #[error("{provider} ({model}): the stream ended before its final event ({detail})")]
    #[diagnostic(
        code(protoflow::llm::truncated_stream),
        help(
            "a truncated stream is never taken as a partial answer; the server or a proxy cut it"
        )
    )]
    TruncatedStream {
        provider: String,
        model: String,
        detail: String,
    },

    #[error("{provider} ({model}) sent an error in its stream: {message}")]
    #[diagnostic(
        code(protoflow::llm::stream_error),
        help("the server reported a failure while answering")
    )]
    StreamError {
        provider: String,
        model: String,
        message: String,
    },

    #[error("{provider} ({model}) sent a response this client cannot read: {detail}")]
    #[diagnostic(
        code(protoflow::llm::invalid_response),
        help(
            "the server does not speak the expected wire format; check the provider kind and base URL"
        )
    )]
    InvalidResponse {
        provider: String,
        model: String,
        detail: String,
    },

    #[error("{provider}: {attempts} attempts over {models} failed; last: {last}")]
    #[diagnostic(
        code(protoflow::llm::exhausted),
        help(
            "retries (429, 5xx, connection failures) and fallback models are exhausted; try again later"
        )
    )]
    Exhausted {
        provider: String,
        attempts: u32,
        models: String,
        #[source]
        last: Box<LlmError>,
    },

    #[error("the model call was cancelled")]
    #[diagnostic(code(protoflow::llm::cancelled), help("the run was stopped"))]
    Cancelled,

    #[error("scripted provider {path}: {message}")]
    #[diagnostic(
        code(protoflow::llm::script),
        help("the scripted provider is a test double; see docs/providers.md for its file format")
    )]
    Script { path: String, message: String },

    #[error(
        "scripted provider {path}: all {turns} scripted turns are used, but the model was called again"
    )]
    #[diagnostic(
        code(protoflow::llm::script_exhausted),
        help("add a turn to the script, or find why the flow made an extra model call")
    )]
    ScriptExhausted { path: String, turns: usize },

    #[error(
        "scripted provider {path}: turn {turn} expects the request to contain {expected:?}, and it does not"
    )]
    #[diagnostic(
        code(protoflow::llm::script_mismatch),
        help("the flow sent a different request than the script expects at this turn")
    )]
    ScriptMismatch {
        path: String,
        turn: usize,
        expected: String,
    },

    #[error("scripted provider {path}: turn {turn} fails as scripted: {message}")]
    #[diagnostic(
        code(protoflow::llm::scripted_error),
        help("the script asked this turn to fail (`error:`); this simulates a provider failure")
    )]
    ScriptedError {
        path: String,
        turn: usize,
        message: String,
    },
}

impl LlmError {
    /// The HTTP status this error carries, if any.
    pub fn status(&self) -> Option<u16> {
        match self {
            LlmError::HttpStatus { status, .. } => Some(*status),
            LlmError::Exhausted { last, .. } => last.status(),
            _ => None,
        }
    }
}
