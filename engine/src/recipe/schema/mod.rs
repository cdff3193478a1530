//! JSON Schemas: generated from the document types, and validation against them with
//! every error mapped back to a source span.
//!
//! Owns the published schema set and the compiled validators (compiled once per
//! process). Never knows the meaning of a field beyond its shape.

mod generate;
mod validate;

pub use generate::{
    NamedSchema, generate, project_schema, recipe_schema, role_schema, schema_file_text, schemas,
};
pub use validate::{CompiledSchema, SchemaKind, validate_against};
