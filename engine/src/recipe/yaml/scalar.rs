//! YAML 1.2 core schema for plain scalars: `true`/`false`, `null`/`~`, integers and
//! floats resolve to JSON types; everything else (including `yes`, `no`, `on`) is a
//! string. Quoted and block scalars are always strings.

use serde_json::{Number, Value};

/// Resolves a plain (unquoted) scalar under the core schema.
pub(crate) fn resolve_plain(text: &str) -> Value {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        _ => {}
    }
    if let Some(n) = resolve_int(text) {
        return n;
    }
    if is_float(text)
        && let Some(n) = text.parse::<f64>().ok().and_then(Number::from_f64)
    {
        return Value::Number(n);
    }
    Value::String(text.to_string())
}

fn resolve_int(text: &str) -> Option<Value> {
    let (neg, digits) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (radix, body) = if let Some(h) = digits.strip_prefix("0x") {
        if neg || text.starts_with('+') {
            return None;
        }
        (16, h)
    } else if let Some(o) = digits.strip_prefix("0o") {
        if neg || text.starts_with('+') {
            return None;
        }
        (8, o)
    } else {
        (10, digits)
    };
    if body.is_empty() || !body.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let magnitude = u64::from_str_radix(body, radix).ok()?;
    if neg {
        let v = i64::try_from(magnitude).ok()?;
        Some(Value::Number(Number::from(-v)))
    } else {
        Some(Value::Number(Number::from(magnitude)))
    }
}

/// `[-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?`
fn is_float(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'-' | b'+')) {
        i += 1;
    }
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let int_digits = i - int_start;
    let mut frac_digits = 0;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let s = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        frac_digits = i - s;
    }
    if int_digits == 0 && frac_digits == 0 {
        return false;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
            i += 1;
        }
        let s = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == s {
            return false;
        }
    }
    i == b.len()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn core_schema_scalars() {
        assert_eq!(resolve_plain("true"), json!(true));
        assert_eq!(resolve_plain("FALSE"), json!(false));
        assert_eq!(resolve_plain("~"), json!(null));
        assert_eq!(resolve_plain(""), json!(null));
        assert_eq!(resolve_plain("42"), json!(42));
        assert_eq!(resolve_plain("-7"), json!(-7));
        assert_eq!(resolve_plain("0x1f"), json!(31));
        assert_eq!(resolve_plain("0o17"), json!(15));
        assert_eq!(resolve_plain("1.5"), json!(1.5));
        assert_eq!(resolve_plain("1e3"), json!(1000.0));
        assert_eq!(resolve_plain(".5"), json!(0.5));
    }

    #[test]
    fn yaml_1_1_words_stay_strings() {
        for s in [
            "yes", "no", "on", "off", "y", "n", ".inf", ".nan", "1_000", "0b1", "12s",
        ] {
            assert_eq!(resolve_plain(s), json!(s), "{s}");
        }
    }

    #[test]
    fn integers_too_big_stay_strings() {
        assert_eq!(
            resolve_plain("99999999999999999999999"),
            json!(99999999999999999999999.0)
        );
        assert_eq!(
            resolve_plain("0xffffffffffffffffff"),
            json!("0xffffffffffffffffff")
        );
    }
}
