//! Prompt profiles: which overlay of a role's prompt a model gets.
//!
//! This file owns the profile vocabulary and the `auto` table (model name →
//! profile). It never renders prompts and never knows a role.
//!
//! # The `auto` table
//!
//! Checked in order against the lower-cased model name (the part after the last
//! `/`, so `openrouter/anthropic/claude-3-haiku` reads as `claude-3-haiku`):
//!
//! | rule | profile |
//! | ---- | ------- |
//! | a parameter count of at most 9 B (`:7b`, `-3b`, `8b-instruct`, `1.5b`, `e2b`) | small |
//! | a word `mini`, `haiku`, `nano`, `small`, `tiny`, or `flash-lite` | small |
//! | a parameter count of 10–40 B (`:14b`, `32b`) | medium |
//! | a word `medium` or `flash` | medium |
//! | any other parameter count (`:70b`, `405b`) | large |
//! | starts with `gpt-`, `o1`, `o3`, `o4`, `claude`, `gemini`, `grok`, `mistral-large`, `deepseek-chat`, `deepseek-reasoner` | api |
//! | anything else | medium |

use serde::{Deserialize, Serialize};

/// A prompt profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// Small local models: short, explicit instructions.
    Small,
    /// Medium models.
    Medium,
    /// Large models.
    Large,
    /// Hosted API models.
    Api,
}

impl Profile {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Small => "small",
            Profile::Medium => "medium",
            Profile::Large => "large",
            Profile::Api => "api",
        }
    }

    /// Parses `small`, `medium`, `large`, `api` (`auto` is `None`: use [`Profile::auto`]).
    pub fn parse(text: &str) -> Option<Profile> {
        match text {
            "small" => Some(Profile::Small),
            "medium" => Some(Profile::Medium),
            "large" => Some(Profile::Large),
            "api" => Some(Profile::Api),
            _ => None,
        }
    }

    /// The profile `auto` picks for `model` (see the module's table).
    pub fn auto(model: &str) -> Profile {
        let lower = model.to_ascii_lowercase();
        let name = lower.rsplit('/').next().unwrap_or(&lower);
        let billions = parameter_billions(name);
        if billions.is_some_and(|b| b <= 9.0) {
            return Profile::Small;
        }
        let words: Vec<&str> = name
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        let has = |list: &[&str]| words.iter().any(|w| list.contains(w));
        if has(&["mini", "haiku", "nano", "small", "tiny"]) || name.contains("flash-lite") {
            return Profile::Small;
        }
        if billions.is_some_and(|b| b <= 40.0) || has(&["medium", "flash"]) {
            return Profile::Medium;
        }
        if billions.is_some() {
            return Profile::Large;
        }
        const API: [&str; 10] = [
            "gpt-",
            "o1",
            "o3",
            "o4",
            "claude",
            "gemini",
            "grok",
            "mistral-large",
            "deepseek-chat",
            "deepseek-reasoner",
        ];
        if API.iter().any(|p| name.starts_with(p)) {
            return Profile::Api;
        }
        Profile::Medium
    }
}

impl std::fmt::Display for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A parameter count written in a model name (`7b`, `1.5b`, `e2b`), in billions.
/// Only a number directly followed by `b` and then a separator or the end counts,
/// and only when preceded by a separator (so `gpt-4o` or `v2beta` are not read).
fn parameter_billions(name: &str) -> Option<f64> {
    let bytes = name.as_bytes();
    let separator = |c: u8| matches!(c, b':' | b'-' | b'_' | b'.' | b' ' | b'/' | b'e');
    let mut best: Option<f64> = None;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() && (i == 0 || separator(bytes[i - 1])) {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
                i += 1;
            }
            let ends = i + 1 >= bytes.len() || !bytes[i + 1].is_ascii_alphanumeric();
            if i < bytes.len()
                && bytes[i] == b'b'
                && ends
                && let Ok(n) = name[start..i].parse::<f64>()
            {
                best = Some(best.map_or(n, |b: f64| b.max(n)));
            }
        }
        i += 1;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_reads_the_model_name() {
        for (model, profile) in [
            ("qwen2.5-coder:7b", Profile::Small),
            ("llama3.2:3b-instruct-q4", Profile::Small),
            ("gemma3n:e2b", Profile::Small),
            ("gpt-4o-mini", Profile::Small),
            ("claude-3-5-haiku-latest", Profile::Small),
            ("qwen2.5-coder:32b", Profile::Medium),
            ("gemini-2.0-flash", Profile::Medium),
            ("gemini-2.0-flash-lite", Profile::Small),
            ("o4-mini", Profile::Small),
            ("llama3.1:70b", Profile::Large),
            ("meta-llama/Llama-3.1-405B-Instruct", Profile::Large),
            ("gpt-4o", Profile::Api),
            ("claude-sonnet-4-5", Profile::Api),
            ("openrouter/anthropic/claude-opus-4", Profile::Api),
            ("o3", Profile::Api),
            ("some-local-model", Profile::Medium),
        ] {
            assert_eq!(Profile::auto(model), profile, "{model}");
        }
    }

    #[test]
    fn names_are_parsed_and_printed() {
        for p in [
            Profile::Small,
            Profile::Medium,
            Profile::Large,
            Profile::Api,
        ] {
            assert_eq!(Profile::parse(p.as_str()), Some(p));
        }
        assert_eq!(Profile::parse("auto"), None);
    }
}
