//! Bilateral joint rows in the step's MCP: `Θ(q^{ℓ+1}) = 0` with free multipliers (paper §3,
//! the equality constraints of the model; the lecture notes' bilateral rows).
//!
//! # Rows
//!
//! A joint ([`crate::model::Joint`]) holds an anchor `s_b` and a joint frame `J_b` (columns
//! `e₀` = the axis, `e₁`, `e₂`) in each body's frame. At the end-of-step poses
//! `q_b^{ℓ+1}(ν_b) = (c_b + h v_b, exp(h ω_b) R_b)` (the contact blocks' kinematic map) the
//! world anchors are `p_b = c_b + r_b`, `r_b = R_b s_b`, and the world axes `u_{b,i} = R_b J_b
//! e_i`. A joint is a list of three kinds of scalar rows:
//!
//! ```text
//! point  k     (p₂ − p₁)·e_k            the anchors coincide (component k)
//! along  i     (p₂ − p₁)·u_{1,i}        body 2's anchor stays on body 1's line or plane
//! dot    i j   u_{1,i}·u_{2,j}          two frame axes stay perpendicular
//! ```
//!
//! | joint      | 2D rows                    | 3D rows                                        |
//! |------------|----------------------------|------------------------------------------------|
//! | revolute   | point 0, 1                 | point 0–2, dot 1 0, dot 2 0 (axis kept)        |
//! | prismatic  | along 1, dot 0 1           | along 1, 2, dot 0 1, dot 1 2, dot 2 0          |
//! | fixed      | point 0, 1, dot 0 1        | point 0–2, dot 0 1, dot 1 2, dot 2 0           |
//! | ball       | —                          | point 0–2                                      |
//!
//! Each row has a free multiplier `λ` (an impulse, N·s for the point and along rows, N·m·s for
//! the dot rows) and adds `G_bᵀ λ` to body `b`'s momentum, `G_b` the row's gradient with respect
//! to body `b`'s world-frame pose perturbation `(δc, δθ)`: the workless impulse of the
//! constraint (virtual work). With `a·(δθ × b) = δθ·(b × a)` (true in 2D too, with the planar
//! cross product), the gradients are
//!
//! ```text
//!            ∂/∂c₁     ∂/∂θ₁             ∂/∂c₂    ∂/∂θ₂
//! point k    −e_k      −r₁ × e_k         e_k      r₂ × e_k
//! along i    −u        u × (p₂ − c₁)     u        r₂ × u          (u = u_{1,i})
//! dot i j    0         a × b             0        b × a           (a = u_{1,i}, b = u_{2,j})
//! ```
//!
//! The step's Jacobian needs them as functions of `ν`: the row block is `G D`, with
//! `D_b = diag(h I, h J_l(h ω_b))` ([`BodyStep`]), and the wrench rows' derivative is `λ`
//! times the derivative of the gradients above (each vector attached to body `b` turning as
//! `δv = δθ_b × v`), written out in `row_terms`. Every quantity is computed in 3D, a planar
//! vector `(x, y)` as `(x, y, 0)` and a planar rotation about `z`, so the rows are written once
//! for both spaces. The rows are exact at the end of the step, so a joint does not drift: its
//! residual after the step is the solve's tolerance.
//!
//! # Limits and friction
//!
//! A prismatic or revolute joint may add rows on its free coordinate `q` (the one
//! [`JointBlock::coordinate`] reports), after the rows above, in this order:
//!
//! ```text
//! lower     (q − lo) / h  ⊥  λ_lo ≥ 0            a stop: impulse  λ_lo ∇q
//! upper     (hi − q) / h  ⊥  λ_hi ≥ 0            a stop: impulse −λ_hi ∇q
//! friction  q̇ = ∇q · ν    ⊥  λ_f ∈ [−F h, F h]    Coulomb:  impulse  λ_f ∇q
//! ```
//!
//! `q` is the prismatic joint's `along 0` row, and the revolute joint's angle `atan2(y, x)` of
//! two dot rows (3D `x = u_{1,1}·u_{2,1}`, `y = u_{1,2}·u_{2,1}`; 2D `x = u_{1,0}·u_{2,0}`,
//! `y = u_{1,1}·u_{2,0}`), its gradient and Hessian composed from theirs: the stops then act
//! along the same virtual displacement as the rows above, at the end-of-step poses, and are
//! exact and inelastic (the step ends on the stop, at rest against it). The friction row is
//! the end-of-step rate `Σ_y ∇_y q · ν_y` (its own `O(1)` scale, m/s or rad/s), whose
//! derivative has the gradient's own turning (the Hessian times `ν`) beside `∇q`: a box-bounded
//! multiplier gives Coulomb's law (at a bound while `q` moves, inside it while `q̇ = 0`),
//! with the bound an impulse over the (sub-)step, so it takes the step's `h`
//! ([`JointBlock::write_bounds`]). These rows are inequalities: [`JointBlock::drift`] leaves
//! them out, and the second-order integrators refuse them.

use crate::block::{BlockJacobian, JacobianShape};
use crate::contact::BodyStep;
use crate::geometry::Pose;
use crate::model::{Dynamics, Joint, JointKind};
use nalgebra::{Matrix3, Vector3};

#[cfg(test)]
mod tests;

type V3 = Vector3<f64>;
type M3 = Matrix3<f64>;

/// One scalar row of a joint (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Row {
    Point(usize),
    Along(usize),
    Dot(usize, usize),
    /// `q − lo ≥ 0`.
    Lower,
    /// `hi − q ≥ 0`.
    Upper,
    /// The rate `q̇`, its multiplier in `[−F h, F h]`.
    Friction,
}

impl Row {
    /// Whether the row is an equality (a bilateral row of the joint's kind).
    fn is_equality(self) -> bool {
        matches!(self, Row::Point(_) | Row::Along(_) | Row::Dot(..))
    }
}

/// A row's value, gradient over `[δc₁, δθ₁, δc₂, δθ₂]` and the gradient's derivative.
type Terms = (f64, [V3; 4], [[M3; 4]; 4]);

/// The rows of a joint kind in `dim` dimensions.
fn rows_of(kind: JointKind, dim: usize) -> Vec<Row> {
    use Row::*;
    let point = (0..dim).map(Point);
    let frame = [Dot(0, 1), Dot(1, 2), Dot(2, 0)];
    match (kind, dim) {
        (JointKind::Revolute, 2) | (JointKind::Ball, _) => point.collect(),
        (JointKind::Revolute, _) => point.chain([Dot(1, 0), Dot(2, 0)]).collect(),
        (JointKind::Prismatic, 2) => vec![Along(1), Dot(0, 1)],
        (JointKind::Prismatic, _) => [Along(1), Along(2)].into_iter().chain(frame).collect(),
        (JointKind::Fixed, 2) => point.chain([Dot(0, 1)]).collect(),
        (JointKind::Fixed, _) => point.chain(frame).collect(),
    }
}

/// Output of [`JointBlock::evaluate`], laid out like a contact's ([`crate::contact::ContactEval`]):
/// `values = [rows; wrench on body 1; wrench on body 2]` and their Jacobian over
/// `[λ; ν₁; ν₂]`, `total × total`.
#[derive(Debug, Clone, PartialEq)]
pub struct JointEval {
    /// Rows `Θ`, then the wrenches `G_bᵀ λ` (force `D`, moment `A`) on body 1 and body 2.
    pub values: Vec<f64>,
    /// `∂values/∂(λ, ν₁, ν₂)`.
    pub jacobian: BlockJacobian,
    local: usize,
    dof: usize,
}

impl JointEval {
    /// The joint's rows `Θ(q^{ℓ+1})`.
    pub fn residual(&self) -> &[f64] {
        &self.values[..self.local]
    }
    /// The wrench on body 1.
    pub fn wrench1(&self) -> &[f64] {
        &self.values[self.local..self.local + self.dof]
    }
    /// The wrench on body 2.
    pub fn wrench2(&self) -> &[f64] {
        &self.values[self.local + self.dof..]
    }
}

/// One joint's block in the step's MCP: its rows, multipliers and exact Jacobian.
#[derive(Debug, Clone)]
pub struct JointBlock<S: Dynamics> {
    joint: Joint<S>,
    rows: Vec<Row>,
    /// The proximal weights `ε_i` and centre `λ̄` of the rows (see [`Self::proximal_mut`]).
    weights: Vec<f64>,
    center: Vec<f64>,
}

/// The end-of-step quantities of one side of a joint, in 3D.
struct Side {
    c: V3,
    r: V3,
    axes: [V3; 3],
}

/// `v` as a 3D vector.
fn embed<S: Dynamics>(v: &S::Vector) -> V3 {
    V3::from_fn(|i, _| if i < S::DIM { v[i] } else { 0.0 })
}

/// The 3D component of angular index `j`: `z` in 2D.
fn angular_component<S: Dynamics>(j: usize) -> usize {
    if S::ANGULAR_DIM == 1 { 2 } else { j }
}

/// A row's value, its gradient `[∂/∂c₁, ∂/∂θ₁, ∂/∂c₂, ∂/∂θ₂]` and the gradient's derivative
/// `h[x][y] = ∂g_x/∂ξ_y` over the same four pose perturbations (see the module docs).
fn row_terms(row: Row, f1: &Side, f2: &Side) -> Terms {
    let skew = |v: &V3| v.cross_matrix();
    let zero = M3::zeros();
    let mut h = [[zero; 4]; 4];
    let (p1, p2) = (f1.c + f1.r, f2.c + f2.r);
    match row {
        Row::Point(k) => {
            let e = V3::ith(k, 1.0);
            let g = [-e, -f1.r.cross(&e), e, f2.r.cross(&e)];
            h[1][1] = -skew(&e) * skew(&f1.r);
            h[3][3] = skew(&e) * skew(&f2.r);
            ((p2 - p1)[k], g, h)
        }
        Row::Along(i) => {
            let u = f1.axes[i];
            let w = p2 - f1.c;
            let g = [-u, u.cross(&w), u, f2.r.cross(&u)];
            let (su, sr2) = (skew(&u), skew(&f2.r));
            h[0][1] = su;
            h[1][0] = -su;
            h[1][1] = skew(&w) * su;
            h[1][2] = su;
            h[1][3] = -su * sr2;
            h[2][1] = -su;
            h[3][1] = -sr2 * su;
            h[3][3] = su * sr2;
            ((p2 - p1).dot(&u), g, h)
        }
        Row::Dot(i, j) => {
            let (a, b) = (f1.axes[i], f2.axes[j]);
            let ab = a.cross(&b);
            let g = [V3::zeros(), ab, V3::zeros(), -ab];
            let (sa, sb) = (skew(&a), skew(&b));
            h[1][1] = sb * sa;
            h[1][3] = -sa * sb;
            h[3][1] = -sb * sa;
            h[3][3] = sa * sb;
            (a.dot(&b), g, h)
        }
        Row::Lower | Row::Upper | Row::Friction => unreachable!("a row of the coordinate"),
    }
}

/// `atan2(y, x)` of two rows' terms: `∇θ = (x ∇y − y ∇x) / r²` and its derivative, with
/// `r² = x² + y²`.
fn angle_terms((x, gx, hx): Terms, (y, gy, hy): Terms) -> Terms {
    let r2 = x * x + y * y;
    let g: [V3; 4] = std::array::from_fn(|a| (gy[a] * x - gx[a] * y) / r2);
    let dr: [V3; 4] = std::array::from_fn(|b| (gx[b] * x + gy[b] * y) * (2.0 / r2));
    let h = std::array::from_fn(|a| {
        std::array::from_fn(|b| {
            (hy[a][b] * x - hx[a][b] * y + gy[a] * gx[b].transpose() - gx[a] * gy[b].transpose())
                / r2
                - g[a] * dr[b].transpose()
        })
    });
    (y.atan2(x), g, h)
}

/// A row's gradient `[∂/∂c₁, ∂/∂θ₁, ∂/∂c₂, ∂/∂θ₂]` as velocity rows on body 1 and body 2.
fn gradient_entries<S: Dynamics>(g: &[V3; 4]) -> [[f64; 6]; 2] {
    let mut out = [[0.0; 6]; 2];
    for (b, o) in out.iter_mut().enumerate() {
        for k in 0..S::DIM {
            o[k] = g[2 * b][k];
        }
        for j in 0..S::ANGULAR_DIM {
            o[S::DIM + j] = g[2 * b + 1][angular_component::<S>(j)];
        }
    }
    out
}

impl<S: Dynamics> JointBlock<S> {
    /// The block of `joint`.
    pub fn new(joint: Joint<S>) -> Self {
        let mut rows = rows_of(joint.kind, S::DIM);
        if joint.limits.is_some() {
            rows.extend([Row::Lower, Row::Upper]);
        }
        if joint.friction.is_some() {
            rows.push(Row::Friction);
        }
        let n = rows.len();
        Self {
            joint,
            rows,
            weights: vec![0.0; n],
            center: vec![0.0; n],
        }
    }

    /// The joint.
    pub fn joint(&self) -> &Joint<S> {
        &self.joint
    }

    /// Number of rows (and multipliers).
    pub fn local_count(&self) -> usize {
        self.rows.len()
    }

    /// `local_count + 2 DOF`: the size of [`JointEval`].
    pub fn total(&self) -> usize {
        self.rows.len() + 2 * S::DOF
    }

    /// The proximal weights `ε_i` and centre `λ̄_i` of the rows, which then read
    /// `Θ_i + ε_i (λ_i − λ̄_i) = 0`: redundant joints (two hinges on one axis, a closed loop in
    /// a singular pose) share an impulse in a continuum of ways, and the proximal-point
    /// iteration of the step picks the least-change one, as for indeterminate contacts (see
    /// [`crate::stepper`], "Well-posed impulses"). At `λ = λ̄` the rows are the joint's own.
    pub fn proximal_mut(&mut self) -> (&mut [f64], &mut [f64]) {
        (&mut self.weights, &mut self.center)
    }

    /// Sets each row's proximal weight to `weight(G)` of its velocity rows `G` on body 1 and
    /// body 2 at `pose1`, `pose2` (see [`Self::velocity_rows`]).
    pub fn set_proximal_weights(
        &mut self,
        pose1: &Pose<S>,
        pose2: &Pose<S>,
        weight: impl Fn(&[[f64; 6]; 2]) -> f64,
    ) {
        let (f1, f2) = (self.side(0, pose1), self.side(1, pose2));
        for i in 0..self.rows.len() {
            let (_, g, _) = self.terms(self.rows[i], &f1, &f2);
            self.weights[i] = weight(&gradient_entries::<S>(&g));
        }
    }

    /// Bounds of the multipliers for a step of `h`: see [`Self::write_bounds`].
    pub fn bounds(&self, h: f64) -> (Vec<f64>, Vec<f64>) {
        let n = self.local_count();
        let (mut lo, mut hi) = (vec![0.0; n], vec![0.0; n]);
        self.write_bounds(h, &mut lo, &mut hi);
        (lo, hi)
    }

    /// Writes the bounds of the multipliers for a (sub-)step of `h` into `lo` and `hi`
    /// (`local_count` entries): free for the equality rows, `[0, ∞)` for the limits, and the
    /// friction impulse's `[−F h, F h]`.
    pub fn write_bounds(&self, h: f64, lo: &mut [f64], hi: &mut [f64]) {
        for ((&row, l), u) in self.rows.iter().zip(lo).zip(hi) {
            (*l, *u) = match row {
                Row::Lower | Row::Upper => (0.0, f64::INFINITY),
                Row::Friction => {
                    let f = self.joint.friction.unwrap_or(0.0) * h;
                    (-f, f)
                }
                _ => (f64::NEG_INFINITY, f64::INFINITY),
            };
        }
    }

    /// The generalised impulses along the free coordinate of the multipliers `x`: the
    /// limits' `λ_lo − λ_hi` (positive: the lower stop pushes `q` up) and the friction's `λ_f`
    /// (N·s or N·m·s, along `+q` like the actuator's force); `None` for a joint without them.
    pub fn coordinate_impulses(&self, x: &[f64]) -> (Option<f64>, Option<f64>) {
        let (mut limit, mut friction) = (None, None);
        for (&row, &xi) in self.rows.iter().zip(x) {
            match row {
                Row::Lower => *limit.get_or_insert(0.0) += xi,
                Row::Upper => *limit.get_or_insert(0.0) -= xi,
                Row::Friction => friction = Some(xi),
                _ => {}
            }
        }
        (limit, friction)
    }

    /// A zeroed evaluation for this block.
    pub fn new_eval(&self) -> JointEval {
        let total = self.total();
        JointEval {
            values: vec![0.0; total],
            jacobian: BlockJacobian::zeros(JacobianShape::dense(total)),
            local: self.local_count(),
            dof: S::DOF,
        }
    }

    fn side(&self, b: usize, pose: &Pose<S>) -> Side {
        let rotate = |v: &S::Vector| embed::<S>(&S::rotate(&pose.rotation, v));
        Side {
            c: embed::<S>(&pose.position),
            r: rotate(&self.joint.anchor[b]),
            axes: self.joint.axes[b].map(|e| rotate(&e)),
        }
    }

    /// The largest equality row `|Θ|` with the bodies at `pose1` and `pose2` (the joint's
    /// drift: metres for the point and along rows, the sine of an angle for the dot rows; the
    /// limits and friction are inequalities, not part of it).
    pub fn drift(&self, pose1: &Pose<S>, pose2: &Pose<S>) -> f64 {
        let (f1, f2) = (self.side(0, pose1), self.side(1, pose2));
        self.rows
            .iter()
            .filter(|row| row.is_equality())
            .map(|&row| row_terms(row, &f1, &f2).0.abs())
            .fold(0.0, f64::max)
    }

    /// Per row `i`, its velocity row `G_b` on body 1 and body 2 (`(∂/∂c, ∂/∂θ)` in `S::DOF`
    /// entries each, the rest zero) with the bodies at `pose1` and `pose2`: `dΘ_i/dt = Σ_b G_b
    /// ν_b`, and `G_bᵀ` is the direction of the row's impulse on body `b`.
    pub fn velocity_rows(
        &self,
        pose1: &Pose<S>,
        pose2: &Pose<S>,
        mut out: impl FnMut(usize, [[f64; 6]; 2]),
    ) {
        let (f1, f2) = (self.side(0, pose1), self.side(1, pose2));
        for (i, &row) in self.rows.iter().enumerate() {
            let (_, g, _) = self.terms(row, &f1, &f2);
            out(i, gradient_entries::<S>(&g));
        }
    }

    /// The wrenches `G_bᵀ λ` of the multipliers `x` on body 1 and body 2 (about their origins,
    /// `S::DOF` entries each) with the bodies at `pose1` and `pose2`.
    pub fn wrenches(&self, x: &[f64], pose1: &Pose<S>, pose2: &Pose<S>) -> [[f64; 6]; 2] {
        let mut out = [[0.0; 6]; 2];
        self.velocity_rows(pose1, pose2, |i, g| {
            for (o, gb) in out.iter_mut().zip(g) {
                for (v, e) in o.iter_mut().zip(gb) {
                    *v += x[i] * e;
                }
            }
        });
        out
    }

    /// The impulse of the multipliers `x` on body 2 with the bodies at `pose1` and `pose2`:
    /// the force impulse (`D` entries, world frame) and the angular impulse about the anchor
    /// (`A` entries), written into `out` (`S::DOF` entries). Body 1 receives their opposite.
    pub fn impulse_on_body2(&self, x: &[f64], pose1: &Pose<S>, pose2: &Pose<S>, out: &mut [f64]) {
        let [_, w2] = self.wrenches(x, pose1, pose2);
        let force = V3::from_fn(|i, _| if i < S::DIM { w2[i] } else { 0.0 });
        let mut moment = V3::zeros();
        for j in 0..S::ANGULAR_DIM {
            moment[angular_component::<S>(j)] = w2[S::DIM + j];
        }
        // About the anchor instead of body 2's origin.
        let r2 = self.side(1, pose2).r;
        moment -= r2.cross(&force);
        for k in 0..S::DIM {
            out[k] = force[k];
        }
        for j in 0..S::ANGULAR_DIM {
            out[S::DIM + j] = moment[angular_component::<S>(j)];
        }
    }

    /// The terms of the free coordinate `q` (see the module docs): a prismatic joint's
    /// `along 0` row, a revolute joint's angle composed from two dot rows.
    fn coordinate_terms(&self, f1: &Side, f2: &Side) -> Terms {
        match (self.joint.kind, S::DIM) {
            (JointKind::Revolute, 2) => angle_terms(
                row_terms(Row::Dot(0, 0), f1, f2),
                row_terms(Row::Dot(1, 0), f1, f2),
            ),
            (JointKind::Revolute, _) => angle_terms(
                row_terms(Row::Dot(1, 1), f1, f2),
                row_terms(Row::Dot(2, 1), f1, f2),
            ),
            _ => row_terms(Row::Along(0), f1, f2),
        }
    }

    /// A row's terms: [`row_terms`], or the limits' and friction's from the coordinate's
    /// (the friction row's value is its rate, written by [`Self::evaluate`]).
    fn terms(&self, row: Row, f1: &Side, f2: &Side) -> Terms {
        let [lo, hi] = self.joint.limits.unwrap_or([0.0; 2]);
        match row {
            Row::Lower => {
                let (q, g, h) = self.coordinate_terms(f1, f2);
                (q - lo, g, h)
            }
            Row::Upper => {
                let (q, g, h) = self.coordinate_terms(f1, f2);
                (hi - q, g.map(|v| -v), h.map(|r| r.map(|m| -m)))
            }
            Row::Friction => self.coordinate_terms(f1, f2),
            _ => row_terms(row, f1, f2),
        }
    }

    /// The joint's free coordinate `q` from its limit rows' terms with the bodies at `pose1`
    /// and `pose2` (`None` for a joint without a free coordinate): [`Self::coordinate`]'s, to
    /// rounding.
    pub fn limit_coordinate(&self, pose1: &Pose<S>, pose2: &Pose<S>) -> Option<f64> {
        if !matches!(self.joint.kind, JointKind::Prismatic | JointKind::Revolute) {
            return None;
        }
        let (f1, f2) = (self.side(0, pose1), self.side(1, pose2));
        Some(self.coordinate_terms(&f1, &f2).0)
    }

    /// The joint's free coordinate `q` and its rate `q̇` with the bodies at `pose1`, `pose2`
    /// moving with `twist1`, `twist2` (`(v, ω)`, `S::DOF` entries): a prismatic joint's
    /// `(p₂ − p₁)·u₁` along body 1's axis, a revolute joint's angle about its axis from the
    /// initial configuration (in `(−π, π]`), `None` for the other kinds.
    pub fn coordinate(
        &self,
        pose1: &Pose<S>,
        pose2: &Pose<S>,
        twist1: &[f64],
        twist2: &[f64],
    ) -> Option<(f64, f64)> {
        let (f1, f2) = (self.side(0, pose1), self.side(1, pose2));
        let linear = |t: &[f64]| V3::from_fn(|i, _| if i < S::DIM { t[i] } else { 0.0 });
        let angular = |t: &[f64]| {
            let mut w = V3::zeros();
            for j in 0..S::ANGULAR_DIM {
                w[angular_component::<S>(j)] = t[S::DIM + j];
            }
            w
        };
        let (w1, w2) = (angular(twist1), angular(twist2));
        match self.joint.kind {
            JointKind::Prismatic => {
                let u = f1.axes[0];
                let d = f2.c + f2.r - f1.c - f1.r;
                let (v1, v2) = (
                    linear(twist1) + w1.cross(&f1.r),
                    linear(twist2) + w2.cross(&f2.r),
                );
                Some((d.dot(&u), (v2 - v1).dot(&u) + d.dot(&w1.cross(&u))))
            }
            JointKind::Revolute => {
                let (u, b1, b2) = if S::DIM == 2 {
                    (V3::z(), f1.axes[0], f2.axes[0])
                } else {
                    (f1.axes[0], f1.axes[1], f2.axes[1])
                };
                let angle = b1.cross(&b2).dot(&u).atan2(b1.dot(&b2));
                Some((angle, (w2 - w1).dot(&u)))
            }
            JointKind::Fixed | JointKind::Ball => None,
        }
    }

    /// The actuator's force or torque `f` at the given state (see [`Self::coordinate`]) and
    /// time `t`, and its wrenches on body 1 and body 2 (about their origins, `S::DOF` entries each): along
    /// the axis at body 2's anchor for a prismatic joint, about it for a revolute one. `None`
    /// without an actuator.
    pub fn actuator_wrenches(
        &self,
        pose1: &Pose<S>,
        pose2: &Pose<S>,
        twist1: &[f64],
        twist2: &[f64],
        t: f64,
    ) -> Option<(f64, [[f64; 6]; 2])> {
        let actuator = self.joint.actuator?;
        let (q, rate) = self.coordinate(pose1, pose2, twist1, twist2)?;
        let f = actuator.output(q, rate, t);
        let (f1, f2) = (self.side(0, pose1), self.side(1, pose2));
        let (force, moment1, moment2) = match self.joint.kind {
            JointKind::Prismatic => {
                let force = f1.axes[0] * f;
                let at = f2.c + f2.r;
                (force, (at - f1.c).cross(&-force), f2.r.cross(&force))
            }
            _ => {
                let u = if S::DIM == 2 { V3::z() } else { f1.axes[0] };
                (V3::zeros(), -u * f, u * f)
            }
        };
        let g = [-force, moment1, force, moment2];
        Some((f, gradient_entries::<S>(&g)))
    }

    /// The rows `Θ_i / h + ε_i (λ_i − λ̄_i)`, the wrenches of the multipliers `x` on both
    /// bodies and their exact Jacobian over `(λ, ν₁, ν₂)` at the end-of-step poses of `s1` and
    /// `s2` after a step of `h`. The rows are divided by `h` (the velocity that closes them
    /// over the step): their Jacobian `G D / h` is then `O(1)` beside the mass matrix, and the
    /// solve's tolerance (in m/s) holds the joint to `h` times it in metres and its impulse to
    /// the tolerance times the bodies' masses.
    pub fn evaluate(
        &self,
        x: &[f64],
        s1: &BodyStep<S>,
        s2: &BodyStep<S>,
        h: f64,
        eval: &mut JointEval,
    ) {
        let (d, a, dof) = (S::DIM, S::ANGULAR_DIM, S::DOF);
        let n = self.rows.len();
        let (f1, f2) = (self.side(0, &s1.pose_end), self.side(1, &s2.pose_end));
        eval.values.fill(0.0);
        eval.jacobian.clear();
        let steps = [s1, s2];
        // Perturbation y of body y / 2, linear (even y) or angular: its block columns and
        // the derivative of a 3D quantity along each, `∂q/∂ν = (∂q/∂ξ_y) D_y`.
        let columns = |y: usize, dq: &dyn Fn(usize) -> f64, out: &mut dyn FnMut(usize, f64)| {
            let step = steps[y / 2];
            let base = n + (y / 2) * dof;
            if y.is_multiple_of(2) {
                for k in 0..d {
                    out(base + k, dq(k) * step.dtrans_dv);
                }
            } else {
                for j in 0..a {
                    let v = (0..a)
                        .map(|k| dq(angular_component::<S>(k)) * step.drot_domega[(k, j)])
                        .sum();
                    out(base + d + j, v);
                }
            }
        };
        for (i, &row) in self.rows.iter().enumerate() {
            let (value, g, hessian) = self.terms(row, &f1, &f2);
            let lambda = x[i];
            eval.jacobian[(i, i)] = self.weights[i];
            if row == Row::Friction {
                // q̇ = Σ_y g_y·ν_y: ∂/∂ν_z = g_z directly, and (Σ_y ν_yᵀ ∂g_y/∂ξ_z) D_z.
                let twist = |s: &BodyStep<S>| {
                    let mut w = V3::zeros();
                    for j in 0..a {
                        w[angular_component::<S>(j)] = s.angular_velocity[j];
                    }
                    [embed::<S>(&s.linear_velocity), w]
                };
                let ([v1, w1], [v2, w2]) = (twist(s1), twist(s2));
                let nu = [v1, w1, v2, w2];
                let rate: f64 = g.iter().zip(&nu).map(|(gy, ny)| gy.dot(ny)).sum();
                eval.values[i] = rate + self.weights[i] * (lambda - self.center[i]);
                for (z, gz) in g.iter().enumerate() {
                    let step = steps[z / 2];
                    let base = n + (z / 2) * dof;
                    if !step.fixed {
                        if z.is_multiple_of(2) {
                            for k in 0..d {
                                eval.jacobian[(i, base + k)] += gz[k];
                            }
                        } else {
                            for j in 0..a {
                                eval.jacobian[(i, base + d + j)] += gz[angular_component::<S>(j)];
                            }
                        }
                    }
                    let turn: V3 = (0..4).map(|y| hessian[y][z].tr_mul(&nu[y])).sum();
                    columns(z, &|k| turn[k], &mut |c, v| eval.jacobian[(i, c)] += v);
                }
            } else {
                eval.values[i] = value / h + self.weights[i] * (lambda - self.center[i]);
                for (y, gy) in g.iter().enumerate() {
                    columns(y, &|k| gy[k] / h, &mut |c, v| eval.jacobian[(i, c)] += v);
                }
            }
            // Wrench rows: body x / 2's force (even x) or moment, λ g_x, and λ ∂g_x/∂ν.
            for (xi, gx) in g.iter().enumerate() {
                let base = n + (xi / 2) * dof;
                let count = if xi.is_multiple_of(2) { d } else { a };
                for t in 0..count {
                    let (r, comp) = if xi.is_multiple_of(2) {
                        (base + t, t)
                    } else {
                        (base + d + t, angular_component::<S>(t))
                    };
                    eval.values[r] += lambda * gx[comp];
                    eval.jacobian[(r, i)] += gx[comp];
                    if lambda != 0.0 {
                        for (y, hy) in hessian[xi].iter().enumerate() {
                            columns(y, &|k| hy[(comp, k)], &mut |c, v| {
                                eval.jacobian[(r, c)] += lambda * v
                            });
                        }
                    }
                }
            }
        }
    }
}

impl crate::block::BlockEval for JointEval {
    fn values(&self) -> &[f64] {
        &self.values
    }
    fn jacobian(&self) -> &BlockJacobian {
        &self.jacobian
    }
}

impl<S: Dynamics> crate::block::ConstraintBlock<S> for JointBlock<S> {
    type Eval = JointEval;
    fn local_count(&self) -> usize {
        JointBlock::local_count(self)
    }
    fn bounds(&self, h: f64) -> (Vec<f64>, Vec<f64>) {
        JointBlock::bounds(self, h)
    }
    fn write_bounds(&self, h: f64, lo: &mut [f64], hi: &mut [f64]) {
        JointBlock::write_bounds(self, h, lo, hi)
    }
    fn new_eval(&self) -> JointEval {
        JointBlock::new_eval(self)
    }
    fn evaluate(
        &self,
        x: &[f64],
        s1: &BodyStep<S>,
        s2: &BodyStep<S>,
        h: f64,
        eval: &mut JointEval,
    ) {
        JointBlock::evaluate(self, x, s1, s2, h, eval)
    }
}
