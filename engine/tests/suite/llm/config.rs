//! Provider configuration: environment variables, the user config file, `--provider`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::path::Path;

use protoflow_engine::llm::{LlmError, Provider, describe_configured, resolve_provider};

/// An environment made of `pairs` only (never the real process environment).
fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |name: &str| map.get(name).cloned()
}

fn write_config(dir: &Path, text: &str) {
    std::fs::create_dir_all(dir.join("protoflow")).unwrap();
    std::fs::write(dir.join("protoflow/config.json"), text).unwrap();
}

fn resolve(
    spec: Option<&str>,
    model: Option<&str>,
    env: &impl Fn(&str) -> Option<String>,
) -> Result<Box<dyn Provider>, LlmError> {
    resolve_provider(spec, model, env)
}

#[test]
fn with_nothing_configured_the_error_says_exactly_how_to_configure_a_provider() {
    let home = tempfile::tempdir().unwrap();
    let home_text = home.path().display().to_string();
    let error = resolve(None, None, &env(&[("HOME", &home_text)])).unwrap_err();
    assert!(matches!(error, LlmError::NotConfigured { .. }), "{error:?}");
    let message = error.to_string();
    for needle in [
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_API_KEY",
        "OLLAMA_HOST",
        "--model",
        "--provider",
        "\"kind\": \"openai\"",
    ] {
        assert!(message.contains(needle), "missing {needle} in:\n{message}");
    }
    let expected_path = home.path().join(".config/protoflow/config.yaml");
    assert!(
        message.contains(&expected_path.display().to_string()),
        "the config path is named:\n{message}"
    );
}

#[test]
fn ollama_host_configures_an_openai_compatible_provider_at_v1_without_a_key() {
    let provider = resolve(
        None,
        Some("qwen2.5-coder:7b"),
        &env(&[("OLLAMA_HOST", "127.0.0.1:11500")]),
    )
    .unwrap();
    let described = provider.describe();
    assert_eq!(described.name, "ollama");
    assert_eq!(described.kind, "openai");
    assert_eq!(described.base_url, "http://127.0.0.1:11500/v1");
    assert_eq!(described.model, "qwen2.5-coder:7b");
    assert!(!described.has_api_key);
    assert!(!described.test_double);
}

#[test]
fn a_builtin_provider_without_a_model_asks_for_one() {
    let error = resolve(None, None, &env(&[("OLLAMA_HOST", "localhost")])).unwrap_err();
    assert!(matches!(error, LlmError::MissingModel { .. }), "{error:?}");
}

#[test]
fn openai_and_anthropic_come_from_their_environment_variables() {
    let openai = resolve(None, Some("gpt-x"), &env(&[("OPENAI_API_KEY", "k1")])).unwrap();
    let described = openai.describe();
    assert_eq!(described.base_url, "https://api.openai.com/v1");
    assert!(described.has_api_key);
    assert_eq!(described.api_key_env.as_deref(), Some("OPENAI_API_KEY"));

    let local = resolve(
        Some("openai"),
        Some("llama"),
        &env(&[("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1")]),
    )
    .unwrap();
    assert_eq!(local.describe().base_url, "http://127.0.0.1:8080/v1");
    assert!(!local.describe().has_api_key, "a local server needs no key");

    let anthropic = resolve(None, Some("claude-x"), &env(&[("ANTHROPIC_API_KEY", "k2")])).unwrap();
    assert_eq!(anthropic.describe().kind, "anthropic");
    assert_eq!(anthropic.describe().base_url, "https://api.anthropic.com");

    let no_key = resolve(Some("anthropic"), Some("claude-x"), &env(&[])).unwrap_err();
    assert!(
        matches!(&no_key, LlmError::MissingApiKey { env_var, .. } if env_var == "ANTHROPIC_API_KEY"),
        "{no_key:?}"
    );
}

#[test]
fn several_configured_providers_and_no_choice_is_an_error_not_a_pick() {
    let error = resolve(
        None,
        Some("m"),
        &env(&[("OPENAI_API_KEY", "k1"), ("ANTHROPIC_API_KEY", "k2")]),
    )
    .unwrap_err();
    assert!(
        matches!(error, LlmError::AmbiguousProvider { .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("openai, anthropic"));
}

#[test]
fn a_named_provider_from_the_config_file_is_resolved_with_its_settings() {
    let xdg = tempfile::tempdir().unwrap();
    write_config(
        xdg.path(),
        r#"{
          "default_provider": "local",
          "providers": {
            "local": {"kind": "openai", "base_url": "http://127.0.0.1:11434/v1", "model": "qwen",
                      "fallback_models": ["qwen-small"], "context_window": 32768, "native_tools": false, "timeout": 60},
            "claude": {"kind": "anthropic", "model": "claude-x", "api_key_env": "MY_CLAUDE_KEY"}
          }
        }"#,
    );
    let xdg_text = xdg.path().display().to_string();
    let vars = env(&[
        ("XDG_CONFIG_HOME", &xdg_text),
        ("MY_CLAUDE_KEY", "k3"),
        ("OPENAI_API_KEY", "k1"),
    ]);

    let local = resolve(None, None, &vars).unwrap().describe();
    assert_eq!(local.name, "local");
    assert_eq!(local.base_url, "http://127.0.0.1:11434/v1");
    assert_eq!(local.model, "qwen");
    assert_eq!(local.fallback_models, ["qwen-small"]);
    assert_eq!(local.context_window, Some(32768));
    assert!(
        !local.native_tools,
        "native_tools: false selects JSON action mode"
    );
    assert!(!local.has_api_key);

    let claude = resolve(Some("claude"), Some("claude-override"), &vars)
        .unwrap()
        .describe();
    assert_eq!(claude.kind, "anthropic");
    assert_eq!(
        claude.model, "claude-override",
        "--model wins over the file"
    );
    assert_eq!(claude.api_key_env.as_deref(), Some("MY_CLAUDE_KEY"));

    let listed: Vec<String> = describe_configured(&vars)
        .unwrap()
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    assert_eq!(listed, ["local", "claude", "openai"]);

    let unknown = resolve(Some("nope"), None, &vars).unwrap_err();
    assert!(matches!(unknown, LlmError::UnknownProvider { .. }));
    assert!(unknown.to_string().contains("nope"));
}

#[test]
fn a_key_written_in_the_config_file_is_refused_without_echoing_it() {
    let xdg = tempfile::tempdir().unwrap();
    write_config(
        xdg.path(),
        r#"{"providers": {"p": {"kind": "openai", "model": "m", "api_key": "sk-literal-999"}}}"#,
    );
    let xdg_text = xdg.path().display().to_string();
    let error = resolve(Some("p"), None, &env(&[("XDG_CONFIG_HOME", &xdg_text)])).unwrap_err();
    assert!(matches!(error, LlmError::Config { .. }), "{error:?}");
    assert!(error.to_string().contains("api_key_env"));
    assert!(!format!("{error} {error:?}").contains("sk-literal-999"));

    write_config(
        xdg.path(),
        r#"{"providers": {"p": {"kind": "openai", "model": "m", "api_key_env": "sk-literal-999"}}}"#,
    );
    let error = resolve(Some("p"), None, &env(&[("XDG_CONFIG_HOME", &xdg_text)])).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("NAME of an environment variable")
    );
    assert!(!format!("{error} {error:?}").contains("sk-literal-999"));
}

#[test]
fn a_yaml_config_file_is_read_and_an_invalid_one_is_an_error_not_ignored() {
    let xdg = tempfile::tempdir().unwrap();
    let dir = xdg.path().join("protoflow");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("config.yaml"),
        "# my providers\ndefault_provider: box\nproviders:\n  box:\n    kind: openai\n    base_url: http://127.0.0.1:8000/v1\n    model: coder-7b\n    native_tools: false\n",
    )
    .unwrap();
    let xdg_text = xdg.path().display().to_string();
    let vars = env(&[("XDG_CONFIG_HOME", &xdg_text), ("OPENAI_API_KEY", "k")]);
    let described = resolve(None, None, &vars).unwrap().describe();
    assert_eq!(described.name, "box");
    assert_eq!(described.model, "coder-7b");
    assert!(!described.native_tools);

    std::fs::write(dir.join("config.yaml"), "providers:\n  box: [unclosed\n").unwrap();
    let error = resolve(None, None, &vars).unwrap_err();
    assert!(matches!(error, LlmError::Config { .. }), "{error:?}");
    assert!(error.to_string().contains("config.yaml"), "{error}");
    assert!(error.to_string().contains("invalid YAML"), "{error}");
}
