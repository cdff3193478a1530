//! Source text of a loaded document, shared by every diagnostic that points into it.
//!
//! A `Source` is immutable and cheap to clone. It converts byte offsets to
//! line:column for machine-readable diagnostics; it never reads files itself.

use std::fmt;
use std::sync::Arc;

/// The text of one document and the name it is shown under (a path as the user gave
/// it, or `builtin:NAME`).
#[derive(Clone)]
pub struct Source {
    inner: Arc<SourceInner>,
}

struct SourceInner {
    name: String,
    text: Arc<str>,
    named: miette::NamedSource<Arc<str>>,
    line_starts: Vec<usize>,
}

impl fmt::Debug for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Source")
            .field("name", &self.inner.name)
            .field("len", &self.inner.text.len())
            .finish()
    }
}

impl Source {
    /// A source named `name` with `text`.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        let text: Arc<str> = Arc::from(text.into());
        let name = name.into();
        let mut line_starts = vec![0];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        Source {
            inner: Arc::new(SourceInner {
                named: miette::NamedSource::new(&name, Arc::clone(&text)),
                name,
                text,
                line_starts,
            }),
        }
    }

    /// The name shown in diagnostics.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The full text.
    pub fn text(&self) -> &str {
        &self.inner.text
    }

    /// The 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.inner.text.len());
        let line = match self.inner.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        let start = self.inner.line_starts[line];
        let col = self
            .inner
            .text
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count());
        (line + 1, col + 1)
    }

    /// Byte offset of the 1-based `line` (clamped to the text).
    pub fn line_start(&self, line: usize) -> usize {
        let idx = line.saturating_sub(1);
        self.inner
            .line_starts
            .get(idx)
            .copied()
            .unwrap_or(self.inner.text.len())
    }

    /// Whether two handles share the same text.
    pub fn same(&self, other: &Source) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl miette::SourceCode for Source {
    fn read_span<'a>(
        &'a self,
        span: &miette::SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn miette::SpanContents<'a> + 'a>, miette::MietteError> {
        self.inner
            .named
            .read_span(span, context_lines_before, context_lines_after)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_characters_from_one() {
        let src = Source::new("x", "ab\nçd\n");
        assert_eq!(src.line_col(0), (1, 1));
        assert_eq!(src.line_col(3), (2, 1));
        assert_eq!(src.line_col(5), (2, 2));
        assert_eq!(src.line_col(100), (3, 1));
    }
}
