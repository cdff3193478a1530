//! Provider configuration: the user config file, the usual environment variables,
//! and the resolver that turns `--provider` / `--model` into a [`Provider`].
//!
//! Sources, in this order of authority:
//! 1. `--provider` (a config name, `openai`, `anthropic`, `ollama`, or `scripted:FILE`)
//!    and `--model`;
//! 2. the user config file `$XDG_CONFIG_HOME/protoflow/config.{yaml,yml,json}`
//!    (else `~/.config/protoflow/...`), with named providers and `default_provider`;
//! 3. `OPENAI_API_KEY`, `OPENAI_BASE_URL`, `ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`,
//!    `OLLAMA_HOST` (an OpenAI-compatible provider at `{host}/v1`, no key).
//!
//! This module must never silently fall back: with nothing configured, or several
//! candidates and no choice, it fails with instructions; it never picks the scripted
//! double unless asked by `scripted:FILE`. Keys are read from the environment variable
//! a provider names (`api_key_env`), never from the file, and never shown.
//!
//! `config.yaml` / `config.yml` are read as YAML (with the recipe loader), `config.json` as
//! JSON. [`UserConfig::from_value`] takes any `serde_json::Value`, so another loader
//! (e.g. one with source spans) only has to produce one.

use std::path::{Path, PathBuf};
use std::time::Duration;

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;

use super::action::JsonActionProvider;
use super::anthropic::AnthropicProvider;
use super::error::LlmError;
use super::http::HttpSettings;
use super::key::ApiKey;
use super::openai::OpenAiProvider;
use super::provider::{Provider, ProviderDescription};
use super::retry::RetryPolicy;
use super::scripted::ScriptedProvider;

/// The default OpenAI base URL.
pub const OPENAI_DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
/// The default Anthropic base URL.
pub const ANTHROPIC_DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// The Ollama host used by `--provider ollama` when `OLLAMA_HOST` is unset.
pub const OLLAMA_DEFAULT_HOST: &str = "http://127.0.0.1:11434";
/// Default whole-request timeout.
pub const DEFAULT_TIMEOUT_SECS: u64 = 300;

/// The wire format of a provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    /// OpenAI-compatible Chat Completions (OpenAI, Ollama, vLLM, llama.cpp, LM Studio, OpenRouter).
    Openai,
    /// Anthropic Messages.
    Anthropic,
}

/// The user config file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserConfig {
    /// The provider used when `--provider` is not given.
    #[serde(default)]
    pub default_provider: Option<String>,
    /// Named providers.
    #[serde(default)]
    pub providers: IndexMap<String, ProviderConfig>,
}

/// One named provider in the config file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderConfig {
    pub kind: ProviderKind,
    /// Default: OpenAI's or Anthropic's public API.
    #[serde(default)]
    pub base_url: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    /// The NAME of the environment variable holding the key (never the key).
    /// Default: `ANTHROPIC_API_KEY` for anthropic, `OPENAI_API_KEY` for openai at
    /// OpenAI's own URL, none otherwise (local servers need no key).
    #[serde(default)]
    pub api_key_env: Option<String>,
    #[serde(default)]
    pub fallback_models: Vec<String>,
    #[serde(default)]
    pub context_window: Option<u32>,
    /// `false` selects JSON action mode (tools described in the prompt).
    #[serde(default)]
    pub native_tools: Option<bool>,
    /// Whole-request timeout in seconds (default 300).
    #[serde(default)]
    pub timeout: Option<u64>,
    /// Retries per model on 429 / 5xx / connection failures (default 2).
    #[serde(default)]
    pub max_retries: Option<u32>,
}

impl UserConfig {
    /// Reads a config from a parsed document; `label` names it in errors.
    pub fn from_value(label: &str, value: Value) -> Result<Self, LlmError> {
        if let Some(providers) = value.get("providers").and_then(Value::as_object) {
            for (name, provider) in providers {
                if provider.get("api_key").is_some() || provider.get("key").is_some() {
                    return Err(LlmError::Config {
                        path: label.to_string(),
                        message: format!(
                            "provider `{name}` has a key written in the file; remove it and set \"api_key_env\" to the name of an environment variable that holds the key"
                        ),
                    });
                }
            }
        }
        serde_json::from_value(value).map_err(|e| LlmError::Config {
            path: label.to_string(),
            message: e.to_string(),
        })
    }

    /// Reads a config file.
    pub fn load(path: &Path) -> Result<Self, LlmError> {
        let label = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| LlmError::Config {
            path: label.clone(),
            message: format!("cannot read: {e}"),
        })?;
        let value = read_document(path, &text).map_err(|message| LlmError::Config {
            path: label.clone(),
            message,
        })?;
        Self::from_value(&label, value)
    }
}

/// Parses a YAML or JSON document (by extension: `.json` is JSON, anything else YAML).
pub(crate) fn read_document(path: &Path, text: &str) -> Result<Value, String> {
    if path.extension().is_some_and(|e| e == "json") {
        serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}"))
    } else {
        // The project's own YAML loader: the same budgets (alias bombs, depth,
        // size) and YAML 1.2 scalars as recipes.
        let name = path.display().to_string();
        crate::recipe::yaml::load_yaml(&name, text.as_bytes(), &Default::default())
            .map(|(_, doc)| doc.value)
            .map_err(|diagnostics| format!("invalid YAML: {diagnostics}"))
    }
}

/// The directory of the user config: `$XDG_CONFIG_HOME/protoflow`, else `~/.config/protoflow`.
pub fn config_dir(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let absolute = |v: String| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    env("XDG_CONFIG_HOME")
        .and_then(absolute)
        .or_else(|| {
            env("HOME")
                .and_then(absolute)
                .map(|home| home.join(".config"))
        })
        .map(|dir| dir.join("protoflow"))
}

/// The existing config file, if any (`config.yaml`, `config.yml`, then `config.json`).
pub fn config_file(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let dir = config_dir(env)?;
    ["config.yaml", "config.yml", "config.json"]
        .iter()
        .map(|name| dir.join(name))
        .find(|path| path.is_file())
}

/// Where the config file is or would be, for messages.
fn config_path_text(env: &dyn Fn(&str) -> Option<String>) -> String {
    config_file(env)
        .or_else(|| config_dir(env).map(|d| d.join("config.yaml")))
        .map_or_else(
            || "$XDG_CONFIG_HOME/protoflow/config.yaml".to_string(),
            |p| p.display().to_string(),
        )
}

fn instructions(config_path: &str) -> String {
    format!(
        "Configure one of:\n\
         \x20 - OpenAI:    export OPENAI_API_KEY=...   (and OPENAI_BASE_URL=... for another OpenAI-compatible server)\n\
         \x20 - Anthropic: export ANTHROPIC_API_KEY=...\n\
         \x20 - Ollama:    export OLLAMA_HOST=http://127.0.0.1:11434   (local, no key)\n\
         and pass --model NAME; or write {config_path}, for example:\n\
         \x20 {{\"default_provider\": \"local\",\n\
         \x20  \"providers\": {{\"local\": {{\"kind\": \"openai\", \"base_url\": \"http://127.0.0.1:11434/v1\", \"model\": \"qwen2.5-coder:7b\"}},\n\
         \x20                \"claude\": {{\"kind\": \"anthropic\", \"model\": \"claude-sonnet-4-5\", \"api_key_env\": \"ANTHROPIC_API_KEY\"}}}}}}\n\
         then choose with --provider NAME (or --provider scripted:FILE for a test script)."
    )
}

/// Resolves `--provider` / `--model` to a provider, reading the user config file and
/// the environment through `env`. Never falls back silently; see the module docs.
pub fn resolve_provider(
    spec: Option<&str>,
    model_override: Option<&str>,
    env: &impl Fn(&str) -> Option<String>,
) -> Result<Box<dyn Provider>, LlmError> {
    let env: &dyn Fn(&str) -> Option<String> = env;
    let config = match config_file(env) {
        Some(path) => UserConfig::load(&path)?,
        None => UserConfig::default(),
    };
    resolve_with_config(&config, spec, model_override, env)
}

/// [`resolve_provider`] with an already loaded config (e.g. from the project's YAML loader).
pub fn resolve_with_config(
    config: &UserConfig,
    spec: Option<&str>,
    model_override: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Box<dyn Provider>, LlmError> {
    let config_path = config_path_text(env);
    let name = match spec {
        Some(spec) => spec.to_string(),
        None => choose(config, env, &config_path)?,
    };
    if let Some(path) = name.strip_prefix("scripted:") {
        return Ok(Box::new(ScriptedProvider::from_file(Path::new(path))?));
    }
    if let Some(provider) = config.providers.get(&name) {
        return build_named(&name, provider, model_override, env, &config_path);
    }
    let builtin = builtin(&name, env).ok_or_else(|| LlmError::UnknownProvider {
        name: name.clone(),
        known: known_names(config).join(", "),
    })?;
    build_named(&name, &builtin, model_override, env, &config_path)
}

/// A configured provider's name and its description, or why it cannot be built.
pub type ConfiguredProvider = (String, Result<ProviderDescription, LlmError>);

/// The providers `protoflow doctor` should report: each configured name with its
/// description, or the error that resolving it gives. Keys are never included.
pub fn describe_configured(
    env: &impl Fn(&str) -> Option<String>,
) -> Result<Vec<ConfiguredProvider>, LlmError> {
    let env: &dyn Fn(&str) -> Option<String> = env;
    let config = match config_file(env) {
        Some(path) => UserConfig::load(&path)?,
        None => UserConfig::default(),
    };
    Ok(candidates(&config, env)
        .into_iter()
        .map(|name| {
            let described =
                resolve_with_config(&config, Some(&name), None, env).map(|p| p.describe());
            (name, described)
        })
        .collect())
}

fn known_names(config: &UserConfig) -> Vec<String> {
    let mut names: Vec<String> = config.providers.keys().cloned().collect();
    for builtin in ["openai", "anthropic", "ollama"] {
        if !names.iter().any(|n| n == builtin) {
            names.push(builtin.to_string());
        }
    }
    names.push("scripted:FILE".into());
    names
}

/// Every provider that is configured (config names, then env-configured built-ins).
fn candidates(config: &UserConfig, env: &dyn Fn(&str) -> Option<String>) -> Vec<String> {
    let mut names: Vec<String> = config.providers.keys().cloned().collect();
    let set = |var: &str| env(var).is_some_and(|v| !v.trim().is_empty());
    let builtins = [
        ("openai", set("OPENAI_API_KEY") || set("OPENAI_BASE_URL")),
        ("anthropic", set("ANTHROPIC_API_KEY")),
        ("ollama", set("OLLAMA_HOST")),
    ];
    for (name, configured) in builtins {
        if configured && !names.iter().any(|n| n == name) {
            names.push(name.to_string());
        }
    }
    names
}

fn choose(
    config: &UserConfig,
    env: &dyn Fn(&str) -> Option<String>,
    config_path: &str,
) -> Result<String, LlmError> {
    if let Some(default) = &config.default_provider {
        return Ok(default.clone());
    }
    let mut candidates = candidates(config, env);
    match candidates.len() {
        0 => Err(LlmError::NotConfigured {
            instructions: instructions(config_path),
        }),
        1 => Ok(candidates.remove(0)),
        _ => Err(LlmError::AmbiguousProvider {
            candidates: candidates.join(", "),
            config_path: config_path.to_string(),
        }),
    }
}

/// The built-in providers configured from the environment.
fn builtin(name: &str, env: &dyn Fn(&str) -> Option<String>) -> Option<ProviderConfig> {
    let base = |kind, base_url: Option<String>, api_key_env: Option<&str>| ProviderConfig {
        kind,
        base_url,
        model: None,
        api_key_env: api_key_env.map(str::to_string),
        fallback_models: Vec::new(),
        context_window: None,
        native_tools: None,
        timeout: None,
        max_retries: None,
    };
    let non_empty = |var: &str| env(var).filter(|v| !v.trim().is_empty());
    match name {
        "openai" => {
            let base_url = non_empty("OPENAI_BASE_URL");
            // A custom OpenAI-compatible server may need no key; OpenAI itself does.
            let key_env = if base_url.is_none() || non_empty("OPENAI_API_KEY").is_some() {
                Some("OPENAI_API_KEY")
            } else {
                None
            };
            Some(base(ProviderKind::Openai, base_url, key_env))
        }
        "anthropic" => Some(base(
            ProviderKind::Anthropic,
            non_empty("ANTHROPIC_BASE_URL"),
            Some("ANTHROPIC_API_KEY"),
        )),
        "ollama" => {
            let host = non_empty("OLLAMA_HOST").unwrap_or_else(|| OLLAMA_DEFAULT_HOST.to_string());
            Some(base(
                ProviderKind::Openai,
                Some(ollama_base_url(&host)),
                None,
            ))
        }
        _ => None,
    }
}

/// `{host}/v1` for an `OLLAMA_HOST` value (`host`, `host:port` or a URL; port 11434
/// when absent; `0.0.0.0`, a bind address, means the local machine).
pub fn ollama_base_url(host: &str) -> String {
    let host = host.trim().trim_end_matches('/');
    let (scheme, rest) = match host.split_once("://") {
        Some((scheme, rest)) => (scheme, rest),
        None => ("http", host),
    };
    let (authority, path) = match rest.split_once('/') {
        Some((authority, path)) => (authority, format!("/{path}")),
        None => (rest, String::new()),
    };
    let authority = authority.replacen("0.0.0.0", "127.0.0.1", 1);
    let has_port = authority
        .rsplit_once(':')
        .is_some_and(|(_, port)| !port.is_empty() && port.chars().all(|c| c.is_ascii_digit()))
        && !authority.ends_with(']');
    let authority = if has_port {
        authority
    } else {
        format!("{authority}:11434")
    };
    format!("{scheme}://{authority}{path}/v1")
}

fn valid_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name.len() <= 128
}

fn build_named(
    name: &str,
    config: &ProviderConfig,
    model_override: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
    config_path: &str,
) -> Result<Box<dyn Provider>, LlmError> {
    let model = model_override
        .map(str::to_string)
        .or_else(|| config.model.clone())
        .filter(|m| !m.trim().is_empty())
        .ok_or_else(|| LlmError::MissingModel {
            provider: name.to_string(),
            config_path: config_path.to_string(),
        })?;
    let default_base = match config.kind {
        ProviderKind::Openai => OPENAI_DEFAULT_BASE_URL,
        ProviderKind::Anthropic => ANTHROPIC_DEFAULT_BASE_URL,
    };
    let base_url = config
        .base_url
        .clone()
        .unwrap_or_else(|| default_base.to_string());
    let key_env = config.api_key_env.clone().or_else(|| match config.kind {
        ProviderKind::Anthropic => Some("ANTHROPIC_API_KEY".to_string()),
        ProviderKind::Openai if base_url.trim_end_matches('/') == OPENAI_DEFAULT_BASE_URL => {
            Some("OPENAI_API_KEY".to_string())
        }
        ProviderKind::Openai => None,
    });
    let api_key = match &key_env {
        Some(var) if !valid_env_name(var) => {
            // The value is not echoed: it might be a key pasted in by mistake.
            return Err(LlmError::Config {
                path: config_path.to_string(),
                message: format!(
                    "provider `{name}`: api_key_env must be the NAME of an environment variable (letters, digits, _), not a key"
                ),
            });
        }
        Some(var) => match env(var).filter(|v| !v.trim().is_empty()) {
            Some(key) => Some(ApiKey::new(key.trim())),
            None => {
                return Err(LlmError::MissingApiKey {
                    provider: name.to_string(),
                    env_var: var.clone(),
                });
            }
        },
        None => None,
    };
    let mut retry = RetryPolicy::default();
    if let Some(max_retries) = config.max_retries {
        retry.max_retries = max_retries;
    }
    let settings = HttpSettings {
        name: name.to_string(),
        base_url,
        model,
        fallback_models: config.fallback_models.clone(),
        api_key,
        api_key_env: key_env,
        timeout: Duration::from_secs(config.timeout.unwrap_or(DEFAULT_TIMEOUT_SECS).max(1)),
        retry,
        context_window: config.context_window,
    };
    build_http_provider(config.kind, settings, config.native_tools.unwrap_or(true))
}

/// Builds an HTTP provider of `kind`; `native_tools: false` wraps it in JSON action mode.
pub fn build_http_provider(
    kind: ProviderKind,
    settings: HttpSettings,
    native_tools: bool,
) -> Result<Box<dyn Provider>, LlmError> {
    let provider: Box<dyn Provider> = match kind {
        ProviderKind::Openai => Box::new(OpenAiProvider::build(settings)?),
        ProviderKind::Anthropic => Box::new(AnthropicProvider::build(settings)?),
    };
    Ok(if native_tools {
        provider
    } else {
        Box::new(JsonActionProvider::new(provider))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ollama_host_forms_become_a_v1_base_url() {
        assert_eq!(ollama_base_url("127.0.0.1"), "http://127.0.0.1:11434/v1");
        assert_eq!(ollama_base_url("0.0.0.0:8080"), "http://127.0.0.1:8080/v1");
        assert_eq!(
            ollama_base_url("https://gpu.lan:443/"),
            "https://gpu.lan:443/v1"
        );
        assert_eq!(ollama_base_url("http://[::1]"), "http://[::1]:11434/v1");
        assert_eq!(ollama_base_url("http://[::1]:9"), "http://[::1]:9/v1");
    }

    #[test]
    fn env_names_are_names_not_keys() {
        assert!(valid_env_name("OPENAI_API_KEY"));
        assert!(!valid_env_name("sk-abc123"));
        assert!(!valid_env_name(""));
    }
}
