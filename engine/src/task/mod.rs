//! Task state: one run's task record — objective, request contract, plan (write
//! paths, acceptance criteria, selected checks), frozen and read-only flags,
//! worker reports — and the ledger of receipts the completion guard judges.
//!
//! It owns the generic rules of a planned change: a plan before writes, writes
//! only inside its paths, the plan frozen at the first write or final check,
//! editing closed by a final check, repairs opened only through the repair gate,
//! the request contract's ceiling. It is exposed to models as tools (`task_status`,
//! `plan_task`, `report_task`, `completion`) and to the agent loop as pinned
//! context. A resumed run rebuilds it from the run's stored receipts
//! (`TaskHandle::rebuild`). It never performs an effect on the project, never trusts what a model
//! says as evidence, and never knows a role's or a flow's name.

mod contract;
mod error;
mod handle;
mod observe;
mod permits;
mod rebuild;
mod record;
mod state;
#[cfg(test)]
mod tests;

pub use contract::{Classification, classify};
pub use error::TaskError;
pub use handle::TaskHandle;
pub use observe::output_tail;
pub use permits::Refusal;
pub use rebuild::ROUND_KEY;
pub use record::{ChecksView, PlanView, TaskRecord};
pub use state::PlanRequest;
