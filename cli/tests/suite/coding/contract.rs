//! The request contract: questions and verification requests never get writes.
