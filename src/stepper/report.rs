//! What a step reports, for output and diagnostics: the step's solve ([`StepReport`]) and the
//! state of each contact ([`ContactState`]) and joint ([`JointState`]) after it. Both steppers
//! write them; the run loop and the output read nothing else of a stepper's internals.

use crate::mcp::SolveReport;
use std::time::Duration;

/// The state of one joint after a step, for output.
#[derive(Debug, Clone, PartialEq)]
pub struct JointState {
    /// The joint's index in the scene.
    pub index: usize,
    /// Body 1 (`None`: the world).
    pub body1: Option<usize>,
    /// Body 2.
    pub body2: usize,
    /// The joint's impulse on body 2 over the step (`D` entries, world frame; body 1 receives
    /// its opposite): the force at the anchor times `h`.
    pub impulse: Vec<f64>,
    /// The joint's angular impulse on body 2 about its anchor over the step (`A` entries).
    pub moment: Vec<f64>,
    /// The joint's largest row `|Θ|` at the bodies' poses (see [`crate::joint::JointBlock::drift`]).
    pub drift: f64,
    /// The joint actuator's force or torque at the bodies' current state (the one it applies
    /// over the next step), `None` without an actuator.
    pub actuator: Option<f64>,
    /// The limits' generalised impulse `λ_lo − λ_hi` along the free coordinate over the step
    /// (N·s or N·m·s; positive: the lower stop pushes), `None` without limits.
    pub limit_impulse: Option<f64>,
    /// Joint friction's generalised impulse along the free coordinate over the step (N·s or
    /// N·m·s, within `±F h`), `None` without joint friction.
    pub friction_impulse: Option<f64>,
}

/// The state of one contact after a step, for output.
#[derive(Debug, Clone, PartialEq)]
pub struct ContactState {
    /// Stable contact number: the order in which the pair first came within reach.
    pub id: usize,
    /// Body holding `a₁` (the paper's object `F`).
    pub body1: usize,
    /// Body holding `a₂`.
    pub body2: usize,
    /// The convex part of body 1 (its index in the body's shape) and of body 2 in contact.
    pub parts: [usize; 2],
    /// Closest point on body 1 (`D` entries).
    pub a1: Vec<f64>,
    /// Closest point on body 2.
    pub a2: Vec<f64>,
    /// Signed distance in metres: `‖a₂ − a₁‖` apart or touching; when `a₂` lies inside `F`
    /// (overlap within the solve's tolerance: then `l₁ = 0` and `a₁ = a₂`), minus its depth
    /// below `F`'s surface along `F`'s normal ([`crate::geometry::depth_below_surface`]),
    /// never a value of `f`, whose scale depends on the shape.
    pub gap: f64,
    /// Normal impulse `p_n`.
    pub normal_impulse: f64,
    /// Magnitude of the tangential impulse `‖(p_t, p_o)‖`.
    pub friction_impulse: f64,
    /// Torsional impulse `p_r` (0 in 2D).
    pub torsion_impulse: f64,
    /// The unit contact normal `n` (`D` entries), from body 1 towards body 2: body 2 receives
    /// `+p_n n`. Implicit stepper: `∇f(a₁)/‖∇f(a₁)‖` at the end of the step; LCP: the face's
    /// normal found at the start of the step. Added for the output's vectors and forces.
    pub normal: Vec<f64>,
    /// The friction impulse as a world vector (`D` entries) received by body 2 (body 1 receives
    /// its opposite); its length is [`friction_impulse`](Self::friction_impulse). Implicit
    /// stepper: `p_t t + p_o o` in the step's tangent basis at the end-of-step normal (a halved
    /// step sums its sub-steps' components, each in its own basis, which turns by `O(h)`).
    pub friction: Vec<f64>,
    /// `σ`, the slip measure of the friction law (meaningful only when `p_n > 0`).
    pub sigma: f64,
    /// End-of-step penetration in metres, `max(0, −gap)` (zero up to the solve's tolerance).
    /// Quasi-rigid contacts: the overlap beyond the layer's deflection (of the shifted
    /// surface `f + δ̄_n = 0` for a compliant `F`), to first order `max(0, −f(a₂)) / ‖∇f(a₂)‖`;
    /// the layer's own compression is `−gap`.
    pub penetration: f64,
    /// Quasi-rigid contacts: deflection, spring and core impulses, elastic energy (then
    /// `normal_impulse = p_ns + p_nr` and `gap = ‖a₂ − a₁‖ − δ_n`, negative while the layer is
    /// compressed).
    pub quasi_rigid: Option<crate::contact::QuasiRigidState>,
}

/// A driven body after a step, for output: the wrench its drive exerted over the step
/// (see [`crate::stepper::ImplicitStepper::drives`]).
#[derive(Debug, Clone, PartialEq)]
pub struct DriveState {
    /// The body's index in the scene.
    pub body: usize,
    /// The required force (N, `D` entries, world frame).
    pub force: Vec<f64>,
    /// The required torque about the body's origin (N·m, `A` entries, world frame).
    pub torque: Vec<f64>,
}

/// What one step did.
#[derive(Debug, Clone, PartialEq)]
pub struct StepReport {
    /// The solver report of the step (of its last sub-step when it was split).
    pub solve: SolveReport,
    /// The work of the whole step: the counts of every solve it made (each sub-step, and the
    /// warm, cold and continuation solves of each) summed with [`SolveReport::accumulate`].
    /// Only the counts mean something here; the status and residual are in `solve`.
    pub work: SolveReport,
    /// Newton iterations over all attempts of the step.
    pub newton_iterations: usize,
    /// Worst natural residual over its sub-steps.
    pub residual: f64,
    /// Number of halvings used (0: solved at once).
    pub retries: usize,
    /// Whether the step (all its sub-steps) converged and was applied.
    pub converged: bool,
    /// Why the step failed other than by not converging (a contact that could not be set up).
    pub failure: Option<String>,
    /// Contacts in the step's MCP, and how many times the step was redone because a pair
    /// out of it came within reach.
    pub contacts: usize,
    /// Redos for pairs the broad phase had left out.
    pub redos: usize,
    /// Wall time of the step.
    pub wall_time: Duration,
    /// The kinetic energy the RATTLE integrator's energy projection added (negative: removed)
    /// in this step, in J; zero for other integrators and steps that do work.
    pub energy_projection: f64,
    /// Sub-steps RATTLE took first order, with its contact terms at the end of the step (the
    /// slip rows' lever and the second kick's impulse directions), because its own did not
    /// solve or created energy (a contact point that jumped within the step); 0 for other
    /// integrators.
    pub first_order_substeps: usize,
    /// Sub-steps solved once more from a cold start (every rigid contact as if it entered
    /// then) after the warm start did not solve them.
    pub cold_starts: usize,
    /// Sub-steps solved once more by continuation in the friction coefficient after the
    /// cold start did not solve them either (whether or not it solved them).
    pub friction_continuations: usize,
    /// A step that did not converge: the row of its last attempt's MCP with the largest
    /// natural residual, to say which contact, joint or body the solve could not settle.
    pub largest_residual: Option<ResidualSite>,
}

/// Whose row of the step's MCP it is.
#[derive(Debug, Clone, PartialEq)]
pub enum RowOwner {
    /// A moving body's momentum (Newton–Euler) row.
    Body(usize),
    /// A contact's row, by its stable id, between `bodies`.
    Contact {
        /// The contact's id ([`ContactState::id`]).
        id: usize,
        /// Body 1 (holding `a₁`) and body 2.
        bodies: [usize; 2],
    },
    /// A joint's row, by its index in the scene.
    Joint(usize),
    /// A support's row, by its index in the scene.
    Support(usize),
}

/// One row of a step's MCP and its natural residual (see [`StepReport::largest_residual`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ResidualSite {
    /// `|z_i − mid(l_i, u_i, z_i − F_i(z))|`.
    pub residual: f64,
    /// Whose row.
    pub owner: RowOwner,
    /// The row's name within its owner: `C3 (non-penetration)`, `momentum (v_y)`, `row 2`.
    pub row: String,
}

impl std::fmt::Display for ResidualSite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "largest residual {:.3e} in ", self.residual)?;
        match &self.owner {
            RowOwner::Body(b) => write!(f, "body {b}")?,
            RowOwner::Contact { id, bodies } => {
                write!(f, "contact {id} (bodies {} and {})", bodies[0], bodies[1])?
            }
            RowOwner::Joint(j) => write!(f, "joint {j}")?,
            RowOwner::Support(s) => write!(f, "support {s}")?,
        }
        write!(f, ", row {}", self.row)
    }
}

impl StepReport {
    /// A report of a step not yet taken, for the solver `kind`.
    pub fn new(kind: crate::mcp::SolverKind) -> Self {
        Self {
            solve: SolveReport::new(kind),
            work: SolveReport::new(kind),
            newton_iterations: 0,
            residual: 0.0,
            retries: 0,
            converged: false,
            failure: None,
            contacts: 0,
            redos: 0,
            wall_time: Duration::ZERO,
            energy_projection: 0.0,
            first_order_substeps: 0,
            cold_starts: 0,
            friction_continuations: 0,
            largest_residual: None,
        }
    }

    /// Counts a solve of the step into its Newton iterations and its work.
    pub(crate) fn count(&mut self, solve: &SolveReport) {
        self.newton_iterations += solve.major_iterations;
        self.work.accumulate(solve);
    }

    /// `"; largest residual … in contact 3 (bodies 0 and 1), row C3 (non-penetration)"` for a
    /// failure message, empty when the step has no [`Self::largest_residual`].
    pub fn site_note(&self) -> String {
        self.largest_residual
            .as_ref()
            .map_or_else(String::new, |site| format!("; {site}"))
    }
}
