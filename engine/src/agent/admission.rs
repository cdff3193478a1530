//! Context admission: what of a conversation goes into the next request.
//!
//! Before each model call the loop estimates the request (instructions + tool
//! declarations, measured by the provider, plus each message at `bytes / 4` tokens),
//! reserves room for the answer, and when the total is over the context window
//! evicts older observations as WHOLE exchanges: an assistant message and all the
//! tool results answering its calls leave together, never one without the other.
//! The task message and the latest exchange are mandatory; when even they do not
//! fit, admission fails with an explicit error instead of sending a truncated
//! request. This file is pure: no I/O, no provider calls.

use super::error::AgentError;
use crate::llm::{Message, estimate_tokens};

/// The context window assumed when the provider configures none (small models).
pub const DEFAULT_CONTEXT_WINDOW: u64 = 8_192;
/// Output tokens reserved when the role sets no `limits.output_tokens`.
pub const DEFAULT_OUTPUT_TOKENS: u64 = 1_024;

/// What admission works on.
#[derive(Debug, Clone, Copy)]
pub struct AdmissionInput<'a> {
    /// Tokens of the request without messages (instructions, tool declarations,
    /// envelope), as the provider measures them.
    pub fixed_tokens: u64,
    /// The whole conversation, oldest first.
    pub messages: &'a [Message],
    /// The index of the task message (mandatory). Messages before it are older
    /// history (a stateful role's memory).
    pub task_index: usize,
    /// The model's context window, in tokens.
    pub context_window: u64,
    /// Tokens reserved for the answer.
    pub output_reserve: u64,
}

/// The messages admitted into a request.
#[derive(Debug, Clone, PartialEq)]
pub struct Admitted {
    /// The messages to send, in order.
    pub messages: Vec<Message>,
    /// Exchanges left out (whole units: a user message, or an assistant turn with
    /// its tool results).
    pub evicted_exchanges: u32,
    /// The estimated tokens of the request (fixed + admitted messages), reserve excluded.
    pub estimated_tokens: u64,
}

/// The estimated tokens of one message as it travels in a request.
pub fn message_tokens(message: &Message) -> u64 {
    let bytes = serde_json::to_vec(message).map_or(0, |b| b.len() as u64);
    estimate_tokens(bytes) + 4
}

/// Splits a conversation into units: a user message alone, or an assistant message
/// with the tool results that follow it. Returns index ranges.
pub fn exchanges(messages: &[Message]) -> Vec<std::ops::Range<usize>> {
    let mut units = Vec::new();
    let mut i = 0;
    while i < messages.len() {
        let start = i;
        i += 1;
        if matches!(messages[start], Message::Assistant { .. }) {
            while i < messages.len() && matches!(messages[i], Message::ToolResult { .. }) {
                i += 1;
            }
        } else if matches!(messages[start], Message::ToolResult { .. }) {
            // A stray result (its call was evicted earlier): keep it with its run.
            while i < messages.len() && matches!(messages[i], Message::ToolResult { .. }) {
                i += 1;
            }
        }
        units.push(start..i);
    }
    units
}

/// Chooses the messages of the next request (see the module docs).
pub fn admit(input: AdmissionInput<'_>) -> Result<Admitted, AgentError> {
    let units = exchanges(input.messages);
    let cost: Vec<u64> = units
        .iter()
        .map(|r| input.messages[r.clone()].iter().map(message_tokens).sum())
        .collect();
    let budget = input.context_window.saturating_sub(input.output_reserve);
    let last = units.len().saturating_sub(1);
    let task_unit = units
        .iter()
        .position(|r| r.contains(&input.task_index))
        .unwrap_or(0);
    let mandatory = |u: usize| u == task_unit || u == last;
    let mandatory_tokens: u64 = input.fixed_tokens
        + (0..units.len())
            .filter(|u| mandatory(*u))
            .map(|u| cost[u])
            .sum::<u64>();
    if mandatory_tokens > budget {
        return Err(AgentError::ContextOverflow {
            needed: mandatory_tokens + input.output_reserve,
            reserved: input.output_reserve,
            window: input.context_window,
        });
    }
    let mut keep = vec![true; units.len()];
    let mut total: u64 = input.fixed_tokens + cost.iter().sum::<u64>();
    let mut evicted = 0u32;
    for u in 0..units.len() {
        if total <= budget {
            break;
        }
        if mandatory(u) {
            continue;
        }
        keep[u] = false;
        total -= cost[u];
        evicted += 1;
    }
    // A request must not open with an assistant turn or a stray result: drop older
    // units until the first kept one is a user message (the task always is).
    for u in 0..units.len() {
        if !keep[u] {
            continue;
        }
        if matches!(input.messages[units[u].start], Message::User { .. }) || mandatory(u) {
            break;
        }
        keep[u] = false;
        total -= cost[u];
        evicted += 1;
    }
    let messages = units
        .iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .flat_map(|(r, _)| input.messages[r.clone()].iter().cloned())
        .collect();
    Ok(Admitted {
        messages,
        evicted_exchanges: evicted,
        estimated_tokens: total,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::llm::{ToolArguments, ToolCall};
    use serde_json::json;

    fn call(id: &str) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: "read_file".into(),
            arguments: ToolArguments::Json(json!({"path": id})),
        }
    }

    /// task, then `n` exchanges each of one assistant turn with two calls and their
    /// two results of `size` bytes.
    fn conversation(n: usize, size: usize) -> Vec<Message> {
        let mut messages = vec![Message::user("the task")];
        for i in 0..n {
            let (a, b) = (format!("c{i}a"), format!("c{i}b"));
            messages.push(Message::Assistant {
                text: String::new(),
                tool_calls: vec![call(&a), call(&b)],
            });
            messages.push(Message::tool_result(&a, "read_file", "x".repeat(size)));
            messages.push(Message::tool_result(&b, "read_file", "y".repeat(size)));
        }
        messages
    }

    /// Every call id in `messages` has its result and every result its call.
    fn pairs_intact(messages: &[Message]) -> bool {
        let mut calls = Vec::new();
        let mut results = Vec::new();
        for m in messages {
            match m {
                Message::Assistant { tool_calls, .. } => {
                    calls.extend(tool_calls.iter().map(|c| c.id.clone()))
                }
                Message::ToolResult { call_id, .. } => results.push(call_id.clone()),
                Message::User { .. } => {}
            }
        }
        calls.sort();
        results.sort();
        calls == results
    }

    #[test]
    fn everything_fits_nothing_is_evicted() {
        let messages = conversation(3, 100);
        let admitted = admit(AdmissionInput {
            fixed_tokens: 500,
            messages: &messages,
            task_index: 0,
            context_window: 8_192,
            output_reserve: 1_024,
        })
        .unwrap();
        assert_eq!(admitted.messages, messages);
        assert_eq!(admitted.evicted_exchanges, 0);
    }

    #[test]
    fn eviction_removes_oldest_whole_exchanges_and_keeps_the_task_and_the_latest() {
        // Each exchange is about 2 x 1000 bytes = ~500 tokens; 10 of them do not fit.
        let messages = conversation(10, 1_000);
        let admitted = admit(AdmissionInput {
            fixed_tokens: 400,
            messages: &messages,
            task_index: 0,
            context_window: 4_096,
            output_reserve: 1_024,
        })
        .unwrap();
        assert!(admitted.evicted_exchanges > 0);
        assert!(admitted.estimated_tokens + 1_024 <= 4_096);
        assert!(
            pairs_intact(&admitted.messages),
            "a call was split from its result"
        );
        assert_eq!(admitted.messages[0], Message::user("the task"));
        // The latest exchange is kept whole.
        let tail = &messages[messages.len() - 3..];
        assert_eq!(&admitted.messages[admitted.messages.len() - 3..], tail);
        // What is kept is a suffix of exchanges: the oldest went first.
        let kept_calls: Vec<String> = admitted
            .messages
            .iter()
            .filter_map(|m| match m {
                Message::Assistant { tool_calls, .. } => Some(tool_calls[0].id.clone()),
                _ => None,
            })
            .collect();
        let first_kept: usize = kept_calls[0][1..kept_calls[0].len() - 1].parse().unwrap();
        assert_eq!(kept_calls.len(), 10 - first_kept);
    }

    #[test]
    fn older_memory_before_the_task_is_evicted_first_and_never_leaves_a_leading_assistant_turn() {
        let mut messages = vec![Message::user("an earlier task")];
        messages.extend(conversation(4, 1_000).into_iter().skip(1));
        let task_index = messages.len();
        messages.push(Message::user("the new task"));
        messages.extend(conversation(1, 200).into_iter().skip(1));
        let admitted = admit(AdmissionInput {
            fixed_tokens: 300,
            messages: &messages,
            task_index,
            context_window: 3_000,
            output_reserve: 1_000,
        })
        .unwrap();
        assert!(matches!(admitted.messages[0], Message::User { .. }));
        assert!(admitted.messages.contains(&Message::user("the new task")));
        assert!(pairs_intact(&admitted.messages));
    }

    #[test]
    fn mandatory_input_that_cannot_fit_is_an_explicit_error() {
        let messages = vec![Message::user("t".repeat(40_000))];
        let err = admit(AdmissionInput {
            fixed_tokens: 100,
            messages: &messages,
            task_index: 0,
            context_window: 8_192,
            output_reserve: 1_024,
        })
        .unwrap_err();
        assert!(
            matches!(err, AgentError::ContextOverflow { window: 8_192, .. }),
            "{err}"
        );
    }
}
