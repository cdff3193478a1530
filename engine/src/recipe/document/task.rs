//! The recipe's `task:` block: the request a run works on, its contract
//! (classes with an authority ceiling each) and whether verification is deferred.
//!
//! Shape only: validation compiles the regular expressions and checks the
//! templates; the `task` module applies the contract at run time.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::policy::Capability;

/// The request a run works on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskDocument {
    /// The request, as a template over `inputs` (`"{{ inputs.task }}"`): the task
    /// record's objective and the text the contract classifies.
    pub request: String,
    /// An expression over `inputs`; when true the user verifies the change
    /// themselves and the run's verification status is `deferred`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deferred: Option<String>,
    /// How the request is classified, and what each class may do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contract: Option<ContractDocument>,
}

/// The request contract: classes tried in order; the first that matches wins.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContractDocument {
    /// The class of a request no class matches (the name of one of `classes`).
    pub default: String,
    /// The classes, tried in order.
    pub classes: Vec<ContractClassDocument>,
}

/// One class of request and its authority ceiling.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContractClassDocument {
    /// The class's name (recorded in the report).
    #[schemars(regex(pattern = r"^[a-z][a-z0-9_-]*$"))]
    pub name: String,
    /// Regular expressions (case-insensitive); the class matches when any of them
    /// matches the request. Empty: the class is only reachable as the default.
    #[serde(default, rename = "match", skip_serializing_if = "Vec::is_empty")]
    pub matches: Vec<String>,
    /// Regular expressions (case-insensitive); the class does not match when any of
    /// them matches the request.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unless: Vec<String>,
    /// The ceiling: the only capabilities any step may use for a request of this
    /// class. Every other capability is denied, whatever the roles say.
    pub capabilities: Vec<Capability>,
}
