//! Rigid poses: where a body (or a function inside a body) sits.
//!
//! A pose `(c, R)` maps body coordinates `ξ` to world coordinates `p = R ξ + c`. In 2D `c = (x, y)`
//! and `R` is the rotation by `θ` (stored as a unit complex number); in 3D `c ∈ ℝ³` and `R` is a
//! unit quaternion.
//!
//! Poses are perturbed in the world frame: `(c, R) ⊕ (δc, δθ) = (c + δc, exp(δθ) ∘ R)`, matching
//! twists `ν = (v, ω)` with `ω` in the world frame. This is the perturbation the pose derivatives
//! of [`crate::geometry::world`] differentiate along.

use super::error::GeometryError;
use super::space::{Planar, Space, Spatial, quaternion_problem};
use nalgebra::{Quaternion, UnitComplex, UnitQuaternion, Vector2, Vector3};

/// A rigid pose `p = R ξ + c`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pose<S: Space> {
    /// The origin `c` of the body frame in the world.
    pub position: S::Vector,
    /// The rotation `R` from body to world.
    pub rotation: S::Rotation,
}

impl<S: Space> Default for Pose<S> {
    fn default() -> Self {
        Self::identity()
    }
}

impl<S: Space> Pose<S> {
    /// The identity pose (`c = 0`, `R = I`).
    pub fn identity() -> Self {
        Self {
            position: S::zero_vector(),
            rotation: S::rotation_identity(),
        }
    }

    /// A pure translation.
    pub fn from_translation(position: S::Vector) -> Self {
        Self {
            position,
            rotation: S::rotation_identity(),
        }
    }

    /// A pose from parts, checked: finite position, finite unit rotation. `body` names the owner
    /// in the error.
    pub fn new(
        position: S::Vector,
        rotation: S::Rotation,
        body: &str,
    ) -> Result<Self, GeometryError> {
        let pose = Self { position, rotation };
        pose.validate(body)?;
        Ok(pose)
    }

    /// Checks that the position is finite and the rotation a finite unit rotation (within
    /// [`super::space::UNIT_TOLERANCE`]); the error names `body` and the field.
    pub fn validate(&self, body: &str) -> Result<(), GeometryError> {
        if !S::is_finite(&self.position) {
            return Err(GeometryError::InvalidPose {
                body: body.to_string(),
                field: "position".into(),
                reason: format!("not finite: {:?}", self.position),
            });
        }
        if let Some(reason) = S::rotation_problem(&self.rotation) {
            return Err(GeometryError::InvalidPose {
                body: body.to_string(),
                field: "rotation".into(),
                reason,
            });
        }
        Ok(())
    }

    /// The rotation matrix `R`.
    pub fn rotation_matrix(&self) -> S::Matrix {
        S::rotation_matrix(&self.rotation)
    }

    /// Body to world: `R ξ + c`.
    pub fn transform_point(&self, xi: &S::Vector) -> S::Vector {
        S::rotate(&self.rotation, xi) + self.position
    }

    /// World to body: `Rᵀ (p − c)`.
    pub fn inverse_transform_point(&self, p: &S::Vector) -> S::Vector {
        S::inverse_rotate(&self.rotation, &(*p - self.position))
    }

    /// Body direction to world direction: `R v`.
    pub fn transform_vector(&self, v: &S::Vector) -> S::Vector {
        S::rotate(&self.rotation, v)
    }

    /// The composition `self ∘ inner`: first `inner` (e.g. a function's placement in its body),
    /// then `self` (the body's pose): `(c + R c_in, R R_in)`.
    pub fn compose(&self, inner: &Pose<S>) -> Pose<S> {
        Pose {
            position: self.transform_point(&inner.position),
            rotation: S::compose(&self.rotation, &inner.rotation),
        }
    }

    /// The world-frame perturbation `(c + δc, exp(δθ) ∘ R)`.
    pub fn perturbed(&self, dc: &S::Vector, dtheta: &S::Angular) -> Pose<S> {
        Pose {
            position: self.position + *dc,
            rotation: S::compose(&S::exp(dtheta), &self.rotation),
        }
    }
}

impl Pose<Planar> {
    /// The planar pose `(x, y, θ)`; `body` names the owner if a coordinate is not finite.
    pub fn planar(x: f64, y: f64, theta: f64, body: &str) -> Result<Self, GeometryError> {
        for (field, v) in [("x", x), ("y", y), ("theta", theta)] {
            if !v.is_finite() {
                return Err(GeometryError::InvalidPose {
                    body: body.to_string(),
                    field: field.into(),
                    reason: format!("not finite: {v}"),
                });
            }
        }
        Ok(Self {
            position: Vector2::new(x, y),
            rotation: UnitComplex::new(theta),
        })
    }

    /// The angle `θ ∈ (−π, π]`.
    pub fn angle(&self) -> f64 {
        self.rotation.angle()
    }
}

impl Pose<Spatial> {
    /// The spatial pose with position `c` and orientation `q = (w, x, y, z)`. The quaternion must
    /// be finite and of unit norm (within [`super::space::UNIT_TOLERANCE`]): it is not normalised
    /// silently, because a non-unit quaternion usually means a bug upstream.
    pub fn spatial(
        position: Vector3<f64>,
        q: Quaternion<f64>,
        body: &str,
    ) -> Result<Self, GeometryError> {
        if let Some(reason) = quaternion_problem(&q) {
            return Err(GeometryError::InvalidPose {
                body: body.to_string(),
                field: "quaternion".into(),
                reason,
            });
        }
        Self::new(position, UnitQuaternion::new_unchecked(q), body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Vector1;

    #[test]
    fn compose_and_inverse_round_trip() {
        let a = Pose::<Planar>::planar(1.0, -2.0, 0.7, "a").unwrap();
        let b = Pose::<Planar>::planar(0.3, 0.5, -1.1, "b").unwrap();
        let xi = Vector2::new(0.2, 0.9);
        let ab = a.compose(&b);
        let direct = a.transform_point(&b.transform_point(&xi));
        assert!((ab.transform_point(&xi) - direct).norm() < 1e-14);
        assert!((ab.inverse_transform_point(&direct) - xi).norm() < 1e-14);
    }

    #[test]
    fn perturbation_rotates_in_world_frame() {
        let a = Pose::<Planar>::planar(1.0, 0.0, 0.5, "a").unwrap();
        let b = a.perturbed(&Vector2::zeros(), &Vector1::new(0.25));
        assert!((b.angle() - 0.75).abs() < 1e-15);
        // Rotation about the world origin would move the body origin; ours leaves c alone.
        assert_eq!(b.position, a.position);
    }

    #[test]
    fn invalid_poses_name_body_and_field() {
        let e = Pose::<Planar>::planar(0.0, f64::NAN, 0.0, "disc").unwrap_err();
        assert!(
            matches!(&e, GeometryError::InvalidPose { body, field, .. } if body == "disc" && field == "y")
        );
        let e = Pose::spatial(
            Vector3::zeros(),
            Quaternion::new(1.0, 0.1, 0.0, 0.0),
            "ball",
        )
        .unwrap_err();
        assert!(
            matches!(&e, GeometryError::InvalidPose { body, field, .. } if body == "ball" && field == "quaternion")
        );
        assert!(e.to_string().contains("norm"), "{e}");
        let e = Pose::spatial(
            Vector3::zeros(),
            Quaternion::new(f64::NAN, 0.0, 0.0, 0.0),
            "ball",
        )
        .unwrap_err();
        assert!(e.to_string().contains("not finite"), "{e}");
        let e = Pose::<Spatial>::new(
            Vector3::new(f64::INFINITY, 0.0, 0.0),
            UnitQuaternion::identity(),
            "ball",
        )
        .unwrap_err();
        assert!(matches!(&e, GeometryError::InvalidPose { field, .. } if field == "position"));
        assert!(Pose::spatial(Vector3::zeros(), Quaternion::new(0.5, 0.5, 0.5, 0.5), "ok").is_ok());
    }
}
