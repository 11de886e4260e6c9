//! Rigid bodies: mass, body-frame inertia, pose, twist, shape and the forces acting on them, and
//! the per-body pieces of the paper's Newton–Euler row (eq. 6, 21) taken at the start of a step.

use super::drive::PoseTable;
use super::dynamics::Dynamics;
use super::error::{ModelError, positive_reason};
use super::friction::Friction;
use super::kinematics::{PoseStepJacobian, end_of_step_jacobian, end_of_step_pose};
use super::layer::CompliantLayer;
use super::spatial::{Twist, Wrench};
use crate::geometry::{BodyShape, Pose};
use nalgebra::DMatrix;
use std::fmt;
use std::sync::Arc;

/// What a controller sees of a body: its pose and twist at the start of the step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BodyState<S: Dynamics> {
    /// The pose `(c, R)`.
    pub pose: Pose<S>,
    /// The twist `(v, ω)`.
    pub twist: Twist<S>,
}

/// A time-dependent applied wrench `(t, state) ↦ (F, τ)`, evaluated at the start of each step
/// (paper eq. 21: applied forces are taken at `t_ℓ`). It must return finite values.
pub type Controller<S> = Arc<dyn Fn(f64, &BodyState<S>) -> Wrench<S> + Send + Sync>;

/// A rigid body (paper §3): mass `m`, body-frame inertia `I_b` about the body origin (which is
/// the centre of mass), pose `(c, R)`, twist `(v, ω)` with `ω` in the world frame, shape, and
/// the forces acting on it besides gravity and contact.
///
/// A fixed body never moves and has no velocity unknowns; its mass and inertia are ignored
/// (and not validated) and its twist must be zero.
#[derive(Clone)]
pub struct RigidBody<S: Dynamics> {
    /// The name: keys output columns, friction pairs and error messages.
    pub name: String,
    /// The mass `m > 0`.
    pub mass: f64,
    /// The body-frame inertia `I_b` about the centre of mass (2D: scalar; 3D: SPD `3 × 3`).
    pub inertia: S::Inertia,
    /// The pose `(c, R)`; `c` is the centre of mass.
    pub pose: Pose<S>,
    /// The twist `(v, ω)`, `ω` in the world frame.
    pub twist: Twist<S>,
    /// True for a body that has no velocity unknowns: it never moves, or (`driven`) moves as
    /// prescribed.
    pub fixed: bool,
    /// A driven body: fixed (no unknowns) but moving with its constant `twist`, its pose at
    /// time `t` being `(c₀ + v t, exp(ω t) R₀)` — a pusher, a conveyor, a turntable. It is an
    /// external agent: it takes impulses without reacting, does work on the scene, and its
    /// own energy is not counted. With a [`drive`](Self::drive) table it follows the table
    /// instead, its twist set by the stepper for each step ([`PoseTable::step_twist`]).
    pub driven: bool,
    /// The table of poses a driven body follows (`None`: its constant twist).
    pub drive: Option<Arc<PoseTable<S>>>,
    /// The geometry, a union of convex parts in the body frame.
    pub shape: BodyShape<S>,
    /// A constant applied wrench `(F_ext, τ_ext)` (world frame, torque about `c`).
    pub external_wrench: Wrench<S>,
    /// An optional time-dependent applied wrench, added to `external_wrench`.
    pub controller: Option<Controller<S>>,
    /// This body's default friction, used for its contacts unless the scene gives the pair
    /// (see [`crate::model::Scene::friction_between`]).
    pub friction: Option<Friction>,
    /// The compliant layer of a quasi-rigid body (paper §5); `None` for a rigid body.
    pub layer: Option<CompliantLayer>,
}

impl<S: Dynamics> fmt::Debug for RigidBody<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RigidBody")
            .field("name", &self.name)
            .field("mass", &self.mass)
            .field("inertia", &self.inertia)
            .field("pose", &self.pose)
            .field("twist", &self.twist)
            .field("fixed", &self.fixed)
            .field("shape", &self.shape.name())
            .field("external_wrench", &self.external_wrench)
            .field("controller", &self.controller.as_ref().map(|_| "<fn>"))
            .field("friction", &self.friction)
            .field("layer", &self.layer)
            .finish()
    }
}

impl<S: Dynamics> RigidBody<S> {
    /// A moving body at rest at `pose`, checked (errors name the body and the field).
    pub fn new(
        name: &str,
        mass: f64,
        inertia: S::Inertia,
        shape: BodyShape<S>,
        pose: Pose<S>,
    ) -> Result<Self, ModelError> {
        let body = Self {
            name: name.to_string(),
            mass,
            inertia,
            pose,
            twist: Twist::zero(),
            fixed: false,
            driven: false,
            drive: None,
            shape,
            external_wrench: Wrench::zero(),
            controller: None,
            friction: None,
            layer: None,
        };
        body.validate()?;
        Ok(body)
    }

    /// A fixed body at `pose` (mass 1 and unit inertia as placeholders, never used).
    pub fn fixed(name: &str, shape: BodyShape<S>, pose: Pose<S>) -> Result<Self, ModelError> {
        let body = Self {
            name: name.to_string(),
            mass: 1.0,
            inertia: S::unit_inertia(),
            pose,
            twist: Twist::zero(),
            fixed: true,
            driven: false,
            drive: None,
            shape,
            external_wrench: Wrench::zero(),
            controller: None,
            friction: None,
            layer: None,
        };
        body.validate()?;
        Ok(body)
    }

    /// A driven body at `pose` moving with the constant `twist` (see [`Self::driven`]).
    pub fn driven(
        name: &str,
        shape: BodyShape<S>,
        pose: Pose<S>,
        twist: Twist<S>,
    ) -> Result<Self, ModelError> {
        let mut body = Self::fixed(name, shape, pose)?;
        body.driven = true;
        body.twist = twist;
        body.check_twist()?;
        Ok(body)
    }

    /// A driven body following the table of poses `table` (see [`crate::model::drive`]),
    /// starting at its pose at `t = 0`, at rest until the stepper sets its twist per step.
    pub fn driven_by(
        name: &str,
        shape: BodyShape<S>,
        table: PoseTable<S>,
    ) -> Result<Self, ModelError> {
        let mut body = Self::driven(name, shape, table.pose(0.0), Twist::zero())?;
        body.drive = Some(Arc::new(table));
        Ok(body)
    }

    /// The same body with the initial twist `twist`, checked.
    pub fn with_twist(mut self, twist: Twist<S>) -> Result<Self, ModelError> {
        self.twist = twist;
        self.check_twist()?;
        Ok(self)
    }

    /// The same body with the constant applied wrench `wrench`, checked.
    pub fn with_external_wrench(mut self, wrench: Wrench<S>) -> Result<Self, ModelError> {
        self.external_wrench = wrench;
        self.check_wrench()?;
        Ok(self)
    }

    /// The same body driven by `controller` (added to the constant wrench).
    pub fn with_controller(mut self, controller: Controller<S>) -> Self {
        self.controller = Some(controller);
        self
    }

    /// The same body with its own default friction, checked.
    pub fn with_friction(mut self, friction: Friction) -> Result<Self, ModelError> {
        friction.validate(&format!("body `{}`", self.name))?;
        self.friction = Some(friction);
        Ok(self)
    }

    /// The same body with a compliant layer (a quasi-rigid body), checked against the scene
    /// dimension; errors name `layer.<field>`.
    pub fn with_layer(mut self, layer: CompliantLayer) -> Result<Self, ModelError> {
        if layer.dim != S::DIM {
            return Err(ModelError::body(
                &self.name,
                "layer",
                format!(
                    "has {} deflection directions but the body is {}D",
                    layer.dim,
                    S::DIM
                ),
            ));
        }
        layer.validate(&self.name)?;
        self.layer = Some(layer);
        Ok(self)
    }

    /// Checks every field; the error names the body and the field (`mass`, `inertia`,
    /// `pose.position`, `pose.quaternion`, `twist.linear`, `twist.angular`,
    /// `external_wrench.force`, …, or the shape's part and parameter).
    pub fn validate(&self) -> Result<(), ModelError> {
        if self.name.trim().is_empty() {
            return Err(ModelError::body(&self.name, "name", "must not be empty"));
        }
        self.shape
            .validate()
            .map_err(|source| ModelError::InvalidShape {
                body: self.name.clone(),
                source,
            })?;
        self.pose
            .validate(&self.name)
            .map_err(|e| ModelError::from_pose(&self.name, e))?;
        if !self.fixed {
            positive_reason(self.mass).map_err(|r| ModelError::body(&self.name, "mass", r))?;
            if let Some(r) = S::inertia_problem(&self.inertia) {
                return Err(ModelError::body(&self.name, "inertia", r));
            }
        }
        self.check_twist()?;
        self.check_wrench()?;
        if let Some(f) = &self.friction {
            f.validate(&format!("body `{}`", self.name))?;
        }
        if let Some(layer) = &self.layer {
            layer.validate(&self.name)?;
        }
        Ok(())
    }

    fn check_twist(&self) -> Result<(), ModelError> {
        let t = &self.twist;
        if !S::is_finite(&t.linear) {
            return Err(ModelError::body(
                &self.name,
                "twist.linear",
                format!("not finite: {:?}", t.linear),
            ));
        }
        if !S::angular_is_finite(&t.angular) {
            return Err(ModelError::body(
                &self.name,
                "twist.angular",
                format!("not finite: {:?}", t.angular),
            ));
        }
        if self.fixed && !self.driven && *t != Twist::zero() {
            return Err(ModelError::body(
                &self.name,
                "twist",
                "a fixed body cannot move: its twist must be zero",
            ));
        }
        Ok(())
    }

    fn check_wrench(&self) -> Result<(), ModelError> {
        let w = &self.external_wrench;
        if !S::is_finite(&w.force) {
            return Err(ModelError::body(
                &self.name,
                "external_wrench.force",
                format!("not finite: {:?}", w.force),
            ));
        }
        if !S::angular_is_finite(&w.torque) {
            return Err(ModelError::body(
                &self.name,
                "external_wrench.torque",
                format!("not finite: {:?}", w.torque),
            ));
        }
        Ok(())
    }

    /// The pose and twist.
    pub fn state(&self) -> BodyState<S> {
        BodyState {
            pose: self.pose,
            twist: self.twist,
        }
    }

    /// The world-frame inertia `I_w = R I_b Rᵀ` at the current pose (2D: `I_b`).
    pub fn world_inertia(&self) -> S::AngularMatrix {
        S::world_inertia(&self.inertia, &self.pose.rotation)
    }

    /// The `DOF × DOF` mass matrix block `M = diag(m I, I_w)` at the current pose (paper's
    /// `M^ℓ`, eq. 6).
    pub fn mass_matrix(&self) -> DMatrix<f64> {
        let mut m = DMatrix::zeros(S::DOF, S::DOF);
        self.write_mass_matrix(&mut m);
        m
    }

    /// [`mass_matrix`](Self::mass_matrix) written into `m` (`DOF × DOF`), which the step
    /// loop keeps between steps instead of allocating one per body and step.
    pub fn write_mass_matrix(&self, m: &mut DMatrix<f64>) {
        assert_eq!(m.shape(), (S::DOF, S::DOF), "the mass matrix is DOF × DOF");
        let (d, iw) = (S::DIM, self.world_inertia());
        m.fill(0.0);
        for i in 0..d {
            m[(i, i)] = self.mass;
        }
        for i in 0..S::ANGULAR_DIM {
            for j in 0..S::ANGULAR_DIM {
                m[(d + i, d + j)] = iw[(i, j)];
            }
        }
    }

    /// `M ν = (m v, I_w ω)` for the twist `twist` at the current pose.
    pub fn apply_mass_matrix(&self, twist: &Twist<S>) -> Wrench<S> {
        Wrench::new(
            twist.linear * self.mass,
            self.world_inertia() * twist.angular,
        )
    }

    /// The gyroscopic impulse `h λ_vp = h (−ω × I_w ω)` at the current state (zero in 2D).
    pub fn gyroscopic_impulse(&self, h: f64) -> S::Angular {
        S::gyroscopic_torque(&self.twist.angular, &self.world_inertia()) * h
    }

    /// The applied impulse `h λ_app = h (m g + F_ext + F_c(t), τ_ext + τ_c(t))` at the start
    /// of the step (time `t`), with `F_c, τ_c` from the controller if any. Zero for a fixed
    /// body.
    pub fn applied_impulse(&self, gravity: &S::Vector, t: f64, h: f64) -> Wrench<S> {
        if self.fixed {
            return Wrench::zero();
        }
        let mut w = self.external_wrench;
        w.force += *gravity * self.mass;
        if let Some(c) = &self.controller {
            w = w + c(t, &self.state());
        }
        w.scaled(h)
    }

    /// The momentum at the end of a contact-free step, `M^ℓ ν^ℓ + h λ_app + h λ_vp`: the
    /// constant part of the body's Newton–Euler row `M^ℓ ν^{ℓ+1} = M^ℓ ν^ℓ + W p + h λ_app
    /// + h λ_vp` (paper eq. 6 and 21). Zero for a fixed body.
    pub fn free_momentum(&self, gravity: &S::Vector, t: f64, h: f64) -> Wrench<S> {
        if self.fixed {
            return Wrench::zero();
        }
        let mut w = self.apply_mass_matrix(&self.twist) + self.applied_impulse(gravity, t, h);
        w.torque += self.gyroscopic_impulse(h);
        w
    }

    /// The pose at the end of a step of length `h` with end-of-step twist `twist`
    /// ([`end_of_step_pose`]).
    pub fn end_of_step_pose(&self, twist: &Twist<S>, h: f64) -> Pose<S> {
        end_of_step_pose(&self.pose, twist, h)
    }

    /// The derivative of [`end_of_step_pose`](Self::end_of_step_pose) with respect to the
    /// twist ([`end_of_step_jacobian`]).
    pub fn end_of_step_jacobian(&self, twist: &Twist<S>, h: f64) -> PoseStepJacobian<S> {
        end_of_step_jacobian(twist, h)
    }

    /// Moves the body to the end of a step: pose from [`end_of_step_pose`](Self::end_of_step_pose),
    /// twist set to `twist`. Does nothing to a fixed body; a driven one moves by its own twist.
    pub fn advance(&mut self, twist: &Twist<S>, h: f64) {
        if self.driven {
            self.pose = self.end_of_step_pose(&self.twist, h);
            return;
        }
        if self.fixed {
            return;
        }
        self.pose = self.end_of_step_pose(twist, h);
        self.twist = *twist;
    }

    /// Whether the body's loads have a potential (gravity, a constant force) or none: no
    /// controller, no compliant layer, no constant torque (which has no potential in 3D).
    pub fn loads_are_conservative(&self) -> bool {
        let torque = self.external_wrench.torque;
        self.controller.is_none() && self.layer.is_none() && S::angular_dot(&torque, &torque) == 0.0
    }

    /// The kinetic energy `½ m v·v + ½ ωᵀ I_w ω` (zero for a fixed body).
    pub fn kinetic_energy(&self) -> f64 {
        if self.fixed {
            return 0.0;
        }
        let (v, w) = (&self.twist.linear, &self.twist.angular);
        0.5 * self.mass * S::dot(v, v) + 0.5 * S::angular_dot(w, &(self.world_inertia() * *w))
    }

    /// The potential energy of the constant forces: gravity and the constant external force,
    /// `−(m g + F_ext)·c` (zero at `c = 0`; zero for a fixed body). A constant force field is
    /// conservative, so with it the total energy changes only by friction, impacts, torques
    /// and controllers. (A constant torque has no potential in 3D and is left out.)
    pub fn potential_energy(&self, gravity: &S::Vector) -> f64 {
        if self.fixed {
            return 0.0;
        }
        let force = *gravity * self.mass + self.external_wrench.force;
        -S::dot(&force, &self.pose.position)
    }
}
