//! The RATTLE integrator ([`Integrator::Rattle`](crate::model::Integrator)): its part of the
//! step's MCP (the first half-kick, [`super::Scheme`]) and its end of step:
//! the second half-kick of the smooth impulses at the end-of-step state, the projection of
//! the end-of-step velocity onto the velocity constraints of the contacts that carry an
//! impulse, and the energy projection of workless steps. The first kick and the drift are the
//! step's MCP (see the module docs of [`crate::stepper::implicit`], "Second-order integration"
//! and "Energy projection"). The velocity projection here serves the midpoint integrator's
//! joints too.

use super::Scheme;
use crate::mcp::SparseLu;
use crate::model::{Dynamics, Twist, apply_inverse_mass, inverse_inertia};
use crate::model::{RigidBody, Scene, Wrench};
use crate::stepper::implicit::{ImplicitStepper, StepperError};
use nalgebra::{DMatrix, DVector};

/// [`crate::model::Integrator::Rattle`].
pub(in crate::stepper::implicit) struct Rattle;

impl<S: Dynamics> Scheme<S> for Rattle {
    fn check(&self, scene: &Scene<S>) -> Result<(), StepperError> {
        super::refuse_euler_only(scene)
    }
    /// Half of every smooth impulse: the first kick.
    fn momentum(&self, body: &RigidBody<S>, free: Wrench<S>, _applied: &Wrench<S>) -> Wrench<S> {
        free.scaled(0.5) + body.apply_mass_matrix(&body.twist).scaled(0.5)
    }
    fn smooth_weight(&self) -> f64 {
        0.5
    }
    /// The first kick's gyroscopic impulse at the midpoint of that kick, `½ (ω^ℓ + ν_ω)`:
    /// `(ν − v)ᵀ I (ν + v) = ½ h λ_vp(ω̄) · 2ω̄ = 0`, so it changes no kinetic energy
    /// ([`ImplicitStepper::second_kick`] takes the second kick's likewise).
    fn gyroscopic(&self, _setting: crate::model::Gyroscopic) -> (f64, f64) {
        (0.5, 0.5)
    }
    fn trapezoidal_levers(&self) -> bool {
        true
    }
    /// The contacts' normal sources at the start of the (sub-)step, for the first kick's
    /// impulse directions.
    fn begin_substep(&self, st: &mut ImplicitStepper<S>) {
        for &k in &st.active {
            let slot = &st.slots[k];
            let n = slot
                .block
                .kernel()
                .normal_source(slot.local(&st.z), &st.scene.bodies[slot.body1].pose);
            st.start_normals.extend((0..S::DIM).map(|i| n[i]));
        }
    }
    fn prepare(&self, st: &mut ImplicitStepper<S>) {
        if st.settings.energy_projection {
            st.record_start_energy();
        }
    }
    fn finish(&self, st: &mut ImplicitStepper<S>, h: f64) {
        st.second_kick(h);
    }
}

/// A contact is sticking (its tangential and torsional velocity constraints are projected on)
/// when its slip measure `σ` is below this (a speed, m/s; the solve's tolerance is 1e-10).
const STICK_SIGMA: f64 = 1e-8;

/// Newton iterations of [`gyroscopic_kick`]'s implicit solve (it converges quadratically
/// from the explicit kick, in 2–4 iterations at `h ‖ω‖` ≤ 0.1).
const GYROSCOPIC_ITERATIONS: usize = 30;

/// The angular velocity after the second kick's gyroscopic impulse, taken at the midpoint of
/// that kick as the first kick's ([`Rattle`]'s `gyroscopic`): the `w` with
/// `I⁺ (w − a) = ½ h λ_vp(½ (ν_ω + w))`, where `a` is the angular velocity the kick's other
/// impulses gave (`ν_ω` plus them) and `I⁺` the world inertia at the end pose. Then a free
/// body's `wᵀ I⁺ w = ν_ωᵀ I⁺ ν_ω = ν_ωᵀ I ν_ω` (the drift turns the body about `ν_ω`
/// itself): the two kicks keep its kinetic energy exactly, where the explicit kicks of the
/// paper's term gain `O((ωh)²)`. Newton on the 3 × 3 rows from `w = a`; should it not converge
/// within [`GYROSCOPIC_ITERATIONS`] (`h ‖ω‖` of order one, where the step's own MCP rarely
/// solves), the explicit kick at the end-of-step velocity to first order, `2ν_ω − ω^ℓ` (`v0`),
/// which is second order too, but not energy-exact.
fn gyroscopic_kick<S: Dynamics>(
    inertia: &S::AngularMatrix,
    nu: &S::Angular,
    a: &S::Angular,
    v0: &S::Angular,
    h: f64,
) -> S::Angular {
    let norm = |x: &S::Angular| (0..S::ANGULAR_DIM).fold(0.0_f64, |m, i| m.max(x[i].abs()));
    let mut w = *a;
    for _ in 0..GYROSCOPIC_ITERATIONS {
        let mid = S::angular_from_fn(|i| 0.5 * (nu[i] + w[i]));
        let push = S::gyroscopic_torque(&mid, inertia);
        let moved = *inertia * S::angular_from_fn(|i| w[i] - a[i]);
        let residual = S::angular_from_fn(|i| moved[i] - 0.5 * h * push[i]);
        let g = S::gyroscopic_jacobian(&mid, inertia);
        let jacobian = S::angular_matrix_from_fn(|i, j| inertia[(i, j)] - 0.25 * h * g[(i, j)]);
        let inverse = inverse_inertia::<S>(&jacobian);
        let step = S::angular_from_fn(|i| {
            -(0..S::ANGULAR_DIM)
                .map(|j| inverse[i][j] * residual[j])
                .sum::<f64>()
        });
        if !S::angular_is_finite(&step) {
            break;
        }
        w = S::angular_from_fn(|i| w[i] + step[i]);
        if norm(&step) <= 1e-14 * norm(&w) {
            return w;
        }
    }
    let end = S::angular_from_fn(|i| 2.0 * nu[i] - v0[i]);
    let push = S::gyroscopic_torque(&end, inertia);
    let inverse = inverse_inertia::<S>(inertia);
    S::angular_from_fn(|i| {
        a[i] + 0.5
            * h
            * (0..S::ANGULAR_DIM)
                .map(|j| inverse[i][j] * push[j])
                .sum::<f64>()
    })
}

/// One row of the projection: its entries on (at most) two bodies' twists, the velocity row
/// `J` and `M⁻¹ Bᵀ` (`B` the impulse direction) on each body (fixed size: no allocation).
#[derive(Debug, Clone, Copy)]
pub(in crate::stepper::implicit) struct ProjectionRow {
    /// Per side: the body and the offset of its twist in `ν` (`None`: fixed body).
    sides: [Option<(usize, usize)>; 2],
    j: [[f64; 6]; 2],
    mb: [[f64; 6]; 2],
    /// The contact slot, and what a unit multiplier of this row adds to its impulses
    /// `(p_n, p_t, p_o, p_r)` (in the contact block's tangent basis).
    slot: usize,
    impulse: [f64; 4],
    /// The MCP's normal impulse `p_n` of the contact.
    normal: f64,
    /// A joint's row: its index in [`KickScratch::joint_projected`] (`slot` is then
    /// [`JOINT_ROW`]); `usize::MAX` for a contact's row.
    joint_row: usize,
    /// The row's velocity from a driven body on a side without unknowns (`J` times the
    /// drive's twist): the projection makes `J v + bias` vanish.
    bias: f64,
    /// Whether a side is a driven body (which does work: the energy projection skips it).
    driven: bool,
    /// A contact converted to sliding ([`ImplicitStepper::cap_friction`]): the impulse its
    /// row adds whatever its multiplier (`(p_n, p_t, p_o, p_r)`, tangential only), and that
    /// impulse's `M⁻¹ Bᵀ` per side, already applied to the velocity being projected.
    fixed: [f64; 4],
    fixed_mb: [[f64; 6]; 2],
}

/// `M⁻¹ bᵀ` per side of a row on `sides` (its bodies and their twists' offsets; zero on the side
/// of a fixed body), with each body's `(1/m, I⁻¹)` from `inverse_mass`.
fn inverse_mass_rows<S: Dynamics>(
    sides: &[Option<(usize, usize)>; 2],
    inverse_mass: &[(f64, [[f64; 3]; 3])],
    b: &[[f64; 6]; 2],
) -> [[f64; 6]; 2] {
    let mut mb = [[0.0; 6]; 2];
    for (side, entry) in sides.iter().enumerate() {
        if let Some((body, _)) = entry {
            let (inv_m, inv_i) = &inverse_mass[*body];
            let w = apply_inverse_mass::<S>(*inv_m, inv_i, &b[side][..S::DOF]);
            mb[side][..S::DOF].copy_from_slice(&w[..S::DOF]);
        }
    }
    mb
}

/// `v += scale · dv` on the bodies of `row` (`dv` per side, as `row.mb`, `dof` entries).
fn add_to_velocity(v: &mut [f64], row: &ProjectionRow, dv: &[[f64; 6]; 2], dof: usize, scale: f64) {
    for (side, d) in row.sides.iter().zip(dv) {
        if let Some((_, start)) = side {
            for (x, y) in v[*start..*start + dof].iter_mut().zip(d) {
                *x += scale * y;
            }
        }
    }
}

/// The `slot` of a joint's projection row.
const JOINT_ROW: usize = usize::MAX;

/// What the second kick keeps between steps so that a step allocates nothing once sized.
#[derive(Debug, Clone, Default)]
pub(in crate::stepper::implicit) struct KickScratch {
    pub(super) smooth: Vec<f64>,
    pub(super) velocity: Vec<f64>,
    /// The midpoint integrator's last half kick: a body's mass matrix, factorised in place,
    /// and the impulse it is solved for.
    pub(super) body_mass: DMatrix<f64>,
    pub(super) body_impulse: DVector<f64>,
    /// `v*`, the velocity before the projection (restored if the projection added energy).
    unprojected: Vec<f64>,
    /// Per active contact, its end-of-step unit normal (NaN: quasi-rigid or none).
    normals: Vec<[f64; 3]>,
    /// Per body (scene order): `1/m` and `I_w⁻¹` at the end pose.
    pub(super) inverse_mass: Vec<(f64, [[f64; 3]; 3])>,
    /// Per body (scene order): `I_w` at the end pose, for the gyroscopic kick.
    world_inertia: Vec<[[f64; 3]; 3]>,
    pub(super) rows: Vec<ProjectionRow>,
    /// Per body, the projection rows that touch it.
    body_rows: Vec<Vec<usize>>,
    order: Vec<usize>,
    mu: Vec<f64>,
    rhs: Vec<f64>,
    col_rows: Vec<usize>,
    col_vals: Vec<f64>,
    lu: SparseLu,
    /// Per joint row (the joints' rows in scene order), the projection's multiplier in the
    /// last (sub-)step.
    pub(in crate::stepper::implicit) joint_projected: Vec<f64>,
    /// Per body, its energy at the start of the step (kinetic plus the potential of its
    /// constant forces); NaN for a body whose energy is not conserved by its loads (a
    /// controller, a constant torque, a compliant layer).
    pub(in crate::stepper::implicit) start_energy: Vec<f64>,
    /// Per contact slot, whether its normal row was projected at the end of the last step
    /// (the contact carried a rigid impulse); and its copy at the start of the step, restored
    /// when a step is redone.
    pub(in crate::stepper::implicit) loaded: Vec<bool>,
    pub(in crate::stepper::implicit) loaded_at_step: Vec<bool>,
    now_loaded: Vec<bool>,
    now_sticks: Vec<bool>,
    /// Per body, its group's representative (bodies linked by loaded contacts), and per group
    /// (at its representative) what the energy projection needs.
    group: Vec<usize>,
    groups: Vec<Group>,
}

/// A group of bodies linked by the contacts projected in a step, for the energy projection.
#[derive(Debug, Clone, Copy, Default)]
struct Group {
    /// Some contact links it to a fixed body.
    grounded: bool,
    /// Every one of its contacts is workless over the step ([`ImplicitStepper::project_energy`]).
    workless: bool,
    /// It carries at least one projected contact.
    loaded: bool,
    start_energy: f64,
    end_potential: f64,
    end_kinetic: f64,
}

/// The energy projection rescales a group's end-of-step velocities only when that changes its
/// kinetic energy by at most this fraction. The largest change a workless step needs away from
/// turning points is the step across a flat pole, 29 % at `h` = 1e-2 (7 % at 1e-3, the
/// `p = 4` superellipsoid; the rolling ellipsoid, which has no turning point, needs at most
/// 2.3e-5); at a turning point the kinetic energy nears zero and the ratio grows
/// without bound, and restoring the energy there would divide the step's small error by it.
pub(in crate::stepper::implicit) const ENERGY_PROJECTION: f64 = 0.5;

fn find(group: &mut [usize], mut b: usize) -> usize {
    while group[b] != b {
        group[b] = group[group[b]];
        b = group[b];
    }
    b
}

/// Projections with at most this many rows are solved densely on the stack.
const SMALL_PROJECTION: usize = 12;

/// Relative rounding allowed in the projection's kinetic energy before it counts as a gain
/// (a few roundings of a sum of products).
const PROJECTION_ENERGY_SLACK: f64 = 1e-12;

/// `x ← A⁻¹ x` for the row-major `n × n` matrix `a` (overwritten) by Gaussian elimination with
/// partial pivoting; false if a pivot is below 1e-13 of the matrix's largest entry (singular).
fn solve_dense(a: &mut [f64], x: &mut [f64]) -> bool {
    let n = x.len();
    let scale = a.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    if !(scale > 0.0 && scale.is_finite()) {
        return false;
    }
    for c in 0..n {
        let p = (c..n)
            .max_by(|&i, &j| a[i * n + c].abs().total_cmp(&a[j * n + c].abs()))
            .unwrap_or(c);
        if a[p * n + c].abs() <= 1e-13 * scale {
            return false;
        }
        if p != c {
            for k in 0..n {
                a.swap(p * n + k, c * n + k);
            }
            x.swap(p, c);
        }
        let d = a[c * n + c];
        for r in c + 1..n {
            let f = a[r * n + c] / d;
            if f != 0.0 {
                for k in c..n {
                    a[r * n + k] -= f * a[c * n + k];
                }
                x[r] -= f * x[c];
            }
        }
    }
    for c in (0..n).rev() {
        let s: f64 = (c + 1..n).map(|k| a[c * n + k] * x[k]).sum();
        x[c] = (x[c] - s) / a[c * n + c];
    }
    true
}

impl<S: Dynamics> ImplicitStepper<S> {
    /// RATTLE's second kick, after a converged (sub-)step of length `h` whose bodies are at
    /// their end poses with the solved twist `ν` (the drift velocity):
    ///
    /// ```text
    /// M⁺ (v* − ν) = Σ (W(q) − W(q⁺)) p + ½ (h λ_app(t + h, q⁺) + h λ_vp(½ (ν + v*)) + Σ W p_ns)
    /// v⁺ = v* + M⁺⁻¹ Bᵀ μ,     J v⁺ = 0
    /// ```
    ///
    /// `M⁺` is the mass matrix at the end pose; the gyroscopic impulse at the kick's midpoint
    /// makes `v*` implicit in its angular part, a 3 × 3 solve per body ([`gyroscopic_kick`]),
    /// and keeps a free body's kinetic energy exactly. `J` stacks, for every
    /// rigid contact with `p_n > 0`, the relative normal velocity at its end-of-step points and,
    /// if it sticks (`μ > 0`, `σ ≤` [`STICK_SIGMA`]), the relative tangential (and, in 3D with
    /// `e_r > 0`, torsional) velocity; `B` is `J` but for the normal row of a sliding contact,
    /// which carries its friction ([`Self::constraint_rows`]). `μ` solves
    /// `J M⁺⁻¹ Bᵀ μ = −J v*`, a sparse matrix coupling only rows that share a body ([`Self::project`]:
    /// dense on the stack up to [`SMALL_PROJECTION`] rows, the sparse LU beyond, so the cost is
    /// linear in the contacts; redundant rows fall back to least squares by SVD). With `B = J` the projection is
    /// `M⁺`-orthogonal, so it never adds kinetic energy.
    pub(in crate::stepper::implicit) fn second_kick(&mut self, h: f64) {
        let nv = self.layout.len();
        let t_end = self.time + h;
        let gravity = self.scene.gravity;
        let mut scratch = std::mem::take(&mut self.kick);
        let KickScratch {
            smooth,
            velocity: v,
            inverse_mass,
            world_inertia,
            normals,
            ..
        } = &mut scratch;
        // The smooth impulses at the end of the step.
        smooth.clear();
        smooth.resize(nv, 0.0);
        self.add_spring_impulses(smooth);
        v.clear();
        v.extend_from_slice(&self.z[..nv]);
        inverse_mass.clear();
        world_inertia.clear();
        for (b, body) in self.scene.bodies.iter().enumerate() {
            let Some(r) = self.layout.range(b) else {
                // A fixed body: no twist, so its entries are never read.
                inverse_mass.push((0.0, [[0.0; 3]; 3]));
                world_inertia.push([[0.0; 3]; 3]);
                continue;
            };
            let inertia = body.world_inertia();
            inverse_mass.push((1.0 / body.mass, inverse_inertia::<S>(&inertia)));
            let a = S::ANGULAR_DIM;
            world_inertia.push(std::array::from_fn(|i| {
                std::array::from_fn(|j| if i < a && j < a { inertia[(i, j)] } else { 0.0 })
            }));
            let kick = body.applied_impulse(&gravity, t_end, h);
            let mut buf = [0.0; 6];
            kick.write_to(&mut buf[..S::DOF]);
            for (i, row) in r.clone().enumerate() {
                smooth[row] = 0.5 * (smooth[row] + buf[i]);
            }
        }
        // The joint actuators' second half kick, at the end poses and the step's velocity.
        if self
            .joints
            .iter()
            .any(|j| j.block.joint().actuator.is_some())
        {
            let mut act = std::mem::take(&mut self.actuation);
            act.fill(0.0);
            self.add_actuator_impulses(t_end, h, Some(&self.z[..nv]), &mut act);
            for (s, a) in smooth.iter_mut().zip(&act) {
                *s += 0.5 * a;
            }
            self.actuation = act;
        }
        // The first kick applied the contact impulses along their end-of-step wrench W(q⁺);
        // RATTLE's first kick acts along the start-of-step constraint directions W(q): move the
        // impulses there (an O(h) change of direction of an O(h) impulse, tangential to the
        // constraints to first order; its normal part is removed by the projection below).
        let (mut k0, mut k1) = (0, 0);
        normals.clear();
        for &k in &self.active {
            let slot = &self.slots[k];
            let d = S::DIM;
            let start = &self.start_pairs[k0..k0 + 2 * d];
            k0 += 2 * d;
            let x = slot.local(&self.z);
            let (b1, b2) = (slot.body1, slot.body2);
            let (pose1, pose2) = (&self.scene.bodies[b1].pose, &self.scene.bodies[b2].pose);
            let n_end = if slot.block.quasi_rigid().is_none() {
                unit::<S>(slot.block.kernel().normal_source(x, pose1))
            } else {
                None
            };
            normals.push(n_end.map_or([f64::NAN; 3], |n| std::array::from_fn(|i| n[i % S::DIM])));
            // The start-of-step normal, kept by `advance` before the first kick moved `z`.
            let n_start = unit::<S>(S::vector_from_fn(|i| self.start_normals[k1 + i]));
            k1 += d;
            let (Some(n_end), Some(n_start)) = (n_end, n_start) else {
                continue;
            };
            if self.first_order {
                continue;
            }
            let end = self.contact_wrench(k, slot.points(&self.z), pose1, pose2, n_end);
            let (s1, s2) = (&self.start_poses[b1], &self.start_poses[b2]);
            let begin = self.contact_wrench(k, start, s1, s2, n_start);
            for (b, we, wb) in [(b1, end.0, begin.0), (b2, end.1, begin.1)] {
                if let Some(r) = self.layout.range(b) {
                    for (i, row) in r.enumerate() {
                        smooth[row] += wb[i] - we[i];
                    }
                }
            }
        }
        // The joints' impulses likewise, from G(q⁺)ᵀ λ to G(q)ᵀ λ.
        for (j, joint) in self.joints.iter().enumerate() {
            let x = joint.local(&self.z);
            let (end1, end2) = self.joint_poses(j);
            let (start1, start2) = self.joint_poses_in(j, |b| self.start_poses[b]);
            let end = joint.block.wrenches(x, &end1, &end2);
            let begin = joint.block.wrenches(x, &start1, &start2);
            for (side, b) in joint.bodies.into_iter().enumerate() {
                if let Some(r) = b.and_then(|b| self.layout.range(b)) {
                    for (i, row) in r.enumerate() {
                        smooth[row] += begin[side][i] - end[side][i];
                    }
                }
            }
        }
        for (b, &(inv_m, ref inv_i)) in inverse_mass.iter().enumerate() {
            if let Some(r) = self.layout.range(b) {
                let dv = apply_inverse_mass::<S>(inv_m, inv_i, &smooth[r.clone()]);
                for (i, row) in r.clone().enumerate() {
                    v[row] += dv[i];
                }
                if S::ANGULAR_DIM == 3 {
                    let lin = r.start + S::DIM;
                    let inertia = &world_inertia[b];
                    let w = gyroscopic_kick::<S>(
                        &S::angular_matrix_from_fn(|i, j| inertia[i][j]),
                        &S::angular_from_fn(|i| self.z[lin + i]),
                        &S::angular_from_fn(|i| v[lin + i]),
                        &S::angular_from_fn(|i| self.start_velocity[lin + i]),
                        h,
                    );
                    for i in 0..S::ANGULAR_DIM {
                        v[lin + i] = w[i];
                    }
                }
            }
        }
        self.constraint_rows(&mut scratch);
        let mut projected = std::mem::take(&mut self.projected);
        projected.clear();
        projected.resize(self.slots.len(), [0.0; 4]);
        let joint_rows = self.joints.iter().map(|j| j.block.local_count()).sum();
        scratch.joint_projected.clear();
        scratch.joint_projected.resize(joint_rows, 0.0);
        scratch.unprojected.clear();
        scratch.unprojected.extend_from_slice(&scratch.velocity);
        self.project(&mut scratch, &mut projected);
        // The projection's impulses are constraint impulses: with B = J it is M-orthogonal and
        // cannot add kinetic energy, but a sliding contact's normal row carries friction (B ≠ J)
        // and, at a struck contact whose friction turns within the step, can (a random scene
        // gained 252 J in one projection). Such a projection is dropped: v* is kept, off the
        // constraints by the step's O(h²) error, which the next step's MCP removes.
        let before = self.kinetic_energy_of(&scratch.unprojected);
        let after = self.kinetic_energy_of(&scratch.velocity);
        if after.is_nan() || after > before * (1.0 + PROJECTION_ENERGY_SLACK) {
            scratch.velocity.copy_from_slice(&scratch.unprojected);
            projected.iter_mut().for_each(|p| *p = [0.0; 4]);
            scratch.joint_projected.fill(0.0);
        }
        self.projected = projected;
        for (b, body) in self.scene.bodies.iter_mut().enumerate() {
            if let Some(r) = self.layout.range(b) {
                body.twist = Twist::from_slice(&scratch.velocity[r]);
            }
        }
        if self.settings.energy_projection {
            self.project_energy(&mut scratch);
        }
        self.kick = scratch;
    }

    /// The kinetic energy `½ vᵀ M v` of the moving bodies at their current poses for the
    /// velocities `v` (stacked as `z`'s first block).
    fn kinetic_energy_of(&self, v: &[f64]) -> f64 {
        let mut e = 0.0;
        for (b, body) in self.scene.bodies.iter().enumerate() {
            if let Some(r) = self.layout.range(b) {
                let t = Twist::<S>::from_slice(&v[r]);
                e += 0.5 * body.mass * S::dot(&t.linear, &t.linear)
                    + 0.5 * S::angular_dot(&t.angular, &(body.world_inertia() * t.angular));
            }
        }
        e
    }

    /// The energy projection's reference, at the start of a step: each body's energy, where its
    /// loads have a potential (gravity, a constant force); NaN where they do work it does not
    /// track (a controller, a constant torque, a compliant layer).
    pub(in crate::stepper::implicit) fn record_start_energy(&mut self) {
        let gravity = self.scene.gravity;
        let start_energy = &mut self.kick.start_energy;
        start_energy.clear();
        start_energy.extend(self.scene.bodies.iter().map(|b| {
            if b.loads_are_conservative() {
                b.kinetic_energy() + b.potential_energy(&gravity)
            } else {
                f64::NAN
            }
        }));
        // A joint's actuator does work its bodies' energy does not track.
        for joint in &self.joints {
            if joint.block.joint().actuator.is_some() {
                for b in joint.bodies.into_iter().flatten() {
                    self.kick.start_energy[b] = f64::NAN;
                }
            }
        }
    }

    /// The energy projection of the end of a RATTLE step: per group of bodies linked by
    /// projected contacts, touching a fixed body, whose contacts were all workless over the
    /// step (each carried an impulse at the start and at the end, and sticks or is
    /// frictionless) and whose loads are conservative, the exact motion keeps the energy; the
    /// group's end velocities are scaled by the `s ≥ 0` that restores it. Scaling keeps every
    /// velocity constraint `J v = 0` of the group (they are homogeneous in its velocities), and
    /// it is the `M`-orthogonal projection of the velocity onto the energy level at the end
    /// pose. Applied only when `|s² − 1| ≤` [`ENERGY_PROJECTION`]; the energy it changed is
    /// added to `self.energy_projected`.
    fn project_energy(&mut self, scratch: &mut KickScratch) {
        let nb = self.scene.bodies.len();
        let KickScratch {
            rows,
            start_energy,
            loaded,
            now_loaded,
            now_sticks,
            group,
            groups,
            ..
        } = scratch;
        group.clear();
        group.extend(0..nb);
        groups.clear();
        groups.resize(nb, Group::default());
        for row in rows.iter() {
            match row.sides {
                [Some((a, _)), Some((b, _))] => {
                    let (ra, rb) = (find(group, a), find(group, b));
                    group[ra.max(rb)] = ra.min(rb);
                }
                [Some((a, _)), None] | [None, Some((a, _))] => {
                    let r = find(group, a);
                    groups[r].grounded = true;
                }
                [None, None] => {}
            }
        }
        for b in 0..nb {
            let r = find(group, b);
            if b != r {
                groups[r].grounded |= groups[b].grounded;
            }
        }
        for g in groups.iter_mut() {
            g.workless = true;
        }
        // Per slot, whether it is projected now; a contact whose being loaded changed over the
        // step (an impact, a separation), a sliding contact with friction and a quasi-rigid
        // contact (its layer's energy is not the bodies') do work.
        loaded.resize(self.slots.len(), false);
        now_loaded.clear();
        now_loaded.resize(self.slots.len(), false);
        now_sticks.clear();
        now_sticks.resize(self.slots.len(), false);
        for row in rows.iter() {
            if row.driven {
                // A driven body does work on the group.
                if let Some((b, _)) = row.sides.iter().flatten().next() {
                    let r = find(group, *b);
                    groups[r].workless = false;
                }
            }
            if row.slot == JOINT_ROW {
                // A joint is workless and always holds: its group is loaded.
                if let Some((b, _)) = row.sides.iter().flatten().next() {
                    let r = find(group, *b);
                    groups[r].loaded = true;
                }
                continue;
            }
            now_loaded[row.slot] = true;
            // Tangential rows: the contact sticks through the whole step.
            now_sticks[row.slot] |= row.impulse[0] == 0.0;
        }
        for &k in &self.active {
            let slot = &self.slots[k];
            // Sliding in the MCP, or let slide by the projection (no tangential rows left).
            let slides = slot.block.kernel().friction().mu > 0.0 && !now_sticks[k];
            if slot.block.quasi_rigid().is_some() || (now_loaded[k] && slides) {
                for b in [slot.body1, slot.body2] {
                    let r = find(group, b);
                    groups[r].workless = false;
                }
            }
        }
        for (k, (was, now)) in loaded.iter().zip(now_loaded.iter()).enumerate() {
            let slot = &self.slots[k];
            for b in [slot.body1, slot.body2] {
                let r = find(group, b);
                groups[r].workless &= was == now;
                groups[r].loaded |= *now;
            }
        }
        std::mem::swap(loaded, now_loaded);
        let gravity = self.scene.gravity;
        for (b, body) in self.scene.bodies.iter().enumerate() {
            if body.fixed {
                continue;
            }
            let r = find(group, b);
            let g = &mut groups[r];
            g.start_energy += start_energy[b];
            g.end_potential += body.potential_energy(&gravity);
            g.end_kinetic += body.kinetic_energy();
        }
        let mut changed = 0.0;
        for b in 0..nb {
            let r = find(group, b);
            let g = groups[r];
            if self.scene.bodies[b].fixed || !(g.grounded && g.loaded && g.workless) {
                continue;
            }
            // NaN (a body whose loads do work) and a body at rest fail the comparison.
            let s2 = (g.start_energy - g.end_potential) / g.end_kinetic;
            let within = (s2 - 1.0).abs() <= ENERGY_PROJECTION;
            if !within || g.end_kinetic <= 0.0 {
                continue;
            }
            let s = s2.sqrt();
            let body = &mut self.scene.bodies[b];
            changed += (s2 - 1.0) * body.kinetic_energy();
            body.twist = Twist::new(body.twist.linear * s, body.twist.angular * s);
        }
        self.energy_projected += changed;
    }

    /// `v ← v + M⁻¹ Bᵀ μ` with `J M⁻¹ Bᵀ μ = −J v` over the rows of `scratch`, the multipliers
    /// added to `projected` (per slot). A contact whose normal impulse would turn negative over
    /// the whole step (`p_n + μ_n < 0`: it separates within the second half) leaves the
    /// projection and it is solved again without it, so the projection never pulls.
    pub(super) fn project(&self, scratch: &mut KickScratch, projected: &mut [[f64; 4]]) {
        let KickScratch {
            velocity: v,
            rows,
            body_rows,
            order,
            mu,
            rhs,
            col_rows,
            col_vals,
            lu,
            joint_projected,
            ..
        } = scratch;
        let dof = S::DOF;
        let dot = |a: &[f64; 6], b: &[f64; 6]| (0..dof).map(|i| a[i] * b[i]).sum::<f64>();
        // The sliding contacts' fixed friction impulses (see `constraint_rows`).
        for row in rows.iter() {
            add_to_velocity(v, row, &row.fixed_mb, dof, 1.0);
        }
        loop {
            let nr = rows.len();
            if nr == 0 {
                return;
            }
            body_rows.resize_with(self.scene.bodies.len(), Vec::new);
            for list in body_rows.iter_mut() {
                list.clear();
            }
            rhs.clear();
            for (r, row) in rows.iter().enumerate() {
                let mut jv = row.bias;
                for (side, j) in row.sides.iter().zip(&row.j) {
                    if let Some((body, start)) = side {
                        jv += (0..dof).map(|i| j[i] * v[start + i]).sum::<f64>();
                        body_rows[*body].push(r);
                    }
                }
                rhs.push(-jv);
            }
            mu.clear();
            mu.extend_from_slice(rhs);
            order.clear();
            order.extend(0..nr);
            // Column c of A = J M⁻¹ Bᵀ: the rows sharing a body with row c.
            let column = |c: usize, out_rows: &mut Vec<usize>, out_vals: &mut Vec<f64>| {
                let rc = &rows[c];
                for (s, side) in rc.sides.iter().enumerate() {
                    let Some((body, _)) = side else { continue };
                    for &i in &body_rows[*body] {
                        let ri = &rows[i];
                        for (t, other) in ri.sides.iter().enumerate() {
                            if other.is_some_and(|(b, _)| b == *body) {
                                out_rows.push(i);
                                out_vals.push(dot(&ri.j[t], &rc.mb[s]));
                            }
                        }
                    }
                }
            };
            let solved = if nr <= SMALL_PROJECTION {
                // A handful of rows (the paper's cases): dense elimination on the stack.
                let mut a = [0.0; SMALL_PROJECTION * SMALL_PROJECTION];
                for c in 0..nr {
                    col_rows.clear();
                    col_vals.clear();
                    column(c, col_rows, col_vals);
                    for (&i, &x) in col_rows.iter().zip(col_vals.iter()) {
                        a[i * nr + c] += x;
                    }
                }
                solve_dense(&mut a[..nr * nr], &mut mu[..nr])
            } else {
                lu.factor(nr, order, column, |c| c) && {
                    lu.solve(mu);
                    true
                }
            };
            if !solved {
                // Redundant rows (a body resting on more sticking contacts than it has degrees
                // of freedom): the least-squares multipliers by SVD. Allocates; such steps are
                // resting contact, not the smooth motion this integrator is for.
                let mut a = DMatrix::<f64>::zeros(nr, nr);
                for c in 0..nr {
                    col_rows.clear();
                    col_vals.clear();
                    column(c, col_rows, col_vals);
                    for (&i, &x) in col_rows.iter().zip(col_vals.iter()) {
                        a[(i, c)] += x;
                    }
                }
                let scale = a.amax().max(f64::MIN_POSITIVE);
                let rhs = DVector::from_column_slice(rhs);
                let sol = a
                    .svd(true, true)
                    .solve(&rhs, 1e-12 * scale)
                    .expect("the SVD was computed with both factors");
                mu.copy_from_slice(sol.as_slice());
            }
            // The contacts that would pull leave (at most eight a round, each round removes at
            // least one, so the loop ends); the rest is solved again.
            let mut pulling = [usize::MAX; 8];
            let mut count = 0;
            for (row, m) in rows.iter().zip(mu.iter()) {
                if row.impulse[0] == 1.0 && row.normal + m < 0.0 && count < pulling.len() {
                    pulling[count] = row.slot;
                    count += 1;
                }
            }
            if count > 0 {
                // A converted contact that leaves takes its fixed friction impulse with it.
                for row in rows.iter().filter(|r| pulling[..count].contains(&r.slot)) {
                    add_to_velocity(v, row, &row.fixed_mb, dof, -1.0);
                }
                rows.retain(|row| !pulling[..count].contains(&row.slot));
                continue;
            }
            if self.cap_friction(rows, mu, v) {
                continue;
            }
            for (row, m) in rows.iter().zip(mu.iter()) {
                if row.slot == JOINT_ROW {
                    joint_projected[row.joint_row] += m;
                } else {
                    for ((total, per), fixed) in projected[row.slot]
                        .iter_mut()
                        .zip(row.impulse)
                        .zip(row.fixed)
                    {
                        *total += per * m + fixed;
                    }
                }
                for (side, mb) in row.sides.iter().zip(&row.mb) {
                    if let Some((_, start)) = side {
                        for i in 0..dof {
                            v[start + i] += mb[i] * m;
                        }
                    }
                }
            }
            return;
        }
    }

    /// Sticking contacts whose whole-step friction (the MCP's plus the projection's multipliers
    /// `mu`) would leave the friction ellipsoid `Σ_k P_k²/e_k² ≤ μ² P_n²` by more than the
    /// solver's tolerance (in N·s) cannot stick through the second half of the step: each
    /// slides there instead. Its tangential rows leave and its normal row carries friction on the
    /// ellipsoid's boundary along the friction the stick would have needed, `B_n = J_n + Σ_k
    /// f_k J_k` with `f_k = μ P_k / (Σ_j P_j²/e_j²)^{1/2}`, as the normal row of a contact the
    /// MCP found sliding, plus the fixed tangential impulse `p_n f_k − p_k` (the MCP's `p_n`,
    /// `p_k`), applied to `v` at once. The whole step's friction is then `(p_n + μ_n) f`, on the
    /// boundary whatever the sign of the normal multiplier `μ_n` (the projection may take back
    /// part of the MCP's normal impulse; without the fixed part the friction `p + μ_n f` then
    /// left the ellipsoid). True if a contact was converted (the projection is then solved
    /// again; each round converts at least one, so it ends).
    fn cap_friction(&self, rows: &mut Vec<ProjectionRow>, mu: &[f64], v: &mut [f64]) -> bool {
        let mut changed = false;
        let mut i = 0;
        while i < rows.len() {
            let row = rows[i];
            let count = rows[i + 1..]
                .iter()
                .take_while(|r| r.slot == row.slot && r.impulse[0] == 0.0)
                .count();
            if row.impulse[0] != 1.0 || count == 0 {
                i += 1;
                continue;
            }
            let slot = &self.slots[row.slot];
            let mcp_friction = slot.block.kernel().friction_impulses(slot.local(&self.z));
            let friction = slot.block.kernel().friction();
            let axes = [friction.e_t, friction.e_o, friction.e_r];
            // The friction component of a tangential row: where its unit impulse is.
            let component = |r: &ProjectionRow| (1..4).find(|&c| r.impulse[c] == 1.0).unwrap_or(1);
            let mut total = [0.0; 3];
            for (j, t) in rows[i + 1..i + 1 + count].iter().enumerate() {
                let k = component(t) - 1;
                total[k] = mcp_friction[k] + mu[i + 1 + j];
            }
            let norm = (0..3)
                .map(|k| (total[k] / axes[k]).powi(2))
                .sum::<f64>()
                .sqrt();
            // The MCP holds its own friction in the ellipsoid to the solver's tolerance in N·s
            // (`scale_cones_left`), and the written friction is held to the same.
            let limit = friction.mu * (row.normal + mu[i]);
            if norm <= limit + self.settings.solver.tolerance {
                i += 1 + count;
                continue;
            }
            let mut normal = row;
            for t in &rows[i + 1..i + 1 + count] {
                let c = component(t);
                let f = friction.mu * total[c - 1] / norm;
                normal.impulse[c] = f;
                // The whole step's friction is (p_n + μ_n) f: the MCP's part p_n f − P_c is
                // fixed, the rest scales with the multiplier, of either sign.
                let fixed = row.normal * f - mcp_friction[c - 1];
                normal.fixed[c] = fixed;
                for (side, mb) in normal.mb.iter_mut().enumerate() {
                    for ((m, fm), tm) in mb
                        .iter_mut()
                        .zip(&mut normal.fixed_mb[side])
                        .zip(&t.mb[side])
                    {
                        *m += f * tm;
                        *fm += fixed * tm;
                    }
                }
            }
            add_to_velocity(v, &normal, &normal.fixed_mb, S::DOF, 1.0);
            rows[i] = normal;
            rows.drain(i + 1..i + 1 + count);
            changed = true;
            i += 1;
        }
        changed
    }

    /// The wrench (on body 1, on body 2; `(force, moment)` in `S::DOF` entries) of the impulses
    /// of contact slot `k` (its solution in `z`) if its points were `points = (a₁, a₂)`, its
    /// bodies at `pose1`, `pose2` and its normal `n` (the block's normal there; friction
    /// only if it sticks): `P = p_n n + Σ p_k t_k` on body 2 at `a₂` (plus the torsion `p_r n`)
    /// and the opposite on body 1 at `a₁`, the tangents built from `n` as the contact block
    /// builds them.
    fn contact_wrench(
        &self,
        k: usize,
        points: &[f64],
        pose1: &crate::geometry::Pose<S>,
        pose2: &crate::geometry::Pose<S>,
        n: S::Vector,
    ) -> ([f64; 6], [f64; 6]) {
        let slot = &self.slots[k];
        let x = slot.local(&self.z);
        let a1 = S::vector_from_fn(|i| points[i]);
        let a2 = S::vector_from_fn(|i| points[S::DIM + i]);
        let mut out = ([0.0; 6], [0.0; 6]);
        let (t, o) = tangents::<S>(&n, &slot.block.kernel().tangent_reference());
        // A sliding contact's friction stays at the end of the step (at full weight, so it
        // only dissipates): only the normal and sticking impulses are moved.
        let sticks = slot.block.kernel().slip(x) <= STICK_SIGMA;
        let mut fr = [0.0; 3];
        if sticks {
            let p = slot.block.kernel().friction_impulses(x);
            fr[..p.len()].copy_from_slice(p);
        }
        let mut force = n * slot.block.kernel().normal_impulse(x) + t * fr[0];
        if S::DIM == 3 {
            force += o * fr[1];
        }
        let torsion = if S::DIM == 3 { fr[2] } else { 0.0 };
        for (sign, a, pose, slot_out) in
            [(-1.0, a1, pose1, &mut out.0), (1.0, a2, pose2, &mut out.1)]
        {
            let m = S::cross(&(a - pose.position), &force);
            for i in 0..S::DIM {
                slot_out[i] = sign * force[i];
            }
            for i in 0..S::ANGULAR_DIM {
                let tw = if S::DIM == 3 { torsion * n[i] } else { 0.0 };
                slot_out[S::DIM + i] = sign * (m[i] + tw);
            }
        }
        out
    }

    /// The projection's rows into `scratch.rows`, with `M⁻¹ Bᵀ` from `scratch.inverse_mass`: per rigid contact with
    /// `p_n > 0`, the relative normal velocity `n·(u₂(a₂) − u₁(a₁))` and, if it sticks, the
    /// tangential (and torsional) ones, at the end-of-step poses and points. The impulse
    /// direction `B` is `J` but on the normal row of a sliding contact, where the normal impulse
    /// carries its Coulomb friction: `B_n = J_n + Σ_k f_k J_k` with `f = μ p / ‖p‖_e` from the
    /// MCP's friction impulses `p_k` along its own tangents (and torsion), so that the second
    /// half of the normal impulse slides with the same `μ` as the first; the fixed impulse
    /// `p_n f − p` moves the MCP's own friction onto that boundary.
    fn constraint_rows(&self, scratch: &mut KickScratch) {
        let KickScratch {
            rows,
            inverse_mass,
            normals,
            ..
        } = scratch;
        rows.clear();
        for (&k, normal) in self.active.iter().zip(normals.iter()) {
            let slot = &self.slots[k];
            let x = slot.local(&self.z);
            let pn = slot.block.kernel().normal_impulse(x);
            if pn <= 0.0 || normal[0].is_nan() {
                continue;
            }
            let (b1, b2) = (
                &self.scene.bodies[slot.body1],
                &self.scene.bodies[slot.body2],
            );
            let (a1, a2) = (slot.block.kernel().a1(x), slot.block.kernel().a2(x));
            let (a1, a2) = (S::vector_from_fn(|i| a1[i]), S::vector_from_fn(|i| a2[i]));
            let n = S::vector_from_fn(|i| normal[i]);
            let friction = slot.block.kernel().friction();
            let sticks = friction.mu > 0.0 && slot.block.kernel().slip(x) <= STICK_SIGMA;
            let (r1, r2) = (a1 - b1.pose.position, a2 - b2.pose.position);
            let sides =
                [slot.body1, slot.body2].map(|b| self.layout.range(b).map(|r| (b, r.start)));
            // The wrench entries of a relative velocity along `d` (and `ω` along `axis`,
            // torsion), on body 1 then body 2.
            let entries = |d: &S::Vector, axis: &S::Vector, torsion: f64| {
                let mut out = [[0.0; 6]; 2];
                for (side, (sign, r)) in [(-1.0, &r1), (1.0, &r2)].into_iter().enumerate() {
                    let m = S::cross(r, d);
                    for i in 0..S::DIM {
                        out[side][i] = sign * d[i];
                    }
                    for i in 0..S::ANGULAR_DIM {
                        let tw = if S::DIM == 3 { torsion * axis[i] } else { 0.0 };
                        out[side][S::DIM + i] = sign * (m[i] + tw);
                    }
                }
                out
            };
            let mut push =
                |j: [[f64; 6]; 2],
                 b: [[f64; 6]; 2],
                 impulse: [f64; 4],
                 (fixed, fixed_mb): ([f64; 4], [[f64; 6]; 2])| {
                    let mb = inverse_mass_rows::<S>(&sides, inverse_mass, &b);
                    let (bias, driven) = self.drive_bias([Some(slot.body1), Some(slot.body2)], &j);
                    rows.push(ProjectionRow {
                        sides,
                        j,
                        mb,
                        slot: k,
                        impulse,
                        normal: pn,
                        joint_row: usize::MAX,
                        bias,
                        driven,
                        fixed,
                        fixed_mb,
                    });
                };
            let unfixed = ([0.0; 4], [[0.0; 6]; 2]);
            let normal = entries(&n, &n, 0.0);
            // The block's own tangents, so that the rows' multipliers add to its impulses.
            let (t, o) = tangents::<S>(&n, &slot.block.kernel().tangent_reference());
            if sticks || friction.mu == 0.0 {
                push(normal, normal, [1.0, 0.0, 0.0, 0.0], unfixed);
            } else {
                // Sliding: friction on the ellipsoid's boundary along the MCP's, `f = μ p / ‖p‖_e`
                // per unit normal impulse, and the fixed tangential impulse `p_n f − p`, so
                // that the whole step's friction is `(p_n + μ_n) f` on the boundary. (With
                // `p / p_n` per unit instead, the MCP's excess over its cone, to its tolerance,
                // grew by `1 + μ_n / p_n` when the projection added much to a small `p_n`.)
                let fr = slot.block.kernel().friction_impulses(x);
                let axes = [friction.e_t, friction.e_o, friction.e_r];
                let load = fr
                    .iter()
                    .zip(axes)
                    .map(|(p, e)| (p / e).powi(2))
                    .sum::<f64>()
                    .sqrt();
                let mut per_pn = [1.0, 0.0, 0.0, 0.0];
                let mut fixed = [0.0; 4];
                if load > 0.0 {
                    for (c, p) in fr.iter().enumerate() {
                        per_pn[1 + c] = friction.mu * p / load;
                        fixed[1 + c] = pn * per_pn[1 + c] - p;
                    }
                }
                let tangential = |w: &[f64; 4]| {
                    let mut d = t * w[1];
                    if S::DIM == 3 {
                        d += o * w[2];
                    }
                    d
                };
                let wrench = entries(&tangential(&fixed), &n, fixed[3]);
                let fixed_mb = inverse_mass_rows::<S>(&sides, inverse_mass, &wrench);
                let d = n + tangential(&per_pn);
                push(
                    normal,
                    entries(&d, &n, per_pn[3]),
                    per_pn,
                    (fixed, fixed_mb),
                );
            }
            if sticks {
                let row = entries(&t, &t, 0.0);
                push(row, row, [0.0, 1.0, 0.0, 0.0], unfixed);
                if S::DIM == 3 {
                    let row = entries(&o, &o, 0.0);
                    push(row, row, [0.0, 0.0, 1.0, 0.0], unfixed);
                    if friction.e_r > 0.0 {
                        let row = entries(&S::zero_vector(), &n, 1.0);
                        push(row, row, [0.0, 0.0, 0.0, 1.0], unfixed);
                    }
                }
            }
        }
        self.joint_rows(rows, inverse_mass);
    }

    /// The velocity a row `j` gets from the driven bodies among `bodies` (`J` times their
    /// twists), and whether there is one.
    fn drive_bias(&self, bodies: [Option<usize>; 2], j: &[[f64; 6]; 2]) -> (f64, bool) {
        let (mut bias, mut driven) = (0.0, false);
        for (side, b) in bodies.into_iter().enumerate() {
            if let Some(b) = b.filter(|&b| self.scene.bodies[b].driven) {
                let mut t = [0.0; 6];
                self.scene.bodies[b].twist.write_to(&mut t[..S::DOF]);
                bias += (0..S::DOF).map(|i| j[side][i] * t[i]).sum::<f64>();
                driven = true;
            }
        }
        (bias, driven)
    }

    /// Appends every joint row to `rows`: bilateral, `B = J` (workless), always projected, at
    /// the bodies' current poses, with `M⁻¹ Bᵀ` from `inverse_mass`.
    pub(super) fn joint_rows(
        &self,
        rows: &mut Vec<ProjectionRow>,
        inverse_mass: &[(f64, [[f64; 3]; 3])],
    ) {
        let mut joint_row = 0;
        for (k, joint) in self.joints.iter().enumerate() {
            let bodies = joint.bodies;
            let sides = bodies.map(|b| b.and_then(|b| self.layout.range(b).map(|r| (b, r.start))));
            let (pose1, pose2) = self.joint_poses(k);
            joint.block.velocity_rows(&pose1, &pose2, |_, j| {
                let mb = inverse_mass_rows::<S>(&sides, inverse_mass, &j);
                let (bias, driven) = self.drive_bias(bodies, &j);
                rows.push(ProjectionRow {
                    sides,
                    j,
                    mb,
                    slot: JOINT_ROW,
                    impulse: [0.0; 4],
                    normal: 0.0,
                    joint_row,
                    bias,
                    driven,
                    fixed: [0.0; 4],
                    fixed_mb: [[0.0; 6]; 2],
                });
                joint_row += 1;
            });
        }
    }
}

/// The contact block's tangent basis for the normal `n` and the tangent reference `e`: 2D
/// `t = (−n_y, n_x)` (`o` unused, zero); 3D `t = (e − (e·n) n)/‖e − (e·n) n‖`, `o = n × t`.
fn tangents<S: Dynamics>(n: &S::Vector, e: &S::Vector) -> (S::Vector, S::Vector) {
    if S::DIM == 2 {
        let t = S::vector_from_fn(|i| if i == 0 { -n[1] } else { n[0] });
        return (t, S::zero_vector());
    }
    let u = *e - *n * S::dot(e, n);
    let t = u * (1.0 / S::norm(&u));
    let o = S::vector_from_fn(|i| {
        let (p, q) = ((i + 1) % 3, (i + 2) % 3);
        n[p] * t[q] - n[q] * t[p]
    });
    (t, o)
}

/// `v/‖v‖`, `None` where `v` vanishes.
fn unit<S: Dynamics>(v: S::Vector) -> Option<S::Vector> {
    let norm = S::norm(&v);
    (norm > 0.0).then(|| v * (1.0 / norm))
}
