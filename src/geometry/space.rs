//! The dimension of the world as a type: [`Planar`] (2D) and [`Spatial`] (3D).
//!
//! Geometry is generic over a [`Space`], so planar and spatial bodies coexist in one build. A
//! space fixes
//!
//! * `Vector` — a point or direction, `ℝᴰ` with `D = 2` or `3`;
//! * `Matrix` — a `D × D` matrix (Hessians, rotation matrices);
//! * `Angular` — an angular quantity, `ℝᴬ` with `A = 1` in 2D (the rotation about the out-of-plane
//!   axis, kept as a 1-vector so code stays uniform) and `A = 3` in 3D;
//! * `AngularJacobian` — a `D × A` matrix, the derivative of a vector with respect to an angular
//!   quantity;
//! * `Rotation` — a unit complex number `e^{iθ}` in 2D, a unit quaternion in 3D.
//!
//! The cross product `r × v` of two vectors is an `Angular`: in 2D the scalar `r_x v_y − r_y v_x`
//! (the paper's `r ⊗ n`). The product `δθ × v` of an angular quantity with a vector is a vector:
//! in 2D `δθ (−v_y, v_x)`. Both agree with the 3D cross product when 2D vectors are embedded in
//! the `xy`-plane and 2D angles are rotations about `z`.

use nalgebra::{
    Matrix2, Matrix2x1, Matrix3, Quaternion, UnitComplex, UnitQuaternion, Vector1, Vector2, Vector3,
};
use std::fmt::Debug;
use std::ops::{Add, AddAssign, Index, IndexMut, Mul, Neg, Sub, SubAssign};

/// Arithmetic shared by the vector types of a [`Space`] (implemented for every type that has it).
pub trait VectorOps:
    Copy
    + Debug
    + PartialEq
    + Send
    + Sync
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Neg<Output = Self>
    + Mul<f64, Output = Self>
    + AddAssign
    + SubAssign
    + Index<usize, Output = f64>
    + IndexMut<usize>
{
}

impl<T> VectorOps for T where
    T: Copy
        + Debug
        + PartialEq
        + Send
        + Sync
        + 'static
        + Add<Output = T>
        + Sub<Output = T>
        + Neg<Output = T>
        + Mul<f64, Output = T>
        + AddAssign
        + SubAssign
        + Index<usize, Output = f64>
        + IndexMut<usize>
{
}

/// Arithmetic shared by the matrix types of a [`Space`] (implemented for every type that has it).
pub trait MatrixOps:
    Copy
    + Debug
    + PartialEq
    + Send
    + Sync
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Neg<Output = Self>
    + Mul<f64, Output = Self>
    + AddAssign
    + Index<(usize, usize), Output = f64>
    + IndexMut<(usize, usize)>
{
}

impl<T> MatrixOps for T where
    T: Copy
        + Debug
        + PartialEq
        + Send
        + Sync
        + 'static
        + Add<Output = T>
        + Sub<Output = T>
        + Neg<Output = T>
        + Mul<f64, Output = T>
        + AddAssign
        + Index<(usize, usize), Output = f64>
        + IndexMut<(usize, usize)>
{
}

/// The dimension of the world: [`Planar`] or [`Spatial`]. See the module docs for the types.
pub trait Space: Copy + Clone + Debug + Default + PartialEq + Eq + Send + Sync + 'static {
    /// Dimension `D` of points: 2 or 3.
    const DIM: usize;
    /// Dimension `A` of angular quantities: 1 or 3.
    const ANGULAR_DIM: usize;
    /// Degrees of freedom of a rigid body, `D + A`: 3 or 6.
    const DOF: usize;
    /// `"planar"` or `"spatial"`.
    const NAME: &'static str;

    /// A point or direction in `ℝᴰ`.
    type Vector: VectorOps;
    /// An angular quantity in `ℝᴬ` (a 1-vector in 2D).
    type Angular: VectorOps;
    /// A `D × D` matrix.
    type Matrix: MatrixOps + Mul<Self::Vector, Output = Self::Vector> + Mul<Output = Self::Matrix>;
    /// A `D × A` matrix: the derivative of a vector with respect to an angular quantity.
    type AngularJacobian: MatrixOps;
    /// A rotation: unit complex number (2D) or unit quaternion (3D).
    type Rotation: Copy + Debug + PartialEq + Send + Sync + 'static;

    /// The vector with components `f(0), …, f(D−1)`.
    fn vector_from_fn(f: impl FnMut(usize) -> f64) -> Self::Vector;
    /// The angular quantity with components `f(0), …, f(A−1)`.
    fn angular_from_fn(f: impl FnMut(usize) -> f64) -> Self::Angular;
    /// The `D × D` matrix with entries `f(i, j)`.
    fn matrix_from_fn(f: impl FnMut(usize, usize) -> f64) -> Self::Matrix;
    /// The `D × A` matrix with entries `f(i, j)`.
    fn angular_jacobian_from_fn(f: impl FnMut(usize, usize) -> f64) -> Self::AngularJacobian;

    /// The zero vector.
    fn zero_vector() -> Self::Vector {
        Self::vector_from_fn(|_| 0.0)
    }
    /// The `i`-th unit vector.
    fn unit_vector(i: usize) -> Self::Vector {
        Self::vector_from_fn(|k| if k == i { 1.0 } else { 0.0 })
    }
    /// The zero matrix.
    fn zero_matrix() -> Self::Matrix {
        Self::matrix_from_fn(|_, _| 0.0)
    }
    /// The identity matrix.
    fn identity_matrix() -> Self::Matrix {
        Self::matrix_from_fn(|i, j| if i == j { 1.0 } else { 0.0 })
    }
    /// The dot product `a · b`.
    fn dot(a: &Self::Vector, b: &Self::Vector) -> f64 {
        (0..Self::DIM).map(|i| a[i] * b[i]).sum()
    }
    /// The Euclidean norm `‖a‖`.
    fn norm(a: &Self::Vector) -> f64 {
        Self::dot(a, a).sqrt()
    }
    /// True if every component is finite.
    fn is_finite(a: &Self::Vector) -> bool {
        (0..Self::DIM).all(|i| a[i].is_finite())
    }
    /// The outer product `a bᵀ`.
    fn outer(a: &Self::Vector, b: &Self::Vector) -> Self::Matrix {
        Self::matrix_from_fn(|i, j| a[i] * b[j])
    }
    /// The transpose `Mᵀ`.
    fn transpose(m: &Self::Matrix) -> Self::Matrix {
        Self::matrix_from_fn(|i, j| m[(j, i)])
    }
    /// The product `M J` of a `D × D` and a `D × A` matrix.
    fn matrix_mul_angular_jacobian(
        m: &Self::Matrix,
        j: &Self::AngularJacobian,
    ) -> Self::AngularJacobian {
        Self::angular_jacobian_from_fn(|r, c| (0..Self::DIM).map(|k| m[(r, k)] * j[(k, c)]).sum())
    }
    /// The product `Jᵀ v` of a `D × A` matrix's transpose and a vector.
    fn angular_jacobian_transpose_mul(
        j: &Self::AngularJacobian,
        v: &Self::Vector,
    ) -> Self::Angular {
        Self::angular_from_fn(|c| (0..Self::DIM).map(|k| j[(k, c)] * v[k]).sum())
    }

    /// The cross product `r × v` (in 2D the scalar `r_x v_y − r_y v_x` as a 1-vector).
    fn cross(r: &Self::Vector, v: &Self::Vector) -> Self::Angular;
    /// The `D × A` matrix `M_v` with `M_v δθ = δθ × v` for every angular `δθ`
    /// (3D: `−[v]×`; 2D: the column `(−v_y, v_x)`).
    fn cross_jacobian(v: &Self::Vector) -> Self::AngularJacobian;
    /// `δθ × v`, i.e. `M_v δθ`.
    fn angular_cross(w: &Self::Angular, v: &Self::Vector) -> Self::Vector {
        let m = Self::cross_jacobian(v);
        Self::vector_from_fn(|i| (0..Self::ANGULAR_DIM).map(|c| m[(i, c)] * w[c]).sum())
    }

    /// The identity rotation.
    fn rotation_identity() -> Self::Rotation;
    /// The rotation matrix `R` (columns are the body axes in the world frame).
    fn rotation_matrix(r: &Self::Rotation) -> Self::Matrix;
    /// `R v`.
    fn rotate(r: &Self::Rotation, v: &Self::Vector) -> Self::Vector {
        Self::rotation_matrix(r) * *v
    }
    /// `Rᵀ v`.
    fn inverse_rotate(r: &Self::Rotation, v: &Self::Vector) -> Self::Vector {
        Self::transpose(&Self::rotation_matrix(r)) * *v
    }
    /// The composition `a ∘ b` (apply `b` first): matrix `R_a R_b`.
    fn compose(a: &Self::Rotation, b: &Self::Rotation) -> Self::Rotation;
    /// The exponential map: the rotation by the angle `‖w‖` about `w` (2D: by `w₀`).
    fn exp(w: &Self::Angular) -> Self::Rotation;
    /// The logarithm, the inverse of [`Self::exp`]: the rotation vector of angle in `[0, π]`
    /// (2D: the angle in `(−π, π]`).
    fn log(r: &Self::Rotation) -> Self::Angular;
    /// The inverse rotation `Rᵀ`.
    fn inverse(r: &Self::Rotation) -> Self::Rotation;
    /// `None` if `r` is a finite unit rotation (to `1e-9`), else the reason.
    fn rotation_problem(r: &Self::Rotation) -> Option<String>;
}

/// The plane: `D = 2`, one angular coordinate, 3 degrees of freedom.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Planar;

/// Space: `D = 3`, three angular coordinates, 6 degrees of freedom.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Spatial;

/// Tolerance on `‖q‖ − 1` (or `|z| − 1` in 2D) for a rotation to count as unit.
pub const UNIT_TOLERANCE: f64 = 1e-9;

impl Space for Planar {
    const DIM: usize = 2;
    const ANGULAR_DIM: usize = 1;
    const DOF: usize = 3;
    const NAME: &'static str = "planar";

    type Vector = Vector2<f64>;
    type Angular = Vector1<f64>;
    type Matrix = Matrix2<f64>;
    type AngularJacobian = Matrix2x1<f64>;
    type Rotation = UnitComplex<f64>;

    fn vector_from_fn(mut f: impl FnMut(usize) -> f64) -> Self::Vector {
        Vector2::new(f(0), f(1))
    }
    fn angular_from_fn(mut f: impl FnMut(usize) -> f64) -> Self::Angular {
        Vector1::new(f(0))
    }
    fn matrix_from_fn(f: impl FnMut(usize, usize) -> f64) -> Self::Matrix {
        Matrix2::from_fn(f)
    }
    fn angular_jacobian_from_fn(f: impl FnMut(usize, usize) -> f64) -> Self::AngularJacobian {
        Matrix2x1::from_fn(f)
    }
    fn cross(r: &Self::Vector, v: &Self::Vector) -> Self::Angular {
        Vector1::new(r.x * v.y - r.y * v.x)
    }
    fn cross_jacobian(v: &Self::Vector) -> Self::AngularJacobian {
        Matrix2x1::new(-v.y, v.x)
    }
    fn rotation_identity() -> Self::Rotation {
        UnitComplex::identity()
    }
    fn rotation_matrix(r: &Self::Rotation) -> Self::Matrix {
        r.to_rotation_matrix().into_inner()
    }
    fn compose(a: &Self::Rotation, b: &Self::Rotation) -> Self::Rotation {
        a * b
    }
    fn exp(w: &Self::Angular) -> Self::Rotation {
        UnitComplex::new(w[0])
    }
    fn log(r: &Self::Rotation) -> Self::Angular {
        Vector1::new(r.angle())
    }
    fn inverse(r: &Self::Rotation) -> Self::Rotation {
        r.inverse()
    }
    fn rotation_problem(r: &Self::Rotation) -> Option<String> {
        let c = r.complex();
        if !(c.re.is_finite() && c.im.is_finite()) {
            return Some("rotation is not finite".into());
        }
        let n = c.norm();
        ((n - 1.0).abs() > UNIT_TOLERANCE)
            .then(|| format!("rotation has norm {n}, expected 1 (within {UNIT_TOLERANCE:e})"))
    }
}

impl Space for Spatial {
    const DIM: usize = 3;
    const ANGULAR_DIM: usize = 3;
    const DOF: usize = 6;
    const NAME: &'static str = "spatial";

    type Vector = Vector3<f64>;
    type Angular = Vector3<f64>;
    type Matrix = Matrix3<f64>;
    type AngularJacobian = Matrix3<f64>;
    type Rotation = UnitQuaternion<f64>;

    fn vector_from_fn(mut f: impl FnMut(usize) -> f64) -> Self::Vector {
        Vector3::new(f(0), f(1), f(2))
    }
    fn angular_from_fn(mut f: impl FnMut(usize) -> f64) -> Self::Angular {
        Vector3::new(f(0), f(1), f(2))
    }
    fn matrix_from_fn(f: impl FnMut(usize, usize) -> f64) -> Self::Matrix {
        Matrix3::from_fn(f)
    }
    fn angular_jacobian_from_fn(f: impl FnMut(usize, usize) -> f64) -> Self::AngularJacobian {
        Matrix3::from_fn(f)
    }
    fn cross(r: &Self::Vector, v: &Self::Vector) -> Self::Angular {
        r.cross(v)
    }
    fn cross_jacobian(v: &Self::Vector) -> Self::AngularJacobian {
        -v.cross_matrix()
    }
    fn rotation_identity() -> Self::Rotation {
        UnitQuaternion::identity()
    }
    fn rotation_matrix(r: &Self::Rotation) -> Self::Matrix {
        r.to_rotation_matrix().into_inner()
    }
    fn compose(a: &Self::Rotation, b: &Self::Rotation) -> Self::Rotation {
        a * b
    }
    fn exp(w: &Self::Angular) -> Self::Rotation {
        UnitQuaternion::from_scaled_axis(*w)
    }
    fn log(r: &Self::Rotation) -> Self::Angular {
        r.scaled_axis()
    }
    fn inverse(r: &Self::Rotation) -> Self::Rotation {
        r.inverse()
    }
    fn rotation_problem(r: &Self::Rotation) -> Option<String> {
        quaternion_problem(r.quaternion())
    }
}

/// `None` if `q` is finite with `|‖q‖ − 1| ≤` [`UNIT_TOLERANCE`], else the reason.
pub fn quaternion_problem(q: &Quaternion<f64>) -> Option<String> {
    if !q.coords.iter().all(|c| c.is_finite()) {
        return Some(format!(
            "quaternion ({}, {}, {}, {}) is not finite",
            q.w, q.i, q.j, q.k
        ));
    }
    let n = q.norm();
    ((n - 1.0).abs() > UNIT_TOLERANCE).then(|| {
        format!(
            "quaternion has norm {n}, expected 1 (within {UNIT_TOLERANCE:e}); normalise it first"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 2D cross products agree with the 3D ones on vectors in the `xy`-plane.
    #[test]
    fn planar_cross_products_embed_in_spatial() {
        let (r, v) = (Vector2::new(0.3, -1.2), Vector2::new(2.0, 0.7));
        let (r3, v3) = (Vector3::new(r.x, r.y, 0.0), Vector3::new(v.x, v.y, 0.0));
        assert_eq!(Planar::cross(&r, &v)[0], Spatial::cross(&r3, &v3).z);
        let w = Vector1::new(0.4);
        let w3 = Vector3::new(0.0, 0.0, 0.4);
        let a = Planar::angular_cross(&w, &v);
        let a3 = Spatial::angular_cross(&w3, &v3);
        assert!((a.x - a3.x).abs() < 1e-15 && (a.y - a3.y).abs() < 1e-15);
        assert!((a3 - w3.cross(&v3)).norm() < 1e-15);
    }

    #[test]
    fn exp_matches_rotation_about_axis() {
        let r = Planar::exp(&Vector1::new(0.5));
        assert!((r.angle() - 0.5).abs() < 1e-15);
        let q = Spatial::exp(&Vector3::new(0.0, 0.0, 0.5));
        let v = Spatial::rotate(&q, &Vector3::x());
        assert!((v - Vector3::new(0.5f64.cos(), 0.5f64.sin(), 0.0)).norm() < 1e-15);
    }

    #[test]
    fn non_unit_rotations_are_reported() {
        let q = UnitQuaternion::new_unchecked(Quaternion::new(2.0, 0.0, 0.0, 0.0));
        assert!(Spatial::rotation_problem(&q).unwrap().contains("norm 2"));
        let q = UnitQuaternion::new_unchecked(Quaternion::new(f64::NAN, 0.0, 0.0, 0.0));
        assert!(
            Spatial::rotation_problem(&q)
                .unwrap()
                .contains("not finite")
        );
        assert!(Planar::rotation_problem(&UnitComplex::new(1.0)).is_none());
    }
}
