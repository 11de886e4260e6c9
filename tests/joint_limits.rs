//! Joint limits and joint friction (complementarity rows of the joint block) against closed
//! forms of backward Euler's discrete motion, under the default integrator (euler).

use implicit_contact::geometry::{BodyShape, ConvexPart, Planar, Pose, Spatial};
use implicit_contact::model::{
    Actuator, Dynamics, Friction, Integrator, Joint, JointKind, RigidBody, Scene,
};
use implicit_contact::stepper::{ImplicitStepper, StepperSettings};
use nalgebra::{Matrix3, UnitQuaternion, Vector2, Vector3};

mod common;
use common::example_planar as example;

const G: f64 = 9.81;
/// The solve's tolerance (the residual's, m/s for the joint rows and N·s for the momentum
/// rows; `SolveSettings::default()`).
const TOL: f64 = 1e-10;

/// A planar rectangle `length × width` of mass `m` (`I = m (l² + w²) / 12`) centred at `(x, y)`.
fn rod(name: &str, length: f64, width: f64, m: f64, x: f64, y: f64) -> RigidBody<Planar> {
    let part = ConvexPart::<Planar>::cuboid(Vector2::new(0.5 * length, 0.5 * width)).unwrap();
    let shape = BodyShape::new(name, vec![part]).unwrap();
    let inertia = m * (length * length + width * width) / 12.0;
    RigidBody::new(
        name,
        m,
        inertia,
        shape,
        Pose::planar(x, y, 0.0, name).unwrap(),
    )
    .unwrap()
}

/// The spatial box `l × w × w` of mass `m` along `x`, centred at `centre`.
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

/// A joint of `kind` from the world to `body` of `scene` at `anchor` along `axis`.
fn joint<S: Dynamics>(
    scene: &Scene<S>,
    kind: JointKind,
    body: &str,
    anchor: S::Vector,
    axis: S::Vector,
) -> Joint<S> {
    let b = scene.body_index(body).unwrap();
    let k = scene.joints.len();
    Joint::new(
        &scene.name,
        k,
        &format!("joint{k}"),
        kind,
        None,
        b,
        anchor,
        axis,
        &scene.bodies,
    )
    .unwrap()
}

fn stepper<S: Dynamics>(scene: Scene<S>) -> ImplicitStepper<S> {
    ImplicitStepper::new(scene, StepperSettings::default()).unwrap()
}

/// (a) A bead on a horizontal prismatic rail pushed by a constant actuator force `F` toward a
/// stop at `d`: Euler's discrete motion `s_k = h² (F/m) k (k + 1)/2` (to 1e-10 relative, the
/// solve's tolerance, as for the free slider) until the first step whose free motion would
/// pass `d`; that step ends on the stop (to `TOL h`: the row `(d − s)/h` is solved to `TOL`)
/// with the velocity `(d − s_{K−1})/h` that reaches it (backward Euler: the step's velocity is
/// its displacement over `h`); the next step and every one after at rest there: inelastic. The
/// stop's row `(d − q)/h` holds the position to `TOL h` at each step end, so the velocity, the
/// step's displacement over `h`, is zero to `2 TOL`. The stop's impulses (along `q`,
/// negative: the upper stop pushes back) take the momentum the free step would carry past it,
/// then that velocity and the push (each to 1e-10 N·s), then the push `F h` per step to the
/// momentum row's `TOL` plus `m` times the velocity's `4 TOL` change.
#[test]
fn a_pushed_slider_stops_at_its_limit() {
    let (m, h, force, d) = (1.5, 0.01, 3.0, 0.2);
    let scene = Scene::<Planar>::new(
        "slider",
        Vector2::new(0.0, -G),
        Friction::coulomb(0.0),
        h,
        1.0,
    )
    .unwrap()
    .with_body(rod("slider", 0.2, 0.1, m, 0.0, 0.0))
    .unwrap();
    let j = joint(
        &scene,
        JointKind::Prismatic,
        "slider",
        Vector2::zeros(),
        Vector2::x(),
    )
    .with_actuator("slider", 0, Actuator::Constant(force))
    .unwrap()
    .with_limits("slider", 0, [-1.0, d])
    .unwrap();
    let mut s = stepper(scene.with_joint(j));
    let free = |k: usize| h * h * force / m * (k * (k + 1)) as f64 / 2.0;
    let impact = (1..).find(|&k| free(k) > d).unwrap();
    let mut worst = [0.0f64; 3];
    for k in 1..=s.scene.step_count() {
        assert!(s.step().converged, "step {k}");
        let x = s.scene.bodies[0].pose.position.x;
        let v = s.scene.bodies[0].twist.linear.x;
        let limit = s.joints()[0].limit_impulse.unwrap();
        if k < impact {
            assert!(
                (x - free(k)).abs() <= 1e-10 * free(k),
                "step {k}: {x} vs {}",
                free(k)
            );
            assert!(
                limit.abs() <= TOL,
                "step {k}: limit impulse {limit} before the stop"
            );
        } else {
            assert!((x - d).abs() <= TOL * h, "step {k}: {x} vs the stop {d}");
            worst[0] = worst[0].max((x - d).abs());
            if k == impact {
                let v_impact = (d - free(k - 1)) / h;
                assert!(
                    (v - v_impact).abs() <= TOL,
                    "impact step: {v} vs {v_impact}"
                );
                let p = m * (k as f64 * h * force / m) - m * v_impact;
                // The stop takes the momentum the free step would have carried past it.
                assert!(
                    (-limit - p).abs() <= 1e-10,
                    "impact impulse {limit} vs −{p}"
                );
            } else if k == impact + 1 {
                // The stop takes the velocity that reached it, and the push.
                let p = m * (d - free(impact - 1)) / h + force * h;
                assert!(
                    v.abs() <= 2.0 * TOL,
                    "step {k}: velocity {v} after the impact"
                );
                assert!((-limit - p).abs() <= 1e-10, "step {k}: {limit} vs −{p}");
            } else {
                assert!(
                    v.abs() <= 2.0 * TOL,
                    "step {k}: velocity {v} after the impact"
                );
                // The momentum row `m Δv = F h + λ` to TOL, with `|Δv| ≤ 4 TOL` (above).
                assert!(
                    (limit + force * h).abs() <= TOL * (1.0 + 4.0 * m),
                    "step {k}: {limit}"
                );
                worst[1] = worst[1].max(v.abs());
                worst[2] = worst[2].max((limit + force * h).abs());
            }
        }
        assert!(s.joints()[0].drift <= 1e-9);
    }
    eprintln!(
        "slider: stop at step {impact}; |x − d| ≤ {:.1e} m, |v| ≤ {:.1e} m/s, |p + F h| ≤ {:.1e} N·s",
        worst[0], worst[1], worst[2]
    );
}

/// (b) `examples/pendulum_limit_2d.toml`: a rod pinned at its end, released horizontal onto a
/// stop 1 rad below. It ends at rest on the stop (angle to `TOL h`, speed to the tolerance of
/// its momentum rows), so it has lost `m g (L/2) sin φ` of energy in all (to 1e-9 J, the
/// rounding of the energies); the kinetic energy it hits with (the last free step's) is that
/// of the exact swing to its angle within backward Euler's damping (`ω² h t` ≈ 14.7 · 1e-3 ·
/// 0.45 ≈ 0.7 % of it: 2 % allowed), and all of it is lost by the end of the step after the impact; at rest the stop's impulse
/// balances gravity's torque about the pin, `m g (L/2) cos φ h`, to 1e-9 N·m·s.
#[test]
fn a_pendulum_swings_onto_its_stop_and_rests() {
    let (length, m, h, phi) = (1.0f64, 2.0, 1e-3, 1.0f64);
    let scene = example("pendulum_limit_2d");
    assert_eq!((scene.bodies[0].mass, scene.time_step), (m, h));
    assert_eq!(scene.joints[0].limits, Some([-phi, 0.5]));
    let e0 = scene.kinetic_energy() + scene.potential_energy();
    let mut s = stepper(scene);
    let mut impact = None;
    let mut before = 0.0;
    let mut angle_before = 0.0;
    for k in 1..=s.scene.step_count() {
        let kinetic = s.scene.kinetic_energy();
        let angle = s.scene.bodies[0].pose.rotation.angle();
        assert!(s.step().converged, "step {k}");
        let limit = s.joints()[0].limit_impulse.unwrap();
        if impact.is_none() && limit > TOL {
            impact = Some(k);
            before = kinetic;
            angle_before = angle;
        }
    }
    let impact = impact.expect("the rod reaches its stop");
    let rod = &s.scene.bodies[0];
    let angle = rod.pose.rotation.angle();
    assert!(
        (angle + phi).abs() <= TOL * h,
        "rests at {angle}, the stop at −{phi}"
    );
    // A momentum row solved to TOL leaves the rod's spin to TOL over its inertia about the
    // pin, m L² / 3, and the pin's speed to TOL / m.
    let inertia = m * length * length / 3.0;
    assert!(
        rod.twist.angular[0].abs() <= TOL / inertia && rod.twist.linear.norm() <= TOL / m,
        "rests with spin {} rad/s, speed {} m/s",
        rod.twist.angular[0],
        rod.twist.linear.norm()
    );
    let e1 = s.scene.kinetic_energy() + s.scene.potential_energy();
    let lost = m * G * 0.5 * length * phi.sin();
    assert!(
        ((e0 - e1) - lost).abs() <= 1e-9,
        "lost {} vs {lost}",
        e0 - e1
    );
    // The exact swing's kinetic energy at the last free step's angle.
    let swing = m * G * 0.5 * length * (-angle_before).sin();
    assert!(
        (before - swing).abs() <= 0.02 * swing,
        "hit with {before} J, the swing's {swing} J"
    );
    let torque = m * G * 0.5 * length * phi.cos();
    let limit = s.joints()[0].limit_impulse.unwrap();
    assert!(
        (limit - torque * h).abs() <= 1e-9,
        "{limit} vs {}",
        torque * h
    );
    eprintln!(
        "pendulum: impact at step {impact} (t = {:.3} s); rest angle error {:.1e} rad; hit with \
         {before:.4} J vs the swing's {swing:.4} J ({:.2} %); energy lost {:.12} vs {lost:.12} J; \
         stop impulse error {:.1e} N·m·s",
        impact as f64 * h,
        (angle + phi).abs(),
        100.0 * (swing - before) / swing,
        e0 - e1,
        (limit - torque * h).abs()
    );
}

/// (c) Joint friction. `examples/slider_friction_2d.toml`: a block on a rail at α = 0.4 rad
/// with friction `F` = 2 N < `m g sin α` = 5.73 N slides with Euler's discrete motion
/// `s_k = h² (g sin α − F/m) k (k + 1)/2` (1e-10 relative, the solve's tolerance), its friction
/// impulse `−F h` exactly (at its bound); with `F` = 8 N it stays (speed ≤ 1e-10 m/s), the
/// friction holding gravity's pull, `−m g sin α h` to 1e-10 N·s. A pinned wheel with friction
/// torque `T` = 0.5 N·m and a constant actuator torque `τ` spins up as `ω_k = k h (τ − T)/I`
/// when `τ` = 0.7 N·m (1e-10 relative) and stays (|ω| ≤ 1e-10 rad/s) when `τ` = 0.3 N·m.
#[test]
fn joint_friction_brakes_a_slider_and_a_wheel() {
    let (alpha, m, h) = (0.4f64, 1.5, 0.01);
    let pull = m * G * alpha.sin();
    // Worst relative slide error, stuck speed, stuck impulse error; spin-up error, stuck spin.
    let mut worst = [0.0f64; 5];
    for friction in [2.0, 8.0] {
        let mut scene = example("slider_friction_2d");
        assert_eq!(scene.joints[0].friction, Some(2.0));
        scene.joints[0].friction = Some(friction);
        let start = scene.bodies[0].pose.position;
        let mut s = stepper(scene);
        let a = G * alpha.sin() - friction / m;
        for k in 1..=s.scene.step_count() {
            assert!(s.step().converged, "F = {friction}, step {k}");
            let c = s.scene.bodies[0].pose.position - start;
            let along = -(c.x * alpha.cos() + c.y * alpha.sin());
            let v = s.scene.bodies[0].twist.linear.norm();
            let p = s.joints()[0].friction_impulse.unwrap();
            if friction < pull {
                let exact = h * h * a * (k * (k + 1)) as f64 / 2.0;
                assert!(
                    (along - exact).abs() <= 1e-10 * exact,
                    "step {k}: {along} vs {exact}"
                );
                assert!(
                    (p + friction * h).abs() <= 1e-12,
                    "step {k}: friction impulse {p}"
                );
                worst[0] = worst[0].max((along - exact).abs() / exact);
            } else {
                assert!(v <= 1e-10 && along.abs() <= 1e-10, "step {k}: moves at {v}");
                assert!(
                    (p + pull * h).abs() <= 1e-10,
                    "step {k}: {p} vs {}",
                    -pull * h
                );
                worst[1] = worst[1].max(v);
                worst[2] = worst[2].max((p + pull * h).abs());
            }
        }
    }
    let (torque_friction, width) = (0.5, 0.2);
    for tau in [0.7, 0.3] {
        let scene = Scene::<Planar>::new(
            "wheel",
            Vector2::new(0.0, -G),
            Friction::coulomb(0.0),
            h,
            1.0,
        )
        .unwrap()
        .with_body(rod("wheel", width, width, m, 0.0, 0.0))
        .unwrap();
        let inertia = scene.bodies[0].inertia;
        let j = joint(
            &scene,
            JointKind::Revolute,
            "wheel",
            Vector2::zeros(),
            Vector2::zeros(),
        )
        .with_actuator("wheel", 0, Actuator::Constant(tau))
        .unwrap()
        .with_friction("wheel", 0, torque_friction)
        .unwrap();
        let mut s = stepper(scene.with_joint(j));
        for k in 1..=s.scene.step_count() {
            assert!(s.step().converged, "τ = {tau}, step {k}");
            let w = s.scene.bodies[0].twist.angular[0];
            if tau > torque_friction {
                let spin = k as f64 * h * (tau - torque_friction) / inertia;
                assert!((w - spin).abs() <= 1e-10 * spin, "step {k}: {w} vs {spin}");
                worst[3] = worst[3].max((w - spin).abs() / spin);
            } else {
                assert!(w.abs() <= 1e-10, "step {k}: spins at {w}");
                worst[4] = worst[4].max(w.abs());
                let p = s.joints()[0].friction_impulse.unwrap();
                assert!((p + tau * h).abs() <= 1e-10, "step {k}: {p}");
            }
        }
    }
    eprintln!(
        "friction: slide {:.1e} rel, stuck speed {:.1e} m/s, stuck impulse {:.1e} N·s; wheel \
         spin-up {:.1e} rel, stuck spin {:.1e} rad/s",
        worst[0], worst[1], worst[2], worst[3], worst[4]
    );
}

/// (d) A 3D door (a box on a hinge about `z`, gravity along −y) swinging onto its stop follows
/// the planar rod with the same limits step by step to 1e-9 m (two solves' tolerances, as for
/// the free hinge in `tests/joints.rs`), and rests on it.
#[test]
fn a_hinged_door_swings_onto_its_stop_as_the_planar_rod() {
    let (length, width, m, h, limits) = (1.0, 0.05, 2.0, 1e-3, [-1.0, 0.5]);
    let scene2 = Scene::<Planar>::new("pin", Vector2::new(0.0, -G), Friction::coulomb(0.0), h, 1.0)
        .unwrap()
        .with_body(rod("rod", length, width, m, 0.5 * length, 0.0))
        .unwrap();
    let pin = joint(
        &scene2,
        JointKind::Revolute,
        "rod",
        Vector2::zeros(),
        Vector2::zeros(),
    )
    .with_limits("pin", 0, limits)
    .unwrap();
    let mut s2 = stepper(scene2.with_joint(pin));
    let scene3 = Scene::<Spatial>::new(
        "door",
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
    let hinge = joint(
        &scene3,
        JointKind::Revolute,
        "rod",
        Vector3::zeros(),
        Vector3::z(),
    )
    .with_limits("door", 0, limits)
    .unwrap();
    let mut s3 = stepper(scene3.with_joint(hinge));
    let mut worst = 0.0f64;
    for k in 0..s2.scene.step_count() {
        assert!(s2.step().converged && s3.step().converged, "step {k}");
        let (p2, p3) = (
            s2.scene.bodies[0].pose.position,
            s3.scene.bodies[0].pose.position,
        );
        let e = (p3.x - p2.x).abs().max((p3.y - p2.y).abs()).max(p3.z.abs());
        assert!(e < 1e-9, "step {k}: {e:e}");
        worst = worst.max(e);
        let (l2, l3) = (
            s2.joints()[0].limit_impulse.unwrap(),
            s3.joints()[0].limit_impulse.unwrap(),
        );
        assert!(
            (l2 - l3).abs() < 1e-9,
            "step {k}: stop impulses {l2} vs {l3}"
        );
        assert!(s3.joint_drift() <= 1e-9);
    }
    let angle = s3.scene.bodies[0].pose.rotation.scaled_axis().z;
    assert!((angle + 1.0).abs() <= TOL * h, "the door rests at {angle}");
    eprintln!("door: largest 2D–3D difference {worst:.1e} m");
}

/// Midpoint and RATTLE refuse limits and friction (their velocity projection is written for
/// equality rows), naming the joint and the way out.
#[test]
fn the_second_order_integrators_refuse_limits_and_friction() {
    let scene = example("slider_friction_2d");
    for integrator in [Integrator::Midpoint, Integrator::Rattle] {
        let settings = StepperSettings {
            integrator,
            ..StepperSettings::default()
        };
        let e = ImplicitStepper::new(scene.clone(), settings)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("joint `rail`") && e.contains("integrator = \"euler\""),
            "{e}"
        );
    }
    let settings = StepperSettings {
        integrator: Integrator::Rattle,
        ..StepperSettings::default()
    };
    let mut plain = scene;
    plain.joints[0].friction = None;
    assert!(ImplicitStepper::new(plain, settings).is_ok());
}
