//! The quasi-rigid contact (paper §5, eq. 33–40 and 48–55): a rigid core inside a bounded
//! compliant layer, a law of its own around the rigid kernel ([`ContactBlock`]). The kernel
//! writes its rows into the block's evaluation with the law's unknowns appended after `σ`
//! ([`ContactLayout::extension`]); the law splits the kernel's `p_n` column into the spring's
//! and the core's, patches the rows the layer shifts and writes its own. The derivation and the
//! corrections to the printed equations are in the [module docs](crate::contact) ("Quasi-rigid
//! contacts").

use super::block::{
    Compact, ContactBlock, ContactError, ContactEval, ContactLayout, MAX_WIDTH, Mat3, NormalSource,
    Row, Vec3, arr, friction_axes, gradient_rows, mat_rows, most_active, tangent_basis, value_row,
};
use super::body_step::BodyStep;
use crate::geometry::{ConvexPart, Pose, Space, world_eval, world_eval_for};
use crate::model::{CompliantLayer, Integrator};

/// Which side of a contact carries the compliant layer: the one-function side `F` (body 1) or
/// the side `G` (body 2, possibly an intersection).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompliantSide {
    /// Object `F` (body 1, one function `f`): the layer shifts `f` to `f + δ̄_n`.
    F,
    /// Object `G` (body 2): the layer shifts every `g_j` to `g_j + δ̄_n`.
    G,
}

/// The quasi-rigid data of one contact after a step (for output and energy).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QuasiRigidState {
    /// The normal deflection `max(δ_n, 0)` of the layer.
    pub deflection: f64,
    /// `δ = (δ_n, δ_t[, δ_o])` as solved (`δ_n` is the signed approach under the midpoint
    /// integrator, negative when apart; the third entry is 0 in 2D).
    pub delta: [f64; 3],
    /// The spring impulse `p_ns`.
    pub spring_impulse: f64,
    /// The core impulse `p_nr`.
    pub core_impulse: f64,
    /// The elastic energy `½ δᵀ K δ` stored in the layer (with `δ_n` clipped at 0).
    pub elastic_energy: f64,
}

/// Offsets of a quasi-rigid contact's own unknowns (and rows), after the kernel's `σ`. The
/// kernel's slot [`ContactLayout::normal`] holds the spring impulse `p_ns`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuasiLayout {
    /// Offset of `δ̄_n`, the algebraic distance (row: the deflection relation, eq. 35).
    pub deflection_bar: usize,
    /// Offset of `δ = (δ_n, δ_t[, δ_o])` (`D` entries; rows: the spring–damper law).
    pub delta: usize,
    /// Offset of `p_nr`, the core impulse (row: `δ_max − δ_n ≥ 0`).
    pub core: usize,
}

impl QuasiLayout {
    /// Number of the law's unknowns in `dim` dimensions: `δ̄_n`, `δ` (`dim`), `p_nr`.
    pub fn count(dim: usize) -> usize {
        dim + 2
    }

    /// The law's offsets after the kernel's unknowns of `kernel`.
    pub fn after(kernel: &ContactLayout) -> Self {
        let base = kernel.kernel_count();
        Self {
            deflection_bar: base,
            delta: base + 1,
            core: base + 1 + kernel.dim,
        }
    }
}

/// A quasi-rigid contact: the rigid kernel, the compliant layer and its state carried from step
/// to step (`δ^ℓ`).
#[derive(Debug, Clone)]
pub struct QuasiRigidContact<S: Space> {
    /// The rigid contact whose rows the law extends (its layout has the law's unknowns).
    kernel: ContactBlock<S>,
    /// Where the law's unknowns sit.
    quasi: QuasiLayout,
    /// The layer's stiffness, damping and maximum deflection.
    pub layer: CompliantLayer,
    /// The side that carries it.
    pub side: CompliantSide,
    /// The scheme of the spring law and of the body update.
    pub integrator: Integrator,
    /// The compliant side's function of the deflection relation (its most active one; only
    /// an intersection has a choice).
    active: usize,
    /// `δ^ℓ` in the current contact frame (`δ_n, δ_t[, δ_o]`).
    previous: Vec3,
    /// 3D: the tangential deflection `δ_t t + δ_o o` of the last step as a world vector, and
    /// the normal it was taken at, so a new tangent reference re-expresses it exactly.
    tangential_world: Vec3,
    normal_previous: Vec3,
    /// The contact's solutions of its last three whole steps, newest first (warm start), and
    /// how many are valid.
    history: [Vec<f64>; 3],
    history_len: usize,
}

/// The function of an intersection `part` (body at `pose`) that carries most of the outward
/// normal `out` at its point `p`: the largest share `lⱼ ∇φⱼ(p)·out` of the KKT rows' sum
/// `Σ lⱼ ∇φⱼ ∝ out` over the multipliers `l`. On a face that is the face's function; at an edge
/// or corner, the face the normal leans towards. The most active function (largest value) is
/// not enough: at a corner every adjacent face is active, and a side face's function does not
/// change along the normal, which leaves the deflection relation without a solution. Where no
/// multiplier is positive: the most active function.
fn loaded_function<S: Space>(
    part: &ConvexPart<S>,
    pose: &Pose<S>,
    p: &S::Vector,
    l: &[f64],
    out: &S::Vector,
) -> usize {
    let mut best = (0.0, None);
    for (j, &lj) in l.iter().enumerate() {
        if lj > 0.0 {
            let share = lj * S::dot(&part.world_eval(j, pose, p).gradient, out);
            if share > best.0 {
                best = (share, Some(j));
            }
        }
    }
    best.1.unwrap_or_else(|| most_active(part, pose, p))
}

/// `V(δ) = ½ k max(δ, 0)²` between `a = δ^ℓ` and `b = δ^{ℓ+1}`: the discrete gradient
/// `(V(b) − V(a))/(b − a)` (`V'` where `a = b`) and its derivative in `b`. `C¹` in `b` except
/// at `b = 0` when `a = 0` exactly.
pub fn discrete_gradient(k: f64, a: f64, b: f64) -> (f64, f64) {
    if a >= 0.0 && b >= 0.0 {
        (0.5 * k * (a + b), 0.5 * k)
    } else if a <= 0.0 && b <= 0.0 {
        (0.0, 0.0)
    } else if a < 0.0 {
        let s = b - a;
        (0.5 * k * b * b / s, 0.5 * k * b * (b - 2.0 * a) / (s * s))
    } else {
        let s = a - b;
        (0.5 * k * a * a / s, 0.5 * k * a * a / (s * s))
    }
}

impl<S: Space> QuasiRigidContact<S> {
    /// The rigid `kernel` with a compliant layer on `side`, integrated by `integrator`. The
    /// midpoint integrator needs a layer without normal–tangential coupling (its normal law is
    /// the discrete gradient of the normal spring alone).
    pub fn new(
        mut kernel: ContactBlock<S>,
        layer: CompliantLayer,
        side: CompliantSide,
        integrator: Integrator,
    ) -> Result<Self, ContactError> {
        if layer.dim != S::DIM {
            return Err(ContactError::InvalidLayer(format!(
                "the layer has {} deflection directions but the contact is {}D",
                layer.dim,
                S::DIM
            )));
        }
        if integrator.splits_smooth_impulses() && !layer.is_normal_decoupled() {
            return Err(ContactError::InvalidLayer(
                "the midpoint integrator needs a layer without normal–tangential coupling \
                 (K and C with zero (n, t) and (n, o) entries)"
                    .into(),
            ));
        }
        kernel.extend(QuasiLayout::count(S::DIM));
        let quasi = QuasiLayout::after(&kernel.layout());
        Ok(Self {
            kernel,
            quasi,
            layer,
            side,
            integrator,
            active: 0,
            previous: [0.0; 3],
            tangential_world: [0.0; 3],
            normal_previous: [0.0; 3],
            history: Default::default(),
            history_len: 0,
        })
    }

    /// The rigid kernel without the law (its layout back to the kernel's own unknowns).
    pub fn into_kernel(self) -> ContactBlock<S> {
        let mut kernel = self.kernel;
        kernel.extend(0);
        kernel
    }

    /// The rigid kernel.
    pub fn kernel(&self) -> &ContactBlock<S> {
        &self.kernel
    }

    /// The rigid kernel, to set its proximal terms, cone scale and levers (its tangent
    /// reference through [`set_tangent_reference`](Self::set_tangent_reference)).
    pub fn kernel_mut(&mut self) -> &mut ContactBlock<S> {
        &mut self.kernel
    }

    /// The index layout: the kernel's, extended by the law's unknowns.
    pub fn layout(&self) -> ContactLayout {
        self.kernel.layout()
    }

    /// Where the law's own unknowns sit.
    pub fn quasi_layout(&self) -> QuasiLayout {
        self.quasi
    }

    /// Number of local variables (and rows).
    pub fn local_count(&self) -> usize {
        self.kernel.local_count()
    }

    /// The kernel's bounds with the law's: `p_nr ≥ 0`, `p_ns` bounded as
    /// [`spring_impulse_lower_bound`](Self::spring_impulse_lower_bound) says.
    pub fn bounds(&self) -> (Vec<f64>, Vec<f64>) {
        let (mut lower, upper) = self.kernel.bounds();
        lower[self.quasi.core] = 0.0;
        lower[self.kernel.normal_index()] = self.spring_impulse_lower_bound();
        (lower, upper)
    }

    /// A zeroed evaluation.
    pub fn new_eval(&self) -> ContactEval {
        self.kernel.new_eval()
    }

    /// Sets the kernel's 3D tangent reference and re-expresses the carried tangential
    /// deflection in its basis.
    pub fn set_tangent_reference(&mut self, e: S::Vector) -> Result<(), ContactError> {
        self.kernel.set_tangent_reference(e)?;
        self.reexpress_tangential(&arr::<S>(&self.kernel.tangent_reference()));
        Ok(())
    }

    /// The normal impulse `p_n = p_ns + p_nr` in `x` (the rows FR and CS bound friction by it).
    pub fn normal_impulse(&self, x: &[f64]) -> f64 {
        x[self.kernel.normal_index()] + x[self.quasi.core]
    }

    /// The algebraic distance `δ̄_n` in `x`.
    pub fn deflection_bar(&self, x: &[f64]) -> f64 {
        x[self.quasi.deflection_bar]
    }

    /// Lower bound of `p_ns`: 0 under Euler (the paper's complementarity), free under the
    /// midpoint integrator (an equation there, see the module docs).
    pub fn spring_impulse_lower_bound(&self) -> f64 {
        match self.integrator {
            Integrator::Euler => 0.0,
            Integrator::Midpoint | Integrator::Rattle => f64::NEG_INFINITY,
        }
    }

    /// `δ^ℓ` in the contact frame (`δ_n, δ_t[, δ_o]`).
    pub fn previous_deflection(&self) -> [f64; 3] {
        self.previous
    }

    /// 3D: re-expresses the stored tangential deflection in the basis of the new tangent
    /// reference `e` (2D: the basis is fixed by the normal, nothing to do).
    fn reexpress_tangential(&mut self, e: &Vec3) {
        if self.layer.dim != 3 || self.normal_previous == [0.0; 3] {
            return;
        }
        let basis = tangent_basis(3, &self.normal_previous, e);
        for k in 0..2 {
            self.previous[1 + k] = (0..3)
                .map(|i| self.tangential_world[i] * basis[k].0[i])
                .sum();
        }
    }

    /// Evaluates the quasi-rigid block: the kernel's rows at `p_n = p_ns + p_nr` (wrench with
    /// the weighted `w p_ns + p_nr`), its `p_n` column split between `p_ns` and `p_nr`, the rows
    /// the layer shifts patched, and the rows of `δ̄_n`, `δ` and `p_nr` written.
    pub fn evaluate(
        &self,
        x: &[f64],
        body1: &BodyStep<S>,
        body2: &BodyStep<S>,
        out: &mut ContactEval,
    ) {
        self.evaluate_for::<true>(x, body1, body2, out);
    }

    /// The rows and wrenches of [`evaluate`](Self::evaluate) alone, bit for bit, the Jacobian
    /// in `out` left stale (see [`ContactBlock::evaluate_values`]).
    pub fn evaluate_values(
        &self,
        x: &[f64],
        body1: &BodyStep<S>,
        body2: &BodyStep<S>,
        out: &mut ContactEval,
    ) {
        self.evaluate_for::<false>(x, body1, body2, out);
    }

    /// [`evaluate`](Self::evaluate) with `JAC`; without, the values alone (the same bits).
    fn evaluate_for<const JAC: bool>(
        &self,
        x: &[f64],
        body1: &BodyStep<S>,
        body2: &BodyStep<S>,
        out: &mut ContactEval,
    ) {
        let (lay, ql, block) = (self.kernel.layout(), self.quasi, &self.kernel);
        let r = lay;
        let d = S::DIM;
        let nt = d - 1;
        let w = self.integrator.smooth_weight();
        let (p_ns, p_nr) = (x[r.normal], x[ql.core]);
        let pn = p_ns + p_nr;

        let mut source = NormalSource::default();
        let weighted = w * p_ns + p_nr;
        block.evaluate_kernel::<JAC>(x, pn, weighted, body1, body2, out, Some(&mut source));
        if JAC {
            // ∂/∂p_n splits: p_nr (the kernel's column) and p_ns (its wrench rows times w).
            out.jacobian.copy_column(r.normal, ql.core);
            for v in &mut out.jacobian.column_mut(r.normal)[lay.nu1..] {
                *v *= w;
            }
        }

        let vals = &mut out.values;
        let (shape, jac) = out.jacobian.parts_mut();
        let at = |row: usize, col: usize| shape.index(row, col);
        let h = body1.dtrans_dv.max(body2.dtrans_dv);
        let dbar = x[ql.deflection_bar];
        let delta = &x[ql.delta..ql.delta + d];
        let prev = &self.previous;

        // Shifted sublevel set of the compliant side: C1 (F) or C2 (G), and C3 for F; with two
        // intersections F's rows CF (C3 is the scale t ≥ 0 between the shifted sets).
        match self.side {
            CompliantSide::F if r.f_count > 0 => {
                for k in 0..r.f_count {
                    vals[r.lf + k] -= dbar;
                    if JAC {
                        jac[at(r.lf + k, ql.deflection_bar)] = -1.0;
                    }
                }
            }
            CompliantSide::F => {
                vals[r.l1] -= dbar;
                vals[r.normal] += dbar;
                if JAC {
                    jac[at(r.l1, ql.deflection_bar)] = -1.0;
                    jac[at(r.normal, ql.deflection_bar)] = 1.0;
                }
            }
            CompliantSide::G => {
                for j in 0..r.g_count {
                    vals[r.l2 + j] -= dbar;
                    if JAC {
                        jac[at(r.l2 + j, ql.deflection_bar)] = -1.0;
                    }
                }
            }
        }

        // FR (tangential): the slip is the relative velocity less the deflection rate,
        // s_k + (δ_k − δ_k^ℓ)/h.
        let fr = block.friction();
        let axes = friction_axes(&fr);
        for k in 0..nt {
            let c = axes[k] * axes[k] * fr.mu;
            let dd = delta[1 + k] - prev[1 + k];
            let row = r.friction + k;
            vals[row] += c * pn * dd / h;
            if JAC {
                jac[at(row, ql.delta + 1 + k)] += c * pn / h;
                jac[at(row, r.normal)] += c * dd / h;
                jac[at(row, ql.core)] += c * dd / h;
            }
        }

        // The normal n = g/‖g‖ of the kernel's normal source (δn from its derivative).
        let cols = Compact::new::<S>(&lay, shape, body1.fixed, body2.fixed);
        let bw = cols.body_width;
        let a1s = S::vector_from_fn(|i| x[r.a1 + i]);
        let a2s = S::vector_from_fn(|i| x[r.a2 + i]);
        let NormalSource {
            g,
            dg,
            cols: source_cols,
        } = source;
        let gnorm = (0..d).map(|i| g[i] * g[i]).sum::<f64>().sqrt();
        let n: Vec3 = std::array::from_fn(|i| if i < d { g[i] / gnorm } else { 0.0 });
        let ns = S::vector_from_fn(|i| n[i]);

        // Deflection relation (eq. 35): the compliant function vanishes at the layer point
        // moved by δ_n along its outward normal (G: −n at a₂; F: +n at a₁). Apart (δ_n < 0: the
        // signed approach of the midpoint integrators) the relation linearised in δ_n at the
        // layer point itself, φ(a) + s δ_n ∇φ(a)·n: equal to the relation with its first
        // derivatives at δ_n = 0 (C¹ across touching), exact for a flat layer, and always
        // solvable, whereas far from its partner a curved part's shifted level set is a much
        // larger one (homothetic, not parallel) whose point can lie where the line along n
        // misses the part.
        let dn_val = delta[0];
        let apart = dn_val < 0.0;
        let moved = if apart { 0.0 } else { dn_val };
        let (e, sign, compliant, point) = match self.side {
            CompliantSide::G => {
                let p = a2s - ns * moved;
                let e = block
                    .part_g()
                    .world_eval_for::<JAC>(self.active, &body2.pose_end, &p);
                (e, -1.0, body2, bw)
            }
            CompliantSide::F => {
                let p = a1s + ns * moved;
                let e = match block.part_f() {
                    Some(part) => part.world_eval_for::<JAC>(self.active, &body1.pose_end, &p),
                    None => world_eval_for::<S, _, JAC>(block.function_f(), &body1.pose_end, &p),
                };
                (e, 1.0, body1, 0)
            }
        };
        let grad = arr::<S>(&e.gradient);
        let along: f64 = (0..d).map(|i| grad[i] * n[i]).sum();
        let row = ql.deflection_bar;
        vals[row] = e.value;
        if apart {
            vals[row] += sign * dn_val * along;
        }
        if JAC {
            let mut rr: Row = value_row(&e, compliant, point, point + d, 1.0);
            let proj: Mat3 = std::array::from_fn(|i| {
                std::array::from_fn(|k| ((if i == k { 1.0 } else { 0.0 }) - n[i] * n[k]) / gnorm)
            });
            let dn = mat_rows::<S>(&proj, &dg, source_cols.clone());
            for c in source_cols {
                let acc: f64 = (0..d).map(|i| grad[i] * dn[i][c]).sum();
                rr[c] += sign * dn_val * acc;
            }
            if apart {
                // δ(∇φ(a)) · n: the Hessian on the point, the pose terms on the compliant body.
                let dgrad = gradient_rows(&e, compliant, point, point + d);
                for c in 0..MAX_WIDTH {
                    let acc: f64 = (0..d).map(|i| n[i] * dgrad[i][c]).sum();
                    rr[c] += sign * dn_val * acc;
                }
            }
            cols.scatter::<S>(jac, row, &rr, 1.0);
            jac[at(row, ql.delta)] = sign * along;
        }

        // Spring–damper law (eq. 37/49): p_k = h Σ_j K_kj δ_j + Σ_j C_kj (δ_j − δ_j^ℓ); the
        // midpoint integrator replaces the normal row by the discrete gradient.
        let (kk, cc) = (&self.layer.stiffness, &self.layer.damping);
        for k in 0..d {
            let row = ql.delta + k;
            let col = if k == 0 { r.normal } else { r.friction + k - 1 };
            if JAC {
                jac[at(row, col)] = 1.0;
            }
            let mut v = x[col];
            if k == 0 && self.integrator.splits_smooth_impulses() {
                let (dgv, dgd) = discrete_gradient(kk[(0, 0)], prev[0], delta[0]);
                let damp = cc[(0, 0)] * (delta[0].max(0.0) - prev[0].max(0.0));
                let ddamp = if delta[0] > 0.0 { cc[(0, 0)] } else { 0.0 };
                v -= h * dgv + damp;
                if JAC {
                    jac[at(row, ql.delta)] = -(h * dgd + ddamp);
                }
            } else {
                for j in 0..d {
                    v -= h * kk[(k, j)] * delta[j] + cc[(k, j)] * (delta[j] - prev[j]);
                    if JAC {
                        jac[at(row, ql.delta + j)] = -(h * kk[(k, j)] + cc[(k, j)]);
                    }
                }
            }
            vals[row] = v;
        }

        // Core: δ_max − δ_n ≥ 0 ⊥ p_nr ≥ 0.
        vals[ql.core] = self.layer.max_deflection - delta[0];
        if JAC {
            jac[at(ql.core, ql.delta)] = -1.0;
        }
    }
}

impl<S: Space> QuasiRigidContact<S> {
    /// The unit normal: the normal source (`∇f(a₁)` or `ĝ`) normalised, body 1 at `pose1`.
    fn normal_at(&self, x: &[f64], pose1: &Pose<S>) -> Vec3 {
        let g = arr::<S>(&self.kernel.normal_source(x, pose1));
        let len = (0..S::DIM).map(|i| g[i] * g[i]).sum::<f64>().sqrt();
        std::array::from_fn(|i| if i < S::DIM { g[i] / len } else { 0.0 })
    }

    /// Sets the deflection relation's function of the compliant side: the one that carries
    /// most of the normal at the points of `x` (`G` at `pose2`, `F` at `pose1`; only an
    /// intersection has a choice), see [`loaded_function`].
    fn choose_active(&mut self, x: &[f64], pose1: &Pose<S>, pose2: &Pose<S>) {
        let (k, l) = (&self.kernel, self.kernel.layout());
        let point = |a: usize| S::vector_from_fn(|i| x[a + i]);
        // A single function is the part itself.
        let several = |part: &ConvexPart<S>| part.len() > 1;
        self.active = match (self.side, k.part_f()) {
            (CompliantSide::G, _) if several(k.part_g()) => loaded_function(
                k.part_g(),
                pose2,
                &point(l.a2),
                &x[l.l2..l.l2 + l.g_count],
                &-k.normal_source(x, pose1),
            ),
            (CompliantSide::F, Some(part)) if several(part) => loaded_function(
                part,
                pose1,
                &point(l.a1),
                &x[l.lf..l.lf + l.f_count],
                &k.normal_source(x, pose1),
            ),
            _ => 0,
        };
    }

    /// The start state and the initial guess of the layer's variables, from the rigid guess
    /// `x` (closest points at `distance` apart, bodies at `pose1`, `pose2`). Euler starts
    /// undeflected (`δ = 0`, `δ̄_n = 0`). The midpoint integrator's `δ_n` is the signed
    /// approach, so it starts at `−distance` with the shifted layer touching the rigid side.
    pub fn initialize(&mut self, x: &mut [f64], distance: f64, pose1: &Pose<S>, pose2: &Pose<S>) {
        let (l, ql) = (self.kernel.layout(), self.quasi);
        self.choose_active(x, pose1, pose2);
        self.normal_previous = self.normal_at(x, pose1);
        self.previous = [0.0; 3];
        self.tangential_world = [0.0; 3];
        self.history_len = 0;
        x[ql.deflection_bar..ql.core + 1].fill(0.0);
        if !(self.integrator.splits_smooth_impulses() && distance > 0.0) {
            return;
        }
        self.previous[0] = -distance;
        x[ql.delta] = -distance;
        let (k, d) = (&self.kernel, S::DIM);
        match self.side {
            CompliantSide::G => {
                let a1 = S::vector_from_fn(|i| x[l.a1 + i]);
                let v = k.part_g().world_eval(self.active, pose2, &a1).value;
                x[ql.deflection_bar] = -v;
                x.copy_within(l.a1..l.a1 + d, l.a2);
            }
            CompliantSide::F => {
                let a2 = S::vector_from_fn(|i| x[l.a2 + i]);
                let v = match k.part_f() {
                    Some(part) => (0..part.len())
                        .map(|j| part.world_eval(j, pose1, &a2).value)
                        .fold(f64::NEG_INFINITY, f64::max),
                    None => world_eval(k.function_f(), pose1, &a2).value,
                };
                x[ql.deflection_bar] = -v;
                x.copy_within(l.a2..l.a2 + d, l.a1);
            }
        }
        x[l.l1] = 0.0;
    }

    /// After a converged step: the solved deflection becomes `δ^ℓ` of the next step (3D: its
    /// tangential part kept as a world vector), and the compliant side's function is re-chosen.
    /// `pose1` and `pose2` are the bodies' poses at the end of the step. `whole_step` says the
    /// step was not a retried half: only whole steps extend the warm-start history
    /// ([`predict`](Self::predict)); a half step restarts it.
    pub fn commit(&mut self, x: &[f64], pose1: &Pose<S>, pose2: &Pose<S>, whole_step: bool) {
        let (d, ql) = (S::DIM, self.quasi);
        let n = self.normal_at(x, pose1);
        let e = arr::<S>(&self.kernel.tangent_reference());
        self.choose_active(x, pose1, pose2);
        self.previous[..d].copy_from_slice(&x[ql.delta..ql.delta + d]);
        self.normal_previous = n;
        self.history.rotate_right(1);
        self.history[0].clear();
        self.history[0].extend_from_slice(x);
        self.history_len = if whole_step {
            (self.history_len + 1).min(3)
        } else {
            0
        };
        if d == 3 {
            let basis = tangent_basis(3, &n, &e);
            let p = self.previous;
            self.tangential_world =
                std::array::from_fn(|i| p[1] * basis[0].0[i] + p[2] * basis[1].0[i]);
        }
    }

    /// Warm start of the local variables `x` (bounds `lower`): the closest points, `l₁`, `l₂`,
    /// `p_ns`, `δ̄_n` and `δ` extrapolated by the quadratic through the contact's last three
    /// whole steps (linearly after two; nothing after fewer), the multipliers and `p_ns` kept
    /// within their bounds.
    pub fn predict(&self, x: &mut [f64], lower: &[f64]) {
        if self.history_len < 2 {
            return;
        }
        let (l, ql) = (self.kernel.layout(), self.quasi);
        let [h0, h1, h2] = &self.history;
        for i in (l.a1..l.normal + 1).chain(ql.deflection_bar..ql.core) {
            x[i] = if self.history_len == 3 {
                3.0 * h0[i] - 3.0 * h1[i] + h2[i]
            } else {
                2.0 * h0[i] - h1[i]
            };
        }
        for i in l.l1..l.normal + 1 {
            x[i] = x[i].max(lower[i]);
        }
    }

    /// The layer's state at the local variables `x`.
    pub fn state(&self, x: &[f64]) -> QuasiRigidState {
        let (d, ql) = (S::DIM, self.quasi);
        let delta: [f64; 3] = std::array::from_fn(|i| if i < d { x[ql.delta + i] } else { 0.0 });
        let mut clipped = delta;
        clipped[0] = clipped[0].max(0.0);
        QuasiRigidState {
            deflection: delta[0].max(0.0),
            delta,
            spring_impulse: x[self.kernel.normal_index()],
            core_impulse: x[ql.core],
            elastic_energy: self.layer.elastic_energy(&clipped),
        }
    }

    /// The wrench of the spring impulse `p_ns n` on body 1 (at `a₁`) and body 2 (at `a₂`),
    /// each as `(force, moment)` in `S::DOF` entries, for the bodies at their end-of-step poses
    /// `pose1`, `pose2`. The midpoint integrator adds half of it to the end-of-step momentum.
    pub fn spring_wrench(
        &self,
        x: &[f64],
        pose1: &Pose<S>,
        pose2: &Pose<S>,
    ) -> ([f64; 6], [f64; 6]) {
        let l = self.kernel.layout();
        let n = self.normal_at(x, pose1);
        let p = x[l.normal];
        let force = S::vector_from_fn(|i| n[i] * p);
        let mut out = ([0.0; 6], [0.0; 6]);
        for (sign, a, pose, slot) in [
            (-1.0, l.a1, pose1, &mut out.0),
            (1.0, l.a2, pose2, &mut out.1),
        ] {
            let r = S::vector_from_fn(|i| x[a + i]) - pose.position;
            let m = S::cross(&r, &force);
            for i in 0..S::DIM {
                slot[i] = sign * force[i];
            }
            for i in 0..S::ANGULAR_DIM {
                slot[S::DIM + i] = sign * m[i];
            }
        }
        out
    }
}

super::contact_constraint_block!(QuasiRigidContact);
