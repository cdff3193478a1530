//! TLS set-up shared by every HTTP client protoflow builds (model providers, web
//! tools, the GitHub source, MCP over HTTP).
//!
//! reqwest is built without a default rustls crypto provider (one TLS stack, no
//! OpenSSL); building a client before a provider is installed would panic. This
//! module owns installing it, once; it never builds a client itself.

use std::sync::Once;

/// Installs rustls' `ring` provider as the process default, once. Harmless when a
/// provider (this one or another component's) is already installed.
pub fn ensure_crypto_provider() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if rustls::crypto::CryptoProvider::get_default().is_none() {
            // An error means another thread installed one first: that one serves.
            let _ = rustls::crypto::ring::default_provider().install_default();
        }
    });
}
