//! Spatial algebra shared by every block and integrator: a body's twist `(v, ω)`, a wrench
//! `(F, τ)` about its origin, the velocity of a material point, the wrench of a force (an
//! impulse) at a point, and the inverse of a body's mass matrix `M = diag(m I, I_w)`. `ω` and
//! `τ` are world-frame; in 2D they are scalars and `×` is the planar cross product.

use super::dynamics::Dynamics;
use std::ops::Add;

/// Linear and angular velocity `ν = (v, ω)`, `ω` in the world frame (2D: `(v_x, v_y, ω)`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Twist<S: Dynamics> {
    /// The velocity `v` of the body origin.
    pub linear: S::Vector,
    /// The angular velocity `ω` (world frame; a 1-vector in 2D).
    pub angular: S::Angular,
}

/// A force and a torque about the body origin (world frame), or their impulses `h λ`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Wrench<S: Dynamics> {
    /// The force (or linear impulse / linear momentum).
    pub force: S::Vector,
    /// The torque about the body origin (or angular impulse / angular momentum).
    pub torque: S::Angular,
}

impl<S: Dynamics> Twist<S> {
    /// The twist `(v, ω)`.
    pub fn new(linear: S::Vector, angular: S::Angular) -> Self {
        Self { linear, angular }
    }

    /// The zero twist.
    pub fn zero() -> Self {
        Self::new(S::zero_vector(), S::zero_angular())
    }

    /// The twist from the `DOF` numbers `(v, ω)` of a slice of the global `ν` (panics if the
    /// slice is shorter than `S::DOF`).
    pub fn from_slice(nu: &[f64]) -> Self {
        Self::new(
            S::vector_from_fn(|i| nu[i]),
            S::angular_from_fn(|i| nu[S::DIM + i]),
        )
    }

    /// Writes `(v, ω)` into the first `S::DOF` entries of `out`.
    pub fn write_to(&self, out: &mut [f64]) {
        write_pair::<S>(&self.linear, &self.angular, out);
    }

    /// True if every component is finite.
    pub fn is_finite(&self) -> bool {
        S::is_finite(&self.linear) && S::angular_is_finite(&self.angular)
    }

    /// The velocity `v + ω × r` of the material point at `r` from the body origin (world
    /// frame; 2D: `v + ω (−r_y, r_x)`).
    pub fn point_velocity(&self, r: &S::Vector) -> S::Vector {
        self.linear + S::angular_cross(&self.angular, r)
    }
}

impl<S: Dynamics> Wrench<S> {
    /// The wrench `(F, τ)`.
    pub fn new(force: S::Vector, torque: S::Angular) -> Self {
        Self { force, torque }
    }

    /// The zero wrench.
    pub fn zero() -> Self {
        Self::new(S::zero_vector(), S::zero_angular())
    }

    /// The wrench `(F, r × F)` about the body origin of the force `F` applied at `r` from it
    /// (2D: `r × F = r_x F_y − r_y F_x`). Its power on a twist equals `F · (v + ω × r)`.
    pub fn from_force_at(force: S::Vector, r: &S::Vector) -> Self {
        Self::new(force, S::cross(r, &force))
    }

    /// Writes `(F, τ)` into the first `S::DOF` entries of `out`.
    pub fn write_to(&self, out: &mut [f64]) {
        write_pair::<S>(&self.force, &self.torque, out);
    }

    /// The wrench scaled by `k` (e.g. a force times `h`, an impulse).
    pub fn scaled(&self, k: f64) -> Self {
        Self::new(self.force * k, self.torque * k)
    }

    /// True if every component is finite.
    pub fn is_finite(&self) -> bool {
        S::is_finite(&self.force) && S::angular_is_finite(&self.torque)
    }
}

impl<S: Dynamics> Add for Wrench<S> {
    type Output = Self;
    fn add(self, rhs: Self) -> Self {
        Self::new(self.force + rhs.force, self.torque + rhs.torque)
    }
}

fn write_pair<S: Dynamics>(a: &S::Vector, b: &S::Angular, out: &mut [f64]) {
    for i in 0..S::DIM {
        out[i] = a[i];
    }
    for i in 0..S::ANGULAR_DIM {
        out[S::DIM + i] = b[i];
    }
}

/// `I⁻¹` of a symmetric positive-definite `A × A` inertia (`A` ≤ 3), padded to `3 × 3`:
/// Gauss–Jordan without pivoting, which the diagonal dominance of an inertia permits in
/// principle axes and positive definiteness permits in any axes.
pub fn inverse_inertia<S: Dynamics>(inertia: &S::AngularMatrix) -> [[f64; 3]; 3] {
    let a = S::ANGULAR_DIM;
    let mut m = [[0.0; 6]; 3];
    for i in 0..a {
        for j in 0..a {
            m[i][j] = inertia[(i, j)];
        }
        m[i][a + i] = 1.0;
    }
    for c in 0..a {
        let p = m[c][c];
        for x in m[c].iter_mut() {
            *x /= p;
        }
        for r in 0..a {
            if r != c {
                let f = m[r][c];
                let pivot_row = m[c];
                for (x, y) in m[r].iter_mut().zip(pivot_row) {
                    *x -= f * y;
                }
            }
        }
    }
    let mut out = [[0.0; 3]; 3];
    for i in 0..a {
        for j in 0..a {
            out[i][j] = m[i][a + j];
        }
    }
    out
}

/// `M⁻¹ w` of one body (`w`: force then moment, `S::DOF` entries), `M = diag(m I, I_w)`.
pub fn apply_inverse_mass<S: Dynamics>(inv_m: f64, inv_i: &[[f64; 3]; 3], w: &[f64]) -> [f64; 6] {
    let (d, a) = (S::DIM, S::ANGULAR_DIM);
    let mut out = [0.0; 6];
    for i in 0..d {
        out[i] = inv_m * w[i];
    }
    for i in 0..a {
        out[d + i] = (0..a).map(|k| inv_i[i][k] * w[d + k]).sum();
    }
    out
}
