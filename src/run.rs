//! Running a scene to its end and writing the run's files: `trajectory.csv`, `contacts.csv`,
//! `joints.csv` (a scene with joints only) and `solver.csv` (each step's solve report) streamed
//! step by step, `summary.json` last (see [`crate::output`] and the contract in the
//! architecture notes). A step that does not converge even after halving stops the run: the
//! rows written so far stay, the summary says `complete: false` with the reason, and the
//! caller gets [`RunError::StepFailed`].
//!
//! # Which rows
//!
//! [`run_with`] writes the files and steps its [`OutputOptions`] ask for (the scenario's
//! `[output]`): any of the CSV files may be left out, and `every = K` writes steps 0, K,
//! 2K, … and the last. `summary.json` is always written and its statistics cover every step
//! (`max_joint_drift` too); a step that failed always has its `solver.csv` row. Forces in
//! `contacts.csv` and `joints.csv` are the step's impulses divided by the scene's time step
//! (every step has that length). Like contacts, joints have rows from step 1 on (their
//! impulses are a step's).
//!
//! # One writer per directory
//!
//! [`run`] takes the run directory's lock ([`RunDir::create`]) before it creates or truncates
//! any file, so a second run into the same directory is refused at once and leaves the first
//! run's files alone; [`run_in`] runs into a [`RunDir`] the caller made (for example with
//! [`RunDir::create_unique`], the command line's `--unique`).
//!
//! # Flushing
//!
//! The rows of the CSV files are held in memory and handed to the operating system
//! together, after a whole step, in one write per file: every [`FLUSH_EVERY`] steps, after any
//! step slower than [`SLOW_STEP_S`], when [`FLUSH_INTERVAL_S`] of wall time has passed since the
//! last flush, when the rows held exceed [`FLUSH_BYTES`], at a failed step and at the end. So
//! a run killed at any moment (`kill -9` included) leaves files that end at the same step — the
//! last flushed one, at most [`FLUSH_EVERY`] steps or [`FLUSH_INTERVAL_S`] (plus the step in
//! progress) before the kill — and no row cut mid-line; only a kill that falls between the
//! writes of one flush leaves `trajectory.csv` ahead of `contacts.csv`, `joints.csv` and
//! `solver.csv` (written in that order) by the steps of that one flush. `solver.csv` also
//! holds the row of a step that failed (its report says how), which the other files do not.
//!
//! # Reproducible summaries
//!
//! The `reason` of a failed run says which step failed, at which simulated time and how the
//! solve ended (status, solver, residual, iteration and evaluation counts), never a wall time:
//! the same failing scenario gives the same `summary.json` apart from the fields named for wall
//! times (`wall_time_per_step_s`, `failed_step_wall_time_s`).
//!
//! # Gaps in metres
//!
//! The `gap` column is a signed distance in metres, negative when the bodies overlap
//! ([`ContactState::gap`]): apart or touching, the distance `‖a₂ − a₁‖` of the closest points;
//! overlapping (the implicit solution then has `l₁ = 0` and `a₁ = a₂` inside `F`), minus the
//! depth of `a₂` below the surface of `F` along `F`'s normal, found by Newton's method on `f`
//! along that line ([`crate::geometry::depth_below_surface`]: exact for planes, quadratically
//! convergent for the crate's convex shapes), never the value of `f`, whose scale depends on
//! the shape. `max_penetration` is the deepest [`ContactState::penetration`], in metres: for a
//! rigid contact `−gap` when negative; for a quasi-rigid one the overlap beyond the layer's
//! deflection (the layer's compression, `−gap`, is its law, not a penetration).
use crate::geometry::{Planar, Spatial};
use crate::mcp::SolveReport;
use crate::model::{Dynamics, RigidBody};
use crate::output::{
    BodyKind, BodyState, ContactFriction, ContactMode, ContactRow, ContactsWriter, DriveRow,
    DrivesWriter, Energy, JointRow, JointsWriter, MovingBody, OutputError, QuasiRigidImpulses,
    RunDir, SolverLogWriter, StepStats, Summary, SummaryBuilder, TrajectoryRow, TrajectoryWriter,
};
use crate::stepper::{ContactState, TimeStepper};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

/// Impulses and slip at or below this count as zero when classifying a contact (the MCP's
/// default tolerance).
const MODE_TOLERANCE: f64 = 1e-10;

/// A dimension whose bodies can be written to the trajectory file.
pub trait Recordable: Dynamics {
    /// The kind of body in the output files.
    fn kind() -> BodyKind;
    /// The pose and twist of `body` as a trajectory entry.
    fn record(body: &RigidBody<Self>) -> BodyState;
}

impl Recordable for Planar {
    fn kind() -> BodyKind {
        BodyKind::Planar
    }
    fn record(body: &RigidBody<Self>) -> BodyState {
        let (c, v) = (&body.pose.position, &body.twist.linear);
        BodyState::Planar {
            position: [c[0], c[1]],
            theta: body.pose.angle(),
            velocity: [v[0], v[1]],
            omega: body.twist.angular[0],
        }
    }
}

impl Recordable for Spatial {
    fn kind() -> BodyKind {
        BodyKind::Spatial
    }
    fn record(body: &RigidBody<Self>) -> BodyState {
        let (c, v, w) = (&body.pose.position, &body.twist.linear, &body.twist.angular);
        let q = body.pose.rotation.quaternion();
        BodyState::Spatial {
            position: [c[0], c[1], c[2]],
            orientation: [q.w, q.i, q.j, q.k],
            velocity: [v[0], v[1], v[2]],
            omega: [w[0], w[1], w[2]],
        }
    }
}

/// Steps between flushes of the run's CSV files when steps are fast (see "Flushing").
pub const FLUSH_EVERY: usize = 100;

/// A step slower than this (in seconds) flushes the files at once.
pub const SLOW_STEP_S: f64 = 0.05;

/// Wall time (in seconds) after which the files are flushed whatever the step count, so that
/// rows never wait long in memory while a run slows down.
pub const FLUSH_INTERVAL_S: f64 = 1.0;

/// Bytes of rows (all files together) above which the files are flushed.
pub const FLUSH_BYTES: usize = 4 << 20;

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Writing an output file failed (or the run directory is in use).
    #[error(transparent)]
    Output(#[from] OutputError),
    /// A step did not converge even after halving; the summary records it.
    #[error("{0}")]
    StepFailed(String),
}

/// The contact mode of the output: separated without normal impulse, sliding with slip,
/// rolling (sticking) otherwise.
pub fn contact_mode(c: &ContactState) -> ContactMode {
    if c.normal_impulse <= MODE_TOLERANCE {
        ContactMode::Separated
    } else if c.sigma > MODE_TOLERANCE {
        ContactMode::Sliding
    } else {
        ContactMode::Rolling
    }
}

/// A solve report in words, without its wall time (for a failed run's `reason`).
pub fn describe_solve(r: &SolveReport) -> String {
    let mut text = format!(
        "{} by {}: residual {:.3e}, {} major iterations ({} crash), {} pivots, {} F / {} J evaluations, {} restarts",
        r.status,
        r.solver,
        r.residual,
        r.major_iterations,
        r.crash_iterations,
        r.pivots,
        r.function_evaluations,
        r.jacobian_evaluations,
        r.restarts,
    );
    if r.simplified_steps > 0 {
        text.push_str(&format!(", {} simplified Newton steps", r.simplified_steps));
    }
    text
}

/// The signed distance in metres between the two bodies of contact `c` of `stepper`, the
/// `gap` column: the implicit stepper's [`ContactState::gap`]; for the LCP stepper, whose `a₁`, `a₂` are the points found
/// at the start of the step, the vertex's end-of-step depth below the face when it penetrates
/// (`−penetration`, exact), else the LCP's end-of-step gap `ψ + h ṅ·ν`, never below 0.
pub fn output_gap<S: Dynamics, T: TimeStepper<S>>(stepper: &T, c: &ContactState) -> f64 {
    if stepper.formulation() == "lcp" {
        if c.penetration > 0.0 {
            -c.penetration
        } else {
            c.gap.max(0.0)
        }
    } else {
        c.gap
    }
}

/// Which of a run's CSV files are written, and how often: the scenario's `[output]`
/// ([`crate::scenario::Outputs`]). `summary.json` is always written, and its statistics cover
/// every step whatever the stride.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutputOptions {
    /// Write `trajectory.csv`.
    pub trajectory: bool,
    /// Write `contacts.csv`.
    pub contacts: bool,
    /// Write `joints.csv` (only a scene with joints has one).
    pub joints: bool,
    /// Write `drives.csv` (only a scene with driven bodies has one).
    pub drives: bool,
    /// Write `solver.csv`.
    pub solver: bool,
    /// Write the rows of every `every`-th step (≥ 1): steps `0, K, 2K, …` and always the last
    /// step of the run; `solver.csv` also always has the row of a step that failed.
    pub every: usize,
}

impl Default for OutputOptions {
    /// Every file, every step: the scenario's `[output]` defaults.
    fn default() -> Self {
        crate::scenario::Outputs::default().into()
    }
}

impl From<crate::scenario::Outputs> for OutputOptions {
    fn from(o: crate::scenario::Outputs) -> Self {
        Self {
            trajectory: o.trajectory,
            contacts: o.contacts,
            joints: o.joints,
            drives: o.drives,
            solver: o.solver,
            every: usize::try_from(o.every).unwrap_or(usize::MAX),
        }
    }
}

impl OutputOptions {
    /// Whether the rows of `step` of a run of `steps` steps are written.
    pub fn writes_step(&self, step: usize, steps: usize) -> bool {
        step.is_multiple_of(self.every.max(1)) || step == steps
    }
}

/// The slowest step of a run, for the result line: its number, wall time and Newton
/// iterations.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlowestStep {
    /// The step's number (from 1).
    pub step: usize,
    /// Its wall time in seconds, retries included.
    pub wall_time_s: f64,
    /// Its Newton iterations over all attempts.
    pub newton_iterations: usize,
}

/// What a finished run gives back besides its files.
#[derive(Debug, Clone, PartialEq)]
pub struct RunResult {
    /// The summary (also written to `summary.json`).
    pub summary: Summary,
    /// The slowest step (`None` for a run without steps). Not in `summary.json`: which step is
    /// slowest depends on the machine, and the summary is reproducible apart from fields named
    /// for wall times.
    pub slowest_step: Option<SlowestStep>,
}

/// The CSV writers of a run (those its options ask for), flushed together.
struct Writers {
    trajectory: Option<TrajectoryWriter>,
    contacts: Option<ContactsWriter>,
    joints: Option<JointsWriter>,
    drives: Option<DrivesWriter>,
    solver: Option<SolverLogWriter>,
}

impl Writers {
    fn buffered(&self) -> usize {
        self.trajectory.as_ref().map_or(0, |w| w.buffered())
            + self.contacts.as_ref().map_or(0, |w| w.buffered())
            + self.joints.as_ref().map_or(0, |w| w.buffered())
            + self.drives.as_ref().map_or(0, |w| w.buffered())
            + self.solver.as_ref().map_or(0, |w| w.buffered())
    }

    /// One write per file, in this order.
    fn flush(&mut self) -> Result<(), OutputError> {
        if let Some(w) = &mut self.trajectory {
            w.flush()?;
        }
        if let Some(w) = &mut self.contacts {
            w.flush()?;
        }
        if let Some(w) = &mut self.joints {
            w.flush()?;
        }
        if let Some(w) = &mut self.drives {
            w.flush()?;
        }
        if let Some(w) = &mut self.solver {
            w.flush()?;
        }
        Ok(())
    }

    fn finish(self) -> Result<(), OutputError> {
        if let Some(w) = self.trajectory {
            w.finish()?;
        }
        if let Some(w) = self.contacts {
            w.finish()?;
        }
        if let Some(w) = self.joints {
            w.finish()?;
        }
        if let Some(w) = self.drives {
            w.finish()?;
        }
        if let Some(w) = self.solver {
            w.finish()?;
        }
        Ok(())
    }
}

/// Runs `stepper` (either formulation, [`TimeStepper`]) for `steps` steps, writing into
/// `out_dir/<scene name>/` ([`RunDir::create`]: refused at once if another run is writing
/// there). `on_step` sees the stepper after every accepted step (progress display,
/// measurements). Returns the summary (also written to disk).
pub fn run<S: Recordable, T: TimeStepper<S>>(
    stepper: &mut T,
    steps: usize,
    out_dir: &Path,
    on_step: impl FnMut(usize, &T),
) -> Result<Summary, RunError> {
    let dir = RunDir::create(out_dir, &stepper.scene().name)?;
    run_in(stepper, steps, &dir, on_step)
}

/// [`run`] into a run directory the caller made (and whose lock it holds).
pub fn run_in<S: Recordable, T: TimeStepper<S>>(
    stepper: &mut T,
    steps: usize,
    dir: &RunDir,
    on_step: impl FnMut(usize, &T),
) -> Result<Summary, RunError> {
    run_with(stepper, steps, dir, &OutputOptions::default(), on_step).map(|r| r.summary)
}

/// [`run_in`] writing the files and steps `options` asks for; also returns the slowest step.
pub fn run_with<S: Recordable, T: TimeStepper<S>>(
    stepper: &mut T,
    steps: usize,
    dir: &RunDir,
    options: &OutputOptions,
    mut on_step: impl FnMut(usize, &T),
) -> Result<RunResult, RunError> {
    let moving: Vec<usize> = (0..stepper.scene().bodies.len())
        .filter(|&b| !stepper.scene().bodies[b].fixed)
        .collect();
    let bodies: Vec<MovingBody> = moving
        .iter()
        .map(|&b| MovingBody {
            name: stepper.scene().bodies[b].name.clone(),
            kind: S::kind(),
        })
        .collect();
    let mut files = Writers {
        trajectory: match options.trajectory {
            true => Some(dir.trajectory_writer(&bodies)?),
            false => None,
        },
        contacts: match options.contacts {
            true => Some(dir.contacts_writer(S::kind(), stepper.has_quasi_rigid_contacts())?),
            false => None,
        },
        joints: match options.joints && !stepper.scene().joints.is_empty() {
            true => Some(dir.joints_writer(S::kind())?),
            false => None,
        },
        drives: match options.drives && stepper.scene().bodies.iter().any(|b| b.driven) {
            true => Some(dir.drives_writer(S::kind())?),
            false => None,
        },
        solver: match options.solver {
            true => Some(dir.solver_writer()?),
            false => None,
        },
    };
    let h = stepper.scene().time_step;
    let energy = |s: &T| Energy {
        kinetic: s.scene().kinetic_energy(),
        potential: s.scene().potential_energy() + s.elastic_energy(),
    };
    let mut states: Vec<BodyState> = Vec::with_capacity(moving.len());
    // Writes the rows of `step` (the contacts with their gaps) into the writers' memory.
    let write_rows = |files: &mut Writers,
                      stepper: &T,
                      step: usize,
                      contacts: &[ContactState],
                      gaps: &[f64],
                      states: &mut Vec<BodyState>|
     -> Result<(), OutputError> {
        if let Some(trajectory) = &mut files.trajectory {
            states.clear();
            states.extend(
                moving
                    .iter()
                    .map(|&b| S::record(&stepper.scene().bodies[b])),
            );
            trajectory.write_row(&TrajectoryRow {
                step,
                t: stepper.time(),
                bodies: states,
                energy: energy(stepper),
            })?;
        }
        // Joints from step 1 on, like contacts: their impulses are a step's.
        if let Some(joints_file) = &mut files.joints
            && step > 0
        {
            let scene = stepper.scene();
            for j in stepper.joint_states() {
                joints_file.write_row(&JointRow {
                    step,
                    t: stepper.time(),
                    joint: j.index,
                    name: &scene.joints[j.index].name,
                    body1: j
                        .body1
                        .map_or(crate::scenario::schema::WORLD, |b| &scene.bodies[b].name),
                    body2: &scene.bodies[j.body2].name,
                    impulse: &j.impulse,
                    moment: &j.moment,
                    drift: j.drift,
                    time_step: h,
                    actuator: j.actuator,
                    limit_impulse: j.limit_impulse,
                    friction_impulse: j.friction_impulse,
                })?;
            }
        }
        // Driven bodies from step 1 on: their wrenches are a step's.
        if let Some(drives_file) = &mut files.drives
            && step > 0
        {
            let scene = stepper.scene();
            for d in stepper.drive_states() {
                drives_file.write_row(&DriveRow {
                    step,
                    t: stepper.time(),
                    body: &scene.bodies[d.body].name,
                    state: S::record(&scene.bodies[d.body]),
                    force: &d.force,
                    torque: &d.torque,
                })?;
            }
        }
        let Some(contacts_file) = &mut files.contacts else {
            return Ok(());
        };
        for (c, &gap) in contacts.iter().zip(gaps) {
            let mode = contact_mode(c);
            contacts_file.write_row(&ContactRow {
                step,
                t: stepper.time(),
                contact: c.id,
                body1: &stepper.scene().bodies[c.body1].name,
                body2: &stepper.scene().bodies[c.body2].name,
                gap,
                normal_impulse: c.normal_impulse,
                friction_impulse: c.friction_impulse,
                torsion_impulse: c.torsion_impulse,
                slip_speed: if mode == ContactMode::Separated {
                    f64::NAN
                } else {
                    c.sigma
                },
                mode,
                a1: &c.a1,
                a2: &c.a2,
                quasi_rigid: c.quasi_rigid.map(|q| QuasiRigidImpulses {
                    deflection: q.deflection,
                    spring_impulse: q.spring_impulse,
                    core_impulse: q.core_impulse,
                }),
                normal: &c.normal,
                friction: &c.friction,
                time_step: h,
            })?;
        }
        Ok(())
    };
    // Step 0: the initial state (contacts and joints are written from step 1).
    write_rows(&mut files, stepper, 0, &[], &[], &mut states)?;
    files.flush()?;
    let mut last_flush = Instant::now();
    let initial = energy(stepper);
    let mut summary = SummaryBuilder::new(
        &stepper.scene().name,
        stepper.formulation(),
        initial.kinetic + initial.potential,
    );
    summary.set_start_time(stepper.time());
    let jointed = !stepper.scene().joints.is_empty();
    if jointed {
        summary.record_joint_drift(stepper.joint_drift());
    }
    let mut slowest: Option<SlowestStep> = None;
    // Each contact's bodies and friction, by id, as contacts first appear (the broad phase
    // brings pairs in during the run).
    let mut seen: BTreeMap<usize, ContactFriction> = BTreeMap::new();
    let note_contacts =
        |stepper: &T, contacts: &[ContactState], seen: &mut BTreeMap<usize, ContactFriction>| {
            for c in contacts {
                seen.entry(c.id).or_insert_with(|| {
                    let scene = stepper.scene();
                    let f = scene.friction_between(c.body1, c.body2);
                    ContactFriction {
                        contact: c.id,
                        body1: scene.bodies[c.body1].name.clone(),
                        body2: scene.bodies[c.body2].name.clone(),
                        mu: f.mu,
                        e_t: f.e_t,
                        e_o: f.e_o,
                        e_r: f.e_r,
                    }
                });
            }
        };
    note_contacts(stepper, &stepper.contacts(), &mut seen);
    let mut gaps: Vec<f64> = Vec::new();
    for step in 1..=steps {
        let report = stepper.step();
        // The last solve's status, the whole step's counts and worst residual.
        let mut solve = report.solve.clone();
        solve.set_counts(&report.work);
        solve.major_iterations = report.newton_iterations;
        solve.residual = report.residual;
        let write = options.writes_step(step, steps);
        if let Some(solver) = &mut files.solver
            && (write || !report.converged)
        {
            solver.write_row(step, stepper.time(), &solve, &report)?;
        }
        if !report.converged {
            // No wall time in the reason (see "Reproducible summaries").
            let reason = match &report.failure {
                Some(why) => format!("step {step} (t = {:.6} s) failed: {why}", stepper.time()),
                None => format!(
                    "step {step} (t = {:.6} s) did not converge after {} halvings: {}{}",
                    stepper.time(),
                    report.retries,
                    describe_solve(&report.solve),
                    report.site_note()
                ),
            };
            files.finish()?;
            summary.record_failed_step(report.retries);
            summary.set_failed_step_wall_time(report.wall_time);
            summary.set_contacts(seen.into_values().collect());
            dir.write_summary(&summary.incomplete(reason.clone()))?;
            return Err(RunError::StepFailed(reason));
        }
        let contacts = stepper.contacts();
        gaps.clear();
        gaps.extend(contacts.iter().map(|c| output_gap(stepper, c)));
        if write {
            write_rows(&mut files, stepper, step, &contacts, &gaps, &mut states)?;
        }
        // All the files at whole steps, together (see "Flushing").
        if step % FLUSH_EVERY == 0
            || report.wall_time.as_secs_f64() > SLOW_STEP_S
            || last_flush.elapsed().as_secs_f64() > FLUSH_INTERVAL_S
            || files.buffered() > FLUSH_BYTES
        {
            files.flush()?;
            last_flush = Instant::now();
        }
        note_contacts(stepper, &contacts, &mut seen);
        // Deepest overlap in metres (the LCP stepper's also of vertices inside faces that were
        // not contacts at the start of the step).
        let penetration = if gaps.iter().any(|g| g.is_nan()) {
            f64::NAN
        } else {
            stepper.penetration()
        };
        if jointed {
            summary.record_joint_drift(stepper.joint_drift());
        }
        let e = energy(stepper);
        summary.record(&StepStats {
            t: stepper.time(),
            report: &solve,
            retries: report.retries,
            wall_time: report.wall_time,
            penetration,
            total_energy: e.kinetic + e.potential,
        });
        let wall = report.wall_time.as_secs_f64();
        if slowest.is_none_or(|s| wall > s.wall_time_s) {
            slowest = Some(SlowestStep {
                step,
                wall_time_s: wall,
                newton_iterations: report.newton_iterations,
            });
        }
        on_step(step, stepper);
    }
    files.finish()?;
    summary.set_contacts(seen.into_values().collect());
    let summary = summary.complete();
    dir.write_summary(&summary)?;
    Ok(RunResult {
        summary,
        slowest_step: slowest,
    })
}
