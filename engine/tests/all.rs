//! The engine's integration test suite: one binary, one module per area.

mod suite;
