//! Solver settings: one struct per solver, a doc line and a default per field, validated once.

use super::report::SolverKind;
use serde::{Deserialize, Serialize};

/// Error for settings outside their valid range; names the field.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("invalid solver setting `{field}`: {reason}")]
pub struct SettingsError {
    /// The offending field, as `solver.field`.
    pub field: &'static str,
    /// Why it is invalid.
    pub reason: String,
}

fn check(ok: bool, field: &'static str, reason: &str) -> Result<(), SettingsError> {
    if ok {
        Ok(())
    } else {
        Err(SettingsError {
            field,
            reason: reason.to_string(),
        })
    }
}

/// Settings of the path-search solver (PATH class: Dirkse & Ferris 1995, Ralph 1994).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PathSettings {
    /// Major (Newton) iterations allowed, crash iterations included.
    pub major_iteration_limit: usize,
    /// Projected-Newton crash iterations allowed before the path search starts (0: no crash).
    pub crash_iteration_limit: usize,
    /// The crash stops once an iteration changes the active set of at most this many variables.
    pub crash_nbchange_limit: usize,
    /// Pivots allowed in one linearised problem (PATH's `minor_iteration_limit`). A trace
    /// that reaches it ends at its best point, and the path search goes on from there: a
    /// Newton path that needs more breakpoints than this is most often wandering through a
    /// near-singular linearisation (a pile's or a struck row's continuum of impulses), where
    /// the next linearisation, at a better point, serves better.
    pub pivot_limit: usize,
    /// Pivots a trace may take in one excursion behind its start, where the path parameter
    /// `t = 1 − s` has fallen below 0 (`usize::MAX`: any). The trace then ends at its best
    /// point, as at the pivot limit. A path goes behind its start only through a basis of
    /// the wrong orientation (a near-singular linearisation): short excursions often come
    /// back to the Newton point, long ones in a large pile mostly close into loops or reach
    /// the pivot limit, at the cost of a solve with the sparse factors per pivot (README,
    /// "A Newton path behind its start gets 50 pivots").
    pub pivots_behind_start: usize,
    /// Pivots allowed over the whole solve, at least (PATH's `cumulative_iteration_limit`).
    pub cumulative_pivot_limit: usize,
    /// Pivots allowed over the whole solve, per variable (at least `cumulative_pivot_limit` in
    /// all): the budget grows with the problem's size, never without bound. A pivot of a
    /// sparse problem costs about `n` operations, so the budget's time grows as `n²`: it is
    /// kept at the few pivots per variable that converging solves take (README, "Budgets").
    pub pivot_budget_per_variable: usize,
    /// Number of reference merit values the non-monotone rule remembers.
    pub nms_memory: usize,
    /// Non-monotone steps allowed without a new best point before the watchdog returns to the
    /// checkpoint and searches monotonically from it.
    pub watchdog_steps: usize,
    /// Sufficient-decrease constant σ: accept `x(t)` if `‖F_B(x(t))‖ ≤ (1 − σ t) R`.
    pub sufficient_decrease: f64,
    /// Backtracking factor along the path.
    pub backtrack: f64,
    /// Smallest path parameter tried before the search is declared failed.
    pub min_step: f64,
    /// Initial proximal perturbation ε (times the residual, capped at `proximal_max`) added to
    /// the Jacobian's diagonal when the linear problem is singular or ends on a ray.
    pub proximal_initial: f64,
    /// Largest proximal perturbation.
    pub proximal_max: f64,
    /// Whether a Newton point the path search refuses gets a second-order correction first
    /// (see `PathSolver::second_order_correction`).
    pub second_order_correction: bool,
    /// The diagonal `λ` added to the Jacobian for the second-order correction: larger than
    /// the weights of the linearisation's near-null directions (the stepper's proximal
    /// weights on a continuum of impulses, `α g h` ≈ 1e-7), so that the correction does not
    /// travel along them, and far below its regular scale.
    pub correction_damping: f64,
    /// Restarts with changed settings when the solve stalls.
    pub restart_limit: usize,
    /// Problems of at least this many variables whose Jacobian pattern is known
    /// ([`McpProblem::sparse_pattern`](super::McpProblem::sparse_pattern)) are factorised
    /// sparsely; smaller ones densely (faster below a hundred or so variables).
    pub sparse_threshold: usize,
}

impl Default for PathSettings {
    fn default() -> Self {
        Self {
            major_iteration_limit: 500,
            crash_iteration_limit: 50,
            crash_nbchange_limit: 0,
            pivot_limit: 1_000,
            pivots_behind_start: 50,
            cumulative_pivot_limit: 10_000,
            pivot_budget_per_variable: 2,
            nms_memory: 10,
            watchdog_steps: 5,
            sufficient_decrease: 0.01,
            backtrack: 0.5,
            min_step: 1e-12,
            proximal_initial: 1e-2,
            proximal_max: 1e4,
            second_order_correction: true,
            correction_damping: 1e-4,
            restart_limit: 3,
            sparse_threshold: 100,
        }
    }
}

impl PathSettings {
    /// Checks every field's range.
    pub fn validate(&self) -> Result<(), SettingsError> {
        check(
            self.major_iteration_limit > 0,
            "path.major_iteration_limit",
            "must be positive",
        )?;
        check(self.pivot_limit > 0, "path.pivot_limit", "must be positive")?;
        check(
            self.cumulative_pivot_limit > 0,
            "path.cumulative_pivot_limit",
            "must be positive",
        )?;
        check(self.nms_memory > 0, "path.nms_memory", "must be positive")?;
        check(
            self.sufficient_decrease > 0.0 && self.sufficient_decrease < 1.0,
            "path.sufficient_decrease",
            "must lie in (0, 1)",
        )?;
        check(
            self.backtrack > 0.0 && self.backtrack < 1.0,
            "path.backtrack",
            "must lie in (0, 1)",
        )?;
        check(
            self.min_step > 0.0 && self.min_step < 1.0,
            "path.min_step",
            "must lie in (0, 1)",
        )?;
        check(
            self.proximal_initial > 0.0 && self.proximal_initial <= self.proximal_max,
            "path.proximal_initial",
            "must be positive and at most proximal_max",
        )?;
        check(
            self.correction_damping.is_finite() && self.correction_damping >= 0.0,
            "path.correction_damping",
            "must be finite and ≥ 0",
        )?;
        Ok(())
    }
}

/// Settings of the semismooth Newton method on the Fischer–Burmeister reformulation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FbSettings {
    /// Newton iterations allowed.
    pub iteration_limit: usize,
    /// Armijo constant for the sufficient decrease of `Ψ = ½‖Φ‖²`.
    pub armijo: f64,
    /// Backtracking factor of the line search.
    pub backtrack: f64,
    /// Smallest step length tried.
    pub min_step: f64,
    /// The Newton direction `d` is rejected for the gradient step unless
    /// `∇Ψ·d ≤ −descent_rho ‖d‖^descent_power`.
    pub descent_rho: f64,
    /// Exponent `p` of the descent test above (p > 2).
    pub descent_power: f64,
}

impl Default for FbSettings {
    fn default() -> Self {
        Self {
            iteration_limit: 500,
            armijo: 1e-4,
            backtrack: 0.5,
            min_step: 1e-14,
            descent_rho: 1e-10,
            descent_power: 2.1,
        }
    }
}

impl FbSettings {
    /// Checks every field's range.
    pub fn validate(&self) -> Result<(), SettingsError> {
        check(
            self.iteration_limit > 0,
            "fischer_burmeister.iteration_limit",
            "must be positive",
        )?;
        check(
            self.armijo > 0.0 && self.armijo < 0.5,
            "fischer_burmeister.armijo",
            "must lie in (0, 0.5)",
        )?;
        check(
            self.backtrack > 0.0 && self.backtrack < 1.0,
            "fischer_burmeister.backtrack",
            "must lie in (0, 1)",
        )?;
        check(
            self.descent_power > 2.0,
            "fischer_burmeister.descent_power",
            "must exceed 2",
        )?;
        Ok(())
    }
}

/// Settings of the Levenberg–Marquardt fallback (the `levenberg-marquardt` crate) on the
/// Fischer–Burmeister residual.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LmSettings {
    /// Evaluations allowed, as a multiple of `n + 1` (MINPACK's `patience`).
    pub patience: usize,
    /// Evaluations allowed in all, whatever `patience` gives: each costs a dense QR, so the
    /// budget must not grow with the problem.
    pub evaluation_limit: usize,
}

impl Default for LmSettings {
    fn default() -> Self {
        Self {
            patience: 200,
            evaluation_limit: 2000,
        }
    }
}

impl LmSettings {
    /// Checks every field's range.
    pub fn validate(&self) -> Result<(), SettingsError> {
        check(
            self.patience > 0,
            "levenberg_marquardt.patience",
            "must be positive",
        )
    }
}

/// Settings of the [`solve`](super::solve) entry point: tolerance, per-solver settings and the
/// order in which solvers are tried.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SolveSettings {
    /// Convergence tolerance on the natural residual `‖z − mid(l, u, z − F(z))‖∞`.
    pub tolerance: f64,
    /// Solvers tried in order until one converges (duplicates and `Lemke` are ignored).
    pub order: Vec<SolverKind>,
    /// Path-search settings.
    pub path: PathSettings,
    /// Fischer–Burmeister Newton settings.
    pub fischer_burmeister: FbSettings,
    /// Levenberg–Marquardt settings.
    pub levenberg_marquardt: LmSettings,
    /// The dense fallbacks (Fischer–Burmeister Newton, Levenberg–Marquardt), whose every
    /// iteration factorises an `n × n` matrix densely, are tried only on problems of at most
    /// this many variables: beyond, one of their iterations costs more than a whole path search.
    pub dense_fallback_limit: usize,
    /// Work allowed to each dense solver (Fischer–Burmeister Newton, Levenberg–Marquardt) in
    /// units of one `n × n` dense factorisation's `n³`: iterations (evaluations for
    /// Levenberg–Marquardt) are capped at `dense_fallback_work / n³`, so that a fallback that
    /// cannot solve a step of a few hundred unknowns gives up in seconds, not minutes, and the
    /// same on every machine (2e9: about 150 Levenberg–Marquardt evaluations at n = 228, where
    /// 2000 took 32 s).
    pub dense_fallback_work: f64,
    /// Wall time allowed for one solve, fallbacks included, in seconds (`None`: no limit, the
    /// default, so that a result never depends on the machine's speed); a solve that reaches
    /// it ends with [`Status::TimeLimit`](super::Status::TimeLimit) and its best point.
    pub time_limit: Option<f64>,
}

impl Default for SolveSettings {
    fn default() -> Self {
        Self {
            tolerance: 1e-10,
            order: vec![
                SolverKind::PathSearch,
                SolverKind::FischerBurmeister,
                SolverKind::LevenbergMarquardt,
            ],
            path: PathSettings::default(),
            fischer_burmeister: FbSettings::default(),
            levenberg_marquardt: LmSettings::default(),
            dense_fallback_limit: 300,
            dense_fallback_work: 2e9,
            time_limit: None,
        }
    }
}

impl SolveSettings {
    /// Checks every field's range.
    pub fn validate(&self) -> Result<(), SettingsError> {
        check(
            self.tolerance > 0.0 && self.tolerance.is_finite(),
            "tolerance",
            "must be positive and finite",
        )?;
        check(
            !self.order.is_empty(),
            "order",
            "must name at least one solver",
        )?;
        check(
            self.dense_fallback_work > 0.0 && !self.dense_fallback_work.is_nan(),
            "dense_fallback_work",
            "must be positive",
        )?;
        check(
            self.time_limit.is_none_or(|t| t > 0.0 && !t.is_nan()),
            "time_limit",
            "must be positive",
        )?;
        self.path.validate()?;
        self.fischer_burmeister.validate()?;
        self.levenberg_marquardt.validate()
    }

    /// The same settings with another tolerance; fails if it is not positive and finite.
    pub fn with_tolerance(mut self, tolerance: f64) -> Result<Self, SettingsError> {
        self.tolerance = tolerance;
        check(
            tolerance > 0.0 && tolerance.is_finite(),
            "tolerance",
            "must be positive and finite",
        )?;
        Ok(self)
    }

    /// The same settings trying only `solver`.
    pub fn only(mut self, solver: SolverKind) -> Self {
        self.order = vec![solver];
        self
    }
}
