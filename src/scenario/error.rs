//! Errors of reading a scenario: every one names the file, the field (a path such as
//! `body[1].part[0].function[0].radius`) and the reason, and, when the text is known, the line
//! and column.

use std::fmt;

/// A line and column in the scenario text (both from 1; the column counts characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1, in characters.
    pub column: usize,
}

impl Location {
    /// The location of byte `offset` in `text` (clamped to the text's end).
    pub fn of_offset(text: &str, offset: usize) -> Self {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let before = &text[..offset];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        Self {
            line,
            column: before[line_start..].chars().count() + 1,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// What is wrong with a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// A key the schema does not know, or one that does not apply here (e.g. `exponent` on a
    /// circle).
    UnknownKey,
    /// A required key is absent.
    MissingKey,
    /// A value of the wrong TOML type (a string for a number, a table for a list…).
    WrongType,
    /// A list with the wrong number of entries for the scene's dimension or for its role.
    WrongLength,
    /// NaN or ±inf (TOML allows `nan` and `inf`; a scenario never does).
    NotFinite,
    /// A value out of its physical or mathematical range: a non-positive mass, radius or time
    /// step, an exponent below 2, a non-unit quaternion, an unknown stepper, a shape of the
    /// other dimension, an empty intersection… Wrapped model and geometry errors land here.
    InvalidValue,
    /// Two bodies, or two joints, share a name.
    DuplicateName,
    /// A `[[pair]]` or a `[[joint]]` names a body that does not exist.
    UnknownBody,
    /// Two bodies overlap at t = 0 (touching is allowed).
    Overlap,
}

/// A scenario that cannot be read or built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ScenarioError {
    /// The file cannot be read.
    #[error("{file}: cannot read the scenario: {reason}")]
    Read {
        /// The file.
        file: String,
        /// The I/O error.
        reason: String,
    },
    /// The text is not valid TOML.
    #[error("{file}:{location}: TOML syntax error: {reason}")]
    Syntax {
        /// The file.
        file: String,
        /// Where the parser stopped.
        location: Location,
        /// The parser's message.
        reason: String,
    },
    /// Valid TOML, but not a valid scenario.
    #[error("{file}{}: field `{field}`: {reason}", at(location))]
    Invalid {
        /// The file.
        file: String,
        /// Where the field is in the text, if known.
        location: Option<Location>,
        /// The field's path, e.g. `body[1].part[0].function[0].radius`.
        field: String,
        /// The class of the problem.
        kind: ErrorKind,
        /// Why it is invalid.
        reason: String,
    },
}

fn at(location: &Option<Location>) -> String {
    location.map(|l| format!(":{l}")).unwrap_or_default()
}

impl ScenarioError {
    /// The file the error is about.
    pub fn file(&self) -> &str {
        match self {
            Self::Read { file, .. } | Self::Syntax { file, .. } | Self::Invalid { file, .. } => {
                file
            }
        }
    }

    /// The field's path, for [`ScenarioError::Invalid`].
    pub fn field(&self) -> Option<&str> {
        match self {
            Self::Invalid { field, .. } => Some(field),
            _ => None,
        }
    }

    /// The class of the problem, for [`ScenarioError::Invalid`].
    pub fn kind(&self) -> Option<ErrorKind> {
        match self {
            Self::Invalid { kind, .. } => Some(*kind),
            _ => None,
        }
    }
}

/// An [`ScenarioError::Invalid`] without a location yet (filled in by [`super::parse`] from
/// the text).
pub(crate) fn invalid(
    file: &str,
    field: impl Into<String>,
    kind: ErrorKind,
    reason: impl Into<String>,
) -> ScenarioError {
    ScenarioError::Invalid {
        file: file.to_string(),
        location: None,
        field: field.into(),
        kind,
        reason: reason.into(),
    }
}
