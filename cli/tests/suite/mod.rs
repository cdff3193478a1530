mod agent;
mod coding;
mod harness;
mod lang;
mod run;
mod verify;
