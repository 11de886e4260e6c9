//! # implicit-contact
//!
//! Geometrically implicit time-stepping for rigid and quasi-rigid bodies in intermittent contact
//! (Chakraborty, Berard, Akella & Trinkle). Every time step is one mixed complementarity problem
//! solved by a Newton path-search solver of the PATH family.
//!
//! Modules:
//! * [`mcp`]: physics-free complementarity solvers (path search, Fischer–Burmeister Newton,
//!   Levenberg–Marquardt fallback, Lemke's method) and reference problems.
//! * [`geometry`]: physics-free convex implicit shapes (2D and 3D), bodies as unions of
//!   intersections, world-frame evaluation with pose derivatives, proximity queries.
//! * [`output`]: streaming writers for a run's `trajectory.csv`, `contacts.csv` and `joints.csv`, and its
//!   `summary.json` written last and atomically; they take plain data.
//! * [`joint`]: one bilateral joint's block of the step's MCP (revolute, prismatic, fixed, ball:
//!   `Θ(q^{ℓ+1}) = 0` with free multipliers), its wrenches and exact Jacobian.
//! * [`support`]: a planar body's friction on its table (the 2.5D model), its block of the
//!   step's MCP.
//! * [`contact`]: one contact's block of the step's MCP (closest points, non-penetration,
//!   elliptic friction; eq. 15–22, 28–32), its wrench on both bodies and its exact Jacobian.
//! * [`plot`]: figures on plotters (SVG, PNG): a time-series builder, the standard figures of a
//!   run, the paper's figures, GIF animations.
//! * [`paper`]: the paper's rigid examples from their scenario files, and a table of its claims.
//! * [`run`]: a scene run to its end, with its files written (trajectory, contacts, summary).
//! * [`stepper`]: the geometrically implicit time-stepper (one MCP per step) and the
//!   Stewart–Trinkle LCP baseline (polygonal shapes, contacts at the start of the step).
//! * [`study`]: parameter studies (the rolling-disc energy study of the paper's Figure 1).
//! * [`model`]: rigid bodies (mass, inertia, planar or spatial pose and twist), fixed bodies,
//!   applied forces, the end-of-step pose and its derivative, the scene.
//! * [`scenario`]: TOML scenario files ↔ scenes, checked field by field (errors name the file,
//!   the field path and the reason; bodies may touch but not overlap at t = 0).

#![warn(missing_docs)]
// Index loops mirror the equations (rows i, columns j) in the numerical kernels.
#![allow(clippy::needless_range_loop)]

pub mod block;
pub mod contact;
pub mod geometry;
pub mod joint;
pub mod mcp;
pub mod model;
pub mod output;
pub mod paper;
pub mod plot;
pub mod run;
pub mod scenario;
pub mod scenes;
pub mod stepper;
pub mod study;
pub mod support;
