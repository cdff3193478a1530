//! The request contract: a request is classified by the recipe's rules (data) into
//! a class whose capability list is a ceiling for every call of the run.
//!
//! Compiles and applies the rules; never knows a class's name. A request no rule
//! matches gets the contract's default class.

use std::collections::BTreeSet;

use regex::{Regex, RegexBuilder};
use serde::Serialize;

use crate::policy::Capability;
use crate::recipe::document::ContractDocument;

/// A request's class and its ceiling.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Classification {
    /// The class's name.
    pub class: String,
    /// The only capabilities the run may use.
    pub capabilities: BTreeSet<Capability>,
    /// The rule that matched (`None`: the default class).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched: Option<String>,
}

impl Classification {
    /// Whether the class may use `capability`.
    pub fn allows(&self, capability: Capability) -> bool {
        self.capabilities.contains(&capability)
    }

    /// Whether the class may change files.
    pub fn may_write(&self) -> bool {
        self.allows(Capability::FilesystemWrite)
    }

    /// Whether the class may run processes.
    pub fn may_execute(&self) -> bool {
        self.allows(Capability::ProcessExecute)
    }
}

fn compile(pattern: &str) -> Result<Regex, String> {
    RegexBuilder::new(pattern)
        .case_insensitive(true)
        .size_limit(1 << 20)
        .build()
        .map_err(|e| format!("`{pattern}`: {e}"))
}

/// Classifies `request` under `contract`. An unusable contract (validation makes
/// this unreachable) classifies nothing: the ceiling is empty.
pub fn classify(contract: &ContractDocument, request: &str) -> Result<Classification, String> {
    for class in &contract.classes {
        let mut matched = None;
        for pattern in &class.matches {
            if compile(pattern)?.is_match(request) {
                matched = Some(pattern.clone());
                break;
            }
        }
        let Some(rule) = matched else { continue };
        let mut excluded = false;
        for pattern in &class.unless {
            if compile(pattern)?.is_match(request) {
                excluded = true;
                break;
            }
        }
        if !excluded {
            return Ok(Classification {
                class: class.name.clone(),
                capabilities: class.capabilities.iter().copied().collect(),
                matched: Some(rule),
            });
        }
    }
    let default = contract
        .classes
        .iter()
        .find(|c| c.name == contract.default)
        .ok_or_else(|| format!("the default class `{}` is not declared", contract.default))?;
    Ok(Classification {
        class: default.name.clone(),
        capabilities: default.capabilities.iter().copied().collect(),
        matched: None,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn contract() -> ContractDocument {
        serde_json::from_value(serde_json::json!({
            "default": "change",
            "classes": [
                {"name": "question", "match": ["\\?\\s*$", "^\\s*(what|where|why|how)\\b"],
                 "unless": ["\\b(fix|change|add)\\w*\\b"], "capabilities": ["workspace.read"]},
                {"name": "verification", "match": ["^\\s*(run|verify)\\b"],
                 "unless": ["\\b(fix|change|add)\\w*\\b"],
                 "capabilities": ["workspace.read", "process.execute"]},
                {"name": "change", "capabilities": ["workspace.read", "filesystem.write", "process.execute"]}
            ]
        }))
        .unwrap()
    }

    #[test]
    fn rules_are_tried_in_order_and_unless_vetoes_a_match() {
        let c = contract();
        assert_eq!(
            classify(&c, "Where is parse defined?").unwrap().class,
            "question"
        );
        assert_eq!(classify(&c, "RUN the tests").unwrap().class, "verification");
        let fix = classify(&c, "Fix the parser and run the relevant tests").unwrap();
        assert_eq!(fix.class, "change");
        assert!(fix.matched.is_none());
        assert!(fix.may_write());
        let why = classify(&c, "Why does add fail? Fix it.").unwrap();
        assert_eq!(why.class, "change", "a change verb makes it a change");
        let q = classify(&c, "what does parse do").unwrap();
        assert!(!q.may_write() && !q.may_execute());
    }
}
