//! The path search as an argmin [`Solver`], for users who want argmin's executor: observers
//! (progress logging, `Every(n)`), iteration and time limits, Ctrl-C handling.
//!
//! One argmin iteration is one major (Newton) iteration of [`PathSolver`]; restarts happen
//! inside it. The state's `param` is the current `z = π(x)` and its `cost` the normal-map merit
//! `‖F_B(x)‖₂`; the run ends with `SolverConverged` when the natural residual reaches the
//! tolerance, and with `SolverExit(status)` for any other ending of the path search. The full
//! [`SolveReport`] and the answer are read back with [`ArgminPath::finish`].
//!
//! # Cost, measured
//!
//! `benches/mcp.rs` solves the time-step-shaped problems of
//! [`StepLike`](super::test_problems::StepLike) both ways (medians, release, one core of the CI
//! machine kind):
//!
//! | problem | direct [`PathSolver`] | through argmin | overhead |
//! | --- | --- | --- | --- |
//! | n = 30, warm start | 20.2 µs | 24.7 µs | +23 % |
//! | n = 30, cold start | 42.3 µs | 47.8 µs | +13 % |
//! | n = 22, warm start | 10.4 µs | 14.7 µs | +41 % |
//! | n = 22, cold start | 19.6 µs | 24.5 µs | +25 % |
//!
//! The executor clones the parameter vector into its state every iteration, keeps best and
//! previous copies, reads the clock and (with observers) builds a key-value map; that is over
//! the 10 % budget set for the time stepper, which therefore calls [`PathSolver`] (through
//! [`super::McpSolver`]) directly. This driver is for interactive use, logging and debugging.

use super::path::Progress;
use super::{McpProblem, PathSettings, PathSolver, SolveReport, SolverKind, Status};
use argmin::core::{
    ArgminError, Error, IterState, KV, Problem, Solver, TerminationReason, TerminationStatus,
};
use std::time::Instant;

/// The argmin state used by [`ArgminPath`]: parameter `z`, cost = normal-map merit.
pub type PathState = IterState<Vec<f64>, (), (), (), (), f64>;

/// The path-search solver behind argmin's [`Solver`] trait.
///
/// ```
/// use argmin::core::{Executor, State};
/// use implicit_contact::mcp::{ArgminPath, ClosureMcp, PathSettings};
///
/// let problem = ClosureMcp::ncp(
///     1,
///     |z: &[f64], f: &mut [f64]| f[0] = z[0] * z[0] - 4.0,
///     |z: &[f64], j: &mut nalgebra::DMatrix<f64>| j[(0, 0)] = 2.0 * z[0],
/// );
/// let result = Executor::new(problem, ArgminPath::new(1e-12, PathSettings::default()))
///     .configure(|state| state.param(vec![1.0]).max_iters(50))
///     .run()
///     .unwrap();
/// let mut z = vec![0.0];
/// let report = result.solver.finish(&mut z);
/// assert!(report.converged(), "{report}");
/// assert!((z[0] - 2.0).abs() < 1e-12);
/// ```
#[derive(Debug)]
pub struct ArgminPath {
    solver: PathSolver,
    tolerance: f64,
    settings: PathSettings,
    report: SolveReport,
    status: Option<Status>,
    started: Option<Instant>,
    /// Whether each iteration returns a key-value map for observers (costs an allocation).
    pub observer_values: bool,
}

impl ArgminPath {
    /// A driver solving to natural residual `tolerance` with `settings`.
    pub fn new(tolerance: f64, settings: PathSettings) -> Self {
        Self {
            solver: PathSolver::default(),
            tolerance,
            settings,
            report: SolveReport::new(SolverKind::PathSearch),
            status: None,
            started: None,
            observer_values: true,
        }
    }

    /// The report of the run and the answer (written into `z`).
    pub fn finish(&self, z: &mut [f64]) -> SolveReport {
        let mut report = self.report.clone();
        report.residual = self.solver.finish(z);
        report.status = self.status.unwrap_or(Status::IterationLimit);
        if let Some(t0) = self.started {
            report.wall_time = t0.elapsed();
        }
        report
    }

    fn values(&self) -> Option<KV> {
        self.observer_values.then(|| {
            argmin::kv!(
                "merit" => self.solver.merit();
                "pivots" => self.report.pivots as u64;
                "restarts" => self.report.restarts as u64;
            )
        })
    }

    fn state(&self, state: PathState) -> PathState {
        state
            .param(self.solver.current().to_vec())
            .cost(self.solver.merit())
    }
}

impl<P: McpProblem> Solver<P, PathState> for ArgminPath {
    fn name(&self) -> &str {
        "path-search"
    }

    fn init(
        &mut self,
        problem: &mut Problem<P>,
        mut state: PathState,
    ) -> Result<(PathState, Option<KV>), Error> {
        self.started = Some(Instant::now());
        self.report = SolveReport::new(SolverKind::PathSearch);
        let z0 = state
            .take_param()
            .ok_or_else(|| ArgminError::NotInitialized {
                text: "ArgminPath needs a starting point: configure(|s| s.param(z0))".into(),
            })?;
        let p = problem
            .problem
            .as_mut()
            .ok_or_else(|| ArgminError::NotInitialized {
                text: "no problem".into(),
            })?;
        if let Progress::Done(s) = self.solver.begin(
            p,
            &z0,
            self.tolerance,
            &self.settings,
            &mut self.report,
            true,
        ) {
            self.status = Some(s);
            return Ok((state.param(z0).cost(f64::NAN), None));
        }
        self.status = None;
        Ok((self.state(state), self.values()))
    }

    fn next_iter(
        &mut self,
        problem: &mut Problem<P>,
        state: PathState,
    ) -> Result<(PathState, Option<KV>), Error> {
        if self.status.is_none() {
            let p = problem
                .problem
                .as_mut()
                .ok_or_else(|| ArgminError::NotInitialized {
                    text: "no problem".into(),
                })?;
            if let Progress::Done(s) =
                self.solver
                    .step(p, self.tolerance, &self.settings, &mut self.report)
            {
                self.status = Some(s);
            }
        }
        Ok((self.state(state), self.values()))
    }

    fn terminate(&mut self, _state: &PathState) -> TerminationStatus {
        match self.status {
            None => TerminationStatus::NotTerminated,
            Some(Status::Converged) => {
                TerminationStatus::Terminated(TerminationReason::SolverConverged)
            }
            Some(s) => TerminationStatus::Terminated(TerminationReason::SolverExit(s.to_string())),
        }
    }
}
