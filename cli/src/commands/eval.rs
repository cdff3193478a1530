//! `protoflow eval CASES_DIR [--json] [--keep] [--work DIR]`
//!
//! Runs every case under CASES_DIR: copies its project, checks that the oracle
//! fails, runs the recipe on the copy with the case's provider (this binary,
//! `protoflow run ... --json`, as a user would), runs the oracle again, and
//! reports solved cases and FALSE COMPLETIONS (the run said satisfied or verified
//! while the oracle fails). Exit 0 when no run claimed a false completion and
//! every case could be evaluated; 1 otherwise; 2 for an unusable cases directory.

use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Args;
use protoflow_engine::eval::{
    CaseResult, EvalReport, LoadedCase, load_cases, run_oracle, working_copy,
};
use protoflow_engine::tools::process::base_process_env;

use crate::{exit, outln};

/// Evaluate a recipe and a model on cases with an oracle.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// A directory with one directory per case (case.json + project/).
    #[arg(value_name = "CASES_DIR")]
    pub cases: PathBuf,
    /// Print the report as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// Where the working copies go (default: a fresh directory under the system's temp dir).
    #[arg(long, value_name = "DIR")]
    pub work: Option<PathBuf>,
    /// Keep the working copies (their runs are inspectable with `protoflow report`).
    #[arg(long)]
    pub keep: bool,
}

fn run_case(
    case: &LoadedCase,
    copy: &Path,
) -> Result<(Option<serde_json::Value>, Option<i32>), String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this binary: {e}"))?;
    let mut cmd = Command::new(exe);
    cmd.arg("run")
        .arg(case.recipe_arg())
        .arg("--project")
        .arg(copy)
        .arg("--provider")
        .arg(case.provider_arg())
        .arg("--approve")
        .arg(&case.case.approve)
        .arg("--json")
        .arg("--quiet")
        .arg("--input")
        .arg(format!("task={}", case.case.task));
    if let Some(model) = &case.case.model {
        cmd.arg("--model").arg(model);
    }
    for (k, v) in &case.case.inputs {
        cmd.arg("--input").arg(format!("{k}={v}"));
    }
    let out = cmd
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot start the run: {e}"))?;
    let code = out.status.code();
    let report = serde_json::from_slice(&out.stdout).ok();
    if report.is_none() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let tail: String = stderr
            .chars()
            .rev()
            .take(600)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        return Err(format!("the run printed no report (exit {code:?}): {tail}"));
    }
    Ok((report, code))
}

fn evaluate(cases: &[LoadedCase], work: &Path) -> Result<EvalReport, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let env = base_process_env(|name| std::env::var(name).ok());
    let mut results = Vec::new();
    for case in cases {
        let copy = match working_copy(case, work) {
            Ok(copy) => copy,
            Err(e) => return Err(e.to_string()),
        };
        let before = runtime.block_on(run_oracle(case, &copy, &env));
        if before.passed {
            results.push(CaseResult::error(
                case.name.clone(),
                before,
                "the oracle passes before the run: the case proves nothing".into(),
            ));
            continue;
        }
        match run_case(case, &copy) {
            Ok((report, code)) => {
                let after = runtime.block_on(run_oracle(case, &copy, &env));
                results.push(CaseResult::judge(
                    case.name.clone(),
                    before,
                    report.as_ref(),
                    code,
                    after,
                ));
            }
            Err(e) => results.push(CaseResult::error(case.name.clone(), before, e)),
        }
    }
    Ok(EvalReport::of(results))
}

fn render(report: &EvalReport) {
    for case in &report.cases {
        let verdict = if case.error.is_some() {
            "error"
        } else if case.false_completion {
            "FALSE COMPLETION"
        } else if case.solved {
            "solved"
        } else {
            "unsolved"
        };
        outln!(
            "{:<32} {verdict}{}{}",
            case.name,
            if case.claimed {
                " (run claimed completion)"
            } else {
                ""
            },
            case.error
                .as_ref()
                .map(|e| format!(": {e}"))
                .unwrap_or_default()
        );
    }
    outln!(
        "solved {} of {}; false completions {}; errors {}",
        report.solved,
        report.total,
        report.false_completions,
        report.errors
    );
}

/// Runs the command; returns the exit code.
pub fn run(args: &EvalArgs) -> u8 {
    let cases = match load_cases(&args.cases) {
        Ok(cases) if cases.is_empty() => {
            eprintln!(
                "error: no cases (directories with case.json) under `{}`",
                args.cases.display()
            );
            return exit::INVALID;
        }
        Ok(cases) => cases,
        Err(e) => {
            eprintln!("{:?}", miette::Report::new(e));
            return exit::INVALID;
        }
    };
    let fresh = args.work.is_none();
    let work = args.work.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("protoflow-eval-{}", std::process::id()))
    });
    if let Err(e) = std::fs::create_dir_all(&work) {
        eprintln!("error: cannot create `{}`: {e}", work.display());
        return exit::INTERNAL;
    }
    let result = evaluate(&cases, &work);
    if fresh && !args.keep {
        let _ = std::fs::remove_dir_all(&work);
    } else if args.keep {
        eprintln!("working copies kept in {}", work.display());
    }
    let report = match result {
        Ok(report) => report,
        Err(e) => {
            eprintln!("error: {e}");
            return exit::INTERNAL;
        }
    };
    if args.json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
    } else {
        render(&report);
    }
    if report.false_completions > 0 || report.errors > 0 {
        exit::INCOMPLETE
    } else {
        exit::SUCCESS
    }
}
