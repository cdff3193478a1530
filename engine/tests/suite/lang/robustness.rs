//! Never a panic, never a hang: every prefix of a shipped recipe, hostile
//! templates and odd YAML all end in a result.

use protoflow_engine::builtins;

use super::helpers::{load, recipe};

#[test]
fn every_prefix_of_a_shipped_recipe_loads_or_fails_cleanly() {
    let text = builtins::recipe("code-review").unwrap().text;
    let mut boundaries: Vec<usize> = (0..text.len()).step_by(13).collect();
    boundaries.push(text.len());
    for end in boundaries {
        if !text.is_char_boundary(end) {
            continue;
        }
        // Ok or Err are both fine; returning at all is the point.
        let _ = load(&text[..end]);
    }
}

#[test]
fn deeply_nested_template_expressions_are_an_error_not_a_crash() {
    let deep = format!("{}1{}", "(".repeat(5_000), ")".repeat(5_000));
    let text = recipe(&format!(
        "steps:\n  - id: a\n    tool: echo\n    with: {{x: '{{{{ {deep} }}}}'}}\n    when: '{deep}'\n"
    ));
    let diags = load(&text).unwrap_err();
    assert!(
        diags
            .rules()
            .iter()
            .all(|r| *r == "recipe::template-syntax"),
        "{diags}"
    );
}

#[test]
fn odd_yaml_is_handled() {
    for text in [
        "",
        "~",
        "[]",
        "- a\n- b\n",
        "apiVersion: protoflow/v1\nkind: Recipe\nname: x\nsteps: ~\n",
        "apiVersion: protoflow/v1\nkind: Recipe\nname: x\nsteps: [{id: a, tool: echo, with: {a: &x [1], b: *x}}]\n",
        "? a\n: b\n",
        "a: !!binary aGVsbG8=\n",
        "\u{feff}apiVersion: protoflow/v1\nkind: Recipe\nname: bom\n",
        "key: \"unterminated\n",
        "a: *nowhere\n",
    ] {
        let _ = load(text);
    }
    // A byte-order mark is not an error.
    assert!(load("\u{feff}apiVersion: protoflow/v1\nkind: Recipe\nname: bom\n").is_ok());
}
