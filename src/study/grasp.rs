//! The paper's Example 4 (§6.4): a parallel-jaw gripper closing on the lock piece of Brost
//! and Christiansen (1996), one grasp trial at a time. The Monte-Carlo study over the initial
//! fingertip positions is [`super::grasp_study`].
//!
//! # The model as printed
//!
//! * **The gear** is the union of a disc of radius 20.75 mm (eq. 56, whose square is missing:
//!   20.75 is the only radius that joins disc and teeth, so the text's "21 mm diameter" is a
//!   slip for radius) and six superellipse teeth (eq. 57), exponent 4, semi-axes 2.3 mm
//!   (radial) and 1.1 mm, centred on the disc's rim at the paper's angles `θᵢ` and turned so
//!   that the long axis is radial (the paper omits the frame transformations). The teeth hang
//!   below the centre (`θᵢ` from 235° to 305°); tooth 1 (235°) is the outermost on the left,
//!   tooth 6 (305°) on the right.
//! * **Each jaw** is the intersection of the two half-planes adjacent to its fingertip vertex
//!   (eq. 58–61): the right jaw `{ξ_y ≤ y_tip, ξ_x ≥ x_r}`, the left one `{ξ_y ≤ y_tip, ξ_x ≤
//!   x_l}`, closed by a back face 10 mm behind the inside edge and a bottom face 30 mm below the
//!   top edge (a finger; the gear reaches neither face from the paper's box of starts), and
//!   cut into three 10 mm squares: a union of polygons, whose parts have bounding balls, so
//!   the broad phase leaves the gear's far parts out of the step (the unbounded jaw pairs with
//!   all seven gear parts in every step; the cut makes a trial 2.6 times faster than one
//!   10 × 30 mm part, with the same outcomes on 109 of 110 test trials; the one that differs
//!   is a gear that escapes over the fingertips in one and is caught 1.4 mm lower in the
//!   other). The jaws are the bodies `left_jaw`, `right_jaw`, whose origin is the fingertip.
//! * **The state** is `(x_g, y_g, θ_g, x_r, x_l)`: the gear is free in the plane, each jaw on a
//!   prismatic joint along `x` to the world.
//! * **2.5D dynamics** (Berard et al. 2007): the plane is a horizontal table, so the in-plane
//!   gravity is zero and the gear's weight presses it on the table ([`crate::model::Support`]).
//!
//! # What the text leaves open, and what we chose (each a field of [`GraspModel`])
//!
//! * **Support friction**: one friction impulse at the gear's centre of mass, normal impulse
//!   `m g h`, bounded by the paper's own friction ellipsoid over `(x, y, spin)` with `e_t = e_o
//!   = 1` and `e_r = 2R/3` (13.8 mm): the ratio of the largest friction torque to the largest
//!   friction force of a uniformly loaded disc of radius `R` — the lock piece is a flat plate.
//! * **Masses**: gear 30 g (a brass plate 41.5 mm across and 3 mm thick weighs 34 g), inertia
//!   of a uniform disc `m R²/2`; jaws 100 g each.
//! * **Controller**: each jaw closes at a commanded speed of 0.1 m/s with its force saturated
//!   at 2 N — a velocity loop with force limit, the way a gripper closes: the joint's
//!   saturated PD actuator with zero stiffness, damping `c` = 50 N·s/m (`c h / m` = 0.5, well
//!   inside the explicit actuator's stability bound) so that a stalled jaw pushes with
//!   `min(c v, F)` = the full 2 N. The jaws are driven independently (no rack coupling): each
//!   presses with its own limit, which is the "force-controlled" gripper of the text.
//! * **Start**: the gear at rest at the origin, `θ_g = 0`; the fingertips' centre at `(x, y)`
//!   relative to the gear's centre, the jaws 80 mm apart (clear of the gear and its teeth for
//!   every `|x| ≤ 10` mm).
//! * **Friction bounds**: gripper–gear `μ_g` and support `μ_s` each uniform in `[0.1, 0.3]`,
//!   drawn per trial.
//! * **Stop rule**: the trial ends when the gear and both jaws have moved slower than 1 mm/s
//!   (the gear's spin times `R` included) for 50 ms, when the jaws have closed past each other
//!   (they are left out of collision: nothing is between them any more), or at a timeout of 2 s.
//! * **Success**: at rest, each jaw presses (a normal impulse above 1 % of its force limit
//!   times `h`) on its outermost tooth and on nothing else but, possibly, the disc beside it
//!   (the fingertip nestled between tooth and disc). A solver failure is neither success nor failure:
//!   the trial returns an error.
//! * **Time step** 1 ms: the jaws move 0.1 mm per step, a twentieth of a tooth's width.

use crate::geometry::{
    BodyShape, Circle, ConvexPart, GeometryError, Placed, Planar, Pose, Superellipse,
};
use crate::model::{
    Actuator, Friction, Joint, JointKind, ModelError, RigidBody, Scene, Support, Twist,
};
use crate::stepper::{ImplicitStepper, StepperError, StepperSettings};
use nalgebra::Vector2;

/// The disc's radius (m).
pub const GEAR_RADIUS: f64 = 20.75e-3;
/// The teeth's semi-axes (m): radial, tangential.
pub const TOOTH_SEMI_AXES: [f64; 2] = [2.3e-3, 1.1e-3];
/// The teeth's superellipse exponent.
pub const TOOTH_EXPONENT: f64 = 4.0;
/// The teeth's angles `θᵢ` (rad) as printed.
pub const TOOTH_ANGLES: [f64; 6] = [4.103727, 4.253125, 4.402522, 5.022255, 5.171653, 5.321051];
/// Body indices in the grasp scene.
pub const GEAR: usize = 0;
/// The left jaw's body index.
pub const LEFT_JAW: usize = 1;
/// The right jaw's body index.
pub const RIGHT_JAW: usize = 2;
/// The gear's part holding the outermost tooth on the left (tooth 1) and on the right
/// (tooth 6); part 0 is the disc.
pub const OUTERMOST_TEETH: [usize; 2] = [1, 6];

/// Every parameter of the grasp model the paper leaves open (see the module docs), SI units.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GraspModel {
    /// The gear's mass (kg).
    pub gear_mass: f64,
    /// Each jaw's mass (kg).
    pub jaw_mass: f64,
    /// The fingertips' separation at the start (m).
    pub opening: f64,
    /// A finger's width behind its inside edge (m).
    pub finger_width: f64,
    /// A finger's length below its top edge (m).
    pub finger_length: f64,
    /// The jaws' commanded closing speed (m/s).
    pub closing_speed: f64,
    /// Each jaw's force limit (N).
    pub jaw_force: f64,
    /// The velocity loop's gain (N·s/m).
    pub jaw_damping: f64,
    /// The gravity pressing the gear on the table (m/s²).
    pub gravity: f64,
    /// The support ellipsoid's spin semi-axis `e_r` (m).
    pub support_e_r: f64,
    /// Bounds of the support friction coefficient `μ_s`.
    pub mu_support: [f64; 2],
    /// Bounds of the gripper friction coefficient `μ_g`.
    pub mu_gripper: [f64; 2],
    /// The time step (s).
    pub time_step: f64,
    /// The longest trial (s).
    pub timeout: f64,
    /// The speed below which a body is still (m/s).
    pub still_speed: f64,
    /// How long everything must be still to stop (s).
    pub still_window: f64,
}

impl Default for GraspModel {
    fn default() -> Self {
        Self {
            gear_mass: 0.03,
            jaw_mass: 0.1,
            opening: 0.08,
            finger_width: 0.01,
            finger_length: 0.03,
            closing_speed: 0.1,
            jaw_force: 2.0,
            jaw_damping: 50.0,
            gravity: 9.81,
            support_e_r: 2.0 * GEAR_RADIUS / 3.0,
            mu_support: [0.1, 0.3],
            mu_gripper: [0.1, 0.3],
            time_step: 1e-3,
            timeout: 2.0,
            still_speed: 1e-3,
            still_window: 0.05,
        }
    }
}

impl GraspModel {
    /// Why a parameter is invalid: `(field, reason)`.
    pub fn problem(&self) -> Option<(&'static str, String)> {
        let positive = [
            ("gear_mass", self.gear_mass),
            ("jaw_mass", self.jaw_mass),
            ("opening", self.opening),
            ("finger_width", self.finger_width),
            ("finger_length", self.finger_length),
            ("closing_speed", self.closing_speed),
            ("jaw_force", self.jaw_force),
            ("jaw_damping", self.jaw_damping),
            ("gravity", self.gravity),
            ("support_e_r", self.support_e_r),
            ("time_step", self.time_step),
            ("timeout", self.timeout),
            ("still_speed", self.still_speed),
            ("still_window", self.still_window),
        ];
        for (field, v) in positive {
            if !(v.is_finite() && v > 0.0) {
                return Some((field, format!("must be finite and > 0, got {v}")));
            }
        }
        for (field, [lo, hi]) in [
            ("mu_support", self.mu_support),
            ("mu_gripper", self.mu_gripper),
        ] {
            if !(lo.is_finite() && hi.is_finite() && 0.0 <= lo && lo <= hi) {
                return Some((
                    field,
                    format!("must be bounds 0 ≤ lo ≤ hi, got [{lo}, {hi}]"),
                ));
            }
        }
        None
    }
}

/// One trial's draw: the fingertips' centre `(x, y)` relative to the gear's centre (m) and the
/// two friction coefficients.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GraspTrial {
    /// The fingertips' centre, `x` (m).
    pub x: f64,
    /// The fingertips' centre, `y` (m).
    pub y: f64,
    /// The support friction coefficient `μ_s`.
    pub mu_support: f64,
    /// The gripper–gear friction coefficient `μ_g`.
    pub mu_gripper: f64,
}

/// How a trial ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraspOutcome {
    /// At rest, held by the outermost teeth: the strategy succeeded.
    Success,
    /// At rest, held otherwise (the disc, an inner tooth, one jaw only).
    WrongHold,
    /// The jaws closed past each other: the gear left them.
    Closed,
    /// Not at rest by the timeout.
    Timeout,
}

impl GraspOutcome {
    /// The outcome's name in tables.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Success => "success",
            Self::WrongHold => "wrong_hold",
            Self::Closed => "closed",
            Self::Timeout => "timeout",
        }
    }
}

/// A trial's end: its outcome and the state it stopped in.
#[derive(Debug, Clone, PartialEq)]
pub struct GraspResult {
    /// How it ended.
    pub outcome: GraspOutcome,
    /// Simulated time (s) and steps taken.
    pub time: f64,
    /// Steps taken.
    pub steps: usize,
    /// The gear's final pose `(x, y, θ)` (m, rad).
    pub gear: [f64; 3],
    /// The fingertips' final `x` (left, right; m).
    pub jaws: [f64; 2],
    /// The gear parts each jaw (left, right) presses on at the end (0: the disc, 1–6: teeth).
    pub held_by: [Vec<usize>; 2],
    /// Whether the gear ever pressed on a finger's back or bottom face (which the paper's
    /// two half-planes do not have): the model's fingers are then not the paper's jaws.
    pub far_face: bool,
}

/// Why a trial could not be simulated (counted apart from failed grasps).
#[derive(Debug, thiserror::Error)]
pub enum GraspError {
    /// A parameter is invalid.
    #[error("grasp model: `{field}` {reason}")]
    Parameter {
        /// The field.
        field: &'static str,
        /// Why.
        reason: String,
    },
    /// The scene could not be built.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// A shape could not be built.
    #[error(transparent)]
    Geometry(#[from] GeometryError),
    /// The stepper refused the scene.
    #[error(transparent)]
    Stepper(#[from] StepperError),
    /// A step did not converge.
    #[error("step {step} (t = {time:.4} s) did not converge: {reason}")]
    Solver {
        /// The step.
        step: usize,
        /// Its start time.
        time: f64,
        /// The stepper's report.
        reason: String,
    },
}

/// The gear's shape: the disc and the six teeth (see the module docs).
pub fn gear_shape() -> Result<BodyShape<Planar>, GeometryError> {
    let mut parts = vec![ConvexPart::single("disc", Circle::new(GEAR_RADIUS)?)?];
    for (i, &t) in TOOTH_ANGLES.iter().enumerate() {
        let name = format!("tooth{}", i + 1);
        let tooth = Superellipse::new(Vector2::from(TOOTH_SEMI_AXES), TOOTH_EXPONENT)?;
        let at = Pose::<Planar>::planar(GEAR_RADIUS * t.cos(), GEAR_RADIUS * t.sin(), t, &name)?;
        parts.push(ConvexPart::new(&name, vec![Placed::new(tooth, at)])?);
    }
    BodyShape::new("gear", parts)
}

/// A jaw's shape in its own frame (the fingertip at the origin): the paper's two half-planes
/// `{ξ_y ≤ 0, s ξ_x ≤ 0}` (`s = −1` for the right jaw, which lies at `x ≥ 0`, `+1` for the left
/// one), closed by the finger's back and bottom faces `width` and `length` away.
pub fn jaw_shape(side: f64, width: f64, length: f64) -> Result<BodyShape<Planar>, GeometryError> {
    // As polygons, the parts know their vertices and so a bounding ball: the broad phase leaves
    // the pairs out of reach out of the step (the paper's unbounded jaw would pair with every
    // part of the gear in every step). The finger is cut into pieces no longer than they are
    // wide, so that the fingertip's ball is small and the gear's far teeth stay out of it.
    let (lo, hi) = if side > 0.0 {
        (-width, 0.0)
    } else {
        (0.0, width)
    };
    let pieces = (length / width).ceil().max(1.0) as usize;
    let mut parts = Vec::with_capacity(pieces);
    for k in 0..pieces {
        let (top, bottom) = (
            -length * k as f64 / pieces as f64,
            -length * (k + 1) as f64 / pieces as f64,
        );
        let corners = [
            Vector2::new(lo, bottom),
            Vector2::new(hi, bottom),
            Vector2::new(hi, top),
            Vector2::new(lo, top),
        ];
        parts.push(ConvexPart::polygon(&corners)?);
    }
    BodyShape::new("jaw", parts)
}

/// The scene of one trial: the gear at rest at the origin, the fingertips' centre at
/// `(trial.x, trial.y)`, the jaws `model.opening` apart on prismatic joints along `x`.
pub fn grasp_scene(model: &GraspModel, trial: &GraspTrial) -> Result<Scene<Planar>, GraspError> {
    if let Some((field, reason)) = model.problem() {
        return Err(GraspError::Parameter { field, reason });
    }
    let name = "grasp";
    let m = model.gear_mass;
    let gear = RigidBody::new(
        "gear",
        m,
        0.5 * m * GEAR_RADIUS * GEAR_RADIUS,
        gear_shape()?,
        Pose::identity(),
    )?;
    let half = 0.5 * model.opening;
    let jaw = |label: &str, side: f64, x: f64| -> Result<RigidBody<Planar>, GraspError> {
        // The jaws never turn (their joints hold them): any positive inertia will do.
        let inertia = model.jaw_mass * 1e-4;
        let pose = Pose::<Planar>::planar(x, trial.y, 0.0, label)?;
        Ok(RigidBody::new(
            label,
            model.jaw_mass,
            inertia,
            jaw_shape(side, model.finger_width, model.finger_length)?,
            pose,
        )?)
    };
    let left = jaw("left_jaw", 1.0, trial.x - half)?;
    let right = jaw("right_jaw", -1.0, trial.x + half)?;
    let mut scene = Scene::new(
        name,
        Vector2::zeros(),
        Friction::coulomb(trial.mu_gripper),
        model.time_step,
        model.timeout,
    )?
    .with_body(gear)?
    .with_body(left)?
    .with_body(right)?
    .without_collision(LEFT_JAW, RIGHT_JAW)?;
    for (index, (body, direction)) in [(LEFT_JAW, 1.0), (RIGHT_JAW, -1.0)].into_iter().enumerate() {
        let at = scene.bodies[body].pose.position;
        let joint = Joint::new(
            name,
            index,
            scene.bodies[body].name.as_str(),
            JointKind::Prismatic,
            None,
            body,
            at,
            Vector2::new(1.0, 0.0),
            &scene.bodies,
        )?
        .with_actuator(
            name,
            index,
            Actuator::Pd {
                target: 0.0,
                speed: direction * model.closing_speed,
                stiffness: 0.0,
                damping: model.jaw_damping,
                max: model.jaw_force,
            },
        )?;
        scene = scene.with_joint(joint);
    }
    let support = Support::new(
        name,
        0,
        GEAR,
        Friction::elliptic(trial.mu_support, 1.0, 1.0, model.support_e_r),
        m * model.gravity,
        &scene.bodies,
    )?;
    Ok(scene.with_support(support))
}

/// The stepper's settings of the grasp study: the defaults with the paper's closest-point
/// conditions (eq. 15–19), as the paper's Example 4 writes them.
pub fn grasp_settings() -> StepperSettings {
    StepperSettings {
        closest_points: crate::contact::ClosestPoints::Paper,
        ..StepperSettings::default()
    }
}

/// Runs one trial to its stop rule (see the module docs); `observe` sees the stepper after
/// every step (for animations). A step that does not converge is an error, not an outcome.
pub fn run_trial(
    model: &GraspModel,
    trial: &GraspTrial,
    mut observe: impl FnMut(&ImplicitStepper<Planar>),
) -> Result<GraspResult, GraspError> {
    let scene = grasp_scene(model, trial)?;
    let mut stepper = ImplicitStepper::new(scene, grasp_settings())?;
    observe(&stepper);
    let h = model.time_step;
    let max_steps = (model.timeout / h).ceil() as usize;
    let window = (model.still_window / h).ceil() as usize;
    let mut still = 0;
    let mut steps = 0;
    let mut far_face = false;
    let outcome = loop {
        if steps >= max_steps {
            break GraspOutcome::Timeout;
        }
        let time = stepper.time;
        let report = stepper.step();
        if !report.converged {
            return Err(GraspError::Solver {
                step: steps,
                time,
                reason: report
                    .failure
                    .unwrap_or_else(|| format!("residual {:.3e}", report.residual)),
            });
        }
        steps += 1;
        observe(&stepper);
        far_face |= touches_far_face(&stepper, model);
        let bodies = &stepper.scene.bodies;
        if bodies[RIGHT_JAW].pose.position.x <= bodies[LEFT_JAW].pose.position.x {
            break GraspOutcome::Closed;
        }
        let speed = |t: &Twist<Planar>, arm: f64| t.linear.norm().max(t.angular.x.abs() * arm);
        let moving = speed(&bodies[GEAR].twist, GEAR_RADIUS) > model.still_speed
            || bodies[LEFT_JAW].twist.linear.norm() > model.still_speed
            || bodies[RIGHT_JAW].twist.linear.norm() > model.still_speed;
        still = if moving { 0 } else { still + 1 };
        if still >= window {
            break GraspOutcome::WrongHold; // classified below
        }
    };
    let held_by = held_by(&stepper, 0.01 * model.jaw_force * h);
    let outcome = match outcome {
        GraspOutcome::WrongHold if holds_by_outermost_teeth(&held_by) => GraspOutcome::Success,
        other => other,
    };
    let bodies = &stepper.scene.bodies;
    let g = &bodies[GEAR].pose;
    Ok(GraspResult {
        outcome,
        time: stepper.time,
        steps,
        gear: [g.position.x, g.position.y, g.rotation.angle()],
        jaws: [
            bodies[LEFT_JAW].pose.position.x,
            bodies[RIGHT_JAW].pose.position.x,
        ],
        held_by,
        far_face,
    })
}

/// Whether a loaded contact between the gear and a jaw lies on a finger's back or bottom face
/// (its point on the jaw more than a micrometre behind the inside edge's plane or below the top
/// edge by the finger's length).
fn touches_far_face(stepper: &ImplicitStepper<Planar>, model: &GraspModel) -> bool {
    stepper.contacts().iter().any(|c| {
        if c.normal_impulse <= 0.0 {
            return false;
        }
        let (jaw, point) = if c.body1 == GEAR {
            (c.body2, &c.a2)
        } else {
            (c.body1, &c.a1)
        };
        let tip = stepper.scene.bodies[jaw].pose.position;
        let inward = if jaw == LEFT_JAW { 1.0 } else { -1.0 };
        let behind = inward * (tip.x - point[0]);
        let below = tip.y - point[1];
        behind > model.finger_width - 1e-6 || below > model.finger_length - 1e-6
    })
}

/// Whether each jaw presses on its outermost tooth and otherwise at most on the disc (a
/// fingertip nestled between the tooth and the disc holds by the tooth).
pub fn holds_by_outermost_teeth(held_by: &[Vec<usize>; 2]) -> bool {
    held_by
        .iter()
        .zip(OUTERMOST_TEETH)
        .all(|(parts, tooth)| parts.contains(&tooth) && parts.iter().all(|&p| p == tooth || p == 0))
}

/// The gear parts each jaw presses on with a normal impulse above `threshold`, sorted.
fn held_by(stepper: &ImplicitStepper<Planar>, threshold: f64) -> [Vec<usize>; 2] {
    let mut held = [Vec::new(), Vec::new()];
    for c in stepper.contacts() {
        if c.normal_impulse <= threshold {
            continue;
        }
        let (jaw, part) = if c.body1 == GEAR {
            (c.body2, c.parts[0])
        } else {
            (c.body1, c.parts[1])
        };
        let side = if jaw == LEFT_JAW { 0 } else { 1 };
        held[side].push(part);
    }
    for h in &mut held {
        h.sort_unstable();
        h.dedup();
    }
    held
}
