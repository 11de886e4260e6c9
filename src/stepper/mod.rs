//! Time-steppers: [`implicit`], the paper's geometrically implicit scheme (one mixed NCP per
//! step, contact points and normals at the end of the step), and [`lcp`], the Stewart–Trinkle
//! LCP baseline (contacts from collision detection at the start of the step, polygonal
//! shapes). Both implement [`TimeStepper`], which the run loop ([`crate::run`]) drives.

pub mod broad_phase;
mod halving;
pub mod implicit;
pub mod lcp;
pub mod report;

pub use implicit::{ImplicitStepper, StepperError, StepperSettings};
pub use lcp::{LcpError, LcpSettings, LcpStepper};
pub use report::{ContactState, DriveState, JointState, ResidualSite, RowOwner, StepReport};

use crate::model::{Dynamics, Scene};

/// What the run loop needs of a time-stepper.
pub trait TimeStepper<S: Dynamics> {
    /// The formulation's name in `summary.json` and the study tables: `implicit` or `lcp`.
    fn formulation(&self) -> &'static str;
    /// The scene in its current state.
    fn scene(&self) -> &Scene<S>;
    /// The simulated time.
    fn time(&self) -> f64;
    /// Advances by one time step; a report with `converged: false` leaves the scene at the
    /// last accepted state.
    fn step(&mut self) -> StepReport;
    /// The contacts after the last step, for output.
    fn contacts(&self) -> Vec<ContactState>;
    /// Elastic energy stored in compliant layers (quasi-rigid contacts), for the energy
    /// columns; 0 without layers.
    fn elastic_energy(&self) -> f64 {
        0.0
    }
    /// Whether contacts carry quasi-rigid quantities (extra columns in contacts.csv).
    fn has_quasi_rigid_contacts(&self) -> bool {
        false
    }
    /// The joints' states after the last step, in scene order, for `joints.csv` (empty
    /// without joints; the LCP stepper refuses a scene with joints).
    fn joint_states(&self) -> Vec<JointState> {
        Vec::new()
    }
    /// The largest drift of any joint at the current poses (0 without joints).
    fn joint_drift(&self) -> f64 {
        0.0
    }
    /// The driven bodies' required wrenches over the last step, for `drives.csv` (empty
    /// without driven bodies).
    fn drive_states(&self) -> Vec<DriveState> {
        Vec::new()
    }
    /// The deepest penetration after the last step (`summary.json`'s `max_penetration`); by
    /// default the largest [`ContactState::penetration`].
    fn penetration(&self) -> f64 {
        self.contacts()
            .iter()
            .fold(0.0f64, |m, c| m.max(c.penetration))
    }
}

impl<S: Dynamics> TimeStepper<S> for ImplicitStepper<S> {
    fn formulation(&self) -> &'static str {
        "implicit"
    }
    fn scene(&self) -> &Scene<S> {
        &self.scene
    }
    fn time(&self) -> f64 {
        self.time
    }
    fn step(&mut self) -> StepReport {
        ImplicitStepper::step(self)
    }
    fn contacts(&self) -> Vec<ContactState> {
        ImplicitStepper::contacts(self)
    }
    fn elastic_energy(&self) -> f64 {
        ImplicitStepper::elastic_energy(self)
    }
    fn has_quasi_rigid_contacts(&self) -> bool {
        ImplicitStepper::has_quasi_rigid_contacts(self)
    }
    fn joint_states(&self) -> Vec<JointState> {
        ImplicitStepper::joints(self)
    }
    fn joint_drift(&self) -> f64 {
        ImplicitStepper::joint_drift(self)
    }
    fn drive_states(&self) -> Vec<DriveState> {
        ImplicitStepper::drives(self)
    }
}

impl<S: Dynamics> TimeStepper<S> for LcpStepper<S> {
    fn formulation(&self) -> &'static str {
        "lcp"
    }
    fn scene(&self) -> &Scene<S> {
        &self.scene
    }
    fn time(&self) -> f64 {
        self.time
    }
    fn step(&mut self) -> StepReport {
        LcpStepper::step(self)
    }
    fn contacts(&self) -> Vec<ContactState> {
        LcpStepper::contacts(self)
    }
    fn penetration(&self) -> f64 {
        LcpStepper::penetration(self)
    }
}
