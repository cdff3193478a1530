//! The run's recorder: numbers events, writes them (and step records and receipts)
//! to the store, then hands them to live listeners, in one order.
//!
//! A store write that fails does not stop the run (the effects already happened);
//! the first failure is kept and reported as a problem of the run.
//!
//! Every event and step record passes through the run's [`Redactor`] first, so a
//! known secret that reached run data (an input, a step's output or error) is
//! never stored or handed to a listener.

use std::sync::{Arc, Mutex};

use crate::events::{Event, EventKind, EventListener, now_ms};
use crate::evidence::Receipt;
use crate::policy::Redactor;
use crate::store::{StepRecord, Store};

#[derive(Default)]
struct State {
    seq: u64,
    store_error: Option<String>,
}

/// Shared by every task of one run.
#[derive(Clone)]
pub struct Recorder {
    inner: Arc<Inner>,
}

struct Inner {
    store: Store,
    run_id: String,
    listeners: Vec<Arc<dyn EventListener>>,
    redactor: Arc<Redactor>,
    state: Mutex<State>,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("run_id", &self.inner.run_id)
            .finish_non_exhaustive()
    }
}

impl Recorder {
    /// A recorder for `run_id` whose next event is `last_seq + 1`.
    pub fn new(
        store: Store,
        run_id: String,
        last_seq: u64,
        listeners: Vec<Arc<dyn EventListener>>,
        redactor: Arc<Redactor>,
    ) -> Recorder {
        Recorder {
            inner: Arc::new(Inner {
                store,
                run_id,
                listeners,
                redactor,
                state: Mutex::new(State {
                    seq: last_seq,
                    store_error: None,
                }),
            }),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.inner
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The run id.
    pub fn run_id(&self) -> &str {
        &self.inner.run_id
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    /// `value` with every known secret replaced by its `[REDACTED:NAME]` marker,
    /// through its JSON form (the shape is kept: markers are strings where the
    /// secrets were).
    pub fn redacted<T>(&self, value: T) -> T
    where
        T: serde::Serialize + serde::de::DeserializeOwned,
    {
        match serde_json::to_value(&value) {
            Ok(json) => {
                let clean = self.inner.redactor.redact_value(&json);
                if clean == json {
                    value
                } else {
                    serde_json::from_value(clean).unwrap_or(value)
                }
            }
            Err(_) => value,
        }
    }

    /// Records an event and tells the listeners.
    pub fn emit(&self, kind: EventKind) {
        let kind = self.redacted(kind);
        // Held across the write so that seq order, store order and listener order agree.
        let mut state = self.state();
        state.seq += 1;
        let event = Event {
            seq: state.seq,
            run_id: self.inner.run_id.clone(),
            at_ms: now_ms(),
            kind,
        };
        if let Err(err) = self.inner.store.append_event(&event) {
            state.store_error.get_or_insert(err.to_string());
        }
        for listener in &self.inner.listeners {
            listener.on_event(&event);
        }
    }

    /// Writes a step record.
    pub fn put_step(&self, record: &StepRecord) {
        let mut record = record.clone();
        record.output = record.output.map(|v| self.inner.redactor.redact_value(&v));
        record.error = record
            .error
            .map(|e| self.inner.redactor.redact_str(&e).into_owned());
        if let Err(err) = self.inner.store.put_step(&self.inner.run_id, &record) {
            self.state().store_error.get_or_insert(err.to_string());
        }
    }

    /// Writes a receipt and emits `receipt.recorded`.
    pub fn receipt(&self, step: &str, receipt: &Receipt) {
        if let Err(err) = self
            .inner
            .store
            .add_receipt(&self.inner.run_id, step, receipt)
        {
            self.state().store_error.get_or_insert(err.to_string());
        }
        let status = serde_json::to_value(receipt.status)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        self.emit(EventKind::ReceiptRecorded {
            step: step.to_string(),
            tool: receipt.tool.clone(),
            status,
        });
    }

    /// The first store write that failed, if any.
    pub fn store_error(&self) -> Option<String> {
        self.state().store_error.clone()
    }
}

/// A step's handle for recording receipts of calls it makes itself (agents).
#[derive(Debug, Clone)]
pub struct ReceiptSink {
    recorder: Recorder,
    step: String,
}

impl ReceiptSink {
    pub(crate) fn new(recorder: Recorder, step: String) -> ReceiptSink {
        ReceiptSink { recorder, step }
    }

    /// Records one receipt for the step.
    pub fn record(&self, receipt: &Receipt) {
        self.recorder.receipt(&self.step, receipt);
    }

    /// The step key receipts are recorded under.
    pub fn step(&self) -> &str {
        &self.step
    }

    /// The run id.
    pub fn run_id(&self) -> &str {
        self.recorder.run_id()
    }

    /// A sink for a child of this step (a delegated worker): receipts are recorded
    /// under `<step>/<suffix>`.
    pub fn child(&self, suffix: &str) -> ReceiptSink {
        ReceiptSink::new(self.recorder.clone(), format!("{}/{suffix}", self.step))
    }

    /// Records an event of the step's own making (an agent's `model.called`).
    pub fn emit(&self, kind: EventKind) {
        self.recorder.emit(kind);
    }

    /// The run's store (an agent's conversation memory lives there).
    pub fn store(&self) -> &Store {
        self.recorder.store()
    }
}
