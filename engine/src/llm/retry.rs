//! Retry policy: which failures are retried, how long to wait, and `Retry-After`.
//!
//! This module owns the arithmetic of retries only. It must never decide to retry a
//! response that arrived and parsed, nor a 4xx other than 429: the HTTP provider
//! classifies failures and asks here only how long to wait.

use std::time::Duration;

use reqwest::header::HeaderMap;

/// Bounded retries with exponential backoff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries per model after the first attempt (so `max_retries + 1` attempts).
    pub max_retries: u32,
    /// Wait before the first retry; doubled for each further retry.
    pub base_delay: Duration,
    /// Ceiling of the computed backoff.
    pub max_delay: Duration,
    /// A server's `Retry-After` longer than this is not waited for: the model's
    /// retries end there (and a fallback model, if any, is tried).
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 2,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(8),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// The backoff before retry number `retry` (0-based): `base * 2^retry`, capped.
    pub fn backoff(&self, retry: u32) -> Duration {
        let factor = 2u32.saturating_pow(retry.min(16));
        self.base_delay.saturating_mul(factor).min(self.max_delay)
    }
}

/// Reads `retry-after-ms` (milliseconds) or `retry-after` (seconds, possibly
/// fractional). HTTP-date values are not parsed (the backoff applies instead).
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    if let Some(ms) = header_number(headers, "retry-after-ms") {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    header_number(headers, "retry-after").map(Duration::from_secs_f64)
}

fn header_number(headers: &HeaderMap, name: &str) -> Option<f64> {
    let value = headers
        .get(name)?
        .to_str()
        .ok()?
        .trim()
        .parse::<f64>()
        .ok()?;
    (0.0..86_400.0 * 365.0).contains(&value).then_some(value)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn backoff_doubles_and_is_capped() {
        let policy = RetryPolicy::default();
        assert_eq!(policy.backoff(0), Duration::from_millis(500));
        assert_eq!(policy.backoff(1), Duration::from_secs(1));
        assert_eq!(policy.backoff(10), Duration::from_secs(8));
        assert_eq!(policy.backoff(u32::MAX), Duration::from_secs(8));
    }

    #[test]
    fn retry_after_reads_seconds_and_milliseconds() {
        let mut headers = HeaderMap::new();
        assert_eq!(retry_after(&headers), None);
        headers.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(2)));
        headers.insert("retry-after-ms", HeaderValue::from_static("250"));
        assert_eq!(retry_after(&headers), Some(Duration::from_millis(250)));
        headers.insert("retry-after-ms", HeaderValue::from_static("soon"));
        headers.insert(
            "retry-after",
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(retry_after(&headers), None);
    }
}
