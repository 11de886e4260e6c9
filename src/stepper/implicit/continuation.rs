//! The last retry of a sub-step before it is halved: continuation in the friction coefficient.
//!
//! The friction rows are bilinear, `e_k² μ p_n W_kᵀ ν + p_k σ = 0`, and a contact loaded at
//! `μ ≥ 1` can wedge between its neighbours, so a step's MCP has more than one valley for the
//! path search to stall in: in the soak, 2D scenes at `μ` from 1.27 to 1.47 whose body lands
//! on a resting one (seed 26: an ellipse on a circle on the ground) ran the path search, the
//! fallbacks and four halvings to their budgets, each stalled with a residual of 1e-6 to 1e-4.
//! Without friction those rows reduce to `p_k σ = 0`, and the path search solves the step
//! from the same start. So the sub-step is solved first at `μ = 0`, then at fractions of every
//! contact's own `μ`, each stage from the solution of the one before, the last at the full
//! `μ`: the final solve is the step's own MCP to the solver's tolerance, and what is applied
//! is its solution; the stages only choose where it starts. A stage that does not solve is
//! tried again at half the increase, down to [`SMALLEST_INCREMENT`]; below that, or if the
//! frictionless stage does not solve, the sub-step is halved as before. So is a sub-step whose
//! warm or cold solve, or whose stage, ended within `NEAR_TOLERANCE` tolerances: that search
//! found its solution's valley and crept in it, which a new start does not cure and a shorter
//! step does (the packed pyramid of 35's cold step, the struck row of 100's strike).

use super::ImplicitStepper;
use crate::mcp::SolveReport;
use crate::model::Dynamics;

/// The first increase of the fraction of `μ` after the frictionless stage (so the stages are
/// `0, ½, 1` unless one fails).
const FIRST_INCREMENT: f64 = 0.5;
/// The smallest increase of the fraction of `μ` tried after a stage that did not solve.
const SMALLEST_INCREMENT: f64 = 0.125;

impl<S: Dynamics> ImplicitStepper<S> {
    /// Solves the sub-step of `h` by continuation in `μ` from the start `start` (see the module
    /// docs): the report of its last solve, converged if the stage at the full `μ` did, with the
    /// counts of all its solves. Every contact's friction is its own again on return.
    pub(super) fn solve_by_friction_continuation(
        &mut self,
        h: f64,
        fallbacks: bool,
        start: &[f64],
    ) -> SolveReport {
        self.stage_friction.clear();
        for &k in &self.active {
            self.stage_friction
                .push(self.slots[k].block.kernel().friction());
        }
        self.z.copy_from_slice(start);
        self.set_friction_fraction(0.0);
        self.predict_closing_impulses(h, false);
        let mut total = self.solve_step(h, fallbacks, false, false);
        let mut reached = 0.0;
        let mut increment = FIRST_INCREMENT;
        self.stage_z.clear();
        self.stage_z.extend_from_slice(&self.z);
        while total.converged() && reached < 1.0 {
            let fraction = (reached + increment).min(1.0);
            self.set_friction_fraction(fraction);
            let report = self.solve_step(h, fallbacks, false, false);
            total.accumulate(&report);
            total.residual = report.residual;
            total.wall_time += report.wall_time;
            if report.converged() {
                total.solver = report.solver;
                reached = fraction;
                self.stage_z.copy_from_slice(&self.z);
            } else if increment > SMALLEST_INCREMENT
                && (report.residual.is_nan()
                    || report.residual > super::NEAR_TOLERANCE * self.settings.solver.tolerance)
            {
                increment *= 0.5;
                self.z.copy_from_slice(&self.stage_z);
            } else {
                total.status = report.status;
            }
        }
        self.set_friction_fraction(1.0);
        total
    }

    /// Sets every active contact's `μ` to `fraction` of its own (kept in `stage_friction`;
    /// at 1 exactly its own), and forgets the evaluations made at the old one.
    fn set_friction_fraction(&mut self, fraction: f64) {
        for (&k, own) in self.active.iter().zip(&self.stage_friction) {
            let mut friction = *own;
            if fraction != 1.0 {
                friction.mu *= fraction;
            }
            // `μ` scaled down from a valid one is valid.
            let _ = self.slots[k].block.kernel_mut().set_friction(friction);
        }
        self.last_z.clear();
    }
}
