//! Printing diagnostics for people (miette, with snippets and carets) and for
//! machines (JSON records). The only place that decides colours and widths.

use std::io::IsTerminal;

use miette::{GraphicalReportHandler, GraphicalTheme};
use protoflow_engine::recipe::Diagnostics;

/// Renders every diagnostic with its snippet, in order.
pub fn render(diags: &Diagnostics) -> String {
    let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(100)
        .with_links(false)
        .with_context_lines(1);
    let mut out = String::new();
    for d in diags.iter() {
        if handler.render_report(&mut out, d).is_err() {
            out.push_str(&format!("{d}\n"));
        }
        out.push('\n');
    }
    out
}

/// Prints a command's error report (with its help and code) and maps the outcome
/// to an exit code: success, or 1 (the command could not do what was asked).
pub fn report_result(result: miette::Result<()>) -> u8 {
    match result {
        Ok(()) => crate::exit::SUCCESS,
        Err(report) => {
            eprintln!("{report:?}");
            crate::exit::INCOMPLETE
        }
    }
}
