//! The URL rules every hop of a fetch obeys: the first URL and each redirect target.
//!
//! Owns the shape checks (http/https only, no credentials, a host) and the
//! redirect rule (resolve the Location against the current URL; refuse an
//! https -> http downgrade). Addresses are checked elsewhere (`resolver`), for
//! every hop. This module never performs I/O.

use url::Url;

use super::error::WebError;

/// The status codes treated as redirects (always followed with GET).
pub const REDIRECT_STATUSES: [u16; 5] = [301, 302, 303, 307, 308];

/// Parses `text` as the first URL of a fetch and checks its shape.
pub fn parse_start(text: &str) -> Result<Url, WebError> {
    let url = Url::parse(text.trim()).map_err(|err| WebError::InvalidUrl {
        url: text.to_owned(),
        reason: err.to_string(),
    })?;
    check_shape(&url)?;
    Ok(url)
}

/// Checks that `url` may be requested at all: http or https, no credentials, a host.
pub fn check_shape(url: &Url) -> Result<(), WebError> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(WebError::SchemeRefused {
            url: url.to_string(),
            scheme: url.scheme().to_owned(),
        });
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(WebError::CredentialsRefused);
    }
    if url.host().is_none() {
        return Err(WebError::NoHost {
            url: url.to_string(),
        });
    }
    Ok(())
}

/// The next hop when `current` answered `status` with `location`.
///
/// The location is resolved relative to `current`, must pass [`check_shape`], and
/// may not downgrade from https to http.
pub fn next_hop(current: &Url, status: u16, location: Option<&str>) -> Result<Url, WebError> {
    let bad = |reason: String| WebError::BadRedirect {
        url: current.to_string(),
        status,
        reason,
    };
    let location = location.ok_or_else(|| bad("no Location header".to_owned()))?;
    let next = current
        .join(location)
        .map_err(|err| bad(format!("`{location}`: {err}")))?;
    check_shape(&next)?;
    if current.scheme() == "https" && next.scheme() == "http" {
        return Err(WebError::DowngradeRefused {
            from: current.to_string(),
            to: next.to_string(),
        });
    }
    Ok(next)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    #[test]
    fn only_http_and_https_are_fetched() {
        for bad in [
            "file:///etc/passwd",
            "ftp://example.com/",
            "gopher://example.com/",
            "data:text/plain,hi",
            "javascript:alert(1)",
        ] {
            assert!(
                matches!(parse_start(bad), Err(WebError::SchemeRefused { .. })),
                "{bad}"
            );
        }
        assert!(parse_start("https://example.com/").is_ok());
        assert!(parse_start("HTTP://EXAMPLE.COM/").is_ok());
    }

    #[test]
    fn urls_with_credentials_are_refused() {
        assert!(matches!(
            parse_start("https://user:secret@example.com/"),
            Err(WebError::CredentialsRefused)
        ));
    }

    #[test]
    fn relative_text_is_not_a_url() {
        assert!(matches!(
            parse_start("example.com/page"),
            Err(WebError::InvalidUrl { .. })
        ));
    }

    #[test]
    fn an_https_to_http_redirect_is_a_refused_downgrade() {
        let err = next_hop(
            &url("https://example.com/a"),
            302,
            Some("http://example.com/b"),
        )
        .unwrap_err();
        assert!(matches!(err, WebError::DowngradeRefused { .. }), "{err}");
    }

    #[test]
    fn an_http_to_https_upgrade_and_relative_locations_are_followed() {
        let next = next_hop(
            &url("http://example.com/a"),
            301,
            Some("https://example.com/b"),
        )
        .unwrap();
        assert_eq!(next.as_str(), "https://example.com/b");
        let next = next_hop(&url("https://example.com/a/b"), 302, Some("../c?x=1")).unwrap();
        assert_eq!(next.as_str(), "https://example.com/c?x=1");
        let next = next_hop(
            &url("https://example.com/a"),
            307,
            Some("//other.example/d"),
        )
        .unwrap();
        assert_eq!(next.as_str(), "https://other.example/d");
    }

    #[test]
    fn a_redirect_to_another_scheme_or_without_location_is_refused() {
        assert!(matches!(
            next_hop(
                &url("https://example.com/"),
                302,
                Some("file:///etc/passwd")
            ),
            Err(WebError::SchemeRefused { .. })
        ));
        assert!(matches!(
            next_hop(&url("https://example.com/"), 302, None),
            Err(WebError::BadRedirect { .. })
        ));
    }
}
