//! Verification evidence: deferred verification, denied approvals.
