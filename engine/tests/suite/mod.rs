mod budget;
mod events;
mod exec_support;
mod executor;
mod executor_faults;
mod executor_resume;
mod store;
