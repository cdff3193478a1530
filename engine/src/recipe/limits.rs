//! Resolved limits: every bound has an engine default and a hard ceiling.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// One bound's default and ceiling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bound {
    /// The field name, as written in recipes.
    pub name: &'static str,
    /// Used when a recipe says nothing.
    pub default: u64,
    /// Nothing may exceed this.
    pub ceiling: u64,
}

/// The engine's bounds, in the order recipes list them.
pub mod bounds {
    use super::Bound;

    /// Model calls per run.
    pub const MODEL_CALLS: Bound = Bound {
        name: "model_calls",
        default: 200,
        ceiling: 5_000,
    };
    /// Tool calls per run.
    pub const TOOL_CALLS: Bound = Bound {
        name: "tool_calls",
        default: 1_000,
        ceiling: 50_000,
    };
    /// Tokens per run.
    pub const TOKENS: Bound = Bound {
        name: "tokens",
        default: 2_000_000,
        ceiling: 100_000_000,
    };
    /// Wall time per run, in seconds.
    pub const WALL_TIME_SECS: Bound = Bound {
        name: "wall_time",
        default: 3_600,
        ceiling: 86_400,
    };
    /// Concurrent steps.
    pub const CONCURRENCY: Bound = Bound {
        name: "concurrency",
        default: 4,
        ceiling: 64,
    };
    /// Children (delegations and sub-recipes) per run.
    pub const CHILDREN: Bound = Bound {
        name: "children",
        default: 64,
        ceiling: 1_024,
    };
    /// Repair rounds.
    pub const REPAIRS: Bound = Bound {
        name: "repairs",
        default: 2,
        ceiling: 10,
    };
    /// Output bytes kept per tool call.
    pub const OUTPUT_BYTES: Bound = Bound {
        name: "output_bytes",
        default: 8 * 1024,
        ceiling: 32 * 1024,
    };
    /// Times a back-edge may be taken.
    pub const LOOP_MAX: Bound = Bound {
        name: "max",
        default: 2,
        ceiling: 20,
    };
    /// Corrections of an invalid typed output (`output.corrections`).
    pub const OUTPUT_CORRECTIONS: Bound = Bound {
        name: "corrections",
        default: 2,
        ceiling: 10,
    };
    /// A role's model turns per inference window (`limits.turns_per_window`).
    pub const TURNS_PER_WINDOW: Bound = Bound {
        name: "turns_per_window",
        default: 10,
        ceiling: 100,
    };
    /// A role's inference windows per call (`limits.windows`).
    pub const WINDOWS: Bound = Bound {
        name: "windows",
        default: 3,
        ceiling: 20,
    };
    /// Characters one file read returns to a role (`limits.read_chars`).
    pub const READ_CHARS: Bound = Bound {
        name: "read_chars",
        default: 8_192,
        ceiling: 1_048_576,
    };
    /// Invalid tool calls a role gets corrected (`limits.corrections`).
    pub const ROLE_CORRECTIONS: Bound = Bound {
        name: "corrections",
        default: 2,
        ceiling: 10,
    };
    /// Output tokens reserved per model turn (`limits.output_tokens`).
    pub const OUTPUT_TOKENS: Bound = Bound {
        name: "output_tokens",
        default: 1_024,
        ceiling: 200_000,
    };
    /// Step timeout, in seconds.
    pub const STEP_TIMEOUT_SECS: Bound = Bound {
        name: "timeout",
        default: 1_800,
        ceiling: 86_400,
    };
}

/// Instructions one template or expression may execute when rendered at run time
/// (minijinja's fuel): a runaway loop in a recipe's template fails its step instead
/// of blocking the run past every timeout.
pub const TEMPLATE_FUEL: u64 = 20_000_000;

/// Bytes one template may render to at run time (16 MiB).
pub const TEMPLATE_OUTPUT_BYTES: usize = 16 * 1024 * 1024;

/// A run's (or a step's) limits, with every field resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Model calls.
    pub model_calls: u64,
    /// Tool calls.
    pub tool_calls: u64,
    /// Tokens, input plus output.
    pub tokens: u64,
    /// Wall time.
    pub wall_time: Duration,
    /// Concurrent steps.
    pub concurrency: u32,
    /// Children started.
    pub children: u32,
    /// Repair rounds.
    pub repairs: u32,
    /// Output bytes kept per tool call.
    pub output_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        use bounds::*;
        Limits {
            model_calls: MODEL_CALLS.default,
            tool_calls: TOOL_CALLS.default,
            tokens: TOKENS.default,
            wall_time: Duration::from_secs(WALL_TIME_SECS.default),
            concurrency: CONCURRENCY.default as u32,
            children: CHILDREN.default as u32,
            repairs: REPAIRS.default as u32,
            output_bytes: OUTPUT_BYTES.default,
        }
    }
}

impl Limits {
    /// The field-wise minimum: a step's limits can only narrow the run's.
    pub fn narrow(&self, other: &Limits) -> Limits {
        Limits {
            model_calls: self.model_calls.min(other.model_calls),
            tool_calls: self.tool_calls.min(other.tool_calls),
            tokens: self.tokens.min(other.tokens),
            wall_time: self.wall_time.min(other.wall_time),
            concurrency: self.concurrency.min(other.concurrency),
            children: self.children.min(other.children),
            repairs: self.repairs.min(other.repairs),
            output_bytes: self.output_bytes.min(other.output_bytes),
        }
    }
}
