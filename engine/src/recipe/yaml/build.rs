//! The tree builder: saphyr-parser events -> JSON value + span index, under budgets.

use std::collections::HashMap;
use std::ops::Range;

use saphyr_parser::{Event, Marker, Parser, ScalarStyle, ScanError, Span, Tag};
use serde_json::{Map, Value};

use super::scalar::resolve_plain;
use super::spans::{SpanIndex, pointer_join};
use super::{SpannedJson, YamlLimits};
use crate::recipe::diagnostic::Diagnostic;
use crate::recipe::source::Source;

/// Parses the text of `source` into JSON with spans, enforcing `limits`.
pub fn parse(source: &Source, limits: &YamlLimits) -> Result<SpannedJson, Diagnostic> {
    Builder::new(source, limits).run()
}

/// An anchored node, kept for its aliases.
struct Anchored {
    value: Value,
    size: usize,
    height: usize,
}

enum Container {
    Seq(Vec<Value>),
    Map {
        map: Map<String, Value>,
        /// The key waiting for its value, with its span.
        key: Option<String>,
    },
}

struct Frame {
    container: Container,
    pointer: String,
    start: usize,
    anchor: usize,
    /// Nodes in this subtree (itself included), aliases expanded.
    size: usize,
    /// Height of this subtree (1 for a leaf).
    height: usize,
}

struct Builder<'a> {
    source: &'a Source,
    limits: &'a YamlLimits,
    offsets: CharOffsets,
    spans: SpanIndex,
    anchors: HashMap<usize, Anchored>,
    stack: Vec<Frame>,
    nodes: usize,
    root: Option<Value>,
    documents: usize,
}

impl<'a> Builder<'a> {
    fn new(source: &'a Source, limits: &'a YamlLimits) -> Self {
        Builder {
            source,
            limits,
            offsets: CharOffsets::new(source.text()),
            spans: SpanIndex::default(),
            anchors: HashMap::new(),
            stack: Vec::new(),
            nodes: 0,
            root: None,
            documents: 0,
        }
    }

    fn byte(&self, m: &Marker) -> usize {
        self.offsets.byte(self.source.text(), m.index())
    }

    fn range(&self, span: &Span) -> Range<usize> {
        let start = self.byte(&span.start);
        let end = self.byte(&span.end).max(start);
        start..end
    }

    /// A short span for a container: its start to the end of that line.
    fn head_span(&self, start: usize) -> Range<usize> {
        let text = self.source.text();
        let end = text[start.min(text.len())..]
            .find('\n')
            .map_or(text.len(), |i| start + i);
        start..end.max(start)
    }

    fn err(&self, rule: &'static str, msg: impl Into<String>, span: Range<usize>) -> Diagnostic {
        Diagnostic::new(rule, msg).at(self.source, span)
    }

    fn scan_error(&self, e: &ScanError) -> Diagnostic {
        let at = self.byte(e.marker());
        let info = e.info();
        if info.contains("recursion limit") {
            return self.too_deep(at..at);
        }
        let help = if info.contains("tab") {
            "YAML indentation must use spaces, not tabs"
        } else {
            "fix the YAML syntax at the marked position"
        };
        self.err("yaml::syntax", format!("invalid YAML: {info}"), at..at)
            .with_label(info.to_string())
            .with_help(help)
    }

    fn run(mut self) -> Result<SpannedJson, Diagnostic> {
        let text = self.source.text().to_string();
        let mut parser = Parser::new_from_str(&text);
        loop {
            let (event, span) = match parser.next_event() {
                None => break,
                Some(Err(e)) => return Err(self.scan_error(&e)),
                Some(Ok(ev)) => ev,
            };
            match event {
                Event::StreamStart | Event::Nothing | Event::DocumentEnd => {}
                Event::StreamEnd => break,
                Event::DocumentStart(_) => {
                    self.documents += 1;
                    if self.documents > 1 {
                        let r = self.range(&span);
                        return Err(self
                            .err(
                                "yaml::multiple-documents",
                                "a file holds exactly one document; found a second one",
                                r,
                            )
                            .with_help("remove the `---` separator and everything after it, or split the file"));
                    }
                }
                Event::Scalar(value, style, anchor, tag) => {
                    let r = self.range(&span);
                    if self.expects_key() {
                        self.key(value.into_owned(), r)?;
                    } else {
                        let v = self.scalar(&value, style, tag.as_deref(), r.clone())?;
                        self.count(1, &r)?;
                        let ptr = self.child_pointer();
                        self.spans.set_value(&ptr, r);
                        self.finish(v, anchor, 1, 1);
                    }
                }
                Event::Alias(id) => {
                    let r = self.range(&span);
                    if self.expects_key() {
                        return Err(self
                            .err("yaml::complex-key", "an alias cannot be a mapping key", r)
                            .with_help("write the key as a plain string"));
                    }
                    let Some(anchored) = self.anchors.get(&id) else {
                        return Err(self.err("yaml::syntax", "alias to an unknown anchor", r));
                    };
                    let (size, height) = (anchored.size, anchored.height);
                    self.count(size, &r)?;
                    if self.stack.len() + height > self.limits.max_depth {
                        return Err(self.too_deep(r));
                    }
                    let value = match self.anchors.get(&id) {
                        Some(a) => a.value.clone(),
                        None => Value::Null,
                    };
                    let ptr = self.child_pointer();
                    self.spans.set_value(&ptr, r);
                    self.finish(value, 0, size, height);
                }
                Event::SequenceStart(..) | Event::MappingStart(..) => {
                    let is_map = matches!(event, Event::MappingStart(..));
                    let (Event::SequenceStart(anchor, tag) | Event::MappingStart(anchor, tag)) =
                        event
                    else {
                        continue;
                    };
                    let r = self.range(&span);
                    if self.expects_key() {
                        return Err(self
                            .err(
                                "yaml::complex-key",
                                "a mapping key must be a plain string, not a sequence or mapping",
                                r,
                            )
                            .with_help("write the key as a plain string"));
                    }
                    if let Some(tag) = tag.as_deref() {
                        self.check_container_tag(tag, is_map, r.clone())?;
                    }
                    self.count(1, &r)?;
                    if self.stack.len() + 1 > self.limits.max_depth {
                        return Err(self.too_deep(r));
                    }
                    let pointer = self.child_pointer();
                    let container = if is_map {
                        Container::Map {
                            map: Map::new(),
                            key: None,
                        }
                    } else {
                        Container::Seq(Vec::new())
                    };
                    self.stack.push(Frame {
                        container,
                        pointer,
                        start: r.start,
                        anchor,
                        size: 1,
                        height: 1,
                    });
                }
                Event::SequenceEnd | Event::MappingEnd => {
                    let Some(frame) = self.stack.pop() else {
                        continue;
                    };
                    let value = match frame.container {
                        Container::Seq(items) => Value::Array(items),
                        Container::Map { map, .. } => Value::Object(map),
                    };
                    let head = self.head_span(frame.start);
                    self.spans.set_value(&frame.pointer, head);
                    self.finish(value, frame.anchor, frame.size, frame.height);
                }
            }
        }
        Ok(SpannedJson {
            value: self.root.take().unwrap_or(Value::Null),
            spans: self.spans,
        })
    }

    fn too_deep(&self, r: Range<usize>) -> Diagnostic {
        self.err(
            "yaml::too-deep",
            format!(
                "the document nests deeper than {} levels",
                self.limits.max_depth
            ),
            r,
        )
        .with_help("flatten the structure; recipes never need this much nesting")
    }

    fn count(&mut self, n: usize, r: &Range<usize>) -> Result<(), Diagnostic> {
        self.nodes = self.nodes.saturating_add(n);
        if self.nodes > self.limits.max_nodes {
            return Err(self
                .err(
                    "yaml::too-many-nodes",
                    format!(
                        "the document expands to more than {} nodes (aliases count by their expanded size)",
                        self.limits.max_nodes
                    ),
                    r.clone(),
                )
                .with_help("reduce the document's size or its use of anchors and aliases"));
        }
        Ok(())
    }

    fn expects_key(&self) -> bool {
        matches!(
            self.stack.last(),
            Some(Frame {
                container: Container::Map { key: None, .. },
                ..
            })
        )
    }

    /// The pointer of the node about to be added to the top frame.
    fn child_pointer(&self) -> String {
        match self.stack.last() {
            None => String::new(),
            Some(frame) => match &frame.container {
                Container::Seq(items) => pointer_join(&frame.pointer, &items.len().to_string()),
                Container::Map { key, .. } => {
                    pointer_join(&frame.pointer, key.as_deref().unwrap_or(""))
                }
            },
        }
    }

    fn key(&mut self, key: String, r: Range<usize>) -> Result<(), Diagnostic> {
        self.count(1, &r)?;
        let Some(frame) = self.stack.last_mut() else {
            return Ok(());
        };
        let Container::Map { map, key: pending } = &mut frame.container else {
            return Ok(());
        };
        if map.contains_key(&key) {
            let first = self.spans.key(&pointer_join(&frame.pointer, &key));
            let mut d = Diagnostic::new("yaml::duplicate-key", format!("duplicate key `{key}`"))
                .at(self.source, r)
                .with_label("second definition");
            d.help = Some(match first.map(|s| self.source.line_col(s.start)) {
                Some((line, col)) => {
                    format!("`{key}` is already defined at line {line}, column {col}; keep one")
                }
                None => format!("`{key}` is already defined in this mapping; keep one"),
            });
            return Err(d);
        }
        let ptr = pointer_join(&frame.pointer, &key);
        *pending = Some(key);
        self.spans.set_key(&ptr, r);
        Ok(())
    }

    fn finish(&mut self, value: Value, anchor: usize, size: usize, height: usize) {
        if anchor > 0 {
            self.anchors.insert(
                anchor,
                Anchored {
                    value: value.clone(),
                    size,
                    height,
                },
            );
        }
        match self.stack.last_mut() {
            None => self.root = Some(value),
            Some(frame) => {
                frame.size = frame.size.saturating_add(size);
                frame.height = frame.height.max(height + 1);
                match &mut frame.container {
                    Container::Seq(items) => items.push(value),
                    Container::Map { map, key } => {
                        if let Some(k) = key.take() {
                            map.insert(k, value);
                        }
                    }
                }
            }
        }
    }

    fn scalar(
        &self,
        text: &str,
        style: ScalarStyle,
        tag: Option<&Tag>,
        r: Range<usize>,
    ) -> Result<Value, Diagnostic> {
        let plain = style == ScalarStyle::Plain;
        let Some(tag) = tag else {
            return Ok(if plain {
                resolve_plain(text)
            } else {
                Value::String(text.to_string())
            });
        };
        if !tag.is_yaml_core_schema() {
            return Err(self.unsupported_tag(tag, r));
        }
        let resolved = resolve_plain(text);
        let ok = match tag.suffix.as_str() {
            "str" => return Ok(Value::String(text.to_string())),
            "null" => resolved.is_null(),
            "bool" => resolved.is_boolean(),
            "int" => resolved.is_i64() || resolved.is_u64(),
            "float" => resolved.is_number(),
            _ => return Err(self.unsupported_tag(tag, r)),
        };
        if ok {
            Ok(resolved)
        } else {
            Err(self.err(
                "yaml::bad-tag-value",
                format!("`{text}` is not a valid !!{}", tag.suffix),
                r,
            ))
        }
    }

    fn check_container_tag(
        &self,
        tag: &Tag,
        is_map: bool,
        r: Range<usize>,
    ) -> Result<(), Diagnostic> {
        let expected = if is_map { "map" } else { "seq" };
        if tag.is_yaml_core_schema() && tag.suffix == expected {
            Ok(())
        } else {
            Err(self.unsupported_tag(tag, r))
        }
    }

    fn unsupported_tag(&self, tag: &Tag, r: Range<usize>) -> Diagnostic {
        self.err(
            "yaml::unsupported-tag",
            format!("unsupported tag `{tag}`"),
            r,
        )
        .with_help("remove the tag; only the YAML core schema tags are understood")
    }
}

/// Converts the parser's character indexes to byte offsets in O(stride).
struct CharOffsets {
    ascii: bool,
    /// Byte offset of every `STRIDE`-th character.
    checkpoints: Vec<usize>,
}

const STRIDE: usize = 256;

impl CharOffsets {
    fn new(text: &str) -> Self {
        if text.is_ascii() {
            return CharOffsets {
                ascii: true,
                checkpoints: Vec::new(),
            };
        }
        let checkpoints = text
            .char_indices()
            .step_by(STRIDE)
            .map(|(b, _)| b)
            .collect();
        CharOffsets {
            ascii: false,
            checkpoints,
        }
    }

    fn byte(&self, text: &str, char_index: usize) -> usize {
        if self.ascii {
            return char_index.min(text.len());
        }
        let cp = char_index / STRIDE;
        let Some(&base) = self.checkpoints.get(cp) else {
            return text.len();
        };
        let rest = char_index % STRIDE;
        text[base..]
            .char_indices()
            .nth(rest)
            .map_or(text.len(), |(b, _)| base + b)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn load(text: &str) -> Result<SpannedJson, Diagnostic> {
        parse(&Source::new("t.yaml", text), &YamlLimits::default())
    }

    #[test]
    fn builds_json_with_spans_for_values_and_keys() {
        let text = "a: 1\nb:\n  - x\n  - 'y'\n";
        let doc = load(text).unwrap();
        assert_eq!(doc.value, json!({"a": 1, "b": ["x", "y"]}));
        let span = doc.spans.value("/b/1").unwrap();
        assert_eq!(&text[span], "'y'");
        let key = doc.spans.key("/b").unwrap();
        assert_eq!(&text[key], "b");
    }

    #[test]
    fn spans_are_byte_offsets_after_multibyte_text() {
        let text = "é: ü\nk: v\n";
        let doc = load(text).unwrap();
        assert_eq!(&text[doc.spans.value("/k").unwrap()], "v");
    }

    #[test]
    fn quoted_scalars_are_strings() {
        let doc = load("a: 'true'\nb: \"1\"\nc: yes\n").unwrap();
        assert_eq!(doc.value, json!({"a": "true", "b": "1", "c": "yes"}));
    }

    #[test]
    fn aliases_expand() {
        let doc = load("a: &x [1, 2]\nb: *x\n").unwrap();
        assert_eq!(doc.value, json!({"a": [1, 2], "b": [1, 2]}));
    }

    #[test]
    fn duplicate_keys_point_at_the_second() {
        let text = "a: 1\nb: 2\na: 3\n";
        let err = load(text).unwrap_err();
        assert_eq!(err.rule, "yaml::duplicate-key");
        assert_eq!(err.line_col(), Some((3, 1)));
    }

    #[test]
    fn billion_laughs_stops_at_the_node_budget() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..10 {
            let prev = i - 1;
            text.push_str(&format!(
                "a{i}: &a{i} [*a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}]\n"
            ));
        }
        let err = load(&text).unwrap_err();
        assert_eq!(err.rule, "yaml::too-many-nodes");
    }

    #[test]
    fn deep_nesting_stops_at_the_depth_budget() {
        let flow = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert_eq!(load(&flow).unwrap_err().rule, "yaml::too-deep");
        let block: String = (0..100)
            .map(|i| format!("{}k{i}:\n", "  ".repeat(i)))
            .collect();
        let err = load(&block).unwrap_err();
        assert_eq!(err.rule, "yaml::too-deep");
        assert_eq!(err.line_col().map(|(l, _)| l), Some(65));
    }

    #[test]
    fn tabs_are_syntax_errors_with_a_position() {
        let err = load("a:\n\t- b\n").unwrap_err();
        assert_eq!(err.rule, "yaml::syntax");
        assert!(err.line_col().is_some());
    }

    #[test]
    fn two_documents_are_refused() {
        assert_eq!(
            load("a: 1\n---\nb: 2\n").unwrap_err().rule,
            "yaml::multiple-documents"
        );
    }

    #[test]
    fn custom_tags_are_refused() {
        assert_eq!(
            load("a: !foo 1\n").unwrap_err().rule,
            "yaml::unsupported-tag"
        );
        assert_eq!(load("a: !!str 1\n").unwrap().value, json!({"a": "1"}));
    }

    #[test]
    fn complex_keys_are_refused() {
        assert_eq!(load("? [a]\n: 1\n").unwrap_err().rule, "yaml::complex-key");
    }

    #[test]
    fn empty_document_is_null() {
        assert_eq!(load("").unwrap().value, Value::Null);
    }
}
