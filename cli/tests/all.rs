//! End-to-end tests of the `protoflow` binary: one test binary, one module per area.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
