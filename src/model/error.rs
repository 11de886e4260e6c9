//! Errors raised when a body or a scene is built from bad data. Every error names the body (or
//! the scene item) and the field at fault.

use crate::geometry::GeometryError;

/// Invalid model data: raised at construction or by a `validate` method, never while stepping.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    /// A body field is out of range: a non-positive mass, an inertia that is not symmetric
    /// positive-definite, a NaN pose or velocity, a non-unit quaternion…
    #[error("body `{body}`: field `{field}` is invalid: {reason}")]
    InvalidBody {
        /// The body's name.
        body: String,
        /// The field, e.g. `mass`, `inertia`, `pose.quaternion` or `twist.angular`.
        field: String,
        /// Why it is invalid.
        reason: String,
    },
    /// A body's shape failed its own validation.
    #[error("body `{body}`: field `shape` is invalid: {source}")]
    InvalidShape {
        /// The body's name.
        body: String,
        /// The geometry error, naming the part and parameter.
        source: GeometryError,
    },
    /// Two bodies share a name (names key the output columns and the friction table).
    #[error("body `{body}`: the name is used by more than one body")]
    DuplicateBody {
        /// The repeated name.
        body: String,
    },
    /// A friction entry (the scene default, a body default or a pair) is out of range.
    #[error("friction of {owner}: field `{field}` is invalid: {reason}")]
    InvalidFriction {
        /// Whose friction it is: `the scene default`, `body `a``, `pair (`a`, `b`)`.
        owner: String,
        /// The field: `mu`, `e_t`, `e_o` or `e_r`.
        field: String,
        /// Why it is invalid.
        reason: String,
    },
    /// A scene-level field is out of range (time step, duration, gravity) or refers to a body
    /// that does not exist.
    #[error("scene `{scene}`: field `{field}` is invalid: {reason}")]
    InvalidScene {
        /// The scene's name.
        scene: String,
        /// The field, e.g. `time_step`, `duration`, `gravity` or `pair_friction[2].body1`.
        field: String,
        /// Why it is invalid.
        reason: String,
    },
}

impl ModelError {
    /// Shorthand for [`ModelError::InvalidBody`].
    pub fn body(body: &str, field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::InvalidBody {
            body: body.to_string(),
            field: field.into(),
            reason: reason.into(),
        }
    }

    /// Shorthand for [`ModelError::InvalidScene`].
    pub fn scene(scene: &str, field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::InvalidScene {
            scene: scene.to_string(),
            field: field.into(),
            reason: reason.into(),
        }
    }

    /// A pose error of the geometry layer as a body error: the field becomes `pose.<field>`.
    pub(crate) fn from_pose(body: &str, e: GeometryError) -> Self {
        match e {
            GeometryError::InvalidPose { field, reason, .. } => {
                Self::body(body, format!("pose.{field}"), reason)
            }
            other => Self::body(body, "pose", other.to_string()),
        }
    }
}

/// `Ok` if `value` is finite and strictly positive, else the reason.
pub(crate) fn positive_reason(value: f64) -> Result<(), String> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(format!("must be finite and > 0, got {value}"))
    }
}
