//! `protoflow run recipes/code-review.yaml` end to end through the real binary: a
//! fixture git repository with a seeded bug, the scripted provider playing the
//! finders and verifiers (`order: by_expect`, so parallel steps need no fixed order),
//! the published formats, the gates and exit codes, coverage gaps, and the other
//! diff sources (a patch file, a GitHub pull request from a local HTTP server).

mod formats;
mod gates;
mod sources;

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use super::harness::{Ran, Test, repo};

/// `src/cart.rs` before the change.
pub const CART_BASE: &str = "pub struct Item {
    pub price: u64,
    pub qty: u64,
}

pub struct Cart {
    pub items: Vec<Item>,
}

impl Cart {
    pub fn total(&self) -> u64 {
        self.items.iter().map(|i| i.price * i.qty).sum()
    }
}
";

/// `src/cart.rs` after the change: `total()` now skips the first item (line 13).
pub const CART_CHANGED: &str = "pub struct Item {
    pub price: u64,
    pub qty: u64,
}

pub struct Cart {
    pub items: Vec<Item>,
}

impl Cart {
    pub fn total(&self) -> u64 {
        // Sum every line of the cart.
        self.items.iter().skip(1).map(|i| i.price * i.qty).sum()
    }
}
";

/// The claim both the correctness and the removed-behavior finders make.
pub const SKIP_CLAIM: &str = "total() skips the first item of the cart";

/// Runs git in `dir` with no user or system configuration.
pub fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A test in a fresh git repository: a base commit, then a commit with the seeded bug.
pub fn seeded_repo() -> Test {
    let test = Test::new().file("src/cart.rs", CART_BASE);
    git(test.path(), &["init", "-q", "-b", "main"]);
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "base"]);
    let test = test.file("src/cart.rs", CART_CHANGED);
    git(test.path(), &["commit", "-q", "-am", "sum the cart"]);
    test
}

/// A scripted finder answer for one angle.
pub fn finder(angle: &str, text: &str) -> Value {
    json!({"expect": [format!("Angle: {angle}.")], "text": text})
}

/// The seeded bug as the correctness finder reports it: prose around a fenced
/// block, a severity word that must be mapped (`high` → major).
pub fn correctness_finds_the_bug() -> Value {
    finder(
        "correctness",
        &format!(
            "I read the diff and `total()`.\n```json\n[{{\"file\": \"src/cart.rs\", \"line\": 13, \"severity\": \"high\", \"category\": \"correctness\", \"claim\": \"{SKIP_CLAIM}\", \"evidence\": \"self.items.iter().skip(1).map(|i| i.price * i.qty).sum()\", \"note\": \"Remove skip(1).\"}}]\n```\nThat is all from this angle."
        ),
    )
}

/// The same bug from the removed-behavior angle, in messy JSON (single quotes, a
/// trailing comma): a duplicate the merge folds into one finding.
pub fn removed_behavior_finds_it_too() -> Value {
    finder(
        "removed-behavior",
        &format!(
            "[{{'file': 'src/cart.rs', 'line': 13, 'severity': 'major', 'category': 'removed-behavior', 'claim': '{SKIP_CLAIM}', 'evidence': 'self.items.iter().skip(1)',}}]"
        ),
    )
}

/// The finders of the given angles answering "nothing found".
pub fn quiet(angles: &[&str]) -> Vec<Value> {
    angles
        .iter()
        .map(|a| finder(a, "Nothing from this angle: []"))
        .collect()
}

/// A scripted verification of the finding whose claim contains `claim`.
pub fn verifier(claim: &str, verdict: &str, note: &str) -> Value {
    json!({
        "expect": ["Verify finding", claim],
        "text": json!({"verdict": verdict, "note": note}).to_string(),
    })
}

/// A script whose turns are matched by `expect`.
pub fn script(turns: Vec<Value>) -> String {
    json!({"order": "by_expect", "turns": turns}).to_string()
}

/// The shipped recipe file.
pub fn recipe() -> String {
    repo()
        .join("recipes/code-review.yaml")
        .display()
        .to_string()
}

/// `run recipes/code-review.yaml --provider scripted:script.json --approve reads-only` plus `extra`.
pub fn review_args(extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "run",
        &recipe(),
        "--provider",
        "scripted:script.json",
        "--approve",
        "reads-only",
        "--quiet",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

/// The typed report printed by `--format json`.
pub fn report_of(ran: &Ran) -> Value {
    serde_json::from_str(&ran.stdout)
        .unwrap_or_else(|e| panic!("--format json is not JSON ({e}):\n{}", ran.stdout))
}

/// The findings of a report that are still open (not refuted).
pub fn open_findings(report: &Value) -> Vec<Value> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["verdict"] != "refuted")
        .cloned()
        .collect()
}
