//! Where each node of a (possibly merged) document came from.
//!
//! A recipe that `extends` another is merged at the JSON level; this map remembers,
//! for every merged pointer, which file and which pointer in it the node came from,
//! so diagnostics on the merged document still point at the right line.

use std::collections::HashMap;
use std::ops::Range;

use crate::recipe::source::Source;
use crate::recipe::yaml::{SpanIndex, pointer_parent};

/// Files of a merged document and the origin of each merged pointer.
#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    files: Vec<(Source, SpanIndex)>,
    /// merged pointer -> (file index, pointer in that file)
    origins: HashMap<String, (usize, String)>,
}

impl SourceMap {
    /// A document from one file.
    pub fn single(source: Source, spans: SpanIndex) -> Self {
        let mut map = SourceMap::default();
        let idx = map.add_file(source, spans);
        map.set_origin("", idx, "");
        map
    }

    /// Adds a file, returning its index.
    pub fn add_file(&mut self, source: Source, spans: SpanIndex) -> usize {
        self.files.push((source, spans));
        self.files.len() - 1
    }

    /// Records that the merged node at `merged` came from `file`'s `pointer`.
    pub fn set_origin(&mut self, merged: &str, file: usize, pointer: &str) {
        self.origins
            .insert(merged.to_string(), (file, pointer.to_string()));
    }

    /// Moves every file and origin of `other` in, prefixing nothing (origins of `other`
    /// are for the same merged pointers). Returns the index shift applied to its files.
    pub fn absorb_files(&mut self, other: &SourceMap) -> usize {
        let shift = self.files.len();
        self.files.extend(other.files.iter().cloned());
        shift
    }

    /// The origin of a merged pointer in `other` (used while merging).
    pub fn origin_of(&self, merged: &str) -> Option<(usize, String)> {
        let (file, ptr, rest) = self.resolve(merged)?;
        Some((file, format!("{ptr}{rest}")))
    }

    fn resolve(&self, merged: &str) -> Option<(usize, String, String)> {
        let mut p = merged;
        loop {
            if let Some((file, ptr)) = self.origins.get(p) {
                return Some((*file, ptr.clone(), merged[p.len()..].to_string()));
            }
            if p.is_empty() {
                return None;
            }
            p = pointer_parent(p);
        }
    }

    /// The source a merged pointer is in (the main file when unknown).
    pub fn source_of(&self, merged: &str) -> Option<Source> {
        match self.resolve(merged) {
            Some((file, _, _)) => self.files.get(file).map(|(s, _)| s.clone()),
            None => self.main(),
        }
    }

    /// The first file (the one the user named).
    pub fn main(&self) -> Option<Source> {
        self.files.first().map(|(s, _)| s.clone())
    }

    /// The span of the value at `merged`, or of its nearest located ancestor.
    pub fn value(&self, merged: &str) -> Option<(Source, Range<usize>)> {
        self.locate(merged, false)
    }

    /// The span of the key at `merged` (for "unknown field"/"this entry" errors), or
    /// of the value when it has no key.
    pub fn key(&self, merged: &str) -> Option<(Source, Range<usize>)> {
        self.locate(merged, true)
    }

    /// The span of exactly the key at `merged` when `exact` (no fallback), otherwise
    /// like [`SourceMap::key`].
    pub fn key_exact(&self, merged: &str, exact: bool) -> Option<(Source, Range<usize>)> {
        if !exact {
            return self.key(merged);
        }
        let (file, ptr, rest) = self.resolve(merged)?;
        let (source, spans) = self.files.get(file)?;
        spans
            .key(&format!("{ptr}{rest}"))
            .map(|s| (source.clone(), s))
    }

    fn locate(&self, merged: &str, key: bool) -> Option<(Source, Range<usize>)> {
        let (file, ptr, rest) = self.resolve(merged)?;
        let (source, spans) = self.files.get(file)?;
        let full = format!("{ptr}{rest}");
        let span = if key {
            spans.key_or_nearest(&full)
        } else {
            spans.nearest(&full)
        };
        span.map(|s| (source.clone(), s))
    }
}
