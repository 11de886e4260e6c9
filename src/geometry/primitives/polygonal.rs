//! Polygonal approximations of smooth shapes and the vertex sets of polytopes, for geometrically
//! explicit (vertex–face) contact.
//!
//! * [`ConvexPart::regular_polygon`]: the regular `N`-gon inscribed in a circle of radius `r`,
//!   vertex `k` at the angle `−π/2 + 2πk/N` (vertex 0 points along the part's `−y`, so a disc
//!   at rest on `y = 0` with its centre at height `r` stands on a vertex). It is an ordinary
//!   [`ConvexPart`], the intersection of its `N` edge half-planes, usable by every layer that
//!   takes convex parts.
//! * [`ConvexPart::icosphere`]: the icosahedron subdivided `s` times, vertices on the sphere
//!   (`10·4ˢ + 2` vertices, `20·4ˢ` faces), the intersection of its face half-spaces.
//! * [`Vertices`]: the vertices of a polytope part in the body frame, with the query a
//!   vertex–face contact search needs: the vertices within a margin of a plane. For a regular
//!   polygon the query is `O(k)` for `k` vertices found (the lowest vertex from the angle of the
//!   plane normal, then a walk to both sides while within the margin), so `N = 10⁴` costs no
//!   more than `N = 10`; other vertex sets are scanned (`O(N)`).

use super::half_space::HalfSpace;
use crate::geometry::error::{GeometryError, positive};
use crate::geometry::implicit::Placed;
use crate::geometry::part::{ConvexPart, PartRecipe};
use crate::geometry::pose::Pose;
use crate::geometry::space::{Planar, Space, Spatial};
use std::f64::consts::{PI, TAU};

/// Largest vertex count of a regular polygon (bounds memory; `10⁴` is the paper's finest).
pub const MAX_POLYGON_VERTICES: usize = 1_000_000;
/// Largest icosphere subdivision level (level 6 has 40 962 vertices and 81 920 faces).
pub const MAX_ICOSPHERE_SUBDIVISIONS: usize = 6;

/// A regular polygon's vertex ring in the body frame: vertex `k` at
/// `centre + r (cos(φ₀ + 2πk/N), sin(φ₀ + 2πk/N))`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Ring {
    centre: [f64; 2],
    radius: f64,
    phase: f64,
    count: usize,
}

/// The vertices of a polytope part (body frame), and for a regular polygon its ring structure.
#[derive(Debug, Clone, PartialEq)]
pub struct Vertices<S: Space> {
    points: Vec<S::Vector>,
    ring: Option<Ring>,
}

impl<S: Space> Vertices<S> {
    /// A plain vertex list (searched by a scan).
    pub fn new(points: Vec<S::Vector>) -> Self {
        Self { points, ring: None }
    }

    /// The vertices, in the body frame.
    pub fn points(&self) -> &[S::Vector] {
        &self.points
    }

    /// Number of vertices.
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// True if there are none.
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// True if the vertices are a regular polygon's (searched in `O(found)`).
    pub fn is_regular(&self) -> bool {
        self.ring.is_some()
    }

    /// The same vertices moved by `pose` (applied after their current frame).
    pub fn placed(&self, pose: &Pose<S>) -> Self {
        let points = self
            .points
            .iter()
            .map(|p| pose.transform_point(p))
            .collect();
        let ring = self.ring.map(|r| {
            let c = pose.transform_point(&S::vector_from_fn(|i| r.centre[i]));
            let d = pose.transform_vector(&S::vector_from_fn(|i| {
                if i == 0 { r.phase.cos() } else { r.phase.sin() }
            }));
            Ring {
                centre: [c[0], c[1]],
                phase: d[1].atan2(d[0]),
                ..r
            }
        });
        Self { points, ring }
    }

    /// Appends to `out` the indices of the vertices `ξ` with `n · ξ − d ≤ margin` (body frame;
    /// `n` unit), in order along the boundary for a regular polygon, in index order otherwise.
    pub fn near_plane(&self, normal: &S::Vector, offset: f64, margin: f64, out: &mut Vec<usize>) {
        let gap = |k: usize| S::dot(normal, &self.points[k]) - offset;
        match self.ring {
            Some(r) if S::DIM == 2 => {
                let n = r.count;
                // The lowest vertex along n: the one whose angle is nearest to that of −n.
                let alpha = (-normal[1]).atan2(-normal[0]);
                let step = TAU / n as f64;
                let k0 = ((alpha - r.phase) / step).round().rem_euclid(n as f64) as usize % n;
                if gap(k0) > margin {
                    return;
                }
                let mut back = 0;
                while back + 1 < n && gap((k0 + n - back - 1) % n) <= margin {
                    back += 1;
                }
                let mut ahead = 0;
                while back + ahead + 1 < n && gap((k0 + ahead + 1) % n) <= margin {
                    ahead += 1;
                }
                for j in 0..=back + ahead {
                    out.push((k0 + n - back + j) % n);
                }
            }
            _ => out.extend((0..self.points.len()).filter(|&k| gap(k) <= margin)),
        }
    }
}

impl<S: Space> ConvexPart<S> {
    /// The part with its vertex set (the convex hull of `vertices` is the part).
    pub(crate) fn from_faces(
        name: &str,
        faces: Vec<(S::Vector, f64)>,
        vertices: Vertices<S>,
        centre: S::Vector,
        radius: f64,
    ) -> Result<Self, GeometryError> {
        let mut fs = Vec::with_capacity(faces.len());
        for (n, d) in faces {
            fs.push(Placed::at_origin(HalfSpace::new(n, d)?));
        }
        let mut part = ConvexPart::new_with_interior(name, fs, centre)?;
        part.set_bounds(centre, radius);
        part.set_vertices(vertices);
        Ok(part)
    }

    /// An inscribed polytope of the ball of radius `radius` about the origin with about
    /// `resolution` vertices: in 2D the regular polygon with `resolution` vertices
    /// ([`ConvexPart::regular_polygon`]), in 3D the icosphere of the smallest subdivision level
    /// with at least `resolution` vertices (12, 42, 162, 642, 2562, 10242, 40962).
    pub fn inscribed_ball(radius: f64, resolution: usize) -> Result<Self, GeometryError> {
        if S::DIM == 2 {
            regular_polygon_generic::<S>(radius, resolution)
        } else {
            let level = (0..=MAX_ICOSPHERE_SUBDIVISIONS)
                .find(|&s| 10 * 4usize.pow(s as u32) + 2 >= resolution)
                .ok_or_else(|| {
                    GeometryError::parameter(
                        "icosphere",
                        "vertices",
                        format!(
                            "at most {} vertices (subdivision level {MAX_ICOSPHERE_SUBDIVISIONS}), \
                             got {resolution}",
                            10 * 4usize.pow(MAX_ICOSPHERE_SUBDIVISIONS as u32) + 2
                        ),
                    )
                })?;
            icosphere_generic::<S>(radius, level)
        }
    }
}

impl ConvexPart<Planar> {
    /// The regular polygon with `n ≥ 3` vertices on the circle of radius `r` about the origin,
    /// vertex `k` at the angle `−π/2 + 2πk/n` (see this module's docs).
    pub fn regular_polygon(radius: f64, n: usize) -> Result<Self, GeometryError> {
        regular_polygon_generic::<Planar>(radius, n)
    }
}

impl ConvexPart<Spatial> {
    /// The icosphere of radius `r` (vertices on the sphere), the icosahedron subdivided
    /// `subdivisions ≤ 6` times.
    pub fn icosphere(radius: f64, subdivisions: usize) -> Result<Self, GeometryError> {
        icosphere_generic::<Spatial>(radius, subdivisions)
    }
}

fn regular_polygon_generic<S: Space>(
    radius: f64,
    n: usize,
) -> Result<ConvexPart<S>, GeometryError> {
    const NAME: &str = "regular_polygon";
    positive(NAME, "radius", radius)?;
    if S::DIM != 2 {
        return Err(GeometryError::parameter(
            NAME,
            "dimension",
            "a polygon is 2D",
        ));
    }
    if !(3..=MAX_POLYGON_VERTICES).contains(&n) {
        return Err(GeometryError::parameter(
            NAME,
            "vertices",
            format!("must be between 3 and {MAX_POLYGON_VERTICES}, got {n}"),
        ));
    }
    let phase = -PI / 2.0;
    let step = TAU / n as f64;
    let vec =
        |a: f64, r: f64| S::vector_from_fn(|i| if i == 0 { r * a.cos() } else { r * a.sin() });
    let points: Vec<S::Vector> = (0..n)
        .map(|k| vec(phase + step * k as f64, radius))
        .collect();
    // Edge k joins vertices k and k+1: its outward normal bisects them, at distance r cos(π/n).
    let faces = (0..n)
        .map(|k| {
            (
                vec(phase + step * (k as f64 + 0.5), 1.0),
                radius * (PI / n as f64).cos(),
            )
        })
        .collect();
    let vertices = Vertices {
        points,
        ring: Some(Ring {
            centre: [0.0, 0.0],
            radius,
            phase,
            count: n,
        }),
    };
    ConvexPart::from_faces(NAME, faces, vertices, S::zero_vector(), radius)
        .map(|p| p.with_recipe(PartRecipe::RegularPolygon(radius, n)))
}

fn icosphere_generic<S: Space>(
    radius: f64,
    subdivisions: usize,
) -> Result<ConvexPart<S>, GeometryError> {
    const NAME: &str = "icosphere";
    positive(NAME, "radius", radius)?;
    if S::DIM != 3 {
        return Err(GeometryError::parameter(
            NAME,
            "dimension",
            "an icosphere is 3D",
        ));
    }
    if subdivisions > MAX_ICOSPHERE_SUBDIVISIONS {
        return Err(GeometryError::parameter(
            NAME,
            "subdivisions",
            format!("must be at most {MAX_ICOSPHERE_SUBDIVISIONS}, got {subdivisions}"),
        ));
    }
    let (mut points, mut faces) = icosahedron();
    for _ in 0..subdivisions {
        // Split every triangle in four at its edge midpoints (shared through a map so that
        // neighbouring triangles reuse them), projected back onto the unit sphere.
        let mut midpoint = std::collections::HashMap::new();
        let mut next = Vec::with_capacity(faces.len() * 4);
        let mut mid = |a: usize, b: usize, points: &mut Vec<[f64; 3]>| -> usize {
            *midpoint.entry((a.min(b), a.max(b))).or_insert_with(|| {
                let (p, q) = (points[a], points[b]);
                let m = [p[0] + q[0], p[1] + q[1], p[2] + q[2]];
                let l = (m[0] * m[0] + m[1] * m[1] + m[2] * m[2]).sqrt();
                points.push([m[0] / l, m[1] / l, m[2] / l]);
                points.len() - 1
            })
        };
        for [a, b, c] in faces {
            let (ab, bc, ca) = (
                mid(a, b, &mut points),
                mid(b, c, &mut points),
                mid(c, a, &mut points),
            );
            next.extend([[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]);
        }
        faces = next;
    }
    let v = |p: [f64; 3]| S::vector_from_fn(|i| radius * p[i]);
    let planes = faces
        .iter()
        .map(|&[a, b, c]| {
            let (pa, pb, pc) = (points[a], points[b], points[c]);
            let e1 = [pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]];
            let e2 = [pc[0] - pa[0], pc[1] - pa[1], pc[2] - pa[2]];
            let n = [
                e1[1] * e2[2] - e1[2] * e2[1],
                e1[2] * e2[0] - e1[0] * e2[2],
                e1[0] * e2[1] - e1[1] * e2[0],
            ];
            // Orient outwards (the centroid of a face points away from the origin).
            let s = n[0] * (pa[0] + pb[0] + pc[0])
                + n[1] * (pa[1] + pb[1] + pc[1])
                + n[2] * (pa[2] + pb[2] + pc[2]);
            let n = if s < 0.0 { [-n[0], -n[1], -n[2]] } else { n };
            let l = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            let n = S::vector_from_fn(|i| n[i] / l);
            (n, S::dot(&n, &v(pa)))
        })
        .collect();
    let vertices = Vertices::new(points.into_iter().map(v).collect());
    ConvexPart::from_faces(NAME, planes, vertices, S::zero_vector(), radius)
        .map(|p| p.with_recipe(PartRecipe::Other))
}

/// The unit icosahedron: 12 vertices, 20 triangles.
fn icosahedron() -> (Vec<[f64; 3]>, Vec<[usize; 3]>) {
    let t = (1.0 + 5f64.sqrt()) / 2.0;
    let raw = [
        [-1.0, t, 0.0],
        [1.0, t, 0.0],
        [-1.0, -t, 0.0],
        [1.0, -t, 0.0],
        [0.0, -1.0, t],
        [0.0, 1.0, t],
        [0.0, -1.0, -t],
        [0.0, 1.0, -t],
        [t, 0.0, -1.0],
        [t, 0.0, 1.0],
        [-t, 0.0, -1.0],
        [-t, 0.0, 1.0],
    ];
    let l = (1.0 + t * t).sqrt();
    let points = raw.iter().map(|p| [p[0] / l, p[1] / l, p[2] / l]).collect();
    let faces = vec![
        [0, 11, 5],
        [0, 5, 1],
        [0, 1, 7],
        [0, 7, 10],
        [0, 10, 11],
        [1, 5, 9],
        [5, 11, 4],
        [11, 10, 2],
        [10, 7, 6],
        [7, 1, 8],
        [3, 9, 4],
        [3, 4, 2],
        [3, 2, 6],
        [3, 6, 8],
        [3, 8, 9],
        [4, 9, 5],
        [2, 4, 11],
        [6, 2, 10],
        [8, 6, 7],
        [9, 8, 1],
    ];
    (points, faces)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Vector2, Vector3};

    /// The ring search finds exactly the vertices a scan finds, for many plane directions,
    /// also after the part is placed with a rotation (the phase moves with it).
    #[test]
    fn ring_search_matches_a_scan() {
        for n in [3usize, 4, 10, 101, 1000, 10000] {
            let part = ConvexPart::regular_polygon(1.0, n)
                .unwrap()
                .placed(&Pose::planar(0.3, -0.2, 0.7, "p").unwrap());
            let v = part.vertices().unwrap();
            assert!(v.is_regular());
            let plain = Vertices::<Planar>::new(v.points().to_vec());
            for j in 0..37 {
                let a = 0.17 * j as f64;
                let normal = Vector2::new(a.cos(), a.sin());
                for margin in [0.0, 1e-4, 1e-2, 0.5, 3.0] {
                    // A plane cutting 10⁻³ into the polygon below its lowest vertex.
                    let offset = normal.dot(&Vector2::new(0.3, -0.2)) - 0.999;
                    let (mut fast, mut scan) = (Vec::new(), Vec::new());
                    v.near_plane(&normal, offset, margin, &mut fast);
                    plain.near_plane(&normal, offset, margin, &mut scan);
                    let mut sorted = fast.clone();
                    sorted.sort_unstable();
                    assert_eq!(sorted, scan, "n = {n}, direction {a}, margin {margin}");
                }
            }
        }
    }

    /// Vertex 0 of the polygon points down; every vertex lies on the circle; the part contains
    /// its vertices (on its faces) and not points just outside them.
    #[test]
    fn regular_polygon_is_inscribed() {
        let part = ConvexPart::regular_polygon(2.0, 12).unwrap();
        let v = part.vertices().unwrap();
        assert!((v.points()[0] - Vector2::new(0.0, -2.0)).norm() < 1e-15);
        for p in v.points() {
            assert!((p.norm() - 2.0).abs() < 1e-14);
            // On the boundary: max fᵢ = 0 up to rounding of the edge offsets.
            assert!(part.value(p).abs() < 1e-14, "{}", part.value(p));
            assert!(part.value(&(p * (1.0 + 1e-9))) > 0.0);
        }
        assert!(ConvexPart::regular_polygon(1.0, 2).is_err());
        assert!(ConvexPart::regular_polygon(-1.0, 5).is_err());
    }

    /// Level-s icosphere counts, vertices on the sphere and inside every face.
    #[test]
    fn icosphere_counts_and_faces() {
        for s in 0..=3usize {
            let part = ConvexPart::icosphere(1.5, s).unwrap();
            let v = part.vertices().unwrap();
            assert_eq!(v.len(), 10 * 4usize.pow(s as u32) + 2);
            assert_eq!(part.len(), 20 * 4usize.pow(s as u32));
            for p in v.points() {
                assert!((p.norm() - 1.5).abs() < 1e-14);
                assert!(part.value(p) < 1e-12);
            }
        }
        let found = ConvexPart::<Spatial>::inscribed_ball(1.0, 100).unwrap();
        assert_eq!(found.vertices().unwrap().len(), 162);
        let mut low = Vec::new();
        // The ground z ≤ −0.9 reaches the lowest vertices only.
        found
            .vertices()
            .unwrap()
            .near_plane(&Vector3::new(0.0, 0.0, 1.0), -0.9, 0.0, &mut low);
        assert!(!low.is_empty() && low.len() < 20, "{}", low.len());
    }
}
