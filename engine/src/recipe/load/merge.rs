//! `extends`: merging a recipe document over its base, remembering where each node
//! came from.
//!
//! Rules: mappings merge by key, recursively; the top-level `steps` list merges by
//! step `id` (an overriding step's fields replace the base step's fields; new steps
//! are appended); every other list, and every scalar, is replaced.

use serde_json::{Map, Value};

use super::source_map::SourceMap;
use crate::recipe::yaml::pointer_join;

/// Merges `child` (from file `child_file` of `out`) over `base` (whose origins are in
/// `base_map`, its files shifted by `shift` in `out`).
pub(crate) fn merge_documents(
    base: &Value,
    base_map: &SourceMap,
    shift: usize,
    child: &Value,
    child_file: usize,
    out: &mut SourceMap,
) -> Value {
    let m = Merger {
        base_map,
        shift,
        child_file,
    };
    let mut merged = m.merge(Some(base), Some(child), "", out);
    if let Value::Object(map) = &mut merged {
        map.shift_remove("extends");
    }
    merged
}

struct Merger<'a> {
    base_map: &'a SourceMap,
    shift: usize,
    child_file: usize,
}

impl Merger<'_> {
    fn origin_base(&self, base_ptr: &str, merged: &str, out: &mut SourceMap) {
        if let Some((file, ptr)) = self.base_map.origin_of(base_ptr) {
            out.set_origin(merged, file + self.shift, &ptr);
        }
    }

    fn origin_child(&self, child_ptr: &str, merged: &str, out: &mut SourceMap) {
        out.set_origin(merged, self.child_file, child_ptr);
    }

    /// Merges the nodes at the same pointer `ptr` in base and child (the pointers are
    /// equal except inside `steps`, which is handled separately).
    fn merge(
        &self,
        base: Option<&Value>,
        child: Option<&Value>,
        ptr: &str,
        out: &mut SourceMap,
    ) -> Value {
        match (base, child) {
            (Some(b), None) => {
                self.origin_base(ptr, ptr, out);
                b.clone()
            }
            (None, Some(c)) | (Some(_), Some(c))
                if !matches!((base, c), (Some(Value::Object(_)), Value::Object(_))) =>
            {
                if ptr == "/steps"
                    && let (Some(Value::Array(b)), Value::Array(c)) = (base, c)
                {
                    return self.merge_steps(b, c, out);
                }
                self.origin_child(ptr, ptr, out);
                c.clone()
            }
            (Some(Value::Object(b)), Some(Value::Object(c))) => {
                self.origin_child(ptr, ptr, out);
                let mut map = Map::new();
                for (k, bv) in b {
                    let p = pointer_join(ptr, k);
                    map.insert(k.clone(), self.merge(Some(bv), c.get(k), &p, out));
                }
                for (k, cv) in c {
                    if !b.contains_key(k) {
                        let p = pointer_join(ptr, k);
                        self.origin_child(&p, &p, out);
                        map.insert(k.clone(), cv.clone());
                    }
                }
                Value::Object(map)
            }
            _ => Value::Null,
        }
    }

    fn merge_steps(&self, base: &[Value], child: &[Value], out: &mut SourceMap) -> Value {
        self.origin_child("/steps", "/steps", out);
        let id_of = |v: &Value| v.get("id").and_then(Value::as_str).map(str::to_string);
        let mut result: Vec<Value> = Vec::new();
        let mut used = vec![false; child.len()];
        for (bi, b) in base.iter().enumerate() {
            let merged_ptr = format!("/steps/{}", result.len());
            let base_ptr = format!("/steps/{bi}");
            let over = id_of(b).and_then(|id| {
                child
                    .iter()
                    .position(|c| id_of(c).as_deref() == Some(id.as_str()))
            });
            match (over, b, over.map(|i| &child[i])) {
                (Some(ci), Value::Object(bm), Some(Value::Object(cm))) => {
                    used[ci] = true;
                    let child_ptr = format!("/steps/{ci}");
                    self.origin_child(&child_ptr, &merged_ptr, out);
                    let mut map = Map::new();
                    for (k, bv) in bm {
                        let mp = pointer_join(&merged_ptr, k);
                        match cm.get(k) {
                            Some(cv) => {
                                self.origin_child(&pointer_join(&child_ptr, k), &mp, out);
                                map.insert(k.clone(), cv.clone());
                            }
                            None => {
                                self.origin_base(&pointer_join(&base_ptr, k), &mp, out);
                                map.insert(k.clone(), bv.clone());
                            }
                        }
                    }
                    for (k, cv) in cm {
                        if !bm.contains_key(k) {
                            let mp = pointer_join(&merged_ptr, k);
                            self.origin_child(&pointer_join(&child_ptr, k), &mp, out);
                            map.insert(k.clone(), cv.clone());
                        }
                    }
                    result.push(Value::Object(map));
                }
                _ => {
                    self.origin_base(&base_ptr, &merged_ptr, out);
                    result.push(b.clone());
                }
            }
        }
        for (ci, c) in child.iter().enumerate() {
            if !used[ci] {
                let merged_ptr = format!("/steps/{}", result.len());
                self.origin_child(&format!("/steps/{ci}"), &merged_ptr, out);
                result.push(c.clone());
            }
        }
        Value::Array(result)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::recipe::source::Source;
    use crate::recipe::yaml::{SpanIndex, YamlLimits, load_yaml};
    use serde_json::json;

    fn doc(name: &str, text: &str) -> (Value, SourceMap) {
        let (src, d) = load_yaml(name, text.as_bytes(), &YamlLimits::default()).unwrap();
        (d.value, SourceMap::single(src, d.spans))
    }

    #[test]
    fn steps_merge_by_id_and_maps_by_key() {
        let (base, base_map) = doc(
            "base.yaml",
            "name: base\nroles:\n  a: {model: m1, prompt: p}\nsteps:\n  - id: one\n    agent: a\n    prompt: x\n  - id: two\n    tool: echo\n",
        );
        let child_text = "name: child\nextends: base\nroles:\n  a: {model: m2}\nsteps:\n  - id: two\n    needs: [one]\n  - id: three\n    tool: echo\n";
        let (child, child_map) = doc("child.yaml", child_text);
        let mut out = SourceMap::default();
        let cf = out.add_file(child_map.main().unwrap(), SpanIndex::default());
        let shift = out.absorb_files(&base_map);
        let merged = merge_documents(&base, &base_map, shift, &child, cf, &mut out);
        assert_eq!(
            merged,
            json!({
                "name": "child",
                "roles": {"a": {"model": "m2", "prompt": "p"}},
                "steps": [
                    {"id": "one", "agent": "a", "prompt": "x"},
                    {"id": "two", "tool": "echo", "needs": ["one"]},
                    {"id": "three", "tool": "echo"}
                ]
            })
        );
        // A node from the base points into the base file.
        let src: Source = out.source_of("/steps/0/agent").unwrap();
        assert_eq!(src.name(), "base.yaml");
        assert_eq!(
            out.source_of("/steps/1/needs").unwrap().name(),
            "child.yaml"
        );
        assert_eq!(out.source_of("/steps/1/tool").unwrap().name(), "base.yaml");
        assert_eq!(out.source_of("/steps/2").unwrap().name(), "child.yaml");
    }
}
