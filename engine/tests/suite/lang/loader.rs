//! The YAML and schema stages: bad input gives a clear, located error in bounded
//! time and memory.

use protoflow_engine::recipe::yaml::{YamlLimits, load_yaml};

use super::helpers::{find, load, recipe, rules};

#[test]
fn a_billion_laughs_bomb_is_refused_at_the_node_budget() {
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..12 {
        let p = i - 1;
        text.push_str(&format!(
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
        ));
    }
    let diags = load(&text).unwrap_err();
    assert_eq!(diags.rules(), ["yaml::too-many-nodes"]);
}

#[test]
fn deep_nesting_is_refused_at_the_depth_budget() {
    let text = format!("a: {}1{}\n", "[".repeat(5_000), "]".repeat(5_000));
    assert_eq!(rules(&text), ["yaml::too-deep"]);
}

#[test]
fn a_file_over_the_size_cap_is_refused_before_parsing() {
    let limits = YamlLimits::default();
    let big = "#".repeat(limits.max_bytes + 1);
    let err = load_yaml("big.yaml", big.as_bytes(), &limits).unwrap_err();
    assert_eq!(err.rules(), ["yaml::too-large"]);
}

#[test]
fn duplicate_keys_point_at_the_second_key() {
    let diags = load(&recipe("description: a\ndescription: b\n")).unwrap_err();
    let (_, line, col) = find(&diags, "yaml::duplicate-key");
    assert_eq!((line, col), (5, 1));
}

#[test]
fn tabs_in_indentation_are_syntax_errors_with_a_position() {
    let diags = load(&recipe("steps:\n\t- id: a\n")).unwrap_err();
    let (msg, line, _) = find(&diags, "yaml::syntax");
    assert!(msg.contains("tab"), "{msg}");
    assert_eq!(line, 5);
}

#[test]
fn non_utf8_bytes_are_located_by_line_and_column() {
    let mut bytes = recipe("description: caf").into_bytes();
    bytes.extend_from_slice(&[0xff, b'\n']);
    let err = load_yaml("t.yaml", &bytes, &YamlLimits::default()).unwrap_err();
    let (msg, line, col) = find(&err, "yaml::not-utf8");
    assert_eq!((line, col), (4, 17));
    assert!(msg.contains("line 4, column 17"), "{msg}");
}

#[test]
fn every_schema_error_is_reported_in_one_pass() {
    let text = recipe(
        "limits:\n  model_calls: many\nsteps:\n  - id: a\n    tols: [read_file]\n  - agent: x\n",
    );
    let diags = load(&text).unwrap_err();
    let rules = diags.rules();
    assert!(rules.contains(&"schema::wrong-type"), "{rules:?}");
    assert!(rules.contains(&"schema::unknown-field"), "{rules:?}");
    assert!(rules.contains(&"schema::missing-field"), "{rules:?}");
}

#[test]
fn a_misspelled_field_points_at_the_key_and_suggests_the_right_one() {
    let diags = load(&recipe(
        "steps:\n  - id: a\n    tool: echo\n    tols: [read_file]\n",
    ))
    .unwrap_err();
    let (msg, line, col) = find(&diags, "schema::unknown-field");
    assert!(msg.contains("`tols`"));
    assert_eq!((line, col), (7, 5));
    let help = diags.iter().next().unwrap().help.clone().unwrap();
    assert!(help.contains("did you mean `tools`"), "{help}");
}

#[test]
fn missing_required_fields_are_named() {
    let diags = load("kind: Recipe\nname: t\n").unwrap_err();
    let (msg, _, _) = find(&diags, "schema::missing-field");
    assert!(msg.contains("apiVersion"), "{msg}");
}

#[test]
fn wrong_enum_values_list_the_allowed_ones() {
    let diags = load(&recipe(
        "steps:\n  - id: a\n    tool: echo\n    phase: verfy\n",
    ))
    .unwrap_err();
    let d = diags
        .iter()
        .find(|d| d.rule == "schema::invalid-value")
        .unwrap();
    assert!(d.help.as_deref().unwrap().contains("\"verify\""), "{d:?}");
    assert_eq!(d.line_col().unwrap().0, 7);
}

#[test]
fn yaml_1_1_booleans_stay_strings() {
    // `yes` is a string under YAML 1.2, so it fails as a boolean input default...
    let diags = load(&recipe("inputs:\n  x: {type: boolean, default: yes}\n")).unwrap_err();
    assert_eq!(diags.rules(), ["recipe::input-default"]);
    // ...and is accepted as a string.
    assert!(load(&recipe("inputs:\n  x: {type: string, default: yes}\n")).is_ok());
}

#[test]
fn an_unknown_capability_is_located() {
    let diags = load(&recipe("capabilities:\n  filesystem.wrte: deny\n")).unwrap_err();
    let d = diags.iter().next().unwrap();
    assert_eq!(d.line_col().map(|(l, _)| l), Some(5), "{diags}");
}
