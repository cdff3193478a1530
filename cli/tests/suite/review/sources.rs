//! The other diff sources: a patch file in the project, and a GitHub pull request
//! fetched from the REST API (here a local HTTP server speaking its protocol) with
//! the token sent and never printed or stored.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::thread;

use super::{
    SKIP_CLAIM, correctness_finds_the_bug, open_findings, quiet, report_of, review_args, script,
    verifier,
};
use crate::suite::harness::Test;

/// The seeded bug as a unified diff.
const PATCH: &str = "diff --git a/src/cart.rs b/src/cart.rs
index 1111111..2222222 100644
--- a/src/cart.rs
+++ b/src/cart.rs
@@ -10,6 +10,7 @@ pub struct Cart {
 impl Cart {
     pub fn total(&self) -> u64 {
-        self.items.iter().map(|i| i.price * i.qty).sum()
+        // Sum every line of the cart.
+        self.items.iter().skip(1).map(|i| i.price * i.qty).sum()
     }
 }
";

fn bug_script() -> String {
    let mut turns = vec![
        correctness_finds_the_bug(),
        verifier(SKIP_CLAIM, "confirmed", "reproduced"),
    ];
    turns.extend(quiet(&[
        "removed-behavior",
        "cross-file",
        "conventions",
        "security",
    ]));
    script(turns)
}

#[test]
fn a_patch_file_in_the_project_is_reviewed_and_one_outside_is_refused() {
    let ran = Test::new()
        .file("changes/cart.patch", PATCH)
        .file("script.json", bug_script())
        .args(review_args(&[
            "--format",
            "json",
            "--input",
            "patch=changes/cart.patch",
        ]))
        .status(4)
        .run();
    let report = report_of(&ran);
    let bug = &open_findings(&report)[0];
    assert_eq!(
        bug["grounding"], "grounded",
        "grounded in the patch: {report:#}"
    );
    assert_eq!(bug["verdict"], "confirmed");

    Test::new()
        .file("script.json", bug_script())
        .args(review_args(&["--input", "patch=../outside.patch"]))
        .status(1)
        .run();
    Test::new()
        .file("notes.txt", "please review my change\n")
        .file("script.json", bug_script())
        .args(review_args(&["--json", "--input", "patch=notes.txt"]))
        .status(1)
        .stdout_contains("does not look like a unified diff")
        .run();
}

/// What the fake GitHub API saw: one line per request (`METHOD PATH | accept | authorization`).
type Seen = Arc<Mutex<Vec<String>>>;

/// A local server answering `GET /repos/octo/shop/pulls/7` as GitHub does: the pull
/// request JSON, or its diff for `Accept: application/vnd.github.diff`.
fn fake_github() -> (String, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen: Seen = Arc::default();
    let log = Arc::clone(&seen);
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request_line = String::new();
            reader.read_line(&mut request_line).unwrap();
            let (mut accept, mut auth) = (String::new(), String::new());
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap() == 0 || line.trim().is_empty() {
                    break;
                }
                let lower = line.to_ascii_lowercase();
                if lower.starts_with("accept:") {
                    accept = line[7..].trim().to_string();
                } else if lower.starts_with("authorization:") {
                    auth = line[14..].trim().to_string();
                }
            }
            let path = request_line
                .split_whitespace()
                .nth(1)
                .unwrap_or("")
                .to_string();
            log.lock()
                .unwrap()
                .push(format!("GET {path} | {accept} | {auth}"));
            let (status, body) = if path != "/repos/octo/shop/pulls/7" {
                ("404 Not Found", r#"{"message": "Not Found"}"#.to_string())
            } else if accept.contains("diff") {
                ("200 OK", PATCH.to_string())
            } else {
                (
                    "200 OK",
                    serde_json::json!({
                        "number": 7,
                        "html_url": "https://github.com/octo/shop/pull/7",
                        "head": {"sha": "0123456789abcdef0123456789abcdef01234567", "ref": "fix-total"},
                        "base": {"sha": "89abcdef0123456789abcdef0123456789abcdef", "ref": "main"},
                    })
                    .to_string(),
                )
            };
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (url, seen)
}

const TOKEN: &str = "ghp_protoflowTestToken0123456789";

#[test]
fn a_pull_request_is_reviewed_at_its_head_sha_with_the_token_sent_and_never_shown() {
    let (api, seen) = fake_github();
    let ran = Test::new()
        .file("script.json", bug_script())
        .env("GITHUB_API_URL", &api)
        .env("GITHUB_TOKEN", TOKEN)
        .env("GITHUB_REPOSITORY", "octo/shop")
        .args(review_args(&[
            "--json",
            "--input",
            "pr=7",
            "--fail-on",
            "never",
        ]))
        .status(0)
        .stdout_contains("pull request octo/shop#7 at 0123456789abcdef0123456789abcdef01234567")
        .stdout_lacks(TOKEN)
        .run();
    assert!(!ran.stderr.contains(TOKEN));
    let requests = seen.lock().unwrap().clone();
    assert_eq!(requests.len(), 3, "{requests:?}");
    for request in &requests {
        assert!(
            request.starts_with("GET /repos/octo/shop/pulls/7 | "),
            "{request}"
        );
        assert!(request.ends_with(&format!("| Bearer {TOKEN}")), "{request}");
    }
    assert!(
        requests[1].contains("application/vnd.github.diff"),
        "{requests:?}"
    );

    let run: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    let report = &run["outputs"]["json"];
    assert_eq!(open_findings(report)[0]["grounding"], "grounded");
    // Nothing the run stored holds the token either.
    for file in ["protoflow.db", "protoflow.db-wal"] {
        let path = ran.dir.path().join(".protoflow").join(file);
        if let Ok(bytes) = std::fs::read(&path) {
            let text = String::from_utf8_lossy(&bytes);
            assert!(!text.contains(TOKEN), "{file} holds the token");
        }
    }
}

#[test]
fn a_pull_request_the_api_does_not_know_fails_the_run_with_the_reason() {
    let (api, _seen) = fake_github();
    Test::new()
        .file("script.json", bug_script())
        .env("GITHUB_API_URL", &api)
        .env("GITHUB_TOKEN", TOKEN)
        .args(review_args(&[
            "--json",
            "--input",
            "pr=8",
            "--input",
            "repo=octo/shop",
        ]))
        .status(1)
        .stdout_contains("HTTP 404 Not Found")
        .stdout_lacks(TOKEN)
        .run();
}
