//! Time-steppers: [`implicit`], the paper's geometrically implicit scheme (one mixed NCP per
//! step, contact points and normals at the end of the step).

pub mod broad_phase;
pub mod implicit;

pub use implicit::{ContactState, ImplicitStepper, StepReport, StepperError, StepperSettings};
