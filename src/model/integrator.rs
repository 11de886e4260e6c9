//! The time-integration scheme of the bodies and the compliant layers (`simulation.integrator`);
//! each scheme's part of the implicit step is in its own file of [`crate::stepper::implicit`].

/// How a step integrates the bodies and the compliant layers (scenario key
/// `simulation.integrator`).
///
/// * [`Euler`](Self::Euler) — the paper's scheme (eq. 6, 37, 49): `M(ν^{ℓ+1} − ν^ℓ) = W p + h λ`,
///   `q^{ℓ+1} = q^ℓ + h ν^{ℓ+1}`, spring impulse `h K δ^{ℓ+1}` at the end of the step. First
///   order; a free fall loses exactly `½ m g² h²` per step and the spring is damped by the
///   scheme.
/// * [`Midpoint`](Self::Midpoint) — energy-consistent for gravity, constant forces and the
///   normal spring of the layers: smooth impulses enter the position update at their midpoint
///   value, impacts (rigid contacts, the core, friction) at full weight, so the core impact
///   stays inelastic. The derivation is in [`crate::contact`] (module docs, "Integrators").
///   Not for rigid contacts: the second half-kick of gravity follows the MCP, so a body
///   resting on a rigid contact ends the step at `½ h g` into it (from rest, a gain the energy
///   check refuses).
/// * [`Rattle`](Self::Rattle) — second order for smooth contact motion (rolling, rocking),
///   with bounded energy error: the midpoint's first half-kick and drift inside the one MCP
///   (contacts still at the end of the step), then a second half-kick of the smooth impulses at
///   the end-of-step state and a projection of the end-of-step velocity onto the velocity
///   constraints of the contacts that carry an impulse (RATTLE, Andersen 1983); by default
///   steps over which the contacts do no work end with an energy projection
///   (`simulation.energy_projection`). Derivation in [`crate::stepper::implicit`] (module
///   docs, "Second-order integration" and "Energy projection").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Integrator {
    /// The paper's backward-Euler scheme (default).
    #[default]
    Euler,
    /// Midpoint for smooth forces (gravity, constant forces, layer springs), impulsive
    /// contacts at full weight.
    Midpoint,
    /// Kick–drift–kick with the velocity projected onto the contacts' velocity constraints at
    /// the end of the step (second order, no secular energy drift on smooth contact motion).
    Rattle,
}

impl Integrator {
    /// The weight of smooth impulses in the position update: 1 (Euler) or ½ (midpoint).
    pub fn smooth_weight(&self) -> f64 {
        match self {
            Integrator::Euler => 1.0,
            Integrator::Midpoint | Integrator::Rattle => 0.5,
        }
    }

    /// True if smooth impulses are split in halves around the position update (midpoint and
    /// RATTLE): the layers then use the discrete-gradient spring law.
    pub fn splits_smooth_impulses(&self) -> bool {
        self.smooth_weight() < 1.0
    }

    /// The name in files: `euler`, `midpoint` or `rattle`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Integrator::Euler => "euler",
            Integrator::Midpoint => "midpoint",
            Integrator::Rattle => "rattle",
        }
    }
}
