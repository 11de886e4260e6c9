//! Scenario files: TOML ↔ the scene description, with validation that names the file, the
//! field and the reason.
//!
//! The other way, [`write::scenario_file`] writes a scene built in code as a scenario file
//! whose run is the code's scene bit for bit (`soak` and `suite --write-scenarios`).
//!
//! [`load`] reads a file and [`parse`] a text into a [`Scenario`]: the scene (planar or
//! spatial, [`AnyScene`]), the stepper, the solver settings, the outputs, the time step and the
//! duration. Reading happens in four passes, each error an [`ScenarioError`] that says
//! `FILE:LINE:COLUMN: field `PATH`: REASON`:
//!
//! 1. **TOML syntax** (line and column from the parser).
//! 2. **Structure** ([`schema`], serde with `deny_unknown_fields` everywhere): unknown keys,
//!    missing required keys, wrong TOML types, unknown names (`stepper`, `shape`, `kind`).
//! 3. **Finite numbers**: TOML allows `nan` and `inf`; a scenario rejects them anywhere.
//! 4. **Meaning** ([`ScenarioFile::build`]): list lengths against the dimension ("has 3
//!    entries but the scene is 2D"), keys that do not apply to a shape, non-physical values
//!    (mass, inertia, radii, semi-axes, exponent `p ≥ 2`, time step, friction), unit
//!    quaternions, unique body names, `[[pair]]` and `[[joint]]` bodies that exist, unique
//!    joint names, an `axis` exactly where the joint's kind uses one, and **no overlap at
//!    t = 0**: every pair of parts of different bodies, at least one moving, is classified by
//!    [`crate::geometry::proximity()`]; `Intersecting` is an error naming both bodies, `Touching`
//!    is allowed (resting contact starts touching; two bodies a joint links are not checked).
//!    Errors of the model and geometry constructors are wrapped with the field's path.
//!
//! Field paths follow the file: `simulation.time_step`, `body[1].mass`,
//! `body[1].part[0].function[0].radius`, `pair[0].body2`, `joint[0].anchor` (indices from 0, in
//! file order).
//!
//! # The format
//!
//! A complete 3D example: every key is shown (but `[[joint]]`'s: see "Joints" below), optional
//! ones say their default, and it runs as
//! written (`implicit-contact run demo.toml`: a dumbbell with a compliant layer spinning on
//! its round end; `tests/docs_examples.rs` parses and runs every TOML block of these docs and
//! of the README). Keys in comments are alternatives that cannot be combined with the lines
//! shown.
//!
//! ```toml
//! name = "demo"                  # names the output folder DIR/<name>/: letters, digits, _ - .
//! dimension = 3                  # 2: planar bodies (x, y, θ); 3: position + unit quaternion
//! description = "free text"      # optional
//!
//! [simulation]
//! time_step = 0.01               # h > 0 (s)
//! duration = 2.0                 # T ≥ 0 (s), a whole number of steps: the run takes T/h steps
//! stepper = "implicit"           # optional: "implicit" (default) or "lcp"
//! integrator = "euler"           # optional: "euler" (the paper's, default), "midpoint", "rattle"
//! # energy_projection = true     # optional, only with "rattle": default true
//! gyroscopic = "implicit"        # optional, 3D euler/midpoint only: "implicit" (default),
//!                                #   "midpoint", "explicit" (the paper's eq. 21); see model::Gyroscopic
//! closest_points = "signed_gap"  # optional, implicit stepper: "signed_gap" (default) or "paper"
//!                                #   (the paper's eq. 15–19); see contact::ClosestPoints
//! # friction_continuation = true # optional, implicit stepper: a step the warm start does not
//!                                #   solve is solved by continuation in μ before it is halved
//! # cones_from_start = true      # optional, implicit stepper: each loaded contact's cone row in
//!                                #   N·s from each step's start (false: the paper's row, N·s²)
//! # cones_normalised = false     # optional, implicit stepper: those rows divided by the current
//!                                #   load instead of the warm start's
//! # cones_normalised_after = 60  # optional, implicit stepper: a first solve still unsolved after
//!                                #   this many Newton iterations goes on so (0: never)
//! # friction_centre_from_start = false # optional, implicit stepper: each resting contact's
//!                                #   friction first centred at the warm start's, not at zero
//! gravity = [0.0, 0.0, -9.81]    # m/s², one entry per dimension; required (write zeros for none)
//!
//! [solver]                       # optional: crate::mcp::SolveSettings, every field optional
//! tolerance = 1e-10              # natural residual of the step's MCP (its rows' own units)
//! order = ["path_search", "fischer_burmeister", "levenberg_marquardt"]
//! path = { major_iteration_limit = 500 }
//!
//! [friction]                     # the scene default (paper eq. 5; see "Friction" below)
//! mu = 0.3                       # μ ≥ 0 (dimensionless)
//! e_t = 1.0                      # optional, default 1 (> 0, dimensionless)
//! e_o = 1.0                      # optional, default 1 (> 0, dimensionless; 3D)
//! e_r = 0.3                      # optional (> 0, m; 3D): default 0.3 × the smaller body's radius
//!
//! [[body]]
//! name = "ground"                # unique; names the trajectory columns (<name>.x, …)
//! fixed = true                   # optional, default false; a fixed body needs no mass/inertia
//! # driven = true                # optional, default false: moves as prescribed at its constant
//! #                              #   velocity / angular_velocity (no unknowns, no force or torque;
//! #                              #   mass and inertia ignored): a pusher, a conveyor, a turntable
//! # [body.drive]                 # optional: the body follows a table of poses instead (it is
//! # times = [0.0, 1.0]           #   then driven; no velocity, force or torque); s, ≥ 2, increasing
//! # positions = [[0, 0, 0], [0, 0, 1]]  # one per time; the first is the body's position
//! # orientations = [[1, 0, 0, 0], [1, 0, 0, 0]]  # optional, as `orientation`; the first is the
//! #                              #   body's; consecutive entries turn by < π (the shorter way)
//! position = [0.0, 0.0, 0.0]     # m, world frame
//! [[body.part]]                  # a body is a union of convex parts…
//! [[body.part.function]]         # …each the intersection of one or more functions f ≤ 0
//! shape = "half_space"           # normal · ξ ≤ offset
//! normal = [0.0, 0.0, 1.0]       # any length ≠ 0 (dimensionless)
//! offset = 0.0                   # m (along the unit normal)
//!
//! [[body]]
//! name = "dumbbell"
//! mass = 2.0                     # kg, > 0 (moving bodies)
//! inertia = [0.5, 0.5, 0.2]      # kg·m² about the body origin, body frame: 3D principal
//!                                #   [Ixx, Iyy, Izz] or [[..], [..], [..]]; 2D one number
//! position = [0.0, 0.0, 1.0]     # m: the body origin = the centre of mass
//! orientation = [1.0, 0.0, 0.0, 0.0]  # optional: 3D unit quaternion [w, x, y, z]; 2D angle (rad)
//! velocity = [0.1, 0.0, 0.0]     # optional, m/s, default 0
//! angular_velocity = [0.0, 0.0, 1.0]  # optional, rad/s, world frame; 2D one number
//! force = [0.0, 0.0, 0.0]        # optional constant applied force (N, world frame), besides gravity
//! torque = [0.0, 0.0, 0.0]       # optional constant applied torque (N·m) about the origin; 2D one number
//! friction = { mu = 0.5 }        # optional body default, keys as [friction] (two bodies' combine)
//! # optional compliant layer around a rigid core (quasi-rigid body, paper §5): stiffness (N/m)
//! # and damping (N·s/m) per direction (normal, tangents) or as a full symmetric matrix; the
//! # core is reached at max_deflection (m). At most one of two bodies that may touch has one.
//! layer = { stiffness = [1000.0, 800.0, 800.0], damping = [0.0, 0.0, 0.0], max_deflection = 0.05 }
//! [[body.part]]
//! [[body.part.function]]
//! shape = "sphere"               # circle | sphere: radius (m)
//! radius = 0.5
//! position = [0.0, 0.0, -0.5]    # optional placement of the function in the part's frame (m)
//! orientation = [1.0, 0.0, 0.0, 0.0]  # optional, likewise: 3D unit quaternion, 2D angle (rad)
//! [[body.part]]                  # a second part: an intersection of two functions
//! position = [0.0, 0.0, 0.5]     # optional placement of the part in the body frame (m)
//! orientation = [1.0, 0.0, 0.0, 0.0]  # optional, likewise
//! [[body.part.function]]
//! shape = "superellipsoid"       # ellipse | ellipsoid: semi_axes (m); superellipse |
//! semi_axes = [0.5, 0.5, 0.3]    #   superellipsoid: + exponent ≥ 2 (dimensionless)
//! exponent = 4.0
//! [[body.part.function]]
//! shape = "half_space"
//! normal = [0.0, 0.0, 1.0]
//! offset = 0.1
//! [[body.part]]                  # a whole part from a constructor
//! kind = "box"                   # box (2D too) | polygon (2D) | regular_polygon (2D) | polyhedron (3D) | cylinder (3D)
//! half_extents = [0.1, 0.1, 0.8] # m
//! # kind = "polygon",    vertices = [[x, y], …] counter-clockwise (m)
//! # kind = "polyhedron", planes = [{ normal = [..], offset = .. }, …] (offset in m)
//! # kind = "cylinder",   radius = .., half_height = ..   (m; axis along the part's z)
//! # kind = "regular_polygon", radius = .., sides = n      (m; vertices on the circle, first at −y)
//! # shape = "infinite_cylinder", radius = ..             (3D function, axis along its z)
//! # Any part may touch any other: a single function or an intersection on either side (a box
//! # on a box, a polygon against a polygon). Flat on flat, a pair of convex parts has ONE
//! # equivalent contact point, where the face's pressure resultant acts (under the centre of
//! # mass at rest); its torsion is limited by μ e_r p_n. A compliant layer may be on either
//! # side of any of these contacts.
//!
//! [[pair]]                       # optional: friction between two named bodies, overriding all
//! body1 = "ground"
//! body2 = "dumbbell"
//! mu = 0.2                       # e_t, e_o, e_r optional, defaults as in [friction]
//!
//! # [[support]]                  # optional, 2D only: a planar body's friction on the table it
//! # body = "puck"                #   slides on (the 2.5D model, paper §6.4): the ellipsoid
//! # mu = 0.2                     #   (p_x/e_t)² + (p_y/e_o)² + (p_τ/e_r)² ≤ (μ N h)² at its
//! # e_r = 0.0138                 #   centre of mass; e_r (m) required (2R/3 for a uniformly
//! # e_t = 1.0                    #   loaded disc of radius R), e_t, e_o default 1; normal_force
//! # normal_force = 0.294         #   N default mass × 9.81. Implicit stepper, euler only.
//!
//! # [[no_collision]]             # optional: two bodies whose parts never collide (e.g. the
//! # body1 = "left_jaw"           #   jaws of a gripper)
//! # body2 = "right_jaw"
//!
//! [output]                       # optional: what a run writes (summary.json always)
//! trajectory = true              # trajectory.csv, default true
//! contacts = true                # contacts.csv, default true
//! joints = true                  # joints.csv (a scene with [[joint]] entries), default true
//! drives = true                  # drives.csv (a scene with driven bodies), default true
//! solver = true                  # solver.csv, default true
//! every = 1                      # write every K-th step (and the last), default 1
//! max_output_mb = 500            # refuse a run expected to write more (MB), default 500
//!
//! [lcp]                          # optional: the LCP stepper (used when stepper = "lcp")
//! vertices = 1000                # circle → regular N-gon; sphere → icosphere with ≥ N vertices (default 100)
//! friction_directions = 8        # per contact: 2D exactly 2; 3D ≥ 3 (default 8)
//! margin = 1e-3                  # m: vertices within this gap at a step's start are contacts (default 1e-3)
//! ```
//!
//! **Units.** SI throughout: metres, kilograms, seconds, radians; forces in newtons, torques in
//! N·m, stiffness in N/m, damping in N·s/m. Nothing is converted: a scene in millimetres must
//! scale every key (and `gravity`) itself.
//!
//! **Steps.** Every step has the same length `h = time_step`; a run takes `n = duration /
//! time_step` steps and ends at `t = n h` exactly. `duration` must therefore be a whole number
//! of steps (up to a rounding of 10⁻⁹ of a step, so `5.0 / 0.01` is 500 steps): any other value
//! is refused at `simulation.duration` with the two nearest valid durations, rather than
//! silently running past `T` or shortening a step (the steppers' warm starts and the second-
//! order integrator assume equal steps). `duration = 0` runs no step: the files hold the
//! initial state and `summary.json` zero statistics. `run --duration` and `--time-step` are
//! checked together.
//!
//! **Poses and `orientation`.** A body's `position` and `orientation` place its frame (origin
//! at the centre of mass) in the world; a part's place the part in the body frame; a function's
//! place it in its part's frame (so a sphere off-centre, a tilted half-space). In 2D an
//! orientation is an angle in radians (counter-clockwise), in 3D a unit quaternion `[w, x, y,
//! z]` (norm 1 within 10⁻⁹; `[1, 0, 0, 0]` is no rotation). Every placement is optional and
//! defaults to none. `velocity` is the centre of mass's, `angular_velocity` is in the world
//! frame.
//!
//! **Friction.** A contact's friction obeys the paper's elliptic law (eq. 5): the impulses
//! `p_t`, `p_o` along the two tangent directions (N·s) and the torsional impulse `p_r` about
//! the normal (N·m·s) stay in the ellipsoid `(p_t/e_t)² + (p_o/e_o)² + (p_r/e_r)² ≤ μ² p_n²`.
//! `e_t` and `e_o` scale the sliding friction along the tangents (dimensionless: `e_t = e_o =
//! 1` is isotropic Coulomb friction of coefficient `μ`; in 2D only `e_t` matters). `e_r` is a
//! length: the largest torsional moment is `μ e_r` times the normal force, the moment a ring of
//! radius `e_r` would carry, so it stands for the size of the contact patch. Left out in 3D,
//! it is `0.3 ×` the bounding radius of the smaller of the two bodies (its smallest part's;
//! a body without a bounded part, such as a ground half-space, does not count; 1 m if neither
//! has one) — the paper's own ratio (`e_r = 0.3` for its unit sphere) — so a 0.1 m ball gets
//! 0.03 m, not a torsional grip that stops its spin. `summary.json` lists the value each
//! contact used. Which entry applies: a `[[pair]]` for the two bodies, else the bodies' own
//! `friction` defaults (both: the geometric mean of each parameter), else `[friction]`.
//!
//! **Joints.** `[[joint]]` entries (optional, any number, in order) hold two bodies together,
//! or a body to the world: the equality constraints `Θ(q) = 0` of the paper's §3
//! ([`crate::model::Joint`], rows in [`crate::joint`]), solved in each step's MCP with the
//! contacts. A joint is given at the bodies' initial poses — `anchor` is a world point and
//! `axis` a world direction, both at t = 0 — and holds the bodies in the relative pose they
//! start in, but for what its kind leaves free: `revolute` the rotation about the axis through
//! the anchor (2D: about the plane's normal, a pin, no `axis`), `prismatic` the translation
//! along the axis (no relative rotation), `fixed` nothing (a weld), `ball` every rotation about
//! the anchor (3D only). Two bodies a joint links never collide (their parts may overlap at
//! t = 0). Refused, each at its line: an unknown body, the world as `body2`, one body twice,
//! two fixed bodies (the world counts as fixed), a duplicate name, an `anchor` or `axis` with
//! the wrong number of entries or not finite, a zero `axis`, an `axis` missing where the kind
//! uses one or given where it does not, a `ball` in 2D, and any joint under `stepper = "lcp"`
//! (that stepper has no joints). A run of a scene with joints also writes `joints.csv` (one row
//! per written step and joint: the joint's impulse and angular impulse on `body2` over the
//! step, its drift, and the mean force and torque) and `summary.json` gets `max_joint_drift`,
//! the largest constraint error `|Θ|` (m, or the sine of an angle) over the run. A pendulum — a
//! rod pinned to the world at its left end, released horizontal:
//!
//! ```toml
//! name = "pendulum"
//! dimension = 2
//!
//! [simulation]
//! time_step = 0.01
//! duration = 1.0
//! gravity = [0.0, -9.81]
//!
//! [friction]
//! mu = 0.0
//!
//! [[body]]
//! name = "rod"
//! mass = 1.0
//! inertia = 0.0842               # kg·m²: m (L² + w²) / 12 for L = 1 m, w = 0.1 m
//! position = [0.5, 0.0]          # m: horizontal, its left end at the origin
//! [[body.part]]
//! kind = "box"
//! half_extents = [0.5, 0.05]
//!
//! [[joint]]
//! name = "pin"                   # optional, default "joint<i>" (i its index from 0); unique
//! kind = "revolute"              # "revolute" | "prismatic" | "fixed" | "ball" (3D only)
//! body1 = "world"                # a body's name or "world" (optional, default "world")
//! body2 = "rod"                  # a body's name (required; never the world)
//! anchor = [0.0, 0.0]            # m: a world point at the initial poses, one entry per dimension
//! # axis = [1.0, 0.0]            # a world direction (any length ≠ 0): required by prismatic and
//! #                              #   by 3D revolute, refused by fixed, ball and 2D revolute
//! # actuator = { force = 2.0 }   # optional (prismatic, revolute): a constant force (N) or
//! #   torque (N·m) on body2 along / about the axis (its opposite on body1), or a PD controller
//! #   { target = 0.0, speed = 0.0, stiffness = 100.0, damping = 5.0, max = 20.0 } pulling the
//! #   joint's coordinate (m, or rad, from the initial configuration) to target + speed t,
//! #   saturated at max; an applied load taken at the start of the step (stable for
//! #   stiffness h² / mass well below 1)
//! # limits = [-1.0, 0.5]        # optional (prismatic, revolute): stops on the joint's coordinate
//! #   (m, or rad from the initial configuration; lo < hi, lo ≤ 0 ≤ hi, revolute within
//! #   (−π, π)), inelastic; joints.csv's limit_impulse has λ_lo − λ_hi along the coordinate
//! # friction = 0.5               # optional (prismatic, revolute): Coulomb friction of at most
//! #   this force (N) or torque (N·m) against the coordinate's rate; joints.csv's
//! #   friction_impulse. Limits and friction need integrator = "euler"
//! ```
//!
//! **Output volume.** Before a run starts its CSV output is estimated (rows of the trajectory,
//! joints and solver log exactly; one contact row per moving body per step; 20 bytes per field); a run
//! expected to write more than `[output] max_output_mb` megabytes (default 500) is refused at
//! `simulation.duration`, naming the estimate and the ways out (`[output] every = K`, files
//! turned off, a higher limit, or `run --force`). `every = K` writes steps `0, K, 2K, …` and
//! the last; `summary.json` covers every step whatever `K`.
//!
//! **One scene, two formulations.** `stepper = "lcp"` runs the same bodies with the
//! Stewart–Trinkle LCP stepper ([`crate::stepper::lcp`]): circles and spheres become polygons
//! and icospheres of `[lcp] vertices` vertices; polygons, boxes and polyhedra keep their own
//! vertices; half-planes and half-spaces stay exact. Parts that the LCP stepper cannot bring
//! into vertex–face contact (two curved parts other than circles or spheres) are refused with
//! the field of the part.
//!
//! The shape names carry their dimension (`circle`, `ellipse`, `superellipse`, `half_plane`
//! in 2D; `sphere`, `ellipsoid`, `superellipsoid`, `half_space`, `infinite_cylinder` in 3D);
//! the wrong one for the scene is an error that names the right one. Keys that do not belong
//! to a shape or part kind (an `exponent` on a circle) are errors too. The paper's two rigid
//! examples are `paper_cases/disc_on_plane.toml` and `paper_cases/sphere_on_two_spheres.toml`.
//!
//! # Writing scenarios
//!
//! A [`Scenario`] keeps the [`ScenarioFile`] it was built from ([`Scenario::source`]);
//! [`ScenarioFile::to_toml`] writes it back, and parsing that text gives the same file and the
//! same scene. Build a [`ScenarioFile`] in Rust and call [`ScenarioFile::build`] to get the
//! same checks as for a file.
//!
//! ```no_run
//! let scenario = implicit_contact::scenario::load("paper_cases/disc_on_plane.toml")?;
//! if let implicit_contact::scenario::AnyScene::Planar(scene) = &scenario.scene {
//!     assert_eq!(scene.bodies[0].name, "disc");
//! }
//! # Ok::<(), implicit_contact::scenario::ScenarioError>(())
//! ```

mod build;
pub mod error;
pub mod schema;
pub mod write;

#[cfg(test)]
mod tests;

pub use error::{ErrorKind, Location, ScenarioError};
pub use schema::{
    BodySpec, FrictionSpec, FunctionSpec, GyroscopicSpec, IntegratorSpec, JointKindSpec, JointSpec,
    LayerSpec, LcpSpec, Numbers, Outputs, PairSpec, PartKind, PartSpec, PlaneSpec, ScenarioFile,
    ShapeKind, SimulationSpec, Stepper,
};

use crate::geometry::{Planar, Spatial};
use crate::mcp::SolveSettings;
use crate::model::Scene;
use std::path::Path;
use toml::de::{DeTable, DeValue};

/// A scene of either dimension, as a scenario file describes it.
#[derive(Debug, Clone)]
pub enum AnyScene {
    /// A 2D scene (`dimension = 2`).
    Planar(Scene<Planar>),
    /// A 3D scene (`dimension = 3`).
    Spatial(Scene<Spatial>),
}

impl AnyScene {
    /// 2 or 3.
    pub fn dimension(&self) -> u32 {
        match self {
            AnyScene::Planar(_) => 2,
            AnyScene::Spatial(_) => 3,
        }
    }

    /// The scene's name.
    pub fn name(&self) -> &str {
        match self {
            AnyScene::Planar(s) => &s.name,
            AnyScene::Spatial(s) => &s.name,
        }
    }

    /// The body names, in scene order.
    pub fn body_names(&self) -> Vec<&str> {
        match self {
            AnyScene::Planar(s) => s.bodies.iter().map(|b| b.name.as_str()).collect(),
            AnyScene::Spatial(s) => s.bodies.iter().map(|b| b.name.as_str()).collect(),
        }
    }
}

/// A checked scenario: the scene and everything a run needs besides it.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The scenario's name (the output folder `DIR/<name>/`; also the scene's name).
    pub name: String,
    /// The free-text description (may be empty).
    pub description: String,
    /// The file it was read from, as given to [`load`] or [`parse`].
    pub file: String,
    /// The bodies, gravity, friction, time step and duration.
    pub scene: AnyScene,
    /// Which stepper runs it.
    pub stepper: Stepper,
    /// The time-integration scheme (`simulation.integrator`).
    pub integrator: crate::model::Integrator,
    /// RATTLE's energy projection (`simulation.energy_projection`, default true).
    pub energy_projection: bool,
    /// Where the gyroscopic impulse is taken (`simulation.gyroscopic`, default implicit).
    pub gyroscopic: crate::model::Gyroscopic,
    /// The form of rigid contacts' closest-point conditions (`simulation.closest_points`,
    /// default the signed gap).
    pub closest_points: crate::contact::ClosestPoints,
    /// Continuation in the friction coefficient for steps the warm start does not solve
    /// (`simulation.friction_continuation`, default true).
    pub friction_continuation: bool,
    /// Each loaded contact's cone row in N·s from the start of every step after the first
    /// (`simulation.cones_from_start`, default true).
    pub cones_from_start: bool,
    /// Those cone rows divided by the current load (`simulation.cones_normalised`, default
    /// false).
    pub cones_normalised: bool,
    /// Newton iterations after which a long first solve goes on with those rows divided by
    /// the current load (`simulation.cones_normalised_after`, default 60, 0 never).
    pub cones_normalised_after: usize,
    /// Each resting contact's friction centred at the warm start's in the first solve of every
    /// step after the first (`simulation.friction_centre_from_start`, default false).
    pub friction_centre_from_start: bool,
    /// The settings of the step's MCP solver (defaults unless `[solver]` says otherwise).
    pub solver: SolveSettings,
    /// Which outputs to write.
    pub outputs: Outputs,
    /// The LCP stepper's settings (defaults unless `[lcp]` says otherwise).
    pub lcp: crate::stepper::LcpSettings,
    /// The time step `h` (equals the scene's).
    pub time_step: f64,
    /// The duration `T` (equals the scene's).
    pub duration: f64,
    /// The file's content, to write the scenario back ([`ScenarioFile::to_toml`]).
    pub source: ScenarioFile,
    /// The text it was parsed from (`None` when built in Rust), so that later refusals (the
    /// output-size guard) can point at a line and column.
    pub text: Option<std::sync::Arc<str>>,
}

impl Scenario {
    /// The implicit stepper's settings this scenario asks for: its solver settings and
    /// integrator, defaults otherwise.
    pub fn stepper_settings(&self) -> crate::stepper::StepperSettings {
        crate::stepper::StepperSettings {
            solver: self.solver.clone(),
            integrator: self.integrator,
            energy_projection: self.energy_projection,
            gyroscopic: self.gyroscopic,
            closest_points: self.closest_points,
            friction_continuation: self.friction_continuation,
            cones_from_start: self.cones_from_start,
            cones_normalised: self.cones_normalised,
            cones_normalised_after: self.cones_normalised_after,
            friction_centre_from_start: self.friction_centre_from_start,
            ..crate::stepper::StepperSettings::default()
        }
    }

    /// The same scenario with another time step (e.g. a command-line override), checked like
    /// the file's `simulation.time_step`.
    pub fn with_time_step(&self, time_step: f64) -> Result<Self, ScenarioError> {
        let mut source = self.source.clone();
        source.simulation.time_step = time_step;
        self.rebuild(source)
    }

    /// The same scenario run by another stepper (e.g. `--stepper lcp`), checked like
    /// `simulation.stepper` (under `lcp` the parts must suit vertex–face contact).
    pub fn with_stepper(&self, stepper: Stepper) -> Result<Self, ScenarioError> {
        let mut source = self.source.clone();
        source.simulation.stepper = stepper;
        self.rebuild(source)
    }

    /// The same scenario with another duration, checked like `simulation.duration`.
    pub fn with_duration(&self, duration: f64) -> Result<Self, ScenarioError> {
        let mut source = self.source.clone();
        source.simulation.duration = duration;
        self.rebuild(source)
    }

    /// The same scenario with another time step and/or duration, checked together (each alone
    /// might not divide the other's old value).
    pub fn with_timing(
        &self,
        time_step: Option<f64>,
        duration: Option<f64>,
    ) -> Result<Self, ScenarioError> {
        let mut source = self.source.clone();
        if let Some(h) = time_step {
            source.simulation.time_step = h;
        }
        if let Some(t) = duration {
            source.simulation.duration = t;
        }
        self.rebuild(source)
    }

    fn rebuild(&self, source: ScenarioFile) -> Result<Self, ScenarioError> {
        let mut built = source.build(&self.file).map_err(|e| self.located(e))?;
        built.text = self.text.clone();
        Ok(built)
    }

    /// `e` with the line and column of its field in the text this scenario was parsed from,
    /// if it has none yet.
    fn located(&self, e: ScenarioError) -> ScenarioError {
        let Some(text) = &self.text else {
            return e;
        };
        match DeTable::parse(text) {
            Ok(root) => with_location(e, &DeValue::Table(root.into_inner()), text),
            Err(_) => e,
        }
    }

    /// A refusal of this scenario found after it was read (for example by a stepper's
    /// constructor) as a [`ScenarioError`] at `field`, with its line and column when the
    /// scenario came from a text.
    pub fn refusal(&self, field: &str, reason: impl Into<String>) -> ScenarioError {
        self.located(error::invalid(
            &self.file,
            field,
            ErrorKind::InvalidValue,
            reason,
        ))
    }

    /// The number of steps a run takes: `duration / time_step`, a whole number (a duration
    /// that is not a multiple of the time step is refused, see the module docs).
    pub fn step_count(&self) -> usize {
        (self.duration / self.time_step).round() as usize
    }

    /// An estimate, in bytes, of the CSV rows a run of this scenario writes (see the module
    /// docs, "Output volume"): the trajectory's, the joints' and the solver log's rows exactly
    /// in number, one contact per moving body per step, and [`BYTES_PER_FIELD`] per field.
    pub fn expected_output_bytes(&self) -> f64 {
        let (dim, moving, quasi, joints) = match &self.scene {
            AnyScene::Planar(s) => (
                2,
                s.bodies.iter().filter(|b| !b.fixed).count(),
                s.bodies.iter().any(|b| b.layer.is_some()),
                s.joints.len(),
            ),
            AnyScene::Spatial(s) => (
                3,
                s.bodies.iter().filter(|b| !b.fixed).count(),
                s.bodies.iter().any(|b| b.layer.is_some()),
                s.joints.len(),
            ),
        };
        let o = &self.outputs;
        let per_body = if dim == 2 { 6 } else { 13 };
        let mut fields = 0usize;
        if o.trajectory {
            fields += 5 + moving * per_body;
        }
        if o.contacts {
            let row = 11 + 2 * dim + 3 * usize::from(quasi) + 3 * dim + 1 + usize::from(dim == 3);
            fields += moving * row;
        }
        if o.joints {
            let angular = if dim == 2 { 1 } else { 3 };
            fields += joints * (10 + 2 * (dim + angular));
        }
        if o.solver {
            fields += crate::output::SOLVER_COLUMNS.len();
        }
        let rows = (self.duration / self.time_step) / o.every as f64 + 2.0;
        rows * fields as f64 * BYTES_PER_FIELD
    }

    /// Refuses a run whose [`expected_output_bytes`](Self::expected_output_bytes) exceed
    /// `[output] max_output_mb` (default [`schema::DEFAULT_MAX_OUTPUT_MB`]), naming the
    /// file, the line of `simulation.duration` and the ways out.
    pub fn check_output_size(&self) -> Result<(), ScenarioError> {
        let limit_mb = self
            .outputs
            .max_output_mb
            .unwrap_or(schema::DEFAULT_MAX_OUTPUT_MB);
        let bytes = self.expected_output_bytes();
        if bytes <= limit_mb as f64 * 1e6 {
            return Ok(());
        }
        let reason = format!(
            "the run would write about {} of CSV rows ({} steps of {} s), more than the limit of \
             {limit_mb} MB; write every K-th step with `[output] every = K`, turn files off \
             (`[output] trajectory`, `contacts`, `joints`, `solver`), raise \
             `[output] max_output_mb`, or pass `--force`",
            human_bytes(bytes),
            crate::output::format_f64((self.duration / self.time_step).round()),
            crate::output::format_f64(self.time_step),
        );
        Err(self.located(error::invalid(
            &self.file,
            "simulation.duration",
            ErrorKind::InvalidValue,
            reason,
        )))
    }

    /// The scenario as TOML text; [`parse`] reads it back to the same scenario.
    pub fn to_toml(&self) -> String {
        self.source.to_toml()
    }
}

/// The bytes one CSV field takes on average in the output-size estimate: the shortest
/// round-trip form of an `f64` is up to 17 significant digits plus sign, point and exponent,
/// and a comma.
pub const BYTES_PER_FIELD: f64 = 20.0;

fn human_bytes(bytes: f64) -> String {
    if bytes >= 1e12 {
        format!("{bytes:.1e} bytes")
    } else if bytes >= 1e9 {
        format!("{:.1} GB", bytes / 1e9)
    } else {
        format!("{:.0} MB", bytes / 1e6)
    }
}

/// Reads and checks the scenario file at `path` (see the [module docs](self)).
pub fn load(path: impl AsRef<Path>) -> Result<Scenario, ScenarioError> {
    let path = path.as_ref();
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| ScenarioError::Read {
        file: file.clone(),
        reason: e.to_string(),
    })?;
    parse(&text, &file)
}

/// Parses and checks a scenario given as text; `file_name` names it in errors.
pub fn parse(text: &str, file_name: &str) -> Result<Scenario, ScenarioError> {
    parse_whole(text, file_name).map_err(short_reason)
}

/// The longest reason a refusal prints: the parser's and serde's messages quote the offending
/// value, which may be a 10 MB string.
const REASON_LIMIT: usize = 400;

fn short_reason(e: ScenarioError) -> ScenarioError {
    let shorten = |reason: String| {
        let count = reason.chars().count();
        if count <= REASON_LIMIT {
            reason
        } else {
            let head: String = reason.chars().take(REASON_LIMIT - 100).collect();
            format!("{head}… (message cut: {count} characters)")
        }
    };
    match e {
        ScenarioError::Syntax {
            file,
            location,
            reason,
        } => ScenarioError::Syntax {
            file,
            location,
            reason: shorten(reason),
        },
        ScenarioError::Invalid {
            file,
            location,
            field,
            kind,
            reason,
        } => ScenarioError::Invalid {
            file,
            location,
            field,
            kind,
            reason: shorten(reason),
        },
        other => other,
    }
}

fn parse_whole(text: &str, file_name: &str) -> Result<Scenario, ScenarioError> {
    let root = DeTable::parse(text).map_err(|e| ScenarioError::Syntax {
        file: file_name.to_string(),
        location: Location::of_offset(text, e.span().map_or(0, |s| s.start)),
        reason: e.message().trim().to_string(),
    })?;
    let deserializer = toml::Deserializer::from(root.clone());
    let file: ScenarioFile = serde_path_to_error::deserialize(deserializer)
        .map_err(|e| structure_error(e, text, file_name))?;
    let root = DeValue::Table(root.into_inner());
    if let Some((field, raw, offset)) = first_non_finite(&root, String::new()) {
        return Err(ScenarioError::Invalid {
            file: file_name.to_string(),
            location: Some(Location::of_offset(text, offset)),
            field,
            kind: ErrorKind::NotFinite,
            reason: format!("must be finite, got `{raw}` (nan and inf are not allowed)"),
        });
    }
    let mut scenario = file
        .build(file_name)
        .map_err(|e| with_location(e, &root, text))?;
    scenario.text = Some(text.into());
    Ok(scenario)
}

/// `e` with the line and column of its field in `text` (parsed as `root`), if it has none yet.
fn with_location(e: ScenarioError, root: &DeValue, text: &str) -> ScenarioError {
    match e {
        ScenarioError::Invalid {
            file,
            location: None,
            field,
            kind,
            reason,
        } => ScenarioError::Invalid {
            location: locate(root, &field).map(|o| Location::of_offset(text, o)),
            file,
            field,
            kind,
            reason,
        },
        other => other,
    }
}

/// A serde error of the structure pass, with its path, kind and location.
fn structure_error(
    e: serde_path_to_error::Error<toml::de::Error>,
    text: &str,
    file_name: &str,
) -> ScenarioError {
    let path = e.path().to_string();
    let inner = e.into_inner();
    let message = inner.message().trim().to_string();
    let quoted = message.split('`').nth(1).unwrap_or_default().to_string();
    let join = |base: &str, key: &str| {
        if base == "." || base.is_empty() {
            key.to_string()
        } else if base == key || base.ends_with(&format!(".{key}")) {
            base.to_string()
        } else {
            format!("{base}.{key}")
        }
    };
    let (kind, field, reason) = if message.starts_with("unknown field") {
        (ErrorKind::UnknownKey, join(&path, &quoted), message)
    } else if message.starts_with("missing field") {
        (
            ErrorKind::MissingKey,
            join(&path, &quoted),
            format!("missing: the key `{quoted}` is required"),
        )
    } else if message.starts_with("unknown variant") {
        (ErrorKind::InvalidValue, path, message)
    } else if message.contains("untagged enum Numbers") {
        (
            ErrorKind::WrongType,
            path,
            "expected a number, a list of numbers or a list of lists of numbers".to_string(),
        )
    } else {
        (ErrorKind::WrongType, path, message)
    };
    let field = if field == "." { String::new() } else { field };
    ScenarioError::Invalid {
        file: file_name.to_string(),
        location: inner.span().map(|s| Location::of_offset(text, s.start)),
        field,
        kind,
        reason,
    }
}

/// The first (in the text) NaN or infinite float: its path, its text and its byte offset.
fn first_non_finite(value: &DeValue, path: String) -> Option<(String, String, usize)> {
    let mut best: Option<(String, String, usize)> = None;
    let mut consider = |found: Option<(String, String, usize)>| {
        if let Some(f) = found
            && best.as_ref().is_none_or(|b| f.2 < b.2)
        {
            best = Some(f);
        }
    };
    match value {
        DeValue::Table(t) => {
            for (k, v) in t.iter() {
                let p = if path.is_empty() {
                    k.get_ref().to_string()
                } else {
                    format!("{path}.{}", k.get_ref())
                };
                consider(non_finite_at(v.get_ref(), v.span().start, p));
            }
        }
        DeValue::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                consider(non_finite_at(
                    v.get_ref(),
                    v.span().start,
                    format!("{path}[{i}]"),
                ));
            }
        }
        _ => {}
    }
    best
}

fn non_finite_at(value: &DeValue, offset: usize, path: String) -> Option<(String, String, usize)> {
    match value {
        DeValue::Float(f) => {
            let raw = f.as_str();
            let x: f64 = raw.replace('_', "").parse().unwrap_or(0.0);
            (!x.is_finite()).then(|| (path, raw.to_string(), offset))
        }
        DeValue::Table(_) | DeValue::Array(_) => first_non_finite(value, path),
        _ => None,
    }
}

/// The byte offset of the deepest item of `path` (`a.b[2].c`) found in the parsed text.
fn locate(root: &DeValue, path: &str) -> Option<usize> {
    let mut current = root;
    let mut offset = None;
    for segment in path.split('.') {
        let (key, indices) = match segment.find('[') {
            Some(i) => (&segment[..i], &segment[i..]),
            None => (segment, ""),
        };
        if !key.is_empty() {
            let Some(item) = current.get(key) else {
                return offset;
            };
            offset = Some(item.span().start);
            current = item.get_ref();
        }
        for index in indices
            .split(['[', ']'])
            .filter(|s| !s.is_empty())
            .filter_map(|s| s.parse::<usize>().ok())
        {
            let Some(item) = current.get(index) else {
                return offset;
            };
            offset = Some(item.span().start);
            current = item.get_ref();
        }
    }
    offset
}
