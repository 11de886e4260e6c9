//! The soak test of issue 15: random valid scenes from fixed seeds, each run to its end under
//! the implicit stepper, with the laws a correct step must keep checked after every step
//! (no penetration, impulses inside the friction cone, no friction without contact, no energy
//! created) and the failures counted.
//!
//! A scene is a function of its seed alone ([`random_scene`]), and [`soak`] returns the
//! outcomes sorted by seed, so a table is the same on any number of threads except for its
//! time column.
//!
//! [`Shapes::OnePolytope`] (the default, and the census in the README) makes at most one moving
//! body of a scene a polytope (an intersection of several functions), so every contact has a
//! single function on one side; [`Shapes::EveryPair`] draws each body's kind on its own, so
//! polytopes also meet polytopes (the block of two intersections). The other draws of a seed
//! are the same in both. [`Shapes::Chains`] links [`Shapes::OnePolytope`]'s bodies into
//! chains by joints. Any of them may have its torsional friction drawn
//! ([`SceneKind::drawn_torsion`]) instead of the isotropic `e_r = 1` m.

use crate::geometry::{
    Ball, BodyShape, ConvexPart, Ellipsoid, HalfSpace, Planar, Pose, Spatial, Superellipsoid,
};
use crate::model::{Dynamics, Friction, Integrator, RigidBody, Scene, Twist};
use crate::scenario::schema::ScenarioFile;
use crate::scenario::{AnyScene, write};
use crate::scenes::SceneRng;
use crate::stepper::{ImplicitStepper, StepReport, StepperSettings};
use nalgebra::{Matrix3, Quaternion, UnitComplex, UnitQuaternion, Vector1, Vector2, Vector3};
use std::fmt::Write as _;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Most moving bodies of a scene.
pub const MAX_BODIES: usize = 12;
/// Simulated duration of every scene (s).
pub const DURATION: f64 = 1.0;

/// A generated scene with the stepper settings to run it under.
#[derive(Debug, Clone)]
pub struct RandomScene {
    /// The scene (`soak_<seed>`), ground first, then the moving bodies.
    pub scene: AnyScene,
    /// Default settings but for the integrator.
    pub settings: StepperSettings,
    /// The shape of each moving body, in body order (for the tables).
    pub shapes: Vec<&'static str>,
    /// The same scene and settings as a scenario file ([`crate::scenario::write`]):
    /// `implicit-contact run` on its TOML ([`ScenarioFile::to_toml`]) runs the seed bit for bit
    /// as the soak does.
    pub file: ScenarioFile,
}

impl RandomScene {
    /// 2 or 3.
    pub fn dimension(&self) -> u32 {
        self.scene.dimension()
    }

    /// The scene's friction coefficient, time step and number of moving bodies.
    pub fn parameters(&self) -> (f64, f64, usize) {
        fn of<S: Dynamics>(s: &Scene<S>) -> (f64, f64, usize) {
            let moving = s.bodies.iter().filter(|b| !b.fixed).count();
            (s.friction.mu, s.time_step, moving)
        }
        match &self.scene {
            AnyScene::Planar(s) => of(s),
            AnyScene::Spatial(s) => of(s),
        }
    }

    /// The shapes as `ball×3 ellipsoid box`.
    pub fn shape_summary(&self) -> String {
        let mut kinds: Vec<(&str, usize)> = Vec::new();
        for s in &self.shapes {
            match kinds.iter_mut().find(|(k, _)| k == s) {
                Some((_, n)) => *n += 1,
                None => kinds.push((s, 1)),
            }
        }
        kinds
            .iter()
            .map(|(k, n)| {
                if *n == 1 {
                    k.to_string()
                } else {
                    format!("{k}×{n}")
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A moving body's shape and mass properties before it is placed.
struct Made<S: crate::geometry::Space> {
    kind: &'static str,
    part: ConvexPart<S>,
    /// Radius of a ball about the body origin that holds the shape.
    radius: f64,
}

/// A shape, its body-frame inertia and bounding radius; `polytope` picks among the
/// intersection shapes, otherwise among the single-function ones.
fn planar_shape(rng: &mut SceneRng, polytope: bool, m: f64) -> (Made<Planar>, f64) {
    let size = |rng: &mut SceneRng| rng.uniform(0.05, 0.5);
    let ok = "a valid shape by construction";
    if polytope {
        match rng.below(3) {
            0 => {
                let h = Vector2::new(size(rng), size(rng));
                let part = ConvexPart::cuboid(h).expect(ok);
                let made = Made {
                    kind: "rectangle",
                    part,
                    radius: h.norm(),
                };
                (made, m * h.norm_squared() / 3.0)
            }
            1 => {
                let (r, n) = (size(rng), 3 + rng.below(6));
                let part = ConvexPart::regular_polygon(r, n).expect(ok);
                let c = (std::f64::consts::PI / n as f64).cos();
                let made = Made {
                    kind: "regular_polygon",
                    part,
                    radius: r,
                };
                (made, m * r * r * (1.0 + 2.0 * c * c) / 6.0)
            }
            _ => {
                // The rhombus |x|/a + |y|/b ≤ 1 through the general polygon constructor.
                let (a, b) = (size(rng), size(rng));
                let vertices = [
                    Vector2::new(a, 0.0),
                    Vector2::new(0.0, b),
                    Vector2::new(-a, 0.0),
                    Vector2::new(0.0, -b),
                ];
                let part = ConvexPart::polygon(&vertices).expect(ok);
                let made = Made {
                    kind: "rhombus",
                    part,
                    radius: a.max(b),
                };
                (made, m * (a * a + b * b) / 6.0)
            }
        }
    } else {
        let kind = rng.below(3);
        let a = Vector2::new(size(rng), size(rng));
        let (made, inertia) = match kind {
            0 => {
                let r = a.x;
                let part = ConvexPart::single("circle", Ball::<Planar>::new(r).expect(ok));
                let made = Made {
                    kind: "circle",
                    part: part.expect(ok),
                    radius: r,
                };
                (made, 0.5 * m * r * r)
            }
            1 => {
                let part = ConvexPart::single("ellipse", Ellipsoid::<Planar>::new(a).expect(ok));
                let made = Made {
                    kind: "ellipse",
                    part: part.expect(ok),
                    radius: a.max(),
                };
                (made, m * a.norm_squared() / 4.0)
            }
            _ => {
                let p = rng.uniform(2.5, 6.0);
                let f = Superellipsoid::<Planar>::new(a, p).expect(ok);
                let made = Made {
                    kind: "superellipse",
                    part: ConvexPart::single("superellipse", f).expect(ok),
                    radius: a.norm(),
                };
                (made, m * a.norm_squared() / 4.0)
            }
        };
        (made, inertia)
    }
}

/// The 3D counterpart of [`planar_shape`] (principal inertia in the body frame).
fn spatial_shape(rng: &mut SceneRng, polytope: bool, m: f64) -> (Made<Spatial>, Matrix3<f64>) {
    let size = |rng: &mut SceneRng| rng.uniform(0.05, 0.5);
    let ok = "a valid shape by construction";
    let diag = |x: f64, y: f64, z: f64| Matrix3::from_diagonal(&Vector3::new(x, y, z));
    let a = Vector3::new(size(rng), size(rng), size(rng));
    let sq = a.map(|x| x * x);
    // The solid ellipsoid's inertia divided by m, times 1/5 (box: ×5/3, octahedron: ×1/2).
    let ellipsoid = diag(sq.y + sq.z, sq.x + sq.z, sq.x + sq.y) * (m / 5.0);
    if polytope {
        match rng.below(3) {
            0 => {
                let made = Made {
                    kind: "box",
                    part: ConvexPart::cuboid(a).expect(ok),
                    radius: a.norm(),
                };
                (made, ellipsoid * (5.0 / 3.0))
            }
            1 => {
                let (r, hh) = (a.x, a.z);
                let made = Made {
                    kind: "cylinder",
                    part: ConvexPart::cylinder(r, hh).expect(ok),
                    radius: (r * r + hh * hh).sqrt(),
                };
                let side = m * (r * r / 4.0 + hh * hh / 3.0);
                (made, diag(side, side, 0.5 * m * r * r))
            }
            _ => {
                // The octahedron |x|/a + |y|/b + |z|/c ≤ 1 (its ⟨x²⟩ is a²/10).
                let mut planes = Vec::with_capacity(8);
                for k in 0..8 {
                    let s = |i: usize| if k >> i & 1 == 1 { -1.0 } else { 1.0 };
                    planes.push((Vector3::new(s(0) / a.x, s(1) / a.y, s(2) / a.z), 1.0));
                }
                let made = Made {
                    kind: "octahedron",
                    part: ConvexPart::polyhedron(&planes).expect(ok),
                    radius: a.max(),
                };
                (made, ellipsoid * 0.5)
            }
        }
    } else {
        match rng.below(3) {
            0 => {
                let r = a.x;
                let f = Ball::<Spatial>::new(r).expect(ok);
                let made = Made {
                    kind: "sphere",
                    part: ConvexPart::single("sphere", f).expect(ok),
                    radius: r,
                };
                (made, Matrix3::identity() * (0.4 * m * r * r))
            }
            1 => {
                let f = Ellipsoid::<Spatial>::new(a).expect(ok);
                let made = Made {
                    kind: "ellipsoid",
                    part: ConvexPart::single("ellipsoid", f).expect(ok),
                    radius: a.max(),
                };
                (made, ellipsoid)
            }
            _ => {
                let p = rng.uniform(2.5, 6.0);
                let f = Superellipsoid::<Spatial>::new(a, p).expect(ok);
                let made = Made {
                    kind: "superellipsoid",
                    part: ConvexPart::single("superellipsoid", f).expect(ok),
                    radius: a.norm(),
                };
                (made, ellipsoid)
            }
        }
    }
}

/// A uniform point in the unit ball (rejection from the cube).
fn in_unit_ball<const D: usize>(rng: &mut SceneRng) -> [f64; D] {
    loop {
        let mut v = [0.0; D];
        for x in &mut v {
            *x = rng.uniform(-1.0, 1.0);
        }
        if v.iter().map(|x| x * x).sum::<f64>() <= 1.0 {
            return v;
        }
    }
}

/// Which moving bodies of a random scene may be polytopes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Shapes {
    /// At most one per scene: every contact has a single function on one side.
    #[default]
    OnePolytope,
    /// Each body a polytope with probability ½, drawn from a stream of its own (so the seed's
    /// other draws are those of [`Shapes::OnePolytope`]): any shape against any shape.
    EveryPair,
    /// The scene of [`Shapes::OnePolytope`] with consecutive moving bodies linked into chains
    /// by joints ([`add_chains`]): contacts beside bilateral constraints, both with their
    /// continua of multipliers.
    Chains,
}

/// What a random scene is made of: its bodies and joints ([`Shapes`]) and its friction law.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SceneKind {
    /// Which bodies may be polytopes, and whether they are chained by joints.
    pub shapes: Shapes,
    /// The torsional semi-axis `e_r` of the friction ellipsoid drawn from a stream of the
    /// seed's own (`draw_torsion`), the seed's other draws unchanged; otherwise `e_r = 1` m,
    /// a torsional moment of up to `μ p_n` times a metre, more than any body's size.
    pub drawn_torsion: bool,
}

impl From<Shapes> for SceneKind {
    fn from(shapes: Shapes) -> Self {
        Self {
            shapes,
            drawn_torsion: false,
        }
    }
}

impl SceneKind {
    /// The `soak` flag (with a leading space) and the file-name suffix of each of the kind's
    /// two choices, empty for the defaults.
    fn parts(&self) -> [(&'static str, &'static str); 2] {
        let shapes = match self.shapes {
            Shapes::OnePolytope => ("", ""),
            Shapes::EveryPair => (" --every-pair", "_every_pair"),
            Shapes::Chains => (" --chains", "_chains"),
        };
        let torsion = if self.drawn_torsion {
            (" --drawn-torsion", "_torsion")
        } else {
            ("", "")
        };
        [shapes, torsion]
    }

    /// The end of a seed's scene name and scenario file name (`soak_<seed><suffix>`).
    pub fn suffix(&self) -> String {
        self.parts().map(|(_, suffix)| suffix).concat()
    }

    /// The `soak` flags that draw this kind (each with a leading space).
    pub fn flags(&self) -> String {
        self.parts().map(|(flag, _)| flag).concat()
    }
}

/// The common draws of a scene: friction, step, integrator, body count, which bodies are
/// polytopes, and the masses.
struct Draws {
    mu: f64,
    h: f64,
    integrator: Integrator,
    n: usize,
    polytopes: Vec<bool>,
}

impl Draws {
    fn is_polytope(&self, k: usize) -> bool {
        self.polytopes[k]
    }
}

fn draws(rng: &mut SceneRng, seed: u64, shapes: Shapes) -> Draws {
    let n = 1 + rng.below(MAX_BODIES);
    let mu = if rng.below(5) == 0 {
        0.0
    } else {
        rng.uniform(0.0, 1.5)
    };
    let h = if rng.below(4) == 0 { 0.005 } else { 0.01 };
    let integrator = if rng.below(2) == 0 {
        Integrator::Euler
    } else {
        Integrator::Rattle
    };
    let polytope = (rng.below(2) == 0).then(|| rng.below(n));
    let polytopes = match shapes {
        Shapes::OnePolytope | Shapes::Chains => (0..n).map(|k| polytope == Some(k)).collect(),
        Shapes::EveryPair => {
            let mut own = SceneRng::new(seed ^ 0x5eed_ba5e_b0c5_0001);
            (0..n).map(|_| own.below(2) == 0).collect()
        }
    };
    Draws {
        mu,
        h,
        integrator,
        n,
        polytopes,
    }
}

/// Gap left between the bounding balls of neighbours, and between them and the ground.
const CLEARANCE: f64 = 0.02;
/// Jitter of a body in its grid cell, each way.
const JITTER: f64 = 0.04;

fn ground<S: Dynamics>(up: S::Vector) -> RigidBody<S> {
    let ok = "the ground is valid";
    let part = ConvexPart::single("ground", HalfSpace::<S>::new(up, 0.0).expect(ok)).expect(ok);
    let shape = BodyShape::new("ground", vec![part]).expect(ok);
    RigidBody::fixed("ground", shape, Pose::identity()).expect(ok)
}

fn planar_scene(seed: u64, rng: &mut SceneRng, d: &Draws) -> (Scene<Planar>, Vec<&'static str>) {
    let ok = "a valid body by construction";
    let mut made = Vec::with_capacity(d.n);
    for k in 0..d.n {
        let m = rng.uniform(0.1, 5.0);
        let (shape, inertia) = planar_shape(rng, d.is_polytope(k), m);
        made.push((shape, m, inertia));
    }
    let r_max = made.iter().map(|(s, ..)| s.radius).fold(0.0, f64::max);
    // Cells wider than two bounding radii by the clearance and both jitters: no two bounding
    // balls meet, and none reaches the ground.
    let cell = 2.0 * r_max + CLEARANCE + 2.0 * JITTER;
    let side = (d.n as f64).sqrt().ceil() as usize;
    let mut scene = Scene::new(
        &format!("soak_{seed}"),
        Vector2::new(0.0, -9.81),
        Friction::coulomb(d.mu),
        d.h,
        DURATION,
    )
    .expect(ok)
    .with_body(ground::<Planar>(Vector2::y()))
    .expect(ok);
    let mut kinds = Vec::with_capacity(d.n);
    for (k, (shape, m, inertia)) in made.into_iter().enumerate() {
        let name = format!("b{k}_{}", shape.kind);
        let x = (k % side) as f64 * cell + rng.uniform(-JITTER, JITTER);
        let y =
            r_max + CLEARANCE + JITTER + (k / side) as f64 * cell + rng.uniform(-JITTER, JITTER);
        let theta = rng.uniform(-std::f64::consts::PI, std::f64::consts::PI);
        let pose = Pose::new(Vector2::new(x, y), UnitComplex::new(theta), &name).expect(ok);
        let v = in_unit_ball::<2>(rng);
        let twist = Twist::new(
            Vector2::new(v[0], v[1]) * 2.0,
            Vector1::new(rng.uniform(-5.0, 5.0)),
        );
        let body_shape = BodyShape::new(&name, vec![shape.part]).expect(ok);
        let body = RigidBody::<Planar>::new(&name, m, inertia, body_shape, pose)
            .expect(ok)
            .with_twist(twist)
            .expect(ok);
        scene = scene.with_body(body).expect(ok);
        kinds.push(shape.kind);
    }
    (scene, kinds)
}

fn spatial_scene(seed: u64, rng: &mut SceneRng, d: &Draws) -> (Scene<Spatial>, Vec<&'static str>) {
    let ok = "a valid body by construction";
    let mut made = Vec::with_capacity(d.n);
    for k in 0..d.n {
        let m = rng.uniform(0.1, 5.0);
        let (shape, inertia) = spatial_shape(rng, d.is_polytope(k), m);
        made.push((shape, m, inertia));
    }
    let r_max = made.iter().map(|(s, ..)| s.radius).fold(0.0, f64::max);
    let cell = 2.0 * r_max + CLEARANCE + 2.0 * JITTER;
    // About two layers: a pile, so that bodies also land on each other.
    let side = (d.n as f64 / 2.0).sqrt().ceil() as usize;
    let per_layer = side * side;
    let mut scene = Scene::new(
        &format!("soak_{seed}"),
        Vector3::new(0.0, 0.0, -9.81),
        Friction::coulomb(d.mu),
        d.h,
        DURATION,
    )
    .expect(ok)
    .with_body(ground::<Spatial>(Vector3::z()))
    .expect(ok);
    let mut kinds = Vec::with_capacity(d.n);
    for (k, (shape, m, inertia)) in made.into_iter().enumerate() {
        let name = format!("b{k}_{}", shape.kind);
        let (layer, idx) = (k / per_layer, k % per_layer);
        let mut jitter = || rng.uniform(-JITTER, JITTER);
        let position = Vector3::new(
            (idx % side) as f64 * cell + jitter(),
            (idx / side) as f64 * cell + jitter(),
            r_max + CLEARANCE + JITTER + layer as f64 * cell + jitter(),
        );
        let q = loop {
            let q = Quaternion::new(
                rng.uniform(-1.0, 1.0),
                rng.uniform(-1.0, 1.0),
                rng.uniform(-1.0, 1.0),
                rng.uniform(-1.0, 1.0),
            );
            let n = q.norm();
            if n > 0.1 && n <= 1.0 {
                break q;
            }
        };
        let pose = Pose::new(position, UnitQuaternion::from_quaternion(q), &name).expect(ok);
        let v = in_unit_ball::<3>(rng);
        let w = in_unit_ball::<3>(rng);
        let twist = Twist::new(
            Vector3::new(v[0], v[1], v[2]) * 2.0,
            Vector3::new(w[0], w[1], w[2]) * 5.0,
        );
        let body_shape = BodyShape::new(&name, vec![shape.part]).expect(ok);
        let body = RigidBody::<Spatial>::new(&name, m, inertia, body_shape, pose)
            .expect(ok)
            .with_twist(twist)
            .expect(ok);
        scene = scene.with_body(body).expect(ok);
        kinds.push(shape.kind);
    }
    (scene, kinds)
}

/// The scene of `seed`: the same on every machine and every call.
pub fn random_scene(seed: u64) -> RandomScene {
    random_scene_with(seed, Shapes::OnePolytope)
}

/// The scene of `seed` of the given kind (a [`Shapes`] alone is that kind with `e_r = 1`).
pub fn random_scene_with(seed: u64, kind: impl Into<SceneKind>) -> RandomScene {
    let kind = kind.into();
    let shapes_mode = kind.shapes;
    let mut rng = SceneRng::new(seed);
    let spatial = rng.below(2) == 1;
    let d = draws(&mut rng, seed, shapes_mode);
    let settings = StepperSettings {
        integrator: d.integrator,
        ..StepperSettings::default()
    };
    let (scene, shapes) = if spatial {
        let (s, k) = spatial_scene(seed, &mut rng, &d);
        (AnyScene::Spatial(s), k)
    } else {
        let (s, k) = planar_scene(seed, &mut rng, &d);
        (AnyScene::Planar(s), k)
    };
    let name = format!("soak_{seed}{}", kind.suffix());
    let written = write::any_scenario_file(&scene, &settings, &name)
        .expect("a soak scene has only what a scenario file can say");
    let mut file = written.file;
    if shapes_mode != Shapes::Chains && !kind.drawn_torsion {
        return RandomScene {
            scene,
            settings,
            shapes,
            file,
        };
    }
    // The joints and the friction are written into the file and the scene built from it, so
    // that `implicit-contact run` on the file steps the seed bit for bit as the soak does.
    if shapes_mode == Shapes::Chains {
        add_chains(&mut file, seed);
    }
    if kind.drawn_torsion {
        draw_torsion(&mut file, seed);
    }
    let built = file
        .build(&name)
        .expect("a chained or drawn-torsion soak scene is valid by construction");
    RandomScene {
        settings: built.stepper_settings(),
        scene: built.scene,
        shapes,
        file,
    }
}

/// Links each moving body of `file` to the one before it with probability 7/10 (a stream of
/// the seed's own): a pin in 2D, in 3D a ball joint or a hinge about a random axis (one each
/// half of the time), at the midpoint of the two bodies' initial positions. The bodies then
/// hang off each other on massless rods; their initial velocities break the joints' velocity
/// constraints, which the first step's joint impulses take up.
fn add_chains(file: &mut ScenarioFile, seed: u64) {
    use crate::scenario::schema::{JointKindSpec, JointSpec};
    let mut rng = SceneRng::new(seed ^ 0x000c_4a1e_d0c5_0001);
    let moving: Vec<usize> = (0..file.body.len())
        .filter(|&b| !file.body[b].fixed)
        .collect();
    for pair in moving.windows(2) {
        if rng.below(10) >= 7 {
            continue;
        }
        let (b1, b2) = (&file.body[pair[0]], &file.body[pair[1]]);
        let anchor: Vec<f64> = b1
            .position
            .iter()
            .zip(&b2.position)
            .map(|(a, b)| 0.5 * (a + b))
            .collect();
        let (kind, axis) = if file.dimension == 2 {
            (JointKindSpec::Revolute, None)
        } else {
            let axis = loop {
                let a: [f64; 3] = in_unit_ball::<3>(&mut rng);
                if a.iter().map(|x| x * x).sum::<f64>() > 1e-2 {
                    break a.to_vec();
                }
            };
            if rng.below(2) == 0 {
                (JointKindSpec::Ball, None)
            } else {
                (JointKindSpec::Revolute, Some(axis))
            }
        };
        file.joint.push(JointSpec {
            name: Some(format!("link{}", file.joint.len())),
            kind,
            body1: Some(b1.name.clone()),
            body2: b2.name.clone(),
            anchor,
            axis,
            actuator: None,
            limits: None,
            friction: None,
        });
    }
}

/// Draws the friction ellipsoid's torsional semi-axis `e_r` from a stream of the seed's own:
/// half of the time left out of the file, so that each pair gets the scenario format's
/// default, `0.3 ×` the smaller body's radius (what a scenario that does not give `e_r` runs
/// with), and otherwise log-uniform between 5 mm and 1 m. It matters in 3D only: 2D has no
/// torsion. `e_t` and `e_o` stay 1: the soak's cone check, on the friction's magnitude, holds
/// for an isotropic tangent law only.
fn draw_torsion(file: &mut ScenarioFile, seed: u64) {
    let mut rng = SceneRng::new(seed ^ 0x0000_7025_10c5_0001);
    file.friction.e_r = if rng.below(2) == 0 {
        None
    } else {
        Some(rng.uniform(0.005f64.ln(), 1.0f64.ln()).exp())
    };
}

/// How a seed's run ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Every step converged.
    Ok,
    /// The stepper refused the scene.
    Refused(String),
    /// A step did not converge even after halving (the run stops there).
    Failed {
        /// The step's index (from 0).
        step: usize,
        /// Why.
        reason: String,
    },
    /// The wall-time limit passed (checked between steps).
    Timeout {
        /// Steps done by then.
        steps: usize,
    },
    /// The stepper panicked.
    Panicked(String),
}

impl Outcome {
    /// The table's word: `ok`, `refused`, `failed`, `timeout` or `panicked`.
    pub fn word(&self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Refused(_) => "refused",
            Outcome::Failed { .. } => "failed",
            Outcome::Timeout { .. } => "timeout",
            Outcome::Panicked(_) => "panicked",
        }
    }
}

/// What one seed's run measured.
#[derive(Debug, Clone, PartialEq)]
pub struct SeedOutcome {
    /// The seed.
    pub seed: u64,
    /// 2 or 3.
    pub dimension: u32,
    /// Moving bodies.
    pub bodies: usize,
    /// Their shapes ([`RandomScene::shape_summary`]).
    pub shapes: String,
    /// The integrator.
    pub integrator: Integrator,
    /// The time step (s).
    pub time_step: f64,
    /// The friction coefficient.
    pub mu: f64,
    /// How the run ended.
    pub outcome: Outcome,
    /// Steps the scene calls for (`⌈T/h⌉`).
    pub planned_steps: usize,
    /// Steps done (converged).
    pub steps: usize,
    /// Steps that did not converge.
    pub failed_steps: usize,
    /// Steps that converged only after halving.
    pub retried_steps: usize,
    /// Largest natural residual of a step.
    pub worst_residual: f64,
    /// Largest penetration of a contact after a step (m).
    pub worst_penetration: f64,
    /// Largest `max(0, √((p_t/e_t)² + (p_r/e_r)²) − μ p_n)` of a contact after a step (N·s).
    pub worst_cone_violation: f64,
    /// Contacts (over all steps) with friction but no normal impulse
    /// (`p_n ≤ 1e-10`, friction or torsion `> 1e-9`).
    pub separated_friction: usize,
    /// Largest `E(t) − E(0)` after a step, kinetic plus potential (J; negative: never above
    /// the start).
    pub energy_created: f64,
    /// [`energy_created`](Self::energy_created) over the scale
    /// `max(K(0) + (max V − min V), 1e-12)`.
    pub energy_created_relative: f64,
    /// Median Newton iterations of a step.
    pub newton_median: usize,
    /// Most Newton iterations of a step.
    pub newton_max: usize,
    /// Wall time of the run (not reproducible).
    pub wall_time: Duration,
}

impl SeedOutcome {
    /// The outcome of a run not yet made: its parameters, nothing measured.
    pub(crate) fn before_run(
        seed: u64,
        dimension: u32,
        bodies: usize,
        shapes: String,
        integrator: Integrator,
        time_step: f64,
        mu: f64,
    ) -> SeedOutcome {
        SeedOutcome {
            seed,
            dimension,
            bodies,
            shapes,
            integrator,
            time_step,
            mu,
            outcome: Outcome::Ok,
            planned_steps: 0,
            steps: 0,
            failed_steps: 0,
            retried_steps: 0,
            worst_residual: 0.0,
            worst_penetration: 0.0,
            worst_cone_violation: 0.0,
            separated_friction: 0,
            energy_created: 0.0,
            energy_created_relative: 0.0,
            newton_median: 0,
            newton_max: 0,
            wall_time: Duration::ZERO,
        }
    }

    /// The same outcome with the wall time zeroed: what must not depend on the machine or the
    /// thread count.
    pub fn without_timing(&self) -> SeedOutcome {
        SeedOutcome {
            wall_time: Duration::ZERO,
            ..self.clone()
        }
    }
}

/// Friction impulses below this count as none; normal impulses below `1e-10` as separation.
const FRICTION_FLOOR: f64 = 1e-9;
const NORMAL_FLOOR: f64 = 1e-10;

/// The running measures that are not simple maxima: the energy reference and the Newton
/// iterations of every step.
struct Tracker {
    e0: f64,
    k0: f64,
    v_min: f64,
    v_max: f64,
    created: f64,
    newton: Vec<usize>,
}

impl Tracker {
    /// Writes the derived columns into `out`.
    fn fill(&self, out: &mut SeedOutcome) {
        if out.steps > 0 {
            out.energy_created = self.created;
            let scale = (self.k0 + (self.v_max - self.v_min)).max(1e-12);
            out.energy_created_relative = self.created / scale;
        }
        let mut newton = self.newton.clone();
        newton.sort_unstable();
        out.newton_median = newton
            .get(newton.len().saturating_sub(1) / 2)
            .copied()
            .unwrap_or(0);
        out.newton_max = newton.last().copied().unwrap_or(0);
    }
}

/// Runs `scene` to its end (or its first failed step, or `wall_limit` after `start`), measuring
/// the laws into `out` after every step; `on_step` sees every step's report, `publish` the
/// outcome so far.
pub(crate) fn run_scene<S: Dynamics>(
    scene: Scene<S>,
    settings: StepperSettings,
    out: &mut SeedOutcome,
    wall_limit: Duration,
    start: Instant,
    on_step: &mut dyn FnMut(&StepReport),
    publish: &dyn Fn(&SeedOutcome),
) {
    out.planned_steps = scene.step_count();
    let mut stepper = match ImplicitStepper::new(scene, settings) {
        Ok(s) => s,
        Err(e) => {
            out.outcome = Outcome::Refused(e.to_string());
            return;
        }
    };
    let energy = |s: &Scene<S>| s.kinetic_energy() + s.potential_energy();
    let v0 = stepper.scene.potential_energy();
    let mut t = Tracker {
        e0: energy(&stepper.scene),
        k0: stepper.scene.kinetic_energy(),
        v_min: v0,
        v_max: v0,
        created: f64::NEG_INFINITY,
        newton: Vec::with_capacity(out.planned_steps),
    };
    publish(out);
    for step in 0..out.planned_steps {
        if start.elapsed() > wall_limit {
            out.outcome = Outcome::Timeout { steps: step };
            break;
        }
        let report = stepper.step();
        on_step(&report);
        t.newton.push(report.newton_iterations);
        out.worst_residual = out.worst_residual.max(report.residual);
        if !report.converged {
            out.failed_steps += 1;
            let reason = report.failure.clone().unwrap_or_else(|| {
                format!(
                    "no convergence after {} halvings: {}{}",
                    report.retries,
                    report.solve,
                    report.site_note()
                )
            });
            out.outcome = Outcome::Failed { step, reason };
            break;
        }
        out.steps += 1;
        if report.retries > 0 {
            out.retried_steps += 1;
        }
        let scene = &stepper.scene;
        for c in stepper.contacts() {
            out.worst_penetration = out.worst_penetration.max(c.penetration);
            let f = scene.friction_between(c.body1, c.body2);
            let (ft, pr) = (c.friction_impulse, c.torsion_impulse);
            let load = ((ft / f.e_t).powi(2) + (pr / f.e_r).powi(2)).sqrt();
            let excess = load - f.mu * c.normal_impulse;
            if excess > out.worst_cone_violation || excess.is_nan() {
                out.worst_cone_violation = excess;
            }
            if c.normal_impulse <= NORMAL_FLOOR
                && (ft > FRICTION_FLOOR || pr.abs() > FRICTION_FLOOR)
            {
                out.separated_friction += 1;
            }
        }
        let v = scene.potential_energy();
        t.v_min = t.v_min.min(v);
        t.v_max = t.v_max.max(v);
        t.created = t.created.max(energy(scene) - t.e0);
        t.fill(out);
        publish(out);
    }
    t.fill(out);
}

/// The outcome of `seed` before its run: the scene's parameters, nothing measured.
fn blank_outcome(seed: u64, random: &RandomScene) -> SeedOutcome {
    let (mu, time_step, bodies) = random.parameters();
    SeedOutcome::before_run(
        seed,
        random.dimension(),
        bodies,
        random.shape_summary(),
        random.settings.integrator,
        time_step,
        mu,
    )
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "(no message)".into())
}

/// [`run_seed`], handing `publish` the outcome so far after every step.
fn run_seed_observed(
    seed: u64,
    shapes: SceneKind,
    wall_limit: Duration,
    publish: &dyn Fn(&SeedOutcome),
) -> SeedOutcome {
    let start = Instant::now();
    let random = random_scene_with(seed, shapes);
    let blank = blank_outcome(seed, &random);
    let mut settings = random.settings;
    // Every solve ends by the seed's limit, so a seed abandoned at its deadline stops too.
    settings.solver.time_limit = Some(wall_limit.as_secs_f64());
    // A panic is one seed's finding, not the end of the soak.
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut o = blank.clone();
        match random.scene {
            AnyScene::Planar(s) => {
                run_scene(s, settings, &mut o, wall_limit, start, &mut |_| {}, publish)
            }
            AnyScene::Spatial(s) => {
                run_scene(s, settings, &mut o, wall_limit, start, &mut |_| {}, publish)
            }
        }
        o
    }));
    let mut out = result.unwrap_or_else(|payload| SeedOutcome {
        outcome: Outcome::Panicked(panic_message(payload.as_ref())),
        ..blank
    });
    out.wall_time = start.elapsed();
    out
}

/// Runs the scene of `seed` for its whole duration (or until a step fails or `wall_limit`
/// has passed at the end of a step) and measures the laws after every step.
pub fn run_seed(seed: u64, wall_limit: Duration) -> SeedOutcome {
    run_seed_with(seed, Shapes::OnePolytope, wall_limit)
}

/// [`run_seed`] for the scene of `seed` of the given kind.
pub fn run_seed_with(seed: u64, kind: impl Into<SceneKind>, wall_limit: Duration) -> SeedOutcome {
    run_seed_observed(seed, kind.into(), wall_limit, &|_| {})
}

/// How long past its wall limit a run whose step has not ended is waited for.
const GRACE: Duration = Duration::from_secs(1);

/// Runs `work` on a worker thread and gives up on it `GRACE` after `wall_limit`: a step can
/// take minutes (a dense fallback solve of a large problem) and the limit is otherwise only
/// checked between steps. `work` publishes its outcome so far through the function it is
/// handed; a run given up on is `abandoned(last published, why)` (`why` a timeout, whose step
/// count the caller fills in, or a panic), and its worker finishes its step and stops.
pub(crate) fn run_bounded<O: Clone + Send + 'static>(
    wall_limit: Duration,
    work: impl FnOnce(&dyn Fn(&O)) -> O + Send + 'static,
    abandoned: impl FnOnce(Option<O>, Outcome) -> O,
) -> O {
    let latest: Arc<Mutex<Option<O>>> = Arc::new(Mutex::new(None));
    let (tx, rx) = mpsc::channel();
    let shared = Arc::clone(&latest);
    let work = Arc::new(Mutex::new(Some(work)));
    let spawned = {
        let work = Arc::clone(&work);
        std::thread::Builder::new()
            .name("bounded run".into())
            .spawn(move || {
                let publish = |o: &O| {
                    *shared.lock().unwrap_or_else(|e| e.into_inner()) = Some(o.clone());
                };
                let job = work.lock().unwrap_or_else(|e| e.into_inner()).take();
                if let Some(job) = job {
                    let _ = tx.send(job(&publish));
                }
            })
    };
    if spawned.is_err() {
        // No thread to be had: the work runs here, bounded only between its steps.
        let job = work.lock().unwrap_or_else(|e| e.into_inner()).take();
        return match job {
            Some(job) => job(&|_| {}),
            None => abandoned(None, Outcome::Panicked("no worker thread".into())),
        };
    }
    let outcome = match rx.recv_timeout(wall_limit + GRACE) {
        Ok(o) => return o,
        Err(RecvTimeoutError::Timeout) => Outcome::Timeout { steps: 0 },
        Err(RecvTimeoutError::Disconnected) => {
            Outcome::Panicked("the worker ended without a result".into())
        }
    };
    let last = latest.lock().unwrap_or_else(|e| e.into_inner()).take();
    abandoned(last, outcome)
}

/// [`run_seed`] on a worker thread, given up on `GRACE` after `wall_limit` ([`run_bounded`]).
fn run_seed_bounded(seed: u64, shapes: SceneKind, wall_limit: Duration) -> SeedOutcome {
    let start = Instant::now();
    let result = run_bounded(
        wall_limit,
        move |publish: &dyn Fn(&SeedOutcome)| run_seed_observed(seed, shapes, wall_limit, publish),
        |last, outcome| {
            let mut o =
                last.unwrap_or_else(|| blank_outcome(seed, &random_scene_with(seed, shapes)));
            o.outcome = match outcome {
                Outcome::Timeout { .. } => Outcome::Timeout { steps: o.steps },
                other => other,
            };
            o
        },
    );
    let mut o = result;
    o.wall_time = start.elapsed();
    o
}

/// Runs `seeds` on `threads` threads (at least one), each taking the next seed when done, and
/// returns the outcomes sorted by seed. A seed still in a step `GRACE` (1 s) past
/// `wall_limit` is reported as timed out and left to finish that step on its own thread.
pub fn soak(seeds: Range<u64>, threads: usize, wall_limit: Duration) -> Vec<SeedOutcome> {
    soak_with_progress(seeds, threads, wall_limit, Shapes::OnePolytope, |_| {})
}

/// [`soak`], calling `done` with each outcome as it comes (in completion order).
pub fn soak_with_progress(
    seeds: Range<u64>,
    threads: usize,
    wall_limit: Duration,
    kind: impl Into<SceneKind>,
    done: impl Fn(&SeedOutcome) + Sync,
) -> Vec<SeedOutcome> {
    let shapes = kind.into();
    let count = seeds.end.saturating_sub(seeds.start);
    let next = AtomicU64::new(seeds.start);
    let results = Mutex::new(Vec::with_capacity(count as usize));
    let threads = threads.max(1).min(count.max(1) as usize);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let seed = next.fetch_add(1, Ordering::Relaxed);
                    if seed >= seeds.end {
                        break;
                    }
                    let outcome = run_seed_bounded(seed, shapes, wall_limit);
                    done(&outcome);
                    results
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(outcome);
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    results.sort_by_key(|o| o.seed);
    results
}

/// The limits [`law_violations`] holds a run to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerances {
    /// Largest penetration (m).
    pub penetration: f64,
    /// Largest excess over the friction cone (N·s).
    pub cone: f64,
    /// Largest energy gain relative to the motion's energy scale.
    pub energy_relative: f64,
}

impl Default for Tolerances {
    /// The issue's: 1e-9 m, 1e-8 N·s, 1e-6.
    fn default() -> Self {
        Self {
            penetration: 1e-9,
            cone: 1e-8,
            energy_relative: 1e-6,
        }
    }
}

/// `value > limit`, NaN included.
fn exceeds(value: f64, limit: f64) -> bool {
    use std::cmp::Ordering::{Equal, Less};
    !matches!(value.partial_cmp(&limit), Some(Less | Equal))
}

/// The laws `outcome` breaks, one sentence each (empty: none). A refusal, a failed step and a
/// panic count; a timeout does not (it is the machine's, not the stepper's).
pub fn law_violations(outcome: &SeedOutcome, tolerance: &Tolerances) -> Vec<String> {
    let mut v = Vec::new();
    match &outcome.outcome {
        Outcome::Ok | Outcome::Timeout { .. } => {}
        Outcome::Refused(r) => v.push(format!("refused: {r}")),
        Outcome::Failed { step, reason } => v.push(format!("step {step} failed: {reason}")),
        Outcome::Panicked(m) => v.push(format!("panicked: {m}")),
    }
    if exceeds(outcome.worst_penetration, tolerance.penetration) {
        v.push(format!(
            "penetration {:.2e} m > {:.0e}",
            outcome.worst_penetration, tolerance.penetration
        ));
    }
    if exceeds(outcome.worst_cone_violation, tolerance.cone) {
        v.push(format!(
            "friction cone exceeded by {:.2e} N·s > {:.0e}",
            outcome.worst_cone_violation, tolerance.cone
        ));
    }
    if outcome.separated_friction > 0 {
        v.push(format!(
            "friction on separated contacts ({} contact-steps)",
            outcome.separated_friction
        ));
    }
    if exceeds(outcome.energy_created_relative, tolerance.energy_relative) {
        v.push(format!(
            "energy created {:.2e} J ({:.2e} relative > {:.0e})",
            outcome.energy_created, outcome.energy_created_relative, tolerance.energy_relative
        ));
    }
    v
}

/// Every problem of a soak on one line (`None`: none): failures, timeouts and broken laws, by
/// seed.
pub fn problems(outcomes: &[SeedOutcome], tolerance: &Tolerances) -> Option<String> {
    let mut bad = Vec::new();
    for o in outcomes {
        let mut v = law_violations(o, tolerance);
        if let Outcome::Timeout { steps } = o.outcome {
            v.insert(0, format!("timed out after {steps} steps"));
        }
        if !v.is_empty() {
            bad.push(format!("seed {}: {}", o.seed, v.join(", ")));
        }
    }
    (!bad.is_empty()).then(|| {
        format!(
            "{} of {} seeds failed, timed out or broke a law: {}",
            bad.len(),
            outcomes.len(),
            bad.join("; ")
        )
    })
}

fn integrator_name(i: Integrator) -> &'static str {
    match i {
        Integrator::Euler => "euler",
        Integrator::Midpoint => "midpoint",
        Integrator::Rattle => "rattle",
    }
}

fn outcome_cell(o: &Outcome) -> String {
    match o {
        Outcome::Failed { step, .. } => format!("failed@{step}"),
        Outcome::Timeout { steps } => format!("timeout@{steps}"),
        other => other.word().to_string(),
    }
}

/// One aligned row per seed, the reasons of failures below, and a totals line.
pub fn table(outcomes: &[SeedOutcome]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:>6} {:>3} {:>6} {:<7} {:>6} {:>5} {:<11} {:>7} {:>6} {:>7} {:>9} {:>11} {:>9} {:>7} {:>10} {:>10} {:>7} {:>8}  shapes",
        "seed",
        "dim",
        "bodies",
        "integr.",
        "h",
        "mu",
        "outcome",
        "steps",
        "failed",
        "retried",
        "residual",
        "penetration",
        "cone",
        "sep.fr.",
        "energy J",
        "energy rel",
        "newton",
        "time s"
    );
    for o in outcomes {
        let _ = writeln!(
            s,
            "{:>6} {:>3} {:>6} {:<7} {:>6} {:>5.2} {:<11} {:>7} {:>6} {:>7} {:>9.2e} {:>11.2e} {:>9.2e} {:>7} {:>10.2e} {:>10.2e} {:>7} {:>8.2}  {}",
            o.seed,
            o.dimension,
            o.bodies,
            integrator_name(o.integrator),
            o.time_step,
            o.mu,
            outcome_cell(&o.outcome),
            format!("{}/{}", o.steps, o.planned_steps),
            o.failed_steps,
            o.retried_steps,
            o.worst_residual,
            o.worst_penetration,
            o.worst_cone_violation,
            o.separated_friction,
            o.energy_created,
            o.energy_created_relative,
            format!("{}/{}", o.newton_median, o.newton_max),
            o.wall_time.as_secs_f64(),
            o.shapes
        );
    }
    for o in outcomes {
        let reason = match &o.outcome {
            Outcome::Refused(r) | Outcome::Panicked(r) => r.clone(),
            Outcome::Failed { step, reason } => format!("step {step}: {reason}"),
            _ => continue,
        };
        let _ = writeln!(s, "seed {} {}: {reason}", o.seed, o.outcome.word());
    }
    let count = |w: &str| outcomes.iter().filter(|o| o.outcome.word() == w).count();
    let worst = |f: fn(&SeedOutcome) -> f64| {
        outcomes.iter().map(f).fold(
            f64::NEG_INFINITY,
            |a, b| if b > a || b.is_nan() { b } else { a },
        )
    };
    let _ = writeln!(
        s,
        "total {} seeds: {} ok, {} refused, {} failed, {} timeout, {} panicked; {} failed and {} retried steps; worst residual {:.2e}, penetration {:.2e} m, cone {:.2e} N·s, {} separated friction, energy created {:.2e} J ({:.2e} rel.); {:.1} s",
        outcomes.len(),
        count("ok"),
        count("refused"),
        count("failed"),
        count("timeout"),
        count("panicked"),
        outcomes.iter().map(|o| o.failed_steps).sum::<usize>(),
        outcomes.iter().map(|o| o.retried_steps).sum::<usize>(),
        worst(|o| o.worst_residual),
        worst(|o| o.worst_penetration),
        worst(|o| o.worst_cone_violation),
        outcomes.iter().map(|o| o.separated_friction).sum::<usize>(),
        worst(|o| o.energy_created),
        worst(|o| o.energy_created_relative),
        outcomes
            .iter()
            .map(|o| o.wall_time.as_secs_f64())
            .sum::<f64>(),
    );
    s
}

/// Parses `A..B` (`B > A`) or a single seed `A` (`A..A+1`).
pub fn parse_seeds(text: &str) -> Result<Range<u64>, String> {
    let number = |s: &str| {
        s.trim()
            .parse::<u64>()
            .map_err(|e| format!("seeds `{text}`: `{s}` is not a seed ({e}); expected A..B"))
    };
    let range = match text.split_once("..") {
        Some((a, b)) => number(a)?..number(b)?,
        None => {
            let a = number(text)?;
            a..a.saturating_add(1)
        }
    };
    if range.is_empty() {
        return Err(format!("seeds `{text}`: the range is empty (need A < B)"));
    }
    Ok(range)
}
