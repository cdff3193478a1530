//! Events: every state change of a run, with a stable JSON shape.
//!
//! This module owns the event vocabulary (`run.started`, `step.finished`, ...), the
//! run and step statuses they carry, the listener interface live consumers implement
//! (an events file, a terminal view) and the JSON Schema generated from the types
//! (`schemas/events.schema.json`). It never performs an effect and never decides
//! anything: the executor emits events, the store keeps them.

mod event;
mod listener;
mod schema;
mod status;

pub use event::{Event, EventKind, now_ms};
pub use listener::{EventListener, JsonLinesWriter};
pub use schema::events_schema;
pub use status::{RunStatus, StepStatus};
