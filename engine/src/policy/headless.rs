//! The headless approver: decides `ask` calls from a policy, never from a prompt.
//!
//! A policy is a preset (`--approve none|reads-only|checks|writes|all`) plus
//! optional rules (from a JSON policy file) matching by tool, check id and path
//! glob; the first matching rule wins, then the preset, and anything else is
//! denied. It never blocks and never prints: a denial is returned and recorded.

use std::path::Path;
use std::str::FromStr;

use async_trait::async_trait;
use globset::{Glob, GlobMatcher};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::approval::{Approval, ApprovalRequest, Approver};
use super::error::PolicyError;
use crate::tools::Effect;

/// The `--approve` presets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ApprovePreset {
    /// Approve nothing.
    #[default]
    None,
    /// Approve reads (and effect-free run-state tools).
    ReadsOnly,
    /// Reads, plus configured checks (`run_check`).
    Checks,
    /// Reads, checks and file writes (not arbitrary commands or the network).
    Writes,
    /// Approve everything.
    All,
}

impl ApprovePreset {
    /// The preset's name on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovePreset::None => "none",
            ApprovePreset::ReadsOnly => "reads-only",
            ApprovePreset::Checks => "checks",
            ApprovePreset::Writes => "writes",
            ApprovePreset::All => "all",
        }
    }

    /// Whether the preset approves this request.
    pub fn approves(self, request: &ApprovalRequest) -> bool {
        let read = matches!(request.effect, Effect::Read | Effect::Control);
        let check = request.tool == "run_check";
        let write = request.effect == Effect::Write;
        match self {
            ApprovePreset::None => false,
            ApprovePreset::ReadsOnly => read,
            ApprovePreset::Checks => read || check,
            ApprovePreset::Writes => read || check || write,
            ApprovePreset::All => true,
        }
    }
}

impl FromStr for ApprovePreset {
    type Err = PolicyError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "none" => Ok(ApprovePreset::None),
            "reads-only" => Ok(ApprovePreset::ReadsOnly),
            "checks" => Ok(ApprovePreset::Checks),
            "writes" => Ok(ApprovePreset::Writes),
            "all" => Ok(ApprovePreset::All),
            other => Err(PolicyError::UnknownPreset(other.to_string())),
        }
    }
}

impl std::fmt::Display for ApprovePreset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A rule's decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RuleDecision {
    /// Approve.
    Allow,
    /// Deny.
    Deny,
}

/// One rule of a policy file. Every given field must match; a rule naming a
/// `check` or `path` never matches a call without one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PolicyRule {
    /// Tool name glob (`edit_file`, `*`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// Check id glob (for `run_check`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<String>,
    /// Project-relative path glob (`src/**`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// What to do when the rule matches.
    pub decision: RuleDecision,
}

/// A policy file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PolicyFile {
    /// The preset used when no rule matches (default `none`).
    #[serde(default)]
    pub preset: Option<ApprovePreset>,
    /// Rules, first match wins.
    #[serde(default)]
    pub rules: Vec<PolicyRule>,
}

impl PolicyFile {
    /// Reads a JSON policy file.
    pub fn load(path: &Path) -> Result<PolicyFile, PolicyError> {
        let text = std::fs::read_to_string(path).map_err(|source| PolicyError::Read {
            path: path.display().to_string(),
            source,
        })?;
        serde_json::from_str(&text).map_err(|e| PolicyError::Parse {
            path: path.display().to_string(),
            message: e.to_string(),
        })
    }
}

#[derive(Debug, Clone)]
struct CompiledRule {
    tool: Option<GlobMatcher>,
    check: Option<GlobMatcher>,
    path: Option<GlobMatcher>,
    decision: RuleDecision,
    index: usize,
}

impl CompiledRule {
    fn matches(&self, request: &ApprovalRequest) -> bool {
        let field = |glob: &Option<GlobMatcher>, value: Option<&str>| match (glob, value) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(glob), Some(value)) => glob.is_match(value),
        };
        field(&self.tool, Some(&request.tool))
            && field(&self.check, request.check_id.as_deref())
            && field(&self.path, request.path.as_deref())
    }
}

/// Decides approvals from a preset and rules; never prompts.
#[derive(Debug, Clone)]
pub struct HeadlessApprover {
    preset: ApprovePreset,
    rules: Vec<CompiledRule>,
}

fn compile(rule: usize, glob: &Option<String>) -> Result<Option<GlobMatcher>, PolicyError> {
    glob.as_ref()
        .map(|g| {
            Glob::new(g)
                .map(|g| g.compile_matcher())
                .map_err(|e| PolicyError::Glob {
                    rule,
                    glob: g.clone(),
                    message: e.to_string(),
                })
        })
        .transpose()
}

impl HeadlessApprover {
    /// An approver from a preset alone.
    pub fn from_preset(preset: ApprovePreset) -> HeadlessApprover {
        HeadlessApprover {
            preset,
            rules: Vec::new(),
        }
    }

    /// An approver from a policy file; `preset` (from `--approve`) overrides the file's.
    pub fn from_policy(
        policy: &PolicyFile,
        preset: Option<ApprovePreset>,
    ) -> Result<HeadlessApprover, PolicyError> {
        let rules = policy
            .rules
            .iter()
            .enumerate()
            .map(|(index, rule)| {
                Ok(CompiledRule {
                    tool: compile(index, &rule.tool)?,
                    check: compile(index, &rule.check)?,
                    path: compile(index, &rule.path)?,
                    decision: rule.decision,
                    index,
                })
            })
            .collect::<Result<Vec<_>, PolicyError>>()?;
        Ok(HeadlessApprover {
            preset: preset.or(policy.preset).unwrap_or_default(),
            rules,
        })
    }

    /// The decision, without the async wrapper.
    pub fn decide(&self, request: &ApprovalRequest) -> Approval {
        if let Some(rule) = self.rules.iter().find(|r| r.matches(request)) {
            return match rule.decision {
                RuleDecision::Allow => Approval::Approved,
                RuleDecision::Deny => Approval::Denied {
                    reason: format!("denied by approval policy rule {}", rule.index + 1),
                },
            };
        }
        if self.preset.approves(request) {
            Approval::Approved
        } else {
            Approval::Denied {
                reason: format!(
                    "`{}` needs approval and the headless policy (preset `{}`) does not approve it; no prompt is shown when headless",
                    request.tool, self.preset
                ),
            }
        }
    }
}

#[async_trait]
impl Approver for HeadlessApprover {
    async fn approve(&self, request: &ApprovalRequest) -> Approval {
        self.decide(request)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::policy::Phase;
    use crate::tools::Preview;
    use serde_json::json;

    fn request(
        tool: &str,
        effect: Effect,
        path: Option<&str>,
        check: Option<&str>,
    ) -> ApprovalRequest {
        ApprovalRequest {
            tool: tool.to_string(),
            capability: None,
            effect,
            phase: Phase::Edit,
            args: json!({}),
            preview: Preview {
                summary: String::new(),
                detail: None,
            },
            check_id: check.map(String::from),
            path: path.map(String::from),
        }
    }

    #[test]
    fn presets_widen_in_order() {
        let read = request("read_file", Effect::Read, Some("a"), None);
        let check = request("run_check", Effect::Execute, None, Some("cargo-test"));
        let write = request("edit_file", Effect::Write, Some("a"), None);
        let command = request("execute_command", Effect::Execute, None, None);
        let cases = [
            (ApprovePreset::None, [false, false, false, false]),
            (ApprovePreset::ReadsOnly, [true, false, false, false]),
            (ApprovePreset::Checks, [true, true, false, false]),
            (ApprovePreset::Writes, [true, true, true, false]),
            (ApprovePreset::All, [true, true, true, true]),
        ];
        for (preset, expected) in cases {
            let got = [&read, &check, &write, &command].map(|r| preset.approves(r));
            assert_eq!(got, expected, "{preset}");
        }
    }

    #[test]
    fn first_matching_rule_wins_then_preset_then_deny() {
        let policy: PolicyFile = serde_json::from_value(json!({
            "preset": "reads-only",
            "rules": [
                {"tool": "edit_file", "path": "src/generated/**", "decision": "deny"},
                {"tool": "edit_file", "path": "src/**", "decision": "allow"},
                {"tool": "run_check", "check": "unit-*", "decision": "allow"}
            ]
        }))
        .unwrap();
        let approver = HeadlessApprover::from_policy(&policy, None).unwrap();
        let decide = |r: ApprovalRequest| approver.decide(&r) == Approval::Approved;
        assert!(decide(request(
            "edit_file",
            Effect::Write,
            Some("src/lib.rs"),
            None
        )));
        assert!(!decide(request(
            "edit_file",
            Effect::Write,
            Some("src/generated/x.rs"),
            None
        )));
        assert!(!decide(request(
            "edit_file",
            Effect::Write,
            Some("README.md"),
            None
        )));
        assert!(decide(request(
            "run_check",
            Effect::Execute,
            None,
            Some("unit-tests")
        )));
        assert!(!decide(request(
            "run_check",
            Effect::Execute,
            None,
            Some("lint")
        )));
        assert!(decide(request(
            "read_file",
            Effect::Read,
            Some("README.md"),
            None
        )));
    }

    #[test]
    fn unknown_presets_and_bad_globs_are_errors() {
        assert!("sometimes".parse::<ApprovePreset>().is_err());
        let policy = PolicyFile {
            preset: None,
            rules: vec![PolicyRule {
                tool: None,
                check: None,
                path: Some("src/[".to_string()),
                decision: RuleDecision::Allow,
            }],
        };
        assert!(HeadlessApprover::from_policy(&policy, None).is_err());
    }
}
