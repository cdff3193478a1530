//! The `needs` graph: unique ids, known needs, no cycles, and each step's ancestors
//! (what is upstream of it, for template and `foreach` references).

use std::collections::{BTreeSet, HashMap};

use super::Ctx;
use crate::recipe::diagnostic::Diagnostic;

/// The `needs` graph of a document's steps.
#[derive(Debug, Default)]
pub(super) struct StepGraph {
    /// Step id -> index of its first definition.
    pub index: HashMap<String, usize>,
    /// Valid needs, by index.
    pub needs: Vec<Vec<usize>>,
    /// Transitive needs of each step.
    pub ancestors: Vec<BTreeSet<usize>>,
}

impl StepGraph {
    /// Whether `a` is upstream of (transitively needed by) `b`.
    pub fn is_upstream(&self, a: usize, b: usize) -> bool {
        self.ancestors.get(b).is_some_and(|s| s.contains(&a))
    }
}

pub(super) fn analyze(ctx: &mut Ctx<'_>) -> StepGraph {
    let steps = &ctx.doc.steps;
    let mut g = StepGraph::default();
    for (i, s) in steps.iter().enumerate() {
        if let Some(&first) = g.index.get(&s.id) {
            let (line, _) = ctx
                .map
                .value(&format!("/steps/{first}/id"))
                .map(|(src, sp)| src.line_col(sp.start))
                .unwrap_or((0, 0));
            ctx.at(
                Diagnostic::new(
                    "recipe::duplicate-step",
                    format!("step id `{}` is used twice", s.id),
                )
                .with_label("second definition")
                .with_help(if line > 0 {
                    format!(
                        "the first `{}` is at line {line}; give each step a unique id",
                        s.id
                    )
                } else {
                    "give each step a unique id".to_string()
                }),
                &format!("/steps/{i}/id"),
            );
        } else {
            g.index.insert(s.id.clone(), i);
        }
    }
    for (i, s) in steps.iter().enumerate() {
        let mut needs = Vec::new();
        for (j, n) in s.needs.iter().enumerate() {
            let ptr = format!("/steps/{i}/needs/{j}");
            match g.index.get(n) {
                None => {
                    let known: Vec<&str> = steps.iter().map(|s| s.id.as_str()).collect();
                    ctx.at(
                        Diagnostic::new(
                            "recipe::unknown-need",
                            format!("step `{}` needs `{n}`, which is not a step", s.id),
                        )
                        .with_label("no such step")
                        .with_help(format!("steps are: {}", known.join(", "))),
                        &ptr,
                    );
                }
                Some(&k) if k == i => ctx.at(
                    Diagnostic::new("recipe::cycle", format!("step `{}` needs itself", s.id))
                        .with_label("self-reference")
                        .with_help("remove it from its own `needs`; to repeat a step use `loop: {to, when, max}`"),
                    &ptr,
                ),
                Some(&k) => {
                    if !needs.contains(&k) {
                        needs.push(k);
                    }
                }
            }
        }
        g.needs.push(needs);
    }
    report_cycles(ctx, &g);
    g.ancestors = (0..steps.len()).map(|i| ancestors(&g.needs, i)).collect();
    g
}

/// Transitive needs of `start` (terminates on cycles).
fn ancestors(needs: &[Vec<usize>], start: usize) -> BTreeSet<usize> {
    let mut seen = BTreeSet::new();
    let mut stack: Vec<usize> = needs[start].clone();
    while let Some(n) = stack.pop() {
        if seen.insert(n) {
            stack.extend(needs[n].iter().copied());
        }
    }
    seen.remove(&start);
    seen
}

/// Reports each cycle in `needs` once, at the `needs` entry that closes it.
fn report_cycles(ctx: &mut Ctx<'_>, g: &StepGraph) {
    #[derive(Clone, Copy, PartialEq)]
    enum Color {
        White,
        Grey,
        Black,
    }
    let n = g.needs.len();
    let mut color = vec![Color::White; n];
    let mut reported: Vec<BTreeSet<usize>> = Vec::new();
    for root in 0..n {
        if color[root] != Color::White {
            continue;
        }
        // Iterative DFS: (node, next child position); `path` mirrors the grey nodes.
        let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
        let mut path: Vec<usize> = vec![root];
        color[root] = Color::Grey;
        while let Some(&mut (node, ref mut pos)) = stack.last_mut() {
            if let Some(&next) = g.needs[node].get(*pos) {
                *pos += 1;
                match color[next] {
                    Color::White => {
                        color[next] = Color::Grey;
                        stack.push((next, 0));
                        path.push(next);
                    }
                    Color::Grey => {
                        let start = path.iter().position(|&p| p == next).unwrap_or(0);
                        let members: BTreeSet<usize> = path[start..].iter().copied().collect();
                        if !reported.contains(&members) {
                            reported.push(members);
                            report_cycle(ctx, &path[start..], node, next);
                        }
                    }
                    Color::Black => {}
                }
            } else {
                color[node] = Color::Black;
                stack.pop();
                path.pop();
            }
        }
    }
}

fn report_cycle(ctx: &mut Ctx<'_>, cycle: &[usize], from: usize, to: usize) {
    let steps = &ctx.doc.steps;
    // `path` follows needs edges (a step -> what it needs); show it in run order.
    let mut names: Vec<&str> = cycle.iter().rev().map(|&i| steps[i].id.as_str()).collect();
    names.push(names[0]);
    let from_id = &steps[from].id;
    let to_id = &steps[to].id;
    let j = steps[from]
        .needs
        .iter()
        .position(|n| n == to_id)
        .unwrap_or(0);
    ctx.at(
        Diagnostic::new(
            "recipe::cycle",
            format!("steps form a cycle through `needs`: {}", names.join(" -> ")),
        )
        .with_label("closes the cycle")
        .with_help(format!(
            "a cycle is only allowed as a bounded back-edge: remove `{to_id}` from the needs of `{from_id}` and add `loop: {{to: {to_id}, when: ..., max: N}}` to the step that should repeat the work"
        )),
        &format!("/steps/{from}/needs/{j}"),
    );
}
