//! The Monte-Carlo grasp study of the paper's Example 4 (§6.4): the success rate of the grasp
//! strategy over the fingertips' start `(x, y)`, each trial one run of [`super::grasp::run_trial`].
//!
//! # The study
//!
//! * **Grid**: the points `x = x₀ + i s`, `y = y₀ + j s` of [`Grid`] (mm, relative to the gear's
//!   centre), by default `s` = 1 mm over `[−10, 10] × [−20, 0]` mm: 21 × 21 = 441 cells, the
//!   paper's 20 mm box. Cell `k` is column `k mod columns` and row `k div columns`, rows from the
//!   lowest `y` up: cell order is `y` ascending, then `x` ascending. A trial starts exactly at
//!   its cell's point.
//! * **Draws**: trial `t` of cell `k` draws `μ_s`, then `μ_g`, each uniform in the model's bounds,
//!   from a SplitMix64 stream keyed by `(seed, k, t)` alone ([`TrialRng`], [`draw`]): a draw
//!   does not depend on the threads, the shard or what else ran.
//! * **Work**: the `(cell, trial)` pairs of the shard are pulled from an atomic counter by
//!   `threads` workers; the results are put back in order, so every file is the same on any
//!   number of threads, and shards merged give the unsharded files byte for byte.
//! * **Shards**: `Shard { index: I, count: N }` runs the cells with `k mod N = I`; [`merge`]
//!   joins all `N` shards of one study (same seed, grid, trials, model) and refuses anything
//!   else.
//! * **Counting**: a trial ends in a [`GraspOutcome`] or, when the solver fails (any error of
//!   `run_trial`, or a panic), is a solver failure: neither a success nor a failed grasp. The
//!   success rate of a cell is `P = successes / (trials − solver_failures)`.
//!
//! # Files (in the output directory)
//!
//! * `grasp_success.csv`: `x_mm, y_mm, trials, successes, solver_failures`, one row per cell
//!   run, in cell order; `trials` counts every trial, failures included.
//! * `grasp_trials.csv`: `x_mm, y_mm, cell, trial, mu_support, mu_gripper, outcome, time_s,
//!   steps, error`, one row per trial in cell order, trials ascending; `outcome` is `success`,
//!   `wrong_hold`, `closed`, `timeout` or `solver_failure`; `time_s` and `steps` are the
//!   simulated time and steps at the end (for a solver failure: at the failed step); `error`
//!   is empty unless the trial failed (quoted as CSV needs).
//! * `fig10b_grasp_success.svg` and `.png`: the success map ([`crate::plot::grasp_map`]).
//! * `grasp_study.json`: [`GraspStudyInfo`]: the seed, the grid, the trials per cell, the shard,
//!   the model, the cells run, the totals and the wall time.
//!
//! Each file is written to a temporary file and renamed; the summary goes last and a previous
//! summary is removed first, so an interrupted run never leaves a set that looks complete.
//! Numbers are written in the shortest form that reads back to the same bits, so a merge
//! re-writes what it read exactly.
//!
//! # Claims
//!
//! [`claims`] checks four statements about the map (reported, never asserted), each only when
//! all of its cells were run (a shard or a partial grid says "not run"):
//!
//! 1. symmetry: for every pair of cells `(x, y)`, `(−x, y)`, `|P₁ − P₂|` is at most three binomial
//!    standard deviations, `3 √(p (1 − p) (1/n₁ + 1/n₂))` with the pooled `p`;
//! 2. the plateau: `P ≥ 0.9` over `|x| ≤ 3` mm, `y ∈ [−14, −8]` mm (the experiment's sweet spot
//!    `(0, −11)` mm ± 3 mm); a cell without a valid trial fails it;
//! 3. along `x = 0`, `P` reaches its largest value within `[−14, −8]` mm (with finitely many
//!    trials the largest `P` is often 1 on a run of cells; where else it is reached is
//!    reported);
//! 4. near-diametric grasps (`y ∈ [−2, 0]` mm) mostly fail: the mean `P` of those cells is
//!    below 0.5.
//!
//! # Example
//!
//! ```no_run
//! use implicit_contact::study::grasp_study::{Grid, GraspStudyConfig, run_study};
//!
//! let config = GraspStudyConfig {
//!     grid: Grid { step_mm: 10.0, ..Grid::default() }, // 3 × 3 cells
//!     trials: 2,
//!     ..GraspStudyConfig::default()
//! };
//! let study = run_study(&config, |_done, _total| {}).unwrap();
//! study.write(std::path::Path::new("runs/grasp")).unwrap();
//! println!("{}", study.summary());
//! ```

use super::grasp::{GraspError, GraspModel, GraspOutcome, GraspResult, GraspTrial, run_trial};
use crate::output::format_f64;
use crate::plot::PlotError;
use crate::plot::grasp_map::{self, MapCell, SuccessMap};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// The per-cell table.
pub const SUCCESS_FILE: &str = "grasp_success.csv";
/// The per-trial table.
pub const TRIALS_FILE: &str = "grasp_trials.csv";
/// The study's summary, written last.
pub const STUDY_FILE: &str = "grasp_study.json";
/// The figure's file stem (`.svg` and `.png`).
pub const FIGURE_STEM: &str = "fig10b_grasp_success";
/// The columns of [`SUCCESS_FILE`].
pub const SUCCESS_COLUMNS: [&str; 5] = ["x_mm", "y_mm", "trials", "successes", "solver_failures"];
/// The columns of [`TRIALS_FILE`].
pub const TRIAL_COLUMNS: [&str; 10] = [
    "x_mm",
    "y_mm",
    "cell",
    "trial",
    "mu_support",
    "mu_gripper",
    "outcome",
    "time_s",
    "steps",
    "error",
];
/// The experiment's sweet spot `(x, y)` (mm).
pub const SWEET_SPOT_MM: [f64; 2] = [0.0, -11.0];
/// Half the side of the square about the sweet spot where the plateau is claimed (mm).
pub const PLATEAU_HALF_MM: f64 = 3.0;
/// The largest grid a study accepts (a guard against a typo in a step).
pub const MAX_CELLS: usize = 1_000_000;
/// The `outcome` of a trial the solver could not simulate.
pub const SOLVER_FAILURE: &str = "solver_failure";

/// Why a study could not be run, read or merged. File errors name the file, the line and the
/// field when known.
#[derive(Debug, thiserror::Error)]
pub enum GraspStudyError {
    /// The study's settings are invalid.
    #[error("{0}")]
    Config(String),
    /// An input file is invalid.
    #[error(
        "{}{}: {}{reason}",
        path.display(),
        line.map_or(String::new(), |l| format!(":{l}")),
        field.as_ref().map_or(String::new(), |f| format!("field `{f}`: "))
    )]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The 1-based line, when known.
        line: Option<u64>,
        /// The field (a column, or a JSON or TOML key path), when known.
        field: Option<String>,
        /// What is wrong.
        reason: String,
    },
    /// An I/O operation failed.
    #[error("{}: cannot {action}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What was being done.
        action: &'static str,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The directories given to [`merge`] are not the shards of one study.
    #[error("{0}")]
    Merge(String),
    /// The figure could not be drawn.
    #[error(transparent)]
    Plot(#[from] PlotError),
}

fn invalid(
    path: &Path,
    line: Option<u64>,
    field: Option<&str>,
    reason: impl Into<String>,
) -> GraspStudyError {
    GraspStudyError::Invalid {
        path: path.to_path_buf(),
        line,
        field: field.map(str::to_string),
        reason: reason.into(),
    }
}

fn io(path: &Path, action: &'static str, source: std::io::Error) -> GraspStudyError {
    GraspStudyError::Io {
        path: path.to_path_buf(),
        action,
        source,
    }
}

/// Which cells a run takes: those with `cell mod count = index`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// This shard, `0 ≤ index < count`.
    pub index: usize,
    /// The number of shards.
    pub count: usize,
}

impl Shard {
    /// The whole grid.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    /// `I/N`, 0-based.
    pub fn parse(text: &str) -> Result<Self, String> {
        let bad = |why: &str| format!("shard `{text}`: {why} (expected I/N with 0 ≤ I < N)");
        let (i, n) = text.split_once('/').ok_or_else(|| bad("no `/`"))?;
        let index: usize = i.trim().parse().map_err(|_| bad("I is not a number"))?;
        let count: usize = n.trim().parse().map_err(|_| bad("N is not a number"))?;
        let shard = Shard { index, count };
        shard.problem().map_or(Ok(shard), |why| Err(bad(&why)))
    }

    /// Why the shard is invalid.
    pub fn problem(&self) -> Option<String> {
        if self.count == 0 {
            Some("N must be at least 1".into())
        } else if self.index >= self.count {
            Some(format!(
                "I = {} must be below N = {} (0-based)",
                self.index, self.count
            ))
        } else {
            None
        }
    }

    /// Whether `cell` is this shard's.
    pub fn contains(&self, cell: usize) -> bool {
        cell % self.count == self.index
    }
}

impl Default for Shard {
    fn default() -> Self {
        Self::ALL
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// `LO,HI` in millimetres, `LO ≤ HI`.
pub fn parse_range_mm(text: &str) -> Result<[f64; 2], String> {
    let bad = |why: &str| format!("range `{text}`: {why} (expected LO,HI in mm, e.g. -10,10)");
    let (lo, hi) = text.split_once(',').ok_or_else(|| bad("no `,`"))?;
    let parse = |s: &str| s.trim().parse::<f64>().ok().filter(|v| v.is_finite());
    let (Some(lo), Some(hi)) = (parse(lo), parse(hi)) else {
        return Err(bad("not two finite numbers"));
    };
    if lo > hi {
        return Err(bad("LO is above HI"));
    }
    Ok([lo, hi])
}

/// The grid of starts (see the module docs), in millimetres.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Grid {
    /// The spacing (mm).
    pub step_mm: f64,
    /// The first and last `x` (mm); the last point is the largest `x₀ + i s ≤ HI`.
    pub x_range_mm: [f64; 2],
    /// The first and last `y` (mm).
    pub y_range_mm: [f64; 2],
}

impl Default for Grid {
    /// The paper's box at 1 mm: `[−10, 10] × [−20, 0]` mm.
    fn default() -> Self {
        Self {
            step_mm: 1.0,
            x_range_mm: [-10.0, 10.0],
            y_range_mm: [-20.0, 0.0],
        }
    }
}

/// Points along one axis from `lo` to `hi` at `step` (a slack of 1e-9 steps at the end).
fn axis_count([lo, hi]: [f64; 2], step: f64) -> usize {
    ((hi - lo) / step + 1e-9).floor() as usize + 1
}

/// `lo + i step`, rounded to 1e-9 mm so that decimal steps print short (`-9.7`, not
/// `-9.700000000000001`), `-0` made `0`.
fn axis_point(lo: f64, step: f64, i: usize) -> f64 {
    let v = ((lo + i as f64 * step) * 1e9).round() / 1e9;
    if v == 0.0 { 0.0 } else { v }
}

impl Grid {
    /// Why the grid is invalid.
    pub fn problem(&self) -> Option<String> {
        if !(self.step_mm.is_finite() && self.step_mm > 0.0) {
            return Some(format!(
                "the step must be finite and > 0 mm, got {}",
                self.step_mm
            ));
        }
        for (axis, [lo, hi]) in [("x", self.x_range_mm), ("y", self.y_range_mm)] {
            if !(lo.is_finite() && hi.is_finite() && lo <= hi) {
                return Some(format!(
                    "the {axis} range must be finite with LO ≤ HI, got [{lo}, {hi}] mm"
                ));
            }
        }
        let cells = (((self.x_range_mm[1] - self.x_range_mm[0]) / self.step_mm + 1.0)
            * ((self.y_range_mm[1] - self.y_range_mm[0]) / self.step_mm + 1.0))
            .floor();
        if cells > MAX_CELLS as f64 {
            return Some(format!(
                "{cells} cells (step {} mm) is more than {MAX_CELLS}",
                self.step_mm
            ));
        }
        None
    }

    /// Points along `x`.
    pub fn columns(&self) -> usize {
        axis_count(self.x_range_mm, self.step_mm)
    }

    /// Points along `y`.
    pub fn rows(&self) -> usize {
        axis_count(self.y_range_mm, self.step_mm)
    }

    /// Cells in the grid.
    pub fn cells(&self) -> usize {
        self.columns() * self.rows()
    }

    /// Cell `cell`'s point `(x, y)` (mm).
    pub fn point(&self, cell: usize) -> (f64, f64) {
        let columns = self.columns();
        (
            axis_point(self.x_range_mm[0], self.step_mm, cell % columns),
            axis_point(self.y_range_mm[0], self.step_mm, cell / columns),
        )
    }

    /// The cell whose point is within a millionth of a step of `(x, y)` (mm).
    pub fn index_of(&self, x_mm: f64, y_mm: f64) -> Option<usize> {
        let near = |v: f64, [lo, _]: [f64; 2], n: usize| {
            let i = ((v - lo) / self.step_mm).round();
            (i >= 0.0
                && (i as usize) < n
                && (axis_point(lo, self.step_mm, i as usize) - v).abs() <= 1e-6 * self.step_mm)
                .then_some(i as usize)
        };
        let i = near(x_mm, self.x_range_mm, self.columns())?;
        let j = near(y_mm, self.y_range_mm, self.rows())?;
        Some(j * self.columns() + i)
    }

    /// The largest `x` (mm) of the grid.
    pub fn last_x(&self) -> f64 {
        axis_point(self.x_range_mm[0], self.step_mm, self.columns() - 1)
    }

    /// The largest `y` (mm) of the grid.
    pub fn last_y(&self) -> f64 {
        axis_point(self.y_range_mm[0], self.step_mm, self.rows() - 1)
    }

    fn describe(&self) -> String {
        format!(
            "step {} mm, x {} … {} mm, y {} … {} mm",
            self.step_mm,
            self.x_range_mm[0],
            self.last_x(),
            self.y_range_mm[0],
            self.last_y()
        )
    }
}

/// The SplitMix64 constant (2⁶⁴ / φ).
const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's output function.
fn finalize(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The random stream of one trial: SplitMix64 (Steele, Lea & Flood 2014) started from
/// `h(h(h(seed) ⊕ cell) ⊕ trial)`, `h(x)` SplitMix64's first output from state `x`.
#[derive(Debug, Clone)]
pub struct TrialRng(u64);

impl TrialRng {
    /// The stream of trial `trial` of cell `cell` under `seed`.
    pub fn new(seed: u64, cell: usize, trial: usize) -> Self {
        let h = |x: u64| finalize(x.wrapping_add(GOLDEN));
        Self(h(h(h(seed) ^ cell as u64) ^ trial as u64))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GOLDEN);
        finalize(self.0)
    }

    /// Uniform in `[lo, hi)` (exactly `lo` when `lo = hi`), from the top 53 bits.
    pub fn uniform(&mut self, [lo, hi]: [f64; 2]) -> f64 {
        let u = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        lo + (hi - lo) * u
    }
}

/// The friction coefficients `(μ_s, μ_g)` of trial `trial` of cell `cell`: a pure function of
/// the seed, the cell, the trial and the model's bounds.
pub fn draw(model: &GraspModel, seed: u64, cell: usize, trial: usize) -> (f64, f64) {
    let mut rng = TrialRng::new(seed, cell, trial);
    let mu_support = rng.uniform(model.mu_support);
    let mu_gripper = rng.uniform(model.mu_gripper);
    (mu_support, mu_gripper)
}

/// Everything a study needs.
#[derive(Debug, Clone, PartialEq)]
pub struct GraspStudyConfig {
    /// The grasp model.
    pub model: GraspModel,
    /// The starts.
    pub grid: Grid,
    /// Trials per cell.
    pub trials: usize,
    /// The seed of the draws.
    pub seed: u64,
    /// Worker threads; 0: one per core.
    pub threads: usize,
    /// The cells to run.
    pub shard: Shard,
}

impl Default for GraspStudyConfig {
    /// The full study: the default model and grid, 10 trials per cell, seed 1, one thread per
    /// core, all cells.
    fn default() -> Self {
        Self {
            model: GraspModel::default(),
            grid: Grid::default(),
            trials: 10,
            seed: 1,
            threads: 0,
            shard: Shard::ALL,
        }
    }
}

impl GraspStudyConfig {
    /// The reduced study of `implicit-contact paper grasp`: the same box at 2 mm (11 × 11
    /// cells), 4 trials per cell, seed 1.
    pub fn paper_reduced() -> Self {
        Self {
            grid: Grid {
                step_mm: 2.0,
                ..Grid::default()
            },
            trials: 4,
            ..Self::default()
        }
    }

    /// Checks the settings.
    pub fn validate(&self) -> Result<(), GraspStudyError> {
        if let Some(why) = self.grid.problem() {
            return Err(GraspStudyError::Config(format!("grasp study grid: {why}")));
        }
        if self.trials == 0 {
            return Err(GraspStudyError::Config(
                "grasp study: trials per cell must be at least 1".into(),
            ));
        }
        if let Some(why) = self.shard.problem() {
            return Err(GraspStudyError::Config(format!(
                "grasp study shard {}: {why}",
                self.shard
            )));
        }
        if let Some((field, reason)) = self.model.problem() {
            return Err(GraspStudyError::Config(format!(
                "grasp model: `{field}` {reason}"
            )));
        }
        Ok(())
    }

    /// The cells of the shard, in order.
    pub fn shard_cells(&self) -> Vec<usize> {
        shard_cells(&self.grid, self.shard)
    }
}

fn shard_cells(grid: &Grid, shard: Shard) -> Vec<usize> {
    (shard.index..grid.cells()).step_by(shard.count).collect()
}

/// Worker threads for `threads` (0: one per core).
fn thread_count(threads: usize) -> usize {
    if threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        threads
    }
}

/// How a trial ended, solver failures included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrialOutcome {
    /// The trial ran to its stop rule.
    Grasp(GraspOutcome),
    /// The solver failed (or the trial could not be set up): not counted as a grasp.
    SolverFailure,
}

impl TrialOutcome {
    /// The name in `grasp_trials.csv`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Grasp(o) => o.as_str(),
            Self::SolverFailure => SOLVER_FAILURE,
        }
    }

    /// The outcome named `name`.
    pub fn parse(name: &str) -> Option<Self> {
        [
            GraspOutcome::Success,
            GraspOutcome::WrongHold,
            GraspOutcome::Closed,
            GraspOutcome::Timeout,
        ]
        .into_iter()
        .map(Self::Grasp)
        .chain([Self::SolverFailure])
        .find(|o| o.as_str() == name)
    }
}

/// What the study keeps of a trial's [`GraspResult`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrialEnd {
    /// How it ended.
    pub outcome: GraspOutcome,
    /// Simulated time at the end (s).
    pub time: f64,
    /// Steps taken.
    pub steps: usize,
}

impl From<&GraspResult> for TrialEnd {
    fn from(r: &GraspResult) -> Self {
        Self {
            outcome: r.outcome,
            time: r.time,
            steps: r.steps,
        }
    }
}

/// One row of `grasp_trials.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct TrialRecord {
    /// The cell's point, `x` (mm).
    pub x_mm: f64,
    /// The cell's point, `y` (mm).
    pub y_mm: f64,
    /// The cell's index in the grid.
    pub cell: usize,
    /// The trial's index in its cell.
    pub trial: usize,
    /// The support friction drawn.
    pub mu_support: f64,
    /// The gripper friction drawn.
    pub mu_gripper: f64,
    /// How it ended.
    pub outcome: TrialOutcome,
    /// Simulated time at the end, or at the failed step (s); `None` when unknown.
    pub time_s: Option<f64>,
    /// Steps taken, or done before the failed one; `None` when unknown.
    pub steps: Option<usize>,
    /// Why the trial failed; empty otherwise.
    pub error: String,
}

impl TrialRecord {
    fn new(
        trial: &GraspTrial,
        (cell, index): (usize, usize),
        (x_mm, y_mm): (f64, f64),
        result: Result<TrialEnd, String>,
    ) -> Self {
        let mut record = Self {
            x_mm,
            y_mm,
            cell,
            trial: index,
            mu_support: trial.mu_support,
            mu_gripper: trial.mu_gripper,
            outcome: TrialOutcome::SolverFailure,
            time_s: None,
            steps: None,
            error: String::new(),
        };
        match result {
            Ok(r) => {
                record.outcome = TrialOutcome::Grasp(r.outcome);
                record.time_s = Some(r.time);
                record.steps = Some(r.steps);
            }
            Err(e) => record.error = e,
        }
        record
    }
}

/// The message of a failed trial, with the failed step's time and index when the solver
/// failed.
fn failure(e: GraspError) -> (String, Option<(f64, usize)>) {
    let at = match &e {
        GraspError::Solver { step, time, .. } => Some((*time, *step)),
        _ => None,
    };
    (e.to_string(), at)
}

/// One row of `grasp_success.csv`, with the cell's index.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CellCounts {
    /// The cell's index in the grid.
    pub cell: usize,
    /// Its point, `x` (mm).
    pub x_mm: f64,
    /// Its point, `y` (mm).
    pub y_mm: f64,
    /// Trials run, solver failures included.
    pub trials: u64,
    /// Successful grasps.
    pub successes: u64,
    /// Solver failures.
    pub solver_failures: u64,
}

impl CellCounts {
    /// Trials that ran to their end.
    pub fn valid(&self) -> u64 {
        self.trials.saturating_sub(self.solver_failures)
    }

    /// `successes / (trials − solver_failures)`; `None` without a valid trial.
    pub fn success_rate(&self) -> Option<f64> {
        (self.valid() > 0).then(|| self.successes as f64 / self.valid() as f64)
    }
}

/// Outcome counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Totals {
    /// Trials run.
    pub trials: u64,
    /// Successes.
    pub successes: u64,
    /// At rest, held otherwise.
    pub wrong_holds: u64,
    /// The jaws closed past each other.
    pub closed: u64,
    /// Not at rest by the timeout.
    pub timeouts: u64,
    /// Solver failures.
    pub solver_failures: u64,
}

impl Totals {
    fn add(&mut self, outcome: TrialOutcome) {
        self.trials += 1;
        match outcome {
            TrialOutcome::Grasp(GraspOutcome::Success) => self.successes += 1,
            TrialOutcome::Grasp(GraspOutcome::WrongHold) => self.wrong_holds += 1,
            TrialOutcome::Grasp(GraspOutcome::Closed) => self.closed += 1,
            TrialOutcome::Grasp(GraspOutcome::Timeout) => self.timeouts += 1,
            TrialOutcome::SolverFailure => self.solver_failures += 1,
        }
    }

    fn sum(&mut self, other: &Totals) {
        self.trials += other.trials;
        self.successes += other.successes;
        self.wrong_holds += other.wrong_holds;
        self.closed += other.closed;
        self.timeouts += other.timeouts;
        self.solver_failures += other.solver_failures;
    }
}

/// `grasp_study.json`: what was run and how it went.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraspStudyInfo {
    /// Always `grasp`.
    pub study: String,
    /// The seed of the draws.
    pub seed: u64,
    /// The grid's spacing (mm).
    pub step_mm: f64,
    /// The grid's `x` range (mm).
    pub x_range_mm: [f64; 2],
    /// The grid's `y` range (mm).
    pub y_range_mm: [f64; 2],
    /// Trials per cell.
    pub trials: usize,
    /// The shard run (`{index: 0, count: 1}` for a whole or merged study).
    pub shard: Shard,
    /// Cells in the whole grid.
    pub grid_cells: usize,
    /// Cells run here.
    pub cells: usize,
    /// Outcome counts over the cells run.
    pub totals: Totals,
    /// Wall time of the run (s); of a merge: the shards' summed.
    pub wall_time_s: f64,
    /// The trials' own times summed (s): over `totals.trials`, the mean time per trial.
    pub trial_time_s: f64,
    /// Worker threads (of a merge: the shards' summed).
    pub threads: usize,
    /// For a merged study: how many shards it joins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged_shards: Option<usize>,
    /// The grasp model.
    pub model: GraspModel,
}

impl GraspStudyInfo {
    /// The study's grid.
    pub fn grid(&self) -> Grid {
        Grid {
            step_mm: self.step_mm,
            x_range_mm: self.x_range_mm,
            y_range_mm: self.y_range_mm,
        }
    }
}

/// A study's results: the summary, the cells run and every trial, in cell order.
#[derive(Debug, Clone, PartialEq)]
pub struct GraspStudy {
    /// The summary (`grasp_study.json`).
    pub info: GraspStudyInfo,
    /// One entry per cell run, in cell order.
    pub cells: Vec<CellCounts>,
    /// One entry per trial, in cell order, trials ascending.
    pub trials: Vec<TrialRecord>,
}

/// Runs the study: every trial with [`run_trial`]. `progress(done, total)` is called (from the
/// workers) after each trial.
pub fn run_study(
    config: &GraspStudyConfig,
    progress: impl Fn(usize, usize) + Sync,
) -> Result<GraspStudy, GraspStudyError> {
    let model = config.model;
    run_study_with(
        config,
        |t| run_trial(&model, t, |_| {}).map(|r| TrialEnd::from(&r)),
        progress,
    )
}

/// [`run_study`] with another trial function (tests, other models): `trial` maps a trial's
/// start and friction to how it ended; an error, or a panic, is a solver failure.
pub fn run_study_with(
    config: &GraspStudyConfig,
    trial: impl Fn(&GraspTrial) -> Result<TrialEnd, GraspError> + Sync,
    progress: impl Fn(usize, usize) + Sync,
) -> Result<GraspStudy, GraspStudyError> {
    config.validate()?;
    let start = Instant::now();
    let grid = config.grid;
    let cells = config.shard_cells();
    let per_cell = config.trials;
    let total = cells.len() * per_cell;
    let threads = thread_count(config.threads);
    let workers = threads.min(total).max(1);
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let work = |_: usize| {
        let mut local: Vec<(usize, TrialRecord, f64)> = Vec::new();
        loop {
            let k = next.fetch_add(1, Ordering::Relaxed);
            if k >= total {
                break;
            }
            let (cell, index) = (cells[k / per_cell], k % per_cell);
            let (x_mm, y_mm) = grid.point(cell);
            let (mu_support, mu_gripper) = draw(&config.model, config.seed, cell, index);
            let t = GraspTrial {
                x: x_mm / 1000.0,
                y: y_mm / 1000.0,
                mu_support,
                mu_gripper,
            };
            let began = Instant::now();
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| trial(&t)));
            let seconds = began.elapsed().as_secs_f64();
            let (result, at) = match result {
                Ok(Ok(r)) => (Ok(r), None),
                Ok(Err(e)) => {
                    let (message, at) = failure(e);
                    (Err(message), at)
                }
                Err(panic) => {
                    let message = panic
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| panic.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "unknown".into());
                    (Err(format!("panic: {message}")), None)
                }
            };
            let mut record = TrialRecord::new(&t, (cell, index), (x_mm, y_mm), result);
            if let Some((time, step)) = at {
                record.time_s = Some(time);
                record.steps = Some(step);
            }
            local.push((k, record, seconds));
            progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
        }
        local
    };
    let mut slots: Vec<Option<TrialRecord>> = vec![None; total];
    let mut trial_time_s = 0.0;
    let parts: Vec<Vec<(usize, TrialRecord, f64)>> = if workers == 1 {
        vec![work(0)]
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|w| {
                    let work = &work;
                    scope.spawn(move || work(w))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a grasp study worker panicked"))
                .collect()
        })
    };
    for (k, record, seconds) in parts.into_iter().flatten() {
        trial_time_s += seconds;
        slots[k] = Some(record);
    }
    let trials: Vec<TrialRecord> = slots
        .into_iter()
        .map(|r| r.expect("every trial ran"))
        .collect();
    let (counts, totals) = count_cells(&cells, &grid, &trials);
    let info = GraspStudyInfo {
        study: "grasp".into(),
        seed: config.seed,
        step_mm: grid.step_mm,
        x_range_mm: grid.x_range_mm,
        y_range_mm: grid.y_range_mm,
        trials: per_cell,
        shard: config.shard,
        grid_cells: grid.cells(),
        cells: cells.len(),
        totals,
        wall_time_s: start.elapsed().as_secs_f64(),
        trial_time_s,
        threads: workers,
        merged_shards: None,
        model: config.model,
    };
    Ok(GraspStudy {
        info,
        cells: counts,
        trials,
    })
}

/// Per-cell counts of `trials` (in cell order, `trials.len() / cells.len()` per cell) and the
/// totals.
fn count_cells(cells: &[usize], grid: &Grid, trials: &[TrialRecord]) -> (Vec<CellCounts>, Totals) {
    let mut counts: Vec<CellCounts> = cells
        .iter()
        .map(|&cell| {
            let (x_mm, y_mm) = grid.point(cell);
            CellCounts {
                cell,
                x_mm,
                y_mm,
                trials: 0,
                successes: 0,
                solver_failures: 0,
            }
        })
        .collect();
    let mut totals = Totals::default();
    let per_cell = trials.len().checked_div(cells.len()).unwrap_or(0).max(1);
    for (k, t) in trials.iter().enumerate() {
        let c = &mut counts[k / per_cell];
        c.trials += 1;
        match t.outcome {
            TrialOutcome::Grasp(GraspOutcome::Success) => c.successes += 1,
            TrialOutcome::SolverFailure => c.solver_failures += 1,
            TrialOutcome::Grasp(_) => {}
        }
        totals.add(t.outcome);
    }
    (counts, totals)
}

/// `s` as a CSV field: quoted (inner quotes doubled) when it holds a comma, a quote, a line
/// break or leading or trailing white space.
fn push_text(out: &mut String, s: &str) {
    let quote = s.contains([',', '"', '\n', '\r'])
        || s.starts_with(char::is_whitespace)
        || s.ends_with(char::is_whitespace);
    if quote {
        out.push('"');
        out.push_str(&s.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(s);
    }
}

/// A duration in seconds with a unit that suits it.
fn seconds(s: f64) -> String {
    if s >= 100.0 {
        format!("{:.0} s", s)
    } else if s >= 1.0 {
        format!("{s:.1} s")
    } else {
        format!("{:.1} ms", s * 1e3)
    }
}

impl GraspStudy {
    /// The study's grid.
    pub fn grid(&self) -> Grid {
        self.info.grid()
    }

    /// The text of `grasp_success.csv`.
    pub fn success_csv(&self) -> String {
        let mut out = String::with_capacity(40 * (self.cells.len() + 1));
        out.push_str(&SUCCESS_COLUMNS.join(","));
        out.push('\n');
        for c in &self.cells {
            let _ = writeln!(
                out,
                "{},{},{},{},{}",
                format_f64(c.x_mm),
                format_f64(c.y_mm),
                c.trials,
                c.successes,
                c.solver_failures
            );
        }
        out
    }

    /// The text of `grasp_trials.csv`.
    pub fn trials_csv(&self) -> String {
        let mut out = String::with_capacity(100 * (self.trials.len() + 1));
        out.push_str(&TRIAL_COLUMNS.join(","));
        out.push('\n');
        for t in &self.trials {
            let _ = write!(
                out,
                "{},{},{},{},{},{},{},{},{},",
                format_f64(t.x_mm),
                format_f64(t.y_mm),
                t.cell,
                t.trial,
                format_f64(t.mu_support),
                format_f64(t.mu_gripper),
                t.outcome.as_str(),
                t.time_s.map(format_f64).unwrap_or_default(),
                t.steps.map(|s| s.to_string()).unwrap_or_default(),
            );
            push_text(&mut out, &t.error);
            out.push('\n');
        }
        out
    }

    /// The success map of the cells run.
    pub fn success_map(&self) -> SuccessMap {
        let i = &self.info;
        let shard = if i.shard.count > 1 {
            format!(", shard {}", i.shard)
        } else {
            String::new()
        };
        let subtitle = format!(
            "{} trial{} per cell, seed {}{shard}; P = successes / valid trials",
            i.trials,
            if i.trials == 1 { "" } else { "s" },
            i.seed
        );
        success_map(&self.grid(), &self.cells, subtitle)
    }

    /// Writes the tables, the figure and, last, the summary into `dir` (see the module docs);
    /// returns the files written.
    pub fn write(&self, dir: &Path) -> Result<Vec<PathBuf>, GraspStudyError> {
        std::fs::create_dir_all(dir).map_err(|e| io(dir, "create the directory", e))?;
        let summary = dir.join(STUDY_FILE);
        // A previous summary must not vouch for tables it did not describe.
        match std::fs::remove_file(&summary) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io(&summary, "remove the previous summary", e)),
        }
        let mut written = Vec::new();
        for (name, text) in [
            (SUCCESS_FILE, self.success_csv()),
            (TRIALS_FILE, self.trials_csv()),
        ] {
            let path = dir.join(name);
            write_atomic(&path, text.as_bytes())?;
            written.push(path);
        }
        written.extend(grasp_map::save(&self.success_map(), dir, FIGURE_STEM)?);
        let mut json = serde_json::to_vec_pretty(&self.info)
            .map_err(|e| GraspStudyError::Config(format!("cannot serialise the summary: {e}")))?;
        json.push(b'\n');
        write_atomic(&summary, &json)?;
        written.push(summary);
        Ok(written)
    }

    /// The claims about the map (see the module docs).
    pub fn claims(&self) -> Vec<GraspClaim> {
        claims(&self.grid(), &self.cells)
    }

    /// One paragraph: cells, trials, outcomes, solver failures, wall time, time per trial and
    /// throughput.
    pub fn summary(&self) -> String {
        let i = &self.info;
        let t = &i.totals;
        let shard = if i.shard.count > 1 {
            format!(" (shard {} of the {} cells)", i.shard, i.grid_cells)
        } else if let Some(n) = i.merged_shards {
            format!(" (merged from {n} shards)")
        } else {
            String::new()
        };
        let valid = t.trials - t.solver_failures;
        let percent = if valid > 0 {
            format!(
                " ({:.1} % of valid trials)",
                100.0 * t.successes as f64 / valid as f64
            )
        } else {
            String::new()
        };
        let per_trial = if t.trials > 0 {
            i.trial_time_s / t.trials as f64
        } else {
            0.0
        };
        let timing = if i.merged_shards.is_some() {
            // The shards ran side by side: their summed wall time says nothing of a rate.
            format!(
                "the shards' wall times summed {} on {} in all, {:.1} ms per trial",
                seconds(i.wall_time_s),
                plural(i.threads as u64, "thread"),
                per_trial * 1e3
            )
        } else {
            let rate = if i.wall_time_s > 0.0 {
                t.trials as f64 / i.wall_time_s
            } else {
                0.0
            };
            format!(
                "wall time {} on {}, {:.1} ms per trial, {rate:.1} trials/s",
                seconds(i.wall_time_s),
                plural(i.threads as u64, "thread"),
                per_trial * 1e3
            )
        };
        format!(
            "grasp study: {} × {} = {}{shard}: {}{percent}, {}, {} closed, {}, {}; {timing}",
            plural(i.cells as u64, "cell"),
            plural(i.trials as u64, "trial"),
            plural(t.trials, "trial"),
            plural(t.successes, "success"),
            plural(t.wrong_holds, "wrong hold"),
            t.closed,
            plural(t.timeouts, "timeout"),
            plural(t.solver_failures, "solver failure"),
        )
    }
}

/// The success map of `cells` over `grid`, titled for the paper.
pub fn success_map(grid: &Grid, cells: &[CellCounts], subtitle: String) -> SuccessMap {
    SuccessMap {
        title: "Example 4: grasp success over the fingertips' start".into(),
        subtitle,
        step_mm: grid.step_mm,
        x_range_mm: [grid.x_range_mm[0], grid.last_x()],
        y_range_mm: [grid.y_range_mm[0], grid.last_y()],
        cells: cells
            .iter()
            .map(|c| MapCell {
                x_mm: c.x_mm,
                y_mm: c.y_mm,
                trials: c.trials,
                successes: c.successes,
                solver_failures: c.solver_failures,
            })
            .collect(),
        sweet_spot_mm: Some(SWEET_SPOT_MM),
        box_half_mm: PLATEAU_HALF_MM,
    }
}

/// Writes `bytes` to `path` through `.<name>.tmp` beside it (flushed, synced, renamed).
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), GraspStudyError> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = path.with_file_name(format!(".{name}.tmp"));
    let result = (|| {
        let mut file = std::fs::File::create(&temp).map_err(|e| io(&temp, "create the file", e))?;
        file.write_all(bytes)
            .and_then(|()| file.sync_all())
            .map_err(|e| io(&temp, "write", e))?;
        std::fs::rename(&temp, path).map_err(|e| io(path, "rename the temporary file", e))
    })();
    if result.is_err() && std::fs::symlink_metadata(&temp).is_ok_and(|m| m.is_file()) {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

/// Reads `--model FILE.toml`: the [`GraspModel`] fields at the top level, any left out taking
/// their defaults. Errors name the file, the line, the field and the reason.
pub fn load_model(path: &Path) -> Result<GraspModel, GraspStudyError> {
    let text = std::fs::read_to_string(path).map_err(|e| io(path, "read the model file", e))?;
    parse_model(&text, path)
}

/// The 1-based line of byte `offset` of `text`.
fn line_of(text: &str, offset: usize) -> u64 {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count() as u64
        + 1
}

/// [`load_model`] from the file's text; `path` names it in errors.
pub fn parse_model(text: &str, path: &Path) -> Result<GraspModel, GraspStudyError> {
    let de = toml::Deserializer::parse(text).map_err(|e| {
        invalid(
            path,
            e.span().map(|s| line_of(text, s.start)),
            None,
            e.message().trim(),
        )
    })?;
    let model: GraspModel = serde_path_to_error::deserialize(de).map_err(|e| {
        let field = e.path().to_string();
        let inner = e.into_inner();
        let message = inner.message().trim().to_string();
        // An unknown key's error may sit at the table holding it: the key is in the message.
        let field = if message.starts_with("unknown field") {
            let key = message.split('`').nth(1).unwrap_or_default();
            if field == "." || field.is_empty() {
                key.to_string()
            } else if field == key || field.ends_with(&format!(".{key}")) {
                field
            } else {
                format!("{field}.{key}")
            }
        } else {
            field
        };
        invalid(
            path,
            inner.span().map(|s| line_of(text, s.start)),
            Some(field.as_str()).filter(|f| !f.is_empty() && *f != "."),
            message,
        )
    })?;
    if let Some((field, reason)) = model.problem() {
        // The line of the key, when the file sets it.
        let line = text.lines().position(|l| {
            l.trim_start()
                .strip_prefix(field)
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        });
        return Err(invalid(
            path,
            line.map(|l| l as u64 + 1),
            Some(field),
            reason,
        ));
    }
    Ok(model)
}

/// Reads a study's `grasp_study.json`, checked.
pub fn read_info(path: &Path) -> Result<GraspStudyInfo, GraspStudyError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        io(
            path,
            "read the study summary (a study that did not finish has none)",
            e,
        )
    })?;
    let mut de = serde_json::Deserializer::from_str(&text);
    let info: GraspStudyInfo = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let field = e.path().to_string();
        let inner = e.into_inner();
        let mut message = inner.to_string();
        if let Some(at) = message.rfind(" at line ") {
            message.truncate(at);
        }
        invalid(
            path,
            (inner.line() > 0).then_some(inner.line() as u64),
            Some(field.as_str()).filter(|f| !f.is_empty() && *f != "."),
            message,
        )
    })?;
    let bad = |field: &str, reason: String| Err(invalid(path, None, Some(field), reason));
    if info.study != "grasp" {
        return bad("study", format!("is `{}`, expected `grasp`", info.study));
    }
    let grid = info.grid();
    if let Some(why) = grid.problem() {
        return bad("step_mm", why);
    }
    if info.trials == 0 {
        return bad("trials", "must be at least 1".into());
    }
    if let Some(why) = info.shard.problem() {
        return bad("shard", why);
    }
    if let Some((field, reason)) = info.model.problem() {
        return bad(&format!("model.{field}"), reason);
    }
    if info.grid_cells != grid.cells() {
        return bad(
            "grid_cells",
            format!(
                "is {}, the grid ({}) has {}",
                info.grid_cells,
                grid.describe(),
                grid.cells()
            ),
        );
    }
    let expected = shard_cells(&grid, info.shard).len();
    if info.cells != expected {
        return bad(
            "cells",
            format!(
                "is {}, shard {} of the grid has {expected}",
                info.cells, info.shard
            ),
        );
    }
    Ok(info)
}

/// The rows of a CSV file with exactly `columns`, each with its line; the header checked.
fn read_csv(
    path: &Path,
    columns: &[&str],
) -> Result<Vec<(u64, csv::StringRecord)>, GraspStudyError> {
    let bytes = std::fs::read(path).map_err(|e| io(path, "read the table", e))?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(&bytes[..]);
    let mut rows = Vec::new();
    let mut header = true;
    for record in reader.records() {
        let record = record.map_err(|e| {
            let line = e.position().map(|p| p.line());
            let reason = match e.kind() {
                csv::ErrorKind::UnequalLengths {
                    expected_len, len, ..
                } => format!("{len} fields, expected {expected_len}"),
                _ => e.to_string(),
            };
            invalid(path, line, None, reason)
        })?;
        let line = record.position().map_or(0, |p| p.line());
        if header {
            header = false;
            if record.iter().ne(columns.iter().copied()) {
                return Err(invalid(
                    path,
                    Some(line),
                    None,
                    format!(
                        "the header is `{}`, expected `{}`",
                        record.iter().collect::<Vec<_>>().join(","),
                        columns.join(",")
                    ),
                ));
            }
            continue;
        }
        if record.len() != columns.len() {
            return Err(invalid(
                path,
                Some(line),
                None,
                format!("{} fields, expected {}", record.len(), columns.len()),
            ));
        }
        rows.push((line, record));
    }
    if header {
        return Err(invalid(path, None, None, "empty: no header"));
    }
    Ok(rows)
}

/// Field `k` of a CSV row, parsed.
fn parse_field<T: std::str::FromStr>(
    path: &Path,
    line: u64,
    columns: &[&str],
    record: &csv::StringRecord,
    k: usize,
    what: &str,
) -> Result<T, GraspStudyError> {
    let raw = &record[k];
    raw.parse().map_err(|_| {
        invalid(
            path,
            Some(line),
            Some(columns[k]),
            format!("`{raw}` is not {what}"),
        )
    })
}

fn finite_field(
    path: &Path,
    line: u64,
    columns: &[&str],
    record: &csv::StringRecord,
    k: usize,
) -> Result<f64, GraspStudyError> {
    let v: f64 = parse_field(path, line, columns, record, k, "a number")?;
    if v.is_finite() {
        Ok(v)
    } else {
        Err(invalid(
            path,
            Some(line),
            Some(columns[k]),
            format!("`{v}` is not finite"),
        ))
    }
}

/// A row of a `grasp_success.csv`: `(line, x_mm, y_mm, trials, successes, solver_failures)`.
type SuccessRow = (u64, f64, f64, u64, u64, u64);

/// The rows of a `grasp_success.csv`.
fn read_success_rows(path: &Path) -> Result<Vec<SuccessRow>, GraspStudyError> {
    let cols = &SUCCESS_COLUMNS;
    let mut out = Vec::new();
    for (line, r) in read_csv(path, cols)? {
        let x = finite_field(path, line, cols, &r, 0)?;
        let y = finite_field(path, line, cols, &r, 1)?;
        let count = |k| parse_field::<u64>(path, line, cols, &r, k, "a count");
        let (trials, successes, failures) = (count(2)?, count(3)?, count(4)?);
        if successes + failures > trials {
            return Err(invalid(
                path,
                Some(line),
                Some("successes"),
                format!(
                    "{successes} successes and {failures} solver failures exceed {trials} trials"
                ),
            ));
        }
        out.push((line, x, y, trials, successes, failures));
    }
    Ok(out)
}

/// The grid a `grasp_success.csv` without its summary was run on: its extreme points and the
/// smallest gap between them (1 mm for a single point).
fn infer_grid(rows: &[SuccessRow]) -> Grid {
    let axis = |values: Vec<f64>| {
        let mut v = values;
        v.sort_by(f64::total_cmp);
        v.dedup();
        let gap = v
            .windows(2)
            .map(|w| w[1] - w[0])
            .filter(|g| *g > 1e-9)
            .fold(f64::INFINITY, f64::min);
        let range = [
            v.first().copied().unwrap_or(0.0),
            v.last().copied().unwrap_or(0.0),
        ];
        (range, gap)
    };
    let (x_range_mm, gx) = axis(rows.iter().map(|r| r.1).collect());
    let (y_range_mm, gy) = axis(rows.iter().map(|r| r.2).collect());
    let step = gx.min(gy);
    Grid {
        step_mm: if step.is_finite() { step } else { 1.0 },
        x_range_mm,
        y_range_mm,
    }
}

/// Reads a `grasp_success.csv` (for the figure and the claims) over `grid` (`None`: inferred
/// from the rows); the cells in cell order.
pub fn read_success_csv(
    path: &Path,
    grid: Option<&Grid>,
) -> Result<(Grid, Vec<CellCounts>), GraspStudyError> {
    let rows = read_success_rows(path)?;
    let grid = grid.copied().unwrap_or_else(|| infer_grid(&rows));
    let mut cells = Vec::with_capacity(rows.len());
    for (line, x_mm, y_mm, trials, successes, solver_failures) in rows {
        let cell = grid.index_of(x_mm, y_mm).ok_or_else(|| {
            invalid(
                path,
                Some(line),
                Some("x_mm"),
                format!(
                    "({x_mm}, {y_mm}) mm is not a point of the grid ({})",
                    grid.describe()
                ),
            )
        })?;
        cells.push(CellCounts {
            cell,
            x_mm,
            y_mm,
            trials,
            successes,
            solver_failures,
        });
    }
    cells.sort_by_key(|c| c.cell);
    Ok((grid, cells))
}

/// Reads and checks a study's directory: the summary, both tables, and that they agree (every
/// cell of the shard once, in order, on the grid; every trial once, with this seed's draws;
/// the counts and the totals matching the trials).
pub fn read_study(dir: &Path) -> Result<GraspStudy, GraspStudyError> {
    let info_path = dir.join(STUDY_FILE);
    let info = read_info(&info_path)?;
    let grid = info.grid();
    let expected = shard_cells(&grid, info.shard);

    let success_path = dir.join(SUCCESS_FILE);
    let rows = read_success_rows(&success_path)?;
    let mut cells = Vec::with_capacity(rows.len());
    let mut lines = Vec::with_capacity(rows.len());
    for (k, &(line, x_mm, y_mm, trials, successes, solver_failures)) in rows.iter().enumerate() {
        let at = Some(line);
        let cell = grid
            .index_of(x_mm, y_mm)
            .filter(|&c| grid.point(c) == (x_mm, y_mm))
            .ok_or_else(|| {
                invalid(
                    &success_path,
                    at,
                    Some("x_mm"),
                    format!(
                        "({x_mm}, {y_mm}) mm is not a point of the study's grid ({})",
                        grid.describe()
                    ),
                )
            })?;
        if !info.shard.contains(cell) {
            return Err(invalid(
                &success_path,
                at,
                Some("x_mm"),
                format!(
                    "cell {cell} at ({x_mm}, {y_mm}) mm belongs to shard {}/{}, not to this shard {}",
                    cell % info.shard.count,
                    info.shard.count,
                    info.shard
                ),
            ));
        }
        if expected.get(k) != Some(&cell) {
            return Err(invalid(
                &success_path,
                at,
                Some("x_mm"),
                format!(
                    "cell {cell} at ({x_mm}, {y_mm}) mm is out of order or repeated (expected {})",
                    expected
                        .get(k)
                        .map_or("no more rows".to_string(), |c| format!("cell {c}"))
                ),
            ));
        }
        if trials != info.trials as u64 {
            return Err(invalid(
                &success_path,
                at,
                Some("trials"),
                format!(
                    "is {trials}, the study runs {} trials per cell",
                    info.trials
                ),
            ));
        }
        cells.push(CellCounts {
            cell,
            x_mm,
            y_mm,
            trials,
            successes,
            solver_failures,
        });
        lines.push(line);
    }
    if cells.len() < expected.len() {
        let missing: Vec<String> = expected[cells.len()..]
            .iter()
            .take(5)
            .map(|&c| {
                let (x, y) = grid.point(c);
                format!("({x}, {y})")
            })
            .collect();
        return Err(invalid(
            &success_path,
            None,
            None,
            format!(
                "{} cells, shard {} has {}: missing {} mm{}",
                cells.len(),
                info.shard,
                expected.len(),
                missing.join(", "),
                if expected.len() - cells.len() > 5 {
                    ", …"
                } else {
                    ""
                }
            ),
        ));
    }

    let trials_path = dir.join(TRIALS_FILE);
    let cols = &TRIAL_COLUMNS;
    let rows = read_csv(&trials_path, cols)?;
    let total = expected.len() * info.trials;
    if rows.len() != total {
        return Err(invalid(
            &trials_path,
            None,
            None,
            format!(
                "{} trials, the shard has {} cells × {} trials = {total}",
                rows.len(),
                expected.len(),
                info.trials
            ),
        ));
    }
    let mut trials = Vec::with_capacity(total);
    let mut totals = Totals::default();
    for (k, (line, r)) in rows.iter().enumerate() {
        let (line, at) = (*line, Some(*line));
        let (want_cell, want_trial) = (expected[k / info.trials], k % info.trials);
        let cell: usize = parse_field(&trials_path, line, cols, r, 2, "a cell index")?;
        let trial: usize = parse_field(&trials_path, line, cols, r, 3, "a trial index")?;
        if (cell, trial) != (want_cell, want_trial) {
            return Err(invalid(
                &trials_path,
                at,
                Some("cell"),
                format!(
                    "cell {cell} trial {trial} where cell {want_cell} trial {want_trial} belongs (rows in cell order, trials ascending)"
                ),
            ));
        }
        let x_mm = finite_field(&trials_path, line, cols, r, 0)?;
        let y_mm = finite_field(&trials_path, line, cols, r, 1)?;
        if (x_mm, y_mm) != grid.point(cell) {
            let (gx, gy) = grid.point(cell);
            return Err(invalid(
                &trials_path,
                at,
                Some("x_mm"),
                format!("({x_mm}, {y_mm}) mm, but cell {cell} is at ({gx}, {gy}) mm"),
            ));
        }
        let mu_support = finite_field(&trials_path, line, cols, r, 4)?;
        let mu_gripper = finite_field(&trials_path, line, cols, r, 5)?;
        let (ms, mg) = draw(&info.model, info.seed, cell, trial);
        for (k, value, drawn) in [(4, mu_support, ms), (5, mu_gripper, mg)] {
            if value != drawn {
                return Err(invalid(
                    &trials_path,
                    at,
                    Some(cols[k]),
                    format!(
                        "is {value}, but seed {} draws {drawn} for cell {cell}, trial {trial}: not this study's trial",
                        info.seed
                    ),
                ));
            }
        }
        let outcome = TrialOutcome::parse(&r[6]).ok_or_else(|| {
            invalid(
                &trials_path,
                at,
                Some("outcome"),
                format!(
                    "`{}` is not success, wrong_hold, closed, timeout or {SOLVER_FAILURE}",
                    &r[6]
                ),
            )
        })?;
        let time_s = if r[7].is_empty() {
            None
        } else {
            Some(finite_field(&trials_path, line, cols, r, 7)?)
        };
        let steps = if r[8].is_empty() {
            None
        } else {
            Some(parse_field(&trials_path, line, cols, r, 8, "a step count")?)
        };
        let error = r[9].to_string();
        if outcome != TrialOutcome::SolverFailure && !error.is_empty() {
            return Err(invalid(
                &trials_path,
                at,
                Some("error"),
                format!("a `{}` trial has an error message", outcome.as_str()),
            ));
        }
        totals.add(outcome);
        trials.push(TrialRecord {
            x_mm,
            y_mm,
            cell,
            trial,
            mu_support,
            mu_gripper,
            outcome,
            time_s,
            steps,
            error,
        });
    }
    let (counted, _) = count_cells(&expected, &grid, &trials);
    for ((c, d), line) in cells.iter().zip(&counted).zip(&lines) {
        for (field, table, trials_csv) in [
            ("successes", c.successes, d.successes),
            ("solver_failures", c.solver_failures, d.solver_failures),
        ] {
            if table != trials_csv {
                return Err(invalid(
                    &success_path,
                    Some(*line),
                    Some(field),
                    format!("is {table}, but {TRIALS_FILE} has {trials_csv} for this cell"),
                ));
            }
        }
    }
    if totals != info.totals {
        return Err(invalid(
            &info_path,
            None,
            Some("totals"),
            format!("{:?} disagree with {TRIALS_FILE}: {totals:?}", info.totals),
        ));
    }
    Ok(GraspStudy {
        info,
        cells,
        trials,
    })
}

/// The first field in which two summaries differ as shards of one study: `(field, a, b)`.
fn shard_mismatch(a: &GraspStudyInfo, b: &GraspStudyInfo) -> Option<(String, String, String)> {
    let pairs: [(&str, String, String); 6] = [
        ("seed", a.seed.to_string(), b.seed.to_string()),
        ("step_mm", a.step_mm.to_string(), b.step_mm.to_string()),
        (
            "x_range_mm",
            format!("{:?}", a.x_range_mm),
            format!("{:?}", b.x_range_mm),
        ),
        (
            "y_range_mm",
            format!("{:?}", a.y_range_mm),
            format!("{:?}", b.y_range_mm),
        ),
        ("trials", a.trials.to_string(), b.trials.to_string()),
        (
            "shard.count",
            a.shard.count.to_string(),
            b.shard.count.to_string(),
        ),
    ];
    if let Some((field, x, y)) = pairs.into_iter().find(|(_, x, y)| x != y) {
        return Some((field.to_string(), x, y));
    }
    if a.model != b.model {
        let (ja, jb) = (
            serde_json::to_value(a.model).unwrap_or_default(),
            serde_json::to_value(b.model).unwrap_or_default(),
        );
        if let (Some(ma), Some(mb)) = (ja.as_object(), jb.as_object()) {
            for (k, va) in ma {
                let vb = mb.get(k).cloned().unwrap_or_default();
                if *va != vb {
                    return Some((format!("model.{k}"), va.to_string(), vb.to_string()));
                }
            }
        }
        return Some((
            "model".into(),
            format!("{:?}", a.model),
            format!("{:?}", b.model),
        ));
    }
    None
}

/// Joins the shard directories `dirs` of one study into the study an unsharded run gives
/// (its tables byte for byte): all shards of the same seed, grid, trials, model and shard
/// count, each index once. Refuses anything else, naming the file, the field and the reason.
pub fn merge(dirs: &[PathBuf]) -> Result<GraspStudy, GraspStudyError> {
    if dirs.is_empty() {
        return Err(GraspStudyError::Merge(
            "merge: no shard directories given".into(),
        ));
    }
    // The summaries first: a mismatch or a missing shard is reported before any table is read.
    let mut infos = Vec::with_capacity(dirs.len());
    for dir in dirs {
        let path = dir.join(STUDY_FILE);
        let info = read_info(&path)?;
        infos.push((path, info));
    }
    let (first_path, first) = &infos[0];
    for (path, info) in &infos[1..] {
        if let Some((field, a, b)) = shard_mismatch(first, info) {
            return Err(invalid(
                path,
                None,
                Some(&field),
                format!(
                    "is {b}, but {} has {a}: not shards of the same study",
                    first_path.display()
                ),
            ));
        }
    }
    let count = first.shard.count;
    let mut by_index: BTreeMap<usize, usize> = BTreeMap::new();
    for (k, (path, info)) in infos.iter().enumerate() {
        if let Some(&other) = by_index.get(&info.shard.index) {
            return Err(GraspStudyError::Merge(format!(
                "merge: {} and {} are both shard {}",
                infos[other].0.display(),
                path.display(),
                info.shard
            )));
        }
        by_index.insert(info.shard.index, k);
    }
    let missing: Vec<usize> = (0..count).filter(|i| !by_index.contains_key(i)).collect();
    if !missing.is_empty() {
        let list: Vec<String> = missing.iter().take(20).map(|i| i.to_string()).collect();
        return Err(GraspStudyError::Merge(format!(
            "merge: missing shard{} {}{} of {count} (0-based; given {} director{}): a merge needs every shard of the study",
            if missing.len() == 1 { "" } else { "s" },
            list.join(", "),
            if missing.len() > 20 {
                format!(" and {} more", missing.len() - 20)
            } else {
                String::new()
            },
            dirs.len(),
            if dirs.len() == 1 { "y" } else { "ies" }
        )));
    }
    let mut cells = Vec::new();
    let mut trials = Vec::new();
    let mut totals = Totals::default();
    let (mut wall, mut trial_time, mut threads) = (0.0, 0.0, 0);
    for &k in by_index.values() {
        let study = read_study(&dirs[k])?;
        totals.sum(&study.info.totals);
        wall += study.info.wall_time_s;
        trial_time += study.info.trial_time_s;
        threads += study.info.threads;
        cells.extend(study.cells);
        trials.extend(study.trials);
    }
    cells.sort_by_key(|c| c.cell);
    trials.sort_by_key(|t| (t.cell, t.trial));
    let info = GraspStudyInfo {
        shard: Shard::ALL,
        cells: cells.len(),
        totals,
        wall_time_s: wall,
        trial_time_s: trial_time,
        threads,
        merged_shards: Some(count),
        ..first.clone()
    };
    Ok(GraspStudy {
        info,
        cells,
        trials,
    })
}

/// Whether a claim holds, fails or could not be checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimStatus {
    /// Measured and supported.
    Holds,
    /// Measured and not supported.
    Fails,
    /// Not all of its cells were run.
    NotRun,
}

impl ClaimStatus {
    /// `yes`, `NO` or `not run`.
    pub fn word(&self) -> &'static str {
        match self {
            Self::Holds => "yes",
            Self::Fails => "NO",
            Self::NotRun => "not run",
        }
    }
}

/// One row of the grasp study's claims table.
#[derive(Debug, Clone, PartialEq)]
pub struct GraspClaim {
    /// The statement.
    pub claim: String,
    /// What was measured, or why it was not.
    pub measured: String,
    /// Whether it holds.
    pub status: ClaimStatus,
}

impl GraspClaim {
    fn new(claim: &str, measured: String, holds: bool) -> Self {
        Self {
            claim: claim.into(),
            measured,
            status: if holds {
                ClaimStatus::Holds
            } else {
                ClaimStatus::Fails
            },
        }
    }

    fn not_run(claim: &str, why: String) -> Self {
        Self {
            claim: claim.into(),
            measured: why,
            status: ClaimStatus::NotRun,
        }
    }
}

const EPS_MM: f64 = 1e-9;

/// A millimetre value as printed in the claims.
fn mm(v: f64) -> String {
    crate::output::format_f64((v * 1e6).round() / 1e6 + 0.0).replace('-', "\u{2212}")
}

/// `n thing` or `n things`.
fn plural(n: impl Into<u64>, thing: &str) -> String {
    let n = n.into();
    let suffix = match (n, thing.ends_with('s')) {
        (1, _) => "",
        (_, true) => "es",
        _ => "s",
    };
    format!("{n} {thing}{suffix}")
}

/// The cells of `grid` in `[x0, x1] × [y0, y1]` (mm), all run, or why not.
fn region<'a>(
    grid: &Grid,
    by_cell: &HashMap<usize, &'a CellCounts>,
    [x0, x1]: [f64; 2],
    [y0, y1]: [f64; 2],
) -> Result<Vec<&'a CellCounts>, String> {
    let covers = grid.x_range_mm[0] <= x0 + EPS_MM
        && grid.last_x() >= x1 - EPS_MM
        && grid.y_range_mm[0] <= y0 + EPS_MM
        && grid.last_y() >= y1 - EPS_MM;
    let area = format!(
        "x ∈ [{}, {}], y ∈ [{}, {}] mm",
        mm(x0),
        mm(x1),
        mm(y0),
        mm(y1)
    );
    if !covers {
        return Err(format!("not run: the grid does not cover {area}"));
    }
    let inside: Vec<usize> = (0..grid.cells())
        .filter(|&c| {
            let (x, y) = grid.point(c);
            x >= x0 - EPS_MM && x <= x1 + EPS_MM && y >= y0 - EPS_MM && y <= y1 + EPS_MM
        })
        .collect();
    if inside.is_empty() {
        return Err(format!("not run: no grid point in {area}"));
    }
    let run: Vec<&CellCounts> = inside
        .iter()
        .filter_map(|c| by_cell.get(c).copied())
        .collect();
    if run.len() < inside.len() {
        return Err(format!(
            "not run: {} of the {} cells in {area} were run",
            run.len(),
            inside.len()
        ));
    }
    Ok(run)
}

/// The claims about the map of `cells` over `grid` (see the module docs).
pub fn claims(grid: &Grid, cells: &[CellCounts]) -> Vec<GraspClaim> {
    let by_cell: HashMap<usize, &CellCounts> = cells.iter().map(|c| (c.cell, c)).collect();
    vec![
        symmetry(grid, &by_cell),
        plateau(grid, &by_cell),
        ridge(grid, &by_cell),
        diametric(grid, &by_cell),
    ]
}

fn symmetry(grid: &Grid, by_cell: &HashMap<usize, &CellCounts>) -> GraspClaim {
    const CLAIM: &str = "P symmetric in x: |P(x, y) − P(−x, y)| ≤ 3 binomial sd (pooled p)";
    let pairs: Vec<(usize, usize)> = (0..grid.cells())
        .filter_map(|c| {
            let (x, y) = grid.point(c);
            (x > EPS_MM).then(|| grid.index_of(-x, y).map(|m| (c, m)))?
        })
        .collect();
    if pairs.is_empty() {
        return GraspClaim::not_run(CLAIM, "not run: the grid has no mirror pairs".into());
    }
    let run: Vec<(&CellCounts, &CellCounts)> = pairs
        .iter()
        .filter_map(|(a, b)| Some((*by_cell.get(a)?, *by_cell.get(b)?)))
        .collect();
    if run.len() < pairs.len() {
        return GraspClaim::not_run(
            CLAIM,
            format!(
                "not run: {} of the grid's {} mirror pairs were run",
                run.len(),
                pairs.len()
            ),
        );
    }
    let (mut worst, mut beyond, mut skipped) = (None::<(f64, f64, &CellCounts)>, 0, 0);
    for (a, b) in &run {
        let (Some(pa), Some(pb)) = (a.success_rate(), b.success_rate()) else {
            skipped += 1;
            continue;
        };
        let (na, nb) = (a.valid() as f64, b.valid() as f64);
        let p = (a.successes + b.successes) as f64 / (na + nb);
        let sd = (p * (1.0 - p) * (1.0 / na + 1.0 / nb)).sqrt();
        let diff = (pa - pb).abs();
        if diff > 3.0 * sd + 1e-12 {
            beyond += 1;
        }
        let z = if sd > 0.0 { diff / sd } else { 0.0 };
        if worst.is_none_or(|(d, zz, _)| (diff, z) > (d, zz)) {
            worst = Some((diff, z, a));
        }
    }
    let Some((diff, z, at)) = worst else {
        return GraspClaim::not_run(
            CLAIM,
            format!(
                "not run: none of the {} mirror pairs has valid trials on both sides",
                run.len()
            ),
        );
    };
    let skipped = if skipped > 0 {
        format!(" ({skipped} without valid trials skipped)")
    } else {
        String::new()
    };
    GraspClaim::new(
        CLAIM,
        format!(
            "{}{skipped}: largest |ΔP| = {diff:.2} at x = ±{}, y = {} mm ({z:.1} sd); {beyond} beyond 3 sd",
            plural(run.len() as u64, "pair"),
            mm(at.x_mm),
            mm(at.y_mm)
        ),
        beyond == 0,
    )
}

fn plateau(grid: &Grid, by_cell: &HashMap<usize, &CellCounts>) -> GraspClaim {
    const CLAIM: &str = "plateau: P ≥ 0.9 over |x| ≤ 3 mm, y ∈ [−14, −8] mm";
    let [sx, sy] = SWEET_SPOT_MM;
    let h = PLATEAU_HALF_MM;
    let cells = match region(grid, by_cell, [sx - h, sx + h], [sy - h, sy + h]) {
        Ok(c) => c,
        Err(why) => return GraspClaim::not_run(CLAIM, why),
    };
    let no_data = cells.iter().filter(|c| c.success_rate().is_none()).count();
    let lowest = cells
        .iter()
        .filter_map(|c| Some((c.success_rate()?, *c)))
        .min_by(|a, b| a.0.total_cmp(&b.0));
    let below = cells
        .iter()
        .filter(|c| c.success_rate().is_none_or(|p| p < 0.9))
        .count();
    let no_data_text = if no_data > 0 {
        format!(", {no_data} without a valid trial")
    } else {
        String::new()
    };
    let measured = match lowest {
        Some((p, c)) => format!(
            "{}: lowest P = {p:.2} at ({}, {}) mm, {below} below 0.9{no_data_text}",
            plural(cells.len() as u64, "cell"),
            mm(c.x_mm),
            mm(c.y_mm)
        ),
        None => format!("{} cells, none with a valid trial", cells.len()),
    };
    GraspClaim::new(CLAIM, measured, below == 0)
}

fn ridge(grid: &Grid, by_cell: &HashMap<usize, &CellCounts>) -> GraspClaim {
    // With finitely many trials the largest P is often 1 on a run of cells (a plateau): the
    // claim is that the band attains the maximum, and where else it is attained is reported.
    const CLAIM: &str = "along x = 0, P reaches its maximum within y ∈ [−14, −8] mm";
    let [_, sy] = SWEET_SPOT_MM;
    let h = PLATEAU_HALF_MM;
    if grid.y_range_mm[0] > sy - h + EPS_MM || grid.last_y() < sy + h - EPS_MM {
        return GraspClaim::not_run(
            CLAIM,
            "not run: the grid does not cover y ∈ [−14, −8] mm".into(),
        );
    }
    let cells = match region(
        grid,
        by_cell,
        [0.0, 0.0],
        [grid.y_range_mm[0], grid.last_y()],
    ) {
        Ok(c) => c,
        Err(why) => return GraspClaim::not_run(CLAIM, why),
    };
    let rates: Vec<(f64, f64)> = cells
        .iter()
        .filter_map(|c| Some((c.y_mm, c.success_rate()?)))
        .collect();
    let Some(best) = rates.iter().map(|r| r.1).max_by(f64::total_cmp) else {
        return GraspClaim::not_run(CLAIM, "not run: no valid trial along x = 0".into());
    };
    let at: Vec<f64> = rates
        .iter()
        .filter(|r| r.1 >= best - 1e-12)
        .map(|r| r.0)
        .collect();
    let inside = |y: f64| y >= sy - h - EPS_MM && y <= sy + h + EPS_MM;
    let (lo, hi) = (at[0], at[at.len() - 1]);
    let place = if at.len() == 1 {
        format!("y = {} mm", mm(lo))
    } else {
        format!("y = {} … {} mm ({} cells)", mm(lo), mm(hi), at.len())
    };
    let outside = at.iter().filter(|&&y| !inside(y)).count();
    let measured = if outside == 0 {
        format!("largest P = {best:.2} at {place}")
    } else {
        format!("largest P = {best:.2} at {place}; {outside} of them outside the band")
    };
    GraspClaim::new(CLAIM, measured, at.iter().any(|&y| inside(y)))
}

fn diametric(grid: &Grid, by_cell: &HashMap<usize, &CellCounts>) -> GraspClaim {
    const CLAIM: &str = "near-diametric grasps (y ∈ [−2, 0] mm) mostly fail: mean P < 0.5";
    let cells = match region(
        grid,
        by_cell,
        [grid.x_range_mm[0], grid.last_x()],
        [-2.0, 0.0],
    ) {
        Ok(c) => c,
        Err(why) => return GraspClaim::not_run(CLAIM, why),
    };
    let rates: Vec<f64> = cells.iter().filter_map(|c| c.success_rate()).collect();
    if rates.is_empty() {
        return GraspClaim::not_run(CLAIM, "not run: no valid trial in y ∈ [−2, 0] mm".into());
    }
    let mean = rates.iter().sum::<f64>() / rates.len() as f64;
    let max = rates.iter().copied().fold(0.0, f64::max);
    GraspClaim::new(
        CLAIM,
        format!(
            "mean P = {mean:.2} over {} (largest {max:.2})",
            plural(rates.len() as u64, "cell")
        ),
        mean < 0.5,
    )
}

/// The claims as a text table (as [`crate::paper::format_claims`], with `not run`).
pub fn format_claims(claims: &[GraspClaim]) -> String {
    let rows: Vec<[&str; 4]> = claims
        .iter()
        .map(|c| {
            [
                "grasp",
                c.claim.as_str(),
                c.measured.as_str(),
                c.status.word(),
            ]
        })
        .collect();
    crate::paper::claims_table(["case", "claim", "measured", "holds"], &rows)
}

/// What `implicit-contact paper grasp` did.
#[derive(Debug, Clone, PartialEq)]
pub struct PaperGrasp {
    /// The study's directory, `<out>/grasp`.
    pub dir: PathBuf,
    /// The study run here (`None`: drawn from the tables found in `dir`).
    pub ran: Option<GraspStudy>,
    /// The grid of the map.
    pub grid: Grid,
    /// The cells of the map.
    pub cells: Vec<CellCounts>,
    /// The claims about it.
    pub claims: Vec<GraspClaim>,
    /// The figure's files in the plots folder.
    pub figures: Vec<PathBuf>,
}

/// `implicit-contact paper grasp`: if `<out>/grasp/grasp_success.csv` exists (a study merged
/// there, say), the figure is drawn from it (over the grid of its `grasp_study.json`, or the
/// grid its points lie on); otherwise the reduced study ([`GraspStudyConfig::paper_reduced`],
/// `threads` workers) is run into `<out>/grasp` first. The figure goes into `plots`.
pub fn paper(
    out: &Path,
    plots: &Path,
    threads: usize,
    progress: impl Fn(usize, usize) + Sync,
) -> Result<PaperGrasp, GraspStudyError> {
    let dir = out.join("grasp");
    let table = dir.join(SUCCESS_FILE);
    let (ran, grid, cells, map) = if table.exists() {
        let summary = dir.join(STUDY_FILE);
        let info = if summary.exists() {
            Some(read_info(&summary)?)
        } else {
            None
        };
        let (grid, cells) = read_success_csv(&table, info.as_ref().map(|i| i.grid()).as_ref())?;
        let subtitle = match &info {
            Some(i) => format!(
                "{} trials per cell, seed {}; P = successes / valid trials",
                i.trials, i.seed
            ),
            None => "P = successes / valid trials".into(),
        };
        let map = success_map(&grid, &cells, subtitle);
        (None, grid, cells, map)
    } else {
        let config = GraspStudyConfig {
            threads,
            ..GraspStudyConfig::paper_reduced()
        };
        let study = run_study(&config, progress)?;
        study.write(&dir)?;
        let map = study.success_map();
        let (grid, cells) = (study.grid(), study.cells.clone());
        (Some(study), grid, cells, map)
    };
    let figures = grasp_map::save(&map, plots, FIGURE_STEM)?;
    let claims = claims(&grid, &cells);
    Ok(PaperGrasp {
        dir,
        ran,
        grid,
        cells,
        claims,
        figures,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(grid: &Grid, rate: impl Fn(f64, f64) -> (u64, u64, u64)) -> Vec<CellCounts> {
        (0..grid.cells())
            .map(|cell| {
                let (x_mm, y_mm) = grid.point(cell);
                let (trials, successes, solver_failures) = rate(x_mm, y_mm);
                CellCounts {
                    cell,
                    x_mm,
                    y_mm,
                    trials,
                    successes,
                    solver_failures,
                }
            })
            .collect()
    }

    #[test]
    fn the_default_grid_is_the_papers_box_at_1_mm() {
        let g = Grid::default();
        assert_eq!((g.columns(), g.rows(), g.cells()), (21, 21, 441));
        assert_eq!(g.point(0), (-10.0, -20.0));
        assert_eq!(g.point(440), (10.0, 0.0));
        assert_eq!(g.point(21), (-10.0, -19.0));
        assert_eq!(g.index_of(0.0, -11.0), Some(9 * 21 + 10));
        assert_eq!(g.index_of(0.5, -11.0), None);
        for c in 0..g.cells() {
            let (x, y) = g.point(c);
            assert_eq!(g.index_of(x, y), Some(c));
        }
        // Decimal steps print short and reach the end of the range.
        let fine = Grid {
            step_mm: 0.1,
            ..Grid::default()
        };
        assert_eq!(fine.columns(), 201);
        assert_eq!(fine.point(3).0, -9.7);
        assert_eq!(fine.last_x(), 10.0);
        assert!(
            Grid {
                step_mm: 0.0,
                ..Grid::default()
            }
            .problem()
            .is_some()
        );
        assert!(
            Grid {
                step_mm: 1e-3,
                ..Grid::default()
            }
            .problem()
            .is_some()
        );
    }

    #[test]
    fn shards_and_ranges_parse() {
        assert_eq!(
            Shard::parse("3/10"),
            Ok(Shard {
                index: 3,
                count: 10
            })
        );
        assert!(Shard::parse("10/10").unwrap_err().contains("below"));
        assert!(Shard::parse("0/0").is_err());
        assert!(Shard::parse("3").is_err());
        assert_eq!(parse_range_mm("-10,10"), Ok([-10.0, 10.0]));
        assert_eq!(parse_range_mm(" -20 , 0 "), Ok([-20.0, 0.0]));
        assert!(parse_range_mm("1,0").is_err());
        assert!(parse_range_mm("nan,1").is_err());
        // The shards partition the grid.
        let g = Grid::default();
        let mut all: Vec<usize> = (0..7)
            .flat_map(|i| shard_cells(&g, Shard { index: i, count: 7 }))
            .collect();
        all.sort_unstable();
        assert_eq!(all, (0..441).collect::<Vec<_>>());
    }

    #[test]
    fn draws_are_a_pure_function_within_the_bounds() {
        let model = GraspModel::default();
        let a = draw(&model, 1, 17, 3);
        // Other draws in between change nothing.
        for cell in 0..50 {
            let _ = draw(&model, 1, cell, 0);
        }
        assert_eq!(draw(&model, 1, 17, 3), a);
        assert_ne!(draw(&model, 2, 17, 3), a);
        assert_ne!(draw(&model, 1, 18, 3), a);
        assert_ne!(draw(&model, 1, 17, 4), a);
        // SplitMix64's first output from state 0 (the reference value of the algorithm).
        assert_eq!(finalize(GOLDEN), 0xE220_A839_7B1D_CDAF);
        let mut lo: f64 = 1.0;
        let mut hi: f64 = 0.0;
        for cell in 0..2000 {
            let (s, g) = draw(&model, 9, cell, 0);
            for v in [s, g] {
                assert!((0.1..0.3).contains(&v), "{v}");
                lo = lo.min(v);
                hi = hi.max(v);
            }
        }
        assert!(lo < 0.101 && hi > 0.299, "{lo} {hi}");
        let fixed = GraspModel {
            mu_support: [0.2, 0.2],
            ..model
        };
        assert_eq!(draw(&fixed, 1, 0, 0).0, 0.2);
    }

    #[test]
    fn csv_fields_are_quoted_when_needed() {
        let mut s = String::new();
        push_text(&mut s, "plain");
        push_text(&mut s, "a, \"b\"");
        push_text(&mut s, " x");
        assert_eq!(s, "plain\"a, \"\"b\"\"\"\" x\"");
    }

    #[test]
    fn claims_hold_on_an_ideal_map_and_fail_on_a_bad_one() {
        let g = Grid {
            step_mm: 2.0,
            ..Grid::default()
        };
        let ideal = counts(&g, |x, y| {
            let s = if y < -2.5 && (y + 11.0).abs() <= 3.5 && x.abs() <= 4.0 {
                if y == -12.0 { 10 } else { 9 }
            } else {
                1
            };
            (10, s, 0)
        });
        let c = claims(&g, &ideal);
        assert_eq!(c.len(), 4);
        for claim in &c {
            assert_eq!(claim.status, ClaimStatus::Holds, "{claim:?}");
        }
        // Lopsided, low plateau, ridge too high, diametric successes.
        let bad = counts(&g, |x, y| {
            (
                10,
                if x > 0.0 {
                    10
                } else if y > -5.0 {
                    8
                } else {
                    0
                },
                0,
            )
        });
        let c = claims(&g, &bad);
        for claim in &c {
            assert_eq!(claim.status, ClaimStatus::Fails, "{claim:?}");
        }
        let table = format_claims(&c);
        assert!(
            table.lines().count() == 5 && table.contains("NO"),
            "{table}"
        );
    }

    #[test]
    fn claims_on_a_partial_grid_are_not_run() {
        let g = Grid::default();
        let shard = Shard { index: 1, count: 4 };
        let cells: Vec<CellCounts> = counts(&g, |_, _| (4, 4, 0))
            .into_iter()
            .filter(|c| shard.contains(c.cell))
            .collect();
        for claim in claims(&g, &cells) {
            assert_eq!(claim.status, ClaimStatus::NotRun, "{claim:?}");
            assert!(claim.measured.starts_with("not run"), "{claim:?}");
        }
        // A grid away from the box: nothing to say.
        let away = Grid {
            step_mm: 1.0,
            x_range_mm: [5.0, 8.0],
            y_range_mm: [-5.0, -4.0],
        };
        let cells = counts(&away, |_, _| (4, 1, 0));
        for claim in claims(&away, &cells) {
            assert_eq!(claim.status, ClaimStatus::NotRun, "{claim:?}");
        }
        // Cells with only solver failures: no rate, and the plateau fails.
        let failing = counts(&g, |_, _| (4, 0, 4));
        let c = claims(&g, &failing);
        assert_eq!(c[1].status, ClaimStatus::Fails, "{:?}", c[1]);
        assert_eq!(c[0].status, ClaimStatus::NotRun, "{:?}", c[0]);
    }

    #[test]
    fn model_files_name_the_field_and_the_line() {
        let path = Path::new("my_model.toml");
        let m = parse_model("jaw_force = 3.0\nmu_gripper = [0.2, 0.4]\n", path).unwrap();
        assert_eq!(m.jaw_force, 3.0);
        assert_eq!(m.mu_gripper, [0.2, 0.4]);
        assert_eq!(m.gear_mass, GraspModel::default().gear_mass);
        let e = parse_model("jaw_force = 3.0\njaw_forse = 2.0\n", path)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("my_model.toml:2: field `jaw_forse`: unknown field"),
            "{e}"
        );
        let e = parse_model("gear_mass = \"heavy\"\n", path)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("my_model.toml:1: field `gear_mass`"), "{e}");
        let e = parse_model("\n\n  timeout = -1.0\n", path)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("my_model.toml:3: field `timeout`: must be"),
            "{e}"
        );
        let e = parse_model("mu_support = [0.3, 0.1]", path)
            .unwrap_err()
            .to_string();
        assert!(e.contains("field `mu_support`"), "{e}");
        let e = parse_model("gear_mass = = 1", path)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("my_model.toml:1: "), "{e}");
    }
}
