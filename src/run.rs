//! Running a scene to its end and writing the run's files: `trajectory.csv`, `contacts.csv`
//! and `solver.csv` (each step's solve report) streamed step by step, `summary.json` last (see [`crate::output`] and the contract in the
//! architecture notes). A step that does not converge even after halving stops the run: the
//! rows written so far stay, the summary says `complete: false` with the reason, and the
//! caller gets [`RunError::StepFailed`].

use crate::geometry::{Planar, Spatial};
use crate::model::{Dynamics, RigidBody};
use crate::output::{
    BodyKind, BodyState, ContactFriction, ContactMode, ContactRow, Energy, MovingBody, OutputError,
    QuasiRigidImpulses, RunDir, StepStats, Summary, SummaryBuilder, TrajectoryRow,
};
use crate::stepper::{ContactState, TimeStepper};
use std::collections::BTreeMap;
use std::path::Path;

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

/// Steps between flushes of the run's CSV files.
const FLUSH_EVERY: usize = 100;

/// A step slower than this (in seconds) flushes the files at once.
const SLOW_STEP_S: f64 = 0.05;

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Writing an output file failed.
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

/// Runs `stepper` (either formulation, [`TimeStepper`]) for `steps` steps, writing into
/// `out_dir/<scene name>/`. `on_step` sees the stepper after every accepted step (progress
/// display, measurements). Returns the summary (also written to disk).
pub fn run<S: Recordable, T: TimeStepper<S>>(
    stepper: &mut T,
    steps: usize,
    out_dir: &Path,
    mut on_step: impl FnMut(usize, &T),
) -> Result<Summary, RunError> {
    let dir = RunDir::create(out_dir, &stepper.scene().name)?;
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
    let mut trajectory = dir.trajectory_writer(&bodies)?;
    let mut contacts = dir.contacts_writer(S::kind(), stepper.has_quasi_rigid_contacts())?;
    let mut solver_log = dir.solver_writer()?;
    let energy = |s: &T| Energy {
        kinetic: s.scene().kinetic_energy(),
        potential: s.scene().potential_energy() + s.elastic_energy(),
    };
    let mut states: Vec<BodyState> = Vec::with_capacity(moving.len());
    let mut write_rows = |stepper: &T,
                          step: usize,
                          states: &mut Vec<BodyState>,
                          flush: bool|
     -> Result<(), OutputError> {
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
        if step > 0 {
            for c in stepper.contacts().iter() {
                let mode = contact_mode(c);
                contacts.write_row(&ContactRow {
                    step,
                    t: stepper.time(),
                    contact: c.id,
                    body1: &stepper.scene().bodies[c.body1].name,
                    body2: &stepper.scene().bodies[c.body2].name,
                    gap: c.gap,
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
                })?;
            }
        }
        if flush {
            trajectory.flush()?;
            contacts.flush()?;
        }
        Ok(())
    };
    write_rows(stepper, 0, &mut states, false)?;
    let initial = energy(stepper);
    let mut summary = SummaryBuilder::new(
        &stepper.scene().name,
        stepper.formulation(),
        initial.kinetic + initial.potential,
    );
    // Each contact's bodies and friction, by id, as contacts first appear (the broad phase
    // brings pairs in during the run).
    let mut seen: BTreeMap<usize, ContactFriction> = BTreeMap::new();
    let note_contacts = |stepper: &T, seen: &mut BTreeMap<usize, ContactFriction>| {
        for c in stepper.contacts() {
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
    note_contacts(stepper, &mut seen);
    for step in 1..=steps {
        let report = stepper.step();
        let mut solve = report.solve.clone();
        solve.major_iterations = report.newton_iterations;
        solve.residual = report.residual;
        solver_log.write_row(
            step,
            stepper.time(),
            &solve,
            report.retries,
            report.wall_time.as_secs_f64(),
            report.energy_projection,
        )?;
        if !report.converged {
            let reason = match &report.failure {
                Some(why) => format!("step {step} (t = {:.6} s) failed: {why}", stepper.time()),
                None => format!(
                    "step {step} (t = {:.6} s) did not converge after {} halvings: {}",
                    stepper.time(),
                    report.retries,
                    report.solve
                ),
            };
            trajectory.finish()?;
            contacts.finish()?;
            solver_log.finish()?;
            summary.record_failed_step(report.retries);
            summary.set_contacts(seen.into_values().collect());
            dir.write_summary(&summary.incomplete(reason.clone()))?;
            return Err(RunError::StepFailed(reason));
        }
        // Rows reach the operating system together, every FLUSH_EVERY steps and after any
        // slow step, so that an interrupted run keeps its diagnostics.
        let flush = step % FLUSH_EVERY == 0 || report.wall_time.as_secs_f64() > SLOW_STEP_S;
        write_rows(stepper, step, &mut states, flush)?;
        if flush {
            solver_log.flush()?;
        }
        note_contacts(stepper, &mut seen);
        let penetration = stepper.penetration();
        let e = energy(stepper);
        summary.record(&StepStats {
            t: stepper.time(),
            report: &solve,
            retries: report.retries,
            wall_time: report.wall_time,
            penetration,
            total_energy: e.kinetic + e.potential,
        });
        on_step(step, stepper);
    }
    trajectory.finish()?;
    contacts.finish()?;
    solver_log.finish()?;
    summary.set_contacts(seen.into_values().collect());
    let summary = summary.complete();
    dir.write_summary(&summary)?;
    Ok(summary)
}
