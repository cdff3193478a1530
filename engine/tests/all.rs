//! The engine integration test binary: one binary, one module per area under suite/.

mod suite;
