//! The address policy of outbound fetches: which IP addresses a fetch may connect to.
//!
//! Owns [`FetchPolicy`] and the classification of IP addresses into "public" and
//! the refused ranges (loopback, private, link-local and cloud metadata, CGNAT,
//! unique-local, multicast, broadcast, documentation, benchmarking, reserved, and
//! every IPv6 form that embeds a refused IPv4 address). It works on addresses that
//! are already parsed (by the URL parser or the resolver); it never parses text
//! and never performs I/O. The only way to reach a non-public address is an
//! explicit allow-list built by a constructor whose name says it is for tests;
//! nothing a recipe, a role or the CLI sets can build one.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// Why an address is refused: the name of the range it falls in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refusal {
    /// The range, for example `loopback (127.0.0.0/8)` or `private (RFC 1918)`.
    pub range: &'static str,
    /// For an IPv6 address embedding an IPv4 one, the form (`IPv4-mapped`, `NAT64`,
    /// `6to4`); `range` is then the range of the embedded IPv4 address.
    pub embedded_in: Option<&'static str>,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.embedded_in {
            Some(form) => write!(f, "{form} form of {}", self.range),
            None => f.write_str(self.range),
        }
    }
}

/// Which addresses a fetch may connect to.
///
/// The default policy allows public unicast addresses only. Exceptions are exact
/// socket addresses (address and port), and can only be added through
/// [`FetchPolicy::allow_loopback_for_tests`], so a local test server is reachable in
/// tests while production code never reaches loopback.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FetchPolicy {
    allow_addresses: Vec<SocketAddr>,
}

impl FetchPolicy {
    /// The production policy: public addresses only, no exceptions.
    pub fn public_only() -> Self {
        FetchPolicy::default()
    }

    /// A policy that additionally allows `127.0.0.1:port` and `[::1]:port` for each
    /// of `ports`, so tests can reach a local HTTP server. Only exact socket
    /// addresses are allowed: other ports, other loopback addresses and IPv6 forms
    /// embedding 127.0.0.1 stay refused. Never use this outside tests.
    pub fn allow_loopback_for_tests(ports: &[u16]) -> Self {
        let allow_addresses = ports
            .iter()
            .flat_map(|&port| {
                [
                    SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port),
                    SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), port),
                ]
            })
            .collect();
        FetchPolicy { allow_addresses }
    }

    /// The exact socket addresses allowed besides public ones (empty by default).
    pub fn allowed_exceptions(&self) -> &[SocketAddr] {
        &self.allow_addresses
    }

    /// Whether a fetch may connect to `addr`.
    pub fn check(&self, addr: SocketAddr) -> Result<(), Refusal> {
        if self.allow_addresses.contains(&addr) {
            return Ok(());
        }
        classify(addr.ip())
    }
}

/// `Ok` when `ip` is a public unicast address; otherwise the refused range it is in.
pub fn classify(ip: IpAddr) -> Result<(), Refusal> {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

const fn refuse(range: &'static str) -> Result<(), Refusal> {
    Err(Refusal {
        range,
        embedded_in: None,
    })
}

/// An IPv4 block: network, prefix length, and the name of the range.
struct Block4(u32, u32, &'static str);

/// Refused IPv4 blocks, beyond those std classifies (IANA special-purpose registry).
const REFUSED_V4: &[Block4] = &[
    Block4(0x0000_0000, 8, "\"this network\" (0.0.0.0/8)"),
    Block4(0x6440_0000, 10, "carrier-grade NAT (100.64.0.0/10)"),
    Block4(0xc000_0000, 24, "IETF protocol assignments (192.0.0.0/24)"),
    Block4(0xc058_6300, 24, "6to4 relay anycast (192.88.99.0/24)"),
    Block4(0xc612_0000, 15, "benchmarking (198.18.0.0/15)"),
    Block4(0xf000_0000, 4, "reserved (240.0.0.0/4)"),
];

fn in_block(bits: u32, network: u32, prefix: u32) -> bool {
    let mask = if prefix == 0 {
        0
    } else {
        u32::MAX << (32 - prefix)
    };
    bits & mask == network
}

fn classify_v4(ip: Ipv4Addr) -> Result<(), Refusal> {
    if ip.is_unspecified() {
        return refuse("unspecified (0.0.0.0)");
    }
    if ip.is_loopback() {
        return refuse("loopback (127.0.0.0/8)");
    }
    if ip.is_private() {
        return refuse("private (RFC 1918)");
    }
    if ip.is_link_local() {
        return refuse("link-local and cloud metadata (169.254.0.0/16)");
    }
    if ip.is_broadcast() {
        return refuse("broadcast (255.255.255.255)");
    }
    if ip.is_multicast() {
        return refuse("multicast (224.0.0.0/4)");
    }
    if ip.is_documentation() {
        return refuse("documentation (TEST-NET)");
    }
    let bits = u32::from(ip);
    for Block4(network, prefix, range) in REFUSED_V4 {
        if in_block(bits, *network, *prefix) {
            return refuse(range);
        }
    }
    Ok(())
}

fn classify_v6(ip: Ipv6Addr) -> Result<(), Refusal> {
    if ip.is_unspecified() {
        return refuse("unspecified (::)");
    }
    if ip.is_loopback() {
        return refuse("loopback (::1)");
    }
    // IPv4-mapped (::ffff:a.b.c.d): judged by the IPv4 address it stands for.
    if let Some(v4) = ip.to_ipv4_mapped() {
        return classify_v4(v4).map_err(|inner| embedded("IPv4-mapped", inner));
    }
    let seg = ip.segments();
    let bits = u128::from(ip);
    // IPv4-compatible (::a.b.c.d, deprecated by RFC 4291): never routed publicly.
    if bits >> 32 == 0 {
        return refuse("IPv4-compatible IPv6 (::/96, deprecated)");
    }
    // NAT64 well-known prefix (64:ff9b::/96): judged by the embedded IPv4 address.
    if bits >> 32 == 0x0064_ff9b_0000_0000_0000_0000 {
        let v4 = Ipv4Addr::from((bits & 0xffff_ffff) as u32);
        return classify_v4(v4).map_err(|inner| embedded("NAT64", inner));
    }
    // 6to4 (2002::/16): judged by the IPv4 address in bits 16..48.
    if seg[0] == 0x2002 {
        let v4 = Ipv4Addr::from(((bits >> 80) & 0xffff_ffff) as u32);
        return classify_v4(v4).map_err(|inner| embedded("6to4", inner));
    }
    if ip.is_multicast() {
        return refuse("multicast (ff00::/8)");
    }
    if ip.is_unicast_link_local() {
        return refuse("link-local (fe80::/10)");
    }
    if ip.is_unique_local() {
        return refuse("unique-local (fc00::/7)");
    }
    // Only global unicast (2000::/3) is public; the rest is reserved or local
    // (site-local fec0::/10, discard-only 100::/64, local-use NAT64 64:ff9b:1::/48 ...).
    if seg[0] & 0xe000 != 0x2000 {
        return refuse("not global unicast IPv6 (outside 2000::/3)");
    }
    if seg[0] == 0x2001 && seg[1] == 0x0db8 {
        return refuse("documentation (2001:db8::/32)");
    }
    if seg[0] & 0xfff0 == 0x3ff0 {
        return refuse("documentation (3fff::/20)");
    }
    if seg[0] == 0x2001 && seg[1] == 0x0000 {
        return refuse("Teredo tunnelling (2001::/32)");
    }
    if seg[0] == 0x2001 && seg[1] == 0x0002 && seg[2] == 0 {
        return refuse("benchmarking (2001:2::/48)");
    }
    if seg[0] == 0x2001 && seg[1] & 0xffe0 == 0x0000 {
        return refuse("IETF protocol assignments (2001::/23)");
    }
    Ok(())
}

fn embedded(form: &'static str, inner: Refusal) -> Refusal {
    Refusal {
        range: inner.range,
        embedded_in: Some(form),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn refused(text: &str) -> bool {
        classify(text.parse().unwrap()).is_err()
    }

    #[test]
    fn refuses_every_special_ipv4_range() {
        for ip in [
            "0.0.0.0",
            "0.1.2.3",
            "10.0.0.1",
            "10.255.255.255",
            "100.64.0.1",
            "100.127.255.254",
            "127.0.0.1",
            "127.1.2.3",
            "169.254.169.254",
            "172.16.0.1",
            "172.31.255.255",
            "192.0.0.170",
            "192.0.2.1",
            "192.88.99.1",
            "192.168.1.1",
            "198.18.0.1",
            "198.19.255.255",
            "198.51.100.7",
            "203.0.113.9",
            "224.0.0.1",
            "239.255.255.250",
            "240.0.0.1",
            "255.255.255.255",
        ] {
            assert!(refused(ip), "{ip} must be refused");
        }
    }

    #[test]
    fn allows_public_ipv4_including_neighbours_of_refused_ranges() {
        for ip in [
            "1.1.1.1",
            "8.8.8.8",
            "100.63.255.255",
            "100.128.0.0",
            "172.15.255.255",
            "172.32.0.0",
            "192.0.1.1",
            "198.17.255.255",
            "198.20.0.0",
            "223.255.255.255",
        ] {
            assert!(!refused(ip), "{ip} must be allowed");
        }
    }

    #[test]
    fn refuses_special_ipv6_ranges() {
        for ip in [
            "::",
            "::1",
            "::7f00:1",
            "::a00:1",
            "fe80::1",
            "fc00::1",
            "fd12:3456::1",
            "ff02::1",
            "fec0::1",
            "100::1",
            "64:ff9b:1::1",
            "2001:db8::1",
            "3fff::1",
            "2001::1",
            "2001:2::1",
        ] {
            assert!(refused(ip), "{ip} must be refused");
        }
    }

    #[test]
    fn judges_ipv6_forms_by_the_ipv4_address_they_embed() {
        for ip in [
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::ffff:169.254.169.254",
            "64:ff9b::7f00:1",
            "64:ff9b::a9fe:a9fe",
            "2002:7f00:1::1",
            "2002:a00:1::",
            "2002:c0a8:101::1",
        ] {
            assert!(refused(ip), "{ip} must be refused");
        }
        for ip in ["::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"] {
            assert!(!refused(ip), "{ip} must be allowed");
        }
    }

    #[test]
    fn allows_public_ipv6() {
        for ip in [
            "2606:4700:4700::1111",
            "2a00:1450:4001::1",
            "2001:4860::8888",
        ] {
            assert!(!refused(ip), "{ip} must be allowed");
        }
    }

    #[test]
    fn the_default_policy_has_no_exceptions() {
        let policy = FetchPolicy::default();
        assert!(policy.allowed_exceptions().is_empty());
        assert!(policy.check("127.0.0.1:8080".parse().unwrap()).is_err());
        assert!(policy.check("[::1]:8080".parse().unwrap()).is_err());
    }

    #[test]
    fn the_test_policy_allows_exact_loopback_ports_only() {
        let policy = FetchPolicy::allow_loopback_for_tests(&[8080]);
        assert!(policy.check("127.0.0.1:8080".parse().unwrap()).is_ok());
        assert!(policy.check("[::1]:8080".parse().unwrap()).is_ok());
        assert!(policy.check("127.0.0.1:8081".parse().unwrap()).is_err());
        assert!(policy.check("127.0.0.2:8080".parse().unwrap()).is_err());
        assert!(
            policy
                .check("[::ffff:127.0.0.1]:8080".parse().unwrap())
                .is_err()
        );
        assert!(policy.check("10.0.0.1:8080".parse().unwrap()).is_err());
    }

    #[test]
    fn refusals_name_the_range() {
        let refusal = classify("169.254.169.254".parse().unwrap()).unwrap_err();
        assert!(refusal.to_string().contains("cloud metadata"), "{refusal}");
        let refusal = classify("::ffff:127.0.0.1".parse().unwrap()).unwrap_err();
        assert_eq!(
            refusal.to_string(),
            "IPv4-mapped form of loopback (127.0.0.0/8)"
        );
    }
}
