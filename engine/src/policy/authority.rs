//! Authority: what one tool call may do, as the intersection of every layer.
//!
//! recipe ceiling ∩ step tools ∩ role tools and capabilities ∩ phase (writes are
//! denied in baseline and verify). Every operation here only narrows: combining
//! layers can remove tools and lower decisions (allow -> ask -> deny), never add.
//! Pure functions; no I/O; no knowledge of any role's or flow's name.

use std::collections::{BTreeMap, BTreeSet};

use indexmap::IndexMap;

use super::{Capability, Decision, Phase};
use crate::tools::{Effect, lookup};

/// What a tool call may do in one place of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authority {
    tools: BTreeSet<String>,
    /// Decisions per capability; a capability not listed is `deny`.
    capabilities: BTreeMap<Capability, Decision>,
    phase: Phase,
}

/// The verdict of an authority on one tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Proceed without asking.
    Allow,
    /// Proceed only with an approval.
    Ask,
    /// Refused, with a reason the caller can act on.
    Deny(String),
}

/// The layers a step's authority is made from.
#[derive(Debug, Clone, Copy)]
pub struct AuthorityLayers<'a> {
    /// The recipe's capability ceiling; a capability not listed is not narrowed.
    pub ceiling: &'a IndexMap<Capability, Decision>,
    /// The role's tool allowlist.
    pub role_tools: &'a [String],
    /// The role's capability policy; a capability not listed is `deny`.
    pub role_capabilities: &'a IndexMap<Capability, Decision>,
    /// The step's narrowing of the role's tools (`None`: not narrowed).
    pub step_tools: Option<&'a [String]>,
    /// The step's phase.
    pub phase: Phase,
}

impl Authority {
    /// An authority granting exactly these tools and capability decisions in `phase`.
    pub fn new<T, S, C>(tools: T, capabilities: C, phase: Phase) -> Authority
    where
        T: IntoIterator<Item = S>,
        S: Into<String>,
        C: IntoIterator<Item = (Capability, Decision)>,
    {
        Authority {
            tools: tools.into_iter().map(Into::into).collect(),
            capabilities: capabilities.into_iter().collect(),
            phase,
        }
    }

    /// An authority that allows nothing.
    pub fn none(phase: Phase) -> Authority {
        Authority::new(Vec::<String>::new(), [], phase)
    }

    /// The intersection of all layers.
    pub fn from_layers(layers: AuthorityLayers<'_>) -> Authority {
        let role = Authority::new(
            layers.role_tools.iter().cloned(),
            layers.role_capabilities.iter().map(|(c, d)| (*c, *d)),
            layers.phase,
        );
        let role = role.narrow_ceiling(layers.ceiling);
        match layers.step_tools {
            Some(tools) => role.narrow_tools(tools),
            None => role,
        }
    }

    /// Keeps only the tools also in `tools`.
    pub fn narrow_tools<S: AsRef<str>>(mut self, tools: &[S]) -> Authority {
        let keep: BTreeSet<&str> = tools.iter().map(AsRef::as_ref).collect();
        self.tools.retain(|t| keep.contains(t.as_str()));
        self
    }

    /// Lowers each capability to the ceiling's decision where the ceiling lists it.
    pub fn narrow_ceiling(mut self, ceiling: &IndexMap<Capability, Decision>) -> Authority {
        for (capability, decision) in &mut self.capabilities {
            if let Some(limit) = ceiling.get(capability) {
                *decision = decision.narrow(*limit);
            }
        }
        self
    }

    /// The intersection with another authority (tools and capabilities); the
    /// phase becomes the stricter of the two (no writes if either forbids them).
    pub fn narrow(mut self, other: &Authority) -> Authority {
        self.tools.retain(|t| other.tools.contains(t));
        self.capabilities = self
            .capabilities
            .iter()
            .filter_map(|(c, d)| other.capabilities.get(c).map(|o| (*c, d.narrow(*o))))
            .collect();
        if !other.phase.allows_writes() && self.phase.allows_writes() {
            self.phase = other.phase;
        }
        self
    }

    /// The phase calls run in.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The decision for a capability (`deny` when not granted).
    pub fn capability(&self, capability: Capability) -> Decision {
        self.capabilities
            .get(&capability)
            .copied()
            .unwrap_or(Decision::Deny)
    }

    /// The tools whose verdict is not `deny`, sorted (what a caller may be offered).
    pub fn allowed_tools(&self) -> Vec<&str> {
        self.tools
            .iter()
            .map(String::as_str)
            .filter(|t| !matches!(self.decide(t), Verdict::Deny(_)))
            .collect()
    }

    /// The verdict for calling `tool`.
    pub fn decide(&self, tool: &str) -> Verdict {
        let Some(spec) = lookup(tool) else {
            return Verdict::Deny(format!("`{tool}` is not a known tool"));
        };
        if !self.tools.contains(tool) {
            let allowed: Vec<&str> = self.tools.iter().map(String::as_str).collect();
            return Verdict::Deny(format!(
                "`{tool}` is not among the tools allowed here ({})",
                if allowed.is_empty() {
                    "none".to_string()
                } else {
                    allowed.join(", ")
                }
            ));
        }
        if spec.effect == Effect::Write && !self.phase.allows_writes() {
            return Verdict::Deny(format!(
                "file writes are not allowed in the {} phase",
                self.phase
            ));
        }
        let Some(capability) = spec.capability else {
            return Verdict::Allow;
        };
        match self.capability(capability) {
            Decision::Allow => Verdict::Allow,
            Decision::Ask => Verdict::Ask,
            Decision::Deny => Verdict::Deny(format!("capability `{capability}` is denied here")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DECISIONS: [Decision; 3] = [Decision::Allow, Decision::Ask, Decision::Deny];

    fn rank(d: Decision) -> u8 {
        match d {
            Decision::Allow => 2,
            Decision::Ask => 1,
            Decision::Deny => 0,
        }
    }

    fn verdict_rank(v: &Verdict) -> u8 {
        match v {
            Verdict::Allow => 2,
            Verdict::Ask => 1,
            Verdict::Deny(_) => 0,
        }
    }

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn layering_only_narrows_capabilities() {
        let cap = Capability::FilesystemWrite;
        for role in DECISIONS {
            for ceiling in DECISIONS.map(Some).into_iter().chain([None]) {
                let role_caps = IndexMap::from([(cap, role)]);
                let ceiling_caps: IndexMap<_, _> = ceiling.map(|c| (cap, c)).into_iter().collect();
                let tools = names(&["edit_file"]);
                let a = Authority::from_layers(AuthorityLayers {
                    ceiling: &ceiling_caps,
                    role_tools: &tools,
                    role_capabilities: &role_caps,
                    step_tools: None,
                    phase: Phase::Edit,
                });
                let got = rank(a.capability(cap));
                assert!(got <= rank(role), "{role:?} {ceiling:?}");
                if let Some(c) = ceiling {
                    assert!(got <= rank(c), "{role:?} {ceiling:?}");
                }
                assert!(verdict_rank(&a.decide("edit_file")) <= rank(role));
            }
        }
    }

    #[test]
    fn narrowing_with_another_authority_never_widens() {
        let all_tools = ["read_file", "edit_file", "execute_command"];
        for d1 in DECISIONS {
            for d2 in DECISIONS {
                let a = Authority::new(
                    all_tools,
                    [
                        (Capability::WorkspaceRead, d1),
                        (Capability::FilesystemWrite, d1),
                    ],
                    Phase::Edit,
                );
                let b = Authority::new(
                    ["read_file", "edit_file"],
                    [(Capability::WorkspaceRead, d2)],
                    Phase::Verify,
                );
                let n = a.clone().narrow(&b);
                for tool in all_tools {
                    let v = verdict_rank(&n.decide(tool));
                    assert!(v <= verdict_rank(&a.decide(tool)), "{tool} {d1:?} {d2:?}");
                    assert!(v <= verdict_rank(&b.decide(tool)), "{tool} {d1:?} {d2:?}");
                }
            }
        }
    }

    #[test]
    fn step_tools_remove_but_never_add() {
        let tools = names(&["read_file"]);
        let caps = IndexMap::from([
            (Capability::WorkspaceRead, Decision::Allow),
            (Capability::ProcessExecute, Decision::Allow),
        ]);
        let step = names(&["read_file", "execute_command"]);
        let a = Authority::from_layers(AuthorityLayers {
            ceiling: &IndexMap::new(),
            role_tools: &tools,
            role_capabilities: &caps,
            step_tools: Some(&step),
            phase: Phase::None,
        });
        assert_eq!(a.decide("read_file"), Verdict::Allow);
        assert!(matches!(a.decide("execute_command"), Verdict::Deny(_)));
    }

    #[test]
    fn writes_are_denied_in_verify_and_baseline() {
        for phase in [Phase::Verify, Phase::Baseline] {
            let a = Authority::new(
                ["edit_file", "read_file"],
                [
                    (Capability::FilesystemWrite, Decision::Allow),
                    (Capability::WorkspaceRead, Decision::Allow),
                ],
                phase,
            );
            assert!(matches!(a.decide("edit_file"), Verdict::Deny(r) if r.contains("phase")));
            assert_eq!(a.decide("read_file"), Verdict::Allow);
        }
        let a = Authority::new(
            ["edit_file"],
            [(Capability::FilesystemWrite, Decision::Allow)],
            Phase::Edit,
        );
        assert_eq!(a.decide("edit_file"), Verdict::Allow);
    }

    #[test]
    fn missing_capabilities_default_to_deny_and_ceiling_ask_forces_approval() {
        let tools = names(&["read_file", "edit_file"]);
        let caps = IndexMap::from([(Capability::FilesystemWrite, Decision::Allow)]);
        let ceiling = IndexMap::from([(Capability::FilesystemWrite, Decision::Ask)]);
        let a = Authority::from_layers(AuthorityLayers {
            ceiling: &ceiling,
            role_tools: &tools,
            role_capabilities: &caps,
            step_tools: None,
            phase: Phase::Edit,
        });
        assert!(matches!(a.decide("read_file"), Verdict::Deny(_)));
        assert_eq!(a.decide("edit_file"), Verdict::Ask);
        assert_eq!(a.allowed_tools(), vec!["edit_file"]);
    }
}
