//! Deduplication across finders: the same problem raised twice becomes one finding.
//!
//! Two findings are the same problem when they cite the same file, their line
//! ranges overlap (line 0 covers the whole file), and their claims are similar
//! (token Jaccard similarity ≥ the threshold, [`DEFAULT_CLAIM_SIMILARITY`] = 0.5 by
//! default; see `similarity`). Sameness is closed transitively (connected
//! components over all pairs), so the result does not depend on input order.
//!
//! A merged finding keeps:
//! - all sources (sorted);
//! - the best-grounded evidence (grounded > weak > ungrounded > unchecked; then the
//!   longer quote) and that evidence's grounding;
//! - the strongest severity among the members with that best grounding — a stronger
//!   severity claimed only by less-grounded members is recorded in
//!   `downgraded_from`, never promoted, so an ungrounded claim cannot borrow
//!   another finding's grounding to gate a merge;
//! - the claim, category and note of its primary member (strongest, best grounded);
//! - the union of the anchored line ranges;
//! - the strongest verdict for safety: confirmed > unverified > uncertain > refuted.
//!
//! The output is sorted by file, line, end line, severity (strongest first) and
//! claim. This module must never drop a finding except by merging it.

use std::cmp::Reverse;

use super::model::{Finding, Grounding, Verdict};
use super::similarity::{claim_similarity, claim_tokens, jaccard};

pub use super::similarity::DEFAULT_CLAIM_SIMILARITY;

/// Whether two findings describe the same problem.
pub fn same_problem(a: &Finding, b: &Finding, threshold: f64) -> bool {
    a.file == b.file && lines_overlap(a, b) && claim_similarity(&a.claim, &b.claim) >= threshold
}

/// Whether the line ranges overlap (a finding at line 0 overlaps everything).
pub fn lines_overlap(a: &Finding, b: &Finding) -> bool {
    match (a.line_range(), b.line_range()) {
        (Some((a0, a1)), Some((b0, b1))) => a0 <= b1 && b0 <= a1,
        _ => true,
    }
}

/// Merges duplicates; the result is deterministic and sorted.
pub fn dedup(findings: Vec<Finding>, threshold: f64) -> Vec<Finding> {
    let n = findings.len();
    let tokens: Vec<_> = findings.iter().map(|f| claim_tokens(&f.claim)).collect();
    let mut parent: Vec<usize> = (0..n).collect();
    for i in 0..n {
        for j in (i + 1)..n {
            let (a, b) = (&findings[i], &findings[j]);
            if a.file == b.file
                && lines_overlap(a, b)
                && jaccard(&tokens[i], &tokens[j]) >= threshold
            {
                let (ri, rj) = (root(&mut parent, i), root(&mut parent, j));
                if ri != rj {
                    parent[ri.max(rj)] = ri.min(rj);
                }
            }
        }
    }
    let mut groups: Vec<Vec<Finding>> = (0..n).map(|_| Vec::new()).collect();
    for (i, finding) in findings.into_iter().enumerate() {
        let r = root(&mut parent, i);
        groups[r].push(finding);
    }
    let mut merged: Vec<Finding> = groups
        .into_iter()
        .filter(|g| !g.is_empty())
        .map(merge_group)
        .collect();
    sort_findings(&mut merged);
    merged
}

/// Sorts by file, line, end line, severity (strongest first), claim.
pub fn sort_findings(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        (
            &a.file,
            a.line,
            a.end_line,
            Reverse(a.severity),
            &a.claim,
            &a.category,
        )
            .cmp(&(
                &b.file,
                b.line,
                b.end_line,
                Reverse(b.severity),
                &b.claim,
                &b.category,
            ))
    });
}

fn root(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

fn grounding_rank(g: Option<Grounding>) -> u8 {
    match g {
        None => 0,
        Some(Grounding::Ungrounded) => 1,
        Some(Grounding::Weak) => 2,
        Some(Grounding::Grounded) => 3,
    }
}

fn verdict_rank(v: Option<Verdict>) -> u8 {
    match v {
        Some(Verdict::Refuted) => 0,
        Some(Verdict::Uncertain) => 1,
        None => 2,
        Some(Verdict::Confirmed) => 3,
    }
}

fn merge_group(mut group: Vec<Finding>) -> Finding {
    if group.len() == 1 {
        return group.remove(0);
    }
    // Primary: best grounded, then strongest, then a content order for determinism.
    group.sort_by(|a, b| {
        (
            Reverse(grounding_rank(a.grounding)),
            Reverse(a.severity),
            Reverse(a.evidence.len()),
            &a.claim,
            &a.file,
            a.line,
            &a.evidence,
        )
            .cmp(&(
                Reverse(grounding_rank(b.grounding)),
                Reverse(b.severity),
                Reverse(b.evidence.len()),
                &b.claim,
                &b.file,
                b.line,
                &b.evidence,
            ))
    });
    let best = grounding_rank(group[0].grounding);
    let strongest_any = group
        .iter()
        .flat_map(|f| [Some(f.severity), f.downgraded_from])
        .flatten()
        .max();
    let verdict = group
        .iter()
        .map(|f| f.verdict)
        .max_by_key(|v| verdict_rank(*v))
        .flatten();
    let anchored: Vec<(u32, u32)> = group.iter().filter_map(Finding::line_range).collect();
    let (line, end_line) = match (
        anchored.iter().map(|r| r.0).min(),
        anchored.iter().map(|r| r.1).max(),
    ) {
        (Some(start), Some(end)) => (start, (end > start).then_some(end)),
        _ => (0, None),
    };
    let mut sources: Vec<String> = group.iter().flat_map(|f| f.sources.clone()).collect();
    sources.sort();
    sources.dedup();
    let mut notes: Vec<String> = Vec::new();
    for note in group.iter().filter_map(|f| f.note.clone()) {
        if !notes.contains(&note) {
            notes.push(note);
        }
    }
    let id = group.iter().find_map(|f| f.id.clone());

    let mut merged = group.swap_remove(0);
    merged.severity = group
        .iter()
        .filter(|f| grounding_rank(f.grounding) == best)
        .map(|f| f.severity)
        .chain([merged.severity])
        .max()
        .unwrap_or(merged.severity);
    merged.downgraded_from = strongest_any.filter(|s| *s > merged.severity);
    merged.verdict = verdict;
    merged.line = line;
    merged.end_line = end_line;
    merged.sources = sources;
    merged.note = (!notes.is_empty()).then(|| notes.join(" / "));
    merged.id = id;
    merged
}
