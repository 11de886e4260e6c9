//! Half-plane (2D) and half-space (3D): `f(ξ) = n · ξ − d` with `‖n‖ = 1`.
//!
//! `f` is the signed distance to the boundary plane, `∇f = n`, `∇²f = 0`: affine, hence convex
//! and `C^∞`. The set is `{ξ : n · ξ ≤ d}`, with `n` the outward normal.

use crate::geometry::error::GeometryError;
use crate::geometry::implicit::{ImplicitFn, Primitive};
use crate::geometry::space::Space;

/// The half-space `n · ξ ≤ d` (outward unit normal `n`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HalfSpace<S: Space> {
    normal: S::Vector,
    offset: f64,
}

impl<S: Space> HalfSpace<S> {
    /// The half-space `n · ξ ≤ d`. `n` need not be unit: `n` and `d` are both divided by `‖n‖`,
    /// so `f` is a signed distance. Fails on a zero or non-finite normal or a non-finite offset.
    pub fn new(normal: S::Vector, offset: f64) -> Result<Self, GeometryError> {
        let name = half_space_name::<S>();
        let len = S::norm(&normal);
        if !S::is_finite(&normal) || len.is_nan() || len <= 1e-300 {
            return Err(GeometryError::parameter(
                name,
                "normal",
                format!("must be finite and non-zero, got {normal:?}"),
            ));
        }
        if !offset.is_finite() {
            return Err(GeometryError::parameter(
                name,
                "offset",
                format!("must be finite, got {offset}"),
            ));
        }
        Ok(Self {
            normal: normal * (1.0 / len),
            offset: offset / len,
        })
    }

    /// The outward unit normal `n`.
    pub fn normal(&self) -> S::Vector {
        self.normal
    }

    /// The offset `d` (the plane is `n · ξ = d`).
    pub fn offset(&self) -> f64 {
        self.offset
    }
}

pub(crate) fn half_space_name<S: Space>() -> &'static str {
    if S::DIM == 2 {
        "half-plane"
    } else {
        "half-space"
    }
}

impl<S: Space> ImplicitFn<S> for HalfSpace<S> {
    fn primitive(&self) -> Option<Primitive<S>> {
        Some(Primitive::HalfSpace(self.normal, self.offset))
    }
    fn name(&self) -> &str {
        half_space_name::<S>()
    }
    fn value(&self, xi: &S::Vector) -> f64 {
        S::dot(&self.normal, xi) - self.offset
    }
    fn gradient(&self, _xi: &S::Vector) -> S::Vector {
        self.normal
    }
    fn hessian(&self, _xi: &S::Vector) -> S::Matrix {
        S::zero_matrix()
    }
    fn validate(&self) -> Result<(), GeometryError> {
        Self::new(self.normal, self.offset).map(|_| ())
    }
    fn interior_point(&self) -> Option<S::Vector> {
        // One unit inside the boundary.
        Some(self.normal * (self.offset - 1.0))
    }
    fn half_space(&self) -> Option<(S::Vector, f64)> {
        Some((self.normal, self.offset))
    }
}
