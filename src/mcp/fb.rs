//! Semismooth Newton on the Fischer–Burmeister reformulation (placeholder: being written).

use super::{FbSettings, McpProblem, SolveReport, SolverKind, Status};

/// Semismooth Newton method on the Fischer–Burmeister reformulation of the MCP.
#[derive(Debug, Default)]
pub struct FbNewtonSolver {}

impl FbNewtonSolver {
    /// Solves `problem` from `z` to natural residual `tolerance`.
    pub fn solve<P: McpProblem + ?Sized>(
        &mut self,
        _problem: &mut P,
        _z: &mut [f64],
        _tolerance: f64,
        _settings: &FbSettings,
    ) -> SolveReport {
        let mut r = SolveReport::new(SolverKind::FischerBurmeister);
        r.status = Status::Stalled;
        r
    }
}
