//! The human summary of a run's completion verdict: status, verification, files
//! changed (with diffs), checks per phase, and what is left.

use protoflow_engine::evidence::completion::Completion;

/// Lines appended to a run's summary when it computed a completion verdict.
pub fn render(completion: &Completion) -> String {
    let json = |v: &dyn erased::Name| v.name();
    let mut text = format!(
        "  completion: {} — applied {}, verification {}{}\n",
        json(&completion.status),
        if completion.applied { "yes" } else { "no" },
        json(&completion.verification),
        completion
            .class
            .as_ref()
            .map(|c| format!(" (request: {c})"))
            .unwrap_or_default()
    );
    for file in &completion.files {
        text.push_str(&format!(
            "  changed {}{}\n",
            file.path,
            if file.applied {
                ""
            } else {
                " (changed since the run wrote it)"
            }
        ));
        for line in file.diff.lines().take(60) {
            text.push_str(&format!("    {line}\n"));
        }
    }
    for check in &completion.checks {
        text.push_str(&format!(
            "  check {} [{}{}]: {}{}\n",
            check.id,
            check.phase,
            if check.counted { ", counted" } else { "" },
            check.status,
            check
                .tests_executed
                .map(|n| format!(", {n} test(s)"))
                .unwrap_or_default()
        ));
    }
    for denial in &completion.denied {
        text.push_str(&format!(
            "  denied `{}` ({}): {}\n",
            denial.tool, denial.by, denial.reason
        ));
    }
    for item in &completion.left {
        text.push_str(&format!("  left: {item}\n"));
    }
    text
}

mod erased {
    /// The serialized (snake_case) name of a unit enum.
    pub trait Name {
        fn name(&self) -> String;
    }

    impl<T: serde::Serialize> Name for T {
        fn name(&self) -> String {
            serde_json::to_value(self)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default()
        }
    }
}
