//! Primitive convex implicit functions, one file per shape, and the polytope constructors.
//!
//! | shape | `f(ξ)` | file |
//! |---|---|---|
//! | half-plane / half-space | `n·ξ − d`, `‖n‖ = 1` | `half_space.rs` |
//! | circle / sphere | `(‖ξ‖² − r²)/(2r)` | `ball.rs` |
//! | ellipse / ellipsoid | `(m/2)(Σ(ξᵢ/aᵢ)² − 1)`, `m = min aᵢ` | `ellipsoid.rs` |
//! | superellipse / superellipsoid | `(m/p)(Σ|ξᵢ/aᵢ|ᵖ − 1)`, `p ≥ 2` | `superellipsoid.rs` |
//! | infinite cylinder (3D) | `(ξ_x² + ξ_y² − r²)/(2r)` | `cylinder.rs` |
//! | box, polygon, polyhedron, finite cylinder | intersections ([`ConvexPart`](super::ConvexPart)) | `polytope.rs` |
//! | regular polygon, icosphere (polygonal discs and balls), vertex sets | intersections with their vertices | `polygonal.rs` |
//!
//! The curved shapes share one scaling: `|∇f| = 1` on the surface of a ball, and they coincide
//! for a ball (`p = 2`, equal semi-axes).

mod ball;
mod cylinder;
mod ellipsoid;
mod half_space;
mod polygonal;
mod polytope;
mod superellipsoid;

pub use ball::{Ball, Circle, Sphere};
pub use cylinder::InfiniteCylinder;
pub use ellipsoid::{Ellipse, Ellipsoid};
pub use half_space::HalfSpace;
pub use polygonal::{MAX_ICOSPHERE_SUBDIVISIONS, MAX_POLYGON_VERTICES, Vertices};
pub use superellipsoid::{MAX_EXPONENT, Superellipse, Superellipsoid};
