//! Complementarity solvers, physics-free.
//!
//! A mixed complementarity problem (MCP) asks for `z ∈ [l, u]` with `F(z)` "perpendicular" to the
//! box at `z` (see [`McpProblem`]). Every time step of the simulator is one MCP; this module knows
//! nothing of the physics.
//!
//! * [`PathSolver`]: Newton's method with a path search on the normal map, the design of PATH
//!   (Ralph 1994; Dirkse & Ferris 1995): projected-Newton crash, a Lemke-type pivotal method for
//!   each linearisation that traces the piecewise-linear Newton path, a non-monotone watchdog
//!   path search, proximal perturbation and restarts.
//! * [`FbNewtonSolver`]: semismooth Newton on the Fischer–Burmeister reformulation with an Armijo
//!   line search and gradient steps where Newton fails.
//! * [`LmSolver`]: Levenberg–Marquardt (the `levenberg-marquardt` crate) on the same residual.
//! * [`lemke`]: Lemke's method for LCPs and linear MCPs, sharing the pivoting engine with the
//!   path search.
//!
//! [`solve`] (or a reusable [`McpSolver`]) tries the solvers in the order of
//! [`SolveSettings::order`] and says in its [`SolveReport`] which one produced the answer.

mod argmin_driver;
mod dense;
mod fb;
pub mod lemke;
mod lm;
mod path;
mod pivot;
mod problem;
mod report;
mod settings;
mod sparse;
pub mod test_problems;
#[cfg(test)]
mod test_support;

pub use argmin_driver::{ArgminPath, PathState};
pub use fb::FbNewtonSolver;
pub use lm::LmSolver;
pub use path::PathSolver;
pub use problem::{
    ClosureMcp, DenseJacobian, LinearMcp, McpProblem, ProblemError, finite_difference_jacobian,
    jacobian_check, natural_residual, validate_bounds,
};
pub use report::{Attempt, MAX_ATTEMPTS, SolveReport, SolverKind, Status};
pub use settings::{FbSettings, LmSettings, PathSettings, SettingsError, SolveSettings};
pub(crate) use sparse::SparseLu;
pub use sparse::{PatternError, SparseJacobian};

use std::time::Instant;

/// Checks the bounds and the starting point before any solver runs: `None` if they are usable.
/// A NaN in `z` or in the bounds, or `l > u`, is [`Status::NonFiniteInput`]; an infinite `z_i`
/// is too. Infinite bounds are allowed.
pub(crate) fn check_input<P: McpProblem + ?Sized>(problem: &P, z: &[f64]) -> Option<Status> {
    let n = problem.dim();
    let (l, u) = (problem.lower_bounds(), problem.upper_bounds());
    if z.len() != n || l.len() != n || u.len() != n || validate_bounds(l, u).is_err() {
        return Some(Status::NonFiniteInput);
    }
    if z.iter().any(|v| !v.is_finite()) {
        return Some(Status::NonFiniteInput);
    }
    None
}

/// Projects `z` onto the box `[l, u]` in place.
pub(crate) fn project(z: &mut [f64], lower: &[f64], upper: &[f64]) {
    for i in 0..z.len() {
        z[i] = z[i].max(lower[i]).min(upper[i]);
    }
}

/// A reusable solver: the workspaces of every algorithm, kept between solves so that a time
/// stepper calling it every step allocates nothing after the first step.
#[derive(Debug, Default, Clone)]
pub struct McpSolver {
    /// Settings used by [`McpSolver::solve`].
    pub settings: SolveSettings,
    path: PathSolver,
    fb: FbNewtonSolver,
    lm: LmSolver,
    /// The caller's starting point (each fallback starts from it) and the best point so far.
    z0: Vec<f64>,
    best_z: Vec<f64>,
}

impl McpSolver {
    /// A solver with validated settings.
    pub fn new(settings: SolveSettings) -> Result<Self, SettingsError> {
        settings.validate()?;
        Ok(Self {
            settings,
            ..Self::default()
        })
    }

    /// Solves `problem` from the starting point `z`, leaving the answer in `z`.
    ///
    /// Solvers are tried in the order of the settings; each later one starts from the original
    /// `z`. If none converges, `z` holds the attempt with the smallest residual and the report
    /// says so.
    pub fn solve<P: McpProblem + ?Sized>(&mut self, problem: &mut P, z: &mut [f64]) -> SolveReport {
        self.solve_with(problem, z, true)
    }

    /// Lets the next solve's path search start with simplified Newton steps on the
    /// Jacobian it factorised last (see [`PathSolver::allow_kept_jacobian`]): for solving
    /// again, from near its last solution, a problem whose Jacobian has hardly changed.
    pub fn allow_kept_jacobian(&mut self) {
        self.path.allow_kept_jacobian();
    }

    /// [`Self::solve`] with the first solver of the order only when `fallbacks` is false.
    pub fn solve_with<P: McpProblem + ?Sized>(
        &mut self,
        problem: &mut P,
        z: &mut [f64],
        fallbacks: bool,
    ) -> SolveReport {
        let report = self.solve_all(problem, z, fallbacks);
        // The permission is for the solve it was given to, path search or not.
        self.path.forbid_kept_jacobian();
        report
    }

    fn solve_all<P: McpProblem + ?Sized>(
        &mut self,
        problem: &mut P,
        z: &mut [f64],
        fallbacks: bool,
    ) -> SolveReport {
        let start = Instant::now();
        let tol = self.settings.tolerance;
        let first = self
            .settings
            .order
            .first()
            .copied()
            .unwrap_or(SolverKind::PathSearch);
        let mut total = SolveReport::new(first);
        if let Some(status) = check_input(problem, z) {
            total.status = status;
            total.wall_time = start.elapsed();
            return total;
        }
        self.z0.clear();
        self.z0.extend_from_slice(z);
        let deadline = self
            .settings
            .time_limit
            .map(|t| start + std::time::Duration::from_secs_f64(t));
        self.path.deadline = deadline;
        self.fb.deadline = deadline;
        self.lm.deadline = deadline;
        // Factorisations (of `n³` work each) allowed to a dense solver.
        let cube = (problem.dim().max(1) as f64).powi(3);
        let dense_budget = ((self.settings.dense_fallback_work / cube) as usize).max(1);
        let mut best: Option<(f64, SolveReport)> = None;
        let mut tried = [false; 4];
        let attempts = if fallbacks {
            self.settings.order.len()
        } else {
            1
        };
        for k in 0..attempts {
            let kind = self.settings.order[k];
            let slot = kind as usize;
            if kind == SolverKind::Lemke || tried[slot] {
                continue;
            }
            let dense = matches!(
                kind,
                SolverKind::FischerBurmeister | SolverKind::LevenbergMarquardt
            );
            if k > 0 && dense && problem.dim() > self.settings.dense_fallback_limit {
                continue;
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            tried[slot] = true;
            if k > 0 {
                z.copy_from_slice(&self.z0);
            }
            let report = match kind {
                // The first attempt starts from the checked `z`; a later one from `z0`, the same.
                SolverKind::PathSearch => {
                    self.path
                        .solve_since(problem, z, tol, &self.settings.path, start, false)
                }
                SolverKind::FischerBurmeister => {
                    let mut settings = self.settings.fischer_burmeister.clone();
                    settings.iteration_limit = settings.iteration_limit.min(dense_budget);
                    self.fb.solve(problem, z, tol, &settings)
                }
                SolverKind::LevenbergMarquardt => {
                    let mut settings = self.settings.levenberg_marquardt.clone();
                    settings.evaluation_limit = settings.evaluation_limit.min(dense_budget);
                    self.lm.solve(problem, z, tol, &settings)
                }
                SolverKind::Lemke => unreachable!(),
            };
            total.accumulate(&report);
            total.push_attempt(Attempt {
                solver: kind,
                status: report.status,
                residual: report.residual,
            });
            if report.converged() {
                total.status = Status::Converged;
                total.solver = kind;
                total.residual = report.residual;
                // The path search timed itself from `start`.
                total.wall_time = if kind == SolverKind::PathSearch {
                    report.wall_time
                } else {
                    start.elapsed()
                };
                return total;
            }
            let r = if report.residual.is_nan() {
                f64::INFINITY
            } else {
                report.residual
            };
            if best.as_ref().is_none_or(|(rb, _)| r < *rb) {
                self.best_z.clear();
                self.best_z.extend_from_slice(z);
                best = Some((r, report));
            }
        }
        if let Some((_, report)) = best {
            z.copy_from_slice(&self.best_z);
            total.status = report.status;
            total.solver = report.solver;
            total.residual = report.residual;
        }
        total.wall_time = start.elapsed();
        total
    }
}

/// Solves `problem` from `z` with `settings` (see [`McpSolver::solve`]). Invalid settings give
/// [`Status::NonFiniteInput`]; validate them first with [`SolveSettings::validate`] to learn why.
pub fn solve<P: McpProblem + ?Sized>(
    problem: &mut P,
    z: &mut [f64],
    settings: &SolveSettings,
) -> SolveReport {
    match McpSolver::new(settings.clone()) {
        Ok(mut solver) => solver.solve(problem, z),
        Err(_) => {
            let mut r = SolveReport::new(SolverKind::PathSearch);
            r.status = Status::NonFiniteInput;
            r
        }
    }
}
