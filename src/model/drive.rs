//! Prescribed motion of a driven body as a table of poses (`[body.drive]`): the pose at time `t`
//! interpolated between the table's entries — the position linearly, the orientation along the
//! shortest rotation between them (`R(t) = exp(s log(R_{k+1} R_kᵀ)) R_k`, `s` the fraction of the
//! interval) — held at the first pose before the first time and at the last after it.
//!
//! A step from `t` to `t + h` moves a driven body with the constant twist that carries it from
//! the table's pose at `t` to its pose at `t + h` through the step's kinematic map
//! ([`crate::model::end_of_step_pose`]): so every row of the step sees the body at the table's
//! pose at the end of the step, `t^{ℓ+1}`, as the blocks' rows require, and the body follows
//! the table without drift.

use super::dynamics::Dynamics;
use super::spatial::Twist;
use crate::geometry::Pose;

/// A table of poses of a driven body (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct PoseTable<S: Dynamics> {
    times: Vec<f64>,
    poses: Vec<Pose<S>>,
}

impl<S: Dynamics> PoseTable<S> {
    /// The table of `poses` at `times` (at least two, finite, strictly increasing, the first
    /// `≥ 0`); the reason if not.
    pub fn new(times: Vec<f64>, poses: Vec<Pose<S>>) -> Result<Self, String> {
        if times.len() != poses.len() {
            return Err(format!(
                "{} times but {} poses: one pose per time",
                times.len(),
                poses.len()
            ));
        }
        if times.len() < 2 {
            return Err(format!("needs at least two entries, got {}", times.len()));
        }
        if let Some(t) = times.iter().find(|t| !t.is_finite()) {
            return Err(format!("times must be finite, got {t}"));
        }
        if times[0] < 0.0 {
            return Err(format!("times start at 0 or later, got {}", times[0]));
        }
        if let Some(k) = (1..times.len()).find(|&k| times[k] <= times[k - 1]) {
            return Err(format!(
                "times must increase strictly: times[{k}] = {} after {}",
                times[k],
                times[k - 1]
            ));
        }
        Ok(Self { times, poses })
    }

    /// The table's times.
    pub fn times(&self) -> &[f64] {
        &self.times
    }

    /// The table's poses.
    pub fn poses(&self) -> &[Pose<S>] {
        &self.poses
    }

    /// The pose at time `t`.
    pub fn pose(&self, t: f64) -> Pose<S> {
        let n = self.times.len();
        if t <= self.times[0] {
            return self.poses[0];
        }
        if t >= self.times[n - 1] {
            return self.poses[n - 1];
        }
        let k = self.times.partition_point(|&tk| tk <= t) - 1;
        let s = (t - self.times[k]) / (self.times[k + 1] - self.times[k]);
        let (a, b) = (&self.poses[k], &self.poses[k + 1]);
        let turn = S::log(&S::compose(&b.rotation, &S::inverse(&a.rotation)));
        Pose {
            position: a.position + (b.position - a.position) * s,
            rotation: S::normalize(&S::compose(&S::exp(&(turn * s)), &a.rotation)),
        }
    }

    /// The constant twist of a step from `t` to `t + h` that carries the table's pose at `t` to
    /// its pose at `t + h`.
    pub fn step_twist(&self, t: f64, h: f64) -> Twist<S> {
        let (a, b) = (self.pose(t), self.pose(t + h));
        let turn = S::log(&S::compose(&b.rotation, &S::inverse(&a.rotation)));
        Twist::new((b.position - a.position) * (1.0 / h), turn * (1.0 / h))
    }
}
