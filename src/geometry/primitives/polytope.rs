//! Boxes, convex polygons, convex polyhedra and finite cylinders as [`ConvexPart`]s: intersections
//! of half-spaces (Remark 2: polyhedral objects fit the framework unchanged) and, for the
//! cylinder, of an infinite cylinder with two half-spaces.
//!
//! Constructors check what makes the intersection empty or degenerate: a polygon's vertices
//! must turn strictly left at every vertex (counter-clockwise, no collinear vertices), with total
//! turning `2π` (simple); a polyhedron's planes must enclose a bounded region with non-empty
//! interior.

use super::cylinder::InfiniteCylinder;
use super::half_space::HalfSpace;
use super::polygonal::Vertices;
use crate::geometry::error::{GeometryError, positive};
use crate::geometry::implicit::Placed;
use crate::geometry::part::{ConvexPart, PartRecipe};
use crate::geometry::space::{Planar, Space, Spatial};
use nalgebra::{Matrix3, Vector2, Vector3};

/// Relative tolerance of the polygon and polyhedron checks.
const REL_TOL: f64 = 1e-9;

impl<S: Space> ConvexPart<S> {
    /// The box `|ξᵢ| ≤ hᵢ` (a rectangle in 2D) as `2D` half-spaces, half-extents `h > 0`.
    pub fn cuboid(half_extents: S::Vector) -> Result<Self, GeometryError> {
        let name = if S::DIM == 2 { "rectangle" } else { "box" };
        for i in 0..S::DIM {
            positive(name, &format!("half_extents[{i}]"), half_extents[i])?;
        }
        let mut fs = Vec::with_capacity(2 * S::DIM);
        for i in 0..S::DIM {
            for sign in [1.0, -1.0] {
                let h = HalfSpace::new(S::unit_vector(i) * sign, half_extents[i])?;
                fs.push(Placed::at_origin(h));
            }
        }
        let mut part = ConvexPart::new_with_interior(name, fs, S::zero_vector())?;
        part.set_bounds(S::zero_vector(), S::norm(&half_extents));
        // The 2ᴰ corners: bit i of k picks the sign of coordinate i.
        let corners = (0..1usize << S::DIM)
            .map(|k| {
                S::vector_from_fn(|i| {
                    if k >> i & 1 == 1 {
                        half_extents[i]
                    } else {
                        -half_extents[i]
                    }
                })
            })
            .collect();
        part.set_vertices(Vertices::new(corners));
        Ok(part.with_recipe(PartRecipe::Cuboid(half_extents)))
    }
}

impl ConvexPart<Planar> {
    /// The convex polygon with the given vertices, listed counter-clockwise: one half-plane per
    /// edge, outward normal `(e_y, −e_x)/‖e‖` for the edge `e = v_{k+1} − v_k`.
    ///
    /// Fails if there are fewer than 3 vertices, a vertex is not finite, two consecutive vertices
    /// coincide, three consecutive vertices are collinear, the polygon turns right somewhere
    /// (not convex), or it winds more than once; vertices enclosing no area, or listed clockwise
    /// (whose half-planes intersect in nothing), are [`GeometryError::EmptyIntersection`].
    pub fn polygon(vertices: &[Vector2<f64>]) -> Result<Self, GeometryError> {
        const NAME: &str = "polygon";
        let n = vertices.len();
        if n < 3 {
            return Err(GeometryError::parameter(
                NAME,
                "vertices",
                format!("need at least 3 vertices, got {n}"),
            ));
        }
        for (k, v) in vertices.iter().enumerate() {
            if !(v.x.is_finite() && v.y.is_finite()) {
                return Err(GeometryError::parameter(
                    NAME,
                    format!("vertices[{k}]"),
                    format!("not finite: ({}, {})", v.x, v.y),
                ));
            }
        }
        let centroid = vertices.iter().sum::<Vector2<f64>>() / n as f64;
        let scale = vertices
            .iter()
            .map(|v| (v - centroid).norm())
            .fold(0.0, f64::max);
        let area2: f64 = (0..n)
            .map(|k| {
                let (a, b) = (vertices[k] - centroid, vertices[(k + 1) % n] - centroid);
                a.x * b.y - a.y * b.x
            })
            .sum();
        if area2.is_nan() || area2.abs() <= REL_TOL * scale * scale {
            return Err(GeometryError::empty(
                NAME,
                "the vertices enclose no area (all collinear or coincident)",
            ));
        }
        if area2 < 0.0 {
            return Err(GeometryError::empty(
                NAME,
                "the vertices are listed clockwise, so the edge half-planes intersect in nothing; \
                 list them counter-clockwise",
            ));
        }
        let edge = |k: usize| vertices[(k + 1) % n] - vertices[k];
        let mut turning = 0.0;
        for k in 0..n {
            let (e0, e1) = (edge(k), edge((k + 1) % n));
            let (l0, l1) = (e0.norm(), e1.norm());
            if l0.is_nan() || l0 <= REL_TOL * scale {
                return Err(GeometryError::parameter(
                    NAME,
                    format!("vertices[{}]", (k + 1) % n),
                    format!("coincides with vertices[{k}]"),
                ));
            }
            let sin = (e0.x * e1.y - e0.y * e1.x) / (l0 * l1);
            let v = (k + 1) % n;
            if sin.abs() <= REL_TOL {
                return Err(GeometryError::parameter(
                    NAME,
                    format!("vertices[{v}]"),
                    "is collinear with its neighbours (remove it)",
                ));
            }
            if sin < 0.0 {
                return Err(GeometryError::parameter(
                    NAME,
                    format!("vertices[{v}]"),
                    "the polygon turns clockwise here: it is not convex",
                ));
            }
            turning += sin.atan2(e0.dot(&e1) / (l0 * l1));
        }
        if (turning - std::f64::consts::TAU).abs() > 1e-6 {
            return Err(GeometryError::parameter(
                NAME,
                "vertices",
                format!(
                    "the polygon winds {:.3} times around its interior: it is self-intersecting",
                    turning / std::f64::consts::TAU
                ),
            ));
        }
        let mut fs = Vec::with_capacity(n);
        for (k, v) in vertices.iter().enumerate() {
            let e = edge(k);
            let normal = Vector2::new(e.y, -e.x);
            fs.push(Placed::at_origin(HalfSpace::new(normal, normal.dot(v))?));
        }
        // The vertex centroid is strictly inside a convex polygon with area, wherever it lies.
        let mut part = ConvexPart::new_with_interior(NAME, fs, centroid)?;
        part.set_bounds(centroid, scale);
        part.set_vertices(Vertices::new(vertices.to_vec()));
        Ok(part.with_recipe(PartRecipe::Polygon(vertices.to_vec())))
    }
}

impl ConvexPart<Spatial> {
    /// The convex polyhedron `{ξ : nₖ · ξ ≤ dₖ}` from its face planes `(nₖ, dₖ)` (outward
    /// normals, not necessarily unit).
    ///
    /// Fails if a plane is not valid, if the planes leave the region unbounded
    /// ([`GeometryError::Unbounded`], found from the extreme rays `±nᵢ × nⱼ` of the recession
    /// cone), or if they enclose nothing or no volume ([`GeometryError::EmptyIntersection`],
    /// found by enumerating the vertices: every feasible intersection of three planes).
    pub fn polyhedron(planes: &[(Vector3<f64>, f64)]) -> Result<Self, GeometryError> {
        const NAME: &str = "polyhedron";
        if planes.len() < 4 {
            return Err(GeometryError::parameter(
                NAME,
                "planes",
                format!(
                    "a bounded polyhedron needs at least 4 planes, got {}",
                    planes.len()
                ),
            ));
        }
        let mut hs = Vec::with_capacity(planes.len());
        for (k, (n, d)) in planes.iter().enumerate() {
            hs.push(
                HalfSpace::<Spatial>::new(*n, *d)
                    .map_err(|e| e.within(&format!("{NAME}/planes[{k}]")))?,
            );
        }
        let m = hs.len();
        // Boundedness: the recession cone {d : nₖ·d ≤ 0 ∀k} must be {0}.
        let mut spanning = false;
        for i in 0..m {
            for j in i + 1..m {
                let c = hs[i].normal().cross(&hs[j].normal());
                if c.norm() < 1e-9 {
                    continue;
                }
                spanning = spanning || hs.iter().any(|h| h.normal().dot(&c).abs() > 1e-9);
                for d in [c, -c] {
                    if hs.iter().all(|h| h.normal().dot(&d) <= 1e-12) {
                        return Err(GeometryError::Unbounded {
                            shape: NAME.into(),
                            reason: format!(
                                "the planes leave it open along the direction {:?}",
                                d.normalize().as_slice()
                            ),
                        });
                    }
                }
            }
        }
        if !spanning {
            return Err(GeometryError::Unbounded {
                shape: NAME.into(),
                reason: "the plane normals do not span 3D space".into(),
            });
        }
        // Vertices.
        let scale = 1.0 + hs.iter().map(|h| h.offset().abs()).fold(0.0, f64::max);
        let mut vertices: Vec<Vector3<f64>> = Vec::new();
        for i in 0..m {
            for j in i + 1..m {
                for k in j + 1..m {
                    let a = Matrix3::from_rows(&[
                        hs[i].normal().transpose(),
                        hs[j].normal().transpose(),
                        hs[k].normal().transpose(),
                    ]);
                    if a.determinant().abs() < 1e-9 {
                        continue;
                    }
                    let Some(inv) = a.try_inverse() else { continue };
                    let v = inv * Vector3::new(hs[i].offset(), hs[j].offset(), hs[k].offset());
                    if hs
                        .iter()
                        .all(|h| h.normal().dot(&v) - h.offset() <= REL_TOL * scale)
                    {
                        vertices.push(v);
                    }
                }
            }
        }
        if vertices.is_empty() {
            return Err(GeometryError::empty(
                NAME,
                "the planes have no common point",
            ));
        }
        // Where more than three planes meet, several triples give the same vertex: keep one.
        let mut unique: Vec<Vector3<f64>> = Vec::with_capacity(vertices.len());
        for v in vertices {
            if unique.iter().all(|u| (u - v).norm() > REL_TOL * scale) {
                unique.push(v);
            }
        }
        // A positive combination of all the vertices is strictly inside unless they lie on a
        // common face: the centroid certifies the volume wherever the polyhedron lies.
        let centroid = unique.iter().sum::<Vector3<f64>>() / unique.len() as f64;
        let radius = unique
            .iter()
            .map(|v| (v - centroid).norm())
            .fold(0.0, f64::max);
        let depth = hs
            .iter()
            .map(|h| h.normal().dot(&centroid) - h.offset())
            .fold(f64::NEG_INFINITY, f64::max);
        // Thin relative to its own size, or within the vertices' rounding (which grows with the
        // offsets): not relative to the offsets alone, or small parts far away would be refused.
        if depth.is_nan() || depth >= -(1e-7 * radius).max(10.0 * REL_TOL * scale) {
            return Err(GeometryError::empty(
                NAME,
                format!(
                    "the planes enclose no volume ({} vertices, all on a common face)",
                    unique.len()
                ),
            ));
        }
        let fs = hs.into_iter().map(Placed::at_origin).collect();
        let mut part = ConvexPart::new_with_interior(NAME, fs, centroid)?;
        part.set_bounds(centroid, radius);
        part.set_vertices(Vertices::new(unique));
        Ok(part.with_recipe(PartRecipe::Polyhedron(planes.to_vec())))
    }

    /// The finite cylinder of radius `r` about the body `z` axis, `|ξ_z| ≤ h`: an
    /// [`InfiniteCylinder`] intersected with the half-spaces `ξ_z ≤ h` and `−ξ_z ≤ h`.
    pub fn cylinder(radius: f64, half_height: f64) -> Result<Self, GeometryError> {
        positive("cylinder", "radius", radius)?;
        positive("cylinder", "half_height", half_height)?;
        let fs = vec![
            Placed::at_origin(InfiniteCylinder::new(radius)?),
            Placed::at_origin(HalfSpace::new(Vector3::z(), half_height)?),
            Placed::at_origin(HalfSpace::new(-Vector3::z(), half_height)?),
        ];
        let mut part = ConvexPart::new_with_interior("cylinder", fs, Vector3::zeros())?;
        part.set_bounds(
            Vector3::zeros(),
            (radius * radius + half_height * half_height).sqrt(),
        );
        Ok(part.with_recipe(PartRecipe::Cylinder(radius, half_height)))
    }
}
