//! Bilateral joints between two bodies, or a body and the world (paper §3, equality
//! constraints `Θ(q) = 0`; the rows are in [`crate::joint`]).
//!
//! A joint is given the way a researcher sets it up: its kind, its two bodies, and an anchor
//! point and an axis in the world at the scene's initial poses. The joint keeps them in each
//! body's frame (the anchor `s_b` and the joint frame `J_b`, whose first column is the axis),
//! so the initial configuration satisfies every row exactly and the joint holds the bodies in
//! the relative pose they start in.

use super::body::RigidBody;
use super::dynamics::Dynamics;
use super::error::ModelError;

/// What a joint leaves free.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JointKind {
    /// Rotation about the axis through the anchor (2D: a pin; the axis is not used).
    Revolute,
    /// Translation along the axis; no relative rotation.
    Prismatic,
    /// Nothing: a weld.
    Fixed,
    /// Every rotation about the anchor (3D only).
    Ball,
}

impl JointKind {
    /// The scenario key's spelling.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Revolute => "revolute",
            Self::Prismatic => "prismatic",
            Self::Fixed => "fixed",
            Self::Ball => "ball",
        }
    }

    /// Whether the joint's rows use its axis (a 3D hinge, a slider).
    pub fn uses_axis(&self, dim: usize) -> bool {
        match self {
            Self::Prismatic => true,
            Self::Revolute => dim == 3,
            Self::Fixed | Self::Ball => false,
        }
    }
}

/// A force (prismatic) or torque (revolute) that drives a joint's free coordinate `q` (metres
/// along the axis, or radians about it, from the initial configuration): applied to body 2
/// along (about) the joint's axis and its opposite to body 1, at body 2's anchor. It is an
/// applied load like gravity, taken at the start of the step (explicit): a PD actuator is
/// stable for `k h² / m_eff` well below 1 (`m_eff` the mass or inertia it drives).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Actuator {
    /// A constant force (N) or torque (N·m).
    Constant(f64),
    /// `clamp(k (q* − q) − c (q̇ − s), −max, max)` with the set point `q* = target + s t`: a PD
    /// controller tracking `target` (m or rad) moving at `speed` `s` (m/s or rad/s; 0: a fixed
    /// set point), stiffness `k` (N/m or N·m/rad), damping `c` (N·s/m or N·m·s/rad), saturated
    /// at `max`.
    Pd {
        /// The set point of `q` at `t = 0`.
        target: f64,
        /// The set point's rate.
        speed: f64,
        /// `k ≥ 0`.
        stiffness: f64,
        /// `c ≥ 0`.
        damping: f64,
        /// The saturation `> 0` (N or N·m).
        max: f64,
    },
}

impl Actuator {
    /// The force or torque at coordinate `q` and rate `q̇` at time `t`.
    pub fn output(&self, q: f64, rate: f64, t: f64) -> f64 {
        match *self {
            Self::Constant(f) => f,
            Self::Pd {
                target,
                speed,
                stiffness,
                damping,
                max,
            } => {
                let error = target + speed * t - q;
                (stiffness * error - damping * (rate - speed)).clamp(-max, max)
            }
        }
    }

    /// Why the actuator's parameters are invalid, if they are.
    pub fn problem(&self) -> Option<String> {
        match *self {
            Self::Constant(f) if !f.is_finite() => Some(format!("force not finite: {f}")),
            Self::Constant(_) => None,
            Self::Pd {
                target,
                speed,
                stiffness,
                damping,
                max,
            } => {
                if !target.is_finite() {
                    Some(format!("target not finite: {target}"))
                } else if !speed.is_finite() {
                    Some(format!("speed not finite: {speed}"))
                } else if !(stiffness.is_finite() && stiffness >= 0.0) {
                    Some(format!("stiffness must be finite and ≥ 0, got {stiffness}"))
                } else if !(damping.is_finite() && damping >= 0.0) {
                    Some(format!("damping must be finite and ≥ 0, got {damping}"))
                } else if !(max.is_finite() && max > 0.0) {
                    Some(format!("max must be finite and > 0, got {max}"))
                } else {
                    None
                }
            }
        }
    }
}

/// A bilateral joint: which bodies, and the anchor and joint frame in each body's frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Joint<S: Dynamics> {
    /// Names the joint in errors and output.
    pub name: String,
    /// What the joint leaves free.
    pub kind: JointKind,
    /// Body 1 (`None`: the world, the identity pose).
    pub body1: Option<usize>,
    /// Body 2.
    pub body2: usize,
    /// The anchor in body 1's and body 2's frames.
    pub anchor: [S::Vector; 2],
    /// The joint frame's axes (`D` columns, the first the joint's axis) in body 1's and body
    /// 2's frames.
    pub axes: [[S::Vector; 3]; 2],
    /// What drives the joint's free coordinate, if anything (prismatic and revolute only).
    pub actuator: Option<Actuator>,
    /// Stops `[lo, hi]` of the free coordinate `q` (prismatic and revolute only; m along the
    /// axis, or rad about it from the initial configuration, so `lo ≤ 0 ≤ hi`): inelastic,
    /// complementarity rows of the joint's block ([`crate::joint`]).
    pub limits: Option<[f64; 2]>,
    /// The largest Coulomb friction force (N, prismatic) or torque (N·m, revolute) `F > 0`
    /// opposing the free coordinate's rate (MuJoCo's `frictionloss`).
    pub friction: Option<f64>,
}

impl<S: Dynamics> Joint<S> {
    /// A joint of `kind` between `body1` (`None`: the world) and `body2` of `bodies`, at the
    /// world point `anchor` with the world direction `axis` (any length; only its direction is
    /// used, and only by kinds that have an axis), both at the bodies' current poses.
    /// `scene` names the scene in errors, whose fields are `joint[index].…`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        scene: &str,
        index: usize,
        name: &str,
        kind: JointKind,
        body1: Option<usize>,
        body2: usize,
        anchor: S::Vector,
        axis: S::Vector,
        bodies: &[RigidBody<S>],
    ) -> Result<Self, ModelError> {
        let err = |field: &str, reason: String| {
            ModelError::scene(scene, format!("joint[{index}].{field}"), reason)
        };
        if kind == JointKind::Ball && S::DIM == 2 {
            return Err(err(
                "kind",
                "a ball joint is spatial; a planar pin is `revolute`".into(),
            ));
        }
        for (field, b) in [("body1", body1), ("body2", Some(body2))] {
            if let Some(b) = b
                && b >= bodies.len()
            {
                return Err(err(field, format!("no body {b}")));
            }
        }
        if body1 == Some(body2) {
            return Err(err(
                "body2",
                format!("a joint needs two bodies, `{}` twice", bodies[body2].name),
            ));
        }
        let fixed = |b: Option<usize>| b.is_none_or(|b| bodies[b].fixed);
        if fixed(body1) && fixed(Some(body2)) {
            return Err(err(
                "body2",
                "both bodies are fixed: the joint holds nothing".into(),
            ));
        }
        if !S::is_finite(&anchor) {
            return Err(err("anchor", format!("not finite: {anchor:?}")));
        }
        let length = S::norm(&axis);
        if kind.uses_axis(S::DIM) && !(length.is_finite() && length > 0.0) {
            return Err(err(
                "axis",
                format!("must be a finite non-zero direction, got {axis:?}"),
            ));
        }
        let u = if length.is_finite() && length > 0.0 {
            axis * (1.0 / length)
        } else {
            S::unit_vector(0)
        };
        let world = frame_about::<S>(&u);
        let pose = |b: Option<usize>| b.map(|b| bodies[b].pose).unwrap_or_default();
        let local = |b: Option<usize>| {
            let p = pose(b);
            (
                S::inverse_rotate(&p.rotation, &(anchor - p.position)),
                world.map(|e| S::inverse_rotate(&p.rotation, &e)),
            )
        };
        let (s1, j1) = local(body1);
        let (s2, j2) = local(Some(body2));
        Ok(Self {
            name: name.to_string(),
            kind,
            body1,
            body2,
            anchor: [s1, s2],
            axes: [j1, j2],
            actuator: None,
            limits: None,
            friction: None,
        })
    }

    /// The joint driven by `actuator` (checked: a prismatic or revolute joint, finite
    /// parameters); errors name `joint[index].actuator` of `scene`.
    pub fn with_actuator(
        mut self,
        scene: &str,
        index: usize,
        actuator: Actuator,
    ) -> Result<Self, ModelError> {
        let err =
            |reason: String| ModelError::scene(scene, format!("joint[{index}].actuator"), reason);
        if !matches!(self.kind, JointKind::Prismatic | JointKind::Revolute) {
            return Err(err(format!(
                "a {} joint has no free coordinate to drive",
                self.kind.as_str()
            )));
        }
        if let Some(reason) = actuator.problem() {
            return Err(err(reason));
        }
        self.actuator = Some(actuator);
        Ok(self)
    }

    /// The joint with stops `[lo, hi]` on its free coordinate (checked: a prismatic or
    /// revolute joint, finite `lo < hi`, the initial configuration `q = 0` within them, a
    /// revolute joint's within `(−π, π)`, where its angle is single-valued); errors name
    /// `joint[index].limits` of `scene`.
    pub fn with_limits(
        mut self,
        scene: &str,
        index: usize,
        limits: [f64; 2],
    ) -> Result<Self, ModelError> {
        let err =
            |reason: String| ModelError::scene(scene, format!("joint[{index}].limits"), reason);
        let [lo, hi] = limits;
        let pi = std::f64::consts::PI;
        if !matches!(self.kind, JointKind::Prismatic | JointKind::Revolute) {
            return Err(err(format!(
                "a {} joint has no free coordinate to limit",
                self.kind.as_str()
            )));
        }
        if !(lo.is_finite() && hi.is_finite()) {
            return Err(err(format!("not finite: [{lo}, {hi}]")));
        }
        if lo >= hi {
            return Err(err(format!(
                "the lower limit {lo} must be below the upper {hi}"
            )));
        }
        if lo > 0.0 || hi < 0.0 {
            return Err(err(format!(
                "the initial configuration (coordinate 0) lies outside [{lo}, {hi}]"
            )));
        }
        if self.kind == JointKind::Revolute && (lo <= -pi || hi >= pi) {
            return Err(err(format!(
                "a revolute joint's limits must lie within (−π, π) rad (its angle is \
                 single-valued there), got [{lo}, {hi}]"
            )));
        }
        self.limits = Some(limits);
        Ok(self)
    }

    /// The joint with Coulomb friction of at most `friction` (N or N·m; checked: a prismatic
    /// or revolute joint, finite and `> 0`); errors name `joint[index].friction` of `scene`.
    pub fn with_friction(
        mut self,
        scene: &str,
        index: usize,
        friction: f64,
    ) -> Result<Self, ModelError> {
        let err =
            |reason: String| ModelError::scene(scene, format!("joint[{index}].friction"), reason);
        if !matches!(self.kind, JointKind::Prismatic | JointKind::Revolute) {
            return Err(err(format!(
                "a {} joint has no free coordinate to brake",
                self.kind.as_str()
            )));
        }
        if !(friction.is_finite() && friction > 0.0) {
            return Err(err(format!("must be finite and > 0, got {friction}")));
        }
        self.friction = Some(friction);
        Ok(self)
    }

    /// Whether the joint has rows with bounded multipliers (limits or friction): inequality
    /// rows, which only the backward-Euler step (`integrator = "euler"`) solves.
    pub fn has_inequality_rows(&self) -> bool {
        self.limits.is_some() || self.friction.is_some()
    }

    /// Whether the joint links bodies `i` and `j` (either order).
    pub fn links(&self, i: usize, j: usize) -> bool {
        (self.body1 == Some(i) && self.body2 == j) || (self.body1 == Some(j) && self.body2 == i)
    }
}

/// An orthonormal frame whose first column is the unit vector `u` (the rest zero in 2D beyond
/// the second): 2D `(u, u⊥)`; 3D `(u, e, u × e)` with `e` the unit vector perpendicular to `u`
/// in the plane of `u` and its least-aligned coordinate axis.
fn frame_about<S: Dynamics>(u: &S::Vector) -> [S::Vector; 3] {
    if S::DIM == 2 {
        let perp = S::vector_from_fn(|i| if i == 0 { -u[1] } else { u[0] });
        return [*u, perp, S::zero_vector()];
    }
    let mut best = 0;
    for i in 1..3 {
        if u[i].abs() < u[best].abs() {
            best = i;
        }
    }
    let axis = S::unit_vector(best);
    let e = axis - *u * S::dot(u, &axis);
    let e = e * (1.0 / S::norm(&e));
    let w = S::vector_from_fn(|i| {
        let (j, k) = ((i + 1) % 3, (i + 2) % 3);
        u[j] * e[k] - u[k] * e[j]
    });
    [*u, e, w]
}
