//! Where a block of the step's MCP lives in the stepper: its place in `z`, its bodies, its
//! evaluation and its warm start while `z` is laid out anew, the same for every kind of block
//! ([`ConstraintBlock`]). Contacts keep a slot of their own (`super::Slot`) with what the broad
//! phase needs besides.

use super::NO_ENTRY;
use super::assembly::{BlockView, DensePlan};
use crate::block::{BlockEval, ConstraintBlock};
use crate::contact::BodyStep;
use crate::mcp::{DenseJacobian, SparseJacobian};
use crate::model::{Dynamics, VelocityLayout};
use std::marker::PhantomData;

/// One persistent block (a joint, a support) of the step's MCP.
#[derive(Debug, Clone)]
pub(super) struct BlockSlot<S: Dynamics, B: ConstraintBlock<S>> {
    pub block: B,
    /// Body 1 (`None`: the world) and body 2 (`None`: a block on body 1 alone).
    pub bodies: [Option<usize>; 2],
    /// Where its unknowns sit in `z` (`NO_ENTRY` before the first layout).
    pub offset: usize,
    pub eval: B::Eval,
    /// Its unknowns while `z` is laid out anew (the warm start).
    pub x: Vec<f64>,
    /// Where each block entry goes in the sparse Jacobian (see [`BlockView::positions`]).
    pub positions: Vec<usize>,
    /// Where each block entry goes in the dense Jacobian.
    dense: DensePlan,
    _space: PhantomData<S>,
}

impl<S: Dynamics, B: ConstraintBlock<S>> BlockSlot<S, B> {
    /// A slot for `block` on `bodies`, its unknowns zero.
    pub fn new(block: B, bodies: [Option<usize>; 2]) -> Self {
        Self {
            bodies,
            offset: NO_ENTRY,
            eval: block.new_eval(),
            x: vec![0.0; block.local_count()],
            positions: Vec::new(),
            dense: DensePlan::default(),
            block,
            _space: PhantomData,
        }
    }

    /// The block as the assembly sees it.
    pub fn view<'a>(&'a self, layout: &VelocityLayout) -> BlockView<'a> {
        BlockView {
            offset: self.offset,
            local: self.block.local_count(),
            bodies: self.bodies.map(|b| b.and_then(|b| layout.range(b))),
            values: self.eval.values(),
            jacobian: self.eval.jacobian(),
        }
    }

    /// Its unknowns in `z`.
    pub fn local<'a>(&self, z: &'a [f64]) -> &'a [f64] {
        &z[self.offset..self.offset + self.block.local_count()]
    }

    /// Keeps its unknowns from `z` before `z` is laid out anew.
    pub fn save(&mut self, z: &[f64]) {
        if self.offset != NO_ENTRY {
            let n = self.block.local_count();
            self.x.copy_from_slice(&z[self.offset..self.offset + n]);
        }
    }

    /// Appends its unknowns and their bounds for a step of `h` to the new layout.
    pub fn lay_out(
        &mut self,
        z: &mut Vec<f64>,
        lower: &mut Vec<f64>,
        upper: &mut Vec<f64>,
        h: f64,
    ) {
        self.offset = z.len();
        let (lo, hi) = self.block.bounds(h);
        z.extend_from_slice(&self.x);
        lower.extend_from_slice(&lo);
        upper.extend_from_slice(&hi);
    }

    /// Rewrites its bounds in `lower` and `upper` for a (sub-)step of `h`.
    pub fn write_bounds(&self, h: f64, lower: &mut [f64], upper: &mut [f64]) {
        let range = self.offset..self.offset + self.block.local_count();
        self.block
            .write_bounds(h, &mut lower[range.clone()], &mut upper[range]);
    }

    /// Evaluates the block at `z`, its bodies' steps from `step`.
    pub fn evaluate(&mut self, z: &[f64], h: f64, step: impl Fn(Option<usize>) -> BodyStep<S>) {
        let (s1, s2) = (step(self.bodies[0]), step(self.bodies[1]));
        let n = self.block.local_count();
        let x = &z[self.offset..self.offset + n];
        self.block.evaluate(x, &s1, &s2, h, &mut self.eval);
    }

    /// Where its entries go in `pattern`.
    /// Adds its Jacobian entries to the dense Jacobian `jac`.
    pub fn add_dense(&mut self, layout: &VelocityLayout, jac: &mut DenseJacobian) {
        let mut plan = std::mem::take(&mut self.dense);
        plan.add(&self.view(layout), jac);
        self.dense = plan;
    }

    pub fn set_positions(&mut self, layout: &VelocityLayout, pattern: &SparseJacobian) {
        let mut positions = std::mem::take(&mut self.positions);
        self.view(layout).positions(pattern, &mut positions);
        self.positions = positions;
    }
}
