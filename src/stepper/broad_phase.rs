//! Broad phase: the pairs of convex parts that may touch within the coming step.
//!
//! Each bounded part is enclosed in a world-frame ball (its interior point and bounding radius,
//! [`crate::geometry::ConvexPart::bounding_radius`]) inflated by how far the body can sweep it
//! in a step; pairs whose inflated balls overlap are found by sort-and-sweep along `x`, so the
//! cost is `O(N log N)` plus the number of close pairs, not `O(N²)`. A part with no bounded
//! ball (a half-space ground) is paired with every part of every other body: such parts are
//! few, so this stays linear in the number of bodies.
//!
//! Pairs of bodies linked by a joint, or excluded by the scene, are left out: they do not collide.
//!
//! The inflation only has to be a good guess: the stepper checks after each step that no pair
//! left out of the step's MCP has overlapping balls at the end of the step, and redoes the step
//! with those pairs if one has (see [`super::ImplicitStepper`]).

use crate::model::{Dynamics, Scene};

/// A pair of parts of two different bodies: `(body i, part of i, body j, part of j)`, `i < j`.
pub type PairKey = (usize, usize, usize, usize);

/// One bounded part's ball in the world frame.
#[derive(Debug, Clone, Copy)]
struct Ball {
    body: usize,
    part: usize,
    centre: [f64; 3],
    /// Bounding radius plus sweep.
    reach: f64,
}

/// Reusable workspace of the broad phase.
#[derive(Debug, Default, Clone)]
pub(crate) struct BroadPhase {
    balls: Vec<Ball>,
    unbounded: Vec<(usize, usize)>,
    /// The pairs found by the last query, sorted.
    pub pairs: Vec<PairKey>,
}

fn key(a: (usize, usize), b: (usize, usize)) -> PairKey {
    if a.0 < b.0 {
        (a.0, a.1, b.0, b.1)
    } else {
        (b.0, b.1, a.0, a.1)
    }
}

impl BroadPhase {
    /// Fills [`pairs`](Self::pairs) with every pair of parts of different bodies, not both
    /// fixed, whose balls inflated by `sweep` overlap, and every pair with an unbounded part.
    /// `sweep(body, radius, distance from the body's origin to the ball's centre)` is how far
    /// that ball may move; 0 gives the plain overlap test.
    pub fn query<S: Dynamics>(
        &mut self,
        scene: &Scene<S>,
        sweep: impl Fn(usize, f64, f64) -> f64,
    ) -> &[PairKey] {
        self.balls.clear();
        self.unbounded.clear();
        self.pairs.clear();
        for (b, body) in scene.bodies.iter().enumerate() {
            for (p, part) in body.shape.parts().iter().enumerate() {
                match (part.interior_point(), part.bounding_radius()) {
                    (Some(c), Some(r)) => {
                        let w = body.pose.transform_point(&c);
                        let mut centre = [0.0; 3];
                        for (k, x) in centre.iter_mut().enumerate().take(S::DIM) {
                            *x = w[k];
                        }
                        let arm = S::norm(&(w - body.pose.position));
                        self.balls.push(Ball {
                            body: b,
                            part: p,
                            centre,
                            reach: r + sweep(b, r, arm),
                        });
                    }
                    _ => self.unbounded.push((b, p)),
                }
            }
        }
        let fixed = |b: usize| scene.bodies[b].fixed;
        // Unbounded parts against every part of the other bodies.
        for &(b, p) in &self.unbounded {
            for (b2, body) in scene.bodies.iter().enumerate() {
                if b2 == b || (fixed(b) && fixed(b2)) {
                    continue;
                }
                for p2 in 0..body.shape.parts().len() {
                    let other_unbounded = self.unbounded.contains(&(b2, p2));
                    // An unbounded–unbounded pair is met twice; keep it once.
                    if !other_unbounded || b < b2 {
                        self.pairs.push(key((b, p), (b2, p2)));
                    }
                }
            }
        }
        // Sort and sweep along x.
        self.balls.sort_by(|a, b| {
            (a.centre[0] - a.reach)
                .total_cmp(&(b.centre[0] - b.reach))
                .then((a.body, a.part).cmp(&(b.body, b.part)))
        });
        for i in 0..self.balls.len() {
            let a = self.balls[i];
            let x_max = a.centre[0] + a.reach;
            for b in &self.balls[i + 1..] {
                if b.centre[0] - b.reach > x_max {
                    break;
                }
                if a.body == b.body || (fixed(a.body) && fixed(b.body)) {
                    continue;
                }
                let d2: f64 = (0..3).map(|k| (a.centre[k] - b.centre[k]).powi(2)).sum();
                let r = a.reach + b.reach;
                if d2 <= r * r {
                    self.pairs.push(key((a.body, a.part), (b.body, b.part)));
                }
            }
        }
        self.pairs.sort_unstable();
        self.pairs.dedup();
        // The bodies a joint links do not collide (their parts usually overlap at the joint),
        // nor do pairs the scene excludes.
        if !scene.joints.is_empty() || !scene.no_collision.is_empty() {
            self.pairs.retain(|&(i, _, j, _)| scene.may_collide(i, j));
        }
        &self.pairs
    }
}
