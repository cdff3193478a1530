//! Charging model calls to the run's budget: the first attempt before the call is
//! made, every retry or fallback attempt before it is made (as the provider reports
//! the attempt that precedes it), tokens as each attempt reports its usage. A
//! refused charge cancels the call in flight, so no attempt runs past the budget.

use std::sync::Mutex;

use tokio_util::sync::CancellationToken;

use crate::graph::{Budget, Exhaustion, Resource};
use crate::llm::{Attempt, AttemptNext, AttemptObserver};

/// An attempt observer that charges a budget.
#[derive(Debug)]
pub struct BudgetObserver {
    budget: Budget,
    cancel: CancellationToken,
    refused: Mutex<Option<Exhaustion>>,
    attempts: Mutex<u32>,
}

impl BudgetObserver {
    /// Charges the first attempt now; `cancel` stops the call if a later charge fails.
    pub fn start(budget: &Budget, cancel: CancellationToken) -> Result<BudgetObserver, Exhaustion> {
        budget.charge(Resource::ModelCalls, 1)?;
        Ok(BudgetObserver {
            budget: budget.clone(),
            cancel,
            refused: Mutex::new(None),
            attempts: Mutex::new(0),
        })
    }

    fn refuse(&self, exhaustion: Exhaustion) {
        let mut refused = self.refused.lock().unwrap_or_else(|p| p.into_inner());
        refused.get_or_insert(exhaustion);
    }

    /// The first refused charge, if any.
    pub fn refused(&self) -> Option<Exhaustion> {
        self.refused
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Attempts reported so far.
    pub fn attempts(&self) -> u32 {
        *self.attempts.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl AttemptObserver for BudgetObserver {
    fn attempt(&self, attempt: &Attempt) {
        *self.attempts.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        if let Some(usage) = attempt.usage {
            let tokens = usage.input_tokens.saturating_add(usage.output_tokens);
            if let Err(e) = self.budget.charge(Resource::Tokens, tokens) {
                self.refuse(e);
            }
        }
        let another = matches!(
            attempt.next,
            AttemptNext::Retry { .. } | AttemptNext::Fallback { .. }
        );
        if another && let Err(e) = self.budget.charge(Resource::ModelCalls, 1) {
            self.refuse(e);
            self.cancel.cancel();
        }
    }
}
