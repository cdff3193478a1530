//! `ask_user` in a headless run: no one can answer, so the architect gets "no
//! answer" (recorded in the tool's receipt), and the run continues as the recipe
//! says - with the most conservative reading of the task - to its verdict.

use protoflow_engine::evidence::ReceiptStatus;
use protoflow_engine::store::Store;
use serde_json::json;

use super::fixtures::*;

#[test]
fn a_headless_run_records_no_answer_to_ask_user_and_continues_to_a_verified_fix() {
    let question = "Should add also accept strings, or only numbers?";
    let mut turns = vec![call(
        "ask_user",
        json!({"question": question, "options": ["numbers only", "strings too"]}),
    )];
    let mut plan = plan_calc();
    // The architect is told that no one answered, and how to go on.
    plan[0] = expecting(plan[0].clone(), "no one can answer");
    turns.extend(plan);
    turns.extend(delegated_edit(
        "calc.py",
        "return a - b",
        "return a + b",
        &rev(BUGGY_CALC),
    ));
    let (ran, report) = run_coding(
        python_project(BUGGY_CALC),
        "Fix add in calc.py",
        turns,
        &["--approve", "writes"],
        0,
    );
    let c = completion(&report);
    assert_eq!(c["status"], "satisfied", "{c:#}");
    assert_eq!(c["verification"], "passed");
    assert_eq!(c["denied"], json!([]), "asking is not a denial");
    assert_eq!(read(&ran, "calc.py"), FIXED_CALC);
    assert!(
        !ran.stderr.contains(question),
        "a headless run prints no prompt: {}",
        ran.stderr
    );

    let store = Store::open_project(&ran.dir.path().canonicalize().unwrap()).unwrap();
    let run_id = store.runs(1).unwrap()[0].id.clone();
    assert_eq!(report["run_id"], json!(run_id));
    let asked: Vec<_> = store
        .receipts(&run_id)
        .unwrap()
        .into_iter()
        .filter(|(_, r)| r.tool == "ask_user")
        .collect();
    assert_eq!(asked.len(), 1, "{asked:#?}");
    let (step, receipt) = &asked[0];
    assert_eq!(step, "plan");
    assert_eq!(receipt.status, ReceiptStatus::Executed);
    assert_eq!(receipt.args["question"], question);
    assert_eq!(
        receipt.facts.detail["answered"], false,
        "the receipt records that no one answered"
    );
}
