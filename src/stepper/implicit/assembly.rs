//! Assembly of constraint blocks into the step's MCP, the same for every kind of block.
//!
//! A block (a contact, a joint) owns `n` local unknowns at `offset` in `z` and evaluates
//! `values = [its rows (n); the wrench on body 1 (DOF); the wrench on body 2 (DOF)]` with their
//! Jacobian over `[local unknowns; ν₁; ν₂]`. Its rows go to `z`'s rows at `offset`; its
//! wrenches are subtracted from its bodies' Newton–Euler rows (`M ν − … − Σ W = 0`). A body
//! without a twist in `ν` (fixed, or the world) has no rows or columns. The stepper sees every
//! block through a [`BlockView`] and never reads a block's layout.

use super::NO_ENTRY;
use crate::mcp::{DenseJacobian, SparseJacobian};
use nalgebra::DMatrix;
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
    /// Their Jacobian, `total × total`, `total = local + 2 DOF`.
    pub jacobian: &'a DMatrix<f64>,
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
        let (rows, total) = (jac.nrows(), self.total());
        for c in 0..total {
            let gc = self.global(c);
            if gc == NO_ENTRY {
                continue;
            }
            // Column-major: block column c is contiguous, and so is global column gc.
            let src = &self.jacobian.as_slice()[c * total..(c + 1) * total];
            let dst = &mut jac.as_mut_slice()[gc * rows..(gc + 1) * rows];
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
        }
    }

    /// Appends the block's entries `(row, column)` to a sparse pattern.
    pub fn pattern_entries(&self, entries: &mut Vec<(usize, usize)>) {
        let total = self.total();
        for c in 0..total {
            let gc = self.global(c);
            if gc == NO_ENTRY {
                continue;
            }
            for r in 0..total {
                let gr = self.global(r);
                if gr != NO_ENTRY {
                    entries.push((gr, gc));
                }
            }
        }
    }

    /// For block entry `(r, c)` at `c · total + r`, its position in `pattern`'s values.
    pub fn positions(&self, pattern: &SparseJacobian, positions: &mut Vec<usize>) {
        let total = self.total();
        positions.clear();
        for c in 0..total {
            let gc = self.global(c);
            for r in 0..total {
                let gr = self.global(r);
                positions.push(if gc == NO_ENTRY || gr == NO_ENTRY {
                    NO_ENTRY
                } else {
                    pattern.position(gr, gc).unwrap_or(NO_ENTRY)
                });
            }
        }
    }

    /// Adds its Jacobian entries to the sparse Jacobian's values at `positions`.
    pub fn add_sparse(&self, values: &mut [f64], positions: &[usize]) {
        let (n, total) = (self.local, self.total());
        for (e, (&pos, &v)) in positions.iter().zip(self.jacobian.as_slice()).enumerate() {
            if pos != NO_ENTRY {
                // Local rows as they are, wrench rows with the sign of the ν rows.
                if e % total < n {
                    values[pos] += v;
                } else {
                    values[pos] -= v;
                }
            }
        }
    }
}
