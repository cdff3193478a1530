//! The inference loop end to end: agent steps run by the executor with the
//! `ModelAgentRunner`, against the scripted provider and against local HTTP servers
//! speaking the OpenAI and Anthropic wire formats.

mod canary;
mod continuations;
mod corrections;
mod delegation;
mod enabled;
mod http;
mod memory;
mod scripted;
mod support;
mod typed;
mod windows;

use super::llm::server;
