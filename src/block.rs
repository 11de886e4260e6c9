//! The constraint-block interface of the step's MCP. A block — a contact ([`crate::contact`]),
//! a joint ([`crate::joint`]), a support ([`crate::support`]) — owns `n` local unknowns and
//! their bounds and, at the end-of-step poses of its (at most two) bodies, writes
//! `values = [its n rows; the wrench on body 1 (DOF); the wrench on body 2 (DOF)]` and their
//! exact Jacobian over `[local unknowns; ν₁; ν₂]` (its bodies are the stepper's business). The stepper assembles every block the same
//! way (`stepper::implicit::assembly`) and never reads a block's layout; a new kind of block
//! implements this trait and gets a slot list in the stepper.

use crate::contact::BodyStep;
use crate::model::Dynamics;
use nalgebra::DMatrix;
use std::ops::Range;

/// A block's evaluation: the values and their Jacobian (`total × total`, [`BlockJacobian`]).
pub trait BlockEval {
    /// `[rows; wrench on body 1; wrench on body 2]`.
    fn values(&self) -> &[f64];
    /// `∂values/∂(local unknowns, ν₁, ν₂)`.
    fn jacobian(&self) -> &BlockJacobian;
}

/// One kind of constraint block (see the module docs).
pub trait ConstraintBlock<S: Dynamics> {
    /// Its evaluation's type (scratch it owns between evaluations).
    type Eval: BlockEval + std::fmt::Debug;
    /// Number of local unknowns (and rows).
    fn local_count(&self) -> usize;
    /// Lower and upper bounds of the local unknowns for a (sub-)step of `h` (an impulse bound
    /// such as a joint friction's scales with it).
    fn bounds(&self, h: f64) -> (Vec<f64>, Vec<f64>);
    /// Writes [`Self::bounds`] into `lo` and `hi` (`local_count` entries each) without
    /// allocating, for every (sub-)step.
    fn write_bounds(&self, h: f64, lo: &mut [f64], hi: &mut [f64]) {
        let (l, u) = self.bounds(h);
        lo.copy_from_slice(&l);
        hi.copy_from_slice(&u);
    }
    /// A zeroed evaluation.
    fn new_eval(&self) -> Self::Eval;
    /// The rows and wrenches at the local unknowns `x` and the bodies' steps `s1`, `s2` over a
    /// step of `h`, with their exact Jacobian.
    fn evaluate(
        &self,
        x: &[f64],
        s1: &BodyStep<S>,
        s2: &BodyStep<S>,
        h: f64,
        eval: &mut Self::Eval,
    );
}

/// Where a block Jacobian's entries sit in its storage: column-major, `total × total`, less the
/// structural zeros between a block's *decoupled* unknowns — at most two ranges of local
/// unknowns whose rows depend on none of them (an intersection's KKT multipliers: function
/// `j`'s row is `−gⱼ(a₂)` whatever the multipliers). Those entries are neither stored, zeroed
/// nor assembled, so a contact between intersections of `m` functions stores, evaluates and
/// assembles `O(m)` entries, not `O(m²)`, and the step's sparse pattern keeps the arrow
/// structure the fill-reducing ordering needs. A decoupled column stores the rows outside the
/// decoupled ranges, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JacobianShape {
    total: usize,
    /// Sorted, disjoint `(start, end)`; empty ranges are `(0, 0)`.
    decoupled: [(usize, usize); 2],
    decoupled_len: usize,
}

impl JacobianShape {
    /// Every entry of a `total × total` Jacobian stored.
    pub fn dense(total: usize) -> Self {
        Self {
            total,
            decoupled: [(0, 0); 2],
            decoupled_len: 0,
        }
    }

    /// `total × total` with the entries between the unknowns of `a` and `b` (disjoint ranges
    /// within `0..total`, possibly empty) structurally zero.
    pub fn with_decoupled(total: usize, a: Range<usize>, b: Range<usize>) -> Self {
        let mut r =
            [(a.start, a.end), (b.start, b.end)].map(|(s, e)| if s < e { (s, e) } else { (0, 0) });
        if r[0].1 == 0 || (r[1].1 > 0 && r[1].0 < r[0].0) {
            r.swap(0, 1);
        }
        assert!(
            r[0].1 <= total && r[1].1 <= total && (r[1].1 == 0 || r[0].1 <= r[1].0),
            "decoupled ranges must be disjoint and within the block"
        );
        Self {
            total,
            decoupled: r,
            decoupled_len: r.iter().map(|(s, e)| e - s).sum(),
        }
    }

    /// `total`.
    pub fn total(&self) -> usize {
        self.total
    }

    /// Number of stored entries.
    pub fn len(&self) -> usize {
        self.total * self.total - self.decoupled_len * self.decoupled_len
    }

    /// True when nothing is stored (`total = 0`).
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// Number of decoupled unknowns before `i`.
    #[inline]
    fn before(&self, i: usize) -> usize {
        // `max`/`min` rather than `clamp`: no check of the bounds' order on every entry.
        let [(s0, e0), (s1, e1)] = self.decoupled;
        (i.max(s0).min(e0) - s0) + (i.max(s1).min(e1) - s1)
    }

    /// True when unknown `i` is decoupled.
    #[inline]
    pub fn is_decoupled(&self, i: usize) -> bool {
        let [(s0, e0), (s1, e1)] = self.decoupled;
        (i.wrapping_sub(s0) < e0 - s0) | (i.wrapping_sub(s1) < e1 - s1)
    }

    /// Where column `c` starts in the storage.
    #[inline]
    pub fn column_start(&self, c: usize) -> usize {
        c * self.total - self.before(c) * self.decoupled_len
    }

    /// Where column `c`'s stored entries sit in the storage.
    pub fn column_range(&self, c: usize) -> Range<usize> {
        let len = if self.is_decoupled(c) {
            self.total - self.decoupled_len
        } else {
            self.total
        };
        let start = self.column_start(c);
        start..start + len
    }

    /// Where entry `(r, c)` sits in the storage. Panics on a structural zero.
    #[inline]
    pub fn index(&self, r: usize, c: usize) -> usize {
        let start = self.column_start(c);
        if self.is_decoupled(c) {
            assert!(
                !self.is_decoupled(r),
                "entry ({r}, {c}) is a structural zero of the block"
            );
            start + r - self.before(r)
        } else {
            start + r
        }
    }

    /// The rows column `c` stores, in storage order (up to three ranges, some empty).
    #[inline]
    pub fn column_rows(&self, c: usize) -> [Range<usize>; 3] {
        if !self.is_decoupled(c) {
            return [0..self.total, 0..0, 0..0];
        }
        let [(s0, e0), (s1, e1)] = self.decoupled;
        if e1 == 0 {
            [0..s0, e0..self.total, 0..0]
        } else {
            [0..s0, e0..s1, e1..self.total]
        }
    }
}

/// A block's Jacobian stored in its [`JacobianShape`] (read `(r, c)` as a matrix; a structural
/// zero reads 0 and cannot be written).
#[derive(Debug, Clone, PartialEq)]
pub struct BlockJacobian {
    shape: JacobianShape,
    data: Vec<f64>,
}

impl BlockJacobian {
    /// A zero Jacobian of `shape`.
    pub fn zeros(shape: JacobianShape) -> Self {
        Self {
            data: vec![0.0; shape.len()],
            shape,
        }
    }

    /// Its shape.
    pub fn shape(&self) -> JacobianShape {
        self.shape
    }

    /// Its stored entries, in [`JacobianShape::index`] order.
    pub fn data(&self) -> &[f64] {
        &self.data
    }

    /// The shape and the stored entries to write by [`JacobianShape::index`].
    pub fn parts_mut(&mut self) -> (JacobianShape, &mut [f64]) {
        (self.shape, &mut self.data)
    }

    /// Sets every entry to zero.
    pub fn clear(&mut self) {
        self.data.fill(0.0);
    }

    /// Copies column `from` into column `to` (neither decoupled).
    pub fn copy_column(&mut self, from: usize, to: usize) {
        let s = self.shape;
        assert!(!s.is_decoupled(from) && !s.is_decoupled(to));
        let start = s.column_start(from);
        self.data
            .copy_within(start..start + s.total, s.column_start(to));
    }

    /// Column `c`'s stored entries (the rows [`JacobianShape::column_rows`] names).
    pub fn column(&self, c: usize) -> &[f64] {
        &self.data[self.shape.column_range(c)]
    }

    /// Mutable [`Self::column`].
    pub fn column_mut(&mut self, c: usize) -> &mut [f64] {
        &mut self.data[self.shape.column_range(c)]
    }

    /// The whole matrix, structural zeros included.
    pub fn to_dense(&self) -> DMatrix<f64> {
        let t = self.shape.total;
        DMatrix::from_fn(t, t, |r, c| self[(r, c)])
    }
}

impl std::ops::Index<(usize, usize)> for BlockJacobian {
    type Output = f64;
    fn index(&self, (r, c): (usize, usize)) -> &f64 {
        assert!(
            r < self.shape.total && c < self.shape.total,
            "({r}, {c}) out of the block"
        );
        if self.shape.is_decoupled(r) && self.shape.is_decoupled(c) {
            &0.0
        } else {
            &self.data[self.shape.index(r, c)]
        }
    }
}

impl std::ops::IndexMut<(usize, usize)> for BlockJacobian {
    fn index_mut(&mut self, (r, c): (usize, usize)) -> &mut f64 {
        assert!(
            r < self.shape.total && c < self.shape.total,
            "({r}, {c}) out of the block"
        );
        &mut self.data[self.shape.index(r, c)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every entry outside the decoupled square has its own slot, the slots fill the storage,
    /// columns list their stored rows in storage order, and structural zeros read 0.
    #[test]
    fn a_shape_stores_every_entry_but_the_decoupled_square_once() {
        for (total, a, b) in [
            (7, 0..0, 0..0),
            (9, 2..5, 0..0),
            (12, 6..8, 2..4),
            (12, 0..3, 9..12),
            (10, 3..4, 4..6),
        ] {
            let shape = JacobianShape::with_decoupled(total, a.clone(), b.clone());
            let dec = |i: usize| a.contains(&i) || b.contains(&i);
            let mut seen = vec![false; shape.len()];
            let mut next = 0;
            for c in 0..total {
                assert_eq!(shape.column_start(c), next);
                for r in shape.column_rows(c).into_iter().flatten() {
                    assert!(!(dec(r) && dec(c)));
                    let k = shape.index(r, c);
                    assert_eq!(k, next, "column {c} row {r}");
                    assert!(!seen[k]);
                    seen[k] = true;
                    next += 1;
                }
            }
            assert!(seen.iter().all(|&s| s));
            let mut jac = BlockJacobian::zeros(shape);
            for c in 0..total {
                for r in 0..total {
                    if !(dec(r) && dec(c)) {
                        jac[(r, c)] = (r * 100 + c) as f64;
                    }
                }
            }
            let dense = jac.to_dense();
            for c in 0..total {
                for r in 0..total {
                    let want = if dec(r) && dec(c) {
                        0.0
                    } else {
                        (r * 100 + c) as f64
                    };
                    assert_eq!(dense[(r, c)], want);
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "structural zero")]
    fn a_structural_zero_cannot_be_written() {
        let mut jac = BlockJacobian::zeros(JacobianShape::with_decoupled(6, 1..3, 4..5));
        jac[(4, 2)] = 1.0;
    }
}
