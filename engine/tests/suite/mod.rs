//! Engine integration tests, one module per area.

mod checks;
