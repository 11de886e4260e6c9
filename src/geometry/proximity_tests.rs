//! Proximity queries against closed forms, dense sampling and the touching/intersecting
//! classification; and the two MCPs' Jacobians against finite differences.
//!
//! Tolerances: the MCPs are solved to a natural residual of `1e-10` (solver default); the KKT
//! systems are well conditioned for these shapes (multipliers and gradients of order one), so
//! closest points and distances are good to about `1e-9`: closed forms are checked to `1e-8`.

use super::implicit::{ImplicitFn, Placed};
use super::part::ConvexPart;
use super::pose::Pose;
use super::primitives::*;
use super::proximity::*;
use super::space::{Planar, Space, Spatial};
use crate::mcp::{McpProblem, jacobian_check};
use nalgebra::{Vector1, Vector2, Vector3};

const TOL: f64 = 1e-8;

fn query<S: Space>(
    a: &ConvexPart<S>,
    pa: &Pose<S>,
    b: &ConvexPart<S>,
    pb: &Pose<S>,
) -> Proximity<S> {
    proximity(a, pa, b, pb, &ProximitySettings::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn at3(x: f64, y: f64, z: f64) -> Pose<Spatial> {
    Pose::from_translation(Vector3::new(x, y, z))
}

fn rotated3(c: Vector3<f64>, w: Vector3<f64>) -> Pose<Spatial> {
    Pose::<Spatial>::identity().perturbed(&c, &w)
}

fn ground() -> ConvexPart<Spatial> {
    ConvexPart::single(
        "ground",
        HalfSpace::<Spatial>::new(Vector3::z(), 0.0).unwrap(),
    )
    .unwrap()
}

fn sphere(r: f64) -> ConvexPart<Spatial> {
    ConvexPart::single("sphere", Sphere::new(r).unwrap()).unwrap()
}

/// Both MCPs' analytic Jacobians agree with central differences (step `1e-6`: truncation
/// `~1e-12 |F'''|`, rounding `~1e-10`; tolerance `1e-6`) at points with non-zero multipliers.
#[test]
fn proximity_jacobians_match_finite_differences() {
    let a = ConvexPart::single(
        "tooth",
        Superellipsoid::<Spatial>::new(Vector3::new(1.0, 0.7, 0.5), 3.5).unwrap(),
    )
    .unwrap();
    let b = ConvexPart::cuboid(Vector3::new(0.5, 0.3, 0.2)).unwrap();
    let (pa, pb) = (
        rotated3(Vector3::new(0.1, 0.2, 0.3), Vector3::new(0.3, -0.2, 0.5)),
        rotated3(Vector3::new(2.0, 0.5, -0.4), Vector3::new(-0.4, 0.1, 0.9)),
    );
    let mut p = DistanceProblem::new(&a, &pa, &b, &pb);
    let z: Vec<f64> = (0..p.dim()).map(|k| 0.3 + 0.17 * k as f64).collect();
    let err = jacobian_check(&mut p, &z, 1e-6);
    assert!(err < 1e-6, "distance Jacobian error {err:e}");
    let mut q = DepthProblem::new(&a, &pa, &b, &pb, 1.0);
    let w: Vec<f64> = (0..q.dim()).map(|k| 0.2 + 0.11 * k as f64).collect();
    let err = jacobian_check(&mut q, &w, 1e-6);
    assert!(err < 1e-6, "depth Jacobian error {err:e}");
}

#[test]
fn sphere_sphere_closed_form() {
    let u = Vector3::new(1.0, -2.0, 0.5).normalize();
    let c1 = Vector3::new(0.3, 0.1, -0.7);
    let c2 = c1 + u * 3.0;
    let r = query(
        &sphere(1.0),
        &at3(c1.x, c1.y, c1.z),
        &sphere(0.5),
        &at3(c2.x, c2.y, c2.z),
    );
    assert_eq!(r.state, ContactState::Separated);
    assert!((r.distance - 1.5).abs() < TOL, "{}", r.distance);
    assert!((r.point_a - (c1 + u)).norm() < TOL);
    assert!((r.point_b - (c2 - u * 0.5)).norm() < TOL);
    assert!((r.normal - u).norm() < TOL);
}

#[test]
fn circle_circle_closed_form() {
    let disc = |r| ConvexPart::single("disc", Circle::new(r).unwrap()).unwrap();
    let pa = Pose::<Planar>::planar(1.0, 2.0, 0.3, "a").unwrap();
    let pb = Pose::<Planar>::planar(4.0, 6.0, -1.0, "b").unwrap();
    let r = query(&disc(1.0), &pa, &disc(2.0), &pb);
    assert_eq!(r.state, ContactState::Separated);
    assert!((r.distance - 2.0).abs() < TOL);
    assert!((r.normal - Vector2::new(0.6, 0.8)).norm() < TOL);
    assert!((r.point_a - Vector2::new(1.6, 2.8)).norm() < TOL);
}

#[test]
fn sphere_plane_closed_form() {
    let r = query(
        &ground(),
        &Pose::identity(),
        &sphere(1.0),
        &at3(0.3, -0.2, 2.5),
    );
    assert_eq!(r.state, ContactState::Separated);
    assert!((r.distance - 1.5).abs() < TOL);
    assert!((r.point_a - Vector3::new(0.3, -0.2, 0.0)).norm() < TOL);
    assert!((r.point_b - Vector3::new(0.3, -0.2, 1.5)).norm() < TOL);
    assert!((r.normal - Vector3::z()).norm() < TOL);
}

/// Distance from the plane `z = 0` to an ellipsoid at height `z_c`: `z_c − √(Σᵢ (R₂ᵢ aᵢ)²)`
/// (the support function of the ellipsoid in the direction `−z`).
#[test]
fn ellipsoid_plane_closed_form() {
    let axes = Vector3::new(1.0, 0.6, 0.3);
    let e = ConvexPart::single("egg", Ellipsoid::<Spatial>::new(axes).unwrap()).unwrap();
    let pose = rotated3(Vector3::new(0.4, 0.2, 2.0), Vector3::new(0.7, -0.4, 0.2));
    let rm = pose.rotation_matrix();
    let support = (0..3)
        .map(|i| (rm[(2, i)] * axes[i]).powi(2))
        .sum::<f64>()
        .sqrt();
    let r = query(&ground(), &Pose::identity(), &e, &pose);
    assert_eq!(r.state, ContactState::Separated);
    assert!(
        (r.distance - (2.0 - support)).abs() < TOL,
        "{} vs {}",
        r.distance,
        2.0 - support
    );
    assert!(r.point_a.z.abs() < TOL && (r.point_b.z - r.distance).abs() < TOL);
}

/// Box above the plane `z = 0`: distance `z_c − Σᵢ |R₂ᵢ| hᵢ`, attained at a vertex (tilted) or
/// on a whole face (level; the closest points are then not unique but the distance is).
#[test]
fn box_plane_closed_form() {
    let h = Vector3::new(0.5, 0.3, 0.2);
    let cube = ConvexPart::cuboid(h).unwrap();
    for w in [Vector3::new(0.3, 0.5, 0.1), Vector3::zeros()] {
        let pose = rotated3(Vector3::new(-0.3, 0.2, 1.5), w);
        let rm = pose.rotation_matrix();
        let expected = 1.5 - (0..3).map(|i| rm[(2, i)].abs() * h[i]).sum::<f64>();
        let r = query(&ground(), &Pose::identity(), &cube, &pose);
        assert_eq!(r.state, ContactState::Separated);
        assert!(
            (r.distance - expected).abs() < TOL,
            "{w}: {} vs {expected}",
            r.distance
        );
        assert!(cube.world_value(&pose, &r.point_b).abs() < TOL);
    }
}

/// Box and sphere: the closest point of the box is the sphere centre clamped to the box (in
/// the box frame); distance `‖c − clamp(c)‖ − r`.
#[test]
fn box_sphere_closed_form() {
    let h = Vector3::new(1.0, 2.0, 0.5);
    let cube = ConvexPart::cuboid(h).unwrap();
    for w in [Vector3::zeros(), Vector3::new(-0.2, 0.4, 0.9)] {
        let pose = rotated3(Vector3::new(0.5, -0.5, 0.2), w);
        let c = Vector3::new(3.5, 0.5, 2.2);
        let local = pose.inverse_transform_point(&c);
        let clamp = Vector3::from_fn(|i, _| local[i].clamp(-h[i], h[i]));
        let expected = (local - clamp).norm() - 0.7;
        let r = query(&cube, &pose, &sphere(0.7), &at3(c.x, c.y, c.z));
        assert_eq!(r.state, ContactState::Separated);
        assert!(
            (r.distance - expected).abs() < TOL,
            "{} vs {expected}",
            r.distance
        );
        assert!((r.point_a - pose.transform_point(&clamp)).norm() < TOL);
    }
    // Unrotated: clamp (3, 1, 2) − (0.5, −0.5, 0.2) … checked by hand: (2.5, 1, 1.7) → (1, 1, 0.5).
    let r = query(&cube, &Pose::identity(), &sphere(0.7), &at3(3.0, 1.0, 2.0));
    assert!((r.distance - 1.8).abs() < TOL);
}

/// `sign(t) |t|^(2/p)`, Barr's signed power for superquadric parametrisations.
fn spow(t: f64, p: f64) -> f64 {
    t.signum() * t.abs().powf(2.0 / p)
}

/// Minimum of `‖A(u) − B(v)‖` over parameter grids, coarse to fine: each level samples `n`
/// values per parameter (`u, v ∈ ℝᵏ`, `k = widths.len()`) in a window about the best pair so
/// far, then shrinks the window to two grid steps each side. Every sample is a pair of surface
/// points, so the result can only over-estimate the true distance.
fn grid_min<V: Copy>(
    a: impl Fn(&[f64]) -> V,
    b: impl Fn(&[f64]) -> V,
    dist: impl Fn(V, V) -> f64,
    widths: &[f64],
    n: usize,
    levels: usize,
) -> f64 {
    let k = widths.len();
    let mut centre_a: Vec<f64> = widths.iter().map(|w| w / 2.0).collect();
    let mut centre_b = centre_a.clone();
    let mut half: Vec<f64> = widths.iter().map(|w| w / 2.0).collect();
    let mut best = f64::INFINITY;
    for _ in 0..levels {
        let grid = |c: &[f64]| -> Vec<Vec<f64>> {
            let mut pts: Vec<Vec<f64>> = vec![vec![]];
            for d in 0..k {
                let mut next = Vec::with_capacity(pts.len() * n);
                for p in &pts {
                    for i in 0..n {
                        let mut q = p.clone();
                        q.push(c[d] + half[d] * (2.0 * i as f64 / (n - 1) as f64 - 1.0));
                        next.push(q);
                    }
                }
                pts = next;
            }
            pts
        };
        let (ga, gb) = (grid(&centre_a), grid(&centre_b));
        let pa: Vec<V> = ga.iter().map(|u| a(u)).collect();
        let pb: Vec<V> = gb.iter().map(|v| b(v)).collect();
        let (mut bi, mut bj) = (0, 0);
        for (i, &x) in pa.iter().enumerate() {
            for (j, &y) in pb.iter().enumerate() {
                let d = dist(x, y);
                if d < best {
                    (best, bi, bj) = (d, i, j);
                }
            }
        }
        if best.is_finite() {
            centre_a = ga[bi].clone();
            centre_b = gb[bj].clone();
        }
        for h in &mut half {
            *h *= 4.0 / (n - 1) as f64;
        }
    }
    best
}

/// Two gear teeth (p = 4, semi-axes 2.3 × 1.1, paper eq. 57) and a p = 2.5 superellipse against
/// sampling of the boundaries (coarse-to-fine, final parameter step `≈ 5e-7`, i.e. position
/// gaps `≲ 1e-3` even at the axis tips where `t ↦ |cos t|^(2/p)` is steep; the distance error is
/// second order in the gap there, since the curves are flat (`κ = 0` at the tips for `p = 4`):
/// tolerance `1e-6`).
#[test]
fn superellipse_pairs_match_dense_sampling() {
    let cases = [
        (
            Vector2::new(2.3, 1.1),
            4.0,
            Vector2::new(1.2, 0.8),
            2.5,
            (5.0, 1.0, 0.7),
        ),
        (
            Vector2::new(2.3, 1.1),
            4.0,
            Vector2::new(2.3, 1.1),
            4.0,
            (1.0, 4.5, 2.0),
        ),
    ];
    for (aa, pa_exp, ab, pb_exp, (x, y, t)) in cases {
        let fa = Superellipse::new(aa, pa_exp).unwrap();
        let fb = Superellipse::new(ab, pb_exp).unwrap();
        let pose_a = Pose::<Planar>::planar(0.0, 0.0, 0.3, "a").unwrap();
        let pose_b = Pose::<Planar>::planar(x, y, t, "b").unwrap();
        let (a, b) = (
            ConvexPart::single("a", fa).unwrap(),
            ConvexPart::single("b", fb).unwrap(),
        );
        let r = query(&a, &pose_a, &b, &pose_b);
        assert_eq!(r.state, ContactState::Separated);
        let curve = |ax: Vector2<f64>, p: f64, pose: Pose<Planar>| {
            move |u: &[f64]| {
                pose.transform_point(&Vector2::new(
                    ax.x * spow(u[0].cos(), p),
                    ax.y * spow(u[0].sin(), p),
                ))
            }
        };
        let sampled = grid_min(
            curve(aa, pa_exp, pose_a),
            curve(ab, pb_exp, pose_b),
            |p, q| (p - q).norm(),
            &[std::f64::consts::TAU],
            600,
            4,
        );
        assert!(sampled >= r.distance - 1e-9, "{sampled} < {}", r.distance);
        assert!(sampled - r.distance < 1e-6, "{sampled} vs {}", r.distance);
        assert!(fa.value(&pose_a.inverse_transform_point(&r.point_a)).abs() < TOL);
        assert!(fb.value(&pose_b.inverse_transform_point(&r.point_b)).abs() < TOL);
    }
}

/// 3D superellipsoids (p = 4 and 2.5) against coarse-to-fine sampling of both surfaces
/// (30 × 30 parameters per level, 5 levels: final step `≈ 1e-4`, position gaps `≲ 1e-3` near the
/// steep parametrisation tips; second-order distance error: tolerance `1e-5`).
#[test]
fn superellipsoid_pair_matches_sampling() {
    let surface = |a: Vector3<f64>, p: f64, pose: Pose<Spatial>| {
        move |u: &[f64]| {
            let (eta, om) = (u[0] - std::f64::consts::FRAC_PI_2, u[1]);
            pose.transform_point(&Vector3::new(
                a.x * spow(eta.cos(), p) * spow(om.cos(), p),
                a.y * spow(eta.cos(), p) * spow(om.sin(), p),
                a.z * spow(eta.sin(), p),
            ))
        }
    };
    let (aa, ab) = (Vector3::new(1.0, 0.7, 0.5), Vector3::new(0.6, 0.9, 0.4));
    let (fa, fb) = (
        Superellipsoid::<Spatial>::new(aa, 4.0).unwrap(),
        Superellipsoid::<Spatial>::new(ab, 2.5).unwrap(),
    );
    let pose_a = rotated3(Vector3::zeros(), Vector3::new(0.2, 0.1, -0.3));
    let pose_b = rotated3(Vector3::new(2.2, 0.8, 0.5), Vector3::new(-0.5, 0.4, 0.2));
    let (a, b) = (
        ConvexPart::single("a", fa).unwrap(),
        ConvexPart::single("b", fb).unwrap(),
    );
    let r = query(&a, &pose_a, &b, &pose_b);
    assert_eq!(r.state, ContactState::Separated);
    let sampled = grid_min(
        surface(aa, 4.0, pose_a),
        surface(ab, 2.5, pose_b),
        |p, q| (p - q).norm(),
        &[std::f64::consts::PI, std::f64::consts::TAU],
        30,
        5,
    );
    assert!(sampled >= r.distance - 1e-9, "{sampled} < {}", r.distance);
    assert!(sampled - r.distance < 1e-5, "{sampled} vs {}", r.distance);
    // The normal is the common normal: parallel to both gradients.
    let ga = fa.gradient(&pose_a.inverse_transform_point(&r.point_a));
    let na = pose_a.transform_vector(&ga).normalize();
    assert!((na - r.normal).norm() < 1e-7);
    let gb = fb.gradient(&pose_b.inverse_transform_point(&r.point_b));
    let nb = pose_b.transform_vector(&gb).normalize();
    assert!((nb + r.normal).norm() < 1e-7);
}

#[test]
fn touching_and_intersecting_are_classified() {
    let g = ground();
    let id = Pose::identity();
    let ball = sphere(1.0);
    let r = query(&g, &id, &ball, &at3(0.2, 0.1, 1.0));
    assert_eq!(r.state, ContactState::Touching, "{r:?}");
    assert!(r.distance < 1e-7 && r.depth.unwrap().abs() < 1e-7);
    assert!((r.normal - Vector3::z()).norm() < 1e-6, "{}", r.normal);
    assert!((r.point_a - Vector3::new(0.2, 0.1, 0.0)).norm() < 1e-6);
    let r = query(&g, &id, &ball, &at3(0.2, 0.1, 0.9));
    assert_eq!(r.state, ContactState::Intersecting);
    assert!(r.depth.unwrap() > 0.0);
    let r = query(&g, &id, &ball, &at3(0.2, 0.1, 1.1));
    assert_eq!(r.state, ContactState::Separated);
    assert!((r.distance - 0.1).abs() < TOL);

    // A box resting flat on the ground (a whole face touches).
    let cube = ConvexPart::cuboid(Vector3::new(0.5, 0.3, 0.2)).unwrap();
    let r = query(&g, &id, &cube, &at3(1.0, 0.0, 0.2));
    assert_eq!(r.state, ContactState::Touching, "{r:?}");
    assert!((r.normal - Vector3::z()).norm() < 1e-6);

    // Two discs touching externally, then overlapping.
    let disc = |r| ConvexPart::single("disc", Circle::new(r).unwrap()).unwrap();
    let pa = Pose::<Planar>::planar(0.0, 0.0, 0.0, "a").unwrap();
    let touching = Pose::<Planar>::planar(1.8, 2.4, 0.0, "b").unwrap(); // |c| = 3 = 1 + 2
    let r = query(&disc(1.0), &pa, &disc(2.0), &touching);
    assert_eq!(r.state, ContactState::Touching);
    assert!((r.normal - Vector2::new(0.6, 0.8)).norm() < 1e-6);
    let overlap = Pose::<Planar>::planar(1.5, 2.0, 0.0, "b").unwrap();
    assert_eq!(
        query(&disc(1.0), &pa, &disc(2.0), &overlap).state,
        ContactState::Intersecting
    );

    // A triangle's vertex on a disc: touching at a corner (normal cone, not a normal).
    let tri = ConvexPart::polygon(&[
        Vector2::new(-1.0, 2.0),
        Vector2::new(0.0, 1.0),
        Vector2::new(1.0, 2.0),
    ])
    .unwrap();
    let r = query(&disc(1.0), &pa, &tri, &Pose::identity());
    assert_eq!(r.state, ContactState::Touching, "{r:?}");
    assert!((r.normal - Vector2::y()).norm() < 1e-6);
    let lower = Pose::<Planar>::identity().perturbed(&Vector2::new(0.0, -0.05), &Vector1::new(0.0));
    assert_eq!(
        query(&disc(1.0), &pa, &tri, &lower).state,
        ContactState::Intersecting
    );
}

/// A mixed part (Remark 2): a sphere cut by a half-space, a dome, against a sphere.
#[test]
fn mixed_representation_part() {
    let dome = ConvexPart::new(
        "dome",
        vec![
            Placed::at_origin(Sphere::new(1.0).unwrap()),
            Placed::at_origin(HalfSpace::<Spatial>::new(-Vector3::z(), 0.0).unwrap()),
        ],
    )
    .unwrap();
    // Below the flat face: the closest point is on the flat disc, distance 1 − 0.5 = 0.5.
    let r = query(&dome, &Pose::identity(), &sphere(0.5), &at3(0.2, 0.0, -1.0));
    assert!((r.distance - 0.5).abs() < TOL);
    assert!((r.normal + Vector3::z()).norm() < TOL);
    // Above: the curved cap, distance 2 − 1 − 0.5.
    let r = query(&dome, &Pose::identity(), &sphere(0.5), &at3(0.0, 0.0, 2.0));
    assert!((r.distance - 0.5).abs() < TOL);
    assert!(r.multipliers_a[1].abs() < TOL);
}

/// `depth_below_surface` measures overlap in metres whatever the function's scale: a point
/// 1 cm below the tip of a slender ellipsoid (semi-axes 0.25, 0.25, 1 m, where the function's
/// slope at the tip is 2, not 1) and below a tilted plane, placed by a pose. Newton on a convex
/// function along the normal: 1e-12 m (a few roundings of a unit-size quantity).
#[test]
fn depth_below_surface_is_a_distance() {
    use super::{depth_below_surface, world_value};
    use nalgebra::{UnitQuaternion, Vector3};
    let pose = Pose::spatial(
        Vector3::new(0.3, -0.2, 1.0),
        *UnitQuaternion::from_euler_angles(0.4, 0.1, -0.3).quaternion(),
        "e",
    )
    .unwrap();
    let e = Placed::at_origin(Ellipsoid::<Spatial>::new(Vector3::new(0.25, 0.25, 1.0)).unwrap());
    let tip = pose.transform_point(&Vector3::new(0.0, 0.0, 0.99));
    assert!(world_value(&e, &pose, &tip) < 0.0);
    let d = depth_below_surface(&e, &pose, &tip);
    assert!((d - 0.01).abs() < 1e-12, "ellipsoid tip depth {d}");
    let n = Vector3::new(1.0, 2.0, 2.0) / 3.0;
    let plane = Placed::at_origin(HalfSpace::<Spatial>::new(n, 0.5).unwrap());
    let inside = pose.transform_point(&(n * 0.5 - n * 0.03));
    let d = depth_below_surface(&plane, &pose, &inside);
    assert!((d - 0.03).abs() < 1e-12, "plane depth {d}");
}
