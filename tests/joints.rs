//! Bilateral joints in the step's MCP against closed forms and an independent integration.

use implicit_contact::geometry::{BodyShape, ConvexPart, Planar, Pose, Spatial};
use implicit_contact::model::{
    Actuator, Dynamics, Friction, Integrator, Joint, JointKind, RigidBody, Scene, Twist,
};
use implicit_contact::stepper::{ImplicitStepper, StepperSettings};
use nalgebra::{Matrix3, UnitQuaternion, Vector1, Vector2, Vector3};

mod common;
use common::{example_planar, example_spatial};

const G: f64 = 9.81;

/// A planar rectangle `length × width` of mass `m` (uniform: `I = m (l² + w²) / 12`) centred
/// at `(x, y)`, turned by `theta`.
fn rod(
    name: &str,
    length: f64,
    width: f64,
    m: f64,
    x: f64,
    y: f64,
    theta: f64,
) -> RigidBody<Planar> {
    let part = ConvexPart::<Planar>::cuboid(Vector2::new(0.5 * length, 0.5 * width)).unwrap();
    let shape = BodyShape::new(name, vec![part]).unwrap();
    let inertia = m * (length * length + width * width) / 12.0;
    RigidBody::new(
        name,
        m,
        inertia,
        shape,
        Pose::planar(x, y, theta, name).unwrap(),
    )
    .unwrap()
}

/// The spatial box `l × w × w` of mass `m` along `x`, centred at `centre`, turned by `rotation`.
fn rod3(name: &str, length: f64, width: f64, m: f64, centre: Vector3<f64>) -> RigidBody<Spatial> {
    let half = Vector3::new(0.5 * length, 0.5 * width, 0.5 * width);
    let part = ConvexPart::<Spatial>::cuboid(half).unwrap();
    let shape = BodyShape::new(name, vec![part]).unwrap();
    let (l2, w2) = (length * length, width * width);
    let inertia = Matrix3::from_diagonal(&Vector3::new(2.0 * w2, l2 + w2, l2 + w2)) * (m / 12.0);
    let pose = Pose::<Spatial> {
        position: centre,
        rotation: UnitQuaternion::identity(),
    };
    RigidBody::new(name, m, inertia, shape, pose).unwrap()
}

fn planar_scene(name: &str, h: f64, duration: f64) -> Scene<Planar> {
    Scene::new(
        name,
        Vector2::new(0.0, -G),
        Friction::coulomb(0.0),
        h,
        duration,
    )
    .unwrap()
}

fn joint<S: Dynamics>(
    scene: &Scene<S>,
    kind: JointKind,
    body1: Option<&str>,
    body2: &str,
    anchor: S::Vector,
    axis: S::Vector,
) -> Joint<S> {
    let index = |name: &str| scene.body_index(name).unwrap();
    Joint::new(
        &scene.name,
        scene.joints.len(),
        &format!("joint{}", scene.joints.len()),
        kind,
        body1.map(index),
        index(body2),
        anchor,
        axis,
        &scene.bodies,
    )
    .unwrap()
}

fn stepper<S: Dynamics>(scene: Scene<S>, integrator: Integrator) -> ImplicitStepper<S> {
    let settings = StepperSettings {
        integrator,
        ..StepperSettings::default()
    };
    ImplicitStepper::new(scene, settings).unwrap()
}

fn angle(pose: &Pose<Planar>) -> f64 {
    pose.rotation.angle()
}

/// A rod of length `L` pinned at its upper end to the world, released at `θ₀` from the
/// vertical (`examples/pendulum_2d.toml`): its small-oscillation period is `2π √(I_p / (m g L/2))` with the pivot's inertia
/// `I_p = m (L² + w²)/12 + m L²/4`, lengthened by the amplitude's series `1 + θ₀²/16 +
/// 11 θ₀⁴/3072`. Backward Euler's phase error is `(ω h)²/3` of the period (`ω h` = 4e-3 here:
/// 5e-6), its damping does not change the period to first order; the zero crossings are
/// interpolated linearly (`O(h²)`). So 1e-5 relative (measured 1.5e-6); the pin's drift stays
/// within the solve's tolerance.
#[test]
fn a_pinned_rod_swings_with_the_compound_pendulums_period() {
    let (length, width, m, theta0, h): (f64, f64, f64, f64, f64) = (1.0, 0.05, 2.0, 0.05, 1e-3);
    // examples/pendulum_2d.toml: the rod hangs θ₀ from the vertical.
    let scene = example_planar("pendulum_2d");
    assert_eq!((scene.bodies[0].mass, scene.time_step), (m, h));
    let mut stepper = stepper(scene, Integrator::Euler);
    let inertia = m * (length * length + width * width) / 12.0 + m * 0.25 * length * length;
    let t0 = 2.0 * std::f64::consts::PI * (inertia / (m * G * 0.5 * length)).sqrt();
    let expected = t0 * (1.0 + theta0 * theta0 / 16.0 + 11.0 * theta0.powi(4) / 3072.0);
    let mut crossings = Vec::new();
    let mut previous = theta0;
    let mut drift = 0.0f64;
    for k in 1..=stepper.scene.step_count() {
        let report = stepper.step();
        assert!(report.converged, "step {k}");
        drift = drift.max(stepper.joint_drift());
        let theta = angle(&stepper.scene.bodies[0].pose) - std::f64::consts::FRAC_PI_2;
        if previous > 0.0 && theta <= 0.0 {
            let t = (k as f64 - 1.0 + previous / (previous - theta)) * h;
            crossings.push(t);
        }
        previous = theta;
    }
    assert!(crossings.len() >= 3, "{crossings:?}");
    let period = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    let error = (period - expected).abs() / expected;
    assert!(error < 1e-5, "period {period} vs {expected}: {error:e}");
    assert!(drift <= 1e-9, "pin drift {drift:e}");
}

/// A bead on a rail inclined at `α`, a prismatic joint to the world, frictionless: backward
/// Euler's discrete motion is exact in closed form, `v_k = k h g sin α`, `s_k = h² g sin α
/// k (k + 1)/2` (to 1e-10 relative, the solve's tolerance), and the rail's impulse per step is
/// `m g h cos α` normal to it (to the band the rows hold, below), in 2D and with the 3D
/// slider, and no drift.
#[test]
fn a_bead_slides_down_a_prismatic_rail_as_in_closed_form() {
    let (alpha, m, h, n) = (0.4f64, 1.5, 0.01, 200usize);
    let (sa, ca) = alpha.sin_cos();
    let exact_s = |k: usize| h * h * G * sa * (k * (k + 1)) as f64 / 2.0;
    // 2D: examples/bead_on_rail_2d.toml.
    let scene = example_planar("bead_on_rail_2d");
    assert_eq!((scene.bodies[0].mass, scene.step_count()), (m, n));
    let turned = angle(&scene.bodies[0].pose);
    let mut s2 = stepper(scene, Integrator::Euler);
    // 3D: the rail in the x–z plane, gravity along −z.
    let scene3 = Scene::<Spatial>::new(
        "rail3",
        Vector3::new(0.0, 0.0, -G),
        Friction::coulomb(0.0),
        h,
        n as f64 * h,
    )
    .unwrap()
    .with_body(rod3("bead", 0.2, 0.1, m, Vector3::zeros()))
    .unwrap();
    let rail3 = joint(
        &scene3,
        JointKind::Prismatic,
        None,
        "bead",
        Vector3::new(0.05, 0.02, -0.01),
        Vector3::new(-ca, 0.0, -sa),
    );
    let mut s3 = stepper(scene3.with_joint(rail3), Integrator::Euler);
    for k in 1..=n {
        assert!(s2.step().converged && s3.step().converged, "step {k}");
        let c2 = s2.scene.bodies[0].pose.position;
        let c3 = s3.scene.bodies[0].pose.position;
        let along2 = -(c2.x * ca + c2.y * sa);
        let along3 = -(c3.x * ca + c3.z * sa);
        let exact = exact_s(k);
        assert!(
            (along2 - exact).abs() <= 1e-10 * exact.max(1e-3),
            "2D step {k}: {along2} vs {exact}"
        );
        assert!(
            (along3 - exact).abs() <= 1e-10 * exact.max(1e-3),
            "3D step {k}: {along3} vs {exact}"
        );
        // No rotation, no motion off the rail.
        assert!((angle(&s2.scene.bodies[0].pose) - turned).abs() < 1e-10);
        assert!(s3.scene.bodies[0].pose.rotation.angle() < 1e-10);
        assert!(c3.y.abs() < 1e-10);
        for (s, joints) in [(2, s2.joints()), (3, s3.joints())] {
            let p = &joints[0].impulse;
            let normal = if s == 2 {
                -p[0] * sa + p[1] * ca
            } else {
                -p[0] * sa + p[2] * ca
            };
            let tangential = if s == 2 {
                p[0] * ca + p[1] * sa
            } else {
                p[0] * ca + p[2] * sa
            };
            // What the rows hold: each momentum row to TOL (N·s), and the rail's rows the
            // velocity across it to 2 TOL (its position to `TOL h` at each step end), so
            // `m Δv` across the rail to 4 m TOL. The warm start (the impulse extrapolated from
            // the last steps) is accepted anywhere within that band.
            let bound = 1e-10 * (sa + ca + 4.0 * m);
            assert!(
                (normal - m * G * h * ca).abs() < bound,
                "{s}D normal impulse {normal}"
            );
            assert!(
                tangential.abs() < bound,
                "{s}D tangential impulse {tangential}"
            );
            assert!(joints[0].drift <= 1e-9);
        }
    }
}

/// The same block held by a contact instead of the rail (`examples/block_on_incline_2d.toml`,
/// a box face on a frictionless half-plane at `α`): the same discrete motion to the same
/// tolerance, the normal impulse `m g h cos α`, no rotation. With the rail it is the pair the
/// stepper bench times to compare a joint's cost with a contact's on the same motion.
#[test]
fn a_block_slides_down_a_frictionless_incline_as_the_bead_on_its_rail() {
    let (alpha, m, h, n) = (0.4f64, 1.5, 0.01, 200usize);
    let (sa, ca) = alpha.sin_cos();
    let scene = example_planar("block_on_incline_2d");
    assert_eq!((scene.bodies[1].mass, scene.step_count()), (m, n));
    let start = scene.bodies[1].pose.position;
    let mut st = stepper(scene, Integrator::Euler);
    for k in 1..=n {
        assert!(st.step().converged, "step {k}");
        let c = st.scene.bodies[1].pose.position - start;
        let along = -(c.x * ca + c.y * sa);
        let exact = h * h * G * sa * (k * (k + 1)) as f64 / 2.0;
        assert!(
            (along - exact).abs() <= 1e-10 * exact.max(1e-3),
            "step {k}: {along} vs {exact}"
        );
        // On the plane (its face 0.05 m from it) and not turned.
        assert!(
            (-c.x * sa + c.y * ca).abs() < 1e-10,
            "step {k}: off the plane"
        );
        assert!((angle(&st.scene.bodies[1].pose) - alpha).abs() < 1e-10);
        let contacts = st.contacts();
        assert_eq!(contacts.len(), 1);
        // Each momentum row holds to TOL: the normal impulse to a few TOL.
        assert!(
            (contacts[0].normal_impulse - m * G * h * ca).abs() < 1e-9,
            "step {k}: normal impulse {}",
            contacts[0].normal_impulse
        );
    }
}

/// The double pendulum (two uniform rods, the second pinned to the end of the first) released
/// from the horizontal, against an RK4 integration of its Lagrange equations in the two
/// angles (step 1e-5: error ~1e-13). Backward Euler is first order: the error at t = 1 s
/// halves with h (ratio within [1.7, 2.3]) and is below 3e-3 rad at h = 1e-4. RATTLE is second
/// order: ratio within [3.6, 4.4] (measured 4.02), below 5e-5 rad at h = 1e-3 (measured 3.6e-5).
#[test]
fn the_double_pendulum_converges_to_its_lagrange_equations() {
    let (l1, l2, w, m1, m2) = (1.0, 0.8, 0.04, 1.0, 0.7);
    let i1 = m1 * (l1 * l1 + w * w) / 12.0;
    let i2 = m2 * (l2 * l2 + w * w) / 12.0;
    let (c1, c2) = (0.5 * l1, 0.5 * l2);
    // Reference: θ measured from the downward vertical, both π/2 (horizontal) at rest.
    let accel = |y: [f64; 4]| -> [f64; 4] {
        let [a, b, da, db] = y;
        let (s, c) = (a - b).sin_cos();
        let m11 = m1 * c1 * c1 + i1 + m2 * l1 * l1;
        let m12 = m2 * l1 * c2 * c;
        let m22 = m2 * c2 * c2 + i2;
        let r1 = -m2 * l1 * c2 * s * db * db - (m1 * c1 + m2 * l1) * G * a.sin();
        let r2 = m2 * l1 * c2 * s * da * da - m2 * G * c2 * b.sin();
        let det = m11 * m22 - m12 * m12;
        [
            da,
            db,
            (m22 * r1 - m12 * r2) / det,
            (m11 * r2 - m12 * r1) / det,
        ]
    };
    let reference = |t: f64| -> [f64; 2] {
        let steps = (t / 1e-5).round() as usize;
        let dt = t / steps as f64;
        let mut y = [
            std::f64::consts::FRAC_PI_2,
            std::f64::consts::FRAC_PI_2,
            0.0,
            0.0,
        ];
        let add = |y: [f64; 4], k: [f64; 4], s: f64| std::array::from_fn(|i| y[i] + s * k[i]);
        for _ in 0..steps {
            let k1 = accel(y);
            let k2 = accel(add(y, k1, 0.5 * dt));
            let k3 = accel(add(y, k2, 0.5 * dt));
            let k4 = accel(add(y, k3, dt));
            y = std::array::from_fn(|i| {
                y[i] + dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i])
            });
        }
        [y[0], y[1]]
    };
    let exact = reference(1.0);
    let simulate = |h: f64, integrator: Integrator| -> [f64; 2] {
        // examples/double_pendulum.toml at the step h.
        let mut scene = example_planar("double_pendulum");
        scene.time_step = h;
        let mut s = stepper(scene, integrator);
        let mut unwrapped = [0.0f64; 2];
        let mut last = [0.0f64; 2];
        for k in 0..s.scene.step_count() {
            let r = s.step();
            assert!(r.converged, "h {h} step {k}: {r:?}");
            assert!(s.joint_drift() <= 1e-9);
            for b in 0..2 {
                let a = angle(&s.scene.bodies[b].pose);
                let mut d = a - last[b];
                d -= (d / std::f64::consts::TAU).round() * std::f64::consts::TAU;
                unwrapped[b] += d;
                last[b] = a;
            }
        }
        // A rod turned by φ from +x hangs at θ = π/2 + φ from the downward vertical.
        unwrapped.map(|phi| std::f64::consts::FRAC_PI_2 + phi)
    };
    let error_with = |h: f64, integrator: Integrator| {
        let got = simulate(h, integrator);
        (got[0] - exact[0]).abs().max((got[1] - exact[1]).abs())
    };
    let error = |h: f64| error_with(h, Integrator::Euler);
    let (e4, e2, e1) = (error(4e-4), error(2e-4), error(1e-4));
    // RATTLE: second order (the joints' impulses kicked along their start-of-step directions,
    // the end velocity projected onto the joints' velocity constraints).
    let rattle: Vec<f64> = [4e-3, 2e-3, 1e-3]
        .iter()
        .map(|&h| error_with(h, Integrator::Rattle))
        .collect();
    assert!(
        rattle[2] <= 5e-5,
        "RATTLE error at h = 1e-3: {:e}",
        rattle[2]
    );
    for pair in rattle.windows(2) {
        let ratio = pair[0] / pair[1];
        assert!((3.6..=4.4).contains(&ratio), "RATTLE errors {rattle:?}");
    }
    assert!(e1 <= 3e-3, "error at h = 1e-4: {e1:e}");
    for (coarse, fine) in [(e4, e2), (e2, e1)] {
        let ratio = coarse / fine;
        assert!((1.7..=2.3).contains(&ratio), "errors {e4:e} {e2:e} {e1:e}");
    }
}

/// A four-bar linkage (ground pivots 1 m apart, crank 0.4 m, coupler 1.2 m, rocker 0.8 m, a
/// crank–rocker) released from rest at a crank angle of 1.1 rad and swinging under gravity for
/// 10 s at h = 1e-3: the loop is closed by the fourth pin, redundant in the plane (four pins,
/// 8 rows on 9 velocities of which 8 are independent at most); it stays closed to the solve's
/// tolerance under every integrator (drift ≤ 1e-9; measured 9e-11). Backward Euler only
/// dissipates (no step gains energy); RATTLE with its energy projection keeps the energy to
/// 1e-9 relative (measured 3e-13 J of 10.7 J); midpoint's end-of-step joint rows dissipate
/// like Euler's (2.3 J lost against Euler's 3.5 J).
#[test]
fn a_four_bar_linkage_stays_closed() {
    // examples/four_bar_linkage.toml (its own integrator is rattle; each is tried here).
    let scene = example_planar("four_bar_linkage");
    let energy =
        |s: &ImplicitStepper<Planar>| s.scene.kinetic_energy() + s.scene.potential_energy();
    for integrator in [Integrator::Euler, Integrator::Midpoint, Integrator::Rattle] {
        let mut s = stepper(scene.clone(), integrator);
        let first = energy(&s);
        let mut last = first;
        let mut drift = 0.0f64;
        let mut worst = 0.0f64;
        for k in 0..s.scene.step_count() {
            let report = s.step();
            assert!(
                report.converged,
                "{integrator:?} step {k}: {:?}",
                report.failure
            );
            drift = drift.max(s.joint_drift());
            let e = energy(&s);
            if integrator == Integrator::Euler {
                assert!(
                    e <= last + 1e-9 * last.abs().max(1.0),
                    "step {k} gained {:e} J",
                    e - last
                );
            }
            worst = worst.max((e - first).abs());
            last = e;
        }
        assert!(drift <= 1e-9, "{integrator:?} loop drift {drift:e}");
        if integrator == Integrator::Rattle {
            assert!(
                worst <= 1e-9 * first.abs(),
                "RATTLE energy error {worst:e} J"
            );
        }
    }
}

/// A 3D hinge about `z` is the planar pin: the same rod swung about a horizontal hinge in 3D
/// follows the 2D pendulum's steps to 1e-9 (the two solves' tolerances), and a ball joint
/// released in the same plane does too (nothing pushes it out of the plane).
#[test]
fn a_spatial_hinge_and_ball_swing_as_the_planar_pin() {
    let (length, width, m, h) = (1.0, 0.05, 2.0, 1e-3);
    let scene2 = planar_scene("pin", h, 1.0)
        .with_body(rod("rod", length, width, m, 0.5 * length, 0.0, 0.0))
        .unwrap();
    let pin = joint(
        &scene2,
        JointKind::Revolute,
        None,
        "rod",
        Vector2::zeros(),
        Vector2::zeros(),
    );
    let mut s2 = stepper(scene2.with_joint(pin), Integrator::Euler);
    let spatial = |kind: JointKind| {
        // Gravity along −y, the rod along +x: it swings in the x–y plane about z.
        let scene = Scene::<Spatial>::new(
            "hinge",
            Vector3::new(0.0, -G, 0.0),
            Friction::coulomb(0.0),
            h,
            1.0,
        )
        .unwrap()
        .with_body(rod3(
            "rod",
            length,
            width,
            m,
            Vector3::new(0.5 * length, 0.0, 0.0),
        ))
        .unwrap();
        // The 2D rod's inertia about z is m (l² + w²)/12: the same as the box's.
        let j = joint(&scene, kind, None, "rod", Vector3::zeros(), Vector3::z());
        stepper(scene.with_joint(j), Integrator::Euler)
    };
    let mut hinge = spatial(JointKind::Revolute);
    let mut ball = spatial(JointKind::Ball);
    for k in 0..s2.scene.step_count() {
        assert!(s2.step().converged && hinge.step().converged && ball.step().converged);
        let p2 = s2.scene.bodies[0].pose.position;
        for (name, s) in [("hinge", &hinge), ("ball", &ball)] {
            let p3 = s.scene.bodies[0].pose.position;
            let e = (p3.x - p2.x).abs().max((p3.y - p2.y).abs()).max(p3.z.abs());
            assert!(e < 1e-9, "{name} step {k}: {e:e}");
            assert!(s.joint_drift() <= 1e-9);
        }
    }
}

/// Two rods welded by a fixed joint and thrown, spinning, in 2D and 3D: the joint's impulses
/// are internal, so the composite's momentum follows gravity exactly (`Σ m v` gains `M g h`
/// per step, to rounding) and the weld holds (drift ≤ 1e-9).
#[test]
fn a_welded_pair_flies_as_one_body() {
    let h = 1e-2;
    let mut scene = planar_scene("weld", h, 2.0)
        .with_body(rod("a", 0.6, 0.1, 1.0, 0.0, 0.0, 0.0))
        .unwrap()
        .with_body(rod("b", 0.4, 0.1, 0.5, 0.5, 0.0, 0.0))
        .unwrap();
    // A rigid motion of the pair: spin 3 rad/s about the origin, plus a throw.
    for body in scene.bodies.iter_mut() {
        let c = body.pose.position;
        body.twist = Twist::new(
            Vector2::new(1.0, 4.0) + Vector2::new(-c.y, c.x) * 3.0,
            Vector1::new(3.0),
        );
    }
    let weld = joint(
        &scene,
        JointKind::Fixed,
        Some("a"),
        "b",
        Vector2::new(0.3, 0.0),
        Vector2::zeros(),
    );
    let mut s = stepper(scene.with_joint(weld), Integrator::Euler);
    let momentum = |s: &ImplicitStepper<Planar>| {
        s.scene
            .bodies
            .iter()
            .fold(Vector2::zeros(), |p, b| p + b.twist.linear * b.mass)
    };
    let mut p = momentum(&s);
    for k in 0..s.scene.step_count() {
        assert!(s.step().converged, "step {k}");
        let q = momentum(&s);
        let expected = p + Vector2::new(0.0, -G) * 1.5 * h;
        assert!((q - expected).norm() < 1e-9, "step {k}: {q} vs {expected}");
        p = q;
        assert!(s.joint_drift() <= 1e-9);
        // The two bodies turn together.
        let (a0, a1) = (
            angle(&s.scene.bodies[0].pose),
            angle(&s.scene.bodies[1].pose),
        );
        assert!((a0 - a1).sin().abs() < 1e-9);
    }
    // 3D: two boxes welded end to end, spinning about a skew axis.
    let mut scene = Scene::<Spatial>::new(
        "weld3",
        Vector3::new(0.0, 0.0, -G),
        Friction::coulomb(0.0),
        h,
        2.0,
    )
    .unwrap()
    .with_body(rod3("a", 0.6, 0.1, 1.0, Vector3::zeros()))
    .unwrap()
    .with_body(rod3("b", 0.4, 0.1, 0.5, Vector3::new(0.5, 0.0, 0.0)))
    .unwrap();
    let w = Vector3::new(1.0, 2.0, 3.0);
    for body in scene.bodies.iter_mut() {
        let c = body.pose.position;
        body.twist = Twist::new(Vector3::new(1.0, 0.0, 4.0) + w.cross(&c), w);
    }
    let weld = joint(
        &scene,
        JointKind::Fixed,
        Some("a"),
        "b",
        Vector3::new(0.3, 0.0, 0.0),
        Vector3::x(),
    );
    let mut s = stepper(scene.with_joint(weld), Integrator::Euler);
    let momentum3 = |s: &ImplicitStepper<Spatial>| {
        s.scene
            .bodies
            .iter()
            .fold(Vector3::zeros(), |p, b| p + b.twist.linear * b.mass)
    };
    let mut p = momentum3(&s);
    for k in 0..s.scene.step_count() {
        assert!(s.step().converged, "3D step {k}");
        let q = momentum3(&s);
        let expected = p + Vector3::new(0.0, 0.0, -G) * 1.5 * h;
        assert!(
            (q - expected).norm() < 1e-9,
            "3D step {k}: {q} vs {expected}"
        );
        p = q;
        assert!(s.joint_drift() <= 1e-9);
        let (r0, r1) = (
            s.scene.bodies[0].pose.rotation,
            s.scene.bodies[1].pose.rotation,
        );
        assert!(r0.angle_to(&r1) < 1e-9);
    }
}

/// Redundant joints: a door (0.8 m wide along x, 2 m high along z, 0.04 m thick, 10 kg) hung
/// on two coaxial hinges 1.6 m apart (10 rows on its 6 velocities, 5 of them independent)
/// swings about the common axis as on one hinge, to the solves' tolerance (positions to 1e-9 m;
/// impulses to 1e-8 N·s: the rows are solved to 1e-10 m/s, which fixes an impulse to about
/// `tol · m` = 1e-9 N·s per solve, and two solves are compared). The hinges' pulls
/// along the axis may cancel in any amount; the proximal rows pick the least change from the
/// last step's (zero at the start), which the rows' residual moves by at most `tol / ε` per
/// step, `ε = 100 α (G M⁻¹ Gᵀ)_zz` (the joints' weight): each hinge carries half the door's
/// load, and the pulls move by less than that bound per step and stay below 1e-3 of the load
/// over the run (measured 2e-4).
#[test]
fn a_door_on_two_coaxial_hinges_swings_as_on_one() {
    let (h, m, (wide, high)) = (1e-3, 10.0, (0.8, 2.0));
    // examples/door_two_hinges_3d.toml, and the same door on one hinge half-way between.
    let two_hinges = example_spatial("door_two_hinges_3d");
    assert_eq!((two_hinges.bodies[0].mass, two_hinges.time_step), (m, h));
    let mut one_hinge = two_hinges.clone();
    one_hinge.joints.clear();
    let hinge = joint(
        &one_hinge,
        JointKind::Revolute,
        None,
        "door",
        Vector3::zeros(),
        Vector3::z(),
    );
    let one_hinge = one_hinge.with_joint(hinge);
    let (mut one, mut two) = (
        stepper(one_hinge, Integrator::Euler),
        stepper(two_hinges, Integrator::Euler),
    );
    let settings = StepperSettings::default();
    // (G M⁻¹ Gᵀ)_zz of a hinge's z row: 1/m + (r × e_z)ᵀ I⁻¹ (r × e_z), r × e_z = (0, 0.4, 0).
    let i_yy = m * (wide * wide + high * high) / 12.0;
    let epsilon = 100.0 * settings.proximal_weight * (1.0 / m + 0.16 / i_yy);
    let bound = settings.solver.tolerance / epsilon;
    let mut last_pull = 0.0;
    for k in 0..one.scene.step_count() {
        let (r1, r2) = (one.step(), two.step());
        assert!(r1.converged && r2.converged, "step {k}");
        let (p1, p2) = (
            one.scene.bodies[0].pose.position,
            two.scene.bodies[0].pose.position,
        );
        assert!((p1 - p2).norm() < 1e-9, "step {k}: {:e}", (p1 - p2).norm());
        assert!(two.joint_drift() <= 1e-9);
        let joints = two.joints();
        let (a, b) = (&joints[0].impulse, &joints[1].impulse);
        let whole = &one.joints()[0].impulse;
        for i in 0..2 {
            let (half, sum) = ((a[i] - b[i]).abs(), (a[i] + b[i] - whole[i]).abs());
            assert!(half < 1e-8 && sum < 1e-8, "step {k}: {a:?} {b:?} {whole:?}");
        }
        assert!((a[2] + b[2]).abs() < 1e-12, "step {k}: {a:?} {b:?}");
        let pull = a[2];
        assert!(
            (pull - last_pull).abs() <= bound,
            "step {k}: axial pull moved {:e}",
            pull - last_pull
        );
        // Against each hinge's share of the door's weight per step.
        let share = 0.5 * m * G * h;
        assert!(pull.abs() <= 1e-3 * share, "step {k}: axial pull {pull:e}");
        last_pull = pull;
    }
}

/// A pinned rod released horizontal swings onto the floor (`examples/pendulum_hits_floor.toml`):
/// its free end's lower corner meets `y = −0.8` at `φ* = 0.90188` rad below the horizontal, at
/// the time `t*` of the rod's equation `I_p φ'' = m g (L/2) cos φ` (integrated here by RK4).
/// The first step with a floor impulse ends within `2 h` of `t*` (one step to detect it, and
/// backward Euler's first-order phase error, 2e-4 s at this `h`); the impact is inelastic, so
/// from then on the rod rests at `φ*` (to 1e-9 rad) without kinetic energy, and the scene has
/// lost all the energy the swing gained, `m g (L/2) sin φ*`.
#[test]
fn a_pinned_rod_swings_onto_the_floor_and_rests_there() {
    let (length, width, m) = (1.0f64, 0.05f64, 2.0);
    let scene = example_planar("pendulum_hits_floor");
    let h = scene.time_step;
    let inertia = m * (length * length + width * width) / 12.0 + m * 0.25 * length * length;
    // φ*: the corner (L cos φ + (w/2) sin φ, −L sin φ − (w/2) cos φ) on y = −0.8.
    let corner = |phi: f64| -length * phi.sin() - 0.5 * width * phi.cos() + 0.8;
    let (mut lo, mut hi) = (0.0, 1.5);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if corner(mid) > 0.0 {
            lo = mid
        } else {
            hi = mid
        }
    }
    let phi_hit = lo;
    // t*: RK4 on (φ, φ') with dt = 1e-6 (error ~1e-20), interpolated at φ*.
    let f = |y: [f64; 2]| [y[1], m * G * 0.5 * length * y[0].cos() / inertia];
    let (mut y, mut t, dt) = ([0.0f64, 0.0f64], 0.0, 1e-6);
    let t_hit = loop {
        let k1 = f(y);
        let k2 = f([y[0] + 0.5 * dt * k1[0], y[1] + 0.5 * dt * k1[1]]);
        let k3 = f([y[0] + 0.5 * dt * k2[0], y[1] + 0.5 * dt * k2[1]]);
        let k4 = f([y[0] + dt * k3[0], y[1] + dt * k3[1]]);
        let next = [
            y[0] + dt / 6.0 * (k1[0] + 2.0 * k2[0] + 2.0 * k3[0] + k4[0]),
            y[1] + dt / 6.0 * (k1[1] + 2.0 * k2[1] + 2.0 * k3[1] + k4[1]),
        ];
        if next[0] >= phi_hit {
            break t + dt * (phi_hit - y[0]) / (next[0] - y[0]);
        }
        y = next;
        t += dt;
    };
    let mut s = stepper(scene, Integrator::Euler);
    let e0 = s.scene.kinetic_energy() + s.scene.potential_energy();
    let mut impact = None;
    for k in 1..=s.scene.step_count() {
        assert!(s.step().converged, "step {k}");
        assert!(s.joint_drift() <= 1e-9);
        let hit = s.contacts().iter().any(|c| c.normal_impulse > 0.0);
        if impact.is_none() && hit {
            impact = Some(k as f64 * h);
        }
        if let Some(t_impact) = impact
            && k as f64 * h > t_impact + 5.0 * h
        {
            let rod = &s.scene.bodies[1];
            assert!(
                (angle(&rod.pose) + phi_hit).abs() < 1e-9,
                "step {k}: {}",
                angle(&rod.pose)
            );
            assert!(
                rod.kinetic_energy() < 1e-12,
                "step {k}: {}",
                rod.kinetic_energy()
            );
        }
    }
    let t_impact = impact.expect("the rod reaches the floor");
    assert!(
        (t_impact - t_hit).abs() <= 2.0 * h,
        "impact at {t_impact} s, expected {t_hit} s"
    );
    let lost = e0 - (s.scene.kinetic_energy() + s.scene.potential_energy());
    let expected = m * G * 0.5 * length * phi_hit.sin();
    assert!(
        (lost - expected).abs() <= 1e-9 * expected,
        "lost {lost} J, expected {expected} J"
    );
}

/// A constant actuator force on a horizontal frictionless slider: backward Euler's discrete
/// motion `s_k = h² (F/m) k (k + 1)/2` exactly (to the solve's tolerance), the actuator's force
/// reported, the rail's own impulse zero along it; a constant torque on a 2D pin spins a disc
/// up as `ω_k = k h τ / I`.
#[test]
fn a_constant_actuator_drives_a_slider_and_a_pin() {
    let (m, h, force, torque) = (1.5, 0.01, 3.0, 0.7);
    let mut scene =
        Scene::<Planar>::new("slider", Vector2::zeros(), Friction::coulomb(0.0), h, 1.0)
            .unwrap()
            .with_body(rod("slider", 0.2, 0.1, m, 0.0, 0.0, 0.0))
            .unwrap()
            .with_body(rod("wheel", 0.2, 0.2, m, 10.0, 0.0, 0.0))
            .unwrap();
    for (kind, body, actuator) in [
        (JointKind::Prismatic, "slider", Actuator::Constant(force)),
        (JointKind::Revolute, "wheel", Actuator::Constant(torque)),
    ] {
        let at = scene.bodies[scene.body_index(body).unwrap()].pose.position;
        let j = joint(&scene, kind, None, body, at, Vector2::new(1.0, 0.0))
            .with_actuator(&scene.name, scene.joints.len(), actuator)
            .unwrap();
        scene = scene.with_joint(j);
    }
    let inertia = scene.bodies[1].inertia;
    let mut s = stepper(scene, Integrator::Euler);
    for k in 1..=s.scene.step_count() {
        assert!(s.step().converged, "step {k}");
        let x = s.scene.bodies[0].pose.position.x;
        let exact = h * h * force / m * (k * (k + 1)) as f64 / 2.0;
        assert!(
            (x - exact).abs() <= 1e-10 * exact,
            "step {k}: {x} vs {exact}"
        );
        let w = s.scene.bodies[1].twist.angular[0];
        let spin = k as f64 * h * torque / inertia;
        assert!((w - spin).abs() <= 1e-10 * spin, "step {k}: {w} vs {spin}");
        let joints = s.joints();
        assert_eq!(joints[0].actuator, Some(force));
        assert!(joints[0].impulse[0].abs() < 1e-12 && joints[1].moment[0].abs() < 1e-12);
    }
}

/// A PD actuator holds a pinned rod at an angle: from hanging, a set point of 0.5 rad with
/// stiffness 20 N·m/rad settles (damped) where the spring balances gravity,
/// `k (0.5 − θ) = m g (L/2) sin θ`, after 10 s: to 1e-8 rad, since the momentum rows are
/// solved to 1e-10 N·s, a torque of 1e-7 N·m at h = 1e-3, against the stiffness
/// `k + m g (L/2) cos θ` = 29 N·m/rad (measured 3e-9 rad), and the torque to 1e-6 N·m.
#[test]
fn a_pd_actuator_holds_a_pendulum_where_its_spring_balances_gravity() {
    let (length, m, k, target) = (1.0f64, 2.0, 20.0, 0.5);
    let scene = planar_scene("held", 1e-3, 10.0)
        .with_body(rod(
            "rod",
            length,
            0.05,
            m,
            0.0,
            -0.5 * length,
            std::f64::consts::FRAC_PI_2,
        ))
        .unwrap();
    let pd = Actuator::Pd {
        target,
        speed: 0.0,
        stiffness: k,
        damping: 4.0,
        max: 100.0,
    };
    let pin = joint(
        &scene,
        JointKind::Revolute,
        None,
        "rod",
        Vector2::zeros(),
        Vector2::zeros(),
    )
    .with_actuator(&scene.name, 0, pd)
    .unwrap();
    let mut s = stepper(scene.with_joint(pin), Integrator::Euler);
    for step in 0..s.scene.step_count() {
        assert!(s.step().converged, "step {step}");
    }
    // θ from the downward vertical, counter-clockwise (the set point turns the rod that way).
    let theta = angle(&s.scene.bodies[0].pose) - std::f64::consts::FRAC_PI_2;
    let balance = |t: f64| k * (target - t) - m * G * 0.5 * length * t.sin();
    let (mut lo, mut hi) = (0.0, target);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if balance(mid) > 0.0 {
            lo = mid
        } else {
            hi = mid
        }
    }
    assert!((theta - lo).abs() < 1e-8, "θ = {theta}, balance at {lo}");
    let torque = s.joints()[0].actuator.unwrap();
    assert!((torque - k * (target - lo)).abs() < 1e-6, "torque {torque}");
}

/// The lecture notes' position-controlled pusher (`examples/pusher_box_2d.toml`): after a
/// second of steady sliding the pusher's PD force is the ground's friction `μ m g` (to 1e-6
/// relative), the box moves at the set point's 0.2 m/s (to 1e-8), does not turn, and the
/// ground's normal load sits `μ · 0.3` m ahead of the box's centre (the push at 0.3 m above
/// the ground against the friction at it; to 1e-6 m).
#[test]
fn a_position_controlled_pusher_slides_a_box() {
    let scene = example_planar("pusher_box_2d");
    let (b, mu, nose) = (scene.body_index("box").unwrap(), 0.3, 0.3);
    let weight = scene.bodies[b].mass * G;
    let mut s = stepper(scene, Integrator::Euler);
    for k in 1..=s.scene.step_count() {
        assert!(s.step().converged, "step {k}");
        if k < 1000 {
            continue;
        }
        let force = s.joints()[0].actuator.unwrap();
        assert!(
            (force - mu * weight).abs() <= 1e-6 * mu * weight,
            "step {k}: {force}"
        );
        let body = &s.scene.bodies[b];
        assert!(
            (body.twist.linear.x - 0.2).abs() < 1e-8,
            "step {k}: {}",
            body.twist.linear.x
        );
        assert!(angle(&body.pose).abs() < 1e-12);
        let ground = s.scene.body_index("ground").unwrap();
        let contact = s
            .contacts()
            .into_iter()
            .find(|c| [c.body1, c.body2] == [ground, b] || [c.body1, c.body2] == [b, ground])
            .expect("the ground holds the box");
        let point = if contact.body1 == b {
            contact.a1[0]
        } else {
            contact.a2[0]
        };
        let ahead = point - body.pose.position.x;
        assert!((ahead - mu * nose).abs() < 1e-6, "step {k}: {ahead}");
    }
}

/// The lecture notes' bead on a rod spun at a constant ω (`examples/bead_on_spinning_rod_2d.toml`):
/// the rod is a driven body, the bead slides on it without friction (a prismatic joint). From
/// rest on the rod at `r₀` it moves out as `r = r₀ cosh ωt`, turning with the rod exactly
/// (`ωt`, the drive's own map), and the rod's push on it is the Coriolis force `2 m ω ṙ`.
/// Backward Euler is first order: the error in `r` at t = 1 s halves with `h` (ratio within
/// [1.8, 2.2]) and is below 3e-3 relative at h = 1e-3 (measured 2.1e-3); from t = 0.25 s (once
/// `ṙ` is many steps' worth) the push over each step matches `2 m ω ṙ` at the step's mean
/// radial speed to `3 h` relative (first order: measured 2.2e-3 at h = 1e-3, 1.1e-3 at 5e-4).
#[test]
fn a_bead_on_a_spinning_rod_moves_out_as_cosh() {
    let (omega, r0) = (2.0f64, 0.1f64);
    // RATTLE with the drive in its projection (the driven rod's velocity in the bead's rows):
    // second order, ratio within [3.6, 4.4] (measured 3.99), 6.4e-6 at h = 1e-3.
    let rattle: Vec<f64> = [4e-3, 2e-3, 1e-3]
        .iter()
        .map(|&h| {
            let mut scene = example_planar("bead_on_spinning_rod_2d");
            scene.time_step = h;
            scene.duration = 1.0;
            let mut s = stepper(scene, Integrator::Rattle);
            for k in 0..s.scene.step_count() {
                assert!(s.step().converged, "RATTLE h {h} step {k}");
            }
            let exact = r0 * omega.cosh();
            ((s.scene.bodies[1].pose.position.norm() - exact) / exact).abs()
        })
        .collect();
    assert!(
        rattle[2] <= 1e-5,
        "RATTLE error at h = 1e-3: {:e}",
        rattle[2]
    );
    for pair in rattle.windows(2) {
        assert!(
            (3.6..=4.4).contains(&(pair[0] / pair[1])),
            "RATTLE errors {rattle:?}"
        );
    }
    let simulate = |h: f64| -> f64 {
        let mut scene = example_planar("bead_on_spinning_rod_2d");
        scene.time_step = h;
        scene.duration = 1.0;
        let (rod, bead) = (0, 1);
        assert!(scene.bodies[rod].driven);
        let m = scene.bodies[bead].mass;
        let mut s = stepper(scene, Integrator::Euler);
        let (mut r, mut last_rate) = (r0, 0.0);
        for k in 1..=s.scene.step_count() {
            assert!(s.step().converged, "h {h} step {k}");
            assert!(s.joint_drift() <= 1e-9);
            let t = k as f64 * h;
            let rod_angle = angle(&s.scene.bodies[rod].pose);
            let turn = (omega * t + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU)
                - std::f64::consts::PI;
            assert!(
                (rod_angle - turn).abs() < 1e-9,
                "the drive turns the rod: {rod_angle} vs {turn}"
            );
            let body = &s.scene.bodies[bead];
            let c = body.pose.position;
            r = c.norm();
            let (radial, across) = (c / r, Vector2::new(-c.y, c.x) / r);
            let rate = body.twist.linear.dot(&radial);
            let push = s.joints()[0]
                .impulse
                .iter()
                .zip([across.x, across.y])
                .map(|(p, a)| p * a)
                .sum::<f64>()
                / h;
            let coriolis = m * omega * (rate + last_rate);
            last_rate = rate;
            assert!(
                t < 0.25 || (push - coriolis).abs() <= 3.0 * h * coriolis.abs(),
                "h {h} step {k}: push {push}, 2 m ω ṙ {coriolis}"
            );
        }
        let exact = r0 * omega.cosh();
        (r - exact) / exact
    };
    let errors: Vec<f64> = [2e-3, 1e-3, 5e-4]
        .iter()
        .map(|&h| simulate(h).abs())
        .collect();
    assert!(errors[1] <= 3e-3, "error at h = 1e-3: {:e}", errors[1]);
    for pair in errors.windows(2) {
        let ratio = pair[0] / pair[1];
        assert!((1.8..=2.2).contains(&ratio), "errors {errors:?}");
    }
}
