//! Errors raised when geometry is built from bad data. Every error names the shape (or body) and
//! the parameter (or field) at fault.

/// Invalid geometry: raised at construction or by a `validate` method, never during evaluation.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GeometryError {
    /// A shape parameter is out of range: a non-positive radius, an exponent that breaks
    /// convexity or `C²` smoothness, a zero normal, a NaN…
    #[error("{shape}: parameter `{parameter}` is invalid: {reason}")]
    InvalidParameter {
        /// The shape, e.g. `superellipse` or `polygon`.
        shape: String,
        /// The parameter, e.g. `exponent` or `vertices[3]`.
        parameter: String,
        /// Why it is invalid.
        reason: String,
    },
    /// An intersection of half-spaces or functions that encloses nothing (or no volume).
    #[error("{shape}: the intersection is empty: {reason}")]
    EmptyIntersection {
        /// The shape, e.g. `polyhedron`.
        shape: String,
        /// What was found.
        reason: String,
    },
    /// A shape that must be bounded is not.
    #[error("{shape}: the shape is unbounded: {reason}")]
    Unbounded {
        /// The shape, e.g. `polyhedron`.
        shape: String,
        /// What was found.
        reason: String,
    },
    /// A pose with a NaN or infinite coordinate or a non-unit rotation.
    #[error("pose of `{body}`: field `{field}` is invalid: {reason}")]
    InvalidPose {
        /// The body (or placement) whose pose it is.
        body: String,
        /// The field, e.g. `position`, `theta` or `quaternion`.
        field: String,
        /// Why it is invalid.
        reason: String,
    },
}

impl GeometryError {
    /// Shorthand for [`GeometryError::InvalidParameter`].
    pub fn parameter(shape: &str, parameter: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::InvalidParameter {
            shape: shape.to_string(),
            parameter: parameter.into(),
            reason: reason.into(),
        }
    }

    /// Shorthand for [`GeometryError::EmptyIntersection`].
    pub fn empty(shape: &str, reason: impl Into<String>) -> Self {
        Self::EmptyIntersection {
            shape: shape.to_string(),
            reason: reason.into(),
        }
    }

    /// The same error with `prefix/` put before the shape or body name (for example
    /// `part[2]/superellipse`), so nested errors say where they come from.
    pub fn within(self, prefix: &str) -> Self {
        let p = |s: String| format!("{prefix}/{s}");
        match self {
            Self::InvalidParameter {
                shape,
                parameter,
                reason,
            } => Self::InvalidParameter {
                shape: p(shape),
                parameter,
                reason,
            },
            Self::EmptyIntersection { shape, reason } => Self::EmptyIntersection {
                shape: p(shape),
                reason,
            },
            Self::Unbounded { shape, reason } => Self::Unbounded {
                shape: p(shape),
                reason,
            },
            Self::InvalidPose {
                body,
                field,
                reason,
            } => Self::InvalidPose {
                body: p(body),
                field,
                reason,
            },
        }
    }
}

/// `Ok` if `value` is finite and strictly positive, else an error naming shape and parameter.
pub(crate) fn positive(shape: &str, parameter: &str, value: f64) -> Result<(), GeometryError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(GeometryError::parameter(
            shape,
            parameter,
            format!("must be finite and > 0, got {value}"),
        ))
    }
}
