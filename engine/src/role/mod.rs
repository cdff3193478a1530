//! Roles: who does a step's work, with which tools and which authority.
//!
//! A role is data (a YAML file under `roles/`, `.protoflow/roles/` or the user
//! config). This module owns the role document, its resolution path and its own
//! checks; it must never know a particular role's name.

mod document;
mod load;
mod search;

pub use document::{
    Memory, ProfileOverlayDocument, ProfilesDocument, RoleDocument, RoleKind, RoleLimitsDocument,
};
pub use load::{LoadedRole, check_role, load_role, load_role_bytes, load_role_file};
pub(crate) use load::{template_syntax, unknown_tool};
pub use search::{RoleListing, RoleLocation, RoleSearchPath, is_role_name, user_config_dir};
