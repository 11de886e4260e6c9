//! The midpoint integrator ([`crate::model::Integrator::Midpoint`]): smooth impulses (applied
//! loads, layer springs) enter the position update at half weight, impulsive ones (contacts,
//! cores, friction) at full weight, and the end-of-step velocity gets the second half (see
//! [`crate::contact`], "Integrators").

use super::Scheme;
use crate::model::{Dynamics, RigidBody, Scene, Twist, Wrench, inverse_inertia};
use crate::stepper::implicit::{ImplicitStepper, StepperError};
use nalgebra::{DMatrix, DVector};

/// [`crate::model::Integrator::Midpoint`].
pub(in crate::stepper::implicit) struct Midpoint;

impl<S: Dynamics> Scheme<S> for Midpoint {
    fn check(&self, scene: &Scene<S>) -> Result<(), StepperError> {
        super::refuse_euler_only(scene)
    }
    fn momentum(&self, _body: &RigidBody<S>, free: Wrench<S>, applied: &Wrench<S>) -> Wrench<S> {
        free + applied.scaled(-0.5)
    }
    fn smooth_weight(&self) -> f64 {
        0.5
    }
    /// The solved `ν` is the velocity that moved the bodies, `q^{ℓ+1} = q^ℓ + h ν`, and the
    /// momentum row weighted the smooth impulses by ½, so the end-of-step velocity is
    /// `ν + ½ M⁻¹ (h λ_app + Σ W p_ns)`, then projected onto the joints.
    fn finish(&self, st: &mut ImplicitStepper<S>, _h: f64) {
        // The second kick's workspace, so that the step allocates nothing once sized.
        let mut kick = std::mem::take(&mut st.kick);
        kick.smooth.clear();
        kick.smooth.extend_from_slice(&st.applied);
        st.add_spring_impulses(&mut kick.smooth);
        let mut k = 0;
        for b in 0..st.scene.bodies.len() {
            if let Some(r) = st.layout.range(b) {
                let m: &DMatrix<f64> = &st.mass[k];
                k += 1;
                let mut a = std::mem::replace(&mut kick.body_mass, DMatrix::zeros(0, 0));
                if a.shape() != m.shape() {
                    a = m.clone();
                } else {
                    a.copy_from(m);
                }
                if kick.body_impulse.len() != r.len() {
                    kick.body_impulse = DVector::zeros(r.len());
                }
                kick.body_impulse.copy_from_slice(&kick.smooth[r.clone()]);
                // A singular mass matrix (none passes the scene's checks) keeps the velocity.
                let Some(chol) = a.cholesky() else { continue };
                chol.solve_mut(&mut kick.body_impulse);
                kick.body_mass = chol.unpack();
                let mut v = [0.0; 6];
                for (i, vi) in v[..r.len()].iter_mut().enumerate() {
                    *vi = st.z[r.start + i] + 0.5 * kick.body_impulse[i];
                }
                st.scene.bodies[b].twist = Twist::from_slice(&v[..r.len()]);
            }
        }
        st.kick = kick;
        if !st.joints.is_empty() {
            st.project_onto_joints();
        }
    }
}

impl<S: Dynamics> ImplicitStepper<S> {
    /// The midpoint integrator's end of step with joints: its last half kick of the smooth
    /// impulses leaves the velocity off the joints' velocity constraints by `O(h)` (a pendulum
    /// released from rest would gain kinetic energy along its rod). The velocity is projected
    /// onto them, `v⁺ ← v⁺ + M⁻¹ Gᵀ μ` with `G v⁺ = 0`, `M`-orthogonally (it only removes
    /// kinetic energy); the multipliers are part of the joints' step impulses.
    pub(in crate::stepper::implicit) fn project_onto_joints(&mut self) {
        let mut scratch = std::mem::take(&mut self.kick);
        scratch.inverse_mass.clear();
        scratch.velocity.clear();
        scratch.velocity.resize(self.layout.len(), 0.0);
        for (b, body) in self.scene.bodies.iter().enumerate() {
            match self.layout.range(b) {
                Some(r) => {
                    let inertia = body.world_inertia();
                    scratch
                        .inverse_mass
                        .push((1.0 / body.mass, inverse_inertia::<S>(&inertia)));
                    body.twist.write_to(&mut scratch.velocity[r]);
                }
                None => scratch.inverse_mass.push((0.0, [[0.0; 3]; 3])),
            }
        }
        let mut rows = std::mem::take(&mut scratch.rows);
        rows.clear();
        self.joint_rows(&mut rows, &scratch.inverse_mass);
        scratch.rows = rows;
        let joint_rows = self.joints.iter().map(|j| j.block.local_count()).sum();
        scratch.joint_projected.clear();
        scratch.joint_projected.resize(joint_rows, 0.0);
        self.project(&mut scratch, &mut []);
        for (b, body) in self.scene.bodies.iter_mut().enumerate() {
            if let Some(r) = self.layout.range(b) {
                body.twist = Twist::from_slice(&scratch.velocity[r]);
            }
        }
        self.kick = scratch;
    }
}
