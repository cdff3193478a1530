//! Text helpers shared by the file tools: decoding, line endings and diffs.
//!
//! Owns the binary-content rule and the unified diff used as the preview of every
//! write (the preview is computed from exactly the bytes that will be written).
//! It never touches the file system.

use similar::TextDiff;

use crate::tools::ToolError;

/// Decodes file content as UTF-8 text; binary content (a NUL byte, or invalid
/// UTF-8) is refused with a reason.
pub fn decode_text<'a>(tool: &str, display: &str, bytes: &'a [u8]) -> Result<&'a str, ToolError> {
    if bytes.contains(&0) {
        return Err(ToolError::Rejected {
            tool: tool.to_string(),
            reason: format!(
                "`{display}` looks binary (it contains NUL bytes); only text files are supported"
            ),
        });
    }
    std::str::from_utf8(bytes).map_err(|_| ToolError::Rejected {
        tool: tool.to_string(),
        reason: format!("`{display}` is not valid UTF-8 text; only text files are supported"),
    })
}

/// The dominant line ending of a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineEnding {
    /// `\n`
    Lf,
    /// `\r\n`
    CrLf,
}

impl LineEnding {
    /// CRLF when at least as many lines end with `\r\n` as with a bare `\n` (and one does).
    pub fn detect(text: &str) -> LineEnding {
        let crlf = text.matches("\r\n").count();
        let lf = text.matches('\n').count() - crlf;
        if crlf > 0 && crlf >= lf {
            LineEnding::CrLf
        } else {
            LineEnding::Lf
        }
    }

    /// Rewrites every line ending of `text` to this style.
    pub fn apply(self, text: &str) -> String {
        let lf = text.replace("\r\n", "\n");
        match self {
            LineEnding::Lf => lf,
            LineEnding::CrLf => lf.replace('\n', "\r\n"),
        }
    }
}

/// A unified diff of `old` -> `new` for `display`, with three lines of context.
pub fn unified_diff(display: &str, old: &str, new: &str) -> String {
    let diff = TextDiff::from_lines(old, new);
    diff.unified_diff()
        .context_radius(3)
        .header(&format!("a/{display}"), &format!("b/{display}"))
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_endings_are_detected_and_applied() {
        assert_eq!(LineEnding::detect("a\r\nb\r\n"), LineEnding::CrLf);
        assert_eq!(LineEnding::detect("a\nb\n"), LineEnding::Lf);
        assert_eq!(LineEnding::detect("no newline"), LineEnding::Lf);
        assert_eq!(LineEnding::CrLf.apply("x\ny\r\n"), "x\r\ny\r\n");
        assert_eq!(LineEnding::Lf.apply("x\r\ny\n"), "x\ny\n");
    }

    #[test]
    fn diff_has_headers_and_hunks() {
        let diff = unified_diff("a.txt", "one\ntwo\n", "one\nthree\n");
        assert!(diff.starts_with("--- a/a.txt\n+++ b/a.txt\n@@"));
        assert!(diff.contains("-two\n+three\n"));
    }

    #[test]
    fn binary_is_refused() {
        assert!(decode_text("t", "f", b"a\0b").is_err());
        assert!(decode_text("t", "f", &[0xff, 0xfe]).is_err());
        assert_eq!(decode_text("t", "f", b"ok").ok(), Some("ok"));
    }
}
