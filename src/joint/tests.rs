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
    let joint = Joint::new("test", 0, "j", kind, body1, 1, anchor, axis, &bodies).unwrap();
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

fn check_kind<S: Dynamics>(kind: JointKind, body: impl Fn(&str) -> RigidBody<S> + Copy) {
    let mut draw = Draw(0x9e37_79b9_7f4a_7c15);
    let h = 0.01;
    for world in [false, true] {
        for _ in 0..20 {
            let (block, poses) = random_case::<S>(kind, world, &mut draw, body);
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
        check_kind::<Planar>(kind, body);
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
        check_kind::<Spatial>(kind, body);
    }
}
