//! The terminal's answer to `ask_user`: the question (and its options) on stderr,
//! one line read from stdin. Used only when stdin is a terminal; a headless run
//! gets the engine's headless asker (no answer).

use std::io::{BufRead, IsTerminal, Write};

use async_trait::async_trait;
use protoflow_engine::tools::task::{Asker, Question};
use tokio::sync::Mutex;

/// Asks the person at the terminal, one question at a time.
#[derive(Debug, Default)]
pub struct TerminalAsker {
    one_at_a_time: Mutex<()>,
}

/// The answer a typed line means: an option's number picks that option; an empty
/// line is no answer.
pub fn interpret(line: &str, options: &[String]) -> Option<String> {
    let line = line.trim();
    if line.is_empty() {
        return None;
    }
    match line.parse::<usize>() {
        Ok(n) if n >= 1 && n <= options.len() => options.get(n - 1).cloned(),
        _ => Some(line.to_string()),
    }
}

fn ask_blocking(question: &Question) -> Option<String> {
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        return None;
    }
    let mut stderr = std::io::stderr();
    let _ = writeln!(
        stderr,
        "\n── question from the run ──\n{}",
        question.question
    );
    for (i, option) in question.options.iter().enumerate() {
        let _ = writeln!(stderr, "  {}. {option}", i + 1);
    }
    let _ = write!(stderr, "answer (empty: no answer)> ");
    let _ = stderr.flush();
    let mut line = String::new();
    match stdin.lock().read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => interpret(&line, &question.options),
    }
}

#[async_trait]
impl Asker for TerminalAsker {
    async fn ask(&self, question: &Question) -> Option<String> {
        let _turn = self.one_at_a_time.lock().await;
        let question = question.clone();
        tokio::task::spawn_blocking(move || ask_blocking(&question))
            .await
            .unwrap_or(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_number_picks_an_option_and_an_empty_line_is_no_answer() {
        let options = vec!["keep".to_string(), "drop".to_string()];
        assert_eq!(interpret("2\n", &options).as_deref(), Some("drop"));
        assert_eq!(interpret("  \n", &options), None);
        assert_eq!(interpret("7", &options).as_deref(), Some("7"));
        assert_eq!(interpret("neither", &options).as_deref(), Some("neither"));
    }
}
