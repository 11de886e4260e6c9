//! World-frame evaluation under a rigid pose, and the derivatives with respect to the pose.
//!
//! One implementation of the transform rules, shared by every shape. Let `f_b` be a function in
//! the body frame (value `f_b`, gradient `g_b`, Hessian `H_b`) and `(c, R)` the body's pose, so
//! a world point `p` has body coordinates `ξ = Rᵀ (p − c)`. Write `r = p − c`.
//!
//! **Values in the world frame.** `f_w(p) = f_b(Rᵀ r)`, and by the chain rule
//!
//! ```text
//! ∇f_w(p)  = R g_b(ξ)            =: g
//! ∇²f_w(p) = R H_b(ξ) Rᵀ          =: H
//! ```
//!
//! **Translation.** Moving the body by `δc` at a fixed world point changes `ξ` by `−Rᵀ δc`:
//!
//! ```text
//! ∂f_w/∂c   = −g          ∂(∇f_w)/∂c = −H
//! ```
//!
//! **Rotation in the world frame.** Perturb `R ← exp(δθ) R` (`δθ` scalar in 2D, in `ℝ³` in 3D;
//! the body rotates about its own origin `c`, which stays put). To first order
//! `exp(δθ) ≈ I + [δθ]×`, so `ξ' = Rᵀ (I − [δθ]×) r = ξ − Rᵀ (δθ × r)`, and
//!
//! ```text
//! δf_w   = −g · (δθ × r) = −δθ · (r × g)
//! ⇒ ∂f_w/∂δθ = −(r × g) = g × r                       (2D: −(r_x g_y − r_y g_x))
//!
//! ∇f_w'  = (I + [δθ]×) R (g_b − H_b Rᵀ (δθ × r))
//!        = g + δθ × g − H (δθ × r) + O(δθ²)
//! ⇒ ∂(∇f_w)/∂δθ = M_g − H M_r
//! ```
//!
//! where `M_v` is the `D × A` matrix of `δθ ↦ δθ × v` ([`Space::cross_jacobian`]: `−[v]×` in 3D,
//! the column `(−v_y, v_x)` in 2D). The twist `ν = (v, ω)` of a body with `ω` in the world frame
//! moves `c` by `h v` and `R` by `exp(h ω)`, so these derivatives chain directly into `∂/∂ν`.
//!
//! A function placed in the body by `(cₗ, Rₗ)` ([`Placed`](super::implicit::Placed)) is a
//! body-frame function by the same rules ([`to_parent`]); the pose derivatives then still use the
//! body's origin `c`, not the placement's.

use super::implicit::{Eval, ImplicitFn};
use super::pose::Pose;
use super::space::Space;

/// Value, gradient and Hessian at a world point, and their derivatives with respect to the body
/// pose (translation `c` and world-frame rotation `δθ`). See the module docs for the formulas.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WorldEval<S: Space> {
    /// `f_w(p)`.
    pub value: f64,
    /// `∇f_w(p) = R ∇f_b(ξ)`.
    pub gradient: S::Vector,
    /// `∇²f_w(p) = R ∇²f_b(ξ) Rᵀ`.
    pub hessian: S::Matrix,
    /// `∂f_w/∂c = −∇f_w`.
    pub d_value_d_translation: S::Vector,
    /// `∂f_w/∂δθ = −(p − c) × ∇f_w`.
    pub d_value_d_rotation: S::Angular,
    /// `∂(∇f_w)/∂c = −∇²f_w` (`D × D`, column `j` is the derivative along `c_j`).
    pub d_gradient_d_translation: S::Matrix,
    /// `∂(∇f_w)/∂δθ = M_{∇f_w} − ∇²f_w M_{p−c}` (`D × A`).
    pub d_gradient_d_rotation: S::AngularJacobian,
}

/// Carries a child-frame evaluation into its parent frame under `pose` (the child frame's pose
/// in the parent): value unchanged, `g ↦ R g`, `H ↦ R H Rᵀ`. The caller evaluates the child at
/// `pose.inverse_transform_point(p)`.
pub fn to_parent<S: Space>(pose: &Pose<S>, child: &Eval<S>) -> Eval<S> {
    let r = pose.rotation_matrix();
    Eval {
        value: child.value,
        gradient: r * child.gradient,
        hessian: r * child.hessian * S::transpose(&r),
    }
}

/// `f_w(p)` for the body-frame function `f` on a body at `pose`.
pub fn world_value<S: Space, F: ImplicitFn<S> + ?Sized>(
    f: &F,
    pose: &Pose<S>,
    p: &S::Vector,
) -> f64 {
    f.value(&pose.inverse_transform_point(p))
}

/// Value, gradient and Hessian of the body-frame function `f` at the world point `p`, for a body
/// at `pose` (no pose derivatives).
pub fn world_eval<S: Space, F: ImplicitFn<S> + ?Sized>(
    f: &F,
    pose: &Pose<S>,
    p: &S::Vector,
) -> Eval<S> {
    to_parent(pose, &f.eval(&pose.inverse_transform_point(p)))
}

/// Everything at the world point `p`, pose derivatives included, for the body-frame function
/// `f` on a body at `pose`.
pub fn world_eval_with_pose_derivatives<S: Space, F: ImplicitFn<S> + ?Sized>(
    f: &F,
    pose: &Pose<S>,
    p: &S::Vector,
) -> WorldEval<S> {
    let e = world_eval(f, pose, p);
    let r = *p - pose.position;
    let (g, h) = (e.gradient, e.hessian);
    WorldEval {
        value: e.value,
        gradient: g,
        hessian: h,
        d_value_d_translation: -g,
        d_value_d_rotation: -S::cross(&r, &g),
        d_gradient_d_translation: -h,
        d_gradient_d_rotation: S::cross_jacobian(&g)
            - S::matrix_mul_angular_jacobian(&h, &S::cross_jacobian(&r)),
    }
}

/// [`world_eval_with_pose_derivatives`] with `JAC`; without, only its value and gradient (the
/// same bits), the rest zero: what a function evaluation of the step needs.
#[inline]
pub fn world_eval_for<S: Space, F: ImplicitFn<S> + ?Sized, const JAC: bool>(
    f: &F,
    pose: &Pose<S>,
    p: &S::Vector,
) -> WorldEval<S> {
    if JAC {
        return world_eval_with_pose_derivatives(f, pose, p);
    }
    let e = f.eval(&pose.inverse_transform_point(p));
    WorldEval {
        value: e.value,
        gradient: pose.rotation_matrix() * e.gradient,
        hessian: S::zero_matrix(),
        d_value_d_translation: S::zero_vector(),
        d_value_d_rotation: S::angular_from_fn(|_| 0.0),
        d_gradient_d_translation: S::zero_matrix(),
        d_gradient_d_rotation: S::angular_jacobian_from_fn(|_, _| 0.0),
    }
}

/// The distance from `p`, inside the set `{f ≤ 0}`, to its surface along `n = ∇f(p)/‖∇f(p)‖`:
/// the root of `φ(t) = f(p + t n)` by Newton's method from `t = 0`. `φ` is convex with `φ(0) <
/// 0` and `φ'(0) = ‖∇f(p)‖ > 0`; each tangent lies below `φ`, so the first step lands at or
/// beyond the root and the iterates then decrease monotonically to it. The loop stops when a
/// step no longer decreases `t` (rounding) or the slope is not positive.
pub fn depth_below_surface<S: Space, F: ImplicitFn<S> + ?Sized>(
    f: &F,
    pose: &Pose<S>,
    p: &S::Vector,
) -> f64 {
    let e = world_eval(f, pose, p);
    let g = S::norm(&e.gradient);
    if !(g > 0.0 && g.is_finite() && e.value < 0.0) {
        return (-e.value).max(0.0);
    }
    let n = e.gradient * (1.0 / g);
    let mut t = -e.value / g;
    for _ in 0..60 {
        let e = world_eval(f, pose, &(*p + n * t));
        let slope = S::dot(&e.gradient, &n);
        // Also stops on NaN.
        if slope.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            break;
        }
        let next = t - e.value / slope;
        // Also stops on NaN.
        if next.partial_cmp(&t) != Some(std::cmp::Ordering::Less) {
            break;
        }
        t = next;
    }
    t
}
