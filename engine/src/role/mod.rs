//! Roles: who does a step's work, with which tools and which authority.
//!
//! A role is data (a YAML file under `roles/`, `.protoflow/roles/` or the user
//! config). This module owns the role document and its resolution; it must never
//! know a particular role's name.

mod document;

pub use document::{
    Memory, ProfileOverlayDocument, ProfilesDocument, RoleDocument, RoleKind, RoleLimitsDocument,
};
