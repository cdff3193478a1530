mod agent;
mod harness;
mod lang;
mod research;
mod run;
mod verify;
