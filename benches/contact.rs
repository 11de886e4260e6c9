//! Contact-block timings (criterion): one `ContactBlock::evaluate` (residual rows, wrenches and
//! the exact Jacobian) for the 3D sphere–sphere contact of the paper's Example 2 (both bodies
//! moving) and the 2D disc–half-plane contact (ground fixed), and `evaluate_values` (the rows
//! alone, as a function evaluation of the step takes them) of both; beside them one
//! `JointBlock::evaluate` of a 2D pin and a 3D hinge between two moving bodies (issue 17: a
//! joint costs no more than a contact). Timings are reported, never asserted.
//!
//! `cargo bench --bench contact`.

use criterion::{Criterion, criterion_group, criterion_main};
use implicit_contact::contact::{BodyStep, ContactBlock};
use implicit_contact::geometry::{
    Ball, BodyShape, ConvexPart, HalfSpace, Placed, Planar, Pose, Spatial,
};
use implicit_contact::joint::JointBlock;
use implicit_contact::model::{Dynamics, Friction, Joint, JointKind, RigidBody};
use nalgebra::{Matrix3, UnitQuaternion, Vector2, Vector3};
use std::hint::black_box;

fn friction() -> Friction {
    Friction {
        mu: 0.4,
        e_t: 1.0,
        e_o: 0.7,
        e_r: 0.3,
    }
}

fn sphere_sphere(c: &mut Criterion) {
    let f = Placed::at_origin(Ball::<Spatial>::new(0.5).unwrap());
    let g = ConvexPart::single("ball", Ball::<Spatial>::new(0.5).unwrap()).unwrap();
    let mut block = ContactBlock::new(f, g, friction()).unwrap();
    block
        .set_tangent_reference(Vector3::new(1.0, 0.0, 0.0))
        .unwrap();
    let l = block.layout();
    let start1 = Pose::<Spatial> {
        position: Vector3::new(0.0, 0.0, 1.0),
        rotation: UnitQuaternion::from_scaled_axis(Vector3::new(0.1, 0.2, -0.1)),
    };
    let start2 = Pose::<Spatial> {
        position: Vector3::new(0.02, -0.01, 0.0),
        rotation: UnitQuaternion::from_scaled_axis(Vector3::new(-0.2, 0.1, 0.3)),
    };
    let b1 = BodyStep::advance(&start1, &[0.1, -0.2, -0.5, 0.3, 0.1, -0.2], 0.01);
    let b2 = BodyStep::advance(&start2, &[0.0, 0.1, 0.2, -0.1, 0.4, 0.2], 0.01);
    let mut x = vec![0.0; l.local_count];
    x[l.a1..l.a1 + 3].copy_from_slice(&[0.01, -0.005, 0.5]);
    x[l.a2..l.a2 + 3].copy_from_slice(&[0.015, -0.01, 0.49]);
    x[l.l1] = 0.3;
    x[l.l2] = 0.4;
    x[l.normal] = 1.2;
    x[l.friction..l.friction + 3].copy_from_slice(&[0.1, -0.2, 0.05]);
    x[l.sigma] = 0.2;
    let mut out = block.new_eval();
    c.bench_function("contact/3d sphere-sphere", |bch| {
        bch.iter(|| block.evaluate(black_box(&x), black_box(&b1), black_box(&b2), &mut out))
    });
    c.bench_function("contact/3d sphere-sphere, rows alone", |bch| {
        bch.iter(|| block.evaluate_values(black_box(&x), black_box(&b1), black_box(&b2), &mut out))
    });
}

fn disc_half_plane(c: &mut Criterion) {
    let f = Placed::new(
        Ball::<Planar>::new(0.5).unwrap(),
        Pose::<Planar>::planar(0.1, -0.05, 0.3, "disc").unwrap(),
    );
    let g = ConvexPart::single(
        "ground",
        HalfSpace::<Planar>::new(Vector2::new(0.1, 1.0), 0.05).unwrap(),
    )
    .unwrap();
    let block = ContactBlock::new(f, g, friction()).unwrap();
    let l = block.layout();
    let start1 = Pose::<Planar>::planar(0.2, 0.6, 0.4, "disc").unwrap();
    let ground = Pose::<Planar>::planar(0.0, 0.0, 0.0, "ground").unwrap();
    let b1 = BodyStep::advance(&start1, &[0.3, -0.5, 0.7], 0.01);
    let b2 = BodyStep::fixed(ground);
    let mut x = vec![0.0; l.local_count];
    x[l.a1..l.a1 + 2].copy_from_slice(&[0.3, 0.1]);
    x[l.a2..l.a2 + 2].copy_from_slice(&[0.3, 0.02]);
    x[l.l1] = 0.3;
    x[l.l2] = 0.4;
    x[l.normal] = 1.2;
    x[l.friction] = 0.1;
    x[l.sigma] = 0.2;
    let mut out = block.new_eval();
    c.bench_function("contact/2d disc-half-plane", |bch| {
        bch.iter(|| block.evaluate(black_box(&x), black_box(&b1), black_box(&b2), &mut out))
    });
    c.bench_function("contact/2d disc-half-plane, rows alone", |bch| {
        bch.iter(|| block.evaluate_values(black_box(&x), black_box(&b1), black_box(&b2), &mut out))
    });
}

/// One joint of `kind` between two moving bodies `a` and `b` at `poses`, its multipliers and
/// the bodies' steps over 0.01 s, timed as the contacts above.
fn joint_case<S: Dynamics>(
    c: &mut Criterion,
    name: &str,
    kind: JointKind,
    bodies: [RigidBody<S>; 2],
    anchor: S::Vector,
    axis: S::Vector,
) {
    let joint = Joint::new("bench", 0, "j", kind, Some(0), 1, anchor, axis, &bodies).unwrap();
    let block = JointBlock::new(joint);
    let h = 0.01;
    let nu = |k: usize| {
        (0..S::DOF)
            .map(|i| 0.1 * (i + k) as f64 - 0.2)
            .collect::<Vec<_>>()
    };
    let b1 = BodyStep::advance(&bodies[0].pose, &nu(0), h);
    let b2 = BodyStep::advance(&bodies[1].pose, &nu(2), h);
    let x: Vec<f64> = (0..block.local_count())
        .map(|i| 0.3 - 0.1 * i as f64)
        .collect();
    let mut out = block.new_eval();
    c.bench_function(name, |bch| {
        bch.iter(|| block.evaluate(black_box(&x), black_box(&b1), black_box(&b2), h, &mut out))
    });
}

fn joints(c: &mut Criterion) {
    let rod = |name: &str, x: f64, theta: f64| {
        let part = ConvexPart::<Planar>::cuboid(Vector2::new(0.5, 0.02)).unwrap();
        let shape = BodyShape::new(name, vec![part]).unwrap();
        let pose = Pose::<Planar>::planar(x, 0.1, theta, name).unwrap();
        RigidBody::new(name, 1.0, 0.084, shape, pose).unwrap()
    };
    joint_case(
        c,
        "joint/2d pin",
        JointKind::Revolute,
        [rod("a", 0.0, 0.2), rod("b", 1.0, -0.3)],
        Vector2::new(0.5, 0.1),
        Vector2::new(1.0, 0.0),
    );
    let bar = |name: &str, centre: Vector3<f64>, turn: Vector3<f64>| {
        let part = ConvexPart::<Spatial>::cuboid(Vector3::new(0.5, 0.02, 0.02)).unwrap();
        let shape = BodyShape::new(name, vec![part]).unwrap();
        let inertia = Matrix3::from_diagonal(&Vector3::new(2e-4, 0.084, 0.084));
        let pose = Pose::<Spatial> {
            position: centre,
            rotation: UnitQuaternion::from_scaled_axis(turn),
        };
        RigidBody::new(name, 1.0, inertia, shape, pose).unwrap()
    };
    joint_case(
        c,
        "joint/3d hinge",
        JointKind::Revolute,
        [
            bar("a", Vector3::zeros(), Vector3::new(0.1, 0.2, -0.1)),
            bar(
                "b",
                Vector3::new(1.0, 0.0, 0.0),
                Vector3::new(-0.2, 0.1, 0.3),
            ),
        ],
        Vector3::new(0.5, 0.0, 0.0),
        Vector3::new(0.0, 0.0, 1.0),
    );
}

/// Two intersections (issue 16: cost linear in the number of functions of the two parts): a
/// regular `n`-gon resting on a fixed regular `n`-gon, `n` = 4 … 64, at the closest points and
/// multipliers of the proximity query with impulses set.
fn polygon_pairs(c: &mut Criterion) {
    for n in [4, 8, 16, 32, 64] {
        let f = ConvexPart::<Planar>::regular_polygon(0.5, n).unwrap();
        let g = ConvexPart::<Planar>::regular_polygon(1.0, n).unwrap();
        let block = ContactBlock::between(f, g, friction()).unwrap();
        let l = block.layout();
        let start1 = Pose::<Planar>::planar(0.05, 1.4, 0.1, "upper").unwrap();
        let ground = Pose::<Planar>::planar(0.0, 0.0, 0.0, "lower").unwrap();
        let mut x = block.closest_point_guess(&start1, &ground).unwrap();
        x[l.normal] = 1.2;
        x[l.friction] = 0.1;
        x[l.sigma] = 0.2;
        let b1 = BodyStep::advance(&start1, &[0.3, -0.5, 0.7], 0.01);
        let b2 = BodyStep::fixed(ground);
        let mut out = block.new_eval();
        c.bench_function(&format!("contact/2d {n}-gon on {n}-gon"), |bch| {
            bch.iter(|| block.evaluate(black_box(&x), black_box(&b1), black_box(&b2), &mut out))
        });
    }
}

criterion_group!(
    benches,
    sphere_sphere,
    disc_half_plane,
    joints,
    polygon_pairs
);
criterion_main!(benches);
