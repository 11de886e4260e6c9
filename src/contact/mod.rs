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
//! Frictionless contacts (`μ = 0`) write FR as `p_k = 0`, the law's only solution, because
//! `p_k σ = 0` is singular at `p_k = σ = 0`.
//! In the signed-gap form ([`ClosestPoints::SignedGap`], the stepper's default; a block starts
//! in the paper's) `l₁` is free, C1 is the equation `−f(a₁) = 0` and C3 is `l₁ ‖∇f(a₁)‖²`: the
//! same solutions, without the degenerate pair `l₁ = 0 = f(a₁)` of every touching contact.
//! Under the second-order integrator the slip uses the trapezoidal lever
//! `½ ((a_b − c_b) + r_b^ℓ)`, `r_b^ℓ` the lever of the contact point at the start of the step
//! ([`ContactBlock::set_start_levers`]), so that `h s_k = 0` is the step's rolling displacement
//! to second order when the contact point travels over the body (derivatives: the lever's
//! columns on `a_b` and `v_b` are halved).
//!
//! **Wrench** (the impulse columns `W p` of eq. 21's first row): `P = p_n n + p_t t (+ p_o o)`
//! acts on body 2 at `a₂` and `−P` on body 1 at `a₁`; the moments are `(a₂ − c₂) × P (+ p_r n)` on
//! body 2 and `−(a₁ − c₁) × P (− p_r n)` on body 1. [`ContactEval`] holds the wrench rows of both
//! bodies, force (`D` entries) then moment (`A` entries, a 1-vector in 2D).
//!
//! **Tangent basis**, a smooth function of `n` (Newton differentiates through it): 2D
//! `t = (−n_y, n_x)`; 3D `t = (e − (e·n) n)/‖e − (e·n) n‖`, `o = n × t` with a reference
//! direction `e` fixed for the step ([`ContactBlock::set_tangent_reference`], e.g.
//! [`tangent_reference_for`] of the normal; the implicit stepper keeps a contact's `e` from
//! step to step while `|e·n| ≤ 0.9`). With isotropic friction (`e_t = e_o`) the law does not
//! depend on `e`; the variables `p_t`, `p_o` do.
//!
//! # Two intersections
//!
//! When `F` is an intersection too (`F = {fᵢ ≤ 0}`, `m_F ≥ 2` functions: a box on a box, a
//! polygon against a polygon), the paper's rows need the index of `F`'s active function, which
//! is not known before the step (§7). [`ContactBlock::between`] then writes, with a free scale
//! `t`, multipliers `l_F ≥ 0` and a free *normal source* `ĝ ∈ ℝᴰ`:
//!
//! ```text
//! R1 (a₁)        a₁ − a₂ + t ĝ                        = 0
//! R2 (a₂)        ĝ + Σⱼ l₂ⱼ ∇gⱼ(a₂)                  = 0
//! RG (ĝ)         ĝ − Σᵢ lᵢ ∇fᵢ(a₁)                   = 0
//! C0 (t, free)   Σᵢ lᵢ − 1                            = 0
//! CF (lᵢ)        −fᵢ(a₁)                              ≥ 0 ⊥ lᵢ ≥ 0
//! C2 (l₂ⱼ)       −gⱼ(a₂)                              ≥ 0 ⊥ l₂ⱼ ≥ 0
//! C3 (p_n)       t                                    ≥ 0 ⊥ p_n ≥ 0
//! ```
//!
//! and FR, CS and the wrench as above with `n = ĝ/‖ĝ‖`. Why it is right: `a₁ ∈ F`, `a₂ ∈ G`,
//! `ĝ` lies in `F`'s normal cone at `a₁` and `−ĝ` in `G`'s at `a₂` (CF, C2, RG, R2), and
//! `ĝ ≠ 0` (a convex combination of active gradients of a set with an interior point). So
//! `F ⊂ {x : ĝ·(x − a₁) ≤ 0}` and `G ⊂ {x : ĝ·(x − a₂) ≥ 0}`, and with `t ≥ 0` R1 makes
//! `ĝ·(a₂ − a₁) = t ‖ĝ‖² ≥ 0`: the slab between the two planes, of width
//! `‖a₂ − a₁‖ = t ‖ĝ‖`, separates the bodies, and since `a₁, a₂` realise that width it is
//! the distance (`t = 0`: touching, the common normal in both cones). Overlapping bodies have
//! no such slab, so no solution with `t ≥ 0`: C3 is the non-penetration condition, and it is
//! not optional — without it two squares side by side solve the other rows exactly at
//! `t < 0` with the far faces' points. With one function in `F`, C0 forces `l₁ = 1` and
//! `ĝ = ∇f(a₁)`: the paper's block with `t` in the place of `l₁` (the stepper keeps the
//! paper's block there, so single-function contacts are unchanged). `ĝ` is an unknown, not
//! `Σ lᵢ ∇fᵢ` substituted, so that the normal depends on `D` columns whatever `m_F` is, and the
//! block's derivatives keep one compact column set (`[a₁, ν₁, a₂, ν₂, ĝ]`). The layout
//! ([`ContactLayout::two_sided`]) puts `t` in `l₁`'s slot and `ĝ`, `l_F` between `l₂` and
//! `p_n`.
//!
//! **Face and edge contact.** Flat on flat, the rows leave `a₁ = a₂` free along the shared
//! face (or edge): the local block is singular there, and the step's moment balance — the
//! Newton–Euler rows, where the point is the lever of `P` — fixes it. The solution is one
//! *equivalent contact point* per pair of convex parts, where the resultant of the pressure
//! over the face acts (Xie and Chakraborty's line and surface contact, in the same solve): under
//! the centre of mass at rest, moved by `F b/(m g)` by a push `F` at height `b`, leading the
//! centre by `μ b` while sliding, at the edge when the body tips. Torsion about `n` at that
//! point is the friction ellipsoid's third axis `e_r` (a moment limit `μ e_r p_n`, not the
//! integral of the face's pressure). Compliant layers are refused on such contacts (the
//! deflection relation needs a single active function of the compliant side).
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
//!
//! # Quasi-rigid contacts (paper §5)
//!
//! A body may carry a compliant layer over a rigid core ([`crate::model::CompliantLayer`]:
//! stiffness `K`, damping `C`, `D × D` in the contact frame `(n, t[, o])`, diagonal or full, and
//! the maximum normal deflection `δ_max`). A contact with such a body is a
//! [`QuasiRigidContact`], a law of its own around the rigid block above (its kernel; the stepper
//! holds either as a [`Contact`]). It adds, after `σ` (layout [`QuasiLayout`]),
//!
//! ```text
//! δ̄_n (free)       deflection relation (eq. 35)                                     = 0
//! δ (D, free)       spring–damper law (eq. 37/49): p_k − (h K δ + C (δ − δ^ℓ))_k     = 0,
//!                   p_0 = p_ns (the rigid slot p_n), p_k = the tangential impulses
//! p_nr ≥ 0          δ_max − δ_n ≥ 0 ⊥ p_nr (eq. 36, core)
//! ```
//!
//! and the rigid rows change as follows (c = the compliant side, `F` or `G`).
//!
//! * **Shifted layer.** The layer's outer surface is the sublevel set `{φ_c + δ̄_n = 0}` of the
//!   compliant side's functions (eq. 34): C1 becomes `−(f(a₁) + δ̄_n)` when `F` is compliant,
//!   C2 `−(g_j(a₂) + δ̄_n)` for every `j` when `G` is (one `δ̄_n` for all functions of an
//!   intersection: the layer is shifted as a whole; eq. 39–40 index a `δ̄_jn` per function,
//!   which leaves the deflection undefined off the active face). R1 and R2 are unchanged
//!   (`∇(φ + δ̄) = ∇φ`), so `a₁, a₂` are the closest points of the rigid side and of the
//!   *shifted* compliant side: the rigid formulation applied to a shifted body.
//! * **Non-penetration of the layer** (eq. 36, the partner of `p_ns`): `ψ + δ̄_n ≥ 0 ⊥ p_ns`.
//!   The offset belongs to the compliant function only: with `F` compliant the row is
//!   `f(a₂) + δ̄_n` (`a₂` not inside the shifted `F`); with `G` compliant it stays `f(a₂)`
//!   (equivalently `max_j g_j(a₁) + δ̄_n`, eq. 39's second form). The printed `ψ + δ̄_n` with
//!   `ψ = f(a₂)` and a compliant `G` would add an algebraic distance of `g` to a value of `f`.
//!   Example 3's eq. 54 (`a₁y + δ_n ≥ 0`, `g = y`) is the second form.
//! * **Deflection relation (eq. 35).** The compliant function vanishes where the outward
//!   normal through the layer point meets the undeformed surface: `g_k(a₂ − δ_n n) = 0` (`G`
//!   compliant; its outward normal at the contact is `−n`, `n = ∇f(a₁)/‖∇f(a₁)‖`, equal to the
//!   paper's `∇g/‖∇g‖` at a solution and smooth where `g` is an intersection), or
//!   `f(a₁ + δ_n n) = 0` (`F` compliant). For an intersection `g_k` is the function that
//!   carries most of the normal at the start of the step, the largest share `lⱼ ∇gⱼ·(−n)` of
//!   the KKT sum (the paper's "normal well defined" assumption, §5.2): on a face, the face's
//!   function. The most active function would not do: at a corner every adjacent face is
//!   active, and a side face's function does not change along the normal. For a half-plane
//!   `δ_n = δ̄_n` exactly (Example 3). Apart (`δ_n < 0`, which only the midpoint integrators'
//!   signed approach reaches, below) the relation is linearised in `δ_n` at the layer point
//!   itself: `φ_c(a) ∓ δ_n ∇φ_c(a)·n = 0`, the relation's own value and first derivatives at
//!   `δ_n = 0` (so the row is C¹ across touching), exact for a flat layer, and `δ_n` is then
//!   `δ̄_n/‖∇φ_c‖` to first order, the distance between the level sets. The exact relation
//!   would ask too much there: far from its partner (a half-space ground pairs with every
//!   part) a curved part is shifted into a much larger level set, homothetic rather than
//!   parallel for an ellipsoid, whose point on the partner can lie where the line along `n`
//!   misses the undeformed part; the layered dumbbell of the scenario docs stopped at step 12
//!   under `midpoint` and `rattle` for that reason. The energy identity of the discrete
//!   gradient needs only that `δ_n` measures the approach consistently from step to step,
//!   which the C¹ row keeps.
//! * **Normal impulse.** `p_n = p_ns + p_nr`: the friction rows FR and CS use `p_n`; the
//!   wrench uses `w p_ns + p_nr` (`w = 1` for Euler, `½` for midpoint, below).
//! * **Tangential compliance and friction.** The paper's eq. 37 gives `p_t` both a spring law
//!   and the friction law but no kinematics for `δ_t`, which then only echoes the friction
//!   impulse. Here the tangential spring is in series with the friction slider: the relative
//!   tangential displacement of the contact over the step is the deflection change plus the
//!   slip, so the slip in FR is `s_k + (δ_k − δ_k^ℓ)/h` (`s_k = t_k·v_rel`; `δ` grows when the
//!   bodies press together, hence the `+`). Sticking (`σ = 0`, `p_n > 0`): the deflection
//!   follows the relative motion and the spring carries the load; sliding: `p_t` is on the
//!   friction ellipse, and the spring is saturated there. Apart (`p_n = 0`) the friction law
//!   forces `p_t = 0`, so the tangential spring relaxes (`δ_t = C δ_t^ℓ/(hK + C)`). Torsion
//!   (3D) stays rigid friction (the paper: no torsional deflection).
//! * **Derivatives.** The deflection row differentiates `φ_c` at the moved point
//!   `p = a ∓ δ_n n`: `∇φ_c(p)·(δa ∓ n δδ_n ∓ δ_n δn)` plus the compliant body's pose terms
//!   (`δn` as above, on body 1's columns; apart, `p = a` and `∓ δ_n n·δ∇φ_c(a)` adds the
//!   Hessian and the pose terms of the gradient); the rigid block's `p_n` column splits into `p_ns`
//!   (times `w` in the wrench rows) and `p_nr`; the rest is linear. All of it is checked against
//!   central differences (both sides compliant, single functions and intersections, 2D and 3D,
//!   full `K`, `C`, both integrators).
//! * **State.** `δ^ℓ` is carried from step to step by [`QuasiRigidContact::commit`]; in 3D its
//!   tangential part is kept as a world vector and re-expressed in the basis of each step's
//!   tangent reference. Output: [`QuasiRigidState`].
//!
//! * **Two intersections** (both sides intersections, the block above): the shifted layer is
//!   the same shift of the compliant side as a whole. `G` compliant: C2 as above; `F`
//!   compliant: F's rows CF become `−(fᵢ(a₁) + δ̄_n) ⊥ lᵢ`. Non-penetration of the layer stays
//!   `t ≥ 0 ⊥ p_ns`: `t` is the scale between the shifted sets, so it needs no offset. The
//!   normal is `n = ĝ/‖ĝ‖` (the normal source, equal to `Σ lᵢ∇fᵢ(a₁)` at a solution) and `δn`
//!   lies on `ĝ`'s columns only. The deflection relation takes the compliant side's function that
//!   carries most of the normal (`F`: the largest `lᵢ ∇fᵢ·n`), as for a compliant `G` above; on
//!   a face this is the face's function, so a flat layer on a box deflects as on a half-plane (tested:
//!   `tests/box_contact.rs`, rest at `δ_n = m g / k` with the layer on either side, and the
//!   midpoint integrator's energy on a bouncing cube).
//!
//! Two compliant bodies in one contact are refused by the stepper (the paper treats one
//! compliant side, §5.1).
//!
//! # Integrators and energy
//!
//! **Euler** ([`crate::model::Integrator::Euler`], the paper's, default): `M(ν⁺ − ν) = W p +
//! h λ`, `q⁺ = q + h ν⁺`, spring impulse `h K δ⁺` (eq. 49). In free fall `v⁺ = v − g h`,
//! `y⁺ = y + h v⁺` gives `ΔE = ½ m (v⁺² − v²) + m g h v⁺ = −½ m g² h²` per step exactly
//! (4.9e-7 J at `h = 1e-4`, 7.2e-3 J over Example 3's 1.5 s of free fall alone); the
//! end-of-step spring is backward Euler on the oscillator and damps it. Measured over 1.5 s
//! apart from the core impact: 0.045 J (δ_max = 0.05) and 0.11 J (δ_max = 1): the paper's
//! "1e-5 J" does not hold for the scheme as written.
//!
//! **Midpoint** ([`crate::model::Integrator::Midpoint`]): smooth impulses (applied forces,
//! the layers' normal springs) act at their midpoint in the position update, impulsive ones
//! (rigid contacts, the core, friction, torsion) at full weight, so the core impact stays
//! inelastic. With `ν` the unknown that moves the bodies, `q⁺ = q + h ν` (contact geometry
//! still at the end of the step, in the one MCP) and
//!
//! ```text
//! M ν  = M v + ½ (h λ_app + W_n p_ns) + (W_n p_nr + W_f p_f) + h λ_vp      (momentum row)
//! v⁺   = ν + ½ M⁻¹ (h λ_app + W_n p_ns)                                    (after the solve)
//! ```
//!
//! i.e. `v⁺ = v + M⁻¹ (all impulses)` and, without impulsive contacts, `ν = (v + v⁺)/2`. A
//! free fall then gives `ΔE = m (v⁺ − v)·ν + m g h ν = 0`. The normal spring impulse is the
//! discrete gradient of `V(δ) = ½ k max(δ, 0)²`,
//! `p_ns = h (V(δ⁺) − V(δ))/(δ⁺ − δ) + C_nn (max(δ⁺, 0) − max(δ, 0))`: the bodies approach by
//! `δ⁺ − δ` over the step, so the spring's work on them is exactly `−(V(δ⁺) − V(δ))` (plus the
//! damper's, `≤ 0`) whatever the contact does inside the step —
//! including landing and lift-off within a step, where a trapezoidal `h k (δ + δ⁺)/2` would
//! gain or lose `½ k δ⁺ g^ℓ` and, on lift-off, leave a spurious deflection that alternates in
//! sign. This needs `δ_n` to be the signed approach (negative while apart), so under midpoint
//! the layer's partner row `ψ + δ̄_n` is an equation and `p_ns` a free variable: the shifted
//! layer always touches the rigid side, and `p_ns = 0` follows from `V = 0` for `δ ≤ 0`.
//! Exact for `δ` linear in the positions (a flat layer, Example 3); the tangential spring
//! keeps the Euler law (its release is algebraic, `p_t = 0 ⇒ δ_t = 0`, which the trapezoidal
//! rule does not reproduce), and the midpoint integrator refuses normal–tangential coupling
//! in `K`, `C`. Measured on Example 3 over 1.5 s apart from the core impact steps: 5e-12 J
//! (δ_max = 0.05) and 8e-10 J (δ_max = 1). Limitation: a body resting on a *rigid* contact
//! reports `v⁺ = −½ h M⁻¹ λ_app` (the contact impulse counts as impulsive); the second-order
//! integrator of issue 8 can grow from this key by classifying persistent contact impulses as
//! smooth.

/// [`crate::block::ConstraintBlock`] for a contact type with inherent `local_count`, `bounds`,
/// `new_eval` and `evaluate` (the rigid kernel, the quasi-rigid law, the contact as either):
/// its rows are written at the end-of-step poses its bodies' steps carry (`h` is in them).
macro_rules! contact_constraint_block {
    ($block:ident) => {
        impl<S: crate::model::Dynamics> crate::block::ConstraintBlock<S> for $block<S> {
            type Eval = ContactEval;
            fn local_count(&self) -> usize {
                $block::local_count(self)
            }
            fn bounds(&self, _h: f64) -> (Vec<f64>, Vec<f64>) {
                $block::bounds(self)
            }
            fn new_eval(&self) -> ContactEval {
                $block::new_eval(self)
            }
            fn evaluate(
                &self,
                x: &[f64],
                s1: &BodyStep<S>,
                s2: &BodyStep<S>,
                _h: f64,
                eval: &mut ContactEval,
            ) {
                $block::evaluate(self, x, s1, s2, eval)
            }
        }
    };
}
use contact_constraint_block;

mod block;
mod body_step;
mod law;
pub mod quasi_rigid;

#[cfg(test)]
mod quasi_rigid_tests;
#[cfg(test)]
mod tests;

pub(crate) use block::tangent_directions;
pub use block::{
    ClosestPoints, ContactBlock, ContactError, ContactEval, ContactLayout, Proximal,
    tangent_reference_for,
};
pub use body_step::BodyStep;
pub use law::Contact;
pub use quasi_rigid::{CompliantSide, QuasiLayout, QuasiRigidContact, QuasiRigidState};
