//! The shipped `coding` recipe end to end: the real binary, a scripted model
//! (one script per test, every model call of the run in order), real checks on
//! small fixture projects. Each test asserts on the JSON report's completion
//! verdict (computed from receipts and file revisions) and the exit code.
//! `openai` runs the same flow against a local OpenAI-compatible server.

mod ask;
mod changes;
mod contract;
pub mod fixtures;
mod js;
mod openai;
mod resume;
pub mod server;
mod verification;
