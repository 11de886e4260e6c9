//! Parameter studies over whole runs: [`rolling_disc`], the paper's Figure 1 (energy loss of a
//! polygonal disc under the LCP stepper against the implicit circle).

pub mod grasp;
pub mod grasp_study;
pub mod paired;
pub mod rocking;
pub mod rolling_disc;
pub mod soak;
pub mod suite;

pub use rolling_disc::{
    Configuration, Formulation, RollingDiscConfig, RollingDiscData, Series, StudyError,
};
