//! The model: rigid bodies (mass, inertia, planar or spatial pose and twist), fixed bodies,
//! applied forces and the scene, generic over the dimension ([`Planar`](crate::geometry::Planar)
//! or [`Spatial`](crate::geometry::Spatial), both in one build, through [`Dynamics`]).
//!
//! # The per-body pieces of a time step
//!
//! The stepper solves, for every moving body, the Newton–Euler row of the paper's eq. 6/21
//!
//! ```text
//! M^ℓ ν^{ℓ+1} = M^ℓ ν^ℓ + W p + h λ_app^ℓ + h λ_vp^ℓ,        q^{ℓ+1} = q^ℓ ⊕ h ν^{ℓ+1}
//! ```
//!
//! with everything except the contact impulses `W p` taken at the start of the step `ℓ` (the
//! gyroscopic impulse only under [`Gyroscopic::Explicit`]; by default the stepper takes it at
//! `ω^{ℓ+1}` inside the step's rows, see [`Gyroscopic`]):
//!
//! * `M^ℓ = diag(m I, I_w)`, `I_w = R I_b Rᵀ` ([`RigidBody::mass_matrix`]);
//! * `h λ_app = h (m g + F_ext + F_c(t_ℓ), τ_ext + τ_c(t_ℓ))`, with constant wrenches and an
//!   optional [`Controller`] ([`RigidBody::applied_impulse`]);
//! * `h λ_vp = h (0, −ω × I_w ω)`, zero in 2D ([`RigidBody::gyroscopic_impulse`]);
//! * their sum with `M^ℓ ν^ℓ` is [`RigidBody::free_momentum`].
//!
//! # Orientation and the kinematic map `G`
//!
//! The twist is `ν = (v, ω)` with `ω` in the **world** frame. The paper's `q^{ℓ+1} = q^ℓ + h G
//! ν^{ℓ+1}` is realised on the rotation group rather than on the quaternion's coordinates
//! ([`kinematics`]):
//!
//! ```text
//! c⁺ = c + h v,        R⁺ = exp(h ω) ∘ R        (2D: θ⁺ = θ + h ω)
//! ```
//!
//! i.e. the body turns by the constant world-frame rotation vector `h ω` over the step. To first
//! order in `h` this is the paper's `q + h G ν` with `G = ½ [ω]_quat` for the quaternion, but
//! `exp(h ω)` is a unit quaternion by construction, so `R⁺` is unit without projection. The
//! product is renormalised once (the rounding of one quaternion product, `~10⁻¹⁶`, would
//! otherwise random-walk over long runs); this is the same formula inside the Newton solve and
//! when the accepted step advances the body ([`RigidBody::advance`]). Its exact derivative is
//! `∂c⁺/∂v = h I` and, for the world-frame rotation increment, `δθ⁺ = h J_l(h ω) δω` with the
//! left Jacobian [`left_jacobian_so3`] (2D: `h`); [`PoseStepJacobian`] chains it with the
//! geometry layer's pose derivatives.
//!
//! # Energy
//!
//! Kinetic `½ m v·v + ½ ωᵀ I_w ω`, gravitational `−m g·c`. `−ω × I_w ω` itself does no work
//! (`ω · (ω × I_w ω) = 0`), but a step's impulse does work on the step's *end* velocity: taken
//! explicitly at `ℓ` it adds `O(h²)` energy every step to a torque-free spinning 3D body;
//! [`Gyroscopic`] gives the end-of-step (never gains) and midpoint (keeps a free body's
//! energy) alternatives.
//!
//! # Modules
//!
//! * [`dynamics`]: [`Dynamics`], the space's inertia type, world inertia, gyroscopic torque,
//!   left Jacobian.
//! * [`body`]: [`RigidBody`], [`Twist`] (with the velocity of a material point), [`Wrench`]
//!   (with the wrench of a force at a point), [`BodyState`], [`Controller`].
//! * [`kinematics`]: [`end_of_step_pose`], [`end_of_step_jacobian`], [`PoseStepJacobian`].
//! * [`friction`]: [`Friction`] (`μ`, `e_t`, `e_o`, `e_r`; eq. 5).
//! * [`joint`]: [`Joint`], [`JointKind`] (bilateral joints; their rows are [`crate::joint`]).
//! * [`layer`]: [`CompliantLayer`] (a quasi-rigid body's layer, §5) and [`Integrator`].
//! * [`support`]: [`Support`] (a planar body's friction on its table, the 2.5D model).
//! * [`scene`]: [`Scene`], [`PairFriction`], [`VelocityLayout`] (where each moving body's twist
//!   sits in `ν`).
//! * [`error`]: [`ModelError`], naming the body (or scene item) and the field.

pub mod body;
pub mod drive;
pub mod dynamics;
pub mod error;
pub mod friction;
pub mod integrator;
pub mod joint;
pub mod kinematics;
pub mod layer;
pub mod scene;
pub mod spatial;
pub mod support;

#[cfg(test)]
mod tests;

pub use body::{BodyState, Controller, RigidBody};
pub use drive::PoseTable;
pub use dynamics::{Dynamics, Gyroscopic, left_jacobian_so3};
pub use error::ModelError;
pub use friction::Friction;
pub use integrator::Integrator;
pub use joint::{Actuator, Joint, JointKind};
pub use kinematics::{PoseStepJacobian, end_of_step_jacobian, end_of_step_pose};
pub use layer::CompliantLayer;
pub use scene::{PairFriction, Scene, VelocityLayout};
pub use spatial::{Twist, Wrench, apply_inverse_mass, inverse_inertia};
pub use support::Support;
