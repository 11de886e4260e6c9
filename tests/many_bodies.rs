//! Scenes of many bodies: the broad phase keeps the step's MCP to the pairs within reach and
//! never misses a contact, the sparse factorisation gives the dense one's answer, and contact
//! numbers stay attached to their pair of bodies.

use implicit_contact::geometry::{BodyShape, Circle, ConvexPart, Placed, Planar, Pose};
use implicit_contact::model::{Dynamics, Friction, RigidBody, Scene, Wrench};
use implicit_contact::scenes::{disc_row, sphere_row};
use implicit_contact::stepper::{ImplicitStepper, StepperSettings};
use nalgebra::{Vector1, Vector2};
use std::collections::BTreeMap;

/// The moving bodies' positions, flattened.
fn positions<S: Dynamics>(s: &ImplicitStepper<S>) -> Vec<f64> {
    s.scene
        .bodies
        .iter()
        .filter(|b| !b.fixed)
        .flat_map(|b| (0..S::DIM).map(move |k| b.pose.position[k]))
        .collect()
}

/// Smallest distance between the centres of two moving balls of radius 0.5, minus their
/// diameter, and the lowest ball's height above its radius: both ≥ 0 without penetration.
fn clearance<S: Dynamics>(s: &ImplicitStepper<S>) -> f64 {
    let p: Vec<_> = s.scene.bodies.iter().filter(|b| !b.fixed).collect();
    let up = S::DIM - 1;
    let mut worst = f64::INFINITY;
    for (i, a) in p.iter().enumerate() {
        worst = worst.min(a.pose.position[up] - 0.5);
        for b in &p[i + 1..] {
            let d = (0..S::DIM)
                .map(|k| (a.pose.position[k] - b.pose.position[k]).powi(2))
                .sum::<f64>()
                .sqrt();
            worst = worst.min(d - 1.0);
        }
    }
    worst
}

/// A row of 16 rolling discs: only disc–ground and neighbour pairs ever enter a step, every
/// contact number keeps its pair, nothing penetrates (the independent centre-distance check,
/// 1e-9: the solve's 1e-10 residual on unit-size bodies), and the push travels to the last disc.
#[test]
fn broad_phase_keeps_a_row_of_discs_to_neighbour_contacts() {
    let n = 16;
    let mut stepper = ImplicitStepper::new(
        disc_row(n, 0.01, 2.0, 0.5).unwrap(),
        StepperSettings::default(),
    )
    .unwrap();
    let ground = stepper.scene.body_index("ground").unwrap();
    let mut pair_of_id = BTreeMap::new();
    let steps = 200;
    for _ in 0..steps {
        let report = stepper.step();
        assert!(report.converged, "t = {}: {}", stepper.time, report.solve);
        assert!(stepper.contact_count() < 2 * n);
        for c in stepper.contacts() {
            let (a, b) = (c.body1.min(c.body2), c.body1.max(c.body2));
            assert!(
                a == ground || b == ground || b - a == 1,
                "far pair {a}-{b} in the MCP"
            );
            assert_eq!(*pair_of_id.entry(c.id).or_insert((a, b)), (a, b));
        }
        assert!(clearance(&stepper) >= -1e-9, "t = {}", stepper.time);
    }
    assert!(stepper.contacts_seen() < 2 * n);
    // The collisions are plastic and the discs rub where they meet, so the push dies out
    // along the row; the neighbours it reached have moved.
    let moved: Vec<f64> = (0..n)
        .map(|i| {
            let b = stepper.scene.body_index(&format!("disc{i}")).unwrap();
            stepper.scene.bodies[b].pose.position[0] - i as f64 * 1.01
        })
        .collect();
    assert!(
        moved[1] > 0.01 && moved[2] > 0.01,
        "the push travelled: {moved:?}"
    );
}

/// The same frictionless rows (whose impulses are unique: the contact normals are independent)
/// solved with sparse factorisations (the default at this size) and dense ones give the same
/// motion. Both solve every step to a natural residual of 1e-10; over 100 steps of plastic
/// collisions the difference stays within 1e-8 m.
#[test]
fn sparse_and_dense_factorisations_agree() {
    let dense = StepperSettings {
        solver: {
            let mut s = StepperSettings::default().solver;
            s.path.sparse_threshold = usize::MAX;
            s
        },
        ..StepperSettings::default()
    };
    let mut a = ImplicitStepper::new(
        disc_row(12, 0.05, 2.0, 0.0).unwrap(),
        StepperSettings::default(),
    )
    .unwrap();
    let mut b = ImplicitStepper::new(disc_row(12, 0.05, 2.0, 0.0).unwrap(), dense.clone()).unwrap();
    assert!(a.problem_size() >= 100, "large enough for the sparse path");
    let mut worst = 0.0f64;
    for _ in 0..100 {
        assert!(a.step().converged && b.step().converged);
        for (x, y) in positions(&a).iter().zip(positions(&b)) {
            worst = worst.max((x - y).abs());
        }
    }
    assert!(worst < 1e-8, "sparse and dense differ by {worst:e}");
    let mut a = ImplicitStepper::new(
        sphere_row(6, 0.05, 2.0, 0.0).unwrap(),
        StepperSettings::default(),
    )
    .unwrap();
    let mut b = ImplicitStepper::new(sphere_row(6, 0.05, 2.0, 0.0).unwrap(), dense).unwrap();
    assert!(a.problem_size() >= 100);
    let mut worst = 0.0f64;
    for _ in 0..100 {
        assert!(a.step().converged && b.step().converged);
        for (x, y) in positions(&a).iter().zip(positions(&b)) {
            worst = worst.max((x - y).abs());
        }
        assert!(clearance(&a) >= -1e-9);
    }
    assert!(worst < 1e-8, "3D: sparse and dense differ by {worst:e}");
}

/// Leaving far pairs out of the step changes nothing: with the broad phase off every pair
/// takes part (and carries zero impulse when far), and the motion of the frictionless row
/// agrees to 1e-8 m.
#[test]
fn broad_phase_on_and_off_agree() {
    let off = StepperSettings {
        broad_phase: false,
        ..StepperSettings::default()
    };
    let mut a = ImplicitStepper::new(
        disc_row(5, 0.05, 2.0, 0.0).unwrap(),
        StepperSettings::default(),
    )
    .unwrap();
    let mut b = ImplicitStepper::new(disc_row(5, 0.05, 2.0, 0.0).unwrap(), off).unwrap();
    // All 5·4/2 disc pairs plus 5 ground pairs when off.
    assert_eq!(b.contact_count(), 15);
    assert!(a.contact_count() < 15);
    let mut worst = 0.0f64;
    for _ in 0..150 {
        assert!(a.step().converged && b.step().converged);
        for (x, y) in positions(&a).iter().zip(positions(&b)) {
            worst = worst.max((x - y).abs());
        }
    }
    assert!(worst < 1e-8, "broad phase on and off differ by {worst:e}");
}

/// A disc at rest pushed by a force so large that it crosses the gap to its neighbour within
/// one step: the broad phase, which sizes its reach from the start-of-step speed, leaves the
/// pair out; the end-of-step check finds the overlap, the step is redone with the pair, and
/// nothing penetrates. The step is so large (the disc would move twice its diameter) that the
/// end-of-step conditions also admit the disc on the far side of the target; that solution is
/// refused (the contact normal turned round) and the step halved.
#[test]
fn a_pair_the_broad_phase_missed_is_caught_and_the_step_redone() {
    let disc = |name: &str, x: f64| {
        RigidBody::<Planar>::new(
            name,
            1.0,
            0.125,
            BodyShape::new(
                name,
                vec![
                    ConvexPart::single(name, Placed::at_origin(Circle::new(0.5).unwrap())).unwrap(),
                ],
            )
            .unwrap(),
            Pose::planar(x, 0.0, 0.0, name).unwrap(),
        )
        .unwrap()
    };
    let pushed = disc("pushed", 0.0)
        .with_external_wrench(Wrench::new(Vector2::new(2.0e4, 0.0), Vector1::new(0.0)))
        .unwrap();
    let scene = Scene::new("push", Vector2::zeros(), Friction::coulomb(0.0), 0.01, 0.1)
        .unwrap()
        .with_body(pushed)
        .unwrap()
        .with_body(disc("target", 1.5))
        .unwrap();
    let mut stepper = ImplicitStepper::new(scene, StepperSettings::default()).unwrap();
    assert_eq!(stepper.contact_count(), 0, "far apart at the start");
    let mut redos = 0;
    for _ in 0..5 {
        let report = stepper.step();
        assert!(report.converged, "{}", report.solve);
        redos += report.redos;
        assert!(clearance_planar(&stepper) >= -1e-9, "t = {}", stepper.time);
        // Order kept: a solution that carries the disc through the target within the step
        // also meets the end-of-step conditions, and must have been refused.
        let (x0, x1) = (
            stepper.scene.bodies[0].pose.position[0],
            stepper.scene.bodies[1].pose.position[0],
        );
        assert!(
            x0 < x1,
            "the pushed disc passed through the target at t = {}",
            stepper.time
        );
    }
    assert!(redos >= 1, "the first step had to be redone");
    let target = stepper.scene.body_index("target").unwrap();
    assert!(
        stepper.scene.bodies[target].twist.linear[0] > 0.0,
        "the target was hit"
    );
}

/// Centre distance minus diameter of the two discs of the push scene.
fn clearance_planar(s: &ImplicitStepper<Planar>) -> f64 {
    let (a, b) = (
        &s.scene.bodies[0].pose.position,
        &s.scene.bodies[1].pose.position,
    );
    (a - b).norm() - 1.0
}
