//! Small text helpers shared by the renderers: escaping untrusted text for Markdown
//! and percent-encoding repository paths. They must never drop content.

/// Escapes model-written text for inline Markdown: HTML-significant characters,
/// link brackets and `@` (so a claim cannot mention people or inject markup).
/// Newlines become spaces.
pub(crate) fn escape_inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '@' => out.push_str("&#64;"),
            '[' => out.push_str("\\["),
            ']' => out.push_str("\\]"),
            '\r' => {}
            '\n' => out.push(' '),
            _ => out.push(c),
        }
    }
    out
}

/// A code fence longer than any backtick run in `text` (at least three).
pub(crate) fn fence_for(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    "`".repeat((longest + 1).max(3))
}

/// Percent-encodes a repository-relative path for a URI, keeping `/`.
pub(crate) fn encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_mentions() {
        assert_eq!(
            escape_inline("<b>@team</b> [x](y)"),
            "&lt;b&gt;&#64;team&lt;/b&gt; \\[x\\](y)"
        );
    }

    #[test]
    fn fence_outgrows_backticks() {
        assert_eq!(fence_for("a ```` b"), "`````");
        assert_eq!(fence_for("plain"), "```");
    }

    #[test]
    fn encodes_paths() {
        assert_eq!(encode_path("src/my file#1.rs"), "src/my%20file%231.rs");
    }
}
