//! The geometrically implicit time-stepper (paper §4.2): one mixed NCP per step, assembled from
//! the bodies' Newton–Euler rows and one [`ContactBlock`] per candidate contact, solved by the
//! path search.
//!
//! # The step's MCP
//!
//! Unknowns `z = [ν; x₁; …; x_K; λ₁; …; λ_J]`: the end-of-step twists of the moving bodies
//! (`ν`, `(v, ω)` per body, `ω` in the world frame), each contact's local variables `x_k`
//! (`a₁, a₂, l₁, l₂, p_n`, friction impulses, `σ`; see [`crate::contact`]) and each joint's
//! multipliers `λ_j` ([`crate::joint`]). Rows:
//!
//! ```text
//! ν rows:    M^ℓ ν − (M^ℓ ν^ℓ + h λ_app^ℓ + h λ_vp^ℓ) − Σ_k W_k(ν, x_k) p_k − Σ_j G_jᵀ λ_j = 0   (eq. 21)
//! x_k rows:  the contact block's rows R1, R2, C1, C2, C3, FR, CS at the end-of-step poses
//! λ_j rows:  the joint's rows Θ_j(q^{ℓ+1}) / h = 0 (bilateral, free multipliers)
//! ```
//!
//! Contacts and joints are *blocks*: each owns its local unknowns and bounds and evaluates its
//! rows and the wrenches on its (at most two) bodies with their exact Jacobian; the assembly
//! (`assembly` submodule) places every block the same way, without knowing its layout. The
//! bodies a joint links do not collide. Joint rows are regularised like the contacts'
//! impulses ("Well-posed impulses"), so redundant joints (two hinges on one axis) have the
//! least-change impulses; under RATTLE their impulses are kicked along the start-of-step
//! directions and the end velocity is projected onto their velocity rows like a loaded
//! contact's, and under midpoint the end velocity is projected onto them (`integrator::midpoint`).
//! A driven body ([`RigidBody::driven`]) has no unknowns: its end-of-step pose and velocity
//! are data of the blocks it takes part in ([`BodyStep::driven`]), under RATTLE its velocity
//! enters the projection's rows, and a scene with one is not passive.
//!
//! with `M^ℓ`, the applied impulse and the gyroscopic impulse taken at the start of the step
//! (the gyroscopic one by default at `ω_θ = θ ν_ω + (1 − θ) ω^ℓ` instead, adding `h ω_θ × I_w ω_θ`
//! to the angular rows and its derivative to the body's block: [`StepperSettings::gyroscopic`],
//! [`Gyroscopic`]) and
//! every contact quantity at the end of the step, `q^{ℓ+1} = (c + h v, exp(h ω) ∘ R)`
//! ([`crate::model::end_of_step_pose`]). The Newton–Euler row is written as `Mν − … = 0`
//! (the negative of the paper's `0 = −Mν + …`) so the velocity block of the Jacobian is the
//! positive-definite mass matrix. Each contact writes its rows and its two wrench blocks, and
//! their exact Jacobians, into its own rows and the rows of its two bodies: the cost of a step
//! grows with the number of contacts, not with its square.
//!
//! # Contacts
//!
//! A pair of convex parts of two different bodies, at least one of them moving, enters the
//! step's MCP when the [broad phase](super::broad_phase) finds it within reach of the coming
//! step (bounding balls inflated by twice the distance the bodies sweep at their current
//! speeds; pairs with an unbounded part, a ground half-space, always) and the distance of its
//! parts is within that reach too, and leaves it when it is out of twice that reach, by the
//! balls or by its last closest points, and carries no impulse (a quasi-rigid contact: by the
//! balls only). A pair left out for its distance keeps that distance less each step's reach
//! as a bound, and is measured again when the bound is used up. After every step the stepper
//! checks that no pair left out has overlapping bounding balls at the end of the step, unless
//! it was left out for its distance and is still out of reach or apart; if one has, the step
//! is redone with it, so a contact is never missed. Each pair keeps a stable
//! [`ContactState::id`] (the order in which pairs first entered, ties by body and part index)
//! and its last solution, the warm start when it enters again. With
//! [`StepperSettings::broad_phase`] off, every pair takes part for the whole run, as in the
//! paper. The side described by one function plays the paper's object `F`; if both are, the
//! part of a moving body is preferred (the disc, not the ground); if neither is, the contact is
//! the block of two intersections ([`crate::contact`], "Two intersections"), `F` again on a
//! moving body.
//!
//! # Linear algebra
//!
//! The step's Jacobian has a fixed pattern per set of contacts: the mass blocks and, per
//! contact, its local rows and its two bodies' twist rows against its local columns and the
//! two twists. Large steps (at least [`PathSettings::sparse_threshold`] unknowns) hand that
//! pattern to the path search, which then factorises sparsely in a minimum-degree order: the
//! cost of a step grows with the number of contacts, not with its cube. Small steps (the
//! paper's examples) stay dense, which is faster there.
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
//! # Second-order integration
//!
//! [`Integrator::Rattle`] (`simulation.integrator = "rattle"`, issue 8) is RATTLE
//! (kick–drift–kick Störmer–Verlet with constraints) written around the one geometrically
//! implicit MCP. With `ν` the unknown that moves the bodies (`q⁺ = q + h ν`, the kinematic map
//! and the blocks unchanged, so the step's Jacobian stays exact):
//!
//! ```text
//! MCP      M ν = M v + ½ h (λ_app + λ_vp)(q, v) + Σ W(q⁺) p      contacts at q⁺ (as Euler),
//!                                                   slip rows at the trapezoidal lever
//! kick 2   v* = ν + M⁺⁻¹ Σ (W(q) − W(q⁺)) p + ½ h M⁺⁻¹ (λ_app(t + h, q⁺) + λ_vp(2ν − v))
//! project  v⁺ = v* + M⁺⁻¹ Bᵀ μ,   J v⁺ = 0   (J: normal, and if sticking tangential, rows of
//!                                               the contacts with p_n > 0, at q⁺)
//! ```
//!
//! Why each piece (measured on the `study rocking` bodies, `crate::study::rocking`):
//!
//! * Splitting only the smooth impulses (the `midpoint` key) leaves the contact impulse a
//!   backward-Euler impulse and the end velocity off the constraint: first order (drift halves
//!   with `h`, 0.49 → 0.29 of the spheroid's energy over 2 s).
//! * With the projection but the first-kick impulse along `W(q⁺)`, the impulse's `O(h)` turn of
//!   direction leaves an `O(h²)` tangential velocity error per step: still first order.
//! * Moving the first kick's impulse to the start-of-step directions `W(q)` (the contact points
//!   of the previous solution at the start poses) is RATTLE for the non-penetration constraint:
//!   error ratio 4.0 when `h` halves for frictionless rocking and rolling. Non-penetration,
//!   points and normals are still solved at `q⁺` inside the MCP; only the *momentum
//!   bookkeeping* of the impulse uses `W(q)`.
//! * Rolling without slip is the constraint that the contact point's material velocity
//!   vanishes *along the step*, while the contact point travels over the body. Imposed on `ν`
//!   with the end-of-step lever `a⁺ − c⁺` it is first order (the rolled displacement is off by
//!   `h² ω × ṙ / 2` per step): energy error 4e-2 over 10 s at `h` = 1e-2 and 4e-3 at 1e-3 on
//!   the rocking spheroid, the rolling ellipsoid's trajectory first order. With the
//!   trapezoidal lever `½ (r^ℓ + r⁺)` in the slip rows ([`crate::contact`]) it is second order:
//!   1.6e-3 and 1.5e-5 (spheroid), 3.5e-4 and 3.5e-6 (ellipsoid), error ratios 4.0.
//! * The projection's normal multiplier of a sliding contact carries its friction: `B_n = J_n
//!   + Σ_k f_k J_k` with `f = μ p / ‖p‖_e` (the MCP's friction per unit normal impulse, put
//!   on the ellipsoid's boundary; the MCP's own friction moves there by the fixed impulse
//!   `p_n f − p`, so the whole step's is `(p_n + μ_n) f`). The MCP solves only
//!   the first half of a persistent contact's impulse (the half kick), so without this the
//!   sliding friction is halved: Example 2's transitions then converge, as `h → 0`, to 2.73,
//!   2.98, 3.44 s instead of Euler's limit 2.945, 3.214, 3.70 s; with it to that same limit
//!   (2.945, 3.214, 3.703 s at `h` = 1e-3; 2.95, 3.22, 3.71 s at `h` = 1e-2).
//! * A sticking contact whose whole-step friction would leave its friction ellipsoid slides
//!   through the second half instead: its tangential rows leave and its normal row carries
//!   friction on the ellipsoid along the friction the stick needed (as a sliding contact's),
//!   so the step's whole impulse stays in the cone (the rolling ellipsoid at `μ` = 0.12, which
//!   sticks and slips in turn: 3.1e-3 outside before, within the MCP's tolerance now). The
//!   MCP's friction is moved onto that boundary by a fixed impulse, so the whole step's is
//!   `(p_n + μ_n) f` even when `μ_n < 0` (the projection taking back normal impulse).
//! * A contact whose whole-step normal impulse `p_n + μ_n` would be negative (separating
//!   within the second half) leaves the projection, so it never pulls; impacts stay
//!   inelastic (a new contact's normal velocity is projected to zero; with `B = J` the
//!   projection is `M`-orthogonal and adds no kinetic energy); sliding friction stays at full
//!   weight along `W(q⁺)`. Both kicks take the gyroscopic impulse at their own midpoint
//!   (`½ (v + ν)`, `½ (ν + v*)`), which keeps a free body's kinetic energy exactly.
//! * With sliding rows carrying friction the projection is not `M`-orthogonal, and at a struck
//!   sliding contact it once added 252 J to a scene of 138 J (soak seed 27). A projection that
//!   would raise the kinetic energy is dropped: `v*` is kept, off the constraints by the step's
//!   `O(h²)` error, which the next step's MCP removes.
//!
//! The projection solves `J M⁻¹ Bᵀ μ = −J v*`, whose entries couple only rows that share a
//! body: densely on the stack up to 12 rows, by the sparse LU beyond (cost linear in the
//! contacts), by SVD least squares when rows are redundant (a body resting on more sticking
//! contacts than it has degrees of freedom). [`ContactState`] reports the step's whole impulse,
//! the MCP's plus the projection's.
//!
//! # Energy projection
//!
//! The bare scheme keeps the energy of smooth rolling and rocking within an `O((ωh)²)`
//! oscillation, but a body rocking through a point of zero curvature (the flat pole of a
//! `p = 4` superellipsoid, where the contact point moves as `θ^{1/3}` and the centre's height
//! as `θ^{4/3}`) is not smooth: restoring the energy of the step across the pole changes its
//! kinetic energy by up to 29 % at `h` = 1e-2 (7 % at 1e-3), and over 10 s it drifts by 0.80 (1e-2) and 0.61 (1e-3) of
//! the motion's energy. No step-size order applies there: even Störmer–Verlet in the one
//! minimal coordinate on the pole's potential `k |θ|^{4/3}` keeps it only within 5.6e-2 and
//! 1.5e-3. So with [`StepperSettings::energy_projection`] (the default) RATTLE ends each step
//! with an energy projection (`integrator::rattle`, `project_energy`, Hairer–Lubich–Wanner §IV.4):
//!
//! ```text
//! per group G of bodies linked by projected contacts and touching a fixed body, if the step
//! is workless for G:     v⁺_b ← s v⁺_b (b ∈ G),   s² = (E_G(q, v) − V_G(q⁺)) / T_G(q⁺, v⁺)
//! ```
//!
//! *Workless*: every contact of `G` carried an impulse at the start and at the end of the step
//! (none struck, none separated) and sticks or is frictionless, none is quasi-rigid, and every
//! body's loads have a potential (gravity and constant forces, in
//! [`RigidBody::potential_energy`]; no controller, constant torque or layer). The exact motion
//! keeps `E_G` over such a step. Scaling `G`'s velocities keeps every velocity constraint
//! `J v⁺ = 0` of `G` (homogeneous in them), leaves the positions, points, normals and
//! non-penetration of the MCP alone, and is the `M`-orthogonal projection of `v⁺` onto the
//! energy level at `q⁺`. It is skipped when `|s² − 1|` exceeds ½, which happens only at
//! turning points (the kinetic energy near zero: the step's small error is kept rather than
//! divided by it). Measured over 10 s: 5.1e-6 / 6.6e-10 (spheroid), 1.9e-6 / 1.7e-10
//! (ellipsoid), 4.6e-9 / 6.4e-13 (superellipsoid) at `h` = 1e-2 / 1e-3, the trajectory error
//! still second order on the smooth bodies (and falling 2.8× per halving on the superellipsoid,
//! where the bare scheme does not converge). Each step's change of kinetic energy is
//! [`StepReport::energy_projection`].
//!
//! # Well-posed impulses
//!
//! A body resting on more sticking contacts than its degrees of freedom fix (a sphere in the
//! hollow of three, a pyramid, a pile) has a continuum of impulses that give the same, unique
//! velocities: the step's Jacobian is singular along it and Newton wanders. A separated
//! contact's friction rows (`p_k σ = 0`, `−Σ p_k² ≥ 0`) are degenerate too: any `σ ≥ 0` solves
//! them and `p_k` is fixed only to the square root of the tolerance. Each step therefore
//! solves a sequence of *proximal* problems ([`crate::contact::Proximal`]): every rigid
//! contact's rows C3, FR, CS gain `ε (p − p̄)` and `ε_σ (σ − σ̄)` terms, the centre `(p̄, σ̄)` is
//! first the impulses and `σ` the step starts from (the last step's solution; zero for a new
//! contact; the friction zero, or a resting contact's own with
//! [`StepperSettings::friction_centre_from_start`]), and after each solve it moves to the
//! solution, until the solution solves the
//! paper's rows themselves to the tolerance (checked on the unregularised residual); each
//! re-solve starts with simplified Newton steps on the Jacobian the solve before it
//! factorised, since a centre enters `F` only ([`McpSolver::allow_kept_jacobian`]). This is
//! the proximal-point method on the impulses (Rockafellar 1976): each regularised problem
//! has one solution with a regular Jacobian, and the iteration converges to the solution
//! nearest its first centre in the weights' metric — the *least-change* impulses. So the same
//! state always gives the same impulses, whatever the solver's starting point or its dense or
//! sparse factorisation, the velocities are the rigid model's, and a separated contact's
//! friction is zero to rounding (`p_k (σ + ε_f) = ε_f p̄_k`, and `p̄_k` was zero). A solution
//! accepted with friction above the tolerance (in N·s) on a contact whose normal impulse is
//! zero — the rows `p_k σ`, `−Σ p_k²` pass `|p_k| ≈ √tol` when `σ` is small — is not
//! accepted: that friction is set to zero with its centre and the step solved again. Nor is
//! one whose friction lies outside its cone by more than the tolerance in N·s: CS is written
//! in N·s squared, so a lightly loaded contact passes `tol / (μ p_n + ‖p‖_e)` outside; its CS
//! row is divided by `μ p̄_n + ‖p̄‖_e` of that solution (a factor frozen for the solve, so the
//! Jacobian stays exact and the solutions are the same) and the step solved again. Both are
//! checked again on every solution that follows (the load may fall under a frozen factor): a
//! solution that still breaks them after a few solves is not converged.
//!
//! The weights are `α` ([`StepperSettings::proximal_weight`], 1e-6) times each contact's
//! own scale (see `set_proximal_weights`), small enough that a resting or rolling contact
//! whose impulse does not change needs one solve, which usually takes no Newton iteration
//! at all. Near a change of mode (`σ → 0` on the cone's boundary) the iteration slows down;
//! after [`StepperSettings::proximal_iterations`] outer solves the last one is Newton on the
//! paper's rows from the regularised solution, unless the paper's rows are already within ten
//! times the tolerance: then a few more outer solves are cheaper than that singular solve
//! (`NEAR_TOLERANCE_SOLVES`). Quasi-rigid contacts, whose compliance already
//! makes their impulses unique, are not regularised.
//!
//! # Failure policy
//!
//! After the first step the warm start's loaded contacts have their cone rows measured in N·s
//! ([`StepperSettings::cones_from_start`]), and optionally its resting contacts their friction
//! centred at the warm start's ([`StepperSettings::friction_centre_from_start`]); a warm start
//! that does not solve so is solved again with the friction centred at zero, then with the
//! paper's rows. A (sub-)step whose solve does not converge from its warm start
//! is solved again from a cold start, then by continuation in the friction coefficient
//! (`continuation`: first without friction, then with `μ` raised in stages, the last solve the
//! step's own MCP), and only then retried as two half steps, recursively up to
//! [`StepperSettings::max_halvings`] (the policy of both steppers, `stepper::halving`); if that
//! fails too, [`ImplicitStepper::step`] returns the failure and the scene is left at the last
//! converged state. A non-converged step is never applied. Above the last depth only the first
//! solver of the order (the path search) is tried; the dense fallbacks run at the last depth,
//! where halving has nothing left to offer.

use super::broad_phase::{BroadPhase, PairKey};
use super::report::{ContactState, JointState, ResidualSite, RowOwner, StepReport};
use crate::contact::{
    BodyStep, ClosestPoints, Contact, ContactBlock, ContactEval, Proximal, tangent_reference_for,
};
use crate::geometry::{Pose, Space};
use crate::joint::JointBlock;
#[cfg(doc)]
use crate::mcp::PathSettings;
use crate::mcp::{
    DenseJacobian, McpProblem, McpSolver, SettingsError, SolveReport, SolveSettings,
    SparseJacobian, Status,
};
use crate::model::{
    Dynamics, Friction, Gyroscopic, Integrator, RigidBody, Scene, Twist, VelocityLayout,
};
use crate::support::SupportBlock;
use assembly::{BlockView, DensePlan};
use nalgebra::DMatrix;
use slot::BlockSlot;
use std::collections::BTreeMap;
use std::time::Instant;

/// A contact's unit normal `n` with the point `a₁` and body 1's pose it was evaluated at.
/// Marks a block entry with no place in the global Jacobian (a fixed body's twist).
const NO_ENTRY: usize = usize::MAX;

mod assembly;
mod continuation;
mod impact;
mod integrator;
mod joint_groups;
mod quasi;
mod slot;

/// Settings of the implicit stepper.
#[derive(Debug, Clone, PartialEq)]
pub struct StepperSettings {
    /// The MCP solver's settings (tolerance 1e-10 on the natural residual by default).
    pub solver: SolveSettings,
    /// How many times a failing step may be halved (0: no retry). The solver order's
    /// fallbacks are tried only at this depth (see "Failure policy" in the module docs).
    pub max_halvings: usize,
    /// Only pairs of parts within reach of the step take part in its MCP (see the module
    /// docs); off: every pair for the whole run, as in the paper.
    pub broad_phase: bool,
    /// The time-integration scheme (the paper's backward Euler by default).
    pub integrator: Integrator,
    /// Under [`Integrator::Rattle`], the energy projection of workless steps (see the module
    /// docs, "Energy projection"); on by default.
    pub energy_projection: bool,
    /// The proximal weight `α` of the impulses relative to the contact's own scale (see the
    /// module docs, "Well-posed impulses"); 0 solves the paper's rows directly.
    pub proximal_weight: f64,
    /// Outer proximal iterations allowed after the first solve of a step.
    pub proximal_iterations: usize,
    /// Where the gyroscopic impulse of spatial bodies is taken ([`Gyroscopic`]; by default
    /// at the end of the step, which cannot add energy). The euler and midpoint integrators
    /// only: RATTLE splits it into its two kicks.
    pub gyroscopic: Gyroscopic,
    /// The form of the closest-point conditions of rigid contacts of one function
    /// ([`ClosestPoints`]; the signed gap by default, the paper's for its own cases).
    pub closest_points: ClosestPoints,
    /// A sub-step that neither the warm nor the cold start solved is solved once more by
    /// continuation in the friction coefficient before it is halved (see "Failure policy" in
    /// the module docs); on by default.
    pub friction_continuation: bool,
    /// Each loaded rigid contact's cone row CS is measured in N·s from the start of every
    /// step after the first, by the load its warm start carries (`solve_step`); a warm start
    /// not solved so is solved again with the paper's rows before the cold start. On by
    /// default.
    pub cones_from_start: bool,
    /// The cone rows that `cones_from_start` writes in N·s are divided by the current load
    /// `μ p_n + √(‖p‖_e² + c²)` (`c` the solver's tolerance in N·s) instead of the warm
    /// start's, so that they stay in N·s while a contact unloads or slides within the solve
    /// (see `solve_step`). Off by default.
    pub cones_normalised: bool,
    /// A first solve of a (sub-)step whose cone rows `cones_from_start` scaled, still
    /// unsolved after this many Newton iterations, goes on with those rows divided by the
    /// current load (`cones_normalised`, for the rest of the (sub-)step); 0 never. Such a
    /// solve is most often a contact unloading within the step, whose friction the scaled
    /// row removes only by halving it (see `solve_step`). 60 by default.
    pub cones_normalised_after: usize,
    /// The first solve from the warm start of every step after the first centres each resting
    /// contact's friction (loaded, sticking, both points slower than `‖g‖ h`) at the warm
    /// start's (the last solution's), as it centres its normal impulse, instead of at zero:
    /// the least change of all its impulses (`solve_step`). A warm start not solved so is
    /// solved again with the friction centred at zero before the paper's rows and the cold
    /// start. Off by default: it settles resting structures (a pyramid's step then mostly
    /// needs no Newton iteration) but lengthens hard steps elsewhere (README, "A resting
    /// contact keeps its friction from step to step").
    pub friction_centre_from_start: bool,
}

impl Default for StepperSettings {
    fn default() -> Self {
        Self {
            solver: SolveSettings::default(),
            max_halvings: 4,
            broad_phase: true,
            integrator: Integrator::Euler,
            energy_projection: true,
            proximal_weight: 1e-6,
            proximal_iterations: 3,
            gyroscopic: Gyroscopic::default(),
            closest_points: ClosestPoints::default(),
            friction_continuation: true,
            cones_from_start: true,
            cones_normalised: false,
            cones_normalised_after: 60,
            friction_centre_from_start: false,
        }
    }
}

/// Why a scene cannot be stepped.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StepperError {
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
    /// The scene asks for something the chosen integrator does not model.
    #[error("{0}")]
    Unsupported(String),
}

/// One contact (a pair of parts that has been within reach): its block, the bodies holding `F`
/// (body 1) and `G` (body 2), where its local variables sit in `z` while it takes part, and
/// its last solution while it does not.
#[derive(Debug, Clone)]
struct Slot<S: Space> {
    id: usize,
    block: Contact<S>,
    body1: usize,
    body2: usize,
    offset: usize,
    eval: ContactEval,
    /// Local variables: the warm start kept while the contact is out of the MCP.
    x: Vec<f64>,
    /// Whether both parts are bounded (only such pairs leave the MCP).
    bounded: bool,
    /// Out of the MCP: a lower bound on the distance of the parts (their distance when it
    /// was last computed, less the reach of every step since), valid while `clearance_round`
    /// is the stepper's current `reach_round`. 0: unknown.
    clearance: f64,
    clearance_round: u64,
    /// The reach the clearance was renewed for (the step's at its start).
    clearance_reach: f64,
    /// The pair of parts, as the broad phase names it.
    pair: PairKey,
    /// For block entry `(r, c)` at `c · total + r`, its position in the sparse Jacobian's
    /// values (`NO_ENTRY`: none).
    positions: Vec<usize>,
    /// Where its entries go in the dense Jacobian.
    dense: DensePlan,
}

impl<S: Space> Slot<S> {
    /// Whether the distance decides when it takes part: a rigid contact (a compliant layer
    /// keeps its state only inside the MCP).
    fn gated(&self) -> bool {
        self.block.quasi_rigid().is_none()
    }

    /// Its local variables in `z`.
    fn local<'a>(&self, z: &'a [f64]) -> &'a [f64] {
        &z[self.offset..self.offset + self.block.local_count()]
    }

    /// Its closest points `a₁, a₂` in `z` (`2 D` entries).
    fn points<'a>(&self, z: &'a [f64]) -> &'a [f64] {
        let r = self.block.kernel().points_range();
        &z[self.offset + r.start..self.offset + r.end]
    }

    /// Adds its Jacobian entries to the dense Jacobian `jac` (as [`BlockSlot::add_dense`]).
    fn add_dense(&mut self, layout: &VelocityLayout, jac: &mut DMatrix<f64>) {
        let mut plan = std::mem::take(&mut self.dense);
        plan.add(&self.view(layout), jac);
        self.dense = plan;
    }

    fn view<'a>(&'a self, layout: &VelocityLayout) -> BlockView<'a> {
        BlockView {
            offset: self.offset,
            local: self.block.local_count(),
            bodies: [layout.range(self.body1), layout.range(self.body2)],
            values: &self.eval.values,
            jacobian: &self.eval.jacobian,
        }
    }
}

/// A joint's slot; its multipliers follow the contacts' in `z`.
type JointSlot<S> = BlockSlot<S, JointBlock<S>>;
/// A support's slot (body 1 its body); its unknowns follow the joints' in `z`.
type SupportSlot<S> = BlockSlot<S, SupportBlock<S>>;

/// The unit normal of the contact's local variables `x` (body 1 at its current pose), and the
/// friction impulse `p_t t + p_o o` as a world vector in the contact block's own tangent
/// basis, for output.
fn output_normal_and_friction<S: Dynamics>(
    x: &[f64],
    body1: &crate::model::RigidBody<S>,
    block: &ContactBlock<S>,
    [p_t, p_o]: [f64; 2],
) -> (Vec<f64>, Vec<f64>) {
    let g = block.normal_source(x, &body1.pose);
    let len = S::norm(&g);
    let n = S::vector_from_fn(|k| g[k] / len);
    let [t, o] = tangent_axes::<S>(&n, &block.tangent_reference());
    let friction = (0..S::DIM).map(|k| p_t * t[k] + p_o * o[k]).collect();
    ((0..S::DIM).map(|k| n[k]).collect(), friction)
}

/// The tangent directions `t`, `o` of the rows FR (zero-padded to three entries; `o` zero in
/// 2D) at the unit normal `n` with the tangent reference `e`.
fn tangent_axes<S: Dynamics>(n: &S::Vector, e: &S::Vector) -> [[f64; 3]; 2] {
    let pad = |v: &S::Vector| -> [f64; 3] {
        std::array::from_fn(|k| if k < S::DIM { v[k] } else { 0.0 })
    };
    crate::contact::tangent_directions(S::DIM, &pad(n), &pad(e))
}

/// The geometrically implicit stepper: a scene, its candidate contacts and the warm start.
#[derive(Clone)]
pub struct ImplicitStepper<S: Dynamics> {
    /// The scene, advanced in place.
    pub scene: Scene<S>,
    /// Simulated time.
    pub time: f64,
    /// Whole steps taken.
    steps: u64,
    settings: StepperSettings,
    layout: VelocityLayout,
    /// Every contact so far, by id.
    slots: Vec<Slot<S>>,
    /// The scene's joints, in scene order; their multipliers follow the contacts' in `z`.
    joints: Vec<JointSlot<S>>,
    /// The scene's supports, in scene order; their unknowns follow the joints' in `z`.
    supports: Vec<SupportSlot<S>>,
    /// The joint actuators' impulses of the step (`ν`-sized scratch).
    actuation: Vec<f64>,
    /// Per body, the joint actuators' impulse on it (a driven body's only) in the current
    /// (sub-)step attempt, and summed over the step's applied sub-steps (its required wrench).
    drive_pending: Vec<[f64; 6]>,
    drive_actuation: Vec<[f64; 6]>,
    /// When a step was halved, per joint the sum of its sub-steps' impulses on body 2 (force,
    /// then moment about the anchor, which moves by `O(h)` between the sub-steps).
    joint_sums: Vec<Vec<f64>>,
    /// The contacts in the step's MCP (indices into `slots`, ascending).
    active: Vec<usize>,
    /// Slot of each pair.
    slot_of: BTreeMap<PairKey, usize>,
    broad: BroadPhase,
    missed: Vec<PairKey>,
    /// How many pairs of parts may collide ([`Self::all_pairs`]): once every one of them is in
    /// the step's MCP the broad phase has nothing to add, and its queries are skipped.
    pair_count: usize,
    /// Scratch: whether each active contact is out of twice its reach (`update_contacts`).
    far: Vec<bool>,
    /// Number of contact updates so far: a pair's clearance holds only if it was renewed in
    /// the current one (a pair the broad phase skipped in between was not followed).
    reach_round: u64,
    /// The start-of-step state, for redoing a step.
    snapshot: Vec<(Pose<S>, Twist<S>)>,
    snapshot_z: Vec<f64>,
    /// The bodies and RATTLE's loaded contacts before a sub-step is applied, restored if it
    /// is refused for the energy it created (see [`ENERGY_GAIN`]).
    substep_bodies: Vec<(Pose<S>, Twist<S>)>,
    substep_loaded: Vec<bool>,
    /// The largest kinetic energy of the scene at the end of an accepted (sub-)step so far:
    /// the scale of the energy a sub-step may create (see [`ENERGY_GAIN`]).
    peak_kinetic: f64,
    /// The sparse Jacobian pattern of the current contact set (when the step is large enough),
    /// and the positions of the mass blocks in it.
    pattern: Option<SparseJacobian>,
    pattern_entries: Vec<(usize, usize)>,
    /// Each unknown's elimination stage in the pattern (see `build_pattern`).
    pattern_stages: Vec<u8>,
    mass_positions: Vec<usize>,
    solver: McpSolver,
    z: Vec<f64>,
    lower: Vec<f64>,
    upper: Vec<f64>,
    /// Mass matrices and free momenta of the moving bodies at the start of the step.
    mass: Vec<DMatrix<f64>>,
    momentum: Vec<f64>,
    last_z: Vec<f64>,
    /// Whether the evaluations at `last_z` include the Jacobian.
    last_full: bool,
    /// Which function evaluations write the rows alone.
    forecast: JacobianForecast,
    /// The closest points at the start of the previous step (for the predictor), and whether
    /// they are valid.
    previous_points: Vec<f64>,
    have_previous: bool,
    /// The closest points at the start of the current step.
    points: Vec<f64>,
    /// The contacts' normal sources ([`ContactBlock::normal_source`]) at the start of the
    /// current (sub-)step, for the RATTLE integrator's first kick (empty under the others).
    start_normals: Vec<f64>,
    /// Per halving depth, the state to return to if that (sub-)step fails.
    saved: Vec<Vec<f64>>,
    /// The warm start of the current (sub-)step, for its solve with the paper's cone rows
    /// after one with the rows measured in N·s (see [`StepperSettings::cones_from_start`]).
    warm_z: Vec<f64>,
    /// Whether the last `solve_step` measured any cone row in N·s from its start.
    cones_scaled: bool,
    /// Whether the last `solve_step` centred a resting contact's friction at its warm start's
    /// (`friction_centre_from_start`).
    friction_kept: bool,
    /// Continuation in `μ` (`continuation`): the active contacts' own friction, and the
    /// solution of the last stage that solved.
    stage_friction: Vec<Friction>,
    stage_z: Vec<f64>,
    /// The applied impulses `h λ_app` of the step (the midpoint integrator's velocity update).
    applied: Vec<f64>,
    /// The velocities `ν` of the two steps before the last (quasi-rigid warm start; the older
    /// one is valid if `have_older`).
    previous_z: Vec<f64>,
    /// The joints' multipliers the last whole step started from (the joints' warm start), and
    /// the current step's before they were extrapolated: the proximal centre (the least-change
    /// impulses are measured from the last step's, not from the guess).
    previous_joint: Vec<f64>,
    joint_start: Vec<f64>,
    /// Which joints' proximal centre may be extrapolated with their multipliers.
    joint_groups: joint_groups::JointGroups,
    older_z: Vec<f64>,
    have_older: bool,
    /// The twists at the start of the (sub-)step (the RATTLE integrator's second kick).
    start_velocity: Vec<f64>,
    /// The poses of all bodies and the points `a₁, a₂` of the active contacts at the start of
    /// the (sub-)step (the RATTLE integrator's first-kick directions).
    start_poses: Vec<Pose<S>>,
    start_pairs: Vec<f64>,
    /// The RATTLE integrator's second-kick workspace.
    kick: integrator::rattle::KickScratch,
    /// Per contact slot, the impulses `(p_n, p_t, p_o, p_r)` the RATTLE projection added to the
    /// MCP's in the last (sub-)step (empty under the other integrators).
    projected: Vec<[f64; 4]>,
    /// The energy the energy projection changed in the current step (J).
    energy_projected: f64,
    /// RATTLE: the current sub-step takes its contacts' terms at the end of the step — the
    /// slip rows' lever `a⁺ − c⁺` and the second kick's impulse directions `W(q⁺)` — instead
    /// of from the start-of-step points (set while a sub-step RATTLE's own terms failed is
    /// redone, see [`Self::attempt_step`]).
    first_order: bool,
    /// Sub-steps of the current step taken with [`Self::first_order`].
    first_order_substeps: usize,
    /// Residual scratch of the proximal iteration's check.
    scratch: Vec<f64>,
    /// When the step was halved: per contact slot, the sum over its sub-steps of the
    /// impulses `(p_n, p_t, p_o, p_r)` (reported instead of the last sub-step's).
    halved_sum: Vec<[f64; 4]>,
    halved: bool,
}

impl<S: Dynamics> std::fmt::Debug for ImplicitStepper<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImplicitStepper")
            .field("scene", &self.scene.name)
            .field("time", &self.time)
            .field("contacts", &self.active.len())
            .finish()
    }
}

/// The fraction of its largest kinetic energy so far (the energy its motion exchanges; at a
/// turning point the current one nears zero) that a passive scene may gain in one sub-step
/// before the sub-step is refused and halved: a step's own discretisation error is `O(h²)` of
/// it (RATTLE's energy projection even removes that from workless steps), a spurious root of
/// the step's MCP is of its order.
const ENERGY_GAIN: f64 = 1e-2;
/// Solves after the last stretch of a step that may each remove unloaded friction or rescale
/// cone rows (see [`ImplicitStepper::solve_step`]). Each is a warm re-solve, cheap against
/// the halving that follows a refusal; three were too few for the struck rows of 50 and 100,
/// where each solve can leave another contact beyond its cone by more than the tolerance.
const LAW_ROUNDS: usize = 10;

/// A contact's tangent reference `e` is kept from step to step while `|e·n| ≤` this (its
/// tangent basis then stays well conditioned, `‖e − (e·n) n‖ ≥ 0.43`); a new one, chosen
/// from the normal, has `|e·n| ≤ 1/√3`.
const KEEP_TANGENT_REFERENCE: f64 = 0.9;

/// Outer proximal solves allowed beyond [`StepperSettings::proximal_iterations`] while the
/// paper's rows at the last answer are within [`NEAR_TOLERANCE`] times the tolerance. There a
/// regularised solve that ends just inside the tolerance leaves the paper's rows just outside
/// it (its own residual plus the centre's move), and another outer solve, which starts on the
/// kept factorisation, usually lands inside. The last solve on the paper's rows instead is
/// singular along the impulses' continuum: from such points it failed after 167 and 139
/// iterations in the pyramid of 35's cold step, which was then halved. Farther from the
/// tolerance the slow case is a change of contact mode, where that Newton solve is fast and
/// more outer solves only crawl (the struck row of 50: 2.5e-6 → 1.4e-6 in five).
const NEAR_TOLERANCE_SOLVES: usize = 7;
/// The load (`μ p_n + ‖p‖_e`, in tolerances) below which a warm start's cone row keeps the
/// paper's units (see `solve_step`).
const CONE_LOAD_FLOOR: f64 = 1e3;
/// See [`NEAR_TOLERANCE_SOLVES`].
const NEAR_TOLERANCE: f64 = 10.0;
/// A friction outside its cone by this fraction of its load `μ p_n + ‖p‖` is far from any
/// solution, not a solve's last digits (see `ImplicitStepper::scale_cones_left`).
const FAR_FROM_CONE: f64 = 1e-3;

/// The joints' proximal weight relative to the contacts' `α`. Along the null space of
/// redundant joints (two hinges on one axis) only the proximal term fixes the impulses, and
/// the rows' residual `r` (within the tolerance) moves them by `r / ε` per step; the solver's
/// last residual has a consistent sign from step to step, so that move accumulates (two
/// coaxial hinges of a door: 1.6 % of their load after 1 s with `α`, 2e-4 with 100 `α`, 3e-5
/// with 1000 `α`). A firmer centre costs outer iterations: 2.9, 3.2 and 4.2 Newton
/// iterations per step on the four-bar linkage.
const JOINT_PROXIMAL: f64 = 100.0;
/// The friction coefficient `μ₀` below which the proximal weight of a contact's `σ` scales
/// with `μ²`, the scale of its row CS (see `set_proximal_weights`). At and above it the
/// weight is `α p² / v`: measured with `(μ/μ₀)²` at all `μ` (μ₀ = 0.5) and with `μ²` instead,
/// both changed which soak seeds fail (532 and 534 of 540 pass) and `μ²` made the struck row
/// of 50 halve its first step twice; this `μ₀` keeps the scenes at `μ ≥ 0.5` as they were.
const SIGMA_WEIGHT_MU: f64 = 0.5;
/// Rounding allowed relative to the energies' magnitudes (the potential's origin is arbitrary,
/// so rounding is relative to what is stored; the solve's tolerance is 1e-10).
const ENERGY_ROUNDING: f64 = 1e-9;

impl<S: Dynamics> ImplicitStepper<S> {
    /// Checks the scene's pairs of parts and builds the contacts within reach of the first
    /// step, with their initial guesses (closest points from a proximity query, zero impulses).
    pub fn new(scene: Scene<S>, settings: StepperSettings) -> Result<Self, StepperError> {
        let solver = McpSolver::new(settings.solver.clone())?;
        let layout = scene.velocity_layout();
        let nv = layout.len();
        let z = scene.velocities();
        let mut stepper = Self {
            time: 0.0,
            steps: 0,
            settings,
            slots: Vec::new(),
            joints: Vec::new(),
            supports: Vec::new(),
            joint_sums: Vec::new(),
            drive_pending: Vec::new(),
            drive_actuation: Vec::new(),
            actuation: vec![0.0; nv],
            active: Vec::new(),
            slot_of: BTreeMap::new(),
            broad: BroadPhase::default(),
            missed: Vec::new(),
            pair_count: 0,
            far: Vec::new(),
            reach_round: 0,
            snapshot: Vec::new(),
            snapshot_z: Vec::new(),
            substep_bodies: Vec::new(),
            substep_loaded: Vec::new(),
            peak_kinetic: 0.0,
            pattern: None,
            pattern_entries: Vec::new(),
            pattern_stages: Vec::new(),
            mass_positions: Vec::new(),
            solver,
            last_z: Vec::new(),
            last_full: false,
            forecast: JacobianForecast::default(),
            previous_points: Vec::new(),
            have_previous: false,
            points: Vec::new(),
            start_normals: Vec::new(),
            saved: Vec::new(),
            warm_z: Vec::new(),
            cones_scaled: false,
            friction_kept: false,
            stage_friction: Vec::new(),
            stage_z: Vec::new(),
            applied: vec![0.0; nv],
            previous_z: Vec::new(),
            previous_joint: Vec::new(),
            joint_start: Vec::new(),
            joint_groups: Default::default(),
            older_z: Vec::new(),
            have_older: false,
            start_velocity: vec![0.0; nv],
            start_poses: Vec::new(),
            start_pairs: Vec::new(),
            kick: Default::default(),
            projected: Vec::new(),
            energy_projected: 0.0,
            first_order: false,
            first_order_substeps: 0,
            scratch: Vec::new(),
            halved_sum: Vec::new(),
            halved: false,
            z,
            lower: vec![f64::NEG_INFINITY; nv],
            upper: vec![f64::INFINITY; nv],
            mass: Vec::new(),
            momentum: vec![0.0; nv],
            layout,
            scene,
        };
        stepper.joints = stepper
            .scene
            .joints
            .iter()
            .map(|j| JointSlot::new(JointBlock::new(j.clone()), [j.body1, Some(j.body2)]))
            .collect();
        let joints: Vec<_> = stepper
            .joints
            .iter()
            .map(|j| (&j.block, j.bodies))
            .collect();
        stepper.joint_groups = joint_groups::JointGroups::new(
            &joints,
            &stepper.layout,
            stepper.scene.bodies.len(),
            |b| b.map_or_else(Pose::identity, |b| stepper.scene.bodies[b].pose),
        );
        stepper.scheme().check(&stepper.scene)?;
        stepper.scene.set_drives(0.0, stepper.scene.time_step);
        stepper.supports = stepper
            .scene
            .supports
            .iter()
            .filter(|s| s.friction.mu > 0.0)
            .map(|s| SupportSlot::new(SupportBlock::new(*s), [Some(s.body), None]))
            .collect();
        let mut pairs = Vec::new();
        stepper.all_pairs(&mut pairs);
        stepper.pair_count = pairs.len();
        stepper.update_contacts(stepper.scene.time_step)?;
        if !stepper.joints.is_empty() || !stepper.supports.is_empty() {
            stepper.rebuild();
        }
        Ok(stepper)
    }

    /// The settings the steps are solved with.
    pub fn settings(&self) -> &StepperSettings {
        &self.settings
    }

    /// Solves the next steps with `settings`, keeping the state: the bodies, the contacts and
    /// the warm start (a copy of a stepper, `clone`, then steps on from the same state under
    /// other settings; see [`crate::study::paired`]). The integrator, the closest-point form
    /// and the broad phase shape that state (the integrator's kicks, the contact blocks' rows,
    /// the contact set), so a change of any of them is refused, and so are invalid solver
    /// settings; the stepper is then unchanged.
    pub fn set_settings(&mut self, settings: StepperSettings) -> Result<(), StepperError> {
        self.check_settings(&settings)?;
        self.solver.settings = settings.solver.clone();
        self.settings = settings;
        Ok(())
    }

    /// Whether [`Self::set_settings`] would accept `settings` (the stepper unchanged).
    pub fn check_settings(&self, settings: &StepperSettings) -> Result<(), StepperError> {
        let fixed = [
            (
                "integrator",
                settings.integrator != self.settings.integrator,
            ),
            (
                "closest_points",
                settings.closest_points != self.settings.closest_points,
            ),
            (
                "broad_phase",
                settings.broad_phase != self.settings.broad_phase,
            ),
        ];
        if let Some((name, _)) = fixed.iter().find(|(_, changed)| *changed) {
            return Err(StepperError::Unsupported(format!(
                "`{name}` shapes the stepper's state and cannot change between steps"
            )));
        }
        settings.solver.validate()?;
        Ok(())
    }

    /// How far the ball of a part (radius `r`, centre at distance `arm` from the body's
    /// origin) of body `b` can be trusted to move in a step of `h`, times `scale`: twice the
    /// sweep at the current speed plus what gravity adds, and a hundredth of the radius so
    /// that resting neighbours do not flicker in and out.
    fn sweep(&self, b: usize, r: f64, arm: f64, h: f64, scale: f64) -> f64 {
        let body = &self.scene.bodies[b];
        if body.fixed && !body.driven {
            return 0.0;
        }
        let v = S::norm(&body.twist.linear);
        let w = (0..S::ANGULAR_DIM)
            .map(|k| body.twist.angular[k] * body.twist.angular[k])
            .sum::<f64>()
            .sqrt();
        let g = S::norm(&self.scene.gravity);
        scale * (2.0 * h * (v + w * (arm + r)) + h * h * g + 0.01 * r)
    }

    /// Brings the contact set up to date for a step of `h` from the current state: pairs
    /// within reach enter (new pairs get a slot and an initial guess), bounded pairs out of
    /// twice that reach and without impulse leave. Rebuilds `z` if the set changed.
    fn update_contacts(&mut self, h: f64) -> Result<(), StepperError> {
        let all = !self.settings.broad_phase;
        let mut changed = false;
        if !all && !self.active.is_empty() {
            // Leave: out of twice the reach, no normal impulse. Only bounded pairs are in or
            // out of the broad phase's set; without one the query is not needed.
            let mut broad = std::mem::take(&mut self.broad);
            if self.active.iter().any(|&k| self.slots[k].bounded) {
                broad.query(&self.scene, |b, r, arm| self.sweep(b, r, arm, h, 2.0));
            }
            let keep = &broad.pairs;
            let before = self.active.len();
            let mut far = std::mem::take(&mut self.far);
            far.clear();
            for &k in &self.active {
                let slot = &self.slots[k];
                far.push(slot.gated() && self.gap_now(slot) > self.pair_reach(k, h, 2.0));
            }
            let (z, slots) = (&self.z, &self.slots);
            let mut i = 0;
            self.active.retain(|&k| {
                let slot = &slots[k];
                let out_of_reach = far[i];
                i += 1;
                let in_broad = !slot.bounded || keep.binary_search(&slot.pair).is_ok();
                (in_broad && !out_of_reach) || slot.block.normal_impulse(slot.local(z)) > 0.0
            });
            self.far = far;
            changed |= self.active.len() != before;
            self.broad = broad;
        }
        if !all && self.active.len() == self.pair_count {
            // Every pair is in already: nothing can enter, and no pair out of the MCP has a
            // clearance to follow.
            self.reach_round += 1;
            if changed {
                self.rebuild();
            }
            return Ok(());
        }
        let mut broad = std::mem::take(&mut self.broad);
        let mut result = Ok(());
        if all {
            self.all_pairs(&mut broad.pairs);
        } else {
            broad.query(&self.scene, |b, r, arm| self.sweep(b, r, arm, h, 1.0));
            result = self.keep_within_reach(&mut broad.pairs, h);
        }
        let result = result.and_then(|()| self.enter(&broad.pairs, &mut changed));
        self.broad = broad;
        result?;
        if changed {
            self.rebuild();
        }
        Ok(())
    }

    /// Every pair of parts of different bodies, not both fixed and not linked by a joint
    /// (broad phase off).
    fn all_pairs(&self, pairs: &mut Vec<PairKey>) {
        pairs.clear();
        let bodies = &self.scene.bodies;
        for i in 0..bodies.len() {
            for j in i + 1..bodies.len() {
                if (bodies[i].fixed && bodies[j].fixed) || !self.scene.may_collide(i, j) {
                    continue;
                }
                for pi in 0..bodies[i].shape.parts().len() {
                    for pj in 0..bodies[j].shape.parts().len() {
                        pairs.push((i, pi, j, pj));
                    }
                }
            }
        }
    }

    /// Adds the given pairs (sorted) to the step's contacts; new pairs get the next ids.
    fn enter(&mut self, pairs: &[PairKey], changed: &mut bool) -> Result<(), StepperError> {
        for &pair in pairs {
            let k = self.slot_for(pair)?;
            if self.active.binary_search(&k).is_ok() {
                continue;
            }
            // Entering (again): closest points from the current poses, the layer undeflected
            // at that distance.
            let mut x = Self::initial_guess(&self.scene, &self.slots[k])?;
            quasi::initialize(&self.scene, &mut self.slots[k], &mut x);
            // A fresh tangent reference from the entering normal, kept while the contact
            // lasts (`renew_tangent_reference`).
            let slot = &mut self.slots[k];
            let n = slot
                .block
                .kernel()
                .normal_source(&x, &self.scene.bodies[slot.body1].pose);
            if S::DIM == 3 && S::norm(&n) > 0.0 {
                let _ = slot
                    .block
                    .set_tangent_reference(tangent_reference_for::<S>(&n));
            }
            slot.x = x;
            let at = self.active.partition_point(|&a| a < k);
            self.active.insert(at, k);
            *changed = true;
        }
        Ok(())
    }

    /// The slot of a pair of parts, made (with the next id) when the pair is first met.
    fn slot_for(&mut self, pair: PairKey) -> Result<usize, StepperError> {
        if let Some(&k) = self.slot_of.get(&pair) {
            return Ok(k);
        }
        let k = self.slots.len();
        let (i, pi, j, pj) = pair;
        let mut slot = Self::candidate(&self.scene, i, pi, j, pj, k)?;
        quasi::attach(&self.scene, &mut slot, self.settings.integrator)?;
        if slot.block.quasi_rigid().is_none() {
            slot.block
                .kernel_mut()
                .set_closest_points(self.settings.closest_points);
        }
        self.slots.push(slot);
        self.slot_of.insert(pair, k);
        Ok(k)
    }

    /// Removes from the broad phase's `pairs` the rigid pairs out of the MCP whose parts are
    /// farther apart than their reach in a step of `h`. Bounding balls are coarse for long or
    /// flat parts, and an unbounded ground reaches every body above it; a block of two parts
    /// far apart is not only useless but hard: the closest points of flat sides facing each
    /// other are barely unique. The distance is computed when the clearance known from an
    /// earlier one is used up or was not followed through the last update.
    fn keep_within_reach(&mut self, pairs: &mut Vec<PairKey>, h: f64) -> Result<(), StepperError> {
        self.reach_round += 1;
        let round = self.reach_round;
        let mut kept = 0;
        for i in 0..pairs.len() {
            let pair = pairs[i];
            let k = self.slot_for(pair)?;
            let within = if !self.slots[k].gated() || self.active.binary_search(&k).is_ok() {
                true
            } else {
                let reach = self.pair_reach(k, h, 1.0);
                let slot = &self.slots[k];
                let known = if slot.clearance_round + 1 == round {
                    slot.clearance
                } else {
                    0.0
                };
                let clearance = if known > reach {
                    known - reach
                } else {
                    let x = Self::initial_guess(&self.scene, slot)?;
                    let kernel = slot.block.kernel();
                    (distance(kernel.a1(&x), kernel.a2(&x)) - reach).max(0.0)
                };
                let slot = &mut self.slots[k];
                slot.clearance = clearance;
                slot.clearance_round = round;
                slot.clearance_reach = reach;
                clearance == 0.0
            };
            if within {
                pairs[kept] = pair;
                kept += 1;
            }
        }
        pairs.truncate(kept);
        Ok(())
    }

    /// How far the parts of contact `k` may approach each other in a step of `h`: the sum of
    /// their bodies' sweeps (see `sweep`) for the parts' bounding balls, times `scale`; a
    /// fixed body does not move, an unbounded part of a moving one reaches everything.
    fn pair_reach(&self, k: usize, h: f64, scale: f64) -> f64 {
        let (i, pi, j, pj) = self.slots[k].pair;
        [(i, pi), (j, pj)]
            .iter()
            .map(|&(b, p)| {
                let body = &self.scene.bodies[b];
                let part = &body.shape.parts()[p];
                if body.fixed && !body.driven {
                    return 0.0;
                }
                match (part.interior_point(), part.bounding_radius()) {
                    (Some(c), Some(r)) => {
                        let arm = S::norm(&(body.pose.transform_point(&c) - body.pose.position));
                        self.sweep(b, r, arm, h, scale)
                    }
                    _ => f64::INFINITY,
                }
            })
            .sum()
    }

    /// The distance of contact `slot`'s closest points in `z` (its last solution).
    fn gap_now(&self, slot: &Slot<S>) -> f64 {
        let x = slot.local(&self.z);
        let kernel = slot.block.kernel();
        distance(kernel.a1(x), kernel.a2(x))
    }

    /// Lays out `z` anew for the current contact set: twists, then each contact's local
    /// variables (from `z` for contacts that stay, from their slot for those that enter).
    fn rebuild(&mut self) {
        let nv = self.layout.len();
        // Save the local variables of every contact that was in the old layout.
        for slot in &mut self.slots {
            if slot.offset != NO_ENTRY {
                let n = slot.block.local_count();
                slot.x
                    .copy_from_slice(&self.z[slot.offset..slot.offset + n]);
                slot.offset = NO_ENTRY;
            }
        }
        for joint in &mut self.joints {
            joint.save(&self.z);
        }
        for support in &mut self.supports {
            support.save(&self.z);
        }
        self.z.truncate(nv);
        self.lower.truncate(nv);
        self.upper.truncate(nv);
        for &k in &self.active {
            let slot = &mut self.slots[k];
            slot.offset = self.z.len();
            let (lo, hi) = slot.block.bounds();
            self.z.extend_from_slice(&slot.x);
            self.lower.extend_from_slice(&lo);
            self.upper.extend_from_slice(&hi);
        }
        for joint in &mut self.joints {
            joint.lay_out(
                &mut self.z,
                &mut self.lower,
                &mut self.upper,
                self.scene.time_step,
            );
        }
        for support in &mut self.supports {
            support.lay_out(
                &mut self.z,
                &mut self.lower,
                &mut self.upper,
                self.scene.time_step,
            );
        }
        self.have_previous = false;
        self.last_z.clear();
        self.pattern = None;
    }

    /// The sparse pattern of the step's Jacobian for the current contact set, and where each
    /// block entry goes in it.
    fn build_pattern(&mut self) {
        let n = self.z.len();
        let entries = &mut self.pattern_entries;
        entries.clear();
        for b in 0..self.scene.bodies.len() {
            if let Some(r) = self.layout.range(b) {
                for row in r.clone() {
                    entries.extend(r.clone().map(|col| (row, col)));
                }
            }
        }
        for &k in &self.active {
            self.slots[k].view(&self.layout).pattern_entries(entries);
        }
        for joint in &self.joints {
            joint.view(&self.layout).pattern_entries(entries);
        }
        for support in &self.supports {
            support.view(&self.layout).pattern_entries(entries);
        }
        let mut pattern = SparseJacobian::default();
        pattern
            .set_pattern(n, entries)
            .expect("the step's pattern lies inside its matrix");
        // Elimination stages: each contact's closest points and their multipliers first
        // (a regular KKT block where the closest points are unique), then the twists, then
        // the impulses, slips and multipliers of contacts, joints and supports, whose own
        // rows (non-penetration, cone, joint drift) depend on them only through the twists.
        let stages = &mut self.pattern_stages;
        stages.clear();
        stages.resize(n, 2);
        for b in 0..self.scene.bodies.len() {
            if let Some(r) = self.layout.range(b) {
                stages[r].fill(1);
            }
        }
        for &k in &self.active {
            let slot = &self.slots[k];
            let points = slot.offset..slot.offset + slot.block.layout().normal;
            stages[points].fill(0);
        }
        pattern.set_stages(stages);
        self.mass_positions.clear();
        for b in 0..self.scene.bodies.len() {
            if let Some(r) = self.layout.range(b) {
                for col in r.clone() {
                    for row in r.clone() {
                        self.mass_positions
                            .push(pattern.position(row, col).unwrap_or(NO_ENTRY));
                    }
                }
            }
        }
        for &k in &self.active {
            let mut positions = std::mem::take(&mut self.slots[k].positions);
            self.slots[k]
                .view(&self.layout)
                .positions(&pattern, &mut positions);
            self.slots[k].positions = positions;
        }
        for joint in &mut self.joints {
            joint.set_positions(&self.layout, &pattern);
        }
        for support in &mut self.supports {
            support.set_positions(&self.layout, &pattern);
        }
        self.pattern = Some(pattern);
    }

    /// Collects in `missed` the pairs out of the step's MCP whose plain bounding balls
    /// overlap now (after a step of `h`): they may have touched during the step. True if any.
    /// A pair left out for its distance is not, if the reach of its bodies' speeds after the
    /// step (an impact may have set a resting body moving) is within the distance it had.
    fn missed_pairs(&mut self, h: f64) -> bool {
        self.missed.clear();
        if !self.settings.broad_phase || self.active.len() == self.pair_count {
            return false;
        }
        let mut broad = std::mem::take(&mut self.broad);
        broad.query(&self.scene, |_, _, _| 0.0);
        for pair in &broad.pairs {
            let out = self.slot_of.get(pair).is_none_or(|&k| {
                let slot = &self.slots[k];
                if self.active.binary_search(&k).is_ok() {
                    return false;
                }
                if slot.clearance <= 0.0 || slot.clearance_round != self.reach_round {
                    return true;
                }
                // Left out for its distance: out of reach for the whole step if its bodies'
                // speeds now reach no farther than the distance it had, and otherwise if its
                // parts are still apart (a thin part crossed within the step is `tunnelled`'s).
                if self.pair_reach(k, h, 1.0) <= slot.clearance + slot.clearance_reach {
                    return false;
                }
                Self::initial_guess(&self.scene, slot).ok().is_none_or(|x| {
                    let kernel = slot.block.kernel();
                    distance(kernel.a1(&x), kernel.a2(&x)) <= 0.0
                })
            });
            if out {
                self.missed.push(*pair);
            }
        }
        self.broad = broad;
        !self.missed.is_empty()
    }

    /// Chooses `F` and `G` for parts `pi` of body `i` and `pj` of body `j`.
    fn candidate(
        scene: &Scene<S>,
        i: usize,
        pi: usize,
        j: usize,
        pj: usize,
        id: usize,
    ) -> Result<Slot<S>, StepperError> {
        let (bi, bj) = (&scene.bodies[i], &scene.bodies[j]);
        let (part_i, part_j) = (&bi.shape.parts()[pi], &bj.shape.parts()[pj]);
        let single_i = part_i.len() == 1;
        let single_j = part_j.len() == 1;
        // body1 holds F (one function if either side is one), body2 holds G.
        let (b1, p1, b2, p2) = match (single_i, single_j) {
            (true, true) | (false, false) if bi.fixed && !bj.fixed => (j, pj, i, pi),
            (true, _) | (false, false) => (i, pi, j, pj),
            (false, true) => (j, pj, i, pi),
        };
        let f = scene.bodies[b1].shape.parts()[p1].clone();
        let g = scene.bodies[b2].shape.parts()[p2].clone();
        let friction: Friction = scene.friction_between(b1, b2);
        let block = ContactBlock::between(f, g, friction).map_err(|e| StepperError::Contact {
            body1: scene.bodies[b1].name.clone(),
            body2: scene.bodies[b2].name.clone(),
            reason: e.to_string(),
        })?;
        let eval = block.new_eval();
        let bounded = [(b1, p1), (b2, p2)]
            .iter()
            .all(|&(b, p)| scene.bodies[b].shape.parts()[p].bounding_radius().is_some());
        Ok(Slot {
            id,
            x: vec![0.0; block.local_count()],
            block: block.into(),
            body1: b1,
            body2: b2,
            offset: NO_ENTRY,
            eval,
            bounded,
            clearance: 0.0,
            clearance_round: 0,
            clearance_reach: 0.0,
            positions: Vec::new(),
            dense: DensePlan::default(),
            pair: (i, pi, j, pj),
        })
    }

    /// Closest points and KKT multipliers of the contact at the current poses; zero impulses.
    fn initial_guess(scene: &Scene<S>, slot: &Slot<S>) -> Result<Vec<f64>, StepperError> {
        let (b1, b2) = (&scene.bodies[slot.body1], &scene.bodies[slot.body2]);
        slot.block
            .kernel()
            .closest_point_guess(&b1.pose, &b2.pose)
            .map_err(|e| StepperError::Proximity {
                body1: b1.name.clone(),
                body2: b2.name.clone(),
                reason: e.to_string(),
            })
    }

    /// Number of contacts in the step's MCP.
    pub fn contact_count(&self) -> usize {
        self.active.len()
    }

    /// Number of pairs of parts that have been contacts so far (the next new contact's id).
    pub fn contacts_seen(&self) -> usize {
        self.slots.len()
    }

    /// Size of the step's MCP.
    pub fn problem_size(&self) -> usize {
        self.z.len()
    }

    /// The state of every contact in the step's MCP (from the last solution), by id.
    pub fn contacts(&self) -> Vec<ContactState> {
        self.active
            .iter()
            .map(|&k| {
                let slot = &self.slots[k];
                let x = slot.local(&self.z);
                let a1 = slot.block.kernel().a1(x).to_vec();
                let a2 = slot.block.kernel().a2(x).to_vec();
                let gap = a1
                    .iter()
                    .zip(&a2)
                    .map(|(p, q)| (p - q) * (p - q))
                    .sum::<f64>()
                    .sqrt();
                let [normal_impulse, f0, f1, f2] = if self.halved {
                    self.halved_sum[k]
                } else {
                    self.step_impulses(k)
                };
                let tangential = if S::DIM == 2 {
                    f0.abs()
                } else {
                    (f0 * f0 + f1 * f1).sqrt()
                };
                let b1 = &self.scene.bodies[slot.body1];
                let p2 = S::vector_from_fn(|k| a2[k]);
                let f = slot.block.kernel().function_f();
                let e2 = crate::geometry::world_eval(f, &b1.pose, &p2);
                let mut fa2 = e2.value;
                let quasi = self.quasi_state_of(slot);
                let (gap, penetration) = match &quasi {
                    // Two intersections: the points are `t ‖ĝ‖` apart, on the far sides when
                    // `t < 0` (C3 keeps `t ≥ 0` to the tolerance).
                    None if slot.block.kernel().two_intersections() => {
                        if slot.block.kernel().far_sides(x) {
                            (-gap, gap)
                        } else {
                            (gap, 0.0)
                        }
                    }
                    // The layered sets are `t ‖ĝ‖` apart as above; the gap less the deflection.
                    Some(q) if slot.block.kernel().two_intersections() => {
                        if slot.block.kernel().far_sides(x) {
                            (-gap - q.delta[0], gap)
                        } else {
                            (gap - q.delta[0], 0.0)
                        }
                    }
                    Some(q) => {
                        if let Some(law) = slot.block.quasi_rigid()
                            && law.side == crate::contact::CompliantSide::F
                        {
                            fa2 += law.deflection_bar(x);
                        }
                        let slope = S::norm(&e2.gradient);
                        let overlap = if fa2 < 0.0 && slope > 0.0 {
                            -fa2 / slope
                        } else {
                            0.0
                        };
                        (gap - q.delta[0], overlap)
                    }
                    None if fa2 < 0.0 => {
                        let depth = crate::geometry::depth_below_surface(f, &b1.pose, &p2);
                        (-depth, depth)
                    }
                    None => (gap, 0.0),
                };
                let (normal, friction) =
                    output_normal_and_friction::<S>(x, b1, slot.block.kernel(), [f0, f1]);
                let (i, pi, _, pj) = slot.pair;
                ContactState {
                    id: slot.id,
                    body1: slot.body1,
                    body2: slot.body2,
                    parts: if slot.body1 == i { [pi, pj] } else { [pj, pi] },
                    a1,
                    a2,
                    gap,
                    normal_impulse,
                    friction_impulse: tangential,
                    normal,
                    friction,
                    torsion_impulse: if S::DIM == 3 { f2 } else { 0.0 },
                    sigma: slot.block.kernel().slip(x),
                    penetration,
                    quasi_rigid: quasi,
                }
            })
            .collect()
    }

    /// The joints' states after the last step, in scene order: the step's impulse on body 2
    /// (summed over the sub-steps of a halved step) and the drift at the current poses.
    pub fn joints(&self) -> Vec<JointState> {
        let d = S::DIM;
        (0..self.joints.len())
            .map(|j| {
                let joint = &self.joints[j];
                let p = if self.halved {
                    self.joint_sums[j].clone()
                } else {
                    self.joint_impulse(j)
                };
                let (pose1, pose2) = self.joint_poses(j);
                let actuator = joint
                    .block
                    .actuator_wrenches(
                        &pose1,
                        &pose2,
                        &self.twist_of(joint.bodies[0], None),
                        &self.twist_of(joint.bodies[1], None),
                        self.time,
                    )
                    .map(|(f, _)| f);
                JointState {
                    index: j,
                    actuator,
                    body1: joint.bodies[0],
                    body2: joint.block.joint().body2,
                    impulse: p[..d].to_vec(),
                    moment: p[d..S::DOF].to_vec(),
                    drift: joint.block.drift(&pose1, &pose2),
                    limit_impulse: joint.block.joint().limits.map(|_| p[S::DOF]),
                    friction_impulse: joint.block.joint().friction.map(|_| p[S::DOF + 1]),
                }
            })
            .collect()
    }

    /// The largest drift of any joint at the current poses (0 without joints).
    pub fn joint_drift(&self) -> f64 {
        (0..self.joints.len())
            .map(|j| {
                let (pose1, pose2) = self.joint_poses(j);
                self.joints[j].block.drift(&pose1, &pose2)
            })
            .fold(0.0, f64::max)
    }

    /// The integrator's part of the step.
    fn scheme(&self) -> &'static dyn integrator::Scheme<S> {
        integrator::scheme(self.settings.integrator)
    }

    /// The joint actuators' impulses `h w` on driven bodies (which `ν` has no rows for) at
    /// time `t` and the current state, into `drive_pending`: part of their required wrench.
    fn actuator_impulses_on_drives(&mut self, t: f64, h: f64) {
        self.drive_pending.clear();
        for j in 0..self.joints.len() {
            let joint = &self.joints[j];
            let driven = joint
                .bodies
                .map(|b| b.filter(|&b| self.scene.bodies[b].driven));
            if driven.iter().all(Option::is_none) {
                continue;
            }
            let (pose1, pose2) = self.joint_poses(j);
            let [b1, b2] = joint.bodies;
            let (t1, t2) = (self.twist_of(b1, None), self.twist_of(b2, None));
            let Some((_, wrenches)) = joint.block.actuator_wrenches(&pose1, &pose2, &t1, &t2, t)
            else {
                continue;
            };
            self.drive_pending.resize(self.scene.bodies.len(), [0.0; 6]);
            for (b, w) in driven.into_iter().zip(wrenches) {
                if let Some(b) = b {
                    for (p, wi) in self.drive_pending[b].iter_mut().zip(w) {
                        *p += h * wi;
                    }
                }
            }
        }
    }

    /// Every driven body's required wrench over the last step: the force and the torque about
    /// its origin (world frame; `S::DOF` entries) its drive exerts to keep it on its prescribed
    /// motion against the contacts, joints and joint actuators acting on it — minus the sum of
    /// their impulses on it over the whole step (a halved step's sub-steps summed), divided by
    /// the step. A driven body's own mass and weight are not part of the model (it is an
    /// external agent), so they are not in it.
    pub fn drives(&self) -> Vec<crate::stepper::DriveState> {
        let driven: Vec<usize> = (0..self.scene.bodies.len())
            .filter(|&b| self.scene.bodies[b].driven)
            .collect();
        if driven.is_empty() {
            return Vec::new();
        }
        let (d, dof) = (S::DIM, S::DOF);
        let h = self.scene.time_step;
        let mut sums = vec![[0.0; 6]; self.scene.bodies.len()];
        // The impulse `p` at world point `at` on body `b`, about its origin.
        let mut add = |b: usize, p: &S::Vector, at: &S::Vector, torque: &[f64]| {
            let c = self.scene.bodies[b].pose.position;
            let w = crate::model::Wrench::<S>::from_force_at(*p, &(*at - c));
            let mut out = [0.0; 6];
            w.write_to(&mut out[..dof]);
            for (k, s) in sums[b].iter_mut().enumerate().take(dof) {
                *s += out[k] + if k >= d { torque[k - d] } else { 0.0 };
            }
        };
        for c in self.contacts() {
            let n = S::vector_from_fn(|k| c.normal[k]);
            let f = S::vector_from_fn(|k| c.friction[k]);
            let p = n * c.normal_impulse + f;
            let torsion: Vec<f64> = (0..S::ANGULAR_DIM)
                .map(|k| {
                    if d == 3 {
                        c.torsion_impulse * c.normal[k]
                    } else {
                        0.0
                    }
                })
                .collect();
            let minus: Vec<f64> = torsion.iter().map(|t| -t).collect();
            let (a1, a2) = (
                S::vector_from_fn(|k| c.a1[k]),
                S::vector_from_fn(|k| c.a2[k]),
            );
            add(c.body2, &p, &a2, &torsion);
            add(c.body1, &(p * -1.0), &a1, &minus);
        }
        for js in self.joints() {
            let joint = self.joints[js.index].block.joint();
            let pose2 = self.scene.bodies[joint.body2].pose;
            let anchor = pose2.transform_point(&joint.anchor[1]);
            let p = S::vector_from_fn(|k| js.impulse[k]);
            let minus: Vec<f64> = js.moment.iter().map(|m| -m).collect();
            add(joint.body2, &p, &anchor, &js.moment);
            if let Some(b1) = joint.body1 {
                add(b1, &(p * -1.0), &anchor, &minus);
            }
        }
        for (b, a) in self.drive_actuation.iter().enumerate() {
            for (s, v) in sums[b].iter_mut().zip(a) {
                *s += v;
            }
        }
        driven
            .into_iter()
            .map(|b| crate::stepper::DriveState {
                body: b,
                // `0 − x` keeps a zero wrench `+0` in the files.
                force: sums[b][..d].iter().map(|v| 0.0 - v / h).collect(),
                torque: sums[b][d..dof].iter().map(|v| 0.0 - v / h).collect(),
            })
            .collect()
    }

    /// Whether some joint has an actuator (which does work on the scene).
    fn has_actuators(&self) -> bool {
        self.joints
            .iter()
            .any(|j| j.block.joint().actuator.is_some())
    }

    /// Adds `h` times every joint actuator's wrenches at time `t`, at the bodies' current poses
    /// and the twists in `velocity` (`ν`; `None`: the bodies' own twists), into `out`
    /// (`ν`-sized).
    pub(super) fn add_actuator_impulses(
        &self,
        t: f64,
        h: f64,
        velocity: Option<&[f64]>,
        out: &mut [f64],
    ) {
        for j in 0..self.joints.len() {
            let joint = &self.joints[j];
            let (pose1, pose2) = self.joint_poses(j);
            let (t1, t2) = (
                self.twist_of(joint.bodies[0], velocity),
                self.twist_of(joint.bodies[1], velocity),
            );
            let Some((_, wrenches)) = joint.block.actuator_wrenches(&pose1, &pose2, &t1, &t2, t)
            else {
                continue;
            };
            for (b, w) in joint.bodies.into_iter().zip(wrenches) {
                if let Some(r) = b.and_then(|b| self.layout.range(b)) {
                    for (row, wi) in r.zip(w) {
                        out[row] += h * wi;
                    }
                }
            }
        }
    }

    /// The twist of body `b` (`S::DOF` entries; zero for the world and a fixed body): from
    /// `velocity` (`ν`) for a moving body if given, else its own (a driven body's drive).
    fn twist_of(&self, b: Option<usize>, velocity: Option<&[f64]>) -> [f64; 6] {
        let mut t = [0.0; 6];
        let Some(b) = b else { return t };
        let body = &self.scene.bodies[b];
        match (self.layout.range(b), velocity) {
            (Some(r), Some(v)) => t[..S::DOF].copy_from_slice(&v[r]),
            _ if !body.fixed || body.driven => body.twist.write_to(&mut t[..S::DOF]),
            _ => {}
        }
        t
    }

    /// The poses of joint `j`'s two bodies (the world at the identity).
    fn joint_poses(&self, j: usize) -> (Pose<S>, Pose<S>) {
        self.joint_poses_in(j, |b| self.scene.bodies[b].pose)
    }

    /// The poses of joint `j`'s two bodies with body `b` at `pose(b)` (the world at the
    /// identity).
    pub(super) fn joint_poses_in(
        &self,
        j: usize,
        pose: impl Fn(usize) -> Pose<S>,
    ) -> (Pose<S>, Pose<S>) {
        let joint = &self.joints[j];
        (
            joint.bodies[0].map_or_else(Pose::identity, &pose),
            pose(joint.block.joint().body2),
        )
    }

    /// Joint `j`'s impulse on body 2 in the last (sub-)step: force, then moment about the
    /// anchor (`S::DOF` entries), then the limits' and friction's impulses along the free
    /// coordinate (0 without them); under RATTLE the MCP's multipliers plus the projection's.
    fn joint_impulse(&self, j: usize) -> Vec<f64> {
        let joint = &self.joints[j];
        let n = joint.block.local_count();
        let (pose1, pose2) = self.joint_poses(j);
        let mut out = vec![0.0; S::DOF];
        let mut x = joint.local(&self.z).to_vec();
        let first: usize = self.joints[..j].iter().map(|j| j.block.local_count()).sum();
        if let Some(p) = self.kick.joint_projected.get(first..first + n) {
            for (xi, pi) in x.iter_mut().zip(p) {
                *xi += pi;
            }
        }
        joint.block.impulse_on_body2(&x, &pose1, &pose2, &mut out);
        let (limit, friction) = joint.block.coordinate_impulses(&x);
        out.extend([limit.unwrap_or(0.0), friction.unwrap_or(0.0)]);
        out
    }

    /// The impulses `(p_n, p_t, p_o, p_r)` of contact slot `k` in the last (sub-)step: the
    /// MCP's (a quasi-rigid contact's spring and core together), and under RATTLE the
    /// projection's.
    fn step_impulses(&self, k: usize) -> [f64; 4] {
        let slot = &self.slots[k];
        let x = slot.local(&self.z);
        let extra = self.projected.get(k).copied().unwrap_or([0.0; 4]);
        let mut out = [slot.block.normal_impulse(x) + extra[0], 0.0, 0.0, 0.0];
        for (i, p) in slot.block.kernel().friction_impulses(x).iter().enumerate() {
            out[1 + i] = p + extra[1 + i];
        }
        out
    }

    /// Adds the impulses of a sub-step of a halved step to the step's sums (the tangential
    /// ones in each sub-step's basis: in 3D the basis turns with the normal, by `O(h)`).
    fn add_substep_impulses(&mut self) {
        if !self.halved {
            self.halved = true;
            self.halved_sum.clear();
            self.halved_sum.resize(self.slots.len(), [0.0; 4]);
            self.joint_sums.clear();
            self.joint_sums
                .resize(self.joints.len(), vec![0.0; S::DOF + 2]);
        }
        for j in 0..self.joints.len() {
            let p = self.joint_impulse(j);
            for (sum, v) in self.joint_sums[j].iter_mut().zip(p) {
                *sum += v;
            }
        }
        for i in 0..self.active.len() {
            let k = self.active[i];
            let p = self.step_impulses(k);
            for (sum, v) in self.halved_sum[k].iter_mut().zip(p) {
                *sum += v;
            }
        }
    }

    /// Advances the scene by one time step `h = scene.time_step`, halving on failure, and
    /// redoing it if a pair left out of its MCP came within reach.
    pub fn step(&mut self) -> StepReport {
        let start = Instant::now();
        let h = self.scene.time_step;
        let mut report = StepReport::new(crate::mcp::SolverKind::PathSearch);
        if let Err(e) = self.update_contacts(h) {
            report.failure = Some(e.to_string());
            report.wall_time = start.elapsed();
            return report;
        }
        let time = self.time;
        self.snapshot.clear();
        self.snapshot
            .extend(self.scene.bodies.iter().map(|b| (b.pose, b.twist)));
        self.snapshot_z.clear();
        self.snapshot_z.extend_from_slice(&self.z);
        self.energy_projected = 0.0;
        self.first_order_substeps = 0;
        self.halved = false;
        self.drive_actuation.clear();
        self.kick.loaded_at_step.clone_from(&self.kick.loaded);
        loop {
            report.contacts = self.active.len();
            report.converged = super::halving::advance(self, h, 0, &mut report);
            // At most a few redos: each adds the pairs whose balls overlap at the end.
            if !report.converged || report.redos >= 3 || !self.missed_pairs(h) {
                break;
            }
            report.redos += 1;
            for (body, (pose, twist)) in self.scene.bodies.iter_mut().zip(&self.snapshot) {
                body.pose = *pose;
                body.twist = *twist;
            }
            self.time = time;
            self.energy_projected = 0.0;
            self.first_order_substeps = 0;
            self.halved = false;
            self.drive_actuation.clear();
            self.kick.loaded.clone_from(&self.kick.loaded_at_step);
            let layout_z = std::mem::take(&mut self.snapshot_z);
            self.z.clear();
            self.z.extend_from_slice(&layout_z);
            self.snapshot_z = layout_z;
            let mut changed = false;
            let missed = std::mem::take(&mut self.missed);
            let result = self.enter(&missed, &mut changed);
            self.missed = missed;
            if let Err(e) = result {
                report.converged = false;
                report.failure = Some(e.to_string());
                break;
            }
            if changed {
                self.rebuild();
                self.snapshot_z.clear();
                self.snapshot_z.extend_from_slice(&self.z);
            }
        }
        if report.converged {
            // Whole steps from t = 0: the time is k·h exactly, not a sum of rounded increments.
            self.steps += 1;
            self.time = self.steps as f64 * h;
        }
        report.energy_projection = self.energy_projected;
        report.first_order_substeps = self.first_order_substeps;
        report.wall_time = start.elapsed();
        report
    }

    /// One attempt at a (sub-)step of `h` at halving depth `depth` (the policy is
    /// [`super::halving`]): solved, checked and applied, or the state put back. The state to
    /// return to is kept in a per-depth buffer (allocated once).
    fn attempt_step(&mut self, h: f64, depth: usize, report: &mut StepReport) -> (bool, f64) {
        // Bodies driven by a table of poses: at its pose now, moving to its pose at t + h.
        self.scene.set_drives(self.time, h);
        if self.saved.len() <= depth {
            self.saved.resize_with(depth + 1, Vec::new);
        }
        let mut saved = std::mem::take(&mut self.saved[depth]);
        saved.clear();
        saved.extend_from_slice(&self.z);
        self.start_normals.clear();
        self.scheme().begin_substep(self);
        // Both points, before the predictor moves them (the RATTLE integrator's first kick).
        self.start_pairs.clear();
        for &k in &self.active {
            let slot = &self.slots[k];
            self.start_pairs.extend_from_slice(slot.points(&self.z));
        }
        self.start_guess(h, depth);
        // The fallback solvers (dense, each iteration an n × n factorisation) only at the last
        // halving depth: a step the path search cannot solve is most often solved by the path
        // search in halves, for a fraction of their cost (`tests/soak.rs`).
        let fallbacks = depth >= self.settings.max_halvings;
        // After the first step the warm start holds the last solution's impulses, and each
        // loaded contact's cone row is measured in N·s by them and, optionally, each resting
        // contact's friction centred at them (see `solve_step`); a warm start that does not
        // solve so is solved again with the friction centred at zero, then with the paper's
        // rows, as it was before that scaling, and only then from a cold start.
        let from_start = (self.settings.cones_from_start
            || self.settings.friction_centre_from_start)
            && self.steps > 0;
        if from_start {
            self.warm_z.clone_from(&self.z);
        }
        let mut solve = self.solve_step(h, fallbacks, from_start, from_start);
        report.count(&solve);
        let tol = self.settings.solver.tolerance;
        let mut near = solve.residual <= NEAR_TOLERANCE * tol;
        if !solve.converged() && self.friction_kept {
            self.z.copy_from_slice(&self.warm_z);
            solve = self.solve_step(h, fallbacks, from_start, false);
            report.count(&solve);
            near |= solve.residual <= NEAR_TOLERANCE * tol;
        }
        if !solve.converged() && self.cones_scaled {
            self.z.copy_from_slice(&self.warm_z);
            solve = self.solve_step(h, fallbacks, false, false);
            report.count(&solve);
            near |= solve.residual <= NEAR_TOLERANCE * tol;
        }
        // A sub-step that does not solve from the warm start (the last step's points
        // extrapolated, its impulses) is solved once more from a cold one before it is halved:
        // each rigid contact as if it entered now (closest points at the start poses, zero
        // impulse, then the impulse that stops it if it closes). The warm start assumes smooth
        // motion; where a contact point jumps within the step (a spinning rectangle or rhombus
        // landing on a face, the point going from a corner to the far side of the face) it
        // starts the solver where it stalls, and the halves stall likewise (soak seeds 235 and
        // 239 failed at every halving; from the cold start they solve at once or in halves).
        // Under RATTLE the retry is also first order: its slip rows' trapezoidal lever, the mean
        // of the start- and end-of-step points, is no point of a contact that jumped.
        // A first-order cold start that fails is followed by a second-order one: where no
        // point jumped, the first-order rows are another problem than the warm start's, and
        // not always an easier one (soak seed 132: a light superellipse wedged at μ = 1.43
        // failed at every halving from the first-order cold start and solves from the
        // second-order one).
        let cold_orders: &[bool] = if self.settings.integrator == Integrator::Rattle {
            &[true, false]
        } else {
            &[false]
        };
        for &first_order in cold_orders {
            if solve.converged() {
                break;
            }
            self.z.copy_from_slice(&saved);
            self.cold_start_contacts();
            self.predict_closing_impulses(h, true);
            self.first_order = first_order;
            solve = self.solve_step(h, fallbacks, false, false);
            report.count(&solve);
            report.cold_starts += 1;
            near |= solve.residual <= NEAR_TOLERANCE * tol;
        }
        // Continuation changes where the solve starts, which helps a search that stalled in a
        // valley of the friction rows far from any solution. A solve from either start that
        // ended within [`NEAR_TOLERANCE`] tolerances found its solution's valley and crept
        // there, which shorter steps cure: the sub-step is halved instead (the pyramid of 35's
        // cold step, 1.2e-10 against 1e-10, and the struck row of 100's strike, 6.2e-10 from
        // the warm start, both solved in halves, where every stage of the continuation crept
        // likewise).
        if !solve.converged() && self.settings.friction_continuation && !near {
            solve = self.solve_by_friction_continuation(h, fallbacks, &saved);
            report.count(&solve);
            report.friction_continuations += 1;
        }
        if !solve.converged() && fallbacks {
            report.largest_residual = self.largest_residual(h);
        }
        // A solution that carried a body through another within the step also satisfies the
        // end-of-step conditions (separated again, the normal reversed): it is refused, and
        // the halving takes smaller steps.
        let converged = solve.converged() && !self.tunnelled(h, &saved);
        let residual = solve.residual;
        report.solve = solve;
        let refused = if converged {
            self.apply_unless_energy_created(h, depth)
        } else {
            None
        };
        let applied = converged && refused.is_none();
        self.first_order_substeps += usize::from(applied && self.first_order);
        self.first_order = false;
        if applied {
            let nv = self.layout.len();
            // After the end of the sub-step: under RATTLE its projection's impulses are part
            // of it (before, the previous sub-step's were summed in their place).
            if depth > 0 {
                self.add_substep_impulses();
            }
            if !self.drive_pending.is_empty() {
                let n = self.drive_pending.len();
                self.drive_actuation.resize(n, [0.0; 6]);
                for (sum, p) in self.drive_actuation.iter_mut().zip(&self.drive_pending) {
                    for (a, b) in sum.iter_mut().zip(p) {
                        *a += b;
                    }
                }
            }
            self.time += h;
            if depth == 0 {
                std::mem::swap(&mut self.previous_points, &mut self.points);
                self.have_older = self.have_previous;
                std::mem::swap(&mut self.older_z, &mut self.previous_z);
                self.previous_z.clear();
                self.previous_z.extend_from_slice(&saved[..nv]);
                // The multipliers this step started from, if a step solved them (the first
                // step starts from a guess, not a solution).
                self.previous_joint.clear();
                if self.steps > 0 {
                    for joint in &self.joints {
                        self.previous_joint.extend_from_slice(joint.local(&saved));
                    }
                }
            }
            self.have_previous = depth == 0;
            self.saved[depth] = saved;
            return (true, residual);
        }
        self.z.copy_from_slice(&saved);
        self.saved[depth] = saved;
        self.have_previous = false;
        if let Some((gain, scale)) = refused
            && depth >= self.settings.max_halvings
        {
            // The midpoint rule writes the second half of the smooth impulses' kick into the
            // end velocity, past the rigid contacts that the MCP held at full weight: a body at
            // rest on one ends its first step at `½ h g` into it (`⅛ m h² g²` of kinetic
            // energy, the whole gain from rest, at every halving).
            let rigid = self
                .active
                .iter()
                .any(|&k| self.slots[k].block.quasi_rigid().is_none());
            let hint = if self.settings.integrator == Integrator::Midpoint && rigid {
                "; integrator = \"midpoint\" keeps the second half of the smooth impulses' \
                 kick (gravity: ½ h g) in a rigid contact's end velocity, so a body resting on \
                 one gains that kinetic energy: it is the compliant layers' energy fix; for \
                 rigid contacts use \"rattle\" (its end velocity is projected onto the \
                 contacts) or \"euler\""
            } else {
                ""
            };
            report.failure = Some(format!(
                "the step created {gain:.3e} J of energy ({:.2} % of the largest kinetic \
                 energy so far) at every halving{hint}",
                100.0 * gain / scale
            ));
        }
        (false, residual)
    }

    /// The row of the MCP last solved, at `z`, with the largest natural residual and whose it
    /// is (`None` if `F` could not be evaluated there).
    fn largest_residual(&mut self, h: f64) -> Option<ResidualSite> {
        let mut problem = step_problem!(self, h);
        let mut f = std::mem::take(&mut self.scratch);
        f.resize(self.z.len(), 0.0);
        problem.function(&self.z, &mut f);
        let mut worst: Option<(usize, f64)> = None;
        for (i, (&z, &fi)) in self.z.iter().zip(&f).enumerate() {
            let r = (z - (z - fi).max(self.lower[i]).min(self.upper[i])).abs();
            if r.is_finite() && worst.is_none_or(|(_, w)| r > w) {
                worst = Some((i, r));
            }
        }
        self.scratch = f;
        let (i, residual) = worst?;
        let within = |offset: usize, len: usize| (offset..offset + len).contains(&i);
        let (owner, row) = if i < self.layout.len() {
            let body = (0..self.scene.bodies.len())
                .find(|&b| self.layout.range(b).is_some_and(|r| r.contains(&i)))?;
            let k = i - self.layout.offset(body)?;
            let names = ["v_x", "v_y", "v_z"];
            let name = if k < S::DIM {
                names[k].to_string()
            } else if S::DOF - S::DIM == 1 {
                "ω".to_string()
            } else {
                format!("ω_{}", ["x", "y", "z"][k - S::DIM])
            };
            (RowOwner::Body(body), format!("momentum ({name})"))
        } else if let Some(slot) = self
            .active
            .iter()
            .map(|&k| &self.slots[k])
            .find(|s| within(s.offset, s.block.local_count()))
        {
            let layout = slot.block.kernel().layout();
            (
                RowOwner::Contact {
                    id: slot.id,
                    bodies: [slot.body1, slot.body2],
                },
                layout.row_name(i - slot.offset).to_string(),
            )
        } else if let Some(j) =
            (self.joints.iter()).position(|j| within(j.offset, j.block.local_count()))
        {
            (
                RowOwner::Joint(j),
                format!("row {}", i - self.joints[j].offset),
            )
        } else {
            let s = (self.supports.iter()).position(|s| within(s.offset, s.block.local_count()))?;
            (
                RowOwner::Support(s),
                format!("row {}", i - self.supports[s].offset),
            )
        };
        Some(ResidualSite {
            residual,
            owner,
            row,
        })
    }

    /// Puts every rigid contact's unknowns in `z` where a contact entering now starts:
    /// closest points and multipliers at the current poses, zero impulses. A contact whose
    /// closest points cannot be computed, and a quasi-rigid one (its layer's start belongs to
    /// the layer's history), keeps its values.
    fn cold_start_contacts(&mut self) {
        for &k in &self.active {
            let slot = &self.slots[k];
            if slot.block.quasi_rigid().is_some() {
                continue;
            }
            if let Ok(x) = Self::initial_guess(&self.scene, slot) {
                self.z[slot.offset..slot.offset + x.len()].copy_from_slice(&x);
            }
        }
    }

    /// The starting point of a sub-step's solve from the start-of-step `z`: closing contacts
    /// at the impulse that stops them (on the start-of-step points), and for a whole step the
    /// points extrapolated to its end.
    fn start_guess(&mut self, h: f64, depth: usize) {
        self.predict_closing_impulses(h, false);
        if depth == 0 {
            self.store_points();
            self.predict_points();
            self.predict_layers();
        }
    }

    /// Applies the solved sub-step (the bodies moved, the integrator's end of step) unless the
    /// scene is passive and the sub-step created energy: then the bodies are put back, the
    /// energy created and its scale returned, and the step is halved like one that did not
    /// converge. The step's MCP imposes non-penetration at the end of the step, on positions
    /// nonlinear in the impulse, so it can have a second, spurious root (a rectangle landing on
    /// a corner under RATTLE was thrown up with 2.1 N·s, where 0.01 N·s stopped it, and gained
    /// 138 % of its kinetic energy); shorter steps make the end-of-step gap nearly linear and
    /// lose that root.
    fn apply_unless_energy_created(&mut self, h: f64, depth: usize) -> Option<(f64, f64)> {
        let nv = self.layout.len();
        let passive = self
            .scene
            .bodies
            .iter()
            .all(|b| !b.driven && (b.fixed || b.loads_are_conservative()))
            && !self.has_actuators()
            && self
                .active
                .iter()
                .all(|&k| self.slots[k].block.quasi_rigid().is_none());
        if !passive {
            self.scene.advance_by(&self.z[..nv], h);
            self.finish_quasi_step(depth == 0, h);
            return None;
        }
        let (k0, v0) = (self.scene.kinetic_energy(), self.scene.potential_energy());
        self.substep_bodies.clear();
        self.substep_bodies
            .extend(self.scene.bodies.iter().map(|b| (b.pose, b.twist)));
        self.substep_loaded.clone_from(&self.kick.loaded);
        let projected = self.energy_projected;
        // RATTLE's second kick turns the contact impulses to their start-of-step directions
        // W(q), the constraints' gradients where the step began. Where a contact point jumped
        // within the step (a flat face landing: from one corner to the far side of the face),
        // W(q) acts at the old point and the turn is no longer O(h): a spinning plank landing
        // flat gained 43 % of its kinetic energy from it, at every halving. Such a sub-step is
        // redone first order, the impulses left along W(q⁺) as the MCP solved them, and
        // refused only if that creates energy too.
        let attempts = if self.settings.integrator == Integrator::Rattle && !self.first_order {
            2
        } else {
            1
        };
        let mut least = f64::INFINITY;
        let mut scale = 0.0;
        for attempt in 0..attempts {
            self.first_order |= attempt > 0;
            self.scene.advance_by(&self.z[..nv], h);
            self.finish_quasi_step(depth == 0, h);
            let (k1, v1) = (self.scene.kinetic_energy(), self.scene.potential_energy());
            let (e0, e1) = (k0 + v0, k1 + v1);
            scale = self.peak_kinetic.max(k0).max(k1);
            let allowed = ENERGY_GAIN * scale
                + ENERGY_ROUNDING * (e0.abs() + e1.abs())
                + self.tolerance_work(h);
            if e1 - e0 <= allowed {
                self.peak_kinetic = scale;
                return None;
            }
            least = least.min(e1 - e0);
            for (body, (pose, twist)) in self.scene.bodies.iter_mut().zip(&self.substep_bodies) {
                body.pose = *pose;
                body.twist = *twist;
            }
            self.kick.loaded.clone_from(&self.substep_loaded);
            self.energy_projected = projected;
        }
        Some((least, scale))
    }

    /// The work the solve's tolerance allows over a step of `h`: each momentum row holds its
    /// impulse to `tol` (N·s or N·m·s), whose work at the body's speeds (at most its speed at
    /// the end of the step plus the `g h` gravity adds, or its spin) is at most
    /// `tol · DOF · (‖v‖ + ‖ω‖ + g h)` per moving body. A body at rest has no peak kinetic
    /// energy to measure a gain against: without this its rounding-level creep (a stuck slider
    /// moving 1e-13 m/s uphill, 1e-14 J) was refused as energy created.
    fn tolerance_work(&self, h: f64) -> f64 {
        let tol = self.settings.solver.tolerance;
        let gh = S::norm(&self.scene.gravity) * h;
        self.scene
            .bodies
            .iter()
            .filter(|b| !b.fixed)
            .map(|b| {
                let w = (0..S::ANGULAR_DIM)
                    .map(|k| b.twist.angular[k] * b.twist.angular[k])
                    .sum::<f64>()
                    .sqrt();
                tol * S::DOF as f64 * (S::norm(&b.twist.linear) + w + gh)
            })
            .sum()
    }

    /// Whether some contact's normal at the end of the step points against its normal at the
    /// start: the bodies passed through each other within the step. (The normal of `F` at its
    /// closest point turns with the bodies' relative position, not with `F`'s own spin, so a
    /// legitimate step turns it by far less than 90°.)
    fn tunnelled(&self, h: f64, start: &[f64]) -> bool {
        for &s in &self.active {
            let slot = &self.slots[s];
            let body = &self.scene.bodies[slot.body1];
            if !self.may_pass_through(slot, h) {
                continue;
            }
            let end = match self.layout.range(slot.body1) {
                Some(r) if !body.fixed => {
                    crate::model::end_of_step_pose(&body.pose, &Twist::from_slice(&self.z[r]), h)
                }
                _ if body.driven => crate::model::end_of_step_pose(&body.pose, &body.twist, h),
                _ => body.pose,
            };
            let n_start = slot
                .block
                .kernel()
                .normal_source(slot.local(start), &body.pose);
            let x_end = slot.local(&self.z);
            let n_end = slot.block.kernel().normal_source(x_end, &end);
            if S::dot(&n_start, &n_end) < 0.0 {
                return true;
            }
        }
        false
    }

    /// Whether the two parts of a contact can have passed through each other in a step of
    /// `h` at the solved twists: the points of either part move by at most
    /// `h (|v| + |ω| ρ)` (`ρ` the farthest reach of the part from its body's origin), and
    /// passing through the thinner bounded part takes at least its diameter.
    fn may_pass_through(&self, slot: &Slot<S>, h: f64) -> bool {
        let (i, pi, j, pj) = slot.pair;
        let mut travel = 0.0;
        let mut thinnest = f64::INFINITY;
        for (b, p) in [(i, pi), (j, pj)] {
            let body = &self.scene.bodies[b];
            let part = &body.shape.parts()[p];
            let (Some(c), Some(r)) = (part.interior_point(), part.bounding_radius()) else {
                continue;
            };
            thinnest = thinnest.min(2.0 * r);
            if let Some(range) = self.layout.range(b) {
                let nu = &self.z[range];
                let v = (0..S::DIM).map(|d| nu[d] * nu[d]).sum::<f64>().sqrt();
                let w = nu[S::DIM..].iter().map(|x| x * x).sum::<f64>().sqrt();
                travel += h * (v + w * (S::norm(&c) + r));
            }
        }
        travel >= thinnest
    }

    /// Copies the closest points `a₁, a₂` of every contact (the start-of-step guess) into
    /// `self.points`.
    fn store_points(&mut self) {
        self.points.clear();
        for &k in &self.active {
            let slot = &self.slots[k];
            self.points.extend_from_slice(slot.points(&self.z));
        }
    }

    /// Warm-start predictor: the closest points move on smooth contact motion, so they are
    /// extrapolated linearly from the last two steps (`2 aₖ − aₖ₋₁`) when both were full steps;
    /// the impulses and multipliers keep their last values. The solve corrects the guess.
    fn predict_points(&mut self) {
        self.predict_joints();
        let current = &self.points;
        if !self.have_previous || self.previous_points.len() != current.len() {
            return;
        }
        let mut k = 0;
        for &s in &self.active {
            let slot = &self.slots[s];
            let r = slot.block.kernel().points_range();
            for i in slot.offset + r.start..slot.offset + r.end {
                self.z[i] = 2.0 * current[k] - self.previous_points[k];
                k += 1;
            }
        }
    }

    /// Contact `k`'s tangent reference for the (sub-)step (3D): kept while `|e·n| ≤`
    /// [`KEEP_TANGENT_REFERENCE`] at the current normal estimate `n`, otherwise the coordinate
    /// axis least aligned with `n`, its friction warm start `(p_t, p_o)` turned into the new
    /// basis (the same world impulse). A reference chosen afresh every step flips between two
    /// axes equally far from `n` with rounding (a sphere resting on the ground, `n ≈ e_z`:
    /// `t` jumps between `e_x` and `e_y`), and the warm start's `p_t`, `p_o` then point the
    /// wrong way.
    fn renew_tangent_reference(&mut self, k: usize) {
        let slot = &mut self.slots[k];
        let g = slot
            .block
            .kernel()
            .normal_source(slot.local(&self.z), &self.scene.bodies[slot.body1].pose);
        let len = S::norm(&g);
        // With a non-finite normal the old reference stays and the solve reports the
        // non-finite values it meets.
        if !(len > 0.0 && len.is_finite()) {
            return;
        }
        let n = g * (1.0 / len);
        let old = slot.block.kernel().tangent_reference();
        if S::dot(&old, &n).abs() <= KEEP_TANGENT_REFERENCE {
            return;
        }
        let new = tangent_reference_for::<S>(&n);
        // A coordinate axis is always a valid reference.
        let _ = slot.block.set_tangent_reference(new);
        let [t0, o0] = tangent_axes::<S>(&n, &old);
        let [t1, o1] = tangent_axes::<S>(&n, &new);
        let at = slot.offset + slot.block.kernel().friction_range().start;
        let (pt, po) = (self.z[at], self.z[at + 1]);
        let p: [f64; 3] = std::array::from_fn(|i| pt * t0[i] + po * o0[i]);
        let dot = |a: &[f64; 3], b: &[f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
        self.z[at] = dot(&p, &t1);
        self.z[at + 1] = dot(&p, &o1);
    }

    /// Warm start of jointed scenes: a joint's multipliers, and the velocities of the bodies,
    /// change smoothly from step to step (a pendulum's rod force), so they are extrapolated
    /// linearly from the last two whole steps; scenes with compliant layers extrapolate the
    /// velocities themselves (`predict_layers`).
    fn predict_joints(&mut self) {
        let total: usize = self.joints.iter().map(|j| j.block.local_count()).sum();
        if self.joints.is_empty() || !self.have_previous || self.previous_joint.len() != total {
            return;
        }
        self.joint_start.clear();
        for joint in &self.joints {
            self.joint_start.extend_from_slice(joint.local(&self.z));
        }
        let mut k = 0;
        for joint in &self.joints {
            for i in joint.offset..joint.offset + joint.block.local_count() {
                // Within the multiplier's bounds (a limit's, a friction's): the extrapolation
                // of one at its bound would leave it.
                let guess = 2.0 * self.z[i] - self.previous_joint[k];
                self.z[i] = guess.clamp(self.lower[i], self.upper[i]);
                k += 1;
            }
        }
        let nv = self.layout.len();
        if !self.has_quasi_rigid_contacts() && self.previous_z.len() == nv {
            for i in 0..nv {
                self.z[i] = 2.0 * self.z[i] - self.previous_z[i];
            }
        }
    }

    /// Assembles and solves the MCP of a step of length `h` from the current state, leaving
    /// the solution in `self.z`: the proximal iteration of the module docs ("Well-posed
    /// impulses"), centred first at the impulses the step starts from. `warm_first` marks a
    /// solve from the warm start of a step after the first, whose cone rows may be measured by
    /// the warm start's impulses (`cones_from_start`), and `keep_friction` one whose resting
    /// contacts' friction may be centred at them (`friction_centre_from_start`).
    fn solve_step(
        &mut self,
        h: f64,
        fallbacks: bool,
        warm_first: bool,
        keep_friction: bool,
    ) -> SolveReport {
        self.forecast.start();
        self.prepare(h);
        // A joint friction's bound is an impulse over this (sub-)step.
        for joint in &self.joints {
            joint.write_bounds(h, &mut self.lower, &mut self.upper);
        }
        self.set_proximal_weights(h);
        // With `cones_from_start`, each loaded rigid contact's row CS is written in N·s from
        // the start, `1 / (μ p_n + ‖p‖_e)` at the warm start's impulses (the last solution's),
        // as `scale_cones_left` writes it once a solution left a cone: in N·s squared the
        // merit weighs a cone by its load squared, and the path search accepted Newton steps
        // that swung a light contact's friction across its cone and back (the pile of 100,
        // step 80: `(p_o, p_r)` by ±0.1 N·s at `p_n` = 0.1 N·s for 14 iterations while every
        // other row was solved). Loads below `CONE_LOAD_FLOOR` keep the paper's row: the
        // inverse of a vanishing load would make the row stiff for nothing.
        self.cones_scaled = false;
        let floor = CONE_LOAD_FLOOR * self.settings.solver.tolerance;
        for &k in &self.active {
            let slot = &mut self.slots[k];
            let mut scale = 1.0;
            if warm_first
                && self.settings.cones_from_start
                && slot.block.quasi_rigid().is_none()
                && slot.block.kernel().friction().mu > 0.0
            {
                let (load, _) = slot.block.cone_excess(slot.local(&self.z));
                if load > floor {
                    scale = 1.0 / load;
                    self.cones_scaled = true;
                }
            }
            slot.block.kernel_mut().set_cone_scale(scale);
            if scale != 1.0 && self.settings.cones_normalised {
                slot.block
                    .kernel_mut()
                    .set_cone_normalised(self.settings.solver.tolerance);
            }
        }
        self.center_proximal_at_z();
        // The first centre of joints whose multipliers may not be unique is the last step's
        // multipliers, not their extrapolation (see `joint_groups`).
        if !self.joint_start.is_empty() {
            let slots = &self.slots;
            self.joint_groups.mark_contacts(
                self.active
                    .iter()
                    .map(|&k| (slots[k].body1, slots[k].body2)),
            );
            let mut k = 0;
            for (j, joint) in self.joints.iter_mut().enumerate() {
                let n = joint.block.local_count();
                if !self.joint_groups.extrapolate_centre(j) {
                    let centre = &self.joint_start[k..k + n];
                    joint.block.proximal_mut().1.copy_from_slice(centre);
                }
                k += n;
            }
            self.joint_start.clear();
        }
        // The first centre's friction is zero (in the retries everywhere): a contact that
        // separates in the step then has none (`p_k (σ + ε_f) = 0`), whatever it carried
        // before. With `friction_centre_from_start` a resting contact's friction stays centred
        // at the warm start's: loaded, sticking, and both its points slower than gravity's
        // speed over the step. At zero every step, a resting pyramid's impulses cycle through
        // their continuum (the pyramid of 35: period four steps, loads ±25 %), and a contact
        // the cycle takes to its cone's boundary costs hundreds of Newton iterations a step at
        // `e_r = 0.3 m`. Moving contacts keep the zero centre: in the struck rows the warm
        // start's friction was a worse first centre.
        let keep_friction = keep_friction && self.settings.friction_centre_from_start;
        let tol = self.settings.solver.tolerance;
        let resting = S::norm(&self.scene.gravity).max(1.0) * h;
        self.friction_kept = false;
        for &k in &self.active {
            let mut prox = *self.slots[k].block.kernel().proximal();
            // `σ̄ ‖p̄‖`: the sliding term of the rows FR, `|e_k² μ p_n s_k|` at a solution.
            let sliding = |c: &[f64; 5]| c[4] * c[1..4].iter().map(|p| p * p).sum::<f64>().sqrt();
            if keep_friction
                && prox.center[0] > 0.0
                && sliding(&prox.center) <= NEAR_TOLERANCE * tol
                && self.contact_point_speed(k) <= resting
            {
                self.friction_kept |= prox.center[1..4].iter().any(|&p| p != 0.0);
                continue;
            }
            prox.center[1..4].fill(0.0);
            self.slots[k].block.kernel_mut().set_proximal(prox);
        }
        // A first solve that runs long with the scaled rows goes on with the normalised
        // ones: in a struck row an impact passed along the bodies unloads contacts within
        // the step, and the scaled row halves their friction at each Newton iteration (the
        // struck row of 50's step 3: 453 iterations, 110 with the switch). With fallbacks
        // the path search keeps its whole budget.
        let after = self.settings.cones_normalised_after;
        let switch =
            after > 0 && !fallbacks && self.cones_scaled && !self.settings.cones_normalised;
        let limit = self.solver.settings.path.major_iteration_limit;
        if switch {
            self.solver.settings.path.major_iteration_limit = after.min(limit);
        }
        let mut problem = step_problem!(self, h);
        let mut total = self.solver.solve_with(&mut problem, &mut self.z, fallbacks);
        self.solver.settings.path.major_iteration_limit = limit;
        if switch && total.status == Status::IterationLimit && after < limit {
            for &k in &self.active {
                let kernel = self.slots[k].block.kernel_mut();
                if kernel.cone_scale() != 1.0 {
                    kernel.set_cone_normalised(tol);
                }
            }
            self.last_z.clear();
            self.solve_again(h, fallbacks, &mut total);
        }
        // A search that stalled at a sliding contact without friction is solved once more
        // with that contact's cone row measured in N·s (see `scale_trapped_cones`); a solve
        // stopped by its budget is not given another.
        if total.status == Status::Stalled && self.scale_trapped_cones(h, tol) {
            self.solver.allow_kept_jacobian();
            self.solve_again(h, fallbacks, &mut total);
        }
        let mut outer = 0;
        loop {
            if !total.converged() || self.settings.proximal_weight == 0.0 {
                return total;
            }
            // (p̄, σ̄) ← (p, σ): the rows are then the paper's; done if z solves them.
            self.center_proximal_at_z();
            let mut problem = step_problem!(self, h);
            total.residual = residual_at(&mut problem, &self.z, &mut self.scratch);
            // Coulomb's law gives a contact without normal impulse no friction, but its rows
            // `p_k σ = 0`, `−Σ p_k² ≥ 0` pass `|p_k| ≈ √tol` when `σ` is small: such friction is
            // removed and the step solved again.
            // A cone row that a loaded contact's friction leaves far is measured in N·s from
            // here on, whether or not the rows are solved: at a small load its squared
            // residual is a few tolerances while the friction is far outside the cone, and
            // the search then creeps, its Newton steps along the bilinear `p_k σ` of the rows
            // FR spoiled by their curvature (soak seed 2643: a spinning superellipsoid at
            // μ = 0.06, its torsion at 1.7 times its cone after the first solve; 500
            // iterations at 5e-9 in every re-solve). Which rows: `scale_cones_left`.
            if total.residual > tol {
                self.scale_cones_left(tol, true);
            } else if !self.zero_unloaded_friction(tol) && !self.scale_cones_left(tol, false) {
                return total;
            }
            let near = total.residual <= NEAR_TOLERANCE * tol;
            let allowed =
                self.settings.proximal_iterations + if near { NEAR_TOLERANCE_SOLVES } else { 0 };
            if outer >= allowed {
                break;
            }
            outer += 1;
            // The new centre changes `F`, not the Jacobian (and a cone row rescaled since is
            // the same row times its scale, `row_scales`): the re-solve may start with steps
            // on the one the last solve factorised.
            self.solver.allow_kept_jacobian();
            self.solve_again(h, fallbacks, &mut total);
        }
        // Near a change of contact mode (σ → 0 on the cone's boundary) the proximal iteration
        // converges slowly: the last stretch is Newton on the paper's rows, from a point whose
        // impulses the regularised problems fixed.
        self.clear_proximal();
        self.solve_again(h, fallbacks, &mut total);
        // The paper's rows pass `|p_k| ≈ √tol` on a contact without normal impulse too: such
        // friction is removed here as in the proximal iteration, and the step solved again.
        // A cone row's scale is frozen at the load it had when it was set, so a load that
        // then falls (struck row of 50, step 0: to 3.6e-7 N·s) leaves the cone held to `tol`
        // times the ratio of the two (4e-8 N·s): the check is repeated on each solution, and
        // a solution that still breaks the law after `LAW_ROUNDS` solves is not converged.
        for round in 0..=LAW_ROUNDS {
            if !total.converged() {
                break;
            }
            // Both, so that one more solve settles them all.
            let unloaded = self.zero_unloaded_friction(tol);
            let scaled = self.scale_cones_left(tol, false);
            if !(unloaded || scaled) {
                break;
            }
            if round == LAW_ROUNDS {
                total.status = Status::IterationLimit;
                break;
            }
            self.solve_again(h, fallbacks, &mut total);
        }
        total
    }

    /// Sets to zero the friction of every rigid contact whose normal impulse is zero and whose
    /// friction impulse exceeds `tol` in N·s, and its proximal centre while the proximal terms
    /// are on; true if there was one (the step is then solved again from there: the bodies'
    /// momentum rows take the removed impulse back, and `p_k (σ + ε_f) = 0` keeps it at zero).
    fn zero_unloaded_friction(&mut self, tol: f64) -> bool {
        let mut any = false;
        for &k in &self.active {
            let slot = &mut self.slots[k];
            if slot.block.quasi_rigid().is_some() {
                continue;
            }
            let x = slot.local(&self.z);
            let kernel = slot.block.kernel();
            if kernel.normal_impulse(x) > 0.0
                || !kernel.friction_impulses(x).iter().any(|p| p.abs() > tol)
            {
                continue;
            }
            let mut prox = *kernel.proximal();
            if !prox.is_off() {
                let nf = kernel.friction_impulses(x).len();
                prox.center[1..1 + nf].fill(0.0);
                slot.block.kernel_mut().set_proximal(prox);
            }
            let r = slot.block.kernel().friction_range();
            self.z[slot.offset + r.start..slot.offset + r.end].fill(0.0);
            any = true;
        }
        if any {
            self.last_z.clear();
        }
        any
    }

    /// Solves the step's MCP again from `self.z` (after a change of its rows) and adds the
    /// solve to `total`, whose status and residual become the new solve's.
    fn solve_again(&mut self, h: f64, fallbacks: bool, total: &mut SolveReport) {
        let mut problem = step_problem!(self, h);
        let report = self.solver.solve_with(&mut problem, &mut self.z, fallbacks);
        total.accumulate(&report);
        total.status = report.status;
        total.residual = report.residual;
    }

    /// Writes the row CS times `1 / (μ p_n + ‖p‖_e)` for every contact that `z`, a stalled
    /// search's point, leaves sliding (`σ > tol`) with less than half of its cone's friction
    /// and a cone row whose residual is its whole squared load `μ² p_n²` (within a factor of
    /// two; loads below 1 N·s, where the factor grows the row); true if there was one. As
    /// `σ → ∞` the friction `p_k = −μ p_n e_k² s_k / σ` vanishes, and at a small load the
    /// squared row's residual is then a few tolerances: the search settles there, far from
    /// the solution, whose friction is on the cone. In N·s the same point's residual is
    /// `μ p_n` itself (`tests/budgets.rs`, a layered sphere landing while sliding).
    fn scale_trapped_cones(&mut self, h: f64, tol: f64) -> bool {
        let mut f = std::mem::take(&mut self.scratch);
        f.resize(self.z.len(), 0.0);
        step_problem!(self, h).function(&self.z, &mut f);
        let mut any = false;
        for &k in &self.active {
            let slot = &mut self.slots[k];
            let kernel = slot.block.kernel();
            if kernel.friction().mu == 0.0 {
                continue;
            }
            let i = slot.offset + kernel.layout().sigma;
            let (sigma, row) = (self.z[i], f[i]);
            let residual = (sigma - (sigma - row).max(self.lower[i]).min(self.upper[i])).abs();
            let (load, excess) = slot.block.cone_excess(slot.local(&self.z));
            let scale = kernel.cone_scale();
            let squared_load = scale * (0.5 * (load - excess)).powi(2);
            let trapped = residual > tol
                && sigma > tol
                && excess < -load / 3.0
                && residual > 0.5 * squared_load
                && residual < 2.0 * squared_load
                && load + tol < 1.0;
            if trapped {
                slot.block.kernel_mut().set_cone_scale(scale / (load + tol));
                any = true;
            }
        }
        self.scratch = f;
        if any {
            self.last_z.clear();
        }
        any
    }

    /// Writes the row CS of every contact whose friction in `z` lies outside its cone by more
    /// than `tol` in N·s times `1 / (μ p_n + ‖p‖_e)` (at most `1 / tol`), so that the solve
    /// that follows holds the cone to the tolerance in N·s instead of N·s squared; true if
    /// there was one. Scaling a row changes its residual, not its solutions.
    ///
    /// `far_only`, for rows not yet solved: only a loaded contact's friction far outside its
    /// cone, by more than [`NEAR_TOLERANCE`] tolerances and [`FAR_FROM_CONE`] of its load,
    /// yet by no more than its cone `μ p_n`. Friction on a contact with almost no normal
    /// impulse is `zero_unloaded_friction`'s, and a row scaled by the inverse of a vanishing
    /// load turned the pyramid of 10's cold step from 23 Newton iterations into 85. A
    /// near-tolerance excess is the last solve's residual and goes with the next: scaling
    /// such rows of the pyramid of 20's resting contacts (excess 2e-9 at a load of 0.04
    /// N·s) turned its cold step from 180 iterations into 373.
    fn scale_cones_left(&mut self, tol: f64, far_only: bool) -> bool {
        let mut any = false;
        let mut cached = self.last_z == self.z;
        for &k in &self.active {
            let slot = &mut self.slots[k];
            if slot.block.kernel().friction().mu == 0.0 {
                continue;
            }
            let x = slot.local(&self.z);
            let (load, excess) = slot.block.cone_excess(x);
            let far = excess > NEAR_TOLERANCE * tol
                && excess > FAR_FROM_CONE * load
                && load >= 3.0 * excess;
            if excess > tol && (far || !far_only) {
                slot.block.kernel_mut().set_cone_scale(1.0 / load.max(tol));
                cached = cached && slot.block.refresh_law_rows(x, &mut slot.eval);
                any = true;
            }
        }
        if !cached {
            self.last_z.clear();
        }
        any
    }

    /// Turns every contact's and joint's proximal terms off (the paper's rows).
    fn clear_proximal(&mut self) {
        self.last_z.clear();
        for &k in &self.active {
            self.slots[k]
                .block
                .kernel_mut()
                .set_proximal(Proximal::default());
        }
        for joint in &mut self.joints {
            joint.block.proximal_mut().0.fill(0.0);
        }
    }

    /// The proximal weights of every rigid contact for a step of `h` (see [`Proximal`]).
    ///
    /// The weights are `α` times the contact's own scales, with `w = 1/m₁ + 1/m₂` (moving
    /// bodies), the reference acceleration `g = max(‖gravity‖, 1 m/s²)`, the step's speed
    /// `v = g h` and impulse `p = v / w`: `ε_n = α h w ‖∇f(a₁)‖` (the gap's change per unit
    /// normal impulse, in the units of `f`), `ε_f = α v`, `ε_σ = α p² min(1, μ/μ₀)² / v`.
    ///
    /// Each weight is about `α` times its row's own sensitivity to its unknown, so that the
    /// proximal iteration contracts fast. CS's sensitivity to `σ` is `μ²` times an impulse
    /// squared over a speed (on a sliding contact `σ = |s|` and
    /// `d(Σ p_k²)/dσ = 2 (μ p_n)² / |s|`), so `ε_σ` is `α p² / v` scaled by `(μ / μ₀)²` below
    /// `μ₀` = [`SIGMA_WEIGHT_MU`]. Unscaled, it outweighed the row by `1/μ²` on lightly rough
    /// contacts: in soak seed 500 (μ = 0.0026) `σ` crept by 1 % per outer solve and the last,
    /// unregularised solve failed at every halving. A frictionless contact's `σ` is outside
    /// the law (`p_k = 0` is written directly) and keeps `α p² / v`, so its row stays regular.
    fn set_proximal_weights(&mut self, h: f64) {
        let alpha = self.settings.proximal_weight;
        let g = S::norm(&self.scene.gravity).max(1.0);
        let v = g * h;
        for &k in &self.active {
            let slot = &mut self.slots[k];
            if slot.block.quasi_rigid().is_some() || alpha == 0.0 {
                slot.block.kernel_mut().set_proximal(Proximal::default());
                continue;
            }
            let bodies = &self.scene.bodies;
            let inverse_mass = |b: usize| {
                if bodies[b].fixed {
                    0.0
                } else {
                    1.0 / bodies[b].mass
                }
            };
            let w = inverse_mass(slot.body1) + inverse_mass(slot.body2);
            let grad = slot
                .block
                .kernel()
                .gap_row_slope(slot.local(&self.z), &bodies[slot.body1].pose);
            let p = v / w;
            let mu = slot.block.kernel().friction().mu;
            let cone = if mu == 0.0 {
                p
            } else {
                p * (mu / SIGMA_WEIGHT_MU).min(1.0)
            };
            slot.block.kernel_mut().set_proximal(Proximal {
                weights: [alpha * h * w * grad, alpha * v, alpha * cone * cone / v],
                center: [0.0; 5],
            });
        }
        self.set_joint_proximal_weights(alpha);
    }

    /// Each joint row's proximal weight `ε_i = α_J (G M⁻¹ Gᵀ)_ii`, `α_J` =
    /// [`JOINT_PROXIMAL`] `α`: the change of the row (`Θ/h`) per unit of its own multiplier, so
    /// `α_J` weighs every row alike, whatever its units (m/s per N·s, or 1/s per N·m·s for the
    /// orientation rows).
    fn set_joint_proximal_weights(&mut self, alpha: f64) {
        let alpha = JOINT_PROXIMAL * alpha;
        for j in 0..self.joints.len() {
            let (pose1, pose2) = self.joint_poses(j);
            let bodies = [self.joints[j].bodies[0], self.joints[j].bodies[1]];
            let inverse = bodies.map(|b| {
                b.filter(|&b| !self.scene.bodies[b].fixed).map(|b| {
                    let body = &self.scene.bodies[b];
                    let inertia = crate::model::inverse_inertia::<S>(&body.world_inertia());
                    (1.0 / body.mass, inertia)
                })
            });
            self.joints[j]
                .block
                .set_proximal_weights(&pose1, &pose2, |g| {
                    let mut d = 0.0;
                    for (side, inv) in inverse.iter().enumerate() {
                        if let Some((inv_m, inv_i)) = inv {
                            let mg = crate::model::apply_inverse_mass::<S>(*inv_m, inv_i, &g[side]);
                            d += (0..S::DOF).map(|k| g[side][k] * mg[k]).sum::<f64>();
                        }
                    }
                    alpha * d
                });
        }
    }

    /// Moves every contact's proximal centre to its impulses in `z`. The blocks' cached
    /// evaluations at `z` are rewritten for the new centre where the law can (the geometry
    /// does not change with it) and dropped otherwise.
    fn center_proximal_at_z(&mut self) {
        let mut cached = self.last_z == self.z && self.joints.is_empty();
        for &k in &self.active {
            let slot = &mut self.slots[k];
            let mut prox = *slot.block.kernel().proximal();
            if prox.is_off() {
                continue;
            }
            let x = slot.local(&self.z);
            prox.center[0] = slot.block.kernel().normal_impulse(x);
            for (c, p) in prox.center[1..]
                .iter_mut()
                .zip(slot.block.kernel().friction_impulses(x))
            {
                *c = *p;
            }
            prox.center[4] = slot.block.kernel().slip(x);
            slot.block.kernel_mut().set_proximal(prox);
            cached = cached && slot.block.refresh_law_rows(x, &mut slot.eval);
        }
        for joint in &mut self.joints {
            let x = joint.local(&self.z);
            joint.block.proximal_mut().1.copy_from_slice(x);
        }
        if !cached {
            self.last_z.clear();
        }
    }

    /// The weight `θ` of the end-of-step angular velocity in the gyroscopic impulse and the
    /// impulse's weight in the momentum rows (`θ = 0` where the impulse is a constant of the
    /// step: the explicit term, 2D).
    fn gyroscopic_weight(settings: &StepperSettings) -> (f64, f64) {
        if S::ANGULAR_DIM == 3 {
            integrator::scheme::<S>(settings.integrator).gyroscopic(settings.gyroscopic)
        } else {
            (0.0, 1.0)
        }
    }

    /// The start-of-step quantities of the step's MCP: mass matrices, free momenta, tangent
    /// references, and the sparse pattern when the step is large.
    fn prepare(&mut self, h: f64) {
        let t = self.time;
        let gravity = self.scene.gravity;
        let moving = self.layout.len() / S::DOF;
        self.mass
            .resize_with(moving, || DMatrix::zeros(S::DOF, S::DOF));
        let scheme = self.scheme();
        let (gyroscopic, _) = Self::gyroscopic_weight(&self.settings);
        scheme.prepare(self);
        let mut k = 0;
        for (b, body) in self.scene.bodies.iter().enumerate() {
            if let Some(range) = self.layout.range(b) {
                body.write_mass_matrix(&mut self.mass[k]);
                k += 1;
                let mut p = body.free_momentum(&gravity, t, h);
                if gyroscopic > 0.0 {
                    // Taken at ν inside the step's rows instead (StepProblem::gyroscopic).
                    p.torque -= body.gyroscopic_impulse(h);
                }
                let applied = body.applied_impulse(&gravity, t, h);
                applied.write_to(&mut self.applied[range.clone()]);
                let p = scheme.momentum(body, p, &applied);
                body.twist.write_to(&mut self.start_velocity[range.clone()]);
                p.write_to(&mut self.momentum[range]);
            }
        }
        // Joint actuators: applied impulses like the bodies' own (weighted like them).
        if self.has_actuators() {
            let mut act = std::mem::take(&mut self.actuation);
            act.fill(0.0);
            self.add_actuator_impulses(t, h, None, &mut act);
            let weight = scheme.smooth_weight();
            for (i, a) in act.iter().enumerate() {
                self.momentum[i] += weight * a;
                self.applied[i] += a;
            }
            self.actuation = act;
            self.actuator_impulses_on_drives(t, h);
        }
        self.start_poses.clear();
        self.start_poses
            .extend(self.scene.bodies.iter().map(|b| b.pose));
        // RATTLE: the slip rows' trapezoidal levers, from the points at the start of the step.
        let mut k0 = 0;
        for &k in &self.active {
            let slot = &mut self.slots[k];
            let d = S::DIM;
            let levers = (scheme.trapezoidal_levers() && !self.first_order).then(|| {
                let pair = &self.start_pairs[k0..k0 + 2 * d];
                let (p1, p2) = (
                    &self.start_poses[slot.body1].position,
                    &self.start_poses[slot.body2].position,
                );
                (
                    S::vector_from_fn(|i| pair[i] - p1[i]),
                    S::vector_from_fn(|i| pair[d + i] - p2[i]),
                )
            });
            k0 += 2 * d;
            slot.block.kernel_mut().set_start_levers(levers);
        }
        // 3D: each contact keeps its tangent reference while the reference stays well away
        // from its current normal estimate, so its friction variables keep their meaning from
        // step to step (see `renew_tangent_reference`).
        if S::DIM == 3 {
            for i in 0..self.active.len() {
                self.renew_tangent_reference(self.active[i]);
            }
        }
        self.last_z.clear();
        if self.pattern.is_none() && self.z.len() >= self.settings.solver.path.sparse_threshold {
            self.build_pattern();
        }
    }
}

impl<S: Dynamics> super::halving::Halving for ImplicitStepper<S> {
    fn max_halvings(&self) -> usize {
        self.settings.max_halvings
    }
    fn attempt(&mut self, h: f64, depth: usize, report: &mut StepReport) -> (bool, f64) {
        self.attempt_step(h, depth, report)
    }
}

/// The natural residual `‖z − mid(l, u, z − F(z))‖∞` of `problem` at `z` (`f`: scratch).
fn residual_at<P: McpProblem>(problem: &mut P, z: &[f64], f: &mut Vec<f64>) -> f64 {
    f.resize(z.len(), 0.0);
    problem.function(z, f);
    crate::mcp::natural_residual(z, f, problem.lower_bounds(), problem.upper_bounds())
}

/// The step's MCP over the stepper's fields (a macro, so that the solver and `z` stay
/// borrowable beside it).
macro_rules! step_problem {
    ($s:ident, $h:expr) => {
        StepProblem {
            bodies: &$s.scene.bodies,
            layout: &$s.layout,
            slots: &mut $s.slots,
            joints: &mut $s.joints,
            supports: &mut $s.supports,
            active: &$s.active,
            pattern: $s.pattern.as_ref(),
            mass_positions: &$s.mass_positions,
            mass: &$s.mass,
            momentum: &$s.momentum,
            start_velocity: &$s.start_velocity,
            gyroscopic: ImplicitStepper::<S>::gyroscopic_weight(&$s.settings).0,
            gyroscopic_kick: ImplicitStepper::<S>::gyroscopic_weight(&$s.settings).1,
            lower: &$s.lower,
            upper: &$s.upper,
            h: $h,
            last_z: &mut $s.last_z,
            last_full: &mut $s.last_full,
            forecast: &mut $s.forecast,
        }
    };
}
use step_problem;

/// Body `b`'s step over `h` at the twists `z` (a driven body's from its drive).
fn body_step<S: Dynamics>(
    bodies: &[RigidBody<S>],
    layout: &VelocityLayout,
    h: f64,
    b: usize,
    z: &[f64],
) -> BodyStep<S> {
    let body = &bodies[b];
    match layout.range(b) {
        Some(r) if !body.fixed => BodyStep::advance(&body.pose, &z[r], h),
        _ if body.driven => BodyStep::driven(&body.pose, &body.twist, h),
        _ => BodyStep::fixed(body.pose),
    }
}

/// The step's MCP as seen by the solver.
struct StepProblem<'a, S: Dynamics> {
    bodies: &'a [RigidBody<S>],
    layout: &'a VelocityLayout,
    slots: &'a mut [Slot<S>],
    joints: &'a mut [JointSlot<S>],
    supports: &'a mut [SupportSlot<S>],
    /// The contacts of the step (indices into `slots`).
    active: &'a [usize],
    /// The Jacobian's sparse pattern, when the step is large enough to be solved sparsely.
    pattern: Option<&'a SparseJacobian>,
    mass_positions: &'a [usize],
    mass: &'a [DMatrix<f64>],
    momentum: &'a [f64],
    /// The twists at the start of the step and the weight `θ` of the end-of-step angular
    /// velocity in the gyroscopic impulse `−h ω_θ × I_w ω_θ` (0: it is in `momentum`), and
    /// that impulse's weight in the rows (½: RATTLE's first kick).
    start_velocity: &'a [f64],
    gyroscopic: f64,
    gyroscopic_kick: f64,
    lower: &'a [f64],
    upper: &'a [f64],
    h: f64,
    /// The `z` the blocks' evaluations belong to (function and Jacobian share them).
    last_z: &'a mut Vec<f64>,
    /// Whether those evaluations include the Jacobian.
    last_full: &'a mut bool,
    /// Which function evaluations write the rows alone.
    forecast: &'a mut JacobianForecast,
}

/// Whether a function evaluation at a new point writes the contacts' rows alone, without their
/// Jacobian (about half the cost): once the (sub-)step has evaluated as many Jacobians as the
/// one before needed. Consecutive steps of a scene mostly repeat their pattern of solves — a
/// resting or rolling body converges at its warm start (no Jacobian), a body pressing into a
/// layer takes one Newton step — so the evaluations predicted this way are mostly the last of
/// the step, where no Jacobian follows. A Jacobian asked where only the rows were evaluated
/// evaluates again, whole, and every later evaluation of the (sub-)step is whole: a wrong
/// forecast costs at most one rows-alone evaluation per (sub-)step. The values are the same
/// bits either way.
#[derive(Clone, Copy, Debug, Default)]
struct JacobianForecast {
    /// Jacobians the (sub-)step before evaluated.
    expected: usize,
    /// Jacobians evaluated since the solves of this (sub-)step began.
    evaluated: usize,
    /// Whether a Jacobian was asked where only the rows had been evaluated.
    missed: bool,
}

impl JacobianForecast {
    /// A (sub-)step's solves begin: the one before is the forecast.
    fn start(&mut self) {
        self.expected = self.evaluated;
        self.evaluated = 0;
        self.missed = false;
    }

    fn rows_alone(&self) -> bool {
        !self.missed && self.evaluated >= self.expected
    }
}

impl<S: Dynamics> StepProblem<'_, S> {
    fn body_step(&self, b: usize, z: &[f64]) -> BodyStep<S> {
        body_step(self.bodies, self.layout, self.h, b, z)
    }

    /// `ω_θ` of the body whose twist is `z[r]`, and its world inertia (from the mass block `m`).
    fn gyroscopic_state(
        &self,
        r: &std::ops::Range<usize>,
        m: &DMatrix<f64>,
        z: &[f64],
    ) -> (S::Angular, S::AngularMatrix) {
        let (lin, theta) = (S::DIM, self.gyroscopic);
        let w = S::angular_from_fn(|i| {
            let c = r.start + lin + i;
            theta * z[c] + (1.0 - theta) * self.start_velocity[c]
        });
        (w, S::angular_matrix_from_fn(|i, j| m[(lin + i, lin + j)]))
    }

    /// `−θ h ∂λ_vp/∂ω`: what the gyroscopic impulse taken at `ν` adds to the angular block
    /// of the body's Newton–Euler rows in the step's Jacobian (beside `M`).
    fn gyroscopic_block(
        &self,
        r: &std::ops::Range<usize>,
        m: &DMatrix<f64>,
        z: &[f64],
    ) -> S::AngularMatrix {
        let (w, iw) = self.gyroscopic_state(r, m, z);
        S::gyroscopic_jacobian(&w, &iw) * (-self.gyroscopic * self.gyroscopic_kick * self.h)
    }

    /// Evaluates every contact block at `z` unless that was the last point evaluated: with
    /// `jacobian`, rows and Jacobian; without, the rows alone (the contacts' Jacobians are
    /// then stale, and a later call with `jacobian` at the same `z` evaluates again).
    fn evaluate(&mut self, z: &[f64], jacobian: bool) {
        if self.last_z.as_slice() == z {
            if *self.last_full || !jacobian {
                return;
            }
            self.forecast.missed = true;
        }
        for &k in self.active {
            let (b1, b2) = (self.slots[k].body1, self.slots[k].body2);
            let s1 = self.body_step(b1, z);
            let s2 = self.body_step(b2, z);
            let slot = &mut self.slots[k];
            let x = &z[slot.offset..slot.offset + slot.block.local_count()];
            if jacobian {
                slot.block.evaluate(x, &s1, &s2, &mut slot.eval);
            } else {
                slot.block.evaluate_values(x, &s1, &s2, &mut slot.eval);
            }
        }
        let (h, bodies, layout) = (self.h, self.bodies, self.layout);
        let step = |b: Option<usize>| match b {
            Some(b) => body_step(bodies, layout, h, b, z),
            None => BodyStep::fixed(Pose::identity()),
        };
        for joint in self.joints.iter_mut() {
            joint.evaluate(z, h, step);
        }
        for support in self.supports.iter_mut() {
            support.evaluate(z, h, step);
        }
        self.last_z.clear();
        self.last_z.extend_from_slice(z);
        *self.last_full = jacobian;
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

    /// The contacts' cone rows CS, written times their cone scale.
    fn row_scales(&self, scales: &mut [f64]) -> bool {
        let mut any = false;
        scales.fill(1.0);
        for &k in self.active {
            let slot = &self.slots[k];
            let kernel = slot.block.kernel();
            let scale = kernel.cone_scale();
            if scale != 1.0 {
                scales[slot.offset + kernel.layout().sigma] = scale;
                any = true;
            }
        }
        any
    }

    fn function(&mut self, z: &[f64], f: &mut [f64]) {
        // The rows at the last point are there either way.
        let whole = !self.forecast.rows_alone() && self.last_z.as_slice() != z;
        self.evaluate(z, whole);
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
                if self.gyroscopic > 0.0 {
                    let (w, iw) = self.gyroscopic_state(&r, m, z);
                    let tau = S::gyroscopic_torque(&w, &iw);
                    for i in 0..S::ANGULAR_DIM {
                        f[r.start + S::DIM + i] -= self.gyroscopic_kick * self.h * tau[i];
                    }
                }
                k += 1;
            }
        }
        for &k in self.active {
            self.slots[k].view(self.layout).add_function(f);
        }
        for joint in self.joints.iter() {
            joint.view(self.layout).add_function(f);
        }
        for support in self.supports.iter() {
            support.view(self.layout).add_function(f);
        }
    }

    fn jacobian(&mut self, z: &[f64], jac: &mut DenseJacobian) {
        self.forecast.evaluated += 1;
        self.evaluate(z, true);
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
                if self.gyroscopic > 0.0 {
                    let g = self.gyroscopic_block(&r, m, z);
                    let a = r.start + S::DIM;
                    for i in 0..S::ANGULAR_DIM {
                        for j in 0..S::ANGULAR_DIM {
                            jac[(a + i, a + j)] += g[(i, j)];
                        }
                    }
                }
                k += 1;
            }
        }
        for &k in self.active {
            self.slots[k].add_dense(self.layout, jac);
        }
        for joint in self.joints.iter_mut() {
            joint.add_dense(self.layout, jac);
        }
        for support in self.supports.iter_mut() {
            support.add_dense(self.layout, jac);
        }
    }

    fn sparse_pattern(&mut self, jac: &mut SparseJacobian) -> bool {
        match self.pattern {
            Some(p) => {
                jac.copy_pattern_from(p);
                true
            }
            None => false,
        }
    }

    fn sparse_jacobian(&mut self, z: &[f64], jac: &mut SparseJacobian) {
        self.forecast.evaluated += 1;
        self.evaluate(z, true);
        let values = jac.values_mut();
        values.fill(0.0);
        let mut p = 0;
        let mut k = 0;
        for b in 0..self.bodies.len() {
            if let Some(r) = self.layout.range(b) {
                let m = &self.mass[k];
                let g = (self.gyroscopic > 0.0).then(|| self.gyroscopic_block(&r, m, z));
                let lin = S::DIM;
                for j in 0..r.len() {
                    for i in 0..r.len() {
                        let mut v = m[(i, j)];
                        if let Some(g) = &g
                            && i >= lin
                            && j >= lin
                        {
                            v += g[(i - lin, j - lin)];
                        }
                        values[self.mass_positions[p]] = v;
                        p += 1;
                    }
                }
                k += 1;
            }
        }
        for &k in self.active {
            let slot = &self.slots[k];
            slot.view(self.layout).add_sparse(values, &slot.positions);
        }
        for joint in self.joints.iter() {
            joint.view(self.layout).add_sparse(values, &joint.positions);
        }
        for support in self.supports.iter() {
            support
                .view(self.layout)
                .add_sparse(values, &support.positions);
        }
    }
}

/// The Euclidean distance of two points given by their coordinates.
fn distance(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(p, q)| (p - q) * (p - q))
        .sum::<f64>()
        .sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::finite_difference_jacobian;
    use crate::scenes::{disc_row, sphere_row};

    /// The sparse assembly of the step's Jacobian equals the dense one entry by entry (both
    /// add the same block entries, so exactly up to the order of additions: 1e-14 relative),
    /// has no entry outside its pattern, and matches central differences (1e-6 relative, the
    /// bound used for every analytic Jacobian of the crate).
    fn check_sparse_jacobian<S: Dynamics>(scene: Scene<S>) {
        check_sparse_jacobian_with(scene, Integrator::Euler);
    }

    fn check_sparse_jacobian_with<S: Dynamics>(scene: Scene<S>, integrator: Integrator) {
        let settings = StepperSettings {
            integrator,
            ..StepperSettings::default()
        };
        check_sparse_jacobian_settings(scene, settings);
    }

    fn check_sparse_jacobian_settings<S: Dynamics>(scene: Scene<S>, settings: StepperSettings) {
        let mut stepper = ImplicitStepper::new(scene, settings).unwrap();
        // A few steps so that contacts carry impulses, then a perturbed point.
        for _ in 0..5 {
            assert!(stepper.step().converged);
        }
        let h = stepper.scene.time_step;
        stepper.prepare(h);
        assert!(
            stepper.pattern.is_some(),
            "the scene is large enough to be sparse"
        );
        // The elimination stages: closest points, twists, then impulses and multipliers.
        let pattern = stepper.pattern.as_ref().unwrap();
        let mut expected = vec![2u8; stepper.z.len()];
        for b in 0..stepper.scene.bodies.len() {
            if let Some(r) = stepper.layout.range(b) {
                expected[r].fill(1);
            }
        }
        for &k in &stepper.active {
            let slot = &stepper.slots[k];
            expected[slot.offset..slot.offset + slot.block.layout().normal].fill(0);
        }
        assert!((0..expected.len()).all(|i| pattern.stage(i) == expected[i]));
        let mut z = stepper.z.clone();
        for (i, v) in z.iter_mut().enumerate() {
            *v += 1e-3 * ((i as f64) * 0.7).sin();
        }
        let lower = stepper.lower.clone();
        let upper = stepper.upper.clone();
        for i in 0..z.len() {
            z[i] = z[i].max(lower[i]).min(upper[i]);
        }
        let mut problem = step_problem!(stepper, h);
        let n = problem.dim();
        let mut sparse = SparseJacobian::default();
        assert!(problem.sparse_pattern(&mut sparse));
        problem.sparse_jacobian(&z, &mut sparse);
        let mut dense = DMatrix::zeros(n, n);
        problem.jacobian(&z, &mut dense);
        let assembled = sparse.to_dense();
        let scale = dense.amax().max(1.0);
        assert!((&assembled - &dense).amax() <= 1e-14 * scale);
        let fd = finite_difference_jacobian(&mut problem, &z, 1e-6);
        let mut worst = 0.0f64;
        for i in 0..n {
            for j in 0..n {
                let e = (assembled[(i, j)] - fd[(i, j)]).abs() / assembled[(i, j)].abs().max(1.0);
                worst = worst.max(e);
            }
        }
        assert!(
            worst < 1e-6,
            "sparse Jacobian vs central differences: {worst:e}"
        );
    }

    /// Soak seed 403 (3D, seven ellipsoids and superellipsoids, Euler, μ = 1.35): step 71 is
    /// solved with continuation in `μ` after one halving, and no other step of the first 72
    /// needs it. Afterwards every contact has the scene's friction again. (Seed 447's step 103,
    /// which this test ran before, is solved since session 29 from RATTLE's second-order cold
    /// start, and seed 26's step 48 since the path search's merit leaves out rows resting at
    /// their bound: see `mcp::path`.)
    #[test]
    fn continuation_in_friction_solves_a_wedged_landing_and_restores_mu() {
        let random = crate::study::soak::random_scene(403);
        let crate::scenario::AnyScene::Spatial(scene) = random.scene else {
            panic!("seed 403 is spatial");
        };
        let mu = scene.friction.mu;
        let mut stepper = ImplicitStepper::new(scene, random.settings).unwrap();
        let mut continued = Vec::new();
        for step in 0..=71 {
            let report = stepper.step();
            assert!(report.converged, "step {step}: {}", report.solve);
            if report.friction_continuations > 0 {
                continued.push((step, report.friction_continuations, report.retries));
            }
        }
        assert_eq!(continued, [(71, 1, 1)]);
        for slot in &stepper.slots {
            assert_eq!(slot.block.kernel().friction().mu, mu, "contact {}", slot.id);
        }
    }

    /// A contact keeps its friction basis while it lasts, and a reference renewed because the
    /// normal came near it turns the warm start's friction with it. The resting pyramid of
    /// 10's ground contacts have `n = e_z` up to rounding, where the reference chosen afresh
    /// every step flipped `t` between `e_x` and `e_y` and left the warm start's `p_t`, `p_o`
    /// pointing the wrong way.
    #[test]
    fn a_contact_keeps_its_friction_basis_and_a_renewed_one_turns_the_warm_start() {
        let scene = crate::scenes::sphere_pyramid(3, 0.5).unwrap();
        let mut stepper = ImplicitStepper::new(scene, StepperSettings::default()).unwrap();
        assert!(stepper.step().converged);
        let first: Vec<_> = stepper
            .active
            .iter()
            .map(|&k| (k, stepper.slots[k].block.kernel().tangent_reference()))
            .collect();
        assert_eq!(first.len(), 30);
        for _ in 0..30 {
            assert!(stepper.step().converged);
        }
        for &(k, e) in &first {
            assert_eq!(stepper.slots[k].block.kernel().tangent_reference(), e);
        }
        // The world friction impulse of the contact's local variables.
        let world = |st: &ImplicitStepper<crate::geometry::Spatial>, k: usize| {
            let slot = &st.slots[k];
            let x = slot.local(&st.z);
            let p = slot.block.kernel().friction_impulses(x);
            output_normal_and_friction(
                x,
                &st.scene.bodies[slot.body1],
                slot.block.kernel(),
                [p[0], p[1]],
            )
        };
        let k = first[0].0;
        let (n, loaded) = world(&stepper, k);
        assert!(loaded.iter().map(|v| v * v).sum::<f64>().sqrt() > 1e-3);
        // A reference 6° from the normal (`|e·n| > 0.9`) and a friction impulse in its basis.
        let n: nalgebra::Vector3<f64> = nalgebra::Vector3::new(n[0], n[1], n[2]);
        let near = (n + 0.1 * nalgebra::Vector3::<f64>::x()).normalize();
        stepper.slots[k].block.set_tangent_reference(near).unwrap();
        let at = stepper.slots[k].offset + stepper.slots[k].block.kernel().friction_range().start;
        stepper.z[at] = 0.03;
        stepper.z[at + 1] = -0.02;
        let (_, before) = world(&stepper, k);
        stepper.renew_tangent_reference(k);
        let (_, after) = world(&stepper, k);
        assert_eq!(
            stepper.slots[k].block.kernel().tangent_reference(),
            tangent_reference_for::<crate::geometry::Spatial>(&n)
        );
        for i in 0..3 {
            assert!(
                (after[i] - before[i]).abs() <= 1e-15,
                "{before:?} → {after:?}"
            );
        }
        // A reference well away from the normal stays.
        let kept = stepper.slots[k].block.kernel().tangent_reference();
        stepper.renew_tangent_reference(k);
        assert_eq!(stepper.slots[k].block.kernel().tangent_reference(), kept);
    }

    /// Contacts between two intersections leave their multipliers' square out of the pattern
    /// (`block::JacobianShape`): the assembled Jacobian still equals the dense one and central
    /// differences.
    #[test]
    fn sparse_step_jacobian_is_exact_with_two_intersections() {
        use crate::scenario::{AnyScene, load};
        let path = format!("{}/examples/box_stack_5.toml", env!("CARGO_MANIFEST_DIR"));
        match load(&path).unwrap().scene {
            AnyScene::Spatial(s) => check_sparse_jacobian(s),
            AnyScene::Planar(_) => panic!("the stack is 3D"),
        }
    }

    #[test]
    fn sparse_step_jacobian_is_exact_in_2d() {
        check_sparse_jacobian(disc_row(12, 0.002, 2.0, 0.5).unwrap());
    }

    /// The RATTLE integrator's MCP (issue 8): same kinematic map and blocks, other momentum;
    /// its Jacobian is exact too (after steps that went through the second kick).
    #[test]
    fn rattle_step_jacobian_is_exact() {
        check_sparse_jacobian_with(disc_row(12, 0.002, 2.0, 0.5).unwrap(), Integrator::Rattle);
        check_sparse_jacobian_with(sphere_row(8, 0.002, 2.0, 0.5).unwrap(), Integrator::Rattle);
    }

    #[test]
    fn sparse_step_jacobian_is_exact_in_3d() {
        check_sparse_jacobian(sphere_row(8, 0.002, 2.0, 0.5).unwrap());
    }

    /// The gyroscopic impulse taken at `ν` (implicit and midpoint, and RATTLE's first kick at
    /// half weight) adds its derivative to the angular blocks: bodies with unequal principal
    /// moments spinning about no principal axis, so the term and its derivative are far from
    /// zero.
    #[test]
    fn gyroscopic_step_jacobian_is_exact() {
        use nalgebra::{Matrix3, Vector3};
        let cases = [
            (Gyroscopic::Implicit, Integrator::Euler),
            (Gyroscopic::Midpoint, Integrator::Euler),
            (Gyroscopic::Implicit, Integrator::Rattle),
        ];
        for (gyroscopic, integrator) in cases {
            let mut scene = sphere_row(8, 0.002, 2.0, 0.5).unwrap();
            for (i, body) in scene.bodies.iter_mut().enumerate() {
                if !body.fixed {
                    let moment = body.inertia[(0, 0)];
                    body.inertia = Matrix3::from_diagonal(&Vector3::new(0.6, 1.0, 1.3)) * moment;
                    body.twist.angular += Vector3::new(3.0, -2.0 + i as f64, 1.5);
                }
            }
            let settings = StepperSettings {
                gyroscopic,
                integrator,
                ..StepperSettings::default()
            };
            check_sparse_jacobian_settings(scene, settings);
        }
    }

    /// The joints whose multipliers are unique extrapolate their proximal centre, the others
    /// keep it at the last step's multipliers: the pendulum, double pendulum and planar
    /// four-bar (8 independent rows on 9 velocities) are independent; the door's two coaxial
    /// hinges (10 rows on 6 velocities) and a joint with a stop or friction are not; a contact
    /// on a body of the group withdraws the extrapolation for that step.
    #[test]
    fn joint_groups_tell_independent_rows_from_redundant_ones() {
        use crate::scenario::{AnyScene, load};
        fn groups(file: &str) -> Vec<bool> {
            let path = format!("{}/examples/{file}", env!("CARGO_MANIFEST_DIR"));
            let flags = |g: &joint_groups::JointGroups, n: usize| {
                (0..n).map(|j| g.extrapolate_centre(j)).collect::<Vec<_>>()
            };
            match load(&path).unwrap().scene {
                AnyScene::Planar(s) => {
                    let st = ImplicitStepper::new(s, StepperSettings::default()).unwrap();
                    flags(&st.joint_groups, st.joints.len())
                }
                AnyScene::Spatial(s) => {
                    let st = ImplicitStepper::new(s, StepperSettings::default()).unwrap();
                    flags(&st.joint_groups, st.joints.len())
                }
            }
        }
        assert_eq!(groups("pendulum_2d.toml"), [true]);
        assert_eq!(groups("double_pendulum.toml"), [true, true]);
        assert_eq!(groups("four_bar_linkage.toml"), [true; 4]);
        assert_eq!(groups("door_two_hinges_3d.toml"), [false, false]);
        assert_eq!(groups("pendulum_limit_2d.toml"), [false]);
        assert_eq!(groups("slider_friction_2d.toml"), [false]);

        let mut g = {
            let path = format!("{}/examples/pendulum_2d.toml", env!("CARGO_MANIFEST_DIR"));
            let AnyScene::Planar(s) = load(&path).unwrap().scene else {
                unreachable!()
            };
            ImplicitStepper::new(s, StepperSettings::default())
                .unwrap()
                .joint_groups
        };
        g.mark_contacts([(0, 7)].into_iter());
        assert!(!g.extrapolate_centre(0), "a contact on the rod");
        g.mark_contacts(std::iter::empty());
        assert!(g.extrapolate_centre(0));
    }
}
