//! File revisions: the SHA-256 of a file's full content, as lowercase hex.

use sha2::{Digest, Sha256};

/// A content revision (`sha256:` followed by 64 hex digits).
pub type Revision = String;

/// The revision of some bytes.
pub fn revision_of(bytes: &[u8]) -> Revision {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revision_is_sha256_hex() {
        assert_eq!(
            revision_of(b"abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
