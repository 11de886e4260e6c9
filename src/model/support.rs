//! Dry friction between a planar body and the table it slides on: the 2.5D model of Berard et
//! al. (2007) that the paper uses for its grasp example (§6.4). The rows are in
//! [`crate::support`].
//!
//! A planar scene lies in a horizontal plane; gravity presses a body onto the table with a
//! known normal force `N` (the scene's in-plane gravity is then zero). The table's friction on
//! the whole contact patch is lumped into one impulse `p = (p_x, p_y, p_τ)` at the centre of
//! mass over the body's planar twist `(v_x, v_y, ω)`, bounded by the paper's own friction
//! ellipsoid (eq. 5) with the normal impulse `p_n = N h` of the step:
//!
//! ```text
//! (p_x / e_t)² + (p_y / e_o)² + (p_τ / e_r)² ≤ μ² p_n²
//! ```
//!
//! and of maximal dissipation. The ellipsoid is the usual approximation of the patch's limit
//! surface (Goyal, Ruina & Papadopoulos 1991; Howe & Cutkosky 1996): `e_t = e_o = 1` for an
//! isotropic patch, and `e_r` (a length) the ratio of the largest friction torque to the
//! largest friction force, `μ N e_r` — `2R/3` for a uniformly loaded disc of radius `R`.

use super::body::RigidBody;
use super::dynamics::Dynamics;
use super::error::ModelError;
use super::friction::Friction;

/// Support friction of one planar body (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Support {
    /// The body that slides on the table.
    pub body: usize,
    /// `μ`, and the ellipsoid's semi-axes `e_t`, `e_o` (along world `x`, `y`) and `e_r` (the
    /// spin's, a length).
    pub friction: Friction,
    /// The normal force `N > 0` pressing the body onto the table (N), e.g. `m g`.
    pub normal_force: f64,
}

impl Support {
    /// The support of `body` of `bodies` with `friction` and normal force `normal_force`,
    /// checked; `scene` names the scene in errors, whose fields are `support[index].…`.
    pub fn new<S: Dynamics>(
        scene: &str,
        index: usize,
        body: usize,
        friction: Friction,
        normal_force: f64,
        bodies: &[RigidBody<S>],
    ) -> Result<Self, ModelError> {
        let err = |field: &str, reason: String| {
            ModelError::scene(scene, format!("support[{index}].{field}"), reason)
        };
        if S::DIM != 2 {
            return Err(err(
                "body",
                "support friction is the 2.5D model of a planar body; a spatial body rests on \
                 the table through a contact"
                    .into(),
            ));
        }
        let Some(b) = bodies.get(body) else {
            return Err(err("body", format!("no body {body}")));
        };
        if b.fixed {
            return Err(err(
                "body",
                format!("`{}` is fixed (or driven): it does not slide", b.name),
            ));
        }
        friction.validate(&format!("scene `{scene}`, support[{index}]"))?;
        if !(normal_force.is_finite() && normal_force > 0.0) {
            return Err(err(
                "normal_force",
                format!("must be finite and > 0, got {normal_force}"),
            ));
        }
        Ok(Self {
            body,
            friction,
            normal_force,
        })
    }
}
