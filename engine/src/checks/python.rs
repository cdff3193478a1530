//! Python discovery: pytest when the project configures or depends on it, else unittest
//! when `test*.py` files exist, else (for a Python project with no tests and no runner) a
//! bootstrap unittest check over a `tests/` directory a change may create.
//!
//! Reads only small root files (pyproject.toml, setup.cfg, tox.ini, requirements*.txt),
//! capped; never imports or runs Python.

use std::path::Path;

use super::discover::{Candidate, Findings};
use super::inventory::Inventory;
use super::read::{MANIFEST_SIZE_LIMIT, ReadOutcome, read_project_file};
use super::spec::{CheckKind, CheckPurpose};

const PYTEST_ID: &str = "python:pytest";
const UNITTEST_ID: &str = "python:unittest";
const BOOTSTRAP_ID: &str = "python:unittest-bootstrap";

/// Files a Python test run depends on.
const PATTERNS: &[&str] = &[
    "**/*.py",
    "pyproject.toml",
    "setup.cfg",
    "setup.py",
    "pytest.ini",
    "pytest.toml",
    ".pytest.toml",
    "tox.ini",
    "requirements*.txt",
    "requirements/**",
    "tests/**",
    "test/**",
];

/// Root files that make a directory a Python project even before it has `.py` files.
const MARKERS: &[&str] = &[
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "Pipfile",
    "tox.ini",
    "pytest.ini",
];

pub(crate) fn detect(root: &Path, inventory: &Inventory, findings: &mut Findings) {
    let (own, foreign) = own_python_files(inventory);
    if !foreign.is_empty() {
        findings.notes.push(format!(
            "Python files under fixture directories or nested projects are not this project's tests: {}",
            foreign.iter().take(5).cloned().collect::<Vec<_>>().join(", ")
        ));
    }
    let named = |predicate: fn(&str) -> bool| -> Vec<&str> {
        own.iter()
            .copied()
            .filter(|path| predicate(path.rsplit('/').next().unwrap_or(path)))
            .collect()
    };
    let py_files = own.len();
    let requirements: Vec<&str> = inventory
        .files
        .iter()
        .map(String::as_str)
        .filter(|path| is_requirements_file(path))
        .collect();
    let markers: Vec<&str> = MARKERS
        .iter()
        .copied()
        .filter(|marker| inventory.contains(marker))
        .chain(requirements.iter().copied())
        .collect();
    if py_files == 0 && markers.is_empty() {
        return;
    }

    let conftest = named(|name| name == "conftest.py");
    let signals = pytest_signals(root, inventory, &requirements, conftest.first(), findings);
    let unittest_files = named(|name| name.starts_with("test"));
    let suffix_files = named(|name| name.ends_with("_test.py") && !name.starts_with("test"));
    let env = vec![("PYTHONDONTWRITEBYTECODE".to_string(), "1".to_string())];
    let patterns: Vec<String> = PATTERNS.iter().map(|p| p.to_string()).collect();

    if !signals.is_empty() {
        let test_count = unittest_files.len() + suffix_files.len();
        let mut reason = format!("pytest is configured: {}", signals.join("; "));
        if test_count == 0 {
            reason.push_str(
                " (no test files found yet: a run that collects no tests is not verification)",
            );
        }
        findings.candidates.push(Candidate {
            id: PYTEST_ID.to_string(),
            argv: words(&["python3", "-m", "pytest", "-p", "no:cacheprovider"]),
            env,
            patterns,
            reason,
            bootstrap: false,
            kind: CheckKind::Pytest,
            purpose: CheckPurpose::Test,
        });
        if !unittest_files.is_empty() {
            findings.skip(
                UNITTEST_ID,
                "pytest is configured and also runs unittest-style tests",
            );
        }
        return;
    }

    let (files, pattern) = if !unittest_files.is_empty() {
        (unittest_files, "test*.py")
    } else if !suffix_files.is_empty() {
        (suffix_files, "*_test.py")
    } else {
        findings
            .candidates
            .push(bootstrap(env, patterns, py_files, &markers));
        findings.skip(
            PYTEST_ID,
            "pytest is not configured (no pytest.ini, pytest.toml, [tool.pytest.ini_options], [tool:pytest], conftest.py or pytest dependency)",
        );
        return;
    };

    let start = common_top_dir(&files);
    let mut argv = words(&["python3", "-m", "unittest", "discover", "-s"]);
    argv.push(start.clone());
    if start == "." || inventory.contains(&format!("{start}/__init__.py")) {
        argv.extend(words(&["-t", "."]));
    }
    argv.extend(words(&["-p", pattern]));
    let unreachable: Vec<&str> = files
        .iter()
        .copied()
        .filter(|file| !reachable(inventory, &start, file))
        .collect();
    if unreachable.len() == files.len() {
        // A check that can find none of the tests would only ever report an empty
        // suite; proposing it would be noise, not evidence.
        findings.skip(
            UNITTEST_ID,
            format!(
                "none of the {} test file(s) would be found by unittest discovery from `{start}` (their directories lack __init__.py), e.g. {}",
                files.len(),
                files[0]
            ),
        );
        return;
    }
    if !unreachable.is_empty() {
        findings.notes.push(format!(
            "{} test file(s) sit in directories without __init__.py and will not be found by unittest discovery from `{start}`: {}",
            unreachable.len(),
            unreachable.iter().take(5).copied().collect::<Vec<_>>().join(", ")
        ));
    }
    findings.candidates.push(Candidate {
        id: UNITTEST_ID.to_string(),
        argv,
        env,
        patterns,
        reason: format!(
            "{} unittest-style test file(s) matching `{pattern}` (e.g. {}) and no pytest configuration",
            files.len(),
            files[0]
        ),
        bootstrap: false,
        kind: CheckKind::Unittest,
        purpose: CheckPurpose::Test,
    });
}

fn bootstrap(
    env: Vec<(String, String)>,
    patterns: Vec<String>,
    py_files: usize,
    markers: &[&str],
) -> Candidate {
    let evidence = if markers.is_empty() {
        format!("{py_files} Python file(s)")
    } else {
        format!("{py_files} Python file(s) and {}", markers.join(", "))
    };
    Candidate {
        id: BOOTSTRAP_ID.to_string(),
        argv: words(&["python3", "-m", "unittest", "discover", "-s", "tests"]),
        env,
        patterns,
        reason: format!(
            "a Python project ({evidence}) with no tests and no test runner: runs `python3 -m unittest discover -s tests` over a tests/ directory a change may create; it fails (or runs zero tests) until such tests exist"
        ),
        bootstrap: true,
        kind: CheckKind::Unittest,
        purpose: CheckPurpose::Test,
    }
}

/// Reasons to believe the project uses pytest, each naming the file that shows it.
fn pytest_signals(
    root: &Path,
    inventory: &Inventory,
    requirements: &[&str],
    conftest: Option<&&str>,
    findings: &mut Findings,
) -> Vec<String> {
    let mut signals = Vec::new();
    for file in ["pytest.ini", "pytest.toml", ".pytest.toml"] {
        if inventory.contains(file) {
            signals.push(format!("{file} exists"));
        }
    }
    if let Some(text) = read_text(root, inventory, "pyproject.toml", findings) {
        match text.parse::<toml::Table>() {
            Ok(table) => {
                let tool_pytest = table.get("tool").and_then(|t| t.get("pytest"));
                if tool_pytest.and_then(|p| p.get("ini_options")).is_some() {
                    signals.push("pyproject.toml has [tool.pytest.ini_options]".to_string());
                } else if tool_pytest.is_some() {
                    signals.push("pyproject.toml has [tool.pytest]".to_string());
                }
                if let Some(group) = pyproject_pytest_dependency(&table) {
                    signals.push(format!("pyproject.toml lists pytest in {group}"));
                }
            }
            Err(err) => findings.notes.push(format!(
                "pyproject.toml does not parse ({}); its pytest settings were not read",
                err.message()
            )),
        }
    }
    if let Some(text) = read_text(root, inventory, "setup.cfg", findings)
        && has_section(&text, "tool:pytest")
    {
        signals.push("setup.cfg has [tool:pytest]".to_string());
    }
    if let Some(text) = read_text(root, inventory, "tox.ini", findings)
        && has_section(&text, "pytest")
    {
        signals.push("tox.ini has [pytest]".to_string());
    }
    if let Some(conftest) = conftest {
        signals.push(format!("{conftest} exists"));
    }
    for file in requirements {
        if let Some(text) = read_text(root, inventory, file, findings)
            && text.lines().any(requirement_is_pytest)
        {
            signals.push(format!("{file} lists pytest"));
        }
    }
    signals
}

/// Directory names holding test data rather than the project's own tests.
const FIXTURE_DIRS: &[&str] = &[
    "fixtures",
    "__fixtures__",
    "testdata",
    "test_data",
    "test-data",
];

/// Files that make a subdirectory a project of its own.
const NESTED_PROJECT_MARKERS: &[&str] = &[
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "requirements.txt",
    "package.json",
    "Cargo.toml",
];

/// The project's own `.py` files, and (separately, for a note) the directories holding
/// `.py` files that belong to fixtures or nested projects.
fn own_python_files(inventory: &Inventory) -> (Vec<&str>, Vec<String>) {
    let nested: std::collections::HashSet<&str> = inventory
        .files
        .iter()
        .filter_map(|path| path.rsplit_once('/'))
        .filter(|(_, name)| NESTED_PROJECT_MARKERS.contains(name))
        .map(|(dir, _)| dir)
        .collect();
    let mut own = Vec::new();
    let mut foreign = std::collections::BTreeSet::new();
    for path in inventory.files.iter().filter(|p| p.ends_with(".py")) {
        let mut dir = path.as_str();
        let mut excluded_at = None;
        while let Some((parent, _)) = dir.rsplit_once('/') {
            let name = parent.rsplit('/').next().unwrap_or(parent);
            if nested.contains(parent) || FIXTURE_DIRS.contains(&name) {
                excluded_at = Some(parent);
            }
            dir = parent;
        }
        match excluded_at {
            Some(outermost) => {
                foreign.insert(format!("{outermost}/"));
            }
            None => own.push(path.as_str()),
        }
    }
    (own, foreign.into_iter().collect())
}

fn read_text(
    root: &Path,
    inventory: &Inventory,
    file: &str,
    findings: &mut Findings,
) -> Option<String> {
    if !inventory.contains(file) {
        return None;
    }
    match read_project_file(root, file, MANIFEST_SIZE_LIMIT) {
        ReadOutcome::Text(text) => Some(text),
        ReadOutcome::Missing => None,
        ReadOutcome::Problem(problem) => {
            findings.notes.push(format!("{problem}; it was not read"));
            None
        }
    }
}

fn is_requirements_file(path: &str) -> bool {
    let in_root = !path.contains('/');
    let in_dir = path.starts_with("requirements/") && path.matches('/').count() == 1;
    let name = path.rsplit('/').next().unwrap_or(path);
    path.ends_with(".txt") && ((in_root && name.starts_with("requirements")) || in_dir)
}

fn has_section(ini: &str, section: &str) -> bool {
    ini.lines().any(|line| {
        line.trim()
            .strip_prefix('[')
            .and_then(|l| l.strip_suffix(']'))
            == Some(section)
    })
}

/// Whether a requirement line (PEP 508, as in requirements.txt or pyproject) names pytest.
fn requirement_is_pytest(line: &str) -> bool {
    let line = line.split('#').next().unwrap_or("").trim();
    if line.starts_with('-') {
        return false;
    }
    let name: String = line
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .collect();
    name.to_ascii_lowercase().replace(['_', '.'], "-") == "pytest"
}

/// Where pyproject.toml lists pytest as a dependency, if it does.
fn pyproject_pytest_dependency(table: &toml::Table) -> Option<String> {
    let strings_name_pytest = |value: &toml::Value| {
        value.as_array().is_some_and(|items| {
            items
                .iter()
                .filter_map(|i| i.as_str())
                .any(requirement_is_pytest)
        })
    };
    let project = table.get("project");
    if project
        .and_then(|p| p.get("dependencies"))
        .is_some_and(strings_name_pytest)
    {
        return Some("[project] dependencies".to_string());
    }
    if let Some(extras) = project
        .and_then(|p| p.get("optional-dependencies"))
        .and_then(|o| o.as_table())
    {
        for (extra, list) in extras {
            if strings_name_pytest(list) {
                return Some(format!("[project.optional-dependencies] {extra}"));
            }
        }
    }
    if let Some(groups) = table.get("dependency-groups").and_then(|g| g.as_table()) {
        for (group, list) in groups {
            if strings_name_pytest(list) {
                return Some(format!("[dependency-groups] {group}"));
            }
        }
    }
    let poetry = table.get("tool").and_then(|t| t.get("poetry"));
    let has_pytest_key = |value: Option<&toml::Value>| {
        value
            .and_then(|v| v.as_table())
            .is_some_and(|deps| deps.keys().any(|k| requirement_is_pytest(k)))
    };
    for section in ["dependencies", "dev-dependencies"] {
        if has_pytest_key(poetry.and_then(|p| p.get(section))) {
            return Some(format!("[tool.poetry.{section}]"));
        }
    }
    if let Some(groups) = poetry
        .and_then(|p| p.get("group"))
        .and_then(|g| g.as_table())
    {
        for (group, body) in groups {
            if has_pytest_key(body.get("dependencies")) {
                return Some(format!("[tool.poetry.group.{group}.dependencies]"));
            }
        }
    }
    None
}

/// The single top-level directory all files share, or `.`.
fn common_top_dir(files: &[&str]) -> String {
    let mut top: Option<&str> = None;
    for file in files {
        let Some((dir, _)) = file.split_once('/') else {
            return ".".to_string();
        };
        match top {
            None => top = Some(dir),
            Some(existing) if existing == dir => {}
            Some(_) => return ".".to_string(),
        }
    }
    top.unwrap_or(".").to_string()
}

/// Whether unittest discovery from `start` reaches `file`: every directory below `start`
/// on the way must be a package (hold `__init__.py`).
fn reachable(inventory: &Inventory, start: &str, file: &str) -> bool {
    let below = if start == "." {
        file
    } else {
        match file
            .strip_prefix(start)
            .and_then(|rest| rest.strip_prefix('/'))
        {
            Some(rest) => rest,
            None => return false,
        }
    };
    let mut dirs: Vec<&str> = below.split('/').collect();
    dirs.pop();
    let mut prefix = if start == "." {
        String::new()
    } else {
        format!("{start}/")
    };
    for dir in dirs {
        prefix.push_str(dir);
        prefix.push('/');
        if !inventory.contains(&format!("{prefix}__init__.py")) {
            return false;
        }
    }
    true
}

fn words(items: &[&str]) -> Vec<String> {
    items.iter().map(|w| w.to_string()).collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn pytest_requirements_are_recognised_by_name_only() {
        for yes in [
            "pytest",
            "pytest==8.1",
            "PyTest>=7 ; python_version>'3.8'",
            "pytest[testing]",
        ] {
            assert!(requirement_is_pytest(yes), "{yes}");
        }
        for no in [
            "pytest-cov",
            "pytest_mock",
            "# pytest",
            "-r dev.txt",
            "pytestx",
            "",
        ] {
            assert!(!requirement_is_pytest(no), "{no}");
        }
    }

    #[test]
    fn ini_sections_match_whole_headers() {
        assert!(has_section(
            "[metadata]\n[tool:pytest]\naddopts=-q\n",
            "tool:pytest"
        ));
        assert!(!has_section("# [tool:pytest]\n", "tool:pytest"));
    }

    #[test]
    fn start_dir_is_the_shared_top_directory() {
        assert_eq!(
            common_top_dir(&["tests/test_a.py", "tests/sub/test_b.py"]),
            "tests"
        );
        assert_eq!(common_top_dir(&["tests/test_a.py", "test_b.py"]), ".");
        assert_eq!(common_top_dir(&["a/test_a.py", "b/test_b.py"]), ".");
    }
}
