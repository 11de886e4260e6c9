//! The joint rows against central differences, 2D and 3D, every kind, body–body and
//! body–world, at random poses, velocities and multipliers.

use super::*;
use crate::geometry::{Planar, Spatial};
use crate::model::RigidBody;
use crate::scenes::{disc_body, sphere_body};

/// A small deterministic generator (xorshift), values in [−1, 1).
struct Draw(u64);

impl Draw {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
}

/// Two moving bodies at random poses, and a joint of `kind` between them (or body 2 and the
/// world) at a random anchor and axis.
fn random_case<S: Dynamics>(
    kind: JointKind,
    world: bool,
    draw: &mut Draw,
    body: impl Fn(&str) -> RigidBody<S>,
    extra: Extra<S>,
) -> (JointBlock<S>, [Pose<S>; 2]) {
    let mut bodies = vec![body("a"), body("b")];
    for b in &mut bodies {
        let phi = S::angular_from_fn(|_| 2.0 * draw.next());
        b.pose = Pose {
            position: S::vector_from_fn(|_| draw.next()),
            rotation: S::exp(&phi),
        };
    }
    let anchor = S::vector_from_fn(|_| draw.next());
    let axis = S::vector_from_fn(|_| draw.next());
    let body1 = if world { None } else { Some(0) };
    let joint = extra(Joint::new("test", 0, "j", kind, body1, 1, anchor, axis, &bodies).unwrap());
    let pose1 = if world {
        Pose::identity()
    } else {
        bodies[0].pose
    };
    (JointBlock::new(joint), [pose1, bodies[1].pose])
}

/// Rows and wrenches at `(λ, ν₁, ν₂)` from the start poses over a step `h`.
fn values<S: Dynamics>(
    block: &JointBlock<S>,
    poses: &[Pose<S>; 2],
    world: bool,
    z: &[f64],
    h: f64,
) -> JointEval {
    let n = block.local_count();
    let dof = S::DOF;
    let s1 = if world {
        BodyStep::fixed(poses[0])
    } else {
        BodyStep::advance(&poses[0], &z[n..n + dof], h)
    };
    let s2 = BodyStep::advance(&poses[1], &z[n + dof..n + 2 * dof], h);
    let mut eval = block.new_eval();
    block.evaluate(&z[..n], &s1, &s2, h, &mut eval);
    eval
}

/// What a test adds to a joint (limits, friction).
type Extra<S> = fn(Joint<S>) -> Joint<S>;

fn plain<S: Dynamics>(j: Joint<S>) -> Joint<S> {
    j
}

/// Limits and friction on the free coordinate.
fn limited<S: Dynamics>(j: Joint<S>) -> Joint<S> {
    j.with_limits("test", 0, [-0.4, 0.7])
        .unwrap()
        .with_friction("test", 0, 2.5)
        .unwrap()
}

/// Friction only (its row right after the equality rows).
fn braked<S: Dynamics>(j: Joint<S>) -> Joint<S> {
    j.with_friction("test", 0, 2.5).unwrap()
}

fn check_kind<S: Dynamics>(
    kind: JointKind,
    body: impl Fn(&str) -> RigidBody<S> + Copy,
    extra: Extra<S>,
) {
    let mut draw = Draw(0x9e37_79b9_7f4a_7c15);
    let h = 0.01;
    for world in [false, true] {
        for _ in 0..20 {
            let (block, poses) = random_case::<S>(kind, world, &mut draw, body, extra);
            let n = block.local_count();
            // The initial configuration satisfies every row.
            assert!(block.drift(&poses[0], &poses[1]) < 1e-12, "{kind:?}");
            let total = block.total();
            let z: Vec<f64> = (0..total)
                .map(|i| if i < n { 3.0 } else { 20.0 } * draw.next())
                .collect();
            let eval = values(&block, &poses, world, &z, h);
            let mut worst = 0.0f64;
            for c in 0..total {
                if world && (n..n + S::DOF).contains(&c) {
                    continue;
                }
                let e = 1e-6 * z[c].abs().max(1.0);
                let (mut zp, mut zm) = (z.clone(), z.clone());
                zp[c] += e;
                zm[c] -= e;
                let (fp, fm) = (
                    values(&block, &poses, world, &zp, h),
                    values(&block, &poses, world, &zm, h),
                );
                for r in 0..total {
                    let fd = (fp.values[r] - fm.values[r]) / (2.0 * e);
                    let exact = eval.jacobian[(r, c)];
                    worst = worst.max((fd - exact).abs() / exact.abs().max(1.0));
                }
            }
            // The bound every analytic Jacobian of the crate is held to.
            assert!(worst < 1e-6, "{kind:?} world {world}: {worst:e}");
            // The wrench is G_bᵀ λ and the rows' Jacobian G_b D_b / h: with ν = 0, D = h I, so
            // the λ columns of the wrench rows are the ν columns of the rows.
            let z0: Vec<f64> = (0..total).map(|i| if i < n { z[i] } else { 0.0 }).collect();
            let e0 = values(&block, &poses, world, &z0, h);
            for i in 0..n {
                for c in n..total {
                    let (a, b) = (e0.jacobian[(c, i)], e0.jacobian[(i, c)]);
                    if !(world && c < n + S::DOF) {
                        assert!((a - b).abs() < 1e-12, "{kind:?}: workless impulse");
                    }
                }
            }
        }
    }
}

#[test]
fn planar_joint_jacobians_are_exact() {
    let body = |name: &str| disc_body(name, 0.3, 0.0, 0.0).unwrap();
    for kind in [JointKind::Revolute, JointKind::Prismatic, JointKind::Fixed] {
        check_kind::<Planar>(kind, body, plain);
    }
    for kind in [JointKind::Revolute, JointKind::Prismatic] {
        check_kind::<Planar>(kind, body, limited);
        check_kind::<Planar>(kind, body, braked);
    }
}

#[test]
fn spatial_joint_jacobians_are_exact() {
    let body = |name: &str| sphere_body(name, 0.3, nalgebra::Vector3::zeros()).unwrap();
    for kind in [
        JointKind::Revolute,
        JointKind::Prismatic,
        JointKind::Fixed,
        JointKind::Ball,
    ] {
        check_kind::<Spatial>(kind, body, plain);
    }
    for kind in [JointKind::Revolute, JointKind::Prismatic] {
        check_kind::<Spatial>(kind, body, limited);
        check_kind::<Spatial>(kind, body, braked);
    }
}

/// The limit rows' coordinate is [`JointBlock::coordinate`]'s to rounding at any poses (the
/// rows need not hold: both are functions of the poses alone), the friction row's rate is its
/// rate where the joint's rows hold, the limit rows read `q − lo` and `hi − q`, and the
/// bounds are `[0, ∞)` and `±F h`.
fn check_coordinate<S: Dynamics>(body: impl Fn(&str) -> RigidBody<S> + Copy) {
    let mut draw = Draw(0x2545_f491_4f6c_dd1d);
    let h = 0.01;
    for kind in [JointKind::Revolute, JointKind::Prismatic] {
        for world in [false, true] {
            for _ in 0..20 {
                let (block, poses) = random_case::<S>(kind, world, &mut draw, body, limited);
                let n = block.local_count();
                let nu: Vec<f64> = (0..2 * S::DOF).map(|_| 3.0 * draw.next()).collect();
                let (t1, t2) = if world {
                    (vec![0.0; S::DOF], nu[S::DOF..].to_vec())
                } else {
                    (nu[..S::DOF].to_vec(), nu[S::DOF..].to_vec())
                };
                // At the start poses, where the rows hold, moving with (t1, t2).
                let step = |pose: &Pose<S>, t: &[f64], fixed: bool| {
                    let mut s = BodyStep::advance(pose, t, h);
                    s.pose_end = *pose;
                    if fixed { BodyStep::fixed(*pose) } else { s }
                };
                let (s1, s2) = (step(&poses[0], &t1, world), step(&poses[1], &t2, false));
                let mut eval = block.new_eval();
                block.evaluate(&vec![0.0; n], &s1, &s2, h, &mut eval);
                let (q, rate) = block.coordinate(&poses[0], &poses[1], &t1, &t2).unwrap();
                assert!(q.abs() < 1e-12, "{kind:?}: q = {q} at the start");
                let r = eval.residual();
                assert!(
                    (r[n - 3] - (q + 0.4) / h).abs() < 1e-9,
                    "{kind:?}: lower {r:?}"
                );
                assert!(
                    (r[n - 2] - (0.7 - q) / h).abs() < 1e-9,
                    "{kind:?}: upper {r:?}"
                );
                assert!(
                    (r[n - 1] - rate).abs() < 1e-12,
                    "{kind:?}: {} vs {rate}",
                    r[n - 1]
                );
                // Anywhere: the same coordinate.
                let z: Vec<f64> = (0..block.total()).map(|_| 20.0 * draw.next()).collect();
                let s1 = if world {
                    BodyStep::fixed(poses[0])
                } else {
                    BodyStep::advance(&poses[0], &z[n..n + S::DOF], h)
                };
                let s2 = BodyStep::advance(&poses[1], &z[n + S::DOF..], h);
                let (p1, p2) = (s1.pose_end, s2.pose_end);
                let (q, _) = block.coordinate(&p1, &p2, &t1, &t2).unwrap();
                let q_rows = block.limit_coordinate(&p1, &p2).unwrap();
                assert!((q - q_rows).abs() < 1e-14, "{kind:?}: {q} vs {q_rows}");
                assert!(q.abs() > 1e-3, "the test moves the joint");
                let (lo, hi) = block.bounds(h);
                assert_eq!(lo[n - 3..], [0.0, 0.0, -2.5 * h]);
                assert_eq!(hi[n - 3..], [f64::INFINITY, f64::INFINITY, 2.5 * h]);
                assert!(lo[..n - 3].iter().all(|l| *l == f64::NEG_INFINITY));
            }
        }
    }
}

#[test]
fn the_limit_rows_measure_the_joints_coordinate() {
    check_coordinate::<Planar>(|name: &str| disc_body(name, 0.3, 0.0, 0.0).unwrap());
    check_coordinate::<Spatial>(|name: &str| {
        sphere_body(name, 0.3, nalgebra::Vector3::zeros()).unwrap()
    });
}

/// Limits and friction are refused on kinds without a free coordinate, and bad values.
#[test]
fn bad_limits_and_friction_are_refused() {
    let bodies = vec![disc_body("a", 0.3, 0.0, 0.0).unwrap()];
    let j = |kind| {
        Joint::<Planar>::new(
            "s",
            0,
            "j",
            kind,
            None,
            0,
            Default::default(),
            nalgebra::Vector2::x(),
            &bodies,
        )
        .unwrap()
    };
    let pi = std::f64::consts::PI;
    for (kind, limits, what) in [
        (JointKind::Fixed, [-1.0, 1.0], "no free coordinate"),
        (JointKind::Prismatic, [0.5, 0.2], "below the upper"),
        (JointKind::Prismatic, [0.2, 0.2], "below the upper"),
        (JointKind::Prismatic, [f64::NAN, 0.2], "not finite"),
        (JointKind::Prismatic, [0.1, 0.2], "outside"),
        (JointKind::Prismatic, [-0.3, -0.2], "outside"),
        (JointKind::Revolute, [-pi, 1.0], "(−π, π)"),
        (JointKind::Revolute, [-1.0, 3.2], "(−π, π)"),
    ] {
        let e = j(kind).with_limits("s", 0, limits).unwrap_err().to_string();
        assert!(e.contains("joint[0].limits") && e.contains(what), "{e}");
    }
    assert!(
        j(JointKind::Prismatic)
            .with_limits("s", 0, [0.0, 5.0])
            .is_ok()
    );
    assert!(
        j(JointKind::Revolute)
            .with_limits("s", 0, [-3.1, 0.0])
            .is_ok()
    );
    for (kind, f, what) in [
        (JointKind::Fixed, 1.0, "no free coordinate"),
        (JointKind::Revolute, 0.0, "> 0"),
        (JointKind::Revolute, -1.0, "> 0"),
        (JointKind::Revolute, f64::INFINITY, "> 0"),
    ] {
        let e = j(kind).with_friction("s", 0, f).unwrap_err().to_string();
        assert!(e.contains("joint[0].friction") && e.contains(what), "{e}");
    }
    let plain = j(JointKind::Revolute);
    assert!(!plain.has_inequality_rows());
    assert!(
        plain
            .clone()
            .with_friction("s", 0, 1.0)
            .unwrap()
            .has_inequality_rows()
    );
    assert!(
        plain
            .with_limits("s", 0, [-1.0, 1.0])
            .unwrap()
            .has_inequality_rows()
    );
}
