//! Secrets redaction: values of known credential variables never reach receipts,
//! events, reports or a model.
//!
//! A [`Redactor`] is built from variable names that look like credentials
//! (`*_API_KEY`, `*_TOKEN`, `*_SECRET`, `*PASSWORD*`, `GITHUB_TOKEN`, `AWS_*`, ...)
//! and their current values, plus any value added explicitly. It replaces every
//! occurrence of such a value with `[REDACTED:NAME]`.
//!
//! Values shorter than [`Redactor::MIN_SECRET_LEN`] (8) characters are NOT
//! redacted by value: short strings (`1`, `true`, `us-east`) occur everywhere and
//! would mangle unrelated text, and real credentials are longer. A JSON object
//! entry whose key is a credential name is redacted whatever its length.
//!
//! This module only transforms data; it never reads files or prints.

use std::borrow::Cow;

use serde_json::Value;

/// Replaces known secret values in text and JSON.
#[derive(Clone, Default)]
pub struct Redactor {
    /// (name, value), longest value first so that overlapping secrets redact fully.
    secrets: Vec<(String, String)>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.secrets.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("Redactor").field("names", &names).finish()
    }
}

const NAME_PARTS: [&str; 9] = [
    "API_KEY",
    "APIKEY",
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "CREDENTIAL",
    "PRIVATE_KEY",
    "ACCESS_KEY",
];

impl Redactor {
    /// Values shorter than this are not redacted by value (see the module docs).
    pub const MIN_SECRET_LEN: usize = 8;

    /// A redactor that knows no secrets.
    pub fn empty() -> Redactor {
        Redactor::default()
    }

    /// Whether a variable name looks like a credential.
    pub fn is_secret_name(name: &str) -> bool {
        let upper = name.to_ascii_uppercase();
        upper.starts_with("AWS_")
            || upper == "PASSWORD"
            || NAME_PARTS.iter().any(|part| upper.contains(part))
    }

    /// A redactor for the credential-named variables among `vars`.
    pub fn from_vars<I, K, V>(vars: I) -> Redactor
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let mut redactor = Redactor::empty();
        for (name, value) in vars {
            if Redactor::is_secret_name(name.as_ref()) {
                redactor.add(name.as_ref(), value.as_ref());
            }
        }
        redactor
    }

    /// A redactor for the credential-named variables of this process's environment.
    pub fn from_process_env() -> Redactor {
        Redactor::from_vars(
            std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?))),
        )
    }

    /// Adds a secret value under a name (ignored when shorter than the minimum).
    pub fn add(&mut self, name: &str, value: &str) {
        if value.chars().count() < Redactor::MIN_SECRET_LEN
            || self.secrets.iter().any(|(_, v)| v == value)
        {
            return;
        }
        self.secrets.push((name.to_string(), value.to_string()));
        self.secrets.sort_by_key(|s| std::cmp::Reverse(s.1.len()));
    }

    /// This redactor plus the secrets of `other`.
    pub fn merged(&self, other: &Redactor) -> Redactor {
        let mut out = self.clone();
        for (name, value) in &other.secrets {
            out.add(name, value);
        }
        out
    }

    /// Whether it knows no secret.
    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }

    /// `text` with every known secret value replaced.
    pub fn redact_str<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        for (name, value) in &self.secrets {
            if out.contains(value.as_str()) {
                out = Cow::Owned(out.replace(value.as_str(), &format!("[REDACTED:{name}]")));
            }
        }
        out
    }

    /// `value` with secrets replaced in every string, and every entry under a
    /// credential-named key replaced whatever its length.
    pub fn redact_value(&self, value: &Value) -> Value {
        match value {
            Value::String(s) => Value::String(self.redact_str(s).into_owned()),
            Value::Array(items) => {
                Value::Array(items.iter().map(|v| self.redact_value(v)).collect())
            }
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| {
                        let v = match v {
                            Value::String(s) if Redactor::is_secret_name(k) && !s.is_empty() => {
                                Value::String(format!("[REDACTED:{k}]"))
                            }
                            other => self.redact_value(other),
                        };
                        (k.clone(), v)
                    })
                    .collect(),
            ),
            other => other.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn credential_names_are_recognized() {
        for name in [
            "OPENAI_API_KEY",
            "GITHUB_TOKEN",
            "DB_PASSWORD",
            "AWS_REGION",
            "MY_SECRET",
            "password",
        ] {
            assert!(Redactor::is_secret_name(name), "{name}");
        }
        for name in ["PATH", "HOME", "LANG", "CARGO_TARGET_DIR"] {
            assert!(!Redactor::is_secret_name(name), "{name}");
        }
    }

    #[test]
    fn long_values_are_redacted_short_ones_are_not() {
        let r = Redactor::from_vars([
            ("OPENAI_API_KEY", "sk-canary-123456"),
            ("SHORT_TOKEN", "abc"),
            ("PATH", "/usr/bin:/bin"),
        ]);
        assert_eq!(
            r.redact_str("key=sk-canary-123456;"),
            "key=[REDACTED:OPENAI_API_KEY];"
        );
        assert_eq!(r.redact_str("abc /usr/bin:/bin"), "abc /usr/bin:/bin");
    }

    #[test]
    fn json_is_redacted_by_value_and_by_key() {
        let r = Redactor::from_vars([("X_TOKEN", "tok-0123456789")]);
        let v = json!({"argv": ["echo", "tok-0123456789"], "env": {"GH_TOKEN": "x", "LANG": "C"}});
        assert_eq!(
            r.redact_value(&v),
            json!({"argv": ["echo", "[REDACTED:X_TOKEN]"], "env": {"GH_TOKEN": "[REDACTED:GH_TOKEN]", "LANG": "C"}})
        );
    }
}
