//! Driven bodies: a constant-velocity pusher and a table of poses, the poses they follow and
//! the wrench their drives must exert (`ImplicitStepper::drives`, `drives.csv`), against
//! closed forms; and the scenario's refusals of bad `[body.drive]` tables.

use implicit_contact::geometry::{Planar, Pose, Spatial};
use implicit_contact::model::{Dynamics, PoseTable, Scene};
use implicit_contact::scenario::{self, AnyScene};
use implicit_contact::stepper::{ImplicitStepper, StepperSettings};
use nalgebra::UnitQuaternion;

mod common;
use common::example_planar;

const G: f64 = 9.81;

fn body<S: Dynamics>(scene: &Scene<S>, name: &str) -> usize {
    scene.bodies.iter().position(|b| b.name == name).unwrap()
}

fn angle(pose: &Pose<Planar>) -> f64 {
    pose.rotation.angle()
}

/// The notes' pusher with ideal position control (`examples/driven_pusher_2d.toml`): once the
/// box moves with the pusher, the drive exerts the ground's sliding friction `μ m g` along the
/// push, nothing across it and no torque about the disc's centre (the frictionless contact's
/// normal passes through it). The bound 1e-6 N is ten times the solve's tolerance on the
/// impulses (1e-10 N·s) over `h` (1e-3 s).
#[test]
fn a_driven_pusher_needs_the_ground_friction() {
    let scene = example_planar("driven_pusher_2d");
    let (pusher, boxed) = (body(&scene, "pusher"), body(&scene, "box"));
    let mut stepper = ImplicitStepper::new(scene, StepperSettings::default()).unwrap();
    let mu_m_g = 0.3 * 1.0 * G;
    for step in 1..=2000 {
        let report = stepper.step();
        assert!(report.converged, "step {step}: {report:?}");
        let drives = stepper.drives();
        assert_eq!(drives.len(), 1);
        assert_eq!(drives[0].body, pusher);
        // The pusher's pose is its drive's at every step.
        let pose = stepper.scene.bodies[pusher].pose;
        let t = stepper.time;
        assert!((pose.position.x - (-0.6 + 0.2 * t)).abs() < 1e-12);
        if step >= 500 {
            let (f, tau) = (&drives[0].force, drives[0].torque[0]);
            assert!((f[0] - mu_m_g).abs() < 1e-6, "step {step}: {f:?}");
            assert!(
                f[1].abs() < 1e-6 && tau.abs() < 1e-6,
                "step {step}: {f:?}, {tau}"
            );
            let v = stepper.scene.bodies[boxed].twist.linear.x;
            assert!((v - 0.2).abs() < 1e-8, "step {step}: box at {v} m/s");
        }
    }
}

/// `examples/elevator_2d.toml`: a platform on a table of poses lifts a 2 kg box. The platform
/// is at the table's pose at the end of every step (to rounding, 1e-12); its drive holds the
/// box's weight `m g` at rest and at constant speed (to 1e-8 N, as above), starts the box with
/// the impulse `m v` in the step the lift begins (`m g + m v / h`), exerts nothing while the
/// box flies after the platform stops dead, and once the tilted platform holds the box at rest
/// its torque balances the box's weight at the box's lever (`τ = m g Δx`, 1e-6 N·m: the box's
/// residual creep).
#[test]
fn a_table_driven_platform_lifts_a_box_with_the_closed_form_forces() {
    let scene = example_planar("elevator_2d");
    let (platform, boxed) = (body(&scene, "platform"), body(&scene, "box"));
    let table = scene.bodies[platform].drive.clone().unwrap();
    let h = scene.time_step;
    let m = scene.bodies[boxed].mass;
    let mut stepper = ImplicitStepper::new(scene, StepperSettings::default()).unwrap();
    let mut airborne = 0;
    for step in 1..=3000 {
        let report = stepper.step();
        assert!(report.converged, "step {step}: {report:?}");
        let t = stepper.time;
        let pose = stepper.scene.bodies[platform].pose;
        let expected = table.pose(t);
        assert!(
            (pose.position - expected.position).norm() < 1e-12,
            "step {step}"
        );
        assert!(
            (angle(&pose) - angle(&expected)).abs() < 1e-12,
            "step {step}"
        );
        let f = stepper.drives()[0].force.clone();
        let tau = stepper.drives()[0].torque[0];
        match step {
            1..=500 | 520..=1500 => {
                // The first steps settle the box's rounding-level overlap.
                if step > 10 {
                    assert!((f[1] - m * G).abs() < 1e-8, "step {step}: {f:?}");
                }
                assert!(f[0].abs() < 1e-8, "step {step}: {f:?}");
            }
            501 => assert!((f[1] - (m * G + m * 0.5 / h)).abs() < 1e-6, "{f:?}"),
            _ => {}
        }
        let touching = stepper.contacts().iter().any(|c| c.normal_impulse > 0.0);
        if step > 1500 && step < 1600 && !touching {
            airborne += 1;
            assert!(
                f[0].abs() < 1e-12 && f[1].abs() < 1e-12,
                "step {step}: {f:?}"
            );
        }
        if step >= 2700 {
            let dx = stepper.scene.bodies[boxed].pose.position.x - pose.position.x;
            assert!((f[1] - m * G).abs() < 1e-6, "step {step}: {f:?}");
            assert!(
                (tau - m * G * dx).abs() < 1e-6,
                "step {step}: {tau} vs {}",
                m * G * dx
            );
        }
    }
    // Thrown at 0.5 m/s, the box flies for about 2 v / g = 0.1 s.
    assert!(
        (90..=100).contains(&airborne),
        "{airborne} steps in the air"
    );
}

/// A 3D table of poses (a translation and a turn about an oblique axis, then a turn about
/// another): the driven body ends every step at the table's pose, each pose between two entries
/// is on the shortest rotation between them, and the step's twist is the one that carries the
/// body from one pose to the next through the step's kinematic map (to rounding, 1e-12).
#[test]
fn a_spatial_table_is_followed_along_its_shortest_rotations() {
    let text = format!(
        "{}{}",
        SPATIAL_HEAD,
        r#"
[body.drive]
times = [0.0, 0.3, 0.7]
positions = [[0.0, 0.0, 1.0], [0.3, -0.2, 1.4], [0.3, -0.2, 1.4]]
orientations = [[1.0, 0.0, 0.0, 0.0], [0.9689124217106447, 0.0824679864181743, 0.1649359728363486, 0.1649359728363486], [0.5, 0.5, 0.5, 0.5]]
"#
    );
    let scenario = scenario::parse(&text, "table.toml").unwrap_or_else(|e| panic!("{e}"));
    let AnyScene::Spatial(scene) = scenario.scene else {
        panic!("3D")
    };
    let d = body(&scene, "arm");
    let table: PoseTable<Spatial> = (*scene.bodies[d].drive.clone().unwrap()).clone();
    // Midway between two entries: half of the relative rotation.
    let (a, b) = (table.poses()[0].rotation, table.poses()[1].rotation);
    let half = UnitQuaternion::from_scaled_axis((b * a.inverse()).scaled_axis() * 0.5) * a;
    assert!(table.pose(0.15).rotation.angle_to(&half) < 1e-12);
    let mut stepper = ImplicitStepper::new(scene, StepperSettings::default()).unwrap();
    for step in 1..=100 {
        let t0 = stepper.time;
        assert!(stepper.step().converged);
        let pose = stepper.scene.bodies[d].pose;
        let expected = table.pose(stepper.time);
        assert!(
            (pose.position - expected.position).norm() < 1e-12,
            "step {step}"
        );
        assert!(
            pose.rotation.angle_to(&expected.rotation) < 1e-12,
            "step {step}"
        );
        let twist = stepper.scene.bodies[d].twist;
        let from = table.pose(t0);
        let end = implicit_contact::model::end_of_step_pose(&from, &twist, 0.01);
        assert!(
            end.rotation.angle_to(&expected.rotation) < 1e-12,
            "step {step}"
        );
        assert!((twist.linear - (expected.position - from.position) / 0.01).norm() < 1e-9);
    }
    assert!(
        (stepper.scene.bodies[d]
            .pose
            .rotation
            .angle_to(&table.poses()[2].rotation))
            < 1e-12
    );
}

/// A 3D platform lifting a ball at constant speed on a table: the drive holds the ball's
/// weight (to 1e-8 N) and no torque about its centre (the ball rests above it).
#[test]
fn a_spatial_platform_holds_a_balls_weight() {
    let text = format!(
        "{}{}{}",
        SPATIAL_HEAD,
        r#"
[body.drive]
times = [0.0, 2.0]
positions = [[0.0, 0.0, 1.0], [0.0, 0.0, 2.0]]
"#,
        r#"
[[body]]
name = "ball"
mass = 0.5
inertia = [0.002, 0.002, 0.002]
position = [0.0, 0.0, 1.16]
[[body.part]]
[[body.part.function]]
shape = "sphere"
radius = 0.1
"#
    );
    let scenario = scenario::parse(&text, "lift.toml").unwrap_or_else(|e| panic!("{e}"));
    let AnyScene::Spatial(scene) = scenario.scene else {
        panic!("3D")
    };
    let mut stepper = ImplicitStepper::new(scene, StepperSettings::default()).unwrap();
    for step in 1..=150 {
        assert!(stepper.step().converged, "step {step}");
        if step > 20 {
            let d = &stepper.drives()[0];
            assert!((d.force[2] - 0.5 * G).abs() < 1e-8, "step {step}: {d:?}");
            assert!(d.force[0].abs() < 1e-8 && d.force[1].abs() < 1e-8, "{d:?}");
            assert!(d.torque.iter().all(|t| t.abs() < 1e-8), "{d:?}");
        }
    }
}

/// A 3D arm (a 0.6 × 0.1 × 0.05 m box) before its `[body.drive]` table.
const SPATIAL_HEAD: &str = r#"name = "drive3"
dimension = 3

[simulation]
time_step = 0.01
duration = 1.0
gravity = [0.0, 0.0, -9.81]

[friction]
mu = 0.5

[[body]]
name = "arm"
position = [0.0, 0.0, 1.0]
[[body.part]]
kind = "box"
half_extents = [0.3, 0.3, 0.05]
"#;

/// A planar platform with the table `drive` (a TOML fragment).
fn planar_with(drive: &str, extra: &str) -> String {
    format!(
        r#"name = "bad"
dimension = 2

[simulation]
time_step = 0.01
duration = 1.0
gravity = [0.0, -9.81]

[friction]
mu = 0.5

[[body]]
name = "platform"
position = [0.0, 0.0]
{extra}
[body.drive]
{drive}
[[body.part]]
kind = "box"
half_extents = [1.0, 0.1]

[[body]]
name = "ball"
mass = 1.0
inertia = 0.01
position = [0.0, 1.0]
[[body.part]]
[[body.part.function]]
shape = "circle"
radius = 0.1
"#
    )
}

#[test]
fn bad_tables_are_refused_at_their_field() {
    let cases = [
        (
            planar_with("times = [0.0, 1.0]\npositions = [[0.0, 0.0]]", ""),
            "body[0].drive.positions",
        ),
        (
            planar_with("times = [0.0, 1.0]\npositions = [[0.0, 0.0], [1.0]]", ""),
            "body[0].drive.positions[1]",
        ),
        (
            planar_with(
                "times = [0.0, 1.0]\npositions = [[0.5, 0.0], [1.0, 0.0]]",
                "",
            ),
            "body[0].drive.positions[0]",
        ),
        (
            planar_with(
                "times = [0.0, 0.0]\npositions = [[0.0, 0.0], [1.0, 0.0]]",
                "",
            ),
            "body[0].drive.times",
        ),
        (
            planar_with(
                "times = [0.0, 1.0]\npositions = [[0.0, 0.0], [0.0, 0.0]]\norientations = [0.0, 3.2]",
                "",
            ),
            "body[0].drive.orientations[1]",
        ),
        (
            planar_with(
                "times = [0.0, 1.0]\npositions = [[0.0, 0.0], [0.0, 0.0]]",
                "velocity = [1.0, 0.0]",
            ),
            "body[0].velocity",
        ),
        (
            planar_with(
                "times = [0.0, 1.0]\npositions = [[0.0, 0.0], [0.0, 0.0]]",
                "fixed = true",
            ),
            "body[0].drive",
        ),
    ];
    for (text, field) in cases {
        let err = scenario::parse(&text, "bad.toml").unwrap_err().to_string();
        assert!(err.contains("bad.toml:"), "no file and line: {err}");
        assert!(err.contains(field), "expected `{field}` in: {err}");
    }
}

/// The LCP stepper would hold a driven body still: it refuses it at the body.
#[test]
fn the_lcp_stepper_refuses_driven_bodies() {
    let path = format!(
        "{}/examples/driven_pusher_2d.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path)
        .unwrap()
        .replace("[simulation]", "[simulation]\nstepper = \"lcp\"");
    let err = scenario::parse(&text, "lcp.toml").unwrap_err().to_string();
    assert!(err.contains("driven"), "{err}");
}
