//! Semantic checks: each rule, with the diagnostic it produces.

use std::fs;

use protoflow_engine::recipe::{LoadOptions, RecipeRef, StepKind, load_recipe};

use super::helpers::{find, load, load_in, recipe, rules};

const ROLES: &str = "roles:\n  explorer: {}\n  coder: {}\n  verifier: {}\n";

#[test]
fn a_valid_recipe_becomes_a_validated_recipe() {
    let r = load(&recipe(&format!(
        "{ROLES}steps:\n  - id: look\n    agent: explorer\n    prompt: look\n  - id: fix\n    agent: coder\n    needs: [look]\n    phase: edit\n    prompt: 'fix {{{{ steps.look.output }}}}'\n"
    )))
    .unwrap();
    assert_eq!(r.steps.len(), 2);
    assert_eq!(r.roles.len(), 3);
}

#[test]
fn a_step_runs_exactly_one_thing() {
    assert_eq!(rules(&recipe("steps:\n  - id: a\n")), ["recipe::step-kind"]);
    assert_eq!(
        rules(&recipe(
            "steps:\n  - id: a\n    tool: echo\n    recipe: verify\n"
        )),
        ["recipe::step-kind"]
    );
}

#[test]
fn an_undeclared_role_is_reported_at_the_step() {
    let diags = load(&recipe(
        "steps:\n  - id: a\n    agent: ghost\n    prompt: x\n",
    ))
    .unwrap_err();
    let (msg, line, col) = find(&diags, "recipe::unknown-role");
    assert!(msg.contains("ghost"));
    assert_eq!((line, col), (6, 12));
}

#[test]
fn a_role_file_that_does_not_exist_is_reported_at_the_role() {
    assert_eq!(
        rules(&recipe("roles:\n  ghost: {}\n")),
        ["recipe::role-not-found"]
    );
    assert_eq!(
        rules(&recipe("roles:\n  x: {from: ../../etc/passwd}\n")),
        ["recipe::role-not-found"]
    );
}

#[test]
fn a_disabled_role_cannot_run_a_step_but_can_be_an_unoffered_delegate() {
    let used = recipe(
        "roles:\n  scout: {enabled: false}\nsteps:\n  - id: a\n    agent: scout\n    prompt: x\n",
    );
    assert_eq!(rules(&used), ["recipe::role-disabled"]);
    let delegated = recipe(
        "roles:\n  explorer: {}\n  scout: {enabled: false}\nsteps:\n  - id: a\n    agent: explorer\n    prompt: x\n    delegates: [{role: scout}]\n",
    );
    let r = load(&delegated).unwrap();
    match &r.steps[0].kind {
        StepKind::Agent { delegates, .. } => assert!(delegates.is_empty()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn unknown_tools_are_reported_with_suggestions() {
    let diags = load(&recipe("steps:\n  - id: a\n    tool: read_files\n")).unwrap_err();
    let d = diags
        .iter()
        .find(|d| d.rule == "recipe::unknown-tool")
        .unwrap();
    assert!(d.help.as_deref().unwrap().contains("`read_file`"), "{d:?}");
}

#[test]
fn a_step_cannot_widen_its_roles_tools() {
    let diags = load(&recipe(&format!(
        "{ROLES}steps:\n  - id: a\n    agent: explorer\n    prompt: x\n    tools: [read_file, edit_file]\n"
    )))
    .unwrap_err();
    let (msg, line, _) = find(&diags, "recipe::tool-not-allowed");
    assert!(msg.contains("edit_file"));
    assert_eq!(line, 12);
}

#[test]
fn a_role_cannot_list_a_tool_whose_capability_it_denies() {
    let dir = tempfile::tempdir().unwrap();
    let roles = dir.path().join(".protoflow/roles");
    fs::create_dir_all(&roles).unwrap();
    fs::write(
        roles.join("sneaky.yaml"),
        "apiVersion: protoflow/v1\nkind: llm\nname: sneaky\nprompt: p\ntools: [read_file, edit_file]\ncapabilities:\n  workspace.read: allow\n",
    )
    .unwrap();
    let diags = load_in(&recipe("roles:\n  sneaky: {}\n"), Some(dir.path())).unwrap_err();
    let mut found = diags.rules();
    found.sort_unstable();
    assert_eq!(found, ["recipe::invalid-role", "role::tool-denied"]);
    let (_, line, _) = find(&diags, "role::tool-denied");
    assert_eq!(line, 5);
}

#[test]
fn project_roles_shadow_the_builtins() {
    let dir = tempfile::tempdir().unwrap();
    let roles = dir.path().join(".protoflow/roles");
    fs::create_dir_all(&roles).unwrap();
    fs::write(
        roles.join("coder.yaml"),
        "apiVersion: protoflow/v1\nkind: llm\nname: coder\nprompt: our own coder\ntools: [read_file]\ncapabilities: {workspace.read: allow}\n",
    )
    .unwrap();
    let r = load_in(&recipe("roles:\n  coder: {}\n"), Some(dir.path())).unwrap();
    assert_eq!(
        r.roles["coder"].role.prompt.as_deref(),
        Some("our own coder")
    );
}

#[test]
fn recipe_overrides_narrow_a_role_and_never_widen_it() {
    let ok = load(&recipe(
        "roles:\n  coder:\n    tools: [read_file, edit_file]\n    capabilities: {filesystem.write: ask}\n    prompt_append: Be brief.\n",
    ))
    .unwrap();
    let coder = &ok.roles["coder"].role;
    assert_eq!(coder.tools, ["read_file", "edit_file"]);
    assert!(coder.prompt.as_deref().unwrap().ends_with("Be brief."));

    let widened = recipe("roles:\n  explorer:\n    tools: [read_file, edit_file]\n");
    assert_eq!(rules(&widened), ["recipe::tool-not-allowed"]);

    let denied_but_kept = recipe(
        "roles:\n  coder:\n    tools: [read_file, edit_file]\n    capabilities: {filesystem.write: deny}\n",
    );
    assert_eq!(rules(&denied_but_kept), ["recipe::tool-not-allowed"]);
}

#[test]
fn needs_must_name_existing_steps() {
    let diags = load(&recipe(
        "steps:\n  - id: a\n    tool: echo\n    needs: [b]\n",
    ))
    .unwrap_err();
    let (_, line, col) = find(&diags, "recipe::unknown-need");
    assert_eq!((line, col), (7, 13));
}

#[test]
fn step_ids_are_unique() {
    let diags = load(&recipe(
        "steps:\n  - id: a\n    tool: echo\n  - id: a\n    tool: echo\n",
    ))
    .unwrap_err();
    let (_, line, _) = find(&diags, "recipe::duplicate-step");
    assert_eq!(line, 7);
}

#[test]
fn a_cycle_in_needs_is_reported_once_with_its_path() {
    let diags = load(&recipe(
        "steps:\n  - id: a\n    tool: echo\n    needs: [c]\n  - id: b\n    tool: echo\n    needs: [a]\n  - id: c\n    tool: echo\n    needs: [b]\n",
    ))
    .unwrap_err();
    assert_eq!(diags.rules(), ["recipe::cycle"]);
    let (msg, _, _) = find(&diags, "recipe::cycle");
    assert!(msg.contains("->"), "{msg}");
}

#[test]
fn a_back_edge_must_go_back_and_be_bounded() {
    let base = "steps:\n  - id: a\n    tool: echo\n  - id: b\n    tool: echo\n    needs: [a]\n";
    assert!(
        load(&recipe(&format!(
            "{base}    loop: {{to: a, when: 'true', max: 2}}\n"
        )))
        .is_ok()
    );
    assert_eq!(
        rules(&recipe(&format!(
            "{base}    loop: {{to: a, when: 'true', max: 0}}\n"
        ))),
        ["recipe::loop-bound"]
    );
    assert_eq!(
        rules(&recipe(&format!(
            "{base}    loop: {{to: a, when: 'true', max: 21}}\n"
        ))),
        ["recipe::loop-bound"]
    );
    let forward = "steps:\n  - id: a\n    tool: echo\n    loop: {to: b, when: 'true', max: 1}\n  - id: b\n    tool: echo\n    needs: [a]\n";
    assert_eq!(rules(&recipe(forward)), ["recipe::loop-target"]);
}

#[test]
fn foreach_must_name_a_declared_list_upstream() {
    let producer = "steps:\n  - id: find\n    tool: echo\n    output:\n      schema: {type: object, properties: {items: {type: array}, name: {type: string}}}\n";
    let ok = format!(
        "{producer}  - id: each\n    tool: echo\n    needs: [find]\n    foreach: steps.find.output.items\n    with: {{x: '{{{{ item }}}}'}}\n"
    );
    assert!(load(&recipe(&ok)).is_ok(), "{:?}", load(&recipe(&ok)).err());
    let not_list = ok.replace("output.items", "output.name");
    assert_eq!(rules(&recipe(&not_list)), ["recipe::foreach-source"]);
    let not_upstream = ok.replace("    needs: [find]\n", "");
    assert_eq!(rules(&recipe(&not_upstream)), ["recipe::foreach-source"]);
    let expression = ok.replace(
        "steps.find.output.items",
        "steps.find.output.items | reverse",
    );
    assert_eq!(rules(&recipe(&expression)), ["recipe::foreach-source"]);
}

#[test]
fn templates_may_only_read_declared_inputs_and_upstream_steps() {
    let text = recipe(
        "inputs:\n  task: {type: string}\nsteps:\n  - id: a\n    tool: echo\n    with: {x: '{{ inputs.tsak }}'}\n  - id: b\n    tool: echo\n    with: {y: '{{ steps.c.output }} {{ steps.a.output }}'}\n  - id: c\n    tool: echo\n    when: steps.nope.output\n",
    );
    let diags = load(&text).unwrap_err();
    assert_eq!(
        diags.rules(),
        [
            "recipe::undefined-input",
            "recipe::not-upstream",
            "recipe::not-upstream",
            "recipe::undefined-step"
        ]
    );
    let (_, line, col) = find(&diags, "recipe::undefined-input");
    assert_eq!((line, col), (9, 19));
}

#[test]
fn template_syntax_errors_are_reported() {
    assert_eq!(
        rules(&recipe(
            "steps:\n  - id: a\n    tool: echo\n    with: {x: '{{ oops '}\n"
        )),
        ["recipe::template-syntax"]
    );
}

#[test]
fn limits_stay_under_the_engine_ceilings() {
    let diags = load(&recipe(
        "limits:\n  model_calls: 999999\n  wall_time: 48h\n",
    ))
    .unwrap_err();
    assert_eq!(
        diags.rules(),
        ["recipe::limit-over-ceiling", "recipe::limit-over-ceiling"]
    );
}

#[test]
fn durations_are_checked() {
    assert_eq!(
        rules(&recipe(
            "steps:\n  - id: a\n    tool: echo\n    timeout: 99999999999999999999h\n"
        )),
        ["recipe::invalid-duration"]
    );
}

#[test]
fn nothing_is_written_during_verify_or_baseline() {
    assert_eq!(
        rules(&recipe(
            "steps:\n  - id: a\n    tool: edit_file\n    phase: verify\n"
        )),
        ["recipe::write-in-verify"]
    );
    let agent = recipe(&format!(
        "{ROLES}steps:\n  - id: a\n    agent: coder\n    prompt: x\n    phase: baseline\n"
    ));
    let found = rules(&agent);
    assert!(!found.is_empty());
    assert!(found.iter().all(|r| *r == "recipe::write-in-verify"));
    let narrowed = recipe(&format!(
        "{ROLES}steps:\n  - id: a\n    agent: coder\n    prompt: x\n    phase: verify\n    tools: [read_file, run_check]\n"
    ));
    assert!(load(&narrowed).is_ok());
}

#[test]
fn input_defaults_have_the_declared_type_and_enum() {
    assert_eq!(
        rules(&recipe("inputs:\n  n: {type: integer, default: '3'}\n")),
        ["recipe::input-default"]
    );
    assert_eq!(
        rules(&recipe(
            "inputs:\n  f: {type: string, default: pdf, enum: [markdown, sarif]}\n"
        )),
        ["recipe::input-default"]
    );
}

#[test]
fn only_agent_steps_take_a_prompt() {
    assert_eq!(
        rules(&recipe(
            "steps:\n  - id: a\n    tool: echo\n    prompt: hi\n"
        )),
        ["recipe::prompt-on-non-agent"]
    );
}

#[test]
fn a_recipe_that_extends_itself_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("self.yaml"),
        recipe("extends: ./self.yaml\n"),
    )
    .unwrap();
    let r = RecipeRef::File(dir.path().join("self.yaml"));
    let diags = load_recipe(&r, &LoadOptions::default()).unwrap_err();
    assert_eq!(diags.rules(), ["recipe::extends-cycle"]);
}

#[test]
fn an_indirect_extends_cycle_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.yaml"), recipe("extends: ./b.yaml\n")).unwrap();
    fs::write(dir.path().join("b.yaml"), recipe("extends: ./a.yaml\n")).unwrap();
    let r = RecipeRef::File(dir.path().join("a.yaml"));
    let diags = load_recipe(&r, &LoadOptions::default()).unwrap_err();
    assert_eq!(diags.rules(), ["recipe::extends-cycle"]);
    let (msg, line, _) = find(&diags, "recipe::extends-cycle");
    assert!(msg.contains("a.yaml -> b.yaml -> a.yaml"), "{msg}");
    assert_eq!(line, 4);
}

#[test]
fn extends_merges_roles_and_steps_and_keeps_locations() {
    let dir = tempfile::tempdir().unwrap();
    let child = recipe(
        "extends: coding\nroles:\n  coder:\n    prompt_append: Always add a test.\nsteps:\n  - id: edit\n    prompt: '{{ inputs.tsk }}'\n",
    );
    let diags = load_in(&child, Some(dir.path())).unwrap_err();
    // The overridden prompt is the child's, so the error points into the child file.
    let d = diags
        .iter()
        .find(|d| d.rule == "recipe::undefined-input")
        .unwrap();
    assert_eq!(d.source.as_ref().unwrap().name(), "t.yaml");
    assert_eq!(d.line_col().unwrap().0, 10);

    let good = child.replace("inputs.tsk", "inputs.task");
    let r = load_in(&good, Some(dir.path())).unwrap();
    assert_eq!(r.name, "t");
    assert_eq!(r.steps.len(), 7, "steps merge by id");
    assert!(
        r.roles["coder"]
            .role
            .prompt
            .as_deref()
            .unwrap()
            .ends_with("Always add a test.")
    );
    // The base's fields the child did not override are kept.
    let edit = r.steps.iter().find(|s| s.id == "edit").unwrap();
    assert_eq!(edit.needs, ["task", "plan"]);
}

#[test]
fn errors_in_a_base_recipe_point_into_the_base_file() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("base.yaml"),
        recipe("steps:\n  - id: a\n    tool: echo\n    needs: [ghost]\n"),
    )
    .unwrap();
    fs::write(
        dir.path().join("team.yaml"),
        "apiVersion: protoflow/v1\nkind: Recipe\nname: team\nextends: ./base.yaml\n",
    )
    .unwrap();
    let r = RecipeRef::File(dir.path().join("team.yaml"));
    let diags = load_recipe(&r, &LoadOptions::default()).unwrap_err();
    let d = diags.iter().next().unwrap();
    assert_eq!(d.rule, "recipe::unknown-need");
    assert!(d.source.as_ref().unwrap().name().ends_with("base.yaml"));
    assert_eq!(d.line_col(), Some((7, 13)));
}

#[test]
fn a_recipe_step_cannot_run_its_own_recipe() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("loop.yaml"),
        recipe("steps:\n  - id: again\n    recipe: ./loop.yaml\n"),
    )
    .unwrap();
    let r = RecipeRef::File(dir.path().join("loop.yaml"));
    let diags = load_recipe(&r, &LoadOptions::default()).unwrap_err();
    assert_eq!(diags.rules(), ["recipe::recipe-cycle"]);
}

#[test]
fn a_recipe_step_composes_a_validated_child() {
    let r = load(&recipe("steps:\n  - id: checks\n    recipe: verify\n")).unwrap();
    match &r.steps[0].kind {
        StepKind::Recipe { recipe, .. } => assert_eq!(recipe.name, "verify"),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        rules(&recipe("steps:\n  - id: c\n    recipe: coding\n")),
        ["recipe::missing-input"]
    );
}

#[test]
fn several_errors_are_reported_in_one_pass_in_reading_order() {
    let diags = load(&recipe(
        "steps:\n  - id: a\n    tool: nope\n  - id: b\n    tool: echo\n    needs: [zz]\n  - id: c\n    agent: ghost\n    prompt: x\n",
    ))
    .unwrap_err();
    assert_eq!(
        diags.rules(),
        [
            "recipe::unknown-tool",
            "recipe::unknown-need",
            "recipe::unknown-role"
        ]
    );
}
