//! The grasp model of the paper's Example 4 (§6.4) against closed forms: the wedge, and one
//! grasp from the sweet spot. The study's statistics are the study's own table
//! (`implicit-contact study grasp`).

use implicit_contact::geometry::Planar;
use implicit_contact::stepper::ImplicitStepper;
use implicit_contact::study::grasp::{
    GEAR, GEAR_RADIUS, GraspModel, GraspOutcome, GraspTrial, grasp_scene, grasp_settings, run_trial,
};

/// The gear's fastest and last vertical speed over `steps` steps with the fingertips touching the disc at
/// height `y` below its centre (`x = 0`, no support friction, everything at rest).
fn wedge_speed(y: f64, mu_gripper: f64, steps: usize) -> (f64, f64) {
    let model = GraspModel {
        opening: 2.0 * (GEAR_RADIUS * GEAR_RADIUS - y * y).sqrt(),
        ..GraspModel::default()
    };
    let trial = GraspTrial {
        x: 0.0,
        y,
        mu_support: 0.0,
        mu_gripper,
    };
    let scene = grasp_scene(&model, &trial).unwrap();
    let mut stepper: ImplicitStepper<Planar> =
        ImplicitStepper::new(scene, grasp_settings()).unwrap();
    let (mut fastest, mut last): (f64, f64) = (0.0, 0.0);
    for k in 0..steps {
        let report = stepper.step();
        assert!(
            report.converged,
            "y = {y}, μ_g = {mu_gripper}: step {k} failed"
        );
        last = stepper.scene.bodies[GEAR].twist.linear.y;
        if last.abs() > fastest.abs() {
            fastest = last;
        }
    }
    (fastest, last)
}

/// The wedge (issue 18): with no support friction and the fingertips at `x = 0`, height `y`
/// below the centre, each jaw presses along the disc's normal at the angle `φ` below the
/// horizontal, `sin φ = |y| / R`; the normal forces' upward part `N sin φ` beats the largest
/// friction `μ_g N cos φ` exactly when `tan φ > μ_g`, and the gear is pushed out of the jaws.
/// Over a grid of `y` and `μ_g` (no pair within 15 % of the boundary), within 10 ms the gear
/// either moves up (faster than 1 mm/s: it accelerates at `2F (sin φ − μ cos φ)/m`, some
/// m/s², until its outermost teeth catch the jaws) or is held: below 1e-9 m/s at the end
/// (the solve's tolerance over the gear's mass, `1e-10 / 0.03`, is 3e-9) and below 1e-7 m/s
/// throughout (the first steps settle the contacts, which start exactly touching, to the
/// tolerance: 1e-8 m/s).
#[test]
fn gear_is_pushed_out_exactly_when_tan_phi_exceeds_mu() {
    for y_mm in [-3.0, -5.0, -8.0, -11.0, -14.0] {
        let y: f64 = y_mm * 1e-3;
        let tan_phi = (y.abs() / GEAR_RADIUS).asin().tan();
        for mu in [0.1, 0.2, 0.3, 0.5, 0.8] {
            let ratio = tan_phi / mu;
            if (0.85..1.15).contains(&ratio) {
                continue;
            }
            let (fastest, last) = wedge_speed(y, mu, 10);
            if tan_phi > mu {
                assert!(
                    fastest > 1e-3,
                    "y = {y_mm} mm, μ_g = {mu}: tan φ = {tan_phi:.3} > μ_g but v_y ≤ {fastest:e}"
                );
            } else {
                assert!(
                    last.abs() < 1e-9 && fastest.abs() < 1e-7,
                    "y = {y_mm} mm, μ_g = {mu}: tan φ = {tan_phi:.3} ≤ μ_g but v_y = {last:e} \
                     (fastest {fastest:e})"
                );
            }
        }
    }
}

/// One grasp from the experiment's sweet spot `(0, −11)` mm with friction inside the bounds:
/// the gear slides up between the jaws and comes to rest held by its outermost teeth,
/// centred (by symmetry, `x_g` and `θ_g` stay zero to rounding).
#[test]
fn sweet_spot_grasp_is_held_by_the_outermost_teeth() {
    let trial = GraspTrial {
        x: 0.0,
        y: -11e-3,
        mu_support: 0.2,
        mu_gripper: 0.2,
    };
    let result = run_trial(&GraspModel::default(), &trial, |_| {}).unwrap();
    assert_eq!(result.outcome, GraspOutcome::Success, "{result:?}");
    assert!(result.gear[1] > 1e-3, "the gear slid up: {result:?}");
    assert!(result.gear[0].abs() < 1e-9 && result.gear[2].abs() < 1e-6);
    assert!((result.jaws[0] + result.jaws[1]).abs() < 1e-9);
}

/// A nearly diametric grasp (`y = −2` mm, `tan φ` = 0.097 below `μ_g`) wedges the gear on the
/// disc: at rest, held by the disc, a failed grasp.
#[test]
fn diametric_grasp_fails() {
    let trial = GraspTrial {
        x: 0.0,
        y: -2e-3,
        mu_support: 0.2,
        mu_gripper: 0.2,
    };
    let result = run_trial(&GraspModel::default(), &trial, |_| {}).unwrap();
    assert_eq!(result.outcome, GraspOutcome::WrongHold, "{result:?}");
    assert_eq!(result.held_by, [vec![0], vec![0]]);
}

/// `paper_cases/grasp.toml` is the scene `grasp_scene` builds for the sweet-spot trial
/// (`μ_s = μ_g = 0.2`): stepped side by side for 300 steps, through the slide and the catch,
/// the gear's pose agrees to 1e-12 m (the file's decimal numbers are the library's values
/// printed with 17 digits; their rounding is all that may differ).
#[test]
fn scenario_file_is_the_librarys_grasp() {
    use implicit_contact::scenario::{self, AnyScene};
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/paper_cases/grasp.toml");
    let file = scenario::load(path).unwrap();
    let AnyScene::Planar(from_file) = file.scene else {
        panic!("grasp.toml is planar");
    };
    let trial = GraspTrial {
        x: 0.0,
        y: -11e-3,
        mu_support: 0.2,
        mu_gripper: 0.2,
    };
    let from_library = grasp_scene(&GraspModel::default(), &trial).unwrap();
    let settings = grasp_settings();
    let mut a = ImplicitStepper::new(from_file, settings.clone()).unwrap();
    let mut b = ImplicitStepper::new(from_library, settings).unwrap();
    for k in 0..300 {
        assert!(a.step().converged && b.step().converged, "step {k}");
    }
    let (pa, pb) = (&a.scene.bodies[GEAR].pose, &b.scene.bodies[GEAR].pose);
    assert!(pb.position.y > 1e-3, "the gear slid up");
    assert!(
        (pa.position - pb.position).norm() < 1e-12,
        "{pa:?} vs {pb:?}"
    );
    assert!((pa.rotation.angle() - pb.rotation.angle()).abs() < 1e-9);
}

/// Mirror symmetry: the gear's teeth are symmetric about the vertical through its centre (the
/// printed angles to 1e-6 rad), so a grasp from `(−x, y)` is the mirror image of the one from
/// `(x, y)`: the same outcome, the same held parts mirrored (tooth `i` ↔ `7 − i`), and the
/// final gear pose mirrored to 1e-5 m and rad (the angles' rounding, carried through the slide).
#[test]
fn mirrored_starts_give_mirrored_grasps() {
    let model = GraspModel::default();
    for (x, y, mu_s, mu_g) in [(4e-3, -12e-3, 0.2, 0.2), (7e-3, -16e-3, 0.15, 0.25)] {
        let run = |x: f64| {
            let trial = GraspTrial {
                x,
                y,
                mu_support: mu_s,
                mu_gripper: mu_g,
            };
            run_trial(&model, &trial, |_| {}).unwrap()
        };
        let (a, b) = (run(x), run(-x));
        assert_eq!(a.outcome, b.outcome, "{a:?}\n{b:?}");
        let mirror = |parts: &Vec<usize>| -> Vec<usize> {
            let mut m: Vec<usize> = parts
                .iter()
                .map(|&p| if p == 0 { 0 } else { 7 - p })
                .collect();
            m.sort_unstable();
            m
        };
        assert_eq!(a.held_by[0], mirror(&b.held_by[1]), "{a:?}\n{b:?}");
        assert_eq!(a.held_by[1], mirror(&b.held_by[0]), "{a:?}\n{b:?}");
        assert!((a.gear[0] + b.gear[0]).abs() < 1e-5, "{a:?}\n{b:?}");
        assert!((a.gear[1] - b.gear[1]).abs() < 1e-5, "{a:?}\n{b:?}");
        assert!((a.gear[2] + b.gear[2]).abs() < 1e-5, "{a:?}\n{b:?}");
    }
}
