//! Judging a case: did the run claim completion, did the oracle agree.

use serde::Serialize;
use serde_json::Value;

use super::oracle::OracleResult;

/// Whether a run report claims completion: its completion verdict says
/// `satisfied` or `verified`; without a verdict, the run succeeded.
pub fn claimed_completion(report: &Value) -> bool {
    match report.get("completion") {
        Some(c) if c.is_object() => {
            c.get("status").and_then(Value::as_str) == Some("satisfied")
                || c.get("verified").and_then(Value::as_bool) == Some(true)
        }
        _ => report.get("status").and_then(Value::as_str) == Some("succeeded"),
    }
}

/// One case's result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaseResult {
    /// The case's name.
    pub name: String,
    /// The oracle passed after the run (and failed before it).
    pub solved: bool,
    /// The run claimed completion.
    pub claimed: bool,
    /// It claimed completion while the oracle fails.
    pub false_completion: bool,
    /// The run's exit code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The run's completion status and verification, when it reported them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completion: Option<Value>,
    /// The oracle before the run (it must fail).
    pub oracle_before: OracleResult,
    /// The oracle after the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oracle_after: Option<OracleResult>,
    /// Why the case could not be evaluated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl CaseResult {
    /// Judges a finished case.
    pub fn judge(
        name: String,
        oracle_before: OracleResult,
        report: Option<&Value>,
        exit_code: Option<i32>,
        oracle_after: OracleResult,
    ) -> CaseResult {
        let claimed = report.is_some_and(claimed_completion);
        let solved = !oracle_before.passed && oracle_after.passed;
        CaseResult {
            name,
            solved,
            claimed,
            false_completion: claimed && !oracle_after.passed,
            exit_code,
            completion: report.and_then(|r| r.get("completion")).map(|c| {
                serde_json::json!({
                    "status": c.get("status"),
                    "verification": c.get("verification"),
                    "applied": c.get("applied"),
                })
            }),
            oracle_before,
            oracle_after: Some(oracle_after),
            error: None,
        }
    }

    /// A case that could not be evaluated.
    pub fn error(name: String, oracle_before: OracleResult, error: String) -> CaseResult {
        CaseResult {
            name,
            solved: false,
            claimed: false,
            false_completion: false,
            exit_code: None,
            completion: None,
            oracle_before,
            oracle_after: None,
            error: Some(error),
        }
    }
}

/// The whole evaluation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvalReport {
    /// Cases evaluated.
    pub total: usize,
    /// Cases solved (oracle failed before, passes after).
    pub solved: usize,
    /// Runs that claimed completion while the oracle fails.
    pub false_completions: usize,
    /// Cases that could not be evaluated (the oracle passed before the run, ...).
    pub errors: usize,
    /// Every case.
    pub cases: Vec<CaseResult>,
}

impl EvalReport {
    /// The report over `cases`.
    pub fn of(cases: Vec<CaseResult>) -> EvalReport {
        EvalReport {
            total: cases.len(),
            solved: cases.iter().filter(|c| c.solved).count(),
            false_completions: cases.iter().filter(|c| c.false_completion).count(),
            errors: cases.iter().filter(|c| c.error.is_some()).count(),
            cases,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn oracle(passed: bool) -> OracleResult {
        OracleResult {
            passed,
            exit_code: Some(if passed { 0 } else { 1 }),
            error: None,
            output_tail: String::new(),
        }
    }

    #[test]
    fn a_claim_the_oracle_refutes_is_a_false_completion() {
        let satisfied = json!({"status": "succeeded", "completion": {"status": "satisfied", "verified": false}});
        let r = CaseResult::judge(
            "a".into(),
            oracle(false),
            Some(&satisfied),
            Some(0),
            oracle(false),
        );
        assert!(r.claimed && r.false_completion && !r.solved);
        let honest =
            json!({"status": "failed", "completion": {"status": "incomplete", "verified": false}});
        let r = CaseResult::judge(
            "b".into(),
            oracle(false),
            Some(&honest),
            Some(1),
            oracle(false),
        );
        assert!(!r.claimed && !r.false_completion && !r.solved);
        let r = CaseResult::judge(
            "c".into(),
            oracle(false),
            Some(&satisfied),
            Some(0),
            oracle(true),
        );
        assert!(r.solved && !r.false_completion);
        let report = EvalReport::of(vec![r]);
        assert_eq!(
            (report.total, report.solved, report.false_completions),
            (1, 1, 0)
        );
    }
}
