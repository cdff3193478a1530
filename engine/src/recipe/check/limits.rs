//! Limits: durations parsed, every value under its engine ceiling.

use std::time::Duration;

use super::Ctx;
use crate::recipe::diagnostic::Diagnostic;
use crate::recipe::document::LimitsDocument;
use crate::recipe::{Bound, Limits, bounds};

/// Parses `90s`, `500ms`, `30m`, `2h`. `None` for anything else or an overflow.
pub fn parse_duration(text: &str) -> Option<Duration> {
    let digits = text.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let n: u64 = text[..digits].parse().ok()?;
    let ms = match &text[digits..] {
        "ms" => n,
        "s" => n.checked_mul(1_000)?,
        "m" => n.checked_mul(60_000)?,
        "h" => n.checked_mul(3_600_000)?,
        _ => return None,
    };
    Some(Duration::from_millis(ms))
}

/// Resolves written limits over `base`, reporting values over their ceilings.
pub(super) fn resolve(
    ctx: &mut Ctx<'_>,
    doc: Option<&LimitsDocument>,
    base: &Limits,
    ptr: &str,
) -> Limits {
    let Some(doc) = doc else {
        return *base;
    };
    let mut out = *base;
    let num = |ctx: &mut Ctx<'_>, v: Option<u64>, b: Bound, cur: u64| -> u64 {
        let Some(v) = v else { return cur };
        let p = format!("{ptr}/{}", b.name);
        if v > b.ceiling {
            ctx.at(over_ceiling(b.name, v, b.ceiling), &p);
            return b.ceiling;
        }
        if v == 0 && matches!(b.name, "concurrency" | "wall_time") {
            ctx.at(
                Diagnostic::new("recipe::invalid-limit", format!("`{}` cannot be 0", b.name))
                    .with_help("nothing could run; give at least 1"),
                &p,
            );
        }
        v
    };
    // The u32 limits have ceilings that fit in a u32.
    let num32 = |ctx: &mut Ctx<'_>, v: Option<u32>, b: Bound, cur: u32| -> u32 {
        num(ctx, v.map(u64::from), b, u64::from(cur)) as u32
    };
    out.model_calls = num(ctx, doc.model_calls, bounds::MODEL_CALLS, out.model_calls);
    out.tool_calls = num(ctx, doc.tool_calls, bounds::TOOL_CALLS, out.tool_calls);
    out.tokens = num(ctx, doc.tokens, bounds::TOKENS, out.tokens);
    out.concurrency = num32(ctx, doc.concurrency, bounds::CONCURRENCY, out.concurrency);
    out.children = num32(ctx, doc.children, bounds::CHILDREN, out.children);
    out.repairs = num32(ctx, doc.repairs, bounds::REPAIRS, out.repairs);
    out.output_bytes = num(
        ctx,
        doc.output_bytes,
        bounds::OUTPUT_BYTES,
        out.output_bytes,
    );
    if let Some(text) = &doc.wall_time
        && let Some(d) = duration(
            ctx,
            text,
            bounds::WALL_TIME_SECS,
            &format!("{ptr}/wall_time"),
        )
    {
        out.wall_time = d;
    }
    out
}

/// Parses a duration field, reporting an invalid one or one over `bound`'s ceiling.
pub(super) fn duration(ctx: &mut Ctx<'_>, text: &str, bound: Bound, ptr: &str) -> Option<Duration> {
    let Some(d) = parse_duration(text) else {
        ctx.at(
            Diagnostic::new(
                "recipe::invalid-duration",
                format!("`{text}` is not a valid duration"),
            )
            .with_label("invalid duration")
            .with_help(
                "write a whole number followed by ms, s, m or h, such as `90s`, `30m` or `2h`",
            ),
            ptr,
        );
        return None;
    };
    if d.is_zero() {
        ctx.at(
            Diagnostic::new(
                "recipe::invalid-duration",
                format!("`{}` cannot be zero", bound.name),
            )
            .with_help("give a positive duration"),
            ptr,
        );
        return None;
    }
    if d.as_secs() > bound.ceiling || (d.as_secs() == bound.ceiling && d.subsec_nanos() > 0) {
        ctx.at(
            Diagnostic::new(
                "recipe::limit-over-ceiling",
                format!(
                    "`{}` of {text} is over the engine ceiling of {}s",
                    bound.name, bound.ceiling
                ),
            )
            .with_label("over the ceiling")
            .with_help(format!("use at most {}s", bound.ceiling)),
            ptr,
        );
        return Some(Duration::from_secs(bound.ceiling));
    }
    Some(d)
}

/// A written value over its engine ceiling.
pub(super) fn over_ceiling(name: &str, v: u64, ceiling: u64) -> Diagnostic {
    Diagnostic::new(
        "recipe::limit-over-ceiling",
        format!("`{name}` of {v} is over the engine ceiling of {ceiling}"),
    )
    .with_label("over the ceiling")
    .with_help(format!("use at most {ceiling}"))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("90s"), Some(Duration::from_secs(90)));
        assert_eq!(parse_duration("500ms"), Some(Duration::from_millis(500)));
        assert_eq!(parse_duration("2h"), Some(Duration::from_secs(7200)));
        assert_eq!(parse_duration("5 minutes"), None);
        assert_eq!(parse_duration("s"), None);
        assert_eq!(parse_duration("99999999999999999999h"), None);
    }
}
