//! Which response bodies count as text, and how they become a string.
//!
//! Owns the content-type rules (text/*, JSON, XML, XHTML and similar are text;
//! images, audio, archives, octet-stream and anything else are not), the charset
//! rules (UTF-8 and ASCII; ISO-8859-1 / windows-1252 mapped byte for byte) and the
//! binary sniffing (NUL bytes or invalid UTF-8 mean binary, whatever the header
//! says). HTML is handed to `html` for a readable text view. Never performs I/O.

use super::html::html_to_text;

/// How a text body is rendered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextKind {
    /// HTML or XHTML: converted to readable text.
    Html,
    /// Anything else textual: returned as is.
    Plain,
}

/// The declared character encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Charset {
    Utf8,
    Latin1,
}

/// A parsed `Content-Type` that was accepted as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextType {
    /// How to render it; `None` when no content type was sent (decided by sniffing).
    kind: Option<TextKind>,
    charset: Charset,
}

/// Accepts or refuses a `Content-Type` header value (`None`: the header is absent).
///
/// The error is the reason the type is not text.
pub fn accept_content_type(header: Option<&str>) -> Result<TextType, String> {
    let Some(header) = header.map(str::trim).filter(|h| !h.is_empty()) else {
        return Ok(TextType {
            kind: None,
            charset: Charset::Utf8,
        });
    };
    let mut parts = header.split(';');
    let essence = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
    let kind = text_kind(&essence).ok_or_else(|| format!("`{essence}` is not a text type"))?;
    let mut charset = Charset::Utf8;
    for param in parts {
        let Some((key, value)) = param.split_once('=') else {
            continue;
        };
        if !key.trim().eq_ignore_ascii_case("charset") {
            continue;
        }
        let value = value.trim().trim_matches('"').to_ascii_lowercase();
        charset = match value.as_str() {
            "utf-8" | "utf8" | "us-ascii" | "ascii" => Charset::Utf8,
            "iso-8859-1" | "latin1" | "iso_8859-1" | "windows-1252" | "cp1252" => Charset::Latin1,
            other => return Err(format!("charset `{other}` is not supported")),
        };
    }
    Ok(TextType {
        kind: Some(kind),
        charset,
    })
}

fn text_kind(essence: &str) -> Option<TextKind> {
    let (top, sub) = essence.split_once('/')?;
    match (top, sub) {
        ("text", "html") | ("application", "xhtml+xml") => Some(TextKind::Html),
        ("text", _) => Some(TextKind::Plain),
        ("application", sub)
            if matches!(
                sub,
                "json"
                    | "xml"
                    | "javascript"
                    | "ecmascript"
                    | "x-javascript"
                    | "yaml"
                    | "x-yaml"
                    | "toml"
                    | "x-ndjson"
                    | "sql"
                    | "graphql"
            ) || sub.ends_with("+json")
                || sub.ends_with("+xml") =>
        {
            Some(TextKind::Plain)
        }
        _ => None,
    }
}

/// Decodes a (possibly truncated) body of an accepted type into readable text.
///
/// NUL bytes or invalid UTF-8 mean the body is binary, whatever its header said;
/// the error is the reason. When `truncated`, a multi-byte character cut by the
/// cap is dropped rather than refused.
pub fn decode_body(body: &[u8], text_type: TextType, truncated: bool) -> Result<String, String> {
    if body.contains(&0) {
        return Err("the body contains NUL bytes".to_owned());
    }
    let text = match text_type.charset {
        Charset::Latin1 => body.iter().map(|&b| char::from(b)).collect(),
        Charset::Utf8 => match std::str::from_utf8(body) {
            Ok(text) => text.to_owned(),
            Err(err) if truncated && err.error_len().is_none() => {
                String::from_utf8_lossy(&body[..err.valid_up_to()]).into_owned()
            }
            Err(err) => {
                return Err(format!(
                    "the body is not valid UTF-8 (at byte {})",
                    err.valid_up_to()
                ));
            }
        },
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let kind = text_type.kind.unwrap_or_else(|| sniff(text));
    Ok(match kind {
        TextKind::Html => html_to_text(text),
        TextKind::Plain => text.to_owned(),
    })
}

fn sniff(text: &str) -> TextKind {
    let start: String = text
        .trim_start()
        .chars()
        .take(15)
        .collect::<String>()
        .to_ascii_lowercase();
    if start.starts_with("<!doctype html") || start.starts_with("<html") {
        TextKind::Html
    } else {
        TextKind::Plain
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn text_like_types_are_accepted() {
        for ct in [
            "text/plain",
            "text/html; charset=utf-8",
            "TEXT/Markdown",
            "application/json",
            "application/ld+json",
            "application/xml",
            "application/rss+xml",
            "application/xhtml+xml",
            "application/javascript",
            "text/csv; charset=\"UTF-8\"",
        ] {
            assert!(accept_content_type(Some(ct)).is_ok(), "{ct}");
        }
    }

    #[test]
    fn binary_types_are_refused() {
        for ct in [
            "image/png",
            "application/octet-stream",
            "application/pdf",
            "application/zip",
            "video/mp4",
            "audio/mpeg",
            "font/woff2",
            "garbage",
        ] {
            assert!(accept_content_type(Some(ct)).is_err(), "{ct}");
        }
    }

    #[test]
    fn unknown_charsets_are_refused() {
        assert!(accept_content_type(Some("text/plain; charset=shift_jis")).is_err());
    }

    #[test]
    fn nul_bytes_or_invalid_utf8_are_binary_whatever_the_header() {
        let plain = accept_content_type(Some("text/plain")).unwrap();
        assert!(decode_body(b"ab\0cd", plain, false).is_err());
        assert!(decode_body(&[0x89, b'P', b'N', b'G'], plain, false).is_err());
    }

    #[test]
    fn a_character_cut_by_the_cap_is_dropped_not_refused() {
        let plain = accept_content_type(Some("text/plain")).unwrap();
        let body = "é".as_bytes();
        assert_eq!(decode_body(&[b'a', body[0]], plain, true).unwrap(), "a");
        assert!(decode_body(&[b'a', body[0]], plain, false).is_err());
    }

    #[test]
    fn latin1_maps_byte_for_byte() {
        let latin1 = accept_content_type(Some("text/plain; charset=ISO-8859-1")).unwrap();
        assert_eq!(decode_body(&[b'c', 0xe9], latin1, false).unwrap(), "cé");
    }

    #[test]
    fn a_body_without_content_type_is_sniffed() {
        let none = accept_content_type(None).unwrap();
        assert_eq!(
            decode_body(b"<!DOCTYPE html><p>hi</p>", none, false).unwrap(),
            "hi"
        );
        assert_eq!(decode_body(b"a <b>", none, false).unwrap(), "a <b>");
    }
}
