//! The scenario file as serde types, field for field (see the [module docs](super) for the
//! format). These types check only the file's *structure* — which keys exist, which are
//! required, their TOML types — and reject unknown keys everywhere (`deny_unknown_fields`).
//! Lengths, ranges, dimensions and the geometry are checked when a [`ScenarioFile`] is built
//! into a [`Scenario`](super::Scenario) ([`ScenarioFile::build`]), where every error gets the
//! field's path.
//!
//! Every type serialises back to the same TOML, so a scenario built or edited in Rust can be
//! written out ([`ScenarioFile::to_toml`]) and read back.

use crate::mcp::SolveSettings;
use serde::{Deserialize, Serialize};

/// A whole scenario file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// The scenario's name: names the output folder `DIR/<name>/`, so it may contain only
    /// letters, digits, `_`, `-` and `.` (and is neither `.` nor `..`).
    pub name: String,
    /// `2` (planar bodies, `(x, y, θ)`) or `3` (spatial bodies, position and unit quaternion).
    pub dimension: u32,
    /// Free text for people; not used by the simulation.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Time step, duration, stepper and gravity.
    pub simulation: SimulationSpec,
    /// Settings of the step's MCP solver (every field optional; defaults of
    /// [`SolveSettings`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solver: Option<SolveSettings>,
    /// The scene's default friction: used for a pair of bodies with neither a `[[pair]]` entry
    /// nor a body default.
    pub friction: FrictionSpec,
    /// The bodies, fixed and moving, in order (`[[body]]`; at least one).
    pub body: Vec<BodySpec>,
    /// Per-pair friction overriding every default (`[[pair]]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pair: Vec<PairSpec>,
    /// Bilateral joints between two bodies or a body and the world (`[[joint]]`), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub joint: Vec<JointSpec>,
    /// Support friction of planar bodies on the table they slide on (`[[support]]`, the 2.5D
    /// model of [`crate::model::Support`]; 2D only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub support: Vec<SupportSpec>,
    /// Pairs of bodies that do not collide (`[[no_collision]]`), e.g. two gripper jaws.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub no_collision: Vec<NoCollisionSpec>,
    /// Which output files a run writes (`summary.json` is always written).
    #[serde(default)]
    pub output: Outputs,
    /// Settings of the LCP stepper (`[lcp]`, every key optional; used when
    /// `simulation.stepper = "lcp"`, ignored otherwise so one file serves both formulations).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lcp: Option<LcpSpec>,
}

/// `[lcp]`: how the Stewart–Trinkle LCP stepper sees the scene
/// ([`crate::stepper::LcpSettings`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LcpSpec {
    /// Vertices of the regular polygon replacing a circle (2D), or the least vertex count of
    /// the icosphere replacing a sphere (3D); default 100.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vertices: Option<usize>,
    /// Friction directions per contact: 2 in 2D (the only value), default 8 in 3D (≥ 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub friction_directions: Option<usize>,
    /// Vertices within this gap (length units) at the start of a step are contacts; default
    /// `1e-3`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin: Option<f64>,
}

/// `[simulation]`: time step, duration, stepper and gravity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimulationSpec {
    /// The time step `h > 0` (s).
    pub time_step: f64,
    /// The simulated duration `T ≥ 0` (s).
    pub duration: f64,
    /// Which time-stepper runs the scene.
    #[serde(default)]
    pub stepper: Stepper,
    /// The gravitational acceleration, one entry per dimension (e.g. `[0.0, -9.81]`); write
    /// zeros for none. Required, so a scene without gravity says so.
    pub gravity: Vec<f64>,
    /// The time-integration scheme: `"euler"` (the paper's, default) or `"midpoint"`
    /// (energy-consistent for gravity and the compliant layers' normal springs; see
    /// [`crate::contact`]).
    #[serde(default, skip_serializing_if = "is_default_integrator")]
    pub integrator: IntegratorSpec,
    /// Under `integrator = "rattle"`: the energy projection of workless steps (default true;
    /// see [`crate::stepper::ImplicitStepper`], "Energy projection"). Refused with another
    /// integrator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub energy_projection: Option<bool>,
    /// Where the gyroscopic impulse of 3D bodies is taken: `"implicit"` (end of step,
    /// default), `"midpoint"` or `"explicit"` (the paper's eq. 21); see
    /// [`crate::model::Gyroscopic`]. Only for the implicit stepper's euler and midpoint
    /// integrators in 3D.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gyroscopic: Option<GyroscopicSpec>,
    /// The form of the closest-point conditions of rigid contacts: `"signed_gap"` (default)
    /// or `"paper"` (the paper's (15)–(19)); see [`crate::contact::ClosestPoints`]. The LCP
    /// stepper, which has no closest points, ignores it (so that `--stepper lcp` runs a file
    /// written for the implicit stepper).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closest_points: Option<crate::contact::ClosestPoints>,
    /// Whether a step the warm start does not solve is solved by continuation in the friction
    /// coefficient before it is halved (default true); see
    /// [`crate::stepper::StepperSettings::friction_continuation`]. The LCP stepper ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub friction_continuation: Option<bool>,
    /// Whether each loaded contact's cone row is measured in N·s from the start of every step
    /// after the first (default true; false keeps the paper's row in N·s² until a solution
    /// leaves a cone); see [`crate::stepper::StepperSettings::cones_from_start`]. The LCP
    /// stepper ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cones_from_start: Option<bool>,
    /// Whether the cone rows measured in N·s from the start of a step are divided by the
    /// current load instead of the warm start's (default false); see
    /// [`crate::stepper::StepperSettings::cones_normalised`]. The LCP stepper ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cones_normalised: Option<bool>,
    /// Newton iterations after which a long first solve goes on with its cone rows divided
    /// by the current load (default 60; 0 never); see
    /// [`crate::stepper::StepperSettings::cones_normalised_after`]. The LCP stepper ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cones_normalised_after: Option<usize>,
    /// Whether the first solve of every step after the first centres each resting contact's
    /// friction at the warm start's (default false: at zero); see
    /// [`crate::stepper::StepperSettings::friction_centre_from_start`]. The LCP stepper
    /// ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub friction_centre_from_start: Option<bool>,
}

/// `simulation.gyroscopic`: the file's name of a [`crate::model::Gyroscopic`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GyroscopicSpec {
    /// At the start of the step (the paper's eq. 21).
    Explicit,
    /// At the end of the step (default).
    Implicit,
    /// At the step's midpoint.
    Midpoint,
}

impl GyroscopicSpec {
    /// The model's choice.
    pub fn gyroscopic(&self) -> crate::model::Gyroscopic {
        match self {
            GyroscopicSpec::Explicit => crate::model::Gyroscopic::Explicit,
            GyroscopicSpec::Implicit => crate::model::Gyroscopic::Implicit,
            GyroscopicSpec::Midpoint => crate::model::Gyroscopic::Midpoint,
        }
    }
}

/// `simulation.integrator`: the file's name of a [`crate::model::Integrator`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntegratorSpec {
    /// The paper's backward Euler (default).
    #[default]
    Euler,
    /// Midpoint for smooth forces, impulsive contacts at full weight.
    Midpoint,
    /// Second order (kick–drift–kick, velocity projected on the contacts at the end).
    Rattle,
}

impl IntegratorSpec {
    /// The model's integrator.
    pub fn integrator(&self) -> crate::model::Integrator {
        match self {
            IntegratorSpec::Euler => crate::model::Integrator::Euler,
            IntegratorSpec::Midpoint => crate::model::Integrator::Midpoint,
            IntegratorSpec::Rattle => crate::model::Integrator::Rattle,
        }
    }
}

fn is_default_integrator(i: &IntegratorSpec) -> bool {
    *i == IntegratorSpec::Euler
}

/// A body's compliant layer (paper §5): `layer = { stiffness = [k_n, k_t], damping = [c_n, c_t],
/// max_deflection = 0.05 }`. `stiffness` and `damping` are the diagonal (normal, then the
/// tangent directions: `D` numbers) or the full symmetric `D × D` matrix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayerSpec {
    /// Stiffness `K` (N/m): `D` numbers (diagonal) or `D` rows of `D` (symmetric
    /// positive-definite).
    pub stiffness: Numbers,
    /// Damping `C` (N·s/m), same forms (symmetric positive-semidefinite; default zero).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub damping: Option<Numbers>,
    /// Maximum normal deflection `δ_max > 0` (m): the layer's depth over the rigid core.
    pub max_deflection: f64,
}

/// The time-stepper a scenario asks for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stepper {
    /// The paper's geometrically implicit mixed NCP (the default).
    #[default]
    Implicit,
    /// The Stewart–Trinkle LCP baseline (accepted here; the stepper decides whether it can
    /// run it).
    Lcp,
}

impl Stepper {
    /// The name used in files and in `summary.json`: `implicit` or `lcp`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Stepper::Implicit => "implicit",
            Stepper::Lcp => "lcp",
        }
    }
}

impl std::fmt::Display for Stepper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Friction parameters of the elliptic law (paper eq. 5): `[friction]` and a body's
/// `friction = { ... }`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrictionSpec {
    /// The coefficient of friction `μ ≥ 0`.
    pub mu: f64,
    /// Semi-axis `e_t > 0` along the first tangent (default 1).
    #[serde(default = "one")]
    pub e_t: f64,
    /// Semi-axis `e_o > 0` along the second tangent (default 1; 3D only matters).
    #[serde(default = "one")]
    pub e_o: f64,
    /// Semi-axis `e_r > 0` of the torsional moment about the normal (m; 3D only matters).
    /// Default: relative to the bodies' size, `0.3 ×` the smaller body's bounding radius (see
    /// the [module docs](super), "Friction").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub e_r: Option<f64>,
}

fn one() -> f64 {
    1.0
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// `[[pair]]`: the friction of the contacts between two named bodies (either order).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PairSpec {
    /// One body's name.
    pub body1: String,
    /// The other body's name.
    pub body2: String,
    /// The coefficient of friction `μ ≥ 0`.
    pub mu: f64,
    /// Semi-axis `e_t > 0` (default 1).
    #[serde(default = "one")]
    pub e_t: f64,
    /// Semi-axis `e_o > 0` (default 1).
    #[serde(default = "one")]
    pub e_o: f64,
    /// Semi-axis `e_r > 0` (m; default relative to the bodies' size, as in
    /// [`FrictionSpec::e_r`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub e_r: Option<f64>,
}

/// `[[support]]`: a planar body's friction on its table ([`crate::model::Support`]): the
/// paper's friction ellipsoid over `(x, y, spin)` with the normal impulse `N h`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SupportSpec {
    /// The sliding body's name.
    pub body: String,
    /// The coefficient of friction `μ ≥ 0` (0: no support friction).
    pub mu: f64,
    /// Semi-axis `e_t > 0` along world `x` (default 1).
    #[serde(default = "one")]
    pub e_t: f64,
    /// Semi-axis `e_o > 0` along world `y` (default 1).
    #[serde(default = "one")]
    pub e_o: f64,
    /// The spin's semi-axis `e_r > 0` (m): the largest friction torque over the largest
    /// friction force, `2R/3` for a uniformly loaded disc of radius `R`.
    pub e_r: f64,
    /// The normal force `N > 0` (N); default the body's mass times 9.81 m/s².
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normal_force: Option<f64>,
}

/// `[[no_collision]]`: two bodies whose parts never collide.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoCollisionSpec {
    /// One body's name.
    pub body1: String,
    /// The other body's name.
    pub body2: String,
}

/// `[[joint]]`: a bilateral joint ([`crate::model::Joint`]) given at the bodies' initial poses.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JointSpec {
    /// Unique among the joints (default `joint<i>`, `i` its index from 0): names its rows of
    /// `joints.csv` and messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// What the joint leaves free.
    pub kind: JointKindSpec,
    /// A body's name or `"world"` (the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body1: Option<String>,
    /// A body's name (not the world).
    pub body2: String,
    /// The joint's point in the world at the initial poses (m), one entry per dimension.
    pub anchor: Vec<f64>,
    /// The joint's direction in the world (any length but zero), one entry per dimension:
    /// required by `prismatic` and by `revolute` in 3D, refused by the kinds that have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axis: Option<Vec<f64>>,
    /// What drives the joint's free coordinate (prismatic and revolute joints).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actuator: Option<ActuatorSpec>,
    /// Stops `[lo, hi]` on the free coordinate (m, or rad from the initial configuration;
    /// `lo ≤ 0 ≤ hi`, revolute within `(−π, π)`): prismatic and revolute joints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<Vec<f64>>,
    /// The largest Coulomb friction force (N) or torque (N·m) against the free coordinate's
    /// motion: prismatic and revolute joints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub friction: Option<f64>,
}

/// `joint.actuator`: a constant `force`, or a PD controller (`stiffness` and `max` required,
/// `target`, `speed` and `damping` default 0); see [`crate::model::Actuator`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActuatorSpec {
    /// A constant force (N, prismatic) or torque (N·m, revolute) on body 2 along the axis.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub force: Option<f64>,
    /// The PD controller's set point of the joint's coordinate (m or rad from the initial
    /// configuration).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<f64>,
    /// The PD set point's rate (m/s or rad/s): the set point is `target + speed t`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed: Option<f64>,
    /// The PD stiffness (N/m or N·m/rad).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stiffness: Option<f64>,
    /// The PD damping (N·s/m or N·m·s/rad).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub damping: Option<f64>,
    /// The PD saturation (N or N·m).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
}

/// `joint.kind`: the file's name of a [`crate::model::JointKind`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JointKindSpec {
    /// Rotation about the axis through the anchor (2D: a pin, no axis).
    Revolute,
    /// Translation along the axis, no relative rotation.
    Prismatic,
    /// No relative motion: a weld.
    Fixed,
    /// Any rotation about the anchor (3D only).
    Ball,
}

impl JointKindSpec {
    /// The model's kind.
    pub fn kind(&self) -> crate::model::JointKind {
        match self {
            JointKindSpec::Revolute => crate::model::JointKind::Revolute,
            JointKindSpec::Prismatic => crate::model::JointKind::Prismatic,
            JointKindSpec::Fixed => crate::model::JointKind::Fixed,
            JointKindSpec::Ball => crate::model::JointKind::Ball,
        }
    }
}

/// The name `[[joint]]` gives the world in `body1`.
pub const WORLD: &str = "world";

/// `[output]`: which files a run writes besides `summary.json`, how often, and how much it
/// may write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Outputs {
    /// Write `trajectory.csv` (default true).
    #[serde(default = "yes")]
    pub trajectory: bool,
    /// Write `contacts.csv` (default true).
    #[serde(default = "yes")]
    pub contacts: bool,
    /// Write `joints.csv` when the scene has joints (default true).
    #[serde(default = "yes")]
    pub joints: bool,
    /// Write `drives.csv` when the scene has driven bodies (default true).
    #[serde(default = "yes")]
    pub drives: bool,
    /// Write `solver.csv` (default true).
    #[serde(default = "yes")]
    pub solver: bool,
    /// Write the rows of every `every`-th step only (default 1: every step): steps 0, K, 2K, …
    /// and the last; `summary.json` still covers every step.
    #[serde(default = "one_step", skip_serializing_if = "is_one_step")]
    pub every: u64,
    /// The most a run may write, in megabytes (10⁶ bytes) of CSV rows as estimated before it
    /// starts (default [`DEFAULT_MAX_OUTPUT_MB`]); a run expected to write more is refused
    /// unless this is raised or `run --force` is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_mb: Option<u64>,
}

/// The default limit on a run's expected output, in megabytes (`[output] max_output_mb`).
pub const DEFAULT_MAX_OUTPUT_MB: u64 = 500;

fn yes() -> bool {
    true
}

fn one_step() -> u64 {
    1
}

fn is_one_step(k: &u64) -> bool {
    *k == 1
}

impl Default for Outputs {
    fn default() -> Self {
        Self {
            trajectory: true,
            contacts: true,
            joints: true,
            drives: true,
            solver: true,
            every: 1,
            max_output_mb: None,
        }
    }
}

/// A number, a list of numbers or a list of rows: the value of the keys whose form depends on
/// the dimension (`orientation`, `angular_velocity`, `torque`, `inertia`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Numbers {
    /// One number (2D angle, angular velocity, torque or inertia).
    Scalar(f64),
    /// A list (3D quaternion `[w, x, y, z]`, angular vector, principal inertias).
    List(Vec<f64>),
    /// Rows of a matrix (3D inertia tensor).
    Matrix(Vec<Vec<f64>>),
}

/// `[[body]]`: one rigid body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BodySpec {
    /// Unique name: keys output columns, `[[pair]]` entries and messages.
    pub name: String,
    /// A fixed body never moves: `mass` and `inertia` are then optional and ignored, and it
    /// may not have a velocity, angular velocity, force or torque.
    #[serde(default, skip_serializing_if = "is_false")]
    pub fixed: bool,
    /// A driven body moves as prescribed, with its constant `velocity` and `angular_velocity`
    /// (its pose at `t` is `(c₀ + v t, exp(ω t) R₀)`): like a fixed body it has no unknowns,
    /// takes no force or torque and its mass and inertia are ignored; it pushes what it meets.
    #[serde(default, skip_serializing_if = "is_false")]
    pub driven: bool,
    /// A table of poses the body follows (`[body.drive]`, see [`crate::model::drive`]): the
    /// body is then driven (no `velocity` or `angular_velocity`; its twist comes from the table).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drive: Option<DriveSpec>,
    /// Mass `m > 0` (required for a moving body).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mass: Option<f64>,
    /// Body-frame inertia about the body origin (the centre of mass): 2D a number; 3D the
    /// principal moments `[Ixx, Iyy, Izz]` or the full symmetric `[[…], […], […]]` (required
    /// for a moving body).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inertia: Option<Numbers>,
    /// Position of the body origin (centre of mass) in the world, one entry per dimension.
    pub position: Vec<f64>,
    /// Orientation: 2D the angle θ (rad); 3D the unit quaternion `[w, x, y, z]`. Default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orientation: Option<Numbers>,
    /// Initial velocity of the body origin (default zero).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub velocity: Option<Vec<f64>>,
    /// Initial angular velocity ω, world frame: 2D a number, 3D `[wx, wy, wz]` (default zero).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub angular_velocity: Option<Numbers>,
    /// A constant applied force (world frame), besides gravity (default zero).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub force: Option<Vec<f64>>,
    /// A constant applied torque about the body origin (world frame): 2D a number, 3D a
    /// 3-list (default zero).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub torque: Option<Numbers>,
    /// This body's default friction (see [`crate::model::Scene::friction_between`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub friction: Option<FrictionSpec>,
    /// A compliant layer around the body's rigid core: the body is quasi-rigid (paper §5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layer: Option<LayerSpec>,
    /// The body's shape: a union of convex parts (`[[body.part]]`; at least one).
    pub part: Vec<PartSpec>,
}

/// `body.drive`: the table of poses of a driven body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriveSpec {
    /// The times (s): at least two, strictly increasing, the first `≥ 0`.
    pub times: Vec<f64>,
    /// The body origin's position at each time, one entry per dimension; the first is the
    /// body's `position`.
    pub positions: Vec<Vec<f64>>,
    /// The orientation at each time, as the body's `orientation` (2D an angle, 3D a unit
    /// quaternion); consecutive entries turn by less than π (the table turns the shorter way).
    /// Default: the body's orientation throughout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orientations: Option<Vec<Numbers>>,
}

/// The kind of a convex part.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PartKind {
    /// The intersection of the part's `[[body.part.function]]` entries (the default).
    #[default]
    Intersection,
    /// A box (2D: rectangle) with `half_extents`, centred on the part's origin.
    #[serde(alias = "rectangle")]
    Box,
    /// A convex polygon (2D) with `vertices` listed counter-clockwise.
    Polygon,
    /// A bounded polyhedron (3D): the intersection of the half-spaces `normal · ξ ≤ offset`
    /// listed in `planes`.
    Polyhedron,
    /// A finite cylinder (3D) along the part's `z` axis: `radius`, `half_height`.
    Cylinder,
    /// A regular polygon (2D) with `sides` vertices on the circle of `radius` about the part's
    /// origin, the first at `−y` ([`crate::geometry::ConvexPart::regular_polygon`]).
    RegularPolygon,
}

impl PartKind {
    /// The name used in files.
    pub fn as_str(&self) -> &'static str {
        match self {
            PartKind::Intersection => "intersection",
            PartKind::Box => "box",
            PartKind::Polygon => "polygon",
            PartKind::Polyhedron => "polyhedron",
            PartKind::Cylinder => "cylinder",
            PartKind::RegularPolygon => "regular_polygon",
        }
    }
}

fn is_intersection(k: &PartKind) -> bool {
    *k == PartKind::Intersection
}

/// `[[body.part]]`: one convex part of a body, either an intersection of functions or a whole
/// part from a constructor (`kind`), optionally placed in the body frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartSpec {
    /// How the part is described (default `intersection`).
    #[serde(default, skip_serializing_if = "is_intersection")]
    pub kind: PartKind,
    /// `box`: half the side lengths, one entry per dimension.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub half_extents: Option<Vec<f64>>,
    /// `polygon`: the vertices `[[x, y], …]`, counter-clockwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vertices: Option<Vec<Vec<f64>>>,
    /// `polyhedron`: the half-spaces `{ normal = [..], offset = .. }`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub planes: Option<Vec<PlaneSpec>>,
    /// `cylinder`, `regular_polygon`: the radius (of a regular polygon, its vertices').
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f64>,
    /// `regular_polygon`: the number of vertices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sides: Option<usize>,
    /// `cylinder`: half the length along `z`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub half_height: Option<f64>,
    /// Where the part's origin sits in the body frame (default the body origin).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<Vec<f64>>,
    /// The part's orientation in the body frame (2D angle, 3D unit quaternion).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orientation: Option<Numbers>,
    /// `intersection`: the functions `fᵢ ≤ 0` whose intersection is the part (at least one).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub function: Vec<FunctionSpec>,
}

/// One half-space `normal · ξ ≤ offset` of a polyhedron.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlaneSpec {
    /// The outward normal (need not be unit; not zero).
    pub normal: Vec<f64>,
    /// The offset `d` of `normal · ξ ≤ d`.
    pub offset: f64,
}

/// The primitive of a `[[body.part.function]]` entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShapeKind {
    /// 2D disc `‖ξ‖ ≤ radius`.
    Circle,
    /// 3D ball `‖ξ‖ ≤ radius`.
    Sphere,
    /// 2D ellipse with `semi_axes`.
    Ellipse,
    /// 3D ellipsoid with `semi_axes`.
    Ellipsoid,
    /// 2D superellipse `Σ |ξᵢ/aᵢ|ᵖ ≤ 1` with `semi_axes` and `exponent` `p ≥ 2`.
    Superellipse,
    /// 3D superellipsoid, likewise.
    Superellipsoid,
    /// 2D half-plane `normal · ξ ≤ offset`.
    HalfPlane,
    /// 3D half-space `normal · ξ ≤ offset`.
    HalfSpace,
    /// 3D infinite cylinder `ξ_x² + ξ_y² ≤ radius²` (axis along the function's `z`).
    InfiniteCylinder,
}

impl ShapeKind {
    /// The name used in files.
    pub fn as_str(&self) -> &'static str {
        match self {
            ShapeKind::Circle => "circle",
            ShapeKind::Sphere => "sphere",
            ShapeKind::Ellipse => "ellipse",
            ShapeKind::Ellipsoid => "ellipsoid",
            ShapeKind::Superellipse => "superellipse",
            ShapeKind::Superellipsoid => "superellipsoid",
            ShapeKind::HalfPlane => "half_plane",
            ShapeKind::HalfSpace => "half_space",
            ShapeKind::InfiniteCylinder => "infinite_cylinder",
        }
    }

    /// The dimension the shape lives in (2 or 3).
    pub fn dimension(&self) -> u32 {
        match self {
            ShapeKind::Circle
            | ShapeKind::Ellipse
            | ShapeKind::Superellipse
            | ShapeKind::HalfPlane => 2,
            _ => 3,
        }
    }

    /// The same shape in the other dimension, if there is one (for messages).
    pub fn counterpart(&self) -> Option<ShapeKind> {
        Some(match self {
            ShapeKind::Circle => ShapeKind::Sphere,
            ShapeKind::Sphere => ShapeKind::Circle,
            ShapeKind::Ellipse => ShapeKind::Ellipsoid,
            ShapeKind::Ellipsoid => ShapeKind::Ellipse,
            ShapeKind::Superellipse => ShapeKind::Superellipsoid,
            ShapeKind::Superellipsoid => ShapeKind::Superellipse,
            ShapeKind::HalfPlane => ShapeKind::HalfSpace,
            ShapeKind::HalfSpace => ShapeKind::HalfPlane,
            ShapeKind::InfiniteCylinder => return None,
        })
    }
}

/// `[[body.part.function]]`: one convex implicit function `f ≤ 0`, optionally placed in the
/// part's frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FunctionSpec {
    /// The primitive.
    pub shape: ShapeKind,
    /// `circle`, `sphere`, `infinite_cylinder`: the radius `> 0`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f64>,
    /// `ellipse`, `ellipsoid`, `superellipse`, `superellipsoid`: the semi-axes `> 0`, one per
    /// dimension.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub semi_axes: Option<Vec<f64>>,
    /// `superellipse`, `superellipsoid`: the exponent `p`, `2 ≤ p ≤ 200`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exponent: Option<f64>,
    /// `half_plane`, `half_space`: the outward normal (need not be unit; not zero).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normal: Option<Vec<f64>>,
    /// `half_plane`, `half_space`: the offset `d` of `normal · ξ ≤ d`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<f64>,
    /// Where the function's origin sits in the part's frame (default its origin).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<Vec<f64>>,
    /// The function's orientation in the part's frame (2D angle, 3D unit quaternion).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orientation: Option<Numbers>,
}

impl ScenarioFile {
    /// The file as TOML text (parses back to an equal [`ScenarioFile`]).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("a scenario file is always representable in TOML")
    }
}
