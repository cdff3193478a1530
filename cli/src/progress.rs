//! The live terminal view of a run: one spinner line with what is running and
//! the counts so far, and one line per finished, failed or skipped step above it
//! (fan-out instances only when they fail, so a 1,000-item fan-out stays
//! readable). Hidden when stderr is not a terminal or with `--quiet`.

use std::collections::BTreeSet;
use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use protoflow_engine::events::{Event, EventKind, EventListener, StepStatus};
use protoflow_engine::graph::format_ms;

#[derive(Default)]
struct Counts {
    running: BTreeSet<String>,
    done: usize,
    failed: usize,
    skipped: usize,
}

/// The live view. Implements [`EventListener`].
pub struct LiveView {
    bar: ProgressBar,
    counts: Mutex<Counts>,
    enabled: bool,
}

impl std::fmt::Debug for LiveView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveView")
            .field("enabled", &self.enabled)
            .finish()
    }
}

impl LiveView {
    /// A view on stderr, hidden when `quiet` or when stderr is not a terminal.
    pub fn new(quiet: bool) -> LiveView {
        let enabled = !quiet && std::io::stderr().is_terminal();
        let bar = if enabled {
            ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr())
        } else {
            ProgressBar::hidden()
        };
        bar.set_style(
            ProgressStyle::with_template("{spinner} {elapsed} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        if enabled {
            bar.enable_steady_tick(Duration::from_millis(120));
        }
        LiveView {
            bar,
            counts: Mutex::new(Counts::default()),
            enabled,
        }
    }

    /// Whether anything is drawn.
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// Removes the spinner (before the final summary is printed).
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }

    /// Prints a line above the spinner (or nothing when hidden), control
    /// characters escaped.
    pub fn println(&self, line: &str) {
        if self.enabled {
            self.bar.println(crate::output::printable(line));
        }
    }

    fn refresh(&self, counts: &Counts) {
        let mut running: Vec<&str> = counts.running.iter().map(String::as_str).take(4).collect();
        if counts.running.len() > 4 {
            running.push("…");
        }
        self.bar.set_message(format!(
            "running {} [{}] · done {} · failed {} · skipped {}",
            counts.running.len(),
            running.join(", "),
            counts.done,
            counts.failed,
            counts.skipped
        ));
    }
}

fn is_instance(key: &str) -> bool {
    key.ends_with(']')
}

impl EventListener for LiveView {
    fn on_event(&self, event: &Event) {
        if !self.enabled {
            return;
        }
        let Ok(mut counts) = self.counts.lock() else {
            return;
        };
        match &event.kind {
            EventKind::StepStarted { step, .. } => {
                counts.running.insert(step.clone());
            }
            EventKind::StepFinished {
                step,
                status,
                duration_ms,
                error,
            } => {
                counts.running.remove(step);
                let ok = *status == StepStatus::Succeeded;
                if ok {
                    counts.done += 1;
                } else {
                    counts.failed += 1;
                }
                if !ok || !is_instance(step) {
                    let mark = if ok { "✔" } else { "✘" };
                    let why = error
                        .as_deref()
                        .map(|e| format!(": {e}"))
                        .unwrap_or_default();
                    self.println(&format!(
                        "{mark} {step} {status} ({}){why}",
                        format_ms(*duration_ms)
                    ));
                }
            }
            EventKind::StepSkipped {
                step,
                reason,
                status,
            } => {
                counts.skipped += 1;
                if !is_instance(step) {
                    self.println(&format!("○ {step} {status}: {reason}"));
                }
            }
            EventKind::LoopTaken {
                from,
                to,
                iteration,
                max,
                ..
            } => self.println(&format!("↻ {from} → {to} ({iteration}/{max})")),
            EventKind::LoopExhausted { from, to, max } => {
                self.println(&format!("✘ loop {from} → {to} exhausted after {max}"));
            }
            EventKind::BudgetExhausted {
                scope, limit, max, ..
            } => {
                self.println(&format!("✘ budget exhausted ({scope}): {limit} = {max}"));
            }
            _ => {}
        }
        self.refresh(&counts);
    }
}
