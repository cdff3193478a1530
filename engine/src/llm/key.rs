//! API keys held as secrets.
//!
//! This module owns the only type that holds a key. A key must never reach Debug
//! output, an error, an event, a report or `describe()`: it is exposed only to set an
//! HTTP header (marked sensitive) and to scrub server text that might echo it.

use secrecy::{ExposeSecret, SecretString};

/// An API key. `Debug` prints `ApiKey(<redacted>)`.
pub struct ApiKey(SecretString);

impl ApiKey {
    /// Wraps a key read from the environment.
    pub fn new(key: impl Into<String>) -> Self {
        ApiKey(SecretString::from(key.into()))
    }

    /// The key for an HTTP header; crate-private so nothing else can print it.
    pub(crate) fn expose(&self) -> &str {
        self.0.expose_secret()
    }

    /// `text` with every occurrence of the key replaced by `[REDACTED]`.
    pub fn redact(&self, text: &str) -> String {
        let key = self.expose();
        if key.is_empty() {
            return text.to_string();
        }
        text.replace(key, "[REDACTED]")
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

/// Redacts `text` with `key` when there is one.
pub(crate) fn redact(key: Option<&ApiKey>, text: &str) -> String {
    match key {
        Some(key) => key.redact(text),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_the_key_and_redact_scrubs_it() {
        let key = ApiKey::new("sk-canary-123");
        assert_eq!(format!("{key:?}"), "ApiKey(<redacted>)");
        assert_eq!(key.redact("bad key sk-canary-123!"), "bad key [REDACTED]!");
    }
}
