mod agent;
mod harness;
mod lang;
mod review;
mod run;
mod verify;
