//! Engine integration tests: one binary, one module per area under `suite/`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
