//! Integration tests by area.

mod findings;
