//! Source tools: `read_diff` and `read_json` (confined, whole, refused when too
//! large or not what they claim), and `github_pull_request` against a local server
//! speaking the GitHub REST protocol, with the token sent and kept secret.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use protoflow_engine::tools::sources::{GithubPullRequest, ReadDiff, ReadJson};
use serde_json::{Value, json};

use super::tools_common::{Project, call, is_path_refused, reason};

const DIFF: &str = "diff --git a/a.rs b/a.rs\n--- a/a.rs\n+++ b/a.rs\n@@ -1 +1 @@\n-old\n+new\n";

#[tokio::test]
async fn read_diff_returns_the_whole_diff_and_refuses_what_is_not_one() {
    let p = Project::new();
    p.write("c/change.patch", DIFF);
    p.write("notes.md", "not a diff\n");
    let out = call(&ReadDiff, &p.ctx, json!({"path": "c/change.patch"}))
        .await
        .unwrap();
    assert_eq!(out.value["diff"], DIFF);
    assert_eq!(out.value["files"], json!(["a.rs"]));
    assert!(
        reason(call(&ReadDiff, &p.ctx, json!({"path": "notes.md"})).await).contains("unified diff")
    );
    assert!(is_path_refused(
        &call(&ReadDiff, &p.ctx, json!({"path": "../x.patch"})).await
    ));
    std::os::unix::fs::symlink(p.path("c/change.patch"), p.path("link.patch")).unwrap();
    assert!(is_path_refused(
        &call(&ReadDiff, &p.ctx, json!({"path": "link.patch"})).await
    ));
}

#[tokio::test]
async fn read_json_parses_a_file_and_refuses_invalid_json() {
    let p = Project::new();
    p.write("prior.json", r#"{"findings": []}"#);
    p.write("bad.json", "{oops");
    let out = call(&ReadJson, &p.ctx, json!({"path": "prior.json"}))
        .await
        .unwrap();
    assert_eq!(out.value["value"], json!({"findings": []}));
    assert!(
        reason(call(&ReadJson, &p.ctx, json!({"path": "bad.json"})).await)
            .contains("not valid JSON")
    );
    assert!(is_path_refused(
        &call(&ReadJson, &p.ctx, json!({"path": "/etc/passwd"})).await
    ));
}

type Seen = Arc<Mutex<Vec<(String, String, String)>>>;

/// Serves `/repos/o/r/pulls/5`: JSON (head SHAs from `heads`, one per JSON request)
/// or the diff; anything else 404 with a body echoing the Authorization header.
fn server(heads: Vec<&'static str>) -> (String, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen: Seen = Arc::default();
    let log = Arc::clone(&seen);
    std::thread::spawn(move || {
        let mut heads = heads.into_iter();
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut first = String::new();
            reader.read_line(&mut first).unwrap();
            let mut headers = BTreeMap::new();
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap() == 0 || line.trim().is_empty() {
                    break;
                }
                if let Some((k, v)) = line.split_once(':') {
                    headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
                }
            }
            let path = first.split_whitespace().nth(1).unwrap_or("").to_string();
            let accept = headers.get("accept").cloned().unwrap_or_default();
            let auth = headers.get("authorization").cloned().unwrap_or_default();
            log.lock()
                .unwrap()
                .push((path.clone(), accept.clone(), auth.clone()));
            let (status, body) = if path != "/repos/o/r/pulls/5" {
                (
                    "401 Unauthorized",
                    format!("{{\"message\": \"bad credentials {auth}\"}}"),
                )
            } else if accept.contains("diff") {
                ("200 OK", DIFF.to_string())
            } else {
                let head = heads
                    .next()
                    .unwrap_or("ffffffffffffffffffffffffffffffffffffffff");
                ("200 OK", json!({"head": {"sha": head, "ref": "x"}, "base": {"sha": "0000000000000000000000000000000000000000", "ref": "main"}, "html_url": "https://github.com/o/r/pull/5"}).to_string())
            };
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (url, seen)
}

fn tool(vars: &[(&str, &str)]) -> GithubPullRequest {
    let vars: BTreeMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    GithubPullRequest::with_reader(Arc::new(move |name| vars.get(name).cloned()))
}

const TOKEN: &str = "ghs_engineTestToken_abcdef123456";
const HEAD: &str = "1111111111111111111111111111111111111111";

#[tokio::test]
async fn a_pull_request_is_fetched_at_its_head_sha_with_the_token() {
    let (url, seen) = server(vec![HEAD, HEAD]);
    let gh = tool(&[
        ("GITHUB_API_URL", &url),
        ("GITHUB_TOKEN", TOKEN),
        ("GITHUB_REPOSITORY", "o/r"),
    ]);
    let p = Project::new();
    let prepared = {
        use protoflow_engine::tools::Tool;
        gh.prepare(&p.ctx, json!({"number": 5})).await.unwrap()
    };
    assert!(!format!("{:?}", prepared.preview).contains(TOKEN));
    let out = call(&gh, &p.ctx, json!({"number": 5})).await.unwrap();
    assert_eq!(out.value["diff"], DIFF);
    assert_eq!(out.value["head_sha"], HEAD);
    assert_eq!(out.value["repo"], "o/r");
    assert!(!out.value.to_string().contains(TOKEN));
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen.len(),
        3,
        "JSON, diff, JSON again (prepare sends nothing): {seen:?}"
    );
    assert!(
        seen.iter()
            .all(|(_, _, auth)| auth == &format!("Bearer {TOKEN}"))
    );
    assert_eq!(seen[1].1, "application/vnd.github.diff");
}

#[tokio::test]
async fn a_head_that_moves_while_fetching_is_refused() {
    let (url, _) = server(vec![HEAD, "2222222222222222222222222222222222222222"]);
    let gh = tool(&[("GITHUB_API_URL", &url), ("GITHUB_TOKEN", TOKEN)]);
    let p = Project::new();
    let why = reason(call(&gh, &p.ctx, json!({"number": 5, "repo": "o/r"})).await);
    assert!(why.contains("head moved"), "{why}");
}

#[tokio::test]
async fn errors_never_carry_the_token_and_bad_arguments_are_refused_before_any_request() {
    let (url, seen) = server(vec![]);
    let gh = tool(&[("GITHUB_API_URL", &url), ("GITHUB_TOKEN", TOKEN)]);
    let p = Project::new();
    let why = reason(call(&gh, &p.ctx, json!({"number": 6, "repo": "o/r"})).await);
    assert!(why.contains("HTTP 401"), "{why}");
    assert!(why.contains("check GITHUB_TOKEN"), "{why}");
    assert!(!why.contains(TOKEN), "{why}");

    let before = seen.lock().unwrap().len();
    let no_repo = reason(call(&gh, &p.ctx, json!({"number": 5})).await);
    assert!(no_repo.contains("GITHUB_REPOSITORY"), "{no_repo}");
    let bad = reason(call(&gh, &p.ctx, json!({"number": 5, "repo": "../../etc"})).await);
    assert!(bad.contains("owner/name"), "{bad}");
    let zero: Value = json!({"number": 0, "repo": "o/r"});
    assert!(reason(call(&gh, &p.ctx, zero).await).contains("number"));
    assert_eq!(seen.lock().unwrap().len(), before);
}
