//! File tools: read, list, search, edit, create and replace project files, with
//! confinement to the project root and a checkpoint (preimage) of every write.
//!
//! Owns path confinement, atomic writes, the checkpoint store and undo. It never
//! decides authority (the policy layer does) and never prints.

mod atomic;
mod checkpoint;
pub mod confine;
mod create_file;
mod edit_file;
mod error;
mod list_directory;
mod read_file;
mod replace_file;
mod search_regex;
mod target;
mod text;
mod undo;
mod write;

pub use checkpoint::{
    CHECKPOINT_SCHEMA_VERSION, Change, ChangeStatus, CheckpointStore, NewChange, PROJECT_DB,
};
pub use create_file::{CreateFile, CreateFileArgs};
pub use edit_file::{EditFile, EditFileArgs};
pub use error::CheckpointError;
pub use list_directory::{ListDirectory, ListDirectoryArgs};
pub use read_file::{ReadFile, ReadFileArgs};
pub use replace_file::{ReplaceFile, ReplaceFileArgs};
pub use search_regex::{
    SearchMatch, SearchOutcome, SearchRegex, SearchRegexArgs, build_matcher, search_blocking,
};
pub use text::unified_diff;
pub use undo::{UndoPlan, apply_undo, plan_undo};
