//! The many-body suite of issue 15, run and measured against its targets: each scene of
//! [`scenes`](crate::scenes) under the default implicit stepper, every step's laws checked as
//! in the [soak](super::soak) (penetration, friction cone in N·s, friction without contact,
//! energy created), and the solver's cost per step measured: Newton iterations (median, p99,
//! worst), wall time per step (median, p99, worst, and p99 over median), contacts per step and
//! the time per contact per step.
//!
//! Each scene is run on a worker thread and given up on one second after its wall-time limit
//! (a step can take minutes), so the suite never hangs; a scene given up on is reported as
//! timed out with the steps it had done. Everything but the time columns is the same on every
//! run.

use super::soak::{Outcome, SeedOutcome, Tolerances, law_violations, run_bounded, run_scene};
use crate::model::{Dynamics, Integrator, Scene};
use crate::scenario::AnyScene;
use crate::scenes::{
    SceneError, disc_pile, disc_pyramid, mixed_heap, sphere_pile, sphere_pyramid, sphere_row,
    sphere_stack,
};
use crate::stepper::StepperSettings;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// One scene of the suite: its name (the scene's own) and how to build it.
#[derive(Debug, Clone, Copy)]
pub struct SuiteScene {
    /// The name the table and `--scenes` use.
    pub name: &'static str,
    /// What it is, for the listing.
    pub what: &'static str,
    build: fn() -> Result<AnyScene, SceneError>,
}

impl SuiteScene {
    /// Builds the scene.
    pub fn build(&self) -> Result<AnyScene, SceneError> {
        (self.build)()
    }
}

fn spatial(s: Result<Scene<crate::geometry::Spatial>, SceneError>) -> Result<AnyScene, SceneError> {
    s.map(AnyScene::Spatial)
}

fn planar(s: Result<Scene<crate::geometry::Planar>, SceneError>) -> Result<AnyScene, SceneError> {
    s.map(AnyScene::Planar)
}

/// The three-disc pyramid stands for `μ ≥ 2 − √3 ≈ 0.268`: the suite runs it at 0.2 (it slides
/// apart) and 0.3 (it stands), and the larger disc pyramids at the same two.
const DISC_MU_BELOW: f64 = 0.2;
const DISC_MU_ABOVE: f64 = 0.3;

/// The suite of issue 15, in order: pyramids of 4, 10, 20 and 35 spheres, disc pyramids of 3,
/// 6 and 10 on both sides of their standing threshold and at μ = 0.6, stacks of 5 and 10,
/// piles of 10, 50, 100 and 300 spheres and of 10 and 50 discs dropped from rest, rows of 50
/// and 100 spheres struck by a rolling sphere, and a heap of 20 mixed bodies. μ = 0.5 where
/// not said.
pub fn scenes() -> Vec<SuiteScene> {
    macro_rules! scene {
        ($name:expr, $what:expr, $build:expr) => {
            SuiteScene {
                name: $name,
                what: $what,
                build: || $build,
            }
        };
    }
    vec![
        scene!(
            "pyramid_4",
            "tetrahedral pyramid of 4 spheres, 2 s",
            spatial(sphere_pyramid(2, 0.5))
        ),
        scene!(
            "pyramid_10",
            "tetrahedral pyramid of 10 spheres, 2 s",
            spatial(sphere_pyramid(3, 0.5))
        ),
        scene!(
            "pyramid_20",
            "tetrahedral pyramid of 20 spheres, 2 s",
            spatial(sphere_pyramid(4, 0.5))
        ),
        scene!(
            "pyramid_35",
            "tetrahedral pyramid of 35 spheres, 2 s",
            spatial(sphere_pyramid(5, 0.5))
        ),
        scene!(
            "disc_pyramid_3_mu0.2",
            "3 discs, below the standing threshold 2 − √3",
            planar(disc_pyramid(2, DISC_MU_BELOW))
        ),
        scene!(
            "disc_pyramid_3_mu0.3",
            "3 discs, above the standing threshold 2 − √3",
            planar(disc_pyramid(2, DISC_MU_ABOVE))
        ),
        scene!(
            "disc_pyramid_6_mu0.2",
            "6 discs at μ = 0.2",
            planar(disc_pyramid(3, DISC_MU_BELOW))
        ),
        scene!(
            "disc_pyramid_6_mu0.3",
            "6 discs at μ = 0.3",
            planar(disc_pyramid(3, DISC_MU_ABOVE))
        ),
        scene!(
            "disc_pyramid_10_mu0.2",
            "10 discs at μ = 0.2",
            planar(disc_pyramid(4, DISC_MU_BELOW))
        ),
        scene!(
            "disc_pyramid_10_mu0.3",
            "10 discs at μ = 0.3",
            planar(disc_pyramid(4, DISC_MU_ABOVE))
        ),
        scene!(
            "disc_pyramid_10_mu0.6",
            "10 discs at μ = 0.6",
            planar(disc_pyramid(4, 0.6))
        ),
        scene!(
            "stack_5",
            "vertical stack of 5 spheres, 2 s",
            spatial(sphere_stack(5, 0.5))
        ),
        scene!(
            "stack_10",
            "vertical stack of 10 spheres, 2 s",
            spatial(sphere_stack(10, 0.5))
        ),
        scene!(
            "pile_10",
            "10 spheres (r = 0.5 m) dropped from rest, 1 s",
            spatial(sphere_pile(10, 0.5, 1))
        ),
        scene!(
            "pile_50",
            "50 spheres dropped from rest, 1 s",
            spatial(sphere_pile(50, 0.5, 1))
        ),
        scene!(
            "pile_100",
            "100 spheres dropped from rest, 1 s",
            spatial(sphere_pile(100, 0.5, 1))
        ),
        scene!(
            "pile_300",
            "300 spheres dropped from rest, 1 s",
            spatial(sphere_pile(300, 0.5, 1))
        ),
        scene!(
            "disc_pile_10",
            "10 discs dropped into a bin, 1 s",
            planar(disc_pile(10, 0.5, 1))
        ),
        scene!(
            "disc_pile_50",
            "50 discs dropped into a bin, 1 s",
            planar(disc_pile(50, 0.5, 1))
        ),
        scene!(
            "row_50",
            "row of 50 spheres struck by one rolling at 1 m/s, 2 s",
            spatial(sphere_row(50, 0.0, 1.0, 0.5))
        ),
        scene!(
            "row_100",
            "row of 100 spheres struck by one rolling at 1 m/s, 2 s",
            spatial(sphere_row(100, 0.0, 1.0, 0.5))
        ),
        scene!(
            "mixed_heap_20",
            "20 ellipsoids, superellipsoids and a cylinder dropped from rest, 1 s",
            spatial(mixed_heap(20, 0.5, 1))
        ),
    ]
}

/// The scenes whose name is in `names` (each a scene's name, or a prefix of names such as
/// `pyramid` or `disc_pyramid_6`), in the suite's order; an unknown name is an error that
/// lists the suite.
pub fn select(names: &[String]) -> Result<Vec<SuiteScene>, String> {
    let all = scenes();
    if names.is_empty() {
        return Ok(all);
    }
    for n in names {
        if !all.iter().any(|s| s.name.starts_with(n.as_str())) {
            let known: Vec<&str> = all.iter().map(|s| s.name).collect();
            return Err(format!(
                "no scene of the suite is called `{n}` (or starts so); the suite: {}",
                known.join(", ")
            ));
        }
    }
    Ok(all
        .into_iter()
        .filter(|s| names.iter().any(|n| s.name.starts_with(n.as_str())))
        .collect())
}

/// What one scene's run measured: the soak's measures (the laws, failed and halved steps,
/// Newton iterations) and the cost per step.
#[derive(Debug, Clone, PartialEq)]
pub struct SceneOutcome {
    /// The scene's name in the suite.
    pub name: &'static str,
    /// The laws and the solver's counts, as the soak measures them (`seed` 0, `shapes` the
    /// scene's description).
    pub run: SeedOutcome,
    /// Newton iterations of the step at the 99th percentile.
    pub newton_p99: usize,
    /// Wall time per step (s): median, 99th percentile, worst.
    pub step_time: [f64; 3],
    /// Contacts in the step's MCP, mean over the steps done.
    pub contacts_per_step: f64,
    /// Wall time of the steps done over the contacts they solved (µs per contact per step).
    pub per_contact_us: f64,
}

/// The element at quantile `q` of the sorted `v` (nearest rank; 0 for none).
fn quantile<T: Copy + Default>(v: &[T], q: f64) -> T {
    if v.is_empty() {
        return T::default();
    }
    let k = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1;
    v[k]
}

/// Per-step costs gathered during a run.
#[derive(Debug, Clone, Default)]
struct Costs {
    times: Vec<f64>,
    newton: Vec<usize>,
    contacts: usize,
}

impl Costs {
    fn fill(mut self, out: &mut SceneOutcome) {
        self.times.sort_by(f64::total_cmp);
        self.newton.sort_unstable();
        out.newton_p99 = quantile(&self.newton, 0.99);
        out.step_time = [
            quantile(&self.times, 0.5),
            quantile(&self.times, 0.99),
            self.times.last().copied().unwrap_or(0.0),
        ];
        let steps = self.times.len().max(1) as f64;
        out.contacts_per_step = self.contacts as f64 / steps;
        // (A float sum of nothing is −0.)
        out.per_contact_us =
            self.times.iter().sum::<f64>() * 1e6 / self.contacts.max(1) as f64 + 0.0;
    }
}

/// The row of `entry` before its run: the scene's parameters (zeros for none), nothing
/// measured.
fn blank(entry: &SuiteScene, scene: Option<&AnyScene>) -> SceneOutcome {
    fn of<S: Dynamics>(s: &Scene<S>) -> (usize, f64, f64) {
        let moving = s.bodies.iter().filter(|b| !b.fixed).count();
        (moving, s.friction.mu, s.time_step)
    }
    let (dimension, (bodies, mu, h)) = match scene {
        Some(AnyScene::Planar(s)) => (2, of(s)),
        Some(AnyScene::Spatial(s)) => (3, of(s)),
        None => (0, (0, 0.0, 0.0)),
    };
    SceneOutcome {
        name: entry.name,
        run: SeedOutcome::before_run(
            0,
            dimension,
            bodies,
            entry.what.to_string(),
            Integrator::Euler,
            h,
            mu,
        ),
        newton_p99: 0,
        step_time: [0.0; 3],
        contacts_per_step: 0.0,
        per_contact_us: 0.0,
    }
}

fn run_observed<S: Dynamics>(
    scene: Scene<S>,
    settings: StepperSettings,
    mut out: SceneOutcome,
    wall_limit: Duration,
    publish: &dyn Fn(&SceneOutcome),
) -> SceneOutcome {
    let start = Instant::now();
    let costs = std::cell::RefCell::new(Costs::default());
    let mut run = out.run.clone();
    let progress = |o: &SeedOutcome| {
        let mut now = out.clone();
        now.run = o.clone();
        costs.borrow().clone().fill(&mut now);
        publish(&now);
    };
    run_scene(
        scene,
        settings,
        &mut run,
        wall_limit,
        start,
        &mut |r| {
            let mut c = costs.borrow_mut();
            c.times.push(r.wall_time.as_secs_f64());
            c.newton.push(r.newton_iterations);
            c.contacts += r.contacts;
        },
        &progress,
    );
    out.run = run;
    costs.into_inner().fill(&mut out);
    out
}

/// Runs one scene of the suite under the default stepper settings, bounded by `wall_limit`
/// (also every solve's time limit, so that an abandoned run stops soon).
pub fn run(entry: &SuiteScene, wall_limit: Duration) -> SceneOutcome {
    let start = Instant::now();
    let scene = match entry.build() {
        Ok(s) => s,
        Err(e) => {
            // The suite's own builders: a refusal here is a defect worth a row, not a panic.
            let mut o = blank(entry, None);
            o.run.outcome = Outcome::Refused(e.to_string());
            return o;
        }
    };
    let blank_row = blank(entry, Some(&scene));
    let mut settings = StepperSettings::default();
    settings.solver.time_limit = Some(wall_limit.as_secs_f64());
    let fallback = blank_row.clone();
    let mut o = run_bounded(
        wall_limit,
        move |publish: &dyn Fn(&SceneOutcome)| match scene {
            AnyScene::Planar(s) => run_observed(s, settings, blank_row, wall_limit, publish),
            AnyScene::Spatial(s) => run_observed(s, settings, blank_row, wall_limit, publish),
        },
        |last, why| {
            let mut o = last.unwrap_or(fallback);
            o.run.outcome = match why {
                Outcome::Timeout { .. } => Outcome::Timeout { steps: o.run.steps },
                other => other,
            };
            o
        },
    );
    o.run.wall_time = start.elapsed();
    o
}

/// One aligned row per scene, the reasons of failures and broken laws below.
pub fn table(outcomes: &[SceneOutcome]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<22} {:>3} {:>6} {:<11} {:>9} {:>7} {:>11} {:>10} {:>10} {:>10} {:>7} {:>9} {:>9} {:>9} {:>11} {:>9} {:>9} {:>8}",
        "scene",
        "dim",
        "bodies",
        "outcome",
        "steps",
        "retried",
        "newton m/99/max",
        "step med",
        "step p99",
        "step max",
        "p99/med",
        "contacts",
        "µs/c/step",
        "residual",
        "penetration",
        "cone N·s",
        "energy J",
        "time s",
    );
    for o in outcomes {
        let r = &o.run;
        let [med, p99, max] = o.step_time;
        let _ = writeln!(
            s,
            "{:<22} {:>3} {:>6} {:<11} {:>9} {:>7} {:>15} {:>8.3}ms {:>8.3}ms {:>8.1}ms {:>7.1} {:>9.1} {:>9.1} {:>9.1e} {:>11.1e} {:>9.1e} {:>9.1e} {:>8.2}",
            o.name,
            r.dimension,
            r.bodies,
            match &r.outcome {
                Outcome::Failed { step, .. } => format!("failed@{step}"),
                Outcome::Timeout { steps } => format!("timeout@{steps}"),
                other => other.word().to_string(),
            },
            format!("{}/{}", r.steps, r.planned_steps),
            r.retried_steps,
            format!("{}/{}/{}", r.newton_median, o.newton_p99, r.newton_max),
            med * 1e3,
            p99 * 1e3,
            max * 1e3,
            if med > 0.0 { p99 / med } else { 0.0 },
            o.contacts_per_step,
            o.per_contact_us,
            r.worst_residual,
            r.worst_penetration,
            r.worst_cone_violation,
            r.energy_created,
            r.wall_time.as_secs_f64(),
        );
    }
    for o in outcomes {
        let v = law_violations(&o.run, &Tolerances::default());
        if !v.is_empty() {
            let _ = writeln!(s, "{}: {}", o.name, v.join("; "));
        }
    }
    s
}

/// Every problem of a suite run on one line (`None`: none): failed steps, timeouts and broken
/// laws, by scene.
pub fn problems(outcomes: &[SceneOutcome]) -> Option<String> {
    let bad: Vec<String> = outcomes
        .iter()
        .filter_map(|o| {
            let mut v = law_violations(&o.run, &Tolerances::default());
            if let Outcome::Timeout { steps } = o.run.outcome {
                v.insert(0, format!("timed out after {steps} steps"));
            }
            (!v.is_empty()).then(|| format!("{}: {}", o.name, v.join(", ")))
        })
        .collect();
    (!bad.is_empty()).then(|| {
        format!(
            "{} of {} scenes failed, timed out or broke a law: {}",
            bad.len(),
            outcomes.len(),
            bad.join("; ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_are_nearest_rank() {
        let v: Vec<usize> = (1..=100).collect();
        assert_eq!(quantile(&v, 0.5), 50);
        assert_eq!(quantile(&v, 0.99), 99);
        assert_eq!(quantile(&v, 1.0), 100);
        assert_eq!(quantile(&[7usize], 0.99), 7);
        assert_eq!(quantile::<usize>(&[], 0.5), 0);
    }

    #[test]
    fn every_scene_builds_and_names_are_unique() {
        let all = scenes();
        for (i, s) in all.iter().enumerate() {
            assert!(s.build().is_ok(), "{} does not build", s.name);
            assert!(
                all[..i].iter().all(|t| t.name != s.name),
                "{} twice",
                s.name
            );
        }
        assert!(select(&["nothing".into()]).is_err());
        let pyramids = select(&["pyramid".into()]).unwrap();
        assert_eq!(pyramids.len(), 4);
    }
}
