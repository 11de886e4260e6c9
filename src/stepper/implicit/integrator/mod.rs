//! The integrators behind one interface. Every scheme solves the same step MCP — the same
//! blocks, rows and kinematic map — and differs only in what it adds around it: how the
//! smooth impulses enter the momentum rows ([`Scheme::momentum`]), what it records at the start
//! of a (sub-)step, and the end-of-step velocity after the bodies moved ([`Scheme::finish`]).
//! One file per scheme: [`euler`] (the paper's), [`midpoint`], [`rattle`].
//!
//! Adding an integrator: a variant of [`crate::model::Integrator`] (and its scenario spelling),
//! a file here implementing [`Scheme`], and its arm in [`scheme`]. The stepper, the blocks and
//! the assembly do not change.

use super::{ImplicitStepper, StepperError};
use crate::model::{Dynamics, Gyroscopic, Integrator, RigidBody, Scene, Wrench};

pub(super) mod euler;
pub(super) mod midpoint;
pub(super) mod rattle;

/// What an integrator adds around the step's MCP.
pub(super) trait Scheme<S: Dynamics> {
    /// Refuses, before the first step, what the scheme does not model.
    fn check(&self, _scene: &Scene<S>) -> Result<(), StepperError> {
        Ok(())
    }
    /// The constant part of `body`'s momentum row, from the paper's `M ν^ℓ + h (λ_app + λ_vp)`
    /// (`free`) and the step's applied impulse `h λ_app` (`applied`).
    fn momentum(&self, body: &RigidBody<S>, free: Wrench<S>, applied: &Wrench<S>) -> Wrench<S>;
    /// The weight of the smooth impulses (joint actuators) in the momentum rows.
    fn smooth_weight(&self) -> f64;
    /// Where the gyroscopic impulse of the momentum rows is taken, `ω_θ = θ ν_ω + (1 − θ) ω^ℓ`,
    /// and its weight in them: `(θ, weight)`, from the scenario's choice `setting`
    /// ([`crate::model::Gyroscopic`]) by default, at full weight.
    fn gyroscopic(&self, setting: Gyroscopic) -> (f64, f64) {
        (setting.weight(), 1.0)
    }
    /// Whether the slip rows take the trapezoidal lever of the start- and end-of-step points.
    fn trapezoidal_levers(&self) -> bool {
        false
    }
    /// At the start of every (sub-)step, before the warm start moves the contact points.
    fn begin_substep(&self, _stepper: &mut ImplicitStepper<S>) {}
    /// At the start of the MCP's assembly, before the momentum rows.
    fn prepare(&self, _stepper: &mut ImplicitStepper<S>) {}
    /// After the solved (sub-)step of `h` moved the bodies: their end-of-step velocity.
    fn finish(&self, _stepper: &mut ImplicitStepper<S>, _h: f64) {}
}

/// The scheme of `integrator`.
pub(super) fn scheme<S: Dynamics>(integrator: Integrator) -> &'static dyn Scheme<S> {
    match integrator {
        Integrator::Euler => &euler::Euler,
        Integrator::Midpoint => &midpoint::Midpoint,
        Integrator::Rattle => &rattle::Rattle,
    }
}

/// What only the paper's scheme models: support friction (the 2.5D model), and joint limits
/// and friction, whose complementarity rows the second-order schemes' velocity projection
/// (written for equality rows) does not handle.
fn refuse_euler_only<S: Dynamics>(scene: &Scene<S>) -> Result<(), StepperError> {
    if let Some(j) = scene.joints.iter().find(|j| j.has_inequality_rows()) {
        return Err(StepperError::Unsupported(format!(
            "joint `{}`: joint limits and friction are complementarity rows, which the \
             second-order integrators' velocity projection does not handle: use \
             `integrator = \"euler\"`",
            j.name
        )));
    }
    if scene.supports.is_empty() {
        return Ok(());
    }
    Err(StepperError::Unsupported(
        "support friction (the 2.5D model) is written for the paper's scheme: use \
         `integrator = \"euler\"`"
            .into(),
    ))
}
