mod agent;
mod coding;
mod eval;
mod harness;
mod lang;
mod run;
mod verify;
