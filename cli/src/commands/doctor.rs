//! `protoflow doctor [--model MODEL] [--json] [--timeout SECS]`
//!
//! Reports the configured model providers: kind, base URL, model, fallbacks, native
//! tool calling or JSON action mode, whether a key is set (by the NAME of its
//! variable, never its value), and whether the server is reachable (one GET of its
//! model list, bounded by the timeout) and lists the model. Exit 0 when every
//! configured provider resolves and answers; 1 otherwise; 2 for an unreadable
//! config file.

use std::time::Duration;

use clap::Args;
use protoflow_engine::llm::{self, ProviderDescription, Reachability};
use serde::Serialize;

use crate::exit;
use crate::output::out;

/// Check the model provider configuration.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Print the findings as JSON.
    #[arg(long)]
    pub json: bool,
    /// Check this model on every provider (environment-configured providers have
    /// no model of their own).
    #[arg(long, value_name = "MODEL")]
    pub model: Option<String>,
    /// Seconds to wait for each provider's server.
    #[arg(long, default_value_t = 5, value_name = "SECS")]
    pub timeout: u64,
}

#[derive(Debug, Serialize)]
struct Finding {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    provider: Option<ProviderDescription>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reachability: Option<Reachability>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

fn line(f: &Finding) -> String {
    let Some(p) = &f.provider else {
        return format!(
            "✗ {}: {}",
            f.name,
            f.error.as_deref().unwrap_or("cannot be used")
        );
    };
    let mode = if p.native_tools {
        "native tool calls"
    } else {
        "JSON action mode"
    };
    let key = match (&p.api_key_env, p.has_api_key) {
        (Some(var), true) => format!("key from {var}"),
        (Some(var), false) => format!("no key ({var} is not set)"),
        (None, _) => "no key".to_string(),
    };
    let mut text = format!(
        "{} {} ({}): {} at {}, {mode}, {key}",
        if f.reachability.as_ref().is_none_or(|r| r.reachable) {
            "✓"
        } else {
            "✗"
        },
        f.name,
        p.kind,
        p.model,
        p.base_url
    );
    if !p.fallback_models.is_empty() {
        text.push_str(&format!(", fallbacks: {}", p.fallback_models.join(", ")));
    }
    if let Some(window) = p.context_window {
        text.push_str(&format!(", context window {window}"));
    }
    if p.test_double {
        text.push_str(" [TEST DOUBLE]");
    }
    if let Some(r) = &f.reachability {
        match (r.status, &r.error) {
            (Some(status), _) => {
                text.push_str(&format!(
                    "\n    reachable: HTTP {status} from {} in {} ms",
                    r.url, r.elapsed_ms
                ));
                match r.model_listed {
                    Some(true) => text.push_str(&format!("; model `{}` is listed", p.model)),
                    Some(false) => text.push_str(&format!("; model `{}` is NOT listed", p.model)),
                    None => text.push_str("; model list not readable without a key"),
                }
            }
            (None, Some(error)) => {
                text.push_str(&format!("\n    not reachable: {error} ({})", r.url))
            }
            (None, None) => {}
        }
    }
    text
}

/// Runs the command; returns the exit code.
pub fn run(args: &DoctorArgs) -> u8 {
    let env = |name: &str| std::env::var(name).ok();
    let configured = match llm::describe_configured(&env) {
        Ok(configured) => configured,
        Err(e) => {
            eprintln!("error: {e}");
            return exit::INVALID;
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return exit::INTERNAL;
        }
    };
    let timeout = Duration::from_secs(args.timeout.clamp(1, 120));
    let findings: Vec<Finding> = runtime.block_on(async {
        let mut findings = Vec::new();
        for (name, described) in configured {
            let described = match &args.model {
                Some(model) => {
                    llm::resolve_provider(Some(&name), Some(model), &env).map(|p| p.describe())
                }
                None => described,
            };
            findings.push(match described {
                Ok(provider) => {
                    let reachability = if provider.test_double {
                        None
                    } else {
                        Some(llm::probe(&provider, timeout).await)
                    };
                    Finding {
                        name,
                        provider: Some(provider),
                        reachability,
                        error: None,
                    }
                }
                Err(e) => Finding {
                    name,
                    provider: None,
                    reachability: None,
                    error: Some(e.to_string()),
                },
            });
        }
        findings
    });
    let healthy = !findings.is_empty()
        && findings
            .iter()
            .all(|f| f.provider.is_some() && f.reachability.as_ref().is_none_or(|r| r.reachable));
    if args.json {
        out(&format!(
            "{}\n",
            serde_json::to_string_pretty(&findings).unwrap_or_default()
        ));
    } else if findings.is_empty() {
        let advice = llm::resolve_provider(None, None, &env)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        out(&format!(
            "no model provider is configured: agent steps cannot run.\n{advice}\n"
        ));
    } else {
        for finding in &findings {
            out(&format!("{}\n", line(finding)));
        }
    }
    if healthy {
        exit::SUCCESS
    } else {
        exit::INCOMPLETE
    }
}
