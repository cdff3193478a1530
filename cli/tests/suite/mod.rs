mod agent;
mod harness;
mod lang;
mod research;
mod run;
mod undo;
mod verify;
