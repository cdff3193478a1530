//! Integration test areas.

mod web;
