//! Live consumers of a run's events.

use std::io::Write;
use std::sync::Mutex;

use super::Event;

/// Something that wants each event as it happens (an events file, a terminal view).
///
/// Called synchronously, in `seq` order, after the event was stored. Must be quick
/// and must never panic; errors are the listener's own business.
pub trait EventListener: Send + Sync {
    /// One event.
    fn on_event(&self, event: &Event);
}

/// Writes each event as one line of JSON (the `--events FILE|-` stream).
pub struct JsonLinesWriter<W: Write + Send> {
    out: Mutex<W>,
}

impl<W: Write + Send> std::fmt::Debug for JsonLinesWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonLinesWriter").finish_non_exhaustive()
    }
}

impl<W: Write + Send> JsonLinesWriter<W> {
    /// A writer over `out`. Each line is flushed at once so live readers see it.
    pub fn new(out: W) -> Self {
        JsonLinesWriter {
            out: Mutex::new(out),
        }
    }
}

impl<W: Write + Send> EventListener for JsonLinesWriter<W> {
    fn on_event(&self, event: &Event) {
        let Ok(line) = serde_json::to_string(event) else {
            return;
        };
        if let Ok(mut out) = self.out.lock() {
            // A closed pipe must not stop the run; the store still has every event.
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
        }
    }
}
