//! Body shapes: unions of convex parts (paper §6.4: the gear is a union of a disc and six
//! superellipse teeth).
//!
//! A union is not convex, so contact is computed per pair of convex parts; the body only groups
//! them. [`BodyShape::value`] (`min` over parts of `max` over functions) classifies points.

use super::error::GeometryError;
use super::part::ConvexPart;
use super::pose::Pose;
use super::space::Space;

/// A rigid body's geometry: the union of convex parts, all in the body frame.
#[derive(Debug, Clone)]
pub struct BodyShape<S: Space> {
    name: String,
    parts: Vec<ConvexPart<S>>,
}

impl<S: Space> BodyShape<S> {
    /// The union of `parts`, named `name` in messages; needs at least one part.
    pub fn new(name: &str, parts: Vec<ConvexPart<S>>) -> Result<Self, GeometryError> {
        if parts.is_empty() {
            return Err(GeometryError::parameter(
                name,
                "parts",
                "a body needs at least one convex part",
            ));
        }
        let body = Self {
            name: name.to_string(),
            parts,
        };
        body.validate()?;
        Ok(body)
    }

    /// The name used in messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The convex parts.
    pub fn parts(&self) -> &[ConvexPart<S>] {
        &self.parts
    }

    /// `min` over parts of the part value (body frame): `≤ 0` exactly on the body.
    pub fn value(&self, xi: &S::Vector) -> f64 {
        self.parts
            .iter()
            .map(|p| p.value(xi))
            .fold(f64::INFINITY, f64::min)
    }

    /// True if `ξ` (body frame) is in the closed body.
    pub fn contains(&self, xi: &S::Vector) -> bool {
        self.value(xi) <= 0.0
    }

    /// [`value`](Self::value) at a world point for the body at `pose`.
    pub fn world_value(&self, pose: &Pose<S>, p: &S::Vector) -> f64 {
        self.value(&pose.inverse_transform_point(p))
    }

    /// Checks every part; errors are prefixed with the body's name.
    pub fn validate(&self) -> Result<(), GeometryError> {
        for p in &self.parts {
            p.validate().map_err(|e| e.within(&self.name))?;
        }
        Ok(())
    }

    /// Checks `pose` for this body (the error names the body).
    pub fn validate_pose(&self, pose: &Pose<S>) -> Result<(), GeometryError> {
        pose.validate(&self.name)
    }
}
