//! The Stewart–Trinkle LCP time-stepper (Stewart & Trinkle 1996; the lecture notes in the
//! project's reference documents): the geometrically **explicit** baseline of the paper's
//! Figure 1.
//!
//! # One step
//!
//! 1. **Collision detection at the start of the step.** Every pair of convex parts of two
//!    bodies (at least one moving) is looked at in its polytope form: a part with vertices
//!    (polygon, box, polyhedron) is used as it is; a disc or ball is replaced by its inscribed
//!    regular `N`-gon or icosphere ([`LcpSettings::vertices`], [`ConvexPart::inscribed_ball`]);
//!    other parts offer only their faces. Every vertex of one side whose gap to the other side
//!    is at most [`LcpSettings::margin`] becomes a contact: the vertex is `a₂` on body 2 (the
//!    paper's `G`), the face side is body 1 (`F`), `n` is the face's outward unit normal (from
//!    `F` towards `G`), `ψ` the signed gap and `a₁ = a₂ − ψ n`. Against a half-plane or
//!    half-space the gap is exact and, for a regular polygon, the vertices within the margin
//!    are found in `O(found)` ([`crate::geometry::Vertices::near_plane`]); against curved or
//!    polytope faces the gap is the first-order distance `max_k f_k/‖∇f_k‖` at the vertex
//!    (exact for planes). Edge–edge contacts of 3D polyhedra are not generated.
//! 2. **The LCP** (impulses `p = hλ`, all contact data frozen at `ℓ`):
//!
//!    ```text
//!    M ν^{ℓ+1} = M ν^ℓ + h λ_app + h λ_vp + W_n p_n + W_f β
//!    0 ≤ p_n ⊥ ψ/h + W_nᵀ ν^{ℓ+1}       ≥ 0     (linearised gap at the end of the step)
//!    0 ≤ β   ⊥ W_fᵀ ν^{ℓ+1} + E σ       ≥ 0     (σ: the largest sliding speed, max dissipation)
//!    0 ≤ σ   ⊥ μ p_n − Eᵀ β             ≥ 0     (polyhedral friction cone)
//!    ```
//!
//!    `W_f` has `k` friction directions per contact `d_j = e_t cos φ_j t + e_o sin φ_j o`,
//!    `φ_j = 2πj/k` (2D: `±e_t t`, `k = 2`), so `Σβ_j ≤ μ p_n` is the polygon inscribed in
//!    the paper's friction ellipse (eq. 5; torsion is not modelled). σ is the λ of
//!    Stewart–Trinkle's paper. `ν^{ℓ+1}` is eliminated with the block-diagonal `M`,
//!    `ν = ν_free + M⁻¹ W p`, leaving the standard LCP in `(p_n, β, σ)` with matrix
//!    `[[W_nᵀM⁻¹W_n, W_nᵀM⁻¹W_f, 0], [W_fᵀM⁻¹W_n, W_fᵀM⁻¹W_f, E], [μ, −Eᵀ, 0]]`, which
//!    Lemke's method solves (it is copositive-plus; Stewart & Trinkle 1996).
//! 3. **Positions**: `q^{ℓ+1} = q^ℓ + h G ν^{ℓ+1}`, realised as in the implicit stepper by
//!    `(c + h v, exp(h ω) R)` ([`crate::model::end_of_step_pose`]; in 2D exactly
//!    `θ + h ω`).
//!
//! # Reports and failures
//!
//! Every step returns a [`StepReport`] (Lemke's status, pivots and the natural residual
//! `max_i |min(z_i, w_i)|` of the LCP, which is its complementarity error). A step whose LCP is
//! not solved to [`LcpSettings::lemke`]'s tolerance is retried as two half steps up to
//! [`LcpSettings::max_halvings`] deep; if that fails too the scene is left at the last solved
//! state and the report says `converged: false` (the run loop then stops the run with
//! `complete: false` and the reason), exactly as for the implicit stepper.

use super::{ContactState, StepReport};
use crate::geometry::{ConvexPart, GeometryError, ImplicitFn, Space, Vertices, world_eval};
use crate::mcp::SolveReport;
use crate::mcp::lemke::{Lemke, LemkeSettings};
use crate::model::{Dynamics, Friction, Scene, VelocityLayout};
use nalgebra::DMatrix;
use std::sync::Arc;
use std::time::Instant;

/// Settings of the LCP stepper.
#[derive(Debug, Clone, PartialEq)]
pub struct LcpSettings {
    /// Vertices of the polygon (2D) that replaces a disc, or the least vertex count of the
    /// icosphere (3D) that replaces a ball (default 100).
    pub vertices: usize,
    /// Friction directions per contact: `None` for the dimension's default (2 in 2D, where it
    /// must be 2; 8 in 3D, where it must be at least 3).
    pub friction_directions: Option<usize>,
    /// Vertices whose gap is at most this (length units) at the start of a step are contacts
    /// (default `10⁻³`). Larger margins catch faster approaches and cost larger LCPs.
    pub margin: f64,
    /// Lemke's settings (natural-residual tolerance `10⁻¹⁰` by default).
    pub lemke: LemkeSettings,
    /// How many times a failing step may be halved (default 4, as the implicit stepper).
    pub max_halvings: usize,
}

impl Default for LcpSettings {
    fn default() -> Self {
        Self {
            vertices: 100,
            friction_directions: None,
            margin: 1e-3,
            lemke: LemkeSettings::default(),
            max_halvings: 4,
        }
    }
}

impl LcpSettings {
    /// The friction directions per contact in dimension `dim`.
    pub fn directions_for(&self, dim: usize) -> usize {
        self.friction_directions
            .unwrap_or(if dim == 2 { 2 } else { 8 })
    }

    /// Checks the settings for a scene of dimension `dim`; the error names the field.
    pub fn validate(&self, dim: usize) -> Result<(), LcpError> {
        let bad = |field: &str, reason: String| LcpError::Settings {
            field: field.to_string(),
            reason,
        };
        let min_vertices = if dim == 2 { 3 } else { 1 };
        if self.vertices < min_vertices {
            return Err(bad(
                "vertices",
                format!("must be at least {min_vertices}, got {}", self.vertices),
            ));
        }
        let k = self.directions_for(dim);
        if dim == 2 && k != 2 {
            return Err(bad(
                "friction_directions",
                format!("in 2D the friction cone has exactly 2 directions (±t), got {k}"),
            ));
        }
        if dim == 3 && k < 3 {
            return Err(bad(
                "friction_directions",
                format!("in 3D the friction cone needs at least 3 directions, got {k}"),
            ));
        }
        if !(self.margin.is_finite() && self.margin >= 0.0) {
            return Err(bad(
                "margin",
                format!("must be finite and ≥ 0, got {}", self.margin),
            ));
        }
        if !(self.lemke.tolerance.is_finite() && self.lemke.tolerance > 0.0) {
            return Err(bad(
                "lemke.tolerance",
                format!("must be finite and > 0, got {}", self.lemke.tolerance),
            ));
        }
        Ok(())
    }
}

/// Why a scene cannot be stepped by the LCP stepper.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LcpError {
    /// A setting is out of range.
    #[error("LCP setting `{field}`: {reason}")]
    Settings {
        /// The field of [`LcpSettings`].
        field: String,
        /// Why.
        reason: String,
    },
    /// Neither part of a candidate contact has vertices (and neither is a disc or ball).
    #[error(
        "contact between `{body1}` part {part1} and `{body2}` part {part2}: neither side is a \
         polytope; under the LCP stepper a part must be a polygon, box, polyhedron, circle or \
         sphere to meet another curved part"
    )]
    NoVertices {
        /// First body.
        body1: String,
        /// Its part (index in the body).
        part1: usize,
        /// Second body.
        body2: String,
        /// Its part.
        part2: usize,
    },
    /// A body has a compliant layer, which the LCP stepper's rigid contacts would ignore.
    #[error(
        "body `{body}` has a compliant layer, but the LCP stepper's contacts are rigid: \
         quasi-rigid contacts need stepper = \"implicit\" (or remove the layer)"
    )]
    CompliantLayer {
        /// The body.
        body: String,
    },
    /// The scene has joints, which the LCP stepper does not model.
    #[error(
        "joint `{name}`: the LCP stepper has no joints: bilateral joints need \
         stepper = \"implicit\" (or remove the [[joint]] entries)"
    )]
    Joint {
        /// The first joint's index in the scene.
        index: usize,
        /// Its name.
        name: String,
    },
    /// The scene has support friction (the 2.5D model), which the LCP stepper does not model.
    #[error(
        "support friction of body `{body}`: the LCP stepper has no support friction (the 2.5D \
         model needs stepper = \"implicit\", or remove the [[support]] entries)"
    )]
    Support {
        /// The first support's index in the scene.
        index: usize,
        /// Its body's name.
        body: String,
    },
    /// A body is driven, which the LCP stepper would hold still.
    #[error(
        "body `{body}` is driven, but the LCP stepper holds bodies without unknowns still: \
         driven bodies need stepper = \"implicit\""
    )]
    Driven {
        /// The body.
        body: String,
    },
    /// The polygonal approximation of a part could not be built.
    #[error("body `{body}` part {part}: polygonal approximation failed: {source}")]
    Polytope {
        /// The body.
        body: String,
        /// The part (index in the body).
        part: usize,
        /// The geometry error.
        source: GeometryError,
    },
}

/// A body's part as the LCP stepper sees it: its faces (the part, or its polygonal
/// approximation) and its vertices if it has any.
#[derive(Debug)]
struct ExplicitPart<S: Space> {
    faces: ConvexPart<S>,
    vertices: Option<Arc<Vertices<S>>>,
    /// `(n, d)` (body frame) when the part is one half-space.
    plane: Option<(S::Vector, f64)>,
}

/// Vertices of `(vertex_body, vertex_part)` against the faces of `(face_body, face_part)`.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    vertex_body: usize,
    vertex_part: usize,
    face_body: usize,
    face_part: usize,
    friction: Friction,
}

/// One contact found at the start of a step.
#[derive(Debug, Clone)]
struct Contact<S: Space> {
    candidate: usize,
    vertex: usize,
    /// Face-side point `a₁ = a₂ − ψ n` and vertex `a₂` (world).
    a1: S::Vector,
    a2: S::Vector,
    normal: S::Vector,
    gap: f64,
}

/// The Stewart–Trinkle LCP stepper: a scene, its contact candidates and the LCP workspace.
pub struct LcpStepper<S: Dynamics> {
    /// The scene, advanced in place.
    pub scene: Scene<S>,
    /// Simulated time.
    pub time: f64,
    steps: u64,
    settings: LcpSettings,
    directions: usize,
    /// `(cos φ_j, sin φ_j)` of the friction directions.
    cone: Vec<(f64, f64)>,
    layout: VelocityLayout,
    parts: Vec<Vec<ExplicitPart<S>>>,
    candidates: Vec<Candidate>,
    lemke: Lemke,
    // Workspace (reused between steps).
    contacts: Vec<Contact<S>>,
    found: Vec<usize>,
    inverse_mass: Vec<DMatrix<f64>>,
    free_velocity: Vec<f64>,
    w: DMatrix<f64>,
    y: DMatrix<f64>,
    lcp: DMatrix<f64>,
    q: Vec<f64>,
    z: Vec<f64>,
    nu: Vec<f64>,
    /// The states of the last step's contacts (for output).
    states: Vec<ContactState>,
    last_lcp_size: usize,
    penetration: f64,
}

impl<S: Dynamics> std::fmt::Debug for LcpStepper<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LcpStepper")
            .field("scene", &self.scene.name)
            .field("time", &self.time)
            .field("candidates", &self.candidates.len())
            .finish()
    }
}

impl<S: Dynamics> LcpStepper<S> {
    /// Prepares the scene for the LCP stepper: discs and balls become polytopes of
    /// [`LcpSettings::vertices`] vertices, and every pair of parts gets its vertex–face
    /// candidates (errors name the bodies and parts that cannot meet). A body with a compliant
    /// layer is refused: this stepper's contacts are rigid, so the layer would be ignored.
    pub fn new(scene: Scene<S>, settings: LcpSettings) -> Result<Self, LcpError> {
        settings.validate(S::DIM)?;
        if let Some(body) = scene.bodies.iter().find(|b| b.layer.is_some()) {
            return Err(LcpError::CompliantLayer {
                body: body.name.clone(),
            });
        }
        if let Some(body) = scene.bodies.iter().find(|b| b.driven) {
            return Err(LcpError::Driven {
                body: body.name.clone(),
            });
        }
        if let Some(joint) = scene.joints.first() {
            return Err(LcpError::Joint {
                index: 0,
                name: joint.name.clone(),
            });
        }
        if let Some(support) = scene.supports.first() {
            return Err(LcpError::Support {
                index: 0,
                body: scene.bodies[support.body].name.clone(),
            });
        }
        let mut parts = Vec::with_capacity(scene.bodies.len());
        for body in &scene.bodies {
            let mut list = Vec::new();
            for (k, part) in body.shape.parts().iter().enumerate() {
                list.push(Self::explicit_part(part, &settings).map_err(|source| {
                    LcpError::Polytope {
                        body: body.name.clone(),
                        part: k,
                        source,
                    }
                })?);
            }
            parts.push(list);
        }
        let mut candidates = Vec::new();
        let bodies = &scene.bodies;
        for i in 0..bodies.len() {
            for j in i + 1..bodies.len() {
                if bodies[i].fixed && bodies[j].fixed {
                    continue;
                }
                let friction = scene.friction_between(i, j);
                for (a, pa) in parts[i].iter().enumerate() {
                    for (b, pb) in parts[j].iter().enumerate() {
                        let mut add = |vb, vp, fb, fp| {
                            candidates.push(Candidate {
                                vertex_body: vb,
                                vertex_part: vp,
                                face_body: fb,
                                face_part: fp,
                                friction,
                            })
                        };
                        match (pa.vertices.is_some(), pb.vertices.is_some()) {
                            (false, false) => {
                                return Err(LcpError::NoVertices {
                                    body1: bodies[i].name.clone(),
                                    part1: a,
                                    body2: bodies[j].name.clone(),
                                    part2: b,
                                });
                            }
                            (va, vb) => {
                                if va {
                                    add(i, a, j, b);
                                }
                                if vb {
                                    add(j, b, i, a);
                                }
                            }
                        }
                    }
                }
            }
        }
        let layout = scene.velocity_layout();
        let directions = settings.directions_for(S::DIM);
        Ok(Self {
            time: 0.0,
            steps: 0,
            lemke: Lemke::new(settings.lemke.clone()),
            settings,
            directions,
            cone: friction_directions::<S>(directions),
            free_velocity: vec![0.0; layout.len()],
            nu: vec![0.0; layout.len()],
            layout,
            parts,
            candidates,
            contacts: Vec::new(),
            found: Vec::new(),
            inverse_mass: Vec::new(),
            w: DMatrix::zeros(0, 0),
            y: DMatrix::zeros(0, 0),
            lcp: DMatrix::zeros(0, 0),
            q: Vec::new(),
            z: Vec::new(),
            states: Vec::new(),
            last_lcp_size: 0,
            penetration: 0.0,
            scene,
        })
    }

    fn explicit_part(
        part: &ConvexPart<S>,
        settings: &LcpSettings,
    ) -> Result<ExplicitPart<S>, GeometryError> {
        let plane = (part.len() == 1)
            .then(|| part.functions()[0].half_space())
            .flatten();
        if let Some(v) = part.vertices() {
            return Ok(ExplicitPart {
                faces: part.clone(),
                vertices: Some(Arc::new(v.clone())),
                plane,
            });
        }
        if part.len() == 1
            && let Some(poly) = part.functions()[0].polytope(settings.vertices)
        {
            let poly = poly?;
            let vertices = poly.vertices().map(|v| Arc::new(v.clone()));
            return Ok(ExplicitPart {
                faces: poly,
                vertices,
                plane: None,
            });
        }
        Ok(ExplicitPart {
            faces: part.clone(),
            vertices: None,
            plane,
        })
    }

    /// The settings.
    pub fn settings(&self) -> &LcpSettings {
        &self.settings
    }

    /// Number of vertex–face candidate pairs of parts.
    pub fn candidate_count(&self) -> usize {
        self.candidates.len()
    }

    /// Size of the last step's LCP (`(2 + k)` per contact for `k` friction directions).
    pub fn last_lcp_size(&self) -> usize {
        self.last_lcp_size
    }

    /// The vertices a body's part is represented by (its polygonal approximation for a disc
    /// or ball), in the body frame; `None` for a part with faces only.
    pub fn part_vertices(&self, body: usize, part: usize) -> Option<&Vertices<S>> {
        self.parts[body][part].vertices.as_deref()
    }

    /// The contacts of the last step: one per vertex within the margin at its start, with
    /// the impulses the step applied. `gap` is the linearised end-of-step gap
    /// `ψ + h W_nᵀ ν^{ℓ+1}` (≥ 0 up to the LCP tolerance), `penetration` the true depth of
    /// the vertex at the end of the step (the geometrically explicit scheme may penetrate),
    /// `sigma` the LCP's σ (the sliding speed in the polyhedral cone's sense).
    pub fn contacts(&self) -> Vec<ContactState> {
        self.states.clone()
    }

    /// The deepest penetration of any vertex into a face after the last step (vertices that
    /// were not contacts at its start included: the explicit scheme only learns of them at
    /// the next step).
    pub fn penetration(&self) -> f64 {
        self.penetration
    }

    /// Advances the scene by one time step `h = scene.time_step`, halving on failure.
    pub fn step(&mut self) -> StepReport {
        let start = Instant::now();
        let h = self.scene.time_step;
        let mut report = StepReport::new(crate::mcp::SolverKind::Lemke);
        report.converged = super::halving::advance(self, h, 0, &mut report);
        report.contacts = self.states.len();
        if report.converged {
            self.steps += 1;
            self.time = self.steps as f64 * h;
        }
        report.wall_time = start.elapsed();
        report
    }

    /// One attempt at a (sub-)step of `h` (the policy is [`super::halving`]).
    fn attempt_step(&mut self, h: f64, report: &mut StepReport) -> (bool, f64) {
        let solve = self.solve_step(h);
        let residual = solve.residual;
        let converged = solve.converged();
        // Its work, not its Newton iterations: a pivoting LCP solve takes none.
        report.work.accumulate(&solve);
        report.solve = solve;
        if converged {
            self.scene.advance_by(&self.nu, h);
            self.time += h;
            self.record_states(h);
            // Every vertex now inside a face (margin 0), contact or not.
            let contacts = std::mem::take(&mut self.contacts);
            self.detect_within(0.0);
            self.penetration = self.contacts.iter().fold(0.0f64, |m, c| m.max(-c.gap));
            self.contacts = contacts;
        }
        (converged, residual)
    }

    /// Finds the contacts at the current poses into `self.contacts`.
    fn detect(&mut self) {
        self.detect_within(self.settings.margin);
    }

    /// Finds the vertices within `margin` of a face at the current poses.
    fn detect_within(&mut self, margin: f64) {
        self.contacts.clear();
        let bodies = &self.scene.bodies;
        for (ci, c) in self.candidates.iter().enumerate() {
            let (vb, fb) = (&bodies[c.vertex_body], &bodies[c.face_body]);
            let vpart = &self.parts[c.vertex_body][c.vertex_part];
            let fpart = &self.parts[c.face_body][c.face_part];
            let Some(vertices) = vpart.vertices.as_deref() else {
                continue;
            };
            // Bounding balls clearly apart: no vertex can be within the margin.
            if let (Some(ca), Some(ra), Some(cb), Some(rb)) = (
                vpart.faces.interior_point(),
                vpart.faces.bounding_radius(),
                fpart.faces.interior_point(),
                fpart.faces.bounding_radius(),
            ) {
                let d = S::norm(&(vb.pose.transform_point(&ca) - fb.pose.transform_point(&cb)));
                if d > ra + rb + margin {
                    continue;
                }
            }
            if let Some((n_b, d_b)) = fpart.plane {
                // World plane n·p = d, then in the vertex body's frame.
                let n = fb.pose.transform_vector(&n_b);
                let d = d_b + S::dot(&n, &fb.pose.position);
                let n_v = S::inverse_rotate(&vb.pose.rotation, &n);
                let d_v = d - S::dot(&n, &vb.pose.position);
                self.found.clear();
                vertices.near_plane(&n_v, d_v, margin, &mut self.found);
                for &k in &self.found {
                    let a2 = vb.pose.transform_point(&vertices.points()[k]);
                    let gap = S::dot(&n, &a2) - d;
                    self.contacts.push(Contact {
                        candidate: ci,
                        vertex: k,
                        a1: a2 - n * gap,
                        a2,
                        normal: n,
                        gap,
                    });
                }
            } else {
                for (k, xi) in vertices.points().iter().enumerate() {
                    let a2 = vb.pose.transform_point(xi);
                    let (gap, n) = face_gap(&fpart.faces, &fb.pose, &a2);
                    if gap <= margin {
                        self.contacts.push(Contact {
                            candidate: ci,
                            vertex: k,
                            a1: a2 - n * gap,
                            a2,
                            normal: n,
                            gap,
                        });
                    }
                }
            }
        }
    }

    /// Builds and solves the LCP of a step of length `h` from the current state; on success
    /// `self.nu` holds `ν^{ℓ+1}` and `self.z` the impulses `(p_n, β, σ)`.
    fn solve_step(&mut self, h: f64) -> SolveReport {
        self.detect();
        let t = self.time;
        let gravity = self.scene.gravity;
        let nv = self.layout.len();
        let nc = self.contacts.len();
        let k = self.directions;
        let m = nc * (1 + k);
        let size = m + nc;
        self.last_lcp_size = size;
        // Inverse mass blocks and the free velocity ν_free = M⁻¹ (M ν + h λ_app + h λ_vp).
        self.inverse_mass.clear();
        let mut momentum = [0.0; 6];
        for (b, body) in self.scene.bodies.iter().enumerate() {
            if let Some(r) = self.layout.range(b) {
                let inv = body
                    .mass_matrix()
                    .try_inverse()
                    .unwrap_or_else(|| DMatrix::from_element(S::DOF, S::DOF, f64::NAN));
                body.free_momentum(&gravity, t, h).write_to(&mut momentum);
                for (i, row) in r.clone().enumerate() {
                    self.free_velocity[row] = (0..S::DOF).map(|j| inv[(i, j)] * momentum[j]).sum();
                }
                self.inverse_mass.push(inv);
            }
        }
        // W: one column per normal, then k per contact for friction.
        resize(&mut self.w, nv, m);
        self.w.fill(0.0);
        let dirs = &self.cone;
        for (i, c) in self.contacts.iter().enumerate() {
            let cand = &self.candidates[c.candidate];
            let (t1, t2) = tangent_basis::<S>(&c.normal);
            let mut put = |col: usize, u: &S::Vector| {
                for (body, point, sign) in [
                    (cand.vertex_body, &c.a2, 1.0),
                    (cand.face_body, &c.a1, -1.0),
                ] {
                    if let Some(r) = self.layout.range(body) {
                        let rr = *point - self.scene.bodies[body].pose.position;
                        let torque = S::cross(&rr, u);
                        for d in 0..S::DIM {
                            self.w[(r.start + d, col)] += sign * u[d];
                        }
                        for a in 0..S::ANGULAR_DIM {
                            self.w[(r.start + S::DIM + a, col)] += sign * torque[a];
                        }
                    }
                }
            };
            put(i, &c.normal);
            for (j, (ct, co)) in dirs.iter().enumerate() {
                let d = t1 * (cand.friction.e_t * ct) + t2 * (cand.friction.e_o * co);
                put(nc + i * k + j, &d);
            }
        }
        // Y = M⁻¹ W (block diagonal), A = Wᵀ Y.
        resize(&mut self.y, nv, m);
        self.y.fill(0.0);
        let mut kb = 0;
        for b in 0..self.scene.bodies.len() {
            if let Some(r) = self.layout.range(b) {
                let inv = &self.inverse_mass[kb];
                for col in 0..m {
                    for (i, row) in r.clone().enumerate() {
                        let mut s = 0.0;
                        for (j, rj) in r.clone().enumerate() {
                            s += inv[(i, j)] * self.w[(rj, col)];
                        }
                        self.y[(row, col)] = s;
                    }
                }
                kb += 1;
            }
        }
        resize(&mut self.lcp, size, size);
        self.lcp.fill(0.0);
        {
            let mut a = self.lcp.view_mut((0, 0), (m, m));
            a.gemm_tr(1.0, &self.w, &self.y, 0.0);
        }
        self.q.clear();
        self.q.resize(size, 0.0);
        for col in 0..m {
            self.q[col] = (0..nv)
                .map(|r| self.w[(r, col)] * self.free_velocity[r])
                .sum();
        }
        for (i, c) in self.contacts.iter().enumerate() {
            self.q[i] += c.gap / h;
            let mu = self.candidates[c.candidate].friction.mu;
            for j in 0..k {
                self.lcp[(nc + i * k + j, m + i)] = 1.0;
                self.lcp[(m + i, nc + i * k + j)] = -1.0;
            }
            self.lcp[(m + i, i)] = mu;
        }
        self.z.clear();
        self.z.resize(size, 0.0);
        let report = if size == 0 {
            let mut r = SolveReport::new(crate::mcp::SolverKind::Lemke);
            r.status = crate::mcp::Status::Converged;
            r.residual = 0.0;
            r
        } else {
            self.lemke.solve_lcp(&self.lcp, &self.q, &mut self.z)
        };
        // ν = ν_free + Y p.
        for r in 0..nv {
            self.nu[r] = self.free_velocity[r]
                + (0..m)
                    .map(|col| self.y[(r, col)] * self.z[col])
                    .sum::<f64>();
        }
        report
    }

    /// The contact states of the step just taken (the scene is already advanced by `h`).
    fn record_states(&mut self, h: f64) {
        self.states.clear();
        let nc = self.contacts.len();
        let k = self.directions;
        let m = nc * (1 + k);
        let dirs = &self.cone;
        for (i, c) in self.contacts.iter().enumerate() {
            let cand = &self.candidates[c.candidate];
            let rate: f64 = (0..self.layout.len())
                .map(|r| self.w[(r, i)] * self.nu[r])
                .sum();
            let (t1, t2) = tangent_basis::<S>(&c.normal);
            let mut friction = S::zero_vector();
            for (j, (ct, co)) in dirs.iter().enumerate() {
                let d = t1 * (cand.friction.e_t * ct) + t2 * (cand.friction.e_o * co);
                friction += d * self.z[nc + i * k + j];
            }
            // The true end-of-step gap of the vertex.
            let vb = &self.scene.bodies[cand.vertex_body];
            let fb = &self.scene.bodies[cand.face_body];
            let vertices = self.parts[cand.vertex_body][cand.vertex_part]
                .vertices
                .as_deref()
                .expect("a candidate's vertex side has vertices");
            let p = vb.pose.transform_point(&vertices.points()[c.vertex]);
            let fpart = &self.parts[cand.face_body][cand.face_part];
            let end_gap = match fpart.plane {
                Some((n_b, d_b)) => {
                    let n = fb.pose.transform_vector(&n_b);
                    S::dot(&n, &p) - d_b - S::dot(&n, &fb.pose.position)
                }
                None => face_gap(&fpart.faces, &fb.pose, &p).0,
            };
            self.states.push(ContactState {
                // Contacts are found anew each step: numbered in the order found.
                id: self.states.len(),
                quasi_rigid: None,
                body1: cand.face_body,
                body2: cand.vertex_body,
                parts: [cand.face_part, cand.vertex_part],
                a1: (0..S::DIM).map(|d| c.a1[d]).collect(),
                a2: (0..S::DIM).map(|d| c.a2[d]).collect(),
                gap: c.gap + h * rate,
                normal_impulse: self.z[i],
                friction_impulse: S::norm(&friction),
                normal: (0..S::DIM).map(|d| c.normal[d]).collect(),
                friction: (0..S::DIM).map(|d| friction[d]).collect(),
                torsion_impulse: 0.0,
                sigma: self.z[m + i],
                penetration: (-end_gap).max(0.0),
            });
        }
    }
}

/// Resizes a workspace matrix (reallocating only when the shape changes).
fn resize(m: &mut DMatrix<f64>, rows: usize, cols: usize) {
    if m.nrows() != rows || m.ncols() != cols {
        let mut data: Vec<f64> = std::mem::replace(m, DMatrix::zeros(0, 0)).data.into();
        data.clear();
        data.resize(rows * cols, 0.0);
        *m = DMatrix::from_vec(rows, cols, data);
    }
}

/// `(cos φ_j, sin φ_j)` of the friction directions: 2D `±t`; 3D `φ_j = 2πj/k`.
fn friction_directions<S: Space>(k: usize) -> Vec<(f64, f64)> {
    if S::DIM == 2 {
        vec![(1.0, 0.0), (-1.0, 0.0)]
    } else {
        (0..k)
            .map(|j| {
                let phi = std::f64::consts::TAU * j as f64 / k as f64;
                (phi.cos(), phi.sin())
            })
            .collect()
    }
}

/// A right-handed tangent basis `(t, o)` of the unit normal `n`: 2D `t = (−n_y, n_x)`
/// (`o` unused, zero); 3D `t` along `n × e` for the axis `e` least aligned with `n`.
fn tangent_basis<S: Space>(n: &S::Vector) -> (S::Vector, S::Vector) {
    if S::DIM == 2 {
        return (
            S::vector_from_fn(|i| if i == 0 { -n[1] } else { n[0] }),
            S::zero_vector(),
        );
    }
    let e = crate::contact::tangent_reference_for::<S>(n);
    let cross = |a: &S::Vector, b: &S::Vector| {
        S::vector_from_fn(|i| {
            let (j, k) = ((i + 1) % 3, (i + 2) % 3);
            a[j] * b[k] - a[k] * b[j]
        })
    };
    let t = cross(n, &e);
    let t = t * (1.0 / S::norm(&t));
    let o = cross(n, &t);
    (t, o)
}

/// The first-order signed distance `max_k f_k/‖∇f_k‖` of a world point to a part at `pose`,
/// and the unit normal of the function attaining it (exact for planes).
fn face_gap<S: Space>(
    part: &ConvexPart<S>,
    pose: &crate::geometry::Pose<S>,
    p: &S::Vector,
) -> (f64, S::Vector) {
    let mut best = (f64::NEG_INFINITY, S::unit_vector(0));
    for f in part.functions() {
        let e = world_eval(f, pose, p);
        let g = S::norm(&e.gradient);
        if g > 0.0 {
            let s = e.value / g;
            if s > best.0 {
                best = (s, e.gradient * (1.0 / g));
            }
        }
    }
    best
}

impl<S: Dynamics> super::halving::Halving for LcpStepper<S> {
    fn max_halvings(&self) -> usize {
        self.settings.max_halvings
    }
    fn attempt(&mut self, h: f64, _depth: usize, report: &mut StepReport) -> (bool, f64) {
        self.attempt_step(h, report)
    }
}
