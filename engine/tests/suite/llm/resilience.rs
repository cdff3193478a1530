//! Retries, backoff, Retry-After, fallback models, timeouts and cancellation.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Mutex;
use std::time::{Duration, Instant};

use protoflow_engine::llm::{
    Attempt, AttemptNext, ChatRequest, HttpSettings, LlmError, Message, Provider, ProviderKind,
    RetryPolicy, build_http_provider,
};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::server::{Reply, TestServer};

fn provider(server: &TestServer, retries: u32, fallbacks: &[&str]) -> Box<dyn Provider> {
    let mut settings = HttpSettings::new("local", format!("{}/v1", server.base_url), "m-primary");
    settings.fallback_models = fallbacks.iter().map(|m| m.to_string()).collect();
    settings.retry = RetryPolicy {
        max_retries: retries,
        base_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(40),
        max_retry_after: Duration::from_secs(5),
    };
    settings.timeout = Duration::from_millis(800);
    build_http_provider(ProviderKind::Openai, settings, true).unwrap()
}

fn request() -> ChatRequest {
    ChatRequest::new(vec![Message::user("hi")], 64)
}

fn ok(text: &str) -> Reply {
    Reply::json(
        json!({"choices": [{"message": {"content": text}, "finish_reason": "stop"}],
                       "usage": {"prompt_tokens": 3, "completion_tokens": 1}}),
    )
}

/// Collects attempts as the provider reports them.
#[derive(Default)]
struct Ledger(Mutex<Vec<Attempt>>);

impl protoflow_engine::llm::AttemptObserver for Ledger {
    fn attempt(&self, attempt: &Attempt) {
        self.0.lock().unwrap().push(attempt.clone());
    }
}

#[tokio::test]
async fn a_429_is_retried_after_the_servers_retry_after_then_succeeds() {
    let server = TestServer::start(vec![
        Reply::status(429, r#"{"error":{"message":"slow down"}}"#).with_header("retry-after", "1"),
        ok("made it"),
    ])
    .await;
    let ledger = Ledger::default();
    let started = Instant::now();
    let response = provider(&server, 2, &[])
        .complete_observed(&request(), CancellationToken::new(), &ledger)
        .await
        .unwrap();

    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "Retry-After: 1 was waited for"
    );
    assert_eq!(response.text, "made it");
    assert_eq!(server.requests().len(), 2);
    let attempts = ledger.0.lock().unwrap().clone();
    assert_eq!(attempts, response.attempts, "observer and response agree");
    assert_eq!(attempts.len(), 2);
    assert_eq!(attempts[0].status, Some(429));
    assert_eq!(attempts[0].next, AttemptNext::Retry { wait_ms: 1000 });
    assert!(attempts[0].error.as_deref().unwrap().contains("slow down"));
    assert_eq!(attempts[1].number, 2);
    assert_eq!(attempts[1].next, AttemptNext::Done);
    assert_eq!(attempts[1].usage.unwrap().input_tokens, 3);
}

#[tokio::test]
async fn a_500_exhausts_the_primary_model_then_the_fallback_model_answers() {
    let server = TestServer::start(vec![
        Reply::status(500, "upstream exploded"),
        Reply::status(503, "still down"),
        ok("from the fallback"),
    ])
    .await;
    let ledger = Ledger::default();
    let response = provider(&server, 1, &["m-fallback"])
        .complete_observed(&request(), CancellationToken::new(), &ledger)
        .await
        .unwrap();

    let models: Vec<String> = server
        .requests()
        .iter()
        .map(|r| r.json()["model"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(models, ["m-primary", "m-primary", "m-fallback"]);
    assert_eq!(response.text, "from the fallback");
    assert_eq!(response.model, "m-fallback");
    let nexts: Vec<AttemptNext> = ledger
        .0
        .lock()
        .unwrap()
        .iter()
        .map(|a| a.next.clone())
        .collect();
    assert_eq!(
        nexts,
        [
            AttemptNext::Retry { wait_ms: 10 },
            AttemptNext::Fallback {
                model: "m-fallback".into()
            },
            AttemptNext::Done
        ]
    );
}

#[tokio::test]
async fn a_4xx_other_than_429_is_never_retried_nor_sent_to_a_fallback() {
    let server = TestServer::start(vec![
        Reply::status(400, r#"{"error":{"message":"bad tool schema"}}"#),
        ok("must not be asked"),
    ])
    .await;
    let ledger = Ledger::default();
    let error = provider(&server, 3, &["m-fallback"])
        .complete_observed(&request(), CancellationToken::new(), &ledger)
        .await
        .unwrap_err();
    assert_eq!(server.requests().len(), 1);
    assert_eq!(error.status(), Some(400));
    assert!(error.to_string().contains("bad tool schema"), "{error}");
    let attempts = ledger.0.lock().unwrap().clone();
    assert_eq!(attempts.len(), 1, "the failed attempt is still reported");
    assert_eq!(attempts[0].next, AttemptNext::GiveUp);
}

#[tokio::test]
async fn a_dropped_connection_is_retried() {
    let server = TestServer::start(vec![Reply::Drop, ok("second time lucky")]).await;
    let response = provider(&server, 1, &[])
        .complete(&request(), CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(response.text, "second time lucky");
    assert_eq!(response.attempts.len(), 2);
    assert!(response.attempts[0].status.is_none());
}

#[tokio::test]
async fn retries_are_bounded_and_exhaustion_says_how_many_attempts_were_made() {
    let server = TestServer::start(vec![
        Reply::status(502, "a"),
        Reply::status(502, "b"),
        Reply::status(502, "c"),
        ok("never reached"),
    ])
    .await;
    let error = provider(&server, 2, &[])
        .complete(&request(), CancellationToken::new())
        .await
        .unwrap_err();
    assert_eq!(server.requests().len(), 3);
    match &error {
        LlmError::Exhausted { attempts, last, .. } => {
            assert_eq!(*attempts, 3);
            assert_eq!(last.status(), Some(502));
        }
        other => panic!("expected Exhausted, got {other:?}"),
    }
}

#[tokio::test]
async fn a_hung_server_times_out_and_each_timeout_is_an_attempt() {
    let server = TestServer::start(vec![Reply::Hang, Reply::Hang]).await;
    let ledger = Ledger::default();
    let error = provider(&server, 1, &[])
        .complete_observed(&request(), CancellationToken::new(), &ledger)
        .await
        .unwrap_err();
    match &error {
        LlmError::Exhausted { last, .. } => {
            assert!(matches!(**last, LlmError::Timeout { .. }), "{last:?}")
        }
        other => panic!("expected Exhausted after timeouts, got {other:?}"),
    }
    assert_eq!(ledger.0.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn a_retry_after_beyond_the_ceiling_is_not_waited_for() {
    let server = TestServer::start(vec![
        Reply::status(429, "quota").with_header("retry-after", "3600"),
        ok("fallback"),
    ])
    .await;
    let response = provider(&server, 5, &["m-fallback"])
        .complete(&request(), CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(response.model, "m-fallback");
    assert_eq!(response.attempts.len(), 2);
}

#[tokio::test]
async fn cancellation_stops_a_call_in_flight() {
    let server = TestServer::start(vec![Reply::Hang]).await;
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        trigger.cancel();
    });
    let error = provider(&server, 3, &[])
        .complete(&request(), cancel)
        .await
        .unwrap_err();
    assert!(matches!(error, LlmError::Cancelled), "{error:?}");
}

#[tokio::test]
async fn an_https_base_url_goes_through_rustls_and_a_failed_handshake_is_a_transport_error() {
    // This listener answers the TLS handshake with plain text and closes: the
    // handshake must fail cleanly (no panic from a missing crypto provider, no
    // plaintext fallback).
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        use tokio::io::AsyncWriteExt;
        if let Ok((mut socket, _)) = listener.accept().await {
            let _ = socket.write_all(b"HTTP/1.1 200 OK\r\n\r\nnot tls").await;
        }
    });
    let mut settings = HttpSettings::new("tls", format!("https://{address}/v1"), "m");
    settings.retry.max_retries = 0;
    let provider = build_http_provider(ProviderKind::Openai, settings, true).unwrap();
    let error = provider
        .complete(&request(), CancellationToken::new())
        .await
        .unwrap_err();
    match &error {
        LlmError::Exhausted { last, .. } => {
            assert!(matches!(**last, LlmError::Transport { .. }), "{last:?}")
        }
        other => panic!("expected a transport failure, got {other:?}"),
    }
}
