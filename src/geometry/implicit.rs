//! The convex implicit function: the building block of every shape.
//!
//! A body-frame function `f : ℝᴰ → ℝ`, `C²` and convex, describes the convex set
//! `{ξ : f(ξ) ≤ 0}` (paper §4.1): `f < 0` inside, `f = 0` on the surface, `f > 0` outside, and
//! `∇f ≠ 0` on the surface. The paper's contact conditions (eq. 15–19, 28–32) need `f`, `∇f` and
//! (for the Newton Jacobian) the Hessian `∇²f`; the world-frame versions and their pose
//! derivatives are derived once, for every shape, in [`crate::geometry::world`].

use super::error::GeometryError;
use super::part::ConvexPart;
use super::pose::Pose;
use super::space::Space;
use super::world;
use std::fmt::Debug;
use std::sync::Arc;

/// Value, gradient and Hessian of an implicit function at one point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Eval<S: Space> {
    /// `f(ξ)`.
    pub value: f64,
    /// `∇f(ξ)`.
    pub gradient: S::Vector,
    /// `∇²f(ξ)`.
    pub hessian: S::Matrix,
}

/// A `C²` convex implicit function in its own frame, the set being `{ξ : f(ξ) ≤ 0}`.
///
/// Implement it for your own shapes: [`value`](ImplicitFn::value),
/// [`gradient`](ImplicitFn::gradient) and [`hessian`](ImplicitFn::hessian) are required and must
/// agree (the crate's tests check its own shapes against finite differences; do the same for
/// yours). The function must be convex and `C²` everywhere it is evaluated, with a non-zero
/// gradient on its zero level set.
pub trait ImplicitFn<S: Space>: Debug + Send + Sync {
    /// A short name for messages, e.g. `"sphere"`.
    fn name(&self) -> &str;
    /// `f(ξ)`.
    fn value(&self, xi: &S::Vector) -> f64;
    /// `∇f(ξ)`.
    fn gradient(&self, xi: &S::Vector) -> S::Vector;
    /// `∇²f(ξ)` (symmetric positive semi-definite).
    fn hessian(&self, xi: &S::Vector) -> S::Matrix;
    /// All three at once; override when they share work.
    fn eval(&self, xi: &S::Vector) -> Eval<S> {
        Eval {
            value: self.value(xi),
            gradient: self.gradient(xi),
            hessian: self.hessian(xi),
        }
    }
    /// Checks the parameters; the error names the shape and the parameter.
    fn validate(&self) -> Result<(), GeometryError>;
    /// A point with `f < 0`, if the shape knows one (used to start proximity queries and to
    /// certify that intersections are non-empty).
    fn interior_point(&self) -> Option<S::Vector> {
        None
    }
    /// The radius of a ball about [`interior_point`](ImplicitFn::interior_point) containing the
    /// set, if it is bounded.
    fn bounding_radius(&self) -> Option<f64> {
        None
    }
    /// `(n, d)` with `‖n‖ = 1` if the function is the affine `n · ξ − d` (a half-space), so
    /// that its value is the exact signed distance (used by vertex–face contact search).
    fn half_space(&self) -> Option<(S::Vector, f64)> {
        None
    }
    /// A polytope inscribed in the set with about `resolution` vertices, for geometrically
    /// explicit (vertex–face) contact, if the shape has one (discs and balls:
    /// [`ConvexPart::inscribed_ball`]); `None` otherwise.
    fn polytope(&self, resolution: usize) -> Option<Result<ConvexPart<S>, GeometryError>> {
        let _ = resolution;
        None
    }
    /// The primitive and its parameters, as stored, for a function a scenario file can name
    /// (`crate::scenario::write`); `None` for any other.
    fn primitive(&self) -> Option<Primitive<S>> {
        None
    }
}

/// A primitive function and its parameters as the function stores them.
#[derive(Debug, Clone, PartialEq)]
pub enum Primitive<S: Space> {
    /// A disc or ball of this radius.
    Ball(f64),
    /// An ellipse or ellipsoid with these semi-axes.
    Ellipsoid(S::Vector),
    /// A superellipse or superellipsoid: semi-axes and exponent.
    Superellipsoid(S::Vector, f64),
    /// A half-plane or half-space `n · ξ ≤ d`, `‖n‖ = 1`.
    HalfSpace(S::Vector, f64),
    /// A 3D infinite cylinder of this radius about `z`.
    InfiniteCylinder(f64),
}

/// A function placed in a body frame: `f_body(ξ) = f(Rₗᵀ (ξ − cₗ))` for the placement
/// `(cₗ, Rₗ)`. Its gradient and Hessian follow the rules of [`crate::geometry::world`]:
/// `∇f_body = Rₗ ∇f`, `∇²f_body = Rₗ ∇²f Rₗᵀ`.
#[derive(Debug, Clone)]
pub struct Placed<S: Space> {
    /// The function in its own frame.
    pub function: Arc<dyn ImplicitFn<S>>,
    /// Where its frame sits in the body frame.
    pub placement: Pose<S>,
}

impl<S: Space> Placed<S> {
    /// Whether the function's frame is the body frame (most functions): its transforms are
    /// then the identity, skipped.
    #[inline]
    fn unplaced(&self) -> bool {
        self.placement == Pose::identity()
    }

    /// `function` placed at `placement` in the body frame.
    pub fn new(function: impl ImplicitFn<S> + 'static, placement: Pose<S>) -> Self {
        Self {
            function: Arc::new(function),
            placement,
        }
    }

    /// `function` with its frame equal to the body frame.
    pub fn at_origin(function: impl ImplicitFn<S> + 'static) -> Self {
        Self::new(function, Pose::identity())
    }
}

impl<S: Space> ImplicitFn<S> for Placed<S> {
    fn name(&self) -> &str {
        self.function.name()
    }
    fn value(&self, xi: &S::Vector) -> f64 {
        if self.unplaced() {
            return self.function.value(xi);
        }
        self.function
            .value(&self.placement.inverse_transform_point(xi))
    }
    fn gradient(&self, xi: &S::Vector) -> S::Vector {
        if self.unplaced() {
            return self.function.gradient(xi);
        }
        self.placement.transform_vector(
            &self
                .function
                .gradient(&self.placement.inverse_transform_point(xi)),
        )
    }
    fn hessian(&self, xi: &S::Vector) -> S::Matrix {
        self.eval(xi).hessian
    }
    fn eval(&self, xi: &S::Vector) -> Eval<S> {
        if self.unplaced() {
            return self.function.eval(xi);
        }
        world::to_parent(
            &self.placement,
            &self
                .function
                .eval(&self.placement.inverse_transform_point(xi)),
        )
    }
    fn validate(&self) -> Result<(), GeometryError> {
        self.function.validate()?;
        self.placement
            .validate(&format!("placement of {}", self.function.name()))
    }
    fn interior_point(&self) -> Option<S::Vector> {
        self.function
            .interior_point()
            .map(|x| self.placement.transform_point(&x))
    }
    fn bounding_radius(&self) -> Option<f64> {
        self.function.bounding_radius()
    }
    fn half_space(&self) -> Option<(S::Vector, f64)> {
        // f(Rₗᵀ(ξ − cₗ)) = (Rₗ n)·ξ − (d + (Rₗ n)·cₗ).
        self.function.half_space().map(|(n, d)| {
            let nb = self.placement.transform_vector(&n);
            (nb, d + S::dot(&nb, &self.placement.position))
        })
    }
    fn polytope(&self, resolution: usize) -> Option<Result<ConvexPart<S>, GeometryError>> {
        self.function
            .polytope(resolution)
            .map(|p| p.map(|p| p.placed(&self.placement)))
    }
    /// The placed function's primitive where the placement is the identity (a function
    /// wrapped twice), `None` otherwise: its placement is the outer `Placed`'s to write.
    fn primitive(&self) -> Option<Primitive<S>> {
        if self.unplaced() {
            self.function.primitive()
        } else {
            None
        }
    }
}
