mod agent;
mod harness;
mod lang;
mod research;
mod review;
mod run;
mod undo;
mod verify;
