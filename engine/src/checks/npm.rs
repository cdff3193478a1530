//! npm discovery: the root `package.json` scripts `test`, `typecheck`, `lint` and `build`
//! become `npm run --silent <script>` checks. npm's placeholder test script (`echo "Error:
//! no test specified" && exit 1`) and empty scripts are skipped with a reason.
//!
//! Reads only `package.json` (capped at 1 MiB); never runs npm or node, and never reads
//! `node_modules`.

use std::path::Path;

use super::discover::{Candidate, Findings};
use super::inventory::Inventory;
use super::read::{MANIFEST_SIZE_LIMIT, ReadOutcome, read_project_file};
use super::spec::{CheckKind, CheckPurpose};

/// Scripts offered as checks, with their purpose.
const SCRIPTS: &[(&str, CheckPurpose)] = &[
    ("test", CheckPurpose::Test),
    ("typecheck", CheckPurpose::Typecheck),
    ("lint", CheckPurpose::Lint),
    ("build", CheckPurpose::Build),
];

/// What the scripts depend on: manifests, lockfiles, sources and tool configs.
const PATTERNS: &[&str] = &[
    "package.json",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "**/*.{js,mjs,cjs,jsx,ts,mts,cts,tsx,json,vue,svelte,css,scss,html}",
    "**/.eslintrc*",
    "**/.babelrc*",
    "**/.npmrc",
];

/// The text `npm init` puts in the default `test` script.
const PLACEHOLDER: &str = "Error: no test specified";

pub(crate) fn detect(root: &Path, _inventory: &Inventory, findings: &mut Findings) {
    let text = match read_project_file(root, "package.json", MANIFEST_SIZE_LIMIT) {
        ReadOutcome::Missing => return,
        ReadOutcome::Text(text) => text,
        ReadOutcome::Problem(problem) => {
            findings.skip("npm", problem);
            return;
        }
    };
    let manifest: serde_json::Value = match serde_json::from_str(&text) {
        Ok(value) => value,
        Err(err) => {
            findings.skip("npm", format!("package.json does not parse: {err}"));
            return;
        }
    };
    let Some(scripts) = manifest.get("scripts").and_then(|s| s.as_object()) else {
        findings.skip("npm", "package.json has no \"scripts\" object");
        return;
    };

    let mut offered = 0;
    for (name, purpose) in SCRIPTS {
        let id = format!("npm:{name}");
        let Some(value) = scripts.get(*name) else {
            continue;
        };
        let Some(command) = value.as_str() else {
            findings.skip(
                &id,
                format!("package.json script \"{name}\" is not a string"),
            );
            continue;
        };
        if command.trim().is_empty() {
            findings.skip(&id, format!("package.json script \"{name}\" is empty"));
            continue;
        }
        if *name == "test" && command.contains(PLACEHOLDER) {
            findings.skip(
                &id,
                format!("package.json \"test\" is npm's placeholder ({command}), not a test suite"),
            );
            continue;
        }
        offered += 1;
        findings.candidates.push(Candidate {
            id,
            argv: vec![
                "npm".to_string(),
                "run".to_string(),
                "--silent".to_string(),
                name.to_string(),
            ],
            env: vec![
                ("CI".to_string(), "true".to_string()),
                ("NO_COLOR".to_string(), "1".to_string()),
            ],
            patterns: PATTERNS.iter().map(|p| p.to_string()).collect(),
            reason: format!("package.json script \"{name}\": {command}"),
            bootstrap: false,
            kind: CheckKind::Npm,
            purpose: *purpose,
        });
    }

    let others: Vec<&str> = scripts
        .keys()
        .map(String::as_str)
        .filter(|key| !SCRIPTS.iter().any(|(name, _)| name == key))
        .collect();
    if !others.is_empty() {
        findings.notes.push(format!(
            "package.json scripts not used as checks (only test, typecheck, lint and build are): {}",
            others.join(", ")
        ));
    }
    let has_dependencies = ["dependencies", "devDependencies"].iter().any(|key| {
        manifest
            .get(*key)
            .and_then(|d| d.as_object())
            .is_some_and(|d| !d.is_empty())
    });
    if offered > 0 && has_dependencies && !root.join("node_modules").is_dir() {
        findings.notes.push(
            "package.json declares dependencies but node_modules/ is missing: install them (npm ci) before the npm checks can pass".to_string(),
        );
    }
}
