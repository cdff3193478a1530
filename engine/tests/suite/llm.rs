//! Model providers over real HTTP to local servers that speak each wire format.

mod action;
mod anthropic;
mod config;
mod openai;
mod resilience;
mod scripted;
mod secrets;
pub(super) mod server;
