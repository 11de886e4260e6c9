//! Proximity of two convex parts: closest points, distance, common normal, and whether they are
//! separated, touching or intersecting — by solving KKT conditions with the crate's MCP solver.
//!
//! **Distance** (paper eq. 9 generalised to intersections, KKT eq. 24–27). For parts
//! `A = {fᵢ ≤ 0, i = 1…m}` and `B = {gⱼ ≤ 0, j = 1…n}` in the world frame, the closest points
//! `(a₁, a₂)` minimise `½‖ξ₁ − ξ₂‖²` over `A × B`. With multipliers `l̂ ≥ 0`:
//!
//! ```text
//! a₁ − a₂ + Σᵢ l̂ᵢ ∇fᵢ(a₁) = 0                     (eq. 24)
//! a₂ − a₁ + Σⱼ l̂ⱼ ∇gⱼ(a₂) = 0                     (eq. 25)
//! 0 ≤ l̂ᵢ ⊥ −fᵢ(a₁) ≥ 0,   0 ≤ l̂ⱼ ⊥ −gⱼ(a₂) ≥ 0      (eq. 26–27)
//! ```
//!
//! an MCP in `z = (a₁, a₂, l̂)` with `a` free and `l̂ ≥ 0`, exact Jacobian
//!
//! ```text
//! ⎡ I + Σ l̂ᵢ∇²fᵢ   −I              ∇fᵢ   0   ⎤
//! ⎢ −I             I + Σ l̂ⱼ∇²gⱼ    0     ∇gⱼ ⎥
//! ⎢ −∇fᵢᵀ          0               0     0   ⎥
//! ⎣ 0              −∇gⱼᵀ           0     0   ⎦
//! ```
//!
//! (a convex program's KKT system, hence a monotone MCP). Separated parts have a unique
//! distance `‖a₂ − a₁‖ > 0` and the unit normal `n = (a₂ − a₁)/‖a₂ − a₁‖` from `A` towards `B`.
//!
//! **Touching or intersecting.** At distance zero the KKT conditions hold at every common point
//! (the paper's Fig. 2 (b) and (c)), so a second problem decides: the *depth*
//! `s* = max { s : fᵢ(x) + s ≤ 0, gⱼ(x) + s ≤ 0 ∀ i, j }` (capped at
//! [`ProximitySettings::depth_cap`]). Its KKT conditions, an MCP in `(x, s, μ)` with `x` free,
//! `s ≤ cap` and `μ ≥ 0`:
//!
//! ```text
//! Σₖ μₖ ∇hₖ(x) = 0,    −1 + Σₖ μₖ  ⊥ s ≤ cap,    0 ≤ μₖ ⊥ −(hₖ(x) + s) ≥ 0
//! ```
//!
//! where `hₖ` runs over all `fᵢ` and `gⱼ`. The interiors overlap iff `s* > 0`: then the parts
//! intersect. If `s* = 0` they only touch, and the multipliers give a common normal
//! `Σᵢ μᵢ ∇fᵢ(x) = −Σⱼ μⱼ ∇gⱼ(x)` — a vector of `C(A, x) ∩ −C(B, x)` (paper §4.3) — reported
//! normalised, pointing from `A` towards `B`. `s` is measured in the units of the functions
//! (lengths, near the surface, for the crate's primitives).

use super::implicit::ImplicitFn;
use super::part::ConvexPart;
use super::pose::Pose;
use super::space::Space;
use super::world::world_eval;
use crate::mcp::{DenseJacobian, McpProblem, SolveReport, SolveSettings, solve};

/// How two convex parts relate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ContactState {
    /// Positive distance.
    Separated,
    /// Distance zero, interiors disjoint (a common supporting hyperplane exists).
    Touching,
    /// The interiors overlap.
    Intersecting,
}

/// Settings of [`proximity`].
#[derive(Debug, Clone, PartialEq)]
pub struct ProximitySettings {
    /// Settings of the MCP solves.
    pub solver: SolveSettings,
    /// Distances at or below this (world units) count as zero.
    pub separation_tolerance: f64,
    /// Depths `s*` at or below this count as zero (touching); above it, intersecting.
    pub depth_tolerance: f64,
    /// Upper bound on the depth variable `s` (keeps the depth problem bounded for unbounded
    /// parts such as half-spaces).
    pub depth_cap: f64,
}

impl Default for ProximitySettings {
    fn default() -> Self {
        Self {
            solver: SolveSettings::default(),
            separation_tolerance: 1e-7,
            depth_tolerance: 1e-7,
            depth_cap: 1.0,
        }
    }
}

/// The answer of [`proximity`].
#[derive(Debug, Clone, PartialEq)]
pub struct Proximity<S: Space> {
    /// Separated, touching or intersecting.
    pub state: ContactState,
    /// `‖a₂ − a₁‖` from the distance problem (≈ 0 unless separated).
    pub distance: f64,
    /// `a₁`, the closest point on `A` (world frame). Touching or intersecting: the common
    /// point `x` of the depth problem.
    pub point_a: S::Vector,
    /// `a₂`, the closest point on `B` (world frame); equals `point_a` unless separated.
    pub point_b: S::Vector,
    /// Unit normal from `A` towards `B`: `(a₂ − a₁)/‖a₂ − a₁‖` if separated, the common
    /// normal `Σ μᵢ ∇fᵢ` (normalised) if touching; if intersecting, the same combination at the
    /// deepest point (a direction in which `A`'s active functions grow; may be zero for deep
    /// overlaps where `A`'s functions are inactive).
    pub normal: S::Vector,
    /// Multipliers of `A`'s functions: `l̂ᵢ` if separated, `μᵢ` of the depth problem otherwise.
    pub multipliers_a: Vec<f64>,
    /// Multipliers of `B`'s functions, likewise.
    pub multipliers_b: Vec<f64>,
    /// The depth `s*` (capped), if the depth problem was solved (distance zero).
    pub depth: Option<f64>,
    /// Report of the distance solve.
    pub distance_report: SolveReport,
    /// Report of the depth solve, if any.
    pub depth_report: Option<SolveReport>,
}

/// A proximity query that did not converge.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("proximity of `{part_a}` and `{part_b}`: the {stage} problem did not converge: {report}")]
pub struct ProximityError {
    /// Name of part `A`.
    pub part_a: String,
    /// Name of part `B`.
    pub part_b: String,
    /// `"distance"` or `"depth"`.
    pub stage: &'static str,
    /// The solver's report (boxed: it is large and the error path is rare).
    pub report: Box<SolveReport>,
}

fn vec_at<S: Space>(z: &[f64], offset: usize) -> S::Vector {
    S::vector_from_fn(|i| z[offset + i])
}

/// The distance KKT system (eq. 24–27) as an MCP; see the module docs.
pub struct DistanceProblem<'a, S: Space> {
    a: &'a ConvexPart<S>,
    pose_a: &'a Pose<S>,
    b: &'a ConvexPart<S>,
    pose_b: &'a Pose<S>,
    lower: Vec<f64>,
    upper: Vec<f64>,
}

impl<'a, S: Space> DistanceProblem<'a, S> {
    /// The problem for part `a` at `pose_a` and part `b` at `pose_b`; variables
    /// `(a₁, a₂, l̂_A, l̂_B)`.
    pub fn new(
        a: &'a ConvexPart<S>,
        pose_a: &'a Pose<S>,
        b: &'a ConvexPart<S>,
        pose_b: &'a Pose<S>,
    ) -> Self {
        let d = S::DIM;
        let n = 2 * d + a.len() + b.len();
        let mut lower = vec![f64::NEG_INFINITY; n];
        lower[2 * d..].fill(0.0);
        Self {
            a,
            pose_a,
            b,
            pose_b,
            lower,
            upper: vec![f64::INFINITY; n],
        }
    }
}

impl<S: Space> McpProblem for DistanceProblem<'_, S> {
    fn dim(&self) -> usize {
        self.lower.len()
    }
    fn lower_bounds(&self) -> &[f64] {
        &self.lower
    }
    fn upper_bounds(&self) -> &[f64] {
        &self.upper
    }
    fn function(&mut self, z: &[f64], f: &mut [f64]) {
        let d = S::DIM;
        let (a1, a2) = (vec_at::<S>(z, 0), vec_at::<S>(z, d));
        let (mut r1, mut r2) = (a1 - a2, a2 - a1);
        let m = self.a.len();
        for (i, fi) in self.a.functions().iter().enumerate() {
            let e = world_eval(fi, self.pose_a, &a1);
            r1 += e.gradient * z[2 * d + i];
            f[2 * d + i] = -e.value;
        }
        for (j, gj) in self.b.functions().iter().enumerate() {
            let e = world_eval(gj, self.pose_b, &a2);
            r2 += e.gradient * z[2 * d + m + j];
            f[2 * d + m + j] = -e.value;
        }
        for k in 0..d {
            f[k] = r1[k];
            f[d + k] = r2[k];
        }
    }
    fn jacobian(&mut self, z: &[f64], jac: &mut DenseJacobian) {
        let d = S::DIM;
        jac.fill(0.0);
        let (a1, a2) = (vec_at::<S>(z, 0), vec_at::<S>(z, d));
        for k in 0..d {
            jac[(k, k)] = 1.0;
            jac[(d + k, d + k)] = 1.0;
            jac[(k, d + k)] = -1.0;
            jac[(d + k, k)] = -1.0;
        }
        let m = self.a.len();
        let blocks = [
            (self.a, self.pose_a, a1, 0usize, 2 * d),
            (self.b, self.pose_b, a2, d, 2 * d + m),
        ];
        for (part, pose, x, row, col0) in blocks {
            for (i, fi) in part.functions().iter().enumerate() {
                let e = world_eval(fi, pose, &x);
                let l = z[col0 + i];
                for r in 0..d {
                    for c in 0..d {
                        jac[(row + r, row + c)] += l * e.hessian[(r, c)];
                    }
                    jac[(row + r, col0 + i)] = e.gradient[r];
                    jac[(col0 + i, row + r)] = -e.gradient[r];
                }
            }
        }
    }
}

/// The depth problem `max s : hₖ(x) + s ≤ 0` as an MCP in `(x, s, μ_A, μ_B)`; see the module
/// docs.
pub struct DepthProblem<'a, S: Space> {
    a: &'a ConvexPart<S>,
    pose_a: &'a Pose<S>,
    b: &'a ConvexPart<S>,
    pose_b: &'a Pose<S>,
    lower: Vec<f64>,
    upper: Vec<f64>,
}

impl<'a, S: Space> DepthProblem<'a, S> {
    /// The problem for part `a` at `pose_a` and part `b` at `pose_b`, with `s ≤ cap`.
    pub fn new(
        a: &'a ConvexPart<S>,
        pose_a: &'a Pose<S>,
        b: &'a ConvexPart<S>,
        pose_b: &'a Pose<S>,
        cap: f64,
    ) -> Self {
        let d = S::DIM;
        let n = d + 1 + a.len() + b.len();
        let mut lower = vec![f64::NEG_INFINITY; n];
        lower[d + 1..].fill(0.0);
        let mut upper = vec![f64::INFINITY; n];
        upper[d] = cap;
        Self {
            a,
            pose_a,
            b,
            pose_b,
            lower,
            upper,
        }
    }

    fn functions(&self) -> impl Iterator<Item = (&dyn ImplicitFn<S>, &Pose<S>)> {
        let fa = self
            .a
            .functions()
            .iter()
            .map(|f| (f as &dyn ImplicitFn<S>, self.pose_a));
        let fb = self
            .b
            .functions()
            .iter()
            .map(|f| (f as &dyn ImplicitFn<S>, self.pose_b));
        fa.chain(fb)
    }
}

impl<S: Space> McpProblem for DepthProblem<'_, S> {
    fn dim(&self) -> usize {
        self.lower.len()
    }
    fn lower_bounds(&self) -> &[f64] {
        &self.lower
    }
    fn upper_bounds(&self) -> &[f64] {
        &self.upper
    }
    fn function(&mut self, z: &[f64], f: &mut [f64]) {
        let d = S::DIM;
        let (x, s) = (vec_at::<S>(z, 0), z[d]);
        let mut rx = S::zero_vector();
        let mut rs = -1.0;
        for (k, (h, pose)) in self.functions().enumerate() {
            let e = world_eval(h, pose, &x);
            let mu = z[d + 1 + k];
            rx += e.gradient * mu;
            rs += mu;
            f[d + 1 + k] = -(e.value + s);
        }
        for k in 0..d {
            f[k] = rx[k];
        }
        f[d] = rs;
    }
    fn jacobian(&mut self, z: &[f64], jac: &mut DenseJacobian) {
        let d = S::DIM;
        jac.fill(0.0);
        let x = vec_at::<S>(z, 0);
        for (k, (h, pose)) in self.functions().enumerate() {
            let e = world_eval(h, pose, &x);
            let (mu, col) = (z[d + 1 + k], d + 1 + k);
            for r in 0..d {
                for c in 0..d {
                    jac[(r, c)] += mu * e.hessian[(r, c)];
                }
                jac[(r, col)] = e.gradient[r];
                jac[(col, r)] = -e.gradient[r];
            }
            jac[(d, col)] = 1.0;
            jac[(col, d)] = -1.0;
        }
    }
}

/// A world point inside the part (its interior point, else the body origin).
fn start_point<S: Space>(part: &ConvexPart<S>, pose: &Pose<S>) -> S::Vector {
    pose.transform_point(&part.interior_point().unwrap_or_else(S::zero_vector))
}

/// Closest points, distance, normal and contact state of part `a` at `pose_a` and part `b` at
/// `pose_b` (see the module docs for the two MCPs solved). Fails only if a solve does not
/// converge; the error carries the solver's report.
pub fn proximity<S: Space>(
    a: &ConvexPart<S>,
    pose_a: &Pose<S>,
    b: &ConvexPart<S>,
    pose_b: &Pose<S>,
    settings: &ProximitySettings,
) -> Result<Proximity<S>, ProximityError> {
    let d = S::DIM;
    let (m, n) = (a.len(), b.len());
    let fail = |stage, report| ProximityError {
        part_a: a.name().to_string(),
        part_b: b.name().to_string(),
        stage,
        report: Box::new(report),
    };
    let (pa, pb) = (start_point(a, pose_a), start_point(b, pose_b));
    let mut problem = DistanceProblem::new(a, pose_a, b, pose_b);
    let mut z = vec![0.0; problem.dim()];
    for k in 0..d {
        z[k] = pa[k];
        z[d + k] = pb[k];
    }
    let distance_report = solve(&mut problem, &mut z, &settings.solver);
    if !distance_report.converged() {
        return Err(fail("distance", distance_report));
    }
    let (a1, a2) = (vec_at::<S>(&z, 0), vec_at::<S>(&z, d));
    let gap = a2 - a1;
    let distance = S::norm(&gap);
    if distance > settings.separation_tolerance {
        return Ok(Proximity {
            state: ContactState::Separated,
            distance,
            point_a: a1,
            point_b: a2,
            normal: gap * (1.0 / distance),
            multipliers_a: z[2 * d..2 * d + m].to_vec(),
            multipliers_b: z[2 * d + m..].to_vec(),
            depth: None,
            distance_report,
            depth_report: None,
        });
    }
    let mut depth_problem = DepthProblem::new(a, pose_a, b, pose_b, settings.depth_cap);
    let mut w = vec![0.0; depth_problem.dim()];
    let x0 = (a1 + a2) * 0.5;
    for k in 0..d {
        w[k] = x0[k];
    }
    let depth_report = solve(&mut depth_problem, &mut w, &settings.solver);
    if !depth_report.converged() {
        return Err(fail("depth", depth_report));
    }
    let x = vec_at::<S>(&w, 0);
    let depth = w[d];
    let mu = &w[d + 1..];
    let mut normal = S::zero_vector();
    for (i, fi) in a.functions().iter().enumerate() {
        normal += world_eval(fi, pose_a, &x).gradient * mu[i];
    }
    let len = S::norm(&normal);
    if len > 0.0 {
        normal = normal * (1.0 / len);
    }
    let state = if depth > settings.depth_tolerance {
        ContactState::Intersecting
    } else {
        ContactState::Touching
    };
    Ok(Proximity {
        state,
        distance,
        point_a: x,
        point_b: x,
        normal,
        multipliers_a: mu[..m].to_vec(),
        multipliers_b: mu[m..m + n].to_vec(),
        depth: Some(depth),
        distance_report,
        depth_report: Some(depth_report),
    })
}
