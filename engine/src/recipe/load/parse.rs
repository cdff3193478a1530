//! Shape stages shared by every document kind: YAML -> schema -> typed document.

use std::io::Read;
use std::path::Path;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::recipe::diagnostic::{Diagnostic, Diagnostics};
use crate::recipe::schema::{CompiledSchema, validate_against};
use crate::recipe::source::Source;
use crate::recipe::yaml::{SpannedJson, YamlLimits, load_yaml, pointer_join};

/// Reads a file's bytes, refusing (before reading) anything over the size cap.
pub fn read_capped(path: &Path, name: &str, limits: &YamlLimits) -> Result<Vec<u8>, Diagnostic> {
    let io_err = |e: std::io::Error| {
        Diagnostic::new("document::unreadable", format!("cannot read `{name}`: {e}"))
            .with_help("check the path and its permissions")
    };
    let file = std::fs::File::open(path).map_err(io_err)?;
    let meta = file.metadata().map_err(io_err)?;
    if !meta.is_file() {
        return Err(Diagnostic::new(
            "document::unreadable",
            format!("`{name}` is not a regular file"),
        ));
    }
    let cap = limits.max_bytes as u64;
    if meta.len() > cap {
        return Err(Diagnostic::new(
            "yaml::too-large",
            format!(
                "`{name}` is {} bytes, over the limit of {} bytes",
                meta.len(),
                limits.max_bytes
            ),
        )
        .in_source(&Source::new(name, ""))
        .with_help("split the document, or move large data out of it"));
    }
    let mut bytes = Vec::new();
    file.take(cap + 1).read_to_end(&mut bytes).map_err(io_err)?;
    Ok(bytes)
}

/// A document after the shape stages: typed, with its text and spans.
#[derive(Debug, Clone)]
pub struct Parsed<T> {
    /// The typed document.
    pub document: T,
    /// The JSON it was read from.
    pub value: Value,
    /// Its text.
    pub source: Source,
    /// Where each node is.
    pub spans: crate::recipe::yaml::SpanIndex,
}

/// YAML text -> JSON with spans -> schema-valid JSON (all errors reported).
pub fn parse_value(
    name: &str,
    bytes: &[u8],
    schema: &CompiledSchema,
    limits: &YamlLimits,
) -> Result<(Source, SpannedJson), Diagnostics> {
    let (source, doc) = load_yaml(name, bytes, limits)?;
    let diags = validate_against(schema, &doc.value, &source, &doc.spans);
    diags.into_result((source, doc))
}

/// Schema-valid JSON -> typed document. Anything the schema let through that serde
/// refuses is reported at its path. `locate(pointer, exact)` gives the span of a
/// key (only that key when `exact`, otherwise the nearest located node).
pub fn to_typed<T: DeserializeOwned>(
    value: &Value,
    locate: impl Fn(&str, bool) -> Option<(Source, std::ops::Range<usize>)>,
    fallback: &Source,
) -> Result<T, Diagnostics> {
    serde_path_to_error::deserialize::<_, T>(value).map_err(|err| {
        let mut ptr = path_pointer(err.path());
        let inner = err.into_inner().to_string();
        // "unknown variant `x`" on a map key: point at that key when it exists.
        if let Some(name) = inner
            .strip_prefix("unknown variant `")
            .and_then(|r| r.split('`').next())
        {
            let candidate = pointer_join(&ptr, name);
            if locate(&candidate, true).is_some() {
                ptr = candidate;
            }
        }
        let d = Diagnostic::new("schema::invalid-value", inner)
            .with_help("fix the value to match the language reference (docs/recipe-language.md)");
        let d = match locate(&ptr, false) {
            Some(loc) => d.at_opt(Some(loc)),
            None => d.in_source(fallback),
        };
        Diagnostics::from(d)
    })
}

/// Both shape stages for a single file.
pub fn parse_typed<T: DeserializeOwned>(
    name: &str,
    bytes: &[u8],
    schema: &CompiledSchema,
    limits: &YamlLimits,
) -> Result<Parsed<T>, Diagnostics> {
    let (source, doc) = parse_value(name, bytes, schema, limits)?;
    let document = to_typed::<T>(
        &doc.value,
        |ptr, exact| {
            let span = if exact {
                doc.spans.key(ptr)
            } else {
                doc.spans.key_or_nearest(ptr)
            };
            span.map(|s| (source.clone(), s))
        },
        &source,
    )?;
    Ok(Parsed {
        document,
        value: doc.value,
        source,
        spans: doc.spans,
    })
}

fn path_pointer(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut ptr = String::new();
    for seg in path.iter() {
        match seg {
            Segment::Seq { index } => ptr = pointer_join(&ptr, &index.to_string()),
            Segment::Map { key } => ptr = pointer_join(&ptr, key),
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    ptr
}
