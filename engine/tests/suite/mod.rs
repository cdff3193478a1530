mod tools_common;
mod tools_fs;
mod tools_git;
mod tools_invoke;
mod tools_process;
mod tools_undo;
