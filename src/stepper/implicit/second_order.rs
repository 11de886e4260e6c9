//! The RATTLE integrator's end of step ([`Integrator::Rattle`](crate::model::Integrator)):
//! the second half-kick of the smooth impulses at the end-of-step state and the projection of
//! the end-of-step velocity onto the velocity constraints of the contacts that carry an
//! impulse. The first kick and the drift are the step's MCP (see the module docs of
//! [`super`], "Second-order integration").

use super::ImplicitStepper;
use crate::geometry::world_eval;
use crate::model::{Dynamics, Twist};
use nalgebra::{DMatrix, DVector};

/// A contact is sticking (its tangential and torsional velocity constraints are projected on)
/// when its slip measure `σ` is below this (a speed, m/s; the solve's tolerance is 1e-10).
const STICK_SIGMA: f64 = 1e-8;

impl<S: Dynamics> ImplicitStepper<S> {
    /// RATTLE's second kick, after a converged (sub-)step of length `h` whose bodies are at
    /// their end poses with the solved twist `ν` (the drift velocity):
    ///
    /// ```text
    /// v* = ν + ½ M⁺⁻¹ (h λ_app(t + h, q⁺) + h λ_vp(2ν − v) + Σ W p_ns)
    /// v⁺ = v* + M⁺⁻¹ Jᵀ μ,     J v⁺ = 0
    /// ```
    ///
    /// `M⁺` is the mass matrix at the end pose, `2ν − v` the end-of-step angular velocity to
    /// first order (which makes the gyroscopic kick second order), and `J` stacks, for every
    /// rigid contact with `p_n > 0`, the relative normal velocity at its end-of-step points and,
    /// if it sticks (`μ > 0`, `σ ≤` [`STICK_SIGMA`]), the relative tangential (and, in 3D with
    /// `e_r > 0`, torsional) velocity. `μ` is the least-squares solution of
    /// `J M⁺⁻¹ Jᵀ μ = −J v*` (redundant contacts make it singular, consistently). The
    /// projection is `M⁺`-orthogonal, so it never adds kinetic energy.
    pub(super) fn second_kick(&mut self, h: f64) {
        let nv = self.layout.len();
        let t_end = self.time + h;
        let gravity = self.scene.gravity;
        // The smooth impulses at the end of the step.
        let mut smooth = vec![0.0; nv];
        self.add_spring_impulses(&mut smooth);
        let mut minv = Vec::with_capacity(self.mass.len());
        let mut vstar = self.z[..nv].to_vec();
        for b in 0..self.scene.bodies.len() {
            let Some(r) = self.layout.range(b) else {
                continue;
            };
            let body = &self.scene.bodies[b];
            let nu = Twist::<S>::from_slice(&self.z[r.clone()]);
            let v0 = Twist::<S>::from_slice(&self.start_velocity[r.clone()]);
            let w_end = nu.angular * 2.0 - v0.angular;
            let mut kick = body.applied_impulse(&gravity, t_end, h);
            kick.torque += S::gyroscopic_torque(&w_end, &body.world_inertia()) * h;
            let mut buf = vec![0.0; S::DOF];
            kick.write_to(&mut buf);
            for (i, row) in r.clone().enumerate() {
                smooth[row] += buf[i];
            }
            let m = body.mass_matrix();
            let inv = m
                .clone()
                .cholesky()
                .map(|c| c.inverse())
                .expect("a moving body's mass matrix is positive definite (checked on load)");
            let rhs = DVector::from_iterator(r.len(), smooth[r.clone()].iter().copied());
            let dv = &inv * rhs;
            for (i, row) in r.clone().enumerate() {
                vstar[row] += 0.5 * dv[i];
            }
            minv.push((r, inv));
        }
        // The first kick applied the contact impulses along their end-of-step wrench W(q⁺);
        // RATTLE's first kick acts along the start-of-step constraint directions W(q): move the
        // impulses there (an O(h) change of direction of an O(h) impulse, tangential to the
        // constraints to first order; its normal part is removed by the projection below).
        let mut shift = vec![0.0; nv];
        let mut k0 = 0;
        for &k in &self.active {
            let slot = &self.slots[k];
            let l = slot.block.layout();
            let start = &self.start_pairs[k0..k0 + 2 * l.dim];
            k0 += 2 * l.dim;
            if slot.block.quasi_rigid().is_some() {
                continue;
            }
            let x = &self.z[slot.offset..slot.offset + l.local_count];
            let (b1, b2) = (slot.body1, slot.body2);
            let end = self.contact_wrench(
                k,
                &x[l.a1..l.a2 + l.dim],
                &self.scene.bodies[b1].pose,
                &self.scene.bodies[b2].pose,
            );
            let begin = self.contact_wrench(k, start, &self.start_poses[b1], &self.start_poses[b2]);
            for (b, we, wb) in [(b1, end.0, begin.0), (b2, end.1, begin.1)] {
                if let Some(r) = self.layout.range(b) {
                    for (i, row) in r.enumerate() {
                        shift[row] += wb[i] - we[i];
                    }
                }
            }
        }
        for (r, inv) in &minv {
            let rhs = DVector::from_iterator(r.len(), shift[r.clone()].iter().copied());
            let dv = inv * rhs;
            for (i, row) in r.clone().enumerate() {
                vstar[row] += dv[i];
            }
        }
        // The velocity constraints of the contacts that carry an impulse.
        let (rows, impulse_rows) = self.constraint_rows();
        let mut v = vstar;
        if !rows.is_empty() {
            let nr = rows.len();
            let dense = |rows: &[SparseRow]| {
                let mut m = DMatrix::zeros(nr, nv);
                for (i, row) in rows.iter().enumerate() {
                    for &(col, val) in row {
                        m[(i, col)] += val;
                    }
                }
                m
            };
            let (j, b) = (dense(&rows), dense(&impulse_rows));
            // M⁻¹ Bᵀ, block by block.
            let mut mb = DMatrix::zeros(nv, nr);
            for (r, inv) in &minv {
                let bt = b.columns(r.start, r.len()).transpose();
                mb.rows_mut(r.start, r.len()).copy_from(&(inv * bt));
            }
            let a = &j * &mb;
            let rhs = -(&j * DVector::from_column_slice(&v));
            let scale = a.amax().max(f64::MIN_POSITIVE);
            let mu = a
                .svd(true, true)
                .solve(&rhs, 1e-12 * scale)
                .expect("the SVD was computed with both factors");
            let dv = &mb * mu;
            for (vi, d) in v.iter_mut().zip(dv.iter()) {
                *vi += d;
            }
        }
        for (b, body) in self.scene.bodies.iter_mut().enumerate() {
            if let Some(r) = self.layout.range(b) {
                body.twist = Twist::from_slice(&v[r]);
            }
        }
    }

    /// The wrench (on body 1, on body 2; `(force, moment)` in `S::DOF` entries) of the impulses
    /// of contact slot `k` (its solution in `z`) if its points were `points = (a₁, a₂)` and its
    /// bodies at `pose1`, `pose2` (friction only if it sticks): `P = p_n n + Σ p_k t_k` on body 2 at `a₂` (plus the torsion
    /// `p_r n`) and the opposite on body 1 at `a₁`, `n = ∇f(a₁)/‖∇f(a₁)‖` and the tangents
    /// built from it as the contact block builds them.
    fn contact_wrench(
        &self,
        k: usize,
        points: &[f64],
        pose1: &crate::geometry::Pose<S>,
        pose2: &crate::geometry::Pose<S>,
    ) -> ([f64; 6], [f64; 6]) {
        let slot = &self.slots[k];
        let l = slot.block.layout();
        let x = &self.z[slot.offset..slot.offset + l.local_count];
        let a1 = S::vector_from_fn(|i| points[i]);
        let a2 = S::vector_from_fn(|i| points[l.dim + i]);
        let grad = world_eval(slot.block.function_f(), pose1, &a1).gradient;
        let norm = S::norm(&grad);
        let mut out = ([0.0; 6], [0.0; 6]);
        if norm.is_nan() || norm <= 0.0 {
            return out;
        }
        let n = grad * (1.0 / norm);
        let (t, o) = tangents::<S>(&n, &slot.block.tangent_reference());
        // A sliding contact's friction stays at the end of the step (at full weight, so it
        // only dissipates): only the normal and sticking impulses are moved.
        let sticks = x[l.sigma] <= STICK_SIGMA;
        let fr = if sticks {
            x[l.friction..l.friction + l.friction_count].to_vec()
        } else {
            vec![0.0; l.friction_count]
        };
        let mut force = n * x[l.normal] + t * fr[0];
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

    /// The rows of `J` (sparse: `(ν column, value)`) and of `B`, the directions of the
    /// projection's impulses: per rigid contact with `p_n > 0`, the relative normal velocity
    /// `n·(u₂(a₂) − u₁(a₁))` and, if it sticks, the tangential (and torsional) ones, at the
    /// end-of-step poses and points. `B = J` but on the normal row of a sliding contact, where
    /// the normal impulse carries its Coulomb friction: `B_n = J_n + Σ_k (p_k/p_n) J_k` with the
    /// MCP's friction impulses `p_k` along its own tangents (and torsion), so that the second
    /// half of the normal impulse slides with the same `μ` as the first.
    fn constraint_rows(&self) -> (Vec<SparseRow>, Vec<SparseRow>) {
        let (mut rows, mut impulse_rows) = (Vec::new(), Vec::new());
        for &k in &self.active {
            let slot = &self.slots[k];
            if slot.block.quasi_rigid().is_some() {
                continue;
            }
            let l = slot.block.layout();
            let x = &self.z[slot.offset..slot.offset + l.local_count];
            let pn = x[l.normal];
            if pn <= 0.0 {
                continue;
            }
            let (b1, b2) = (
                &self.scene.bodies[slot.body1],
                &self.scene.bodies[slot.body2],
            );
            let a1 = S::vector_from_fn(|i| x[l.a1 + i]);
            let a2 = S::vector_from_fn(|i| x[l.a2 + i]);
            let grad = world_eval(slot.block.function_f(), &b1.pose, &a1).gradient;
            let norm = S::norm(&grad);
            if norm.is_nan() || norm <= 0.0 {
                continue;
            }
            let n = grad * (1.0 / norm);
            let friction = slot.block.friction();
            let sticks = friction.mu > 0.0 && x[l.sigma] <= STICK_SIGMA;
            let (r1, r2) = (a1 - b1.pose.position, a2 - b2.pose.position);
            // The row of a relative velocity along `d` (and `ω` along `axis`, torsion).
            let row_of = |d: &S::Vector, axis: &S::Vector, torsion: f64| {
                let mut row = Vec::new();
                for (sign, body, r) in [(-1.0, slot.body1, &r1), (1.0, slot.body2, &r2)] {
                    if let Some(range) = self.layout.range(body) {
                        let m = S::cross(r, d);
                        for i in 0..S::DIM {
                            row.push((range.start + i, sign * d[i]));
                        }
                        for i in 0..S::ANGULAR_DIM {
                            let tw = if S::DIM == 3 { torsion * axis[i] } else { 0.0 };
                            row.push((range.start + S::DIM + i, sign * (m[i] + tw)));
                        }
                    }
                }
                row
            };
            let normal = row_of(&n, &n, 0.0);
            if sticks || friction.mu == 0.0 {
                impulse_rows.push(normal.clone());
            } else {
                // Sliding: the MCP's friction per unit normal impulse.
                let (t, o) = tangents::<S>(&n, &slot.block.tangent_reference());
                let fr = &x[l.friction..l.friction + l.friction_count];
                let mut d = n + t * (fr[0] / pn);
                if S::DIM == 3 {
                    d += o * (fr[1] / pn);
                }
                let torsion = if S::DIM == 3 { fr[2] / pn } else { 0.0 };
                impulse_rows.push(row_of(&d, &n, torsion));
            }
            rows.push(normal);
            if sticks {
                let e = crate::contact::tangent_reference_for::<S>(&n);
                let (t, o) = tangents::<S>(&n, &e);
                let mut tangential = vec![t];
                if S::DIM == 3 {
                    tangential.push(o);
                }
                for d in &tangential {
                    let row = row_of(d, d, 0.0);
                    impulse_rows.push(row.clone());
                    rows.push(row);
                }
                if S::DIM == 3 && friction.e_r > 0.0 {
                    let row = row_of(&S::zero_vector(), &n, 1.0);
                    impulse_rows.push(row.clone());
                    rows.push(row);
                }
            }
        }
        (rows, impulse_rows)
    }
}

/// A sparse row over the step's velocity unknowns: `(column, value)` pairs (a column may
/// repeat; entries add).
type SparseRow = Vec<(usize, f64)>;

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
