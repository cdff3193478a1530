//! Claim similarity: normalized token sets and their Jaccard similarity.
//!
//! Used to decide that two findings say the same thing (dedup across finders, and
//! matching against prior rounds). Pure text arithmetic: it must never look at
//! severities, files or lines.

use std::collections::BTreeSet;

/// Two claims are "similar" when the Jaccard similarity of their normalized token
/// sets is at least this (shared tokens / all distinct tokens).
pub const DEFAULT_CLAIM_SIMILARITY: f64 = 0.5;

/// Words too common to say anything about what a claim means.
const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "could", "does", "for",
    "from", "has", "have", "here", "if", "in", "into", "is", "it", "its", "may", "might", "of",
    "on", "or", "so", "that", "the", "their", "then", "there", "these", "this", "those", "to",
    "was", "were", "when", "which", "while", "will", "with", "would",
];

/// The claim's tokens: lowercased runs of letters, digits and `_`, minus stopwords,
/// with a trailing plural `s` removed from words longer than three letters.
pub fn claim_tokens(claim: &str) -> BTreeSet<String> {
    claim
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
        .filter(|t| !STOPWORDS.contains(&t.as_str()))
        .map(|t| match t.strip_suffix('s') {
            Some(stem) if stem.chars().count() > 3 && !stem.ends_with('s') => stem.to_owned(),
            _ => t,
        })
        .collect()
}

/// The claim reduced to its sorted tokens joined by single spaces (for hashing).
pub fn normalized_claim(claim: &str) -> String {
    claim_tokens(claim)
        .into_iter()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Jaccard similarity of two claims' token sets, in `[0, 1]` (two empty claims: 1).
pub fn claim_similarity(a: &str, b: &str) -> f64 {
    jaccard(&claim_tokens(a), &claim_tokens(b))
}

/// Jaccard similarity of two token sets (two empty sets: 1).
pub fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 1.0;
    }
    let shared = a.intersection(b).count();
    shared as f64 / union as f64
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn identical_claims_are_fully_similar() {
        assert_eq!(
            claim_similarity("Off by one in loop", "off-by-one in the loop"),
            1.0
        );
    }

    #[test]
    fn unrelated_claims_are_not_similar() {
        assert!(claim_similarity("SQL injection in query builder", "typo in comment") < 0.1);
    }

    #[test]
    fn plural_and_case_do_not_matter() {
        assert_eq!(
            normalized_claim("Missing Checks"),
            normalized_claim("missing check")
        );
    }
}
