//! The kinematic map of one time step: the end-of-step pose as a function of the end-of-step
//! twist, and its exact derivative (the paper's `q^{ℓ+1} = q^ℓ + h G ν^{ℓ+1}`, eq. 6).
//!
//! ```text
//! c⁺ = c + h v                       R⁺ = exp(h ω) ∘ R        (ω in the world frame)
//! ∂c⁺/∂v = h I                       δθ⁺ = h J_l(h ω) δω       (2D: θ⁺ = θ + h ω, δθ⁺ = h δω)
//! ```
//!
//! `δθ⁺` is the world-frame rotation increment of `R⁺` (the perturbation
//! [`Pose::perturbed`] and the pose derivatives of [`crate::geometry::world`] use), and `J_l` the
//! left Jacobian of the exponential map ([`Dynamics::left_jacobian`]). A derivative of anything
//! evaluated at the end-of-step pose — `∂f/∂c` and `∂f/∂δθ` from the geometry layer — becomes a
//! derivative with respect to the twist by [`PoseStepJacobian::chain_gradient`] and
//! [`PoseStepJacobian::chain_jacobian`].

use super::dynamics::Dynamics;
use super::spatial::Twist;
use crate::geometry::Pose;

/// The end-of-step pose `(c + h v, exp(h ω) ∘ R)` of a body at `pose` moving with `twist` for
/// `h`. The rotation is renormalised after the product, so it stays unit over any number of
/// steps (the exponential map is unit by construction; only rounding is removed).
pub fn end_of_step_pose<S: Dynamics>(pose: &Pose<S>, twist: &Twist<S>, h: f64) -> Pose<S> {
    Pose {
        position: pose.position + twist.linear * h,
        rotation: S::integrate_rotation(&pose.rotation, &(twist.angular * h)),
    }
}

/// The derivative of [`end_of_step_pose`] with respect to the twist `(v, ω)`: translation
/// `∂c⁺/∂v = h I`, rotation `δθ⁺ = h J_l(h ω) δω` (world frame). It does not depend on the
/// start pose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PoseStepJacobian<S: Dynamics> {
    /// `h`: the translation block is `h I`.
    pub d_position_d_velocity: f64,
    /// `h J_l(h ω)` (`A × A`): the world-frame rotation increment per unit change of `ω`.
    pub d_rotation_d_angular_velocity: S::AngularMatrix,
}

/// The derivative of [`end_of_step_pose`] at `twist` for the time step `h`.
pub fn end_of_step_jacobian<S: Dynamics>(twist: &Twist<S>, h: f64) -> PoseStepJacobian<S> {
    PoseStepJacobian {
        d_position_d_velocity: h,
        d_rotation_d_angular_velocity: S::left_jacobian(&(twist.angular * h)) * h,
    }
}

impl<S: Dynamics> PoseStepJacobian<S> {
    /// The gradient of a scalar with respect to the twist, `(∂f/∂v, ∂f/∂ω) =
    /// (h ∂f/∂c, (h J_l)ᵀ ∂f/∂δθ)`, from its pose derivatives at the end-of-step pose (e.g.
    /// [`crate::geometry::WorldEval::d_value_d_translation`] and `d_value_d_rotation`).
    pub fn chain_gradient(&self, d_translation: &S::Vector, d_rotation: &S::Angular) -> Twist<S> {
        Twist {
            linear: *d_translation * self.d_position_d_velocity,
            angular: S::angular_matrix_transpose_mul(
                &self.d_rotation_d_angular_velocity,
                d_rotation,
            ),
        }
    }

    /// The Jacobian of a vector (e.g. a world gradient `∇f_w`) with respect to the twist,
    /// `(∂g/∂v, ∂g/∂ω) = (h ∂g/∂c, ∂g/∂δθ · h J_l)`, from its pose derivatives (`D × D` and
    /// `D × A`).
    pub fn chain_jacobian(
        &self,
        d_translation: &S::Matrix,
        d_rotation: &S::AngularJacobian,
    ) -> (S::Matrix, S::AngularJacobian) {
        (
            *d_translation * self.d_position_d_velocity,
            S::angular_jacobian_mul(d_rotation, &self.d_rotation_d_angular_velocity),
        )
    }
}
