//! The constraint-block interface of the step's MCP. A block — a contact ([`crate::contact`]),
//! a joint ([`crate::joint`]), a support ([`crate::support`]) — owns `n` local unknowns and
//! their bounds and, at the end-of-step poses of its (at most two) bodies, writes
//! `values = [its n rows; the wrench on body 1 (DOF); the wrench on body 2 (DOF)]` and their
//! exact Jacobian over `[local unknowns; ν₁; ν₂]` (its bodies are the stepper's business). The stepper assembles every block the same
//! way (`stepper::implicit::assembly`) and never reads a block's layout; a new kind of block
//! implements this trait and gets a slot list in the stepper.

use crate::contact::BodyStep;
use crate::model::Dynamics;
use nalgebra::DMatrix;

/// A block's evaluation: the values and their Jacobian (`total × total`).
pub trait BlockEval {
    /// `[rows; wrench on body 1; wrench on body 2]`.
    fn values(&self) -> &[f64];
    /// `∂values/∂(local unknowns, ν₁, ν₂)`.
    fn jacobian(&self) -> &DMatrix<f64>;
}

/// One kind of constraint block (see the module docs).
pub trait ConstraintBlock<S: Dynamics> {
    /// Its evaluation's type (scratch it owns between evaluations).
    type Eval: BlockEval + std::fmt::Debug;
    /// Number of local unknowns (and rows).
    fn local_count(&self) -> usize;
    /// Lower and upper bounds of the local unknowns for a (sub-)step of `h` (an impulse bound
    /// such as a joint friction's scales with it).
    fn bounds(&self, h: f64) -> (Vec<f64>, Vec<f64>);
    /// Writes [`Self::bounds`] into `lo` and `hi` (`local_count` entries each) without
    /// allocating, for every (sub-)step.
    fn write_bounds(&self, h: f64, lo: &mut [f64], hi: &mut [f64]) {
        let (l, u) = self.bounds(h);
        lo.copy_from_slice(&l);
        hi.copy_from_slice(&u);
    }
    /// A zeroed evaluation.
    fn new_eval(&self) -> Self::Eval;
    /// The rows and wrenches at the local unknowns `x` and the bodies' steps `s1`, `s2` over a
    /// step of `h`, with their exact Jacobian.
    fn evaluate(
        &self,
        x: &[f64],
        s1: &BodyStep<S>,
        s2: &BodyStep<S>,
        h: f64,
        eval: &mut Self::Eval,
    );
}
