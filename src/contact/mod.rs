//! One contact's rows of the per-step MCP: the closest-point conditions, non-penetration and
//! the friction law of Chakraborty, Berard, Akella & Trinkle (§4.1–4.3, eq. 15–22 and 28–32),
//! with their wrench on the two bodies and the exact Jacobian.
//!
//! # The block
//!
//! Object `F` is ONE convex function `f` of a part of body 1 (the paper's `f_{k₁}`, whose
//! constraint is always active, §7); object `G` is a part of body 2, the intersection of `m`
//! functions `g_j`. Both are evaluated at the bodies' *end-of-step* poses, which depend on the
//! velocities `ν_b = (v_b, ω_b)` (`ω` in the world frame): see [`BodyStep`].
//!
//! **Local variables** (order of [`ContactLayout`]): `a₁ ∈ ℝᴰ, a₂ ∈ ℝᴰ, l₁, l₂ ∈ ℝᵐ, p_n`, the
//! friction impulses (`p_t` in 2D; `p_t, p_o, p_r` in 3D, `p_r` the torsional impulse) and `σ`.
//! `l₁, l₂, p_n, σ ≥ 0`; the others are free ([`ContactBlock::bounds`]).
//!
//! **Rows**, one per local variable, in the same order (`n = ∇f(a₁)/‖∇f(a₁)‖`):
//!
//! ```text
//! R1 (a₁, D rows)   a₁ − a₂ + l₁ ∇f(a₁)                  = 0      eq. 15 / 28
//! R2 (a₂, D rows)   ∇f(a₁) + Σⱼ l₂ⱼ ∇gⱼ(a₂)              = 0      eq. 16 / 29
//! C1 (l₁)           −f(a₁)                               ≥ 0 ⊥ l₁ ≥ 0       eq. 17 / 30
//! C2 (l₂ⱼ)          −gⱼ(a₂)                              ≥ 0 ⊥ l₂ⱼ ≥ 0      eq. 18 / 31
//! C3 (p_n)          f(a₂)                                ≥ 0 ⊥ p_n ≥ 0      eq. 19 / 32
//! FR (p_k, free)    e_k² μ p_n s_k + p_k σ               = 0,  k = t (, o, r)   eq. 21
//! CS (σ)            μ² p_n² − Σ_k p_k²/e_k²              ≥ 0 ⊥ σ ≥ 0        eq. 22
//! ```
//!
//! with the slip components `s_t = t·v_rel`, `s_o = o·v_rel`, `s_r = n·(ω₂ − ω₁)` and
//! `v_rel = u₂(a₂) − u₁(a₁)`, `u_b(p) = v_b + ω_b × (p − c_b)`, `c_b` the end-of-step position of
//! body `b`'s origin (its centre of mass). Notes on the printed equations: eq. 21 prints the
//! `r` row twice and no `t` row (the three rows are `t, o, r`, as eq. 44 confirms for 2D);
//! eq. 26 prints `0 < l̂ᵢ ⊥ −fᵢ > 0` where the KKT conditions need `≤`/`≥`; eq. 45 writes
//! `f₁(a₁) ≥ 0` where eq. 17 (a₁ inside `F`) needs `−f₁(a₁) ≥ 0`. For one function `f` the
//! `max` in eq. 32 is `f` itself. Eq. 21 with `E², U` diagonal is the row above; eq. 22's `ζ` is
//! CS. With `σ > 0` (sliding) FR gives `p_k = −e_k² μ p_n s_k / σ`, and CS makes the impulse lie on
//! the friction ellipsoid, so `σ` is the slip speed scaled by `μ p_n`'s ellipsoid (maximum
//! dissipation); with `σ = 0` FR forces `s_k = 0` (rolling) whenever `p_n > 0`.
//!
//! **Wrench** (the impulse columns `W p` of eq. 21's first row): `P = p_n n + p_t t (+ p_o o)`
//! acts on body 2 at `a₂` and `−P` on body 1 at `a₁`; the moments are `(a₂ − c₂) × P (+ p_r n)` on
//! body 2 and `−(a₁ − c₁) × P (− p_r n)` on body 1. [`ContactEval`] holds the wrench rows of both
//! bodies, force (`D` entries) then moment (`A` entries, a 1-vector in 2D).
//!
//! **Tangent basis**, a smooth function of `n` (Newton differentiates through it): 2D
//! `t = (−n_y, n_x)`; 3D `t = (e − (e·n) n)/‖e − (e·n) n‖`, `o = n × t` with a reference
//! direction `e` fixed for the step ([`ContactBlock::set_tangent_reference`], e.g.
//! [`tangent_reference_for`] of the start-of-step normal). With isotropic friction
//! (`e_t = e_o`) the law does not depend on `e`.
//!
//! # Derivatives
//!
//! Every quantity is differentiated as a row (or rows) over all columns
//! `(local variables, ν₁, ν₂)` at once.
//!
//! * Pose: a function `φ` of body `b` evaluated at a world point `p` changes by
//!   `∇φ·δp + ∂φ/∂c · h δv + ∂φ/∂θ · D_ω δω`, where `∂φ/∂c, ∂φ/∂θ` (and the same for `∇φ`) are
//!   [`WorldEval`](crate::geometry::WorldEval)'s pose derivatives and `D_ω`
//!   ([`BodyStep::drot_domega`]) maps `δω` to the world-frame rotation increment of the end pose
//!   (`h` in 2D, `h J_l(hω)` in 3D, `J_l` the left Jacobian of `SO(3)`).
//! * Normal: `δn = (I − n nᵀ)/‖∇f‖ · δ∇f(a₁)`, with `δ∇f(a₁) = ∇²f δa₁ + (pose terms of body 1)`.
//! * Tangents: 2D `δt = J δn`, `J` the rotation by `π/2`. 3D with `u = e − (e·n) n`:
//!   `δu = −(n eᵀ + (e·n) I) δn`, `δt = (I − t tᵀ)/‖u‖ δu`, `δo = −[t]× δn + [n]× δt`.
//! * Lever arms `r_b = a_b − c_b`: `δr_b = δa_b − h δv_b` (`c_b = c_b⁰ + h v_b`; rotation leaves
//!   the origin in place).
//! * Point velocities: `δu_b = δv_b + ω_b × δr_b + δω_b × r_b`.
//! * Moments: `δ(r × P) = δr × P + r × δP`, with `δP = n δp_n + Σ t_k δp_k + p_n δn + Σ p_k δt_k`.
//!
//! A fixed body has zero velocity and a constant pose; its `ν` columns are written as zeros.
//! All of this is checked against central finite differences that re-form the end pose exactly
//! as [`BodyStep::advance`] does.

mod block;
mod body_step;
pub mod quasi_rigid;

#[cfg(test)]
mod quasi_rigid_tests;
#[cfg(test)]
mod tests;

pub use block::{
    ContactBlock, ContactError, ContactEval, ContactLayout, QuasiLayout, tangent_reference_for,
};
pub use body_step::BodyStep;
pub use quasi_rigid::{CompliantSide, QuasiRigid, QuasiRigidState};
