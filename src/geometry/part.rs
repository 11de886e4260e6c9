//! Convex parts: intersections of convex implicit functions (paper §4.3).
//!
//! A part is `{ξ : fᵢ(ξ) ≤ 0, i = 1…m}`, each `fᵢ` a [`Placed`] function (a primitive with its
//! own placement in the body frame). The intersection of convex sets is convex, and each `fᵢ`
//! stays `C²`; the corners where several `fᵢ = 0` meet carry a normal cone, not a normal, which
//! the contact formulation handles with one multiplier per function (eq. 28–31). By Remark 2 the
//! functions may mix representations (polyhedral and curved) freely.
//!
//! The value `maxᵢ fᵢ` returned by [`ConvexPart::value`] is only continuous; use it to classify
//! points, never inside a Newton iteration.

use super::error::GeometryError;
use super::implicit::{ImplicitFn, Placed};
use super::pose::Pose;
use super::primitives::Vertices;
use super::space::Space;
use super::world::{self, WorldEval};
use std::sync::Arc;

/// An intersection of placed convex implicit functions: one convex piece of a body.
#[derive(Debug, Clone)]
pub struct ConvexPart<S: Space> {
    name: String,
    functions: Vec<Placed<S>>,
    interior: Option<S::Vector>,
    radius: Option<f64>,
    /// The vertices of a bounded polytope part (polygons, boxes, polyhedra, polygonal
    /// approximations), for vertex–face contact; `None` for curved parts.
    vertices: Option<Arc<Vertices<S>>>,
    /// How the part was made, and where [`placed`](Self::placed) put it (for writing it back).
    recipe: PartRecipe<S>,
    recipe_placement: Pose<S>,
}

/// How a part was made: by its functions (each names its own
/// [`Primitive`](crate::geometry::implicit::Primitive)) or by a constructor, with the
/// constructor's arguments, so that a scene built in code can be written as a scenario file
/// whose parts are built by the same calls.
#[derive(Debug, Clone, PartialEq)]
pub enum PartRecipe<S: Space> {
    /// [`ConvexPart::new`] or [`ConvexPart::single`] on its functions.
    Functions,
    /// [`ConvexPart::cuboid`] with these half-extents.
    Cuboid(S::Vector),
    /// [`ConvexPart::cylinder`]: radius and half-height.
    Cylinder(f64, f64),
    /// [`ConvexPart::regular_polygon`]: radius and number of vertices.
    RegularPolygon(f64, usize),
    /// [`ConvexPart::polygon`] on these vertices.
    Polygon(Vec<S::Vector>),
    /// [`ConvexPart::polyhedron`] on these planes.
    Polyhedron(Vec<(S::Vector, f64)>),
    /// A constructor the scenario format has no kind for (an icosphere).
    Other,
}

impl<S: Space> ConvexPart<S> {
    /// The intersection of `functions`, named `name` in messages. Validates every function
    /// (errors are prefixed with `name/`). If a point strictly inside every function is found
    /// among the functions' own interior points and their mean, it is kept as
    /// [`interior_point`](Self::interior_point); if every function knows an interior point and
    /// none of these candidates is inside all, the part is reported as (probably) empty.
    ///
    /// These candidates are a guess that misses many non-empty parts (e.g. half-spaces bounding
    /// a polygon away from the origin): a constructor that can compute an interior point should
    /// use [`new_with_interior`](Self::new_with_interior) instead.
    pub fn new(name: &str, functions: Vec<Placed<S>>) -> Result<Self, GeometryError> {
        let mut part = Self::validated(name, functions)?;
        let points: Vec<S::Vector> = part
            .functions
            .iter()
            .filter_map(|f| f.interior_point())
            .collect();
        let mut candidates = points.clone();
        if !points.is_empty() {
            let mut mean = S::zero_vector();
            for p in &points {
                mean += *p;
            }
            candidates.push(mean * (1.0 / points.len() as f64));
        }
        part.interior = candidates.into_iter().find(|p| part.value(p) < 0.0);
        if part.interior.is_none()
            && points.len() == part.functions.len()
            && part.functions.len() > 1
        {
            return Err(GeometryError::empty(
                name,
                "no function's interior point (nor their mean) lies inside all functions; \
                 give one with ConvexPart::new_with_interior if the part is not empty",
            ));
        }
        part.update_radius();
        Ok(part)
    }

    /// The intersection of `functions` with a known `interior` point: validates every function
    /// like [`new`](Self::new), but certifies non-emptiness by `interior` alone (fails unless
    /// every function is `< 0` there), so no interior point is guessed.
    pub fn new_with_interior(
        name: &str,
        functions: Vec<Placed<S>>,
        interior: S::Vector,
    ) -> Result<Self, GeometryError> {
        Self::validated(name, functions)?.with_interior_point(interior)
    }

    /// The part with validated functions and no interior point yet.
    fn validated(name: &str, functions: Vec<Placed<S>>) -> Result<Self, GeometryError> {
        if functions.is_empty() {
            return Err(GeometryError::parameter(
                name,
                "functions",
                "a convex part needs at least one function",
            ));
        }
        for (i, f) in functions.iter().enumerate() {
            f.validate()
                .map_err(|e| e.within(&format!("{name}/function[{i}]")))?;
        }
        Ok(Self {
            name: name.to_string(),
            functions,
            interior: None,
            radius: None,
            vertices: None,
            recipe: PartRecipe::Functions,
            recipe_placement: Pose::identity(),
        })
    }

    /// The part as made by a constructor with these arguments.
    pub(crate) fn with_recipe(mut self, recipe: PartRecipe<S>) -> Self {
        self.recipe = recipe;
        self
    }

    /// How the part was made, and the placement [`placed`](Self::placed) applied after it
    /// (the identity if none; for [`PartRecipe::Functions`] the placements are the
    /// functions' own).
    pub fn recipe(&self) -> (&PartRecipe<S>, &Pose<S>) {
        (&self.recipe, &self.recipe_placement)
    }

    /// A part made of one function at the body origin.
    pub fn single(
        name: &str,
        function: impl ImplicitFn<S> + 'static,
    ) -> Result<Self, GeometryError> {
        Self::new(name, vec![Placed::at_origin(function)])
    }

    /// Sets the interior point; fails (naming the part) unless every function is `< 0` there.
    pub fn with_interior_point(mut self, point: S::Vector) -> Result<Self, GeometryError> {
        let v = self.value(&point);
        if v.is_nan() || v >= 0.0 {
            return Err(GeometryError::empty(
                &self.name,
                format!("the given interior point {point:?} is not inside (max fᵢ = {v})"),
            ));
        }
        self.interior = Some(point);
        self.update_radius();
        Ok(self)
    }

    /// The same part, every function moved by `placement` (applied after its own placement).
    pub fn placed(mut self, placement: &Pose<S>) -> Self {
        for f in &mut self.functions {
            f.placement = placement.compose(&f.placement);
        }
        self.interior = self.interior.map(|p| placement.transform_point(&p));
        self.vertices = self.vertices.map(|v| Arc::new(v.placed(placement)));
        self.recipe_placement = placement.compose(&self.recipe_placement);
        self
    }

    pub(crate) fn set_vertices(&mut self, vertices: Vertices<S>) {
        self.vertices = Some(Arc::new(vertices));
    }

    /// The vertices (body frame) if the part is a bounded polytope built by a constructor
    /// that knows them ([`ConvexPart::polygon`], [`ConvexPart::cuboid`],
    /// [`ConvexPart::polyhedron`], [`ConvexPart::regular_polygon`], [`ConvexPart::icosphere`]).
    pub fn vertices(&self) -> Option<&Vertices<S>> {
        self.vertices.as_deref()
    }

    pub(crate) fn set_bounds(&mut self, interior: S::Vector, radius: f64) {
        self.interior = Some(interior);
        self.radius = Some(radius);
    }

    fn update_radius(&mut self) {
        // A ball about the interior point containing the smallest bounded function's ball.
        let Some(c) = self.interior else {
            self.radius = None;
            return;
        };
        self.radius = self
            .functions
            .iter()
            .filter_map(|f| Some(f.bounding_radius()? + S::norm(&(f.interior_point()? - c))))
            .reduce(f64::min);
    }

    /// The name used in messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The functions `fᵢ`, in the body frame.
    pub fn functions(&self) -> &[Placed<S>] {
        &self.functions
    }

    /// Number of functions `m`.
    pub fn len(&self) -> usize {
        self.functions.len()
    }

    /// Always false: a part has at least one function.
    pub fn is_empty(&self) -> bool {
        self.functions.is_empty()
    }

    /// A body-frame point strictly inside, if known.
    pub fn interior_point(&self) -> Option<S::Vector> {
        self.interior
    }

    /// Radius of a ball about [`interior_point`](Self::interior_point) containing the part, if
    /// the part is known to be bounded.
    pub fn bounding_radius(&self) -> Option<f64> {
        self.radius
    }

    /// `maxᵢ fᵢ(ξ)` (body frame): `≤ 0` exactly on the part. Continuous, not smooth.
    pub fn value(&self, xi: &S::Vector) -> f64 {
        self.functions
            .iter()
            .map(|f| f.value(xi))
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// True if `ξ` (body frame) is in the closed part.
    pub fn contains(&self, xi: &S::Vector) -> bool {
        self.value(xi) <= 0.0
    }

    /// `maxᵢ fᵢ` at a world point for a body at `pose`.
    pub fn world_value(&self, pose: &Pose<S>, p: &S::Vector) -> f64 {
        self.value(&pose.inverse_transform_point(p))
    }

    /// Function `i` at a world point for a body at `pose`, with pose derivatives
    /// (see [`world`]).
    pub fn world_eval(&self, i: usize, pose: &Pose<S>, p: &S::Vector) -> WorldEval<S> {
        world::world_eval_with_pose_derivatives(&self.functions[i], pose, p)
    }

    /// [`world_eval`](Self::world_eval) with `JAC`; without, its value and gradient alone
    /// (see [`world::world_eval_for`]).
    pub fn world_eval_for<const JAC: bool>(
        &self,
        i: usize,
        pose: &Pose<S>,
        p: &S::Vector,
    ) -> WorldEval<S> {
        world::world_eval_for::<S, _, JAC>(&self.functions[i], pose, p)
    }

    /// Re-checks every function.
    pub fn validate(&self) -> Result<(), GeometryError> {
        for (i, f) in self.functions.iter().enumerate() {
            f.validate()
                .map_err(|e| e.within(&format!("{}/function[{i}]", self.name)))?;
        }
        Ok(())
    }
}
