//! Sources of a flow's material besides the working tree's files: diffs and data.
//!
//! - `read_diff`: a unified diff (patch) file inside the project, whole.
//! - `read_json`: a JSON file inside the project, parsed (a previous run's report).
//! - `github_pull_request`: a pull request's diff and head SHA from the GitHub REST
//!   API (`GITHUB_API_URL`, default `https://api.github.com`), with `GITHUB_TOKEN`
//!   read at call time and never shown.
//!
//! File sources are confined like every file read and never cut to a span: a
//! larger file is refused with the reason (`whole_file` holds that read, shared by
//! both). The diff sources return the diff as `diff` (text) so a recipe can treat
//! them alike. They never write, never run processes, and never decide authority.

mod github;
mod json;
mod patch;
mod whole_file;

pub use github::{
    API_URL_VAR, GithubPullRequest, GithubPullRequestArgs, MAX_DIFF_BYTES as MAX_PR_DIFF_BYTES,
    REPOSITORY_VAR, TOKEN_VAR,
};
pub use json::{MAX_JSON_FILE_BYTES, ReadJson, ReadJsonArgs};
pub use patch::{MAX_PATCH_BYTES, ReadDiff, ReadDiffArgs, diff_files, looks_like_diff};
