//! What a [`Space`] needs for rigid-body dynamics: the type of a body-frame inertia, `A × A`
//! matrices of angular quantities, the gyroscopic term, the left Jacobian of the exponential
//! map and the renormalisation of a rotation.
//!
//! [`Dynamics`] extends [`Space`] (which belongs to the physics-free geometry layer) and is
//! implemented for [`Planar`] and [`Spatial`]; model, contact and stepper code is generic over
//! `S: Dynamics`.

use crate::geometry::space::{MatrixOps, Planar, Space, Spatial};
use nalgebra::{Matrix1, Matrix3, UnitComplex, UnitQuaternion, Vector1, Vector3};
use std::fmt::Debug;
use std::ops::Mul;

/// Relative tolerance on the asymmetry `|I − Iᵀ|` of a 3D inertia and on the triangle
/// inequality of its principal moments (both are exact for data typed in by hand; the slack
/// absorbs rounding in computed inertias).
pub const INERTIA_TOLERANCE: f64 = 1e-9;

/// Below this rotation angle (rad) the left Jacobian uses its Taylor series (see
/// [`left_jacobian_so3`]).
pub const SMALL_ANGLE: f64 = 1e-2;

/// Where the implicit stepper evaluates the gyroscopic impulse `h λ_vp = −h ω × I_w ω` of a
/// spatial body (ignored in 2D, where it is zero). `I_w` is the world inertia at the start of
/// the step; `ω_θ = θ ω^{ℓ+1} + (1 − θ) ω^ℓ` the angular velocity it is taken at.
///
/// Why not only the paper's explicit term: with `ω_θ = ω^ℓ`, a free body's kinetic energy
/// after the step is `½ ω⁺ᵀ I ω⁺ = ½ ωᵀ I ω + ½ Δωᵀ I Δω` (the term is orthogonal to `ω^ℓ`,
/// not to `ω⁺`): every step *adds* `½ Δωᵀ I Δω`, `O(h²)`, and a fast-spinning non-symmetric
/// body gains energy without bound. Taken at `ω⁺` (backward Euler) the impulse does no work
/// on `ω⁺` and the step's kinetic energy changes by `ν⁺ᵀ W p − ½ ΔνᵀMΔν`: the contacts' work
/// minus a non-negative term, so the rotation can only lose energy (`O(h)` over a run, the
/// same order as the explicit gain, with the other sign). Taken at the midpoint, `ω̄ᵀ I Δω =
/// ½ (ω⁺ᵀIω⁺ − ωᵀIω) = −h ω̄ · (ω̄ × I ω̄) = 0`: a free body keeps its kinetic energy
/// exactly. In both cases the energy measured at the next step, with `I_w` at the new
/// orientation, is the same, because the orientation update `exp(h ω⁺) R` turns the body
/// about `ω⁺` itself, which leaves `ω⁺` in body axes, and so `ω⁺ᵀ I_w ω⁺`, unchanged.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Gyroscopic {
    /// At the start of the step, `θ = 0` (the paper's eq. 21): gains energy.
    Explicit,
    /// At the end of the step, `θ = 1` (default): never gains energy.
    #[default]
    Implicit,
    /// At the midpoint, `θ = ½`: keeps a free body's kinetic energy exactly.
    Midpoint,
}

impl Gyroscopic {
    /// The weight `θ` of the end-of-step angular velocity.
    pub fn weight(&self) -> f64 {
        match self {
            Gyroscopic::Explicit => 0.0,
            Gyroscopic::Implicit => 1.0,
            Gyroscopic::Midpoint => 0.5,
        }
    }

    /// The name in files: `explicit`, `implicit` or `midpoint`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Gyroscopic::Explicit => "explicit",
            Gyroscopic::Implicit => "implicit",
            Gyroscopic::Midpoint => "midpoint",
        }
    }
}

/// A [`Space`] with rigid-body dynamics: [`Planar`] (scalar inertia, no gyroscopic term) or
/// [`Spatial`] (3 × 3 inertia tensor, `−ω × I_w ω`).
pub trait Dynamics: Space {
    /// A body-frame inertia: `f64` (about the out-of-plane axis) in 2D, a symmetric
    /// positive-definite `Matrix3` (about the body origin, in body axes) in 3D.
    type Inertia: Copy + Debug + PartialEq + Send + Sync + 'static;
    /// An `A × A` matrix acting on angular quantities: `Matrix1` in 2D, `Matrix3` in 3D.
    type AngularMatrix: MatrixOps
        + Mul<Self::Angular, Output = Self::Angular>
        + Mul<Output = Self::AngularMatrix>;

    /// The `A × A` matrix with entries `f(i, j)`.
    fn angular_matrix_from_fn(f: impl FnMut(usize, usize) -> f64) -> Self::AngularMatrix;
    /// `None` if `inertia` is a valid body-frame inertia, else the reason: 2D finite and
    /// `> 0`; 3D finite, symmetric, positive-definite and with principal moments satisfying
    /// the triangle inequality `I₁ + I₂ ≥ I₃` (every real mass distribution does).
    fn inertia_problem(inertia: &Self::Inertia) -> Option<String>;
    /// The world-frame inertia `I_w = R I_b Rᵀ` (symmetrised against rounding); 2D: `I_b`.
    fn world_inertia(inertia: &Self::Inertia, rotation: &Self::Rotation) -> Self::AngularMatrix;
    /// The gyroscopic torque `−ω × I_w ω` (paper's `λ_vp`, world frame); zero in 2D.
    fn gyroscopic_torque(
        omega: &Self::Angular,
        world_inertia: &Self::AngularMatrix,
    ) -> Self::Angular;
    /// The derivative of [`Self::gyroscopic_torque`] with respect to `ω`,
    /// `[I_w ω]× − [ω]× I_w`; zero in 2D.
    fn gyroscopic_jacobian(
        omega: &Self::Angular,
        world_inertia: &Self::AngularMatrix,
    ) -> Self::AngularMatrix;
    /// The left Jacobian `J_l(φ)` of the exponential map: `exp(φ + δφ) = exp(J_l(φ) δφ) exp(φ)`
    /// to first order. 2D: `1`. 3D: [`left_jacobian_so3`].
    fn left_jacobian(phi: &Self::Angular) -> Self::AngularMatrix;
    /// The rotation rescaled to unit norm (removes rounding drift; a no-op on exact units).
    fn normalize(rotation: &Self::Rotation) -> Self::Rotation;
    /// The unit inertia (`1`, or the `3 × 3` identity): a placeholder for fixed bodies.
    fn unit_inertia() -> Self::Inertia;

    /// The zero angular quantity.
    fn zero_angular() -> Self::Angular {
        Self::angular_from_fn(|_| 0.0)
    }
    /// The `A × A` identity.
    fn angular_identity() -> Self::AngularMatrix {
        Self::angular_matrix_from_fn(|i, j| if i == j { 1.0 } else { 0.0 })
    }
    /// The dot product of two angular quantities.
    fn angular_dot(a: &Self::Angular, b: &Self::Angular) -> f64 {
        (0..Self::ANGULAR_DIM).map(|i| a[i] * b[i]).sum()
    }
    /// True if every component is finite.
    fn angular_is_finite(a: &Self::Angular) -> bool {
        (0..Self::ANGULAR_DIM).all(|i| a[i].is_finite())
    }
    /// `Mᵀ a` for an `A × A` matrix `M`.
    fn angular_matrix_transpose_mul(m: &Self::AngularMatrix, a: &Self::Angular) -> Self::Angular {
        Self::angular_from_fn(|i| (0..Self::ANGULAR_DIM).map(|k| m[(k, i)] * a[k]).sum())
    }
    /// The product `J M` of a `D × A` and an `A × A` matrix (chains a derivative with respect
    /// to a rotation increment `δθ` into one with respect to `ω` when `δθ = M δω`).
    fn angular_jacobian_mul(
        j: &Self::AngularJacobian,
        m: &Self::AngularMatrix,
    ) -> Self::AngularJacobian {
        Self::angular_jacobian_from_fn(|r, c| {
            (0..Self::ANGULAR_DIM).map(|k| j[(r, k)] * m[(k, c)]).sum()
        })
    }
    /// The world-frame rotation update `exp(φ) ∘ R`, renormalised.
    fn integrate_rotation(rotation: &Self::Rotation, phi: &Self::Angular) -> Self::Rotation {
        Self::normalize(&Self::compose(&Self::exp(phi), rotation))
    }
}

impl Dynamics for Planar {
    type Inertia = f64;
    type AngularMatrix = Matrix1<f64>;

    fn angular_matrix_from_fn(mut f: impl FnMut(usize, usize) -> f64) -> Self::AngularMatrix {
        Matrix1::new(f(0, 0))
    }
    fn inertia_problem(inertia: &f64) -> Option<String> {
        (!(inertia.is_finite() && *inertia > 0.0))
            .then(|| format!("must be finite and > 0, got {inertia}"))
    }
    fn world_inertia(inertia: &f64, _rotation: &UnitComplex<f64>) -> Matrix1<f64> {
        Matrix1::new(*inertia)
    }
    fn gyroscopic_torque(_omega: &Vector1<f64>, _world_inertia: &Matrix1<f64>) -> Vector1<f64> {
        Vector1::zeros()
    }
    fn gyroscopic_jacobian(_omega: &Vector1<f64>, _world_inertia: &Matrix1<f64>) -> Matrix1<f64> {
        Matrix1::zeros()
    }
    fn unit_inertia() -> f64 {
        1.0
    }
    fn left_jacobian(_phi: &Vector1<f64>) -> Matrix1<f64> {
        Matrix1::identity()
    }
    fn normalize(rotation: &UnitComplex<f64>) -> UnitComplex<f64> {
        let mut r = *rotation;
        r.renormalize();
        r
    }
}

impl Dynamics for Spatial {
    type Inertia = Matrix3<f64>;
    type AngularMatrix = Matrix3<f64>;

    fn angular_matrix_from_fn(f: impl FnMut(usize, usize) -> f64) -> Self::AngularMatrix {
        Matrix3::from_fn(f)
    }
    fn inertia_problem(inertia: &Matrix3<f64>) -> Option<String> {
        if !inertia.iter().all(|x| x.is_finite()) {
            return Some(format!("not finite: {inertia:?}"));
        }
        let scale = inertia.amax();
        let asym = (inertia - inertia.transpose()).amax();
        if asym > INERTIA_TOLERANCE * scale {
            return Some(format!(
                "not symmetric: max |I − Iᵀ| = {asym:e} (relative tolerance {INERTIA_TOLERANCE:e})"
            ));
        }
        let sym = (inertia + inertia.transpose()) * 0.5;
        let mut moments: Vec<f64> = sym.symmetric_eigenvalues().iter().copied().collect();
        moments.sort_by(f64::total_cmp);
        if moments[0] <= 0.0 {
            return Some(format!(
                "not positive-definite: principal moments {moments:?}"
            ));
        }
        if moments[0] + moments[1] < moments[2] * (1.0 - INERTIA_TOLERANCE) {
            return Some(format!(
                "principal moments {moments:?} violate the triangle inequality I₁ + I₂ ≥ I₃ \
                 (no mass distribution has them)"
            ));
        }
        None
    }
    fn world_inertia(inertia: &Matrix3<f64>, rotation: &UnitQuaternion<f64>) -> Matrix3<f64> {
        let r = rotation.to_rotation_matrix().into_inner();
        let iw = r * inertia * r.transpose();
        (iw + iw.transpose()) * 0.5
    }
    fn gyroscopic_torque(omega: &Vector3<f64>, world_inertia: &Matrix3<f64>) -> Vector3<f64> {
        -omega.cross(&(world_inertia * omega))
    }
    fn gyroscopic_jacobian(omega: &Vector3<f64>, world_inertia: &Matrix3<f64>) -> Matrix3<f64> {
        (world_inertia * omega).cross_matrix() - omega.cross_matrix() * world_inertia
    }
    fn unit_inertia() -> Matrix3<f64> {
        Matrix3::identity()
    }
    fn left_jacobian(phi: &Vector3<f64>) -> Matrix3<f64> {
        left_jacobian_so3(phi)
    }
    fn normalize(rotation: &UnitQuaternion<f64>) -> UnitQuaternion<f64> {
        let mut q = *rotation;
        q.renormalize();
        q
    }
}

/// The left Jacobian of the exponential map of SO(3):
///
/// ```text
/// J_l(φ) = I + (1 − cos θ)/θ² [φ]× + (θ − sin θ)/θ³ [φ]×²,   θ = ‖φ‖,
/// ```
///
/// so that `exp(φ + δφ) = exp(J_l(φ) δφ) exp(φ) + O(δφ²)`: a change `δφ` of the rotation vector
/// rotates the result by `J_l(φ) δφ` in the world frame. `(1 − cos θ)/θ²` is evaluated as
/// `½ (sin(θ/2)/(θ/2))²` (no cancellation); below [`SMALL_ANGLE`] both coefficients use their
/// Taylor series to `θ⁴` (truncation `< θ⁶/10⁵ < 10⁻¹⁶`), above it the direct form of
/// `(θ − sin θ)/θ³` loses at most `≈ 6·10⁻¹⁶/θ²` relative, i.e. `< 10⁻¹¹`, and multiplies
/// `[φ]×²` of size `θ²`, so the absolute error stays at rounding level.
pub fn left_jacobian_so3(phi: &Vector3<f64>) -> Matrix3<f64> {
    let t2 = phi.norm_squared();
    let t = t2.sqrt();
    let (a, b) = if t < SMALL_ANGLE {
        (
            0.5 - t2 / 24.0 + t2 * t2 / 720.0,
            1.0 / 6.0 - t2 / 120.0 + t2 * t2 / 5040.0,
        )
    } else {
        let s = (0.5 * t).sin() / (0.5 * t);
        (0.5 * s * s, (t - t.sin()) / (t2 * t))
    };
    let k = phi.cross_matrix();
    Matrix3::identity() + k * a + k * k * b
}
