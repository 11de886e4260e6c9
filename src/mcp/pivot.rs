//! The complementary pivoting engine shared by Lemke's method and the path search.
//!
//! It traces, for the affine MCP with matrix `M`, vector `q`, box `[l, u]` and covering vector
//! `d`, the solutions of
//!
//! ```text
//! w = M z + q + s d,   l ≤ z ≤ u,   w_i ≥ 0 if z_i = l_i,  w_i ≤ 0 if z_i = u_i,  w_i = 0 inside,
//! ```
//!
//! as `s` is driven from a starting value `s0` (where a solution is known) down to `0`, where
//! the solution solves the affine MCP. In the normal-map variable `x = z − w` the solution set is a
//! piecewise-linear path; every breakpoint is a pivot. Lemke's method is the case `z = l`,
//! `d > 0`; PATH's Newton path is the case `s0 = 1`, `d = −r`, starting from the current
//! iterate (`t = 1 − s` is Ralph's path parameter).
//!
//! Equations `M z − w + s d = −q` with a basis of `n` of the `2n + 1` columns (`M_{:,i}` for
//! `z_i`, `−e_i` for `w_i`, `d` for `s`); nonbasic `z_i` sit at a bound, nonbasic `w_i` at zero.
//! The basis is kept as a dense LU of the starting basis times product-form eta updates, and
//! refactorised every `REFACTOR` pivots. Degenerate ties in the ratio test are broken by the
//! lexicographic rule (Cottle, Pang & Stone, sec. 4.9) with the right-hand side perturbed by
//! `B₀ P (ε, ε², …)ᵀ`, where `B₀` is the starting basis and `P` the sign that moves each starting
//! basic variable into the interior of its bounds, so that the start is lexicographically
//! feasible.
//!
//! Large problems with a known Jacobian pattern are factorised sparsely instead
//! ([`super::sparse::SparseLu`], the columns in the minimum-degree order of `M`), and then
//! refactorised every `REFACTOR` pivots: a sparse refactorisation costs about as much as a few
//! eta solves.

use super::dense::Lu;
use super::sparse::{SparseJacobian, SparseLu};
use nalgebra::DMatrix;
use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

const NONE: usize = usize::MAX;
/// Etas kept before the basis is refactorised from scratch.
const REFACTOR: usize = 40;
/// A rate (pivot element) below this fraction of the largest one counts as zero.
const PIVOT_TOL: f64 = 1e-11;

/// A variable of the pivoting scheme.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Var {
    Z(usize),
    W(usize),
    S,
}

/// States of a trace remembered in a list before they go to a hash set (see `Pivoter::seen`).
const FEW_STATES: usize = 16;

/// A 64-bit key of one fact about a basis (splitmix64 of `tag · n + i`): the state key of a
/// basis is the XOR of the keys of its facts. Deterministic, so traces are reproducible.
fn state_key(tag: u64, i: usize) -> u64 {
    let mut x = tag
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(i as u64)
        .wrapping_add(0xD1B5_4A32_D192_ED03);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// The identity hasher of the (already mixed) state keys.
#[derive(Debug, Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

/// The starting state of index `i`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Start {
    /// `z_i` basic (between or on its bounds), `w_i = 0`.
    Basic,
    /// `z_i = l_i` nonbasic, `w_i` basic.
    AtLower,
    /// `z_i = u_i` nonbasic, `w_i` basic.
    AtUpper,
}

/// How a trace ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// `s` reached zero: `z`, `w` solve the affine MCP.
    Solved,
    /// The entering variable could increase without bound (secondary ray).
    Ray,
    /// The pivot limit was reached.
    PivotLimit,
    /// One excursion of the path behind its start (`s > s0`) took the pivots allowed (see
    /// [`TraceLimits::behind_start`]); it ends at its best point.
    BehindStart,
    /// The basis became numerically singular.
    Singular,
}

/// When a trace gives up before `s` reaches zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TraceLimits {
    /// Pivots allowed in the trace ([`Outcome::PivotLimit`]).
    pub pivots: usize,
    /// Pivots allowed in one excursion of the path behind its start, `s > s0`
    /// ([`Outcome::BehindStart`]; `usize::MAX`: any).
    pub behind_start: usize,
}

/// The workspace of the pivoting engine; reused between traces.
#[derive(Debug, Default, Clone)]
pub(crate) struct Pivoter {
    n: usize,
    basis: Vec<Var>,
    zpos: Vec<usize>,
    wpos: Vec<usize>,
    /// For a nonbasic `z_i`: true at the upper bound, false at the lower.
    at_upper: Vec<bool>,
    spos: usize,
    s_nonbasic: f64,
    beta: Vec<f64>,
    lu: Lu,
    slu: SparseLu,
    /// What the basis factorisation holds.
    factored: Factored,
    /// Sparse refactorisation: basis positions in elimination order.
    positions: Vec<usize>,
    zset: Vec<usize>,
    wset: Vec<usize>,
    red: Vec<f64>,
    eta: Vec<f64>,
    eta_pos: Vec<usize>,
    basis0: Vec<Var>,
    sign0: Vec<f64>,
    col: Vec<f64>,
    delta: Vec<f64>,
    rhs: Vec<f64>,
    row: Vec<f64>,
    lex_best: Vec<f64>,
    lex_cand: Vec<f64>,
    ties: Vec<usize>,
    /// Whether each position is among the current ties (lexicographic choice).
    tied: Vec<bool>,
    /// Solution `z` after a trace (the last point reached if it did not end `Solved`).
    pub z: Vec<f64>,
    /// `w = M z + q + s d` after a trace.
    pub w: Vec<f64>,
    /// The value of `s` at the end of the trace.
    pub s: f64,
    /// Pivots of the last trace (bound flips included).
    pub pivots: usize,
    /// The last trace ended ([`Outcome::PivotLimit`]) because it came back to a state (basis,
    /// bound sides, entering variable and direction) it had already visited: from there the
    /// pivot rule, which depends on the state only, would repeat the same loop forever.
    pub cycled: bool,
    /// State keys visited by the current trace (see `state_key_of`): the first `FEW_STATES` in
    /// `few` (a short trace, the common one, then hashes nothing), the rest in `visited`, whose
    /// keys are already mixed, so the set hashes them by identity.
    few: Vec<u64>,
    visited: HashSet<u64, BuildHasherDefault<KeyHasher>>,
    /// The XOR of the keys of the facts that changed since the trace's start (each fact key
    /// toggled in and out as a pivot changes the facts of at most two indices): with the start's
    /// key, a constant of the trace, it would give the basis's key, so states of one trace
    /// compare as well without it, and a trace starts at no cost.
    basis_key: u64,
    /// The start basis's key, kept by debug builds only to check `basis_key` against.
    start_key: u64,
    /// Breakpoints of the path in `x = z − w`, `n` values each, starting point first.
    pub path_x: Vec<f64>,
    /// The value of `s` at each breakpoint.
    pub path_s: Vec<f64>,
}

/// What the basis factorisation holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Factored {
    /// Dense LU of the whole basis.
    #[default]
    Full,
    /// Dense LU of the block `M_ZZ` of the starting basis only (see `factor_start`).
    Structured,
    /// Sparse LU of the whole basis.
    Sparse,
}

/// The matrix `M` of a trace, dense or sparse.
#[derive(Debug, Clone, Copy)]
pub(crate) enum MatRef<'a> {
    /// Column-major dense.
    Dense(&'a DMatrix<f64>),
    /// Compressed sparse column, with the minimum-degree elimination order of its pattern.
    Sparse(&'a SparseJacobian, &'a [usize]),
}

impl MatRef<'_> {
    /// `out ← out + α M_{:,j}`.
    fn col_axpy(&self, j: usize, alpha: f64, out: &mut [f64]) {
        match self {
            MatRef::Dense(m) => {
                for (o, &c) in out.iter_mut().zip(m.column(j).iter()) {
                    *o += c * alpha;
                }
            }
            MatRef::Sparse(m, _) => {
                let (rows, vals) = m.column(j);
                for (&i, &v) in rows.iter().zip(vals) {
                    out[i] += v * alpha;
                }
            }
        }
    }

    /// `M_{:,j} · y`.
    fn col_dot(&self, j: usize, y: &[f64]) -> f64 {
        let mut s = 0.0;
        match self {
            MatRef::Dense(m) => {
                for (&c, &yi) in m.column(j).iter().zip(y) {
                    s += c * yi;
                }
            }
            MatRef::Sparse(m, _) => {
                let (rows, vals) = m.column(j);
                for (&i, &v) in rows.iter().zip(vals) {
                    s += v * y[i];
                }
            }
        }
        s
    }
}

/// Problem data of one trace.
pub(crate) struct Affine<'a> {
    pub m: MatRef<'a>,
    pub q: &'a [f64],
    pub lower: &'a [f64],
    pub upper: &'a [f64],
    pub d: &'a [f64],
}

impl<'a> Affine<'a> {
    fn column(&self, v: Var, out: &mut [f64]) {
        match v {
            Var::Z(j) => match self.m {
                MatRef::Dense(m) => {
                    let n = out.len();
                    out.copy_from_slice(&m.as_slice()[j * n..(j + 1) * n])
                }
                MatRef::Sparse(m, _) => {
                    out.fill(0.0);
                    let (rows, vals) = m.column(j);
                    for (&i, &v) in rows.iter().zip(vals) {
                        out[i] = v;
                    }
                }
            },
            Var::W(j) => {
                out.fill(0.0);
                out[j] = -1.0;
            }
            Var::S => out.copy_from_slice(self.d),
        }
    }
}

impl Pivoter {
    fn resize(&mut self, n: usize) {
        self.n = n;
        for v in [
            &mut self.beta,
            &mut self.col,
            &mut self.delta,
            &mut self.rhs,
            &mut self.row,
            &mut self.lex_best,
            &mut self.lex_cand,
            &mut self.z,
            &mut self.w,
            &mut self.sign0,
        ] {
            v.resize(n, 0.0);
        }
        self.basis.resize(n, Var::S);
        self.basis0.resize(n, Var::S);
        self.zpos.resize(n, NONE);
        self.wpos.resize(n, NONE);
        self.at_upper.resize(n, false);
        self.tied.clear();
        self.tied.resize(n, false);
        self.eta.clear();
        self.eta_pos.clear();
        self.path_x.clear();
        self.path_s.clear();
        self.ties.clear();
    }

    /// Sizes every buffer a dense trace of an `n`-unknown problem can grow, so that traces
    /// allocate only when a problem is larger than any before or a trace longer (the path's
    /// breakpoints and the loop detector's keys grow with the pivots and keep their capacity).
    pub(crate) fn reserve_dense(&mut self, n: usize) {
        self.resize(n);
        for v in [&mut self.zset, &mut self.wset, &mut self.ties] {
            reserve_total(v, n);
        }
        reserve_total(&mut self.red, n);
        reserve_total(&mut self.eta, REFACTOR.max(n) * n);
        reserve_total(&mut self.eta_pos, REFACTOR.max(n));
        self.lu.reserve(n);
        // A path search's trace rarely pivots more than twice per unknown.
        reserve_total(&mut self.few, FEW_STATES);
        self.visited
            .reserve((2 * n + 2).saturating_sub(self.visited.len()));
        reserve_total(&mut self.path_s, 2 * n + 2);
        reserve_total(&mut self.path_x, (2 * n + 2) * n);
    }

    /// Bounds of a basic variable.
    fn bounds(&self, v: Var, a: &Affine) -> (f64, f64) {
        match v {
            Var::Z(i) => (a.lower[i], a.upper[i]),
            Var::W(i) => {
                if a.lower[i] == a.upper[i] {
                    (f64::NEG_INFINITY, f64::INFINITY)
                } else if self.at_upper[i] {
                    (f64::NEG_INFINITY, 0.0)
                } else {
                    (0.0, f64::INFINITY)
                }
            }
            Var::S => (0.0, f64::INFINITY),
        }
    }

    /// Factorises the starting basis `B₀ = [M_{:,Z} | −e_W]` through its block `M_ZZ` only
    /// (rows and columns of the indices whose `z` is basic): with `y = B₀⁻¹ b`,
    /// `M_ZZ y_Z = b_Z` and `y_W = M_WZ y_Z − b_W`. Near a solution most variables are basic,
    /// but every variable at a bound shrinks the factorisation.
    fn factor_start(&mut self, a: &Affine) -> bool {
        let m = match a.m {
            MatRef::Dense(m) => m.as_slice(),
            MatRef::Sparse(..) => return self.factor(a),
        };
        let n = self.n;
        self.zset.clear();
        self.wset.clear();
        for (i, v) in self.basis.iter().enumerate() {
            match v {
                Var::Z(_) => self.zset.push(i),
                _ => self.wset.push(i),
            }
        }
        let nz = self.zset.len();
        self.red.resize(nz, 0.0);
        let buf = self.lu.buffer(nz);
        for (c, &j) in self.zset.iter().enumerate() {
            let col = &m[j * n..(j + 1) * n];
            for (b, &i) in buf[c * nz..(c + 1) * nz].iter_mut().zip(&self.zset) {
                *b = col[i];
            }
        }
        self.eta.clear();
        self.eta_pos.clear();
        self.factored = Factored::Structured;
        self.lu.factor()
    }

    /// `x ← B₀⁻¹ x` for the factorised basis (structured or full).
    fn base_solve(&mut self, a: &Affine, x: &mut [f64]) {
        let m = match (self.factored, a.m) {
            (Factored::Full, _) => return self.lu.solve(x),
            (Factored::Sparse, _) => return self.slu.solve(x),
            (Factored::Structured, MatRef::Dense(m)) => m.as_slice(),
            (Factored::Structured, MatRef::Sparse(..)) => {
                unreachable!("sparse is never structured")
            }
        };
        let n = self.n;
        for (r, &i) in self.zset.iter().enumerate() {
            self.red[r] = x[i];
        }
        self.lu.solve(&mut self.red);
        // y_W = M_WZ y_Z − b_W
        for &i in &self.wset {
            x[i] = -x[i];
        }
        for (r, &j) in self.zset.iter().enumerate() {
            let yj = self.red[r];
            x[j] = yj;
            if yj != 0.0 {
                let col = &m[j * n..(j + 1) * n];
                for &i in &self.wset {
                    x[i] += col[i] * yj;
                }
            }
        }
    }

    /// `y ← B₀⁻ᵀ y` for the factorised basis (structured or full).
    fn base_solve_transpose(&mut self, a: &Affine, y: &mut [f64]) {
        let m = match (self.factored, a.m) {
            (Factored::Full, _) => return self.lu.solve_transpose(y),
            (Factored::Sparse, _) => return self.slu.solve_transpose(y),
            (Factored::Structured, MatRef::Dense(m)) => m.as_slice(),
            (Factored::Structured, MatRef::Sparse(..)) => {
                unreachable!("sparse is never structured")
            }
        };
        let n = self.n;
        // y_W = −g_W; M_ZZᵀ y_Z = g_Z + M_WZᵀ g_W.
        for (r, &j) in self.zset.iter().enumerate() {
            let col = &m[j * n..(j + 1) * n];
            let mut v = y[j];
            for &k in &self.wset {
                v += col[k] * y[k];
            }
            self.red[r] = v;
        }
        self.lu.solve_transpose(&mut self.red);
        for &k in &self.wset {
            y[k] = -y[k];
        }
        for (r, &j) in self.zset.iter().enumerate() {
            y[j] = self.red[r];
        }
    }

    /// Factorises the current basis; false if singular.
    fn factor(&mut self, a: &Affine) -> bool {
        if let MatRef::Sparse(m, order) = a.m {
            return self.factor_sparse(a, m, order);
        }
        self.factored = Factored::Full;
        let n = self.n;
        let buf = self.lu.buffer(n);
        for (p, &v) in self.basis.iter().enumerate() {
            a.column(v, &mut buf[p * n..(p + 1) * n]);
        }
        self.eta.clear();
        self.eta_pos.clear();
        self.lu.factor()
    }

    /// Sparse LU of the current basis: positions in the elimination order of `M`'s pattern
    /// (position `p` started as `z_p` or `w_p`), the covering column `d` (dense) last.
    fn factor_sparse(&mut self, a: &Affine, m: &SparseJacobian, order: &[usize]) -> bool {
        self.factored = Factored::Sparse;
        self.eta.clear();
        self.eta_pos.clear();
        self.positions.clear();
        self.positions
            .extend(order.iter().copied().filter(|&p| self.basis[p] != Var::S));
        if self.spos != NONE {
            self.positions.push(self.spos);
        }
        let basis = &self.basis;
        self.slu.against_largest_pivot = true;
        self.slu.factor(
            self.n,
            &self.positions,
            |p, rows, vals| match basis[p] {
                Var::Z(j) => {
                    let (r, v) = m.column(j);
                    rows.extend_from_slice(r);
                    vals.extend_from_slice(v);
                }
                Var::W(j) => {
                    rows.push(j);
                    vals.push(-1.0);
                }
                Var::S => {
                    for (i, &di) in a.d.iter().enumerate() {
                        if di != 0.0 {
                            rows.push(i);
                            vals.push(di);
                        }
                    }
                }
            },
            |p| p,
        )
    }

    /// `x ← B⁻¹ x`.
    fn ftran(&mut self, a: &Affine, x: &mut [f64]) {
        let n = self.n;
        self.base_solve(a, x);
        for (k, &p) in self.eta_pos.iter().enumerate() {
            let e = &self.eta[k * n..(k + 1) * n];
            let xp = x[p] / e[p];
            for (xi, &ei) in x.iter_mut().zip(e) {
                *xi -= ei * xp;
            }
            x[p] = xp;
        }
    }

    /// `y ← B⁻ᵀ y`.
    fn btran(&mut self, a: &Affine, y: &mut [f64]) {
        let n = self.n;
        for (k, &p) in self.eta_pos.iter().enumerate().rev() {
            let e = &self.eta[k * n..(k + 1) * n];
            let mut s = y[p];
            for i in 0..n {
                if i != p {
                    s -= e[i] * y[i];
                }
            }
            y[p] = s / e[p];
        }
        self.base_solve_transpose(a, y);
    }

    /// Recomputes the basic values from the nonbasic ones (after a refactorisation).
    fn recompute_values(&mut self, a: &Affine) {
        let n = self.n;
        for i in 0..n {
            self.rhs[i] = -a.q[i];
        }
        for j in 0..n {
            if self.zpos[j] == NONE {
                let zj = if self.at_upper[j] {
                    a.upper[j]
                } else {
                    a.lower[j]
                };
                if zj != 0.0 {
                    a.m.col_axpy(j, -zj, &mut self.rhs);
                }
            }
        }
        if self.spos == NONE && self.s_nonbasic != 0.0 {
            for i in 0..n {
                self.rhs[i] -= a.d[i] * self.s_nonbasic;
            }
        }
        let mut rhs = std::mem::take(&mut self.rhs);
        self.ftran(a, &mut rhs);
        self.beta.copy_from_slice(&rhs);
        self.rhs = rhs;
    }

    /// Writes the full `z`, `w`, `s` of the current basic solution.
    fn extract(&mut self, a: &Affine) {
        for i in 0..self.n {
            self.z[i] = if self.zpos[i] != NONE {
                self.beta[self.zpos[i]]
            } else if self.at_upper[i] {
                a.upper[i]
            } else {
                a.lower[i]
            };
            self.w[i] = if self.wpos[i] != NONE {
                self.beta[self.wpos[i]]
            } else {
                0.0
            };
        }
        self.s = if self.spos != NONE {
            self.beta[self.spos]
        } else {
            self.s_nonbasic
        };
    }

    fn record(&mut self, a: &Affine, record: bool) {
        self.extract(a);
        if record {
            for i in 0..self.n {
                self.path_x.push(self.z[i] - self.w[i]);
            }
            self.path_s.push(self.s);
        }
    }

    /// The lexicographic key of basis row `p`: `sgn · (B⁻¹ B₀ P)_{p,:} / |rate|`, into `out`.
    fn lex_row(&mut self, a: &Affine, p: usize, sgn: f64, rate: f64, out_is_best: bool) {
        let n = self.n;
        self.row.fill(0.0);
        self.row[p] = 1.0;
        let mut row = std::mem::take(&mut self.row);
        self.btran(a, &mut row);
        let mut col = std::mem::take(&mut self.col);
        let scale = sgn / rate.abs();
        for j in 0..n {
            // (B₀ᵀ y)_j = a_{basis0[j]} · y
            let v = match self.basis0[j] {
                Var::Z(k) => a.m.col_dot(k, &row),
                Var::W(k) => -row[k],
                Var::S => {
                    let mut s = 0.0;
                    for i in 0..n {
                        s += a.d[i] * row[i];
                    }
                    s
                }
            };
            col[j] = v * self.sign0[j] * scale;
        }
        if out_is_best {
            self.lex_best.copy_from_slice(&col);
        } else {
            self.lex_cand.copy_from_slice(&col);
        }
        self.row = row;
        self.col = col;
    }

    /// The lexicographic choice among the tied rows `ties`, column by column of `B⁻¹ B₀ P`
    /// and only as far as needed (large problems, where a whole row per tie costs `O(n)`
    /// each): a column of `B₀` whose variable is still basic is a unit column of `B⁻¹ B₀`, so
    /// only the columns that have left the basis need a solve.
    fn lex_choose(&mut self, a: &Affine, delta: &[f64], dir: f64) -> usize {
        let n = self.n;
        let mut ties = std::mem::take(&mut self.ties);
        let mut col = std::mem::take(&mut self.col);
        let mut keys = std::mem::take(&mut self.lex_cand);
        for &p in &ties {
            self.tied[p] = true;
        }
        // key_p(j) = sgn_p (B⁻¹ b0_j)_p sign0_j / |rate_p|, sgn_p = 1 if rate_p < 0 else −1.
        let key = |p: usize, v: f64, sign: f64| {
            let rate = -dir * delta[p];
            let sgn = if rate < 0.0 { 1.0 } else { -1.0 };
            sgn * v * sign / rate.abs()
        };
        for j in 0..n {
            let v0 = self.basis0[j];
            let sign = self.sign0[j];
            let at = match v0 {
                Var::Z(k) => self.zpos[k],
                Var::W(k) => self.wpos[k],
                Var::S => self.spos,
            };
            if at != NONE {
                // Still basic: a unit column, zero on every tie but its own position.
                if !self.tied[at] {
                    continue;
                }
                for (t, &p) in ties.iter().enumerate() {
                    keys[t] = key(p, if p == at { 1.0 } else { 0.0 }, sign);
                }
            } else {
                a.column(v0, &mut col);
                self.ftran(a, &mut col);
                for (t, &p) in ties.iter().enumerate() {
                    keys[t] = key(p, col[p], sign);
                }
            }
            let min = keys[..ties.len()]
                .iter()
                .copied()
                .fold(f64::INFINITY, f64::min);
            let mut kept = 0;
            for t in 0..ties.len() {
                let tol = 1e-9 * keys[t].abs().max(min.abs()).max(1e-12);
                if keys[t] <= min + tol {
                    ties[kept] = ties[t];
                    kept += 1;
                } else {
                    self.tied[ties[t]] = false;
                }
            }
            ties.truncate(kept);
            if ties.len() == 1 {
                break;
            }
        }
        for &p in &ties {
            self.tied[p] = false;
        }
        self.lex_cand = keys;
        let best = ties[0];
        self.ties = ties;
        self.col = col;
        best
    }

    /// The key of index `i`'s facts: whether `z_i` is basic or, if not, at its upper bound,
    /// and whether `w_i` is basic.
    fn index_key(&self, i: usize) -> u64 {
        let mut h = 0;
        if self.zpos[i] != NONE {
            h ^= state_key(1, i);
        } else if self.at_upper[i] {
            h ^= state_key(2, i);
        }
        if self.wpos[i] != NONE {
            h ^= state_key(3, i);
        }
        h
    }

    /// The key of the basis from scratch: every index's facts and whether `s` is basic.
    fn basis_key_from_scratch(&self) -> u64 {
        let mut h = (0..self.n).fold(0, |h, i| h ^ self.index_key(i));
        if self.spos != NONE {
            h ^= state_key(4, 0);
        }
        h
    }

    /// The state key of the current basis: which variable is basic at each index, the side of
    /// every nonbasic `z`, whether `s` is basic, and the entering variable with its direction.
    /// Everything the next pivot depends on besides rounding: `s`, when nonbasic, is at `s0`
    /// (it leaves only to end the trace), and the basic values follow from the rest.
    fn state_key_of(&self, entering: Var, dir: f64) -> u64 {
        debug_assert_eq!(
            self.basis_key ^ self.start_key,
            self.basis_key_from_scratch()
        );
        let e = match entering {
            Var::Z(j) => state_key(5, j),
            Var::W(j) => state_key(6, j),
            Var::S => state_key(7, 0),
        };
        self.basis_key ^ e.rotate_left(if dir > 0.0 { 17 } else { 0 })
    }

    /// Whether the trace has been in the state of key `key` before; remembers it.
    fn seen(&mut self, key: u64) -> bool {
        if self.few.len() < FEW_STATES {
            if self.few.contains(&key) {
                return true;
            }
            self.few.push(key);
            return false;
        }
        if self.visited.is_empty() {
            self.visited.extend(self.few.iter().copied());
        }
        !self.visited.insert(key)
    }

    /// After a trace that stopped before `s = 0`: cuts the recorded path after its breakpoint
    /// of least `s` (the farthest it got towards the end) and sets `s` to that value, so that
    /// the caller searches along the useful part of the path instead of the part that came
    /// back.
    #[cold]
    #[inline(never)]
    fn keep_best_prefix(&mut self, record: bool) {
        if !record || self.path_s.is_empty() {
            return;
        }
        let mut best = 0;
        for (k, &sk) in self.path_s.iter().enumerate() {
            if sk < self.path_s[best] {
                best = k;
            }
        }
        self.path_s.truncate(best + 1);
        self.path_x.truncate((best + 1) * self.n);
        self.s = self.path_s[best];
    }

    /// Traces the path from the known solution `(z0, w0)` at `s = s0` down to `s = 0`.
    ///
    /// `start[i]` says which of `z_i`, `w_i` is basic at the start; `z0`, `w0` must be
    /// consistent with it and with `w0 = M z0 + q + s0 d`. When `record` is set the breakpoints
    /// are kept in `path_x`, `path_s`.
    #[allow(clippy::too_many_arguments)]
    pub fn trace(
        &mut self,
        a: &Affine,
        s0: f64,
        z0: &[f64],
        w0: &[f64],
        start: &[Start],
        record: bool,
        limits: TraceLimits,
    ) -> Outcome {
        let n = a.q.len();
        self.resize(n);
        self.pivots = 0;
        self.cycled = false;
        self.few.clear();
        if !self.visited.is_empty() {
            self.visited.clear();
        }
        self.spos = NONE;
        self.s_nonbasic = s0;
        for i in 0..n {
            self.zpos[i] = NONE;
            self.wpos[i] = NONE;
            match start[i] {
                Start::Basic => {
                    self.basis[i] = Var::Z(i);
                    self.zpos[i] = i;
                    self.beta[i] = z0[i];
                    self.sign0[i] = if z0[i] >= a.upper[i] { -1.0 } else { 1.0 };
                    self.at_upper[i] = false;
                }
                Start::AtLower | Start::AtUpper => {
                    let up = start[i] == Start::AtUpper;
                    self.basis[i] = Var::W(i);
                    self.wpos[i] = i;
                    self.beta[i] = w0[i];
                    self.at_upper[i] = up;
                    self.sign0[i] = if up { -1.0 } else { 1.0 };
                }
            }
        }
        self.basis0.copy_from_slice(&self.basis);
        self.basis_key = 0;
        if cfg!(debug_assertions) {
            self.start_key = self.basis_key_from_scratch();
        }
        if !self.factor_start(a) {
            self.record(a, false);
            return Outcome::Singular;
        }
        self.record(a, record);

        let mut entering = Var::S;
        let mut dir = -1.0f64;
        // The pivot at which the path last went behind its start (NONE: it is not behind).
        let mut behind_since = NONE;
        loop {
            if self.pivots >= limits.pivots {
                self.extract(a);
                self.keep_best_prefix(record);
                return Outcome::PivotLimit;
            }
            // `self.s` is the value at the last breakpoint (`record` extracts it).
            if self.s > s0 {
                behind_since = behind_since.min(self.pivots);
                if self.pivots - behind_since >= limits.behind_start {
                    self.keep_best_prefix(record);
                    return Outcome::BehindStart;
                }
            } else {
                behind_since = NONE;
            }
            // Loop detection. The pivot rule (ratio test, lexicographic ties) is a function of
            // the state, so a trace that returns to a visited state repeats the same loop until
            // the pivot limit. That happens in two ways: cycling among degenerate bases when
            // rounding defeats the lexicographic rule, and, without any degeneracy, a closed
            // path. The Newton path starts *inside* its path component (at `s0`, not on a ray as
            // Lemke's method does), so when the linearisation is singular (a continuum of
            // frictional impulses makes it so at the solution) the component can be a loop that
            // goes round through `s > s0` and back without reaching `s = 0`. The loop measured on
            // a row of discs with friction was 12 nondegenerate pivots, repeated to the 10 000
            // pivot limit, several times per step. Stop at the first repeat and keep the best
            // point reached. Every state is remembered, the start included (its key is kept up
            // to date at O(1) per pivot): most loops begin within the first 32 pivots of their
            // trace, and a loop of 12 pivots cost 44 when states were remembered from pivot 32
            // on only.
            if self.seen(self.state_key_of(entering, dir)) {
                self.cycled = true;
                self.extract(a);
                self.keep_best_prefix(record);
                return Outcome::PivotLimit;
            }
            let mut delta = std::mem::take(&mut self.delta);
            a.column(entering, &mut delta);
            self.ftran(a, &mut delta);
            let dmax = delta.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            if !dmax.is_finite() {
                self.delta = delta;
                self.extract(a);
                return Outcome::Singular;
            }
            let tol = PIVOT_TOL * dmax.max(1e-300);

            // The entering variable's own bound (a bound flip for z, s reaching 0).
            let own = match entering {
                Var::Z(j) => a.upper[j] - a.lower[j],
                Var::W(_) => f64::INFINITY,
                Var::S => {
                    if dir < 0.0 {
                        self.s_nonbasic
                    } else {
                        f64::INFINITY
                    }
                }
            };
            // Ratio test.
            let mut theta = own;
            for p in 0..n {
                let rate = -dir * delta[p];
                if rate.abs() <= tol {
                    continue;
                }
                let (lo, hi) = self.bounds(self.basis[p], a);
                let t = if rate < 0.0 {
                    if lo == f64::NEG_INFINITY {
                        continue;
                    }
                    (self.beta[p] - lo).max(0.0) / -rate
                } else {
                    if hi == f64::INFINITY {
                        continue;
                    }
                    (hi - self.beta[p]).max(0.0) / rate
                };
                if t < theta {
                    theta = t;
                }
            }
            if theta == f64::INFINITY {
                self.delta = delta;
                self.extract(a);
                return Outcome::Ray;
            }
            let tie = 1e-11 * theta.max(1.0);
            self.ties.clear();
            let mut s_blocks = false;
            for p in 0..n {
                let rate = -dir * delta[p];
                if rate.abs() <= tol {
                    continue;
                }
                let (lo, hi) = self.bounds(self.basis[p], a);
                let t = if rate < 0.0 && lo > f64::NEG_INFINITY {
                    (self.beta[p] - lo).max(0.0) / -rate
                } else if rate > 0.0 && hi < f64::INFINITY {
                    (hi - self.beta[p]).max(0.0) / rate
                } else {
                    continue;
                };
                if t <= theta + tie {
                    if self.basis[p] == Var::S {
                        s_blocks = true;
                    }
                    self.ties.push(p);
                }
            }
            let own_blocks = own <= theta + tie;

            // Choose the leaving position (NONE: the entering variable's own bound).
            let leave = if own_blocks && entering == Var::S {
                NONE
            } else if s_blocks {
                self.spos
            } else if own_blocks || self.ties.is_empty() {
                NONE
            } else if self.ties.len() == 1 {
                self.ties[0]
            } else if matches!(a.m, MatRef::Sparse(..)) {
                self.lex_choose(a, &delta, dir)
            } else {
                let ties = std::mem::take(&mut self.ties);
                let mut best = ties[0];
                let sgn = |r: f64| if r < 0.0 { 1.0 } else { -1.0 };
                self.lex_row(a, best, sgn(-dir * delta[best]), -dir * delta[best], true);
                for &p in &ties[1..] {
                    let rate = -dir * delta[p];
                    self.lex_row(a, p, sgn(rate), rate, false);
                    for j in 0..n {
                        let (c, b) = (self.lex_cand[j], self.lex_best[j]);
                        let scale = 1e-9 * c.abs().max(b.abs()).max(1e-12);
                        if c < b - scale {
                            best = p;
                            self.lex_best.copy_from_slice(&self.lex_cand);
                            break;
                        } else if c > b + scale {
                            break;
                        }
                    }
                }
                self.ties = ties;
                best
            };
            let theta = if leave == NONE {
                own
            } else {
                let p = leave;
                let rate = -dir * delta[p];
                let (lo, hi) = self.bounds(self.basis[p], a);
                if rate < 0.0 {
                    (self.beta[p] - lo).max(0.0) / -rate
                } else {
                    (hi - self.beta[p]).max(0.0) / rate
                }
            };

            // Move.
            for p in 0..n {
                self.beta[p] -= dir * delta[p] * theta;
            }
            self.pivots += 1;
            if leave == NONE {
                match entering {
                    Var::S => {
                        self.s_nonbasic = 0.0;
                        self.delta = delta;
                        self.record(a, record);
                        return Outcome::Solved;
                    }
                    Var::Z(j) => {
                        // Bound flip: z_j crosses its box; w_j enters on the other side.
                        self.basis_key ^= self.index_key(j);
                        self.at_upper[j] = dir > 0.0;
                        self.basis_key ^= self.index_key(j);
                        entering = Var::W(j);
                        dir = if self.at_upper[j] { -1.0 } else { 1.0 };
                        self.delta = delta;
                        self.record(a, record);
                        continue;
                    }
                    Var::W(_) => unreachable!("w has no own bound"),
                }
            }
            let p = leave;
            let leaving = self.basis[p];
            let hit_upper = -dir * delta[p] > 0.0;
            let entering_value = match entering {
                Var::Z(j) => {
                    if dir > 0.0 {
                        a.lower[j] + theta
                    } else {
                        a.upper[j] - theta
                    }
                }
                Var::W(_) => dir * theta,
                Var::S => self.s_nonbasic + dir * theta,
            };
            // Eta update: column p of the basis becomes the entering column.
            if delta[p].abs() <= tol {
                self.delta = delta;
                self.extract(a);
                return Outcome::Singular;
            }
            self.eta.extend_from_slice(&delta);
            self.eta_pos.push(p);
            self.delta = delta;
            self.basis[p] = entering;
            self.beta[p] = entering_value;
            match entering {
                Var::Z(j) | Var::W(j) => {
                    self.basis_key ^= self.index_key(j);
                    if let Var::Z(_) = entering {
                        self.zpos[j] = p;
                    } else {
                        self.wpos[j] = p;
                    }
                    self.basis_key ^= self.index_key(j);
                }
                Var::S => {
                    self.spos = p;
                    self.basis_key ^= state_key(4, 0);
                }
            }
            // The leaving variable becomes nonbasic at the bound it hit; its complement enters.
            match leaving {
                Var::S => {
                    self.spos = NONE;
                    self.basis_key ^= state_key(4, 0);
                    self.s_nonbasic = 0.0;
                    self.record(a, record);
                    return Outcome::Solved;
                }
                Var::Z(i) => {
                    self.basis_key ^= self.index_key(i);
                    self.zpos[i] = NONE;
                    self.at_upper[i] = hit_upper;
                    self.basis_key ^= self.index_key(i);
                    entering = Var::W(i);
                    dir = if hit_upper { -1.0 } else { 1.0 };
                }
                Var::W(i) => {
                    self.basis_key ^= self.index_key(i);
                    self.wpos[i] = NONE;
                    self.basis_key ^= self.index_key(i);
                    entering = Var::Z(i);
                    dir = if self.at_upper[i] { -1.0 } else { 1.0 };
                }
            }
            let refactor = if matches!(a.m, MatRef::Sparse(..)) {
                REFACTOR
            } else {
                REFACTOR.max(n)
            };
            if self.eta_pos.len() >= refactor {
                if !self.factor(a) {
                    self.extract(a);
                    return Outcome::Singular;
                }
                self.recompute_values(a);
            }
            self.record(a, record);
        }
    }
}

/// Grows `v`'s capacity to at least `total` elements.
fn reserve_total<T>(v: &mut Vec<T>, total: usize) {
    v.reserve(total.saturating_sub(v.len()));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The random-trace tests' limits: 200 pivots, any excursion behind the start.
    const TRIAL_LIMITS: TraceLimits = TraceLimits {
        pivots: 200,
        behind_start: usize::MAX,
    };

    /// A Lemke-type start on the box problem `(m, q, [lower, upper])`: every `z_i` at its
    /// lower bound, `d = 1`, and `s0` large enough that every `w_i` is at least 1.
    struct LemkeStart {
        m: DMatrix<f64>,
        q: Vec<f64>,
        lower: Vec<f64>,
        upper: Vec<f64>,
        d: Vec<f64>,
        w0: Vec<f64>,
        s0: f64,
        start: Vec<Start>,
    }

    impl LemkeStart {
        fn new(m: DMatrix<f64>, q: Vec<f64>, lower: Vec<f64>, upper: Vec<f64>) -> Self {
            let n = q.len();
            let mz: Vec<f64> = (0..n)
                .map(|i| q[i] + (0..n).map(|j| m[(i, j)] * lower[j]).sum::<f64>())
                .collect();
            let s0 = 1.0 + mz.iter().fold(0.0f64, |a, &v| a.max(-v));
            Self {
                w0: mz.iter().map(|v| v + s0).collect(),
                d: vec![1.0; n],
                start: vec![Start::AtLower; n],
                s0,
                m,
                q,
                lower,
                upper,
            }
        }

        fn trace(&self, pivoter: &mut Pivoter, record: bool, limits: TraceLimits) -> Outcome {
            let affine = Affine {
                m: MatRef::Dense(&self.m),
                q: &self.q,
                lower: &self.lower,
                upper: &self.upper,
                d: &self.d,
            };
            let (z0, w0, start) = (&self.lower, &self.w0, &self.start);
            pivoter.trace(&affine, self.s0, z0, w0, start, record, limits)
        }
    }

    /// Uniform numbers in `[-1, 1)` from a fixed seed (a linear congruential generator).
    fn uniform(mut seed: u64) -> impl FnMut() -> f64 {
        move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 11) as f64) / ((1u64 << 53) as f64) * 2.0 - 1.0
        }
    }

    /// Lemke-type traces (`z = l`, `d = 1`, `s0` large enough that the start is feasible) on
    /// random box problems: the loop detector's key of the basis, kept up to date pivot by
    /// pivot from the start's, equals the key computed from scratch at the end of every trace,
    /// whichever way it ended (the debug builds also check it before every pivot).
    #[test]
    fn the_incremental_basis_key_matches_the_key_from_scratch() {
        let mut next = uniform(0x5EED);
        let mut pivoter = Pivoter::default();
        let mut pivots = 0;
        for trial in 0..40 {
            let n = 4 + trial % 12;
            let m = DMatrix::from_fn(n, n, |i, j| next() + if i == j { 1.5 } else { 0.0 });
            let q: Vec<f64> = (0..n).map(|_| 3.0 * next()).collect();
            // Finite boxes on every other trial, so bound flips are traced too.
            let lower = vec![if trial % 2 == 0 { 0.0 } else { -1.0 }; n];
            let upper = vec![if trial % 2 == 0 { f64::INFINITY } else { 1.0 }; n];
            LemkeStart::new(m, q, lower, upper).trace(&mut pivoter, false, TRIAL_LIMITS);
            // Every `w_i` basic, every `z_i` at its lower bound.
            let start_key = (0..n).fold(0, |h, i| h ^ state_key(3, i));
            assert_eq!(
                pivoter.basis_key ^ start_key,
                pivoter.basis_key_from_scratch(),
                "trial {trial}"
            );
            pivots += pivoter.pivots;
        }
        // The traces pivot (not a test of empty traces).
        assert!(pivots > 200, "{pivots} pivots");
    }

    /// Lemke-type traces on random problems without diagonal dominance, whose covering
    /// variable often rises above its start: with an allowance of `k` pivots behind the start,
    /// the trace ends `k` pivots into its first excursion behind it, at the best point of the
    /// path traced so far, which is the unlimited trace's path up to that point.
    #[test]
    fn a_path_behind_its_start_ends_after_its_allowance() {
        let mut next = uniform(0xBE41);
        let mut pivoter = Pivoter::default();
        let mut checked = 0;
        for trial in 0..200 {
            let n = 3 + trial % 6;
            let m = DMatrix::from_fn(n, n, |_, _| next());
            let q: Vec<f64> = (0..n).map(|_| 3.0 * next()).collect();
            let problem = LemkeStart::new(m, q, vec![0.0; n], vec![f64::INFINITY; n]);
            let s0 = problem.s0;
            let mut limits = TRIAL_LIMITS;
            problem.trace(&mut pivoter, true, limits);
            // `path_s[k]`: `s` after `k` pivots.
            let path_s = pivoter.path_s.clone();
            let Some(first) = path_s.iter().position(|&s| s > s0) else {
                continue;
            };
            for allowance in [0, 2] {
                let end = first + allowance;
                if end >= path_s.len() || path_s[first..=end].iter().any(|&s| s <= s0) {
                    continue;
                }
                limits.behind_start = allowance;
                let outcome = problem.trace(&mut pivoter, true, limits);
                assert_eq!(outcome, Outcome::BehindStart, "trial {trial}");
                assert_eq!(pivoter.pivots, end, "trial {trial}");
                let best = (0..=end).fold(0, |b, k| if path_s[k] < path_s[b] { k } else { b });
                assert_eq!(pivoter.path_s, path_s[..=best], "trial {trial}");
                assert_eq!(pivoter.s, path_s[best], "trial {trial}");
                checked += 1;
            }
        }
        // Enough excursions behind the start to test (not a test of paths that never turn).
        assert!(checked >= 10, "{checked} excursions checked");
    }
}
