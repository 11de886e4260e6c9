//! A scene built in code, written as a scenario file ([`scenario_file`]): `implicit-contact run`
//! on the file's TOML runs the scene as the code does. Every part is written as the call that
//! made it — a function by its [`Primitive`], a box, cylinder, regular polygon, polygon or
//! polyhedron by its constructor's arguments ([`PartRecipe`]) — and every number as stored,
//! so the file's scene is the same to the last bit. Two kinds of number may not come back
//! exactly, and the result lists them when they do not: a 2D orientation, stored as a unit
//! complex number and written as the angle whose `cos` and `sin` give it (searched for, next
//! to `atan2`'s), and a half-space's normal, stored as a unit vector that the file's
//! `HalfSpace::new` divides by its norm again.
//!
//! What the format cannot say yet is refused by name: joints, supports, bodies driven by a
//! table or a controller, a constructor without a kind (an icosphere), and stepper settings
//! without a key.

use super::schema::{
    BodySpec, FrictionSpec, FunctionSpec, GyroscopicSpec, IntegratorSpec, LayerSpec,
    NoCollisionSpec, Numbers, Outputs, PairSpec, PartKind, PartSpec, PlaneSpec, ScenarioFile,
    ShapeKind, SimulationSpec, Stepper,
};
use crate::geometry::{
    ConvexPart, HalfSpace, ImplicitFn, PartRecipe, Planar, Pose, Primitive, Spatial,
};
use crate::model::{Dynamics, Friction, Gyroscopic, Integrator, RigidBody, Scene};
use crate::stepper::StepperSettings;
use nalgebra::UnitComplex;

/// A written scene: the file, and what in it may differ from the scene in the last bit.
#[derive(Debug, Clone)]
pub struct Written {
    /// The scenario file.
    pub file: ScenarioFile,
    /// The numbers the file may give back an ulp away (empty: the same scene bit for bit).
    pub inexact: Vec<String>,
}

/// How one dimension's quantities are written.
pub trait WriteSpace: Dynamics {
    /// An orientation; `false` when the file's value may come back an ulp away.
    fn orientation(r: &Self::Rotation) -> (Numbers, bool);
    /// An angular velocity or torque.
    fn angular(a: &Self::Angular) -> Numbers;
    /// A body-frame inertia.
    fn inertia(i: &Self::Inertia) -> Numbers;
}

impl WriteSpace for Planar {
    /// The angle the file's `UnitComplex::new` turns into exactly this rotation: `atan2` is
    /// within a few ulps of the angle a rotation was made from, so the floats next to it are
    /// searched too.
    fn orientation(r: &UnitComplex<f64>) -> (Numbers, bool) {
        let angle = r.angle();
        let mut candidate = angle;
        for step in 0..=16 {
            if UnitComplex::new(candidate) == *r {
                return (Numbers::Scalar(candidate), true);
            }
            // angle, angle⁺, angle⁻, angle⁺⁺, angle⁻⁻, …
            let k = (step / 2 + 1) as i64;
            let bits = angle.to_bits() as i64;
            let bits = if step % 2 == 0 { bits + k } else { bits - k };
            candidate = f64::from_bits(bits as u64);
        }
        (Numbers::Scalar(angle), false)
    }
    fn angular(a: &nalgebra::Vector1<f64>) -> Numbers {
        Numbers::Scalar(a.x)
    }
    fn inertia(i: &f64) -> Numbers {
        Numbers::Scalar(*i)
    }
}

impl WriteSpace for Spatial {
    fn orientation(r: &nalgebra::UnitQuaternion<f64>) -> (Numbers, bool) {
        // Read back with `UnitQuaternion::new_unchecked`: the same four numbers.
        let q = r.quaternion();
        (Numbers::List(vec![q.w, q.i, q.j, q.k]), true)
    }
    fn angular(a: &nalgebra::Vector3<f64>) -> Numbers {
        Numbers::List(vec![a.x, a.y, a.z])
    }
    fn inertia(i: &nalgebra::Matrix3<f64>) -> Numbers {
        if i == &nalgebra::Matrix3::from_diagonal(&i.diagonal()) {
            Numbers::List(vec![i[(0, 0)], i[(1, 1)], i[(2, 2)]])
        } else {
            Numbers::Matrix(
                (0..3)
                    .map(|r| (0..3).map(|c| i[(r, c)]).collect())
                    .collect(),
            )
        }
    }
}

fn list<S: Dynamics>(v: &S::Vector) -> Vec<f64> {
    (0..S::DIM).map(|i| v[i]).collect()
}

/// The scenario file of `scene` (either dimension); see [`scenario_file`].
pub fn any_scenario_file(
    scene: &super::AnyScene,
    settings: &StepperSettings,
    name: &str,
) -> Result<Written, String> {
    match scene {
        super::AnyScene::Planar(s) => scenario_file(s, settings, name),
        super::AnyScene::Spatial(s) => scenario_file(s, settings, name),
    }
}

/// The scenario file of `scene` run under `settings` by the implicit stepper, named `name`
/// (the run's output folder); an error names what the format cannot say.
pub fn scenario_file<S: WriteSpace>(
    scene: &Scene<S>,
    settings: &StepperSettings,
    name: &str,
) -> Result<Written, String> {
    let mut inexact = Vec::new();
    if !scene.joints.is_empty() {
        return Err("joints cannot be written yet".into());
    }
    if !scene.supports.is_empty() {
        return Err("supports cannot be written yet".into());
    }
    let body = scene
        .bodies
        .iter()
        .map(|b| body_spec(b, &mut inexact))
        .collect::<Result<Vec<_>, _>>()?;
    let dimension = S::DIM as u32;
    let threed = S::DIM == 3;
    let simulation = SimulationSpec {
        time_step: scene.time_step,
        duration: scene.duration,
        stepper: Stepper::Implicit,
        gravity: list::<S>(&scene.gravity),
        integrator: match settings.integrator {
            Integrator::Euler => IntegratorSpec::Euler,
            Integrator::Midpoint => IntegratorSpec::Midpoint,
            Integrator::Rattle => IntegratorSpec::Rattle,
        },
        energy_projection: (settings.integrator == Integrator::Rattle
            && !settings.energy_projection)
            .then_some(false),
        gyroscopic: (threed
            && settings.integrator != Integrator::Rattle
            && settings.gyroscopic != Gyroscopic::default())
        .then_some(match settings.gyroscopic {
            Gyroscopic::Explicit => GyroscopicSpec::Explicit,
            Gyroscopic::Implicit => GyroscopicSpec::Implicit,
            Gyroscopic::Midpoint => GyroscopicSpec::Midpoint,
        }),
        closest_points: (settings.closest_points != Default::default())
            .then_some(settings.closest_points),
        friction_continuation: (!settings.friction_continuation).then_some(false),
        cones_from_start: (!settings.cones_from_start).then_some(false),
        cones_normalised: settings.cones_normalised.then_some(true),
        cones_normalised_after: (settings.cones_normalised_after
            != StepperSettings::default().cones_normalised_after)
            .then_some(settings.cones_normalised_after),
        friction_centre_from_start: settings.friction_centre_from_start.then_some(true),
    };
    let written_solver =
        format!("{:?}", settings.solver) != format!("{:?}", crate::mcp::SolveSettings::default());
    let name_of = |i: usize| scene.bodies[i].name.clone();
    let file = ScenarioFile {
        name: name.to_string(),
        dimension,
        description: format!("scene `{}`, written by implicit-contact", scene.name),
        simulation,
        solver: written_solver.then(|| settings.solver.clone()),
        friction: friction_spec(&scene.friction),
        body,
        pair: scene
            .pair_friction
            .iter()
            .map(|p| PairSpec {
                body1: p.body1.clone(),
                body2: p.body2.clone(),
                mu: p.friction.mu,
                e_t: p.friction.e_t,
                e_o: p.friction.e_o,
                e_r: Some(p.friction.e_r),
            })
            .collect(),
        joint: Vec::new(),
        support: Vec::new(),
        no_collision: scene
            .no_collision
            .iter()
            .map(|&(a, b)| NoCollisionSpec {
                body1: name_of(a),
                body2: name_of(b),
            })
            .collect(),
        output: Outputs::default(),
        lcp: None,
    };
    // Every setting the file carries, and the defaults for the rest, must give `settings`.
    let read_back = StepperSettings {
        solver: settings.solver.clone(),
        integrator: settings.integrator,
        energy_projection: settings.energy_projection,
        gyroscopic: settings.gyroscopic,
        closest_points: settings.closest_points,
        friction_continuation: settings.friction_continuation,
        cones_from_start: settings.cones_from_start,
        cones_normalised: settings.cones_normalised,
        cones_normalised_after: settings.cones_normalised_after,
        friction_centre_from_start: settings.friction_centre_from_start,
        ..StepperSettings::default()
    };
    if format!("{read_back:?}") != format!("{settings:?}") {
        return Err(
            "the stepper settings differ from the defaults in a setting the scenario format \
             has no key for"
                .into(),
        );
    }
    Ok(Written { file, inexact })
}

fn friction_spec(f: &Friction) -> FrictionSpec {
    FrictionSpec {
        mu: f.mu,
        e_t: f.e_t,
        e_o: f.e_o,
        e_r: Some(f.e_r),
    }
}

fn body_spec<S: WriteSpace>(
    b: &RigidBody<S>,
    inexact: &mut Vec<String>,
) -> Result<BodySpec, String> {
    let refuse = |what: &str| Err(format!("body `{}`: {what} cannot be written yet", b.name));
    if b.drive.is_some() {
        return refuse("a table of poses");
    }
    if b.controller.is_some() {
        return refuse("a controller");
    }
    let moving = !b.fixed && !b.driven;
    // The position is always written (a required key); the orientation where not the identity.
    let (_, orientation) = placement(&b.pose, &format!("body `{}`", b.name), inexact);
    let zero_vector = |v: &S::Vector| list::<S>(v).iter().all(|&x| x == 0.0);
    let angular_zero = |a: &S::Angular| match S::angular(a) {
        Numbers::Scalar(x) => x == 0.0,
        Numbers::List(v) => v.iter().all(|&x| x == 0.0),
        Numbers::Matrix(_) => false,
    };
    let mut part = Vec::with_capacity(b.shape.parts().len());
    for (k, p) in b.shape.parts().iter().enumerate() {
        part.push(part_spec(
            p,
            &format!("body `{}`, part {k}", b.name),
            inexact,
        )?);
    }
    let force = &b.external_wrench.force;
    let torque = &b.external_wrench.torque;
    // A driven body has no unknowns, as a fixed one, but the file names it driven alone.
    let prescribed = !b.fixed || b.driven;
    Ok(BodySpec {
        name: b.name.clone(),
        fixed: b.fixed && !b.driven,
        driven: b.driven,
        drive: None,
        mass: moving.then_some(b.mass),
        inertia: moving.then(|| S::inertia(&b.inertia)),
        position: list::<S>(&b.pose.position),
        orientation,
        velocity: (prescribed && !zero_vector(&b.twist.linear)).then(|| list::<S>(&b.twist.linear)),
        angular_velocity: (prescribed && !angular_zero(&b.twist.angular))
            .then(|| S::angular(&b.twist.angular)),
        force: (moving && !zero_vector(force)).then(|| list::<S>(force)),
        torque: (moving && !angular_zero(torque)).then(|| S::angular(torque)),
        friction: b.friction.as_ref().map(friction_spec),
        layer: b.layer.as_ref().map(|l| {
            // Written whole (`D` rows of `D`): the file's `CompliantLayer::full` keeps them.
            let rows = |m: &nalgebra::Matrix3<f64>| {
                Numbers::Matrix(
                    (0..l.dim)
                        .map(|i| (0..l.dim).map(|j| m[(i, j)]).collect())
                        .collect(),
                )
            };
            LayerSpec {
                stiffness: rows(&l.stiffness),
                damping: (l.damping != nalgebra::Matrix3::zeros()).then(|| rows(&l.damping)),
                max_deflection: l.max_deflection,
            }
        }),
        part,
    })
}

fn blank_part(kind: PartKind) -> PartSpec {
    PartSpec {
        kind,
        half_extents: None,
        vertices: None,
        planes: None,
        radius: None,
        sides: None,
        half_height: None,
        position: None,
        orientation: None,
        function: Vec::new(),
    }
}

/// `pose` as a part's or function's `position` and `orientation` (`None` where the identity's).
fn placement<S: WriteSpace>(
    pose: &Pose<S>,
    what: &str,
    inexact: &mut Vec<String>,
) -> (Option<Vec<f64>>, Option<Numbers>) {
    let identity = Pose::<S>::identity();
    let position = (pose.position != identity.position).then(|| list::<S>(&pose.position));
    let orientation = (pose.rotation != identity.rotation).then(|| {
        let (n, exact) = S::orientation(&pose.rotation);
        if !exact {
            inexact.push(format!("{what}: orientation"));
        }
        n
    });
    (position, orientation)
}

fn part_spec<S: WriteSpace>(
    p: &ConvexPart<S>,
    what: &str,
    inexact: &mut Vec<String>,
) -> Result<PartSpec, String> {
    let (recipe, placed) = p.recipe();
    let vectors = |v: &[S::Vector]| v.iter().map(|x| list::<S>(x)).collect::<Vec<_>>();
    let mut spec = match recipe {
        PartRecipe::Functions => {
            if p.vertices().is_some() {
                return Err(format!(
                    "{what}: a polytope the scenario format has no kind for"
                ));
            }
            let mut spec = blank_part(PartKind::Intersection);
            for (j, f) in p.functions().iter().enumerate() {
                let fwhat = format!("{what}, function {j}");
                let Some(primitive) = f.function.primitive() else {
                    return Err(format!(
                        "{fwhat}: `{}` has no shape in the scenario format",
                        f.function.name()
                    ));
                };
                let (position, orientation) = placement(&f.placement, &fwhat, inexact);
                spec.function.push(function_spec::<S>(
                    primitive,
                    position,
                    orientation,
                    &fwhat,
                    inexact,
                ));
            }
            return Ok(spec);
        }
        PartRecipe::Cuboid(h) => PartSpec {
            half_extents: Some(list::<S>(h)),
            ..blank_part(PartKind::Box)
        },
        PartRecipe::Cylinder(radius, half_height) => PartSpec {
            radius: Some(*radius),
            half_height: Some(*half_height),
            ..blank_part(PartKind::Cylinder)
        },
        PartRecipe::RegularPolygon(radius, sides) => PartSpec {
            radius: Some(*radius),
            sides: Some(*sides),
            ..blank_part(PartKind::RegularPolygon)
        },
        PartRecipe::Polygon(vertices) => PartSpec {
            vertices: Some(vectors(vertices)),
            ..blank_part(PartKind::Polygon)
        },
        PartRecipe::Polyhedron(planes) => PartSpec {
            planes: Some(
                planes
                    .iter()
                    .map(|(n, d)| PlaneSpec {
                        normal: list::<S>(n),
                        offset: *d,
                    })
                    .collect(),
            ),
            ..blank_part(PartKind::Polyhedron)
        },
        PartRecipe::Other => {
            return Err(format!(
                "{what}: made by a constructor the scenario format has no kind for"
            ));
        }
    };
    (spec.position, spec.orientation) = placement(placed, what, inexact);
    Ok(spec)
}

fn function_spec<S: WriteSpace>(
    primitive: Primitive<S>,
    position: Option<Vec<f64>>,
    orientation: Option<Numbers>,
    what: &str,
    inexact: &mut Vec<String>,
) -> FunctionSpec {
    let two = S::DIM == 2;
    let mut f = FunctionSpec {
        shape: ShapeKind::Circle,
        radius: None,
        semi_axes: None,
        exponent: None,
        normal: None,
        offset: None,
        position,
        orientation,
    };
    match primitive {
        Primitive::Ball(r) => {
            f.shape = if two {
                ShapeKind::Circle
            } else {
                ShapeKind::Sphere
            };
            f.radius = Some(r);
        }
        Primitive::Ellipsoid(a) => {
            f.shape = if two {
                ShapeKind::Ellipse
            } else {
                ShapeKind::Ellipsoid
            };
            f.semi_axes = Some(list::<S>(&a));
        }
        Primitive::Superellipsoid(a, p) => {
            f.shape = if two {
                ShapeKind::Superellipse
            } else {
                ShapeKind::Superellipsoid
            };
            f.semi_axes = Some(list::<S>(&a));
            f.exponent = Some(p);
        }
        Primitive::HalfSpace(n, d) => {
            f.shape = if two {
                ShapeKind::HalfPlane
            } else {
                ShapeKind::HalfSpace
            };
            // Stored unit; `HalfSpace::new` divides by the norm again.
            let rebuilt = HalfSpace::<S>::new(n, d).ok().and_then(|h| h.primitive());
            if rebuilt != Some(Primitive::HalfSpace(n, d)) {
                inexact.push(format!("{what}: normal"));
            }
            f.normal = Some(list::<S>(&n));
            f.offset = Some(d);
        }
        Primitive::InfiniteCylinder(r) => {
            f.shape = ShapeKind::InfiniteCylinder;
            f.radius = Some(r);
        }
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::{BodyShape, ConvexPart};
    use nalgebra::{Quaternion, Vector3};

    fn ball_scene(part: ConvexPart<Spatial>) -> Scene<Spatial> {
        let shape = BodyShape::new("b", vec![part]).unwrap();
        let pose = Pose::spatial(Vector3::new(0.0, 0.0, 2.0), Quaternion::identity(), "b").unwrap();
        let body = RigidBody::<Spatial>::new("b", 1.0, nalgebra::Matrix3::identity(), shape, pose)
            .unwrap();
        Scene::new(
            "s",
            Vector3::new(0.0, 0.0, -9.81),
            Friction::coulomb(0.5),
            0.01,
            1.0,
        )
        .unwrap()
        .with_body(body)
        .unwrap()
    }

    /// A 2D orientation is written as the angle that gives back its unit complex number bit
    /// for bit, found beside `atan2`'s for every angle tried.
    #[test]
    fn planar_orientations_are_written_as_exact_angles() {
        let mut rng = crate::scenes::SceneRng::new(7);
        for _ in 0..5000 {
            let theta = rng.uniform(-std::f64::consts::PI, std::f64::consts::PI);
            let r = UnitComplex::new(theta);
            let (Numbers::Scalar(angle), true) = Planar::orientation(&r) else {
                panic!("{theta}: no exact angle")
            };
            assert_eq!(UnitComplex::new(angle), r);
        }
    }

    /// A placed box is written as a box with the placement's `position` and `orientation`,
    /// and read back as the same part; what the format cannot say is refused by name.
    #[test]
    fn parts_are_written_as_their_constructors_and_the_rest_is_refused() {
        let q = nalgebra::UnitQuaternion::from_scaled_axis(Vector3::new(0.1, -0.2, 0.3));
        let placed = Pose::<Spatial> {
            position: Vector3::new(0.05, 0.0, -0.1),
            rotation: q,
        };
        let part = ConvexPart::cuboid(Vector3::new(0.1, 0.2, 0.3))
            .unwrap()
            .placed(&placed);
        let scene = ball_scene(part.clone());
        let settings = StepperSettings::default();
        let written = scenario_file(&scene, &settings, "box").unwrap();
        assert!(written.inexact.is_empty());
        let spec = &written.file.body[0].part[0];
        assert_eq!(spec.kind, PartKind::Box);
        assert_eq!(spec.position, Some(vec![0.05, 0.0, -0.1]));
        let read = super::super::parse(&written.file.to_toml(), "box.toml").unwrap();
        let super::super::AnyScene::Spatial(back) = read.scene else {
            panic!("3D")
        };
        let back = &back.bodies[0].shape.parts()[0];
        for p in [
            Vector3::new(0.0, 0.0, 0.0),
            Vector3::new(0.1, 0.15, -0.2),
            Vector3::new(-0.3, 0.1, 0.05),
        ] {
            assert_eq!(back.value(&p), part.value(&p));
        }
        let refused = |scene: &Scene<Spatial>, settings: &StepperSettings, why: &str| {
            let e = scenario_file(scene, settings, "s").unwrap_err();
            assert!(e.contains(why), "{e}");
        };
        refused(
            &ball_scene(ConvexPart::icosphere(0.1, 1).unwrap()),
            &settings,
            "no kind",
        );
        let tuned = StepperSettings {
            proximal_weight: 1e-3,
            ..StepperSettings::default()
        };
        refused(&scene, &tuned, "no key");
        let pendulum = super::super::load(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/pendulum_2d.toml"),
        )
        .unwrap();
        let e = any_scenario_file(&pendulum.scene, &settings, "p").unwrap_err();
        assert!(e.contains("joints"), "{e}");
    }
}
