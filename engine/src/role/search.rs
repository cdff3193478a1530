//! Where roles come from: the project's `.protoflow/roles/`, then the user's config
//! directory, then the built-ins shipped in the binary. The first match wins.
//!
//! Owns lookup only; parsing and checking a role file happen in `load`.

use std::path::{Path, PathBuf};

use crate::builtins::{self, Builtin};

/// The directories searched for roles, in order (the built-ins come last).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RoleSearchPath {
    /// The project's role directory (`<project>/.protoflow/roles`).
    pub project: Option<PathBuf>,
    /// The user's role directory (`$XDG_CONFIG_HOME/protoflow/roles` or
    /// `~/.config/protoflow/roles`).
    pub user: Option<PathBuf>,
}

/// Where a role file was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RoleLocation {
    /// An explicit path (a recipe's `from: ./x.yaml`, or a command-line argument).
    File(PathBuf),
    /// The project's `.protoflow/roles/`.
    Project(PathBuf),
    /// The user's config directory.
    User(PathBuf),
    /// Shipped in the binary.
    Builtin(&'static Builtin),
}

impl RoleLocation {
    /// A short description of the layer (`project`, `user`, `builtin`, `file`).
    pub fn layer(&self) -> &'static str {
        match self {
            RoleLocation::File(_) => "file",
            RoleLocation::Project(_) => "project",
            RoleLocation::User(_) => "user",
            RoleLocation::Builtin(_) => "builtin",
        }
    }

    /// The name shown in diagnostics: the path, or `builtin:roles/NAME.yaml`.
    pub fn display_name(&self) -> String {
        match self {
            RoleLocation::File(p) | RoleLocation::Project(p) | RoleLocation::User(p) => {
                p.display().to_string()
            }
            RoleLocation::Builtin(b) => format!("builtin:{}", b.path),
        }
    }
}

/// One role found while listing, with the layer that provides it.
#[derive(Debug, Clone)]
pub struct RoleListing {
    /// The role's name (the file stem).
    pub name: String,
    /// Where the winning file is.
    pub location: RoleLocation,
    /// Lower layers that also define it (shadowed).
    pub shadows: Vec<RoleLocation>,
}

/// Whether `name` is a plain role name (never a path: no `/`, no `..`).
pub fn is_role_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

impl RoleSearchPath {
    /// The search path for a project rooted at `project_root`, with the user directory
    /// from the environment.
    pub fn from_env(project_root: &Path) -> Self {
        RoleSearchPath {
            project: Some(project_root.join(".protoflow").join("roles")),
            user: user_config_dir().map(|d| d.join("protoflow").join("roles")),
        }
    }

    /// Only the built-ins (for tests and for recipes loaded without a project).
    pub fn builtins_only() -> Self {
        RoleSearchPath::default()
    }

    /// Finds the role called `name` (a plain name) in the first layer that has it.
    pub fn find(&self, name: &str) -> Option<RoleLocation> {
        if !is_role_name(name) {
            return None;
        }
        self.candidates(name).into_iter().next()
    }

    fn candidates(&self, name: &str) -> Vec<RoleLocation> {
        let mut found = Vec::new();
        for (dir, make) in [
            (
                &self.project,
                RoleLocation::Project as fn(PathBuf) -> RoleLocation,
            ),
            (&self.user, RoleLocation::User),
        ] {
            if let Some(dir) = dir {
                for ext in ["yaml", "yml"] {
                    let p = dir.join(format!("{name}.{ext}"));
                    if p.is_file() {
                        found.push(make(p));
                        break;
                    }
                }
            }
        }
        if let Some(b) = builtins::role(name) {
            found.push(RoleLocation::Builtin(b));
        }
        found
    }

    /// Every role available, by name, with where it comes from.
    pub fn list(&self) -> Vec<RoleListing> {
        let mut names: Vec<String> = builtins::roles()
            .iter()
            .map(|b| b.name.to_string())
            .collect();
        for dir in [&self.project, &self.user].into_iter().flatten() {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                let ext = path.extension().and_then(|e| e.to_str());
                if !matches!(ext, Some("yaml" | "yml")) {
                    continue;
                }
                if let Some(stem) = path.file_stem().and_then(|s| s.to_str())
                    && is_role_name(stem)
                {
                    names.push(stem.to_string());
                }
            }
        }
        names.sort();
        names.dedup();
        names
            .into_iter()
            .filter_map(|name| {
                let mut c = self.candidates(&name).into_iter();
                let location = c.next()?;
                Some(RoleListing {
                    name,
                    location,
                    shadows: c.collect(),
                })
            })
            .collect()
    }
}

/// `$XDG_CONFIG_HOME` when set to an absolute path, otherwise `~/.config`.
pub fn user_config_dir() -> Option<PathBuf> {
    if let Some(x) = std::env::var_os("XDG_CONFIG_HOME") {
        let p = PathBuf::from(x);
        if p.is_absolute() {
            return Some(p);
        }
    }
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .map(|h| h.join(".config"))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn names_are_never_paths() {
        assert!(is_role_name("review-finder"));
        assert!(!is_role_name("../coder"));
        assert!(!is_role_name("a/b"));
        assert!(!is_role_name("Coder"));
        assert!(!is_role_name(""));
    }

    #[test]
    fn project_roles_shadow_builtins() {
        let dir = tempfile::tempdir().unwrap();
        let roles = dir.path().join(".protoflow/roles");
        std::fs::create_dir_all(&roles).unwrap();
        std::fs::write(roles.join("coder.yaml"), "x").unwrap();
        let search = RoleSearchPath {
            project: Some(roles.clone()),
            user: None,
        };
        assert_eq!(
            search.find("coder"),
            Some(RoleLocation::Project(roles.join("coder.yaml")))
        );
        let listing = search.list();
        let coder = listing.iter().find(|l| l.name == "coder").unwrap();
        assert_eq!(coder.shadows.len(), 1);
        assert!(matches!(
            search.find("architect"),
            Some(RoleLocation::Builtin(_))
        ));
    }
}
