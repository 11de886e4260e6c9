//! A body's end-of-step pose as a function of its velocity, and the derivative maps.

use crate::geometry::{Pose, Space};
use nalgebra::{DMatrix, Matrix3, Vector3};

/// What a [`ContactBlock`](super::ContactBlock) needs to know about one body for the current
/// iterate of the step's velocity `ν = (v, ω)` (`ω` in the world frame).
///
/// The end-of-step pose is `(c + h v, exp(h ω) ∘ R)` (the world-frame exponential map of
/// `hω` applied to the start orientation; in 3D a product of unit quaternions, unit to rounding,
/// re-normalised by the stepper at the end of the step). The body frame's origin `c` is the
/// body's centre of mass, the point whose velocity `v` is. A perturbation `δν = (δv, δω)` moves
/// the end pose by `(dtrans_dv · δv, drot_domega · δω)` in the world frame, the perturbation
/// the geometry layer's pose derivatives use.
#[derive(Debug, Clone, PartialEq)]
pub struct BodyStep<S: Space> {
    /// Pose at the end of the step for the current `ν`.
    pub pose_end: Pose<S>,
    /// `v` (zero for a fixed body).
    pub linear_velocity: S::Vector,
    /// `ω`, world frame (zero for a fixed body).
    pub angular_velocity: S::Angular,
    /// `∂c_end/∂v` as a multiple of the identity: `h` (0 for a fixed body).
    pub dtrans_dv: f64,
    /// `A × A`: world-frame rotation increment of the end pose per `δω`: `h` in 2D,
    /// `h J_l(hω)` in 3D (0 for a fixed body).
    pub drot_domega: DMatrix<f64>,
    /// True if the body does not move (its `ν` is not an unknown).
    pub fixed: bool,
}

impl<S: Space> BodyStep<S> {
    /// The step of a moving body from `start` with velocity `velocity = (v, ω)` (length
    /// `S::DOF`) over the time step `h`: `pose_end = (c + h v, exp(h ω) ∘ R)`.
    ///
    /// # Panics
    /// If `velocity.len() != S::DOF`.
    pub fn advance(start: &Pose<S>, velocity: &[f64], h: f64) -> Self {
        assert_eq!(velocity.len(), S::DOF, "velocity must have S::DOF entries");
        let d = S::DIM;
        let v = S::vector_from_fn(|i| velocity[i]);
        let w = S::angular_from_fn(|i| velocity[d + i]);
        let pose_end = Pose {
            position: start.position + v * h,
            rotation: S::compose(&S::exp(&(w * h)), &start.rotation),
        };
        let drot_domega = if S::ANGULAR_DIM == 1 {
            DMatrix::from_element(1, 1, h)
        } else {
            let jl = so3_left_jacobian(&Vector3::new(w[0] * h, w[1] * h, w[2] * h)) * h;
            DMatrix::from_fn(3, 3, |i, j| jl[(i, j)])
        };
        Self {
            pose_end,
            linear_velocity: v,
            angular_velocity: w,
            dtrans_dv: h,
            drot_domega,
            fixed: false,
        }
    }

    /// A body that stays at `pose`.
    pub fn fixed(pose: Pose<S>) -> Self {
        Self {
            pose_end: pose,
            linear_velocity: S::zero_vector(),
            angular_velocity: S::angular_from_fn(|_| 0.0),
            dtrans_dv: 0.0,
            drot_domega: DMatrix::zeros(S::ANGULAR_DIM, S::ANGULAR_DIM),
            fixed: true,
        }
    }
}

/// The left Jacobian of `SO(3)`: `exp(φ + δ) = exp(J_l(φ) δ) exp(φ) + O(δ²)`,
/// `J_l = I + (1 − cos θ)/θ² [φ]× + (θ − sin θ)/θ³ [φ]×²`, `θ = ‖φ‖` (series below `θ = 1e-4`).
pub(crate) fn so3_left_jacobian(phi: &Vector3<f64>) -> Matrix3<f64> {
    let theta = phi.norm();
    let (a, b) = if theta < 1e-4 {
        let t2 = theta * theta;
        (0.5 - t2 / 24.0, 1.0 / 6.0 - t2 / 120.0)
    } else {
        let t2 = theta * theta;
        (
            (1.0 - theta.cos()) / t2,
            (theta - theta.sin()) / (t2 * theta),
        )
    };
    let k = phi.cross_matrix();
    Matrix3::identity() + k * a + k * k * b
}
