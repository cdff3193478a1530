//! The research flows (`recipes/due-diligence.yaml`, `recipes/deep-research.yaml`)
//! end to end through the real binary, with the scripted provider and the real
//! read-only tools on a small fixture project.
//!
//! Scripts use `order: by_expect`: parallel steps call the model in any order, so
//! every turn names text only its own step's requests contain. The verdict and the
//! brief are validated against the published schemas with an independent
//! validator; the web switch is off in every test here (the web-enabled run, which
//! needs a local server behind the test-only fetch allow-list, is an engine test:
//! engine/tests/suite/research.rs).

use serde_json::{Value, json};

use super::harness::{Test, repo};

const README: &str = "# tinyq

tinyq is a bounded in-memory job queue.
The queue never holds more than 1024 jobs.
Licensed under MIT.
";

const LIB: &str = "pub const CAPACITY: usize = 1024;

pub struct Queue { jobs: Vec<String> }

impl Queue {
    pub fn push(&mut self, job: String) -> Result<(), String> {
        if self.jobs.len() >= CAPACITY { return Err(\"full\".into()); }
        self.jobs.push(job);
        Ok(())
    }
}
";

/// A turn that calls `tool` with `args` when the request contains every `expect`.
fn call(expect: &[&str], tool: &str, args: Value) -> Value {
    json!({"expect": expect, "tool_calls": [{"name": tool, "args": args}]})
}

/// A turn that answers with a typed value.
fn answer(expect: &[&str], value: Value) -> Value {
    call(expect, "final_output", value)
}

/// The map, challenge and claim verification of a due-diligence run on the fixture.
fn due_diligence_evidence() -> Vec<Value> {
    vec![
        call(
            &["Map this codebase"],
            "read_file",
            json!({"path": "README.md"}),
        ),
        answer(
            &["Map this codebase", "bounded in-memory job queue"],
            json!({
                "summary": "One-file Rust crate: a bounded queue (src/lib.rs).",
                "components": [{"name": "Queue", "path": "src/lib.rs", "purpose": "the queue"}],
                "claims": [
                    {"id": "C1", "text": "The queue never holds more than 1024 jobs", "source": "README.md:4"},
                    {"id": "C2", "text": "Licensed under MIT", "source": "README.md:5"}
                ]
            }),
        ),
        answer(
            &["strongest evidence-backed case against adopting"],
            json!({"objections": [{
                "objection": "No licence file backs the README's MIT claim",
                "severity": "medium",
                "evidence": "no LICENSE file at the root",
                "refuted_if": "a LICENSE file is added"
            }]}),
        ),
        call(&["C1: \""], "read_file", json!({"path": "src/lib.rs"})),
        answer(
            &["C1: \"", "CAPACITY"],
            json!({"claim_id": "C1", "status": "supported",
                   "evidence": "src/lib.rs:1 CAPACITY = 1024; push refuses when full (src/lib.rs:7)"}),
        ),
        answer(
            &["C2: \""],
            json!({"claim_id": "C2", "status": "unverifiable",
                   "evidence": "README.md:5 says MIT; there is no LICENSE file"}),
        ),
    ]
}

/// A valid verdict over the fixture's evidence.
fn verdict() -> Value {
    json!({
        "verdict": "adopt",
        "confidence": "medium",
        "summary": "Small and bounded as documented; codebase-only evidence (web research was off).",
        "reasons": [
            {"text": "The capacity bound is enforced in push", "sources": [1, 2]}
        ],
        "risks": [{"text": "The licence is only stated in the README", "sources": [1]}],
        "claims": [
            {"id": "C1", "text": "The queue never holds more than 1024 jobs", "sources": [1, 2], "status": "supported"},
            {"id": "C2", "text": "Licensed under MIT", "sources": [1], "status": "unverifiable"}
        ],
        "sources": [
            {"id": 1, "ref": "README.md:4", "kind": "doc"},
            {"id": 2, "ref": "src/lib.rs:1", "kind": "code"}
        ]
    })
}

const SYNTHESIS: &[&str] = &[
    "Decide adopt, build or defer",
    "web research was off: codebase-only evidence",
];

fn script(turns: Vec<Value>) -> String {
    json!({"order": "by_expect", "turns": turns}).to_string()
}

/// Runs `recipe` on the fixture with `script`; the parsed `--json` report.
fn run(recipe: &str, inputs: &[&str], script_text: String, status: i32) -> (Value, Vec<Value>) {
    let mut args: Vec<String> = vec!["run".into(), recipe.into()];
    for input in inputs {
        args.push("--input".into());
        args.push((*input).into());
    }
    args.extend(
        [
            "--provider",
            "scripted:script.json",
            "--events",
            "events.jsonl",
            "--json",
        ]
        .map(String::from),
    );
    let ran = Test::new()
        .env("OPENAI_API_KEY", "")
        .env("ANTHROPIC_API_KEY", "")
        .env("OLLAMA_HOST", "")
        .file("README.md", README)
        .file("src/lib.rs", LIB)
        .file("script.json", script_text)
        .args(args)
        .status(status)
        .run();
    let report: Value = serde_json::from_str(&ran.stdout).unwrap();
    let events = std::fs::read_to_string(ran.dir.path().join("events.jsonl"))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    (report, events)
}

/// Validates `value` against `schemas/NAME` with an independent validator.
fn assert_valid(name: &str, value: &Value) {
    let text = std::fs::read_to_string(repo().join("schemas").join(name)).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{name}: {errors:?}\n{value:#}");
}

fn step<'a>(report: &'a Value, key: &str) -> &'a Value {
    report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["key"] == key)
        .unwrap_or_else(|| panic!("no step {key}"))
}

/// The tools that left receipts, by name.
fn receipt_tools(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .filter(|e| e["type"] == "receipt.recorded")
        .map(|e| e["tool"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn due_diligence_codebase_only_returns_a_schema_valid_cited_verdict_that_says_web_was_off() {
    let mut turns = due_diligence_evidence();
    turns.push(answer(SYNTHESIS, verdict()));
    let (report, events) = run(
        "due-diligence",
        &["subject=adopt tinyq as our job queue"],
        script(turns),
        0,
    );
    assert_eq!(report["status"], "succeeded", "{report:#}");
    let outputs = &report["outputs"];
    assert_valid("verdict.schema.json", &outputs["json"]);
    assert_eq!(outputs["verdict"], "adopt");
    assert_eq!(outputs["evidence"], "codebase only: web research was off");

    let markdown = outputs["markdown"].as_str().unwrap();
    for expected in [
        "# Due diligence: adopt tinyq as our job queue",
        "**Verdict: ADOPT** (confidence: medium)",
        "Web research was off: codebase-only evidence.",
        "1. The capacity bound is enforced in push [1][2]",
        "| C1: The queue never holds more than 1024 jobs | supported | [1][2] |",
        "| C2: Licensed under MIT | unverifiable | [1] |",
        "1. README.md:4 [doc]",
        "2. src/lib.rs:1 [code]",
    ] {
        assert!(markdown.contains(expected), "{expected:?} in\n{markdown}");
    }

    // The web steps were skipped by the switch, and say why.
    for key in ["web-research", "verify-web-claims"] {
        assert_eq!(step(&report, key)["status"], "skipped", "{key}");
    }
    assert!(
        step(&report, "web-research")["reason"]
            .as_str()
            .unwrap()
            .contains("inputs.web")
    );
    // Each claim was checked on its own, against the code it cites.
    assert_eq!(
        step(&report, "verify-claims[0]")["output"]["status"],
        "supported"
    );
    assert_eq!(
        step(&report, "verify-claims[1]")["output"]["status"],
        "unverifiable"
    );
    // Nothing network-related ran; the repository was really read.
    let tools = receipt_tools(&events);
    assert!(tools.iter().any(|t| t == "read_file"), "{tools:?}");
    assert!(
        !tools.iter().any(|t| t == "fetch_url" || t == "web_search"),
        "{tools:?}"
    );
}

#[test]
fn an_invalid_verdict_is_sent_back_and_the_corrected_one_is_kept() {
    let mut turns = due_diligence_evidence();
    turns.push(answer(
        SYNTHESIS,
        json!({"verdict": "maybe", "summary": "unsure", "reasons": [], "risks": [], "claims": []}),
    ));
    turns.push(answer(&["do not match its schema"], verdict()));
    let (report, _) = run("due-diligence", &["subject=adopt tinyq"], script(turns), 0);
    assert_eq!(report["status"], "succeeded", "{report:#}");
    assert_valid("verdict.schema.json", &report["outputs"]["json"]);
    assert_eq!(report["outputs"]["json"], verdict());
}

#[test]
fn a_verdict_that_never_validates_fails_the_run_clearly() {
    let invalid = json!({"verdict": "maybe", "summary": "unsure"});
    let mut turns = due_diligence_evidence();
    for _ in 0..3 {
        turns.push(answer(&["Decide adopt, build or defer"], invalid.clone()));
    }
    let (report, _) = run("due-diligence", &["subject=adopt tinyq"], script(turns), 1);
    assert_eq!(report["status"], "failed");
    let synthesize = step(&report, "synthesize");
    assert_eq!(synthesize["status"], "failed");
    let reason = synthesize["reason"].as_str().unwrap();
    assert!(reason.contains("invalid_output"), "{reason}");
    assert_eq!(step(&report, "render")["status"], "skipped");
    assert!(
        report["problems"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p.as_str().unwrap().contains("synthesize")),
        "{report:#}"
    );
    // No verdict is published: `json` holds what the failed agent had, and the
    // outputs that need a verdict could not be rendered.
    assert_eq!(report["outputs"]["json"]["status"], "failed");
    assert!(report["outputs"]["json"].get("verdict").is_none());
    assert!(report["outputs"].get("markdown").is_none());
    let problems = report["problems"].to_string();
    assert!(
        problems.contains("output `markdown` could not be rendered"),
        "{problems}"
    );
    assert!(problems.contains("is not one of"), "{problems}");
}

#[test]
fn deep_research_codebase_only_returns_a_schema_valid_cited_brief() {
    let turns = vec![
        call(
            &["Answer it from the repository"],
            "read_file",
            json!({"path": "README.md"}),
        ),
        answer(
            &[
                "Answer it from the repository",
                "bounded in-memory job queue",
            ],
            json!({
                "answer": "The queue is bounded at 1024 jobs.",
                "findings": [{"text": "The README states a 1024-job bound", "confidence": "medium", "sources": ["README.md:4"]}],
                "claims": [{"id": "R1", "text": "The queue never holds more than 1024 jobs", "source": "README.md:4"}]
            }),
        ),
        answer(
            &["Work it from the opposite end"],
            json!({
                "assumptions": ["the README is current"],
                "alternatives": [{"answer": "The bound is documentation only", "evidence": "README.md:4", "wins_if": "push never checks the length"}],
                "open_questions": ["Does push enforce CAPACITY?"]
            }),
        ),
        call(
            &["Settle the open questions"],
            "read_file",
            json!({"path": "src/lib.rs"}),
        ),
        answer(
            &["Settle the open questions", "CAPACITY"],
            json!({
                "answer": "push enforces the bound.",
                "findings": [{"text": "push refuses a job when the queue is full", "confidence": "high", "sources": ["src/lib.rs:7"]}],
                "claims": [{"id": "G1", "text": "push refuses a job when the queue is full", "source": "src/lib.rs:7"}]
            }),
        ),
        answer(
            &["emerging answer is wrong or incomplete"],
            json!({"objections": [{"objection": "Only push is bounded; no other insertion path was checked", "severity": "low", "evidence": "src/lib.rs"}]}),
        ),
        answer(
            &["R1: \""],
            json!({"claim_id": "R1", "status": "supported", "evidence": "src/lib.rs:1"}),
        ),
        answer(
            &["G1: \""],
            json!({"claim_id": "G1", "status": "supported", "evidence": "src/lib.rs:7"}),
        ),
        answer(
            &[
                "Write the brief",
                "web research was off: codebase-only evidence",
            ],
            json!({
                "question": "Is the queue bounded?",
                "answer": "Yes: push refuses jobs past 1024 (codebase-only evidence; web research was off).",
                "confidence": "high",
                "findings": [{"text": "push refuses a job when the queue is full", "confidence": "high", "sources": [2]}],
                "dissent": [{"text": "The bound might be documentation only", "resolution": "refuted by push's length check", "sources": [2]}],
                "claims": [
                    {"id": "R1", "text": "The queue never holds more than 1024 jobs", "sources": [1, 2], "status": "supported"},
                    {"id": "G1", "text": "push refuses a job when the queue is full", "sources": [2], "status": "supported"}
                ],
                "open_questions": [],
                "sources": [
                    {"id": 1, "ref": "README.md:4", "kind": "doc"},
                    {"id": 2, "ref": "src/lib.rs:7", "kind": "code"}
                ]
            }),
        ),
    ];
    let (report, events) = run(
        "deep-research",
        &["question=Is the queue bounded?"],
        script(turns),
        0,
    );
    assert_eq!(report["status"], "succeeded", "{report:#}");
    let outputs = &report["outputs"];
    assert_valid("research-brief.schema.json", &outputs["json"]);
    assert_eq!(outputs["evidence"], "codebase only: web research was off");
    // Both rounds' claims were verified, one instance each, in order.
    assert_eq!(step(&report, "claims")["output"]["claims"][1]["id"], "G1");
    assert_eq!(step(&report, "verify[0]")["output"]["claim_id"], "R1");
    assert_eq!(step(&report, "verify[1]")["output"]["claim_id"], "G1");
    for key in ["web-research", "verify-web"] {
        assert_eq!(step(&report, key)["status"], "skipped", "{key}");
    }
    let markdown = outputs["markdown"].as_str().unwrap();
    for expected in [
        "# Research brief: Is the queue bounded?",
        "Web research was off: codebase-only evidence.",
        "1. push refuses a job when the queue is full (high) [2]",
        "| G1: push refuses a job when the queue is full | supported | [2] |",
        "- The bound might be documentation only: refuted by push's length check [2]",
        "2. src/lib.rs:7 [code]",
    ] {
        assert!(markdown.contains(expected), "{expected:?} in\n{markdown}");
    }
    let tools = receipt_tools(&events);
    assert!(
        !tools.iter().any(|t| t == "fetch_url" || t == "web_search"),
        "{tools:?}"
    );
}

#[test]
fn the_published_schemas_are_the_recipes_output_schemas() {
    for (recipe, schema) in [
        ("due-diligence", "verdict.schema.json"),
        ("deep-research", "research-brief.schema.json"),
    ] {
        let text = std::fs::read_to_string(repo().join("schemas").join(schema)).unwrap();
        let mut published: Value = serde_json::from_str(&text).unwrap();
        for key in ["$schema", "title", "description"] {
            published.as_object_mut().unwrap().remove(key);
        }
        let declared = synthesize_schema(recipe);
        assert_eq!(
            published, declared,
            "schemas/{schema} drifted from recipes/{recipe}.yaml's `synthesize` output schema"
        );
    }
}

/// The `synthesize` step's output schema of a shipped recipe, read through the
/// engine's own loader (so it is the schema the run validates with).
fn synthesize_schema(recipe: &str) -> Value {
    use protoflow_engine::recipe::{LoadOptions, RecipeRef, load_recipe};
    let options = LoadOptions::for_project(&repo());
    let path = repo().join("recipes").join(format!("{recipe}.yaml"));
    let loaded = load_recipe(&RecipeRef::File(path), &options)
        .unwrap_or_else(|_| panic!("recipes/{recipe}.yaml does not validate"));
    let step = loaded.steps.iter().find(|s| s.id == "synthesize").unwrap();
    step.output.as_ref().unwrap().schema.clone()
}
