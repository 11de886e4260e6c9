//! Support friction in the step's MCP: a planar body sliding on its table (the 2.5D model of
//! Berard et al. 2007, [`crate::model::Support`]).
//!
//! # Rows
//!
//! The block's local unknowns are the friction impulse `p = (p_x, p_y, p_τ)` at the body's
//! centre of mass and a slip speed `σ ≥ 0`. With the twist `ν = (v_x, v_y, ω)` at the end of
//! the step, the normal impulse `p_n = N h` and the ellipsoid's semi-axes `e = (e_t, e_o,
//! e_r)`, the law of maximal dissipation over the ellipsoid (paper eq. 5, the same law as a
//! contact's friction with `p_n` given) reads
//!
//! ```text
//! e_k² ν_k + σ p_k / (μ p_n) = 0                              k = x, y, τ
//! 0 ≤ σ  ⊥  ((μ p_n)² − Σ_k (p_k / e_k)²) / (2 μ p_n) ≥ 0
//! ```
//!
//! Sliding (`σ > 0`): `p` is on the ellipsoid's surface where its normal opposes `ν`, `p_k =
//! −e_k² ν_k μ p_n / σ`, and `σ = ‖(e_k ν_k)‖` is the slip speed. Sticking (`σ = 0`): `ν = 0`
//! and `p` anywhere inside, fixed by the body's Newton–Euler rows. The rows are the paper's
//! divided by `μ p_n`, so that they are speeds and `σ` is one, and the cone row is an impulse
//! whose gradient is `O(1)` on the surface: the tolerance bounds the friction's excess over
//! the ellipsoid in N·s, and no friction passes at `p_n = 0` because there is none (`μ = 0`
//! adds no block). (Written with the paper's unscaled `σ`, in units of `1/μ p_n` larger, the
//! path search needed three times the Newton iterations on the grasp example.) The impulse is
//! applied at the centre of mass, so its wrench on the body is `p` and every Jacobian entry is
//! `e_k²`, `σ / μ p_n`, `p_k / μ p_n`, `p_k / (e_k² μ p_n)` or 1.

use crate::block::{BlockJacobian, JacobianShape};
use crate::contact::BodyStep;
use crate::model::{Dynamics, Support};

#[cfg(test)]
mod tests;

/// One support's block: `S::DOF` impulses and `σ`, their rows and their wrench on the body.
#[derive(Debug, Clone)]
pub struct SupportBlock<S: Dynamics> {
    support: Support,
    _space: std::marker::PhantomData<S>,
}

/// Output of [`SupportBlock::evaluate`]: `values = [rows; wrench on the body; 0 (the
/// table)]` and their Jacobian over `[p, σ; ν; (nothing)]`, `total × total`.
#[derive(Debug, Clone, PartialEq)]
pub struct SupportEval {
    /// The rows, then the wrench `p` on the body, then zeros for the table.
    pub values: Vec<f64>,
    /// `∂values/∂(p, σ, ν, ·)`.
    pub jacobian: BlockJacobian,
}

impl<S: Dynamics> SupportBlock<S> {
    /// The block of `support`.
    pub fn new(support: Support) -> Self {
        Self {
            support,
            _space: std::marker::PhantomData,
        }
    }

    /// The support.
    pub fn support(&self) -> &Support {
        &self.support
    }

    /// `S::DOF + 1` local unknowns: `p`, then `σ`.
    pub fn local_count(&self) -> usize {
        S::DOF + 1
    }

    /// `local_count + 2 DOF`: the size of [`SupportEval`].
    pub fn total(&self) -> usize {
        self.local_count() + 2 * S::DOF
    }

    /// Bounds: `p` free, `σ ≥ 0`.
    pub fn bounds(&self) -> (Vec<f64>, Vec<f64>) {
        let n = self.local_count();
        let mut lo = vec![f64::NEG_INFINITY; n];
        lo[n - 1] = 0.0;
        (lo, vec![f64::INFINITY; n])
    }

    /// A zeroed evaluation.
    pub fn new_eval(&self) -> SupportEval {
        let total = self.total();
        SupportEval {
            values: vec![0.0; total],
            jacobian: BlockJacobian::zeros(JacobianShape::dense(total)),
        }
    }

    /// The ellipsoid's semi-axes over `ν`'s components.
    fn semi_axes(&self) -> [f64; 3] {
        let f = &self.support.friction;
        [f.e_t, f.e_o, f.e_r]
    }

    /// The ellipsoid's bound `μ p_n` on a step of `h`.
    pub fn bound(&self, h: f64) -> f64 {
        self.support.friction.mu * self.support.normal_force * h
    }

    /// The friction impulse `x[..DOF]`'s size on the ellipsoid, `√Σ (p_k / e_k)²`: at most
    /// [`Self::bound`] when the law holds.
    pub fn norm(&self, x: &[f64]) -> f64 {
        let e = self.semi_axes();
        (0..S::DOF)
            .map(|k| (x[k] / e[k]).powi(2))
            .sum::<f64>()
            .sqrt()
    }

    /// The rows and the wrench of `x = (p, σ)` on the body stepping as `body`, and their exact
    /// Jacobian, for a step of `h` (see the module docs).
    pub fn evaluate(&self, x: &[f64], body: &BodyStep<S>, h: f64, eval: &mut SupportEval) {
        let dof = S::DOF;
        let (n, e, bound) = (self.local_count(), self.semi_axes(), self.bound(h));
        eval.values.fill(0.0);
        eval.jacobian.clear();
        let sigma = x[dof] / bound;
        let mut nu = [0.0; 3];
        for k in 0..S::DIM {
            nu[k] = body.linear_velocity[k];
        }
        for j in 0..S::ANGULAR_DIM {
            nu[S::DIM + j] = body.angular_velocity[j];
        }
        let mut cone = bound * bound;
        for k in 0..dof {
            let e2 = e[k] * e[k];
            eval.values[k] = e2 * nu[k] + sigma * x[k];
            eval.jacobian[(k, n + k)] = e2;
            eval.jacobian[(k, k)] = sigma;
            eval.jacobian[(k, dof)] = x[k] / bound;
            cone -= x[k] * x[k] / e2;
            eval.jacobian[(dof, k)] = -x[k] / (e2 * bound);
            // The wrench on the body, at its centre of mass.
            eval.values[n + k] = x[k];
            eval.jacobian[(n + k, k)] = 1.0;
        }
        eval.values[dof] = cone / (2.0 * bound);
    }
}

impl crate::block::BlockEval for SupportEval {
    fn values(&self) -> &[f64] {
        &self.values
    }
    fn jacobian(&self) -> &BlockJacobian {
        &self.jacobian
    }
}

/// The support acts on its one body: body 2's step is not used.
impl<S: Dynamics> crate::block::ConstraintBlock<S> for SupportBlock<S> {
    type Eval = SupportEval;
    fn local_count(&self) -> usize {
        SupportBlock::local_count(self)
    }
    fn bounds(&self, _h: f64) -> (Vec<f64>, Vec<f64>) {
        SupportBlock::bounds(self)
    }
    fn new_eval(&self) -> SupportEval {
        SupportBlock::new_eval(self)
    }
    fn evaluate(
        &self,
        x: &[f64],
        s1: &BodyStep<S>,
        _s2: &BodyStep<S>,
        h: f64,
        eval: &mut SupportEval,
    ) {
        SupportBlock::evaluate(self, x, s1, h, eval)
    }
}
