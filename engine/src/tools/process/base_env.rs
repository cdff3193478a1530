//! The base environment a run gives its child processes.
//!
//! Nothing is inherited by default. This is the short, explicit list of variables a
//! toolchain needs to work at all (where programs and the home directory are, the
//! locale, toolchain homes); names that look like credentials are never passed, even
//! when listed.

use std::collections::BTreeMap;

use crate::policy::Redactor;

/// Variables passed through from protoflow's own environment to child processes.
pub const PASSED_THROUGH: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    "TMPDIR",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "VIRTUAL_ENV",
    "JAVA_HOME",
    "GOPATH",
    "GOROOT",
];

/// The base environment: the passed-through variables that are set in `lookup`.
pub fn base_process_env(lookup: impl Fn(&str) -> Option<String>) -> BTreeMap<String, String> {
    PASSED_THROUGH
        .iter()
        .filter(|name| !Redactor::is_secret_name(name))
        .filter_map(|name| lookup(name).map(|value| (name.to_string(), value)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_listed_variables_pass() {
        let env = base_process_env(|name| match name {
            "PATH" => Some("/usr/bin".into()),
            "OPENAI_API_KEY" => Some("sk-canary".into()),
            _ => None,
        });
        assert_eq!(env.len(), 1);
        assert_eq!(env.get("PATH").map(String::as_str), Some("/usr/bin"));
    }
}
