//! A body's end-of-step pose as a function of its velocity, and the derivative maps.

use crate::geometry::{Pose, Space};
use crate::model::{Dynamics, Twist, end_of_step_jacobian, end_of_step_pose};
use nalgebra::Matrix3;

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
    /// World-frame rotation increment of the end pose per `δω` (its top-left `A × A` block;
    /// the rest is zero, stored fixed-size so a step allocates nothing): `h` in 2D,
    /// `h J_l(hω)` in 3D (0 for a fixed body).
    pub drot_domega: Matrix3<f64>,
    /// True if the body does not move (its `ν` is not an unknown).
    pub fixed: bool,
}

impl<S: Dynamics> BodyStep<S> {
    /// The step of a moving body from `start` with velocity `velocity = (v, ω)` (length
    /// `S::DOF`) over the time step `h`: the model's end-of-step pose
    /// ([`end_of_step_pose`]: `(c + h v, exp(h ω) ∘ R)`) and its derivative
    /// ([`end_of_step_jacobian`]), the same maps the stepper advances the bodies with.
    ///
    /// # Panics
    /// If `velocity.len() != S::DOF`.
    pub fn advance(start: &Pose<S>, velocity: &[f64], h: f64) -> Self {
        assert_eq!(velocity.len(), S::DOF, "velocity must have S::DOF entries");
        let twist = Twist::<S>::from_slice(velocity);
        let jacobian = end_of_step_jacobian(&twist, h);
        let a = S::ANGULAR_DIM;
        let rot = &jacobian.d_rotation_d_angular_velocity;
        Self {
            pose_end: end_of_step_pose(start, &twist, h),
            linear_velocity: twist.linear,
            angular_velocity: twist.angular,
            dtrans_dv: jacobian.d_position_d_velocity,
            drot_domega: Matrix3::from_fn(|i, j| if i < a && j < a { rot[(i, j)] } else { 0.0 }),
            fixed: false,
        }
    }
}

impl<S: Dynamics> BodyStep<S> {
    /// A driven body (no unknowns) moving from `start` with the prescribed `twist` over `h`:
    /// the same end-of-step map as a moving body's, its velocities those of the drive.
    pub fn driven(start: &Pose<S>, twist: &Twist<S>, h: f64) -> Self {
        Self {
            pose_end: end_of_step_pose(start, twist, h),
            linear_velocity: twist.linear,
            angular_velocity: twist.angular,
            dtrans_dv: 0.0,
            drot_domega: Matrix3::zeros(),
            fixed: true,
        }
    }
}

impl<S: Space> BodyStep<S> {
    /// A body that stays at `pose`.
    pub fn fixed(pose: Pose<S>) -> Self {
        Self {
            pose_end: pose,
            linear_velocity: S::zero_vector(),
            angular_velocity: S::angular_from_fn(|_| 0.0),
            dtrans_dv: 0.0,
            drot_domega: Matrix3::zeros(),
            fixed: true,
        }
    }
}
