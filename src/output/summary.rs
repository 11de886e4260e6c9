//! `summary.json`: the statistics of a run, accumulated step by step.

use crate::mcp::SolveReport;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Duration;

/// The median of `values`: the middle value of the sorted values, and for an even count the mean
/// of the two middle values (the usual definition, as `numpy.median`), so the median of Newton
/// iteration counts may be a half-integer. NaN for no values. Sorting uses the IEEE total order,
/// so NaN values (not expected) sort last instead of panicking.
pub fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut sorted = values.to_vec();
    sorted.sort_unstable_by(f64::total_cmp);
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        // Halving first cannot overflow.
        sorted[n / 2 - 1] / 2.0 + sorted[n / 2] / 2.0
    }
}

/// Newton (major) iterations per step.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct IterationStats {
    /// Median over the steps ([`median`]); `null` in JSON for a run without steps.
    #[serde(with = "nan_as_null")]
    pub median: f64,
    /// Maximum over the steps (0 for a run without steps).
    pub max: usize,
}

/// Wall time per step, in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TimeStats {
    /// Median over the steps ([`median`]); `null` in JSON for a run without steps.
    #[serde(with = "nan_as_null")]
    pub median: f64,
    /// Maximum over the steps; `null` in JSON for a run without steps.
    #[serde(with = "nan_as_null")]
    pub max: f64,
    /// Mean over the steps (an extension of the contract: a median hides a few slow steps
    /// that dominate a run's cost); `null` in JSON for a run without steps, and NaN when read
    /// from a summary written before this key existed.
    #[serde(default = "nan", with = "nan_as_null")]
    pub mean: f64,
}

fn nan() -> f64 {
    f64::NAN
}

/// Total energy (kinetic plus potential) over the run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EnergySummary {
    /// At step 0, the initial state.
    #[serde(with = "nan_as_null")]
    pub initial_total: f64,
    /// At the last step recorded (the initial value if none).
    #[serde(with = "nan_as_null")]
    pub final_total: f64,
    /// `max_k |E_k − E_0|` over the recorded steps; `null` if an energy was not finite.
    #[serde(with = "nan_as_null")]
    pub max_abs_drift: f64,
}

/// The friction parameters of one contact of the run (the `contacts` list of `summary.json`),
/// so that figures can draw `μ·p_n` over the friction magnitude from the run's files alone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContactFriction {
    /// The `contact` index of `contacts.csv`.
    pub contact: usize,
    /// `body1` (holding `a1`).
    pub body1: String,
    /// `body2`.
    pub body2: String,
    /// Coefficient of friction `μ`.
    pub mu: f64,
    /// Semi-axis of the friction ellipsoid along the first tangent direction.
    pub e_t: f64,
    /// Semi-axis along the second tangent direction (3D).
    pub e_o: f64,
    /// Semi-axis of the torsional moment (3D).
    pub e_r: f64,
}

/// The content of `summary.json`. Its keys are a contract (`ARCHITECTURE.md`); `final_time`,
/// `steps_by_solver`, `contacts` and `max_joint_drift` extend it.
///
/// Numbers that are not available, or not finite, are written as `null` (JSON has no NaN) and
/// read back as NaN.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// The scenario's name.
    pub scenario: String,
    /// The stepper, e.g. `implicit` or `lcp`.
    pub stepper: String,
    /// False if the run stopped early; then `reason` says why.
    pub complete: bool,
    /// Why the run stopped early; absent from the JSON for a complete run. It holds no wall
    /// time (the same failing scenario gives the same reason; timings have fields named for
    /// them, such as `failed_step_wall_time_s`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Steps taken (the initial state, step 0, is not a step).
    pub steps: usize,
    /// Steps that needed at least one retry.
    pub retried_steps: usize,
    /// Steps whose final solve did not converge (kept as the best available answer).
    pub failed_steps: usize,
    /// Newton (major) iterations per step, [`SolveReport::major_iterations`].
    pub newton_iterations: IterationStats,
    /// Wall time per step in seconds, retries included.
    pub wall_time_per_step_s: TimeStats,
    /// Deepest penetration in metres, `max(−gap, 0)` over the contacts (`gap` the signed
    /// distance of `contacts.csv`) at the end of any step; `null` if one was NaN.
    #[serde(with = "nan_as_null")]
    pub max_penetration: f64,
    /// Worst natural residual of the steps' final solves; `null` if one could not be
    /// evaluated (NaN in its report) or for a run without steps.
    #[serde(with = "nan_as_null")]
    pub max_residual: f64,
    /// Total energy at the start and the end, and its worst drift.
    pub energy: EnergySummary,
    /// Time at the end of the last step; for a run without steps the start time (`null` only
    /// if that is unknown).
    #[serde(with = "nan_as_null")]
    pub final_time: f64,
    /// How many steps each solver answered ([`crate::mcp::SolverKind`]'s display names).
    pub steps_by_solver: BTreeMap<String, usize>,
    /// Each contact's bodies and friction parameters, by contact index (empty when the stepper
    /// did not give them; absent in summaries written before this key existed).
    #[serde(default)]
    pub contacts: Vec<ContactFriction>,
    /// Wall time in seconds of the step that failed and stopped the run (retries included);
    /// absent when no step failed. A timing field, like `wall_time_per_step_s`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_step_wall_time_s: Option<f64>,
    /// The largest joint drift (`drift` of `joints.csv`: the largest constraint row `|Θ|`, in
    /// metres or the sine of an angle) at the initial poses and at the end of any step; absent
    /// for a scene without joints, `null` if a drift was not finite.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "optional_nan_as_null"
    )]
    pub max_joint_drift: Option<f64>,
}

/// What the summary needs to know about one step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepStats<'a> {
    /// Time at the end of the step.
    pub t: f64,
    /// The report of the step's final (accepted) solve. Its status decides whether the step
    /// counts as failed; its `major_iterations` are the step's Newton iterations (a stepper that
    /// wants retries counted too can [`SolveReport::accumulate`] them into it).
    pub report: &'a SolveReport,
    /// How many times the step was redone before this solve (0 normally).
    pub retries: usize,
    /// Wall time of the whole step, retries and assembly included.
    pub wall_time: Duration,
    /// Deepest penetration at the end of the step, `max(−gap, 0)` over the contacts (0 if
    /// none); negative values count as 0.
    pub penetration: f64,
    /// Total energy (kinetic plus potential) at the end of the step.
    pub total_energy: f64,
}

/// The largest value seen, where one NaN makes the result NaN ("unknown") for good.
#[derive(Debug, Clone, Copy)]
struct Worst {
    value: f64,
    unknown: bool,
}

impl Worst {
    fn new(start: f64) -> Self {
        Self {
            value: start,
            unknown: false,
        }
    }

    fn push(&mut self, x: f64) {
        if x.is_nan() {
            self.unknown = true;
        } else if x > self.value {
            self.value = x;
        }
    }

    fn get(&self) -> f64 {
        if self.unknown { f64::NAN } else { self.value }
    }
}

/// Accumulates [`StepStats`] over a run and produces the [`Summary`].
///
/// ```
/// use implicit_contact::mcp::{SolveReport, SolverKind, Status};
/// use implicit_contact::output::{StepStats, SummaryBuilder};
/// use std::time::Duration;
///
/// let mut stats = SummaryBuilder::new("rolling disc", "implicit", 10.0);
/// let mut report = SolveReport::new(SolverKind::PathSearch);
/// report.status = Status::Converged;
/// report.major_iterations = 4;
/// report.residual = 1e-12;
/// stats.record(&StepStats {
///     t: 0.01,
///     report: &report,
///     retries: 0,
///     wall_time: Duration::from_micros(250),
///     penetration: 1e-9,
///     total_energy: 9.99,
/// });
/// let summary = stats.complete();
/// assert_eq!(summary.steps, 1);
/// assert_eq!(summary.newton_iterations.max, 4);
/// ```
#[derive(Debug, Clone)]
pub struct SummaryBuilder {
    scenario: String,
    stepper: String,
    iterations: Vec<f64>,
    max_iterations: usize,
    wall_times: Vec<f64>,
    wall_time_sum: f64,
    max_wall_time: Worst,
    retried_steps: usize,
    failed_steps: usize,
    penetration: Worst,
    residual: Worst,
    initial_energy: f64,
    final_energy: f64,
    drift: Worst,
    final_time: f64,
    steps_by_solver: BTreeMap<String, usize>,
    contacts: Vec<ContactFriction>,
    failed_step_wall_time: Option<f64>,
    joint_drift: Option<Worst>,
}

impl SummaryBuilder {
    /// A builder for a run of `scenario` by `stepper`, whose initial state (step 0) has total
    /// energy `initial_total_energy`.
    pub fn new(
        scenario: impl Into<String>,
        stepper: impl Into<String>,
        initial_total_energy: f64,
    ) -> Self {
        Self {
            scenario: scenario.into(),
            stepper: stepper.into(),
            iterations: Vec::new(),
            max_iterations: 0,
            wall_times: Vec::new(),
            wall_time_sum: 0.0,
            max_wall_time: Worst::new(f64::NEG_INFINITY),
            retried_steps: 0,
            failed_steps: 0,
            penetration: Worst::new(0.0),
            residual: Worst::new(f64::NEG_INFINITY),
            initial_energy: initial_total_energy,
            final_energy: initial_total_energy,
            drift: Worst::new(0.0),
            final_time: f64::NAN,
            steps_by_solver: BTreeMap::new(),
            contacts: Vec::new(),
            failed_step_wall_time: None,
            joint_drift: None,
        }
    }

    /// Records the time the run starts at: the `final_time` of a run that takes no step.
    pub fn set_start_time(&mut self, t: f64) {
        if self.iterations.is_empty() {
            self.final_time = t;
        }
    }

    /// Records the run's contacts and their friction parameters (the summary's `contacts`).
    pub fn set_contacts(&mut self, contacts: Vec<ContactFriction>) {
        self.contacts = contacts;
    }

    /// Records a drift of the scene's joints (the largest over its joints, at the initial
    /// poses or after a step): `max_joint_drift` is the largest recorded, and absent when
    /// none was (a scene without joints).
    pub fn record_joint_drift(&mut self, drift: f64) {
        self.joint_drift
            .get_or_insert_with(|| Worst::new(0.0))
            .push(drift);
    }

    /// Adds one step.
    pub fn record(&mut self, step: &StepStats<'_>) {
        let report = step.report;
        self.iterations.push(report.major_iterations as f64);
        self.max_iterations = self.max_iterations.max(report.major_iterations);
        let wall = step.wall_time.as_secs_f64();
        self.wall_times.push(wall);
        self.wall_time_sum += wall;
        self.max_wall_time.push(wall);
        self.retried_steps += usize::from(step.retries > 0);
        self.failed_steps += usize::from(!report.converged());
        self.penetration.push(step.penetration);
        self.residual.push(report.residual);
        self.final_energy = step.total_energy;
        self.drift
            .push((step.total_energy - self.initial_energy).abs());
        self.final_time = step.t;
        *self
            .steps_by_solver
            .entry(report.solver.to_string())
            .or_default() += 1;
    }

    /// Steps recorded so far.
    pub fn steps(&self) -> usize {
        self.iterations.len()
    }

    /// The summary of a run that reached its end: `complete: true`, no `reason`.
    pub fn complete(&self) -> Summary {
        self.build(true, None)
    }

    /// Counts a step that did not converge and stopped the run (it is not [`record`](Self::record)ed:
    /// the state did not advance).
    pub fn record_failed_step(&mut self, retries: usize) {
        self.failed_steps += 1;
        self.retried_steps += usize::from(retries > 0);
    }

    /// Records the wall time of the step that stopped the run (`failed_step_wall_time_s`).
    pub fn set_failed_step_wall_time(&mut self, wall_time: Duration) {
        self.failed_step_wall_time = Some(wall_time.as_secs_f64());
    }

    /// The summary of a run that stopped early: `complete: false` with `reason` (for example
    /// "step 412 failed: stalled", or "interrupted").
    pub fn incomplete(&self, reason: impl Into<String>) -> Summary {
        self.build(false, Some(reason.into()))
    }

    fn build(&self, complete: bool, reason: Option<String>) -> Summary {
        let no_steps = self.iterations.is_empty();
        // A complete run without steps (`duration = 0`) took no time and no iteration: its
        // statistics are zeros, not unknowns. An interrupted one never got to measure them.
        let empty = if complete { 0.0 } else { f64::NAN };
        let or_empty = |x: f64| if no_steps { empty } else { x };
        Summary {
            scenario: self.scenario.clone(),
            stepper: self.stepper.clone(),
            complete,
            reason,
            steps: self.steps(),
            retried_steps: self.retried_steps,
            failed_steps: self.failed_steps,
            newton_iterations: IterationStats {
                median: or_empty(median(&self.iterations)),
                max: self.max_iterations,
            },
            wall_time_per_step_s: TimeStats {
                median: or_empty(median(&self.wall_times)),
                max: or_empty(self.max_wall_time.get()),
                mean: or_empty(self.wall_time_sum / self.wall_times.len().max(1) as f64),
            },
            max_penetration: self.penetration.get(),
            max_residual: or_empty(self.residual.get()),
            energy: EnergySummary {
                initial_total: self.initial_energy,
                final_total: self.final_energy,
                max_abs_drift: self.drift.get(),
            },
            final_time: self.final_time,
            steps_by_solver: self.steps_by_solver.clone(),
            contacts: self.contacts.clone(),
            failed_step_wall_time_s: self.failed_step_wall_time,
            max_joint_drift: self.joint_drift.map(|w| w.get()),
        }
    }
}

/// An optional `f64` whose non-finite values are JSON `null` (read back as `Some(NaN)`); `None`
/// is meant to be skipped (`skip_serializing_if`), so an absent key reads back as `None`.
mod optional_nan_as_null {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(x: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
        match x {
            Some(x) if x.is_finite() => s.serialize_f64(*x),
            _ => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        Ok(Some(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN)))
    }
}

/// Non-finite `f64` as JSON `null`, and `null` back as NaN.
mod nan_as_null {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
        if x.is_finite() {
            s.serialize_f64(*x)
        } else {
            s.serialize_none()
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::{SolverKind, Status};
    use serde_json::Value;

    fn report(status: Status, iterations: usize, residual: f64) -> SolveReport {
        let mut r = SolveReport::new(SolverKind::PathSearch);
        r.status = status;
        r.major_iterations = iterations;
        r.residual = residual;
        r
    }

    fn step(t: f64, report: &SolveReport, micros: u64, pen: f64, e: f64) -> StepStats<'_> {
        StepStats {
            t,
            report,
            retries: 0,
            wall_time: Duration::from_micros(micros),
            penetration: pen,
            total_energy: e,
        }
    }

    #[test]
    fn median_definition() {
        assert!(median(&[]).is_nan());
        assert_eq!(median(&[3.0]), 3.0);
        assert_eq!(median(&[5.0, 1.0, 3.0]), 3.0);
        // Even count: the mean of the two middle values.
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&[7.0, 7.0]), 7.0);
        assert_eq!(median(&[f64::MAX, f64::MAX]), f64::MAX, "no overflow");
    }

    #[test]
    fn statistics_from_steps() {
        let mut b = SummaryBuilder::new("s", "implicit", 10.0);
        let r1 = report(Status::Converged, 3, 1e-12);
        let r2 = report(Status::Converged, 8, 3e-11);
        let mut r3 = report(Status::Stalled, 5, 1e-6);
        r3.solver = SolverKind::LevenbergMarquardt;
        let r4 = report(Status::Converged, 4, 2e-12);
        b.record(&step(0.1, &r1, 100, 0.0, 10.0));
        b.record(&StepStats {
            retries: 2,
            ..step(0.2, &r2, 400, 2e-6, 9.5)
        });
        b.record(&step(0.3, &r3, 200, -1.0, 10.25));
        b.record(&step(0.4, &r4, 300, 1e-7, 9.75));
        let s = b.complete();
        assert_eq!(s.steps, 4);
        assert_eq!(s.retried_steps, 1);
        assert_eq!(s.failed_steps, 1);
        assert_eq!(s.newton_iterations.median, 4.5);
        assert_eq!(s.newton_iterations.max, 8);
        assert!((s.wall_time_per_step_s.median - 250e-6).abs() < 1e-18);
        assert_eq!(s.wall_time_per_step_s.max, 400e-6);
        assert!((s.wall_time_per_step_s.mean - 250e-6).abs() < 1e-18);
        assert_eq!(s.max_penetration, 2e-6);
        assert_eq!(s.max_residual, 1e-6);
        assert_eq!(s.energy.initial_total, 10.0);
        assert_eq!(s.energy.final_total, 9.75);
        assert_eq!(s.energy.max_abs_drift, 0.5);
        assert_eq!(s.final_time, 0.4);
        assert_eq!(s.steps_by_solver["path"], 3);
        assert_eq!(s.steps_by_solver["levenberg-marquardt"], 1);
        assert!(s.complete && s.reason.is_none());
    }

    #[test]
    fn nan_residual_makes_max_residual_unknown() {
        let mut b = SummaryBuilder::new("s", "implicit", 0.0);
        let bad = report(Status::NonFiniteFunction, 2, f64::NAN);
        let good = report(Status::Converged, 2, 1e-3);
        b.record(&step(0.1, &bad, 1, 0.0, 0.0));
        b.record(&step(0.2, &good, 1, 0.0, 0.0));
        let s = b.complete();
        assert!(s.max_residual.is_nan());
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(v["max_residual"], Value::Null);
    }

    fn assert_contract_keys(v: &Value) {
        let obj = v.as_object().unwrap();
        assert!(v["scenario"].is_string());
        assert!(v["stepper"].is_string());
        assert!(v["complete"].is_boolean());
        for key in ["steps", "retried_steps", "failed_steps"] {
            assert!(v[key].is_u64(), "{key}");
        }
        assert!(v["newton_iterations"]["median"].is_number());
        assert!(v["newton_iterations"]["max"].is_u64());
        for key in ["median", "max"] {
            assert!(v["wall_time_per_step_s"][key].is_f64(), "{key}");
        }
        assert!(v["max_penetration"].is_number());
        assert!(v["max_residual"].is_number());
        for key in ["initial_total", "final_total", "max_abs_drift"] {
            assert!(v["energy"][key].is_number(), "{key}");
        }
        for key in [
            "scenario",
            "stepper",
            "complete",
            "steps",
            "retried_steps",
            "failed_steps",
            "newton_iterations",
            "wall_time_per_step_s",
            "max_penetration",
            "max_residual",
            "energy",
        ] {
            assert!(obj.contains_key(key), "{key}");
        }
    }

    fn two_steps() -> SummaryBuilder {
        let mut b = SummaryBuilder::new("rolling disc", "implicit", 1.5);
        let r = report(Status::Converged, 5, 1e-11);
        b.record(&step(0.01, &r, 120, 1e-9, 1.5));
        b.record(&step(0.02, &r, 130, 0.0, 1.4999999));
        b
    }

    #[test]
    fn complete_summary_json_has_the_contract_keys_and_types() {
        let s = two_steps().complete();
        let text = serde_json::to_string_pretty(&s).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_contract_keys(&v);
        assert_eq!(v["complete"], Value::Bool(true));
        assert!(v.get("reason").is_none(), "no reason for a complete run");
        assert_eq!(v["scenario"], "rolling disc");
        assert_eq!(v["steps"], 2);
        let back: Summary = serde_json::from_str(&text).unwrap();
        assert_eq!(back, s);
    }

    #[test]
    fn incomplete_summary_carries_complete_false_and_reason() {
        let s = two_steps().incomplete("step 3 failed: stalled");
        let v = serde_json::to_value(&s).unwrap();
        assert_contract_keys(&v);
        assert_eq!(v["complete"], Value::Bool(false));
        assert_eq!(v["reason"], "step 3 failed: stalled");
    }

    #[test]
    fn run_without_steps_writes_nulls_not_nan() {
        let s = SummaryBuilder::new("s", "lcp", 2.0).incomplete("interrupted");
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(v["steps"], 0);
        assert_eq!(v["newton_iterations"]["median"], Value::Null);
        assert_eq!(v["newton_iterations"]["max"], 0);
        assert_eq!(v["wall_time_per_step_s"]["max"], Value::Null);
        assert_eq!(v["max_residual"], Value::Null);
        assert_eq!(v["max_penetration"], 0.0);
        assert_eq!(v["energy"]["final_total"], 2.0);
        assert_eq!(v["energy"]["max_abs_drift"], 0.0);
        let back: Summary = serde_json::from_value(v).unwrap();
        assert!(back.max_residual.is_nan());
    }

    #[test]
    fn joint_drift_is_absent_without_joints_and_the_largest_with() {
        let v = serde_json::to_value(two_steps().complete()).unwrap();
        assert!(v.get("max_joint_drift").is_none(), "no joints, no key");
        let mut b = two_steps();
        for d in [1e-16, 3e-12, 2e-13] {
            b.record_joint_drift(d);
        }
        let s = b.complete();
        assert_eq!(s.max_joint_drift, Some(3e-12));
        let text = serde_json::to_string(&s).unwrap();
        let back: Summary = serde_json::from_str(&text).unwrap();
        assert_eq!(back, s);
        b.record_joint_drift(f64::NAN);
        b.record_joint_drift(1.0);
        let v = serde_json::to_value(b.complete()).unwrap();
        assert_eq!(v["max_joint_drift"], Value::Null, "one NaN: unknown");
        let back: Summary = serde_json::from_value(v).unwrap();
        assert!(back.max_joint_drift.is_some_and(f64::is_nan));
    }

    #[test]
    fn complete_run_without_steps_has_clean_statistics() {
        let mut b = SummaryBuilder::new("s", "implicit", 2.0);
        b.set_start_time(0.0);
        let v = serde_json::to_value(b.complete()).unwrap();
        assert_contract_keys(&v);
        assert_eq!(v["steps"], 0);
        assert_eq!(v["newton_iterations"]["median"], 0.0);
        for key in ["median", "max", "mean"] {
            assert_eq!(v["wall_time_per_step_s"][key], 0.0, "{key}");
        }
        assert_eq!(v["max_residual"], 0.0);
        assert_eq!(v["final_time"], 0.0);
        assert_eq!(v["energy"]["final_total"], 2.0);
    }
}
