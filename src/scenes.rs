//! Built-in scenes for scaling studies, benchmarks and tests: rows of many bodies whose
//! contacts come and go, so that the cost per contact of a step can be measured as the scene
//! grows.

use crate::geometry::{
    BodyShape, Circle, ConvexPart, GeometryError, HalfSpace, Placed, Planar, Pose, Space, Spatial,
    Sphere,
};
use crate::model::{Dynamics, Friction, ModelError, RigidBody, Scene, Twist};
use nalgebra::{Matrix3, Quaternion, Vector1, Vector2, Vector3};

/// Why a built-in scene could not be built (only for out-of-range arguments).
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    /// A shape parameter was refused.
    #[error(transparent)]
    Geometry(#[from] GeometryError),
    /// A body or the scene was refused.
    #[error(transparent)]
    Model(#[from] ModelError),
}

fn single<S: Space>(name: &str, f: Placed<S>) -> Result<BodyShape<S>, GeometryError> {
    BodyShape::new(name, vec![ConvexPart::single(name, f)?])
}

fn ground<S: Dynamics>(normal: S::Vector) -> Result<RigidBody<S>, SceneError> {
    let shape = single(
        "ground",
        Placed::at_origin(HalfSpace::<S>::new(normal, 0.0)?),
    )?;
    Ok(RigidBody::fixed("ground", shape, Pose::identity())?)
}

/// `n` discs of radius 0.5 and mass 1 (solid: `I = m r²/2`) standing on the ground `y ≤ 0`
/// in a row along `x`, `gap` apart; the first rolls into the others at `speed` (without slip
/// if `mu > 0`). Friction coefficient `mu` everywhere, `g = 9.81`, `h = 0.01`, 2 s. Every
/// disc touches the ground; a pair of neighbours touches once the collisions travel down the
/// row; no other pair ever comes close. (With friction, a disc pressed between the ground
/// and two neighbours has frictional impulses that are not unique.)
pub fn disc_row(n: usize, gap: f64, speed: f64, mu: f64) -> Result<Scene<Planar>, SceneError> {
    let r = 0.5;
    let mut scene = Scene::new(
        &format!("disc_row_{n}"),
        Vector2::new(0.0, -9.81),
        Friction::coulomb(mu),
        0.01,
        2.0,
    )?
    .with_body(ground::<Planar>(Vector2::new(0.0, 1.0))?)?;
    for i in 0..n {
        let name = format!("disc{i}");
        let x = i as f64 * (2.0 * r + gap);
        let v = if i == 0 { speed } else { 0.0 };
        let body = RigidBody::<Planar>::new(
            &name,
            1.0,
            0.5 * r * r,
            single(&name, Placed::at_origin(Circle::new(r)?))?,
            Pose::planar(x, r, 0.0, &name)?,
        )?
        .with_twist(Twist::new(Vector2::new(v, 0.0), Vector1::new(-v / r)))?;
        scene = scene.with_body(body)?;
    }
    Ok(scene)
}

/// The 3D counterpart of [`disc_row`]: `n` spheres of radius 0.5 and mass 1 (solid:
/// `I = 2/5 m r²`) on the ground `z ≤ 0`, in a row along `x`, `gap` apart, the first rolling
/// into the others at `speed`. Friction coefficient `mu`, `g = 9.81`, `h = 0.01`, 2 s.
pub fn sphere_row(n: usize, gap: f64, speed: f64, mu: f64) -> Result<Scene<Spatial>, SceneError> {
    let r = 0.5;
    let mut scene = Scene::new(
        &format!("sphere_row_{n}"),
        Vector3::new(0.0, 0.0, -9.81),
        Friction::coulomb(mu),
        0.01,
        2.0,
    )?
    .with_body(ground::<Spatial>(Vector3::new(0.0, 0.0, 1.0))?)?;
    for i in 0..n {
        let name = format!("sphere{i}");
        let x = i as f64 * (2.0 * r + gap);
        let v = if i == 0 { speed } else { 0.0 };
        let pose = Pose::spatial(Vector3::new(x, 0.0, r), Quaternion::identity(), &name)?;
        let body = RigidBody::<Spatial>::new(
            &name,
            1.0,
            Matrix3::identity() * (0.4 * r * r),
            single(&name, Placed::at_origin(Sphere::new(r)?))?,
            pose,
        )?
        .with_twist(Twist::new(
            Vector3::new(v, 0.0, 0.0),
            Vector3::new(0.0, v / r, 0.0),
        ))?;
        scene = scene.with_body(body)?;
    }
    Ok(scene)
}
