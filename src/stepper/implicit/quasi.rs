//! The stepper's quasi-rigid parts, kept apart from the assembly: attaching a body's compliant
//! layer to its contacts, carrying the layers' deflection from step to step (after the
//! integrator's end of step), and the layers' output and elastic energy.

use super::{ImplicitStepper, Slot, StepperError};
use crate::contact::{CompliantSide, QuasiRigidState};
use crate::model::{Dynamics, Integrator, Scene};

/// Gives `slot` the compliant layer of its bodies, if one has a layer (its local variables
/// then include the layer's). A contact between two layered bodies is refused (the paper's
/// §5.1 treats one compliant side per contact).
pub(super) fn attach<S: Dynamics>(
    scene: &Scene<S>,
    slot: &mut Slot<S>,
    integrator: Integrator,
) -> Result<(), StepperError> {
    let (b1, b2) = (&scene.bodies[slot.body1], &scene.bodies[slot.body2]);
    let (layer, side) = match (b1.layer, b2.layer) {
        (None, None) => return Ok(()),
        (Some(l), None) => (l, CompliantSide::F),
        (None, Some(l)) => (l, CompliantSide::G),
        (Some(_), Some(_)) => {
            return Err(StepperError::Contact {
                body1: b1.name.clone(),
                body2: b2.name.clone(),
                reason: "both bodies have a compliant layer; a contact has one compliant side \
                         (paper §5.1): remove one layer"
                    .into(),
            });
        }
    };
    let block = slot.block.clone();
    // The layered body second: a refusal is placed at the second body.
    let (other, layered) = match side {
        CompliantSide::F => (b2, b1),
        CompliantSide::G => (b1, b2),
    };
    slot.block = block
        .with_layer(layer, side, integrator)
        .map_err(|e| StepperError::Contact {
            body1: other.name.clone(),
            body2: layered.name.clone(),
            reason: e.to_string(),
        })?;
    slot.eval = slot.block.new_eval();
    slot.x.resize(slot.block.local_count(), 0.0);
    Ok(())
}

/// Completes the initial guess `x` of a layered contact entering the step (the rigid guess on
/// entry: closest points, multipliers) with its layer's variables, undeflected at the current
/// distance, and restarts the contact's warm-start history. Rigid contacts are left alone.
pub(super) fn initialize<S: Dynamics>(scene: &Scene<S>, slot: &mut Slot<S>, x: &mut Vec<f64>) {
    let (b1, b2) = (&scene.bodies[slot.body1], &scene.bodies[slot.body2]);
    let Some(law) = slot.block.quasi_rigid_mut() else {
        return;
    };
    let (a1, a2) = (law.kernel().a1(x), law.kernel().a2(x));
    let distance = a1
        .iter()
        .zip(a2)
        .map(|(p, q)| (p - q).powi(2))
        .sum::<f64>()
        .sqrt();
    x.resize(law.local_count(), 0.0);
    law.initialize(x, distance, &b1.pose, &b2.pose);
}

impl<S: Dynamics> ImplicitStepper<S> {
    /// True if some body has a compliant layer, so that its contacts are quasi-rigid (known
    /// before they come within reach).
    pub fn has_quasi_rigid_contacts(&self) -> bool {
        self.scene.bodies.iter().any(|b| b.layer.is_some())
    }

    /// The elastic energy stored in the compliant layers, `Σ ½ δᵀ K δ` (`δ_n` clipped at 0).
    pub fn elastic_energy(&self) -> f64 {
        self.active
            .iter()
            .map(|&k| &self.slots[k])
            .filter_map(|s| self.quasi_state_of(s))
            .map(|q| q.elastic_energy)
            .sum()
    }

    /// The quasi-rigid state of contact `slot` (`None` for a rigid contact).
    pub(super) fn quasi_state_of(&self, slot: &Slot<S>) -> Option<QuasiRigidState> {
        let law = slot.block.quasi_rigid()?;
        Some(law.state(slot.local(&self.z)))
    }

    /// Warm start of scenes with compliant layers: the velocities and, per quasi-rigid
    /// contact, its closest points, multipliers and layer variables move smoothly between
    /// impacts, so they are extrapolated by the quadratic through their last three whole steps
    /// (linearly after two): exact in free fall, where the velocity is linear and the points
    /// quadratic in time; `O((ωh)³)` in the spring phase. Each contact keeps its own history
    /// ([`QuasiRigidContact::predict`](crate::contact::QuasiRigidContact::predict)), so the prediction
    /// does not depend on where the contact sits in `z`; the velocities' history is the
    /// stepper's. The solve corrects the guess at impacts and contact changes.
    pub(super) fn predict_layers(&mut self) {
        if !self.has_quasi_rigid_contacts() {
            return;
        }
        let nv = self.layout.len();
        if self.have_previous && self.previous_z.len() == nv {
            let quadratic = self.have_older && self.older_z.len() == nv;
            for i in 0..nv {
                let (z, z1) = (self.z[i], self.previous_z[i]);
                self.z[i] = if quadratic {
                    3.0 * z - 3.0 * z1 + self.older_z[i]
                } else {
                    2.0 * z - z1
                };
            }
        }
        for &k in &self.active {
            let slot = &self.slots[k];
            if let Some(law) = slot.block.quasi_rigid() {
                let range = slot.offset..slot.offset + law.local_count();
                law.predict(&mut self.z[range.clone()], &self.lower[range]);
            }
        }
    }

    /// Adds the layers' spring wrenches `W p_ns` (end-of-step poses) to `out` (`ν` rows).
    pub(super) fn add_spring_impulses(&self, out: &mut [f64]) {
        for &k in &self.active {
            let slot = &self.slots[k];
            let (p1, p2) = (
                &self.scene.bodies[slot.body1].pose,
                &self.scene.bodies[slot.body2].pose,
            );
            let x = slot.local(&self.z);
            if let Some((w1, w2)) = slot.block.quasi_rigid().map(|l| l.spring_wrench(x, p1, p2)) {
                for (b, w) in [(slot.body1, w1), (slot.body2, w2)] {
                    if let Some(r) = self.layout.range(b) {
                        for (row, v) in r.zip(w) {
                            out[row] += v;
                        }
                    }
                }
            }
        }
    }

    /// After a converged (sub-)step of length `h` whose bodies are already at their end poses:
    /// the end-of-step velocity of the midpoint and RATTLE integrators, then every layer's
    /// deflection becomes the next step's `δ^ℓ` (`whole_step`: a full step, not a retried
    /// half, so the contact's warm-start history continues).
    ///
    /// The end-of-step velocity is the integrator's ([`super::integrator::Scheme::finish`]).
    pub(super) fn finish_quasi_step(&mut self, whole_step: bool, h: f64) {
        self.scheme().finish(self, h);
        for &k in &self.active {
            let slot = &mut self.slots[k];
            let (p1, p2) = (
                self.scene.bodies[slot.body1].pose,
                self.scene.bodies[slot.body2].pose,
            );
            if let Some(law) = slot.block.quasi_rigid_mut() {
                let x = &self.z[slot.offset..slot.offset + law.local_count()];
                law.commit(x, &p1, &p2, whole_step);
            }
        }
    }
}
