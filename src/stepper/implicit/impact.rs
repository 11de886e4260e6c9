//! A start for the steps in which a contact closes: the normal impulse that would stop it.
//!
//! A contact that carries no impulse and will close within the step (its gap plus `h` times
//! its approach speed below zero) starts the step at `p_n = 0` and the bodies' incoming
//! velocities. There every row but non-penetration already holds — the bodies pass `v h` into
//! each other, and the closest-point rows describe the overlap exactly (the scale `t < 0` of
//! two intersections, `a₂` inside `F` for one function) — so the residual is only the overlap,
//! `O(v h)`, and the path search starts in a valley that shrinks with `h` instead of moving
//! `p_n` to the impulse that stops the contact. The start is moved instead to that impulse and
//! the velocities it gives: `p_n = Δv_n / k`, `Δv_n = −gap/h − v_n` the change of approach
//! speed that closes the gap exactly at the end of the step and `k = n·(Δu₂ − Δu₁)` the change
//! of approach speed per unit impulse (the contact's inverse effective mass), the contacts in
//! order, each seeing the velocities the earlier ones left. It is only a start: the solve then
//! finds the step's solution, friction and all.
//!
//! A contact at rest closes too: gravity moves a body resting on another `g h²` into it within
//! the step, so a new contact under a resting body (the cold first step of a pyramid, a sphere
//! of a pile landing on the ones below) starts at the impulse that holds it, `m g h` for a body
//! on the ground. The warm start counts that velocity; the cold retry of a failed sub-step does
//! not (a different start is what a retry is for).

use super::ImplicitStepper;
use crate::model::{Dynamics, Twist, Wrench};
use crate::model::{apply_inverse_mass, inverse_inertia};

/// Closings shallower than this (m) are left to the solver (rounding of a resting contact).
const CLOSING: f64 = 1e-9;

impl<S: Dynamics> ImplicitStepper<S> {
    /// Moves the start of a step of `h` to the impulses that stop its closing contacts (see
    /// the module docs). Rigid contacts, under every integrator: the impulse enters each
    /// scheme's momentum rows at full weight, so the start is as close to their solution.
    /// From a warm start the approach includes the velocity gravity adds within the step, so
    /// a contact entering under a body at rest starts near its load; a `cold` start (the retry
    /// of a sub-step the warm one did not solve) leaves it out, so that the retry starts from
    /// a different point.
    pub(super) fn predict_closing_impulses(&mut self, h: f64, cold: bool) {
        for &k in &self.active {
            let slot = &self.slots[k];
            if slot.block.quasi_rigid().is_some() {
                continue;
            }
            let x = slot.local(&self.z);
            if slot.block.kernel().normal_impulse(x) != 0.0 {
                continue;
            }
            let (b1, b2) = (
                &self.scene.bodies[slot.body1],
                &self.scene.bodies[slot.body2],
            );
            let g = slot.block.kernel().normal_source(x, &b1.pose);
            let len = S::norm(&g);
            if !(len > 0.0 && len.is_finite()) {
                continue;
            }
            let n = g * (1.0 / len);
            let (a1, a2) = (slot.block.kernel().a1(x), slot.block.kernel().a2(x));
            let (a1, a2) = (S::vector_from_fn(|i| a1[i]), S::vector_from_fn(|i| a2[i]));
            let gap = S::dot(&n, &(a2 - a1));
            // Per body: its twist range, lever, and the sign of `n` on it (body 2 is pushed
            // along `n`, body 1 against it).
            let sides = [(slot.body1, a1, b1, -1.0), (slot.body2, a2, b2, 1.0)];
            // `n·(u₂ − u₁)`: negative while the bodies close; from a warm start with the
            // velocity gravity adds over the step (a body at rest on another closes by `g h²`
            // within it).
            let mut approach = 0.0;
            for &(b, a, _, sign) in &sides {
                if let Some(u) = self.point_velocity(b, &a) {
                    approach += sign * S::dot(&n, &u);
                    if !cold {
                        approach += sign * h * S::dot(&n, &self.scene.gravity);
                    }
                }
            }
            let closing = -(gap + h * approach);
            if closing <= CLOSING {
                continue;
            }
            // The change of `n·(u₂ − u₁)` per unit impulse, and each body's twist change.
            let mut response = 0.0;
            let mut deltas = [[0.0; 6]; 2];
            for (side, &(b, a, body, sign)) in sides.iter().enumerate() {
                if self.layout.range(b).is_none() {
                    continue;
                }
                let lever = a - body.pose.position;
                let mut w = [0.0; 6];
                Wrench::<S>::from_force_at(n * sign, &lever).write_to(&mut w[..S::DOF]);
                let inverse = inverse_inertia::<S>(&body.world_inertia());
                let dv = apply_inverse_mass::<S>(1.0 / body.mass, &inverse, &w);
                let dtwist = Twist::<S>::from_slice(&dv[..S::DOF]);
                response += sign * S::dot(&n, &dtwist.point_velocity(&lever));
                deltas[side] = dv;
            }
            if response.is_nan() || response <= 0.0 {
                continue;
            }
            let pn = closing / h / response;
            self.z[slot.offset + slot.block.kernel().normal_index()] = pn;
            for (side, &(b, ..)) in sides.iter().enumerate() {
                if let Some(r) = self.layout.range(b) {
                    for (zi, d) in self.z[r].iter_mut().zip(&deltas[side]) {
                        *zi += pn * d;
                    }
                }
            }
        }
    }

    /// The velocity, at the twists in `z`, of the point `a` moving with body `b` (`None` for a
    /// fixed body).
    fn point_velocity(&self, b: usize, a: &S::Vector) -> Option<S::Vector> {
        let r = self.layout.range(b)?;
        let twist = Twist::<S>::from_slice(&self.z[r]);
        Some(twist.point_velocity(&(*a - self.scene.bodies[b].pose.position)))
    }

    /// The larger of the speeds of contact `k`'s two points at the velocities in `z` (the warm
    /// start's, the last step's end): below `‖g‖ h` the contact rests (see `solve_step`).
    pub(super) fn contact_point_speed(&self, k: usize) -> f64 {
        let slot = &self.slots[k];
        let x = slot.local(&self.z);
        let kernel = slot.block.kernel();
        [(slot.body1, kernel.a1(x)), (slot.body2, kernel.a2(x))]
            .into_iter()
            .filter_map(|(b, a)| self.point_velocity(b, &S::vector_from_fn(|i| a[i])))
            .fold(0.0, |speed, u| speed.max(S::norm(&u)))
    }
}
