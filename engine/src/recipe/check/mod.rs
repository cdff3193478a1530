//! Semantic checks: a typed (and merged) recipe document -> a validated [`Recipe`].
//!
//! Each problem is a [`Diagnostic`] named by its rule (`recipe::unknown-role`, ...)
//! and located through the document's [`SourceMap`]; every check runs, so one pass
//! reports every problem it can. This module resolves roles and child recipes but
//! never runs anything.

mod checks;
mod gates;
mod graph;
mod inputs;
mod limits;
mod refs;
mod roles;
mod steps;
mod task;

use std::path::PathBuf;

pub use limits::parse_duration;

use super::diagnostic::{Diagnostic, Diagnostics};
use super::document::RecipeDocument;
use super::load::{Loader, SourceMap};
use super::validated::{Origin, Recipe};

/// Runs every semantic check; the validated recipe when nothing is wrong.
pub(crate) fn check_recipe(
    document: RecipeDocument,
    map: &SourceMap,
    origin: Origin,
    base_dir: Option<PathBuf>,
    loader: &mut Loader<'_>,
) -> Result<Recipe, Diagnostics> {
    let mut ctx = Ctx {
        doc: &document,
        map,
        diags: Diagnostics::new(),
        base_dir,
    };
    inputs::check_inputs(&mut ctx);
    checks::check_declared_checks(&mut ctx);
    let limits = limits::resolve(
        &mut ctx,
        document.limits.as_ref(),
        &super::Limits::default(),
        "/limits",
    );
    let roles = roles::resolve_roles(&mut ctx, loader);
    let graph = graph::analyze(&mut ctx);
    let steps = steps::check_steps(&mut ctx, &graph, &roles, &limits, loader);
    refs::check_outputs(&mut ctx, &graph);
    task::check_task(&mut ctx, &graph);
    gates::check_gates(&mut ctx, &graph);
    let mut diags = std::mem::take(&mut ctx.diags);
    // Report in reading order: by file, then position.
    diags.0.sort_by(|a, b| {
        let key = |d: &Diagnostic| {
            (
                d.source.as_ref().map(|s| s.name().to_string()),
                d.span.as_ref().map(|s| s.start),
            )
        };
        key(a).cmp(&key(b))
    });
    let mut document_out = document.clone();
    document_out.extends = None;
    diags.into_result(Recipe {
        name: document.name.clone(),
        origin,
        inputs: document.inputs.clone(),
        limits,
        capabilities: document.capabilities.clone(),
        checks: document.checks.clone(),
        roles,
        steps,
        outputs: document.outputs.clone(),
        document: document_out,
    })
}

/// What every check reads and writes.
pub(super) struct Ctx<'a> {
    pub doc: &'a RecipeDocument,
    pub map: &'a SourceMap,
    pub diags: Diagnostics,
    pub base_dir: Option<PathBuf>,
}

impl Ctx<'_> {
    /// Reports `d` at the value at `ptr`.
    pub fn at(&mut self, d: Diagnostic, ptr: &str) {
        let d = self.locate(d, self.map.value(ptr), ptr);
        self.diags.push(d);
    }

    /// Reports `d` at the key of the entry at `ptr`.
    pub fn at_key(&mut self, d: Diagnostic, ptr: &str) {
        let d = self.locate(d, self.map.key(ptr), ptr);
        self.diags.push(d);
    }

    fn locate(
        &self,
        d: Diagnostic,
        loc: Option<(super::Source, std::ops::Range<usize>)>,
        ptr: &str,
    ) -> Diagnostic {
        match loc {
            Some(l) => d.at_opt(Some(l)),
            None => match self.map.source_of(ptr) {
                Some(s) => d.in_source(&s),
                None => d,
            },
        }
    }
}
