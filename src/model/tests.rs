//! Unit tests of the model: finite-difference checks of the left Jacobian and of the
//! end-of-step pose derivative (alone and chained with the geometry layer), long-run unit
//! quaternions, inertia and gyroscopic identities, the mass matrix, applied impulses, the
//! velocity layout, friction look-up and every validation error.

use super::*;
use crate::geometry::{
    BodyShape, Circle, ConvexPart, Ellipse, Ellipsoid, Planar, Pose, Space, Spatial, Sphere,
    world_eval_with_pose_derivatives,
};
use nalgebra::{Matrix3, Quaternion, UnitComplex, UnitQuaternion, Vector1, Vector2, Vector3};
use std::sync::Arc;

/// A small deterministic generator (64-bit LCG, top 53 bits) so failures reproduce.
struct Lcg(u64);
impl Lcg {
    fn uniform(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn symmetric(&mut self) -> f64 {
        2.0 * self.uniform() - 1.0
    }
    fn unit_vector(&mut self) -> Vector3<f64> {
        loop {
            let v = Vector3::new(self.symmetric(), self.symmetric(), self.symmetric());
            let n = v.norm();
            if n > 0.1 && n <= 1.0 {
                return v / n;
            }
        }
    }
    fn rotation(&mut self) -> UnitQuaternion<f64> {
        UnitQuaternion::from_scaled_axis(self.unit_vector() * (3.0 * self.uniform()))
    }
}

/// The world-frame rotation vector `log(a bᵀ)` taking `b` to `a`.
fn world_increment(a: &UnitQuaternion<f64>, b: &UnitQuaternion<f64>) -> Vector3<f64> {
    (a * b.inverse()).scaled_axis()
}

fn sphere_body(name: &str) -> RigidBody<Spatial> {
    let shape = BodyShape::new(
        name,
        vec![ConvexPart::single("ball", Sphere::new(1.0).unwrap()).unwrap()],
    )
    .unwrap();
    let inertia = Matrix3::from_diagonal(&Vector3::new(0.4, 0.4, 0.4));
    RigidBody::new(name, 1.0, inertia, shape, Pose::identity()).unwrap()
}

fn disc_body(name: &str) -> RigidBody<Planar> {
    let shape = BodyShape::new(
        name,
        vec![ConvexPart::single("disc", Circle::new(1.0).unwrap()).unwrap()],
    )
    .unwrap();
    let pose = Pose::planar(0.0, 1.0, 0.0, name).unwrap();
    RigidBody::new(name, 1.0, 0.5, shape, pose).unwrap()
}

/// An asymmetric top: principal moments 1, 2, 2.5 (triangle inequality holds), rotated.
fn asymmetric_inertia(rng: &mut Lcg) -> Matrix3<f64> {
    let q = rng.rotation().to_rotation_matrix().into_inner();
    q * Matrix3::from_diagonal(&Vector3::new(1.0, 2.0, 2.5)) * q.transpose()
}

/// Rotation-vector magnitudes covering both branches of `J_l`, the threshold, and `π`.
const ANGLES: [f64; 10] = [
    0.0,
    1e-9,
    1e-5,
    5e-3,
    dynamics::SMALL_ANGLE,
    0.3,
    1.0,
    2.5,
    std::f64::consts::PI - 1e-3,
    std::f64::consts::PI - 1e-7,
];

/// `J_l(φ) δφ` is the world-frame increment of `exp(φ + δφ)` relative to `exp(φ)`, checked
/// column by column by central differences at random directions for every magnitude in
/// `ANGLES`. Tolerance 1e-8: with `ε = 1e-6` the truncation error is `O(ε²) ≈ 1e-12` and the
/// rounding error of the quaternion product and logarithm `≈ 1e-16/ε = 1e-10`.
#[test]
fn left_jacobian_matches_finite_differences_of_exp() {
    let mut rng = Lcg(7);
    let eps = 1e-6;
    for &theta in &ANGLES {
        for _ in 0..4 {
            let phi = rng.unit_vector() * theta;
            let j = left_jacobian_so3(&phi);
            let base = Spatial::exp(&phi);
            for k in 0..3 {
                let e = Vector3::ith(k, eps);
                let fd = (world_increment(&Spatial::exp(&(phi + e)), &base)
                    - world_increment(&Spatial::exp(&(phi - e)), &base))
                    / (2.0 * eps);
                let err = (fd - j.column(k)).norm();
                assert!(err < 1e-8, "|φ| = {theta}, column {k}: error {err:e}");
            }
        }
    }
}

/// The series branch and the closed form agree at the switch-over angle to rounding level
/// (1e-15: both are accurate to `≈ 2·10⁻¹⁶` there, see `left_jacobian_so3`; the two angles
/// differ by `2·10⁻¹⁵` relative, more than the rounding of `‖φ‖`, so each side takes its own
/// branch, while `J_l` changes by only `≈ ½ |δφ| = 10⁻¹⁷` between them), and `J_l(0) = I`.
#[test]
fn left_jacobian_branches_agree_at_the_threshold() {
    let mut rng = Lcg(11);
    for _ in 0..10 {
        let axis = rng.unit_vector();
        let below = left_jacobian_so3(&(axis * dynamics::SMALL_ANGLE * (1.0 - 1e-15)));
        let above = left_jacobian_so3(&(axis * dynamics::SMALL_ANGLE * (1.0 + 1e-15)));
        assert!(
            (below - above).amax() < 1e-15,
            "{:e}",
            (below - above).amax()
        );
    }
    assert_eq!(left_jacobian_so3(&Vector3::zeros()), Matrix3::identity());
}

/// The end-of-step pose derivative: translation `h I` and rotation `h J_l(h ω)`, against central
/// differences of `end_of_step_pose` in every component of `(v, ω)`, random start pose, random
/// `ω` with `h |ω|` over the magnitudes of `ANGLES` (so `exp(h(ω+δω)) R` vs `exp(h ω) R`).
/// Tolerance 1e-9 on increments of size `h`: as above, rounding `≈ 1e-16/ε` with `ε = 1e-6`,
/// times `h ≤ 1`.
#[test]
fn end_of_step_pose_derivative_matches_finite_differences() {
    let mut rng = Lcg(3);
    let eps = 1e-6;
    for &h in &[0.01, 0.5] {
        for &angle in &ANGLES {
            let pose = Pose::<Spatial> {
                position: Vector3::new(rng.symmetric(), rng.symmetric(), rng.symmetric()),
                rotation: rng.rotation(),
            };
            let twist = Twist::<Spatial>::new(
                Vector3::new(rng.symmetric(), rng.symmetric(), rng.symmetric()),
                rng.unit_vector() * (angle / h),
            );
            let jac = end_of_step_jacobian(&twist, h);
            assert_eq!(jac.d_position_d_velocity, h);
            for k in 0..3 {
                let e = Vector3::ith(k, eps);
                let plus = Twist::new(twist.linear + e, twist.angular);
                let minus = Twist::new(twist.linear - e, twist.angular);
                let (pp, pm) = (
                    end_of_step_pose(&pose, &plus, h),
                    end_of_step_pose(&pose, &minus, h),
                );
                let dc = (pp.position - pm.position) / (2.0 * eps);
                assert!((dc - Vector3::ith(k, h)).norm() < 1e-9, "∂c⁺/∂v_{k}: {dc}");
                assert!(world_increment(&pp.rotation, &pm.rotation).norm() < 1e-15);

                let plus = Twist::new(twist.linear, twist.angular + e);
                let minus = Twist::new(twist.linear, twist.angular - e);
                let (pp, pm) = (
                    end_of_step_pose(&pose, &plus, h),
                    end_of_step_pose(&pose, &minus, h),
                );
                let base = end_of_step_pose(&pose, &twist, h);
                let fd = (world_increment(&pp.rotation, &base.rotation)
                    - world_increment(&pm.rotation, &base.rotation))
                    / (2.0 * eps);
                let err = (fd - jac.d_rotation_d_angular_velocity.column(k)).norm();
                assert!(err < 1e-9, "h = {h}, h|ω| = {angle}, ω_{k}: error {err:e}");
                assert!((pp.position - pm.position).norm() == 0.0);
            }
        }
    }
}

/// The planar step is `θ⁺ = θ + h ω` with derivative `h` (exact up to the angle wrap; 1e-14
/// for the rounding of `atan2` of the unit complex number).
#[test]
fn planar_end_of_step_pose_is_theta_plus_h_omega() {
    let pose = Pose::<Planar>::planar(0.5, -1.0, 0.3, "disc").unwrap();
    let twist = Twist::<Planar>::new(Vector2::new(-3.0, 1.0), Vector1::new(3.0));
    let h = 0.01;
    let next = end_of_step_pose(&pose, &twist, h);
    assert!((next.angle() - 0.33).abs() < 1e-14);
    assert!((next.position - Vector2::new(0.47, -0.99)).norm() < 1e-14);
    let jac = end_of_step_jacobian(&twist, h);
    assert_eq!(jac.d_position_d_velocity, h);
    assert_eq!(jac.d_rotation_d_angular_velocity[(0, 0)], h);
}

/// The chain rule with the geometry layer: value and gradient of a body-frame ellipsoid at a
/// fixed world point, evaluated at the end-of-step pose, differentiated with respect to the
/// twist by central differences and by `chain_gradient`/`chain_jacobian` on the pose
/// derivatives of `world_eval_with_pose_derivatives`. Tolerance 1e-7 relative to the size of
/// the derivative: `ε = 1e-6`, the Hessian varies on the scale of the semi-axes (≈ 1), so the
/// truncation is `≈ 1e-12` and the rounding `≈ 1e-16/ε`.
#[test]
fn end_of_step_jacobian_chains_with_pose_derivatives() {
    let mut rng = Lcg(5);
    let f3 = Ellipsoid::<Spatial>::new(Vector3::new(1.0, 0.7, 1.4)).unwrap();
    let h = 0.1;
    let eps = 1e-6;
    for _ in 0..5 {
        let pose = Pose::<Spatial> {
            position: Vector3::new(rng.symmetric(), rng.symmetric(), rng.symmetric()),
            rotation: rng.rotation(),
        };
        let twist = Twist::<Spatial>::new(
            Vector3::new(rng.symmetric(), rng.symmetric(), rng.symmetric()) * 3.0,
            rng.unit_vector() * 20.0,
        );
        let p = Vector3::new(rng.symmetric(), rng.symmetric(), rng.symmetric()) * 2.0;
        let at = |t: &Twist<Spatial>| {
            world_eval_with_pose_derivatives(&f3, &end_of_step_pose(&pose, t, h), &p)
        };
        let e0 = at(&twist);
        let jac = end_of_step_jacobian(&twist, h);
        let grad = jac.chain_gradient(&e0.d_value_d_translation, &e0.d_value_d_rotation);
        let (dg_dv, dg_dw) =
            jac.chain_jacobian(&e0.d_gradient_d_translation, &e0.d_gradient_d_rotation);
        let mut nu = [0.0; 6];
        twist.write_to(&mut nu);
        let mut g_nu = [0.0; 6];
        grad.write_to(&mut g_nu);
        for k in 0..6 {
            let (mut a, mut b) = (nu, nu);
            a[k] += eps;
            b[k] -= eps;
            let (ea, eb) = (at(&Twist::from_slice(&a)), at(&Twist::from_slice(&b)));
            let fd = (ea.value - eb.value) / (2.0 * eps);
            let scale = 1.0 + g_nu[k].abs();
            assert!(
                (fd - g_nu[k]).abs() < 1e-7 * scale,
                "∂f/∂ν_{k}: {fd} vs {}",
                g_nu[k]
            );
            let fd_g = (ea.gradient - eb.gradient) / (2.0 * eps);
            let an = if k < 3 {
                dg_dv.column(k)
            } else {
                dg_dw.column(k - 3)
            };
            let scale = 1.0 + an.norm();
            assert!(
                (fd_g - an).norm() < 1e-7 * scale,
                "∂∇f/∂ν_{k}: {fd_g} vs {an}"
            );
        }
    }

    // 2D: an ellipse, `ν = (v_x, v_y, ω)`.
    let f2 = Ellipse::new(Vector2::new(1.0, 0.5)).unwrap();
    let pose = Pose::<Planar>::planar(0.2, 0.4, 0.9, "e").unwrap();
    let twist = Twist::<Planar>::new(Vector2::new(-2.0, 1.0), Vector1::new(7.0));
    let p = Vector2::new(0.9, -0.3);
    let at = |t: &Twist<Planar>| {
        world_eval_with_pose_derivatives(&f2, &end_of_step_pose(&pose, t, h), &p)
    };
    let e0 = at(&twist);
    let jac = end_of_step_jacobian(&twist, h);
    let grad = jac.chain_gradient(&e0.d_value_d_translation, &e0.d_value_d_rotation);
    let mut g_nu = [0.0; 3];
    grad.write_to(&mut g_nu);
    let mut nu = [0.0; 3];
    twist.write_to(&mut nu);
    for k in 0..3 {
        let (mut a, mut b) = (nu, nu);
        a[k] += eps;
        b[k] -= eps;
        let fd =
            (at(&Twist::from_slice(&a)).value - at(&Twist::from_slice(&b)).value) / (2.0 * eps);
        assert!(
            (fd - g_nu[k]).abs() < 1e-7 * (1.0 + g_nu[k].abs()),
            "2D ∂f/∂ν_{k}"
        );
    }
}

/// 10⁵ steps with `|ω| ≈ 81 rad/s` and `h = 0.01` (0.81 rad per step): the quaternion stays
/// unit to 1e-15 after every step (renormalised each step: one rounding of the norm,
/// `≈ 2·10⁻¹⁶`), and, since `ω` is constant (all increments share one axis), the orientation
/// matches `exp(N h ω) R₀` to 1e-9 rad (rounding of the `N` products, `≲ N·10⁻¹⁶ = 10⁻¹¹`, and
/// of the angle `N h |ω| ≈ 8·10⁴` rad reduced mod 2π, `≈ 10⁻¹¹`).
#[test]
fn quaternion_stays_unit_over_long_runs() {
    let mut body = sphere_body("top");
    let omega = Vector3::new(30.0, -45.0, 60.0);
    body.pose.rotation = Lcg(9).rotation();
    let r0 = body.pose.rotation;
    let twist = Twist::<Spatial>::new(Vector3::new(1.0, 0.0, 0.0), omega);
    let (h, n) = (0.01, 100_000);
    let mut worst: f64 = 0.0;
    for _ in 0..n {
        body.advance(&twist, h);
        worst = worst.max((body.pose.rotation.quaternion().norm() - 1.0).abs());
    }
    assert!(worst < 1e-15, "worst |‖q‖ − 1| = {worst:e}");
    let expected = Spatial::exp(&(omega * (h * n as f64))) * r0;
    let err = body.pose.rotation.angle_to(&expected);
    assert!(err < 1e-9, "orientation error {err:e} rad");
    assert!(body.pose.validate("top").is_ok());

    let mut disc = disc_body("disc");
    let twist = Twist::<Planar>::new(Vector2::zeros(), Vector1::new(81.0));
    for _ in 0..n {
        disc.advance(&twist, h);
    }
    assert!((disc.pose.rotation.complex().norm() - 1.0).abs() < 1e-15);
    let expected = UnitComplex::new(81.0 * h * n as f64);
    assert!(disc.pose.rotation.angle_to(&expected).abs() < 1e-9);
}

/// `I_w = R I_b Rᵀ` is symmetric (exactly: it is symmetrised), has the body's principal moments
/// (1e-12 relative: eigen-solver rounding), gives the kinetic energy `½ ω_bᵀ I_b ω_b` with
/// `ω_b = Rᵀ ω` (1e-12 relative: a few roundings), and the gyroscopic torque does no work,
/// `ω · (ω × I_w ω) = 0` (to 1e-14 of `|ω|² |I_w ω|`: the rounding of one cross product).
/// Exact kinetic-energy conservation of a torque-free asymmetric top does not hold for this
/// scheme (gyroscopic impulse explicit at `ℓ`), so it is not asserted.
#[test]
fn world_inertia_and_gyroscopic_term() {
    let mut rng = Lcg(21);
    for _ in 0..20 {
        let mut body = sphere_body("top");
        body.inertia = asymmetric_inertia(&mut rng);
        body.pose.rotation = rng.rotation();
        body.twist = Twist::new(Vector3::zeros(), rng.unit_vector() * 10.0);
        assert!(body.validate().is_ok());
        let iw = body.world_inertia();
        assert_eq!(iw, iw.transpose());
        let mut moments: Vec<f64> = iw.symmetric_eigenvalues().iter().copied().collect();
        moments.sort_by(f64::total_cmp);
        for (m, e) in moments.iter().zip([1.0, 2.0, 2.5]) {
            assert!((m - e).abs() < 1e-12 * e, "{moments:?}");
        }
        let w = body.twist.angular;
        let wb = body.pose.rotation.inverse_transform_vector(&w);
        let ke_body = 0.5 * wb.dot(&(body.inertia * wb));
        assert!((body.kinetic_energy() - ke_body).abs() < 1e-12 * ke_body);
        let gyro = body.gyroscopic_impulse(0.01);
        let scale = w.norm_squared() * (iw * w).norm() * 0.01;
        assert!(w.dot(&gyro).abs() < 1e-14 * scale, "{:e}", w.dot(&gyro));
        assert!(gyro.norm() > 1e-3 * scale, "asymmetric top: nonzero term");
    }
    // 2D: no gyroscopic term.
    let mut disc = disc_body("disc");
    disc.twist.angular = Vector1::new(5.0);
    assert_eq!(disc.gyroscopic_impulse(0.01), Vector1::zeros());
}

/// The derivative of the gyroscopic torque (used by the implicit and midpoint gyroscopic
/// impulses) against central differences: 1e-7 relative to `|I_w| |ω|`, the truncation error of
/// a step of 1e-6 on a quadratic map is zero, so what remains is rounding (1e-16 / 1e-6 · 10).
#[test]
fn gyroscopic_jacobian_matches_central_differences() {
    let mut rng = Lcg(33);
    for _ in 0..20 {
        let mut body = sphere_body("top");
        body.inertia = asymmetric_inertia(&mut rng);
        body.pose.rotation = rng.rotation();
        let iw = body.world_inertia();
        let w = rng.unit_vector() * 7.0;
        let jac = Spatial::gyroscopic_jacobian(&w, &iw);
        let d = 1e-6;
        for j in 0..3 {
            let mut e = Vector3::zeros();
            e[j] = d;
            let fd = (Spatial::gyroscopic_torque(&(w + e), &iw)
                - Spatial::gyroscopic_torque(&(w - e), &iw))
                / (2.0 * d);
            for i in 0..3 {
                assert!(
                    (fd[i] - jac[(i, j)]).abs() < 1e-7 * iw.norm() * w.norm(),
                    "({i}, {j}): {} vs {}",
                    fd[i],
                    jac[(i, j)]
                );
            }
        }
    }
}

/// The mass matrix is `diag(m I, I_w)`, `M ν` agrees with `apply_mass_matrix`, and
/// `½ νᵀ M ν` is the kinetic energy (1e-13 relative: sums of a few products).
#[test]
fn mass_matrix_and_kinetic_energy_agree() {
    let mut rng = Lcg(2);
    let mut body = sphere_body("b");
    body.mass = 3.0;
    body.inertia = asymmetric_inertia(&mut rng);
    body.pose.rotation = rng.rotation();
    body.twist = Twist::new(Vector3::new(1.0, -2.0, 0.5), Vector3::new(0.3, 4.0, -1.0));
    let m = body.mass_matrix();
    let mut nu = nalgebra::DVector::zeros(6);
    body.twist.write_to(nu.as_mut_slice());
    let mut mnu = nalgebra::DVector::zeros(6);
    body.apply_mass_matrix(&body.twist)
        .write_to(mnu.as_mut_slice());
    assert!((&m * &nu - &mnu).amax() < 1e-13);
    let ke = 0.5 * nu.dot(&(&m * &nu));
    assert!((ke - body.kinetic_energy()).abs() < 1e-13 * ke);
    assert_eq!(m.view((0, 0), (3, 3)), Matrix3::identity() * 3.0);
    assert_eq!(m.view((0, 3), (3, 3)), Matrix3::zeros());

    let disc = disc_body("disc");
    let m = disc.mass_matrix();
    assert_eq!(
        m,
        nalgebra::DMatrix::from_diagonal(&nalgebra::DVector::from_vec(vec![1.0, 1.0, 0.5]))
    );
}

/// The free momentum `M ν + h(m g + F_ext + F_c(t)) + h(τ_ext + τ_c(t))` (paper §6.1: `p_app
/// = (0, −m g h, 0)`), the controller seeing `t` and the start-of-step state, and the
/// energies `½ m v² + ½ I ω²` and `−m g·c`. Exact arithmetic on these small numbers up to
/// 1e-14.
#[test]
fn applied_impulses_controller_and_energies() {
    let g = Vector2::new(0.0, -9.81);
    let h = 0.01;
    let disc = disc_body("disc")
        .with_twist(Twist::new(Vector2::new(-3.0, 0.0), Vector1::new(3.0)))
        .unwrap();
    let p = disc.applied_impulse(&g, 0.0, h);
    assert!((p.force - Vector2::new(0.0, -9.81 * h)).norm() < 1e-15);
    let free = disc.free_momentum(&g, 0.0, h);
    assert!((free.force - Vector2::new(-3.0, -9.81 * h)).norm() < 1e-14);
    assert!((free.torque[0] - 1.5).abs() < 1e-14);
    assert!((disc.kinetic_energy() - (4.5 + 2.25)).abs() < 1e-14);
    assert!((disc.potential_energy(&g) - 9.81).abs() < 1e-14);

    let controlled = disc_body("disc")
        .with_external_wrench(Wrench::new(Vector2::new(1.0, 0.0), Vector1::new(0.5)))
        .unwrap()
        .with_controller(Arc::new(|t, s: &BodyState<Planar>| {
            Wrench::new(Vector2::new(t, s.pose.position.y), Vector1::new(-t))
        }));
    let p = controlled.applied_impulse(&g, 2.0, h);
    assert!((p.force - Vector2::new(3.0, 1.0 - 9.81) * h).norm() < 1e-14);
    assert!((p.torque[0] - (-1.5) * h).abs() < 1e-15);

    let ground =
        RigidBody::<Planar>::fixed("ground", disc.shape.clone(), Pose::identity()).unwrap();
    assert_eq!(ground.free_momentum(&g, 0.0, h), Wrench::zero());
    assert_eq!(ground.kinetic_energy() + ground.potential_energy(&g), 0.0);
}

/// Moving bodies get `DOF` consecutive entries of `ν` in scene order, fixed ones none; the
/// global vector round-trips through `velocities`/`advance`; friction precedence is pair,
/// then body defaults (geometric mean), then the scene default; `⌈T/h⌉` steps.
#[test]
fn scene_layout_friction_and_advance() {
    let shape = sphere_body("x").shape;
    let fixed = |n: &str| RigidBody::<Spatial>::fixed(n, shape.clone(), Pose::identity()).unwrap();
    let scene = Scene::new(
        "s",
        Vector3::new(0.0, 0.0, -9.81),
        Friction::coulomb(0.5),
        0.01,
        5.0,
    )
    .unwrap()
    .with_body(fixed("ground"))
    .unwrap()
    .with_body(
        sphere_body("a")
            .with_friction(Friction::coulomb(0.2))
            .unwrap(),
    )
    .unwrap()
    .with_body(fixed("wall").with_friction(Friction::coulomb(0.8)).unwrap())
    .unwrap()
    .with_body(sphere_body("c"))
    .unwrap()
    .with_pair_friction("c", "ground", Friction::elliptic(0.3, 1.0, 1.0, 0.3))
    .unwrap();
    let layout = scene.velocity_layout();
    assert_eq!(
        (0..4).map(|i| layout.offset(i)).collect::<Vec<_>>(),
        vec![None, Some(0), None, Some(6)]
    );
    assert_eq!(layout.range(3), Some(6..12));
    assert_eq!(layout.len(), 12);
    assert_eq!(scene.velocity_count(), 12);
    assert_eq!(
        (0..4).map(|i| scene.velocity_offset(i)).collect::<Vec<_>>(),
        vec![None, Some(0), None, Some(6)]
    );
    assert_eq!(scene.step_count(), 500);

    assert_eq!(scene.friction_between(3, 0).e_r, 0.3);
    assert_eq!(scene.friction_between(0, 3).mu, 0.3);
    assert!((scene.friction_between(1, 2).mu - 0.4).abs() < 1e-15);
    assert_eq!(scene.friction_between(1, 0).mu, 0.2);
    assert_eq!(scene.friction_between(3, 2).mu, 0.8);
    let mut s2 = scene.clone();
    s2.bodies[2].friction = None;
    assert_eq!(s2.friction_between(3, 2).mu, 0.5);

    let mut scene = scene;
    let nu: Vec<f64> = (0..12).map(|i| i as f64 * 0.1).collect();
    scene.advance(&nu);
    assert_eq!(scene.velocities(), nu);
    assert_eq!(
        scene.twist_in(&nu, 3).linear,
        Vector3::new(nu[6], nu[7], nu[8])
    );
    assert_eq!(scene.twist_in(&nu, 2), Twist::zero());
    assert!((scene.bodies[3].pose.position - Vector3::new(0.006, 0.007, 0.008)).norm() < 1e-15);
    assert_eq!(scene.bodies[0].pose, Pose::identity());
    assert!(scene.validate().is_ok());

    let short = Scene::<Planar>::new("t", Vector2::zeros(), Friction::coulomb(0.0), 0.3, 1.0);
    assert_eq!(short.unwrap().step_count(), 4);
}

fn assert_body_error(e: ModelError, body: &str, field: &str) {
    match &e {
        ModelError::InvalidBody {
            body: b, field: f, ..
        } => {
            assert_eq!((b.as_str(), f.as_str()), (body, field), "{e}")
        }
        other => panic!("expected InvalidBody({body}, {field}), got {other}"),
    }
    let msg = e.to_string();
    assert!(msg.contains(body) && msg.contains(field), "{msg}");
}

/// Every body-level validation names the body and the field.
#[test]
fn body_validation_names_body_and_field() {
    let shape = sphere_body("x").shape;
    let ok = Matrix3::identity() * 0.4;
    let new =
        |m: f64, i: Matrix3<f64>| RigidBody::new("ball", m, i, shape.clone(), Pose::identity());
    for m in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert_body_error(new(m, ok).unwrap_err(), "ball", "mass");
    }
    let mut asym = ok;
    asym[(0, 1)] = 0.1;
    let indefinite = Matrix3::from_diagonal(&Vector3::new(1.0, -1.0, 1.0));
    let unrealizable = Matrix3::from_diagonal(&Vector3::new(1.0, 1.0, 3.0));
    let mut nan = ok;
    nan[(2, 2)] = f64::NAN;
    for (i, words) in [
        (asym, "symmetric"),
        (indefinite, "positive-definite"),
        (unrealizable, "triangle"),
        (nan, "finite"),
    ] {
        let e = new(1.0, i).unwrap_err();
        assert!(e.to_string().contains(words), "{e}");
        assert_body_error(e, "ball", "inertia");
    }
    let disc_shape = disc_body("d").shape;
    for i in [0.0, -0.5, f64::NAN] {
        let e = RigidBody::<Planar>::new("disc", 1.0, i, disc_shape.clone(), Pose::identity());
        assert_body_error(e.unwrap_err(), "disc", "inertia");
    }

    let pose = Pose::<Spatial>::from_translation(Vector3::new(0.0, f64::NAN, 0.0));
    let e = RigidBody::new("ball", 1.0, ok, shape.clone(), pose).unwrap_err();
    assert_body_error(e, "ball", "pose.position");
    let pose = Pose::<Spatial> {
        position: Vector3::zeros(),
        rotation: UnitQuaternion::new_unchecked(Quaternion::new(1.0, 0.1, 0.0, 0.0)),
    };
    let e = RigidBody::new("ball", 1.0, ok, shape.clone(), pose).unwrap_err();
    assert!(e.to_string().contains("norm"), "{e}");
    assert_body_error(e, "ball", "pose.rotation");

    let ball = sphere_body("ball");
    let bad = Twist::new(Vector3::new(f64::NAN, 0.0, 0.0), Vector3::zeros());
    assert_body_error(
        ball.clone().with_twist(bad).unwrap_err(),
        "ball",
        "twist.linear",
    );
    let bad = Twist::new(Vector3::zeros(), Vector3::new(0.0, f64::INFINITY, 0.0));
    assert_body_error(
        ball.clone().with_twist(bad).unwrap_err(),
        "ball",
        "twist.angular",
    );
    let bad = Wrench::new(Vector3::new(f64::NAN, 0.0, 0.0), Vector3::zeros());
    assert_body_error(
        ball.clone().with_external_wrench(bad).unwrap_err(),
        "ball",
        "external_wrench.force",
    );
    let bad = Wrench::new(Vector3::zeros(), Vector3::new(f64::NAN, 0.0, 0.0));
    assert_body_error(
        ball.clone().with_external_wrench(bad).unwrap_err(),
        "ball",
        "external_wrench.torque",
    );
    let wall = RigidBody::<Spatial>::fixed("wall", shape.clone(), Pose::identity()).unwrap();
    let moving = Twist::new(Vector3::x(), Vector3::zeros());
    assert_body_error(wall.with_twist(moving).unwrap_err(), "wall", "twist");
    // A fixed body's mass and inertia are not used, so not checked.
    let mut wall = RigidBody::<Spatial>::fixed("wall", shape.clone(), Pose::identity()).unwrap();
    wall.mass = f64::NAN;
    assert!(wall.validate().is_ok());

    let mut unnamed = sphere_body("x");
    unnamed.name = " ".into();
    assert_body_error(unnamed.validate().unwrap_err(), " ", "name");

    for (f, field) in [
        (Friction::coulomb(-0.1), "mu"),
        (Friction::coulomb(f64::NAN), "mu"),
        (Friction::elliptic(0.2, 0.0, 1.0, 1.0), "e_t"),
        (Friction::elliptic(0.2, 1.0, -1.0, 1.0), "e_o"),
        (Friction::elliptic(0.2, 1.0, 1.0, f64::NAN), "e_r"),
    ] {
        let e = ball.clone().with_friction(f).unwrap_err();
        assert!(
            matches!(&e, ModelError::InvalidFriction { owner, field: fl, .. }
                if owner.contains("`ball`") && fl == field),
            "{e}"
        );
    }
}

fn assert_scene_error(e: ModelError, field: &str) {
    match &e {
        ModelError::InvalidScene {
            scene, field: f, ..
        } => {
            assert_eq!((scene.as_str(), f.as_str()), ("s", field), "{e}")
        }
        other => panic!("expected InvalidScene({field}), got {other}"),
    }
}

/// Every scene-level validation names the scene (or body) and the field.
#[test]
fn scene_validation_names_item_and_field() {
    let g = Vector3::new(0.0, 0.0, -9.81);
    let f = Friction::coulomb(0.2);
    let new = |g: Vector3<f64>, f: Friction, h: f64, t: f64| Scene::<Spatial>::new("s", g, f, h, t);
    for h in [0.0, -0.01, f64::NAN, f64::INFINITY] {
        assert_scene_error(new(g, f, h, 1.0).unwrap_err(), "time_step");
    }
    for t in [-1.0, f64::NAN] {
        assert_scene_error(new(g, f, 0.01, t).unwrap_err(), "duration");
    }
    assert_scene_error(
        new(Vector3::new(f64::NAN, 0.0, 0.0), f, 0.01, 1.0).unwrap_err(),
        "gravity",
    );
    let e = new(g, Friction::coulomb(-1.0), 0.01, 1.0).unwrap_err();
    assert!(
        matches!(&e, ModelError::InvalidFriction { owner, field, .. }
        if owner == "the scene default" && field == "mu"),
        "{e}"
    );

    let scene = new(g, f, 0.01, 1.0)
        .unwrap()
        .with_body(sphere_body("a"))
        .unwrap();
    let e = scene.clone().with_body(sphere_body("a")).unwrap_err();
    assert_eq!(e, ModelError::DuplicateBody { body: "a".into() });
    assert!(e.to_string().contains("`a`"));
    let e = scene.clone().with_pair_friction("a", "b", f).unwrap_err();
    assert_scene_error(e, "pair_friction[0].body2");
    let e = scene.clone().with_pair_friction("a", "a", f).unwrap_err();
    assert_scene_error(e, "pair_friction[0]");
    let two = scene.clone().with_body(sphere_body("b")).unwrap();
    let e = two
        .clone()
        .with_pair_friction("a", "b", Friction::coulomb(f64::INFINITY))
        .unwrap_err();
    assert!(
        matches!(&e, ModelError::InvalidFriction { owner, field, .. }
        if owner == "pair (`a`, `b`)" && field == "mu"),
        "{e}"
    );
    let e = two
        .clone()
        .with_pair_friction("a", "b", f)
        .unwrap()
        .with_pair_friction("b", "a", f)
        .unwrap_err();
    assert_scene_error(e, "pair_friction[1]");

    // `validate` re-checks bodies edited through the public fields.
    let mut edited = two;
    edited.bodies[1].mass = -2.0;
    assert_body_error(edited.validate().unwrap_err(), "b", "mass");
    edited.bodies[1].mass = 1.0;
    edited.bodies[1].name = "a".into();
    assert_eq!(
        edited.validate().unwrap_err(),
        ModelError::DuplicateBody { body: "a".into() }
    );
}

/// `Twist`/`Wrench` slices are `(v, ω)` / `(F, τ)` in that order, `D + A` entries.
#[test]
fn twist_and_wrench_slices() {
    let t = Twist::<Planar>::from_slice(&[1.0, 2.0, 3.0]);
    assert_eq!(t.linear, Vector2::new(1.0, 2.0));
    assert_eq!(t.angular, Vector1::new(3.0));
    let mut out = [0.0; 6];
    Wrench::<Spatial>::new(Vector3::new(1.0, 2.0, 3.0), Vector3::new(4.0, 5.0, 6.0))
        .write_to(&mut out);
    assert_eq!(out, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    assert_eq!(<Planar as Space>::DOF, 3);
}

/// A force at a point and the velocity of that point are dual: `(F, r × F) · (v, ω) =
/// F · (v + ω × r)` in 2D and 3D (1e-13: sums of a few products of O(1) numbers).
#[test]
fn point_velocity_and_force_at_a_point_are_dual() {
    let mut rng = Lcg(17);
    for _ in 0..10 {
        let v = |rng: &mut Lcg| Vector3::new(rng.symmetric(), rng.symmetric(), rng.symmetric());
        let (lin, ang, r, f) = (v(&mut rng), v(&mut rng), v(&mut rng), v(&mut rng));
        let t = Twist::<Spatial>::new(lin, ang);
        let w = Wrench::<Spatial>::from_force_at(f, &r);
        let power = w.force.dot(&t.linear) + w.torque.dot(&t.angular);
        assert!((power - f.dot(&t.point_velocity(&r))).abs() < 1e-13);
        assert!((t.point_velocity(&r) - (lin + ang.cross(&r))).norm() < 1e-15);

        let t2 = Twist::<Planar>::new(lin.xy(), Vector1::new(ang.z));
        let w2 = Wrench::<Planar>::from_force_at(f.xy(), &r.xy());
        let power2 = w2.force.dot(&t2.linear) + w2.torque[0] * t2.angular[0];
        assert!((power2 - f.xy().dot(&t2.point_velocity(&r.xy()))).abs() < 1e-13);
    }
}
