//! Assembly of constraint blocks into the step's MCP, the same for every kind of block.
//!
//! A block (a contact, a joint) owns `n` local unknowns at `offset` in `z` and evaluates
//! `values = [its rows (n); the wrench on body 1 (DOF); the wrench on body 2 (DOF)]` with their
//! Jacobian over `[local unknowns; ν₁; ν₂]`. Its rows go to `z`'s rows at `offset`; its
//! wrenches are subtracted from its bodies' Newton–Euler rows (`M ν − … − Σ W = 0`). A body
//! without a twist in `ν` (fixed, or the world) has no rows or columns. The stepper sees every
//! block through a [`BlockView`] and never reads a block's layout.

use super::NO_ENTRY;
use crate::block::BlockJacobian;
use crate::mcp::{DenseJacobian, SparseJacobian};
use std::ops::Range;

/// One block as the assembly sees it.
pub(super) struct BlockView<'a> {
    /// Where its local unknowns (and rows) sit in `z`.
    pub offset: usize,
    /// How many local unknowns it has.
    pub local: usize,
    /// Its two bodies' twists in `ν` (`None`: not an unknown).
    pub bodies: [Option<Range<usize>>; 2],
    /// Its evaluation: rows, then the two wrenches.
    pub values: &'a [f64],
    /// Their Jacobian, `total × total`, `total = local + 2 DOF` (its structural zeros are
    /// not part of the step's pattern).
    pub jacobian: &'a BlockJacobian,
}

impl BlockView<'_> {
    fn total(&self) -> usize {
        self.values.len()
    }

    fn dof(&self) -> usize {
        (self.total() - self.local) / 2
    }

    /// The global index of block index `c` (a local unknown, or a twist entry of body 1 or
    /// 2), `NO_ENTRY` for a body without a twist.
    pub fn global(&self, c: usize) -> usize {
        let (n, dof) = (self.local, self.dof());
        if c < n {
            self.offset + c
        } else {
            let b = (c - n) / dof;
            self.bodies[b]
                .as_ref()
                .map_or(NO_ENTRY, |r| r.start + (c - n - b * dof))
        }
    }

    /// Writes its rows into `f` and subtracts its wrenches from its bodies' rows.
    pub fn add_function(&self, f: &mut [f64]) {
        let (n, dof) = (self.local, self.dof());
        f[self.offset..self.offset + n].copy_from_slice(&self.values[..n]);
        for (b, range) in self.bodies.iter().enumerate() {
            if let Some(r) = range {
                let first = n + b * dof;
                for (row, w) in r.clone().zip(&self.values[first..first + dof]) {
                    f[row] -= w;
                }
            }
        }
    }

    /// Adds its Jacobian entries to the dense Jacobian (wrench rows with the sign of the
    /// Newton–Euler rows).
    pub fn add_dense(&self, jac: &mut DenseJacobian) {
        let (n, dof) = (self.local, self.dof());
        let rows = jac.nrows();
        let shape = self.jacobian.shape();
        for c in 0..self.total() {
            let gc = self.global(c);
            if gc == NO_ENTRY {
                continue;
            }
            // Column-major: block column c's stored rows are contiguous, and so is global
            // column gc.
            let mut src = self.jacobian.column(c);
            let dst = &mut jac.as_mut_slice()[gc * rows..(gc + 1) * rows];
            if !shape.is_decoupled(c) {
                // Every row stored: the local rows, then each body's wrench rows.
                for (d, s) in dst[self.offset..self.offset + n].iter_mut().zip(&src[..n]) {
                    *d += s;
                }
                for (b, range) in self.bodies.iter().enumerate() {
                    if let Some(range) = range {
                        for (d, s) in dst[range.clone()].iter_mut().zip(&src[n + b * dof..]) {
                            *d -= s;
                        }
                    }
                }
                continue;
            }
            for seg in shape.column_rows(c) {
                let (vals, rest) = src.split_at(seg.len());
                src = rest;
                // The segment's local rows, then its rows of each body's wrench.
                let cut = |r: usize| r.clamp(seg.start, seg.end) - seg.start;
                let local = cut(n);
                for (d, v) in dst[self.offset + seg.start..]
                    .iter_mut()
                    .zip(&vals[..local])
                {
                    *d += v;
                }
                for (b, range) in self.bodies.iter().enumerate() {
                    let (from, to) = (cut(n + b * dof), cut(n + (b + 1) * dof));
                    if let (Some(range), true) = (range, from < to) {
                        let first = range.start + (seg.start + from - n - b * dof);
                        for (d, v) in dst[first..].iter_mut().zip(&vals[from..to]) {
                            *d -= v;
                        }
                    }
                }
            }
        }
    }

    /// The dense indices of its stored entries for a Jacobian of `rows` rows, in storage order:
    /// local rows into `add`, wrench rows into `sub`, each as (stored index, dense index).
    fn dense_plan(&self, rows: usize, add: &mut Vec<(u32, u32)>, sub: &mut Vec<(u32, u32)>) {
        add.clear();
        sub.clear();
        let mut stored = 0u32;
        self.for_each_entry(|r, c| {
            let (gr, gc) = (self.global(r), self.global(c));
            if gr != NO_ENTRY && gc != NO_ENTRY {
                let entry = (stored, (gc * rows + gr) as u32);
                if r < self.local {
                    add.push(entry);
                } else {
                    sub.push(entry);
                }
            }
            stored += 1;
        });
    }

    /// Calls `f(r, c)` for every stored entry of the block, in storage order.
    fn for_each_entry(&self, mut f: impl FnMut(usize, usize)) {
        let shape = self.jacobian.shape();
        for c in 0..self.total() {
            for seg in shape.column_rows(c) {
                for r in seg {
                    f(r, c);
                }
            }
        }
    }

    /// Appends the block's entries `(row, column)` to a sparse pattern.
    pub fn pattern_entries(&self, entries: &mut Vec<(usize, usize)>) {
        self.for_each_entry(|r, c| {
            let (gr, gc) = (self.global(r), self.global(c));
            if gr != NO_ENTRY && gc != NO_ENTRY {
                entries.push((gr, gc));
            }
        });
    }

    /// For each stored block entry, in storage order, its position in `pattern`'s values.
    pub fn positions(&self, pattern: &SparseJacobian, positions: &mut Vec<usize>) {
        positions.clear();
        self.for_each_entry(|r, c| {
            let (gr, gc) = (self.global(r), self.global(c));
            positions.push(if gc == NO_ENTRY || gr == NO_ENTRY {
                NO_ENTRY
            } else {
                pattern.position(gr, gc).unwrap_or(NO_ENTRY)
            });
        });
    }

    /// Adds its Jacobian entries to the sparse Jacobian's values at `positions`.
    pub fn add_sparse(&self, values: &mut [f64], positions: &[usize]) {
        let n = self.local;
        let shape = self.jacobian.shape();
        let (mut pos, mut vals) = (positions, self.jacobian.data());
        for c in 0..self.total() {
            for seg in shape.column_rows(c) {
                // Local rows as they are, wrench rows with the sign of the ν rows.
                let split = n.clamp(seg.start, seg.end) - seg.start;
                let (p, rest) = pos.split_at(seg.len());
                let (v, vrest) = vals.split_at(seg.len());
                (pos, vals) = (rest, vrest);
                for (&q, &x) in p[..split].iter().zip(&v[..split]) {
                    if q != NO_ENTRY {
                        values[q] += x;
                    }
                }
                for (&q, &x) in p[split..].iter().zip(&v[split..]) {
                    if q != NO_ENTRY {
                        values[q] -= x;
                    }
                }
            }
        }
    }
}

/// A block's offset in `z`, its bodies' twists and the dense Jacobian's rows.
type Placement = (usize, [Option<Range<usize>>; 2], usize);

/// [`BlockView::add_dense`] through the dense indices of the block's entries, kept while the
/// block sits at the same place in `z` and the Jacobian's size is the same: a pass over the
/// stored entries instead of the columns' segments. Each entry goes to its own dense index, so
/// the sums are the same bits.
#[derive(Debug, Clone, Default)]
pub(super) struct DensePlan {
    /// Where the block sat when it was built.
    placed: Option<Placement>,
    add: Vec<(u32, u32)>,
    sub: Vec<(u32, u32)>,
}

impl DensePlan {
    /// Adds the block's Jacobian entries to `jac`, as [`BlockView::add_dense`].
    pub fn add(&mut self, view: &BlockView, jac: &mut DenseJacobian) {
        let rows = jac.nrows();
        let fits = self.placed.as_ref().is_some_and(|(offset, bodies, r)| {
            *offset == view.offset && *bodies == view.bodies && *r == rows
        });
        // u32 indices: a step Jacobian of more than 65 535 unknowns is never dense.
        if !fits && rows * rows <= u32::MAX as usize {
            view.dense_plan(rows, &mut self.add, &mut self.sub);
            self.placed = Some((view.offset, view.bodies.clone(), rows));
        } else if !fits {
            view.add_dense(jac);
            return;
        }
        let (data, dst) = (view.jacobian.data(), jac.as_mut_slice());
        for &(s, d) in &self.add {
            dst[d as usize] += data[s as usize];
        }
        for &(s, d) in &self.sub {
            dst[d as usize] -= data[s as usize];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::JacobianShape;

    /// A block of 5 local unknowns and two 3-DOF bodies whose local unknowns 1 and 3..5 are
    /// decoupled (as a contact's are), every stored entry distinct and irrational.
    fn block() -> (BlockJacobian, Vec<f64>) {
        let shape = JacobianShape::with_decoupled(11, 1..2, 3..5);
        let mut jac = BlockJacobian::zeros(shape);
        let (_, data) = jac.parts_mut();
        for (i, v) in data.iter_mut().enumerate() {
            *v = ((i + 1) as f64).sqrt() * if i % 3 == 0 { -1.0 } else { 1.0 };
        }
        (jac, vec![0.0; 11])
    }

    /// Through the plan, the dense Jacobian gets the bits `add_dense` gives, also after the
    /// block alone moves in `z`, its bodies' twists move, a body loses its twist or the
    /// Jacobian grows (the plan is rebuilt each time, never applied where it was not built).
    #[test]
    fn dense_plan_adds_what_add_dense_adds() {
        let (jac, values) = block();
        let mut plan = DensePlan::default();
        let placements: [Placement; 6] = [
            (6, [Some(0..3), Some(3..6)], 11),
            (6, [Some(0..3), Some(3..6)], 11),
            (7, [Some(0..3), Some(3..6)], 12),
            (8, [Some(0..3), Some(3..6)], 13),
            (8, [Some(3..6), Some(0..3)], 13),
            (6, [None, Some(0..3)], 20),
        ];
        for (offset, bodies, n) in placements {
            let view = BlockView {
                offset,
                local: 5,
                bodies,
                values: &values,
                jacobian: &jac,
            };
            // A nonzero background, as other blocks and the mass matrices leave it.
            let background = DenseJacobian::from_fn(n, n, |r, c| (r * n + c) as f64 * 0.125);
            let (mut expected, mut planned) = (background.clone(), background);
            view.add_dense(&mut expected);
            plan.add(&view, &mut planned);
            let same = expected
                .iter()
                .zip(planned.iter())
                .all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(
                same,
                "offset {offset}, n {n}: the plan differs from add_dense"
            );
        }
    }
}
