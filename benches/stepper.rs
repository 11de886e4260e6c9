//! Time per step of the implicit stepper on the paper's rigid cases (criterion; reported, never
//! asserted). Each sample steps through the whole run, starting over from the scenario's
//! initial state when it ends, so the mean covers every phase (rolling, sliding, separation).
//!
//! `cargo bench --bench stepper`. Targets (issue 4): disc on plane ≤ 5 µs, sphere on two
//! spheres ≤ 30 µs per step; `*_rattle`: the same cases under the second-order integrator
//! (issue 8, target ≤ 1.5× euler). The `scaling` group steps rows of 8 to 128 discs and 8 to 32
//! spheres ([`implicit_contact::scenes`]) for the cost per contact as the scene grows; the
//! mean number of contacts per step is printed beside each.

mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use implicit_contact::model::{Dynamics, Integrator, Scene};
use implicit_contact::scenario::{self, AnyScene};
use implicit_contact::scenes::{disc_row, polygon_pair, sphere_row};
use implicit_contact::stepper::{ImplicitStepper, StepperSettings};
use std::path::Path;
use std::time::Duration;

/// A paper case's scene and the stepper settings its file asks for.
fn paper_case(file: &str) -> (AnyScene, StepperSettings) {
    let sc = load_scenario("paper_cases", file);
    let settings = sc.stepper_settings();
    (sc.scene, settings)
}

fn load(dir: &str, file: &str) -> AnyScene {
    load_scenario(dir, file).scene
}

fn load_scenario(dir: &str, file: &str) -> scenario::Scenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir).join(file);
    scenario::load(path).expect("scenario loads")
}

/// Contacts between two intersections (issue 16, targets: 2D ≤ 5 µs, 3D ≤ 15 µs per step): a
/// box resting on a box, a cube pushed on a box (its contact point away from the centre) and
/// a box sliding to a stop, from the files under `examples/` (the resting ones shortened to
/// 1 s).
fn boxes(c: &mut Criterion) {
    for (file, name) in [
        ("box_on_box_2d.toml", "box_on_box_2d"),
        ("box_sliding_2d.toml", "box_sliding_2d"),
        ("box_on_box_3d.toml", "box_on_box_3d"),
        ("box_pushed_3d.toml", "box_pushed_3d"),
    ] {
        match load("examples", file) {
            AnyScene::Planar(mut s) => {
                s.duration = s.duration.min(1.0);
                bench_case(c, name, s);
            }
            AnyScene::Spatial(mut s) => {
                s.duration = s.duration.min(1.0);
                bench_case(c, name, s);
            }
        }
    }
}

/// Cost against the number of functions (issue 16: linear): an `n`-gon sliding flat on an
/// `n`-gon ([`polygon_pair`], 2 Newton iterations per step), `n` = 4 … 256.
fn polygon_pairs(c: &mut Criterion) {
    for n in [4, 16, 64, 256] {
        bench_case(
            c,
            &format!("polygon_pair_{n}"),
            polygon_pair(n, 1.0, 0.02).unwrap(),
        );
    }
}

/// Joints and driven bodies (issue 17, "a joint costs no more than a contact"): the pendulum,
/// the double pendulum, the four-bar linkage (under euler and rattle), the door on two hinges,
/// the pusher, the pendulum onto a joint limit, the slider with joint friction, the driven
/// pusher and the table-driven elevator, from the files under `examples/` (shortened to 1 s);
/// compare `pendulum_2d` (one body, one pin) with `disc_on_plane` (one body, one contact), and
/// `bead_on_rail_2d` (a block on a prismatic rail) with `block_on_incline_2d` (the same block and
/// motion held by a contact).
fn joints(c: &mut Criterion) {
    for (file, name) in [
        ("pendulum_2d.toml", "joint_pendulum_2d"),
        ("bead_on_rail_2d.toml", "joint_bead_on_rail_2d"),
        ("block_on_incline_2d.toml", "contact_block_on_incline_2d"),
        ("double_pendulum.toml", "joint_double_pendulum"),
        ("four_bar_linkage.toml", "joint_four_bar_linkage"),
        ("door_two_hinges_3d.toml", "joint_door_two_hinges_3d"),
        ("pusher_box_2d.toml", "joint_pusher_box_2d"),
        ("pendulum_limit_2d.toml", "joint_pendulum_limit_2d"),
        ("slider_friction_2d.toml", "joint_slider_friction_2d"),
        ("driven_pusher_2d.toml", "joint_driven_pusher_2d"),
        ("elevator_2d.toml", "joint_elevator_2d"),
    ] {
        match load("examples", file) {
            AnyScene::Planar(mut s) => {
                s.duration = s.duration.min(1.0);
                if name == "joint_four_bar_linkage" {
                    bench_case_with(
                        c,
                        "joint_four_bar_linkage_rattle",
                        s.clone(),
                        Integrator::Rattle,
                    );
                }
                bench_case(c, name, s);
            }
            AnyScene::Spatial(mut s) => {
                s.duration = s.duration.min(1.0);
                bench_case(c, name, s);
            }
        }
    }
}

fn bench_case<S: Dynamics>(c: &mut Criterion, name: &str, scene: Scene<S>) {
    bench_case_with(c, name, scene, Integrator::Euler);
}

fn bench_case_with<S: Dynamics>(
    c: &mut Criterion,
    name: &str,
    scene: Scene<S>,
    integrator: Integrator,
) {
    bench_case_settings(
        c,
        name,
        scene,
        StepperSettings {
            integrator,
            ..StepperSettings::default()
        },
    );
}

fn bench_case_settings<S: Dynamics>(
    c: &mut Criterion,
    name: &str,
    scene: Scene<S>,
    settings: StepperSettings,
) {
    let steps = (scene.duration / scene.time_step).round() as usize;
    let fresh = || ImplicitStepper::new(scene.clone(), settings.clone()).unwrap();
    common::report_run(name, steps, fresh());
    common::bench_steps(c, name, steps, fresh);
}

/// The paper's cases with the settings their files ask for (the paper's closest-point form),
/// and Examples 1 and 2 also in the signed-gap form, the default of other scenes.
fn paper_cases(c: &mut Criterion) {
    let rattle = |settings: &StepperSettings| StepperSettings {
        integrator: Integrator::Rattle,
        ..settings.clone()
    };
    if let (AnyScene::Planar(s), settings) = paper_case("disc_on_plane.toml") {
        bench_case_settings(c, "disc_on_plane", s.clone(), settings.clone());
        bench_case_settings(c, "disc_on_plane_rattle", s.clone(), rattle(&settings));
        bench_case(c, "disc_on_plane_signed_gap", s);
    }
    if let (AnyScene::Spatial(s), settings) = paper_case("sphere_on_two_spheres.toml") {
        bench_case_settings(c, "sphere_on_two_spheres", s.clone(), settings.clone());
        bench_case_settings(
            c,
            "sphere_on_two_spheres_rattle",
            s.clone(),
            rattle(&settings),
        );
        bench_case(c, "sphere_on_two_spheres_signed_gap", s);
    }
}

/// Frictionless rows, whose steps are well posed (unique impulses), so the cost per contact is
/// measured rather than the conditioning; one frictional row beside them, where a disc pressed
/// between its neighbours and the ground has a continuum of frictional impulses and a few
/// steps need many Newton iterations.
fn scaling(c: &mut Criterion) {
    for n in [8, 32, 128] {
        let scene = disc_row(n, 0.05, 2.0, 0.0).unwrap();
        bench_case(c, &format!("disc_row_{n}"), scene);
    }
    for n in [8, 32] {
        let scene = sphere_row(n, 0.05, 2.0, 0.0).unwrap();
        bench_case(c, &format!("sphere_row_{n}"), scene);
    }
    let scene = disc_row(32, 0.05, 2.0, 0.5).unwrap();
    bench_case(c, "disc_row_32_friction", scene);
}

/// Example 4: whole grasp trials (issue 18's target: ≤ 50 ms each on one core), from the
/// sweet spot (slide, catch on the outermost teeth), a near-diametric start (wedged on the
/// disc) and an off-centre start caught by an inner tooth.
fn grasp(c: &mut Criterion) {
    use implicit_contact::study::grasp::{GraspModel, GraspTrial, run_trial};
    let model = GraspModel::default();
    let mut group = c.benchmark_group("grasp_trial");
    group.sample_size(10);
    for (name, x, y) in [
        ("sweet_spot", 0.0, -11e-3),
        ("diametric", 0.0, -2e-3),
        ("inner_tooth", 7e-3, -16e-3),
    ] {
        let trial = GraspTrial {
            x,
            y,
            mu_support: 0.2,
            mu_gripper: 0.2,
        };
        group.bench_function(name, |b| {
            b.iter(|| run_trial(&model, &trial, |_| {}).unwrap())
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    targets = paper_cases, boxes, polygon_pairs, joints, scaling, grasp
}
criterion_main!(benches);
