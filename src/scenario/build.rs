//! From a [`ScenarioFile`] to a [`Scenario`]: lengths, ranges and dimensions checked field by
//! field, the geometry and the model built through their own checked constructors (their
//! errors wrapped with the field's path), and the initial configuration checked for overlaps.

use super::error::{ErrorKind, ScenarioError, invalid};
use super::schema::{
    BodySpec, DriveSpec, FrictionSpec, FunctionSpec, JointKindSpec, JointSpec, LayerSpec, Numbers,
    PartKind, PartSpec, ScenarioFile, ShapeKind, WORLD,
};
use super::{AnyScene, Scenario};
use crate::geometry::space::quaternion_problem;
use crate::geometry::{
    Ball, BodyShape, ContactState, ConvexPart, Ellipsoid, GeometryError, HalfSpace, ImplicitFn,
    InfiniteCylinder, Placed, Planar, Pose, ProximitySettings, Space, Spatial, Superellipsoid,
    proximity,
};
use crate::model::{
    Actuator, CompliantLayer, Dynamics, Friction, Joint, ModelError, RigidBody, Scene, Twist,
    Wrench,
};
use nalgebra::{Matrix3, Quaternion, UnitComplex, UnitQuaternion, Vector3};
use std::sync::Arc;

type R<T> = Result<T, ScenarioError>;

/// The file being built: names it in every error.
#[derive(Clone, Copy)]
pub(crate) struct Ctx<'a> {
    pub file: &'a str,
}

impl Ctx<'_> {
    fn err(
        &self,
        field: impl Into<String>,
        kind: ErrorKind,
        reason: impl Into<String>,
    ) -> ScenarioError {
        invalid(self.file, field, kind, reason)
    }

    fn finite(&self, x: f64, path: &str) -> R<f64> {
        if x.is_finite() {
            Ok(x)
        } else {
            Err(self.err(
                path,
                ErrorKind::NotFinite,
                format!("must be finite, got {x}"),
            ))
        }
    }

    fn finite_all(&self, xs: &[f64], path: &str) -> R<()> {
        for (i, x) in xs.iter().enumerate() {
            self.finite(*x, &format!("{path}[{i}]"))?;
        }
        Ok(())
    }

    /// A geometry error raised while building the item at `path`, with the parameter's path.
    fn geometry(&self, e: GeometryError, path: &str) -> ScenarioError {
        let field = match &e {
            GeometryError::InvalidParameter { parameter, .. }
                if !matches!(parameter.as_str(), "functions" | "parts") =>
            {
                format!("{path}.{parameter}")
            }
            GeometryError::InvalidPose { field, .. } if field == "position" => {
                format!("{path}.position")
            }
            GeometryError::InvalidPose { .. } => format!("{path}.orientation"),
            _ => path.to_string(),
        };
        self.err(field, ErrorKind::InvalidValue, e.to_string())
    }

    /// A model error raised while building body `body` (at `path`), friction entry
    /// `friction_path` or the scene.
    fn model(&self, e: ModelError, path: &str, friction_path: &str) -> ScenarioError {
        let field = match &e {
            ModelError::InvalidBody { field, .. } => {
                let key = match field.as_str() {
                    "pose.position" | "pose.x" | "pose.y" => "position",
                    f if f.starts_with("pose") => "orientation",
                    "twist" | "twist.linear" => "velocity",
                    "twist.angular" => "angular_velocity",
                    "external_wrench.force" => "force",
                    "external_wrench.torque" => "torque",
                    other => other,
                };
                format!("{path}.{key}")
            }
            ModelError::InvalidShape { .. } => format!("{path}.part"),
            ModelError::DuplicateBody { .. } => format!("{path}.name"),
            ModelError::InvalidFriction { field, .. } => format!("{friction_path}.{field}"),
            ModelError::InvalidScene { field, .. } => match field.as_str() {
                "time_step" | "duration" | "gravity" => format!("simulation.{field}"),
                f => f.replacen("pair_friction", "pair", 1),
            },
        };
        self.err(field, ErrorKind::InvalidValue, e.to_string())
    }

    /// `v` as a vector of the scene's dimension.
    fn vector<S: Space>(&self, v: &[f64], path: &str) -> R<S::Vector> {
        if v.len() != S::DIM {
            return Err(self.err(
                path,
                ErrorKind::WrongLength,
                format!(
                    "has {} entries but the scene is {}D: expected {}",
                    v.len(),
                    S::DIM,
                    S::DIM
                ),
            ));
        }
        self.finite_all(v, path)?;
        Ok(S::vector_from_fn(|i| v[i]))
    }

    fn scalar(&self, n: &Numbers, path: &str, what: &str) -> R<f64> {
        match n {
            Numbers::Scalar(x) => self.finite(*x, path),
            other => Err(self.err(
                path,
                ErrorKind::WrongType,
                format!(
                    "in a 2D scene {what} is one number, got {}",
                    describe(other)
                ),
            )),
        }
    }

    fn list(&self, n: &Numbers, len: usize, path: &str, what: &str) -> R<Vec<f64>> {
        match n {
            Numbers::List(v) if v.len() == len => {
                self.finite_all(v, path)?;
                Ok(v.clone())
            }
            Numbers::List(v) => Err(self.err(
                path,
                ErrorKind::WrongLength,
                format!("has {} entries but in a 3D scene {what} has {len}", v.len()),
            )),
            other => Err(self.err(
                path,
                ErrorKind::WrongType,
                format!(
                    "in a 3D scene {what} is a list of {len} numbers, got {}",
                    describe(other)
                ),
            )),
        }
    }
}

fn describe(n: &Numbers) -> String {
    match n {
        Numbers::Scalar(_) => "a number".into(),
        Numbers::List(v) => format!("a list of {} numbers", v.len()),
        Numbers::Matrix(rows) => format!("a list of {} lists", rows.len()),
    }
}

/// What the file format needs of a dimension beyond [`Dynamics`]: how orientations, angular
/// quantities and inertias are written, and the parts and functions only one dimension has.
pub(crate) trait FileSpace: Dynamics {
    /// 2D: an angle; 3D: a unit quaternion `[w, x, y, z]`.
    fn rotation(cx: Ctx, n: &Numbers, path: &str) -> R<Self::Rotation>;
    /// 2D: a number; 3D: a 3-list.
    fn angular(cx: Ctx, n: &Numbers, path: &str) -> R<Self::Angular>;
    /// 2D: a number; 3D: principal moments `[Ixx, Iyy, Izz]` or a 3 × 3 matrix.
    fn inertia(cx: Ctx, n: &Numbers, path: &str) -> R<Self::Inertia>;
    /// The parts of kind `polygon`, `polyhedron` and `cylinder` (keys already checked).
    fn constructed_part(cx: Ctx, spec: &PartSpec, path: &str) -> R<ConvexPart<Self>>;
    /// An `infinite_cylinder` function (3D only; the dimension is already checked).
    fn infinite_cylinder(cx: Ctx, radius: f64, path: &str) -> R<Arc<dyn ImplicitFn<Self>>>;
}

fn wrong_dimension(cx: Ctx, kind: PartKind, dim: usize, path: &str) -> ScenarioError {
    cx.err(
        format!("{path}.kind"),
        ErrorKind::InvalidValue,
        format!(
            "a part of kind `{}` exists only in {}D, but the scene is {dim}D",
            kind.as_str(),
            5 - dim
        ),
    )
}

impl FileSpace for Planar {
    fn rotation(cx: Ctx, n: &Numbers, path: &str) -> R<UnitComplex<f64>> {
        Ok(UnitComplex::new(cx.scalar(
            n,
            path,
            "an orientation (angle in rad)",
        )?))
    }
    fn angular(cx: Ctx, n: &Numbers, path: &str) -> R<nalgebra::Vector1<f64>> {
        Ok(nalgebra::Vector1::new(cx.scalar(
            n,
            path,
            "an angular quantity",
        )?))
    }
    fn inertia(cx: Ctx, n: &Numbers, path: &str) -> R<f64> {
        cx.scalar(n, path, "the inertia")
    }
    fn constructed_part(cx: Ctx, spec: &PartSpec, path: &str) -> R<ConvexPart<Planar>> {
        match spec.kind {
            PartKind::Polygon => {
                let vs = spec.vertices.as_deref().unwrap_or_default();
                let mut vertices = Vec::with_capacity(vs.len());
                for (k, v) in vs.iter().enumerate() {
                    vertices.push(cx.vector::<Planar>(v, &format!("{path}.vertices[{k}]"))?);
                }
                ConvexPart::polygon(&vertices).map_err(|e| cx.geometry(e, path))
            }
            PartKind::RegularPolygon => {
                let r = spec.radius.unwrap_or_default();
                cx.finite(r, &format!("{path}.radius"))?;
                let n = spec.sides.unwrap_or_default();
                let most = crate::geometry::primitives::MAX_POLYGON_VERTICES;
                if !(3..=most).contains(&n) {
                    return Err(cx.err(
                        format!("{path}.sides"),
                        ErrorKind::InvalidValue,
                        format!("must be between 3 and {most}, got {n}"),
                    ));
                }
                ConvexPart::regular_polygon(r, n).map_err(|e| cx.geometry(e, path))
            }
            kind => Err(wrong_dimension(cx, kind, 2, path)),
        }
    }
    fn infinite_cylinder(cx: Ctx, _radius: f64, path: &str) -> R<Arc<dyn ImplicitFn<Planar>>> {
        Err(cx.err(
            format!("{path}.shape"),
            ErrorKind::InvalidValue,
            "`infinite_cylinder` is a 3D shape but the scene is 2D",
        ))
    }
}

impl FileSpace for Spatial {
    fn rotation(cx: Ctx, n: &Numbers, path: &str) -> R<UnitQuaternion<f64>> {
        let q = cx.list(n, 4, path, "an orientation (unit quaternion [w, x, y, z])")?;
        let q = Quaternion::new(q[0], q[1], q[2], q[3]);
        if let Some(reason) = quaternion_problem(&q) {
            return Err(cx.err(path, ErrorKind::InvalidValue, reason));
        }
        Ok(UnitQuaternion::new_unchecked(q))
    }
    fn angular(cx: Ctx, n: &Numbers, path: &str) -> R<Vector3<f64>> {
        let v = cx.list(n, 3, path, "an angular quantity")?;
        Ok(Vector3::new(v[0], v[1], v[2]))
    }
    fn inertia(cx: Ctx, n: &Numbers, path: &str) -> R<Matrix3<f64>> {
        const WHAT: &str = "the inertia is [Ixx, Iyy, Izz] (principal moments) or a 3 × 3 matrix [[..], [..], [..]]";
        match n {
            Numbers::List(v) if v.len() == 3 => {
                cx.finite_all(v, path)?;
                Ok(Matrix3::from_diagonal(&Vector3::new(v[0], v[1], v[2])))
            }
            Numbers::Matrix(rows) if rows.len() == 3 => {
                for (r, row) in rows.iter().enumerate() {
                    let p = format!("{path}[{r}]");
                    if row.len() != 3 {
                        return Err(cx.err(
                            p,
                            ErrorKind::WrongLength,
                            format!("has {} entries but an inertia row has 3", row.len()),
                        ));
                    }
                    cx.finite_all(row, &p)?;
                }
                Ok(Matrix3::from_fn(|r, c| rows[r][c]))
            }
            Numbers::List(v) => Err(cx.err(
                path,
                ErrorKind::WrongLength,
                format!("has {} entries but in a 3D scene {WHAT}", v.len()),
            )),
            Numbers::Matrix(rows) => Err(cx.err(
                path,
                ErrorKind::WrongLength,
                format!("has {} rows but in a 3D scene {WHAT}", rows.len()),
            )),
            Numbers::Scalar(_) => Err(cx.err(
                path,
                ErrorKind::WrongType,
                format!("got a number but in a 3D scene {WHAT}"),
            )),
        }
    }
    fn constructed_part(cx: Ctx, spec: &PartSpec, path: &str) -> R<ConvexPart<Spatial>> {
        match spec.kind {
            PartKind::Polyhedron => {
                let planes = spec.planes.as_deref().unwrap_or_default();
                let mut hs = Vec::with_capacity(planes.len());
                for (k, p) in planes.iter().enumerate() {
                    let pp = format!("{path}.planes[{k}]");
                    let n = cx.vector::<Spatial>(&p.normal, &format!("{pp}.normal"))?;
                    if n.norm() == 0.0 {
                        return Err(cx.err(
                            format!("{pp}.normal"),
                            ErrorKind::InvalidValue,
                            "must not be zero",
                        ));
                    }
                    hs.push((n, cx.finite(p.offset, &format!("{pp}.offset"))?));
                }
                ConvexPart::polyhedron(&hs).map_err(|e| cx.geometry(e, path))
            }
            PartKind::Cylinder => {
                let r = cx.finite(spec.radius.unwrap_or_default(), &format!("{path}.radius"))?;
                let hh = spec.half_height.unwrap_or_default();
                let hh = cx.finite(hh, &format!("{path}.half_height"))?;
                ConvexPart::cylinder(r, hh).map_err(|e| cx.geometry(e, path))
            }
            kind => Err(wrong_dimension(cx, kind, 3, path)),
        }
    }
    fn infinite_cylinder(cx: Ctx, radius: f64, path: &str) -> R<Arc<dyn ImplicitFn<Spatial>>> {
        let f = InfiniteCylinder::new(radius).map_err(|e| cx.geometry(e, path))?;
        Ok(Arc::new(f))
    }
}

/// Rejects the keys of an item that do not apply to its kind and requires those that must be
/// there. `present` lists `(key, is_given)`; `allowed` and `required` name keys.
fn check_keys(
    cx: Ctx,
    path: &str,
    what: &str,
    present: &[(&str, bool)],
    allowed: &[&str],
    required: &[&str],
) -> R<()> {
    for (key, given) in present {
        if *given && !allowed.contains(key) {
            return Err(cx.err(
                format!("{path}.{key}"),
                ErrorKind::UnknownKey,
                format!(
                    "does not apply to {what} (its keys: {})",
                    if allowed.is_empty() {
                        "none".to_string()
                    } else {
                        allowed.join(", ")
                    }
                ),
            ));
        }
    }
    for key in required {
        if !present.iter().any(|(k, given)| k == key && *given) {
            return Err(cx.err(
                format!("{path}.{key}"),
                ErrorKind::MissingKey,
                format!("missing: {what} needs it"),
            ));
        }
    }
    Ok(())
}

/// The table of `body.drive` at `path`, starting at the body's `pose`.
fn pose_table<S: FileSpace>(
    cx: Ctx,
    spec: &DriveSpec,
    pose: &Pose<S>,
    path: &str,
) -> R<crate::model::PoseTable<S>> {
    let n = spec.times.len();
    let at = |key: &str, k: usize| format!("{path}.{key}[{k}]");
    if spec.positions.len() != n {
        return Err(cx.err(
            format!("{path}.positions"),
            ErrorKind::WrongLength,
            format!(
                "has {} entries but `times` has {n}: one per time",
                spec.positions.len()
            ),
        ));
    }
    let mut poses = Vec::with_capacity(n);
    for (k, position) in spec.positions.iter().enumerate() {
        let position = cx.vector::<S>(position, &at("positions", k))?;
        poses.push(Pose {
            position,
            rotation: pose.rotation,
        });
    }
    if let Some(orientations) = &spec.orientations {
        if orientations.len() != n {
            return Err(cx.err(
                format!("{path}.orientations"),
                ErrorKind::WrongLength,
                format!(
                    "has {} entries but `times` has {n}: one per time",
                    orientations.len()
                ),
            ));
        }
        for (k, o) in orientations.iter().enumerate() {
            poses[k].rotation = S::rotation(cx, o, &at("orientations", k))?;
            // The table turns the shorter way: a 2D turn of π or more between two entries
            // would silently run backwards.
            if S::DIM == 2
                && k > 0
                && let (Numbers::Scalar(a), Numbers::Scalar(b)) = (&orientations[k - 1], o)
                && (b - a).abs() >= std::f64::consts::PI
            {
                return Err(cx.err(
                    at("orientations", k),
                    ErrorKind::InvalidValue,
                    format!(
                        "turns by {:.3} rad from the entry before: a table turns the shorter \
                         way, by less than π; add entries in between",
                        b - a
                    ),
                ));
            }
        }
    }
    let first = &poses.first().copied();
    if let Some(first) = first {
        let off = S::norm(&(first.position - pose.position));
        let turn = S::log(&S::compose(&first.rotation, &S::inverse(&pose.rotation)));
        let turned = (0..S::ANGULAR_DIM)
            .map(|i| turn[i] * turn[i])
            .sum::<f64>()
            .sqrt();
        if off > 1e-12 || turned > 1e-12 {
            return Err(cx.err(
                format!("{path}.positions[0]"),
                ErrorKind::InvalidValue,
                "the table's first pose must be the body's `position` and `orientation` (it \
                 holds that pose until the first time)",
            ));
        }
    }
    crate::model::PoseTable::new(spec.times.clone(), poses)
        .map_err(|reason| cx.err(format!("{path}.times"), ErrorKind::InvalidValue, reason))
}

fn placement<S: FileSpace>(
    cx: Ctx,
    position: Option<&Vec<f64>>,
    orientation: Option<&Numbers>,
    path: &str,
) -> R<Option<Pose<S>>> {
    if position.is_none() && orientation.is_none() {
        return Ok(None);
    }
    let position = match position {
        Some(p) => cx.vector::<S>(p, &format!("{path}.position"))?,
        None => S::zero_vector(),
    };
    let rotation = match orientation {
        Some(o) => S::rotation(cx, o, &format!("{path}.orientation"))?,
        None => S::rotation_identity(),
    };
    Ok(Some(Pose { position, rotation }))
}

fn build_function<S: FileSpace>(cx: Ctx, spec: &FunctionSpec, path: &str) -> R<Placed<S>> {
    let shape = spec.shape;
    if shape.dimension() as usize != S::DIM {
        let hint = shape
            .counterpart()
            .map(|c| format!("; use `{}`", c.as_str()))
            .unwrap_or_default();
        return Err(cx.err(
            format!("{path}.shape"),
            ErrorKind::InvalidValue,
            format!(
                "`{}` is a {}D shape but the scene is {}D{hint}",
                shape.as_str(),
                shape.dimension(),
                S::DIM
            ),
        ));
    }
    let keys: &[&str] = match shape {
        ShapeKind::Circle | ShapeKind::Sphere | ShapeKind::InfiniteCylinder => &["radius"],
        ShapeKind::Ellipse | ShapeKind::Ellipsoid => &["semi_axes"],
        ShapeKind::Superellipse | ShapeKind::Superellipsoid => &["semi_axes", "exponent"],
        ShapeKind::HalfPlane | ShapeKind::HalfSpace => &["normal", "offset"],
    };
    check_keys(
        cx,
        path,
        &format!("a `{}`", shape.as_str()),
        &[
            ("radius", spec.radius.is_some()),
            ("semi_axes", spec.semi_axes.is_some()),
            ("exponent", spec.exponent.is_some()),
            ("normal", spec.normal.is_some()),
            ("offset", spec.offset.is_some()),
        ],
        keys,
        keys,
    )?;
    let p = |key: &str| format!("{path}.{key}");
    let geo = |e| cx.geometry(e, path);
    let function: Arc<dyn ImplicitFn<S>> = match shape {
        ShapeKind::Circle | ShapeKind::Sphere => {
            let r = cx.finite(spec.radius.unwrap_or_default(), &p("radius"))?;
            Arc::new(Ball::<S>::new(r).map_err(geo)?)
        }
        ShapeKind::Ellipse | ShapeKind::Ellipsoid => {
            let a = cx.vector::<S>(
                spec.semi_axes.as_deref().unwrap_or_default(),
                &p("semi_axes"),
            )?;
            Arc::new(Ellipsoid::<S>::new(a).map_err(geo)?)
        }
        ShapeKind::Superellipse | ShapeKind::Superellipsoid => {
            let a = cx.vector::<S>(
                spec.semi_axes.as_deref().unwrap_or_default(),
                &p("semi_axes"),
            )?;
            let e = cx.finite(spec.exponent.unwrap_or_default(), &p("exponent"))?;
            Arc::new(Superellipsoid::<S>::new(a, e).map_err(geo)?)
        }
        ShapeKind::HalfPlane | ShapeKind::HalfSpace => {
            let n = cx.vector::<S>(spec.normal.as_deref().unwrap_or_default(), &p("normal"))?;
            let d = cx.finite(spec.offset.unwrap_or_default(), &p("offset"))?;
            Arc::new(HalfSpace::<S>::new(n, d).map_err(geo)?)
        }
        ShapeKind::InfiniteCylinder => {
            let r = cx.finite(spec.radius.unwrap_or_default(), &p("radius"))?;
            S::infinite_cylinder(cx, r, path)?
        }
    };
    let placement = placement::<S>(cx, spec.position.as_ref(), spec.orientation.as_ref(), path)?;
    Ok(Placed {
        function,
        placement: placement.unwrap_or_default(),
    })
}

fn build_part<S: FileSpace>(cx: Ctx, spec: &PartSpec, path: &str) -> R<ConvexPart<S>> {
    let (allowed, required): (&[&str], &[&str]) = match spec.kind {
        PartKind::Intersection => (&["function"], &["function"]),
        PartKind::Box => (&["half_extents"], &["half_extents"]),
        PartKind::Polygon => (&["vertices"], &["vertices"]),
        PartKind::Polyhedron => (&["planes"], &["planes"]),
        PartKind::Cylinder => (&["radius", "half_height"], &["radius", "half_height"]),
        PartKind::RegularPolygon => (&["radius", "sides"], &["radius", "sides"]),
    };
    check_keys(
        cx,
        path,
        &format!("a part of kind `{}`", spec.kind.as_str()),
        &[
            ("function", !spec.function.is_empty()),
            ("half_extents", spec.half_extents.is_some()),
            ("vertices", spec.vertices.is_some()),
            ("planes", spec.planes.is_some()),
            ("radius", spec.radius.is_some()),
            ("half_height", spec.half_height.is_some()),
            ("sides", spec.sides.is_some()),
        ],
        allowed,
        required,
    )?;
    let part = match spec.kind {
        PartKind::Intersection => {
            let mut fs = Vec::with_capacity(spec.function.len());
            for (k, f) in spec.function.iter().enumerate() {
                fs.push(build_function::<S>(
                    cx,
                    f,
                    &format!("{path}.function[{k}]"),
                )?);
            }
            ConvexPart::new(path, fs).map_err(|e| cx.geometry(e, path))?
        }
        PartKind::Box => {
            let h = spec.half_extents.as_deref().unwrap_or_default();
            let h = cx.vector::<S>(h, &format!("{path}.half_extents"))?;
            ConvexPart::cuboid(h).map_err(|e| cx.geometry(e, path))?
        }
        _ => S::constructed_part(cx, spec, path)?,
    };
    let placement = placement::<S>(cx, spec.position.as_ref(), spec.orientation.as_ref(), path)?;
    Ok(match placement {
        Some(pose) => part.placed(&pose),
        None => part,
    })
}

/// The friction of `f`; an `e_r` left out is [`E_R_UNSET`] until [`default_torsion`] resolves
/// it for each pair of bodies.
fn friction(cx: Ctx, f: &FrictionSpec, path: &str, owner: &str) -> R<Friction> {
    let e_r = f.e_r.unwrap_or(E_R_UNSET);
    let friction = Friction::elliptic(f.mu, f.e_t, f.e_o, e_r);
    for (key, v) in [("mu", f.mu), ("e_t", f.e_t), ("e_o", f.e_o), ("e_r", e_r)] {
        cx.finite(v, &format!("{path}.{key}"))?;
    }
    friction
        .validate(owner)
        .map_err(|e| cx.model(e, path, path))?;
    Ok(friction)
}

fn build_body<S: FileSpace>(cx: Ctx, spec: &BodySpec, path: &str) -> R<RigidBody<S>> {
    let p = |key: &str| format!("{path}.{key}");
    if spec.name.trim().is_empty() {
        return Err(cx.err(p("name"), ErrorKind::InvalidValue, "must not be empty"));
    }
    if spec.part.is_empty() {
        return Err(cx.err(
            p("part"),
            ErrorKind::MissingKey,
            "a body needs at least one [[body.part]]",
        ));
    }
    let mut parts = Vec::with_capacity(spec.part.len());
    for (j, part) in spec.part.iter().enumerate() {
        parts.push(build_part::<S>(cx, part, &format!("{path}.part[{j}]"))?);
    }
    let shape = BodyShape::new(&spec.name, parts).map_err(|e| cx.geometry(e, &p("part")))?;
    let position = cx.vector::<S>(&spec.position, &p("position"))?;
    let rotation = match &spec.orientation {
        Some(o) => S::rotation(cx, o, &p("orientation"))?,
        None => S::rotation_identity(),
    };
    let pose = Pose { position, rotation };
    let velocity = match &spec.velocity {
        Some(v) => cx.vector::<S>(v, &p("velocity"))?,
        None => S::zero_vector(),
    };
    let angular_velocity = match &spec.angular_velocity {
        Some(w) => S::angular(cx, w, &p("angular_velocity"))?,
        None => S::zero_angular(),
    };
    let force = match &spec.force {
        Some(f) => cx.vector::<S>(f, &p("force"))?,
        None => S::zero_vector(),
    };
    let torque = match &spec.torque {
        Some(t) => S::angular(cx, t, &p("torque"))?,
        None => S::zero_angular(),
    };
    let model = |e| cx.model(e, path, &p("friction"));
    let body = if let Some(drive) = &spec.drive {
        if spec.fixed {
            return Err(cx.err(
                p("drive"),
                ErrorKind::InvalidValue,
                "a fixed body never moves: remove `fixed` to let it follow the table",
            ));
        }
        let keys = [
            ("velocity", velocity != S::zero_vector()),
            ("angular_velocity", angular_velocity != S::zero_angular()),
            ("force", force != S::zero_vector()),
            ("torque", torque != S::zero_angular()),
        ];
        if let Some((key, _)) = keys.iter().find(|(_, nonzero)| *nonzero) {
            return Err(cx.err(
                p(key),
                ErrorKind::InvalidValue,
                "a body that follows a `drive` table takes its motion from the table: it can \
                 have no velocity, angular velocity, force or torque",
            ));
        }
        let table = pose_table::<S>(cx, drive, &pose, &p("drive"))?;
        RigidBody::driven_by(&spec.name, shape, table).map_err(model)?
    } else if spec.driven {
        if spec.fixed {
            return Err(cx.err(
                p("driven"),
                ErrorKind::InvalidValue,
                "a body is fixed or driven, not both (a driven body moves as prescribed)",
            ));
        }
        let loads = [
            ("force", force != S::zero_vector()),
            ("torque", torque != S::zero_angular()),
        ];
        if let Some((key, _)) = loads.iter().find(|(_, nonzero)| *nonzero) {
            return Err(cx.err(
                p(key),
                ErrorKind::InvalidValue,
                "a driven body moves as prescribed: it can have no applied force or torque",
            ));
        }
        RigidBody::driven(
            &spec.name,
            shape,
            pose,
            Twist::new(velocity, angular_velocity),
        )
        .map_err(model)?
    } else if spec.fixed {
        let moving = [
            ("velocity", velocity != S::zero_vector()),
            ("angular_velocity", angular_velocity != S::zero_angular()),
            ("force", force != S::zero_vector()),
            ("torque", torque != S::zero_angular()),
        ];
        if let Some((key, _)) = moving.iter().find(|(_, nonzero)| *nonzero) {
            return Err(cx.err(
                p(key),
                ErrorKind::InvalidValue,
                "a fixed body never moves: it can have no velocity and no applied force or \
                 torque (remove the key or set `fixed = false`)",
            ));
        }
        RigidBody::fixed(&spec.name, shape, pose).map_err(model)?
    } else {
        let Some(mass) = spec.mass else {
            return Err(cx.err(
                p("mass"),
                ErrorKind::MissingKey,
                "missing: a moving body needs a mass",
            ));
        };
        let mass = cx.finite(mass, &p("mass"))?;
        let Some(inertia) = &spec.inertia else {
            return Err(cx.err(
                p("inertia"),
                ErrorKind::MissingKey,
                "missing: a moving body needs an inertia",
            ));
        };
        let inertia = S::inertia(cx, inertia, &p("inertia"))?;
        RigidBody::new(&spec.name, mass, inertia, shape, pose)
            .map_err(model)?
            .with_twist(Twist::new(velocity, angular_velocity))
            .map_err(model)?
            .with_external_wrench(Wrench::new(force, torque))
            .map_err(model)?
    };
    let body = match &spec.friction {
        Some(f) => {
            let f = friction(cx, f, &p("friction"), &format!("body `{}`", spec.name))?;
            body.with_friction(f).map_err(model)?
        }
        None => body,
    };
    match &spec.layer {
        Some(l) => {
            let layer = layer::<S>(cx, l, &p("layer"))?;
            body.with_layer(layer).map_err(model)
        }
        None => Ok(body),
    }
}

/// A `D × D` matrix of the layer: `D` numbers (diagonal) or `D` rows of `D`.
fn layer_matrix<S: Space>(cx: Ctx, n: &Numbers, path: &str) -> R<Matrix3<f64>> {
    let d = S::DIM;
    let what = format!("is {d} numbers (normal, then tangential) or {d} rows of {d}");
    match n {
        Numbers::List(v) if v.len() == d => {
            cx.finite_all(v, path)?;
            Ok(Matrix3::from_fn(
                |i, j| if i == j && i < d { v[i] } else { 0.0 },
            ))
        }
        Numbers::Matrix(rows) if rows.len() == d => {
            for (r, row) in rows.iter().enumerate() {
                let rp = format!("{path}[{r}]");
                if row.len() != d {
                    return Err(cx.err(
                        rp,
                        ErrorKind::WrongLength,
                        format!(
                            "has {} entries but the scene is {d}D: a row has {d}",
                            row.len()
                        ),
                    ));
                }
                cx.finite_all(row, &rp)?;
            }
            Ok(Matrix3::from_fn(|i, j| {
                if i < d && j < d { rows[i][j] } else { 0.0 }
            }))
        }
        Numbers::List(v) => Err(cx.err(
            path,
            ErrorKind::WrongLength,
            format!("has {} entries but in a {d}D scene it {what}", v.len()),
        )),
        Numbers::Matrix(rows) => Err(cx.err(
            path,
            ErrorKind::WrongLength,
            format!("has {} rows but in a {d}D scene it {what}", rows.len()),
        )),
        Numbers::Scalar(_) => Err(cx.err(
            path,
            ErrorKind::WrongType,
            format!("got a number but in a {d}D scene it {what}"),
        )),
    }
}

/// The compliant layer at `path` (`body[i].layer`).
fn layer<S: Space>(cx: Ctx, spec: &LayerSpec, path: &str) -> R<CompliantLayer> {
    let k = layer_matrix::<S>(cx, &spec.stiffness, &format!("{path}.stiffness"))?;
    let c = match &spec.damping {
        Some(c) => layer_matrix::<S>(cx, c, &format!("{path}.damping"))?,
        None => Matrix3::zeros(),
    };
    let dmax = cx.finite(spec.max_deflection, &format!("{path}.max_deflection"))?;
    Ok(CompliantLayer::full(S::DIM, k, c, dmax))
}

/// Fails if two bodies, at least one of them moving, overlap at their initial poses: a pair of
/// parts whose [`proximity()`] is [`ContactState::Intersecting`]. Touching (depth within the
/// proximity tolerance, `10⁻⁷`) is allowed: resting contact starts touching. Two bodies a joint
/// links are not checked: they never collide.
fn check_overlaps<S: Space + Dynamics>(cx: Ctx, scene: &Scene<S>) -> R<()> {
    let settings = ProximitySettings::default();
    let bodies = &scene.bodies;
    for i in 0..bodies.len() {
        for j in i + 1..bodies.len() {
            let (bi, bj) = (&bodies[i], &bodies[j]);
            // Bodies a joint links never collide (their parts usually overlap at the joint).
            if (bi.fixed && bj.fixed) || !scene.may_collide(i, j) {
                continue;
            }
            let field = if bj.fixed { i } else { j };
            for (a, pa) in bi.shape.parts().iter().enumerate() {
                for (b, pb) in bj.shape.parts().iter().enumerate() {
                    if far_apart(pa, &bi.pose, pb, &bj.pose) {
                        continue;
                    }
                    let which = format!(
                        "bodies `{}` (body[{i}].part[{a}]) and `{}` (body[{j}].part[{b}])",
                        cut(&bi.name),
                        cut(&bj.name)
                    );
                    match proximity(pa, &bi.pose, pb, &bj.pose, &settings) {
                        Ok(p) if p.state == ContactState::Intersecting => {
                            let depth = overlap_depth(pa, &bi.pose, pb, &bj.pose, &p.point_a);
                            return Err(cx.err(
                                format!("body[{field}].position"),
                                ErrorKind::Overlap,
                                format!(
                                    "{which} overlap at t = 0, by about {} m (penetration \
                                     depth); they may touch but not overlap",
                                    four_digits(depth)
                                ),
                            ));
                        }
                        Ok(_) => {}
                        Err(e) => {
                            return Err(cx.err(
                                format!("body[{field}].position"),
                                ErrorKind::InvalidValue,
                                format!("cannot decide whether {which} overlap at t = 0: {e}"),
                            ));
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// `x` to four significant digits, shortest form (`0.5`, not `5.000e-1`).
fn four_digits(x: f64) -> String {
    let rounded: f64 = format!("{x:.3e}").parse().unwrap_or(x);
    crate::output::format_f64(rounded)
}

/// `x` to twelve significant digits, shortest form: `n·h` without its rounding noise
/// (`0.816`, not `0.8160000000000001`).
fn twelve_digits(x: f64) -> String {
    let rounded: f64 = format!("{x:.11e}").parse().unwrap_or(x);
    crate::output::format_f64(rounded)
}

/// The penetration depth in metres of two overlapping parts, from a point `x` inside both (the
/// deepest common point of the proximity query): the depth of `x` below each part's surface
/// along its normal ([`crate::geometry::depth_below_surface`], the least over an intersection's
/// functions), summed. Exact for two balls or a ball and a half-space (`x` then lies on the line
/// of the centres or the normal through the centre); an estimate of the same scale otherwise,
/// never a value of an implicit function, whose scale depends on the shape.
fn overlap_depth<S: Space>(
    a: &ConvexPart<S>,
    pa: &Pose<S>,
    b: &ConvexPart<S>,
    pb: &Pose<S>,
    x: &S::Vector,
) -> f64 {
    let depth = |part: &ConvexPart<S>, pose: &Pose<S>| {
        part.functions()
            .iter()
            .map(|f| crate::geometry::depth_below_surface(f, pose, x).max(0.0))
            .fold(f64::INFINITY, f64::min)
    };
    depth(a, pa) + depth(b, pb)
}

/// True if the bounding balls of the two parts are clearly disjoint (skips a proximity solve).
fn far_apart<S: Space>(a: &ConvexPart<S>, pa: &Pose<S>, b: &ConvexPart<S>, pb: &Pose<S>) -> bool {
    match (
        a.interior_point(),
        a.bounding_radius(),
        b.interior_point(),
        b.bounding_radius(),
    ) {
        (Some(ca), Some(ra), Some(cb), Some(rb)) => {
            let d = S::norm(&(pa.transform_point(&ca) - pb.transform_point(&cb)));
            d > (ra + rb) * (1.0 + 1e-6) + 1e-6
        }
        _ => false,
    }
}

fn build_scene<S: FileSpace>(cx: Ctx, file: &ScenarioFile) -> R<Scene<S>> {
    let sim = &file.simulation;
    let h = cx.finite(sim.time_step, "simulation.time_step")?;
    if h <= 0.0 {
        return Err(cx.err(
            "simulation.time_step",
            ErrorKind::InvalidValue,
            format!("must be > 0, got {h}"),
        ));
    }
    let duration = cx.finite(sim.duration, "simulation.duration")?;
    if duration < 0.0 {
        return Err(cx.err(
            "simulation.duration",
            ErrorKind::InvalidValue,
            format!("must be ≥ 0, got {duration}"),
        ));
    }
    // Every step has the same length h (the steppers' warm starts, extrapolations and RATTLE's
    // kicks assume it), so a run takes n = T/h whole steps and ends at t = n·h; a duration that
    // is no whole number of steps would end elsewhere than asked, so it is refused. The slack,
    // 10⁻⁹ of the step count, absorbs the rounding of decimal inputs (5 / 0.01).
    let ratio = duration / h;
    let whole = ratio.round();
    if (ratio - whole).abs() > 1e-9 * whole.max(1.0) {
        let below = (ratio.floor() * h).max(0.0);
        let above = ratio.ceil() * h;
        return Err(cx.err(
            "simulation.duration",
            ErrorKind::InvalidValue,
            format!(
                "{duration} s is not a whole number of time steps of {h} s ({ratio} steps); a \
                 run takes duration / time_step steps of exactly time_step, so choose a \
                 multiple of it, e.g. {} or {} s",
                twelve_digits(below),
                twelve_digits(above)
            ),
        ));
    }
    let gravity = cx.vector::<S>(&sim.gravity, "simulation.gravity")?;
    if sim.energy_projection.is_some() && sim.integrator != super::schema::IntegratorSpec::Rattle {
        return Err(cx.err(
            "simulation.energy_projection",
            ErrorKind::InvalidValue,
            "applies only to integrator = \"rattle\"",
        ));
    }
    if sim.gyroscopic.is_some() {
        let reason = if S::DIM != 3 {
            Some("applies only to dimension = 3 (a planar body has no gyroscopic term)")
        } else if sim.stepper == super::Stepper::Lcp {
            Some("not with stepper = \"lcp\", whose gyroscopic impulse is explicit")
        } else if sim.integrator == super::schema::IntegratorSpec::Rattle {
            Some(
                "not with integrator = \"rattle\", which takes it at each of its two kicks' midpoints",
            )
        } else {
            None
        };
        if let Some(reason) = reason {
            return Err(cx.err("simulation.gyroscopic", ErrorKind::InvalidValue, reason));
        }
    }
    let default_friction = friction(cx, &file.friction, "friction", "the scene default")?;
    let mut scene = Scene::new(&file.name, gravity, default_friction, h, duration)
        .map_err(|e| cx.model(e, "", "friction"))?;
    if file.body.is_empty() {
        return Err(cx.err(
            "body",
            ErrorKind::MissingKey,
            "a scenario needs at least one [[body]]",
        ));
    }
    if file.body.iter().all(|b| b.fixed) {
        return Err(cx.err(
            "body",
            ErrorKind::InvalidValue,
            "every body is fixed: nothing would move",
        ));
    }
    for (i, spec) in file.body.iter().enumerate() {
        let path = format!("body[{i}]");
        if let Some(k) = file.body[..i].iter().position(|b| b.name == spec.name) {
            return Err(cx.err(
                format!("{path}.name"),
                ErrorKind::DuplicateName,
                format!(
                    "`{}` is already the name of body[{k}]; names must be unique",
                    cut(&spec.name)
                ),
            ));
        }
        let body = build_body::<S>(cx, spec, &path)?;
        scene = scene
            .with_body(body)
            .map_err(|e| cx.model(e, &path, "friction"))?;
    }
    for (k, pair) in file.pair.iter().enumerate() {
        let path = format!("pair[{k}]");
        for (key, name) in [("body1", &pair.body1), ("body2", &pair.body2)] {
            if scene.body_index(name).is_none() {
                let names: Vec<String> = scene
                    .bodies
                    .iter()
                    .map(|b| format!("`{}`", cut(&b.name)))
                    .collect();
                return Err(cx.err(
                    format!("{path}.{key}"),
                    ErrorKind::UnknownBody,
                    format!(
                        "no body is named `{}` (the bodies: {})",
                        cut(name),
                        names.join(", ")
                    ),
                ));
            }
        }
        let spec = FrictionSpec {
            mu: pair.mu,
            e_t: pair.e_t,
            e_o: pair.e_o,
            e_r: pair.e_r,
        };
        let f = friction(
            cx,
            &spec,
            &path,
            &format!("pair (`{}`, `{}`)", pair.body1, pair.body2),
        )?;
        scene = scene
            .with_pair_friction(&pair.body1, &pair.body2, f)
            .map_err(|e| cx.model(e, &path, &path))?;
    }
    for (k, spec) in file.joint.iter().enumerate() {
        let joint = build_joint::<S>(cx, file, &scene, spec, k)?;
        scene = scene.with_joint(joint);
    }
    for (k, spec) in file.no_collision.iter().enumerate() {
        let path = format!("no_collision[{k}]");
        let i = named_body(cx, &scene, &spec.body1, &format!("{path}.body1"))?;
        let j = named_body(cx, &scene, &spec.body2, &format!("{path}.body2"))?;
        if i == j {
            return Err(cx.err(
                format!("{path}.body2"),
                ErrorKind::InvalidValue,
                format!(
                    "names `{}` twice: a body cannot touch itself",
                    cut(&spec.body1)
                ),
            ));
        }
        scene = scene
            .without_collision(i, j)
            .map_err(|e| cx.model(e, &path, &path))?;
    }
    for (k, spec) in file.support.iter().enumerate() {
        let path = format!("support[{k}]");
        let b = named_body(cx, &scene, &spec.body, &format!("{path}.body"))?;
        for (key, v) in [
            ("mu", spec.mu),
            ("e_t", spec.e_t),
            ("e_o", spec.e_o),
            ("e_r", spec.e_r),
        ] {
            cx.finite(v, &format!("{path}.{key}"))?;
        }
        let normal = match spec.normal_force {
            Some(n) => cx.finite(n, &format!("{path}.normal_force"))?,
            None => scene.bodies[b].mass * 9.81,
        };
        let friction = Friction::elliptic(spec.mu, spec.e_t, spec.e_o, spec.e_r);
        let support =
            crate::model::Support::new(&scene.name, k, b, friction, normal, &scene.bodies)
                .map_err(|e| cx.model(e, &path, &path))?;
        scene = scene.with_support(support);
    }
    check_layers(cx, &scene)?;
    check_overlaps(cx, &scene)?;
    if S::DIM == 3 {
        default_torsion(file, &mut scene);
    }
    Ok(scene)
}

/// The `e_r` of a friction entry that leaves it out, until [`default_torsion`] replaces it
/// (3D); in 2D, where there is no torsion, it stays (and `summary.json` reports 1).
const E_R_UNSET: f64 = 1.0;

/// `e_r` relative to the bodies' size when no entry that applies gives it (see the module
/// docs, "Friction"): `0.3 ×` the smaller bounding radius of the two bodies — the ratio of the
/// paper's Example 2 (`e_r = 0.3` for its unit sphere). A body's radius is its smallest part's
/// (bounding ball about the part's interior point); a body without a bounded part (a ground
/// half-space) does not count, and a pair with neither keeps 1 m. Each such pair gets its own
/// `[[pair]]`-like entry, so `Scene::friction_between` (and `summary.json`) give the value.
fn default_torsion<S: Dynamics>(file: &ScenarioFile, scene: &mut Scene<S>) {
    let radius = |b: usize| {
        scene.bodies[b]
            .shape
            .parts()
            .iter()
            .filter_map(|p| p.bounding_radius())
            .fold(None, |m: Option<f64>, r| Some(m.map_or(r, |m| m.min(r))))
    };
    let mut added = Vec::new();
    for i in 0..scene.bodies.len() {
        for j in i + 1..scene.bodies.len() {
            let (bi, bj) = (&scene.bodies[i], &scene.bodies[j]);
            if bi.fixed && bj.fixed {
                continue;
            }
            let named = |p: &super::schema::PairSpec| {
                (p.body1 == bi.name && p.body2 == bj.name)
                    || (p.body1 == bj.name && p.body2 == bi.name)
            };
            let spec_of = |b: &crate::model::RigidBody<S>| {
                file.body
                    .iter()
                    .find(|s| s.name == b.name)
                    .and_then(|s| s.friction)
            };
            let given = match file.pair.iter().find(|p| named(p)) {
                Some(p) => p.e_r.is_some(),
                None => match (spec_of(bi), spec_of(bj)) {
                    (Some(a), Some(b)) => a.e_r.is_some() && b.e_r.is_some(),
                    (Some(a), None) | (None, Some(a)) => a.e_r.is_some(),
                    (None, None) => file.friction.e_r.is_some(),
                },
            };
            if given {
                continue;
            }
            let size = match (radius(i), radius(j)) {
                (Some(a), Some(b)) => a.min(b),
                (Some(a), None) | (None, Some(a)) => a,
                (None, None) => continue,
            };
            let mut friction = scene.friction_between(i, j);
            friction.e_r = 0.3 * size;
            added.push((i, j, friction));
        }
    }
    for (i, j, friction) in added {
        let (n1, n2) = (scene.bodies[i].name.clone(), scene.bodies[j].name.clone());
        match scene
            .pair_friction
            .iter_mut()
            .find(|p| (p.body1 == n1 && p.body2 == n2) || (p.body1 == n2 && p.body2 == n1))
        {
            Some(p) => p.friction = friction,
            None => scene.pair_friction.push(crate::model::PairFriction {
                body1: n1,
                body2: n2,
                friction,
            }),
        }
    }
}

/// The index of the body named `name` (field `path`), or an error listing the bodies.
fn named_body<S: Dynamics>(cx: Ctx, scene: &Scene<S>, name: &str, path: &str) -> R<usize> {
    scene.body_index(name).ok_or_else(|| {
        let names: Vec<String> = scene
            .bodies
            .iter()
            .map(|b| format!("`{}`", cut(&b.name)))
            .collect();
        cx.err(
            path,
            ErrorKind::UnknownBody,
            format!(
                "no body is named `{}` (the bodies: {})",
                cut(name),
                names.join(", ")
            ),
        )
    })
}

/// The name of joint `k`: its `name`, or `joint<k>`.
fn joint_name(spec: &JointSpec, k: usize) -> String {
    spec.name.clone().unwrap_or_else(|| format!("joint{k}"))
}

/// The body a `[[joint]]` names at `path` (`joint[k].body1` or `.body2`): `None` for the world
/// (`"world"`, allowed as body 1 only), else its index.
fn joint_body<S: Dynamics>(
    cx: Ctx,
    scene: &Scene<S>,
    name: &str,
    path: &str,
    world_allowed: bool,
) -> R<Option<usize>> {
    if name == WORLD {
        if let Some(b) = scene.body_index(WORLD) {
            return Err(cx.err(
                path,
                ErrorKind::InvalidValue,
                format!(
                    "`{WORLD}` is ambiguous: in [[joint]] it means the world, and body[{b}] is \
                     named `{WORLD}` too; rename that body"
                ),
            ));
        }
        if !world_allowed {
            return Err(cx.err(
                path,
                ErrorKind::InvalidValue,
                format!(
                    "body2 must be a body; the world can be body1 only (swap body1 and body2, \
                     or leave body1 out: it defaults to `{WORLD}`)"
                ),
            ));
        }
        return Ok(None);
    }
    match scene.body_index(name) {
        Some(b) => Ok(Some(b)),
        None => {
            let names: Vec<String> = scene
                .bodies
                .iter()
                .map(|b| format!("`{}`", cut(&b.name)))
                .collect();
            Err(cx.err(
                path,
                ErrorKind::UnknownBody,
                format!(
                    "no body is named `{}` (the bodies: {}{})",
                    cut(name),
                    names.join(", "),
                    if world_allowed {
                        format!("; or `{WORLD}`")
                    } else {
                        String::new()
                    }
                ),
            ))
        }
    }
}

/// `[[joint]]` entry `k` against the scene's bodies ([`Joint::new`], whose errors keep their
/// `joint[k].…` field).
fn build_joint<S: FileSpace>(
    cx: Ctx,
    file: &ScenarioFile,
    scene: &Scene<S>,
    spec: &JointSpec,
    k: usize,
) -> R<Joint<S>> {
    let path = format!("joint[{k}]");
    let p = |key: &str| format!("{path}.{key}");
    let name = joint_name(spec, k);
    if name.trim().is_empty() {
        return Err(cx.err(p("name"), ErrorKind::InvalidValue, "must not be empty"));
    }
    if let Some(j) = (0..k).find(|&j| joint_name(&file.joint[j], j) == name) {
        let default = if file.joint[j].name.is_none() {
            " (its default name)"
        } else {
            ""
        };
        let own = if spec.name.is_none() {
            " (this joint's default name; give it a `name`)"
        } else {
            ""
        };
        return Err(cx.err(
            p("name"),
            ErrorKind::DuplicateName,
            format!(
                "`{}`{own} is already the name of joint[{j}]{default}; joint names must be \
                 unique",
                cut(&name)
            ),
        ));
    }
    let kind = spec.kind.kind();
    if spec.kind == JointKindSpec::Ball && S::DIM == 2 {
        return Err(cx.err(
            p("kind"),
            ErrorKind::InvalidValue,
            "a `ball` joint exists only in 3D; a planar pin is `revolute`",
        ));
    }
    let body1 = joint_body(
        cx,
        scene,
        spec.body1.as_deref().unwrap_or(WORLD),
        &p("body1"),
        true,
    )?;
    let body2 = joint_body(cx, scene, &spec.body2, &p("body2"), false)?
        .expect("the world is refused as body2");
    let anchor = cx.vector::<S>(&spec.anchor, &p("anchor"))?;
    let axis = match (&spec.axis, kind.uses_axis(S::DIM)) {
        (Some(a), true) => {
            let axis = cx.vector::<S>(a, &p("axis"))?;
            if S::norm(&axis) == 0.0 {
                return Err(cx.err(
                    p("axis"),
                    ErrorKind::InvalidValue,
                    "must not be zero: it gives the joint's direction",
                ));
            }
            axis
        }
        (None, true) => {
            return Err(cx.err(
                p("axis"),
                ErrorKind::MissingKey,
                format!(
                    "missing: a `{}` joint in {}D needs its direction",
                    kind.as_str(),
                    S::DIM
                ),
            ));
        }
        (Some(_), false) => {
            let why = if spec.kind == JointKindSpec::Revolute {
                "a 2D `revolute` joint turns about the plane's normal, so its axis is not used"
                    .to_string()
            } else {
                format!("a `{}` joint has no axis, so it is not used", kind.as_str())
            };
            return Err(cx.err(
                p("axis"),
                ErrorKind::UnknownKey,
                format!("{why}: remove the key"),
            ));
        }
        (None, false) => S::zero_vector(),
    };
    let joint = Joint::new(
        &scene.name,
        k,
        &name,
        kind,
        body1,
        body2,
        anchor,
        axis,
        &scene.bodies,
    )
    .map_err(|e| cx.model(e, &path, &path))?;
    let joint = joint_limits(cx, scene, spec, k, joint)?;
    let Some(a) = &spec.actuator else {
        return Ok(joint);
    };
    let q = |key: &str| format!("{path}.actuator.{key}");
    let pd = [a.target, a.speed, a.stiffness, a.damping, a.max];
    let actuator = match (a.force, pd.iter().any(Option::is_some)) {
        (Some(_), true) => {
            return Err(cx.err(
                q("force"),
                ErrorKind::InvalidValue,
                "either a constant `force` or a PD controller (`target`, `speed`, \
                 `stiffness`, `damping`, `max`), not both",
            ));
        }
        (Some(force), false) => Actuator::Constant(force),
        (None, true) => {
            for (key, value) in [("stiffness", a.stiffness), ("max", a.max)] {
                if value.is_none() {
                    return Err(cx.err(
                        q(key),
                        ErrorKind::MissingKey,
                        "missing: a PD actuator needs `stiffness` and `max`",
                    ));
                }
            }
            Actuator::Pd {
                target: a.target.unwrap_or(0.0),
                speed: a.speed.unwrap_or(0.0),
                stiffness: a.stiffness.unwrap_or(0.0),
                damping: a.damping.unwrap_or(0.0),
                max: a.max.unwrap_or(0.0),
            }
        }
        (None, false) => {
            return Err(cx.err(
                format!("{path}.actuator"),
                ErrorKind::MissingKey,
                "empty: give a constant `force` or a PD controller (`stiffness`, `max`, \
                 optional `target`, `speed` and `damping`)",
            ));
        }
    };
    joint
        .with_actuator(&scene.name, k, actuator)
        .map_err(|e| cx.model(e, &path, &path))
}

/// `joint[k].limits` (two entries) and `joint[k].friction`, checked by the model.
fn joint_limits<S: Dynamics>(
    cx: Ctx,
    scene: &Scene<S>,
    spec: &JointSpec,
    k: usize,
    mut joint: Joint<S>,
) -> R<Joint<S>> {
    let path = format!("joint[{k}]");
    if let Some(limits) = &spec.limits {
        let &[lo, hi] = limits.as_slice() else {
            return Err(cx.err(
                format!("{path}.limits"),
                ErrorKind::WrongLength,
                format!("must be [lo, hi] (2 entries), got {} entries", limits.len()),
            ));
        };
        joint = joint
            .with_limits(&scene.name, k, [lo, hi])
            .map_err(|e| cx.model(e, &path, &path))?;
    }
    if let Some(friction) = spec.friction {
        joint = joint
            .with_friction(&scene.name, k, friction)
            .map_err(|e| cx.model(e, &path, &path))?;
    }
    Ok(joint)
}

/// A contact has one compliant side (paper §5.1): two bodies with layers, not both fixed, are
/// refused here, with the second one's `layer` as the field, rather than when the stepper first
/// meets their contact.
fn check_layers<S: Dynamics>(cx: Ctx, scene: &Scene<S>) -> R<()> {
    let layered: Vec<usize> = (0..scene.bodies.len())
        .filter(|&b| scene.bodies[b].layer.is_some())
        .collect();
    for (k, &i) in layered.iter().enumerate() {
        for &j in &layered[k + 1..] {
            if scene.bodies[i].fixed && scene.bodies[j].fixed {
                continue;
            }
            return Err(cx.err(
                format!("body[{j}].layer"),
                ErrorKind::InvalidValue,
                format!(
                    "body `{}` (body[{i}]) has a compliant layer too; a contact has one \
                     compliant side (paper §5.1), so of two bodies that may touch at most one \
                     has a layer: remove one",
                    cut(&scene.bodies[i].name)
                ),
            ));
        }
    }
    Ok(())
}

/// `name` for a message: whole up to 60 characters, else its start and its length, so that a
/// huge name is never echoed whole.
pub(crate) fn cut(name: &str) -> String {
    const KEEP: usize = 60;
    let count = name.chars().count();
    if count <= KEEP {
        name.to_string()
    } else {
        let head: String = name.chars().take(KEEP).collect();
        format!("{head}… ({count} characters)")
    }
}

/// The longest scenario name, in bytes: a folder name's limit on common file systems
/// (`NAME_MAX`, 255 on Linux, macOS and Windows).
const NAME_LIMIT: usize = 255;

/// `name` is usable as a folder name on every platform.
fn check_name(cx: Ctx, name: &str) -> R<()> {
    if name.len() > NAME_LIMIT {
        return Err(cx.err(
            "name",
            ErrorKind::InvalidValue,
            format!(
                "`{}` is {} bytes long; it names the output folder, and a folder name has at \
                 most {NAME_LIMIT} bytes",
                cut(name),
                name.len()
            ),
        ));
    }
    let ok = !name.is_empty()
        && name != "."
        && name != ".."
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if ok {
        Ok(())
    } else {
        Err(cx.err(
            "name",
            ErrorKind::InvalidValue,
            format!(
                "`{}` cannot name the output folder: use letters, digits, `_`, `-` and `.` \
                 only",
                cut(name)
            ),
        ))
    }
}

impl ScenarioFile {
    /// Builds the scenario, checking every field (see the [module docs](super)); `file` names
    /// the source in errors. Errors carry no line and column: [`super::parse`] adds them.
    pub fn build(&self, file: &str) -> Result<Scenario, ScenarioError> {
        let cx = Ctx { file };
        check_name(cx, &self.name)?;
        let scene = match self.dimension {
            2 => AnyScene::Planar(build_scene::<Planar>(cx, self)?),
            3 => AnyScene::Spatial(build_scene::<Spatial>(cx, self)?),
            d => {
                return Err(cx.err(
                    "dimension",
                    ErrorKind::InvalidValue,
                    format!("must be 2 or 3, got {d}"),
                ));
            }
        };
        let solver = self.solver.clone().unwrap_or_default();
        solver.validate().map_err(|e| {
            cx.err(
                format!("solver.{}", e.field),
                ErrorKind::InvalidValue,
                e.reason,
            )
        })?;
        let lcp = lcp_settings(cx, self, &scene)?;
        if self.output.every == 0 {
            return Err(cx.err(
                "output.every",
                ErrorKind::InvalidValue,
                "must be ≥ 1 (1 writes every step)",
            ));
        }
        if self.output.max_output_mb == Some(0) {
            return Err(cx.err(
                "output.max_output_mb",
                ErrorKind::InvalidValue,
                "must be ≥ 1 (megabytes)",
            ));
        }
        Ok(Scenario {
            text: None,
            lcp,
            name: self.name.clone(),
            description: self.description.clone(),
            file: file.to_string(),
            scene,
            stepper: self.simulation.stepper,
            integrator: self.simulation.integrator.integrator(),
            energy_projection: self.simulation.energy_projection.unwrap_or(true),
            gyroscopic: self
                .simulation
                .gyroscopic
                .map(|g| g.gyroscopic())
                .unwrap_or_default(),
            closest_points: self.simulation.closest_points.unwrap_or_default(),
            friction_continuation: self.simulation.friction_continuation.unwrap_or(true),
            cones_from_start: self.simulation.cones_from_start.unwrap_or(true),
            cones_normalised: self.simulation.cones_normalised.unwrap_or(false),
            cones_normalised_after: self
                .simulation
                .cones_normalised_after
                .unwrap_or(crate::stepper::StepperSettings::default().cones_normalised_after),
            friction_centre_from_start: self.simulation.friction_centre_from_start.unwrap_or(false),
            solver,
            outputs: self.output,
            time_step: self.simulation.time_step,
            duration: self.simulation.duration,
            source: self.clone(),
        })
    }
}

/// The LCP stepper's settings from `[lcp]`, checked against the dimension; under
/// `stepper = "lcp"` also every pair of parts is checked to be one the LCP stepper can bring
/// into vertex–face contact (the error names the part).
fn lcp_settings(cx: Ctx, file: &ScenarioFile, scene: &AnyScene) -> R<crate::stepper::LcpSettings> {
    use crate::stepper::{LcpError, LcpSettings, LcpStepper};
    let mut settings = LcpSettings::default();
    if let Some(spec) = &file.lcp {
        if let Some(v) = spec.vertices {
            settings.vertices = v;
        }
        settings.friction_directions = spec.friction_directions;
        if let Some(m) = spec.margin {
            settings.margin = cx.finite(m, "lcp.margin")?;
        }
    }
    let dim = scene.dimension() as usize;
    settings.validate(dim).map_err(|e| match e {
        LcpError::Settings { field, reason } => {
            cx.err(format!("lcp.{field}"), ErrorKind::InvalidValue, reason)
        }
        other => cx.err("lcp", ErrorKind::InvalidValue, other.to_string()),
    })?;
    if file.simulation.stepper == super::Stepper::Lcp {
        let result = match scene {
            AnyScene::Planar(s) => LcpStepper::new(s.clone(), settings.clone()).map(|_| ()),
            AnyScene::Spatial(s) => LcpStepper::new(s.clone(), settings.clone()).map(|_| ()),
        };
        let index = |name: &str| file.body.iter().position(|b| b.name == name).unwrap_or(0);
        result.map_err(|e| match &e {
            // Neither part has vertices: point at the moving body's (the ground is rarely the
            // part to change).
            LcpError::NoVertices {
                body1,
                part1,
                body2,
                part2,
            } => {
                let (body, part) = if file.body[index(body1)].fixed {
                    (body2, part2)
                } else {
                    (body1, part1)
                };
                cx.err(
                    format!("body[{}].part[{part}]", index(body)),
                    ErrorKind::InvalidValue,
                    e.to_string(),
                )
            }
            LcpError::CompliantLayer { body } => cx.err(
                format!("body[{}].layer", index(body)),
                ErrorKind::InvalidValue,
                e.to_string(),
            ),
            LcpError::Driven { body } => cx.err(
                format!("body[{}].driven", index(body)),
                ErrorKind::InvalidValue,
                e.to_string(),
            ),
            LcpError::Joint { index, .. } => cx.err(
                format!("joint[{index}]"),
                ErrorKind::InvalidValue,
                e.to_string(),
            ),
            LcpError::Support { index, .. } => cx.err(
                format!("support[{index}]"),
                ErrorKind::InvalidValue,
                e.to_string(),
            ),
            LcpError::Polytope { body, part, .. } => cx.err(
                format!("body[{}].part[{part}]", index(body)),
                ErrorKind::InvalidValue,
                e.to_string(),
            ),
            LcpError::Settings { field, reason } => cx.err(
                format!("lcp.{field}"),
                ErrorKind::InvalidValue,
                reason.clone(),
            ),
        })?;
    }
    Ok(settings)
}
