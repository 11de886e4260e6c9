//! [`ContactBlock`]: residual rows, wrench and exact Jacobian of one contact (see the module
//! docs of [`crate::contact`] for the equations and the derivation).

use super::body_step::BodyStep;
use crate::geometry::{ConvexPart, Placed, Space, WorldEval, world_eval_with_pose_derivatives};
use crate::model::{Friction, ModelError};
use nalgebra::{DMatrix, DVector};

/// The semi-axes of the rows FR in order: `[e_t]` in 2D, `[e_t, e_o, e_r]` in 3D.
fn friction_axes(friction: &Friction, dim: usize) -> Vec<f64> {
    if dim == 2 {
        vec![friction.e_t]
    } else {
        vec![friction.e_t, friction.e_o, friction.e_r]
    }
}

/// Bad input to a [`ContactBlock`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ContactError {
    /// A friction parameter is out of range.
    #[error(transparent)]
    InvalidFriction(#[from] ModelError),
    /// The tangent reference direction is zero or not finite.
    #[error("tangent reference direction {0} is zero or not finite")]
    InvalidTangentReference(String),
}

/// Index layout of one contact block. Rows and columns share it: the block's matrix is square,
/// `total × total`, with
///
/// ```text
/// index:  a1 | a2 | l1 | l2 (m) | p_n | friction (p_t [, p_o, p_r]) | σ | ν₁ (DOF) | ν₂ (DOF)
/// rows:   R1 | R2 | C1 | C2     | C3  | FR                          | CS| wrench₁  | wrench₂
/// ```
///
/// A body's `ν` block is `(v, ω)` (`D` then `A` entries); its wrench block is
/// `(force, moment)` in the same sizes. The first [`local_count`](Self::local_count) entries are
/// the block's own unknowns and rows.
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
}

impl ContactLayout {
    /// The layout for space `S` and `m` functions of `G`.
    pub fn new<S: Space>(m: usize) -> Self {
        let d = S::DIM;
        let friction_count = if d == 2 { 1 } else { 3 };
        let a1 = 0;
        let a2 = d;
        let l1 = 2 * d;
        let l2 = l1 + 1;
        let normal = l2 + m;
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
            normal,
            friction,
            friction_count,
            sigma,
            local_count,
            nu1: local_count,
            nu2: local_count + S::DOF,
            total: local_count + 2 * S::DOF,
        }
    }
}

/// Output of [`ContactBlock::evaluate`], kept by the caller and reused between calls.
#[derive(Debug, Clone, PartialEq)]
pub struct ContactEval {
    /// `[residual rows; wrench on body 1; wrench on body 2]`, length `total` (see
    /// [`ContactLayout`]).
    pub values: Vec<f64>,
    /// `∂values/∂(local variables, ν₁, ν₂)`, `total × total`.
    pub jacobian: DMatrix<f64>,
    layout: ContactLayout,
}

impl ContactEval {
    /// A zeroed output for `layout`.
    pub fn new(layout: ContactLayout) -> Self {
        Self {
            values: vec![0.0; layout.total],
            jacobian: DMatrix::zeros(layout.total, layout.total),
            layout,
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
    g: ConvexPart<S>,
    friction: Friction,
    tangent_reference: S::Vector,
    layout: ContactLayout,
}

/// A unit reference direction for the 3D tangent basis, well away from `n`: the coordinate
/// axis least aligned with `n` (2D: returned but unused). Choose it from the start-of-step
/// normal and keep it for the step.
pub fn tangent_reference_for<S: Space>(n: &S::Vector) -> S::Vector {
    let mut best = 0;
    for i in 1..S::DIM {
        if n[i].abs() < n[best].abs() {
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
            g,
            friction,
            tangent_reference: S::unit_vector(0),
            layout,
        })
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

    /// The friction parameters.
    pub fn friction(&self) -> Friction {
        self.friction
    }

    /// The function `f` of object `F`.
    pub fn function_f(&self) -> &Placed<S> {
        &self.f
    }

    /// The part `G`.
    pub fn part_g(&self) -> &ConvexPart<S> {
        &self.g
    }

    /// Lower and upper bounds of the local variables: `l₁, l₂, p_n, σ ≥ 0`, the rest free.
    pub fn bounds(&self) -> (Vec<f64>, Vec<f64>) {
        let l = &self.layout;
        let mut lower = vec![f64::NEG_INFINITY; l.local_count];
        for i in l.l1..l.normal + 1 {
            lower[i] = 0.0;
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
    /// # Panics
    /// If `x` or `out` do not match the layout.
    pub fn evaluate(
        &self,
        x: &[f64],
        body1: &BodyStep<S>,
        body2: &BodyStep<S>,
        out: &mut ContactEval,
    ) {
        let lay = self.layout;
        assert_eq!(
            x.len(),
            lay.local_count,
            "local variables do not match the layout"
        );
        assert_eq!(out.layout, lay, "output buffer does not match the layout");
        let (d, na, nc, m) = (S::DIM, S::ANGULAR_DIM, lay.total, lay.g_count);
        let nf = lay.friction_count;
        let (mu, axes) = (self.friction.mu, friction_axes(&self.friction, d));
        out.values.iter_mut().for_each(|v| *v = 0.0);
        out.jacobian.fill(0.0);
        let (vals, jac) = (&mut out.values, &mut out.jacobian);

        let a1 = S::vector_from_fn(|i| x[lay.a1 + i]);
        let a2 = S::vector_from_fn(|i| x[lay.a2 + i]);
        let l1 = x[lay.l1];
        let l2 = &x[lay.l2..lay.l2 + m];
        let pn = x[lay.normal];
        let pf = &x[lay.friction..lay.friction + nf];
        let sigma = x[lay.sigma];
        let (pose1, pose2) = (&body1.pose_end, &body2.pose_end);

        let ef1 = world_eval_with_pose_derivatives(&self.f, pose1, &a1);
        let ef2 = world_eval_with_pose_derivatives(&self.f, pose1, &a2);
        let eg: Vec<WorldEval<S>> = (0..m).map(|j| self.g.world_eval(j, pose2, &a2)).collect();
        let id = DMatrix::<f64>::identity(d, d);

        // ∇f(a₁) and its derivative (a₁ and ν₁ columns).
        let g = dvec::<S>(&ef1.gradient);
        let mut dg = DMatrix::zeros(d, nc);
        dg.view_mut((0, lay.a1), (d, d))
            .copy_from(&dmat::<S>(&ef1.hessian));
        add_pose_gradient(&mut dg, &ef1, body1, lay.nu1);

        // Normal.
        let gnorm = g.norm();
        let n = &g / gnorm;
        let dn = (&id - &n * n.transpose()) / gnorm * &dg;

        // Tangent basis (D − 1 directions) and derivatives.
        let basis = tangent_basis(&n, &dvec::<S>(&self.tangent_reference));
        let dts: Vec<DMatrix<f64>> = basis.iter().map(|(_, tm)| tm * &dn).collect();

        // Lever arms r_b = a_b − c_b and their derivatives.
        let r1 = a1 - pose1.position;
        let r2 = a2 - pose2.position;
        let dr1 = lever_derivative(d, nc, lay.a1, lay.nu1, body1.dtrans_dv);
        let dr2 = lever_derivative(d, nc, lay.a2, lay.nu2, body2.dtrans_dv);

        // Relative velocity v_rel = u₂(a₂) − u₁(a₁).
        let (u1, du1) = point_velocity(body1, &r1, &dr1, lay.nu1);
        let (u2, du2) = point_velocity(body2, &r2, &dr2, lay.nu2);
        let vrel = u2 - u1;
        let dvrel = du2 - du1;

        // R1: a₁ − a₂ + l₁ ∇f(a₁).
        for i in 0..d {
            let row = lay.a1 + i;
            vals[row] = a1[i] - a2[i] + l1 * g[i];
            jac[(row, lay.a1 + i)] += 1.0;
            jac[(row, lay.a2 + i)] -= 1.0;
            jac[(row, lay.l1)] += g[i];
        }
        add_rows(jac, lay.a1, &dg, l1);

        // R2: ∇f(a₁) + Σ l₂ⱼ ∇gⱼ(a₂).
        add_rows(jac, lay.a2, &dg, 1.0);
        for i in 0..d {
            vals[lay.a2 + i] = g[i];
        }
        for (j, e) in eg.iter().enumerate() {
            let mut dgj = DMatrix::zeros(d, nc);
            dgj.view_mut((0, lay.a2), (d, d))
                .copy_from(&dmat::<S>(&e.hessian));
            add_pose_gradient(&mut dgj, e, body2, lay.nu2);
            add_rows(jac, lay.a2, &dgj, l2[j]);
            for i in 0..d {
                vals[lay.a2 + i] += l2[j] * e.gradient[i];
                jac[(lay.a2 + i, lay.l2 + j)] += e.gradient[i];
            }
        }

        // C1: −f(a₁); C2: −gⱼ(a₂); C3: f(a₂).
        vals[lay.l1] = -ef1.value;
        add_value_row(jac, lay.l1, &ef1, lay.a1, body1, lay.nu1, -1.0);
        for (j, e) in eg.iter().enumerate() {
            vals[lay.l2 + j] = -e.value;
            add_value_row(jac, lay.l2 + j, e, lay.a2, body2, lay.nu2, -1.0);
        }
        vals[lay.normal] = ef2.value;
        add_value_row(jac, lay.normal, &ef2, lay.a2, body1, lay.nu1, 1.0);

        // FR: e_k² μ p_n s_k + p_k σ.
        for k in 0..nf {
            let (s, ds) = if k < d - 1 {
                let (t, _) = &basis[k];
                let s = t.dot(&vrel);
                let ds = vrel.transpose() * &dts[k] + t.transpose() * &dvrel;
                (s, DMatrix::from_row_slice(1, nc, ds.as_slice()))
            } else {
                // Torsion (3D): s_r = n · (ω₂ − ω₁).
                let w = dang::<S>(&body2.angular_velocity) - dang::<S>(&body1.angular_velocity);
                let mut ds = w.transpose() * &dn;
                for i in 0..na {
                    ds[(0, lay.nu2 + d + i)] += n[i];
                    ds[(0, lay.nu1 + d + i)] -= n[i];
                }
                (n.dot(&w), DMatrix::from_row_slice(1, nc, ds.as_slice()))
            };
            let row = lay.friction + k;
            let c = axes[k] * axes[k] * mu;
            vals[row] = c * pn * s + pf[k] * sigma;
            add_rows(jac, row, &ds, c * pn);
            jac[(row, lay.normal)] += c * s;
            jac[(row, lay.friction + k)] += sigma;
            jac[(row, lay.sigma)] += pf[k];
        }

        // CS: μ² p_n² − Σ p_k²/e_k².
        vals[lay.sigma] = mu * mu * pn * pn;
        jac[(lay.sigma, lay.normal)] = 2.0 * mu * mu * pn;
        for k in 0..nf {
            let e2 = axes[k] * axes[k];
            vals[lay.sigma] -= pf[k] * pf[k] / e2;
            jac[(lay.sigma, lay.friction + k)] = -2.0 * pf[k] / e2;
        }

        // Impulse P = p_n n + Σ p_k t_k (tangential k only).
        let mut p = &n * pn;
        let mut dp = &dn * pn;
        for i in 0..d {
            dp[(i, lay.normal)] += n[i];
        }
        for (k, (t, _)) in basis.iter().enumerate() {
            p += t * pf[k];
            dp += &dts[k] * pf[k];
            for i in 0..d {
                dp[(i, lay.friction + k)] += t[i];
            }
        }
        let p_s = S::vector_from_fn(|i| p[i]);
        // Torsional impulse p_r n (3D).
        let torsion = (d == 3).then(|| (pf[nf - 1], lay.friction + nf - 1));

        for (sign, r, dr, row0) in [(1.0, &r2, &dr2, lay.nu2), (-1.0, &r1, &dr1, lay.nu1)] {
            // Force ±P.
            for i in 0..d {
                vals[row0 + i] = sign * p[i];
            }
            add_rows(jac, row0, &dp, sign);
            // Moment ±(r × P (+ p_r n)).
            let mom = S::cross(r, &p_s);
            let mut dmom = cross_with_right::<S>(&p_s) * dr + cross_with_left::<S>(r) * &dp;
            let mut mom_v: Vec<f64> = (0..na).map(|i| mom[i]).collect();
            if let Some((pr, col)) = torsion {
                for i in 0..na {
                    mom_v[i] += pr * n[i];
                    dmom[(i, col)] += n[i];
                }
                dmom += &dn * pr;
            }
            for i in 0..na {
                vals[row0 + d + i] = sign * mom_v[i];
            }
            add_rows(jac, row0 + d, &dmom, sign);
        }

        // A fixed body's ν is not an unknown.
        for (step, col0) in [(body1, lay.nu1), (body2, lay.nu2)] {
            if step.fixed {
                jac.columns_mut(col0, S::DOF).fill(0.0);
            }
        }
    }
}

fn dvec<S: Space>(v: &S::Vector) -> DVector<f64> {
    DVector::from_fn(S::DIM, |i, _| v[i])
}

fn dang<S: Space>(w: &S::Angular) -> DVector<f64> {
    DVector::from_fn(S::ANGULAR_DIM, |i, _| w[i])
}

fn dmat<S: Space>(m: &S::Matrix) -> DMatrix<f64> {
    DMatrix::from_fn(S::DIM, S::DIM, |i, j| m[(i, j)])
}

fn dangjac<S: Space>(j: &S::AngularJacobian) -> DMatrix<f64> {
    DMatrix::from_fn(S::DIM, S::ANGULAR_DIM, |r, c| j[(r, c)])
}

/// `jac[row0.., :] += scale · rows`.
fn add_rows(jac: &mut DMatrix<f64>, row0: usize, rows: &DMatrix<f64>, scale: f64) {
    if scale == 0.0 {
        return;
    }
    let mut v = jac.rows_mut(row0, rows.nrows());
    v += rows * scale;
}

/// Adds the pose terms of a world-frame gradient (`D` rows) for the body whose `ν` columns
/// start at `col0`: `∂∇φ/∂c · h` on `v`, `∂∇φ/∂θ · D_ω` on `ω`.
fn add_pose_gradient<S: Space>(
    target: &mut DMatrix<f64>,
    e: &WorldEval<S>,
    step: &BodyStep<S>,
    col0: usize,
) {
    let (d, na) = (S::DIM, S::ANGULAR_DIM);
    let mut t = target.view_mut((0, col0), (d, d));
    t += dmat::<S>(&e.d_gradient_d_translation) * step.dtrans_dv;
    let mut r = target.view_mut((0, col0 + d), (d, na));
    r += dangjac::<S>(&e.d_gradient_d_rotation) * &step.drot_domega;
}

/// Adds `scale · δφ` for a value `φ` at the point whose columns start at `point_col`, of the
/// body whose `ν` columns start at `nu_col`, into row `row`.
fn add_value_row<S: Space>(
    jac: &mut DMatrix<f64>,
    row: usize,
    e: &WorldEval<S>,
    point_col: usize,
    step: &BodyStep<S>,
    nu_col: usize,
    scale: f64,
) {
    let (d, na) = (S::DIM, S::ANGULAR_DIM);
    for i in 0..d {
        jac[(row, point_col + i)] += scale * e.gradient[i];
        jac[(row, nu_col + i)] += scale * step.dtrans_dv * e.d_value_d_translation[i];
    }
    for c in 0..na {
        let v: f64 = (0..na)
            .map(|k| e.d_value_d_rotation[k] * step.drot_domega[(k, c)])
            .sum();
        jac[(row, nu_col + d + c)] += scale * v;
    }
}

/// `∂r/∂(all)` for `r = a − c_end`: `I` on `a`, `−h I` on `v`.
fn lever_derivative(d: usize, nc: usize, a_col: usize, nu_col: usize, h: f64) -> DMatrix<f64> {
    let mut dr = DMatrix::zeros(d, nc);
    for i in 0..d {
        dr[(i, a_col + i)] = 1.0;
        dr[(i, nu_col + i)] = -h;
    }
    dr
}

/// Velocity `u = v + ω × r` of a body's material point at lever `r`, and its derivative
/// `δv + ω × δr + δω × r`.
fn point_velocity<S: Space>(
    step: &BodyStep<S>,
    r: &S::Vector,
    dr: &DMatrix<f64>,
    nu_col: usize,
) -> (DVector<f64>, DMatrix<f64>) {
    let (d, na) = (S::DIM, S::ANGULAR_DIM);
    let w = &step.angular_velocity;
    let u = step.linear_velocity + S::angular_cross(w, r);
    // K_ω: r ↦ ω × r.
    let k = DMatrix::from_fn(d, d, |i, j| S::angular_cross(w, &S::unit_vector(j))[i]);
    let mut du = k * dr;
    let mr = dangjac::<S>(&S::cross_jacobian(r));
    for i in 0..d {
        du[(i, nu_col + i)] += 1.0;
        for c in 0..na {
            du[(i, nu_col + d + c)] += mr[(i, c)];
        }
    }
    (dvec::<S>(&u), du)
}

/// `A × D` matrix of `v ↦ r × v`.
fn cross_with_left<S: Space>(r: &S::Vector) -> DMatrix<f64> {
    DMatrix::from_fn(S::ANGULAR_DIM, S::DIM, |i, j| {
        S::cross(r, &S::unit_vector(j))[i]
    })
}

/// `A × D` matrix of `r ↦ r × p`.
fn cross_with_right<S: Space>(p: &S::Vector) -> DMatrix<f64> {
    DMatrix::from_fn(S::ANGULAR_DIM, S::DIM, |i, j| {
        S::cross(&S::unit_vector(j), p)[i]
    })
}

/// `[a]×`, the matrix of `b ↦ a × b` in 3D.
fn skew(a: &DVector<f64>) -> DMatrix<f64> {
    DMatrix::from_row_slice(
        3,
        3,
        &[0.0, -a[2], a[1], a[2], 0.0, -a[0], -a[1], a[0], 0.0],
    )
}

/// The tangent directions and their derivatives `∂t/∂n` (`D × D`): 2D `t = (−n_y, n_x)`;
/// 3D `t = normalize(e − (e·n) n)`, `o = n × t`.
fn tangent_basis(n: &DVector<f64>, e: &DVector<f64>) -> Vec<(DVector<f64>, DMatrix<f64>)> {
    if n.len() == 2 {
        let t = DVector::from_vec(vec![-n[1], n[0]]);
        let tm = DMatrix::from_row_slice(2, 2, &[0.0, -1.0, 1.0, 0.0]);
        return vec![(t, tm)];
    }
    let id = DMatrix::<f64>::identity(3, 3);
    let en = e.dot(n);
    let u = e - n * en;
    let ulen = u.norm();
    let t = &u / ulen;
    let du = -(n * e.transpose() + &id * en);
    let dt = (&id - &t * t.transpose()) / ulen * du;
    let o = skew(n) * &t;
    let d_o = -skew(&t) + skew(n) * &dt;
    vec![(t, dt), (o, d_o)]
}
