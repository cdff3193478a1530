//! Rendering a plan for people: Mermaid (for Markdown) and Graphviz DOT.
//!
//! Shows steps (with what runs them and their phase), needs edges, fan-out
//! (`verify[*]` with its `foreach`), conditions, and bounded loops as dashed back
//! edges labelled with their bound. Pure functions of the plan.

use std::fmt::Write;

use super::plan::{Plan, PlanEdge, PlanNode};
use crate::policy::Phase;
use crate::recipe::StepKind;

/// The lines describing a node, plain text.
fn node_lines(node: &PlanNode) -> Vec<String> {
    let s = &node.step;
    let mut lines = Vec::new();
    let title = if s.foreach.is_some() {
        format!("{}[*]", s.id)
    } else {
        s.id.clone()
    };
    lines.push(title);
    lines.push(match &s.kind {
        StepKind::Agent {
            role, delegates, ..
        } => {
            if delegates.is_empty() {
                format!("agent: {role}")
            } else {
                let names: Vec<&str> = delegates.iter().map(|d| d.tool.as_str()).collect();
                format!("agent: {role} (delegates {})", names.join(", "))
            }
        }
        StepKind::Tool { name, .. } => format!("tool: {name}"),
        StepKind::Recipe { recipe, .. } => format!("recipe: {}", recipe.name),
    });
    if let Some(f) = &s.foreach {
        lines.push(format!("foreach {} as {}", f.expr.trim(), f.item_var));
    }
    if s.phase != Phase::None {
        lines.push(format!("phase: {}", s.phase));
    }
    if let Some(w) = &s.when {
        lines.push(format!("when {}", w.trim()));
    }
    lines
}

/// Mermaid `flowchart` source.
pub fn to_mermaid(plan: &Plan) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "---\ntitle: {}\n---", plan.recipe.name);
    out.push_str("flowchart TD\n");
    for (i, node) in plan.nodes.iter().enumerate() {
        let label = node_lines(node)
            .iter()
            .map(|l| mermaid_escape(l))
            .collect::<Vec<_>>()
            .join("<br/>");
        let (open, close) = if node.step.foreach.is_some() {
            ("[[", "]]")
        } else {
            match node.step.kind {
                StepKind::Agent { .. } => ("(", ")"),
                StepKind::Tool { .. } => ("[", "]"),
                StepKind::Recipe { .. } => ("[/", "/]"),
            }
        };
        let _ = writeln!(out, "  n{i}{open}\"{label}\"{close}");
    }
    for edge in &plan.edges {
        match edge {
            PlanEdge::Needs { from, to } => {
                let _ = writeln!(out, "  n{from} --> n{to}");
            }
            PlanEdge::Back { from, to, max, .. } => {
                // The condition is long; the DOT rendering carries it as a tooltip.
                let _ = writeln!(out, "  n{from} -. \"max {max}\" .-> n{to}");
            }
        }
    }
    for phase in [Phase::Baseline, Phase::Edit, Phase::Verify, Phase::Repair] {
        let members: Vec<String> = plan
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.step.phase == phase)
            .map(|(i, _)| format!("n{i}"))
            .collect();
        if !members.is_empty() {
            let _ = writeln!(out, "  class {} {phase}", members.join(","));
        }
    }
    out.push_str("  classDef baseline fill:#eef,stroke:#447\n");
    out.push_str("  classDef edit fill:#efe,stroke:#474\n");
    out.push_str("  classDef verify fill:#ffe,stroke:#774\n");
    out.push_str("  classDef repair fill:#fee,stroke:#744\n");
    out
}

fn mermaid_escape(s: &str) -> String {
    s.replace('"', "#quot;")
        .replace('<', "#lt;")
        .replace('>', "#gt;")
        .replace('\n', " ")
}

/// Graphviz DOT source.
pub fn to_dot(plan: &Plan) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph {} {{", dot_quote(&plan.recipe.name));
    out.push_str("  rankdir=TB;\n  node [shape=box, fontname=\"Helvetica\"];\n");
    for (i, node) in plan.nodes.iter().enumerate() {
        // Each line's own backslashes are doubled (Graphviz reads `\N`, `\l`, ...
        // as escapes); only the line breaks added here are escapes.
        let label = node_lines(node)
            .iter()
            .map(|l| l.replace('\\', "\\\\"))
            .collect::<Vec<_>>()
            .join("\\n");
        let mut attrs = vec![format!("label={}", dot_quote_raw(&label))];
        match node.step.kind {
            StepKind::Agent { .. } => attrs.push("style=rounded".into()),
            StepKind::Recipe { .. } => attrs.push("shape=component".into()),
            StepKind::Tool { .. } => {}
        }
        if node.step.foreach.is_some() {
            attrs.push("peripheries=2".into());
        }
        let color = match node.step.phase {
            Phase::Baseline => Some("#eeeeff"),
            Phase::Edit => Some("#eeffee"),
            Phase::Verify => Some("#ffffee"),
            Phase::Repair => Some("#ffeeee"),
            Phase::None => None,
        };
        if let Some(c) = color {
            attrs.push(format!(
                "style=\"filled{}\"",
                if matches!(node.step.kind, StepKind::Agent { .. }) {
                    ",rounded"
                } else {
                    ""
                }
            ));
            attrs.retain(|a| a != "style=rounded");
            attrs.push(format!("fillcolor=\"{c}\""));
        }
        let _ = writeln!(out, "  n{i} [{}];", attrs.join(", "));
    }
    for edge in &plan.edges {
        match edge {
            PlanEdge::Needs { from, to } => {
                let _ = writeln!(out, "  n{from} -> n{to};");
            }
            PlanEdge::Back {
                from,
                to,
                when,
                max,
            } => {
                let _ = writeln!(
                    out,
                    "  n{from} -> n{to} [style=dashed, constraint=false, label=\"max {max}\", tooltip={}];",
                    dot_quote(&format!("loop while {}", when.trim()))
                );
            }
        }
    }
    out.push_str("}\n");
    out
}

fn dot_quote(s: &str) -> String {
    dot_quote_raw(&s.replace('\\', "\\\\"))
}

/// Quotes for DOT, keeping `\n` escapes already in `s`.
fn dot_quote_raw(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\\\"").replace('\n', "\\n"))
}
