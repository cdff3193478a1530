//! Writing to stdout/stderr without ever panicking (a closed pipe, as in
//! `protoflow graph x | head`, is not an error worth a crash), and making run data
//! safe to print.

use std::io::Write;

/// Writes `text` to stdout, ignoring a closed pipe.
pub fn out(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
}

/// Writes `text` to stderr, ignoring failures.
pub fn err(text: &str) {
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// `text` with every control character except line feed and tab shown escaped
/// (`\u{1b}`): run data (paths, command output, a model's words) printed to a
/// terminal can never move the cursor, retitle the window or hide a line.
pub fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() && c != '\n' && c != '\t' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::printable;

    #[test]
    fn control_characters_are_escaped_and_lines_kept() {
        assert_eq!(
            printable("a\u{1b}[2Jb\rc\u{7}\n\td"),
            "a\\u{1b}[2Jb\\rc\\u{7}\n\td"
        );
        assert_eq!(printable("plain ✔ text"), "plain ✔ text");
    }
}
