//! Issue 15's "never hang, never lie" defects as regression tests: every solve stops at its
//! budget (pivots per variable, the optional wall-time limit), a step that cannot be solved
//! ends, unapplied, instead of grinding, and a halved step reports its whole impulse.

mod common;

use implicit_contact::contact::ClosestPoints;
use implicit_contact::geometry::{BodyShape, ConvexPart, HalfSpace, Placed, Pose, Spatial, Sphere};
use implicit_contact::mcp::{SolverKind, Status};
use implicit_contact::model::{Friction, Integrator, RigidBody, Scene, Twist};
use implicit_contact::scenes::{sphere_pyramid, sphere_row};
use implicit_contact::stepper::{ImplicitStepper, RowOwner, StepperSettings};
use nalgebra::{Matrix3, Quaternion, Vector3};

/// The pyramid of ten spheres under the path search alone, with a pivot budget of 1 per
/// variable (no cumulative floor), at most 50 pivots per linearised problem and `max_halvings`,
/// and no continuation in `μ` (which solves this step within that budget: its frictionless
/// stage needs few pivots).
fn starved_pyramid(max_halvings: usize) -> ImplicitStepper<Spatial> {
    let mut settings = StepperSettings {
        friction_continuation: false,
        ..StepperSettings::default()
    };
    settings.solver.order = vec![SolverKind::PathSearch];
    settings.solver.path.pivot_budget_per_variable = 1;
    settings.solver.path.pivot_limit = 50;
    settings.solver.path.cumulative_pivot_limit = 1;
    settings.max_halvings = max_halvings;
    ImplicitStepper::new(sphere_pyramid(3, 0.5).unwrap(), settings).unwrap()
}

/// The cold first step of the pyramid of ten spheres (450 unknowns: the ground is out of the
/// upper spheres' reach) takes 16 major iterations and 663 pivots with the default settings.
/// With a pivot budget of 1 per variable (no cumulative floor) and at most 50 pivots per
/// linearised problem, the path search stops at that budget with the status `iteration
/// limit`. The budget is checked between major iterations, and one major
/// iteration traces at most 16 linearised problems (its proximal term grows tenfold from
/// 1e-10 up to `proximal_max` = 1e4 while a trace is unusable), so it stops at most 16 × 50
/// pivots past it. Without a halving the step then fails and is not applied.
#[test]
fn the_path_search_stops_at_its_pivot_budget() {
    let mut stepper = starved_pyramid(0);
    let n = stepper.problem_size();
    let report = stepper.step();
    assert!(!report.converged, "{}", report.solve);
    assert_eq!(report.retries, 0);
    assert_eq!(
        report.solve.status,
        Status::IterationLimit,
        "{}",
        report.solve
    );
    let pivots = report.solve.pivots;
    assert!(
        (n..=n + 16 * 50).contains(&pivots),
        "{pivots} pivots for n = {n}: {}",
        report.solve
    );
    assert_eq!(stepper.time, 0.0, "a failed step is not applied");
}

/// A halved step reports the work of every attempt (`StepReport::work`, the counts of
/// `solver.csv`), its status the last solve's (`StepReport::solve`): the starved pyramid's
/// whole step stops at its pivot budget as above, and its halves follow. Before, `solver.csv`
/// counted the last solve's pivots and evaluations only (the pile of 100's step 62: 1090
/// pivots written, 11 965 traced).
#[test]
fn a_halved_step_reports_the_work_of_every_attempt() {
    let mut stepper = starved_pyramid(1);
    let n = stepper.problem_size();
    let report = stepper.step();
    assert_eq!(report.retries, 1, "{}", report.solve);
    // The whole step's search alone pivots `n` times or more.
    assert!(
        report.work.pivots >= n + report.solve.pivots,
        "{} pivots in all, {} in the last solve, n = {n}",
        report.work.pivots,
        report.solve.pivots
    );
    assert!(report.work.jacobian_evaluations > report.solve.jacobian_evaluations);
    assert_eq!(report.work.major_iterations, report.newton_iterations);
}

/// A step that fails says where: the report names the row of the last attempt's MCP with the
/// largest natural residual, and that residual is the solve's own (the same `F` at the same
/// `z`). The pyramid's cold step under the pivot budget above leaves its contacts unsettled.
#[test]
fn a_failed_step_names_the_row_it_could_not_settle() {
    let mut stepper = starved_pyramid(0);
    let report = stepper.step();
    assert!(!report.converged, "{}", report.solve);
    let site = report
        .largest_residual
        .clone()
        .expect("a failed step names a row");
    assert_eq!(site.residual, report.solve.residual, "{site}");
    match site.owner {
        RowOwner::Contact { id, bodies } => {
            assert!(id < stepper.contacts_seen(), "{site}");
            assert!(
                bodies.iter().all(|&b| b < stepper.scene.bodies.len()),
                "{site}"
            );
        }
        RowOwner::Body(b) => assert!(!stepper.scene.bodies[b].fixed, "{site}"),
        _ => panic!("the pyramid has no joints or supports: {site}"),
    }
    let note = report.site_note();
    assert!(
        note.starts_with("; largest residual") && note.contains(&site.row),
        "{note}"
    );
    // A converged step names none.
    let mut stepper =
        ImplicitStepper::new(sphere_pyramid(2, 0.5).unwrap(), StepperSettings::default()).unwrap();
    let report = stepper.step();
    assert!(report.converged && report.largest_residual.is_none());
}

/// The same cold step with the default settings converges in at most 60 major iterations
/// (measured: 16, 663 pivots; 28 and 1 527 while the ground paired with every sphere). It
/// took 216 and 11 460 pivots while a trace that looped (came back to a basis it had left,
/// the sign of a singular linearisation) was used for its prefix: the path search then crept in steps of 1e-4 with the proximal term falling back
/// into the singularity after each one. A deterministic count, not a time.
#[test]
fn the_pyramids_cold_step_does_not_creep_along_looping_traces() {
    cold_step_solves_whole_within(3, 60, ClosestPoints::default());
}

/// The cold step of the pyramid of 35 spheres (1965 unknowns) is solved whole, in at most 1500
/// major iterations (measured: 785). Its regularised solves ended just inside the tolerance,
/// leaving the paper's rows at 1.5e-10 against 1e-10 after the three outer solves; the last
/// solve on the paper's rows, singular along the impulses' continuum, then failed after 167
/// iterations, and so did the cold retry's: the step was halved (3360 iterations, 56 s). Near
/// the tolerance more outer solves are now allowed (`NEAR_TOLERANCE_SOLVES`). In the default
/// signed-gap form the step was still halved once (2127 iterations) until the path search's
/// merit left out the rows of variables resting at a bound (`mcp::path`); in the paper's
/// closest-point form it now takes 1702. A deterministic count, not a time (the step takes
/// about 5 s).
#[test]
fn the_pyramid_of_thirty_five_cold_step_is_solved_whole() {
    cold_step_solves_whole_within(5, 1500, ClosestPoints::default());
}

/// Steps a pyramid of `layers` layers once from rest: solved without a halving, in at most
/// `limit` major iterations.
fn cold_step_solves_whole_within(layers: usize, limit: usize, closest_points: ClosestPoints) {
    let mut stepper = ImplicitStepper::new(
        sphere_pyramid(layers, 0.5).unwrap(),
        StepperSettings {
            closest_points,
            ..StepperSettings::default()
        },
    )
    .unwrap();
    let report = stepper.step();
    assert!(report.converged, "{}", report.solve);
    assert_eq!(report.retries, 0, "{}", report.solve);
    assert!(
        report.newton_iterations <= limit,
        "{} major iterations: {}",
        report.newton_iterations,
        report.solve
    );
}

/// The cold step of the pyramid of twenty spheres (1160 unknowns) converges in at most 250
/// major iterations (measured: 183; 28 before the path search's merit left out the rows of
/// variables resting at a bound, see `mcp::path`: its near-tolerance outer solves now crawl,
/// 30–69 iterations each, while the whole run's worst step fell from 457 to 183). It took 242
/// while the path search's proximal term fell after every accepted step:
/// near the degenerate solution (spheres touching at zero gap and load) the search accepted
/// steps of 1e-2…1e-5 of the Newton path at a merit of 6.6e-10 for hundreds of iterations. The
/// term now grows after a step shorter than a sixteenth of the path. A deterministic count,
/// not a time.
#[test]
fn the_pyramid_of_twenty_cold_step_does_not_creep_at_the_tolerance() {
    cold_step_solves_whole_within(4, 250, ClosestPoints::default());
}

/// The row of 50 spheres struck at 1 m/s (μ = 0.5): its first impact (step 0) and the step
/// after it are solved with at most one halving and, together, at most 2500 Newton
/// iterations. Their solutions once reached the tolerance and were then refused by the law
/// rounds after the last stretch, each re-solve leaving another contact beyond its cone by
/// more than the tolerance; after three rounds the step was halved (21 attempts, 4303 Newton
/// iterations, 48 s). With ten rounds and the trust-region proximal term: one attempt, 958
/// iterations. Since a partial step keeps the term instead of lowering it (`mcp::path`,
/// the soak's seeds 57 and 193), step 0 is halved once: 1772 iterations, step 1 66
/// (measured). Deterministic counts, not times.
#[test]
fn the_struck_row_of_fifty_solves_its_first_impact_within_one_halving() {
    let mut stepper = ImplicitStepper::new(
        sphere_row(50, 0.0, 1.0, 0.5).unwrap(),
        StepperSettings::default(),
    )
    .unwrap();
    let mut newton = 0;
    for k in 0..2 {
        let report = stepper.step();
        assert!(report.converged, "step {k}: {}", report.solve);
        assert!(
            report.retries <= 1,
            "step {k} halved twice: {}",
            report.solve
        );
        newton += report.newton_iterations;
    }
    assert!(newton <= 2500, "{newton} Newton iterations");
}

/// The optional wall-time limit per solve (`solver.time_limit`) ends a solve that would run
/// for a sixth of a second (the pyramid's cold step) with the status `time limit`, and the step with its
/// reason. Each solve checks the clock once per major iteration (≈ 5 ms here), so each ends
/// within about 15 ms; each of the step's four attempts (warm and cold, whole and halved)
/// ends at its first solve that times out, after at most a few that converged; 2 s leaves a
/// wide margin for a loaded machine (the unlimited step takes 0.17 s, and the point is that
/// it ends, not how fast).
#[test]
fn a_solve_stops_at_its_time_limit() {
    let mut settings = StepperSettings::default();
    settings.solver.time_limit = Some(0.01);
    settings.solver.order = vec![SolverKind::PathSearch];
    settings.max_halvings = 1;
    let mut stepper = ImplicitStepper::new(sphere_pyramid(3, 0.5).unwrap(), settings).unwrap();
    let start = std::time::Instant::now();
    let report = stepper.step();
    let took = start.elapsed().as_secs_f64();
    assert!(!report.converged, "{}", report.solve);
    assert_eq!(report.solve.status, Status::TimeLimit, "{}", report.solve);
    assert!(took < 2.0, "the step took {took} s");
    assert_eq!(stepper.time, 0.0, "a failed step is not applied");
}

/// A sphere (1 kg, r = 0.1 m) 0.5 m above the ground falling at 100 m/s, h = 0.01: the step
/// that meets the ground is halved, and what `contacts()` reports for it is the whole step's
/// normal impulse, which the momentum balance fixes: `Σ p_n = m (v_z⁺ − v_z) + m g h`. Before
/// the fix the last sub-step's 0.049 N·s was written where about 100 N·s was applied. 1e-9
/// relative: the balance holds to the solve's tolerance (1e-10 N·s) over impulses of 100 N·s.
///
/// Under RATTLE the sum must include each sub-step's own velocity projection: it once summed
/// the previous sub-step's in its place (soak seed 7, step 120: friction 0.25 N·s written
/// against a normal impulse of 0.18 N·s at μ = 0.19).
#[test]
fn a_halved_step_reports_its_whole_impulse() {
    for integrator in [Integrator::Euler, Integrator::Rattle] {
        halved_step_reports_its_whole_impulse(integrator);
    }
}

fn halved_step_reports_its_whole_impulse(integrator: Integrator) {
    let g = 9.81;
    let ball_shape = BodyShape::new(
        "ball",
        vec![ConvexPart::single("ball", Placed::at_origin(Sphere::new(0.1).unwrap())).unwrap()],
    )
    .unwrap();
    let pose = |name: &str, z: f64| {
        Pose::spatial(Vector3::new(0.0, 0.0, z), Quaternion::identity(), name).unwrap()
    };
    let mut ball = RigidBody::<Spatial>::new(
        "ball",
        1.0,
        Matrix3::identity() * 0.004,
        ball_shape,
        pose("ball", 0.5),
    )
    .unwrap();
    ball.twist = Twist::new(Vector3::new(0.0, 0.0, -100.0), Vector3::zeros());
    let ground = RigidBody::<Spatial>::fixed(
        "ground",
        BodyShape::new(
            "ground",
            vec![
                ConvexPart::single(
                    "ground",
                    Placed::at_origin(
                        HalfSpace::<Spatial>::new(Vector3::new(0.0, 0.0, 1.0), 0.0).unwrap(),
                    ),
                )
                .unwrap(),
            ],
        )
        .unwrap(),
        pose("ground", 0.0),
    )
    .unwrap();
    let scene = Scene::new(
        "fast ball",
        Vector3::new(0.0, 0.0, -g),
        Friction::coulomb(0.3),
        0.01,
        0.1,
    )
    .unwrap()
    .with_body(ball)
    .unwrap()
    .with_body(ground)
    .unwrap();
    let settings = StepperSettings {
        integrator,
        ..StepperSettings::default()
    };
    let mut stepper = ImplicitStepper::new(scene, settings).unwrap();
    let mut halved = 0;
    for step in 0..10 {
        let v0 = stepper.scene.bodies[0].twist.linear[2];
        let report = stepper.step();
        assert!(report.converged, "step {step}: {:?}", report.failure);
        halved += report.retries;
        let v1 = stepper.scene.bodies[0].twist.linear[2];
        let written: f64 = stepper.contacts().iter().map(|c| c.normal_impulse).sum();
        let needed = (v1 - v0) + g * 0.01;
        assert!(
            (written - needed).abs() <= 1e-9 * needed.abs().max(1.0),
            "{integrator:?} step {step} (halvings {}): written {written} N·s, momentum change \
             {needed} N·s",
            report.retries
        );
    }
    assert!(halved > 0, "{integrator:?}: the impact step was halved");
}

/// The pyramid of twenty spheres settles after its cold step without a step that creeps: each
/// of steps 1–40 converges whole in at most 30 Newton iterations (measured: 15, step 1). Its
/// step 2 took 457: the first centre of the proximal iteration puts the friction at zero, so
/// the step's first solve moves the impulses along their continuum, and the friction cone
/// rows of sticking contacts, quadratic in the impulses and resting at their bound `σ = 0`
/// with room to spare, counted the linearisation's error over each step in the path search's
/// merit (`mcp::path`): the search took an eighth of the path per iteration. A deterministic
/// count, not a time.
#[test]
fn the_pyramid_of_twenty_settles_without_a_creeping_step() {
    let mut stepper =
        ImplicitStepper::new(sphere_pyramid(4, 0.5).unwrap(), StepperSettings::default()).unwrap();
    assert!(stepper.step().converged);
    let worst = common::worst_whole_step(&mut stepper, 1, 40);
    assert!(
        worst.0 <= 30,
        "step {}: {} Newton iterations",
        worst.1,
        worst.0
    );
}

/// The scenario format's complete example (`crate::scenario`'s module docs) under `rattle`,
/// its dumbbell thrown at 0.10407 m/s and spun at 1.0121 rad/s: at step 171 (index 170) its layered
/// sphere lands again while sliding. The search stopped where the contact slid without
/// friction (`σ` = 4.2, `μ p_n` = 2.4e-5 N·s): the squared cone row's residual there is
/// `μ² p_n²`, 5.5e-10, and the step took 712 Newton iterations and four halvings. The stall
/// is now re-solved with that row in N·s (`ImplicitStepper::solve_step`): 81 iterations, whole.
/// A deterministic count, not a time.
#[test]
fn a_sliding_contact_whose_load_vanishes_does_not_trap_the_solve() {
    let docs = include_str!("../src/scenario/mod.rs");
    let mut block = String::new();
    let mut inside = false;
    for line in docs.lines().filter_map(|l| l.strip_prefix("//!")) {
        let line = line.strip_prefix(' ').unwrap_or(line);
        match (inside, line.trim()) {
            (false, "```toml") => inside = true,
            (true, "```") => break,
            (true, _) => {
                let line = match line.split_whitespace().next() {
                    Some("integrator") => "integrator = \"rattle\"",
                    Some("gyroscopic") => "",
                    Some("velocity") => "velocity = [0.10407, 0.0, 0.0]",
                    Some("angular_velocity") => "angular_velocity = [0.0, 0.0, 1.0121]",
                    _ => line,
                };
                block.push_str(line);
                block.push('\n');
            }
            _ => {}
        }
    }
    let sc = implicit_contact::scenario::parse(&block, "complete example").unwrap();
    let implicit_contact::scenario::AnyScene::Spatial(scene) = sc.scene.clone() else {
        panic!("the complete example is 3D");
    };
    let mut stepper = ImplicitStepper::new(scene, sc.stepper_settings()).unwrap();
    for step in 0..165 {
        assert!(stepper.step().converged, "step {step}");
    }
    let worst = common::worst_whole_step(&mut stepper, 165, 15);
    assert!(
        worst.0 <= 150,
        "step {}: {} Newton iterations",
        worst.1,
        worst.0
    );
}
