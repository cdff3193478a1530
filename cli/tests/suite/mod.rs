mod agent;
mod harness;
mod lang;
mod run;
mod undo;
mod verify;
