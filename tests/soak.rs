//! The soak of issue 15 in small: random valid scenes from fixed seeds, the generator
//! deterministic and its scenes valid, the results independent of the thread count, and every
//! seed run to its end without a failed step or a broken law.
//!
//! Budget: the file runs in well under a minute on 2 cores: 100 seeds (7.4 s of work when
//! measured, the slowest seed 0.33 s) and 60 seeds of the every-pair soak (6.6 s, the slowest
//! 0.75 s), each given up on after `LIMIT` (plus the soak's 1 s grace), the thread comparison
//! on the first 6.

mod common;

use implicit_contact::model::{Dynamics, Integrator, Scene};
use implicit_contact::scenario::AnyScene;
use implicit_contact::study::soak::{
    MAX_BODIES, Outcome, SeedOutcome, Tolerances, law_violations, problems, random_scene, soak,
    table,
};
use std::collections::BTreeSet;
use std::ops::Range;
use std::sync::OnceLock;
use std::time::Duration;

const SEEDS: Range<u64> = 0..100;
const COMPARED: Range<u64> = 0..6;
const LIMIT: Duration = Duration::from_secs(4);

/// The soak of `SEEDS` on two threads, shared by the tests that read it.
fn two_threads() -> &'static [SeedOutcome] {
    static OUTCOMES: OnceLock<Vec<SeedOutcome>> = OnceLock::new();
    OUTCOMES.get_or_init(|| soak(SEEDS, 2, LIMIT))
}

/// Everything that defines a scene, printed exactly (`{:?}` of an `f64` round-trips).
fn fingerprint<S: Dynamics>(scene: &Scene<S>) -> String {
    let mut s = format!(
        "{} {:?} {:?} {:?} {:?}",
        scene.name, scene.gravity, scene.friction, scene.time_step, scene.duration
    );
    for b in &scene.bodies {
        let parts: Vec<(String, usize, Option<f64>)> = b
            .shape
            .parts()
            .iter()
            .map(|p| (p.name().to_string(), p.len(), p.bounding_radius()))
            .collect();
        s += &format!(
            "\n{} {:?} {:?} {:?} {:?} {:?} {} {:?}",
            b.name, b.mass, b.inertia, b.pose, b.twist.linear, b.twist.angular, b.fixed, parts
        );
    }
    s
}

fn any_fingerprint(scene: &AnyScene) -> String {
    match scene {
        AnyScene::Planar(s) => fingerprint(s),
        AnyScene::Spatial(s) => fingerprint(s),
    }
}

#[test]
fn the_generator_is_deterministic() {
    for seed in 0..40 {
        let (a, b) = (random_scene(seed), random_scene(seed));
        assert_eq!(
            any_fingerprint(&a.scene),
            any_fingerprint(&b.scene),
            "seed {seed}"
        );
        assert_eq!(a.settings, b.settings, "seed {seed}");
        assert_eq!(a.shapes, b.shapes, "seed {seed}");
    }
    let distinct: BTreeSet<String> = (0..40)
        .map(|seed| {
            let s = any_fingerprint(&random_scene(seed).scene);
            s[s.find(' ').unwrap()..].to_string()
        })
        .collect();
    assert_eq!(distinct.len(), 40, "different seeds give different scenes");
}

/// Moving bodies' bounding balls apart and above the ground, at most one polytope (so one side
/// of every contact is a single function), the ranges.
fn check_valid<S: Dynamics>(seed: u64, scene: &Scene<S>) {
    let up = S::DIM - 1;
    let ground: Vec<_> = scene.bodies.iter().filter(|b| b.fixed).collect();
    assert_eq!(ground.len(), 1, "seed {seed}: one ground");
    assert!(ground[0].shape.parts().iter().all(|p| p.len() == 1));
    let moving: Vec<_> = scene.bodies.iter().filter(|b| !b.fixed).collect();
    assert!((1..=MAX_BODIES).contains(&moving.len()), "seed {seed}");
    let polytopes = moving
        .iter()
        .filter(|b| b.shape.parts().iter().any(|p| p.len() > 1))
        .count();
    assert!(polytopes <= 1, "seed {seed}: {polytopes} polytopes");
    assert!((0.0..=1.5).contains(&scene.friction.mu), "seed {seed}");
    assert!([0.01, 0.005].contains(&scene.time_step), "seed {seed}");
    assert_eq!(scene.duration, 1.0);
    assert_eq!(scene.name, format!("soak_{seed}"));
    let radius = |b: &implicit_contact::model::RigidBody<S>| {
        let parts = b.shape.parts();
        assert_eq!(parts.len(), 1);
        parts[0].bounding_radius().expect("a bounded body")
    };
    for (i, a) in moving.iter().enumerate() {
        let (ra, ca) = (radius(a), a.pose.position);
        assert!(ca[up] > ra, "seed {seed}: {} reaches the ground", a.name);
        assert!((0.1..=5.0).contains(&a.mass), "seed {seed}");
        assert!(S::norm(&a.twist.linear) <= 2.0, "seed {seed}");
        for b in &moving[i + 1..] {
            let d = S::norm(&(b.pose.position - ca));
            assert!(
                d > ra + radius(b),
                "seed {seed}: {} and {} may overlap",
                a.name,
                b.name
            );
        }
    }
}

#[test]
fn the_scenes_are_valid_and_cover_every_shape() {
    let mut kinds = BTreeSet::new();
    let (mut dims, mut integrators, mut frictionless) = (BTreeSet::new(), BTreeSet::new(), 0);
    for seed in 0..300 {
        let r = random_scene(seed);
        kinds.extend(r.shapes.iter().copied());
        dims.insert(r.dimension());
        integrators.insert(format!("{:?}", r.settings.integrator));
        assert!(matches!(
            r.settings.integrator,
            Integrator::Euler | Integrator::Rattle
        ));
        let (mu, _, _) = r.parameters();
        frictionless += usize::from(mu == 0.0);
        match &r.scene {
            AnyScene::Planar(s) => check_valid(seed, s),
            AnyScene::Spatial(s) => check_valid(seed, s),
        }
    }
    let all = [
        "circle",
        "ellipse",
        "superellipse",
        "rectangle",
        "regular_polygon",
        "rhombus",
        "sphere",
        "ellipsoid",
        "superellipsoid",
        "box",
        "cylinder",
        "octahedron",
    ];
    assert_eq!(kinds, all.into_iter().collect::<BTreeSet<_>>());
    assert_eq!(dims.len(), 2);
    assert_eq!(integrators.len(), 2);
    assert!(frictionless > 0);
}

/// Outcomes on one and two threads agree in every column but the time. Seeds that timed out
/// (a machine's verdict, checked by the law test) are left out of the comparison.
#[test]
fn the_thread_count_does_not_change_the_results() {
    let one = soak(COMPARED, 1, LIMIT);
    let two = two_threads();
    assert_eq!(
        one.iter().map(|o| o.seed).collect::<Vec<_>>(),
        COMPARED.collect::<Vec<_>>()
    );
    let mut compared = 0;
    for a in &one {
        let b = two.iter().find(|b| b.seed == a.seed).expect("every seed");
        let timed_out = |o: &SeedOutcome| matches!(o.outcome, Outcome::Timeout { .. });
        if timed_out(a) || timed_out(b) {
            continue;
        }
        assert_eq!(
            format!("{:?}", a.without_timing()),
            format!("{:?}", b.without_timing()),
            "seed {}",
            a.seed
        );
        compared += 1;
    }
    assert!(compared > 0, "every seed timed out:\n{}", table(&one));
}

/// No seed fails a step, times out or breaks a law (penetration ≤ 1e-9 m, the friction cone
/// to 1e-8 N·s, no friction without contact, no energy gained beyond 1e-6 of the motion's).
#[test]
fn every_seed_runs_to_its_end_within_the_laws() {
    let outcomes = two_threads();
    assert_eq!(outcomes.len(), SEEDS.count());
    if let Some(p) = problems(outcomes, &Tolerances::default()) {
        panic!("{p}\n{}", table(outcomes));
    }
    for o in outcomes {
        assert_eq!(o.outcome, Outcome::Ok, "seed {}", o.seed);
        assert!(law_violations(o, &Tolerances::default()).is_empty());
    }
}

/// The every-pair soak in small: seeds 0..60 of `soak --every-pair` (polytopes against
/// polytopes, 6.6 s of work when measured, the slowest seed 0.75 s) run to their end within the
/// laws. Seed 50 still failed when the cold retry landed; seeds 101 and 132, past this range,
/// failed until continuation in `μ`.
#[test]
fn every_pair_seeds_run_to_their_end_within_the_laws() {
    seeds_run_to_their_end_within_the_laws(
        0..60,
        implicit_contact::study::soak::Shapes::EveryPair.into(),
    );
}

/// Every seed of `seeds` drawn as `shapes` says runs to its end, within the laws.
fn seeds_run_to_their_end_within_the_laws(
    seeds: Range<u64>,
    shapes: implicit_contact::study::soak::SceneKind,
) {
    use implicit_contact::study::soak::soak_with_progress;
    let outcomes = soak_with_progress(seeds.clone(), 2, LIMIT, shapes, |_| {});
    assert_eq!(outcomes.len(), seeds.count());
    if let Some(p) = problems(&outcomes, &Tolerances::default()) {
        panic!("{p}\n{}", table(&outcomes));
    }
    for o in &outcomes {
        assert_eq!(o.outcome, Outcome::Ok, "seed {} ({shapes:?})", o.seed);
    }
}

/// Coulomb's law gives a contact without normal impulse no friction. Seeds 21 (3D, four bodies,
/// Euler) and 32 (2D, five bodies, h = 0.005) each wrote friction of 1e-6…2e-6 N·s on contacts
/// with `p_n = 0` (the rows `p_k σ = 0`, `−Σ p_k² ≥ 0` passing at the tolerance when `σ` is
/// small); now none, and the worst excess over the cone, on loaded contacts, is below 1e-7 N·s
/// (measured 7.8e-9 and 1.5e-8: the squared cone row's `tol / (μ p_n + ‖p‖)`).
#[test]
fn contacts_without_normal_impulse_carry_no_friction() {
    use implicit_contact::study::soak::run_seed;
    for seed in [21, 32] {
        let out = run_seed(seed, Duration::from_secs(60));
        assert!(
            matches!(out.outcome, Outcome::Ok),
            "seed {seed}: {:?}",
            out.outcome
        );
        assert_eq!(out.separated_friction, 0, "seed {seed}");
        assert!(
            out.worst_cone_violation <= 1e-7,
            "seed {seed}: cone exceeded by {:e} N·s",
            out.worst_cone_violation
        );
    }
}

/// RATTLE's velocity projection lets a sticking contact whose whole-step friction would leave
/// the cone slide through the second half, friction on the cone per unit of its normal
/// multiplier. That multiplier can be negative (the projection takes back part of the MCP's
/// normal impulse), and the friction then turned with it: seed 138 (3D, seven bodies, RATTLE,
/// μ = 0.27), step 39, wrote friction 4.65e-2 N·s beyond the cone on a contact whose normal
/// impulse went from 1.19 to 0.93 N·s. Now the whole step's friction is `(p_n + μ_n) f`, on the
/// cone for either sign (measured 1.8e-10 N·s, the solve's tolerance).
///
/// A contact the MCP found sliding carried the MCP's friction per unit normal impulse, `p / p_n`,
/// into the projection, so the MCP's excess over its cone (within the solve's tolerance) grew by
/// `1 + μ_n / p_n`: seed 136 (2D, five bodies, RATTLE, μ = 1.12) wrote 1.59e-8 N·s beyond the
/// cone at step 86, seed 38 (2D, RATTLE) 2.7e-9 N·s. Its friction is now on the boundary,
/// `μ p / ‖p‖_e` per unit normal impulse with the rest a fixed impulse, like a converted
/// contact's (measured: 3.4e-13 and 1.9e-12 N·s). The bound is ten times the solve's tolerance
/// in N·s. (Seed 136 itself has stopped at its step 86 since closing contacts start at their
/// stopping impulse under RATTLE too; issue 15 lists it.)
#[test]
fn a_contact_the_projection_lets_slide_keeps_its_friction_in_the_cone() {
    use implicit_contact::study::soak::run_seed;
    for seed in [138, 38] {
        let out = run_seed(seed, Duration::from_secs(60));
        assert_eq!(out.outcome, Outcome::Ok, "seed {seed}");
        assert!(
            out.worst_cone_violation <= 1e-9,
            "seed {seed}: friction beyond the cone: {:e} N·s",
            out.worst_cone_violation
        );
    }
}

/// A passive scene never gains energy: a sub-step whose end-of-step conditions were met by a
/// spurious root of the step's MCP (an impulse that throws the body off instead of stopping it)
/// is refused and halved. Seeds 491 (3D, an ellipsoid and a superellipsoid, RATTLE, μ = 0) and
/// 99 (2D, eight bodies, Euler, μ = 0) wrote +83 % and +28 % of their peak kinetic energy at
/// single steps; now both run to their end within 1e-6 of it (measured 1.1e-7 and a loss).
#[test]
fn a_step_that_creates_energy_is_refused_and_halved() {
    run_to_the_end_without_creating_energy(&[491, 99]);
}

/// RATTLE's kicks take the gyroscopic impulse at their own midpoints, which keeps a free body's
/// kinetic energy exactly. Soak seed 2279 (3D, RATTLE, two ellipsoids and a superellipsoid)
/// gained 1.05e-6 of its energy scale, all of it in free flight before any contact, while the
/// kicks took it explicitly (at the start and at `2ν − v`: an `O((ωh)²)` oscillation); it now
/// creates none beyond the solve's tolerance (1e-9 of the scale; measured 0).
#[test]
fn free_flight_under_rattle_creates_no_energy() {
    use implicit_contact::study::soak::run_seed;
    assert_eq!(random_scene(2279).settings.integrator, Integrator::Rattle);
    let out = run_seed(2279, Duration::from_secs(60));
    assert_eq!(out.outcome, Outcome::Ok);
    assert!(
        out.energy_created_relative <= 1e-9,
        "energy created {:e} of the scale",
        out.energy_created_relative
    );
}

/// Runs each seed and checks that it reaches its end within 1e-6 of its peak kinetic energy.
fn run_to_the_end_without_creating_energy(seeds: &[u64]) {
    use implicit_contact::study::soak::run_seed;
    for &seed in seeds {
        let out = run_seed(seed, Duration::from_secs(60));
        assert_eq!(out.outcome, Outcome::Ok, "seed {seed}");
        assert!(
            out.energy_created_relative <= 1e-6,
            "seed {seed}: energy created {:e} of the peak kinetic energy",
            out.energy_created_relative
        );
    }
}

/// RATTLE's second kick turns the contact impulses to their start-of-step directions; where the
/// contact point jumps within the step that turn is not small. Seed 62 (a 0.98 × 0.12 m plank
/// spinning at −3.8 rad/s, μ = 0) lands flat at step 33: the contact point goes from one corner
/// to 0.66 m along the face, and the turned impulse gained 43 % of the kinetic energy at every
/// halving, so the run stopped there; seed 17 (a rectangle, μ = 0.02) likewise gained 2 % at
/// step 46. Such a sub-step now keeps its impulses along the end-of-step directions, the step
/// says so (`first_order_substeps`), and both run to their end without creating energy (the
/// soak's law: 1e-6 of the peak kinetic energy).
#[test]
fn a_flat_landing_under_rattle_keeps_its_impulse_where_it_acted() {
    run_to_the_end_without_creating_energy(&[62, 17]);
    assert_eq!(random_scene(62).settings.integrator, Integrator::Rattle);
    let kicked = planar_steps_where(62, 40, |r| r.first_order_substeps > 0);
    // The landing, and no step before it (the corner impact at step 27 keeps RATTLE's kick).
    assert_eq!(kicked.first(), Some(&33), "{kicked:?}");
}

/// A polygon landing on a face while it spins: its contact point jumps from a corner to the
/// far side of the face within the step, and from the warm start (the last step's points
/// extrapolated, its impulses) the path search stalled at residual 6e-4 at every halving — soak
/// seeds 235 (a rhombus, Euler, μ = 1.47, step 65) and 239 (a rectangle, RATTLE, μ = 1.16,
/// step 20). The sub-step is now solved again from a cold start before it is halved, and
/// both run to their end within the laws, the step reporting its cold start.
#[test]
fn a_polygon_landing_on_a_face_is_solved_from_a_cold_start() {
    use implicit_contact::study::soak::run_seed;
    for seed in [235, 239] {
        let out = run_seed(seed, Duration::from_secs(60));
        assert_eq!(out.outcome, Outcome::Ok, "seed {seed}");
        assert!(
            law_violations(&out, &Tolerances::default()).is_empty(),
            "seed {seed}: {:?}",
            law_violations(&out, &Tolerances::default())
        );
    }
    let cold = planar_steps_where(239, 30, |r| r.cold_starts > 0);
    assert_eq!(cold, [20], "steps solved again from a cold start");
}

/// Runs soak seed `seed` to its end (a minute's limit), asserts that it fails no step and
/// breaks no law, and returns its outcome.
fn run_within_the_laws(seed: u64) -> SeedOutcome {
    let out = implicit_contact::study::soak::run_seed(seed, Duration::from_secs(60));
    assert_eq!(out.outcome, Outcome::Ok, "seed {seed}");
    assert_eq!(out.failed_steps, 0, "seed {seed}");
    assert!(
        law_violations(&out, &Tolerances::default()).is_empty(),
        "seed {seed}: {:?}",
        law_violations(&out, &Tolerances::default())
    );
    out
}

/// A body landing on a resting one, the friction at or near `μ = 1`: soak seeds 26 (an
/// ellipse on a circle on the ground, μ = 1.47, step 48), 249 (μ = 1.45), 400 (μ = 1.27),
/// 414 and 447 (RATTLE, μ = 1.38 and 1.46), all 2D, and 245 (3D, μ = 0.99) stalled the path
/// search from the warm and the cold start, then the fallbacks, at every halving (residuals
/// 2e-6 to 3e-4; 4 to 6 s each). A sub-step is now solved by continuation in `μ` before it is
/// halved, and each runs to its end within the laws (0.16 to 0.58 s each when measured).
#[test]
fn a_wedged_landing_is_solved_by_continuation_in_friction() {
    for seed in [26, 245, 249, 400, 414, 447] {
        run_within_the_laws(seed);
    }
}

/// A cone row that a loaded contact's friction leaves far (by more than ten tolerances and a
/// thousandth of its load) is measured in N·s before the next proximal solve, not only once
/// the rows are solved. Soak
/// seed 2643 (3D, ten bodies, RATTLE, μ = 0.06): at step 119 a superellipsoid spinning on the
/// ground came out of the first solve with its torsion at 1.7 times its cone, a squared
/// residual of 5.7e-9 at a load of 1.4e-4 N·s, and every re-solve from there crept at 1/16 of
/// its Newton steps for 500 iterations; the step failed at every halving. It now runs to its
/// end within the laws (one halved step when measured).
#[test]
fn a_cone_left_far_at_a_small_load_is_measured_in_newton_seconds() {
    run_within_the_laws(2643);
}

/// Under RATTLE a sub-step whose first-order cold start fails is solved from a second-order
/// cold start before it is halved. Soak seeds 132 (2D, μ = 1.43: a 0.34 kg superellipse
/// wedged between the ground and a 3.9 kg one that struck it, step 55) and 3280 (2D, μ = 0.89,
/// step 163, after a superellipse struck an ellipse) failed at every halving, where steps of
/// h/2 and shorter fail as well; both now run to their end within the laws.
#[test]
fn a_failed_first_order_cold_start_is_followed_by_a_second_order_one() {
    for seed in [132, 3280] {
        assert_eq!(random_scene(seed).settings.integrator, Integrator::Rattle);
        run_within_the_laws(seed);
    }
}

/// The path search's proximal term is a trust region (`mcp::path`): it grows after a short
/// step and falls after a whole one. When a partial step lowered it too, it alternated between
/// a level too weak (a step of 1/128 of the path) and one barely strong enough (1/8), and
/// the search crept: seeds 57 (2D, seven bodies, RATTLE, μ = 1.10) and 193 (3D, twelve bodies,
/// Euler, μ = 1.36) stopped at steps 21 and 41, 8228 and 4201 Newton iterations in the failed
/// step. A partial step now keeps the term, and both run to their end within the laws; the
/// worst step, 411 and 348 iterations when measured, is held to 1000.
#[test]
fn a_partial_step_keeps_the_proximal_term() {
    for seed in [57, 193] {
        let out = run_within_the_laws(seed);
        assert!(out.newton_max <= 1000, "seed {seed}: {}", out.newton_max);
    }
}

/// A pair takes part when its parts are within the step's reach by their distance, not only
/// by bounding balls or an unbounded part. Seed 437 (2D, eleven bodies, μ = 0, Euler) paired
/// every body with the ground half-space, 0.2 to 3 m below, and the superellipses whose flat
/// sides faced it (closest points barely unique) kept every step at 1 046–1 072 Newton
/// iterations and one halving; the seed timed out in the soak after 33 steps. Now none of the
/// first 30 steps takes more than 30 iterations or a halving (measured: at most 12 in the
/// whole run).
#[test]
fn pairs_out_of_reach_stay_out_of_the_step() {
    let slow = planar_steps_where(437, 30, |r| r.retries > 0 || r.newton_iterations > 30);
    assert!(slow.is_empty(), "steps halved or slow: {slow:?}");
}

/// The proximal weight of a contact's slip `σ` follows its cone row's scale `μ²` below
/// μ = 0.5. Seed 500 (2D, ten bodies, μ = 0.0026, RATTLE) weighted `σ` `1/μ²` ≈ 1.5·10⁵
/// times its row's scale (about 90 times the row's sensitivity at the contacts' actual
/// loads), so the outer iterations crept (`σ` by 1 % per solve), the last,
/// unregularised solve was reached with the impulses still moving, and step 91 failed at
/// every halving; step 87 took 2 670 Newton iterations and two halvings. Now the whole run
/// (100 steps) solves without a halving.
#[test]
fn a_lightly_rough_contact_does_not_creep_through_its_proximal_iteration() {
    let halved = planar_steps_where(500, 100, |r| r.retries > 0);
    assert!(halved.is_empty(), "steps halved: {halved:?}");
}

/// Runs the planar soak scene of `seed` for `steps` steps, each converged, and returns the
/// steps whose report satisfies `pick`.
fn planar_steps_where(
    seed: u64,
    steps: usize,
    pick: impl Fn(&implicit_contact::stepper::StepReport) -> bool,
) -> Vec<usize> {
    use implicit_contact::stepper::ImplicitStepper;
    let rs = random_scene(seed);
    let AnyScene::Planar(scene) = rs.scene else {
        panic!("seed {seed} is planar")
    };
    let mut stepper = ImplicitStepper::new(scene, rs.settings).unwrap();
    let mut picked = Vec::new();
    for step in 0..steps {
        let report = stepper.step();
        assert!(report.converged, "step {step}: {:?}", report.failure);
        if pick(&report) {
            picked.push(step);
        }
    }
    picked
}

/// A step the path search cannot solve whole is halved before the dense fallbacks are tried:
/// they run only at the last halving depth. (Seed 7's step 34 showed this first, when the
/// fallbacks ran at every depth: 8 973 function evaluations, 17 s of dense QR.) A sub-step the
/// warm start does not solve is solved again from a cold start before it is halved. Soak seed
/// 403 (3D, seven ellipsoids and superellipsoids, the paper's scheme, μ = 1.35), step 72: the
/// warm and the cold start fail on the whole step, and the path search solves it in halves,
/// 489 Newton iterations in all, without a fallback. The hard step of a random scene moves
/// whenever the solver's arithmetic does (the steps before it are solved to the tolerance
/// along other paths), so this test has had others: seed 11's step 99 (solved whole since
/// each contact keeps its tangent reference), seed 498's step 88 (RATTLE: reached on another
/// trajectory since its kicks take the gyroscopic impulse at their midpoints) and seed 480's
/// step 89. A count, not a time: the bound is 4× the measurement.
#[test]
fn a_hard_step_is_halved_before_the_dense_fallbacks_run() {
    use implicit_contact::mcp::SolverKind;
    use implicit_contact::stepper::ImplicitStepper;
    let random = random_scene(403);
    let AnyScene::Spatial(scene) = random.scene else {
        panic!("seed 403 is a 3D scene");
    };
    let mut stepper = ImplicitStepper::new(scene, random.settings).unwrap();
    for step in 1..72 {
        let report = stepper.step();
        assert!(report.converged, "step {step}: {}", report.solve);
    }
    let report = stepper.step();
    assert!(report.converged, "step 72: {}", report.solve);
    assert!(
        report.retries > 0 && report.cold_starts > 0,
        "step 72 was halved after a cold start: {}",
        report.solve
    );
    // The report's solve is the last sub-step's; the iterations are the whole step's.
    assert_eq!(
        report.solve.solver,
        SolverKind::PathSearch,
        "{}",
        report.solve
    );
    assert!(
        report.newton_iterations <= 1960,
        "step 72: {} Newton iterations",
        report.newton_iterations
    );
}

/// `--every-pair`: each body a polytope on its own draw, so polytopes meet polytopes. The
/// default mode's scene of a seed is unchanged (its fingerprint above); the other draws are
/// shared. Seed 9 (3D, twelve bodies: three boxes, two octahedra and two finite cylinders
/// among them, RATTLE, μ = 0) runs to its end within the laws.
#[test]
fn every_pair_scenes_put_polytopes_against_polytopes() {
    use implicit_contact::study::soak::{Shapes, random_scene_with, run_seed_with};
    const POLYTOPES: [&str; 6] = [
        "rectangle",
        "regular_polygon",
        "rhombus",
        "box",
        "octahedron",
        "cylinder",
    ];
    let count = |shapes: &[&str]| shapes.iter().filter(|k| POLYTOPES.contains(k)).count();
    let mut several = 0;
    for seed in 0..20 {
        let (one, any) = (
            random_scene_with(seed, Shapes::OnePolytope),
            random_scene_with(seed, Shapes::EveryPair),
        );
        assert_eq!(
            any_fingerprint(&one.scene),
            any_fingerprint(&random_scene(seed).scene)
        );
        assert_eq!(
            one.shapes.len(),
            any.shapes.len(),
            "seed {seed}: body count"
        );
        assert!(count(&one.shapes) <= 1);
        if count(&any.shapes) >= 2 {
            several += 1;
        }
    }
    assert!(
        several >= 5,
        "{several} of 20 seeds with two polytopes or more"
    );
    let scene = random_scene_with(9, Shapes::EveryPair);
    assert!(count(&scene.shapes) >= 5, "{:?}", scene.shapes);
    let out = run_seed_with(9, Shapes::EveryPair, Duration::from_secs(60));
    assert!(matches!(out.outcome, Outcome::Ok), "{:?}", out.outcome);
    assert!(out.worst_penetration <= 1e-9 && out.worst_cone_violation <= 1e-8);
}

/// The chained soak in small: seeds 0..40 of `soak --chains` (4.4 s of work when measured,
/// the slowest seed 0.45 s) run to their end within the laws. Of seeds 0..300, four do not (see
/// the README, "Chained scenes").
#[test]
fn chained_seeds_run_to_their_end_within_the_laws() {
    seeds_run_to_their_end_within_the_laws(
        0..40,
        implicit_contact::study::soak::Shapes::Chains.into(),
    );
}

/// The chained soak with drawn torsion in small: seeds 10..50 of `soak --chains
/// --drawn-torsion` (2.9 s of work when measured, the slowest seed 0.57 s) run to their end
/// within the laws. With `e_r = 1` m, four of the chained seeds 0..300 fail; with `e_r` drawn,
/// none (see the README, "The chained failures are the soak's torsion radius"). Seed 8 is
/// left to the long soak: one step of 11 970 Newton iterations, 2.6 s alone, near this
/// test's per-seed limit when the suite runs in parallel.
#[test]
fn chained_seeds_with_drawn_torsion_run_to_their_end_within_the_laws() {
    use implicit_contact::study::soak::{SceneKind, Shapes};
    seeds_run_to_their_end_within_the_laws(
        10..50,
        SceneKind {
            shapes: Shapes::Chains,
            drawn_torsion: true,
        },
    );
}

/// `--drawn-torsion`: the seed's scene, bodies bit for bit, with the friction ellipsoid's
/// torsional semi-axis drawn: left out of the file about half of the time, so that each pair
/// gets the format's default `0.3 ×` the smaller body's radius (the ground's being infinite,
/// the body's own; in 2D, without torsion, 1), and otherwise between 5 mm and 1 m;
/// `e_t = e_o = 1` as before.
#[test]
fn drawn_torsion_scenes_keep_their_bodies_and_draw_e_r() {
    use implicit_contact::study::soak::{SceneKind, Shapes, random_scene_with};
    let (mut defaulted, mut drawn) = (0, 0);
    for seed in 0..40 {
        let kind = SceneKind {
            shapes: Shapes::OnePolytope,
            drawn_torsion: true,
        };
        let (one, torsion) = (
            random_scene_with(seed, Shapes::OnePolytope),
            random_scene_with(seed, kind),
        );
        assert_eq!(one.file.body, torsion.file.body, "seed {seed}");
        assert_eq!(
            one.file.friction.mu, torsion.file.friction.mu,
            "seed {seed}"
        );
        assert_eq!(one.file.friction.e_r, Some(1.0), "seed {seed}");
        let f = &torsion.file.friction;
        assert_eq!((f.e_t, f.e_o), (1.0, 1.0), "seed {seed}");
        let e_r_on_ground = match &torsion.scene {
            AnyScene::Planar(s) => s.friction_between(0, 1).e_r,
            AnyScene::Spatial(s) => s.friction_between(0, 1).e_r,
        };
        match f.e_r {
            Some(e_r) => {
                drawn += 1;
                assert!((0.005..=1.0).contains(&e_r), "seed {seed}: {e_r}");
                assert_eq!(e_r_on_ground, e_r, "seed {seed}");
            }
            // 2D has no torsion, and the format leaves `e_r` at 1 there.
            None if torsion.dimension() == 2 => assert_eq!(e_r_on_ground, 1.0),
            None => {
                defaulted += 1;
                // A soak body's bounding radius is below 1 m (a box's half-diagonal, at most).
                assert!(
                    e_r_on_ground > 0.0 && e_r_on_ground < 0.3,
                    "seed {seed}: {e_r_on_ground}"
                );
            }
        }
    }
    assert!(
        defaulted >= 5 && drawn >= 10,
        "{defaulted} defaulted, {drawn} drawn"
    );
}

/// `--chains`: the default scene of a seed (the same bodies, bit for bit) with consecutive
/// bodies linked by joints, pins in 2D, ball joints and hinges in 3D, each written in the
/// seed's scenario file.
#[test]
fn chained_scenes_link_bodies_by_joints() {
    use implicit_contact::scenario::schema::JointKindSpec;
    use implicit_contact::study::soak::{Shapes, random_scene_with};
    let (mut pins, mut balls, mut hinges) = (0, 0, 0);
    for seed in 0..20 {
        let (one, chained) = (
            random_scene_with(seed, Shapes::OnePolytope),
            random_scene_with(seed, Shapes::Chains),
        );
        assert_eq!(one.file.body, chained.file.body, "seed {seed}");
        let joints = match &chained.scene {
            AnyScene::Planar(s) => s.joints.len(),
            AnyScene::Spatial(s) => s.joints.len(),
        };
        assert_eq!(joints, chained.file.joint.len(), "seed {seed}");
        assert!(
            joints < one.shapes.len().max(1),
            "seed {seed}: a chain, no loop"
        );
        for j in &chained.file.joint {
            match (chained.dimension(), j.kind) {
                (2, JointKindSpec::Revolute) => pins += 1,
                (3, JointKindSpec::Ball) => balls += 1,
                (3, JointKindSpec::Revolute) => hinges += 1,
                other => panic!("seed {seed}: {other:?}"),
            }
        }
    }
    assert!(
        pins >= 5 && balls >= 5 && hinges >= 5,
        "pins {pins}, balls {balls}, hinges {hinges}"
    );
}

/// Every seed's scenario file (`RandomScene::file`, what `soak --write-scenarios` writes) runs
/// the seed bit for bit: written as TOML, read back and built, its scene steps through the
/// same states as the generated one (every body's pose and twist compared bitwise after each
/// of 30 steps, or up to the step where both fail alike), under the same settings. Covers every
/// shape of both dimensions (the every-pair seeds bring boxes, regular polygons, rhombi,
/// cylinders and octahedra against each other) and the chained scenes' joints, with drawn torsion as well.
#[test]
fn a_seeds_scenario_file_runs_the_seed_bit_for_bit() {
    use implicit_contact::study::soak::{SceneKind, Shapes, random_scene_with};
    let mut kinds = BTreeSet::new();
    let chained_torsion = SceneKind {
        shapes: Shapes::Chains,
        drawn_torsion: true,
    };
    for shapes in [
        Shapes::OnePolytope.into(),
        Shapes::EveryPair.into(),
        Shapes::Chains.into(),
        chained_torsion,
    ] {
        for seed in 0..40 {
            let generated = random_scene_with(seed, shapes);
            let text = generated.file.to_toml();
            let read = implicit_contact::scenario::parse(&text, &format!("soak_{seed}.toml"))
                .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
            assert_eq!(
                format!("{:?}", read.stepper_settings()),
                format!("{:?}", generated.settings),
                "seed {seed}"
            );
            let same = common::same_runs(generated.scene, read.scene, &generated.settings, 30);
            assert!(
                same,
                "seed {seed} ({shapes:?}): the file's run departs\n{text}"
            );
            kinds.extend(generated.shapes);
        }
    }
    for kind in [
        "regular_polygon",
        "rhombus",
        "rectangle",
        "octahedron",
        "cylinder",
        "box",
        "superellipse",
        "superellipsoid",
    ] {
        assert!(kinds.contains(kind), "no {kind} among the seeds");
    }
}
