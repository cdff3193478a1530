//! Writing to stdout/stderr without ever panicking (a closed pipe, as in
//! `protoflow graph x | head`, is not an error worth a crash).

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
