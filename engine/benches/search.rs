//! Benchmark (not a test): `search_regex`'s engine against ripgrep (`rg`) on the
//! same generated tree, reporting the ratio measured in one run.
//!
//! Run with `cargo bench -p protoflow-engine --bench search`. Knobs:
//! `SEARCH_BENCH_FILES` (default 4000) and `SEARCH_BENCH_LINES` (default 300).
//! When `rg` is not on PATH, only protoflow's time is reported, and that is said.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use protoflow_engine::tools::fs::{build_matcher, search_blocking};
use tokio_util::sync::CancellationToken;

const PATTERN: &str = r"fn\s+needle_[0-9]+\(";
const RUNS: usize = 5;

fn knob(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn generate(root: &Path, files: usize, lines: usize) -> usize {
    let mut hits = 0;
    std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
    for i in 0..files {
        let dir = root.join(format!("src/m{:03}/n{:02}", i % 97, i % 13));
        std::fs::create_dir_all(&dir).unwrap();
        let mut text = String::with_capacity(lines * 48);
        for l in 0..lines {
            if (i * lines + l).is_multiple_of(997) {
                hits += 1;
                let _ = writeln!(text, "pub fn needle_{l}() -> u32 {{ {i} }}");
            } else {
                let _ = writeln!(
                    text,
                    "    let value_{l} = compute(input, {i}, \"some text {l}\");"
                );
            }
        }
        std::fs::write(dir.join(format!("f{i}.rs")), text).unwrap();
    }
    // An ignored directory both must skip.
    std::fs::create_dir_all(root.join("target")).unwrap();
    std::fs::write(
        root.join("target/big.rs"),
        "pub fn needle_0() {}\n".repeat(10_000),
    )
    .unwrap();
    hits
}

fn best(mut f: impl FnMut() -> usize) -> (Duration, usize) {
    let mut best = Duration::MAX;
    let mut found = 0;
    for _ in 0..RUNS {
        let start = Instant::now();
        found = f();
        best = best.min(start.elapsed());
    }
    (best, found)
}

fn main() {
    let files = knob("SEARCH_BENCH_FILES", 4000);
    let lines = knob("SEARCH_BENCH_LINES", 300);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let expected = generate(&root, files, lines);
    println!(
        "tree: {files} files x {lines} lines, {expected} matching lines, pattern /{PATTERN}/, best of {RUNS}"
    );

    let matcher = build_matcher(PATTERN).unwrap();
    let (ours, found) = best(|| {
        search_blocking(
            root.clone(),
            root.clone(),
            matcher.clone(),
            None,
            CancellationToken::new(),
            usize::MAX,
        )
        .matches
        .len()
    });
    assert_eq!(
        found, expected,
        "search_regex found a different number of matches"
    );
    println!(
        "search_regex: {:>8.1} ms ({found} matches)",
        ours.as_secs_f64() * 1000.0
    );

    let rg_available = Command::new("rg")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !rg_available {
        println!("rg: not installed; no ratio reported");
        return;
    }
    let (theirs, rg_found) = best(|| {
        let out = Command::new("rg")
            .args([
                "--no-config",
                "--no-require-git",
                "--line-number",
                "--no-heading",
                "--color=never",
                PATTERN,
            ])
            .arg(&root)
            .output()
            .unwrap();
        out.stdout.iter().filter(|b| **b == b'\n').count()
    });
    assert_eq!(rg_found, expected, "rg found a different number of matches");
    println!(
        "rg:           {:>8.1} ms ({rg_found} matches)",
        theirs.as_secs_f64() * 1000.0
    );
    println!(
        "ratio search_regex / rg: {:.2}",
        ours.as_secs_f64() / theirs.as_secs_f64()
    );
}
