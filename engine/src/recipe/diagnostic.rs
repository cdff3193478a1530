//! Diagnostics: one problem in a document, named by its rule, pointing at a span.
//!
//! Every stage (YAML, schema, semantic checks) reports problems as [`Diagnostic`]s so
//! that several can be collected in one pass and rendered the same way. This module
//! owns their shape and their machine-readable form; it never prints anything (the
//! CLI renders them with miette).

use std::fmt;
use std::ops::Range;

use serde::Serialize;

use super::source::Source;

/// One problem found in a document.
#[derive(Debug, Clone)]
pub struct Diagnostic {
    /// The rule that was broken, e.g. `recipe::unknown-role`. Stable: tests, docs and
    /// tools match on it.
    pub rule: &'static str,
    /// What is wrong, in one sentence.
    pub message: String,
    /// How to fix it.
    pub help: Option<String>,
    /// The document the problem is in, when known.
    pub source: Option<Source>,
    /// The byte range in `source` the problem is at.
    pub span: Option<Range<usize>>,
    /// A short label shown under the caret.
    pub label: Option<String>,
}

impl Diagnostic {
    /// A diagnostic for `rule` with `message` and no location yet.
    pub fn new(rule: &'static str, message: impl Into<String>) -> Self {
        Diagnostic {
            rule,
            message: message.into(),
            help: None,
            source: None,
            span: None,
            label: None,
        }
    }

    /// Adds a help line.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Points the diagnostic at `span` in `source`.
    pub fn at(mut self, source: &Source, span: Range<usize>) -> Self {
        self.source = Some(source.clone());
        self.span = Some(span);
        self
    }

    /// Points the diagnostic at `span` in `source`, when one is known.
    pub fn at_opt(self, located: Option<(Source, Range<usize>)>) -> Self {
        match located {
            Some((source, span)) => self.at(&source, span),
            None => self,
        }
    }

    /// Names only the document (no span).
    pub fn in_source(mut self, source: &Source) -> Self {
        self.source = Some(source.clone());
        self
    }

    /// Adds a label under the caret.
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// The 1-based line and column of the start of the span.
    pub fn line_col(&self) -> Option<(usize, usize)> {
        match (&self.source, &self.span) {
            (Some(src), Some(span)) => Some(src.line_col(span.start)),
            _ => None,
        }
    }

    /// `file:line:col` (or just the file) for one-line listings.
    pub fn location(&self) -> Option<String> {
        let src = self.source.as_ref()?;
        Some(match self.line_col() {
            Some((line, col)) => format!("{}:{line}:{col}", src.name()),
            None => src.name().to_string(),
        })
    }

    /// The machine-readable form (for `--format json`).
    pub fn to_record(&self) -> DiagnosticRecord {
        let (line, column) = match self.line_col() {
            Some((l, c)) => (Some(l), Some(c)),
            None => (None, None),
        };
        DiagnosticRecord {
            rule: self.rule.to_string(),
            message: self.message.clone(),
            help: self.help.clone(),
            file: self.source.as_ref().map(|s| s.name().to_string()),
            line,
            column,
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Diagnostic {}

impl miette::Diagnostic for Diagnostic {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.rule))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        match (&self.source, &self.span) {
            (Some(src), Some(_)) => Some(src as &dyn miette::SourceCode),
            _ => None,
        }
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        let span = self.span.clone()?;
        let span = miette::SourceSpan::from(span.start..span.end.max(span.start));
        let label = miette::LabeledSpan::new_with_span(
            Some(self.label.clone().unwrap_or_else(|| "here".to_string())),
            span,
        );
        Some(Box::new(std::iter::once(label)))
    }
}

/// The machine-readable form of a diagnostic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiagnosticRecord {
    /// The rule name.
    pub rule: String,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// The document's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// 1-based line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// 1-based column, in characters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
}

/// Every problem found in one pass over a document (never empty when returned as
/// an error).
#[derive(Debug, Clone, Default)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// No problems yet.
    pub fn new() -> Self {
        Diagnostics(Vec::new())
    }

    /// Records a problem.
    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }

    /// Records several problems.
    pub fn extend(&mut self, other: Diagnostics) {
        self.0.extend(other.0);
    }

    /// Whether nothing was found.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many problems.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The problems.
    pub fn iter(&self) -> std::slice::Iter<'_, Diagnostic> {
        self.0.iter()
    }

    /// `Ok(value)` when nothing was found, otherwise these diagnostics.
    pub fn into_result<T>(self, value: T) -> Result<T, Diagnostics> {
        if self.0.is_empty() {
            Ok(value)
        } else {
            Err(self)
        }
    }

    /// The rule names, in order (handy in tests).
    pub fn rules(&self) -> Vec<&'static str> {
        self.0.iter().map(|d| d.rule).collect()
    }
}

impl From<Diagnostic> for Diagnostics {
    fn from(d: Diagnostic) -> Self {
        Diagnostics(vec![d])
    }
}

impl IntoIterator for Diagnostics {
    type Item = Diagnostic;
    type IntoIter = std::vec::IntoIter<Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            match d.location() {
                Some(loc) => write!(f, "{loc}: {} [{}]", d.message, d.rule)?,
                None => write!(f, "{} [{}]", d.message, d.rule)?,
            }
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

impl miette::Diagnostic for Diagnostics {
    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn miette::Diagnostic> + 'a>> {
        Some(Box::new(
            self.0.iter().map(|d| d as &dyn miette::Diagnostic),
        ))
    }
}
