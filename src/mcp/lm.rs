//! Levenberg–Marquardt on the Fischer–Burmeister residual: the last-resort fallback.
//!
//! The MCP is rewritten as `Φ(z) = 0` with the Fischer–Burmeister reformulation of
//! [`FbNewtonSolver`](super::FbNewtonSolver) (Fischer 1992; Billups 1995 for the box case) and
//! the nonlinear least-squares problem
//!
//! ```text
//! min_z ½‖Φ(z)‖²,      Jacobian element H = D_a + D_b J(z)
//! ```
//!
//! is handed to the trust-region Levenberg–Marquardt method of the `levenberg-marquardt` crate
//! (Levenberg 1944; Marquardt 1963; Moré 1978, MINPACK's `lmder`). `Φ` and `H` come from the same
//! code as the Newton solver. The crate's stopping tests are relative (`ftol`, `xtol`, `gtol`), so
//! convergence is decided here: the adapter stops the crate as soon as an evaluated point has
//! natural residual `‖z − mid(l, u, z − F(z))‖∞ ≤ tolerance`, and only that is reported as
//! [`Status::Converged`].

use super::fb::{fb_residual, fb_system};
use super::{
    LmSettings, McpProblem, SolveReport, SolverKind, Status, check_input, natural_residual,
};
use levenberg_marquardt::{LeastSquaresProblem, LevenbergMarquardt, TerminationReason};
use nalgebra::storage::Owned;
use nalgebra::{DMatrix, DVector, Dyn};
use std::cell::{Cell, RefCell};
use std::time::Instant;

/// Why the adapter stopped the crate's iteration (by returning `None`).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Stop {
    /// The natural residual at the last evaluated point is at or below the tolerance.
    Converged,
    /// `F` or `J` was not finite.
    NonFinite,
    /// The solve's deadline passed.
    TimeLimit,
}

/// Borrowed workspaces of [`LmSolver`] lent to the adapter for one solve.
#[derive(Debug, Default, Clone)]
struct Buffers {
    lower: Vec<f64>,
    upper: Vec<f64>,
    f: Vec<f64>,
    best_z: Vec<f64>,
}

/// The least-squares problem `min ½‖Φ(z)‖²` seen by the `levenberg-marquardt` crate.
///
/// `F` is evaluated in [`set_params`](LeastSquaresProblem::set_params) (the crate calls it once
/// per trial point), `J` in [`jacobian`](LeastSquaresProblem::jacobian); the latter takes `&self`,
/// hence the `RefCell` around the problem.
struct FbLeastSquares<'a, P: McpProblem + ?Sized> {
    problem: RefCell<&'a mut P>,
    tolerance: f64,
    z: DVector<f64>,
    phi: DVector<f64>,
    buffers: Buffers,
    stop: Cell<Option<Stop>>,
    best_residual: f64,
    function_evaluations: usize,
    jacobian_evaluations: Cell<usize>,
    deadline: Option<Instant>,
}

impl<P: McpProblem + ?Sized> FbLeastSquares<'_, P> {
    /// Evaluates `F` and `Φ` at `self.z`, records the best point, sets `stop` when due.
    fn evaluate(&mut self) {
        let b = &mut self.buffers;
        self.problem.get_mut().function(self.z.as_slice(), &mut b.f);
        self.function_evaluations += 1;
        if b.f.iter().any(|v| !v.is_finite()) {
            self.stop.set(Some(Stop::NonFinite));
            return;
        }
        fb_residual(
            self.z.as_slice(),
            &b.f,
            &b.lower,
            &b.upper,
            self.phi.as_mut_slice(),
        );
        let r = natural_residual(self.z.as_slice(), &b.f, &b.lower, &b.upper);
        if r < self.best_residual {
            self.best_residual = r;
            b.best_z.copy_from_slice(self.z.as_slice());
        }
        if r <= self.tolerance {
            self.stop.set(Some(Stop::Converged));
        } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.stop.set(Some(Stop::TimeLimit));
        }
    }
}

impl<P: McpProblem + ?Sized> LeastSquaresProblem<f64, Dyn, Dyn> for FbLeastSquares<'_, P> {
    type ResidualStorage = Owned<f64, Dyn>;
    type JacobianStorage = Owned<f64, Dyn, Dyn>;
    type ParameterStorage = Owned<f64, Dyn>;

    fn set_params(&mut self, x: &DVector<f64>) {
        self.z.copy_from(x);
        self.evaluate();
    }

    fn params(&self) -> DVector<f64> {
        self.z.clone()
    }

    fn residuals(&self) -> Option<DVector<f64>> {
        if self.stop.get().is_some() {
            return None;
        }
        Some(self.phi.clone())
    }

    fn jacobian(&self) -> Option<DMatrix<f64>> {
        if self.stop.get().is_some() {
            return None;
        }
        let n = self.z.len();
        let mut h = DMatrix::zeros(n, n);
        self.problem
            .borrow_mut()
            .jacobian(self.z.as_slice(), &mut h);
        self.jacobian_evaluations
            .set(self.jacobian_evaluations.get() + 1);
        if h.iter().any(|v| !v.is_finite()) {
            self.stop.set(Some(Stop::NonFinite));
            return None;
        }
        let b = &self.buffers;
        let mut phi = vec![0.0; n];
        fb_system(
            self.z.as_slice(),
            &b.f,
            &b.lower,
            &b.upper,
            &mut phi,
            &mut h,
        );
        Some(h)
    }
}

/// Levenberg–Marquardt on the Fischer–Burmeister residual (the last-resort fallback; allocates).
#[derive(Debug, Default, Clone)]
pub struct LmSolver {
    buffers: Buffers,
    /// When set, the solve stops with [`Status::TimeLimit`] once this instant has passed.
    pub(crate) deadline: Option<Instant>,
}

impl LmSolver {
    /// Solves `problem` from `z` to natural residual `tolerance`.
    ///
    /// On return `z` holds the evaluated point with the smallest natural residual (the crate's
    /// iterate, or the trial point that met the tolerance) and the report's `residual` is the
    /// natural residual there. A non-finite `F` or `J` ends the solve with
    /// [`Status::NonFiniteFunction`].
    pub fn solve<P: McpProblem + ?Sized>(
        &mut self,
        problem: &mut P,
        z: &mut [f64],
        tolerance: f64,
        settings: &LmSettings,
    ) -> SolveReport {
        let start = Instant::now();
        let mut report = SolveReport::new(SolverKind::LevenbergMarquardt);
        if let Some(status) = check_input(problem, z) {
            report.status = status;
            report.wall_time = start.elapsed();
            return report;
        }
        let n = problem.dim();
        let mut buffers = std::mem::take(&mut self.buffers);
        buffers.lower.clear();
        buffers.lower.extend_from_slice(problem.lower_bounds());
        buffers.upper.clear();
        buffers.upper.extend_from_slice(problem.upper_bounds());
        buffers.f.resize(n, 0.0);
        buffers.best_z.clear();
        buffers.best_z.extend_from_slice(z);

        let mut adapter = FbLeastSquares {
            problem: RefCell::new(problem),
            tolerance,
            z: DVector::from_column_slice(z),
            phi: DVector::zeros(n),
            buffers,
            stop: Cell::new(None),
            best_residual: f64::INFINITY,
            function_evaluations: 0,
            jacobian_evaluations: Cell::new(0),
            deadline: self.deadline,
        };
        adapter.evaluate();
        let (adapter, lm_report) = if adapter.stop.get().is_some() {
            (adapter, None)
        } else {
            // The relative tolerances only end hopeless runs: convergence is the adapter's
            // absolute test on the natural residual, met long before these fire.
            let lm = LevenbergMarquardt::new()
                .with_patience(
                    settings
                        .patience
                        .min(settings.evaluation_limit.div_ceil(n + 1))
                        .max(1),
                )
                .with_ftol(30.0 * f64::EPSILON)
                .with_xtol(30.0 * f64::EPSILON)
                .with_gtol(30.0 * f64::EPSILON);
            let (adapter, lm_report) = lm.minimize(adapter);
            (adapter, Some(lm_report))
        };

        report.function_evaluations = adapter.function_evaluations;
        report.jacobian_evaluations = adapter.jacobian_evaluations.get();
        report.major_iterations = report.jacobian_evaluations;
        report.status = match (adapter.stop.get(), lm_report.map(|r| r.termination)) {
            (Some(Stop::Converged), _) => Status::Converged,
            (Some(Stop::NonFinite), _) => Status::NonFiniteFunction,
            (Some(Stop::TimeLimit), _) => Status::TimeLimit,
            (None, Some(TerminationReason::LostPatience)) => Status::IterationLimit,
            // Numerical trouble, a stationary point of ½‖Φ‖² that is not a solution
            // (Orthogonal, Converged, ResidualsZero without a small natural residual), no
            // further improvement possible, or a usage issue: no progress either way.
            (None, _) => Status::Stalled,
        };
        if adapter.best_residual.is_finite() {
            z.copy_from_slice(&adapter.buffers.best_z);
            report.residual = adapter.best_residual;
        }
        if report.status == Status::Converged
            && (report.residual > tolerance || report.residual.is_nan())
        {
            report.status = Status::Stalled;
        }
        self.buffers = adapter.buffers;
        report.wall_time = start.elapsed();
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::test_support::standard_cases;

    /// LM with λ → 0 near a solution where H is nonsingular takes Gauss–Newton (= Newton) steps,
    /// so it converges quadratically and 1e-10 (the crate default tolerance) is reachable.
    const TOL: f64 = 1e-10;

    #[test]
    fn solves_the_shared_cases() {
        let mut solver = LmSolver::default();
        standard_cases(|p, z| solver.solve(p, z, TOL, &LmSettings::default()), TOL);
    }
}
