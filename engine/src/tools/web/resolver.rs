//! Name resolution for fetches: resolve a hop's host once, check every address, and
//! pin the HTTP client to exactly the checked addresses.
//!
//! Owns the [`NameLookup`] seam (the system resolver in production, a static table
//! in tests), [`resolve_target`] (IP literals are checked directly, since the HTTP
//! client never calls a resolver for them) and [`PinnedResolver`], the resolver
//! given to the HTTP client: it answers only the checked host with only the
//! checked addresses, so there is no DNS-rebinding window between check and
//! connect. It must never fall back to another resolver.

use std::collections::BTreeMap;
use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use async_trait::async_trait;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use url::{Host, Url};

use super::error::WebError;
use super::guard::FetchPolicy;

/// Looks a host name up (no policy; [`resolve_target`] applies it).
#[async_trait]
pub trait NameLookup: Send + Sync + fmt::Debug {
    /// The addresses of `host`, with `port` set on each.
    async fn lookup(&self, host: &str, port: u16) -> std::io::Result<Vec<SocketAddr>>;
}

/// The operating system's resolver (getaddrinfo, through tokio).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemLookup;

#[async_trait]
impl NameLookup for SystemLookup {
    async fn lookup(&self, host: &str, port: u16) -> std::io::Result<Vec<SocketAddr>> {
        Ok(tokio::net::lookup_host((host, port)).await?.collect())
    }
}

/// A fixed table of names to addresses, for tests (a "public-looking" name that
/// resolves to a private address). Unknown names fail to resolve.
#[derive(Debug, Clone, Default)]
pub struct StaticLookup {
    table: BTreeMap<String, Vec<IpAddr>>,
}

impl StaticLookup {
    /// An empty table.
    pub fn new() -> Self {
        StaticLookup::default()
    }

    /// Maps `host` (case-insensitive) to `addresses`.
    pub fn with(mut self, host: &str, addresses: &[IpAddr]) -> Self {
        self.table
            .insert(host.to_ascii_lowercase(), addresses.to_vec());
        self
    }
}

#[async_trait]
impl NameLookup for StaticLookup {
    async fn lookup(&self, host: &str, port: u16) -> std::io::Result<Vec<SocketAddr>> {
        match self.table.get(&host.to_ascii_lowercase()) {
            Some(ips) => Ok(ips.iter().map(|ip| SocketAddr::new(*ip, port)).collect()),
            None => Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "name not in the static table",
            )),
        }
    }
}

/// Where one hop connects: the host as named in the URL, and the checked addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The host (a domain, or an IP literal as the URL prints it).
    pub host: String,
    /// Whether `host` is an IP literal (the HTTP client then connects without resolving).
    pub literal: bool,
    /// Every address checked against the policy; the only ones the client may use.
    pub addresses: Vec<SocketAddr>,
}

/// Resolves `url`'s host once and checks every address against `policy`.
///
/// An IP-literal host (including the decimal, octal and hex forms the URL parser
/// normalizes to IPv4) is checked as is. A domain is looked up once; if any of
/// its addresses is refused, the whole hop is refused (a name that mixes public
/// and private answers is not trusted).
pub async fn resolve_target(
    url: &Url,
    policy: &FetchPolicy,
    lookup: &dyn NameLookup,
) -> Result<Target, WebError> {
    let port = url
        .port_or_known_default()
        .ok_or_else(|| WebError::NoHost {
            url: url.to_string(),
        })?;
    let (host, literal, addresses) = match url.host() {
        None => {
            return Err(WebError::NoHost {
                url: url.to_string(),
            });
        }
        Some(Host::Ipv4(ip)) => (
            ip.to_string(),
            true,
            vec![SocketAddr::new(IpAddr::V4(ip), port)],
        ),
        Some(Host::Ipv6(ip)) => (
            format!("[{ip}]"),
            true,
            vec![SocketAddr::new(IpAddr::V6(ip), port)],
        ),
        Some(Host::Domain(domain)) => {
            let addresses =
                lookup
                    .lookup(domain, port)
                    .await
                    .map_err(|err| WebError::ResolveFailed {
                        host: domain.to_owned(),
                        reason: err.to_string(),
                    })?;
            if addresses.is_empty() {
                return Err(WebError::ResolveFailed {
                    host: domain.to_owned(),
                    reason: "no addresses".to_owned(),
                });
            }
            (domain.to_owned(), false, addresses)
        }
    };
    for address in &addresses {
        policy
            .check(*address)
            .map_err(|refusal| WebError::AddressRefused {
                host: host.clone(),
                address: address.ip().to_string(),
                refusal,
            })?;
    }
    Ok(Target {
        host,
        literal,
        addresses,
    })
}

/// The HTTP client's resolver for one hop: the checked host maps to the checked
/// addresses; any other name fails. Never consults DNS.
#[derive(Debug, Clone)]
pub struct PinnedResolver {
    host: String,
    addresses: Arc<[SocketAddr]>,
}

impl PinnedResolver {
    /// Pins `target`'s host to its checked addresses.
    pub fn new(target: &Target) -> Self {
        PinnedResolver {
            host: target.host.to_ascii_lowercase(),
            addresses: target.addresses.iter().copied().collect(),
        }
    }
}

impl Resolve for PinnedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let answer = if name.as_str().eq_ignore_ascii_case(&self.host) {
            let addresses: Vec<SocketAddr> = self.addresses.to_vec();
            let addrs: Addrs = Box::new(addresses.into_iter());
            Ok(addrs)
        } else {
            Err(format!(
                "`{}` was not resolved and checked for this hop",
                name.as_str()
            )
            .into())
        };
        Box::pin(std::future::ready(answer))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[tokio::test]
    async fn ip_literals_are_checked_without_a_lookup() {
        let url = Url::parse("http://127.0.0.1:9/").unwrap();
        let err = resolve_target(&url, &FetchPolicy::default(), &StaticLookup::new())
            .await
            .unwrap_err();
        assert!(matches!(err, WebError::AddressRefused { .. }), "{err}");
    }

    #[tokio::test]
    async fn a_name_with_one_private_answer_is_refused() {
        let lookup = StaticLookup::new().with(
            "mixed.example",
            &[
                "93.184.216.34".parse().unwrap(),
                "10.0.0.1".parse().unwrap(),
            ],
        );
        let url = Url::parse("https://mixed.example/").unwrap();
        let err = resolve_target(&url, &FetchPolicy::default(), &lookup)
            .await
            .unwrap_err();
        assert!(err.to_string().contains("10.0.0.1"), "{err}");
    }

    #[tokio::test]
    async fn a_public_name_resolves_to_its_checked_addresses_with_the_port() {
        let lookup = StaticLookup::new().with("docs.example", &["93.184.216.34".parse().unwrap()]);
        let url = Url::parse("https://docs.example/page").unwrap();
        let target = resolve_target(&url, &FetchPolicy::default(), &lookup)
            .await
            .unwrap();
        assert_eq!(target.addresses, vec!["93.184.216.34:443".parse().unwrap()]);
        assert!(!target.literal);
    }

    #[tokio::test]
    async fn the_pinned_resolver_answers_only_its_host() {
        let target = Target {
            host: "docs.example".into(),
            literal: false,
            addresses: vec!["93.184.216.34:443".parse().unwrap()],
        };
        let resolver = PinnedResolver::new(&target);
        let addrs: Vec<_> = resolver
            .resolve("DOCS.example".parse().unwrap())
            .await
            .unwrap()
            .collect();
        assert_eq!(addrs, target.addresses);
        assert!(
            resolver
                .resolve("other.example".parse().unwrap())
                .await
                .is_err()
        );
    }
}
