//! A contact as the stepper holds it: the rigid kernel ([`ContactBlock`]) alone, or a law
//! around it ([`QuasiRigidContact`]). Both are constraint blocks; the stepper reads the contact's
//! geometry and impulses from the kernel and asks the law for what only it has.

use super::block::{ContactBlock, ContactError, ContactEval, ContactLayout};
use super::body_step::BodyStep;
use super::quasi_rigid::{CompliantSide, QuasiRigidContact};
use crate::geometry::Space;
use crate::model::{CompliantLayer, Integrator};

/// One contact: the rigid kernel, or the quasi-rigid law around it.
#[derive(Debug, Clone)]
#[expect(
    clippy::large_enum_variant,
    reason = "a contact lives in its stepper slot for many steps; a box would add an \
              indirection to every access of the kernel for a few hundred bytes per contact"
)]
pub enum Contact<S: Space> {
    /// The rigid contact (paper §4).
    Rigid(ContactBlock<S>),
    /// The quasi-rigid contact (paper §5).
    QuasiRigid(QuasiRigidContact<S>),
}

impl<S: Space> From<ContactBlock<S>> for Contact<S> {
    fn from(kernel: ContactBlock<S>) -> Self {
        Self::Rigid(kernel)
    }
}

impl<S: Space> From<QuasiRigidContact<S>> for Contact<S> {
    fn from(contact: QuasiRigidContact<S>) -> Self {
        Self::QuasiRigid(contact)
    }
}

impl<S: Space> Contact<S> {
    /// The same contact with a compliant layer on `side` around its kernel (see
    /// [`QuasiRigidContact::new`]); a contact that has one keeps its kernel and takes the new
    /// layer.
    pub fn with_layer(
        self,
        layer: CompliantLayer,
        side: CompliantSide,
        integrator: Integrator,
    ) -> Result<Self, ContactError> {
        let kernel = match self {
            Self::Rigid(k) => k,
            Self::QuasiRigid(q) => q.into_kernel(),
        };
        QuasiRigidContact::new(kernel, layer, side, integrator).map(Self::from)
    }

    /// The rigid kernel: the contact's points, normal, impulses and friction law.
    pub fn kernel(&self) -> &ContactBlock<S> {
        match self {
            Self::Rigid(k) => k,
            Self::QuasiRigid(q) => q.kernel(),
        }
    }

    /// The rigid kernel, to set its proximal terms, cone scale and levers (the tangent
    /// reference through [`set_tangent_reference`](Self::set_tangent_reference)).
    pub fn kernel_mut(&mut self) -> &mut ContactBlock<S> {
        match self {
            Self::Rigid(k) => k,
            Self::QuasiRigid(q) => q.kernel_mut(),
        }
    }

    /// The quasi-rigid law, if the contact has one.
    pub fn quasi_rigid(&self) -> Option<&QuasiRigidContact<S>> {
        match self {
            Self::Rigid(_) => None,
            Self::QuasiRigid(q) => Some(q),
        }
    }

    /// The quasi-rigid law, mutably, if the contact has one.
    pub fn quasi_rigid_mut(&mut self) -> Option<&mut QuasiRigidContact<S>> {
        match self {
            Self::Rigid(_) => None,
            Self::QuasiRigid(q) => Some(q),
        }
    }

    /// The index layout (a law's unknowns included).
    pub fn layout(&self) -> ContactLayout {
        self.kernel().layout()
    }

    /// Number of local variables (and rows).
    pub fn local_count(&self) -> usize {
        self.kernel().local_count()
    }

    /// Lower and upper bounds of the local variables.
    pub fn bounds(&self) -> (Vec<f64>, Vec<f64>) {
        match self {
            Self::Rigid(k) => k.bounds(),
            Self::QuasiRigid(q) => q.bounds(),
        }
    }

    /// A zeroed evaluation.
    pub fn new_eval(&self) -> ContactEval {
        self.kernel().new_eval()
    }

    /// The rows, wrenches and exact Jacobian at the local variables `x` and the bodies' steps.
    pub fn evaluate(
        &self,
        x: &[f64],
        body1: &BodyStep<S>,
        body2: &BodyStep<S>,
        out: &mut ContactEval,
    ) {
        match self {
            Self::Rigid(k) => k.evaluate(x, body1, body2, out),
            Self::QuasiRigid(q) => q.evaluate(x, body1, body2, out),
        }
    }

    /// The rows and wrenches of [`evaluate`](Self::evaluate) (the same bits); the Jacobian in
    /// `out` is stale after it.
    pub fn evaluate_values(
        &self,
        x: &[f64],
        body1: &BodyStep<S>,
        body2: &BodyStep<S>,
        out: &mut ContactEval,
    ) {
        match self {
            Self::Rigid(k) => k.evaluate_values(x, body1, body2, out),
            Self::QuasiRigid(q) => q.evaluate_values(x, body1, body2, out),
        }
    }

    /// Rewrites the rows of `out` (an evaluation at `x`) that the proximal centre and the cone
    /// scale enter, after either changed; false if the law cannot (then `out` is stale and the
    /// block must be evaluated again).
    pub fn refresh_law_rows(&self, x: &[f64], out: &mut ContactEval) -> bool {
        match self {
            Self::Rigid(k) => {
                k.refresh_law_rows(x, out);
                true
            }
            // The law adds its own terms to C3 and FR after the kernel's.
            Self::QuasiRigid(_) => false,
        }
    }

    /// The normal impulse `p_n` of the step in `x`: the kernel's, and under the quasi-rigid law
    /// the spring's and the core's together (`p_ns + p_nr`), the impulse the friction cone
    /// bounds.
    pub fn normal_impulse(&self, x: &[f64]) -> f64 {
        match self {
            Self::Rigid(k) => k.normal_impulse(x),
            Self::QuasiRigid(q) => q.normal_impulse(x),
        }
    }

    /// `(μ p_n + ‖p‖_e, ‖p‖_e − μ p_n)` at `x` with the whole [`normal_impulse`](Self::normal_impulse)
    /// (see [`ContactBlock::cone_excess`]).
    pub fn cone_excess(&self, x: &[f64]) -> (f64, f64) {
        self.kernel().cone_excess_at(x, self.normal_impulse(x))
    }

    /// Sets the 3D tangent reference (a law re-expresses what it carries in the new basis).
    pub fn set_tangent_reference(&mut self, e: S::Vector) -> Result<(), ContactError> {
        match self {
            Self::Rigid(k) => k.set_tangent_reference(e),
            Self::QuasiRigid(q) => q.set_tangent_reference(e),
        }
    }
}

super::contact_constraint_block!(Contact);
