//! The span index: JSON pointer (RFC 6901) -> byte range in the source.

use std::collections::HashMap;
use std::ops::Range;

/// Where each node of a document, and each mapping key, is in its source.
#[derive(Debug, Clone, Default)]
pub struct SpanIndex {
    values: HashMap<String, Range<usize>>,
    keys: HashMap<String, Range<usize>>,
}

impl SpanIndex {
    pub(crate) fn set_value(&mut self, pointer: &str, span: Range<usize>) {
        self.values.insert(pointer.to_string(), span);
    }

    pub(crate) fn set_key(&mut self, pointer: &str, span: Range<usize>) {
        self.keys.insert(pointer.to_string(), span);
    }

    /// The span of the value at `pointer`, if it came from the source itself (values
    /// inside an expanded alias have no span of their own).
    pub fn value(&self, pointer: &str) -> Option<Range<usize>> {
        self.values.get(pointer).cloned()
    }

    /// The span of the key of the mapping entry at `pointer`.
    pub fn key(&self, pointer: &str) -> Option<Range<usize>> {
        self.keys.get(pointer).cloned()
    }

    /// The span of `pointer`'s value, or of its nearest ancestor that has one.
    pub fn nearest(&self, pointer: &str) -> Option<Range<usize>> {
        let mut p = pointer;
        loop {
            if let Some(span) = self.values.get(p) {
                return Some(span.clone());
            }
            if p.is_empty() {
                return None;
            }
            p = pointer_parent(p);
        }
    }

    /// The key's span when `pointer` is a mapping entry, otherwise the nearest value span.
    pub fn key_or_nearest(&self, pointer: &str) -> Option<Range<usize>> {
        self.key(pointer).or_else(|| self.nearest(pointer))
    }
}

/// Escapes one reference token (`~` -> `~0`, `/` -> `~1`).
pub fn pointer_escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// `parent` + `/` + the escaped `token`.
pub fn pointer_join(parent: &str, token: &str) -> String {
    let mut s = String::with_capacity(parent.len() + token.len() + 1);
    s.push_str(parent);
    s.push('/');
    s.push_str(&pointer_escape(token));
    s
}

/// The parent pointer (`""` for the root and its children).
pub fn pointer_parent(pointer: &str) -> &str {
    match pointer.rfind('/') {
        Some(i) => &pointer[..i],
        None => "",
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn pointers_escape_and_walk_up() {
        assert_eq!(pointer_join("/a", "b/c~"), "/a/b~1c~0");
        assert_eq!(pointer_parent("/a/b"), "/a");
        assert_eq!(pointer_parent("/a"), "");
        let mut idx = SpanIndex::default();
        idx.set_value("/a", 1..2);
        assert_eq!(idx.nearest("/a/b/c"), Some(1..2));
        assert_eq!(idx.nearest("/x"), None);
    }
}
