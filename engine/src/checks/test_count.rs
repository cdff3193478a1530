//! How many tests a finished check executed, read from its output: libtest (`cargo
//! test`), pytest, unittest, and for npm scripts the summaries of `node --test`, jest,
//! vitest and mocha.
//!
//! The answer is `Some(n)` only when a runner's own summary says so, `None` when it cannot
//! be told. Executed means run to a pass or fail: skipped, ignored, deselected, filtered
//! and todo tests do not count, so an all-skipped suite counts as zero. A zero seen in
//! truncated output is reported as `None`, since the rest could have run more.
//! This module only reads text; it never decides whether a check verifies anything.

use super::spec::CheckKind;

/// A finished check's observable result.
#[derive(Debug, Clone, Copy, Default)]
pub struct CheckOutput<'a> {
    /// Exit code, if the process exited normally.
    pub exit_code: Option<i32>,
    /// Captured stdout.
    pub stdout: &'a str,
    /// Captured stderr.
    pub stderr: &'a str,
    /// Whether either stream was cut at an output cap.
    pub truncated: bool,
}

/// The number of tests the check executed, or `None` when the output does not tell.
///
/// With truncated output a positive count is a lower bound (the summaries seen), and zero
/// becomes `None`.
pub fn count_tests_executed(kind: CheckKind, output: &CheckOutput<'_>) -> Option<u64> {
    let text = strip_ansi(&format!("{}\n{}", output.stdout, output.stderr));
    let count = match kind {
        CheckKind::Cargo => cargo(&text),
        CheckKind::Pytest => pytest(&text, output.exit_code),
        CheckKind::Unittest => unittest(&text),
        CheckKind::Npm => npm(&text),
        CheckKind::Custom => None,
    };
    match count {
        Some(0) if output.truncated => None,
        other => other,
    }
}

/// libtest: sums `passed` and `failed` over every `test result:` line (one per test
/// binary and doc-test run).
fn cargo(text: &str) -> Option<u64> {
    let mut total = None;
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("test result: ") else {
            continue;
        };
        // "ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s"
        let Some((_, counts)) = rest.split_once(". ") else {
            continue;
        };
        let mut executed = 0u64;
        let mut recognised = false;
        for part in counts.split("; ") {
            if let Some((n, "passed" | "failed")) = count_word(part) {
                executed = executed.saturating_add(n);
                recognised = true;
            }
        }
        if recognised {
            total = Some(total.unwrap_or(0u64).saturating_add(executed));
        }
    }
    total
}

/// pytest: the final summary line (`2 passed in 0.01s`, `no tests ran in 0.00s`, with or
/// without `=` rules); exit code 5 (no tests collected) means zero when no line is seen.
fn pytest(text: &str, exit_code: Option<i32>) -> Option<u64> {
    for line in text.lines().rev() {
        let line = line.trim().trim_matches('=').trim();
        if let Some(count) = pytest_summary(line) {
            return Some(count);
        }
    }
    if exit_code == Some(5) { Some(0) } else { None }
}

fn pytest_summary(line: &str) -> Option<u64> {
    let (counts, duration) = line.rsplit_once(" in ")?;
    if !duration.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    if counts == "no tests ran" {
        return Some(0);
    }
    let mut executed = 0u64;
    for part in counts.split(", ") {
        let (n, word) = count_word(part)?;
        match word {
            "passed" | "failed" | "xfailed" | "xpassed" => executed = executed.saturating_add(n),
            "skipped" | "deselected" | "error" | "errors" | "warning" | "warnings" | "rerun"
            | "subtests passed" | "subtests failed" => {}
            _ => return None,
        }
    }
    Some(executed)
}

/// unittest: `Ran N tests in …` followed by `OK`, `FAILED (…)` or `NO TESTS RAN`; skipped
/// tests are subtracted (CPython 3.11 and 3.13 count them in N).
fn unittest(text: &str) -> Option<u64> {
    let lines: Vec<&str> = text.lines().collect();
    let mut total = None;
    for (index, line) in lines.iter().enumerate() {
        let Some(rest) = line.strip_prefix("Ran ") else {
            continue;
        };
        let Some((number, tail)) = rest.split_once(' ') else {
            continue;
        };
        let (Ok(ran), true) = (number.parse::<u64>(), tail.starts_with("test")) else {
            continue;
        };
        let status = lines[index + 1..]
            .iter()
            .map(|l| l.trim())
            .find(|l| !l.is_empty())
            .unwrap_or("");
        let executed = if status.starts_with("NO TESTS RAN") {
            0
        } else {
            ran.saturating_sub(status_count(status, "skipped"))
        };
        total = Some(total.unwrap_or(0u64).saturating_add(executed));
    }
    total
}

/// `FAILED (failures=1, skipped=2)` → the value of `skipped`.
fn status_count(status: &str, key: &str) -> u64 {
    let Some(inner) = status
        .split_once('(')
        .and_then(|(_, rest)| rest.strip_suffix(')'))
    else {
        return 0;
    };
    inner
        .split(", ")
        .filter_map(|pair| pair.split_once('='))
        .find(|(name, _)| *name == key)
        .and_then(|(_, value)| value.parse().ok())
        .unwrap_or(0)
}

/// npm scripts: adds up every recognised runner summary in the output.
fn npm(text: &str) -> Option<u64> {
    let mut total: Option<u64> = None;
    let mut add = |n: u64| total = Some(total.unwrap_or(0).saturating_add(n));
    for line in text.lines() {
        // node --test (TAP `# pass N` / spec `ℹ pass N`) and mocha's TAP reporter.
        for prefix in ["# ", "ℹ "] {
            if let Some(rest) = line.strip_prefix(prefix)
                && let Some(n) = count_after(rest, &["pass ", "fail "])
            {
                add(n);
            }
        }
        let trimmed = line.trim();
        // jest: "Tests:       1 failed, 1 skipped, 1 todo, 1 passed, 4 total"
        if let Some(rest) = trimmed.strip_prefix("Tests:")
            && let Some(n) = sum_words(rest, ", ", &["passed", "failed"])
        {
            add(n);
        }
        // vitest: "Tests  1 failed | 3 passed | 1 skipped | 1 todo (6)"
        if let Some(rest) = trimmed.strip_prefix("Tests  ")
            && let Some(n) = sum_words(
                rest.rsplit_once(" (").map_or(rest, |(counts, _)| counts),
                " | ",
                &["passed", "failed"],
            )
        {
            add(n);
        }
        // jest / vitest with no test files at all.
        if trimmed.starts_with("No tests found, exiting with code")
            || trimmed.starts_with("No test files found, exiting with code")
        {
            add(0);
        }
        // mocha spec reporter: "1 passing (3ms)", "1 failing".
        if let Some((n, word)) = count_word(trimmed)
            && (word.starts_with("passing") || word == "failing")
        {
            add(n);
        }
    }
    total
}

/// `"pass 2"` with prefixes `["pass ", "fail "]` → 2.
fn count_after(rest: &str, prefixes: &[&str]) -> Option<u64> {
    prefixes
        .iter()
        .find_map(|prefix| rest.strip_prefix(prefix))
        .and_then(|n| n.trim().parse().ok())
}

/// Sums the counts of `wanted` words in `"1 failed, 2 passed, 3 total"`; `None` if any
/// part is not `<number> <word>`.
fn sum_words(counts: &str, separator: &str, wanted: &[&str]) -> Option<u64> {
    let mut sum = 0u64;
    for part in counts.trim().split(separator) {
        let (n, word) = count_word(part.trim())?;
        if wanted.contains(&word) {
            sum = sum.saturating_add(n);
        }
    }
    Some(sum)
}

/// `"2 passed"` → `(2, "passed")`.
fn count_word(part: &str) -> Option<(u64, &str)> {
    let (number, word) = part.trim().split_once(' ')?;
    Some((number.parse().ok()?, word.trim()))
}

/// Removes ANSI escape sequences (CSI `ESC [ … final` and OSC `ESC ] … BEL/ST`).
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('[') => {
                for next in chars.by_ref() {
                    if ('@'..='~').contains(&next) {
                        break;
                    }
                }
            }
            Some(']') => {
                while let Some(next) = chars.next() {
                    if next == '\u{7}' {
                        break;
                    }
                    if next == '\u{1b}' && chars.peek() == Some(&'\\') {
                        chars.next();
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn ansi_sequences_are_removed() {
        assert_eq!(
            strip_ansi("\u{1b}[2m Tests \u{1b}[22m \u{1b}[1m2 passed\u{1b}[39m"),
            " Tests  2 passed"
        );
    }

    #[test]
    fn unittest_status_counts_are_read_by_key() {
        assert_eq!(
            status_count(
                "FAILED (failures=1, skipped=3, expected failures=1)",
                "skipped"
            ),
            3
        );
        assert_eq!(status_count("OK", "skipped"), 0);
    }
}
