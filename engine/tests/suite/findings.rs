//! Findings: parsing model output, grounding, dedup, prior rounds, verdicts,
//! rendering (Markdown, SARIF against the official schema) and the JSON tool API.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod api;
mod grounding;
mod merge;
mod parse;
mod render;
mod schema;
mod verdict;

use protoflow_engine::findings::{Category, Finding, Grounding, Severity, Verdict};

/// A two-file diff with a seeded bug (`skip(1)`) and an SQL injection.
pub(crate) const DIFF: &str = r#"diff --git a/src/cart.rs b/src/cart.rs
index 3b18e51..a9c4f02 100644
--- a/src/cart.rs
+++ b/src/cart.rs
@@ -10,8 +10,8 @@ impl Cart {
     pub fn total(&self) -> u64 {
-        self.items.iter().map(|i| i.price * i.qty).sum()
+        self.items.iter().skip(1).map(|i| i.price * i.qty).sum()
     }
 
     pub fn discount(&self, code: &str) -> u64 {
-        if code == "SAVE10" { 10 } else { 0 }
+        if code.eq_ignore_ascii_case("save10") { 10 } else { 0 }
     }
 }
diff --git a/src/db.rs b/src/db.rs
index 1111111..2222222 100644
--- a/src/db.rs
+++ b/src/db.rs
@@ -3,3 +3,4 @@ use crate::Conn;
 pub fn find_user(conn: &Conn, name: &str) -> Option<User> {
-    conn.query("SELECT * FROM users WHERE name = ?", &[name])
+    let sql = format!("SELECT * FROM users WHERE name = '{}'", name);
+    conn.query(&sql, &[])
 }
"#;

/// A finding with the given essentials (no verdict, not grounding-checked).
pub(crate) fn finding(
    file: &str,
    line: u32,
    severity: Severity,
    category: &str,
    claim: &str,
    evidence: &str,
) -> Finding {
    Finding {
        id: None,
        file: file.to_owned(),
        line,
        end_line: None,
        severity,
        category: Category::new(category).unwrap(),
        claim: claim.to_owned(),
        evidence: evidence.to_owned(),
        verdict: None,
        note: None,
        sources: vec!["test".to_owned()],
        grounding: None,
        downgraded_from: None,
    }
}

/// The same finding, marked grounded and with a verdict.
pub(crate) fn checked(mut f: Finding, grounding: Grounding, verdict: Option<Verdict>) -> Finding {
    f.grounding = Some(grounding);
    f.verdict = verdict;
    f
}
