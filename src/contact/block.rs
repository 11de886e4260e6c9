//! [`ContactBlock`]: residual rows, wrench and exact Jacobian of one contact (see the module
//! docs of [`crate::contact`] for the equations and the derivation).

use super::body_step::BodyStep;
use crate::block::{BlockJacobian, JacobianShape};
use crate::geometry::{
    ConvexPart, Placed, Pose, ProximityError, ProximitySettings, Space, WorldEval, proximity,
    world_eval, world_eval_for,
};
use crate::model::{Friction, ModelError};

/// Bad input to a [`ContactBlock`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ContactError {
    /// A friction parameter is out of range.
    #[error(transparent)]
    InvalidFriction(#[from] ModelError),
    /// The tangent reference direction is zero or not finite.
    #[error("tangent reference direction {0} is zero or not finite")]
    InvalidTangentReference(String),
    /// A compliant layer does not fit the contact or the integrator.
    #[error("compliant layer: {0}")]
    InvalidLayer(String),
}

/// Index layout of one contact block. Rows and columns share it: the block's matrix is square,
/// `total × total`, with
///
/// ```text
/// index:  a1 | a2 | l1 | l2 (m) | p_n | friction (p_t [, p_o, p_r]) | σ | ν₁ (DOF) | ν₂ (DOF)
/// rows:   R1 | R2 | C1 | C2     | C3  | FR                          | CS| wrench₁  | wrench₂
/// ```
///
/// When `F` is an intersection too ([`f_count`](Self::f_count) `> 0`, see [`crate::contact`],
/// "Two intersections"), `l1` holds the free scale `t` (row: `Σ lᵢ = 1`) and two groups come
/// between `l2` and `p_n`: the normal source `ĝ` (`D` entries, rows RG) and `F`'s multipliers
/// `l_F` (`f_count` entries, rows CF).
///
/// A body's `ν` block is `(v, ω)` (`D` then `A` entries); its wrench block is
/// `(force, moment)` in the same sizes. The first [`local_count`](Self::local_count) entries are
/// the block's own unknowns and rows. A law around the kernel (the quasi-rigid contact,
/// [`crate::contact::quasi_rigid`]) appends [`extension`](Self::extension) unknowns and rows
/// of its own after `σ`; the kernel leaves them to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContactLayout {
    /// `D`, 2 or 3.
    pub dim: usize,
    /// `A`, 1 or 3.
    pub angular_dim: usize,
    /// `D + A`.
    pub dof: usize,
    /// Number `m` of functions of `G`.
    pub g_count: usize,
    /// Offset of `a₁` (`D` entries).
    pub a1: usize,
    /// Offset of `a₂` (`D` entries).
    pub a2: usize,
    /// Offset of `l₁`.
    pub l1: usize,
    /// Offset of `l₂` (`m` entries).
    pub l2: usize,
    /// Number of functions of `F` when `F` is an intersection (0: `F` is one function `f`).
    pub f_count: usize,
    /// Offset of the normal source `ĝ` (`D` entries; none when `f_count == 0`).
    pub normal_source: usize,
    /// Offset of `F`'s multipliers `l_F` (`f_count` entries).
    pub lf: usize,
    /// Offset of `p_n`.
    pub normal: usize,
    /// Offset of the friction impulses: `p_t` (2D) or `p_t, p_o, p_r` (3D).
    pub friction: usize,
    /// Number of friction impulses: 1 (2D) or 3 (3D).
    pub friction_count: usize,
    /// Offset of `σ`.
    pub sigma: usize,
    /// Number of local variables (and residual rows).
    pub local_count: usize,
    /// Offset of `ν₁` columns and body 1's wrench rows.
    pub nu1: usize,
    /// Offset of `ν₂` columns and body 2's wrench rows.
    pub nu2: usize,
    /// `local_count + 2 DOF`.
    pub total: usize,
    /// Number of unknowns (and rows) after `σ` that belong to a law around the kernel (0: a
    /// rigid contact).
    pub extension: usize,
}

impl ContactLayout {
    /// The layout for space `S` and `m` functions of `G`.
    pub fn new<S: Space>(m: usize) -> Self {
        Self::two_sided::<S>(0, m)
    }

    /// The layout for space `S`, `F` an intersection of `f_count` functions (0: one function,
    /// [`new`](Self::new)'s layout) and `m` functions of `G`.
    pub fn two_sided<S: Space>(f_count: usize, m: usize) -> Self {
        let d = S::DIM;
        let friction_count = if d == 2 { 1 } else { 3 };
        let a1 = 0;
        let a2 = d;
        let l1 = 2 * d;
        let l2 = l1 + 1;
        let normal_source = l2 + m;
        let lf = normal_source + if f_count > 0 { d } else { 0 };
        let normal = lf + f_count;
        let friction = normal + 1;
        let sigma = friction + friction_count;
        let local_count = sigma + 1;
        Self {
            dim: d,
            angular_dim: S::ANGULAR_DIM,
            dof: S::DOF,
            g_count: m,
            a1,
            a2,
            l1,
            l2,
            f_count,
            normal_source,
            lf,
            normal,
            friction,
            friction_count,
            sigma,
            local_count,
            nu1: local_count,
            nu2: local_count + S::DOF,
            total: local_count + 2 * S::DOF,
            extension: 0,
        }
    }

    /// The name of local row `i` (`i < local_count`) in the equations of [`crate::contact`],
    /// for a reader of a failure: `C3 (non-penetration)`; a law's own rows after `σ` are `law`.
    pub fn row_name(&self, i: usize) -> &'static str {
        let d = self.dim;
        let within = |start: usize, len: usize| (start..start + len).contains(&i);
        let two_sided = self.f_count > 0;
        if within(self.a1, d) {
            "R1 (stationarity at a₁)"
        } else if within(self.a2, d) {
            "R2 (stationarity at a₂)"
        } else if i == self.l1 && two_sided {
            "the multipliers of F sum to one"
        } else if i == self.l1 {
            "C1 (a₁ on F)"
        } else if within(self.l2, self.g_count) {
            "C2 (a₂ on G)"
        } else if two_sided && within(self.normal_source, d) {
            "RG (normal source)"
        } else if within(self.lf, self.f_count) {
            "CF (a₁ on F)"
        } else if i == self.normal {
            "C3 (non-penetration)"
        } else if within(self.friction, self.friction_count) {
            "FR (friction)"
        } else if i == self.sigma {
            "CS (friction cone)"
        } else {
            "law (compliant layer)"
        }
    }

    /// This layout with `extension` unknowns of a law around the kernel after `σ` (the bodies'
    /// columns and wrench rows move behind them).
    pub fn extended(&self, extension: usize) -> Self {
        let mut l = *self;
        l.extension = extension;
        l.local_count = self.kernel_count() + extension;
        l.nu1 = l.local_count;
        l.nu2 = l.local_count + l.dof;
        l.total = l.local_count + 2 * l.dof;
        l
    }

    /// Number of the kernel's own unknowns (those up to `σ`).
    pub fn kernel_count(&self) -> usize {
        self.sigma + 1
    }
}

/// Output of [`ContactBlock::evaluate`], kept by the caller and reused between calls.
#[derive(Debug, Clone, PartialEq)]
pub struct ContactEval {
    /// `[residual rows; wrench on body 1; wrench on body 2]`, length `total` (see
    /// [`ContactLayout`]).
    pub values: Vec<f64>,
    /// `∂values/∂(local variables, ν₁, ν₂)`, `total × total`; the multipliers `l₂` and `l_F`
    /// are decoupled (no row of a multiplier depends on a multiplier).
    pub jacobian: BlockJacobian,
    layout: ContactLayout,
    /// The rows C3 and FR before their proximal terms (`[C3, FR₁, …]`), so that a new centre
    /// is written without evaluating the geometry again ([`ContactBlock::refresh_law_rows`]).
    law_base: [f64; 4],
}

impl ContactEval {
    /// A zeroed output for `layout`.
    pub fn new(layout: ContactLayout) -> Self {
        Self {
            values: vec![0.0; layout.total],
            jacobian: BlockJacobian::zeros(JacobianShape::with_decoupled(
                layout.total,
                layout.l2..layout.l2 + layout.g_count,
                layout.lf..layout.lf + layout.f_count,
            )),
            layout,
            law_base: [0.0; 4],
        }
    }
    /// The block's residual rows (R1, R2, C1, C2, C3, FR, CS).
    pub fn residual(&self) -> &[f64] {
        &self.values[..self.layout.local_count]
    }
    /// The wrench on body 1: force (`D`), moment (`A`).
    pub fn wrench1(&self) -> &[f64] {
        &self.values[self.layout.nu1..self.layout.nu2]
    }
    /// The wrench on body 2: force (`D`), moment (`A`).
    pub fn wrench2(&self) -> &[f64] {
        &self.values[self.layout.nu2..self.layout.total]
    }
}

/// One contact between object `F` (one function `f` of a part of body 1) and object `G` (a
/// part of body 2, `m` functions `g_j`). See [`crate::contact`] for the rows.
#[derive(Debug, Clone)]
pub struct ContactBlock<S: Space> {
    f: Placed<S>,
    /// `F` when it is an intersection of several functions (`f` is then its first).
    f_part: Option<ConvexPart<S>>,
    g: ConvexPart<S>,
    friction: Friction,
    tangent_reference: S::Vector,
    layout: ContactLayout,
    /// Second-order integrators: the world-frame lever arms `a_b − c_b` of the contact points
    /// at the start of the step (body 1, body 2). The slip rows then use the trapezoidal lever
    /// `½ (r_start + r_end)`, so that `h (v + ω × r)` is the step's rolling displacement to
    /// second order; `None`: the end-of-step lever (the paper's rows).
    start_levers: Option<[Vec3; 2]>,
    /// The proximal regularisation of the impulses (see [`Proximal`]); zero weights leave the
    /// paper's rows.
    proximal: Proximal,
    /// The positive factor the row CS is written times (1: the paper's row). Any factor has
    /// the same solutions, but the solver's tolerance holds the row's residual: CS itself is
    /// in N·s squared, so friction may pass `tol / (μ p_n + ‖p‖_e)` outside its cone in N·s.
    /// The stepper sets `1 / (μ p̄_n + ‖p̄‖_e)` from a solution that did, for the solve that
    /// follows, whose tolerance on CS is then in N·s near `p̄` (see [`Self::cone_excess`]),
    /// and from the warm start's impulses at the start of each step after the first
    /// (`StepperSettings::cones_from_start`).
    cone_scale: f64,
    /// `c > 0`: CS is written `Q / (μ p_n + √(‖p‖_e² + c²)) + cone_scale · ε_σ (σ − σ̄)`,
    /// `Q = μ² p_n² − ‖p‖_e²`, in N·s at the current impulses rather than at those the scale
    /// was set at (`StepperSettings::cones_normalised`); 0: `cone_scale` times the paper's row.
    /// Setting a cone scale turns it off.
    cone_normalised: f64,
    /// The signed-gap form of the closest-point conditions (one function `f` only): `l₁` free,
    /// C1 the equation `f(a₁) = 0` and C3 `l₁ ‖∇f(a₁)‖²` (see [`ClosestPoints`]); false: the
    /// paper's (15)–(19).
    signed_gap: bool,
}

/// Which form of the closest-point conditions a rigid contact of one function `f` writes.
///
/// The paper's (15)–(19) bound `l₁ ≥ 0` against `−f(a₁) ≥ 0` and take `f(a₂)` as the gap C3.
/// Touching bodies have `l₁ = 0` and `f(a₁) = 0` together, so every resting contact is a
/// degenerate pair there, and the path search pivots it in and out.
///
/// The signed-gap form leaves `l₁` free, writes C1 as the equation `f(a₁) = 0` and C3 as
/// `l₁ ‖∇f(a₁)‖²`, which is `f(a₂)` to first order (`a₂ = a₁ + l₁ ∇f(a₁)`): `l₁ ‖∇f(a₁)‖` is
/// the signed distance along the normal, negative when the bodies overlap. Its solutions are
/// the paper's: C3 ≥ 0 keeps `l₁ ≥ 0`, and with it a point on each boundary, normals opposed
/// along the line between them (the far-side pairs, `l₁ < 0`, are not solutions), and
/// `p_n > 0` only where `l₁ = 0`, that is `a₁ = a₂` and `f(a₂) = 0`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClosestPoints {
    /// The paper's (15)–(19).
    Paper,
    /// `l₁` free, `f(a₁) = 0`, C3 `l₁ ‖∇f(a₁)‖²` (the stepper's and the scenario's default:
    /// the path search does not pivot on touching contacts' `l₁`; a block starts in the
    /// paper's form until [`ContactBlock::set_closest_points`]).
    #[default]
    SignedGap,
}

/// The proximal-point terms that make a statically indeterminate step well posed (see
/// [`crate::stepper`], "Well-posed impulses"): with weights `ε` and a centre `(p̄, σ̄)`, the rows
/// become
///
/// ```text
/// C3  f(a₂) + ε_n (p_n − p̄_n)                         ≥ 0 ⊥ p_n ≥ 0
/// FR  e_k² μ p_n s_k + p_k σ + ε_f (p_k − p̄_k)        = 0
/// CS  μ² p_n² − Σ_k p_k²/e_k² + ε_σ (σ − σ̄)           ≥ 0 ⊥ σ ≥ 0
/// ```
///
/// At `(p, σ) = (p̄, σ̄)` they are the paper's rows exactly, so a fixed point of the outer
/// iteration `(p̄, σ̄) ← (p, σ)` solves the unregularised step. Each regularised problem has
/// one solution with a regular Jacobian: redundant contacts no longer share an impulse in a
/// continuum of ways, and a separated contact's friction rows read `p_k (σ + ε_f) = ε_f p̄_k`
/// instead of the degenerate `p_k σ = 0`, `−Σ p_k² ≥ 0`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Proximal {
    /// `ε_n` (units of `f` per N·s), `ε_f` (a speed), `ε_σ` (CS's units per unit of `σ`).
    pub weights: [f64; 3],
    /// The centre: `p̄_n`, the friction impulses `p̄_k` (up to 3), `σ̄`.
    pub center: [f64; 5],
}

impl Proximal {
    /// True if every weight is zero (the paper's rows).
    pub fn is_off(&self) -> bool {
        self.weights == [0.0; 3]
    }
}

/// A unit reference direction for the 3D tangent basis, well away from `n`: the coordinate
/// axis least aligned with `n` (2D: returned but unused). Choose it from the start-of-step
/// normal and keep it at least for the step.
pub fn tangent_reference_for<S: Space>(n: &S::Vector) -> S::Vector {
    // Axes as little aligned as each other to within `TIE` go to the first, so that rounding
    // does not choose (a contact on the ground, `n ≈ e_z`, takes `e_x` at every step).
    const TIE: f64 = 1e-9;
    let mut best = 0;
    for i in 1..S::DIM {
        if n[i].abs() < n[best].abs() - TIE * S::norm(n) {
            best = i;
        }
    }
    S::unit_vector(best)
}

impl<S: Space> ContactBlock<S> {
    /// The contact between `f` (a function of a part of body 1, in body 1's frame) and the part
    /// `g` of body 2. The tangent reference starts as the first coordinate axis.
    pub fn new(f: Placed<S>, g: ConvexPart<S>, friction: Friction) -> Result<Self, ContactError> {
        friction.validate("contact")?;
        let layout = ContactLayout::new::<S>(g.len());
        Ok(Self {
            f,
            f_part: None,
            g,
            friction,
            tangent_reference: S::unit_vector(0),
            layout,
            start_levers: None,
            proximal: Proximal::default(),
            cone_scale: 1.0,
            cone_normalised: 0.0,
            signed_gap: false,
        })
    }

    /// The contact between the part `f` of body 1 and the part `g` of body 2, both
    /// intersections allowed (see [`crate::contact`], "Two intersections"). A part `f` of one
    /// function gives [`new`](Self::new)'s block.
    pub fn between(
        f: ConvexPart<S>,
        g: ConvexPart<S>,
        friction: Friction,
    ) -> Result<Self, ContactError> {
        let mut block = Self::new(f.functions()[0].clone(), g, friction)?;
        if f.len() > 1 {
            block.layout = ContactLayout::two_sided::<S>(f.len(), block.g.len());
            block.f_part = Some(f);
        }
        Ok(block)
    }

    /// `F` as a part when it is an intersection of several functions (`None`: `F` is the one
    /// function [`function_f`](Self::function_f)).
    pub fn part_f(&self) -> Option<&ConvexPart<S>> {
        self.f_part.as_ref()
    }

    /// The normal source at the local variables `x` with body 1 at `pose1`: `∇f(a₁)`, or the
    /// unknown `ĝ` of two intersections. Its direction is the contact normal, from body 1
    /// towards body 2.
    pub fn normal_source(&self, x: &[f64], pose1: &Pose<S>) -> S::Vector {
        let l = &self.layout;
        if l.f_count > 0 {
            return S::vector_from_fn(|i| x[l.normal_source + i]);
        }
        let a1 = S::vector_from_fn(|i| x[l.a1 + i]);
        world_eval(&self.f, pose1, &a1).gradient
    }

    /// The rate of the row C3 per metre of separation along the normal at `x` (body 1 at
    /// `pose1`): `‖∇f(a₁)‖` for `f(a₂)`, `1/‖ĝ‖` for the scale `t` of two intersections (the
    /// points are `t ‖ĝ‖` apart). 1 where it is not finite or zero.
    pub fn gap_row_slope(&self, x: &[f64], pose1: &Pose<S>) -> f64 {
        let g = S::norm(&self.normal_source(x, pose1));
        let slope = if self.layout.f_count > 0 { 1.0 / g } else { g };
        if slope.is_finite() && slope > 0.0 {
            slope
        } else {
            1.0
        }
    }

    /// The local variables of the contact at the bodies' poses `pose1`, `pose2`: the closest
    /// points and the multipliers from [`proximity()`] (Proposition 3's change of variables, or
    /// its analogue for two intersections), zero impulses; the proximity query's error if it
    /// did not converge.
    pub fn closest_point_guess(
        &self,
        pose1: &Pose<S>,
        pose2: &Pose<S>,
    ) -> Result<Vec<f64>, ProximityError> {
        let l = self.layout;
        let single;
        let f_part = match &self.f_part {
            Some(p) => p,
            None => {
                single = ConvexPart::new("F", vec![self.f.clone()])
                    .expect("a part of one validated function");
                &single
            }
        };
        let g_part = &self.g;
        let prox = proximity(f_part, pose1, g_part, pose2, &ProximitySettings::default())?;
        let mut x = vec![0.0; l.local_count];
        for k in 0..l.dim {
            x[l.a1 + k] = prox.point_a[k];
            x[l.a2 + k] = prox.point_b[k];
        }
        if l.f_count > 0 {
            // Separated (eq. 24–25): Σ l̂ᵢ ∇fᵢ = a₂ − a₁ = −Σ l̂ⱼ ∇gⱼ, so lᵢ = l̂ᵢ/t with
            // t = Σ l̂ᵢ, and lⱼ = l̂ⱼ/t. Touching: the depth problem's μ scaled the same way
            // (t = 0).
            let sum: f64 = prox.multipliers_a.iter().sum();
            if sum > 0.0 && sum.is_finite() {
                x[l.l1] = if prox.depth.is_some() { 0.0 } else { sum };
                let mut source = S::zero_vector();
                for (k, &m) in prox.multipliers_a.iter().enumerate() {
                    x[l.lf + k] = m / sum;
                    source += f_part.world_eval(k, pose1, &prox.point_a).gradient * (m / sum);
                }
                for i in 0..l.dim {
                    x[l.normal_source + i] = source[i];
                }
                for (j, &m) in prox.multipliers_b.iter().enumerate() {
                    x[l.l2 + j] = m / sum;
                }
                return Ok(x);
            }
            // No multiplier of F's functions: F's most active function and G's.
            let k = most_active(f_part, pose1, &prox.point_a);
            x[l.lf + k] = 1.0;
            let ef = f_part.world_eval(k, pose1, &prox.point_a);
            let gf = S::norm(&ef.gradient);
            x[l.l1] = prox.distance / gf.max(1e-300);
            for i in 0..l.dim {
                x[l.normal_source + i] = ef.gradient[i];
            }
            let j = most_active(g_part, pose2, &prox.point_b);
            let eg = g_part.world_eval(j, pose2, &prox.point_b);
            x[l.l2 + j] = gf / S::norm(&eg.gradient).max(1e-300);
            return Ok(x);
        }
        // l₁ ∇f(a₁) = a₂ − a₁ (eq. 15) and ∇f(a₁) + Σ l₂ⱼ ∇gⱼ(a₂) = 0 (eq. 29) on the most
        // active function of G.
        let ef = f_part.world_eval(0, pose1, &prox.point_a);
        let grad_f = S::norm(&ef.gradient);
        x[l.l1] = prox.distance / grad_f.max(1e-300);
        let j = most_active(g_part, pose2, &prox.point_b);
        let eg = g_part.world_eval(j, pose2, &prox.point_b);
        x[l.l2 + j] = grad_f / S::norm(&eg.gradient).max(1e-300);
        Ok(x)
    }

    /// Sets the proximal weights and centre of the impulses (see [`Proximal`]).
    pub fn set_proximal(&mut self, proximal: Proximal) {
        self.proximal = proximal;
    }

    /// The proximal weights and centre.
    pub fn proximal(&self) -> &Proximal {
        &self.proximal
    }

    /// Chooses the form of the closest-point conditions; a contact between two intersections
    /// keeps its own (its scale `t` is free and its gap already).
    pub fn set_closest_points(&mut self, form: ClosestPoints) {
        self.signed_gap = form == ClosestPoints::SignedGap && self.layout.f_count == 0;
    }

    /// The form of the closest-point conditions (see [`ClosestPoints`]).
    pub fn closest_points(&self) -> ClosestPoints {
        if self.signed_gap {
            ClosestPoints::SignedGap
        } else {
            ClosestPoints::Paper
        }
    }

    /// Sets the factor of the row CS (see the field `cone_scale`; 1 is the paper's row).
    pub fn set_cone_scale(&mut self, scale: f64) {
        debug_assert!(scale > 0.0 && scale.is_finite());
        self.cone_scale = scale;
        self.cone_normalised = 0.0;
    }

    /// Writes CS divided by the current load, `μ p_n + √(‖p‖_e² + c²)` (see the field
    /// `cone_normalised`), its proximal term times the cone scale; `c > 0` in N·s.
    pub fn set_cone_normalised(&mut self, c: f64) {
        debug_assert!(c > 0.0 && c.is_finite());
        self.cone_normalised = c;
    }

    /// The factor of the row CS.
    pub fn cone_scale(&self) -> f64 {
        self.cone_scale
    }

    /// `(μ p_n + ‖p‖_e, ‖p‖_e − μ p_n)` of the block's local unknowns `x` (N·s), with
    /// `‖p‖_e = √(Σ_k p_k²/e_k²)`: the cone's load and the friction's excess over it (positive:
    /// outside the cone).
    pub fn cone_excess(&self, x: &[f64]) -> (f64, f64) {
        self.cone_excess_at(x, x[self.layout.normal])
    }

    /// [`cone_excess`](Self::cone_excess) with `pn` as the normal impulse (a law around the
    /// kernel may carry more than `x[normal]`).
    pub fn cone_excess_at(&self, x: &[f64], pn: f64) -> (f64, f64) {
        let l = &self.layout;
        let (mu, axes) = (self.friction.mu, friction_axes(&self.friction));
        let norm = (0..l.friction_count)
            .map(|k| (x[l.friction + k] / axes[k]).powi(2))
            .sum::<f64>()
            .sqrt();
        (mu * pn + norm, norm - mu * pn)
    }

    /// Sets (or with `None` clears) the start-of-step lever arms `a₁ − c₁`, `a₂ − c₂` (world
    /// frame) of the slip rows' trapezoidal lever; see the field's docs.
    pub fn set_start_levers(&mut self, levers: Option<(S::Vector, S::Vector)>) {
        self.start_levers = levers.map(|(r1, r2)| [arr::<S>(&r1), arr::<S>(&r2)]);
    }

    /// Sets the 3D tangent reference direction `e` (ignored in 2D); it must not be parallel to
    /// the normal during the step.
    pub fn set_tangent_reference(&mut self, e: S::Vector) -> Result<(), ContactError> {
        let len = S::norm(&e);
        if !(len.is_finite() && len > 0.0) {
            return Err(ContactError::InvalidTangentReference(format!("{e:?}")));
        }
        self.tangent_reference = e * (1.0 / len);
        Ok(())
    }

    /// The tangent reference direction `e`.
    pub fn tangent_reference(&self) -> S::Vector {
        self.tangent_reference
    }

    /// The index layout.
    pub fn layout(&self) -> ContactLayout {
        self.layout
    }

    /// Appends `extension` unknowns of a law around the kernel to its layout.
    pub(super) fn extend(&mut self, extension: usize) {
        self.layout = self.layout.extended(extension);
    }

    /// Number of local variables (and rows).
    pub fn local_count(&self) -> usize {
        self.layout.local_count
    }

    /// The space's dimension `D`.
    pub fn dim(&self) -> usize {
        self.layout.dim
    }

    /// Where the closest points `a₁, a₂` (`2 D` entries, `a₁` first) sit among the local
    /// variables.
    pub fn points_range(&self) -> std::ops::Range<usize> {
        self.layout.a1..self.layout.a2 + self.layout.dim
    }

    /// The closest point `a₁` in the local variables `x`.
    pub fn a1<'a>(&self, x: &'a [f64]) -> &'a [f64] {
        &x[self.layout.a1..self.layout.a1 + self.layout.dim]
    }

    /// The closest point `a₂` in the local variables `x`.
    pub fn a2<'a>(&self, x: &'a [f64]) -> &'a [f64] {
        &x[self.layout.a2..self.layout.a2 + self.layout.dim]
    }

    /// Where `p_n` sits among the local variables (a quasi-rigid contact's spring impulse).
    pub fn normal_index(&self) -> usize {
        self.layout.normal
    }

    /// `p_n` in `x`.
    pub fn normal_impulse(&self, x: &[f64]) -> f64 {
        x[self.layout.normal]
    }

    /// Where the friction impulses (`p_t`, or `p_t, p_o, p_r`) sit among the local variables.
    pub fn friction_range(&self) -> std::ops::Range<usize> {
        self.layout.friction..self.layout.friction + self.layout.friction_count
    }

    /// The friction impulses in `x`.
    pub fn friction_impulses<'a>(&self, x: &'a [f64]) -> &'a [f64] {
        &x[self.friction_range()]
    }

    /// The slip measure `σ` in `x`.
    pub fn slip(&self, x: &[f64]) -> f64 {
        x[self.layout.sigma]
    }

    /// Two intersections: whether `x` has the points on the parts' far sides (the gap
    /// parameter `t < 0`, which the gap row keeps at zero to the tolerance). False otherwise.
    pub fn far_sides(&self, x: &[f64]) -> bool {
        self.layout.f_count > 0 && x[self.layout.l1] < 0.0
    }

    /// Whether both sides are intersections of functions (the two-intersection block).
    pub fn two_intersections(&self) -> bool {
        self.layout.f_count > 0
    }

    /// The friction parameters.
    pub fn friction(&self) -> Friction {
        self.friction
    }

    /// Replaces the friction parameters (the stepper's continuation in `μ` lowers them for a
    /// retry and puts them back).
    pub fn set_friction(&mut self, friction: Friction) -> Result<(), ContactError> {
        friction.validate("contact")?;
        self.friction = friction;
        Ok(())
    }

    /// The function `f` of object `F` (its first function when `F` is an intersection).
    pub fn function_f(&self) -> &Placed<S> {
        &self.f
    }

    /// The part `G`.
    pub fn part_g(&self) -> &ConvexPart<S> {
        &self.g
    }

    /// Lower and upper bounds of the local variables: `l₁, l₂, p_n, σ ≥ 0`, the rest free;
    /// with two intersections `l₂, l_F, p_n, σ ≥ 0` (the scale `t` in the slot of `l₁` is free:
    /// C3 keeps it `≥ 0`). A law around the kernel bounds its own unknowns (free here).
    pub fn bounds(&self) -> (Vec<f64>, Vec<f64>) {
        let l = &self.layout;
        let mut lower = vec![f64::NEG_INFINITY; l.local_count];
        for i in (l.l1..l.normal_source).chain(l.lf..l.normal + 1) {
            lower[i] = 0.0;
        }
        if l.f_count > 0 || self.signed_gap {
            lower[l.l1] = f64::NEG_INFINITY;
        }
        lower[l.sigma] = 0.0;
        (lower, vec![f64::INFINITY; l.local_count])
    }

    /// A zeroed output buffer of the right size.
    pub fn new_eval(&self) -> ContactEval {
        ContactEval::new(self.layout)
    }

    /// Writes the residual rows, both wrenches and their exact Jacobian with respect to the
    /// local variables `x` (length [`ContactLayout::local_count`]) and the two bodies'
    /// velocities into `out` (layout in [`ContactLayout`]). Columns of a fixed body's `ν` are
    /// zero. Needs `∇f(a₁) ≠ 0` and, in 3D, a tangent reference not parallel to `n`; otherwise
    /// the output is not finite.
    ///
    /// Allocation-free: every derivative of a geometric quantity is nonzero only in the columns
    /// `a₁, ν₁, a₂, ν₂` (and a few impulse columns, written explicitly), so it is formed on that
    /// compact column set in fixed-size arrays and scattered into `out` once.
    ///
    /// # Panics
    /// If `x` or `out` do not match the layout.
    #[inline]
    pub fn evaluate(
        &self,
        x: &[f64],
        body1: &BodyStep<S>,
        body2: &BodyStep<S>,
        out: &mut ContactEval,
    ) {
        self.evaluate_own::<true>(x, body1, body2, out);
    }

    /// The rows and wrenches of [`evaluate`](Self::evaluate) alone, bit for bit, the Jacobian
    /// in `out` left stale: what a function evaluation needs (a line search's trial points, a
    /// step that converges at its warm start), without the pose derivatives.
    #[inline]
    pub fn evaluate_values(
        &self,
        x: &[f64],
        body1: &BodyStep<S>,
        body2: &BodyStep<S>,
        out: &mut ContactEval,
    ) {
        self.evaluate_own::<false>(x, body1, body2, out);
    }

    /// The kernel's rows with its own normal impulse (no law around it).
    #[inline]
    fn evaluate_own<const JAC: bool>(
        &self,
        x: &[f64],
        body1: &BodyStep<S>,
        body2: &BodyStep<S>,
        out: &mut ContactEval,
    ) {
        debug_assert_eq!(
            self.layout.extension, 0,
            "an extended kernel is evaluated by the law around it"
        );
        let pn = x[self.layout.normal];
        self.evaluate_kernel::<JAC>(x, pn, pn, body1, body2, out, None);
    }

    /// The kernel's rows, wrenches and Jacobian, as [`evaluate`](Self::evaluate), with `pn` the
    /// normal impulse of the rows C3 (proximal term), FR and CS and `pn_wrench` that of the
    /// wrench rows; both derivatives go to the column of `x[normal]` (rows and wrench rows
    /// apart, so a law can weight them). The rows and columns of an
    /// [`extension`](ContactLayout::extension) are left zero for the law around the kernel.
    /// Without `JAC` the Jacobian is not touched and the values are the same bits. The
    /// normal's source goes to `source`, for a law that needs the normal too.
    #[allow(clippy::too_many_arguments)] // two impulses, two bodies, two outputs
    pub(super) fn evaluate_kernel<const JAC: bool>(
        &self,
        x: &[f64],
        pn: f64,
        pn_wrench: f64,
        body1: &BodyStep<S>,
        body2: &BodyStep<S>,
        out: &mut ContactEval,
        source: Option<&mut NormalSource>,
    ) {
        let lay = self.layout;
        assert_eq!(
            x.len(),
            lay.local_count,
            "local variables do not match the layout"
        );
        assert_eq!(out.layout, lay, "output buffer does not match the layout");
        let (d, na, m, nf) = (S::DIM, S::ANGULAR_DIM, lay.g_count, lay.friction_count);
        let cols = Compact::new::<S>(&lay, out.jacobian.shape(), body1.fixed, body2.fixed);
        let (bw, w) = (cols.body_width, cols.width);
        // Compact offsets: body 1's block `[a₁, ν₁]` at 0, body 2's `[a₂, ν₂]` at `bw`, the
        // normal source `ĝ` (two intersections) at `2 bw`.
        let (c1, c2, cs) = (0, bw, 2 * bw);
        let (mu, axes) = (self.friction.mu, friction_axes(&self.friction));
        let vals = &mut out.values;
        let law_base = &mut out.law_base;
        let (shape, jac) = out.jacobian.parts_mut();
        if JAC {
            jac.fill(0.0);
        }
        let at = |row: usize, col: usize| shape.index(row, col);

        let a1s = S::vector_from_fn(|i| x[lay.a1 + i]);
        let a2s = S::vector_from_fn(|i| x[lay.a2 + i]);
        let l1 = x[lay.l1];
        let l2 = &x[lay.l2..lay.l2 + m];
        let pf = &x[lay.friction..lay.friction + nf];
        let sigma = x[lay.sigma];
        let (pose1, pose2) = (&body1.pose_end, &body2.pose_end);
        let (a1, a2) = (arr::<S>(&a1s), arr::<S>(&a2s));

        // The normal source `g` — `∇f(a₁)`, or the unknown `ĝ` when F is an intersection — and
        // its derivative, nonzero only on the compact columns `nr` (body 1's block, or `ĝ`'s).
        let two_sided = lay.f_count > 0;
        // `f` at `a₁` (one function): its gradient is the normal source, its value row C1.
        let ef1 = (!two_sided).then(|| world_eval_for::<S, _, JAC>(&self.f, pose1, &a1s));
        let (g, dg, nr) = if let Some(ef1) = &ef1 {
            let g = arr::<S>(&ef1.gradient);
            let dg = if JAC {
                gradient_rows(ef1, body1, c1, c1 + d)
            } else {
                [ZERO_ROW; 3]
            };
            (g, dg, c1..c1 + bw)
        } else {
            let g: Vec3 =
                std::array::from_fn(|i| if i < d { x[lay.normal_source + i] } else { 0.0 });
            let mut dg = [ZERO_ROW; 3];
            for (i, row) in dg.iter_mut().enumerate().take(d) {
                row[cs + i] = 1.0;
            }
            (g, dg, cs..cs + d)
        };

        // Normal: δn = (I − n nᵀ)/‖∇f‖ · δ∇f.
        let gnorm = (0..d).map(|i| g[i] * g[i]).sum::<f64>().sqrt();
        let n: Vec3 = std::array::from_fn(|i| if i < d { g[i] / gnorm } else { 0.0 });
        let dn = if JAC {
            let proj: Mat3 = std::array::from_fn(|i| {
                std::array::from_fn(|k| {
                    let delta = if i == k { 1.0 } else { 0.0 };
                    (delta - n[i] * n[k]) / gnorm
                })
            });
            mat_rows::<S>(&proj, &dg, nr.clone())
        } else {
            [ZERO_ROW; 3]
        };

        // Tangent basis (D − 1 directions) and derivatives (body 1's block).
        let basis = tangent_basis(d, &n, &arr::<S>(&self.tangent_reference));
        let nt = d - 1;
        let mut dts = [[ZERO_ROW; 3]; 2];
        if JAC {
            for k in 0..nt {
                dts[k] = mat_rows::<S>(&basis[k].1, &dn, nr.clone());
            }
        }

        // Lever arms r_b = a_b − c_b.
        let r1s = a1s - pose1.position;
        let r2s = a2s - pose2.position;

        // Relative velocity v_rel = u₂(a₂) − u₁(a₁) and its derivative, at the end-of-step
        // levers or the trapezoidal ones.
        let (u1, du1, u2, du2) = match &self.start_levers {
            None => {
                let (u1, du1) = point_velocity::<S, JAC>(body1, &r1s, c1, 1.0);
                let (u2, du2) = point_velocity::<S, JAC>(body2, &r2s, c2, 1.0);
                (u1, du1, u2, du2)
            }
            Some([s1, s2]) => {
                let mid = |r: &S::Vector, s: &Vec3| (*r + S::vector_from_fn(|i| s[i])) * 0.5;
                let (u1, du1) = point_velocity::<S, JAC>(body1, &mid(&r1s, s1), c1, 0.5);
                let (u2, du2) = point_velocity::<S, JAC>(body2, &mid(&r2s, s2), c2, 0.5);
                (u1, du1, u2, du2)
            }
        };
        let vrel: Vec3 = std::array::from_fn(|i| u2[i] - u1[i]);
        let mut dvrel = [ZERO_ROW; 3];
        if JAC {
            for i in 0..d {
                for c in c1..c1 + bw {
                    dvrel[i][c] = -du1[i][c];
                }
                for c in c2..c2 + bw {
                    dvrel[i][c] = du2[i][c];
                }
            }
        }

        // R1: a₁ − a₂ + l₁ ∇f(a₁).
        for i in 0..d {
            let row = lay.a1 + i;
            vals[row] = a1[i] - a2[i] + l1 * g[i];
            if !JAC {
                continue;
            }
            let mut r = ZERO_ROW;
            if l1 != 0.0 {
                for c in nr.clone() {
                    r[c] = l1 * dg[i][c];
                }
            }
            r[c1 + i] += 1.0;
            r[c2 + i] -= 1.0;
            cols.scatter::<S>(jac, row, &r, 1.0);
            jac[at(row, lay.l1)] = g[i];
        }

        // R2: ∇f(a₁) + Σ l₂ⱼ ∇gⱼ(a₂); C2: −gⱼ(a₂).
        let mut r2rows = [ZERO_ROW; 3];
        for i in 0..d {
            vals[lay.a2 + i] = g[i];
            if JAC {
                r2rows[i][nr.clone()].copy_from_slice(&dg[i][nr.clone()]);
            }
        }
        for j in 0..m {
            let e = self.g.world_eval_for::<JAC>(j, pose2, &a2s);
            if JAC && l2[j] != 0.0 {
                let dgj = gradient_rows(&e, body2, c2, c2 + d);
                for i in 0..d {
                    for c in c2..c2 + bw {
                        r2rows[i][c] += l2[j] * dgj[i][c];
                    }
                }
            }
            for i in 0..d {
                vals[lay.a2 + i] += l2[j] * e.gradient[i];
                if JAC {
                    jac[at(lay.a2 + i, lay.l2 + j)] = e.gradient[i];
                }
            }
            vals[lay.l2 + j] = -e.value;
            if JAC {
                let r = value_row(&e, body2, c2, c2 + d, -1.0);
                cols.scatter::<S>(jac, lay.l2 + j, &r, 1.0);
            }
        }
        if JAC {
            for i in 0..d {
                cols.scatter::<S>(jac, lay.a2 + i, &r2rows[i], 1.0);
            }
        }

        if let Some(ef1) = &ef1 {
            // C1: −f(a₁); C3: f(a₂) (a point of body 2's block, the pose of body 1), or in the
            // signed-gap form l₁ ‖g‖² (g = ∇f(a₁)).
            vals[lay.l1] = -ef1.value;
            if JAC {
                let r = value_row(ef1, body1, c1, c1 + d, -1.0);
                cols.scatter::<S>(jac, lay.l1, &r, 1.0);
            }
            if self.signed_gap {
                let g2: f64 = (0..d).map(|i| g[i] * g[i]).sum();
                vals[lay.normal] = l1 * g2;
                if JAC {
                    jac[at(lay.normal, lay.l1)] += g2;
                    let mut r = ZERO_ROW;
                    for c in nr.clone() {
                        r[c] = 2.0 * l1 * (0..d).map(|i| g[i] * dg[i][c]).sum::<f64>();
                    }
                    cols.scatter::<S>(jac, lay.normal, &r, 1.0);
                }
            } else {
                let ef2 = world_eval_for::<S, _, JAC>(&self.f, pose1, &a2s);
                vals[lay.normal] = ef2.value;
                if JAC {
                    let r = value_row(&ef2, body1, c2, c1 + d, 1.0);
                    cols.scatter::<S>(jac, lay.normal, &r, 1.0);
                }
            }
        } else {
            self.two_sided_rows::<JAC>(&lay, x, &a1s, body1, &cols, vals, jac, shape);
        }
        let prox = &self.proximal;
        law_base[0] = vals[lay.normal];
        if prox.weights[0] != 0.0 {
            vals[lay.normal] += prox.weights[0] * (pn - prox.center[0]);
            if JAC {
                jac[at(lay.normal, lay.normal)] += prox.weights[0];
            }
        }

        // FR: e_k² μ p_n s_k + p_k σ.
        let w1 = arr_ang::<S>(&body1.angular_velocity);
        let w2 = arr_ang::<S>(&body2.angular_velocity);
        for k in 0..nf {
            if mu == 0.0 {
                // Frictionless: the law's only solution is p_k = 0 (CS reads −Σ p_k²/e_k² ≥ 0),
                // so FR is written as p_k = 0; the general row p_k σ = 0 is singular there.
                let row = lay.friction + k;
                vals[row] = pf[k];
                if JAC {
                    jac[at(row, lay.friction + k)] = 1.0;
                }
                continue;
            }
            let mut ds = ZERO_ROW;
            let s = if k < nt {
                let t = &basis[k].0;
                // δs = v_relᵀ δt_k (body 1's block only) + t_kᵀ δv_rel.
                if JAC {
                    for c in 0..w {
                        let mut acc2 = 0.0;
                        for i in 0..d {
                            acc2 += t[i] * dvrel[i][c];
                        }
                        ds[c] = acc2;
                    }
                    for c in nr.clone() {
                        let mut acc = 0.0;
                        for i in 0..d {
                            acc += vrel[i] * dts[k][i][c];
                        }
                        ds[c] += acc;
                    }
                }
                (0..d).map(|i| t[i] * vrel[i]).sum::<f64>()
            } else {
                // Torsion (3D): s_r = n · (ω₂ − ω₁).
                let wr: Vec3 = std::array::from_fn(|i| w2[i] - w1[i]);
                if JAC {
                    for c in nr.clone() {
                        ds[c] = (0..d).map(|i| wr[i] * dn[i][c]).sum::<f64>();
                    }
                    for i in 0..na {
                        ds[c2 + d + d + i] += n[i];
                        ds[c1 + d + d + i] -= n[i];
                    }
                }
                (0..d).map(|i| n[i] * wr[i]).sum::<f64>()
            };
            let row = lay.friction + k;
            let c = axes[k] * axes[k] * mu;
            let eps = prox.weights[1];
            law_base[1 + k] = c * pn * s + pf[k] * sigma;
            vals[row] = law_base[1 + k] + eps * (pf[k] - prox.center[1 + k]);
            if !JAC {
                continue;
            }
            if c * pn != 0.0 {
                cols.scatter::<S>(jac, row, &ds, c * pn);
            }
            jac[at(row, lay.normal)] = c * s;
            jac[at(row, lay.friction + k)] = sigma + eps;
            jac[at(row, lay.sigma)] = pf[k];
        }

        self.cone_row::<JAC>(x, pn, vals, jac, shape);

        // Impulse P = p_n n + Σ p_k t_k (tangential k only); δP on body 1's block, plus the
        // columns p_n (n) and p_k (t_k).
        let mut p: Vec3 = std::array::from_fn(|i| n[i] * pn_wrench);
        let mut dp = [ZERO_ROW; 3];
        if JAC {
            for i in 0..d {
                for c in nr.clone() {
                    dp[i][c] = dn[i][c] * pn_wrench;
                }
            }
        }
        for k in 0..nt {
            for i in 0..d {
                p[i] += basis[k].0[i] * pf[k];
                if JAC {
                    for c in nr.clone() {
                        dp[i][c] += dts[k][i][c] * pf[k];
                    }
                }
            }
        }
        let p_s = S::vector_from_fn(|i| p[i]);
        // Torsional impulse p_r n (3D).
        let torsion = (d == 3).then(|| (pf[nf - 1], lay.friction + nf - 1));

        for (sign, rs, step, cb, row0) in [
            (1.0, &r2s, body2, c2, lay.nu2),
            (-1.0, &r1s, body1, c1, lay.nu1),
        ] {
            // Force ±P.
            for i in 0..d {
                vals[row0 + i] = sign * p[i];
                if !JAC {
                    continue;
                }
                cols.scatter::<S>(jac, row0 + i, &dp[i], sign);
                jac[at(row0 + i, lay.normal)] = sign * n[i];
                for k in 0..nt {
                    jac[at(row0 + i, lay.friction + k)] = sign * basis[k].0[i];
                }
            }
            // Moment ±(r × P (+ p_r n)): δ(r × P) = [·×P] δr + [r×] δP, δr = δa − h δv.
            let mom = S::cross(rs, &p_s);
            if !JAC {
                for i in 0..na {
                    let mut mom_i = mom[i];
                    if let Some((pr, _)) = torsion {
                        mom_i += pr * n[i];
                    }
                    vals[row0 + d + i] = sign * mom_i;
                }
                continue;
            }
            // [·×P] = −[P×] (A × D) and [r×] (A × D).
            let cp = cross_matrix::<S>(&p);
            let cl = cross_matrix::<S>(&arr::<S>(rs));
            for i in 0..na {
                let mut dm = ZERO_ROW;
                for j in 0..d {
                    dm[cb + j] = -cp[i][j];
                    dm[cb + d + j] = -cp[i][j] * -step.dtrans_dv;
                }
                for c in nr.clone() {
                    let mut acc = 0.0;
                    for k in 0..d {
                        acc += cl[i][k] * dp[k][c];
                    }
                    dm[c] += acc;
                }
                let mut mom_i = mom[i];
                // Columns p_n and p_k: [r×] n, [r×] t_k.
                let mut dm_pn = 0.0;
                for k in 0..d {
                    dm_pn += cl[i][k] * n[k];
                }
                jac[at(row0 + d + i, lay.normal)] = sign * dm_pn;
                for kf in 0..nt {
                    let mut acc = 0.0;
                    for k in 0..d {
                        acc += cl[i][k] * basis[kf].0[k];
                    }
                    jac[at(row0 + d + i, lay.friction + kf)] = sign * acc;
                }
                if let Some((pr, col)) = torsion {
                    mom_i += pr * n[i];
                    jac[at(row0 + d + i, col)] = sign * n[i];
                    for c in nr.clone() {
                        dm[c] += dn[i][c] * pr;
                    }
                }
                vals[row0 + d + i] = sign * mom_i;
                cols.scatter::<S>(jac, row0 + d + i, &dm, sign);
            }
        }
        if let Some(source) = source {
            *source = NormalSource { g, dg, cols: nr };
        }
    }
}

impl<S: Space> ContactBlock<S> {
    /// The rows of two intersections that replace C1 and C3 (see [`crate::contact`], "Two
    /// intersections"): `Σᵢ lᵢ − 1` (the slot of `l₁`, paired with the free `t`), RG
    /// `ĝ − Σᵢ lᵢ ∇fᵢ(a₁)`, CF `−fᵢ(a₁)` and C3 `t` (its proximal term is added by the caller).
    #[allow(clippy::too_many_arguments)]
    fn two_sided_rows<const JAC: bool>(
        &self,
        lay: &ContactLayout,
        x: &[f64],
        a1s: &S::Vector,
        body1: &BodyStep<S>,
        cols: &Compact,
        vals: &mut [f64],
        jac: &mut [f64],
        shape: JacobianShape,
    ) {
        let d = S::DIM;
        let at = |row: usize, col: usize| shape.index(row, col);
        let part = self
            .f_part
            .as_ref()
            .expect("a two-sided layout has F's part");
        let cs = 2 * cols.body_width;
        vals[lay.l1] = -1.0;
        let mut rg = [ZERO_ROW; 3];
        let mut source: Vec3 =
            std::array::from_fn(|i| if i < d { x[lay.normal_source + i] } else { 0.0 });
        for (i, row) in rg.iter_mut().enumerate().take(d) {
            row[cs + i] = 1.0;
        }
        for k in 0..lay.f_count {
            let lk = x[lay.lf + k];
            let e = part.world_eval_for::<JAC>(k, &body1.pose_end, a1s);
            vals[lay.l1] += lk;
            if !JAC {
                for i in 0..d {
                    source[i] -= lk * e.gradient[i];
                }
                vals[lay.lf + k] = -e.value;
                continue;
            }
            jac[at(lay.l1, lay.lf + k)] = 1.0;
            if lk != 0.0 {
                let dgk = gradient_rows(&e, body1, 0, d);
                for i in 0..d {
                    for c in 0..cols.body_width {
                        rg[i][c] -= lk * dgk[i][c];
                    }
                }
            }
            for i in 0..d {
                source[i] -= lk * e.gradient[i];
                jac[at(lay.normal_source + i, lay.lf + k)] = -e.gradient[i];
            }
            vals[lay.lf + k] = -e.value;
            let r = value_row(&e, body1, 0, d, -1.0);
            cols.scatter::<S>(jac, lay.lf + k, &r, 1.0);
        }
        for i in 0..d {
            vals[lay.normal_source + i] = source[i];
            if JAC {
                cols.scatter::<S>(jac, lay.normal_source + i, &rg[i], 1.0);
            }
        }
        vals[lay.normal] = x[lay.l1];
        if JAC {
            jac[at(lay.normal, lay.l1)] = 1.0;
        }
    }
}

/// The function of `part` largest at the world point `p` (body at `pose`; the first of ties).
pub(super) fn most_active<S: Space>(part: &ConvexPart<S>, pose: &Pose<S>, p: &S::Vector) -> usize {
    let mut best = (f64::NEG_INFINITY, 0usize);
    for j in 0..part.len() {
        let v = part.world_eval(j, pose, p).value;
        if v > best.0 {
            best = (v, j);
        }
    }
    best.1
}

impl<S: Space> ContactBlock<S> {
    /// CS, `(μ² p_n² − Σ_k p_k²/e_k² + ε_σ (σ − σ̄))` times the cone scale, and its row of the
    /// Jacobian: a function of the impulses alone.
    fn cone_row<const JAC: bool>(
        &self,
        x: &[f64],
        pn: f64,
        vals: &mut [f64],
        jac: &mut [f64],
        shape: JacobianShape,
    ) {
        let lay = &self.layout;
        let (mu, axes, nf) = (
            self.friction.mu,
            friction_axes(&self.friction),
            lay.friction_count,
        );
        let (prox, sigma) = (&self.proximal, x[lay.sigma]);
        let pf = &x[lay.friction..lay.friction + nf];
        let at = |row: usize, col: usize| shape.index(row, col);
        vals[lay.sigma] = mu * mu * pn * pn + prox.weights[2] * (sigma - prox.center[4]);
        if JAC {
            jac[at(lay.sigma, lay.sigma)] = prox.weights[2];
            jac[at(lay.sigma, lay.normal)] = 2.0 * mu * mu * pn;
        }
        for k in 0..nf {
            let e2 = axes[k] * axes[k];
            vals[lay.sigma] -= pf[k] * pf[k] / e2;
            if JAC {
                jac[at(lay.sigma, lay.friction + k)] = -2.0 * pf[k] / e2;
            }
        }
        let cs = self.cone_scale;
        if self.cone_normalised > 0.0 {
            // Q / D + cs ε_σ (σ − σ̄), D = μ p_n + √(‖p‖_e² + c²): at p_n = 0 the row is
            // −‖p‖_e (for ‖p‖_e ≫ c), whose Newton step removes an unloaded contact's
            // friction at once, where the squared row's halves it.
            let c = self.cone_normalised;
            let ps = prox.weights[2] * (sigma - prox.center[4]);
            let q = vals[lay.sigma] - ps;
            let mut n2 = 0.0;
            for k in 0..nf {
                n2 += pf[k] * pf[k] / (axes[k] * axes[k]);
            }
            let r = (n2 + c * c).sqrt();
            let dd = mu * pn + r;
            vals[lay.sigma] = q / dd + cs * ps;
            if !JAC {
                return;
            }
            let qd = q / (dd * dd);
            jac[at(lay.sigma, lay.sigma)] *= cs;
            jac[at(lay.sigma, lay.normal)] = jac[at(lay.sigma, lay.normal)] / dd - qd * mu;
            for k in 0..nf {
                let e2 = axes[k] * axes[k];
                jac[at(lay.sigma, lay.friction + k)] =
                    jac[at(lay.sigma, lay.friction + k)] / dd - qd * pf[k] / e2 / r;
            }
            return;
        }
        if cs != 1.0 {
            vals[lay.sigma] *= cs;
            if !JAC {
                return;
            }
            jac[at(lay.sigma, lay.sigma)] *= cs;
            jac[at(lay.sigma, lay.normal)] *= cs;
            for k in 0..nf {
                jac[at(lay.sigma, lay.friction + k)] *= cs;
            }
        }
    }

    /// Rewrites in `out`, an evaluation of this block at `x`, the rows that the proximal
    /// centre and the cone scale enter (C3, FR, CS), after either changed; the geometry is
    /// not evaluated again. The result is bit for bit what [`evaluate`](Self::evaluate) gives.
    pub fn refresh_law_rows(&self, x: &[f64], out: &mut ContactEval) {
        debug_assert_eq!(
            self.layout.extension, 0,
            "a law around the kernel adds to its rows"
        );
        let lay = &self.layout;
        let (prox, pn) = (&self.proximal, x[lay.normal]);
        out.values[lay.normal] = out.law_base[0];
        if prox.weights[0] != 0.0 {
            out.values[lay.normal] += prox.weights[0] * (pn - prox.center[0]);
        }
        if self.friction.mu != 0.0 {
            for k in 0..lay.friction_count {
                let pk = x[lay.friction + k];
                out.values[lay.friction + k] =
                    out.law_base[1 + k] + prox.weights[1] * (pk - prox.center[1 + k]);
            }
        }
        let (shape, jac) = out.jacobian.parts_mut();
        self.cone_row::<true>(x, pn, &mut out.values, jac, shape);
    }
}

/// Largest compact width: `[a₁, ν₁, a₂, ν₂, ĝ]` in 3D, `2 (3 + 6) + 3`.
pub(super) const MAX_WIDTH: usize = 21;

/// A row over the compact columns.
pub(super) type Row = [f64; MAX_WIDTH];

/// A zero row.
pub(super) const ZERO_ROW: Row = [0.0; MAX_WIDTH];

/// A vector of `ℝᴰ` or `ℝᴬ`, padded with zeros to 3 entries.
pub(super) type Vec3 = [f64; 3];

/// A `D × D` matrix, padded to `3 × 3` (row-major).
pub(super) type Mat3 = [Vec3; 3];

/// Rows (up to 3, the first `D` or `A` used) over the compact columns.
pub(super) type Rows = [Row; 3];

/// The source `g` of a kernel evaluation's normal `n = g/‖g‖` — `∇f(a₁)`, or the unknown `ĝ`
/// of two intersections — and its derivative `dg` on the compact columns `cols` (zero without
/// the Jacobian).
#[derive(Clone, Default)]
pub(super) struct NormalSource {
    pub g: Vec3,
    pub dg: Rows,
    pub cols: std::ops::Range<usize>,
}

/// The compact column set of a block: body 1's `[a₁ (D), ν₁ (DOF)]` then body 2's
/// `[a₂ (D), ν₂ (DOF)]`, and where each lands in the block's columns (a fixed body's `ν` is not
/// written: zeros).
pub(super) struct Compact {
    /// `D + DOF`.
    pub(super) body_width: usize,
    /// `2 (D + DOF)`, plus `D` with a normal source.
    width: usize,
    /// Per body: where the columns of its `a` and of its `ν` start in the Jacobian's storage,
    /// and whether `ν` is written.
    bodies: [(usize, usize, bool); 2],
    /// Where the columns of the normal source `ĝ` (compact columns `2 (D + DOF)…`) start, if
    /// any.
    source: Option<usize>,
    /// The storage's stride between consecutive columns of one run (none is decoupled).
    stride: usize,
}

impl Compact {
    pub(super) fn new<S: Space>(
        lay: &ContactLayout,
        shape: JacobianShape,
        fixed1: bool,
        fixed2: bool,
    ) -> Self {
        let bw = S::DIM + S::DOF;
        let start = |c: usize| shape.column_start(c);
        let source = (lay.f_count > 0).then(|| start(lay.normal_source));
        Self {
            body_width: bw,
            width: 2 * bw + if source.is_some() { S::DIM } else { 0 },
            bodies: [
                (start(lay.a1), start(lay.nu1), !fixed1),
                (start(lay.a2), start(lay.nu2), !fixed2),
            ],
            source,
            stride: shape.total(),
        }
    }

    /// Writes `scale · row` into row `row` of the (zeroed) block's storage.
    #[inline]
    pub(super) fn scatter<S: Space>(&self, jac: &mut [f64], row: usize, src: &Row, scale: f64) {
        let (d, bw, t) = (S::DIM, S::DIM + S::DOF, self.stride);
        for (b, &(a, nu, live)) in self.bodies.iter().enumerate() {
            let base = b * bw;
            for k in 0..d {
                jac[a + k * t + row] = scale * src[base + k];
            }
            if live {
                for k in 0..S::DOF {
                    jac[nu + k * t + row] = scale * src[base + d + k];
                }
            }
        }
        if let Some(g) = self.source {
            for k in 0..d {
                jac[g + k * t + row] = scale * src[2 * bw + k];
            }
        }
    }
}

/// The semi-axes of the rows FR in order: `[e_t]` in 2D, `[e_t, e_o, e_r]` in 3D (only the
/// first `friction_count` are used).
pub(super) fn friction_axes(friction: &Friction) -> Vec3 {
    [friction.e_t, friction.e_o, friction.e_r]
}

pub(super) fn arr<S: Space>(v: &S::Vector) -> Vec3 {
    std::array::from_fn(|i| if i < S::DIM { v[i] } else { 0.0 })
}

pub(super) fn arr_ang<S: Space>(v: &S::Angular) -> Vec3 {
    std::array::from_fn(|i| if i < S::ANGULAR_DIM { v[i] } else { 0.0 })
}

/// `M · rows` over the compact columns `range` (`D × D` times `D` rows).
#[inline]
pub(super) fn mat_rows<S: Space>(mat: &Mat3, rows: &Rows, range: std::ops::Range<usize>) -> Rows {
    let d = S::DIM;
    let mut out = [ZERO_ROW; 3];
    for i in 0..d {
        for c in range.clone() {
            let mut acc = 0.0;
            for k in 0..d {
                acc += mat[i][k] * rows[k][c];
            }
            out[i][c] = acc;
        }
    }
    out
}

/// `δ∇φ` (`D` rows) of a world-frame gradient of the body whose `ν` starts at compact column
/// `nu`, at the point whose compact columns start at `point`: `∇²φ` on the point,
/// `∂∇φ/∂c · h` on `v`, `∂∇φ/∂θ · D_ω` on `ω`.
pub(super) fn gradient_rows<S: Space>(
    e: &WorldEval<S>,
    step: &BodyStep<S>,
    point: usize,
    nu: usize,
) -> Rows {
    let (d, na) = (S::DIM, S::ANGULAR_DIM);
    let mut out = [ZERO_ROW; 3];
    for i in 0..d {
        for j in 0..d {
            out[i][point + j] = e.hessian[(i, j)];
            out[i][nu + j] = e.d_gradient_d_translation[(i, j)] * step.dtrans_dv;
        }
        for c in 0..na {
            let mut acc = 0.0;
            for k in 0..na {
                acc += e.d_gradient_d_rotation[(i, k)] * step.drot_domega[(k, c)];
            }
            out[i][nu + d + c] = acc;
        }
    }
    out
}

/// `scale · δφ` for a value `φ` at the point whose compact columns start at `point`, of the
/// body whose `ν` starts at compact column `nu`.
pub(super) fn value_row<S: Space>(
    e: &WorldEval<S>,
    step: &BodyStep<S>,
    point: usize,
    nu: usize,
    scale: f64,
) -> Row {
    let (d, na) = (S::DIM, S::ANGULAR_DIM);
    let mut out = ZERO_ROW;
    for i in 0..d {
        out[point + i] = scale * e.gradient[i];
        out[nu + i] = scale * step.dtrans_dv * e.d_value_d_translation[i];
    }
    for c in 0..na {
        let v: f64 = (0..na)
            .map(|k| e.d_value_d_rotation[k] * step.drot_domega[(k, c)])
            .sum();
        out[nu + d + c] = scale * v;
    }
    out
}

/// Velocity `u = v + ω × r` of a body's material point at lever `r`, and its derivative
/// `δv + ω × δr + δω × r` on the body's compact block at `base`, where the lever depends on the
/// point and the end pose as `δr = w (δa − h δv)` (`w` = `weight`: 1 for the end-of-step lever, ½ for the
/// trapezoidal one): `w K_ω` on `a`, `I − w h K_ω` on `v`, `M_r` on `ω`.
fn point_velocity<S: Space, const JAC: bool>(
    step: &BodyStep<S>,
    r: &S::Vector,
    base: usize,
    weight: f64,
) -> (Vec3, Rows) {
    let (d, na) = (S::DIM, S::ANGULAR_DIM);
    let w = &step.angular_velocity;
    let u = step.linear_velocity + S::angular_cross(w, r);
    if !JAC {
        return (arr::<S>(&u), [ZERO_ROW; 3]);
    }
    let mr = S::cross_jacobian(r);
    let mut du = [ZERO_ROW; 3];
    for j in 0..d {
        // Column j of K_ω: ω × e_j.
        let kj = S::angular_cross(w, &S::unit_vector(j));
        for i in 0..d {
            du[i][base + j] = weight * kj[i];
            du[i][base + d + j] = weight * kj[i] * -step.dtrans_dv + if i == j { 1.0 } else { 0.0 };
        }
    }
    for i in 0..d {
        for c in 0..na {
            du[i][base + 2 * d + c] = mr[(i, c)];
        }
    }
    (arr::<S>(&u), du)
}

/// The `A × D` matrix of `b ↦ a × b` (3D `[a]×`; 2D the row `(−a_y, a_x)`), padded.
fn cross_matrix<S: Space>(a: &Vec3) -> Mat3 {
    if S::DIM == 2 {
        [[-a[1], a[0], 0.0], [0.0; 3], [0.0; 3]]
    } else {
        skew(a)
    }
}

/// `[a]×`, the matrix of `b ↦ a × b` in 3D.
fn skew(a: &Vec3) -> Mat3 {
    [[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]]
}

fn mat_mul(d: usize, a: &Mat3, b: &Mat3) -> Mat3 {
    let mut out = [[0.0; 3]; 3];
    for i in 0..d {
        for j in 0..d {
            for k in 0..d {
                out[i][j] += a[i][k] * b[k][j];
            }
        }
    }
    out
}

/// The tangent directions and their derivatives `∂t/∂n` (`D × D`), `D − 1` of them used:
/// 2D `t = (−n_y, n_x)`; 3D `t = normalize(e − (e·n) n)`, `o = n × t`.
/// The block's tangent directions `t`, `o` (`o` zero in 2D) at the unit normal `n` with the
/// tangent reference `e`: those of [`tangent_basis`], for reporting a friction impulse as a
/// vector.
pub(crate) fn tangent_directions(d: usize, n: &Vec3, e: &Vec3) -> [Vec3; 2] {
    let [(t, _), (o, _)] = tangent_basis(d, n, e);
    [t, o]
}

pub(super) fn tangent_basis(d: usize, n: &Vec3, e: &Vec3) -> [(Vec3, Mat3); 2] {
    if d == 2 {
        let t = [-n[1], n[0], 0.0];
        let tm = [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0; 3]];
        return [(t, tm), ([0.0; 3], [[0.0; 3]; 3])];
    }
    let en = e[0] * n[0] + e[1] * n[1] + e[2] * n[2];
    let u: Vec3 = std::array::from_fn(|i| e[i] - n[i] * en);
    let ulen = (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]).sqrt();
    let t: Vec3 = std::array::from_fn(|i| u[i] / ulen);
    // δu = −(n eᵀ + (e·n) I) δn; δt = (I − t tᵀ)/‖u‖ δu.
    let du: Mat3 = std::array::from_fn(|i| {
        std::array::from_fn(|j| -(n[i] * e[j] + if i == j { en } else { 0.0 }))
    });
    let pt: Mat3 = std::array::from_fn(|i| {
        std::array::from_fn(|j| ((if i == j { 1.0 } else { 0.0 }) - t[i] * t[j]) / ulen)
    });
    let dt = mat_mul(3, &pt, &du);
    // o = n × t; δo = −[t]× δn + [n]× δt.
    let sn = skew(n);
    let o: Vec3 = std::array::from_fn(|i| sn[i][0] * t[0] + sn[i][1] * t[1] + sn[i][2] * t[2]);
    let st = skew(&t);
    let sndt = mat_mul(3, &sn, &dt);
    let d_o: Mat3 = std::array::from_fn(|i| std::array::from_fn(|j| -st[i][j] + sndt[i][j]));
    [(t, dt), (o, d_o)]
}

impl crate::block::BlockEval for ContactEval {
    fn values(&self) -> &[f64] {
        &self.values
    }
    fn jacobian(&self) -> &BlockJacobian {
        &self.jacobian
    }
}

super::contact_constraint_block!(ContactBlock);
