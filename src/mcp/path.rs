//! Newton's method with a path search on the normal map: the design of PATH.
//!
//! References: D. Ralph, *Global convergence of damped Newton's method for nonsmooth equations via
//! the path search*, Math. Oper. Res. 19 (1994); S. Dirkse & M. Ferris, *The PATH solver: a
//! non-monotone stabilization scheme for mixed complementarity problems*, Optim. Methods Softw.
//! 5 (1995); M. Ferris & T. Munson, *Complementarity problems in GAMS and the PATH solver* (1998).
//!
//! # Formulation
//!
//! With `π` the projection onto the box `B = [l, u]`, the MCP is equivalent to the normal-map
//! equation
//!
//! ```text
//! F_B(x) = F(π(x)) + x − π(x) = 0,      z = π(x).
//! ```
//!
//! At an iterate `x_k` (`z_k = π(x_k)`, `r_k = F_B(x_k)`) the normal map is linearised,
//! `A_k(x) = F(z_k) + J(z_k)(π(x) − z_k) + x − π(x)`, and the Newton path is the solution set of
//! `A_k(x(t)) = (1 − t) r_k` for `t ∈ [0, 1]`: it starts at `x_k` (`t = 0`) and ends at the
//! Newton point (`t = 1`). It is piecewise linear; it is traced by the complementary pivoting
//! engine ([`super::pivot`]) as the affine MCP `w = J z + (F(z_k) − J z_k) − s r_k` with
//! `s = 1 − t`, and `x = z − w`. Along it the model residual falls linearly,
//! `‖A_k(x(t))‖ = (1 − t)‖r_k‖`, which is what the path search tests:
//!
//! * **Path search.** Try the end of the path; otherwise backtrack `t ← βt` along the path (the
//!   first point of the path where the parameter equals `t`), accepting `z(t) = π(x(t))` when
//!   `Φ(z(t)) ≤ (1 − σt) R`. The merit `Φ(z) = ‖F_B(x̂(z))‖` is the normal map's residual at
//!   the point `x̂(z) = z − w(z)` that carries the slack of each variable at a bound in
//!   `w_i = max(F_i, 0)` at a lower bound, `min(F_i, 0)` at an upper one, and 0 inside; the
//!   accepted point continues from `x̂(z(t))`. So a row whose variable rests at its bound with
//!   room to spare counts for nothing, however `F_i` moves, where `‖F_B(x(t))‖` counted the
//!   linearisation's error in it: a friction cone row of a sticking contact is curved
//!   (`μ²p_n² − ‖p‖²`), off by the square of the step along the impulses' continuum, and that
//!   error, not a residual of the problem, held the search to short steps.
//! * **A path behind its start.** A trace whose path has risen above its start (`s > 1`,
//!   `t < 0`) for `pivots_behind_start` pivots in one excursion ends at its best point, and
//!   the search goes along that prefix: such a path turns through bases of the wrong
//!   orientation, and in large scenes mostly closes into a loop or wanders to the pivot limit.
//! * **Second-order correction.** A Newton point the test refuses is first corrected by one
//!   more Newton step from there, on the same Jacobian damped by `λI` and the active set of
//!   the path's end, and taken if that passes the test (the Maratos effect of a curved row on
//!   a near-singular linearisation; see `PathSolver::second_order_correction`).
//! * **Non-monotone watchdog.** `R` is the largest of the last `nms_memory` accepted merit values;
//!   after `watchdog_steps` steps without a new best point the search returns to the best point
//!   (the checkpoint) and continues monotonically (`R` = current merit) until it improves on it.
//! * **Proximal perturbation.** If the linear problem is singular or the pivoting ends on a ray
//!   before reaching `t > 0`, or the path search fails at the checkpoint, the Jacobian is replaced
//!   by `J + εI` with `ε` growing from `proximal_initial · min(1, ‖r_k‖)`; `ε` shrinks again after
//!   every successful step.
//! * **Crash.** Before the path search, projected Newton steps on the active set guessed from
//!   `z − F(z)` (variables at a bound are fixed, the rest solved by Newton) until the guess stops
//!   changing, which warm starts from a good point cost no pivots.
//! * **Restarts.** When progress stalls the solve restarts: first from the starting point without
//!   crash and with a proximal floor, then from the best point monotonically, then from the
//!   starting point with a large proximal floor.
//!
//! Convergence is declared on the natural residual `‖z − π(z − F(z))‖∞ ≤ tol` of `z = π(x)`.

use super::dense::Lu;
use super::pivot::{Affine, MatRef, Outcome, Pivoter, Start, TraceLimits};
use super::sparse::{SparseJacobian, SparseLu, minimum_degree};
use super::{
    McpProblem, PathSettings, SolveReport, SolverKind, Status, check_input, natural_residual,
    project,
};
use nalgebra::DMatrix;
use std::time::Instant;

/// Newton path-search solver (PATH class). Keeps its workspace between solves.
#[derive(Debug, Default, Clone)]
pub struct PathSolver {
    /// When set, the solve stops with [`Status::TimeLimit`] once this instant has passed.
    pub(crate) deadline: Option<Instant>,
    n: usize,
    lower: Vec<f64>,
    upper: Vec<f64>,
    pivoter: Pivoter,
    jac: DMatrix<f64>,
    m: DMatrix<f64>,
    /// Sparse mode (large problem with a known pattern): `sjac`, `sm` replace `jac`, `m`.
    sparse: bool,
    sjac: SparseJacobian,
    sm: SparseJacobian,
    /// The pattern `order` (minimum degree) was computed for, and the order.
    ordered: SparseJacobian,
    order: Vec<usize>,
    /// For a pattern with stages, the order without them, and whether the next Jacobian
    /// still has to choose between the two (see `choose_order`).
    unstaged_order: Vec<usize>,
    order_to_choose: bool,
    /// The size at which the two orders were last measured (0: never), and whether the
    /// staged one won: a pattern within a tenth of that size keeps the choice unmeasured.
    chosen_at: usize,
    chose_staged: bool,
    slu: SparseLu,
    /// Crash workspace: local index of each free variable, the restricted order.
    local: Vec<usize>,
    sub_order: Vec<usize>,
    q: Vec<f64>,
    d: Vec<f64>,
    start: Vec<Start>,
    w0: Vec<f64>,
    // Current iterate: x, z = π(x), F(z), r = F_B(x).
    x: Vec<f64>,
    z: Vec<f64>,
    f: Vec<f64>,
    r: Vec<f64>,
    // Trial point.
    xt: Vec<f64>,
    zt: Vec<f64>,
    ft: Vec<f64>,
    // The iterate, kept aside while a second-order correction works at the trial point.
    zs: Vec<f64>,
    fs: Vec<f64>,
    // Checkpoint (best point).
    xb: Vec<f64>,
    zb: Vec<f64>,
    fb: Vec<f64>,
    // The caller's starting point, for restarts.
    z_start: Vec<f64>,
    memory: Vec<f64>,
    // The answer: the converged point, or the best point over all attempts.
    out: Vec<f64>,
    out_residual: f64,
    it: Iter,
    // Crash workspace.
    lu: Lu,
    free: Vec<usize>,
    active: Vec<i8>,
    dir: Vec<f64>,
    /// Whether the crash's factorisation holds `J_FF` of the Jacobian in `jac`/`sjac` on the
    /// free set of `active` and `free` (cleared by every Jacobian evaluation).
    kept: bool,
    /// A one-shot permission, for the next solve, to start with simplified Newton steps on
    /// the kept factorisation (see [`PathSolver::allow_kept_jacobian`]); `chord` is that
    /// permission within the solve.
    chord_next: bool,
    chord: bool,
    /// The problem's row scales when the kept factorisation was made (see
    /// [`McpProblem::row_scales`]); `kept_scaled` false: every row was unscaled.
    kept_scales: Vec<f64>,
    kept_scaled: bool,
    /// During simplified Newton steps on the kept factorisation: each row's scale now over its
    /// scale then, by which its residual is divided (`chord_scaled` false: all ones).
    chord_ratio: Vec<f64>,
    chord_scaled: bool,
    /// The largest dense problem the workspaces have been sized for (see `resize`).
    dense_reserved: usize,
}

/// Whether a solve driven step by step goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Progress {
    /// More major iterations to do.
    Running,
    /// The solve ended with this status.
    Done(Status),
}

/// The iteration state of the current attempt.
#[derive(Debug, Default, Clone, Copy)]
struct Iter {
    /// Index into `PLANS` (0: the first attempt, then restarts).
    plan: usize,
    /// `‖F_B(x)‖₂` at the current iterate.
    merit: f64,
    /// Merit at the checkpoint.
    best_merit: f64,
    /// Accepted steps since the checkpoint last improved.
    since_best: usize,
    /// Monotone path search (after a watchdog return).
    monotone: bool,
    /// Proximal perturbation ε.
    eps: f64,
    /// False when the iteration repeats at the same point with a larger ε.
    need_jacobian: bool,
    /// Major iterations done in this attempt, and the best merit at the start of the current
    /// stall window.
    iterations: usize,
    window_merit: f64,
}

/// Major iterations over which the best merit must fall by `STALL_DECREASE` (relative), or the
/// attempt is declared stalled and the solve restarts.
const STALL_WINDOW: usize = 25;
const STALL_DECREASE: f64 = 0.01;

/// Most simplified Newton steps a re-solve starts with, and the factor by which each must
/// divide the residual for the next to be taken (see `PathSolver::chord_step`).
const CHORD_STEPS: usize = 4;
const CHORD_CONTRACTION: f64 = 10.0;
/// The residual, relative to the tolerance, that simplified Newton steps must reach: that of
/// the Newton step they replace, which ends a re-solve at about 1e-4 of the tolerance
/// (quadratic convergence from a start within it). Along a continuum of impulses the
/// regularised problem fixes its solution only to the residual over the proximal weight, and
/// the next step's centre is this answer: an answer just inside the tolerance would move
/// the centre along the continuum.
const CHORD_ACCURACY: f64 = 1e-3;

/// The factor by which a full crash step must divide the merit for the crash to go on past
/// a settled active set (see `PathSolver::crash`).
const CRASH_CONVERGING: f64 = 10.0;

/// What a restart changes.
#[derive(Debug, Clone, Copy)]
struct Plan {
    from_best: bool,
    crash: bool,
    monotone: bool,
    proximal_floor: f64,
}

const PLANS: [Plan; 4] = [
    Plan {
        from_best: false,
        crash: true,
        monotone: false,
        proximal_floor: 0.0,
    },
    Plan {
        from_best: false,
        crash: false,
        monotone: false,
        proximal_floor: 1e-6,
    },
    Plan {
        from_best: true,
        crash: false,
        monotone: true,
        proximal_floor: 1e-4,
    },
    Plan {
        from_best: false,
        crash: false,
        monotone: true,
        proximal_floor: 1e-2,
    },
];

fn norm2(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for x in v {
        s += x * x;
    }
    s.sqrt()
}

/// The slack `w_i` that the normal-map point `x̂ = z − w` consistent with `z` carries at
/// index `i`: the part of `F_i` that points out of the box at a bound (all of it for a fixed
/// variable), none inside. `F_i − w_i` is then that index's share of the merit `Φ(z)`.
fn bound_slack(l: f64, u: f64, z: f64, f: f64) -> f64 {
    if l == u {
        f
    } else if z <= l {
        f.max(0.0)
    } else if z >= u {
        f.min(0.0)
    } else {
        0.0
    }
}

/// The bound a variable of box `[l, u]` is held at for `y` (a normal-map point, or `z − F`):
/// −1 the lower (and a fixed variable), 1 the upper, 0 free.
fn bound_side(l: f64, u: f64, y: f64) -> i8 {
    if l == u || y <= l {
        -1
    } else if y >= u {
        1
    } else {
        0
    }
}

/// Ends a solve: residual, time.
fn done(report: &mut SolveReport, status: Status, residual: f64, t0: Instant) -> SolveReport {
    report.status = status;
    report.residual = residual;
    report.wall_time = t0.elapsed();
    report.clone()
}

impl PathSolver {
    fn resize(&mut self, n: usize) {
        if n != self.n {
            self.kept = false;
        }
        self.n = n;
        for v in [
            &mut self.q,
            &mut self.d,
            &mut self.w0,
            &mut self.x,
            &mut self.z,
            &mut self.f,
            &mut self.r,
            &mut self.xt,
            &mut self.zt,
            &mut self.ft,
            &mut self.zs,
            &mut self.fs,
            &mut self.xb,
            &mut self.zb,
            &mut self.fb,
            &mut self.dir,
            &mut self.kept_scales,
            &mut self.chord_ratio,
        ] {
            v.resize(n, 0.0);
        }
        self.start.resize(n, Start::Basic);
        self.active.resize(n, 0);
        if self.sparse {
            // No n × n storage in sparse mode.
            self.jac = DMatrix::zeros(0, 0);
            self.m = DMatrix::zeros(0, 0);
        } else {
            if self.jac.nrows() != n {
                reshape_square(&mut self.jac, n);
                reshape_square(&mut self.m, n);
            }
            if n > self.dense_reserved {
                self.dense_reserved = n;
                self.lu.reserve(n);
                self.free.reserve(n.saturating_sub(self.free.len()));
                self.pivoter.reserve_dense(n);
            }
        }
    }

    /// Evaluates `F` at `z`; false if any value is not finite.
    fn eval_f<P: McpProblem + ?Sized>(
        problem: &mut P,
        z: &[f64],
        f: &mut [f64],
        report: &mut SolveReport,
    ) -> bool {
        report.function_evaluations += 1;
        problem.function(z, f);
        f.iter().all(|v| v.is_finite())
    }

    fn eval_j<P: McpProblem + ?Sized>(
        &mut self,
        problem: &mut P,
        report: &mut SolveReport,
    ) -> bool {
        report.jacobian_evaluations += 1;
        self.kept = false;
        let values = if self.sparse {
            problem.sparse_jacobian(&self.z, &mut self.sjac);
            if self.order_to_choose {
                self.choose_order();
            }
            self.sjac.values()
        } else {
            problem.jacobian(&self.z, &mut self.jac);
            self.jac.as_slice()
        };
        values.iter().fold(true, |ok, v| ok & v.is_finite())
    }

    /// Keeps the staged order of the pattern (see [`SparseJacobian::set_stages`]) or the
    /// unstaged one, whichever factorises the first Jacobian of the pattern in fewer
    /// multiply-adds (a new pattern within a tenth of the size of the last one measured keeps
    /// that choice unmeasured, see `begin`). The staged order pivots a saddle-point problem
    /// on its own rows; the unstaged one plans less fill but its plan does not survive the
    /// pivoting, and which costs less depends on the contact graph: in a pile of 100 spheres
    /// (about two contacts per body) the staged factors are cheaper, in the pyramid of 35
    /// (where a sphere rests on three and carries up to three, each twist joining them all)
    /// the unstaged ones.
    fn choose_order(&mut self) {
        self.order_to_choose = false;
        let n = self.sjac.n();
        let (jac, slu) = (&self.sjac, &mut self.slu);
        let mut cost = |order: &[usize]| {
            let column = |c: usize, rows: &mut Vec<usize>, vals: &mut Vec<f64>| {
                let (r, v) = jac.column(c);
                rows.extend_from_slice(r);
                vals.extend_from_slice(v);
            };
            // Each order is measured on a factorisation of its own.
            slu.forget();
            if slu.factor(n, order, column, |c| c) {
                slu.flops()
            } else {
                f64::INFINITY
            }
        };
        let staged = cost(&self.order);
        let unstaged = cost(&self.unstaged_order);
        self.chosen_at = n;
        self.chose_staged = unstaged >= staged;
        if !self.chose_staged {
            std::mem::swap(&mut self.order, &mut self.unstaged_order);
        }
        // The trials overwrote the crash's factorisation.
        self.kept = false;
    }

    /// Sets `x` from `z` (with `F(z)` known) to `x̂(z) = z − w(z)` (see [`bound_slack`]), so
    /// that `π(x) = z`, and `r = F_B(x)`, whose norm is the merit `Φ(z)`.
    fn normal_point_from_z(&mut self) {
        for i in 0..self.n {
            let w = bound_slack(self.lower[i], self.upper[i], self.z[i], self.f[i]);
            self.x[i] = self.z[i] - w;
            self.r[i] = self.f[i] - w;
        }
    }

    /// Lets the next solve start with simplified Newton steps on the Jacobian factorised last
    /// (the crash's, if the last solve ended in the crash), for a caller that solves again a
    /// problem whose Jacobian has hardly changed, from a point near the last: the stepper's
    /// re-solves of the proximal iteration, whose centre enters `F` only. Rows the problem
    /// has rescaled since the factorisation are allowed for, if it reports their scales
    /// ([`McpProblem::row_scales`]). The steps are kept
    /// only if they solve the problem (to a thousandth of the tolerance, as Newton would);
    /// otherwise they are undone and the solve goes on as if it had not been allowed them.
    pub fn allow_kept_jacobian(&mut self) {
        self.chord_next = true;
    }

    /// Withdraws [`allow_kept_jacobian`](Self::allow_kept_jacobian)'s permission.
    pub(crate) fn forbid_kept_jacobian(&mut self) {
        self.chord_next = false;
    }

    /// Solves `problem` from `z` to natural residual `tolerance`; the answer is left in `z`.
    pub fn solve<P: McpProblem + ?Sized>(
        &mut self,
        problem: &mut P,
        z: &mut [f64],
        tolerance: f64,
        settings: &PathSettings,
    ) -> SolveReport {
        self.solve_since(problem, z, tolerance, settings, Instant::now(), true)
    }

    /// [`Self::solve`] timed from `t0`, for a caller that started the clock (and, with
    /// `check` false, has checked the input itself): the step loop reads the clock twice per
    /// solve instead of four times.
    pub(crate) fn solve_since<P: McpProblem + ?Sized>(
        &mut self,
        problem: &mut P,
        z: &mut [f64],
        tolerance: f64,
        settings: &PathSettings,
        t0: Instant,
        check: bool,
    ) -> SolveReport {
        let mut report = SolveReport::new(SolverKind::PathSearch);
        let mut progress = self.begin(problem, z, tolerance, settings, &mut report, check);
        let status = loop {
            match progress {
                Progress::Done(status) => break status,
                Progress::Running => {
                    progress = self.step(problem, tolerance, settings, &mut report);
                }
            }
        };
        let residual = self.finish(z);
        done(&mut report, status, residual, t0)
    }

    /// Checks the input (if `check`) and starts the first attempt from `z`.
    pub(crate) fn begin<P: McpProblem + ?Sized>(
        &mut self,
        problem: &mut P,
        z: &[f64],
        tol: f64,
        settings: &PathSettings,
        report: &mut SolveReport,
        check: bool,
    ) -> Progress {
        self.out.clear();
        self.out.extend_from_slice(z);
        self.out_residual = f64::NAN;
        self.chord = std::mem::take(&mut self.chord_next);
        if check && let Some(status) = check_input(problem, z) {
            return Progress::Done(status);
        }
        let n = problem.dim();
        let was_sparse = self.sparse;
        self.sparse = n >= settings.sparse_threshold
            && problem.sparse_pattern(&mut self.sjac)
            && self.sjac.n() == n;
        let new_pattern = self.sparse && !self.sjac.same_pattern(&self.ordered);
        if self.sparse != was_sparse || new_pattern {
            self.kept = false;
        }
        if new_pattern {
            // A scene's contacts come and go a few at a time, and which order factorises
            // cheaper changes with the shape of its contact graph, not with each contact: the
            // two are measured again once the size has moved by a tenth.
            let staged = self.sjac.has_stages();
            let near = self.chosen_at.abs_diff(n) * 10 <= self.chosen_at;
            self.order_to_choose = staged && !near;
            self.order = minimum_degree(&self.sjac, staged && (!near || self.chose_staged));
            if self.order_to_choose {
                self.unstaged_order = minimum_degree(&self.sjac, false);
            }
            self.ordered.copy_from(&self.sjac);
        }
        self.resize(n);
        self.memory.clear();
        self.memory.reserve(settings.nms_memory + 1);
        self.lower.clear();
        self.lower.extend_from_slice(problem.lower_bounds());
        self.upper.clear();
        self.upper.extend_from_slice(problem.upper_bounds());
        self.z_start.clear();
        self.z_start.extend_from_slice(z);
        project(&mut self.z_start, &self.lower, &self.upper);
        self.out.copy_from_slice(&self.z_start);
        self.out_residual = f64::INFINITY;
        self.it = Iter::default();
        self.start_attempt(problem, tol, settings, report)
    }

    /// One major iteration; an attempt that ends is followed by the next restart.
    pub(crate) fn step<P: McpProblem + ?Sized>(
        &mut self,
        problem: &mut P,
        tol: f64,
        settings: &PathSettings,
        report: &mut SolveReport,
    ) -> Progress {
        let pivot_budget = settings
            .cumulative_pivot_limit
            .max(settings.pivot_budget_per_variable.saturating_mul(self.n));
        if report.major_iterations >= settings.major_iteration_limit
            || report.pivots >= pivot_budget
        {
            self.keep_if_better();
            return Progress::Done(Status::IterationLimit);
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.keep_if_better();
            return Progress::Done(Status::TimeLimit);
        }
        match self.major_iteration(problem, tol, settings, report) {
            None => Progress::Running,
            Some(status) => self.end_attempt(problem, tol, settings, report, status),
        }
    }

    /// Copies the answer (the converged point, or the best point found) into `z` and returns
    /// its natural residual.
    pub(crate) fn finish(&self, z: &mut [f64]) -> f64 {
        if self.out.len() == z.len() {
            z.copy_from_slice(&self.out);
        }
        self.out_residual
    }

    /// The merit `‖F_B(x)‖₂` at the current iterate.
    pub(crate) fn merit(&self) -> f64 {
        self.it.merit
    }

    /// The current iterate `z = π(x)`.
    pub(crate) fn current(&self) -> &[f64] {
        &self.z
    }

    /// Records the current point as the answer if its residual is the best so far.
    fn keep_if_better(&mut self) {
        let res = natural_residual(&self.z, &self.f, &self.lower, &self.upper);
        if res < self.out_residual || self.out_residual.is_nan() {
            self.out_residual = res;
            self.out.copy_from_slice(&self.z);
        }
    }

    /// Ends an attempt: converged, or restart if restarts and iterations remain.
    fn end_attempt<P: McpProblem + ?Sized>(
        &mut self,
        problem: &mut P,
        tol: f64,
        settings: &PathSettings,
        report: &mut SolveReport,
        status: Status,
    ) -> Progress {
        self.keep_if_better();
        if status == Status::Converged {
            return Progress::Done(status);
        }
        let plans = settings.restart_limit.min(PLANS.len() - 1) + 1;
        if self.it.plan + 1 < plans && report.major_iterations < settings.major_iteration_limit {
            self.it.plan += 1;
            report.restarts += 1;
            return self.start_attempt(problem, tol, settings, report);
        }
        Progress::Done(status)
    }

    /// Starts the attempt of plan `self.it.plan`: from the caller's point, or from the best
    /// point so far, with crash if the plan says so.
    fn start_attempt<P: McpProblem + ?Sized>(
        &mut self,
        problem: &mut P,
        tol: f64,
        settings: &PathSettings,
        report: &mut SolveReport,
    ) -> Progress {
        let plan = PLANS[self.it.plan];
        if plan.from_best {
            self.z.copy_from_slice(&self.out);
        } else {
            self.z.copy_from_slice(&self.z_start);
        }
        if !Self::eval_f(problem, &self.z, &mut self.f, report) {
            if self.it.plan == 0 {
                self.out_residual = f64::NAN;
                return Progress::Done(Status::NonFiniteFunction);
            }
            return self.end_attempt(problem, tol, settings, report, Status::NonFiniteFunction);
        }
        if natural_residual(&self.z, &self.f, &self.lower, &self.upper) <= tol {
            return self.end_attempt(problem, tol, settings, report, Status::Converged);
        }
        if plan.crash
            && settings.crash_iteration_limit > 0
            && let Some(s) = self.crash(problem, tol, settings, report)
        {
            return self.end_attempt(problem, tol, settings, report, s);
        }
        self.normal_point_from_z();
        let merit = norm2(&self.r);
        self.xb.copy_from_slice(&self.x);
        self.zb.copy_from_slice(&self.z);
        self.fb.copy_from_slice(&self.f);
        self.memory.clear();
        self.memory.push(merit);
        self.it = Iter {
            plan: self.it.plan,
            merit,
            best_merit: merit,
            since_best: 0,
            monotone: plan.monotone,
            eps: plan.proximal_floor,
            need_jacobian: true,
            iterations: 0,
            window_merit: merit,
        };
        Progress::Running
    }

    /// One major iteration of the current attempt: linearise, trace the path, search along it.
    /// `Some(status)` ends the attempt (the checkpoint is then the current point).
    fn major_iteration<P: McpProblem + ?Sized>(
        &mut self,
        problem: &mut P,
        tol: f64,
        settings: &PathSettings,
        report: &mut SolveReport,
    ) -> Option<Status> {
        let n = self.n;
        self.it.iterations += 1;
        if self.it.iterations.is_multiple_of(STALL_WINDOW) {
            if self.it.best_merit > (1.0 - STALL_DECREASE) * self.it.window_merit {
                self.restore_checkpoint();
                return Some(Status::Stalled);
            }
            self.it.window_merit = self.it.best_merit;
        }
        report.major_iterations += 1;
        if self.it.need_jacobian && !self.eval_j(problem, report) {
            return Some(Status::NonFiniteFunction);
        }
        self.it.need_jacobian = true;
        // Linearise with proximal perturbation ε and trace the Newton path.
        let (t_end, truncated) = loop {
            // M = J + εI (J itself when ε = 0, saving the copy).
            let proximal = self.it.eps != 0.0;
            let m = if self.sparse {
                if proximal {
                    self.sm.copy_from(&self.sjac);
                    for i in 0..n {
                        let p = self.sm.diagonal_position(i);
                        self.sm.values_mut()[p] += self.it.eps;
                    }
                }
                let m = if proximal { &self.sm } else { &self.sjac };
                // q = F(z) − M z.
                self.q.copy_from_slice(&self.f);
                m.mul_add(-1.0, &self.z, &mut self.q);
                MatRef::Sparse(m, &self.order)
            } else {
                if proximal {
                    self.m.as_mut_slice().copy_from_slice(self.jac.as_slice());
                    for i in 0..n {
                        self.m[(i, i)] += self.it.eps;
                    }
                }
                let m = if proximal { &self.m } else { &self.jac };
                // q = F(z) − M z, column by column.
                self.q.copy_from_slice(&self.f);
                for (j, col) in m.as_slice().chunks_exact(n).enumerate() {
                    let zj = self.z[j];
                    for (qi, &mij) in self.q.iter_mut().zip(col) {
                        *qi -= mij * zj;
                    }
                }
                MatRef::Dense(m)
            };
            for i in 0..n {
                self.d[i] = -self.r[i];
                let (l, u, xi) = (self.lower[i], self.upper[i], self.x[i]);
                self.w0[i] = self.z[i] - xi;
                self.start[i] = if l == u || xi < l {
                    Start::AtLower
                } else if xi > u {
                    Start::AtUpper
                } else {
                    Start::Basic
                };
            }
            let affine = Affine {
                m,
                q: &self.q,
                lower: &self.lower,
                upper: &self.upper,
                d: &self.d,
            };
            let outcome = self.pivoter.trace(
                &affine,
                1.0,
                &self.z,
                &self.w0,
                &self.start,
                true,
                TraceLimits {
                    pivots: settings.pivot_limit,
                    behind_start: settings.pivots_behind_start,
                },
            );
            report.pivots += self.pivoter.pivots;
            let t_end = 1.0 - self.pivoter.s;
            let usable = match outcome {
                Outcome::Solved => true,
                Outcome::Ray => t_end > settings.min_step,
                // A trace that came back to a basis it had left is a closed path of a
                // (near-)singular linearisation (see `Pivoter::trace`): its prefix is mostly
                // a tiny step, and the attempt then creeps with ε falling back into the
                // singularity at every accepted step. A stronger proximal term is tried instead.
                Outcome::PivotLimit => t_end > settings.min_step && !self.pivoter.cycled,
                Outcome::BehindStart => t_end > settings.min_step,
                Outcome::Singular => false,
            };
            if usable {
                break (t_end, outcome != Outcome::Solved);
            }
            let next = self.stronger_proximal(settings);
            if next > settings.proximal_max {
                return Some(if outcome == Outcome::Ray {
                    Status::RayTermination
                } else {
                    Status::Singular
                });
            }
            self.it.eps = next;
        };

        // Path search.
        let reference = if self.it.monotone {
            self.it.merit
        } else {
            self.memory.iter().fold(0.0f64, |m, &v| m.max(v))
        };
        let mut tau = t_end;
        let mut accepted = None;
        let mut first = true;
        while tau >= settings.min_step {
            if first {
                let k = self.pivoter.path_s.len() - 1;
                self.xt
                    .copy_from_slice(&self.pivoter.path_x[k * n..(k + 1) * n]);
                first = false;
            } else {
                self.path_point(tau);
            }
            self.zt.copy_from_slice(&self.xt);
            project(&mut self.zt, &self.lower, &self.upper);
            let trial = if Self::eval_f(problem, &self.zt, &mut self.ft, report) {
                self.trial_merit()
            } else {
                f64::INFINITY
            };
            if trial <= (1.0 - settings.sufficient_decrease * tau) * reference {
                accepted = Some(trial);
                break;
            }
            if tau == t_end
                && !truncated
                && settings.second_order_correction
                && let Some(corrected) = self.second_order_correction(problem, settings, report)
            {
                accepted = Some(corrected);
                break;
            }
            tau *= settings.backtrack;
        }

        match accepted {
            Some(trial) => {
                std::mem::swap(&mut self.x, &mut self.xt);
                std::mem::swap(&mut self.z, &mut self.zt);
                std::mem::swap(&mut self.f, &mut self.ft);
                self.normal_point_from_z();
                self.it.merit = trial;
                if natural_residual(&self.z, &self.f, &self.lower, &self.upper) <= tol {
                    return Some(Status::Converged);
                }
                if self.memory.len() >= settings.nms_memory {
                    self.memory.remove(0);
                }
                self.memory.push(self.it.merit);
                self.it.eps = self.proximal_after_step(tau, t_end, truncated, settings);
                if self.it.merit < self.it.best_merit {
                    self.it.best_merit = self.it.merit;
                    self.it.since_best = 0;
                    self.it.monotone = PLANS[self.it.plan].monotone;
                    self.xb.copy_from_slice(&self.x);
                    self.zb.copy_from_slice(&self.z);
                    self.fb.copy_from_slice(&self.f);
                } else {
                    self.it.since_best += 1;
                    if self.it.since_best > settings.watchdog_steps {
                        self.watchdog_return();
                    }
                }
            }
            None => {
                let at_checkpoint = self.it.merit <= self.it.best_merit;
                if !at_checkpoint {
                    self.watchdog_return();
                } else {
                    // Same point: a stronger proximal term changes the path.
                    let next = self.stronger_proximal(settings);
                    if next > settings.proximal_max {
                        self.restore_checkpoint();
                        return Some(Status::Stalled);
                    }
                    self.it.eps = next;
                    self.it.monotone = true;
                    self.it.need_jacobian = false;
                }
            }
        }
        None
    }

    /// A second-order correction of the Newton point `zt` (`ft = F(zt)`) that the path search
    /// refused: one more Newton step from there on this iteration's Jacobian, damped by
    /// `correction_damping`, on the active set of the path's end; taken if it passes the
    /// whole step's sufficient-decrease test against the current merit, not the non-monotone
    /// reference: the corrected point lies off the path, and taken against the reference the
    /// corrections led high-friction heaps into other valleys of their rows (soak seeds
    /// 540..1500: worst steps summed 76 883 against 74 393 without the correction, 72 700 so).
    /// `Some(merit)` leaves the corrected point in `zt`, `ft`.
    ///
    /// This is the Maratos effect of constrained optimisation. Along a continuum of impulses
    /// the Jacobian is near-singular, so a residual of 1e-9 asks for a Newton step of 1e-3 to
    /// 1e-2 N·s along it. That step can take a sticking contact's friction to its cone's
    /// boundary, where the cone row's curvature `−‖Δp‖²` is off by far more than the merit it
    /// was to lower. The search then crept at an eighth of the path (the pyramid of 35's cold
    /// step: 11 to 186 Newton iterations in each proximal re-solve). The correction puts the
    /// friction back on the cone to second order. Undamped, it would travel the near-null
    /// directions as far again, since the curvature's residual has a part along them (a
    /// merit of 6e-2 from 1e-8).
    fn second_order_correction<P: McpProblem + ?Sized>(
        &mut self,
        problem: &mut P,
        settings: &PathSettings,
        report: &mut SolveReport,
    ) -> Option<f64> {
        let n = self.n;
        for i in 0..n {
            self.active[i] = bound_side(self.lower[i], self.upper[i], self.xt[i]);
        }
        // The crash's Newton step works at `z`, `f`: the trial goes there for it, the
        // iterate aside.
        self.zs.copy_from_slice(&self.z);
        self.fs.copy_from_slice(&self.f);
        self.z.copy_from_slice(&self.zt);
        self.f.copy_from_slice(&self.ft);
        self.free_set_and_bound_moves();
        // A damped factorisation is not `J_FF`: no simplified Newton step may use it.
        let factored = self.factor_free_inner(settings.correction_damping);
        self.kept = false;
        if factored {
            self.newton_direction();
            for i in 0..n {
                self.zt[i] = self.z[i] + self.dir[i];
            }
            project(&mut self.zt, &self.lower, &self.upper);
        }
        std::mem::swap(&mut self.z, &mut self.zs);
        std::mem::swap(&mut self.f, &mut self.fs);
        if !factored || !Self::eval_f(problem, &self.zt, &mut self.ft, report) {
            return None;
        }
        let merit = self.trial_merit();
        (merit <= (1.0 - settings.sufficient_decrease) * self.it.merit).then_some(merit)
    }

    /// The merit `Φ(zt)` of the trial point (`ft = F(zt)`).
    fn trial_merit(&self) -> f64 {
        let mut s = 0.0;
        for i in 0..self.n {
            let ri = self.ft[i] - bound_slack(self.lower[i], self.upper[i], self.zt[i], self.ft[i]);
            s += ri * ri;
        }
        s.sqrt()
    }

    /// The proximal term after an accepted step of length `tau` along a path that ended at
    /// `t_end` (`truncated`: cut short at the pivot limit or on a ray, before the Newton point).
    ///
    /// The term is a trust region: it grows after a step shorter than a sixteenth of the path,
    /// stays after a longer one that still fell short of the path's end, and falls after the
    /// whole path was taken. Near a degenerate solution (resting contacts touching at zero gap
    /// and load, where `l₁`, `p_n` and `σ` sit at their bounds with their rows at zero, and the
    /// impulses' continuum) the Newton point lies far along near-null directions, where the
    /// linearisation no longer holds, and the search crept along tiny fractions of the path for
    /// hundreds of iterations (`tests/budgets.rs`, the pyramid of 20). A partial step that
    /// lowered the term as a whole one does made it alternate between a level too weak and one
    /// barely strong enough, every step a short one (`tests/soak.rs`, soak seed 57). A path cut
    /// short and taken to its cut is not the whole path either: the Newton point was not
    /// reached, and a term lowered there sent the next trace to the pivot limit again. Short
    /// is measured against the Newton step, not against where a trace was cut: a trace stopped
    /// by the pivot limit a few ten-thousandths along its path and taken to its cut is a short
    /// step, and kept the term (the pile of 100 spheres, step 62: ten traces in a row of 1000
    /// pivots each at the same term and merit).
    fn proximal_after_step(
        &self,
        tau: f64,
        t_end: f64,
        truncated: bool,
        settings: &PathSettings,
    ) -> f64 {
        let floor = PLANS[self.it.plan].proximal_floor;
        // The Newton point is at 1 on the path (a trace that was not cut ends there).
        let newton = if truncated { 1.0 } else { t_end };
        if tau < newton / 16.0 {
            self.stronger_proximal(settings).min(settings.proximal_max)
        } else if tau >= t_end && !truncated {
            let eps = (self.it.eps * 0.1).max(floor);
            if eps < 1e-14 { floor } else { eps }
        } else {
            self.it.eps
        }
    }

    /// The next, stronger proximal term: tenfold the current one, at least `proximal_initial`
    /// times the merit (capped at 1) and 1e-10; the caller compares it with `proximal_max`.
    fn stronger_proximal(&self, settings: &PathSettings) -> f64 {
        (settings.proximal_initial * self.it.merit.min(1.0))
            .max(self.it.eps * 10.0)
            .max(1e-10)
    }

    /// The watchdog's return: back to the checkpoint (the best point), and monotone path
    /// searches from there until it is improved on.
    fn watchdog_return(&mut self) {
        self.restore_checkpoint();
        self.it.merit = self.it.best_merit;
        self.it.since_best = 0;
        self.it.monotone = true;
        self.memory.clear();
        self.memory.push(self.it.merit);
    }

    /// Restores the checkpoint into the current iterate.
    fn restore_checkpoint(&mut self) {
        self.x.copy_from_slice(&self.xb);
        self.z.copy_from_slice(&self.zb);
        self.f.copy_from_slice(&self.fb);
        for i in 0..self.n {
            self.r[i] = self.f[i] + self.x[i] - self.z[i];
        }
    }

    /// Writes into `xt` the first point of the recorded path whose parameter `t = 1 − s`
    /// equals `tau` (the path starts at `t = 0`, so such a point exists for `tau ≤ max t`).
    fn path_point(&mut self, tau: f64) {
        let n = self.n;
        let s = &self.pivoter.path_s;
        let xs = &self.pivoter.path_x;
        let mut k = 0;
        while k + 1 < s.len() {
            let (t0, t1) = (1.0 - s[k], 1.0 - s[k + 1]);
            if t1 >= tau && t0 <= tau {
                let lam = if t1 > t0 { (tau - t0) / (t1 - t0) } else { 1.0 };
                for i in 0..n {
                    let a = xs[k * n + i];
                    let b = xs[(k + 1) * n + i];
                    self.xt[i] = a + lam * (b - a);
                }
                return;
            }
            k += 1;
        }
        // tau beyond every breakpoint (cannot happen for tau ≤ t_end): take the last point.
        let k = s.len() - 1;
        self.xt.copy_from_slice(&xs[k * n..(k + 1) * n]);
    }

    /// Projected-Newton crash: guesses the active set from `z − F(z)`, fixes those variables at
    /// their bounds and takes a damped Newton step in the rest, until the guess changes by at
    /// most `crash_nbchange_limit` variables. `Some(status)` ends the solve.
    fn crash<P: McpProblem + ?Sized>(
        &mut self,
        problem: &mut P,
        tol: f64,
        settings: &PathSettings,
        report: &mut SolveReport,
    ) -> Option<Status> {
        let mut merit = self.natural_norm2(false);
        if std::mem::take(&mut self.chord)
            && let Some(status) = self.chord_step(problem, tol, settings, &mut merit, report)
        {
            return Some(status);
        }
        // Whether the last iteration was a full step that divided the merit by
        // `CRASH_CONVERGING` at least: Newton converging on a settled active set.
        let mut converging = false;
        for it in 0..settings.crash_iteration_limit {
            if report.major_iterations >= settings.major_iteration_limit {
                return None;
            }
            let changes = self.guess_active();
            // The path search takes over once the active set has settled, unless Newton is
            // visibly converging on it: its next step is then the path's Newton point, and a
            // solve that ends here keeps its factorisation for the re-solves that follow.
            if it > 0 && changes <= settings.crash_nbchange_limit && !(converging && changes == 0) {
                return None;
            }
            report.major_iterations += 1;
            report.crash_iterations += 1;
            if !self.eval_j(problem, report) {
                return Some(Status::NonFiniteFunction);
            }
            self.free_set_and_bound_moves();
            if !self.factor_free() {
                return None;
            }
            self.kept_scaled = problem.row_scales(&mut self.kept_scales);
            self.newton_direction();
            // Damped projected step on the natural residual.
            let mut alpha = 1.0;
            let mut accepted = false;
            let before = merit;
            while alpha >= 1.0 / 64.0 {
                if self.try_crash_step(problem, alpha, settings, &mut merit, report) {
                    accepted = true;
                    break;
                }
                alpha *= 0.5;
            }
            if !accepted {
                return None;
            }
            converging = alpha == 1.0 && merit * CRASH_CONVERGING <= before;
            if natural_residual(&self.z, &self.f, &self.lower, &self.upper) <= tol {
                return Some(Status::Converged);
            }
        }
        None
    }

    /// The simplified Newton steps a re-solve may start with: the crash's steps on the active
    /// set and the factorisation kept from the last solve (the caller vouches that the
    /// problem's Jacobian has hardly changed since, see [`PathSolver::allow_kept_jacobian`]).
    /// The active set is not guessed again: at a degenerate point of the last solution (a
    /// variable at its bound with `F` ≈ 0) the guess flips on the small change of `F` that
    /// made the re-solve, and the factorisation would be lost for nothing. `Some(Converged)`
    /// if the steps solve the problem; otherwise they are undone.
    fn chord_step<P: McpProblem + ?Sized>(
        &mut self,
        problem: &mut P,
        tol: f64,
        settings: &PathSettings,
        merit: &mut f64,
        report: &mut SolveReport,
    ) -> Option<Status> {
        if !self.kept {
            return None;
        }
        // A row the problem has rescaled since the factorisation is the kept Jacobian's row
        // times the change: its residual, divided by the change, gives the same Newton step.
        let scaled_now = problem.row_scales(&mut self.chord_ratio);
        self.chord_scaled = scaled_now || self.kept_scaled;
        if self.chord_scaled {
            for i in 0..self.n {
                let now = if scaled_now { self.chord_ratio[i] } else { 1.0 };
                let then = if self.kept_scaled {
                    self.kept_scales[i]
                } else {
                    1.0
                };
                self.chord_ratio[i] = now / then;
            }
        }
        // Steps go on while each divides the residual by `CHORD_CONTRACTION` at least, until
        // the answer is as accurate as Newton's would be (`CHORD_ACCURACY`). The start is kept
        // in the checkpoint's buffers (the attempt sets them after the crash): steps that do
        // not get there are undone, and the solve goes on as if it had not been allowed them.
        self.zb.copy_from_slice(&self.z);
        self.fb.copy_from_slice(&self.f);
        let start_merit = *merit;
        for _ in 0..CHORD_STEPS {
            if report.major_iterations >= settings.major_iteration_limit {
                break;
            }
            report.simplified_steps += 1;
            self.free_set_and_bound_moves();
            self.newton_direction();
            let before = *merit;
            // The full step only: a damped one is not worth its evaluations here.
            if !self.try_crash_step(problem, 1.0, settings, merit, report) {
                break;
            }
            if natural_residual(&self.z, &self.f, &self.lower, &self.upper) <= tol * CHORD_ACCURACY
            {
                self.chord_scaled = false;
                return Some(Status::Converged);
            }
            if *merit * CHORD_CONTRACTION > before {
                break;
            }
        }
        self.chord_scaled = false;
        self.z.copy_from_slice(&self.zb);
        self.f.copy_from_slice(&self.fb);
        *merit = start_merit;
        None
    }

    /// The crash's active-set guess from `z − F`: −1 at the lower bound, 1 at the upper, 0
    /// free; returns how many variables changed their guess.
    fn guess_active(&mut self) -> usize {
        let mut changes = 0;
        for i in 0..self.n {
            let (l, u) = (self.lower[i], self.upper[i]);
            let a = bound_side(l, u, self.z[i] - self.f[i]);
            if a != self.active[i] {
                changes += 1;
            }
            self.active[i] = a;
        }
        changes
    }

    /// The free set of the active-set guess into `free`, and into `dir` the moves of the
    /// active variables to their bounds.
    fn free_set_and_bound_moves(&mut self) {
        self.free.clear();
        for i in 0..self.n {
            if self.active[i] == 0 {
                self.free.push(i);
                self.dir[i] = 0.0;
            } else {
                let b = if self.active[i] < 0 {
                    self.lower[i]
                } else {
                    self.upper[i]
                };
                self.dir[i] = b - self.z[i];
            }
        }
    }

    /// The crash's Newton direction in `dir` (its active part already there), on the
    /// factorisation of `J_FF`.
    fn newton_direction(&mut self) {
        let (n, nf) = (self.n, self.free.len());
        // rhs = −F − J_{:,A} d_A over all rows (column by column); the free rows are gathered
        // into `ft` (scratch) and solved in place.
        if self.chord_scaled {
            for i in 0..n {
                self.zt[i] = -self.f[i] / self.chord_ratio[i];
            }
        } else {
            for i in 0..n {
                self.zt[i] = -self.f[i];
            }
        }
        for j in 0..n {
            if self.active[j] != 0 {
                let dj = self.dir[j];
                if self.sparse {
                    let (rows, vals) = self.sjac.column(j);
                    for (&i, &jij) in rows.iter().zip(vals) {
                        self.zt[i] -= jij * dj;
                    }
                } else {
                    for (v, &jij) in self
                        .zt
                        .iter_mut()
                        .zip(&self.jac.as_slice()[j * n..(j + 1) * n])
                    {
                        *v -= jij * dj;
                    }
                }
            }
        }
        for (r, &i) in self.free.iter().enumerate() {
            self.ft[r] = self.zt[i];
        }
        if self.sparse {
            self.slu.solve(&mut self.ft[..nf]);
        } else {
            self.lu.solve(&mut self.ft[..nf]);
        }
        for (r, &i) in self.free.iter().enumerate() {
            self.dir[i] = self.ft[r];
        }
    }

    /// Tries the projected crash step of length `alpha` along `dir`: taken (true) when the
    /// natural residual's norm falls by the sufficient decrease.
    fn try_crash_step<P: McpProblem + ?Sized>(
        &mut self,
        problem: &mut P,
        alpha: f64,
        settings: &PathSettings,
        merit: &mut f64,
        report: &mut SolveReport,
    ) -> bool {
        for i in 0..self.n {
            self.zt[i] = self.z[i] + alpha * self.dir[i];
        }
        project(&mut self.zt, &self.lower, &self.upper);
        if Self::eval_f(problem, &self.zt, &mut self.ft, report) {
            let trial = self.natural_norm2(true);
            if trial <= (1.0 - settings.sufficient_decrease * alpha) * *merit {
                std::mem::swap(&mut self.z, &mut self.zt);
                std::mem::swap(&mut self.f, &mut self.ft);
                *merit = trial;
                return true;
            }
        }
        false
    }

    /// Factorises `J_FF`, the Jacobian restricted to the free variables of the crash; false
    /// if singular.
    fn factor_free(&mut self) -> bool {
        self.kept = self.factor_free_inner(0.0);
        self.kept
    }

    /// Factorises `J_FF + damping I`; false if singular.
    fn factor_free_inner(&mut self, damping: f64) -> bool {
        let nf = self.free.len();
        if !self.sparse {
            let buf = self.lu.buffer(nf);
            for (c, &j) in self.free.iter().enumerate() {
                let col = self.jac.column(j);
                let col = col.as_slice();
                for (b, &i) in buf[c * nf..(c + 1) * nf].iter_mut().zip(&self.free) {
                    *b = col[i];
                }
                buf[c * nf + c] += damping;
            }
            return self.lu.factor();
        }
        // The global minimum-degree order restricted to the free set, in local indices.
        self.local.clear();
        self.local.resize(self.n, usize::MAX);
        for (c, &j) in self.free.iter().enumerate() {
            self.local[j] = c;
        }
        self.sub_order.clear();
        for &j in &self.order {
            if self.local[j] != usize::MAX {
                self.sub_order.push(self.local[j]);
            }
        }
        let (jac, free, local) = (&self.sjac, &self.free, &self.local);
        self.slu.factor(
            nf,
            &self.sub_order,
            |c, rows, vals| {
                let (r, v) = jac.column(free[c]);
                for (&i, &x) in r.iter().zip(v) {
                    if local[i] != usize::MAX {
                        rows.push(local[i]);
                        // The pattern holds every diagonal entry.
                        vals.push(if local[i] == c { x + damping } else { x });
                    }
                }
            },
            |c| c,
        )
    }

    /// Euclidean norm of the natural residual at (z, f) or, with `trial`, at (zt, ft).
    fn natural_norm2(&self, trial: bool) -> f64 {
        let (z, f) = if trial {
            (&self.zt, &self.ft)
        } else {
            (&self.z, &self.f)
        };
        let mut s = 0.0;
        for i in 0..self.n {
            let p = (z[i] - f[i]).max(self.lower[i]).min(self.upper[i]);
            s += (z[i] - p) * (z[i] - p);
        }
        s.sqrt()
    }
}

/// Makes `m` an `n × n` zero matrix in its own storage (no allocation when a problem as large
/// came before: contacts that come and go change `n` from step to step).
fn reshape_square(m: &mut DMatrix<f64>, n: usize) {
    let mut data: Vec<f64> = std::mem::replace(m, DMatrix::zeros(0, 0)).data.into();
    data.clear();
    data.resize(n * n, 0.0);
    *m = DMatrix::from_vec(n, n, data);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::problem::DenseJacobian;
    use crate::mcp::test_problems::{Josephy, KojimaShindo};
    use crate::mcp::{ClosureMcp, LinearMcp};

    #[test]
    fn kojima_shindo_and_josephy_from_zero_and_ones() {
        let mut p = KojimaShindo::new();
        // The Jacobian is exact: central differences agree to rounding (~1e-9 here).
        assert!(crate::mcp::jacobian_check(&mut p, &[0.3, 0.7, 1.1, 0.2], 1e-6) < 1e-7);
        for start in [[0.0; 4], [1.0; 4]] {
            let mut z = start;
            let r = PathSolver::default().solve(&mut p, &mut z, 1e-10, &PathSettings::default());
            assert!(r.converged(), "start {start:?}: {r}");
            assert!(r.residual <= 1e-10);
            let mut z = start;
            let r = PathSolver::default().solve(
                &mut Josephy::new(),
                &mut z,
                1e-10,
                &PathSettings::default(),
            );
            assert!(r.converged(), "Josephy, start {start:?}: {r}");
        }
    }

    /// The proximal term as a trust region (`proximal_after_step`): a tenth after the whole
    /// path, kept after a partial step and after a path cut short and taken to its cut, grown
    /// after a step shorter than a sixteenth of the Newton step, cut short or not.
    #[test]
    fn the_proximal_term_falls_only_after_the_whole_newton_path() {
        let settings = PathSettings::default();
        let mut solver = PathSolver::default();
        solver.it.eps = 1e-3;
        solver.it.merit = 1e-2;
        let after =
            |tau, t_end, truncated| solver.proximal_after_step(tau, t_end, truncated, &settings);
        assert_eq!(after(1.0, 1.0, false), 1e-3 * 0.1, "whole path");
        assert_eq!(after(0.3, 0.3, true), 1e-3, "cut short, taken to its cut");
        assert_eq!(after(0.5, 1.0, false), 1e-3, "partial step");
        assert_eq!(
            after(0.25, 0.3, true),
            1e-3,
            "partial step of a path cut short"
        );
        // Tenfold, at least `proximal_initial` times the merit (1e-4 here).
        assert_eq!(after(0.01, 1.0, false), 1e-2, "short step");
        assert_eq!(
            after(0.01, 0.3, true),
            1e-2,
            "short step of a path cut short"
        );
        assert_eq!(
            after(2e-4, 2e-4, true),
            1e-2,
            "a path cut short before a sixteenth of the Newton step, taken to its cut"
        );
    }

    /// The merit leaves out a row whose variable rests at its bound with room to spare,
    /// however nonlinear the row: `x − 1 = 0` (`x` free) beside `1 + 100 x² ≥ 0 ⊥ y ≥ 0`.
    /// From `(0, 0)`, without the crash, the Newton point `(1, 0)` is the solution, but the
    /// linearisation puts the second row at 1 where it is 101. Measured on the normal map at
    /// the path's point, `‖F(z) + x − z‖`, the row counted that error (100): the search
    /// backtracked along the path and took 45 major iterations.
    #[test]
    fn a_row_resting_at_its_bound_does_not_hold_the_search_back() {
        assert_eq!(bound_slack(0.0, f64::INFINITY, 0.0, 101.0), 101.0);
        assert_eq!(bound_slack(0.0, f64::INFINITY, 0.0, -2.0), 0.0);
        assert_eq!(bound_slack(0.0, 1.0, 1.0, -2.0), -2.0);
        assert_eq!(bound_slack(0.0, 1.0, 0.5, 3.0), 0.0);
        assert_eq!(bound_slack(2.0, 2.0, 2.0, 3.0), 3.0);
        let mut p = ClosureMcp::new(
            vec![f64::NEG_INFINITY, 0.0],
            vec![f64::INFINITY; 2],
            |z: &[f64], f: &mut [f64]| {
                f[0] = z[0] - 1.0;
                f[1] = 1.0 + 100.0 * z[0] * z[0];
            },
            |z: &[f64], j: &mut DenseJacobian| {
                j.fill(0.0);
                j[(0, 0)] = 1.0;
                j[(1, 0)] = 200.0 * z[0];
            },
        )
        .unwrap();
        let settings = PathSettings {
            crash_iteration_limit: 0,
            ..PathSettings::default()
        };
        let mut z = [0.0; 2];
        let r = PathSolver::default().solve(&mut p, &mut z, 1e-12, &settings);
        assert!(r.converged(), "{r}");
        assert_eq!(r.major_iterations, 1, "{r}");
        assert_eq!(z, [1.0, 0.0]);
    }

    /// The Maratos effect on a continuum: `x² + y² − 1 = 0` beside `ε (y − c) = 0`, a row
    /// whose weight `ε = 1e-3` makes `y` a near-null direction (as a proximal weight makes a
    /// continuum of impulses). From `(1, 0)` the Newton point `(1, c)` is off the circle by
    /// `c² = 1e-2`, a hundred times the merit `ε c` it was to lower, and every shorter step
    /// along the path is off by its square: without the correction the search creeps.
    /// Corrected, the point is `(1 − c²/2, c)`, off by `c⁴/4`, and taken: 3 major iterations
    /// against 45.
    #[test]
    fn a_refused_newton_point_is_corrected_to_second_order() {
        let (eps, c) = (1e-3, 0.1);
        let mut p = ClosureMcp::new(
            vec![f64::NEG_INFINITY; 2],
            vec![f64::INFINITY; 2],
            |z: &[f64], f: &mut [f64]| {
                f[0] = z[0] * z[0] + z[1] * z[1] - 1.0;
                f[1] = eps * (z[1] - c);
            },
            |z: &[f64], j: &mut DenseJacobian| {
                j.fill(0.0);
                j[(0, 0)] = 2.0 * z[0];
                j[(0, 1)] = 2.0 * z[1];
                j[(1, 1)] = eps;
            },
        )
        .unwrap();
        let mut solve = |second_order_correction| {
            let settings = PathSettings {
                crash_iteration_limit: 0,
                second_order_correction,
                ..PathSettings::default()
            };
            let mut z = [1.0, 0.0];
            let r = PathSolver::default().solve(&mut p, &mut z, 1e-12, &settings);
            (r, z)
        };
        let (r, z) = solve(true);
        assert!(r.converged(), "{r}");
        assert!(r.major_iterations <= 4, "{r}");
        assert!((z[1] - c).abs() < 1e-9 && (z[0] - (1.0 - c * c).sqrt()).abs() < 1e-12);
        let (r, _) = solve(false);
        assert!(r.major_iterations > 20, "{r}");
    }

    #[test]
    fn linear_box_mcp_is_solved_in_one_newton_step() {
        let m = DMatrix::from_row_slice(3, 3, &[4.0, 1.0, 0.0, 1.0, 3.0, 1.0, 0.0, 1.0, 2.0]);
        let mut p = LinearMcp {
            m,
            q: vec![-1.0, -10.0, 8.0],
            lower: vec![f64::NEG_INFINITY, 0.0, -1.0],
            upper: vec![f64::INFINITY, 1.0, 2.0],
        };
        let mut z = [0.0; 3];
        let r = PathSolver::default().solve(&mut p, &mut z, 1e-12, &PathSettings::default());
        assert!(r.converged(), "{r}");
        assert!(
            (z[1] - 1.0).abs() < 1e-12 && (z[2] + 1.0).abs() < 1e-12,
            "{z:?}"
        );
    }

    /// `F(z) = (z₀³ + z₁ − 2 + s, z₀ + z₁³ − 2 + s)` on `z ≥ 0`, shifted by `s`: the
    /// re-solve of the stepper's proximal iteration in small (its centre shifts `F` only).
    fn shifted_cubic(shift: &std::cell::Cell<f64>) -> impl McpProblem + '_ {
        ClosureMcp::ncp(
            2,
            move |z: &[f64], f: &mut [f64]| {
                f[0] = z[0].powi(3) + z[1] - 2.0 + shift.get();
                f[1] = z[0] + z[1].powi(3) - 2.0 + shift.get();
            },
            |z: &[f64], j: &mut DMatrix<f64>| {
                j[(0, 0)] = 3.0 * z[0] * z[0];
                j[(0, 1)] = 1.0;
                j[(1, 0)] = 1.0;
                j[(1, 1)] = 3.0 * z[1] * z[1];
            },
        )
    }

    #[test]
    fn a_re_solve_allowed_the_kept_jacobian_needs_none_when_f_hardly_moved() {
        let (tol, settings) = (1e-10, PathSettings::default());
        let shift = std::cell::Cell::new(0.0);
        let mut solver = PathSolver::default();
        // One crash step solves the first problem (to 1e-8 from 1e-5 away): its
        // factorisation is kept.
        let mut z = [1.00001, 0.99999];
        let first = solver.solve(&mut shifted_cubic(&shift), &mut z, 1e-8, &settings);
        assert!(first.converged() && first.crash_iterations == 1, "{first}");
        // A small shift: steps on the kept factorisation solve it, no Jacobian.
        shift.set(1e-8);
        let mut kept = z;
        solver.allow_kept_jacobian();
        let r = solver.solve(&mut shifted_cubic(&shift), &mut kept, tol, &settings);
        assert!(r.converged() && r.residual <= tol * CHORD_ACCURACY, "{r}");
        assert_eq!((r.jacobian_evaluations, r.major_iterations), (0, 0), "{r}");
        assert!((1..=CHORD_STEPS).contains(&r.simplified_steps), "{r}");
        // The same answer as a re-solve without the permission, to the tolerance (the
        // Jacobian at the solution is about [[3, 1], [1, 3]]: errors are not amplified).
        let mut fresh = z;
        let r = PathSolver::default().solve(&mut shifted_cubic(&shift), &mut fresh, tol, &settings);
        assert!(r.converged() && r.jacobian_evaluations > 0, "{r}");
        assert!((kept[0] - fresh[0]).abs() < tol && (kept[1] - fresh[1]).abs() < tol);
        // The permission is for one solve: the next evaluates its Jacobian.
        shift.set(2e-8);
        let r = solver.solve(&mut shifted_cubic(&shift), &mut kept, tol, &settings);
        assert!(r.converged() && r.jacobian_evaluations > 0, "{r}");
        // A large change: the kept step does not solve it, and the solve goes on as usual.
        shift.set(-1.0);
        let mut far = kept;
        solver.allow_kept_jacobian();
        let r = solver.solve(&mut shifted_cubic(&shift), &mut far, tol, &settings);
        assert!(r.converged() && r.jacobian_evaluations > 0, "{r}");
        let f0 = far[0].powi(3) + far[1] - 3.0;
        assert!(f0.abs() < tol && (far[0] - far[1]).abs() < tol, "{far:?}");
    }

    #[test]
    fn a_solve_that_converges_in_the_crash_keeps_its_factorisation() {
        let (tol, settings) = (1e-10, PathSettings::default());
        let shift = std::cell::Cell::new(0.0);
        let mut solver = PathSolver::default();
        // From 1e-3 away the first crash step leaves about 1e-6 (a thousandfold fall on a
        // settled active set): the crash takes the next Newton step itself instead of handing
        // it to the path search, and the solve ends there.
        let mut z = [1.001, 0.999];
        let first = solver.solve(&mut shifted_cubic(&shift), &mut z, tol, &settings);
        assert!(first.converged(), "{first}");
        assert_eq!(first.crash_iterations, 2, "{first}");
        assert_eq!((first.major_iterations, first.pivots), (2, 0), "{first}");
        // So the re-solve that follows steps on the kept factorisation, no Jacobian.
        shift.set(1e-9);
        solver.allow_kept_jacobian();
        let r = solver.solve(&mut shifted_cubic(&shift), &mut z, tol, &settings);
        assert!(r.converged() && r.jacobian_evaluations == 0, "{r}");
        assert!(r.simplified_steps >= 1 && r.major_iterations == 0, "{r}");
    }

    /// [`shifted_cubic`] with its first row written times `scale`, which it reports through
    /// `row_scales` when `report` is set.
    struct RowScaled<'a> {
        shift: &'a std::cell::Cell<f64>,
        scale: f64,
        report: bool,
    }

    impl McpProblem for RowScaled<'_> {
        fn dim(&self) -> usize {
            2
        }
        fn lower_bounds(&self) -> &[f64] {
            &[0.0, 0.0]
        }
        fn upper_bounds(&self) -> &[f64] {
            &[f64::INFINITY, f64::INFINITY]
        }
        fn function(&mut self, z: &[f64], f: &mut [f64]) {
            shifted_cubic(self.shift).function(z, f);
            f[0] *= self.scale;
        }
        fn jacobian(&mut self, z: &[f64], jac: &mut DenseJacobian) {
            shifted_cubic(self.shift).jacobian(z, jac);
            for j in 0..2 {
                jac[(0, j)] *= self.scale;
            }
        }
        fn row_scales(&self, scales: &mut [f64]) -> bool {
            scales.copy_from_slice(&[self.scale, 1.0]);
            self.report
        }
    }

    #[test]
    fn a_row_rescaled_since_the_kept_factorisation_is_solved_in_its_new_scale() {
        let (tol, settings) = (1e-10, PathSettings::default());
        let shift = std::cell::Cell::new(0.0);
        let start = [1.001, 0.999];
        let solve_rescaled = |report: bool| {
            let mut solver = PathSolver::default();
            let mut z = start;
            let mut p = RowScaled {
                shift: &shift,
                scale: 1.0,
                report,
            };
            shift.set(0.0);
            let first = solver.solve(&mut p, &mut z, tol, &settings);
            assert!(first.converged() && first.pivots == 0, "{first}");
            // The stepper's cone rescaling in small: the same solutions, one row times 300,
            // and a shift that leaves the point 3e-8 off.
            shift.set(1e-8);
            p.scale = 300.0;
            solver.allow_kept_jacobian();
            let r = solver.solve(&mut p, &mut z, tol, &settings);
            assert!(r.converged(), "{r}");
            r
        };
        // The kept `J_FF` times the change of scale is the new problem's: its steps solve it.
        let r = solve_rescaled(true);
        assert_eq!(r.jacobian_evaluations, 0, "{r}");
        // Unreported, the row's residual is stepped 300 times too far, and the solve needs a
        // Jacobian.
        let r = solve_rescaled(false);
        assert!(r.jacobian_evaluations > 0, "{r}");
    }

    #[test]
    fn nan_start_and_nan_function_are_reported() {
        let mut p = KojimaShindo::new();
        let mut z = [f64::NAN, 0.0, 0.0, 0.0];
        let r = PathSolver::default().solve(&mut p, &mut z, 1e-10, &PathSettings::default());
        assert_eq!(r.status, Status::NonFiniteInput);
        let mut q = ClosureMcp::ncp(
            1,
            |_z: &[f64], f: &mut [f64]| f[0] = f64::NAN,
            |_z: &[f64], j: &mut DMatrix<f64>| j[(0, 0)] = 1.0,
        );
        let mut z = [1.0];
        let r = PathSolver::default().solve(&mut q, &mut z, 1e-10, &PathSettings::default());
        assert_eq!(r.status, Status::NonFiniteFunction);
    }

    #[test]
    fn unsolvable_ncp_is_not_reported_converged() {
        // F(z) = −1 − z < 0 for every z ≥ 0: no solution.
        let mut p = ClosureMcp::ncp(
            1,
            |z: &[f64], f: &mut [f64]| f[0] = -1.0 - z[0],
            |_z: &[f64], j: &mut DMatrix<f64>| j[(0, 0)] = -1.0,
        );
        let mut z = [0.5];
        let r = PathSolver::default().solve(&mut p, &mut z, 1e-10, &PathSettings::default());
        assert!(!r.converged(), "{r}");
    }
}
