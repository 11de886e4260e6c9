//! Sparse linear algebra for large MCPs: a compressed-sparse-column Jacobian with a fixed
//! pattern, a minimum-degree fill-reducing ordering, and a left-looking sparse LU with threshold
//! partial pivoting (Gilbert & Peierls 1988; Davis, *Direct Methods for Sparse Linear Systems*,
//! 2006, ch. 6).
//!
//! A time step with `K` contacts has a Jacobian with `O(K)` nonzeros: each contact couples its
//! own variables with the twists of its two bodies. Dense LU costs `O(n³)` in the problem size;
//! the sparse factorisation costs what the fill of the chosen ordering costs, which for contact
//! graphs of bounded degree grows linearly with `K`.

use nalgebra::DMatrix;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

const NONE: usize = usize::MAX;
/// Threshold partial pivoting: the preferred ("natural") row is kept as pivot while its entry is
/// at least this fraction of the column's largest candidate (UMFPACK's default), which keeps the
/// fill of the ordering without giving up stability.
const PIVOT_THRESHOLD: f64 = 0.1;
/// A column counts as numerically dependent on the columns eliminated before it when its largest
/// candidate pivot is below this fraction (times `n`) of the column's own largest entry: a
/// test of regularity that column scaling does not change, since a step's columns are in
/// different units (a sphere's mass of 500 kg, a proximal weight of 1e-8). The pivoting bases
/// ask more ([`SparseLu::against_largest_pivot`]): a pivot this small against the largest one
/// so far makes the basis count as singular, so that the path search regularises the
/// linearisation instead of tracing its path through that pivot (soak seed 2643: `σ` columns
/// of 1.5e-11 against a largest pivot of 15).
const SINGULAR_RATIO: f64 = 1e-14;

/// An `n × n` Jacobian in compressed sparse column form with a fixed pattern. Row indices are
/// sorted within each column and every diagonal entry is present (the path search adds its
/// proximal term there).
#[derive(Debug, Clone, Default)]
pub struct SparseJacobian {
    n: usize,
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    values: Vec<f64>,
    diag: Vec<usize>,
    /// Each unknown's elimination stage (empty: all 0), see [`set_stages`](Self::set_stages).
    stages: Vec<u8>,
    /// Names the pattern: each [`set_pattern`](Self::set_pattern) draws a new one and a copy
    /// keeps it, so a solver can tell the pattern it already holds without comparing it (0:
    /// unnamed, always compared).
    stamp: u64,
}

/// Equal patterns and values (the stamp only names a pattern).
impl PartialEq for SparseJacobian {
    fn eq(&self, other: &Self) -> bool {
        self.n == other.n
            && self.col_ptr == other.col_ptr
            && self.row_idx == other.row_idx
            && self.values == other.values
            && self.diag == other.diag
            && self.stages == other.stages
    }
}

/// The source of pattern stamps (unique in the process; they never reach a result).
static NEXT_STAMP: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// Why a sparsity pattern was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("sparsity pattern entry ({row}, {col}) is outside the {n} × {n} matrix")]
pub struct PatternError {
    /// Row of the offending entry.
    pub row: usize,
    /// Column of the offending entry.
    pub col: usize,
    /// Matrix size.
    pub n: usize,
}

impl SparseJacobian {
    /// Sets the pattern to the given `(row, col)` entries plus the diagonal (duplicates are
    /// merged), with all values zero. Reuses the storage.
    pub fn set_pattern(
        &mut self,
        n: usize,
        entries: &mut Vec<(usize, usize)>,
    ) -> Result<(), PatternError> {
        if let Some(&(row, col)) = entries.iter().find(|&&(r, c)| r >= n || c >= n) {
            return Err(PatternError { row, col, n });
        }
        entries.extend((0..n).map(|i| (i, i)));
        // Column-major order.
        entries.sort_unstable_by_key(|&(r, c)| (c, r));
        entries.dedup();
        self.n = n;
        self.col_ptr.clear();
        self.col_ptr.resize(n + 1, 0);
        self.row_idx.clear();
        self.diag.clear();
        self.diag.resize(n, NONE);
        for &(r, c) in entries.iter() {
            self.col_ptr[c + 1] += 1;
            if r == c {
                self.diag[c] = self.row_idx.len();
            }
            self.row_idx.push(r);
        }
        for c in 0..n {
            self.col_ptr[c + 1] += self.col_ptr[c];
        }
        self.values.clear();
        self.values.resize(self.row_idx.len(), 0.0);
        self.stages.clear();
        self.stamp = NEXT_STAMP.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }

    /// Sets each unknown's elimination stage: the fill-reducing order eliminates an unknown
    /// only after every neighbour of a lower stage (a constrained minimum degree, in the
    /// spirit of CAMD, whose constraints are global where these are per neighbour).
    ///
    /// The order is chosen on the pattern, for each unknown pivoted on its own row. In a
    /// saddle-point problem that row is zero until the unknowns it pairs with are eliminated:
    /// a contact impulse's row (non-penetration, the cone) depends on the impulse only
    /// through the twists of its bodies. Eliminated before them, the impulse is pivoted on
    /// another row and the factors leave the order's plan. After them its own row holds the
    /// Delassus term `G M⁻¹ Gᵀ`. Renews the pattern's stamp.
    pub fn set_stages(&mut self, stages: &[u8]) {
        assert_eq!(stages.len(), self.n, "one stage per unknown");
        self.stages.clear();
        if stages.iter().any(|&s| s != 0) {
            self.stages.extend_from_slice(stages);
        }
        self.stamp = NEXT_STAMP.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// Whether any unknown has a stage other than 0.
    pub fn has_stages(&self) -> bool {
        !self.stages.is_empty()
    }

    /// Unknown `i`'s elimination stage (see [`set_stages`](Self::set_stages)).
    pub fn stage(&self, i: usize) -> u8 {
        self.stages.get(i).copied().unwrap_or(0)
    }

    /// Matrix size `n`.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Number of stored entries.
    #[cfg(test)]
    pub fn nnz(&self) -> usize {
        self.row_idx.len()
    }

    /// Column pointers (`n + 1`).
    pub fn col_ptr(&self) -> &[usize] {
        &self.col_ptr
    }

    /// Row index of every stored entry.
    pub fn row_indices(&self) -> &[usize] {
        &self.row_idx
    }

    /// Values of the stored entries.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// Values of the stored entries, to be written by the problem.
    pub fn values_mut(&mut self) -> &mut [f64] {
        &mut self.values
    }

    /// Position of entry `(row, col)` in [`values`](Self::values), if it is in the pattern.
    pub fn position(&self, row: usize, col: usize) -> Option<usize> {
        let (a, b) = (self.col_ptr[col], self.col_ptr[col + 1]);
        self.row_idx[a..b].binary_search(&row).ok().map(|k| a + k)
    }

    /// Position of the diagonal entry of column `i`.
    pub(crate) fn diagonal_position(&self, i: usize) -> usize {
        self.diag[i]
    }

    /// Rows and values of column `j`.
    pub fn column(&self, j: usize) -> (&[usize], &[f64]) {
        let (a, b) = (self.col_ptr[j], self.col_ptr[j + 1]);
        (&self.row_idx[a..b], &self.values[a..b])
    }

    /// Whether `other` has the same pattern.
    pub fn same_pattern(&self, other: &Self) -> bool {
        (self.stamp != 0 && self.stamp == other.stamp)
            || (self.n == other.n
                && self.col_ptr == other.col_ptr
                && self.row_idx == other.row_idx
                && self.stages == other.stages)
    }

    /// Copies the pattern and values of `other` (reusing storage).
    pub fn copy_from(&mut self, other: &Self) {
        self.n = other.n;
        self.col_ptr.clone_from(&other.col_ptr);
        self.row_idx.clone_from(&other.row_idx);
        self.values.clone_from(&other.values);
        self.diag.clone_from(&other.diag);
        self.stages.clone_from(&other.stages);
        self.stamp = other.stamp;
    }

    /// Takes the pattern of `other`: nothing to do when it is the one this matrix already holds
    /// (the same stamp), otherwise [`copy_from`](Self::copy_from). The values are the caller's
    /// to fill either way (a Jacobian evaluation overwrites them all).
    pub fn copy_pattern_from(&mut self, other: &Self) {
        if self.stamp != 0 && self.stamp == other.stamp {
            return;
        }
        self.copy_from(other);
    }

    /// `y ← y + α A x`.
    pub fn mul_add(&self, alpha: f64, x: &[f64], y: &mut [f64]) {
        for j in 0..self.n {
            let xj = alpha * x[j];
            if xj != 0.0 {
                let (rows, vals) = self.column(j);
                for (&i, &v) in rows.iter().zip(vals) {
                    y[i] += v * xj;
                }
            }
        }
    }

    /// The dense matrix (for tests and fallbacks).
    pub fn to_dense(&self) -> DMatrix<f64> {
        let mut m = DMatrix::zeros(self.n, self.n);
        for j in 0..self.n {
            let (rows, vals) = self.column(j);
            for (&i, &v) in rows.iter().zip(vals) {
                m[(i, j)] += v;
            }
        }
        m
    }
}

/// Minimum-degree ordering of the symmetric pattern `A + Aᵀ` (the exact elimination graph,
/// ties broken by index, so the order is deterministic); with `staged`, each unknown eligible
/// once its neighbours of lower stages are eliminated (see [`SparseJacobian::set_stages`]).
/// Returns `order[k]` = the index eliminated at step `k`. Contact blocks are cliques of a few
/// tens of variables joined only through the twists of shared bodies, so the exact graph stays
/// small.
///
/// Eliminated nodes stay in their neighbours' lists (skipped when read) and a degree is kept
/// per node, so eliminating `v` costs what its neighbours gain, not the length of their
/// lists: an intersection's `m` multipliers, each joined to the same few unknowns of its
/// contact, are eliminated in `O(m)`, not `O(m²)` (the lists of those few unknowns are
/// `m` long).
pub(crate) fn minimum_degree(a: &SparseJacobian, staged: bool) -> Vec<usize> {
    let n = a.n();
    let mut adj = symmetric_adjacency(a);
    let mut degree: Vec<usize> = adj.iter().map(Vec::len).collect();
    let mut eliminated = vec![false; n];
    // A node waits for its neighbours of lower stages (see `SparseJacobian::set_stages`).
    let staged = staged && a.has_stages();
    let original = if staged { adj.clone() } else { Vec::new() };
    let mut waiting = vec![0usize; n];
    for (v, list) in original.iter().enumerate() {
        waiting[v] = list.iter().filter(|&&u| a.stage(u) < a.stage(v)).count();
    }
    let mut heap: BinaryHeap<Reverse<(usize, usize)>> = (0..n)
        .filter(|&i| waiting[i] == 0)
        .map(|i| Reverse((degree[i], i)))
        .collect();
    let mut order = Vec::with_capacity(n);
    let (mut nbrs, mut fresh, mut merged) = (Vec::new(), Vec::new(), Vec::new());
    while let Some(Reverse((deg, v))) = heap.pop() {
        if eliminated[v] || deg != degree[v] {
            continue;
        }
        eliminated[v] = true;
        order.push(v);
        if staged {
            for &u in &original[v] {
                if a.stage(u) > a.stage(v) && waiting[u] > 0 {
                    waiting[u] -= 1;
                    if waiting[u] == 0 {
                        heap.push(Reverse((degree[u], u)));
                    }
                }
            }
        }
        nbrs.clear();
        nbrs.extend(adj[v].iter().copied().filter(|&u| !eliminated[u]));
        for &u in &nbrs {
            // u's new neighbours: nbrs \ (adj[u] ∪ {u}), both sorted; by binary search when
            // u's list is much longer than nbrs, else by one merge pass.
            let x = &adj[u];
            fresh.clear();
            let log = (usize::BITS - x.len().leading_zeros()) as usize;
            if nbrs.len() * log < x.len() {
                fresh.extend(
                    nbrs.iter()
                        .copied()
                        .filter(|&w| w != u && x.binary_search(&w).is_err()),
                );
            } else {
                let mut p = 0;
                for &w in &nbrs {
                    while p < x.len() && x[p] < w {
                        p += 1;
                    }
                    if w != u && (p == x.len() || x[p] != w) {
                        fresh.push(w);
                    }
                }
            }
            // v leaves u's live neighbours, the fill joins them.
            degree[u] = degree[u] - 1 + fresh.len();
            if !fresh.is_empty() {
                merged.clear();
                let (mut p, mut q) = (0, 0);
                while p < x.len() || q < fresh.len() {
                    if q == fresh.len() || (p < x.len() && x[p] < fresh[q]) {
                        if !eliminated[x[p]] {
                            merged.push(x[p]);
                        }
                        p += 1;
                    } else {
                        merged.push(fresh[q]);
                        q += 1;
                    }
                }
                std::mem::swap(&mut adj[u], &mut merged);
            }
            if waiting[u] == 0 {
                heap.push(Reverse((degree[u], u)));
            }
        }
        adj[v] = Vec::new();
    }
    order
}

/// The sorted neighbour lists of the symmetric pattern `A + Aᵀ`, diagonal apart.
fn symmetric_adjacency(a: &SparseJacobian) -> Vec<Vec<usize>> {
    let n = a.n();
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); n];
    for j in 0..n {
        let (rows, _) = a.column(j);
        for &i in rows {
            if i != j {
                adj[i].push(j);
                adj[j].push(i);
            }
        }
    }
    for v in adj.iter_mut() {
        v.sort_unstable();
        v.dedup();
    }
    adj
}

/// `P A Q = L U` for a sparse square matrix given column by column: `L` unit lower triangular
/// (stored by columns with original row indices), `U` upper triangular (stored by columns with
/// pivot-step indices, diagonal apart). Storage and workspace are reused between
/// factorisations.
#[derive(Debug, Default, Clone)]
pub(crate) struct SparseLu {
    /// Judge singularity against the largest pivot so far instead of each column's own largest
    /// entry (see `SINGULAR_RATIO`).
    pub against_largest_pivot: bool,
    n: usize,
    l_ptr: Vec<usize>,
    l_row: Vec<usize>,
    l_val: Vec<f64>,
    /// End of the part of each column of `L` the depth-first searches scan (symmetric
    /// pruning; `NONE`: the whole column).
    l_pend: Vec<usize>,
    /// The step at which each column of `L` was pruned (`NONE`: not yet).
    l_pruned: Vec<usize>,
    u_ptr: Vec<usize>,
    u_idx: Vec<usize>,
    u_val: Vec<f64>,
    u_diag: Vec<f64>,
    /// Original row → pivot step (`NONE` while not yet pivotal).
    pinv: Vec<usize>,
    /// Pivot step → original row.
    prow: Vec<usize>,
    /// Pivot step → original column.
    qcol: Vec<usize>,
    // Workspace.
    x: Vec<f64>,
    mark: Vec<usize>,
    stamp: usize,
    stack: Vec<(usize, usize, usize)>,
    topo: Vec<usize>,
    fresh: Vec<usize>,
    col_rows: Vec<usize>,
    col_vals: Vec<f64>,
    work: Vec<f64>,
    /// Whether `L` and `U` hold the structure of a completed factorisation whose input is
    /// recorded below, so that a matrix with the same input structure can be refactorised on it.
    reusable: bool,
    /// The recorded input, step by step: column eliminated, its preferred row, its row indices.
    /// Only its structure counts, never its values, so a refactorisation depends on the
    /// matrices factorised before only through their pivot rows.
    in_col: Vec<usize>,
    in_natural: Vec<usize>,
    in_ptr: Vec<usize>,
    in_rows: Vec<usize>,
    /// Leading steps of the last factorisation refactorised on the kept structure.
    reused: usize,
}

impl SparseLu {
    /// Factorises the `n × n` matrix whose column `c` is written by `column(c, rows, vals)`
    /// (rows in `0..n`, duplicates summed), eliminating columns in the order `order` and
    /// preferring row `natural(c)` as the pivot of column `c` while threshold pivoting allows.
    /// False if the matrix is numerically singular.
    ///
    /// While the input structure (order, preferred rows, each column's row indices in the order
    /// given) is that of the last completed factorisation, its columns are refactorised on the
    /// kept structure and pivots (see [`SparseLu::refactor`]); from the first column where that
    /// is not possible on, the factorisation goes on afresh.
    pub fn factor(
        &mut self,
        n: usize,
        order: &[usize],
        mut column: impl FnMut(usize, &mut Vec<usize>, &mut Vec<f64>),
        natural: impl Fn(usize) -> usize,
    ) -> bool {
        debug_assert_eq!(order.len(), n);
        let (start, mut scale) = if self.reusable && n == self.n {
            match self.refactor(order, &mut column, &natural) {
                Ok(()) => {
                    self.reused = n;
                    return true;
                }
                Err((k, scale)) => {
                    self.truncate(k);
                    (k, scale)
                }
            }
        } else {
            self.clear(n);
            (0, 0.0)
        };
        self.reused = start;
        self.reusable = false;
        for (k, &c) in order.iter().enumerate().skip(start) {
            self.stamp += 1;
            let stamp = self.stamp;
            self.col_rows.clear();
            self.col_vals.clear();
            column(c, &mut self.col_rows, &mut self.col_vals);
            self.in_col.push(c);
            self.in_natural.push(natural(c));
            self.in_rows.extend_from_slice(&self.col_rows);
            self.in_ptr.push(self.in_rows.len());
            // Pattern of L⁻¹ b: pivotal rows in topological order, non-pivotal rows apart.
            self.topo.clear();
            self.fresh.clear();
            for t in 0..self.col_rows.len() {
                let r = self.col_rows[t];
                if self.mark[r] == stamp {
                    continue;
                }
                self.mark[r] = stamp;
                if self.pinv[r] == NONE {
                    self.fresh.push(r);
                } else {
                    self.reach(r, stamp);
                }
            }
            for (&r, &v) in self.col_rows.iter().zip(&self.col_vals) {
                self.x[r] += v;
            }
            let colmax = column_max(&self.x, &self.col_rows);
            // Sparse triangular solve with L in reverse post-order.
            for t in (0..self.topo.len()).rev() {
                let r = self.topo[t];
                let j = self.pinv[r];
                let xr = self.x[r];
                if xr != 0.0 {
                    let col = self.l_ptr[j]..self.l_ptr[j + 1];
                    // SAFETY: `x` has length `n` (resized above); rows of `L` are below `n`.
                    unsafe {
                        scatter_sub(&mut self.x, &self.l_row[col.clone()], &self.l_val[col], xr)
                    };
                }
            }
            for t in (0..self.topo.len()).rev() {
                let r = self.topo[t];
                self.u_idx.push(self.pinv[r]);
                self.u_val.push(self.x[r]);
                self.x[r] = 0.0;
            }
            self.u_ptr.push(self.u_idx.len());
            // Pivot among the non-pivotal rows.
            let mut best = NONE;
            let mut amax = 0.0f64;
            let mut finite = true;
            for &r in &self.fresh {
                let v = self.x[r].abs();
                finite &= v.is_finite();
                if best == NONE || v > amax || (v == amax && r < best) {
                    amax = v;
                    best = r;
                }
            }
            let nat = natural(c);
            let pivot_row = if nat < n
                && self.pinv[nat] == NONE
                && self.mark[nat] == stamp
                && self.x[nat].abs() >= PIVOT_THRESHOLD * amax
            {
                nat
            } else {
                best
            };
            scale = scale.max(amax);
            let reference = if self.against_largest_pivot {
                scale
            } else {
                colmax
            };
            if best == NONE || !finite || amax <= reference * SINGULAR_RATIO * n as f64 {
                for &r in &self.fresh {
                    self.x[r] = 0.0;
                }
                return false;
            }
            let piv = self.x[pivot_row];
            self.u_diag.push(piv);
            self.pinv[pivot_row] = k;
            self.prow.push(pivot_row);
            self.qcol.push(c);
            for t in 0..self.fresh.len() {
                let r = self.fresh[t];
                if r != pivot_row {
                    self.l_row.push(r);
                    self.l_val.push(self.x[r] / piv);
                }
                self.x[r] = 0.0;
            }
            self.l_ptr.push(self.l_row.len());
            self.l_pend.push(NONE);
            self.l_pruned.push(NONE);
            self.prune(k, pivot_row);
        }
        self.reusable = true;
        true
    }

    /// Makes the next factorisation start from scratch.
    pub fn forget(&mut self) {
        self.reusable = false;
    }

    /// Empties the factors and sizes the workspace for an `n × n` factorisation from scratch.
    fn clear(&mut self, n: usize) {
        self.n = n;
        self.in_col.clear();
        self.in_natural.clear();
        self.in_ptr.clear();
        self.in_ptr.push(0);
        self.in_rows.clear();
        self.l_ptr.clear();
        self.l_ptr.push(0);
        self.l_row.clear();
        self.l_val.clear();
        self.l_pend.clear();
        self.l_pruned.clear();
        self.u_ptr.clear();
        self.u_ptr.push(0);
        self.u_idx.clear();
        self.u_val.clear();
        self.u_diag.clear();
        self.pinv.clear();
        self.pinv.resize(n, NONE);
        self.prow.clear();
        self.qcol.clear();
        self.x.resize(n, 0.0);
        self.work.resize(n, 0.0);
        if self.mark.len() != n {
            self.mark.clear();
            self.mark.resize(n, 0);
            self.stamp = 0;
        }
    }

    /// Keeps the first `k` steps of the factors (and their recorded input) and forgets the
    /// rest, as a fresh factorisation stands after its step `k − 1`: rows pivoted later are
    /// pivotal no longer, and a column pruned at a later step is scanned whole again (its rows
    /// are merely in another order, which the searches do not need).
    fn truncate(&mut self, k: usize) {
        for &r in &self.prow[k..] {
            self.pinv[r] = NONE;
        }
        for j in 0..k {
            if self.l_pruned[j] != NONE && self.l_pruned[j] >= k {
                self.l_pruned[j] = NONE;
                self.l_pend[j] = NONE;
            }
        }
        self.in_col.truncate(k);
        self.in_natural.truncate(k);
        self.in_ptr.truncate(k + 1);
        self.in_rows.truncate(self.in_ptr[k]);
        self.l_ptr.truncate(k + 1);
        self.l_row.truncate(self.l_ptr[k]);
        self.l_val.truncate(self.l_ptr[k]);
        self.l_pend.truncate(k);
        self.l_pruned.truncate(k);
        self.u_ptr.truncate(k + 1);
        self.u_idx.truncate(self.u_ptr[k]);
        self.u_val.truncate(self.u_ptr[k]);
        self.u_diag.truncate(k);
        self.prow.truncate(k);
        self.qcol.truncate(k);
    }

    /// Numeric refactorisation on the structure of the last completed factorisation (KLU's
    /// `refactor`): the symbolic work of a factorisation (the depth-first searches, the
    /// pruning, building the patterns) depends only on the input structure and the pivot rows,
    /// so while the input structure is the recorded one and the recorded pivot row is an
    /// acceptable pivot by the rule of a fresh choice (at least `PIVOT_THRESHOLD` of its
    /// column's largest candidate), the column is eliminated in the recorded topological order
    /// into the recorded patterns. The pivot is not chosen again: a fresh choice may prefer
    /// another acceptable row, which would throw the structure away for no gain in stability.
    /// `Err((k, scale))` at the first step `k` where that is not so (or the column is
    /// numerically singular: a fresh choice of pivots may not be), with the running pivot
    /// scale of the steps before it; the factors of those steps are complete.
    fn refactor(
        &mut self,
        order: &[usize],
        column: &mut impl FnMut(usize, &mut Vec<usize>, &mut Vec<f64>),
        natural: &impl Fn(usize) -> usize,
    ) -> Result<(), (usize, f64)> {
        let n = self.n;
        let mut scale = 0.0f64;
        for (k, &c) in order.iter().enumerate() {
            if c != self.in_col[k] || natural(c) != self.in_natural[k] {
                return Err((k, scale));
            }
            self.col_rows.clear();
            self.col_vals.clear();
            column(c, &mut self.col_rows, &mut self.col_vals);
            if self.col_rows[..] != self.in_rows[self.in_ptr[k]..self.in_ptr[k + 1]] {
                return Err((k, scale));
            }
            for (&r, &v) in self.col_rows.iter().zip(&self.col_vals) {
                self.x[r] += v;
            }
            let colmax = column_max(&self.x, &self.col_rows);
            // The recorded topological order is the order of `U`'s column.
            let ucol = self.u_ptr[k]..self.u_ptr[k + 1];
            for p in ucol.clone() {
                let j = self.u_idx[p];
                let xr = self.x[self.prow[j]];
                if xr != 0.0 {
                    let col = self.l_ptr[j]..self.l_ptr[j + 1];
                    // SAFETY: `x` has length `n` (sized by the fresh factorisation); rows of `L`
                    // are below `n`.
                    unsafe {
                        scatter_sub(&mut self.x, &self.l_row[col.clone()], &self.l_val[col], xr)
                    };
                }
            }
            for p in ucol {
                let r = self.prow[self.u_idx[p]];
                self.u_val[p] = self.x[r];
                self.x[r] = 0.0;
            }
            // The candidates are the rows of `L`'s column and the recorded pivot row.
            let lcol = self.l_ptr[k]..self.l_ptr[k + 1];
            let recorded = self.prow[k];
            let piv = self.x[recorded];
            let mut amax = piv.abs();
            let mut finite = amax.is_finite();
            for &r in &self.l_row[lcol.clone()] {
                let v = self.x[r].abs();
                finite &= v.is_finite();
                amax = amax.max(v);
            }
            let before = scale;
            scale = scale.max(amax);
            let reference = if self.against_largest_pivot {
                scale
            } else {
                colmax
            };
            let singular = !finite || amax <= reference * SINGULAR_RATIO * n as f64;
            if singular || piv.abs() < PIVOT_THRESHOLD * amax {
                self.x[recorded] = 0.0;
                for &r in &self.l_row[lcol] {
                    self.x[r] = 0.0;
                }
                // Whether the matrix is singular is decided by a factorisation from scratch,
                // as before there were refactorisations.
                return Err(if singular { (0, 0.0) } else { (k, before) });
            }
            self.u_diag[k] = piv;
            self.x[recorded] = 0.0;
            for p in lcol {
                let r = self.l_row[p];
                self.l_val[p] = self.x[r] / piv;
                self.x[r] = 0.0;
            }
        }
        self.reusable = true;
        Ok(())
    }

    /// Symmetric pruning (Eisenstat and Liu): a column `j` of `L` that holds the pivot row of
    /// column `k` while `U(j, k) ≠ 0` reaches every row it holds that is not yet pivotal
    /// through column `k` as well, so the searches of later columns need only its pivotal
    /// rows, which are moved to its front. The triangular solves still use whole columns.
    fn prune(&mut self, k: usize, pivot_row: usize) {
        for p in self.u_ptr[k]..self.u_ptr[k + 1] {
            let j = self.u_idx[p];
            if self.l_pend[j] != NONE {
                continue;
            }
            let (start, end) = (self.l_ptr[j], self.l_ptr[j + 1]);
            if !self.l_row[start..end].contains(&pivot_row) {
                continue;
            }
            let (mut head, mut tail) = (start, end);
            while head < tail {
                if self.pinv[self.l_row[head]] != NONE {
                    head += 1;
                } else {
                    tail -= 1;
                    self.l_row.swap(head, tail);
                    self.l_val.swap(head, tail);
                }
            }
            self.l_pend[j] = tail;
            self.l_pruned[j] = k;
        }
    }

    /// Depth-first search from pivotal row `r` through the columns of `L`, appending pivotal
    /// rows in post-order to `topo` and unseen non-pivotal rows to `fresh`.
    fn reach(&mut self, r: usize, stamp: usize) {
        // The current frame lives in locals; the stack holds only the frames above it.
        self.stack.clear();
        let (mut row, (mut next, mut end)) = (r, self.scan_range(r));
        loop {
            let mut child = NONE;
            while next < end {
                let i = self.l_row[next];
                next += 1;
                if self.mark[i] != stamp {
                    self.mark[i] = stamp;
                    if self.pinv[i] == NONE {
                        self.fresh.push(i);
                    } else {
                        child = i;
                        break;
                    }
                }
            }
            if child == NONE {
                self.topo.push(row);
                match self.stack.pop() {
                    Some(frame) => (row, next, end) = frame,
                    None => return,
                }
            } else {
                self.stack.push((row, next, end));
                row = child;
                (next, end) = self.scan_range(child);
            }
        }
    }

    /// The part of pivotal row `row`'s column of `L` a search scans (see `l_pend`).
    #[inline(always)]
    fn scan_range(&self, row: usize) -> (usize, usize) {
        let j = self.pinv[row];
        let end = if self.l_pend[j] == NONE {
            self.l_ptr[j + 1]
        } else {
            self.l_pend[j]
        };
        (self.l_ptr[j], end)
    }

    /// Number of stored entries of `L` and `U` (fill measure).
    #[cfg(test)]
    pub fn nnz(&self) -> usize {
        self.l_row.len() + self.u_idx.len() + self.u_diag.len()
    }

    /// Multiply-adds of the last factorisation: column `j` of `L` is applied once per entry
    /// of row `j` of `U`.
    pub fn flops(&mut self) -> f64 {
        let n = self.n;
        self.work.clear();
        self.work.resize(n, 0.0);
        for &j in &self.u_idx {
            self.work[j] += 1.0;
        }
        (0..n)
            .map(|j| (self.l_ptr[j + 1] - self.l_ptr[j]) as f64 * self.work[j])
            .sum()
    }

    /// `b ← A⁻¹ b`.
    pub fn solve(&mut self, b: &mut [f64]) {
        let n = self.n;
        // The triangular solves index `b` without bounds checks (`scatter_sub`).
        assert!(
            b.len() >= n && self.work.len() >= n,
            "right-hand side shorter than n"
        );
        // L y = P b, by original rows; the pivot-step values go to `work`.
        for k in 0..n {
            let yk = b[self.prow[k]];
            self.work[k] = yk;
            if yk != 0.0 {
                let col = self.l_ptr[k]..self.l_ptr[k + 1];
                // SAFETY: `b.len() ≥ n` (asserted above); rows of `L` are below `n`.
                unsafe { scatter_sub(b, &self.l_row[col.clone()], &self.l_val[col], yk) };
            }
        }
        // U w = y, column-oriented backward substitution.
        for k in (0..n).rev() {
            let wk = self.work[k] / self.u_diag[k];
            self.work[k] = wk;
            if wk != 0.0 {
                let col = self.u_ptr[k]..self.u_ptr[k + 1];
                // SAFETY: `work.len() ≥ n` (asserted above); entries of `U` are pivot steps `< n`.
                unsafe {
                    scatter_sub(
                        &mut self.work,
                        &self.u_idx[col.clone()],
                        &self.u_val[col],
                        wk,
                    )
                };
            }
        }
        for k in 0..n {
            b[self.qcol[k]] = self.work[k];
        }
    }

    /// `c ← A⁻ᵀ c`.
    pub fn solve_transpose(&mut self, c: &mut [f64]) {
        let n = self.n;
        // Uᵀ v = Qᵀ c, forward (row k of Uᵀ is column k of U).
        for k in 0..n {
            let mut s = c[self.qcol[k]];
            let col = self.u_ptr[k]..self.u_ptr[k + 1];
            for (&i, &u) in self.u_idx[col.clone()].iter().zip(&self.u_val[col]) {
                s -= u * self.work[i];
            }
            self.work[k] = s / self.u_diag[k];
        }
        // Lᵀ y = v backward, y kept by original rows in `c`.
        for k in (0..n).rev() {
            let mut s = self.work[k];
            let col = self.l_ptr[k]..self.l_ptr[k + 1];
            for (&i, &l) in self.l_row[col.clone()].iter().zip(&self.l_val[col]) {
                s -= l * c[i];
            }
            c[self.prow[k]] = s;
        }
    }
}

/// `x[rows[k]] −= vals[k] a` for every `k`: the inner loop of the factorisation and of the
/// triangular solves, where a bounds check per entry costs a fifth of the loop.
///
/// # Safety
///
/// Every `rows[k]` is below `x.len()`. The factors guarantee it for `x` of length `n` or
/// more: a row of `L` was a row of an `n × n` column (bounds-checked through `mark` when the
/// column was read), an entry of `U` a pivot step `< n`; `factor` sizes its work vector to
/// `n`, `solve` asserts it of its arguments.
#[inline(always)]
unsafe fn scatter_sub(x: &mut [f64], rows: &[usize], vals: &[f64], a: f64) {
    debug_assert!(rows.iter().all(|&i| i < x.len()));
    for (&i, &v) in rows.iter().zip(vals) {
        // SAFETY: `i < x.len()` by the function's contract.
        unsafe { *x.get_unchecked_mut(i) -= v * a };
    }
}

/// Largest `|x[r]|` over the rows `rows` of a column scattered into `x`.
fn column_max(x: &[f64], rows: &[usize]) -> f64 {
    rows.iter().fold(0.0f64, |m, &r| m.max(x[r].abs()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first implementation (every neighbour list merged in full at each elimination): the
    /// reference the faster one must match order for order.
    fn minimum_degree_reference(a: &SparseJacobian) -> Vec<usize> {
        let n = a.n();
        let mut adj = symmetric_adjacency(a);
        let mut eliminated = vec![false; n];
        let mut heap: BinaryHeap<Reverse<(usize, usize)>> =
            (0..n).map(|i| Reverse((adj[i].len(), i))).collect();
        let mut order = Vec::with_capacity(n);
        let mut nbrs = Vec::new();
        let mut merged = Vec::new();
        while let Some(Reverse((deg, v))) = heap.pop() {
            if eliminated[v] || deg != adj[v].len() {
                continue;
            }
            eliminated[v] = true;
            order.push(v);
            nbrs.clear();
            nbrs.extend(adj[v].iter().copied().filter(|&u| !eliminated[u]));
            for &u in &nbrs {
                // adj[u] ← (adj[u] ∪ nbrs) \ {u, v}, both sorted.
                merged.clear();
                let (x, y) = (&adj[u], &nbrs);
                let (mut p, mut q) = (0, 0);
                while p < x.len() || q < y.len() {
                    let next = if q == y.len() || (p < x.len() && x[p] < y[q]) {
                        p += 1;
                        x[p - 1]
                    } else if p == x.len() || y[q] < x[p] {
                        q += 1;
                        y[q - 1]
                    } else {
                        p += 1;
                        q += 1;
                        x[p - 1]
                    };
                    if next != u && next != v && !eliminated[next] {
                        merged.push(next);
                    }
                }
                std::mem::swap(&mut adj[u], &mut merged);
                heap.push(Reverse((adj[u].len(), u)));
            }
            adj[v].clear();
        }
        order
    }

    /// A random sparse matrix with a strong-enough diagonal in some columns and none in others
    /// (so that off-diagonal pivots are exercised), from a fixed LCG seed.
    fn random_sparse(n: usize, density: f64, seed: u64) -> SparseJacobian {
        let mut s = seed;
        let mut next = || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 11) as f64) / ((1u64 << 53) as f64)
        };
        let mut entries = Vec::new();
        for j in 0..n {
            for i in 0..n {
                if next() < density {
                    entries.push((i, j));
                }
            }
            entries.push(((j + 1) % n, j));
        }
        let mut a = SparseJacobian::default();
        a.set_pattern(n, &mut entries).unwrap();
        let mut vals = std::mem::take(&mut a.values);
        for (k, v) in vals.iter_mut().enumerate() {
            *v = 2.0 * next() - 1.0;
            if k % 7 == 0 {
                *v = 0.0;
            }
        }
        a.values = vals;
        for j in 0..n {
            if j % 3 == 0 {
                let p = a.diagonal_position(j);
                a.values[p] = 0.0;
            }
        }
        a
    }

    fn factor(a: &SparseJacobian, lu: &mut SparseLu) -> bool {
        let order = minimum_degree(a, true);
        lu.factor(
            a.n(),
            &order,
            |c, rows, vals| {
                let (r, v) = a.column(c);
                rows.extend_from_slice(r);
                vals.extend_from_slice(v);
            },
            |c| c,
        )
    }

    #[test]
    fn sparse_lu_solves_and_transposed_solves_match_dense() {
        // 1e-10 relative: the matrices are well conditioned (checked by the dense LU of
        // nalgebra), so backward-stable solves agree to a few hundred ulps times κ.
        for (n, density, seed) in [(1, 0.0, 1), (5, 0.3, 2), (40, 0.08, 3), (120, 0.03, 4)] {
            let a = random_sparse(n, density, seed);
            let dense = a.to_dense();
            let Some(inv) = dense.clone().try_inverse() else {
                continue;
            };
            let cond = dense.norm() * inv.norm();
            assert!(cond < 1e8, "test matrix too ill-conditioned: {cond}");
            let mut lu = SparseLu::default();
            assert!(factor(&a, &mut lu), "n = {n}");
            // The larger matrices exercise the pruned depth-first searches.
            assert!(
                n < 40 || lu.l_pend.iter().any(|&p| p != NONE),
                "n = {n}: nothing pruned"
            );
            let b: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin() + 0.5).collect();
            let mut x = b.clone();
            lu.solve(&mut x);
            let r = &dense * nalgebra::DVector::from_column_slice(&x)
                - nalgebra::DVector::from_column_slice(&b);
            assert!(r.amax() < 1e-10 * cond, "n = {n}: residual {}", r.amax());
            let mut y = b.clone();
            lu.solve_transpose(&mut y);
            let r = dense.transpose() * nalgebra::DVector::from_column_slice(&y)
                - nalgebra::DVector::from_column_slice(&b);
            assert!(
                r.amax() < 1e-10 * cond,
                "n = {n}: transposed residual {}",
                r.amax()
            );
        }
    }

    #[test]
    fn singular_matrix_is_refused() {
        let mut a = SparseJacobian::default();
        let mut entries = vec![(0, 0), (1, 0), (0, 1), (1, 1), (2, 2)];
        a.set_pattern(3, &mut entries).unwrap();
        // Columns 0 and 1 equal: rank 2.
        for (r, c, v) in [
            (0, 0, 1.0),
            (1, 0, 2.0),
            (0, 1, 1.0),
            (1, 1, 2.0),
            (2, 2, 1.0),
        ] {
            let p = a.position(r, c).unwrap();
            a.values_mut()[p] = v;
        }
        let mut lu = SparseLu::default();
        assert!(!factor(&a, &mut lu));
        // The same workspace factorises a regular matrix afterwards.
        let p = a.position(1, 1).unwrap();
        a.values_mut()[p] = 3.0;
        assert!(factor(&a, &mut lu));
    }

    /// Singularity is judged relative to each column: a regular matrix whose every third
    /// column is in units 1e12 times smaller (a step's proximal rows beside its masses) is
    /// factorised and solved (measured against the largest pivot so far, as the pivoting bases
    /// are, those columns' pivots count as zero), and a column that is a multiple of another
    /// is singular at any scale.
    #[test]
    fn singularity_is_judged_column_by_column() {
        // Column scaling does not change the solution's accuracy in the scaled unknowns:
        // `A = B D` gives `D x = B⁻¹ b`.
        let (n, density, seed) = (120, 0.03, 4);
        let b_mat = random_sparse(n, density, seed);
        let d = |j: usize| if j % 3 == 1 { 1e-12 } else { 1.0 };
        let mut a = b_mat.clone();
        for j in 0..n {
            let (start, end) = (a.col_ptr[j], a.col_ptr[j + 1]);
            for v in &mut a.values[start..end] {
                *v *= d(j);
            }
        }
        let dense = b_mat.to_dense();
        let cond = dense.norm() * dense.clone().try_inverse().unwrap().norm();
        let mut lu = SparseLu::default();
        assert!(
            factor(&a, &mut lu),
            "a column-scaled regular matrix reported singular"
        );
        let rhs: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin() + 0.5).collect();
        let mut x = rhs.clone();
        lu.solve(&mut x);
        let dx: Vec<f64> = (0..n).map(|j| d(j) * x[j]).collect();
        let r = &dense * nalgebra::DVector::from_column_slice(&dx)
            - nalgebra::DVector::from_column_slice(&rhs);
        assert!(r.amax() < 1e-10 * cond, "residual {}", r.amax());
        // Measured against the largest pivot so far (the pivoting bases' test), the same
        // matrix counts as singular.
        let mut strict = SparseLu {
            against_largest_pivot: true,
            ..SparseLu::default()
        };
        assert!(!factor(&a, &mut strict));

        // A column that is a multiple of another, at any scale, is still singular.
        let mut entries: Vec<(usize, usize)> = (0..n).map(|j| (j, j)).collect();
        entries.extend([(1, 0), (0, 1)]);
        let mut s = SparseJacobian::default();
        s.set_pattern(n, &mut entries).unwrap();
        for j in 0..n {
            let p = s.diagonal_position(j);
            s.values[p] = 1.0 + j as f64;
        }
        // Columns 0 and 1: (1, 2) and 1e-12 · (1, 2).
        let set = |s: &mut SparseJacobian, i: usize, j: usize, v: f64| {
            let p = s.position(i, j).unwrap();
            s.values[p] = v;
        };
        set(&mut s, 0, 0, 1.0);
        set(&mut s, 1, 0, 2.0);
        set(&mut s, 0, 1, 1e-12);
        set(&mut s, 1, 1, 2e-12);
        assert!(!factor(&s, &mut SparseLu::default()));
    }

    /// A factorisation on the kept structure (refactorisation) solves the new matrix as well
    /// as a fresh one: with the values unchanged it repeats the factors bit for bit; with new
    /// values it keeps every step whose recorded pivot stays acceptable; a recorded pivot made
    /// zero ends the reuse at its step, and the rest is factorised afresh; a new pattern is
    /// factorised from scratch.
    #[test]
    fn refactorisation_solves_new_values_on_the_kept_structure() {
        let residual = |a: &SparseJacobian, lu: &mut SparseLu| {
            let n = a.n();
            let b: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin() + 0.5).collect();
            let mut x = b.clone();
            lu.solve(&mut x);
            let r = a.to_dense() * nalgebra::DVector::from_column_slice(&x)
                - nalgebra::DVector::from_column_slice(&b);
            let mut y = b.clone();
            lu.solve_transpose(&mut y);
            let rt = a.to_dense().transpose() * nalgebra::DVector::from_column_slice(&y)
                - nalgebra::DVector::from_column_slice(&b);
            r.amax().max(rt.amax())
        };
        let cond = |a: &SparseJacobian| {
            let d = a.to_dense();
            d.norm() * d.clone().try_inverse().unwrap().norm()
        };
        for (n, density, seed) in [(40, 0.08, 3), (120, 0.03, 4)] {
            let a = random_sparse(n, density, seed);
            let mut lu = SparseLu::default();
            assert!(factor(&a, &mut lu));
            assert_eq!(lu.reused, 0);
            let (l, u, d) = (lu.l_val.clone(), lu.u_val.clone(), lu.u_diag.clone());
            assert!(factor(&a, &mut lu));
            assert_eq!(lu.reused, n);
            assert_eq!((&lu.l_val, &lu.u_val, &lu.u_diag), (&l, &u, &d));

            // New values, within a few per cent of the old ones: every step is reused.
            let mut b = a.clone();
            for (k, v) in b.values.iter_mut().enumerate() {
                *v *= 1.0 + 0.03 * ((k as f64) * 1.7).sin();
            }
            assert!(factor(&b, &mut lu));
            assert_eq!(lu.reused, n);
            // 1e-10 relative as in `sparse_lu_solves_and_transposed_solves_match_dense`.
            assert!(residual(&b, &mut lu) < 1e-10 * cond(&b));

            // A recorded pivot made zero: the last step that eliminates into nothing (its
            // pivot is an entry of the matrix) and has other candidates.
            let k = (1..n)
                .rev()
                .find(|&k| lu.u_ptr[k] == lu.u_ptr[k + 1] && lu.l_ptr[k] < lu.l_ptr[k + 1])
                .unwrap();
            let (c, row) = (lu.qcol[k], lu.prow[k]);
            let mut z = b.clone();
            let p = z.position(row, c).unwrap();
            z.values[p] = 0.0;
            assert!(k > n / 4, "n = {n}: k = {k}");
            {
                assert!(factor(&z, &mut lu));
                assert_eq!(lu.reused, k, "n = {n}");
                assert!(residual(&z, &mut lu) < 1e-10 * cond(&z));
                // And the factors it left are reused in turn.
                assert!(factor(&z, &mut lu));
                assert_eq!(lu.reused, n);
                assert!(residual(&z, &mut lu) < 1e-10 * cond(&z));
            }

            // Another pattern: from scratch.
            let other = random_sparse(n, density, seed + 10);
            assert!(factor(&other, &mut lu));
            assert!(lu.reused < n);
            assert!(residual(&other, &mut lu) < 1e-10 * cond(&other));
        }
    }

    /// A solver's copy of a pattern is taken once: taking the same pattern again leaves the
    /// copy (and its values) alone; a pattern set anew, even with the same entries, is copied;
    /// an unnamed matrix (no `set_pattern`) is compared entry by entry.
    #[test]
    fn a_pattern_already_held_is_not_copied_again() {
        let mut source = SparseJacobian::default();
        source.set_pattern(3, &mut vec![(0, 1), (2, 0)]).unwrap();
        let mut held = SparseJacobian::default();
        held.copy_pattern_from(&source);
        assert!(held.same_pattern(&source) && held == source);
        held.values_mut().fill(7.0);
        held.copy_pattern_from(&source);
        assert!(held.values().iter().all(|&v| v == 7.0), "not copied again");
        source.set_pattern(3, &mut vec![(0, 1), (2, 0)]).unwrap();
        held.copy_pattern_from(&source);
        assert!(
            held.values().iter().all(|&v| v == 0.0),
            "a new pattern is copied"
        );
        source.set_pattern(3, &mut vec![(1, 2)]).unwrap();
        assert!(!held.same_pattern(&source));
        let unnamed = SparseJacobian::default();
        assert!(!held.same_pattern(&unnamed) && unnamed.same_pattern(&SparseJacobian::default()));
    }

    #[test]
    fn pattern_outside_the_matrix_is_refused() {
        let mut a = SparseJacobian::default();
        let err = a.set_pattern(2, &mut vec![(0, 2)]).unwrap_err();
        assert_eq!((err.row, err.col, err.n), (0, 2, 2));
    }

    /// The ordering with skipped eliminated neighbours gives the reference's order on random
    /// patterns, on contact-like patterns (cliques joined through shared "twist" nodes) and on
    /// an intersection's multipliers around a small core, where it costs linear time.
    #[test]
    fn minimum_degree_matches_the_reference_order() {
        for (k, (n, density)) in [(10, 0.3), (40, 0.05), (80, 0.02), (120, 0.1), (200, 0.01)]
            .into_iter()
            .enumerate()
        {
            let a = random_sparse(n, density, 17 + k as u64);
            assert_eq!(
                minimum_degree(&a, true),
                minimum_degree_reference(&a),
                "n = {n}"
            );
        }
        // Contacts: blocks of 14 unknowns, each a clique with the 6 twist entries of two of 8
        // bodies; and multipliers joined only to a core of 12 unknowns.
        let mut entries = Vec::new();
        let (bodies, blocks, size) = (8, 20, 14);
        let n = bodies * 6 + blocks * size;
        for k in 0..blocks {
            let (b1, b2) = (k % bodies, (k * 3 + 1) % bodies);
            let mut nodes: Vec<usize> = (0..size).map(|i| bodies * 6 + k * size + i).collect();
            nodes.extend((0..6).map(|i| b1 * 6 + i));
            nodes.extend((0..6).map(|i| b2 * 6 + i));
            for &r in &nodes {
                entries.extend(nodes.iter().map(|&c| (r, c)));
            }
        }
        let mut a = SparseJacobian::default();
        a.set_pattern(n, &mut entries).unwrap();
        assert_eq!(minimum_degree(&a, true), minimum_degree_reference(&a));
        let (core, m) = (12, 300);
        let mut entries: Vec<(usize, usize)> = (0..core)
            .flat_map(|r| (0..core).map(move |c| (r, c)))
            .collect();
        for j in core..core + m {
            for c in [j % core, (j + 5) % core] {
                entries.extend([(j, c), (c, j)]);
            }
        }
        let mut a = SparseJacobian::default();
        a.set_pattern(core + m, &mut entries).unwrap();
        assert_eq!(minimum_degree(&a, true), minimum_degree_reference(&a));
    }

    /// The saddle-point structure of a step without closest points: `K` bodies in a row
    /// (6 twist unknowns each, a mass block on the diagonal), and between neighbours a
    /// contact of 3 impulses whose rows are the contact's velocity (the two bodies' twists)
    /// and whose columns push on the two bodies; the impulses' own rows have zero diagonal.
    fn body_chain(k: usize, staged: bool) -> SparseJacobian {
        let twists = 6 * k;
        let n = twists + 3 * (k - 1);
        let mut entries = Vec::new();
        let block = |b: usize| 6 * b..6 * b + 6;
        for b in 0..k {
            entries.extend(block(b).flat_map(|i| block(b).map(move |j| (i, j))));
        }
        for c in 0..k - 1 {
            for i in twists + 3 * c..twists + 3 * c + 3 {
                for j in block(c).chain(block(c + 1)) {
                    entries.extend([(i, j), (j, i)]);
                }
            }
        }
        let mut a = SparseJacobian::default();
        a.set_pattern(n, &mut entries).unwrap();
        // Symmetric values from a hash of the unordered pair, the impulses' columns the
        // negated transpose of their rows (`M v − Gᵀ p`, `G v`): the Schur complement on the
        // impulses is `G M⁻¹ Gᵀ`, positive definite, as the step's Delassus operator.
        let value = |i: usize, j: usize| {
            let (lo, hi) = (i.min(j) as u64, i.max(j) as u64);
            let mut s = (lo * 7919 + hi).wrapping_mul(6364136223846793005);
            s ^= s >> 29;
            s = s.wrapping_mul(1442695040888963407);
            ((s >> 11) as f64) / ((1u64 << 53) as f64) - 0.5
        };
        for j in 0..n {
            for p in a.col_ptr[j]..a.col_ptr[j + 1] {
                let i = a.row_idx[p];
                a.values[p] = match (i < twists, j < twists) {
                    (true, true) if i == j => 3.0,
                    (true, true) => 0.3 * value(i, j),
                    (false, false) => 0.0,
                    (false, true) => value(i, j),
                    (true, false) => -value(i, j),
                };
            }
        }
        if staged {
            let stages: Vec<u8> = (0..n).map(|i| if i < twists { 1 } else { 2 }).collect();
            a.set_stages(&stages);
        }
        a
    }

    #[test]
    fn staged_order_keeps_a_saddle_point_matrix_on_its_own_rows() {
        // Unstaged, minimum degree eliminates the impulses (degree 12) before the twists
        // (degree 5 + 6): their rows are zero there, so they are pivoted on twist rows, off
        // the order's plan. Staged, every impulse waits for its bodies' twists, after which
        // its own row holds `G M⁻¹ Gᵀ`. (Which factors are smaller depends on the graph: in
        // this chain the unstaged ones; `PathSolver` factorises both and keeps the cheaper.)
        let k = 30;
        for staged in [false, true] {
            let a = body_chain(k, staged);
            let n = a.n();
            let order = minimum_degree(&a, true);
            let position: Vec<usize> = {
                let mut p = vec![0; n];
                for (k, &v) in order.iter().enumerate() {
                    p[v] = k;
                }
                p
            };
            let mut lu = SparseLu::default();
            assert!(factor(&a, &mut lu), "staged {staged}");
            let off_row = (0..n).filter(|&k| lu.prow[k] != lu.qcol[k]).count();
            if staged {
                for j in 0..n {
                    for &i in a.column(j).0 {
                        if a.stage(i) < a.stage(j) {
                            assert!(position[i] < position[j], "{i} after {j}");
                        }
                    }
                }
                assert_eq!(off_row, 0, "every pivot on its own row");
            } else {
                assert!(off_row > 0, "the unstaged order is not exercised");
            }
            let dense = a.to_dense();
            let b: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin() + 0.5).collect();
            let mut x = b.clone();
            lu.solve(&mut x);
            let r = &dense * nalgebra::DVector::from_column_slice(&x)
                - nalgebra::DVector::from_column_slice(&b);
            // A regular saddle-point matrix of size 200 with entries below 3: backward-stable
            // solves leave a residual of a few hundred ulps.
            assert!(r.amax() < 1e-10, "staged {staged}: residual {}", r.amax());
        }
    }

    #[test]
    fn arrow_matrix_with_min_degree_has_no_fill() {
        // A dense last row and column ("arrow"): eliminating the hub first fills everything,
        // minimum degree leaves it for last and L + U keep the 3n − 2 entries of A.
        let n = 50;
        let mut entries: Vec<(usize, usize)> =
            (0..n - 1).flat_map(|i| [(i, n - 1), (n - 1, i)]).collect();
        let mut a = SparseJacobian::default();
        a.set_pattern(n, &mut entries).unwrap();
        let vals = a.values_mut();
        vals.fill(1.0);
        for i in 0..n {
            let p = a.diagonal_position(i);
            a.values[p] = 4.0 + n as f64;
        }
        let order = minimum_degree(&a, true);
        assert_eq!(order[n - 1], n - 1);
        let mut lu = SparseLu::default();
        assert!(factor(&a, &mut lu));
        assert_eq!(lu.nnz(), 3 * n - 2);
        // Each leaf's column of L (the hub's row) updates the hub's column once.
        assert_eq!(lu.flops(), (n - 1) as f64);
    }
}
