//! Finite-difference checks of the quasi-rigid block's Jacobian (every row and column), both
//! sides compliant, single functions and intersections (on one side or both), 2D and 3D, both
//! integrators.

use super::tests::{CONFIGS, Case, Rng, cut_ball, cut_disc, friction, planar_pose, spatial_pose};
use super::*;
use crate::geometry::{
    Ball, ConvexPart, Ellipsoid, HalfSpace, Placed, Planar, Spatial, Superellipse,
};
use crate::model::{CompliantLayer, Dynamics, Integrator};
use nalgebra::{Matrix3, Vector2, Vector3};

/// A full, symmetric positive-definite `K` and `C` (every coupling term enters).
fn full_layer(dim: usize) -> CompliantLayer {
    let k = Matrix3::new(900.0, 40.0, -25.0, 40.0, 500.0, 30.0, -25.0, 30.0, 450.0);
    let c = Matrix3::new(3.0, 0.4, 0.2, 0.4, 2.0, -0.3, 0.2, -0.3, 1.5);
    CompliantLayer::full(dim, k, c, 0.05)
}

/// Diagonal `K`, `C` (the midpoint integrator needs no normal–tangential coupling).
fn diagonal_layer(dim: usize) -> CompliantLayer {
    let (k, c) = ([1000.0, 600.0, 400.0], [2.0, 1.0, 0.5]);
    CompliantLayer::diagonal(&k[..dim], &c[..dim], 0.05)
}

/// Random layer variables: `δ̄_n`, `δ` (normal away from the kinks of `max(δ_n, 0)` at 0),
/// `p_nr`; and a committed `δ^ℓ` from another random state.
fn randomize<S: Dynamics>(case: &mut Case<S>, z: &mut [f64], rng: &mut Rng, signed: bool) {
    let l = case.block.layout();
    let ql = case.block.quasi_rigid().unwrap().quasi_layout();
    let normal = |rng: &mut Rng| {
        let v = rng.uniform(0.05, 0.3);
        if signed && rng.uniform(0.0, 1.0) < 0.5 {
            -v
        } else {
            v
        }
    };
    let mut prev = z.to_vec();
    prev[ql.delta] = normal(rng);
    for k in 1..l.dim {
        prev[ql.delta + k] = rng.uniform(-0.1, 0.1);
    }
    let pose1 = case.start1;
    let pose2 = case.start2;
    case.block
        .quasi_rigid_mut()
        .unwrap()
        .commit(&prev[..l.local_count], &pose1, &pose2, true);
    z[ql.deflection_bar] = rng.uniform(-0.2, 0.2);
    z[ql.delta] = normal(rng);
    for k in 1..l.dim {
        z[ql.delta + k] = rng.uniform(-0.1, 0.1);
    }
    z[ql.core] = rng.uniform(0.0, 1.0);
}

/// `f` as a part of one function.
fn one<S: Dynamics>(f: Placed<S>) -> ConvexPart<S> {
    ConvexPart::new("F", vec![f]).unwrap()
}

fn run<S: Dynamics>(
    label: &str,
    f: ConvexPart<S>,
    g: ConvexPart<S>,
    starts: (crate::geometry::Pose<S>, crate::geometry::Pose<S>),
    near: (S::Vector, S::Vector),
    side: CompliantSide,
    seed: u64,
) {
    let mut rng = Rng(seed);
    for integrator in [Integrator::Euler, Integrator::Midpoint] {
        let layer = match integrator {
            Integrator::Euler => full_layer(S::DIM),
            Integrator::Midpoint | Integrator::Rattle => diagonal_layer(S::DIM),
        };
        for (fixed1, fixed2) in CONFIGS {
            let mut block: Contact<S> = ContactBlock::between(f.clone(), g.clone(), friction())
                .unwrap()
                .into();
            block = block.with_layer(layer, side, integrator).unwrap();
            if S::DIM == 3 {
                block
                    .set_tangent_reference(S::vector_from_fn(|i| [0.8, 0.3, -0.1][i]))
                    .unwrap();
            }
            let mut case = Case {
                block,
                start1: starts.0,
                start2: starts.1,
                fixed1,
                fixed2,
                h: 0.1,
            };
            for trial in 0..3 {
                let mut z = case.random_state(&mut rng, near.0, near.1, 0.2);
                randomize(
                    &mut case,
                    &mut z,
                    &mut rng,
                    integrator == Integrator::Midpoint,
                );
                case.check(
                    &z,
                    &format!("{label} {integrator:?} side {side:?} fixed=({fixed1},{fixed2}) trial {trial}"),
                );
            }
        }
    }
}

#[test]
fn quasi_rigid_layout_and_bounds() {
    let f = Placed::at_origin(Ball::<Planar>::new(1.0).unwrap());
    let g = ConvexPart::single(
        "ground",
        HalfSpace::<Planar>::new(Vector2::new(0.0, 1.0), 0.0).unwrap(),
    )
    .unwrap();
    let rigid = ContactBlock::new(f.clone(), g.clone(), friction()).unwrap();
    let lr = rigid.layout();
    let block = QuasiRigidContact::new(
        rigid,
        diagonal_layer(2),
        CompliantSide::G,
        Integrator::Euler,
    )
    .unwrap();
    let l = block.layout();
    let ql = block.quasi_layout();
    // Paper Example 3: the rigid 9 (a1, a2, l1, l2, p_ns, p_t, σ) + δ̄_n, δ_n, δ_t, p_nr.
    assert_eq!(l.local_count, lr.local_count + 4);
    assert_eq!((ql.deflection_bar, ql.delta, ql.core), (9, 10, 12));
    let (lo, _) = block.bounds();
    assert_eq!(lo[l.normal], 0.0, "p_ns ≥ 0 under Euler");
    assert_eq!(lo[ql.core], 0.0, "p_nr ≥ 0");
    assert!(lo[ql.deflection_bar].is_infinite() && lo[ql.delta].is_infinite());
    let mid = QuasiRigidContact::new(
        ContactBlock::new(f, g, friction()).unwrap(),
        diagonal_layer(2),
        CompliantSide::G,
        Integrator::Midpoint,
    )
    .unwrap();
    assert!(
        mid.bounds().0[l.normal].is_infinite(),
        "p_ns is free under midpoint"
    );
    let err = QuasiRigidContact::new(
        ContactBlock::new(
            Placed::at_origin(Ball::<Planar>::new(1.0).unwrap()),
            ConvexPart::<Planar>::cuboid(Vector2::new(1.0, 1.0)).unwrap(),
            friction(),
        )
        .unwrap(),
        full_layer(2),
        CompliantSide::G,
        Integrator::Midpoint,
    )
    .unwrap_err();
    assert!(err.to_string().contains("coupling"), "{err}");
}

#[test]
fn discrete_gradient_is_the_energy_difference() {
    use super::quasi_rigid::discrete_gradient;
    let v = |d: f64| 0.5 * 7.0 * d.max(0.0).powi(2);
    for (a, b) in [
        (0.3, 0.5),
        (-0.2, 0.4),
        (0.4, -0.1),
        (-0.3, -0.1),
        (0.0, 0.2),
    ] {
        let (g, dg) = discrete_gradient(7.0, a, b);
        assert!((g * (b - a) - (v(b) - v(a))).abs() < 1e-14, "({a}, {b})");
        let e = 1e-7;
        let fd =
            (discrete_gradient(7.0, a, b + e).0 - discrete_gradient(7.0, a, b - e).0) / (2.0 * e);
        assert!((fd - dg).abs() < 1e-6, "({a}, {b}): {dg} vs {fd}");
    }
}

#[test]
fn jacobian_2d_disc_on_compliant_half_plane() {
    let disc = Placed::new(
        Ball::<Planar>::new(0.5).unwrap(),
        planar_pose(0.1, -0.05, 0.3),
    );
    let ground = ConvexPart::single(
        "ground",
        HalfSpace::<Planar>::new(Vector2::new(0.1, 1.0), 0.05).unwrap(),
    )
    .unwrap();
    run(
        "disc/compliant half-plane",
        one(disc),
        ground,
        (planar_pose(0.2, 0.6, 0.4), planar_pose(-0.1, 0.02, -0.2)),
        (Vector2::new(0.3, 0.1), Vector2::new(0.3, 0.0)),
        CompliantSide::G,
        0x5151_7777,
    );
}

#[test]
fn jacobian_2d_compliant_superellipse_on_box_and_disc_on_compliant_box() {
    let tooth = Placed::new(
        Superellipse::new(Vector2::new(1.0, 0.6), 4.0).unwrap(),
        planar_pose(-0.2, 0.1, 0.5),
    );
    let brick = ConvexPart::<Planar>::cuboid(Vector2::new(0.8, 0.4)).unwrap();
    let starts = (planar_pose(0.0, 1.2, -0.3), planar_pose(0.3, -0.1, 0.2));
    let near = (Vector2::new(0.1, 0.6), Vector2::new(0.2, 0.3));
    run(
        "compliant tooth/box",
        one(tooth.clone()),
        brick.clone(),
        starts,
        near,
        CompliantSide::F,
        0x1111,
    );
    run(
        "tooth/compliant box",
        one(tooth),
        brick,
        starts,
        near,
        CompliantSide::G,
        0x2222,
    );
}

#[test]
fn jacobian_3d_sphere_on_compliant_half_space() {
    let ball = Placed::new(
        Ball::<Spatial>::new(0.5).unwrap(),
        spatial_pose(Vector3::new(0.05, -0.1, 0.02), Vector3::new(0.2, -0.1, 0.3)),
    );
    let ground = ConvexPart::single(
        "ground",
        HalfSpace::<Spatial>::new(Vector3::new(0.1, -0.05, 1.0), 0.0).unwrap(),
    )
    .unwrap();
    let starts = (
        spatial_pose(Vector3::new(0.1, 0.2, 0.6), Vector3::new(0.3, 0.5, -0.2)),
        spatial_pose(Vector3::new(0.0, 0.0, -0.05), Vector3::new(-0.1, 0.2, 0.1)),
    );
    let near = (Vector3::new(0.1, 0.2, 0.1), Vector3::new(0.1, 0.2, 0.0));
    run(
        "sphere/compliant half-space",
        one(ball.clone()),
        ground.clone(),
        starts,
        near,
        CompliantSide::G,
        0x3333,
    );
    run(
        "compliant sphere/half-space",
        one(ball),
        ground,
        starts,
        near,
        CompliantSide::F,
        0x4444,
    );
}

#[test]
fn jacobian_3d_compliant_ellipsoid_on_box() {
    let egg = Placed::new(
        Ellipsoid::<Spatial>::new(Vector3::new(0.6, 0.4, 0.3)).unwrap(),
        spatial_pose(Vector3::new(-0.1, 0.05, 0.0), Vector3::new(0.0, 0.4, 0.2)),
    );
    let brick = ConvexPart::<Spatial>::cuboid(Vector3::new(0.5, 0.4, 0.3)).unwrap();
    let starts = (
        spatial_pose(Vector3::new(0.0, 0.1, 0.8), Vector3::new(-0.4, 0.1, 0.6)),
        spatial_pose(Vector3::new(0.1, 0.0, 0.0), Vector3::new(0.1, 0.3, -0.2)),
    );
    let near = (Vector3::new(0.0, 0.1, 0.5), Vector3::new(0.1, 0.0, 0.3));
    run(
        "compliant ellipsoid/box",
        one(egg.clone()),
        brick.clone(),
        starts,
        near,
        CompliantSide::F,
        0x5555,
    );
    run(
        "ellipsoid/compliant box",
        one(egg),
        brick,
        starts,
        near,
        CompliantSide::G,
        0x6666,
    );
}

#[test]
fn spring_wrench_is_p_ns_along_the_normal() {
    let f = Placed::at_origin(Ball::<Planar>::new(1.0).unwrap());
    let g = ConvexPart::single(
        "ground",
        HalfSpace::<Planar>::new(Vector2::new(0.0, 1.0), 0.0).unwrap(),
    )
    .unwrap();
    let block = QuasiRigidContact::new(
        ContactBlock::new(f, g, friction()).unwrap(),
        diagonal_layer(2),
        CompliantSide::G,
        Integrator::Euler,
    )
    .unwrap();
    let l = block.layout();
    let mut x = vec![0.0; l.local_count];
    // The disc at (0, 0.99): its lowest point (0, −0.01).
    x[l.a1 + 1] = -0.01;
    x[l.normal] = 2.0;
    let (w1, w2) = block.spring_wrench(
        &x,
        &planar_pose(0.0, 0.99, 0.0),
        &planar_pose(0.0, 0.0, 0.0),
    );
    // n points from the disc down into the ground: the disc is pushed up.
    assert!((w1[1] - 2.0).abs() < 1e-12 && w1[0].abs() < 1e-12 && w1[2].abs() < 1e-12);
    assert!((w2[1] + 2.0).abs() < 1e-12);
}

/// Both sides intersections: a box on a compliant bar and a compliant box on a bar, a
/// flat-sided disc (its rows RG carry a Hessian) on a compliant bar.
#[test]
fn jacobian_2d_two_intersections_compliant() {
    let cut_disc = cut_disc();
    let square = ConvexPart::<Planar>::cuboid(Vector2::new(0.4, 0.3)).unwrap();
    let bar = ConvexPart::<Planar>::cuboid(Vector2::new(0.8, 0.2)).unwrap();
    let starts = (planar_pose(0.1, 0.7, 0.3), planar_pose(-0.1, 0.0, -0.2));
    let near = (Vector2::new(0.2, 0.4), Vector2::new(0.1, 0.2));
    for (f, side, seed) in [
        (&square, CompliantSide::G, 0x7101),
        (&square, CompliantSide::F, 0x7102),
        (&cut_disc, CompliantSide::G, 0x7103),
        (&cut_disc, CompliantSide::F, 0x7104),
    ] {
        run(
            &format!("{}/bar", f.name()),
            f.clone(),
            bar.clone(),
            starts,
            near,
            side,
            seed,
        );
    }
}

/// Both sides intersections in 3D: a cube on a compliant slab, a compliant cube on a slab, and
/// a ball cut by two half-spaces on a slab (torsion and anisotropic friction included).
#[test]
fn jacobian_3d_two_intersections_compliant() {
    let cut_ball = cut_ball();
    let cube = ConvexPart::<Spatial>::cuboid(Vector3::new(0.3, 0.25, 0.2)).unwrap();
    let slab = ConvexPart::<Spatial>::cuboid(Vector3::new(0.8, 0.6, 0.15)).unwrap();
    let starts = (
        spatial_pose(Vector3::new(0.1, 0.0, 0.6), Vector3::new(0.3, -0.2, 0.4)),
        spatial_pose(Vector3::new(0.0, 0.1, 0.0), Vector3::new(-0.1, 0.2, 0.1)),
    );
    let near = (Vector3::new(0.1, 0.0, 0.35), Vector3::new(0.0, 0.1, 0.15));
    for (f, side, seed) in [
        (&cube, CompliantSide::G, 0x7201),
        (&cube, CompliantSide::F, 0x7202),
        (&cut_ball, CompliantSide::F, 0x7203),
    ] {
        run(
            &format!("{}/slab", f.name()),
            f.clone(),
            slab.clone(),
            starts,
            near,
            side,
            seed,
        );
    }
}

/// The cone of a quasi-rigid contact bounds its friction by the whole normal impulse, the
/// spring's and the core's (`p_n = p_ns + p_nr` in the rows FR and CS).
#[test]
fn cone_of_a_quasi_rigid_contact_counts_the_core_impulse() {
    let f = Placed::at_origin(Ball::<Planar>::new(1.0).unwrap());
    let g = ConvexPart::single(
        "ground",
        HalfSpace::<Planar>::new(Vector2::new(0.0, 1.0), 0.0).unwrap(),
    )
    .unwrap();
    let contact: Contact<Planar> = ContactBlock::new(f, g, friction()).unwrap().into();
    let contact = contact
        .with_layer(diagonal_layer(2), CompliantSide::G, Integrator::Euler)
        .unwrap();
    let (l, ql) = (
        contact.layout(),
        contact.quasi_rigid().unwrap().quasi_layout(),
    );
    let fr = contact.kernel().friction();
    let mut x = vec![0.0; l.local_count];
    x[l.normal] = 1.0;
    x[ql.core] = 2.0;
    // On the cone of p_n = 3 (the ellipse's tangential axis e_t).
    x[l.friction] = fr.mu * 3.0 * fr.e_t;
    assert_eq!(contact.normal_impulse(&x), 3.0);
    let (load, excess) = contact.cone_excess(&x);
    assert!(excess.abs() < 1e-12, "excess {excess}");
    assert!((load - 2.0 * fr.mu * 3.0).abs() < 1e-12, "load {load}");
    // The kernel alone sees the spring's impulse only.
    assert!(contact.kernel().cone_excess(&x).1 > 0.0);
}
