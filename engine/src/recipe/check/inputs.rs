//! Input declarations: defaults of the declared type, inside the declared enum.

use serde_json::Value;

use super::Ctx;
use crate::recipe::diagnostic::Diagnostic;
use crate::recipe::document::InputType;

pub(super) fn check_inputs(ctx: &mut Ctx<'_>) {
    let doc = ctx.doc;
    for (name, input) in &doc.inputs {
        let ptr = format!("/inputs/{name}");
        if let Some(default) = &input.default {
            if !has_type(default, input.ty) {
                ctx.at(
                    Diagnostic::new(
                        "recipe::input-default",
                        format!(
                            "the default of input `{name}` is not {} {}",
                            if input.ty == InputType::Integer
                                || input.ty == InputType::Array
                                || input.ty == InputType::Object
                            {
                                "an"
                            } else {
                                "a"
                            },
                            input.ty.as_str()
                        ),
                    )
                    .with_label("wrong type")
                    .with_help(format!(
                        "give a default of type {}, or change `type`",
                        input.ty.as_str()
                    )),
                    &format!("{ptr}/default"),
                );
            }
            if let Some(allowed) = &input.allowed
                && !allowed.contains(default)
            {
                ctx.at(
                    Diagnostic::new(
                        "recipe::input-default",
                        format!("the default of input `{name}` is not one of its `enum` values"),
                    )
                    .with_label("not in enum")
                    .with_help(format!(
                        "use one of: {}",
                        allowed
                            .iter()
                            .map(Value::to_string)
                            .collect::<Vec<_>>()
                            .join(", ")
                    )),
                    &format!("{ptr}/default"),
                );
            }
            if input.required {
                ctx.at_key(
                    Diagnostic::new(
                        "recipe::input-default",
                        format!("input `{name}` is `required` but has a default"),
                    )
                    .with_help("an input with a default is never required: remove one of them"),
                    &format!("{ptr}/required"),
                );
            }
        }
        if let Some(allowed) = &input.allowed {
            for (i, v) in allowed.iter().enumerate() {
                if !has_type(v, input.ty) {
                    ctx.at(
                        Diagnostic::new(
                            "recipe::input-default",
                            format!(
                                "enum value {v} of input `{name}` is not of type {}",
                                input.ty.as_str()
                            ),
                        )
                        .with_help("every enum value must have the input's type"),
                        &format!("{ptr}/enum/{i}"),
                    );
                }
            }
        }
    }
}

/// Whether `v` has the JSON type `ty`.
pub(crate) fn has_type(v: &Value, ty: InputType) -> bool {
    match ty {
        InputType::String => v.is_string(),
        InputType::Integer => v.is_i64() || v.is_u64(),
        InputType::Number => v.is_number(),
        InputType::Boolean => v.is_boolean(),
        InputType::Array => v.is_array(),
        InputType::Object => v.is_object(),
    }
}
