//! The recipe language as written: the raw document types, one-to-one with YAML.
//!
//! These types are the language's definition: the JSON Schema in `schemas/` is
//! generated from them. They carry no meaning beyond shape; semantic checks and
//! resolution happen in later stages (validated recipe, then plan). Every object
//! rejects unknown fields, because a typo must never silently widen authority.

mod gate;
mod input;
mod limits;
mod recipe;
mod role_ref;
mod step;
mod task;

pub use gate::{GateDocument, GateOutcome};
pub use input::{InputDocument, InputType};
pub use limits::LimitsDocument;
pub use recipe::{ApiVersion, RecipeDocument, RecipeKind};
pub use role_ref::{EnabledDocument, RoleRefDocument};
pub use step::{DelegateDocument, LoopDocument, OutputDocument, StepDocument};
pub use task::{ContractClassDocument, ContractDocument, TaskDocument};
