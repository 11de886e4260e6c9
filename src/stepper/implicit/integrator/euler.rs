//! The paper's scheme (eq. 6, 21): `M (ν^{ℓ+1} − ν^ℓ) = W p + h λ`, `q^{ℓ+1} = q^ℓ + h ν^{ℓ+1}`.
//! The MCP's solution is the whole step: nothing around it.

use super::Scheme;
use crate::model::{Dynamics, RigidBody, Wrench};

/// [`crate::model::Integrator::Euler`].
pub(in crate::stepper::implicit) struct Euler;

impl<S: Dynamics> Scheme<S> for Euler {
    fn momentum(&self, _body: &RigidBody<S>, free: Wrench<S>, _applied: &Wrench<S>) -> Wrench<S> {
        free
    }
    fn smooth_weight(&self) -> f64 {
        1.0
    }
}
