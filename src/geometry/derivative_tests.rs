//! Finite-difference checks of every shape's gradient and Hessian and of every pose derivative,
//! as property tests over random parameters, points and poses, in 2D and 3D.
//!
//! Tolerances. Central differences with step `h` have truncation error `h² |f'''| / 6` and
//! rounding error `ε |f| / h` (`ε ≈ 2.2e-16`). Parameters are kept in ranges where `|f'''|` is at
//! most a few thousand (semi-axes ≥ 0.5, exponents ≤ 6, points within 1.5 semi-axes, lever arms
//! within about 6), so with `h = 1e-5` the truncation error is below `1e-7` and the rounding
//! error below `1e-9` (relative to `1 + |value|`); the body-frame tolerance `1e-6` leaves a
//! tenfold margin. Pose derivatives differentiate through rotations with lever arm `|p − c|`,
//! which multiplies the third derivative by up to `|p − c|³`: tolerance `2e-5` there.
//! Superellipsoids with `2 < p < 3` have an unbounded third derivative at `ξᵢ = 0`, so their
//! points are kept `≥ 0.05 aᵢ` away from the axes (the `C²` continuity at the axes is checked
//! separately, exactly).

use super::implicit::{ImplicitFn, Placed};
use super::pose::Pose;
use super::primitives::*;
use super::space::{Planar, Space, Spatial};
use super::world::{world_eval, world_eval_with_pose_derivatives};
use nalgebra::{Vector1, Vector2, Vector3};
use proptest::prelude::*;

const H: f64 = 1e-5;
const BODY_TOL: f64 = 1e-6;
const POSE_TOL: f64 = 2e-5;

fn rel(a: f64, b: f64, scale: f64) -> f64 {
    (a - b).abs() / (1.0 + scale)
}

/// Worst relative error of the gradient and Hessian of `f` at `x` against central differences
/// of the value and of the gradient.
fn body_error<S: Space>(f: &dyn ImplicitFn<S>, x: &S::Vector) -> f64 {
    let e = f.eval(x);
    assert_eq!(e.value, f.value(x));
    let mut worst = 0.0f64;
    let gscale = S::norm(&e.gradient).max(e.value.abs());
    let hscale = (0..S::DIM)
        .flat_map(|i| (0..S::DIM).map(move |j| (i, j)))
        .map(|(i, j)| e.hessian[(i, j)].abs())
        .fold(S::norm(&e.gradient), f64::max);
    for j in 0..S::DIM {
        let step = S::unit_vector(j) * H;
        let (xp, xm) = (*x + step, *x - step);
        let dv = (f.value(&xp) - f.value(&xm)) / (2.0 * H);
        worst = worst.max(rel(e.gradient[j], dv, gscale));
        let (gp, gm) = (f.gradient(&xp), f.gradient(&xm));
        for i in 0..S::DIM {
            worst = worst.max(rel(e.hessian[(i, j)], (gp[i] - gm[i]) / (2.0 * H), hscale));
        }
    }
    // Symmetry of the Hessian and agreement of eval() with the separate methods.
    for i in 0..S::DIM {
        worst = worst.max(rel(e.gradient[i], f.gradient(x)[i], gscale));
        for j in 0..S::DIM {
            worst = worst.max(rel(e.hessian[(i, j)], e.hessian[(j, i)], hscale));
            worst = worst.max(rel(e.hessian[(i, j)], f.hessian(x)[(i, j)], hscale));
        }
    }
    worst
}

/// Worst relative error of the four pose derivatives at the world point `p` against central
/// differences of the world-frame value and gradient under poses perturbed by `±h eⱼ` in
/// translation and by `exp(±h eₐ) ∘ R` in rotation.
fn pose_error<S: Space>(f: &dyn ImplicitFn<S>, pose: &Pose<S>, p: &S::Vector) -> f64 {
    let w = world_eval_with_pose_derivatives(f, pose, p);
    let plain = world_eval(f, pose, p);
    let mut worst = rel(w.value, plain.value, plain.value.abs());
    let scale = S::norm(&w.gradient) * (1.0 + S::norm(&(*p - pose.position)));
    let zero_v = S::zero_vector();
    let zero_a = S::angular_from_fn(|_| 0.0);
    for j in 0..S::DIM {
        let d = S::unit_vector(j) * H;
        let (ep, em) = (
            world_eval(f, &pose.perturbed(&d, &zero_a), p),
            world_eval(f, &pose.perturbed(&(-d), &zero_a), p),
        );
        worst = worst.max(rel(
            w.d_value_d_translation[j],
            (ep.value - em.value) / (2.0 * H),
            scale,
        ));
        for i in 0..S::DIM {
            let fd = (ep.gradient[i] - em.gradient[i]) / (2.0 * H);
            worst = worst.max(rel(w.d_gradient_d_translation[(i, j)], fd, scale));
        }
    }
    for a in 0..S::ANGULAR_DIM {
        let d = S::angular_from_fn(|k| if k == a { H } else { 0.0 });
        let (ep, em) = (
            world_eval(f, &pose.perturbed(&zero_v, &d), p),
            world_eval(f, &pose.perturbed(&zero_v, &(-d)), p),
        );
        worst = worst.max(rel(
            w.d_value_d_rotation[a],
            (ep.value - em.value) / (2.0 * H),
            scale,
        ));
        for i in 0..S::DIM {
            let fd = (ep.gradient[i] - em.gradient[i]) / (2.0 * H);
            worst = worst.max(rel(w.d_gradient_d_rotation[(i, a)], fd, scale));
        }
    }
    worst
}

/// Checks `f` at the body point `x`, and `f` on a body at `pose` at the world image of `x`;
/// also `f` placed at `placement` inside the body.
fn check_all<S: Space>(
    f: impl ImplicitFn<S> + 'static,
    x: S::Vector,
    pose: Pose<S>,
    placement: Pose<S>,
) -> Result<(), TestCaseError> {
    let eb = body_error(&f, &x);
    prop_assert!(
        eb < BODY_TOL,
        "{}: body-frame derivative error {eb:e}",
        f.name()
    );
    let p = pose.transform_point(&x);
    let ep = pose_error(&f, &pose, &p);
    prop_assert!(ep < POSE_TOL, "{}: pose derivative error {ep:e}", f.name());
    let name = f.name().to_string();
    let placed = Placed::new(f, placement);
    let xb = placement.transform_point(&x);
    let eb = body_error(&placed, &xb);
    prop_assert!(
        eb < BODY_TOL,
        "placed {name}: body-frame derivative error {eb:e}"
    );
    let ep = pose_error(&placed, &pose, &pose.transform_point(&xb));
    prop_assert!(ep < POSE_TOL, "placed {name}: pose derivative error {ep:e}");
    Ok(())
}

fn v2(r: f64) -> impl Strategy<Value = Vector2<f64>> {
    prop::array::uniform2(-r..r).prop_map(Vector2::from)
}
fn v3(r: f64) -> impl Strategy<Value = Vector3<f64>> {
    prop::array::uniform3(-r..r).prop_map(Vector3::from)
}
fn pose2() -> impl Strategy<Value = Pose<Planar>> {
    (v2(2.0), -3.2..3.2f64)
        .prop_map(|(c, t)| Pose::<Planar>::identity().perturbed(&c, &Vector1::new(t)))
}
fn pose3() -> impl Strategy<Value = Pose<Spatial>> {
    (v3(2.0), v3(2.0)).prop_map(|(c, w)| Pose::<Spatial>::identity().perturbed(&c, &w))
}
/// A coordinate `u` with `0.05 ≤ |u| ≤ 1.5` (away from the axes, for `2 < p < 3`).
fn off_axis() -> impl Strategy<Value = f64> {
    (0.05..1.5f64, any::<bool>()).prop_map(|(m, s)| if s { m } else { -m })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn half_plane_derivatives(n in v2(1.0), d in -2.0..2.0f64, x in v2(3.0), pose in pose2(), pl in pose2()) {
        prop_assume!(n.norm() > 0.1);
        check_all(HalfSpace::<Planar>::new(n, d).unwrap(), x, pose, pl)?;
    }

    #[test]
    fn half_space_derivatives(n in v3(1.0), d in -2.0..2.0f64, x in v3(3.0), pose in pose3(), pl in pose3()) {
        prop_assume!(n.norm() > 0.1);
        check_all(HalfSpace::<Spatial>::new(n, d).unwrap(), x, pose, pl)?;
    }

    #[test]
    fn circle_derivatives(r in 0.5..3.0f64, x in v2(3.0), pose in pose2(), pl in pose2()) {
        check_all(Circle::new(r).unwrap(), x, pose, pl)?;
    }

    #[test]
    fn sphere_derivatives(r in 0.5..3.0f64, x in v3(3.0), pose in pose3(), pl in pose3()) {
        check_all(Sphere::new(r).unwrap(), x, pose, pl)?;
    }

    #[test]
    fn ellipse_derivatives(a in prop::array::uniform2(0.5..3.0f64), u in v2(1.5), pose in pose2(), pl in pose2()) {
        let a = Vector2::from(a);
        check_all(Ellipse::new(a).unwrap(), u.component_mul(&a), pose, pl)?;
    }

    #[test]
    fn ellipsoid_derivatives(a in prop::array::uniform3(0.5..3.0f64), u in v3(1.5), pose in pose3(), pl in pose3()) {
        let a = Vector3::from(a);
        check_all(Ellipsoid::<Spatial>::new(a).unwrap(), u.component_mul(&a), pose, pl)?;
    }

    #[test]
    fn superellipse_derivatives(
        a in prop::array::uniform2(0.5..3.0f64), p in 2.0..6.0f64,
        u in prop::array::uniform2(off_axis()), pose in pose2(), pl in pose2(),
    ) {
        let a = Vector2::from(a);
        check_all(Superellipse::new(a, p).unwrap(), Vector2::from(u).component_mul(&a), pose, pl)?;
    }

    #[test]
    fn superellipsoid_derivatives(
        a in prop::array::uniform3(0.5..3.0f64), p in 2.0..6.0f64,
        u in prop::array::uniform3(off_axis()), pose in pose3(), pl in pose3(),
    ) {
        let a = Vector3::from(a);
        check_all(Superellipsoid::<Spatial>::new(a, p).unwrap(), Vector3::from(u).component_mul(&a), pose, pl)?;
    }

    #[test]
    fn cylinder_derivatives(r in 0.5..3.0f64, x in v3(3.0), pose in pose3(), pl in pose3()) {
        check_all(InfiniteCylinder::new(r).unwrap(), x, pose, pl)?;
    }
}

/// The paper's gear tooth (eq. 57, p = 4, semi-axes 2.3 and 1.1) and `p` in `[2, 3)`: on the
/// axes the gradient and Hessian are exact (no finite differences): `|u|^(p−2)` is `1` at
/// `p = 2` and `0` for `p > 2`, and the Hessian is continuous there (checked at `u = ±1e-9`).
#[test]
fn superellipse_is_c2_on_the_axes() {
    for p in [2.0, 2.2, 2.5, 2.999, 3.0, 4.0] {
        let f = Superellipse::new(Vector2::new(2.3, 1.1), p).unwrap();
        let x = Vector2::new(0.0, 0.7);
        let h = f.hessian(&x);
        assert!(h.iter().all(|v| v.is_finite()), "p = {p}: {h}");
        assert_eq!(f.gradient(&x).x, 0.0);
        let expected = if p == 2.0 { 1.1 / (2.3 * 2.3) } else { 0.0 };
        assert!((h[(0, 0)] - expected).abs() < 1e-15, "p = {p}: {h}");
        for eps in [1e-9, -1e-9] {
            let hn = f.hessian(&Vector2::new(eps, 0.7));
            // |1e-9/2.3|^(p−2) ≤ 1e-5 for p ≥ 2.5; for 2.2 it is ≈ 0.013 (continuous, slowly).
            let bound = if p == 2.0 {
                1e-15
            } else {
                (1e-9f64 / 2.3).powf(p - 2.0) * 1.1
            };
            assert!((hn[(0, 0)] - expected).abs() <= bound, "p = {p}: {hn}");
        }
    }
    // At the origin every term vanishes (p > 2) and the value is −m/p.
    let f = Superellipsoid::<Spatial>::new(Vector3::new(1.0, 2.0, 3.0), 2.5).unwrap();
    assert_eq!(f.gradient(&Vector3::zeros()), Vector3::zeros());
    assert!((f.value(&Vector3::zeros()) + 1.0 / 2.5).abs() < 1e-15);
}

/// The curved primitives share one scaling: a superellipsoid with `p = 2` and equal semi-axes,
/// an ellipsoid with equal semi-axes and a ball coincide (to rounding).
#[test]
fn curved_primitives_coincide_for_a_ball() {
    let x = Vector3::new(0.3, -1.2, 0.8);
    let b = Sphere::new(1.7).unwrap().eval(&x);
    let e = Ellipsoid::<Spatial>::new(Vector3::repeat(1.7))
        .unwrap()
        .eval(&x);
    let s = Superellipsoid::<Spatial>::new(Vector3::repeat(1.7), 2.0)
        .unwrap()
        .eval(&x);
    for o in [e, s] {
        assert!((o.value - b.value).abs() < 1e-14);
        assert!((o.gradient - b.gradient).norm() < 1e-14);
        assert!((o.hessian - b.hessian).norm() < 1e-14);
    }
}
