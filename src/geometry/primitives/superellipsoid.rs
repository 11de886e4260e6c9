//! Superellipse (2D) and superellipsoid (3D) after Barr (1981), the paper's gear teeth (§6.4,
//! eq. 57: exponent 4, semi-axes 2.3 and 1.1).
//!
//! With `uᵢ = ξᵢ / aᵢ` and `m = minᵢ aᵢ`,
//!
//! ```text
//! f(ξ)        = (m/p) (Σᵢ |uᵢ|ᵖ − 1)
//! ∂f/∂ξᵢ      = (m/aᵢ) |uᵢ|^(p−2) uᵢ
//! ∂²f/∂ξᵢ²    = m (p − 1) |uᵢ|^(p−2) / aᵢ²        (off-diagonal entries 0)
//! ```
//!
//! The scale `m/p` makes `p = 2` exactly the [`Ellipsoid`](super::Ellipsoid) function (and equal
//! semi-axes the [`Ball`](super::Ball)); the paper's eq. 57 is `f` times `p/m`.
//!
//! **Why `p ≥ 2`.** `|u|ᵖ` is convex for `p ≥ 1` but its second derivative
//! `p(p−1)|u|^(p−2)` is unbounded at `u = 0` for `p < 2`: not `C²` (and the surface has corners
//! for `p ≤ 1`). For `p ≥ 2`, `|u|^(p−2)` is continuous (`= 1` at `p = 2`, `→ 0` at `u = 0` for
//! `p > 2`), so `f` is `C²` everywhere, including on the axes; for `2 < p < 3` the third
//! derivative blows up at `uᵢ = 0`, which the Newton solver does not need. The code evaluates
//! `w = |uᵢ|^(p−2)` once and forms `|uᵢ|ᵖ = w uᵢ²`, `|uᵢ|^(p−2) uᵢ = w uᵢ`, so nothing divides by
//! `uᵢ` and `0^0 = 1` covers `p = 2`.

use super::ellipsoid::{check_semi_axes, min_component};
use crate::geometry::error::GeometryError;
use crate::geometry::implicit::{ImplicitFn, Primitive};
use crate::geometry::space::Space;

/// The superellipsoid `Σᵢ |ξᵢ/aᵢ|ᵖ ≤ 1`, `p ≥ 2`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Superellipsoid<S: Space> {
    semi_axes: S::Vector,
    exponent: f64,
    scale: f64,
}

/// A superellipse (2D superellipsoid).
pub type Superellipse = Superellipsoid<crate::geometry::space::Planar>;

/// Largest exponent accepted: beyond it `|u|ᵖ` over- or underflows for ordinary `u`.
pub const MAX_EXPONENT: f64 = 200.0;

impl<S: Space> Superellipsoid<S> {
    /// The superellipsoid with semi-axes `a` (finite, `> 0`) and exponent `p`
    /// (`2 ≤ p ≤` [`MAX_EXPONENT`]; NaN is rejected).
    pub fn new(semi_axes: S::Vector, exponent: f64) -> Result<Self, GeometryError> {
        let name = superellipsoid_name::<S>();
        check_semi_axes::<S>(name, &semi_axes)?;
        check_exponent(name, exponent)?;
        Ok(Self {
            semi_axes,
            exponent,
            scale: min_component::<S>(&semi_axes),
        })
    }

    /// The semi-axes `a`.
    pub fn semi_axes(&self) -> S::Vector {
        self.semi_axes
    }

    /// The exponent `p`.
    pub fn exponent(&self) -> f64 {
        self.exponent
    }

    /// `(uᵢ, |uᵢ|^(p−2))` per axis.
    fn terms(&self, xi: &S::Vector) -> (S::Vector, S::Vector) {
        let u = S::vector_from_fn(|i| xi[i] / self.semi_axes[i]);
        let w = S::vector_from_fn(|i| u[i].abs().powf(self.exponent - 2.0));
        (u, w)
    }
}

fn check_exponent(name: &str, p: f64) -> Result<(), GeometryError> {
    if p.is_nan() || p < 2.0 {
        return Err(GeometryError::parameter(
            name,
            "exponent",
            format!(
                "must be ≥ 2, got {p}: below 2 the function is not C² at the axes (its second \
                 derivative is unbounded), and below 1 it is not convex"
            ),
        ));
    }
    if p > MAX_EXPONENT {
        return Err(GeometryError::parameter(
            name,
            "exponent",
            format!("must be ≤ {MAX_EXPONENT}, got {p}: |u|^p over- or underflows"),
        ));
    }
    Ok(())
}

fn superellipsoid_name<S: Space>() -> &'static str {
    if S::DIM == 2 {
        "superellipse"
    } else {
        "superellipsoid"
    }
}

impl<S: Space> ImplicitFn<S> for Superellipsoid<S> {
    fn primitive(&self) -> Option<Primitive<S>> {
        Some(Primitive::Superellipsoid(self.semi_axes, self.exponent))
    }
    fn name(&self) -> &str {
        superellipsoid_name::<S>()
    }
    fn value(&self, xi: &S::Vector) -> f64 {
        let (u, w) = self.terms(xi);
        let s: f64 = (0..S::DIM).map(|i| w[i] * u[i] * u[i]).sum();
        self.scale / self.exponent * (s - 1.0)
    }
    fn gradient(&self, xi: &S::Vector) -> S::Vector {
        let (u, w) = self.terms(xi);
        S::vector_from_fn(|i| self.scale / self.semi_axes[i] * w[i] * u[i])
    }
    fn hessian(&self, xi: &S::Vector) -> S::Matrix {
        let (_, w) = self.terms(xi);
        let p = self.exponent;
        S::matrix_from_fn(|i, j| {
            if i == j {
                self.scale * (p - 1.0) * w[i] / (self.semi_axes[i] * self.semi_axes[i])
            } else {
                0.0
            }
        })
    }
    fn validate(&self) -> Result<(), GeometryError> {
        let name = superellipsoid_name::<S>();
        check_semi_axes::<S>(name, &self.semi_axes)?;
        check_exponent(name, self.exponent)
    }
    fn interior_point(&self) -> Option<S::Vector> {
        Some(S::zero_vector())
    }
    fn bounding_radius(&self) -> Option<f64> {
        // p ≥ 2: inside the box |ξᵢ| ≤ aᵢ.
        Some(S::norm(&self.semi_axes))
    }
}
