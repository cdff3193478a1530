//! Signal handling for runs: the first SIGINT (Ctrl-C) or SIGTERM cancels the run
//! (running steps are told; their process groups are killed; the store records
//! the run as canceled with what had completed); a second one exits at once with
//! the canceled exit code.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::signal::unix::{SignalKind, signal};
use tokio_util::sync::CancellationToken;

use crate::exit;

/// Watches SIGINT and SIGTERM for as long as the runtime lives.
///
/// `announce` is called once, on the first signal (to print "canceling...").
pub fn install(cancel: CancellationToken, announce: impl Fn() + Send + 'static) {
    let fired = Arc::new(AtomicBool::new(false));
    tokio::spawn(async move {
        let (Ok(mut interrupt), Ok(mut terminate)) = (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) else {
            // Without signal handlers the default action (exit) still applies.
            return;
        };
        loop {
            tokio::select! {
                _ = interrupt.recv() => {}
                _ = terminate.recv() => {}
            }
            if fired.swap(true, Ordering::SeqCst) {
                // Second signal: leave now. Process groups already received their
                // stop signal on the first one.
                std::process::exit(i32::from(exit::CANCELED));
            }
            announce();
            cancel.cancel();
        }
    });
}
