//! Infinite circular cylinder about the body `z` axis (3D):
//! `f(ξ) = (ξ_x² + ξ_y² − r²) / (2r)`, `∇f = (ξ_x, ξ_y, 0)/r`, `∇²f = diag(1, 1, 0)/r`.
//! Scaled like [`Ball`](super::Ball). A finite cylinder is this function intersected with two
//! half-spaces, [`ConvexPart::cylinder`](crate::geometry::ConvexPart::cylinder).

use crate::geometry::error::{GeometryError, positive};
use crate::geometry::implicit::{ImplicitFn, Primitive};
use crate::geometry::space::Spatial;
use nalgebra::{Matrix3, Vector3};

/// The infinite cylinder `ξ_x² + ξ_y² ≤ r²`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InfiniteCylinder {
    radius: f64,
}

impl InfiniteCylinder {
    /// The cylinder of radius `r > 0` about the `z` axis.
    pub fn new(radius: f64) -> Result<Self, GeometryError> {
        positive("cylinder", "radius", radius)?;
        Ok(Self { radius })
    }

    /// The radius `r`.
    pub fn radius(&self) -> f64 {
        self.radius
    }
}

impl ImplicitFn<Spatial> for InfiniteCylinder {
    fn primitive(&self) -> Option<Primitive<Spatial>> {
        Some(Primitive::InfiniteCylinder(self.radius))
    }
    fn name(&self) -> &str {
        "cylinder"
    }
    fn value(&self, xi: &Vector3<f64>) -> f64 {
        (xi.x * xi.x + xi.y * xi.y - self.radius * self.radius) / (2.0 * self.radius)
    }
    fn gradient(&self, xi: &Vector3<f64>) -> Vector3<f64> {
        Vector3::new(xi.x, xi.y, 0.0) / self.radius
    }
    fn hessian(&self, _xi: &Vector3<f64>) -> Matrix3<f64> {
        Matrix3::from_diagonal(&Vector3::new(1.0, 1.0, 0.0)) / self.radius
    }
    fn validate(&self) -> Result<(), GeometryError> {
        positive("cylinder", "radius", self.radius)
    }
    fn interior_point(&self) -> Option<Vector3<f64>> {
        Some(Vector3::zeros())
    }
}
