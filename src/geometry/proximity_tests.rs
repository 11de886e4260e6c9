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

/// Pairs of boxes — intersections of `2D` half-spaces (`D = 2, 3`), so the KKT systems carry
/// many inactive constraints, and parallel faces make the closest points non-unique (the distance
/// stays unique) — against an exact polytope distance and the separating axis theorem written
/// here.
///
/// The exact distance of two disjoint convex polytopes is attained at a vertex of one and a
/// facet of the other, or (3D) at two edges: 2D takes the minimum of point–segment distances
/// over (vertex, edge) pairs both ways; 3D of point–rectangle distances over (vertex, face) pairs
/// both ways (clamping in the face's box coordinates) and segment–segment distances over
/// (edge, edge) pairs (the interior critical point if it lies in the unit square, else the
/// endpoint–segment minima). Every step is a few roundings of unit-size quantities: `~1e-15`.
///
/// Pairs are drawn so that most are separated by small gaps (`1e-3 … 0.3`, log-uniform), some by
/// `0.3 … 1`, some overlap; a third (2D) or half (3D) have parallel or nearly parallel faces
/// (relative rotation a symmetry of the square or cube times a tilt of `0` or `1e-12 … 3e-2`
/// rad) facing each other across the gap. Pairs within `1e-6` of touching by the SAT margin are
/// skipped (neither clearly separated nor clearly intersecting).
///
/// Tolerances. Closest points on the boundaries to `1e-9`; `‖a₂ − a₁‖ = distance` to `1e-12`.
/// Distance to `1e-10` — except for faces tilted by `0 < τ ≪ 1`: a point pair anywhere on the two
/// facing faces violates stationarity (eq. 24–25) only by `≈ d τ` (the gap `a₂ − a₁` cannot be
/// parallel to both face normals), so once `d τ ≲ 1e-10` the solver's stopping test (natural
/// residual `ρ ≤ 1e-10`) accepts a pair up to a face diameter `L ≤ 2√2` away from the true
/// closest feature, with distance error up to `L τ`. The distance is then known only to
/// `≈ L ρ / d` (`τ ≲ ρ √D / d`): such pairs are checked to `1e-10 + min(3 τ, 10 ρ / d)`. Observed:
/// errors up to `~1e-8` at `τ = 1e-8`, `d ≈ 1e-2` (the `#[ignore]`d strict sweeps hold every pair
/// to `1e-10` and list them). The normal `(a₂ − a₁)/d` is, likewise, good to `√D ρ / d`: the
/// plane through the closest points with that normal must support both boxes (all corners on
/// their own side) to `1e-9 + 10 ρ / d`.
mod box_pairs {
    use super::*;
    use nalgebra::{Matrix2, SMatrix, SVector, UnitQuaternion};

    /// A small deterministic generator (xorshift64*, as in the contact tests).
    struct Rng(u64);

    impl Rng {
        /// The stream of pair `k`: a splitmix-style scramble of `k`, so pairs reproduce alone.
        fn for_pair(k: u64) -> Self {
            let mut z = k.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            Self((z ^ (z >> 31)) | 1)
        }
        fn next(&mut self) -> f64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            let x = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D);
            (x >> 11) as f64 / (1u64 << 53) as f64
        }
        fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
            lo + (hi - lo) * self.next()
        }
        fn index(&mut self, n: usize) -> usize {
            ((self.next() * n as f64) as usize).min(n - 1)
        }
        fn sign(&mut self) -> f64 {
            if self.next() < 0.5 { -1.0 } else { 1.0 }
        }
        /// A uniformly random unit vector (rejection from the cube).
        fn unit3(&mut self) -> Vector3<f64> {
            loop {
                let v = Vector3::from_fn(|_, _| self.uniform(-1.0, 1.0));
                let n = v.norm();
                if n > 0.1 && n <= 1.0 {
                    return v / n;
                }
            }
        }
        /// The gap along the placement direction: log-uniform `1e-3 … 0.3` (55 %), uniform
        /// `0.3 … 1` (20 %), or an overlap of log-uniform `1e-3 … 0.3` (25 %).
        fn gap(&mut self) -> f64 {
            let r = self.next();
            let small = 10f64.powf(self.uniform(-3.0, 0.3f64.log10()));
            if r < 0.55 {
                small
            } else if r < 0.75 {
                self.uniform(0.3, 1.0)
            } else {
                -small
            }
        }
        /// A tilt angle for nearly parallel faces: exactly parallel or tilted by `1e-12 … 3e-2`.
        fn tilt(&mut self) -> f64 {
            const TILTS: [f64; 11] = [
                0.0, 0.0, 1e-12, 1e-10, 1e-9, 1e-8, 1e-7, 1e-6, 1e-4, 1e-3, 3e-2,
            ];
            TILTS[self.index(TILTS.len())] * self.sign()
        }
    }

    /// A box in the world: centre, axes (the columns), half extents.
    struct WorldBox<const D: usize> {
        centre: SVector<f64, D>,
        axes: SMatrix<f64, D, D>,
        half: SVector<f64, D>,
    }

    impl<const D: usize> WorldBox<D> {
        /// Half-width of the projection on the unit direction `n`.
        fn radius(&self, n: &SVector<f64, D>) -> f64 {
            (0..D)
                .map(|i| self.axes.column(i).dot(n).abs() * self.half[i])
                .sum()
        }
        /// The `2ᴰ` corners; bit `i` of the index picks the sign along axis `i`.
        fn corner(&self, k: usize) -> SVector<f64, D> {
            let mut p = self.centre;
            for i in 0..D {
                let s = if k >> i & 1 == 1 { 1.0 } else { -1.0 };
                p += self.axes.column(i) * (s * self.half[i]);
            }
            p
        }
        fn corners(&self) -> Vec<SVector<f64, D>> {
            (0..1 << D).map(|k| self.corner(k)).collect()
        }
        /// The edges: corner pairs that differ in one bit.
        fn edges(&self) -> Vec<(SVector<f64, D>, SVector<f64, D>)> {
            let mut e = Vec::new();
            for k in 0..1usize << D {
                for i in 0..D {
                    if k >> i & 1 == 0 {
                        e.push((self.corner(k), self.corner(k | 1 << i)));
                    }
                }
            }
            e
        }
        /// Box coordinates of a world point.
        fn local(&self, p: &SVector<f64, D>) -> SVector<f64, D> {
            self.axes.transpose() * (p - self.centre)
        }
    }

    /// Smallest overlap of the two boxes' projections over the given unit axes: positive iff the
    /// projections overlap on every axis; if negative, its opposite bounds the distance below.
    fn sat_margin<const D: usize>(
        a: &WorldBox<D>,
        b: &WorldBox<D>,
        axes: &[SVector<f64, D>],
    ) -> f64 {
        axes.iter()
            .map(|n| a.radius(n) + b.radius(n) - n.dot(&(b.centre - a.centre)).abs())
            .fold(f64::INFINITY, f64::min)
    }

    fn point_segment<const D: usize>(
        p: &SVector<f64, D>,
        a: &SVector<f64, D>,
        b: &SVector<f64, D>,
    ) -> f64 {
        let e = b - a;
        let t = ((p - a).dot(&e) / e.norm_squared()).clamp(0.0, 1.0);
        (p - (a + e * t)).norm()
    }

    /// Distance of segments `[p₁, q₁]` and `[p₂, q₂]`: `‖r + s d₁ − t d₂‖` is convex on the unit
    /// square, so its minimum is the interior critical point if that lies in the square, else
    /// on the square's boundary, i.e. an endpoint–segment distance.
    fn segment_segment(
        p1: &Vector3<f64>,
        q1: &Vector3<f64>,
        p2: &Vector3<f64>,
        q2: &Vector3<f64>,
    ) -> f64 {
        let mut best = point_segment(p1, p2, q2)
            .min(point_segment(q1, p2, q2))
            .min(point_segment(p2, p1, q1))
            .min(point_segment(q2, p1, q1));
        let (d1, d2, r) = (q1 - p1, q2 - p2, p1 - p2);
        let (a, b, e) = (d1.dot(&d1), d1.dot(&d2), d2.dot(&d2));
        let (c, f) = (d1.dot(&r), d2.dot(&r));
        let denom = a * e - b * b;
        if denom > 1e-14 * a * e {
            let s = (b * f - c * e) / denom;
            let t = (a * f - b * c) / denom;
            if (0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t) {
                best = best.min((r + d1 * s - d2 * t).norm());
            }
        }
        best
    }

    /// Exact distance of two disjoint rectangles: (vertex, edge) pairs both ways.
    fn rectangle_distance(a: &WorldBox<2>, b: &WorldBox<2>) -> f64 {
        let mut best = f64::INFINITY;
        for (p, q) in [(a, b), (b, a)] {
            // Corners 0, 1, 3, 2 go round the rectangle.
            let c = q.corners();
            let ring = [c[0], c[1], c[3], c[2]];
            for v in p.corners() {
                for k in 0..4 {
                    best = best.min(point_segment(&v, &ring[k], &ring[(k + 1) % 4]));
                }
            }
        }
        best
    }

    /// Exact distance of two disjoint boxes: (vertex, face) pairs both ways, (edge, edge) pairs.
    fn box_distance(a: &WorldBox<3>, b: &WorldBox<3>) -> f64 {
        let mut best = f64::INFINITY;
        for (p, q) in [(a, b), (b, a)] {
            for v in p.corners() {
                let x = q.local(&v);
                for i in 0..3 {
                    for s in [-1.0, 1.0] {
                        let foot = Vector3::from_fn(|j, _| {
                            if j == i {
                                s * q.half[i]
                            } else {
                                x[j].clamp(-q.half[j], q.half[j])
                            }
                        });
                        best = best.min((x - foot).norm());
                    }
                }
            }
        }
        for (p1, q1) in a.edges() {
            for (p2, q2) in b.edges() {
                best = best.min(segment_segment(&p1, &q1, &p2, &q2));
            }
        }
        best
    }

    fn sat_margin_2d(a: &WorldBox<2>, b: &WorldBox<2>) -> f64 {
        let axes: Vec<Vector2<f64>> = (0..2)
            .flat_map(|i| [a.axes.column(i).into_owned(), b.axes.column(i).into_owned()])
            .collect();
        sat_margin(a, b, &axes)
    }

    /// The 15 axes: 3 + 3 face normals and the edge crosses (near-zero crosses skipped).
    fn sat_margin_3d(a: &WorldBox<3>, b: &WorldBox<3>) -> f64 {
        let mut axes: Vec<Vector3<f64>> = Vec::with_capacity(15);
        for i in 0..3 {
            axes.push(a.axes.column(i).into_owned());
            axes.push(b.axes.column(i).into_owned());
            for j in 0..3 {
                let c = a.axes.column(i).cross(&b.axes.column(j));
                if c.norm() > 1e-6 {
                    axes.push(c.normalize());
                }
            }
        }
        sat_margin(a, b, &axes)
    }

    /// Tallies of one random sweep.
    #[derive(Default, Debug)]
    struct Tally {
        separated: usize,
        separated_tilted: usize,
        separated_exactly_parallel: usize,
        intersecting: usize,
        skipped: usize,
        /// Worst distance errors: generic pairs, exactly parallel faces, tilted faces.
        worst_generic: f64,
        worst_parallel: f64,
        worst_tilted: f64,
        worst_boundary_value: f64,
        worst_support_violation: f64,
        failures: Vec<String>,
    }

    /// Checks one pair against the exact answer and records failures in `tally`; `margin` is the
    /// SAT margin, `exact` the exact distance (called if separated), `parallel` the tilt of
    /// facing faces if the pair was built with (nearly) parallel faces. `strict`: distance to
    /// `1e-10` whatever the tilt.
    #[allow(clippy::too_many_arguments)]
    fn check_pair<S: Space<Vector = SVector<f64, D>>, const D: usize>(
        tally: &mut Tally,
        strict: bool,
        label: &str,
        parallel: Option<f64>,
        (a, pose_a, wa): (&ConvexPart<S>, &Pose<S>, &WorldBox<D>),
        (b, pose_b, wb): (&ConvexPart<S>, &Pose<S>, &WorldBox<D>),
        margin: f64,
        exact: impl Fn() -> f64,
    ) {
        let r = match proximity(a, pose_a, b, pose_b, &ProximitySettings::default()) {
            Ok(r) => r,
            Err(e) => {
                tally
                    .failures
                    .push(format!("{label}: margin {margin:e}: {e}"));
                return;
            }
        };
        if margin < -1e-6 {
            tally.separated += 1;
            let exact = exact();
            if exact < -margin - 1e-12 {
                tally.failures.push(format!(
                    "{label}: reference inconsistent: exact {exact} < SAT gap {}",
                    -margin
                ));
            }
            let err = (r.distance - exact).abs();
            let rho = r.distance_report.residual;
            let mut tolerance = 1e-10;
            match parallel.map(f64::abs) {
                None => tally.worst_generic = tally.worst_generic.max(err),
                Some(tilt) if tilt > 0.0 => {
                    tally.separated_tilted += 1;
                    tally.worst_tilted = tally.worst_tilted.max(err);
                    if !strict {
                        tolerance += (3.0 * tilt).min(10.0 * rho / exact);
                    }
                }
                Some(_) => {
                    tally.separated_exactly_parallel += 1;
                    tally.worst_parallel = tally.worst_parallel.max(err);
                }
            }
            let on_a = a.world_value(pose_a, &r.point_a).abs();
            let on_b = b.world_value(pose_b, &r.point_b).abs();
            tally.worst_boundary_value = tally.worst_boundary_value.max(on_a).max(on_b);
            let gap = (r.point_b - r.point_a).norm();
            // The plane through the closest points with normal `normal` separates the boxes.
            let n = r.normal;
            let above_a = wa
                .corners()
                .iter()
                .map(|v| n.dot(&(v - r.point_a)))
                .fold(f64::NEG_INFINITY, f64::max);
            let below_b = wb
                .corners()
                .iter()
                .map(|v| -n.dot(&(v - r.point_b)))
                .fold(f64::NEG_INFINITY, f64::max);
            let support = above_a.max(below_b);
            tally.worst_support_violation = tally.worst_support_violation.max(support);
            if r.state != ContactState::Separated
                || err > tolerance
                || on_a > 1e-9
                || on_b > 1e-9
                || (gap - r.distance).abs() > 1e-12
                || (n.norm() - 1.0).abs() > 1e-12
                || support > 1e-9 + 10.0 * rho / exact
            {
                tally.failures.push(format!(
                    "{label}: separated (SAT gap {:e}, exact {exact:.17e}): state {:?}, \
                     distance {:.17e} (error {err:e}, tolerance {tolerance:e}), residual {rho:e}, \
                     |f_A(a₁)| {on_a:e}, |f_B(a₂)| {on_b:e}, ‖a₂ − a₁‖ {gap:.17e}, \
                     support violation {support:e}",
                    -margin, r.state, r.distance
                ));
            }
        } else if margin > 1e-6 {
            tally.intersecting += 1;
            if r.state != ContactState::Intersecting {
                tally.failures.push(format!(
                    "{label}: overlapping (SAT overlap {margin:e}): state {:?}, distance {:e}, \
                     depth {:?}",
                    r.state, r.distance, r.depth
                ));
            }
        } else {
            tally.skipped += 1;
        }
    }

    fn finish(what: &str, t: &Tally) {
        eprintln!(
            "{what}: {} separated ({} with exactly parallel faces, {} with tilted faces), \
             {} intersecting, {} skipped; worst |distance error| generic {:e}, parallel {:e}, \
             tilted {:e}; worst |f| at closest points {:e}, worst support violation {:e}; \
             {} failures",
            t.separated,
            t.separated_exactly_parallel,
            t.separated_tilted,
            t.intersecting,
            t.skipped,
            t.worst_generic,
            t.worst_parallel,
            t.worst_tilted,
            t.worst_boundary_value,
            t.worst_support_violation,
            t.failures.len()
        );
        assert!(
            t.failures.is_empty(),
            "{what}: {} failures:\n{}",
            t.failures.len(),
            t.failures.join("\n")
        );
    }

    fn rectangle(h: Vector2<f64>, x: f64, y: f64, theta: f64) -> WorldBox<2> {
        let (s, c) = theta.sin_cos();
        WorldBox {
            centre: Vector2::new(x, y),
            axes: Matrix2::new(c, -s, s, c),
            half: h,
        }
    }

    /// 200 random rectangle pairs against the exact polygon distance and 2D SAT.
    fn rectangle_sweep(strict: bool) {
        let mut tally = Tally::default();
        for k in 0..200u64 {
            let mut rng = Rng::for_pair(k);
            let h_a = Vector2::new(rng.uniform(0.1, 1.0), rng.uniform(0.1, 1.0));
            let h_b = Vector2::new(rng.uniform(0.1, 1.0), rng.uniform(0.1, 1.0));
            let (xa, ya) = (rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0));
            let ta = rng.uniform(-3.1, 3.1);
            let wa = rectangle(h_a, xa, ya, ta);
            // Every third pair: B's faces (nearly) parallel to A's, facing across the gap.
            let parallel = (k % 3 == 0).then(|| rng.tilt());
            let (tb, u) = match parallel {
                Some(tilt) => {
                    let tb = ta + rng.index(4) as f64 * std::f64::consts::FRAC_PI_2 + tilt;
                    (tb, wa.axes.column(rng.index(2)) * rng.sign())
                }
                None => {
                    let phi = rng.uniform(-3.2, 3.2);
                    (rng.uniform(-3.2, 3.2), Vector2::new(phi.cos(), phi.sin()))
                }
            };
            let mut wb = rectangle(h_b, 0.0, 0.0, tb);
            let gap = rng.gap();
            let lateral = rng.uniform(-0.6, 0.6) * h_a.min().max(h_b.min());
            wb.centre = wa.centre
                + u * (wa.radius(&u) + wb.radius(&u) + gap)
                + Vector2::new(-u.y, u.x) * lateral;
            let pose_a = Pose::<Planar>::planar(xa, ya, ta, "a").unwrap();
            let pose_b = Pose::<Planar>::planar(wb.centre.x, wb.centre.y, tb, "b").unwrap();
            let (a, b) = (
                ConvexPart::<Planar>::cuboid(h_a).unwrap(),
                ConvexPart::<Planar>::cuboid(h_b).unwrap(),
            );
            let label = format!(
                "pair {k}: A h ({}, {}) at ({xa}, {ya}, {ta}); B h ({}, {}) at ({}, {}, {tb}); \
                 gap {gap}, tilt {parallel:?}",
                h_a.x, h_a.y, h_b.x, h_b.y, wb.centre.x, wb.centre.y
            );
            let margin = sat_margin_2d(&wa, &wb);
            check_pair(
                &mut tally,
                strict,
                &label,
                parallel,
                (&a, &pose_a, &wa),
                (&b, &pose_b, &wb),
                margin,
                || rectangle_distance(&wa, &wb),
            );
        }
        finish("rectangles", &tally);
    }

    #[test]
    fn random_rectangle_pairs_match_exact_distance() {
        rectangle_sweep(false);
    }

    /// Every separated pair to `1e-10`, tilted faces included. Fails (see the module docs) on
    /// pairs 15, 36, 54, 60, 102, 117, 180, 198, all tilted by `τ = 1e-9` or `1e-8`: e.g. pair
    /// 102 (`τ = 1e-8`, `d = 0.0167`: error `8.2e-9` at residual `7e-11`) and pair 60
    /// (`τ = 1e-9`, `d = 0.109`: `8.1e-10`). The solver stops at a face-interior point whose
    /// residual `≈ d τ` is already below `1e-10`.
    #[test]
    #[ignore = "near-parallel faces: distance error up to ~1e-8 at KKT residual < 1e-10"]
    fn random_rectangle_pairs_match_exact_distance_strictly() {
        rectangle_sweep(true);
    }

    /// 100 random box pairs against the exact polyhedron distance and the 15-axis SAT.
    fn box_sweep(strict: bool) {
        use std::f64::consts::FRAC_PI_2;
        let mut tally = Tally::default();
        for k in 0..100u64 {
            let mut rng = Rng::for_pair(1_000_000 + k);
            let h_a = Vector3::from_fn(|_, _| rng.uniform(0.1, 1.0));
            let h_b = Vector3::from_fn(|_, _| rng.uniform(0.1, 1.0));
            let ca = Vector3::from_fn(|_, _| rng.uniform(-1.0, 1.0));
            let qa = UnitQuaternion::from_scaled_axis(rng.unit3() * rng.uniform(0.0, 3.1));
            let box_of = |h, c, q: &UnitQuaternion<f64>| WorldBox {
                centre: c,
                axes: q.to_rotation_matrix().into_inner(),
                half: h,
            };
            let wa = box_of(h_a, ca, &qa);
            // Every second pair: B's faces (nearly) parallel to A's (a cube symmetry, then a
            // tilt), facing across the gap.
            let parallel = (k % 2 == 0).then(|| rng.tilt());
            let (qb, u) = match parallel {
                Some(tilt) => {
                    let quarter = |rng: &mut Rng| {
                        let axis = Vector3::ith_axis(rng.index(3));
                        UnitQuaternion::from_axis_angle(&axis, rng.index(4) as f64 * FRAC_PI_2)
                    };
                    let symmetry = quarter(&mut rng) * quarter(&mut rng);
                    let tilt = UnitQuaternion::from_scaled_axis(rng.unit3() * tilt);
                    (
                        qa * symmetry * tilt,
                        wa.axes.column(rng.index(3)) * rng.sign(),
                    )
                }
                None => (
                    UnitQuaternion::from_scaled_axis(rng.unit3() * rng.uniform(0.0, 3.1)),
                    rng.unit3(),
                ),
            };
            let mut wb = box_of(h_b, Vector3::zeros(), &qb);
            let gap = rng.gap();
            let lateral = rng.unit3();
            let lateral = (lateral - u * u.dot(&lateral)) * rng.uniform(0.0, 0.6) * h_a.min();
            wb.centre = wa.centre + u * (wa.radius(&u) + wb.radius(&u) + gap) + lateral;
            let pose_a = Pose::<Spatial>::new(ca, qa, "a").unwrap();
            let pose_b = Pose::<Spatial>::new(wb.centre, qb, "b").unwrap();
            let (a, b) = (
                ConvexPart::<Spatial>::cuboid(h_a).unwrap(),
                ConvexPart::<Spatial>::cuboid(h_b).unwrap(),
            );
            let label = format!(
                "pair {k}: A h {:?} at {:?} q {:?}; B h {:?} at {:?} q {:?}; gap {gap}, \
                 tilt {parallel:?}",
                h_a.as_slice(),
                ca.as_slice(),
                qa.coords.as_slice(),
                h_b.as_slice(),
                wb.centre.as_slice(),
                qb.coords.as_slice()
            );
            let margin = sat_margin_3d(&wa, &wb);
            check_pair(
                &mut tally,
                strict,
                &label,
                parallel,
                (&a, &pose_a, &wa),
                (&b, &pose_b, &wb),
                margin,
                || box_distance(&wa, &wb),
            );
        }
        finish("boxes", &tally);
    }

    #[test]
    fn random_box_pairs_match_exact_distance() {
        box_sweep(false);
    }

    /// As [`random_rectangle_pairs_match_exact_distance_strictly`], for boxes: fails on pairs
    /// 6, 24, 42, 86, 90 (`τ = 1e-9, 1e-8`; worst pair 24, `τ = 1e-8`, `d = 0.00138`: error
    /// `5.8e-9` at residual `6e-12`).
    #[test]
    #[ignore = "near-parallel faces: distance error up to ~1e-8 at KKT residual < 1e-10"]
    fn random_box_pairs_match_exact_distance_strictly() {
        box_sweep(true);
    }

    /// Asserts `Touching` (distance and depth within the default `1e-7`) and, if given, the
    /// common normal.
    fn assert_touching<S: Space<Vector = SVector<f64, D>>, const D: usize>(
        what: &str,
        (a, pose_a): (&ConvexPart<S>, &Pose<S>),
        (b, pose_b): (&ConvexPart<S>, &Pose<S>),
        normal: Option<SVector<f64, D>>,
    ) {
        let r = proximity(a, pose_a, b, pose_b, &ProximitySettings::default())
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(r.state, ContactState::Touching, "{what}: {r:?}");
        assert!(r.distance <= 1e-7, "{what}: distance {}", r.distance);
        let depth = r.depth.unwrap();
        assert!(depth.abs() <= 1e-7, "{what}: depth {depth}");
        if let Some(n) = normal {
            assert!((r.normal - n).norm() < 1e-6, "{what}: normal {}", r.normal);
        }
    }

    /// Rectangles placed exactly in contact, in a rotated frame: flat on a face, flush side by
    /// side with the faces partly overlapping, a corner on a face, corner to corner.
    #[test]
    fn touching_rectangles_are_classified() {
        use std::f64::consts::FRAC_PI_4;
        let frame = Pose::<Planar>::planar(0.2, -0.1, 0.3, "a").unwrap();
        let a = ConvexPart::<Planar>::cuboid(Vector2::new(0.5, 0.5)).unwrap();
        let up = frame.transform_vector(&Vector2::y());
        let right = frame.transform_vector(&Vector2::x());
        let place = |x: f64, y: f64, t: f64| {
            let c = frame.transform_point(&Vector2::new(x, y));
            Pose::<Planar>::planar(c.x, c.y, 0.3 + t, "b").unwrap()
        };
        let flat = ConvexPart::<Planar>::cuboid(Vector2::new(0.3, 0.2)).unwrap();
        let square = ConvexPart::<Planar>::cuboid(Vector2::new(0.3, 0.3)).unwrap();
        let cases = [
            ("flat on top", &flat, place(0.1, 0.7, 0.0), Some(up)),
            ("flush, shifted", &flat, place(0.8, 0.6, 0.0), Some(right)),
            (
                "corner on face",
                &square,
                place(0.1, 0.5 + 0.3 * 2f64.sqrt(), FRAC_PI_4),
                Some(up),
            ),
            ("corner to corner", &flat, place(0.8, 0.7, 0.0), None),
        ];
        for (what, b, pose_b, normal) in cases {
            assert_touching(what, (&a, &frame), (b, &pose_b), normal);
        }
    }

    /// Boxes placed exactly in contact, in a rotated frame: flat on a face, an edge on a face, a
    /// corner on a face, and two crossed edges (a unique common normal in each case).
    #[test]
    fn touching_boxes_are_classified() {
        use std::f64::consts::FRAC_PI_4;
        let frame = Pose::<Spatial>::new(
            Vector3::new(0.3, -0.2, 0.1),
            UnitQuaternion::from_scaled_axis(Vector3::new(0.4, -0.3, 0.8)),
            "a",
        )
        .unwrap();
        let up = frame.transform_vector(&Vector3::z());
        let place = |c: Vector3<f64>, rel: UnitQuaternion<f64>| {
            Pose::<Spatial>::new(frame.transform_point(&c), frame.rotation * rel, "b").unwrap()
        };
        let a = ConvexPart::<Spatial>::cuboid(Vector3::new(0.5, 0.4, 0.3)).unwrap();
        let b = ConvexPart::<Spatial>::cuboid(Vector3::new(0.2, 0.3, 0.25)).unwrap();
        let cube = ConvexPart::<Spatial>::cuboid(Vector3::new(0.2, 0.2, 0.2)).unwrap();
        let (s2, s3) = (2f64.sqrt(), 3f64.sqrt());
        let about = |axis: Vector3<f64>| UnitQuaternion::from_scaled_axis(axis * FRAC_PI_4);
        let corner_down =
            UnitQuaternion::rotation_between(&Vector3::new(1.0, 1.0, 1.0), &-Vector3::z()).unwrap();
        let cases = [
            (
                "flat on top",
                &b,
                place(Vector3::new(0.1, -0.05, 0.55), UnitQuaternion::identity()),
            ),
            (
                "edge on face",
                &cube,
                place(Vector3::new(0.1, 0.0, 0.3 + 0.2 * s2), about(Vector3::x())),
            ),
            (
                "corner on face",
                &cube,
                place(Vector3::new(-0.1, 0.1, 0.3 + 0.2 * s3), corner_down),
            ),
        ];
        for (what, b, pose_b) in cases {
            assert_touching(what, (&a, &frame), (b, &pose_b), Some(up));
        }
        // Crossed edges: a cube turned 45° about x (top edge along x at height 0.3√2) under
        // one turned 45° about y (bottom edge along y).
        let lower = ConvexPart::<Spatial>::cuboid(Vector3::new(0.3, 0.3, 0.3)).unwrap();
        let pose_lower = place(Vector3::zeros(), about(Vector3::x()));
        let pose_upper = place(Vector3::new(0.0, 0.0, 0.5 * s2), about(Vector3::y()));
        assert_touching(
            "crossed edges",
            (&lower, &pose_lower),
            (&cube, &pose_upper),
            Some(up),
        );
    }
}
