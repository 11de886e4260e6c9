//! Geometry, physics-free: bodies as unions of convex parts, each part an intersection of `C²`
//! convex implicit functions (paper §4.1, §4.3, Remark 2).
//!
//! * [`space`]: [`Planar`] and [`Spatial`], the dimension as a type, so 2D and 3D share the code.
//! * [`implicit`]: the trait [`ImplicitFn`] (value `f`, gradient `∇f`, Hessian `∇²f` in the
//!   function's frame; the set is `f ≤ 0`) and [`Placed`] functions.
//! * [`primitives`]: half-spaces, balls, ellipsoids, superellipsoids (Barr), cylinders; boxes,
//!   polygons and polyhedra as intersections of half-spaces.
//! * [`part`]: [`ConvexPart`], an intersection `{ξ : fᵢ(ξ) ≤ 0 ∀i}`.
//! * [`body`]: [`BodyShape`], a union of convex parts.
//! * [`pose`]: [`Pose`], `p = R ξ + c`, perturbed in the world frame `(c + δc, exp(δθ) R)`.
//! * [`world`]: the transform rules `f_w(p) = f_b(Rᵀ(p − c))`, `∇f_w = R ∇f_b`,
//!   `∇²f_w = R ∇²f_b Rᵀ` and the pose derivatives `∂f_w/∂c = −∇f_w`,
//!   `∂f_w/∂δθ = −(p − c) × ∇f_w`, `∂∇f_w/∂c = −∇²f_w`,
//!   `∂∇f_w/∂δθ = M_{∇f_w} − ∇²f_w M_{p−c}` (derivation in the module docs).
//! * [`proximity`](mod@proximity): closest points, distance, common normal and contact state of two convex
//!   parts, from the KKT conditions (eq. 24–27) solved with [`crate::mcp::solve`].
//! * [`error`]: [`GeometryError`], naming the shape and the parameter.

pub mod body;
pub mod error;
pub mod implicit;
pub mod part;
pub mod pose;
pub mod primitives;
pub mod proximity;
pub mod space;
pub mod world;

#[cfg(test)]
mod derivative_tests;
#[cfg(test)]
mod proximity_tests;
#[cfg(test)]
mod validation_tests;

pub use body::BodyShape;
pub use error::GeometryError;
pub use implicit::{Eval, ImplicitFn, Placed, Primitive};
pub use part::{ConvexPart, PartRecipe};
pub use pose::Pose;
pub use primitives::{
    Ball, Circle, Ellipse, Ellipsoid, HalfSpace, InfiniteCylinder, Sphere, Superellipse,
    Superellipsoid, Vertices,
};
pub use proximity::{ContactState, Proximity, ProximityError, ProximitySettings, proximity};
pub use space::{Planar, Space, Spatial};
pub use world::{
    WorldEval, depth_below_surface, to_parent, world_eval, world_eval_for,
    world_eval_with_pose_derivatives, world_value,
};
