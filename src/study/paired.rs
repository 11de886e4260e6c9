//! Two settings of the implicit stepper compared step by step, from the same states.
//!
//! A scene whose contacts load, unload, stick and slip is chaotic under rounding: two settings
//! that solve every step to the same tolerance still send it along different trajectories, so
//! their totals (Newton iterations, time) compare two different runs, and a change that helps
//! every step it touches can look like a loss (issue 15's many-body scenes; see the README's
//! "Paired comparison"). Here run A drives the trajectory. Before each of A's steps a copy of
//! A's stepper (`Clone`: the bodies, the contacts, the warm start and the solver's
//! workspaces) is switched to B's settings ([`ImplicitStepper::set_settings`]), takes the same
//! step from the same state, and is dropped. Each [`PairedStep`] compares the two solves of
//! one step: their effort, whether they converged, and how far apart their end-of-step
//! velocities are (settings that change only how a step is solved should agree to about the
//! solve's tolerance over the bodies' inverse mass).

use crate::model::{Dynamics, Scene};
use crate::scenario::schema::ScenarioFile;
use crate::stepper::{ImplicitStepper, StepReport, StepperError, StepperSettings, TimeStepper};

/// One side's solve of a step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Side {
    /// Newton iterations (linearisations) of the whole step, halvings included.
    pub newton_iterations: usize,
    /// Pivots of the whole step.
    pub pivots: usize,
    /// Wall time of the step (s).
    pub wall_time: f64,
    /// Whether the step converged (after halvings, if any).
    pub converged: bool,
    /// The accepted solve's natural residual.
    pub residual: f64,
}

impl Side {
    fn of(report: &StepReport) -> Self {
        Self {
            newton_iterations: report.newton_iterations,
            pivots: report.work.pivots,
            wall_time: report.wall_time.as_secs_f64(),
            converged: report.converged,
            residual: report.residual,
        }
    }
}

/// One step solved under both settings from the same state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairedStep {
    /// The step's number (from 1, as in `solver.csv`).
    pub step: usize,
    /// The time at its end (s).
    pub t: f64,
    /// Contacts in A's step.
    pub contacts: usize,
    /// A's solve (the one the trajectory goes on from).
    pub a: Side,
    /// B's solve.
    pub b: Side,
    /// The largest difference of a velocity component at the end of the step (m/s or rad/s);
    /// NaN when either side did not converge.
    pub velocity_gap: f64,
}

/// What a paired run measured.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PairedSummary {
    /// Steps compared.
    pub steps: usize,
    /// Newton iterations per step of A and of B, in step order.
    pub newton_a: Vec<usize>,
    /// See `newton_a`.
    pub newton_b: Vec<usize>,
    /// Steps where B took fewer Newton iterations than A, and more.
    pub b_fewer: usize,
    /// See `b_fewer`.
    pub b_more: usize,
    /// Steps B did not solve.
    pub b_failed: usize,
    /// Wall time of A's and of B's steps (s).
    pub wall_a: f64,
    /// See `wall_a`.
    pub wall_b: f64,
    /// The largest velocity gap of a step both solved.
    pub largest_gap: f64,
    /// Why A stopped the run, if it did (a step it did not solve).
    pub a_failure: Option<String>,
}

impl PairedSummary {
    fn add(&mut self, row: &PairedStep) {
        self.steps += 1;
        self.newton_a.push(row.a.newton_iterations);
        self.newton_b.push(row.b.newton_iterations);
        match row.b.newton_iterations.cmp(&row.a.newton_iterations) {
            std::cmp::Ordering::Less => self.b_fewer += 1,
            std::cmp::Ordering::Greater => self.b_more += 1,
            std::cmp::Ordering::Equal => {}
        }
        self.b_failed += usize::from(!row.b.converged);
        self.wall_a += row.a.wall_time;
        self.wall_b += row.b.wall_time;
        if row.velocity_gap.is_finite() {
            self.largest_gap = self.largest_gap.max(row.velocity_gap);
        }
    }

    /// Sum, median and largest of Newton iterations per step (`b`: B's, else A's).
    pub fn newton(&self, b: bool) -> (usize, usize, usize) {
        let mut v = if b {
            self.newton_b.clone()
        } else {
            self.newton_a.clone()
        };
        v.sort_unstable();
        let median = v.get(v.len() / 2).copied().unwrap_or(0);
        (v.iter().sum(), median, v.last().copied().unwrap_or(0))
    }
}

/// Steps `scene` for `steps` steps under `a`, each step solved from the same state under `b`
/// as well; `row` receives every step's comparison as it is made (an error from it stops the
/// run and is returned). A step A does not solve ends the run (`a_failure`); one B does not
/// solve is counted and the run goes on along A.
pub fn pair<S: Dynamics, E: From<StepperError>>(
    scene: Scene<S>,
    a: StepperSettings,
    b: StepperSettings,
    steps: usize,
    mut row: impl FnMut(&PairedStep) -> Result<(), E>,
) -> Result<PairedSummary, E> {
    let mut stepper = ImplicitStepper::new(scene, a)?;
    // B's settings are checked once, on the starting state, before any step is taken.
    stepper.check_settings(&b)?;
    let mut summary = PairedSummary::default();
    for k in 0..steps {
        let mut other = stepper.clone();
        other.set_settings(b.clone())?;
        let rb = other.step();
        let ra = stepper.step();
        let velocity_gap = if ra.converged && rb.converged {
            let (va, vb) = (stepper.scene.velocities(), other.scene.velocities());
            va.iter()
                .zip(&vb)
                .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()))
        } else {
            f64::NAN
        };
        let paired = PairedStep {
            step: k + 1,
            t: stepper.time(),
            contacts: ra.contacts,
            a: Side::of(&ra),
            b: Side::of(&rb),
            velocity_gap,
        };
        summary.add(&paired);
        row(&paired)?;
        if !ra.converged {
            summary.a_failure = Some(
                ra.failure
                    .clone()
                    .unwrap_or_else(|| format!("step {} did not converge", k + 1)),
            );
            break;
        }
    }
    Ok(summary)
}

/// The first part of scenario `b` that differs from `a` where a paired comparison needs them
/// equal: everything but the name, the description, the output section, the solver settings
/// and the step's switchable settings (`simulation.energy_projection`, `gyroscopic`,
/// `friction_continuation`, `cones_from_start`, `cones_normalised`, `cones_normalised_after`,
/// `friction_centre_from_start`).
/// `None` when they describe the same run.
pub fn fixed_difference(a: &ScenarioFile, b: &ScenarioFile) -> Option<&'static str> {
    let (sa, sb) = (&a.simulation, &b.simulation);
    let parts: [(&'static str, bool); 14] = [
        ("dimension", a.dimension == b.dimension),
        ("simulation.time_step", sa.time_step == sb.time_step),
        ("simulation.duration", sa.duration == sb.duration),
        ("simulation.stepper", sa.stepper == sb.stepper),
        ("simulation.gravity", sa.gravity == sb.gravity),
        ("simulation.integrator", sa.integrator == sb.integrator),
        (
            "simulation.closest_points",
            sa.closest_points == sb.closest_points,
        ),
        ("friction", a.friction == b.friction),
        ("body", a.body == b.body),
        ("pair", a.pair == b.pair),
        ("joint", a.joint == b.joint),
        ("support", a.support == b.support),
        ("no_collision", a.no_collision == b.no_collision),
        ("lcp", a.lcp == b.lcp),
    ];
    parts.iter().find(|(_, same)| !same).map(|(name, _)| *name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenes;

    fn pyramid() -> Scene<crate::geometry::Spatial> {
        let mut scene = scenes::sphere_pyramid(2, 0.5).unwrap();
        scene.duration = 0.2;
        scene
    }

    /// The same settings on both sides: the copy steps bit for bit as the original, so every
    /// row agrees exactly (the stepper's copy is deep and its step deterministic).
    #[test]
    fn the_same_settings_give_the_same_steps_bit_for_bit() {
        let settings = StepperSettings::default();
        let mut rows = Vec::new();
        let summary = pair::<_, StepperError>(
            pyramid(),
            settings.clone(),
            settings,
            20,
            |r: &PairedStep| {
                rows.push(*r);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(summary.steps, 20);
        assert!(summary.newton(false).0 > 0, "the pyramid's steps iterate");
        for r in &rows {
            assert_eq!(
                r.a.newton_iterations, r.b.newton_iterations,
                "step {}",
                r.step
            );
            assert_eq!(r.a.pivots, r.b.pivots, "step {}", r.step);
            assert_eq!(
                r.a.residual.to_bits(),
                r.b.residual.to_bits(),
                "step {}",
                r.step
            );
            assert_eq!(r.velocity_gap, 0.0, "step {}", r.step);
        }
        assert_eq!(
            (summary.b_fewer, summary.b_more, summary.b_failed),
            (0, 0, 0)
        );
    }

    /// Other settings of how a step is solved (the cone rows as the paper writes them, a
    /// proximal weight ten times the default's): both sides solve every step of the falling
    /// pile of 10, and their end-of-step velocities agree. The rigid model fixes the
    /// velocities; the two solves stop at different points within the tolerance (1e-10 on
    /// every row, in the rows' own units), which measured 8.7e-10 m/s apart at most; the bound
    /// leaves a factor ten.
    #[test]
    fn settings_of_the_solve_agree_on_the_velocities() {
        let a = StepperSettings::default();
        let b = StepperSettings {
            cones_from_start: false,
            proximal_weight: 1e-5,
            ..a.clone()
        };
        let mut pile = scenes::sphere_pile(10, 0.5, 1).unwrap();
        pile.duration = 1.0;
        let summary = pair::<_, StepperError>(pile, a, b, 100, |_: &PairedStep| Ok(())).unwrap();
        assert_eq!(summary.steps, 100);
        assert_eq!(summary.b_failed, 0);
        assert!(summary.a_failure.is_none());
        assert!(
            summary.largest_gap > 0.0,
            "the settings differ in the last bits at least"
        );
        assert!(summary.largest_gap < 1e-8, "gap {}", summary.largest_gap);
    }

    /// The cone rows divided by the current load (`cones_normalised`) are the same law: on
    /// the disc pyramid of 6 at μ = 0.3 (contacts that unload and slide while it settles)
    /// both sides solve every step, and the velocities agree within the bound above (7.96e-10
    /// m/s measured).
    #[test]
    fn normalised_cone_rows_give_the_same_velocities() {
        let a = StepperSettings::default();
        let b = StepperSettings {
            cones_normalised: true,
            ..a.clone()
        };
        let scene = scenes::disc_pyramid(3, 0.3).unwrap();
        let steps = (scene.duration / scene.time_step).round() as usize;
        let summary = pair::<_, StepperError>(scene, a, b, steps, |_: &PairedStep| Ok(())).unwrap();
        assert_eq!(summary.steps, steps);
        assert_eq!(summary.b_failed, 0);
        assert!(summary.a_failure.is_none());
        assert!(summary.largest_gap > 0.0, "the rows differ");
        assert!(summary.largest_gap < 1e-8, "gap {}", summary.largest_gap);
    }

    /// Settings that shape the state are refused before a step is taken.
    #[test]
    fn a_change_of_integrator_is_refused() {
        let a = StepperSettings::default();
        let b = StepperSettings {
            integrator: crate::model::Integrator::Rattle,
            ..a.clone()
        };
        let err = pair::<_, StepperError>(pyramid(), a, b, 5, |_: &PairedStep| Ok(())).unwrap_err();
        assert!(err.to_string().contains("integrator"), "{err}");
    }
}
