//! Ellipse (2D) and ellipsoid (3D) with semi-axes `a` along the frame axes.
//!
//! Scaling: `f(ξ) = (m/2) (Σᵢ (ξᵢ/aᵢ)² − 1)` with `m = minᵢ aᵢ`, so that with equal semi-axes
//! it is exactly the [`Ball`](super::Ball) function `(‖ξ‖² − r²)/(2r)`.
//! `∂f/∂ξᵢ = m ξᵢ / aᵢ²`, `∇²f = m diag(1/aᵢ²)`: a convex quadratic, `C^∞`.

use crate::geometry::error::{GeometryError, positive};
use crate::geometry::implicit::{ImplicitFn, Primitive};
use crate::geometry::space::Space;

/// The ellipse or ellipsoid `Σᵢ (ξᵢ/aᵢ)² ≤ 1`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ellipsoid<S: Space> {
    semi_axes: S::Vector,
    scale: f64,
}

/// An ellipse (2D ellipsoid).
pub type Ellipse = Ellipsoid<crate::geometry::space::Planar>;

impl<S: Space> Ellipsoid<S> {
    /// The ellipsoid with semi-axes `a` (each finite and `> 0`).
    pub fn new(semi_axes: S::Vector) -> Result<Self, GeometryError> {
        check_semi_axes::<S>(ellipsoid_name::<S>(), &semi_axes)?;
        Ok(Self {
            semi_axes,
            scale: min_component::<S>(&semi_axes),
        })
    }

    /// The semi-axes `a`.
    pub fn semi_axes(&self) -> S::Vector {
        self.semi_axes
    }
}

pub(crate) fn check_semi_axes<S: Space>(shape: &str, a: &S::Vector) -> Result<(), GeometryError> {
    for i in 0..S::DIM {
        positive(shape, &format!("semi_axes[{i}]"), a[i])?;
    }
    Ok(())
}

pub(crate) fn min_component<S: Space>(a: &S::Vector) -> f64 {
    (0..S::DIM).map(|i| a[i]).fold(f64::INFINITY, f64::min)
}

fn ellipsoid_name<S: Space>() -> &'static str {
    if S::DIM == 2 { "ellipse" } else { "ellipsoid" }
}

impl<S: Space> ImplicitFn<S> for Ellipsoid<S> {
    fn primitive(&self) -> Option<Primitive<S>> {
        Some(Primitive::Ellipsoid(self.semi_axes))
    }
    fn name(&self) -> &str {
        ellipsoid_name::<S>()
    }
    fn value(&self, xi: &S::Vector) -> f64 {
        let s: f64 = (0..S::DIM)
            .map(|i| (xi[i] / self.semi_axes[i]).powi(2))
            .sum();
        0.5 * self.scale * (s - 1.0)
    }
    fn gradient(&self, xi: &S::Vector) -> S::Vector {
        S::vector_from_fn(|i| self.scale * xi[i] / (self.semi_axes[i] * self.semi_axes[i]))
    }
    fn hessian(&self, _xi: &S::Vector) -> S::Matrix {
        S::matrix_from_fn(|i, j| {
            if i == j {
                self.scale / (self.semi_axes[i] * self.semi_axes[i])
            } else {
                0.0
            }
        })
    }
    fn validate(&self) -> Result<(), GeometryError> {
        check_semi_axes::<S>(ellipsoid_name::<S>(), &self.semi_axes)
    }
    fn interior_point(&self) -> Option<S::Vector> {
        Some(S::zero_vector())
    }
    fn bounding_radius(&self) -> Option<f64> {
        Some((0..S::DIM).map(|i| self.semi_axes[i]).fold(0.0, f64::max))
    }
}
