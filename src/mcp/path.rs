//! Path search (placeholder).

use super::{McpProblem, PathSettings, SolveReport, SolverKind, Status};

/// Newton path search.
#[derive(Debug, Default)]
pub struct PathSolver {}

impl PathSolver {
    /// Solves `problem` from `z` to natural residual `tolerance`.
    pub fn solve<P: McpProblem + ?Sized>(
        &mut self,
        _problem: &mut P,
        _z: &mut [f64],
        _tolerance: f64,
        _settings: &PathSettings,
    ) -> SolveReport {
        let mut r = SolveReport::new(SolverKind::PathSearch);
        r.status = Status::Stalled;
        r
    }
}
