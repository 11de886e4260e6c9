//! Support friction (the 2.5D model, `model::Support`) against its closed forms: a disc
//! sliding or spinning on its table decelerates at exactly `μ g` (`μ m g e_r / I` in spin)
//! under the paper's Euler step, and stops in the closed-form step.

use implicit_contact::geometry::{BodyShape, Circle, ConvexPart, Planar, Pose};
use implicit_contact::model::{Friction, RigidBody, Scene, Support, Twist};
use implicit_contact::stepper::{ImplicitStepper, StepperSettings};
use nalgebra::{Vector1, Vector2};

const M: f64 = 0.03;
const R: f64 = 0.02;
const G: f64 = 9.81;
const MU: f64 = 0.25;
const H: f64 = 1e-3;

fn disc_on_table(v: Vector2<f64>, w: f64) -> ImplicitStepper<Planar> {
    let part = ConvexPart::single("disc", Circle::new(R).unwrap()).unwrap();
    let shape = BodyShape::new("disc", vec![part]).unwrap();
    let disc = RigidBody::<Planar>::new("disc", M, 0.5 * M * R * R, shape, Pose::identity())
        .unwrap()
        .with_twist(Twist::new(v, Vector1::new(w)))
        .unwrap();
    let scene = Scene::new("table", Vector2::zeros(), Friction::coulomb(0.0), H, 1.0)
        .unwrap()
        .with_body(disc)
        .unwrap();
    let e_r = 2.0 * R / 3.0;
    let friction = Friction::elliptic(MU, 1.0, 1.0, e_r);
    let support = Support::new("table", 0, 0, friction, M * G, &scene.bodies).unwrap();
    ImplicitStepper::new(scene.with_support(support), StepperSettings::default()).unwrap()
}

/// Sliding without spin: each Euler step removes `μ g h` of speed along the motion until the
/// step in which the speed would change sign, which ends at rest. Tolerance 1e-9 m/s: the
/// solve's 1e-10 over the mass, accumulated over the steps.
#[test]
fn sliding_disc_decelerates_at_mu_g_and_stops_on_time() {
    let v0 = 0.05;
    let dir = Vector2::new(0.6, -0.8);
    let mut stepper = disc_on_table(dir * v0, 0.0);
    let dv = MU * G * H;
    let stop = (v0 / dv).ceil() as usize;
    for k in 1..=stop + 5 {
        let report = stepper.step();
        assert!(report.converged);
        let twist = stepper.scene.bodies[0].twist;
        let expected = (v0 - k as f64 * dv).max(0.0);
        assert!(
            (twist.linear - dir * expected).norm() < 1e-9,
            "step {k}: v = {:?}, expected {expected} along {dir:?}",
            twist.linear
        );
        assert!(twist.angular.x.abs() < 1e-9);
    }
}

/// Spinning in place: the friction torque is `μ N e_r` (the ellipsoid's spin semi-axis), so
/// `ω` falls by `μ m g e_r h / I` per step, to rest.
#[test]
fn spinning_disc_decelerates_at_the_ellipsoids_torque() {
    let w0 = 3.0;
    let mut stepper = disc_on_table(Vector2::zeros(), w0);
    let dw = MU * M * G * (2.0 * R / 3.0) * H / (0.5 * M * R * R);
    let stop = (w0 / dw).ceil() as usize;
    for k in 1..=stop + 5 {
        assert!(stepper.step().converged);
        let twist = stepper.scene.bodies[0].twist;
        let expected = (w0 - k as f64 * dw).max(0.0);
        assert!(
            (twist.angular.x - expected).abs() < 1e-8 && twist.linear.norm() < 1e-9,
            "step {k}: ω = {}, expected {expected}",
            twist.angular.x
        );
    }
}

/// A push below `μ m g` does not move a resting disc; the table holds it.
#[test]
fn push_below_the_limit_is_held() {
    let part = ConvexPart::single("disc", Circle::new(R).unwrap()).unwrap();
    let shape = BodyShape::new("disc", vec![part]).unwrap();
    let push = 0.9 * MU * M * G;
    let disc = RigidBody::<Planar>::new("disc", M, 0.5 * M * R * R, shape, Pose::identity())
        .unwrap()
        .with_external_wrench(implicit_contact::model::Wrench::new(
            Vector2::new(push, 0.0),
            Vector1::new(0.0),
        ))
        .unwrap();
    let scene = Scene::new("table", Vector2::zeros(), Friction::coulomb(0.0), H, 1.0)
        .unwrap()
        .with_body(disc)
        .unwrap();
    let friction = Friction::elliptic(MU, 1.0, 1.0, 2.0 * R / 3.0);
    let support = Support::new("table", 0, 0, friction, M * G, &scene.bodies).unwrap();
    let mut stepper =
        ImplicitStepper::new(scene.with_support(support), StepperSettings::default()).unwrap();
    for _ in 0..100 {
        assert!(stepper.step().converged);
    }
    assert!(stepper.scene.bodies[0].twist.linear.norm() < 1e-9);
    assert!(stepper.scene.bodies[0].pose.position.norm() < 1e-9);
}

/// Support friction is the paper's first-order scheme only: the second-order integrators
/// refuse it by name.
#[test]
fn second_order_integrators_refuse_support_friction() {
    let part = ConvexPart::single("disc", Circle::new(R).unwrap()).unwrap();
    let shape = BodyShape::new("disc", vec![part]).unwrap();
    let disc =
        RigidBody::<Planar>::new("disc", M, 0.5 * M * R * R, shape, Pose::identity()).unwrap();
    let scene = Scene::new("table", Vector2::zeros(), Friction::coulomb(0.0), H, 1.0)
        .unwrap()
        .with_body(disc)
        .unwrap();
    let support = Support::new("table", 0, 0, Friction::coulomb(MU), M * G, &scene.bodies).unwrap();
    let settings = StepperSettings {
        integrator: implicit_contact::model::Integrator::Rattle,
        ..StepperSettings::default()
    };
    let e = ImplicitStepper::new(scene.with_support(support), settings).unwrap_err();
    assert!(e.to_string().contains("euler"), "{e}");
}
