//! Built-in scenes for scaling studies, benchmarks and tests: rows of many bodies whose
//! contacts come and go, so that the cost per contact of a step can be measured as the scene
//! grows.

use crate::geometry::{
    BodyShape, Circle, ConvexPart, Ellipsoid, GeometryError, HalfSpace, Placed, Planar, Pose,
    Space, Spatial, Sphere, Superellipsoid,
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
        let body = disc_body(&name, r, x, r)?
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
    let mut scene = on_ground(&format!("sphere_row_{n}"), mu, 2.0)?;
    for i in 0..n {
        let name = format!("sphere{i}");
        let x = i as f64 * (2.0 * r + gap);
        let v = if i == 0 { speed } else { 0.0 };
        let body = sphere_body(&name, r, Vector3::new(x, 0.0, r))?.with_twist(Twist::new(
            Vector3::new(v, 0.0, 0.0),
            Vector3::new(0.0, v / r, 0.0),
        ))?;
        scene = scene.with_body(body)?;
    }
    Ok(scene)
}

/// A small deterministic generator (SplitMix64) for the seeded scenes: the same seed gives the
/// same scene on every machine.
#[derive(Debug, Clone)]
pub struct SceneRng(u64);

impl SceneRng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `[lo, hi)`.
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        let u = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        lo + (hi - lo) * u
    }
    /// Uniform in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Space left between neighbours of the packed scenes (pyramids, stacks) at `t = 0`, as a
/// fraction of the radius: they touch to within it, never overlap.
const PACKING_CLEARANCE: f64 = 1e-9;

/// An empty 3D scene on the ground `z ≤ 0`: gravity 9.81 m/s² down, Coulomb friction `mu`,
/// `h = 0.01`, `duration` seconds.
fn on_ground(name: &str, mu: f64, duration: f64) -> Result<Scene<Spatial>, SceneError> {
    Ok(Scene::new(
        name,
        Vector3::new(0.0, 0.0, -9.81),
        Friction::coulomb(mu),
        0.01,
        duration,
    )?
    .with_body(ground::<Spatial>(Vector3::new(0.0, 0.0, 1.0))?)?)
}

/// A solid sphere of mass 1 kg (`I = 2/5 m r²`) at `centre`.
pub(crate) fn sphere_body(
    name: &str,
    r: f64,
    centre: Vector3<f64>,
) -> Result<RigidBody<Spatial>, SceneError> {
    let m = 1.0;
    let pose = Pose::spatial(centre, Quaternion::identity(), name)?;
    Ok(RigidBody::<Spatial>::new(
        name,
        m,
        Matrix3::identity() * (0.4 * m * r * r),
        single(name, Placed::at_origin(Sphere::new(r)?))?,
        pose,
    )?)
}

/// A solid disc of mass 1 kg (`I = m r²/2`) at `(x, y)`.
pub(crate) fn disc_body(
    name: &str,
    r: f64,
    x: f64,
    y: f64,
) -> Result<RigidBody<Planar>, SceneError> {
    let m = 1.0;
    Ok(RigidBody::<Planar>::new(
        name,
        m,
        0.5 * m * r * r,
        single(name, Placed::at_origin(Circle::new(r)?))?,
        Pose::planar(x, y, 0.0, name)?,
    )?)
}

/// The number of spheres of a tetrahedral pyramid of `layers` layers (1, 4, 10, 20, 35, …).
pub fn tetrahedral_number(layers: usize) -> usize {
    layers * (layers + 1) * (layers + 2) / 6
}

/// A tetrahedral pyramid of `layers` layers of spheres (radius 0.1 m, mass 1 kg; 4, 10, 20 and
/// 35 spheres for 2–5 layers) resting on the ground `z ≤ 0`, the bottom layer a close-packed
/// triangle, each layer in the hollows of the one below, every neighbour touching (to
/// 1e-9 r). Friction `mu`, `g = 9.81`, `h = 0.01`, 2 s. Every sphere above the bottom layer
/// rests on three: the contact impulses are statically indeterminate.
pub fn sphere_pyramid(layers: usize, mu: f64) -> Result<Scene<Spatial>, SceneError> {
    let r = 0.1;
    let d = 2.0 * r * (1.0 + PACKING_CLEARANCE);
    let mut scene = on_ground(
        &format!("sphere_pyramid_{}", tetrahedral_number(layers)),
        mu,
        2.0,
    )?;
    let layer_height = d * (2.0f64 / 3.0).sqrt();
    let mut k = 0;
    for level in 0..layers {
        let side = layers - level;
        // Each layer sits over the centroids of the triangles of the one below.
        let (ox, oy) = (
            level as f64 * 0.5 * d,
            level as f64 * d / (2.0 * 3.0f64.sqrt()),
        );
        for j in 0..side {
            for i in 0..side - j {
                let x = ox + d * (i as f64 + 0.5 * j as f64);
                let y = oy + d * (j as f64 * 3.0f64.sqrt() / 2.0);
                let z = r * (1.0 + PACKING_CLEARANCE) + level as f64 * layer_height;
                let body = sphere_body(&format!("sphere{k}"), r, Vector3::new(x, y, z))?;
                scene = scene.with_body(body)?;
                k += 1;
            }
        }
    }
    Ok(scene)
}

/// A 2D pyramid of discs (radius 0.1 m, mass 1 kg) with `rows` rows (3, 6, 10 discs for 2–4
/// rows) on the ground `y ≤ 0`: the bottom row touching side by side, each disc above resting
/// in the hollow of two. Friction `mu`, `g = 9.81`, `h = 0.01`, 2 s. The three-disc pyramid
/// stands for `mu ≥ 2 − √3` between the bottom discs and the ground and slides apart below.
pub fn disc_pyramid(rows: usize, mu: f64) -> Result<Scene<Planar>, SceneError> {
    let r = 0.1;
    let d = 2.0 * r * (1.0 + PACKING_CLEARANCE);
    let n = rows * (rows + 1) / 2;
    let mut scene = Scene::new(
        &format!("disc_pyramid_{n}"),
        Vector2::new(0.0, -9.81),
        Friction::coulomb(mu),
        0.01,
        2.0,
    )?
    .with_body(ground::<Planar>(Vector2::new(0.0, 1.0))?)?;
    let mut k = 0;
    for level in 0..rows {
        for i in 0..rows - level {
            let x = d * (i as f64 + 0.5 * level as f64);
            let y = r * (1.0 + PACKING_CLEARANCE) + level as f64 * d * 3.0f64.sqrt() / 2.0;
            scene = scene.with_body(disc_body(&format!("disc{k}"), r, x, y)?)?;
            k += 1;
        }
    }
    Ok(scene)
}

/// A vertical stack of `n` spheres (radius 0.1 m, mass 1 kg) on the ground, each resting on
/// the one below (an equilibrium the symmetric scene keeps). Friction `mu`, `h = 0.01`, 2 s.
pub fn sphere_stack(n: usize, mu: f64) -> Result<Scene<Spatial>, SceneError> {
    let r = 0.1;
    let d = 2.0 * r * (1.0 + PACKING_CLEARANCE);
    let mut scene = on_ground(&format!("sphere_stack_{n}"), mu, 2.0)?;
    for k in 0..n {
        let z = r * (1.0 + PACKING_CLEARANCE) + k as f64 * d;
        scene = scene.with_body(sphere_body(
            &format!("sphere{k}"),
            r,
            Vector3::new(0.0, 0.0, z),
        )?)?;
    }
    Ok(scene)
}

/// `n` spheres of radius 0.5 m and mass 1 kg dropped from rest onto the ground `z ≤ 0` (the
/// issue's MuJoCo comparison): layers of `k × k` spheres, `k = ⌈∛n⌉`, so that the column is
/// about as tall as it is wide and the upper layers land on the lower ones (50 spheres: 4
/// layers of 16 and 2; 100: 4 of 25; 300: 7 of 49 and 6), 0.1 m apart at least, each moved
/// at random (from `seed`) by up to 0.04 m sideways so that no sphere lands balanced on
/// another, the lowest 0.05 m above the ground. Friction `mu`, `g = 9.81`, `h = 0.01`, 1 s.
pub fn sphere_pile(n: usize, mu: f64, seed: u64) -> Result<Scene<Spatial>, SceneError> {
    let r = 0.5;
    let mut rng = SceneRng::new(seed);
    let mut scene = on_ground(&format!("sphere_pile_{n}"), mu, 1.0)?;
    let side = cube_root_ceil(n);
    let cell = 2.0 * r + 0.1;
    let per_layer = side * side;
    for k in 0..n {
        let (layer, idx) = (k / per_layer, k % per_layer);
        let jitter = 0.04;
        let x = (idx % side) as f64 * cell + rng.uniform(-jitter, jitter);
        let y = (idx / side) as f64 * cell + rng.uniform(-jitter, jitter);
        let z = r + 0.05 + layer as f64 * cell + rng.uniform(0.0, jitter);
        scene = scene.with_body(sphere_body(
            &format!("sphere{k}"),
            r,
            Vector3::new(x, y, z),
        )?)?;
    }
    Ok(scene)
}

/// The least `k` with `k³ ≥ n` (at least 1).
fn cube_root_ceil(n: usize) -> usize {
    let mut k = 1;
    while k * k * k < n {
        k += 1;
    }
    k
}

/// A heap of `n` mixed bodies dropped from rest onto the ground `z ≤ 0`, in the column of
/// [`sphere_pile`] (`⌈∛n⌉` per row, cells 0.74 m wide): solid ellipsoids and Barr
/// superellipsoids (exponent 2.5–6) of semi-axes 0.1–0.2 m in random orientations, and one
/// finite cylinder (radius 0.15 m, half-height 0.15 m; a second would meet the first, and two
/// intersections of functions cannot touch yet), masses 1 kg. Friction `mu`, `g = 9.81`,
/// `h = 0.01`, 1 s. The shapes, sizes and orientations come from `seed`.
pub fn mixed_heap(n: usize, mu: f64, seed: u64) -> Result<Scene<Spatial>, SceneError> {
    let mut rng = SceneRng::new(seed);
    let mut scene = on_ground(&format!("mixed_heap_{n}"), mu, 1.0)?;
    let side = cube_root_ceil(n);
    // No two bounding balls (radius ≤ 0.2 √3) overlap at the start.
    let reach = 0.2 * 3.0f64.sqrt();
    let cell = 2.0 * reach + 0.05;
    let per_layer = side * side;
    let m = 1.0;
    for k in 0..n {
        let (layer, idx) = (k / per_layer, k % per_layer);
        let name = format!("body{k}");
        let centre = Vector3::new(
            (idx % side) as f64 * cell + rng.uniform(-0.02, 0.02),
            (idx / side) as f64 * cell + rng.uniform(-0.02, 0.02),
            reach + 0.05 + layer as f64 * cell,
        );
        let axis = Vector3::new(
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
        );
        let turn = nalgebra::UnitQuaternion::from_scaled_axis(axis * rng.uniform(0.0, 1.0));
        let pose = Pose::spatial(centre, *turn.quaternion(), &name)?;
        let a = Vector3::new(
            rng.uniform(0.1, 0.2),
            rng.uniform(0.1, 0.2),
            rng.uniform(0.1, 0.2),
        );
        let sq = a.map(|x| x * x);
        let ellipsoid_inertia =
            Matrix3::from_diagonal(&Vector3::new(sq.y + sq.z, sq.x + sq.z, sq.x + sq.y))
                * (m / 5.0);
        let (part, inertia) = if k == n / 2 {
            let (r, hh) = (0.15, 0.15);
            let side = m * (r * r / 4.0 + hh * hh / 3.0);
            (
                ConvexPart::cylinder(r, hh)?,
                Matrix3::from_diagonal(&Vector3::new(side, side, 0.5 * m * r * r)),
            )
        } else if k % 2 == 0 {
            (
                ConvexPart::single(&name, Ellipsoid::<Spatial>::new(a)?)?,
                ellipsoid_inertia,
            )
        } else {
            // The superellipsoid's inertia is taken as its inscribed ellipsoid's: a rounded
            // box's mass lies further out, by at most the box's 5/3.
            let p = rng.uniform(2.5, 6.0);
            (
                ConvexPart::single(&name, Superellipsoid::<Spatial>::new(a, p)?)?,
                ellipsoid_inertia,
            )
        };
        let shape = BodyShape::new(&name, vec![part])?;
        scene = scene.with_body(RigidBody::<Spatial>::new(&name, m, inertia, shape, pose)?)?;
    }
    Ok(scene)
}

/// The 2D counterpart of [`sphere_pile`]: `n` discs of radius 0.5 m dropped from rest in a
/// column `⌈√n⌉` discs wide, into a bin (two fixed walls) so that they pile up. Friction `mu`,
/// `h = 0.01`, 1 s.
pub fn disc_pile(n: usize, mu: f64, seed: u64) -> Result<Scene<Planar>, SceneError> {
    let r = 0.5;
    let mut rng = SceneRng::new(seed);
    let side = (n as f64).sqrt().ceil() as usize;
    let cell = 2.0 * r + 0.1;
    let width = side as f64 * cell;
    let wall =
        |name: &str, normal: Vector2<f64>, offset: f64| -> Result<RigidBody<Planar>, SceneError> {
            let shape = single(
                name,
                Placed::at_origin(HalfSpace::<Planar>::new(normal, offset)?),
            )?;
            Ok(RigidBody::fixed(name, shape, Pose::identity())?)
        };
    let mut scene = Scene::new(
        &format!("disc_pile_{n}"),
        Vector2::new(0.0, -9.81),
        Friction::coulomb(mu),
        0.01,
        1.0,
    )?
    .with_body(ground::<Planar>(Vector2::new(0.0, 1.0))?)?
    // The walls are the solids x ≤ −cell/2 and x ≥ width − cell/2 (a half-space is n·x ≤ offset).
    .with_body(wall("left_wall", Vector2::new(1.0, 0.0), -0.5 * cell)?)?
    .with_body(wall(
        "right_wall",
        Vector2::new(-1.0, 0.0),
        0.5 * cell - width,
    )?)?;
    for k in 0..n {
        let (layer, idx) = (k / side, k % side);
        let x = idx as f64 * cell + rng.uniform(-0.04, 0.04);
        let y = r + 0.05 + layer as f64 * cell + rng.uniform(0.0, 0.04);
        scene = scene.with_body(disc_body(&format!("disc{k}"), r, x, y)?)?;
    }
    Ok(scene)
}

/// A convex polygon of `n ≥ 4` vertices: a flat edge of length `2 r` on the `x` axis and the
/// other `n − 2` vertices on the half circle of radius `r` above it (`up`) or below it. Its
/// functions other than the flat edge's meet the edge at right angles, so a pair of them
/// touching flat on flat has one active function a side, whatever `n`.
fn half_disc_polygon(n: usize, r: f64, up: bool) -> Result<ConvexPart<Planar>, GeometryError> {
    let s = if up { 1.0 } else { -1.0 };
    let k = (n - 1) as f64;
    let vertices: Vec<Vector2<f64>> = (0..n)
        .map(|i| {
            let a = std::f64::consts::PI * i as f64 / k;
            Vector2::new(s * r * a.cos(), s * r * a.sin())
        })
        .collect();
    ConvexPart::polygon(&vertices)
}

/// Two intersections of `n` functions each, flat on flat: a 1 kg half disc of radius 0.5 m cut
/// into an `n`-gon (a flat edge of length `2 r` and `n − 2` vertices on the half circle over
/// it, so that only one function a side is active flat on flat), sliding at `speed` along the flat top of a fixed
/// `n`-gon of radius 5 m. Friction `mu`, `g = 9.81`, `h = 0.01`, 1 s. Every step solves one
/// contact of `2 n` functions with the same active set, so its cost against `n` is the
/// block's and its factorisation's (issue 16: linear in the number of functions).
pub fn polygon_pair(n: usize, speed: f64, mu: f64) -> Result<Scene<Planar>, SceneError> {
    let base = BodyShape::new("base", vec![half_disc_polygon(n, 5.0, false)?])?;
    let top = BodyShape::new("top", vec![half_disc_polygon(n, 0.5, true)?])?;
    let m = 1.0;
    // The body's origin (its centre of mass) is the flat edge's midpoint: it slides without
    // a tipping moment, and the same inertia for every `n` keeps the comparison fair.
    let inertia = 0.25 * m * 0.5 * 0.5;
    Ok(Scene::new(
        &format!("polygon_pair_{n}"),
        Vector2::new(0.0, -9.81),
        Friction::coulomb(mu),
        0.01,
        1.0,
    )?
    .with_body(RigidBody::fixed("base", base, Pose::identity())?)?
    .with_body(
        RigidBody::<Planar>::new("top", m, inertia, top, Pose::planar(0.0, 0.0, 0.0, "top")?)?
            .with_twist(Twist::new(Vector2::new(speed, 0.0), Vector1::new(0.0)))?,
    )?)
}
