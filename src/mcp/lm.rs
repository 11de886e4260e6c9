//! Levenberg–Marquardt on the Fischer–Burmeister residual (placeholder: being written).

use super::{LmSettings, McpProblem, SolveReport, SolverKind, Status};

/// Levenberg–Marquardt on the Fischer–Burmeister residual.
#[derive(Debug, Default)]
pub struct LmSolver {}

impl LmSolver {
    /// Solves `problem` from `z` to natural residual `tolerance`.
    pub fn solve<P: McpProblem + ?Sized>(
        &mut self,
        _problem: &mut P,
        _z: &mut [f64],
        _tolerance: f64,
        _settings: &LmSettings,
    ) -> SolveReport {
        let mut r = SolveReport::new(SolverKind::LevenbergMarquardt);
        r.status = Status::Stalled;
        r
    }
}
