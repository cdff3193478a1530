//! The language commands: validate, schema, graph, recipes, roles.

mod broken;
mod graph;
mod listing;
mod schema;
mod validate;
