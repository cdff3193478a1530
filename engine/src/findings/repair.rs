//! Conservative repairs of almost-JSON: single-quoted strings and trailing commas.
//!
//! A repair only changes syntax whose meaning is unambiguous; it must never invent,
//! drop or reorder content. Anything else (unquoted keys, comments, cut-off text) is
//! left for the parser to report.

/// A repair that was applied, for the parse report.
pub(crate) const SINGLE_QUOTES: &str = "single-quoted strings converted to JSON strings";
/// A repair that was applied, for the parse report.
pub(crate) const TRAILING_COMMAS: &str = "trailing commas removed";

/// The repaired text and the repairs applied, or `None` when nothing was changed.
pub(crate) fn repair(text: &str) -> Option<(String, Vec<&'static str>)> {
    let mut applied = Vec::new();
    let mut current = text.to_owned();
    if let Some(fixed) = single_quotes_to_double(&current) {
        current = fixed;
        applied.push(SINGLE_QUOTES);
    }
    if let Some(fixed) = remove_trailing_commas(&current) {
        current = fixed;
        applied.push(TRAILING_COMMAS);
    }
    (!applied.is_empty()).then_some((current, applied))
}

/// Converts `'...'` strings (outside double-quoted strings) to `"..."`, escaping
/// inner `"` and unescaping `\'`. `None` when there was none, or one never closes.
fn single_quotes_to_double(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len() + 8);
    let mut chars = text.chars();
    let mut changed = false;
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                out.push('"');
                let mut escaped = false;
                for d in chars.by_ref() {
                    out.push(d);
                    if escaped {
                        escaped = false;
                    } else if d == '\\' {
                        escaped = true;
                    } else if d == '"' {
                        break;
                    }
                }
            }
            '\'' => {
                changed = true;
                out.push('"');
                let mut closed = false;
                while let Some(d) = chars.next() {
                    match d {
                        '\\' => match chars.next() {
                            Some('\'') => out.push('\''),
                            Some(e) => {
                                out.push('\\');
                                out.push(e);
                            }
                            None => return None,
                        },
                        '"' => out.push_str("\\\""),
                        '\'' => {
                            closed = true;
                            break;
                        }
                        '\n' => return None,
                        _ => out.push(d),
                    }
                }
                if !closed {
                    return None;
                }
                out.push('"');
            }
            _ => out.push(c),
        }
    }
    changed.then_some(out)
}

/// Removes commas followed (after whitespace) by `]` or `}`, outside strings.
fn remove_trailing_commas(text: &str) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    let mut changed = false;
    for (i, &c) in chars.iter().enumerate() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        if c == '"' {
            in_string = true;
        } else if c == ',' {
            let next = chars[i + 1..].iter().find(|d| !d.is_whitespace());
            if matches!(next, Some(']' | '}')) {
                changed = true;
                continue;
            }
        }
        out.push(c);
    }
    changed.then_some(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn converts_single_quotes_and_keeps_apostrophes_in_double_quotes() {
        let (fixed, applied) = repair(r#"[{'claim': 'say "hi"', 'note': "it's"}]"#).unwrap();
        assert_eq!(fixed, r#"[{"claim": "say \"hi\"", "note": "it's"}]"#);
        assert_eq!(applied, vec![SINGLE_QUOTES]);
    }

    #[test]
    fn removes_trailing_commas_outside_strings_only() {
        let (fixed, _) = repair(r#"[{"a": ",]",}, ]"#).unwrap();
        assert_eq!(fixed, r#"[{"a": ",]"} ]"#);
    }

    #[test]
    fn valid_json_is_left_alone() {
        assert!(repair(r#"[{"a": 1}]"#).is_none());
    }
}
