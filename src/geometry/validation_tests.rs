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
