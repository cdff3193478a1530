//! Markdown for a PR comment: a verdict line, counts, coverage gaps, findings grouped
//! by severity with `file:line` (links when a base URL and head SHA are given),
//! evidence collapsed in `<details>`, verdict and note per finding, then refuted
//! findings and unparseable output, collapsed.
//!
//! All model-written text is escaped (no markup, links or @mentions); evidence sits
//! in a code fence longer than any backtick run inside it. The comment is capped at
//! `RenderOptions::max_chars`; findings past the cap are counted, not shown.

use std::fmt::Write as _;

use super::RenderOptions;
use super::text::{encode_path, escape_inline, fence_for};
use crate::findings::model::{Finding, Severity, Verdict};
use crate::findings::report::Report;
use crate::findings::verdict::{MergeVerdict, gates};

/// Renders the report as a PR comment.
pub fn render_markdown(report: &Report, options: &RenderOptions) -> String {
    let mut out = String::new();
    let icon = match report.verdict {
        MergeVerdict::Pass => "✅",
        MergeVerdict::Warn => "⚠️",
        MergeVerdict::Fail => "❌",
    };
    let _ = writeln!(out, "## {}\n", escape_inline(&options.title));
    let incomplete = if report.complete {
        ""
    } else {
        " (incomplete: coverage gaps below)"
    };
    let _ = writeln!(out, "**Verdict: {icon} {}**{incomplete}\n", report.verdict);
    let c = &report.counts;
    let _ = write!(
        out,
        "{} blocker · {} major · {} minor · {} nit",
        c.blocker, c.major, c.minor, c.nit
    );
    let mut extras = Vec::new();
    if c.unverified > 0 {
        extras.push(format!("{} unverified", c.unverified));
    }
    if c.ungrounded > 0 {
        extras.push(format!("{} ungrounded", c.ungrounded));
    }
    if c.refuted > 0 {
        extras.push(format!("{} refuted", c.refuted));
    }
    if report.suppressed > 0 {
        extras.push(format!("{} suppressed by prior rounds", report.suppressed));
    }
    if report.dropped_ungrounded > 0 {
        extras.push(format!(
            "{} dropped as ungrounded",
            report.dropped_ungrounded
        ));
    }
    if !extras.is_empty() {
        let _ = write!(out, " ({})", extras.join(", "));
    }
    out.push_str("\n\n");

    let gaps: Vec<_> = report.gaps().collect();
    if !gaps.is_empty() {
        out.push_str("### Coverage gaps\n\nThese finders did not cover their part of the review; no findings from them means *not reviewed*, not *nothing found*.\n\n");
        for gap in gaps {
            let _ = write!(
                out,
                "- `{}`: {}",
                gap.source.replace('`', "'"),
                gap.status.as_str().replace('_', " ")
            );
            if let Some(reason) = &gap.reason {
                let _ = write!(out, " — {}", escape_inline(reason));
            }
            out.push('\n');
        }
        out.push('\n');
    }

    let open: Vec<&Finding> = report.findings.iter().filter(|f| f.is_open()).collect();
    let mut omitted = 0;
    let mut number = 0;
    for severity in Severity::STRONGEST_FIRST {
        let group: Vec<&&Finding> = open.iter().filter(|f| f.severity == severity).collect();
        if group.is_empty() {
            continue;
        }
        let _ = writeln!(out, "### {} ({})\n", heading(severity), group.len());
        for finding in group {
            number += 1;
            let block = finding_block(number, finding, options);
            if out.len() + block.len() > options.max_chars {
                omitted += 1;
                continue;
            }
            out.push_str(&block);
        }
    }
    if open.is_empty() {
        out.push_str("No open findings.\n\n");
    }

    let refuted: Vec<&Finding> = report.findings.iter().filter(|f| !f.is_open()).collect();
    if !refuted.is_empty() {
        let mut block = format!(
            "<details><summary>Refuted by verification ({})</summary>\n\n",
            refuted.len()
        );
        for f in &refuted {
            let _ = write!(
                block,
                "- {} — {}",
                location_text(f, options),
                escape_inline(&f.claim)
            );
            if let Some(note) = &f.note {
                let _ = write!(block, " — *{}*", escape_inline(note));
            }
            block.push('\n');
        }
        block.push_str("\n</details>\n\n");
        if out.len() + block.len() > options.max_chars {
            omitted += refuted.len();
        } else {
            out.push_str(&block);
        }
    }

    if !report.rejected.is_empty() {
        let mut block = format!(
            "<details><summary>Unparseable model output ({})</summary>\n\n",
            report.rejected.len()
        );
        for r in &report.rejected {
            let source = r.source.as_deref().unwrap_or("unknown");
            let item = r.index.map(|i| format!(" item {i}")).unwrap_or_default();
            let _ = writeln!(
                block,
                "- `{}`{item}: {}",
                source.replace('`', "'"),
                escape_inline(&r.reason)
            );
        }
        block.push_str("\n</details>\n\n");
        if out.len() + block.len() <= options.max_chars {
            out.push_str(&block);
        }
    }
    if omitted > 0 {
        let _ = writeln!(
            out,
            "*{omitted} more findings not shown (comment size limit); see the SARIF or JSON report.*\n"
        );
    }
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out.push('\n');
    out
}

fn heading(severity: Severity) -> &'static str {
    match severity {
        Severity::Blocker => "Blockers",
        Severity::Major => "Major",
        Severity::Minor => "Minor",
        Severity::Nit => "Nits",
    }
}

fn finding_block(number: usize, f: &Finding, options: &RenderOptions) -> String {
    let mut block = String::new();
    let _ = write!(
        block,
        "**{number}. {}** · {}",
        location_text(f, options),
        f.category
    );
    let status = match f.verdict {
        Some(Verdict::Confirmed) => "confirmed",
        Some(Verdict::Uncertain) => "uncertain",
        Some(Verdict::Refuted) => "refuted",
        None => "unverified",
    };
    let _ = write!(block, " · {status}");
    if !f.is_grounded() {
        let grounding = f.grounding.map_or("not grounding-checked", |g| g.as_str());
        let _ = write!(block, " · {grounding} evidence");
    }
    if let Some(from) = f.downgraded_from {
        let _ = write!(block, " · downgraded from {from}");
    }
    if f.severity >= Severity::Major && !gates(f) {
        block.push_str(" · does not gate");
    }
    let _ = write!(block, "  \n{}\n", escape_inline(&f.claim));
    if let Some(note) = &f.note {
        let _ = write!(block, "\n> **Note:** {}\n", escape_inline(note));
    }
    if !f.sources.is_empty() {
        let names: Vec<String> = f.sources.iter().map(|s| escape_inline(s)).collect();
        let _ = write!(block, "\n<sub>found by: {}</sub>\n", names.join(", "));
    }
    if !f.evidence.trim().is_empty() {
        let fence = fence_for(&f.evidence);
        let _ = write!(
            block,
            "\n<details><summary>Evidence</summary>\n\n{fence}text\n{}\n{fence}\n\n</details>\n",
            f.evidence.trim_end()
        );
    }
    block.push('\n');
    block
}

/// `` `file:line` ``, as a link when a base URL and head SHA are given.
fn location_text(f: &Finding, options: &RenderOptions) -> String {
    let lines = match f.line_range() {
        None => String::new(),
        Some((start, end)) if end > start => format!(":{start}-{end}"),
        Some((start, _)) => format!(":{start}"),
    };
    let label = format!("`{}{lines}`", f.file.replace('`', "'"));
    match (&options.base_url, &options.head_sha) {
        (Some(base), Some(sha)) => {
            let anchor = match f.line_range() {
                None => String::new(),
                Some((start, end)) if end > start => format!("#L{start}-L{end}"),
                Some((start, _)) => format!("#L{start}"),
            };
            format!(
                "[{label}]({}/blob/{}/{}{anchor})",
                base.trim_end_matches('/'),
                encode_path(sha),
                encode_path(&f.file)
            )
        }
        _ => label,
    }
}
