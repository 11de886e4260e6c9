//! Every validation error, checked for the shape and the parameter it names.

use super::body::BodyShape;
use super::error::GeometryError;
use super::implicit::{ImplicitFn, Placed};
use super::part::ConvexPart;
use super::pose::Pose;
use super::primitives::*;
use super::space::{Planar, Spatial};
use nalgebra::{Quaternion, UnitQuaternion, Vector2, Vector3};

fn assert_param(e: GeometryError, shape: &str, parameter: &str) {
    match &e {
        GeometryError::InvalidParameter {
            shape: s,
            parameter: p,
            ..
        } => {
            assert_eq!((s.as_str(), p.as_str()), (shape, parameter), "{e}")
        }
        other => panic!("expected InvalidParameter({shape}, {parameter}), got {other}"),
    }
    assert!(e.to_string().contains(shape) && e.to_string().contains(parameter));
}

fn assert_empty(e: GeometryError, shape: &str, words: &str) {
    match &e {
        GeometryError::EmptyIntersection { shape: s, reason } => {
            assert_eq!(s, shape, "{e}");
            assert!(reason.contains(words), "{e}");
        }
        other => panic!("expected EmptyIntersection({shape}), got {other}"),
    }
}

#[test]
fn radii_and_semi_axes_must_be_positive_and_finite() {
    for r in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert_param(Circle::new(r).unwrap_err(), "circle", "radius");
        assert_param(Sphere::new(r).unwrap_err(), "sphere", "radius");
        assert_param(InfiniteCylinder::new(r).unwrap_err(), "cylinder", "radius");
        assert_param(
            ConvexPart::cylinder(r, 1.0).unwrap_err(),
            "cylinder",
            "radius",
        );
        assert_param(
            ConvexPart::cylinder(1.0, r).unwrap_err(),
            "cylinder",
            "half_height",
        );
        assert_param(
            Ellipse::new(Vector2::new(1.0, r)).unwrap_err(),
            "ellipse",
            "semi_axes[1]",
        );
        assert_param(
            Ellipsoid::<Spatial>::new(Vector3::new(r, 1.0, 1.0)).unwrap_err(),
            "ellipsoid",
            "semi_axes[0]",
        );
        assert_param(
            Superellipsoid::<Spatial>::new(Vector3::new(1.0, 1.0, r), 4.0).unwrap_err(),
            "superellipsoid",
            "semi_axes[2]",
        );
        assert_param(
            ConvexPart::<Planar>::cuboid(Vector2::new(r, 1.0)).unwrap_err(),
            "rectangle",
            "half_extents[0]",
        );
        assert_param(
            ConvexPart::<Spatial>::cuboid(Vector3::new(1.0, 1.0, r)).unwrap_err(),
            "box",
            "half_extents[2]",
        );
    }
}

#[test]
fn superellipse_exponent_must_keep_c2_and_convexity() {
    let a = Vector2::new(2.3, 1.1);
    for p in [
        1.999,
        1.5,
        1.0,
        0.5,
        -2.0,
        f64::NAN,
        f64::NEG_INFINITY,
        1e6,
        f64::INFINITY,
    ] {
        let e = Superellipse::new(a, p).unwrap_err();
        assert!(
            e.to_string().contains("C²") || e.to_string().contains("≤"),
            "{e}"
        );
        assert_param(e, "superellipse", "exponent");
    }
    assert!(Superellipse::new(a, 2.0).is_ok());
    assert!(Superellipse::new(a, 4.0).is_ok()); // the paper's gear teeth
}

#[test]
fn half_space_normal_must_be_nonzero() {
    assert_param(
        HalfSpace::<Planar>::new(Vector2::zeros(), 1.0).unwrap_err(),
        "half-plane",
        "normal",
    );
    assert_param(
        HalfSpace::<Spatial>::new(Vector3::new(f64::NAN, 0.0, 1.0), 1.0).unwrap_err(),
        "half-space",
        "normal",
    );
    assert_param(
        HalfSpace::<Planar>::new(Vector2::x(), f64::NAN).unwrap_err(),
        "half-plane",
        "offset",
    );
    // A non-unit normal is normalised together with the offset: the same set, f a distance.
    let h = HalfSpace::<Planar>::new(Vector2::new(0.0, 2.0), 4.0).unwrap();
    assert_eq!((h.normal(), h.offset()), (Vector2::y(), 2.0));
}

#[test]
fn polygon_checks_orientation_convexity_and_area() {
    let sq = [
        Vector2::new(0.0, 0.0),
        Vector2::new(1.0, 0.0),
        Vector2::new(1.0, 1.0),
        Vector2::new(0.0, 1.0),
    ];
    let p = ConvexPart::polygon(&sq).unwrap();
    assert_eq!(p.len(), 4);
    assert!(p.contains(&Vector2::new(0.5, 0.5)) && !p.contains(&Vector2::new(1.1, 0.5)));
    assert!((p.value(&Vector2::new(0.5, 1.25)) - 0.25).abs() < 1e-15);
    let mut cw = sq;
    cw.reverse();
    assert_empty(
        ConvexPart::polygon(&cw).unwrap_err(),
        "polygon",
        "clockwise",
    );
    let line = [
        Vector2::new(0.0, 0.0),
        Vector2::new(1.0, 1.0),
        Vector2::new(2.0, 2.0),
    ];
    assert_empty(
        ConvexPart::polygon(&line).unwrap_err(),
        "polygon",
        "no area",
    );
    assert_param(
        ConvexPart::polygon(&sq[..2]).unwrap_err(),
        "polygon",
        "vertices",
    );
    let dent = [
        Vector2::new(0.0, 0.0),
        Vector2::new(2.0, 0.0),
        Vector2::new(1.0, 0.5),
        Vector2::new(2.0, 2.0),
        Vector2::new(0.0, 2.0),
    ];
    assert_param(
        ConvexPart::polygon(&dent).unwrap_err(),
        "polygon",
        "vertices[2]",
    );
    let mid = [sq[0], Vector2::new(0.5, 0.0), sq[1], sq[2], sq[3]];
    assert_param(
        ConvexPart::polygon(&mid).unwrap_err(),
        "polygon",
        "vertices[1]",
    );
    let dup = [sq[0], sq[1], sq[1], sq[2], sq[3]];
    assert_param(
        ConvexPart::polygon(&dup).unwrap_err(),
        "polygon",
        "vertices[2]",
    );
    let star: Vec<_> = (0..5)
        .map(|k| {
            let t = (2 * k) as f64 * std::f64::consts::TAU / 5.0;
            Vector2::new(t.cos(), t.sin())
        })
        .collect();
    let e = ConvexPart::polygon(&star).unwrap_err();
    assert!(e.to_string().contains("self-intersecting"), "{e}");
    let nan = [sq[0], sq[1], Vector2::new(f64::NAN, 1.0)];
    assert_param(
        ConvexPart::polygon(&nan).unwrap_err(),
        "polygon",
        "vertices[2]",
    );
}

fn cube_planes() -> Vec<(Vector3<f64>, f64)> {
    let mut v = Vec::new();
    for i in 0..3 {
        for s in [1.0, -1.0] {
            let mut n = Vector3::zeros();
            n[i] = s;
            v.push((n, 1.0));
        }
    }
    v
}

#[test]
fn polyhedron_checks_emptiness_and_boundedness() {
    let cube = ConvexPart::polyhedron(&cube_planes()).unwrap();
    assert_eq!(cube.interior_point(), Some(Vector3::zeros()));
    assert!((cube.bounding_radius().unwrap() - 3f64.sqrt()).abs() < 1e-12);
    // A tetrahedron from non-unit normals.
    let tet = [
        (Vector3::new(-1.0, 0.0, 0.0), 0.0),
        (Vector3::new(0.0, -2.0, 0.0), 0.0),
        (Vector3::new(0.0, 0.0, -1.0), 0.0),
        (Vector3::new(1.0, 1.0, 1.0), 1.0),
    ];
    let t = ConvexPart::polyhedron(&tet).unwrap();
    assert!(t.contains(&Vector3::new(0.2, 0.2, 0.2)) && !t.contains(&Vector3::new(0.5, 0.5, 0.5)));

    let open = &cube_planes()[..5];
    assert!(matches!(
        ConvexPart::polyhedron(open).unwrap_err(),
        GeometryError::Unbounded { .. }
    ));
    let slab = [
        (Vector3::z(), 1.0),
        (-Vector3::z(), 1.0),
        (Vector3::z(), 2.0),
        (-Vector3::z(), 3.0),
    ];
    assert!(matches!(
        ConvexPart::polyhedron(&slab).unwrap_err(),
        GeometryError::Unbounded { .. }
    ));

    let mut disjoint = cube_planes();
    disjoint[1] = (-Vector3::x(), -2.0); // x ≥ 2 and x ≤ 1
    assert_empty(
        ConvexPart::polyhedron(&disjoint).unwrap_err(),
        "polyhedron",
        "no common point",
    );
    let mut flat = cube_planes();
    flat[1] = (-Vector3::x(), -1.0); // x ≥ 1 and x ≤ 1: a face, no volume
    assert_empty(
        ConvexPart::polyhedron(&flat).unwrap_err(),
        "polyhedron",
        "no volume",
    );

    let mut zero = cube_planes();
    zero[3].0 = Vector3::zeros();
    assert_param(
        ConvexPart::polyhedron(&zero).unwrap_err(),
        "polyhedron/planes[3]/half-space",
        "normal",
    );
    assert_param(
        ConvexPart::polyhedron(&cube_planes()[..3]).unwrap_err(),
        "polyhedron",
        "planes",
    );
}

#[test]
fn parts_detect_disjoint_functions_and_bad_placements() {
    let far = Pose::from_translation(Vector3::new(5.0, 0.0, 0.0));
    let fs = vec![
        Placed::at_origin(Sphere::new(1.0).unwrap()),
        Placed::new(Sphere::new(1.0).unwrap(), far),
    ];
    assert_empty(
        ConvexPart::new("lens", fs).unwrap_err(),
        "lens",
        "interior point",
    );
    // Overlapping: the lens of two balls is found non-empty (the mean of the centres is inside).
    let near = Pose::from_translation(Vector3::new(1.5, 0.0, 0.0));
    let fs = vec![
        Placed::at_origin(Sphere::new(1.0).unwrap()),
        Placed::new(Sphere::new(1.0).unwrap(), near),
    ];
    let lens = ConvexPart::new("lens", fs).unwrap();
    assert_eq!(lens.interior_point(), Some(Vector3::new(0.75, 0.0, 0.0)));
    assert!(lens.clone().with_interior_point(Vector3::zeros()).is_err());

    let bad = Pose::<Spatial> {
        position: Vector3::zeros(),
        rotation: UnitQuaternion::new_unchecked(Quaternion::new(1.0, 1.0, 0.0, 0.0)),
    };
    let e = ConvexPart::new("tip", vec![Placed::new(Sphere::new(1.0).unwrap(), bad)]).unwrap_err();
    match &e {
        GeometryError::InvalidPose { body, field, .. } => {
            assert_eq!(body, "tip/function[0]/placement of sphere");
            assert_eq!(field, "rotation");
        }
        other => panic!("{other}"),
    }
    assert_param(
        ConvexPart::<Planar>::new("none", vec![]).unwrap_err(),
        "none",
        "functions",
    );
    assert_param(
        BodyShape::<Planar>::new("ghost", vec![]).unwrap_err(),
        "ghost",
        "parts",
    );
}

/// The paper's gear (§6.4, eq. 56–57): a disc and six superellipse teeth, `p = 4`, semi-axes
/// 2.3 × 1.1, centred at `20.75 (cos θᵢ, sin θᵢ)` and aligned radially.
#[test]
fn paper_gear_is_a_union() {
    let mut parts = vec![ConvexPart::single("disc", Circle::new(20.75).unwrap()).unwrap()];
    for t in [
        4.103727f64,
        4.253125,
        4.402522,
        5.022255,
        5.171653,
        5.321051,
    ] {
        let tooth = Superellipse::new(Vector2::new(2.3, 1.1), 4.0).unwrap();
        let at = Pose::<Planar>::planar(20.75 * t.cos(), 20.75 * t.sin(), t, "tooth").unwrap();
        parts.push(ConvexPart::new("tooth", vec![Placed::new(tooth, at)]).unwrap());
    }
    let gear = BodyShape::new("gear", parts).unwrap();
    let t = 4.103727f64;
    let tip = Vector2::new(t.cos(), t.sin()) * (20.75 + 2.29);
    assert!(gear.contains(&tip));
    assert!(!gear.contains(&(Vector2::new(t.cos(), t.sin()) * (20.75 + 2.31))));
    assert!(gear.contains(&Vector2::zeros()));
    let teeth = gear.parts()[1].functions()[0].name().to_string();
    assert_eq!(teeth, "superellipse");
}

/// A fixed-seed generator (SplitMix64) for reproducible random shapes.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[lo, hi)`.
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The convex hull of `points`, counter-clockwise, without collinear vertices (monotone chain).
fn convex_hull(mut points: Vec<Vector2<f64>>) -> Vec<Vector2<f64>> {
    points.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    let cross = |o: Vector2<f64>, a: Vector2<f64>, b: Vector2<f64>| {
        (a - o).x * (b - o).y - (a - o).y * (b - o).x
    };
    let mut hull: Vec<Vector2<f64>> = Vec::new();
    for pass in 0..2 {
        let start = hull.len();
        let iter: Box<dyn Iterator<Item = &Vector2<f64>>> = if pass == 0 {
            Box::new(points.iter())
        } else {
            Box::new(points.iter().rev())
        };
        for &p in iter {
            while hull.len() >= start + 2
                && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0
            {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop(); // the last point starts the other chain
    }
    hull
}

/// Every function is strictly negative at the part's interior point.
fn assert_strictly_inside<S: super::space::Space>(part: &ConvexPart<S>) {
    let c = part.interior_point().expect("an interior point");
    for (i, f) in part.functions().iter().enumerate() {
        assert!(
            f.value(&c) < 0.0,
            "function[{i}] = {} at {c:?}",
            f.value(&c)
        );
    }
}

#[test]
fn polygon_interior_point_bug_triangle_off_origin_is_accepted() {
    // Counter-clockwise and convex, but none of the guesses of `ConvexPart::new` (the
    // half-planes' own interior points and their mean) is inside it.
    let tri = [
        Vector2::new(0.3, 0.0),
        Vector2::new(0.0, 0.3),
        Vector2::new(-0.05, -0.6),
    ];
    let p = ConvexPart::polygon(&tri).unwrap();
    assert_strictly_inside(&p);
    let c = p.interior_point().unwrap();
    let centroid = (tri[0] + tri[1] + tri[2]) / 3.0;
    assert!((c - centroid).norm() < 1e-15, "{c:?}");
    assert!(p.bounding_radius().is_some());
    assert_eq!(p.vertices().map(|v| v.len()), Some(3));
    assert!(ConvexPart::new("guess", p.functions().to_vec()).is_err());
}

#[test]
fn polygon_interior_point_bug_random_polygons_far_from_origin_are_accepted() {
    let mut rng = SplitMix(0x5eed_f901);
    let mut guess_missed = 0;
    for case in 0..200 {
        let distance = rng.uniform(0.0, 100.0);
        let angle = rng.uniform(0.0, std::f64::consts::TAU);
        let centre = Vector2::new(angle.cos(), angle.sin()) * distance;
        let size = rng.uniform(0.05, 5.0);
        let vertices = if case % 2 == 0 {
            // The convex hull of random points (redrawn until it has an interior).
            loop {
                let n = 3 + (rng.next() % 12) as usize;
                let points = (0..n)
                    .map(|_| {
                        centre + Vector2::new(rng.uniform(-size, size), rng.uniform(-size, size))
                    })
                    .collect();
                let hull = convex_hull(points);
                if hull.len() >= 3 {
                    break hull;
                }
            }
        } else {
            let n = 3 + (rng.next() % 30) as usize;
            let phase = rng.uniform(0.0, std::f64::consts::TAU);
            (0..n)
                .map(|k| {
                    let t = phase + k as f64 * std::f64::consts::TAU / n as f64;
                    centre + Vector2::new(t.cos(), t.sin()) * size
                })
                .collect()
        };
        let p = ConvexPart::polygon(&vertices)
            .unwrap_or_else(|e| panic!("case {case}: {vertices:?} refused: {e}"));
        assert_strictly_inside(&p);
        if ConvexPart::new("guess", p.functions().to_vec()).is_err() {
            guess_missed += 1;
        }
    }
    // The batch exercises the bug: the old guess refuses some of these polygons.
    assert!(guess_missed > 0);
}

/// The face planes `(n, n·a)` of the tetrahedron `a, b, c, d` (outward normals).
fn tetrahedron_planes(v: [Vector3<f64>; 4]) -> Vec<(Vector3<f64>, f64)> {
    let centre = v.iter().sum::<Vector3<f64>>() / 4.0;
    [[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]]
        .iter()
        .map(|&[i, j, k]| {
            let mut n = (v[j] - v[i]).cross(&(v[k] - v[i]));
            if n.dot(&(centre - v[i])) > 0.0 {
                n = -n;
            }
            (n, n.dot(&v[i]))
        })
        .collect()
}

#[test]
fn polygon_interior_point_bug_polyhedra_far_from_origin_are_accepted() {
    // A small tetrahedron 100 m away, tilted so that no face is axis-aligned.
    let o = Vector3::new(60.0, -70.0, 40.0);
    let tet = tetrahedron_planes([
        o + Vector3::new(0.3, 0.0, 0.1),
        o + Vector3::new(0.0, 0.25, -0.05),
        o + Vector3::new(-0.1, -0.05, 0.3),
        o + Vector3::new(0.05, -0.2, -0.2),
    ]);
    let t = ConvexPart::polyhedron(&tet).unwrap();
    assert_strictly_inside(&t);
    assert_eq!(t.vertices().map(|v| v.len()), Some(4));
    // Random tetrahedra up to 100 m away.
    let mut rng = SplitMix(0xf00d);
    for case in 0..100 {
        let o = Vector3::new(
            rng.uniform(-100.0, 100.0),
            rng.uniform(-100.0, 100.0),
            rng.uniform(-100.0, 100.0),
        ) * 0.577;
        let s = rng.uniform(0.05, 3.0);
        let mut corner =
            || o + Vector3::new(rng.uniform(-s, s), rng.uniform(-s, s), rng.uniform(-s, s));
        let v = [corner(), corner(), corner(), corner()];
        let volume = (v[1] - v[0])
            .cross(&(v[2] - v[0]))
            .dot(&(v[3] - v[0]))
            .abs()
            / 6.0;
        if volume < 1e-3 * s * s * s {
            continue;
        }
        let p = ConvexPart::polyhedron(&tetrahedron_planes(v))
            .unwrap_or_else(|e| panic!("case {case}: {v:?} refused: {e}"));
        assert_strictly_inside(&p);
    }
    // A 2 µm cube 100 m away has volume: the test for it must not scale with the distance.
    let tiny: Vec<_> = cube_planes()
        .into_iter()
        .map(|(n, _)| (n, n.dot(&o) + 1e-6))
        .collect();
    let cube = ConvexPart::polyhedron(&tiny).unwrap();
    assert_strictly_inside(&cube);
    assert!((cube.interior_point().unwrap() - o).norm() < 1e-9);
    assert_eq!(cube.vertices().map(|v| v.len()), Some(8));
    // A box and a cylinder placed far away keep their interior points.
    let far = Pose::from_translation(Vector3::new(-80.0, 55.0, 30.0));
    let b = ConvexPart::<Spatial>::cuboid(Vector3::new(0.1, 0.2, 0.3))
        .unwrap()
        .placed(&far);
    assert_strictly_inside(&b);
    let c = ConvexPart::cylinder(0.2, 0.05).unwrap().placed(&far);
    assert_strictly_inside(&c);
    assert_strictly_inside(&ConvexPart::cylinder(0.2, 0.05).unwrap());
    assert_strictly_inside(&ConvexPart::<Planar>::cuboid(Vector2::new(3.0, 0.01)).unwrap());
}

#[test]
fn polygon_interior_point_bug_empty_intersections_are_still_refused() {
    // A clockwise triangle away from the origin: its edge half-planes meet in nothing.
    let cw = [
        Vector2::new(50.0, 50.0),
        Vector2::new(50.0, 51.0),
        Vector2::new(51.0, 50.0),
    ];
    assert_empty(
        ConvexPart::polygon(&cw).unwrap_err(),
        "polygon",
        "clockwise",
    );
    // Two disjoint tetrahedra's planes, far from the origin.
    let o = Vector3::new(70.0, 70.0, -20.0);
    let mut planes = tetrahedron_planes([o, o + Vector3::x(), o + Vector3::y(), o + Vector3::z()]);
    let p = o + Vector3::new(5.0, 0.0, 0.0);
    planes.extend(tetrahedron_planes([
        p,
        p + Vector3::x(),
        p + Vector3::y(),
        p + Vector3::z(),
    ]));
    assert_empty(
        ConvexPart::polyhedron(&planes).unwrap_err(),
        "polyhedron",
        "no common point",
    );
    // A flat box (x = o.x) far from the origin encloses no volume.
    let flat: Vec<_> = cube_planes()
        .into_iter()
        .enumerate()
        .map(|(k, (n, _))| (n, n.dot(&o) + if k < 2 { 0.0 } else { 1.0 }))
        .collect();
    assert_empty(
        ConvexPart::polyhedron(&flat).unwrap_err(),
        "polyhedron",
        "no volume",
    );
    // A known interior point must still be inside.
    let fs = |d: f64| {
        vec![
            Placed::at_origin(HalfSpace::<Planar>::new(Vector2::x(), d).unwrap()),
            Placed::at_origin(HalfSpace::<Planar>::new(-Vector2::x(), 1.0).unwrap()),
        ]
    };
    assert_empty(
        ConvexPart::new_with_interior("slab", fs(-2.0), Vector2::new(-1.5, 0.0)).unwrap_err(),
        "slab",
        "not inside",
    );
    let slab = ConvexPart::new_with_interior("slab", fs(1.0), Vector2::new(0.5, 7.0)).unwrap();
    assert_eq!(slab.interior_point(), Some(Vector2::new(0.5, 7.0)));
}
