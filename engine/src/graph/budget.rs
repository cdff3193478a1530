//! The run's budget: one root per run, narrowed per step, shared by every child.
//!
//! Counted resources are model calls, tool calls, tokens and children; wall time is
//! a deadline. A charge is all-or-nothing and checked at every level from the step
//! up to the root, so no level's limit is ever exceeded, even under concurrent
//! charging (each level reserves with a compare-and-swap; a refusal higher up gives
//! back what lower levels reserved). This module never schedules or cancels
//! anything: the executor reads [`Budget::root_exhaustion`] and stops new work.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::recipe::Limits;

/// A counted resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Resource {
    /// Model calls (every attempt).
    ModelCalls,
    /// Tool calls (including refused ones).
    ToolCalls,
    /// Model tokens, input plus output.
    Tokens,
    /// Children: delegations and sub-recipes started.
    Children,
}

impl Resource {
    const ALL: [Resource; 4] = [
        Resource::ModelCalls,
        Resource::ToolCalls,
        Resource::Tokens,
        Resource::Children,
    ];

    fn index(self) -> usize {
        match self {
            Resource::ModelCalls => 0,
            Resource::ToolCalls => 1,
            Resource::Tokens => 2,
            Resource::Children => 3,
        }
    }

    /// The limit's name as recipes write it.
    pub fn name(self) -> &'static str {
        match self {
            Resource::ModelCalls => "model_calls",
            Resource::ToolCalls => "tool_calls",
            Resource::Tokens => "tokens",
            Resource::Children => "children",
        }
    }
}

/// A refused charge (or a passed deadline): which limit, at which level.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Exhaustion {
    /// `run` for the root, else the step key whose own limit was hit.
    pub scope: String,
    /// The limit's name (`tool_calls`, ..., `wall_time`).
    pub limit: String,
    /// The limit (milliseconds for `wall_time`).
    pub max: u64,
    /// What had been used when the charge was refused.
    pub used: u64,
}

impl Exhaustion {
    /// Whether the root budget (not only a step's narrower one) is spent.
    pub fn is_root(&self) -> bool {
        self.scope == ROOT_SCOPE
    }
}

impl std::fmt::Display for Exhaustion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} limit {} reached ({} of {} used)",
            if self.is_root() { "run" } else { "step" },
            self.limit,
            self.used,
            self.max
        )
    }
}

/// How much of a budget was used, for reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BudgetUse {
    /// Model calls made.
    pub model_calls: u64,
    /// Tool calls made.
    pub tool_calls: u64,
    /// Tokens used.
    pub tokens: u64,
    /// Children started.
    pub children: u64,
    /// Wall time elapsed, in milliseconds.
    pub wall_time_ms: u64,
}

const ROOT_SCOPE: &str = "run";

#[derive(Debug)]
struct Node {
    scope: String,
    max: [u64; 4],
    used: [AtomicU64; 4],
    started: Instant,
    deadline: Instant,
    wall_time: Duration,
    parent: Option<Arc<Node>>,
    /// The first exhaustion of the root (only set on the root node).
    exhausted: OnceLock<Exhaustion>,
}

impl Node {
    fn reserve(&self, index: usize, amount: u64) -> Result<(), u64> {
        let counter = &self.used[index];
        let mut current = counter.load(Ordering::Acquire);
        loop {
            let next = current.checked_add(amount).ok_or(current)?;
            if next > self.max[index] {
                return Err(current);
            }
            match counter.compare_exchange_weak(current, next, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return Ok(()),
                Err(actual) => current = actual,
            }
        }
    }

    fn root(self: &Arc<Self>) -> &Arc<Node> {
        let mut node = self;
        while let Some(parent) = &node.parent {
            node = parent;
        }
        node
    }
}

/// A handle on one level of the budget tree. Clones share the same counters.
#[derive(Debug, Clone)]
pub struct Budget {
    node: Arc<Node>,
}

impl Budget {
    /// The root budget of a run with these limits; wall time starts now.
    pub fn root(limits: &Limits) -> Budget {
        let now = Instant::now();
        Budget {
            node: Arc::new(Node {
                scope: ROOT_SCOPE.to_string(),
                max: [
                    limits.model_calls,
                    limits.tool_calls,
                    limits.tokens,
                    u64::from(limits.children),
                ],
                used: Default::default(),
                started: now,
                deadline: now + limits.wall_time,
                wall_time: limits.wall_time,
                parent: None,
                exhausted: OnceLock::new(),
            }),
        }
    }

    /// A narrower level for `scope` (a step key): its limits are at most this one's,
    /// and every charge also counts here and above.
    pub fn narrow(&self, scope: &str, limits: &Limits) -> Budget {
        let now = Instant::now();
        let deadline = (now + limits.wall_time).min(self.node.deadline);
        Budget {
            node: Arc::new(Node {
                scope: scope.to_string(),
                max: [
                    limits.model_calls.min(self.node.max[0]),
                    limits.tool_calls.min(self.node.max[1]),
                    limits.tokens.min(self.node.max[2]),
                    u64::from(limits.children).min(self.node.max[3]),
                ],
                used: Default::default(),
                started: now,
                deadline,
                wall_time: deadline.saturating_duration_since(now),
                parent: Some(Arc::clone(&self.node)),
                exhausted: OnceLock::new(),
            }),
        }
    }

    /// Charges `amount` of `resource` at this level and every level above, or nothing.
    ///
    /// A refusal at the root is remembered ([`Budget::root_exhaustion`]) so the
    /// executor stops starting new work.
    pub fn charge(&self, resource: Resource, amount: u64) -> Result<(), Exhaustion> {
        let index = resource.index();
        let mut reserved: Vec<&Arc<Node>> = Vec::new();
        let mut node = Some(&self.node);
        while let Some(level) = node {
            if let Err(used) = level.reserve(index, amount) {
                for done in reserved {
                    done.used[index].fetch_sub(amount, Ordering::AcqRel);
                }
                let exhaustion = Exhaustion {
                    scope: level.scope.clone(),
                    limit: resource.name().to_string(),
                    max: level.max[index],
                    used,
                };
                if level.parent.is_none() {
                    let _ = level.exhausted.set(exhaustion.clone());
                }
                return Err(exhaustion);
            }
            reserved.push(level);
            node = level.parent.as_ref();
        }
        Ok(())
    }

    /// Gives back part of an earlier charge (a reservation larger than the use).
    pub fn refund(&self, resource: Resource, amount: u64) {
        let index = resource.index();
        let mut node = Some(&self.node);
        while let Some(level) = node {
            let _ = level.used[index].fetch_update(Ordering::AcqRel, Ordering::Acquire, |v| {
                Some(v.saturating_sub(amount))
            });
            node = level.parent.as_ref();
        }
    }

    /// Time left before this level's deadline (zero once passed).
    pub fn remaining_wall_time(&self) -> Duration {
        self.node.deadline.saturating_duration_since(Instant::now())
    }

    /// The root's deadline has passed: records the exhaustion (once) and returns it.
    pub fn check_wall_time(&self) -> Result<(), Exhaustion> {
        let root = self.node.root();
        if Instant::now() < root.deadline {
            return Ok(());
        }
        let exhaustion = Exhaustion {
            scope: ROOT_SCOPE.to_string(),
            limit: "wall_time".to_string(),
            max: u64::try_from(root.wall_time.as_millis()).unwrap_or(u64::MAX),
            used: u64::try_from(root.started.elapsed().as_millis()).unwrap_or(u64::MAX),
        };
        let _ = root.exhausted.set(exhaustion.clone());
        Err(exhaustion)
    }

    /// The root's deadline.
    pub fn root_deadline(&self) -> Instant {
        self.node.root().deadline
    }

    /// The first exhaustion of the root budget, if any.
    pub fn root_exhaustion(&self) -> Option<Exhaustion> {
        self.node.root().exhausted.get().cloned()
    }

    /// What this level has used.
    pub fn used(&self) -> BudgetUse {
        let get = |r: Resource| self.node.used[r.index()].load(Ordering::Acquire);
        BudgetUse {
            model_calls: get(Resource::ModelCalls),
            tool_calls: get(Resource::ToolCalls),
            tokens: get(Resource::Tokens),
            children: get(Resource::Children),
            wall_time_ms: u64::try_from(self.node.started.elapsed().as_millis())
                .unwrap_or(u64::MAX),
        }
    }

    /// This level's limit for a resource.
    pub fn max(&self, resource: Resource) -> u64 {
        self.node.max[resource.index()]
    }

    /// Every counted resource, for iteration in tests and reports.
    pub fn resources() -> [Resource; 4] {
        Resource::ALL
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use proptest::prelude::*;

    fn limits(tool_calls: u64, tokens: u64) -> Limits {
        Limits {
            tool_calls,
            tokens,
            ..Limits::default()
        }
    }

    #[test]
    fn a_step_limit_narrows_and_every_charge_counts_at_the_root() {
        let root = Budget::root(&limits(10, 1_000));
        let step = root.narrow("a", &limits(2, 1_000));
        step.charge(Resource::ToolCalls, 1).unwrap();
        step.charge(Resource::ToolCalls, 1).unwrap();
        let refused = step.charge(Resource::ToolCalls, 1).unwrap_err();
        assert_eq!(refused.scope, "a");
        assert_eq!(refused.limit, "tool_calls");
        assert_eq!(root.used().tool_calls, 2);
        assert!(
            root.root_exhaustion().is_none(),
            "a step's limit is not the run's"
        );
    }

    #[test]
    fn the_root_refusing_is_remembered_and_lower_levels_get_their_reservation_back() {
        let root = Budget::root(&limits(1, 1_000));
        let first = root.narrow("a", &limits(5, 1_000));
        let second = root.narrow("b", &limits(5, 1_000));
        first.charge(Resource::ToolCalls, 1).unwrap();
        let refused = second.charge(Resource::ToolCalls, 1).unwrap_err();
        assert!(refused.is_root());
        assert_eq!(second.used().tool_calls, 0);
        assert_eq!(
            root.root_exhaustion().map(|e| e.limit),
            Some("tool_calls".into())
        );
    }

    #[test]
    fn a_passed_deadline_is_a_wall_time_exhaustion() {
        let root = Budget::root(&Limits {
            wall_time: Duration::from_millis(0),
            ..Limits::default()
        });
        let err = root.check_wall_time().unwrap_err();
        assert_eq!(err.limit, "wall_time");
        assert!(root.root_exhaustion().is_some());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Whatever the interleaving, no level ever holds more than its limit, and the
        /// counters equal the sum of the charges that were accepted.
        #[test]
        fn no_limit_is_ever_exceeded_under_concurrent_charging(
            root_max in 0u64..40,
            step_maxes in proptest::collection::vec(0u64..20, 1..5),
            charges in proptest::collection::vec((0usize..4, 1u64..4, any::<bool>()), 1..80),
        ) {
            let root = Budget::root(&limits(root_max, root_max));
            let steps: Vec<Budget> = step_maxes
                .iter()
                .enumerate()
                .map(|(i, max)| root.narrow(&format!("s{i}"), &limits(*max, *max)))
                .collect();
            let accepted: Vec<AtomicU64> = steps.iter().map(|_| AtomicU64::new(0)).collect();
            std::thread::scope(|scope| {
                for chunk in charges.chunks(charges.len().div_ceil(4)) {
                    let steps = &steps;
                    let accepted = &accepted;
                    let root = &root;
                    scope.spawn(move || {
                        for (which, amount, tokens) in chunk {
                            let index = which % steps.len();
                            let resource = if *tokens { Resource::Tokens } else { Resource::ToolCalls };
                            if steps[index].charge(resource, *amount).is_ok() && !*tokens {
                                accepted[index].fetch_add(*amount, Ordering::SeqCst);
                            }
                            // Observed at any moment, from any thread:
                            assert!(root.used().tool_calls <= root.max(Resource::ToolCalls));
                            assert!(root.used().tokens <= root.max(Resource::Tokens));
                            for step in steps {
                                assert!(step.used().tool_calls <= step.max(Resource::ToolCalls));
                            }
                        }
                    });
                }
            });
            let total: u64 = accepted.iter().map(|a| a.load(Ordering::SeqCst)).sum();
            prop_assert_eq!(root.used().tool_calls, total);
            for (step, got) in steps.iter().zip(&accepted) {
                prop_assert_eq!(step.used().tool_calls, got.load(Ordering::SeqCst));
                prop_assert!(step.used().tool_calls <= step.max(Resource::ToolCalls));
            }
            prop_assert!(root.used().tool_calls <= root_max);
        }
    }
}
