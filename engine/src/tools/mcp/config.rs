//! MCP server configuration: the common `mcpServers` JSON shape, read from the
//! user's config directory (always trusted) and from the project (trusted only
//! through the trust store, see `trust`).
//!
//! Owns parsing (unknown fields rejected), validation of each server entry, the
//! per-server allowlist, and merging the two sources. It never starts a server,
//! never resolves a command and never contacts a URL: loading has no effect.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use url::Url;

use super::error::McpError;
use super::trust::{TrustStore, sha256_hex};
use crate::policy::Redactor;

/// The project's MCP configuration file, relative to the project root.
pub const PROJECT_FILE: &str = ".protoflow/mcp.json";
/// The user's MCP configuration file, relative to the user config directory.
pub const USER_FILE: &str = "protoflow/mcp.json";
/// The longest per-server timeout a configuration may ask for.
pub const MAX_TIMEOUT_SECONDS: u64 = 600;

/// Which tools of a server may be called.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Allow {
    /// None (no `allow` given): the server may be listed, nothing may be called.
    Nothing,
    /// Every tool (`"allow": "*"`).
    All,
    /// Exactly these tools.
    Tools(BTreeSet<String>),
}

impl Allow {
    /// Whether `tool` may be called.
    pub fn permits(&self, tool: &str) -> bool {
        match self {
            Allow::Nothing => false,
            Allow::All => true,
            Allow::Tools(tools) => tools.contains(tool),
        }
    }
}

impl fmt::Display for Allow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Allow::Nothing => f.write_str("none"),
            Allow::All => f.write_str("* (every tool)"),
            Allow::Tools(tools) if tools.is_empty() => f.write_str("none"),
            Allow::Tools(tools) => {
                let names: Vec<&str> = tools.iter().map(String::as_str).collect();
                f.write_str(&names.join(", "))
            }
        }
    }
}

/// How the broker reaches a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A local process speaking MCP over stdin/stdout.
    Stdio {
        /// The program (a bare name is looked up in the child's `PATH`).
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables added to the base environment (nothing else is inherited).
        env: BTreeMap<String, String>,
    },
    /// A streamable HTTP endpoint.
    Http {
        /// The endpoint.
        url: Url,
    },
}

impl Transport {
    /// One line for previews and listings; environment values are never shown.
    pub fn describe(&self) -> String {
        match self {
            Transport::Stdio { command, args, env } => {
                let mut text = format!("stdio: {command}");
                for arg in args {
                    text.push(' ');
                    text.push_str(arg);
                }
                if !env.is_empty() {
                    let names: Vec<&str> = env.keys().map(String::as_str).collect();
                    text.push_str(&format!(" (env: {})", names.join(", ")));
                }
                text
            }
            Transport::Http { url } => format!("http: {url}"),
        }
    }
}

/// Where a server's configuration came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// The user's configuration file.
    User(PathBuf),
    /// The project's configuration file (trusted).
    Project(PathBuf),
}

impl Origin {
    /// The file.
    pub fn file(&self) -> &Path {
        match self {
            Origin::User(path) | Origin::Project(path) => path,
        }
    }
}

/// One configured server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    /// Its name (the `server` argument of the MCP tools).
    pub name: String,
    /// How it is reached.
    pub transport: Transport,
    /// Which of its tools may be called.
    pub allow: Allow,
    /// Its own request timeout, overriding the broker's default.
    pub timeout: Option<Duration>,
    /// Where it was configured.
    pub origin: Origin,
}

impl ServerConfig {
    /// A redactor for the credential-named variables of this server's `env`
    /// (a token given to a server never comes back in a result or an error).
    pub fn secrets(&self) -> Redactor {
        match &self.transport {
            Transport::Stdio { env, .. } => Redactor::from_vars(env),
            Transport::Http { .. } => Redactor::empty(),
        }
    }
}

/// The project's MCP file as found at load time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectFile {
    /// The project root (canonical).
    pub root: PathBuf,
    /// The file.
    pub file: PathBuf,
    /// SHA-256 of the bytes that were read (hex).
    pub sha256: String,
    /// Whether the trust store has a record for this root with this digest.
    pub trusted: bool,
    /// The servers it configures.
    pub servers: Vec<ServerConfig>,
}

/// Where configuration is read from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct McpSources {
    /// The user's `mcp.json` (may not exist).
    pub user_file: Option<PathBuf>,
    /// The project root whose `.protoflow/mcp.json` is read (may not exist).
    pub project_root: Option<PathBuf>,
    /// The trust store consulted for the project file; `None`: never trusted.
    pub trust: Option<TrustStore>,
}

impl McpSources {
    /// The standard locations for `project_root`, from this process's environment:
    /// `$XDG_CONFIG_HOME/protoflow/mcp.json` (or `~/.config/...`) and the trust
    /// store in the user data directory. A missing HOME leaves the user file and
    /// the trust store out (so the project file is never trusted).
    pub fn for_project(project_root: &Path) -> McpSources {
        McpSources::for_project_with(project_root, |name| std::env::var(name).ok())
    }

    /// [`McpSources::for_project`] with an explicit environment lookup.
    pub fn for_project_with(
        project_root: &Path,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> McpSources {
        McpSources {
            user_file: user_config_file(&lookup).ok(),
            project_root: Some(project_root.to_path_buf()),
            trust: TrustStore::default_location(&lookup)
                .ok()
                .map(TrustStore::at),
        }
    }
}

/// `$XDG_CONFIG_HOME/protoflow/mcp.json`, or `$HOME/.config/protoflow/mcp.json`.
pub fn user_config_file(lookup: impl Fn(&str) -> Option<String>) -> Result<PathBuf, McpError> {
    let base = match lookup("XDG_CONFIG_HOME").filter(|v| Path::new(v).is_absolute()) {
        Some(dir) => PathBuf::from(dir),
        None => match lookup("HOME").filter(|v| !v.is_empty()) {
            Some(home) => PathBuf::from(home).join(".config"),
            None => {
                return Err(McpError::NoHome {
                    what: "config",
                    xdg: "XDG_CONFIG_HOME",
                });
            }
        },
    };
    Ok(base.join(USER_FILE))
}

/// The configuration a broker works from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct McpConfig {
    /// Usable servers: the user's and, when trusted, the project's.
    pub servers: BTreeMap<String, ServerConfig>,
    /// The project's file, when there is one (trusted or not).
    pub project: Option<ProjectFile>,
    /// Things worth telling the user (a project server shadowed by a user one).
    pub notes: Vec<String>,
}

impl McpConfig {
    /// Reads and validates the configuration from `sources`. Starts nothing.
    pub fn load(sources: &McpSources) -> Result<McpConfig, McpError> {
        let mut config = McpConfig::default();
        if let Some(file) = &sources.user_file
            && let Some(bytes) = read_if_exists(file)?
        {
            for server in parse_servers(file, &bytes, &|p| Origin::User(p.to_path_buf()))? {
                config.servers.insert(server.name.clone(), server);
            }
        }
        if let Some(root) = &sources.project_root
            && let Some(project) = load_project(root, sources.trust.as_ref())?
        {
            if project.trusted {
                for server in &project.servers {
                    if config.servers.contains_key(&server.name) {
                        config.notes.push(format!(
                            "project server `{}` is ignored: the user configuration defines \
                             a server of the same name",
                            server.name
                        ));
                    } else {
                        config.servers.insert(server.name.clone(), server.clone());
                    }
                }
            }
            config.project = Some(project);
        }
        Ok(config)
    }

    /// Parses one configuration text (for tests and tools that hold the bytes).
    pub fn parse_user(file: &Path, bytes: &[u8]) -> Result<McpConfig, McpError> {
        let mut config = McpConfig::default();
        for server in parse_servers(file, bytes, &|p| Origin::User(p.to_path_buf()))? {
            config.servers.insert(server.name.clone(), server);
        }
        Ok(config)
    }

    /// The server named `name`, or why it cannot be used.
    pub fn server(&self, name: &str) -> Result<&ServerConfig, McpError> {
        if let Some(server) = self.servers.get(name) {
            return Ok(server);
        }
        if let Some(project) = &self.project
            && !project.trusted
            && project.servers.iter().any(|s| s.name == name)
        {
            return Err(McpError::UntrustedProject {
                server: name.to_owned(),
                project: project.root.display().to_string(),
                file: project.file.display().to_string(),
            });
        }
        let known: Vec<&str> = self.servers.keys().map(String::as_str).collect();
        Err(McpError::UnknownServer {
            server: name.to_owned(),
            known: if known.is_empty() {
                "none".to_owned()
            } else {
                known.join(", ")
            },
        })
    }
}

/// Reads and parses the project's file (if any) and asks the trust store about it.
pub fn load_project(
    root: &Path,
    trust: Option<&TrustStore>,
) -> Result<Option<ProjectFile>, McpError> {
    let root = root.canonicalize().map_err(|source| McpError::Read {
        path: root.to_path_buf(),
        source,
    })?;
    let file = root.join(PROJECT_FILE);
    let Some(bytes) = read_if_exists(&file)? else {
        return Ok(None);
    };
    let sha256 = sha256_hex(&bytes);
    let servers = parse_servers(&file, &bytes, &|p| Origin::Project(p.to_path_buf()))?;
    let trusted = match trust {
        Some(store) => store.is_trusted(&root, &sha256)?,
        None => false,
    };
    Ok(Some(ProjectFile {
        root,
        file,
        sha256,
        trusted,
        servers,
    }))
}

fn read_if_exists(path: &Path) -> Result<Option<Vec<u8>>, McpError> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(McpError::Read {
            path: path.to_path_buf(),
            source,
        }),
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(rename = "mcpServers")]
    servers: BTreeMap<String, RawServer>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawServer {
    command: Option<String>,
    args: Option<Vec<String>>,
    env: Option<BTreeMap<String, String>>,
    url: Option<String>,
    allow: Option<RawAllow>,
    timeout_seconds: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum RawAllow {
    One(String),
    Many(Vec<String>),
}

/// Parses an `mcpServers` file and validates every entry.
fn parse_servers(
    file: &Path,
    bytes: &[u8],
    origin: &dyn Fn(&Path) -> Origin,
) -> Result<Vec<ServerConfig>, McpError> {
    let raw: RawFile = serde_json::from_slice(bytes).map_err(|err| McpError::ConfigParse {
        path: file.to_path_buf(),
        reason: err.to_string(),
    })?;
    raw.servers
        .into_iter()
        .map(|(name, server)| {
            let invalid = |reason: String| McpError::ConfigInvalid {
                path: file.to_path_buf(),
                server: name.clone(),
                reason,
            };
            validate_server(&name, server, origin(file)).map_err(invalid)
        })
        .collect()
}

fn validate_server(name: &str, raw: RawServer, origin: Origin) -> Result<ServerConfig, String> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    {
        return Err("the name must be non-empty ASCII letters, digits, `_`, `-` or `.`".into());
    }
    let transport = match (raw.command, raw.url) {
        (Some(_), Some(_)) => return Err("give either `command` or `url`, not both".into()),
        (None, None) => return Err("give `command` (stdio) or `url` (streamable HTTP)".into()),
        (Some(command), None) => {
            if command.is_empty() || command.contains('\0') {
                return Err("`command` must be a non-empty program name or path".into());
            }
            let args = raw.args.unwrap_or_default();
            if args.iter().any(|a| a.contains('\0')) {
                return Err("`args` may not contain NUL characters".into());
            }
            let env = raw.env.unwrap_or_default();
            for (key, value) in &env {
                if key.is_empty() || key.contains('=') || key.contains('\0') || value.contains('\0')
                {
                    return Err(format!(
                        "invalid environment variable `{key}` (names must be non-empty, \
                         without `=` or NUL)"
                    ));
                }
            }
            Transport::Stdio { command, args, env }
        }
        (None, Some(url)) => {
            if raw.args.is_some() || raw.env.is_some() {
                return Err("`args` and `env` apply to `command` servers only".into());
            }
            Transport::Http {
                url: check_url(&url)?,
            }
        }
    };
    let allow = match raw.allow {
        None => Allow::Nothing,
        Some(RawAllow::One(star)) if star == "*" => Allow::All,
        Some(RawAllow::One(other)) => {
            return Err(format!(
                "`allow` is a list of tool names or \"*\", not `{other}` (write [\"{other}\"])"
            ));
        }
        Some(RawAllow::Many(tools)) => {
            if let Some(bad) = tools.iter().find(|t| t.is_empty() || t.as_str() == "*") {
                return Err(format!(
                    "`allow` list entry `{bad}` is not a tool name (use \"*\" alone to allow every tool)"
                ));
            }
            Allow::Tools(tools.into_iter().collect())
        }
    };
    let timeout = match raw.timeout_seconds {
        None => None,
        Some(secs) if (1..=MAX_TIMEOUT_SECONDS).contains(&secs) => Some(Duration::from_secs(secs)),
        Some(secs) => {
            return Err(format!(
                "`timeoutSeconds` must be between 1 and {MAX_TIMEOUT_SECONDS}, not {secs}"
            ));
        }
    };
    Ok(ServerConfig {
        name: name.to_owned(),
        transport,
        allow,
        timeout,
        origin,
    })
}

/// An endpoint URL: https, or plain http to a loopback host only; no credentials.
fn check_url(text: &str) -> Result<Url, String> {
    let url = Url::parse(text).map_err(|err| format!("`url` is not a valid URL: {err}"))?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err("`url` may not carry a user name or password".into());
    }
    match url.scheme() {
        "https" => Ok(url),
        "http" => {
            let loopback = match url.host() {
                Some(url::Host::Domain(host)) => host.eq_ignore_ascii_case("localhost"),
                Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
                Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
                None => false,
            };
            if loopback {
                Ok(url)
            } else {
                Err("plain http is accepted for loopback servers only; use https".into())
            }
        }
        other => Err(format!("`url` scheme `{other}` is not http(s)")),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn parse(text: &str) -> Result<McpConfig, McpError> {
        McpConfig::parse_user(Path::new("mcp.json"), text.as_bytes())
    }

    fn invalid_reason(text: &str) -> String {
        match parse(text) {
            Err(McpError::ConfigInvalid { reason, .. }) => reason,
            other => panic!("expected ConfigInvalid, got {other:?}"),
        }
    }

    #[test]
    fn stdio_and_http_servers_parse_with_their_allowlists() {
        let config = parse(
            r#"{"mcpServers": {
                "local": {"command": "python3", "args": ["s.py"], "env": {"K": "v"},
                          "allow": ["echo"], "timeoutSeconds": 5},
                "remote": {"url": "https://mcp.example.com/mcp", "allow": "*"},
                "closed": {"command": "srv"}
            }}"#,
        )
        .unwrap();
        let local = &config.servers["local"];
        assert!(local.allow.permits("echo"));
        assert!(!local.allow.permits("hang"));
        assert_eq!(local.timeout, Some(Duration::from_secs(5)));
        assert_eq!(local.transport.describe(), "stdio: python3 s.py (env: K)");
        assert!(config.servers["remote"].allow.permits("anything"));
        assert_eq!(config.servers["closed"].allow, Allow::Nothing);
        assert!(!config.servers["closed"].allow.permits("echo"));
    }

    #[test]
    fn unknown_fields_are_rejected_at_every_level() {
        for text in [
            r#"{"mcpServers": {}, "extra": 1}"#,
            r#"{"mcpServers": {"a": {"command": "x", "cwd": "/"}}}"#,
        ] {
            assert!(
                matches!(parse(text), Err(McpError::ConfigParse { .. })),
                "{text}"
            );
        }
    }

    #[test]
    fn entries_must_name_exactly_one_transport() {
        assert!(invalid_reason(r#"{"mcpServers": {"a": {}}}"#).contains("command"));
        assert!(
            invalid_reason(r#"{"mcpServers": {"a": {"command": "x", "url": "https://h/"}}}"#)
                .contains("not both")
        );
        assert!(
            invalid_reason(r#"{"mcpServers": {"a": {"url": "https://h/", "args": []}}}"#)
                .contains("command")
        );
    }

    #[test]
    fn allow_is_a_list_or_star() {
        assert!(
            invalid_reason(r#"{"mcpServers": {"a": {"command": "x", "allow": "echo"}}}"#)
                .contains("[\"echo\"]")
        );
        assert!(
            invalid_reason(r#"{"mcpServers": {"a": {"command": "x", "allow": ["*", "b"]}}}"#)
                .contains("alone")
        );
    }

    #[test]
    fn plain_http_only_reaches_loopback_and_credentials_are_refused() {
        assert!(parse(r#"{"mcpServers": {"a": {"url": "http://127.0.0.1:9/mcp"}}}"#).is_ok());
        assert!(parse(r#"{"mcpServers": {"a": {"url": "http://localhost:9/mcp"}}}"#).is_ok());
        assert!(
            invalid_reason(r#"{"mcpServers": {"a": {"url": "http://example.com/mcp"}}}"#)
                .contains("https")
        );
        assert!(
            invalid_reason(r#"{"mcpServers": {"a": {"url": "https://u:p@example.com/"}}}"#)
                .contains("password")
        );
        assert!(
            invalid_reason(r#"{"mcpServers": {"a": {"url": "file:///etc/passwd"}}}"#)
                .contains("scheme")
        );
    }

    #[test]
    fn names_and_timeouts_are_bounded() {
        assert!(invalid_reason(r#"{"mcpServers": {"a b": {"command": "x"}}}"#).contains("name"));
        assert!(
            invalid_reason(r#"{"mcpServers": {"a": {"command": "x", "timeoutSeconds": 0}}}"#)
                .contains("timeoutSeconds")
        );
    }

    #[test]
    fn user_config_file_follows_xdg_then_home() {
        let xdg = user_config_file(|n| (n == "XDG_CONFIG_HOME").then(|| "/x".to_owned()));
        assert_eq!(xdg.unwrap(), PathBuf::from("/x/protoflow/mcp.json"));
        let home = user_config_file(|n| (n == "HOME").then(|| "/h".to_owned()));
        assert_eq!(
            home.unwrap(),
            PathBuf::from("/h/.config/protoflow/mcp.json")
        );
        assert!(user_config_file(|_| None).is_err());
    }
}
