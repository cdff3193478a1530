<<<<<<< HEAD
<<<<<<< HEAD
//! The engine's integration tests: one binary, one module per area under `suite/`.
=======
//! The engine integration test binary: one binary, one module per area under suite/.
>>>>>>> checks
=======
//! The engine's integration test suite: one binary, one module per area.
>>>>>>> findings

mod suite;
