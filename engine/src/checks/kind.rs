//! Infers a configured check's runner ([`CheckKind`]) and purpose ([`CheckPurpose`]) from
//! its argv, so configured `cargo test` or `pytest` checks get their executed tests counted.
//!
//! Inference looks at words only; it never resolves or runs the program.

use super::spec::{CheckKind, CheckPurpose};

/// The runner and purpose an argv most likely has; `(Custom, Custom)` when unknown.
///
/// Recognised: `cargo test`, `pytest`/`py.test`, `python… -m pytest`, `python… -m
/// unittest`, `npm`/`pnpm`/`yarn` `test`/`run <script>`, `node --test`, and bare `jest`,
/// `vitest`, `mocha`.
pub fn infer_kind(argv: &[String]) -> (CheckKind, CheckPurpose) {
    let Some(program) = argv.first() else {
        return (CheckKind::Custom, CheckPurpose::Custom);
    };
    let name = program_name(program);
    let args: Vec<&str> = argv[1..].iter().map(String::as_str).collect();
    match name.as_str() {
        "cargo" => match first_word(&args) {
            Some("test") => (CheckKind::Cargo, CheckPurpose::Test),
            Some("clippy") => (CheckKind::Custom, CheckPurpose::Lint),
            Some("check") => (CheckKind::Custom, CheckPurpose::Typecheck),
            Some("build") => (CheckKind::Custom, CheckPurpose::Build),
            _ => (CheckKind::Custom, CheckPurpose::Custom),
        },
        "pytest" | "py.test" => (CheckKind::Pytest, CheckPurpose::Test),
        "npm" | "pnpm" | "yarn" => {
            let script = match first_word(&args) {
                Some("run") | Some("run-script") => args
                    .iter()
                    .skip_while(|a| **a != "run" && **a != "run-script")
                    .skip(1)
                    .find(|a| !a.starts_with('-'))
                    .copied(),
                other => other,
            };
            match script {
                Some("test") | Some("t") => (CheckKind::Npm, CheckPurpose::Test),
                Some("typecheck") => (CheckKind::Npm, CheckPurpose::Typecheck),
                Some("lint") => (CheckKind::Npm, CheckPurpose::Lint),
                Some("build") => (CheckKind::Npm, CheckPurpose::Build),
                _ => (CheckKind::Npm, CheckPurpose::Custom),
            }
        }
        "node" if args.contains(&"--test") => (CheckKind::Npm, CheckPurpose::Test),
        "jest" | "vitest" | "mocha" => (CheckKind::Npm, CheckPurpose::Test),
        _ if is_python(&name) => match module_after_dash_m(&args) {
            Some("pytest") => (CheckKind::Pytest, CheckPurpose::Test),
            Some("unittest") => (CheckKind::Unittest, CheckPurpose::Test),
            _ => (CheckKind::Custom, CheckPurpose::Custom),
        },
        _ => (CheckKind::Custom, CheckPurpose::Custom),
    }
}

/// The default purpose for an explicitly given kind.
pub(crate) fn default_purpose(kind: CheckKind) -> CheckPurpose {
    match kind {
        CheckKind::Cargo | CheckKind::Pytest | CheckKind::Unittest => CheckPurpose::Test,
        CheckKind::Npm | CheckKind::Custom => CheckPurpose::Custom,
    }
}

fn program_name(program: &str) -> String {
    let base = program.rsplit(['/', '\\']).next().unwrap_or(program);
    base.strip_suffix(".exe")
        .unwrap_or(base)
        .to_ascii_lowercase()
}

fn first_word<'a>(args: &[&'a str]) -> Option<&'a str> {
    args.iter().find(|a| !a.starts_with('-')).copied()
}

fn is_python(name: &str) -> bool {
    name == "py"
        || name
            .strip_prefix("python")
            .is_some_and(|rest| rest.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

fn module_after_dash_m<'a>(args: &[&'a str]) -> Option<&'a str> {
    args.iter()
        .position(|a| *a == "-m")
        .and_then(|i| args.get(i + 1))
        .copied()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn infer(words: &[&str]) -> (CheckKind, CheckPurpose) {
        infer_kind(&words.iter().map(|w| w.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn common_runners_are_recognised() {
        assert_eq!(
            infer(&["cargo", "test", "-p", "x"]),
            (CheckKind::Cargo, CheckPurpose::Test)
        );
        assert_eq!(
            infer(&["/usr/bin/python3.12", "-m", "pytest", "-q"]),
            (CheckKind::Pytest, CheckPurpose::Test)
        );
        assert_eq!(
            infer(&["python", "-m", "unittest"]),
            (CheckKind::Unittest, CheckPurpose::Test)
        );
        assert_eq!(infer(&["pytest"]), (CheckKind::Pytest, CheckPurpose::Test));
        assert_eq!(
            infer(&["npm", "test"]),
            (CheckKind::Npm, CheckPurpose::Test)
        );
        assert_eq!(
            infer(&["npm", "run", "--silent", "lint"]),
            (CheckKind::Npm, CheckPurpose::Lint)
        );
        assert_eq!(
            infer(&["node", "--test"]),
            (CheckKind::Npm, CheckPurpose::Test)
        );
        assert_eq!(
            infer(&["cargo", "clippy"]),
            (CheckKind::Custom, CheckPurpose::Lint)
        );
    }

    #[test]
    fn unknown_commands_stay_custom() {
        assert_eq!(
            infer(&["make", "test"]),
            (CheckKind::Custom, CheckPurpose::Custom)
        );
        assert_eq!(
            infer(&["pythonista", "-m", "pytest"]),
            (CheckKind::Custom, CheckPurpose::Custom)
        );
        assert_eq!(
            infer(&["python3", "tests.py"]),
            (CheckKind::Custom, CheckPurpose::Custom)
        );
    }
}
