//! The geometrically implicit time-stepper (paper §4.2): one mixed NCP per step, assembled from
//! the bodies' Newton–Euler rows and one [`ContactBlock`] per candidate contact, solved by the
//! path search.
//!
//! # The step's MCP
//!
//! Unknowns `z = [ν; x₁; …; x_K]`: the end-of-step twists of the moving bodies (`ν`, `(v, ω)`
//! per body, `ω` in the world frame) and each contact's local variables `x_k`
//! (`a₁, a₂, l₁, l₂, p_n`, friction impulses, `σ`; see [`crate::contact`]). Rows:
//!
//! ```text
//! ν rows:    M^ℓ ν − (M^ℓ ν^ℓ + h λ_app^ℓ + h λ_vp^ℓ) − Σ_k W_k(ν, x_k) p_k = 0      (eq. 21, first row)
//! x_k rows:  the contact block's rows R1, R2, C1, C2, C3, FR, CS at the end-of-step poses
//! ```
//!
//! with `M^ℓ`, the applied impulse and the gyroscopic impulse taken at the start of the step and
//! every contact quantity at the end of the step, `q^{ℓ+1} = (c + h v, exp(h ω) ∘ R)`
//! ([`crate::model::end_of_step_pose`]). The Newton–Euler row is written as `Mν − … = 0`
//! (the negative of the paper's `0 = −Mν + …`) so the velocity block of the Jacobian is the
//! positive-definite mass matrix. Each contact writes its rows and its two wrench blocks, and
//! their exact Jacobians, into its own rows and the rows of its two bodies: the cost of a step
//! grows with the number of contacts, not with its square.
//!
//! # Contacts
//!
//! Every pair of convex parts of two different bodies, at least one of them moving, is a
//! candidate contact for the whole run (as in the paper, the problem keeps its size when bodies
//! separate). The side described by one function plays the paper's object `F`; if both are,
//! the part of a moving body is preferred (the disc, not the ground); if neither is, the scene
//! is refused ([`StepperError::BothSidesIntersections`]).
//!
//! **Limitation: point contact.** The paper's formulation places one contact point per pair of
//! convex parts. Flat face-on-face contact (a box lying on a plane, an edge on a plane in 3D)
//! has a whole set of closest points: the KKT rows of the block are then singular and Newton
//! can wander along the face, so such a contact is not resolved reliably (the step may fail
//! and is then reported, never written). Line and surface contact through an equivalent
//! contact point in the same solve (Xie & Chakraborty) is later work; meanwhile, model bodies
//! whose contacts are points (spheres, ellipsoids, superellipsoids, rounded parts).
//!
//! # Quasi-rigid contacts and the integrator
//!
//! A contact one of whose bodies has a compliant layer is a quasi-rigid block (paper §5, see
//! [`crate::contact`]); the layers' deflections are carried from step to step and their
//! elastic energy is [`ImplicitStepper::elastic_energy`]. [`StepperSettings::integrator`]
//! chooses the paper's scheme ([`Integrator::Euler`]) or the energy-consistent
//! [`Integrator::Midpoint`], which weights the smooth impulses (applied forces, layer springs)
//! by ½ in the momentum row and rebuilds the end-of-step velocity after the solve (`quasi`
//! submodule).
//!
//! # Failure policy
//!
//! A step whose solve does not converge is retried as two half steps, recursively up to
//! [`StepperSettings::max_halvings`]; if that fails too, [`ImplicitStepper::step`] returns the
//! failure and the scene is left at the last converged state. A non-converged step is never
//! applied.

use crate::contact::{BodyStep, ContactBlock, ContactEval, tangent_reference_for};
use crate::geometry::{ProximitySettings, Space, proximity};
use crate::mcp::{DenseJacobian, McpProblem, McpSolver, SettingsError, SolveReport, SolveSettings};
use crate::model::{Dynamics, Friction, Integrator, RigidBody, Scene, VelocityLayout};
use nalgebra::DMatrix;
use std::time::{Duration, Instant};

mod quasi;

/// Settings of the implicit stepper.
#[derive(Debug, Clone, PartialEq)]
pub struct StepperSettings {
    /// The MCP solver's settings (tolerance 1e-10 on the natural residual by default).
    pub solver: SolveSettings,
    /// How many times a failing step may be halved (0: no retry).
    pub max_halvings: usize,
    /// The time-integration scheme (the paper's backward Euler by default).
    pub integrator: Integrator,
}

impl Default for StepperSettings {
    fn default() -> Self {
        Self {
            solver: SolveSettings::default(),
            max_halvings: 4,
            integrator: Integrator::Euler,
        }
    }
}

/// Why a scene cannot be stepped.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StepperError {
    /// Both parts of a candidate contact are intersections of several functions (a later
    /// extension of the formulation; the paper's §7 restriction).
    #[error(
        "contact between `{body1}` part `{part1}` and `{body2}` part `{part2}`: both sides are \
         intersections of several functions; one side must be a single function"
    )]
    BothSidesIntersections {
        /// First body.
        body1: String,
        /// Its part.
        part1: String,
        /// Second body.
        body2: String,
        /// Its part.
        part2: String,
    },
    /// The initial closest-point query of a contact failed.
    #[error("initial proximity of `{body1}` and `{body2}` failed: {reason}")]
    Proximity {
        /// First body.
        body1: String,
        /// Second body.
        body2: String,
        /// The query's error.
        reason: String,
    },
    /// A contact block could not be built.
    #[error("contact between `{body1}` and `{body2}`: {reason}")]
    Contact {
        /// First body.
        body1: String,
        /// Second body.
        body2: String,
        /// Why.
        reason: String,
    },
    /// The solver settings are invalid.
    #[error(transparent)]
    Settings(#[from] SettingsError),
}

/// One candidate contact: its block, the bodies holding `F` (body 1) and `G` (body 2), and the
/// offset of its local variables in `z`.
#[derive(Debug)]
struct Slot<S: Space> {
    block: ContactBlock<S>,
    body1: usize,
    body2: usize,
    offset: usize,
    eval: ContactEval,
}

/// The state of one contact after a step, for output.
#[derive(Debug, Clone, PartialEq)]
pub struct ContactState {
    /// Body holding `a₁` (the paper's object `F`).
    pub body1: usize,
    /// Body holding `a₂`.
    pub body2: usize,
    /// Closest point on body 1 (`D` entries).
    pub a1: Vec<f64>,
    /// Closest point on body 2.
    pub a2: Vec<f64>,
    /// Distance `‖a₂ − a₁‖` (zero in contact; never negative: the formulation does not
    /// penetrate).
    pub gap: f64,
    /// Normal impulse `p_n`.
    pub normal_impulse: f64,
    /// Magnitude of the tangential impulse `‖(p_t, p_o)‖`.
    pub friction_impulse: f64,
    /// Torsional impulse `p_r` (0 in 2D).
    pub torsion_impulse: f64,
    /// `σ`, the slip measure of the friction law (meaningful only when `p_n > 0`).
    pub sigma: f64,
    /// End-of-step penetration `max(0, −f(a₂))` in the units of `f` (zero up to the solve's
    /// tolerance); for a compliant `F`, of the shifted `f + δ̄_n`.
    pub penetration: f64,
    /// Quasi-rigid contacts: deflection, spring and core impulses, elastic energy (then
    /// `normal_impulse = p_ns + p_nr` and `gap = ‖a₂ − a₁‖ − δ_n`, negative while the layer is
    /// compressed).
    pub quasi_rigid: Option<crate::contact::QuasiRigidState>,
}

/// What one step did.
#[derive(Debug, Clone, PartialEq)]
pub struct StepReport {
    /// The solver report of the step (of its last sub-step when it was split).
    pub solve: SolveReport,
    /// Newton iterations over all attempts of the step.
    pub newton_iterations: usize,
    /// Worst natural residual over its sub-steps.
    pub residual: f64,
    /// Number of halvings used (0: solved at once).
    pub retries: usize,
    /// Whether the step (all its sub-steps) converged and was applied.
    pub converged: bool,
    /// Wall time of the step.
    pub wall_time: Duration,
}

/// The geometrically implicit stepper: a scene, its candidate contacts and the warm start.
pub struct ImplicitStepper<S: Dynamics> {
    /// The scene, advanced in place.
    pub scene: Scene<S>,
    /// Simulated time.
    pub time: f64,
    /// Whole steps taken.
    steps: u64,
    settings: StepperSettings,
    layout: VelocityLayout,
    slots: Vec<Slot<S>>,
    solver: McpSolver,
    z: Vec<f64>,
    lower: Vec<f64>,
    upper: Vec<f64>,
    /// Mass matrices and free momenta of the moving bodies at the start of the step.
    mass: Vec<DMatrix<f64>>,
    momentum: Vec<f64>,
    last_z: Vec<f64>,
    /// The closest points at the start of the previous step (for the predictor), and whether
    /// they are valid.
    previous_points: Vec<f64>,
    have_previous: bool,
    /// The closest points at the start of the current step.
    points: Vec<f64>,
    /// Per halving depth, the state to return to if that (sub-)step fails.
    saved: Vec<Vec<f64>>,
    /// The applied impulses `h λ_app` of the step (the midpoint integrator's velocity update).
    applied: Vec<f64>,
    /// The velocities `ν` of the two steps before the last (quasi-rigid warm start; the older
    /// one is valid if `have_older`).
    previous_z: Vec<f64>,
    older_z: Vec<f64>,
    have_older: bool,
}

impl<S: Dynamics> std::fmt::Debug for ImplicitStepper<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImplicitStepper")
            .field("scene", &self.scene.name)
            .field("time", &self.time)
            .field("contacts", &self.slots.len())
            .finish()
    }
}

impl<S: Dynamics> ImplicitStepper<S> {
    /// Builds the candidate contacts of `scene` and their initial guesses (closest points from
    /// a proximity query, zero impulses).
    pub fn new(scene: Scene<S>, settings: StepperSettings) -> Result<Self, StepperError> {
        let solver = McpSolver::new(settings.solver.clone())?;
        let layout = scene.velocity_layout();
        let nv = layout.len();
        let mut z = scene.velocities();
        let mut lower = vec![f64::NEG_INFINITY; nv];
        let mut upper = vec![f64::INFINITY; nv];
        let mut slots = Vec::new();
        let bodies = &scene.bodies;
        for i in 0..bodies.len() {
            for j in i + 1..bodies.len() {
                if bodies[i].fixed && bodies[j].fixed {
                    continue;
                }
                for pi in 0..bodies[i].shape.parts().len() {
                    for pj in 0..bodies[j].shape.parts().len() {
                        let mut slot = Self::candidate(&scene, i, pi, j, pj, z.len())?;
                        let mut x0 = Self::initial_guess(&scene, &slot)?;
                        quasi::attach(&scene, &mut slot, &mut x0, settings.integrator)?;
                        let (lo, hi) = slot.block.bounds();
                        z.extend_from_slice(&x0);
                        lower.extend_from_slice(&lo);
                        upper.extend_from_slice(&hi);
                        slots.push(slot);
                    }
                }
            }
        }
        let mass = Vec::new();
        let momentum = vec![0.0; nv];
        Ok(Self {
            scene,
            time: 0.0,
            steps: 0,
            settings,
            layout,
            slots,
            solver,
            last_z: Vec::new(),
            previous_points: Vec::new(),
            have_previous: false,
            points: Vec::new(),
            saved: Vec::new(),
            applied: vec![0.0; nv],
            previous_z: Vec::new(),
            older_z: Vec::new(),
            have_older: false,
            z,
            lower,
            upper,
            mass,
            momentum,
        })
    }

    /// Chooses `F` and `G` for parts `pi` of body `i` and `pj` of body `j`.
    fn candidate(
        scene: &Scene<S>,
        i: usize,
        pi: usize,
        j: usize,
        pj: usize,
        offset: usize,
    ) -> Result<Slot<S>, StepperError> {
        let (bi, bj) = (&scene.bodies[i], &scene.bodies[j]);
        let (part_i, part_j) = (&bi.shape.parts()[pi], &bj.shape.parts()[pj]);
        let single_i = part_i.len() == 1;
        let single_j = part_j.len() == 1;
        // body1 holds F (one function), body2 holds G.
        let (b1, p1, b2, p2) = match (single_i, single_j) {
            (true, true) if bi.fixed && !bj.fixed => (j, pj, i, pi),
            (true, _) => (i, pi, j, pj),
            (false, true) => (j, pj, i, pi),
            (false, false) => {
                return Err(StepperError::BothSidesIntersections {
                    body1: bi.name.clone(),
                    part1: part_i.name().to_string(),
                    body2: bj.name.clone(),
                    part2: part_j.name().to_string(),
                });
            }
        };
        let f = scene.bodies[b1].shape.parts()[p1].functions()[0].clone();
        let g = scene.bodies[b2].shape.parts()[p2].clone();
        let friction: Friction = scene.friction_between(b1, b2);
        let block = ContactBlock::new(f, g, friction).map_err(|e| StepperError::Contact {
            body1: scene.bodies[b1].name.clone(),
            body2: scene.bodies[b2].name.clone(),
            reason: e.to_string(),
        })?;
        let eval = block.new_eval();
        Ok(Slot {
            block,
            body1: b1,
            body2: b2,
            offset,
            eval,
        })
    }

    /// Closest points and KKT multipliers of the contact at the current poses; zero impulses.
    fn initial_guess(scene: &Scene<S>, slot: &Slot<S>) -> Result<Vec<f64>, StepperError> {
        let (b1, b2) = (&scene.bodies[slot.body1], &scene.bodies[slot.body2]);
        let l = slot.block.layout();
        let f_part = crate::geometry::ConvexPart::new("F", vec![slot.block.function_f().clone()])
            .map_err(|e| StepperError::Contact {
            body1: b1.name.clone(),
            body2: b2.name.clone(),
            reason: e.to_string(),
        })?;
        let g_part = slot.block.part_g();
        let prox = proximity(
            &f_part,
            &b1.pose,
            g_part,
            &b2.pose,
            &ProximitySettings::default(),
        )
        .map_err(|e| StepperError::Proximity {
            body1: b1.name.clone(),
            body2: b2.name.clone(),
            reason: e.to_string(),
        })?;
        let mut x = vec![0.0; l.local_count];
        for k in 0..l.dim {
            x[l.a1 + k] = prox.point_a[k];
            x[l.a2 + k] = prox.point_b[k];
        }
        // l₁ ∇f(a₁) = a₂ − a₁ (eq. 15) and ∇f(a₁) + Σ l₂ⱼ ∇gⱼ(a₂) = 0 (eq. 29) on the most
        // active function of G.
        let ef = f_part.world_eval(0, &b1.pose, &prox.point_a);
        let grad_f = S::norm(&ef.gradient);
        x[l.l1] = prox.distance / grad_f.max(1e-300);
        let mut best = (f64::NEG_INFINITY, 0usize);
        for jf in 0..g_part.len() {
            let v = g_part.world_eval(jf, &b2.pose, &prox.point_b).value;
            if v > best.0 {
                best = (v, jf);
            }
        }
        let eg = g_part.world_eval(best.1, &b2.pose, &prox.point_b);
        x[l.l2 + best.1] = grad_f / S::norm(&eg.gradient).max(1e-300);
        Ok(x)
    }

    /// Number of candidate contacts.
    pub fn contact_count(&self) -> usize {
        self.slots.len()
    }

    /// Size of the step's MCP.
    pub fn problem_size(&self) -> usize {
        self.z.len()
    }

    /// The state of every contact at the current step (from the last solution).
    pub fn contacts(&self) -> Vec<ContactState> {
        self.slots
            .iter()
            .map(|slot| {
                let l = slot.block.layout();
                let x = &self.z[slot.offset..slot.offset + l.local_count];
                let a1 = x[l.a1..l.a1 + l.dim].to_vec();
                let a2 = x[l.a2..l.a2 + l.dim].to_vec();
                let gap = a1
                    .iter()
                    .zip(&a2)
                    .map(|(p, q)| (p - q) * (p - q))
                    .sum::<f64>()
                    .sqrt();
                let fr = &x[l.friction..l.friction + l.friction_count];
                let tangential = if l.dim == 2 {
                    fr[0].abs()
                } else {
                    (fr[0] * fr[0] + fr[1] * fr[1]).sqrt()
                };
                let b1 = &self.scene.bodies[slot.body1];
                let p2 = S::vector_from_fn(|k| a2[k]);
                let mut fa2 = crate::geometry::world_value(slot.block.function_f(), &b1.pose, &p2);
                let quasi = self.quasi_state_of(slot);
                let (core, gap) = match &quasi {
                    Some(q) => {
                        if slot.block.quasi_rigid().map(|r| r.side)
                            == Some(crate::contact::CompliantSide::F)
                        {
                            fa2 += x[l.quasi.map_or(0, |ql| ql.deflection_bar)];
                        }
                        (q.core_impulse, gap - q.delta[0])
                    }
                    None => (0.0, gap),
                };
                ContactState {
                    body1: slot.body1,
                    body2: slot.body2,
                    a1,
                    a2,
                    gap,
                    normal_impulse: x[l.normal] + core,
                    friction_impulse: tangential,
                    torsion_impulse: if l.dim == 3 { fr[2] } else { 0.0 },
                    sigma: x[l.sigma],
                    penetration: (-fa2).max(0.0),
                    quasi_rigid: quasi,
                }
            })
            .collect()
    }

    /// Advances the scene by one time step `h = scene.time_step`, halving on failure.
    pub fn step(&mut self) -> StepReport {
        let start = Instant::now();
        let h = self.scene.time_step;
        let mut report = StepReport {
            solve: SolveReport::new(crate::mcp::SolverKind::PathSearch),
            newton_iterations: 0,
            residual: 0.0,
            retries: 0,
            converged: false,
            wall_time: Duration::ZERO,
        };
        report.converged = self.advance(h, 0, &mut report);
        if report.converged {
            // Whole steps from t = 0: the time is k·h exactly, not a sum of rounded increments.
            self.steps += 1;
            self.time = self.steps as f64 * h;
        }
        report.wall_time = start.elapsed();
        report
    }

    /// Advances by `h`, splitting into halves up to `max_halvings` deep; true on success.
    /// The state to return to on failure is kept in a per-depth buffer (allocated once).
    fn advance(&mut self, h: f64, depth: usize, report: &mut StepReport) -> bool {
        if self.saved.len() <= depth {
            self.saved.resize_with(depth + 1, Vec::new);
        }
        let mut saved = std::mem::take(&mut self.saved[depth]);
        saved.clear();
        saved.extend_from_slice(&self.z);
        if depth == 0 {
            self.store_points();
            self.predict_points();
            self.predict_layers();
        }
        let solve = self.solve_step(h);
        report.newton_iterations += solve.major_iterations;
        let converged = solve.converged();
        report.residual = report.residual.max(if solve.residual.is_nan() {
            f64::INFINITY
        } else {
            solve.residual
        });
        report.solve = solve;
        if converged {
            let nv = self.layout.len();
            self.scene.advance_by(&self.z[..nv], h);
            self.finish_quasi_step(depth == 0);
            self.time += h;
            if depth == 0 {
                std::mem::swap(&mut self.previous_points, &mut self.points);
                self.have_older = self.have_previous;
                std::mem::swap(&mut self.older_z, &mut self.previous_z);
                self.previous_z.clear();
                self.previous_z.extend_from_slice(&saved[..nv]);
            }
            self.have_previous = depth == 0;
            self.saved[depth] = saved;
            return true;
        }
        self.z.copy_from_slice(&saved);
        self.saved[depth] = saved;
        self.have_previous = false;
        if depth >= self.settings.max_halvings {
            return false;
        }
        report.retries += 1;
        self.advance(0.5 * h, depth + 1, report) && self.advance(0.5 * h, depth + 1, report)
    }

    /// Copies the closest points `a₁, a₂` of every contact (the start-of-step guess) into
    /// `self.points`.
    fn store_points(&mut self) {
        self.points.clear();
        for slot in &self.slots {
            let l = slot.block.layout();
            self.points
                .extend_from_slice(&self.z[slot.offset + l.a1..slot.offset + l.a2 + l.dim]);
        }
    }

    /// Warm-start predictor: the closest points move on smooth contact motion, so they are
    /// extrapolated linearly from the last two steps (`2 aₖ − aₖ₋₁`) when both were full steps;
    /// the impulses and multipliers keep their last values. The solve corrects the guess.
    fn predict_points(&mut self) {
        let current = &self.points;
        if !self.have_previous || self.previous_points.len() != current.len() {
            return;
        }
        let mut k = 0;
        for slot in &self.slots {
            let l = slot.block.layout();
            for i in slot.offset + l.a1..slot.offset + l.a2 + l.dim {
                self.z[i] = 2.0 * current[k] - self.previous_points[k];
                k += 1;
            }
        }
    }

    /// Assembles and solves the MCP of a step of length `h` from the current state, leaving
    /// the solution in `self.z`.
    fn solve_step(&mut self, h: f64) -> SolveReport {
        let t = self.time;
        let gravity = self.scene.gravity;
        self.mass.clear();
        for (b, body) in self.scene.bodies.iter().enumerate() {
            if let Some(range) = self.layout.range(b) {
                self.mass.push(body.mass_matrix());
                let mut p = body.free_momentum(&gravity, t, h);
                let applied = body.applied_impulse(&gravity, t, h);
                applied.write_to(&mut self.applied[range.clone()]);
                if self.settings.integrator == Integrator::Midpoint {
                    p = p + applied.scaled(-0.5);
                }
                p.write_to(&mut self.momentum[range]);
            }
        }
        // 3D: the tangent reference of each contact from its current normal estimate.
        if S::DIM == 3 {
            for slot in &mut self.slots {
                let l = slot.block.layout();
                let a1 = S::vector_from_fn(|k| self.z[slot.offset + l.a1 + k]);
                let pose = &self.scene.bodies[slot.body1].pose;
                let n = crate::geometry::world_eval(slot.block.function_f(), pose, &a1).gradient;
                // A coordinate axis is always a valid reference; with a non-finite normal the
                // old reference stays and the solve reports the non-finite values it meets.
                if S::norm(&n) > 0.0 {
                    let _ = slot
                        .block
                        .set_tangent_reference(tangent_reference_for::<S>(&n));
                }
            }
        }
        self.last_z.clear();
        let mut problem = StepProblem {
            bodies: &self.scene.bodies,
            layout: &self.layout,
            slots: &mut self.slots,
            mass: &self.mass,
            momentum: &self.momentum,
            lower: &self.lower,
            upper: &self.upper,
            h,
            last_z: &mut self.last_z,
        };
        self.solver.solve(&mut problem, &mut self.z)
    }
}

/// The step's MCP as seen by the solver.
struct StepProblem<'a, S: Dynamics> {
    bodies: &'a [RigidBody<S>],
    layout: &'a VelocityLayout,
    slots: &'a mut [Slot<S>],
    mass: &'a [DMatrix<f64>],
    momentum: &'a [f64],
    lower: &'a [f64],
    upper: &'a [f64],
    h: f64,
    /// The `z` the blocks' evaluations belong to (function and Jacobian share them).
    last_z: &'a mut Vec<f64>,
}

impl<S: Dynamics> StepProblem<'_, S> {
    fn body_step(&self, b: usize, z: &[f64]) -> BodyStep<S> {
        let body = &self.bodies[b];
        match self.layout.range(b) {
            Some(r) if !body.fixed => BodyStep::advance(&body.pose, &z[r], self.h),
            _ => BodyStep::fixed(body.pose),
        }
    }

    /// Evaluates every contact block at `z` unless that was the last point evaluated.
    fn evaluate(&mut self, z: &[f64]) {
        if self.last_z.as_slice() == z {
            return;
        }
        for k in 0..self.slots.len() {
            let (b1, b2) = (self.slots[k].body1, self.slots[k].body2);
            let s1 = self.body_step(b1, z);
            let s2 = self.body_step(b2, z);
            let slot = &mut self.slots[k];
            let n = slot.block.layout().local_count;
            let x = &z[slot.offset..slot.offset + n];
            slot.block.evaluate(x, &s1, &s2, &mut slot.eval);
        }
        self.last_z.clear();
        self.last_z.extend_from_slice(z);
    }
}

impl<S: Dynamics> McpProblem for StepProblem<'_, S> {
    fn dim(&self) -> usize {
        self.lower.len()
    }
    fn lower_bounds(&self) -> &[f64] {
        self.lower
    }
    fn upper_bounds(&self) -> &[f64] {
        self.upper
    }

    fn function(&mut self, z: &[f64], f: &mut [f64]) {
        self.evaluate(z);
        // Newton–Euler rows: M ν − (M ν^ℓ + h λ) − Σ wrenches.
        let mut k = 0;
        for b in 0..self.bodies.len() {
            if let Some(r) = self.layout.range(b) {
                let m = &self.mass[k];
                for (i, row) in r.clone().enumerate() {
                    let mut s = -self.momentum[row];
                    for (j, col) in r.clone().enumerate() {
                        s += m[(i, j)] * z[col];
                    }
                    f[row] = s;
                }
                k += 1;
            }
        }
        for slot in self.slots.iter() {
            let l = slot.block.layout();
            let n = l.local_count;
            f[slot.offset..slot.offset + n].copy_from_slice(slot.eval.residual());
            for (b, wrench) in [
                (slot.body1, slot.eval.wrench1()),
                (slot.body2, slot.eval.wrench2()),
            ] {
                if let Some(r) = self.layout.range(b) {
                    for (row, w) in r.zip(wrench) {
                        f[row] -= w;
                    }
                }
            }
        }
    }

    fn jacobian(&mut self, z: &[f64], jac: &mut DenseJacobian) {
        self.evaluate(z);
        jac.as_mut_slice().fill(0.0);
        let mut k = 0;
        for b in 0..self.bodies.len() {
            if let Some(r) = self.layout.range(b) {
                let m = &self.mass[k];
                for (i, row) in r.clone().enumerate() {
                    for (j, col) in r.clone().enumerate() {
                        jac[(row, col)] = m[(i, j)];
                    }
                }
                k += 1;
            }
        }
        for slot in self.slots.iter() {
            let l = slot.block.layout();
            let n = l.local_count;
            // Global index of each block column: local variables, then ν₁, ν₂ (None if fixed).
            let col_of = |c: usize| -> Option<usize> {
                if c < n {
                    Some(slot.offset + c)
                } else if c < l.nu2 {
                    self.layout.range(slot.body1).map(|r| r.start + (c - l.nu1))
                } else {
                    self.layout.range(slot.body2).map(|r| r.start + (c - l.nu2))
                }
            };
            let bj = &slot.eval.jacobian;
            let (rows, total) = (jac.nrows(), bj.nrows());
            let ranges = [
                (self.layout.range(slot.body1), l.nu1),
                (self.layout.range(slot.body2), l.nu2),
            ];
            for c in 0..l.total {
                let Some(gc) = col_of(c) else { continue };
                // Column-major: block column c is contiguous, and so is global column gc.
                let src = &bj.as_slice()[c * total..(c + 1) * total];
                let dst = &mut jac.as_mut_slice()[gc * rows..(gc + 1) * rows];
                for (d, s) in dst[slot.offset..slot.offset + n].iter_mut().zip(&src[..n]) {
                    *d += s;
                }
                for (range, first) in ranges.iter() {
                    if let Some(range) = range {
                        for (d, s) in dst[range.clone()].iter_mut().zip(&src[*first..]) {
                            *d -= s;
                        }
                    }
                }
            }
        }
    }
}
