//! The merge verdict table and the `fail_on` gate.

use protoflow_engine::findings::{
    FailOn, Grounding, MergeVerdict, Severity, Verdict, exceeds_threshold, merge_verdict,
};

use super::{checked, finding};

fn one(
    severity: Severity,
    grounding: Grounding,
    verdict: Option<Verdict>,
) -> Vec<protoflow_engine::findings::Finding> {
    vec![checked(
        finding("a.rs", 1, severity, "correctness", "c", "e"),
        grounding,
        verdict,
    )]
}

#[test]
fn the_verdict_table() {
    use Grounding::{Grounded as G, Ungrounded as U, Weak as W};
    use MergeVerdict::{Fail, Pass, Warn};
    use Severity::{Blocker, Major, Minor, Nit};
    use Verdict::{Confirmed as C, Refuted as R, Uncertain as Q};
    let table = [
        // severity, grounding, verdict → merge verdict
        (Blocker, G, Some(C), Fail),
        (Blocker, G, None, Fail),
        (Major, G, Some(C), Fail),
        (Major, G, None, Fail),
        (Blocker, G, Some(Q), Warn),
        (Major, G, Some(Q), Warn),
        (Blocker, U, Some(C), Warn),
        (Blocker, W, None, Warn),
        (Major, U, None, Warn),
        (Minor, G, Some(C), Warn),
        (Minor, U, None, Warn),
        (Nit, G, Some(C), Pass),
        (Blocker, G, Some(R), Pass),
        (Minor, G, Some(R), Pass),
    ];
    for (severity, grounding, verdict, expected) in table {
        assert_eq!(
            merge_verdict(&one(severity, grounding, verdict)),
            expected,
            "{severity:?} {grounding:?} {verdict:?}"
        );
    }
    assert_eq!(merge_verdict(&[]), Pass);
}

#[test]
fn a_finding_never_grounding_checked_cannot_fail() {
    let f = finding("a.rs", 1, Severity::Blocker, "correctness", "c", "e");
    assert_eq!(merge_verdict(&[f]), MergeVerdict::Warn);
}

#[test]
fn the_strongest_finding_decides() {
    let mut all = one(Severity::Nit, Grounding::Grounded, None);
    all.extend(one(
        Severity::Minor,
        Grounding::Grounded,
        Some(Verdict::Uncertain),
    ));
    assert_eq!(merge_verdict(&all), MergeVerdict::Warn);
    all.extend(one(
        Severity::Major,
        Grounding::Grounded,
        Some(Verdict::Confirmed),
    ));
    assert_eq!(merge_verdict(&all), MergeVerdict::Fail);
}

#[test]
fn fail_on_maps_findings_to_the_threshold_gate() {
    use FailOn::{Blocker, Major, Minor, Never};
    let cases = [
        // (severity, grounding, verdict), [blocker, major, minor, never]
        (
            (Severity::Blocker, Grounding::Grounded, None),
            [true, true, true, false],
        ),
        (
            (
                Severity::Major,
                Grounding::Grounded,
                Some(Verdict::Confirmed),
            ),
            [false, true, true, false],
        ),
        (
            (Severity::Minor, Grounding::Grounded, None),
            [false, false, true, false],
        ),
        (
            (Severity::Nit, Grounding::Grounded, None),
            [false, false, false, false],
        ),
        (
            (
                Severity::Blocker,
                Grounding::Grounded,
                Some(Verdict::Refuted),
            ),
            [false, false, false, false],
        ),
        (
            (
                Severity::Blocker,
                Grounding::Grounded,
                Some(Verdict::Uncertain),
            ),
            [false, false, false, false],
        ),
        (
            (
                Severity::Blocker,
                Grounding::Ungrounded,
                Some(Verdict::Confirmed),
            ),
            [false, false, false, false],
        ),
    ];
    for ((severity, grounding, verdict), expected) in cases {
        let findings = one(severity, grounding, verdict);
        let got = [Blocker, Major, Minor, Never].map(|t| exceeds_threshold(&findings, t));
        assert_eq!(got, expected, "{severity:?} {grounding:?} {verdict:?}");
    }
}

#[test]
fn fail_on_major_is_exactly_a_fail_verdict() {
    for severity in Severity::STRONGEST_FIRST {
        for grounding in [Grounding::Grounded, Grounding::Weak, Grounding::Ungrounded] {
            for verdict in [
                None,
                Some(Verdict::Confirmed),
                Some(Verdict::Refuted),
                Some(Verdict::Uncertain),
            ] {
                let findings = one(severity, grounding, verdict);
                assert_eq!(
                    exceeds_threshold(&findings, FailOn::Major),
                    merge_verdict(&findings) == MergeVerdict::Fail
                );
            }
        }
    }
}

#[test]
fn fail_on_parses_its_four_values_and_refuses_others() {
    assert_eq!("minor".parse::<FailOn>().unwrap(), FailOn::Minor);
    assert_eq!("never".parse::<FailOn>().unwrap(), FailOn::Never);
    let err = "high".parse::<FailOn>().unwrap_err();
    assert!(err.to_string().contains("blocker, major, minor, never"));
}
