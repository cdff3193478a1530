mod harness;
mod lang;
