//! What every solve returns: a status and the counts behind it. A run never panics and never
//! errors; numerical trouble is a status.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::time::Duration;

/// Which algorithm produced a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SolverKind {
    /// Newton path search on the normal map (PATH class), [`crate::mcp::PathSolver`].
    PathSearch,
    /// Semismooth Newton on the Fischer–Burmeister reformulation, [`crate::mcp::FbNewtonSolver`].
    FischerBurmeister,
    /// Levenberg–Marquardt on the Fischer–Burmeister residual, [`crate::mcp::LmSolver`].
    LevenbergMarquardt,
    /// Lemke's complementary pivoting method for linear problems, [`crate::mcp::lemke`].
    Lemke,
}

impl fmt::Display for SolverKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SolverKind::PathSearch => "path",
            SolverKind::FischerBurmeister => "fb-newton",
            SolverKind::LevenbergMarquardt => "levenberg-marquardt",
            SolverKind::Lemke => "lemke",
        })
    }
}

/// How a solve ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The natural residual is at or below the tolerance.
    Converged,
    /// The major-iteration (or pivot) limit was reached first.
    IterationLimit,
    /// No further progress on the merit function (after all restarts).
    Stalled,
    /// A pivoting method ended on a secondary ray: for an LCP, no solution was found
    /// (for a copositive-plus matrix: none exists).
    RayTermination,
    /// The basis or Newton matrix was numerically singular and could not be repaired.
    Singular,
    /// The starting point or the bounds contain NaN, or bounds are inconsistent.
    NonFiniteInput,
    /// `F` or `J` returned NaN or ±∞.
    NonFiniteFunction,
    /// The solve's wall-time limit ([`SolveSettings::time_limit`](super::SolveSettings::time_limit))
    /// passed first.
    TimeLimit,
}

impl Status {
    /// True only for [`Status::Converged`].
    pub fn is_converged(self) -> bool {
        self == Status::Converged
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Status::Converged => "converged",
            Status::IterationLimit => "iteration limit",
            Status::Stalled => "stalled",
            Status::RayTermination => "ray termination",
            Status::Singular => "singular",
            Status::NonFiniteInput => "non-finite input",
            Status::NonFiniteFunction => "non-finite function value",
            Status::TimeLimit => "time limit",
        })
    }
}

/// One attempt inside a fallback chain.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Attempt {
    /// The solver tried.
    pub solver: SolverKind,
    /// How it ended.
    pub status: Status,
    /// Its final natural residual.
    pub residual: f64,
}

/// Maximum number of attempts recorded in a report (the chain has at most three solvers).
pub const MAX_ATTEMPTS: usize = 4;

/// The report of one solve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SolveReport {
    /// How the solve ended.
    pub status: Status,
    /// The solver whose answer is in `z` (the last one tried if none converged).
    pub solver: SolverKind,
    /// Major (Newton) iterations, crash iterations included.
    pub major_iterations: usize,
    /// Of those, iterations of the projected-Newton crash phase.
    pub crash_iterations: usize,
    /// Simplified Newton steps on a factorisation kept from the solve before (no Jacobian
    /// evaluated or factorised; see [`PathSolver::allow_kept_jacobian`](super::PathSolver::allow_kept_jacobian)),
    /// not counted in `major_iterations`.
    #[serde(default)]
    pub simplified_steps: usize,
    /// Pivots of the pivotal (Lemke-type) method over the whole solve.
    pub pivots: usize,
    /// Evaluations of `F`.
    pub function_evaluations: usize,
    /// Evaluations of `J`.
    pub jacobian_evaluations: usize,
    /// Restarts with changed settings.
    pub restarts: usize,
    /// Final natural residual `‖z − mid(l, u, z − F(z))‖∞` (NaN if it could not be evaluated).
    pub residual: f64,
    /// Wall time of the whole solve, fallbacks included.
    #[serde(with = "duration_secs")]
    pub wall_time: Duration,
    /// The attempts of the fallback chain in order (`attempts[..attempt_count]`).
    pub attempts: [Option<Attempt>; MAX_ATTEMPTS],
}

impl SolveReport {
    /// A fresh report for `solver` with every count at zero.
    pub fn new(solver: SolverKind) -> Self {
        Self {
            status: Status::IterationLimit,
            solver,
            major_iterations: 0,
            crash_iterations: 0,
            simplified_steps: 0,
            pivots: 0,
            function_evaluations: 0,
            jacobian_evaluations: 0,
            restarts: 0,
            residual: f64::NAN,
            wall_time: Duration::ZERO,
            attempts: [None; MAX_ATTEMPTS],
        }
    }

    /// True when the solve converged.
    pub fn converged(&self) -> bool {
        self.status.is_converged()
    }

    /// Adds the counts of another attempt (used by the fallback chain).
    pub fn accumulate(&mut self, other: &SolveReport) {
        self.major_iterations += other.major_iterations;
        self.crash_iterations += other.crash_iterations;
        self.simplified_steps += other.simplified_steps;
        self.pivots += other.pivots;
        self.function_evaluations += other.function_evaluations;
        self.jacobian_evaluations += other.jacobian_evaluations;
        self.restarts += other.restarts;
    }

    /// Takes the counts (iterations, pivots, evaluations, restarts) of `other`.
    pub fn set_counts(&mut self, other: &SolveReport) {
        self.major_iterations = other.major_iterations;
        self.crash_iterations = other.crash_iterations;
        self.simplified_steps = other.simplified_steps;
        self.pivots = other.pivots;
        self.function_evaluations = other.function_evaluations;
        self.jacobian_evaluations = other.jacobian_evaluations;
        self.restarts = other.restarts;
    }

    /// Records an attempt, if there is room.
    pub fn push_attempt(&mut self, attempt: Attempt) {
        if let Some(slot) = self.attempts.iter_mut().find(|a| a.is_none()) {
            *slot = Some(attempt);
        }
    }

    /// The attempts recorded, in order.
    pub fn attempts(&self) -> impl Iterator<Item = &Attempt> {
        self.attempts.iter().flatten()
    }
}

impl fmt::Display for SolveReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} by {}: residual {:.3e}, {} major iterations ({} crash), {} pivots, {} F / {} J evaluations, {} restarts",
            self.status,
            self.solver,
            self.residual,
            self.major_iterations,
            self.crash_iterations,
            self.pivots,
            self.function_evaluations,
            self.jacobian_evaluations,
            self.restarts,
        )?;
        if self.simplified_steps > 0 {
            write!(f, ", {} simplified Newton steps", self.simplified_steps)?;
        }
        write!(f, ", {:.1} µs", self.wall_time.as_secs_f64() * 1e6)
    }
}

mod duration_secs {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::time::Duration;

    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_secs_f64())
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let secs = f64::deserialize(d)?;
        Ok(Duration::from_secs_f64(secs.max(0.0)))
    }
}
