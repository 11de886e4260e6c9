//! Contact-block timings (criterion): one `ContactBlock::evaluate` (residual rows, wrenches and
//! the exact Jacobian) for the 3D sphere–sphere contact of the paper's Example 2 (both bodies
//! moving) and the 2D disc–half-plane contact (ground fixed). Timings are reported, never
//! asserted.
//!
//! `cargo bench --bench contact`.

use criterion::{Criterion, criterion_group, criterion_main};
use implicit_contact::contact::{BodyStep, ContactBlock};
use implicit_contact::geometry::{Ball, ConvexPart, HalfSpace, Placed, Planar, Pose, Spatial};
use implicit_contact::model::Friction;
use nalgebra::{UnitQuaternion, Vector2, Vector3};
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
}

criterion_group!(benches, sphere_sphere, disc_half_plane);
criterion_main!(benches);
