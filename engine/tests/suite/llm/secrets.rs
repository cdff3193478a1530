//! An API key canary must never appear in Debug output, errors, attempts or descriptions.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use protoflow_engine::llm::{
    ApiKey, ChatRequest, HttpSettings, Message, ProviderKind, RetryPolicy, build_http_provider,
    resolve_provider,
};
use tokio_util::sync::CancellationToken;

use super::server::{Reply, TestServer};

const CANARY: &str = "sk-CANARY-7f3a9c1e";

fn assert_clean(what: &str, text: &str) {
    assert!(!text.contains(CANARY), "the key leaked into {what}: {text}");
}

#[tokio::test]
async fn the_key_never_appears_in_debug_errors_attempts_or_descriptions() {
    for kind in [ProviderKind::Openai, ProviderKind::Anthropic] {
        // The server echoes every header it got, key included, in its error bodies.
        let echo = |status| {
            Reply::status(
                status,
                &format!(
                    "{{\"error\": {{\"message\": \"Incorrect API key provided: {CANARY} / Bearer {CANARY}\"}}}}"
                ),
            )
        };
        let server = TestServer::start(vec![echo(500), echo(401)]).await;
        let mut settings = HttpSettings::new("canary", format!("{}/v1", server.base_url), "m");
        settings.api_key = Some(ApiKey::new(CANARY));
        settings.api_key_env = Some("CANARY_KEY".into());
        settings.retry = RetryPolicy {
            max_retries: 1,
            base_delay: Duration::from_millis(1),
            ..RetryPolicy::default()
        };
        let provider = build_http_provider(kind, settings, true).unwrap();

        let mut attempts = Vec::new();
        let observer = |a: &protoflow_engine::llm::Attempt| {
            assert_clean("an attempt", &format!("{a:?}"));
        };
        let error = provider
            .complete_observed(
                &ChatRequest::new(vec![Message::user("hi")], 10),
                CancellationToken::new(),
                &observer,
            )
            .await
            .unwrap_err();
        attempts.push(error.to_string());

        // The key did reach the server (so the checks below could fail).
        let sent = server.requests();
        let header = sent[0]
            .header("authorization")
            .or(sent[0].header("x-api-key"))
            .unwrap();
        assert!(header.contains(CANARY));

        assert_clean("the error text", &error.to_string());
        assert_clean("the error's Debug", &format!("{error:?}"));
        let report = miette::Report::new(error);
        assert_clean("the rendered diagnostic", &format!("{report:?}"));
        assert_clean("the provider's Debug", &format!("{provider:?}"));
        assert_clean(
            "describe()",
            &serde_json::to_string(&provider.describe()).unwrap(),
        );
        assert!(attempts[0].contains("[REDACTED]"), "{}", attempts[0]);
    }
}

#[test]
fn a_key_from_the_environment_stays_out_of_resolved_providers() {
    let env = |name: &str| (name == "ANTHROPIC_API_KEY").then(|| CANARY.to_string());
    let provider = resolve_provider(None, Some("claude-x"), &env).unwrap();
    assert_clean("the provider's Debug", &format!("{provider:?}"));
    assert_clean("describe()", &format!("{:?}", provider.describe()));
    assert_eq!(format!("{:?}", ApiKey::new(CANARY)), "ApiKey(<redacted>)");
}
