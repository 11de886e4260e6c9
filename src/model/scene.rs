//! A scene: the bodies, gravity, friction, time step and duration of one simulation, and the
//! layout of the global velocity vector `ν`.

use super::body::RigidBody;
use super::dynamics::Dynamics;
use super::error::{ModelError, positive_reason};
use super::friction::Friction;
use super::joint::Joint;
use super::spatial::Twist;
use super::support::Support;
use std::ops::Range;

/// The friction of the contacts between two named bodies (either order), overriding the
/// bodies' and the scene's defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct PairFriction {
    /// One body's name.
    pub body1: String,
    /// The other body's name.
    pub body2: String,
    /// The friction parameters of their contacts.
    pub friction: Friction,
}

/// Where each moving body's twist sits in the global velocity vector `ν`: moving bodies in
/// scene order, `S::DOF` (3 or 6) entries each, `(v, ω)`; fixed bodies have no entries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VelocityLayout {
    offsets: Vec<Option<usize>>,
    dof: usize,
    len: usize,
}

impl VelocityLayout {
    /// The layout for bodies with the given `fixed` flags and `dof` unknowns per moving body.
    pub fn new(fixed: impl IntoIterator<Item = bool>, dof: usize) -> Self {
        let mut len = 0;
        let offsets = fixed
            .into_iter()
            .map(|f| {
                (!f).then(|| {
                    len += dof;
                    len - dof
                })
            })
            .collect();
        Self { offsets, dof, len }
    }

    /// The offset of body `body`'s twist in `ν`, `None` for a fixed body (panics if out of
    /// range).
    pub fn offset(&self, body: usize) -> Option<usize> {
        self.offsets[body]
    }

    /// The range of body `body`'s twist in `ν`, `None` for a fixed body.
    pub fn range(&self, body: usize) -> Option<Range<usize>> {
        self.offset(body).map(|o| o..o + self.dof)
    }

    /// The number of velocity unknowns, `DOF ×` the number of moving bodies.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True if no body moves.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The velocity unknowns per moving body (3 or 6).
    pub fn dof(&self) -> usize {
        self.dof
    }

    /// The number of bodies, fixed ones included.
    pub fn body_count(&self) -> usize {
        self.offsets.len()
    }
}

/// Bodies (fixed and moving), gravity, friction, time step `h` and duration of a simulation.
#[derive(Debug, Clone)]
pub struct Scene<S: Dynamics> {
    /// The scene's name (names the output directory and error messages).
    pub name: String,
    /// The bodies, fixed and moving, in a fixed order (body indices refer to it).
    pub bodies: Vec<RigidBody<S>>,
    /// The gravitational acceleration `g` (e.g. `(0, −9.81)`).
    pub gravity: S::Vector,
    /// The friction for pairs with neither a pair entry nor body defaults.
    pub friction: Friction,
    /// Per-pair friction, overriding everything else.
    pub pair_friction: Vec<PairFriction>,
    /// The time step `h > 0`.
    pub time_step: f64,
    /// The simulated duration `T ≥ 0`.
    pub duration: f64,
    /// Bilateral joints (see [`Joint`]); the bodies a joint links do not collide.
    pub joints: Vec<Joint<S>>,
    /// Support friction of planar bodies on their table (the 2.5D model, see [`Support`]).
    pub supports: Vec<Support>,
    /// Pairs of bodies that do not collide (besides those a joint links), `(i, j)`, `i < j`.
    pub no_collision: Vec<(usize, usize)>,
}

impl<S: Dynamics> Scene<S> {
    /// An empty scene, checked.
    pub fn new(
        name: &str,
        gravity: S::Vector,
        friction: Friction,
        time_step: f64,
        duration: f64,
    ) -> Result<Self, ModelError> {
        let scene = Self {
            name: name.to_string(),
            bodies: Vec::new(),
            gravity,
            friction,
            pair_friction: Vec::new(),
            time_step,
            duration,
            joints: Vec::new(),
            supports: Vec::new(),
            no_collision: Vec::new(),
        };
        scene.validate()?;
        Ok(scene)
    }

    /// The scene with `body` added (checked; names must be unique).
    pub fn with_body(mut self, body: RigidBody<S>) -> Result<Self, ModelError> {
        body.validate()?;
        if self.body_index(&body.name).is_some() {
            return Err(ModelError::DuplicateBody { body: body.name });
        }
        self.bodies.push(body);
        Ok(self)
    }

    /// The scene with `friction` for the contacts between the bodies named `body1` and
    /// `body2` (checked: both exist, differ, no earlier entry for the pair).
    pub fn with_pair_friction(
        mut self,
        body1: &str,
        body2: &str,
        friction: Friction,
    ) -> Result<Self, ModelError> {
        self.pair_friction.push(PairFriction {
            body1: body1.to_string(),
            body2: body2.to_string(),
            friction,
        });
        self.check_pair(self.pair_friction.len() - 1)?;
        Ok(self)
    }

    /// Checks every field and body; errors name the body (or the scene) and the field.
    pub fn validate(&self) -> Result<(), ModelError> {
        let err = |field: &str, reason: String| ModelError::scene(&self.name, field, reason);
        positive_reason(self.time_step).map_err(|r| err("time_step", r))?;
        if !(self.duration.is_finite() && self.duration >= 0.0) {
            return Err(err(
                "duration",
                format!("must be finite and ≥ 0, got {}", self.duration),
            ));
        }
        if !S::is_finite(&self.gravity) {
            return Err(err("gravity", format!("not finite: {:?}", self.gravity)));
        }
        self.friction.validate("the scene default")?;
        for (i, b) in self.bodies.iter().enumerate() {
            b.validate()?;
            if self.bodies[..i].iter().any(|o| o.name == b.name) {
                return Err(ModelError::DuplicateBody {
                    body: b.name.clone(),
                });
            }
        }
        for k in 0..self.pair_friction.len() {
            self.check_pair(k)?;
        }
        Ok(())
    }

    fn check_pair(&self, k: usize) -> Result<(), ModelError> {
        let p = &self.pair_friction[k];
        for (field, name) in [("body1", &p.body1), ("body2", &p.body2)] {
            if self.body_index(name).is_none() {
                return Err(ModelError::scene(
                    &self.name,
                    format!("pair_friction[{k}].{field}"),
                    format!("no body is named `{name}`"),
                ));
            }
        }
        if p.body1 == p.body2 {
            return Err(ModelError::scene(
                &self.name,
                format!("pair_friction[{k}]"),
                format!("a body (`{}`) cannot touch itself", p.body1),
            ));
        }
        let same = |q: &PairFriction| {
            (q.body1 == p.body1 && q.body2 == p.body2) || (q.body1 == p.body2 && q.body2 == p.body1)
        };
        if self.pair_friction[..k].iter().any(same) {
            return Err(ModelError::scene(
                &self.name,
                format!("pair_friction[{k}]"),
                format!(
                    "the pair (`{}`, `{}`) already has an entry",
                    p.body1, p.body2
                ),
            ));
        }
        p.friction
            .validate(&format!("pair (`{}`, `{}`)", p.body1, p.body2))
    }

    /// The scene with `joint` added (built by [`Joint::new`] against these bodies).
    pub fn with_joint(mut self, joint: Joint<S>) -> Self {
        self.joints.push(joint);
        self
    }

    /// Whether a joint links bodies `i` and `j` (then their parts do not collide).
    pub fn jointed(&self, i: usize, j: usize) -> bool {
        self.joints.iter().any(|joint| joint.links(i, j))
    }

    /// The scene with `support` added (built by [`Support::new`] against these bodies).
    pub fn with_support(mut self, support: Support) -> Self {
        self.supports.push(support);
        self
    }

    /// The scene in which bodies `i` and `j` do not collide (two gripper jaws, say, that a
    /// stop rule keeps apart). Errors name the body indices if either is out of range or they
    /// are the same body.
    pub fn without_collision(mut self, i: usize, j: usize) -> Result<Self, ModelError> {
        let n = self.bodies.len();
        if i >= n || j >= n || i == j {
            return Err(ModelError::scene(
                &self.name,
                "no_collision",
                format!("needs two different bodies of the {n}, got {i} and {j}"),
            ));
        }
        let pair = (i.min(j), i.max(j));
        if !self.no_collision.contains(&pair) {
            self.no_collision.push(pair);
        }
        Ok(self)
    }

    /// Whether the parts of bodies `i` and `j` may collide: not when a joint links them or
    /// the scene excludes the pair.
    pub fn may_collide(&self, i: usize, j: usize) -> bool {
        !self.jointed(i, j) && !self.no_collision.contains(&(i.min(j), i.max(j)))
    }

    /// The index of the body named `name`.
    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.bodies.iter().position(|b| b.name == name)
    }

    /// The friction of contacts between bodies `i` and `j`: the pair entry if any; else the
    /// bodies' own defaults (combined by [`Friction::combine`] if both have one); else the
    /// scene default.
    pub fn friction_between(&self, i: usize, j: usize) -> Friction {
        let (a, b) = (&self.bodies[i], &self.bodies[j]);
        if let Some(p) = self.pair_friction.iter().find(|p| {
            (p.body1 == a.name && p.body2 == b.name) || (p.body1 == b.name && p.body2 == a.name)
        }) {
            return p.friction;
        }
        match (a.friction, b.friction) {
            (Some(fa), Some(fb)) => fa.combine(&fb),
            (Some(f), None) | (None, Some(f)) => f,
            (None, None) => self.friction,
        }
    }

    /// The layout of the global velocity vector `ν` (compute once per step).
    pub fn velocity_layout(&self) -> VelocityLayout {
        VelocityLayout::new(self.bodies.iter().map(|b| b.fixed), S::DOF)
    }

    /// The offset of body `body`'s twist in `ν` (`None` for a fixed body).
    pub fn velocity_offset(&self, body: usize) -> Option<usize> {
        (!self.bodies[body].fixed)
            .then(|| self.bodies[..body].iter().filter(|b| !b.fixed).count() * S::DOF)
    }

    /// The number of velocity unknowns, `S::DOF ×` the number of moving bodies.
    pub fn velocity_count(&self) -> usize {
        self.bodies.iter().filter(|b| !b.fixed).count() * S::DOF
    }

    /// The global velocity vector `ν` of the current twists.
    pub fn velocities(&self) -> Vec<f64> {
        let mut nu = vec![0.0; self.velocity_count()];
        let mut o = 0;
        for b in self.bodies.iter().filter(|b| !b.fixed) {
            b.twist.write_to(&mut nu[o..o + S::DOF]);
            o += S::DOF;
        }
        nu
    }

    /// The twist of body `body` in the global vector `nu` (zero for a fixed body).
    pub fn twist_in(&self, nu: &[f64], body: usize) -> Twist<S> {
        match self.velocity_offset(body) {
            Some(o) => Twist::from_slice(&nu[o..o + S::DOF]),
            None => Twist::zero(),
        }
    }

    /// Ends a step: every moving body takes its twist from the end-of-step `nu` and the pose
    /// `(c + h v, exp(h ω) R)` ([`RigidBody::advance`]) for `h =` [`time_step`](Self::time_step)
    /// (panics if `nu` is shorter than [`velocity_count`](Self::velocity_count)).
    pub fn advance(&mut self, nu: &[f64]) {
        self.advance_by(nu, self.time_step);
    }

    /// Puts every body driven by a table of poses at the table's pose at `t` with the twist
    /// that carries it to the pose at `t + h` over the step ([`crate::model::PoseTable`]).
    pub fn set_drives(&mut self, t: f64, h: f64) {
        for b in self.bodies.iter_mut() {
            if let Some(table) = &b.drive {
                b.pose = table.pose(t);
                b.twist = table.step_twist(t, h);
            }
        }
    }

    /// As [`advance`](Self::advance) with an explicit step `h` (e.g. a retried half step);
    /// driven bodies move by their own twists.
    pub fn advance_by(&mut self, nu: &[f64], h: f64) {
        let mut o = 0;
        for b in self.bodies.iter_mut() {
            if b.driven {
                let own = b.twist;
                b.advance(&own, h);
            } else if !b.fixed {
                b.advance(&Twist::from_slice(&nu[o..o + S::DOF]), h);
                o += S::DOF;
            }
        }
    }

    /// The number of steps of length `h` that cover the duration (`⌈T/h⌉`, with a relative
    /// slack of `10⁻⁹` so `T = 5`, `h = 0.01` gives 500).
    pub fn step_count(&self) -> usize {
        (self.duration / self.time_step * (1.0 - 1e-9)).ceil() as usize
    }

    /// The total kinetic energy of the moving bodies.
    pub fn kinetic_energy(&self) -> f64 {
        self.bodies.iter().map(|b| b.kinetic_energy()).sum()
    }

    /// The total gravitational potential energy `Σ −m g·c` of the moving bodies.
    pub fn potential_energy(&self) -> f64 {
        self.bodies
            .iter()
            .map(|b| b.potential_energy(&self.gravity))
            .sum()
    }
}
