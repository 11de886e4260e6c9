//! Disc (2D) and ball (3D) of radius `r` about the origin.
//!
//! Scaling: `f(ξ) = (‖ξ‖² − r²) / (2r)`, so `∇f = ξ / r` (unit on the surface, where `f` agrees
//! with the signed distance to first order) and `∇²f = I / r`. The paper writes
//! `ξᵀξ − r²` (eq. 56); the set and the normals are the same, only the size of the multipliers
//! changes (by the factor `2r`). `f` is a convex quadratic, `C^∞`.

use crate::geometry::error::{GeometryError, positive};
use crate::geometry::implicit::{ImplicitFn, Primitive};
use crate::geometry::space::Space;

/// The disc or ball `‖ξ‖ ≤ r`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ball<S: Space> {
    radius: f64,
    _space: std::marker::PhantomData<S>,
}

/// A disc (2D ball).
pub type Circle = Ball<crate::geometry::space::Planar>;
/// A sphere (3D ball).
pub type Sphere = Ball<crate::geometry::space::Spatial>;

impl<S: Space> Ball<S> {
    /// The ball of radius `r > 0` about the origin.
    pub fn new(radius: f64) -> Result<Self, GeometryError> {
        positive(ball_name::<S>(), "radius", radius)?;
        Ok(Self {
            radius,
            _space: std::marker::PhantomData,
        })
    }

    /// The radius `r`.
    pub fn radius(&self) -> f64 {
        self.radius
    }
}

fn ball_name<S: Space>() -> &'static str {
    if S::DIM == 2 { "circle" } else { "sphere" }
}

impl<S: Space> ImplicitFn<S> for Ball<S> {
    fn primitive(&self) -> Option<Primitive<S>> {
        Some(Primitive::Ball(self.radius))
    }
    fn name(&self) -> &str {
        ball_name::<S>()
    }
    fn value(&self, xi: &S::Vector) -> f64 {
        (S::dot(xi, xi) - self.radius * self.radius) / (2.0 * self.radius)
    }
    fn gradient(&self, xi: &S::Vector) -> S::Vector {
        *xi * (1.0 / self.radius)
    }
    fn hessian(&self, _xi: &S::Vector) -> S::Matrix {
        S::identity_matrix() * (1.0 / self.radius)
    }
    fn validate(&self) -> Result<(), GeometryError> {
        positive(ball_name::<S>(), "radius", self.radius)
    }
    fn interior_point(&self) -> Option<S::Vector> {
        Some(S::zero_vector())
    }
    fn bounding_radius(&self) -> Option<f64> {
        Some(self.radius)
    }
    fn polytope(
        &self,
        resolution: usize,
    ) -> Option<Result<crate::geometry::ConvexPart<S>, GeometryError>> {
        Some(crate::geometry::ConvexPart::inscribed_ball(
            self.radius,
            resolution,
        ))
    }
}
