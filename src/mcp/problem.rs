//! The mixed complementarity problem (MCP) interface.
//!
//! Find `z` with `l ≤ z ≤ u` such that, for every `i`,
//!
//! ```text
//! z_i = l_i       ⇒ F_i(z) ≥ 0
//! z_i = u_i       ⇒ F_i(z) ≤ 0
//! l_i < z_i < u_i ⇒ F_i(z) = 0
//! ```
//!
//! Bounds may be infinite, so nonlinear complementarity problems (`l = 0, u = ∞`), box-constrained
//! problems and square nonlinear systems (`l = -∞, u = ∞`) are special cases.

use super::sparse::SparseJacobian;
use nalgebra::DMatrix;

/// Dense Jacobian storage, column-major `n × n`. A sparse variant can be added beside it later;
/// the solvers only reach the Jacobian through [`McpProblem::jacobian`].
pub type DenseJacobian = DMatrix<f64>;

/// A mixed complementarity problem: dimension, bounds, `F(z)` and its Jacobian `J(z) = ∂F/∂z`.
///
/// The solvers call [`function`](McpProblem::function) far more often than
/// [`jacobian`](McpProblem::jacobian); both take `&mut self` so an implementation may cache shared
/// work (for example geometry evaluated at the same `z`). Implementations must not panic on
/// non-finite input: write NaN and the solver reports it.
pub trait McpProblem {
    /// Number of variables `n`.
    fn dim(&self) -> usize;
    /// Lower bounds `l` (length `n`, entries may be `-∞`).
    fn lower_bounds(&self) -> &[f64];
    /// Upper bounds `u` (length `n`, entries may be `+∞`).
    fn upper_bounds(&self) -> &[f64];
    /// Writes `F(z)` into `f` (length `n`).
    fn function(&mut self, z: &[f64], f: &mut [f64]);
    /// Writes `J(z)` into `jac` (already `n × n`; every entry must be written).
    fn jacobian(&mut self, z: &[f64], jac: &mut DenseJacobian);

    /// Writes into `scales` (length `n`) the positive factor each row of `F` is currently
    /// written times, and returns true; false (the default) when every row is written
    /// unscaled. A row's factor changes its residual, not its solutions. A solver that keeps a
    /// factorisation of `J` from one solve for the next (see
    /// [`PathSolver::allow_kept_jacobian`](super::PathSolver::allow_kept_jacobian)) compares
    /// the factors with those it factorised at: a row rescaled since is the kept Jacobian's row
    /// times the change, and the kept factorisation still gives its Newton steps.
    fn row_scales(&self, scales: &mut [f64]) -> bool {
        let _ = scales;
        false
    }

    /// Sets the sparsity pattern of `J` in `jac` (every entry some `z` in the box can make
    /// nonzero; see [`SparseJacobian::set_pattern`]) and returns true, if the problem knows it.
    /// The path search then factorises sparsely when the problem is large
    /// ([`PathSettings::sparse_threshold`](super::PathSettings::sparse_threshold)). Called once
    /// per solve. Default: false, dense only.
    fn sparse_pattern(&mut self, jac: &mut SparseJacobian) -> bool {
        let _ = jac;
        false
    }

    /// Writes `J(z)` into the values of `jac`, whose pattern is the one set by
    /// [`sparse_pattern`](McpProblem::sparse_pattern) (entries outside it must be zero). The
    /// default goes through a dense Jacobian (allocating); problems that set a pattern should
    /// write the values directly.
    fn sparse_jacobian(&mut self, z: &[f64], jac: &mut SparseJacobian) {
        let n = self.dim();
        let mut dense = DMatrix::zeros(n, n);
        self.jacobian(z, &mut dense);
        for j in 0..n {
            let (a, b) = (jac.col_ptr()[j], jac.col_ptr()[j + 1]);
            for p in a..b {
                let i = jac.row_indices()[p];
                jac.values_mut()[p] = dense[(i, j)];
            }
        }
    }
}

impl<P: McpProblem + ?Sized> McpProblem for &mut P {
    fn dim(&self) -> usize {
        (**self).dim()
    }
    fn lower_bounds(&self) -> &[f64] {
        (**self).lower_bounds()
    }
    fn upper_bounds(&self) -> &[f64] {
        (**self).upper_bounds()
    }
    fn function(&mut self, z: &[f64], f: &mut [f64]) {
        (**self).function(z, f)
    }
    fn jacobian(&mut self, z: &[f64], jac: &mut DenseJacobian) {
        (**self).jacobian(z, jac)
    }
    fn sparse_pattern(&mut self, jac: &mut SparseJacobian) -> bool {
        (**self).sparse_pattern(jac)
    }
    fn sparse_jacobian(&mut self, z: &[f64], jac: &mut SparseJacobian) {
        (**self).sparse_jacobian(z, jac)
    }
    fn row_scales(&self, scales: &mut [f64]) -> bool {
        (**self).row_scales(scales)
    }
}

/// Error raised when an MCP is built with inconsistent data.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProblemError {
    /// Lower and upper bounds have different lengths.
    #[error("bounds have different lengths: lower has {lower}, upper has {upper}")]
    LengthMismatch {
        /// Length of the lower-bound vector.
        lower: usize,
        /// Length of the upper-bound vector.
        upper: usize,
    },
    /// A bound is NaN, `l_i = +∞`, `u_i = -∞`, or `l_i > u_i`.
    #[error("bound {index} is invalid: lower = {lower}, upper = {upper}")]
    InvalidBound {
        /// Index of the offending variable.
        index: usize,
        /// Its lower bound.
        lower: f64,
        /// Its upper bound.
        upper: f64,
    },
}

/// Checks that `l` and `u` describe a non-empty box (infinite entries allowed).
pub fn validate_bounds(lower: &[f64], upper: &[f64]) -> Result<(), ProblemError> {
    if lower.len() != upper.len() {
        return Err(ProblemError::LengthMismatch {
            lower: lower.len(),
            upper: upper.len(),
        });
    }
    for (index, (&l, &u)) in lower.iter().zip(upper).enumerate() {
        if l.is_nan() || u.is_nan() || l == f64::INFINITY || u == f64::NEG_INFINITY || l > u {
            return Err(ProblemError::InvalidBound {
                index,
                lower: l,
                upper: u,
            });
        }
    }
    Ok(())
}

/// An MCP built from two closures, for use from other crates without defining a type.
///
/// ```
/// use implicit_contact::mcp::{ClosureMcp, solve, SolveSettings};
///
/// // NCP: z ≥ 0, F(z) = M z + q ≥ 0, z·F(z) = 0, with a nonlinear term.
/// let mut problem = ClosureMcp::ncp(
///     2,
///     |z: &[f64], f: &mut [f64]| {
///         f[0] = 2.0 * z[0] + z[1] + z[0] * z[0] - 1.0;
///         f[1] = z[0] + 3.0 * z[1] + 2.0;
///     },
///     |z: &[f64], j: &mut nalgebra::DMatrix<f64>| {
///         j[(0, 0)] = 2.0 + 2.0 * z[0];
///         j[(0, 1)] = 1.0;
///         j[(1, 0)] = 1.0;
///         j[(1, 1)] = 3.0;
///     },
/// );
/// let mut z = vec![0.0, 0.0];
/// let report = solve(&mut problem, &mut z, &SolveSettings::default());
/// assert!(report.converged(), "{report}");
/// // z1 = 0 (F_1 > 0), z0 solves z0² + 2 z0 − 1 = 0.
/// assert!((z[0] - (2f64.sqrt() - 1.0)).abs() < 1e-10);
/// assert_eq!(z[1], 0.0);
/// ```
pub struct ClosureMcp<F, J> {
    lower: Vec<f64>,
    upper: Vec<f64>,
    function: F,
    jacobian: J,
}

impl<F, J> ClosureMcp<F, J>
where
    F: FnMut(&[f64], &mut [f64]),
    J: FnMut(&[f64], &mut DenseJacobian),
{
    /// An MCP with the given bounds; fails if the bounds do not describe a non-empty box.
    pub fn new(
        lower: Vec<f64>,
        upper: Vec<f64>,
        function: F,
        jacobian: J,
    ) -> Result<Self, ProblemError> {
        validate_bounds(&lower, &upper)?;
        Ok(Self {
            lower,
            upper,
            function,
            jacobian,
        })
    }

    /// A nonlinear complementarity problem: `0 ≤ z ⊥ F(z) ≥ 0`.
    pub fn ncp(n: usize, function: F, jacobian: J) -> Self {
        Self {
            lower: vec![0.0; n],
            upper: vec![f64::INFINITY; n],
            function,
            jacobian,
        }
    }

    /// A square nonlinear system `F(z) = 0` (all bounds infinite).
    pub fn equations(n: usize, function: F, jacobian: J) -> Self {
        Self {
            lower: vec![f64::NEG_INFINITY; n],
            upper: vec![f64::INFINITY; n],
            function,
            jacobian,
        }
    }
}

impl<F, J> McpProblem for ClosureMcp<F, J>
where
    F: FnMut(&[f64], &mut [f64]),
    J: FnMut(&[f64], &mut DenseJacobian),
{
    fn dim(&self) -> usize {
        self.lower.len()
    }
    fn lower_bounds(&self) -> &[f64] {
        &self.lower
    }
    fn upper_bounds(&self) -> &[f64] {
        &self.upper
    }
    fn function(&mut self, z: &[f64], f: &mut [f64]) {
        (self.function)(z, f)
    }
    fn jacobian(&mut self, z: &[f64], jac: &mut DenseJacobian) {
        (self.jacobian)(z, jac)
    }
}

/// A linear MCP `F(z) = M z + q` with bounds; an LCP when `l = 0`, `u = ∞`.
#[derive(Debug, Clone)]
pub struct LinearMcp {
    /// The matrix `M`.
    pub m: DMatrix<f64>,
    /// The vector `q`.
    pub q: Vec<f64>,
    /// Lower bounds.
    pub lower: Vec<f64>,
    /// Upper bounds.
    pub upper: Vec<f64>,
}

impl LinearMcp {
    /// The LCP `0 ≤ z ⊥ M z + q ≥ 0`.
    pub fn lcp(m: DMatrix<f64>, q: Vec<f64>) -> Self {
        let n = q.len();
        Self {
            m,
            q,
            lower: vec![0.0; n],
            upper: vec![f64::INFINITY; n],
        }
    }
}

impl McpProblem for LinearMcp {
    fn dim(&self) -> usize {
        self.q.len()
    }
    fn lower_bounds(&self) -> &[f64] {
        &self.lower
    }
    fn upper_bounds(&self) -> &[f64] {
        &self.upper
    }
    fn function(&mut self, z: &[f64], f: &mut [f64]) {
        let n = self.q.len();
        f.copy_from_slice(&self.q);
        for j in 0..n {
            let zj = z[j];
            let col = self.m.column(j);
            for i in 0..n {
                f[i] += col[i] * zj;
            }
        }
    }
    fn jacobian(&mut self, _z: &[f64], jac: &mut DenseJacobian) {
        jac.copy_from(&self.m);
    }
}

/// The natural residual `‖z − mid(l, u, z − F(z))‖∞`, zero exactly at solutions.
pub fn natural_residual(z: &[f64], f: &[f64], lower: &[f64], upper: &[f64]) -> f64 {
    let mut r = 0.0f64;
    for i in 0..z.len() {
        let p = (z[i] - f[i]).max(lower[i]).min(upper[i]);
        let d = (z[i] - p).abs();
        if d.is_nan() {
            return f64::NAN;
        }
        r = r.max(d);
    }
    r
}

/// Central finite-difference Jacobian, for tests of analytic Jacobians only (never used by the
/// solvers). Step `h` per variable is `eps · max(1, |z_j|)`.
pub fn finite_difference_jacobian<P: McpProblem + ?Sized>(
    problem: &mut P,
    z: &[f64],
    eps: f64,
) -> DMatrix<f64> {
    let n = problem.dim();
    let mut jac = DMatrix::zeros(n, n);
    let mut zp = z.to_vec();
    let mut fp = vec![0.0; n];
    let mut fm = vec![0.0; n];
    for j in 0..n {
        let h = eps * z[j].abs().max(1.0);
        zp[j] = z[j] + h;
        problem.function(&zp, &mut fp);
        zp[j] = z[j] - h;
        problem.function(&zp, &mut fm);
        zp[j] = z[j];
        for i in 0..n {
            jac[(i, j)] = (fp[i] - fm[i]) / (2.0 * h);
        }
    }
    jac
}

/// Largest entrywise discrepancy between the analytic Jacobian and central differences, relative
/// to `max(1, |J_ij|)`. Tests assert this is small.
pub fn jacobian_check<P: McpProblem + ?Sized>(problem: &mut P, z: &[f64], eps: f64) -> f64 {
    let n = problem.dim();
    let mut jac = DMatrix::zeros(n, n);
    problem.jacobian(z, &mut jac);
    let fd = finite_difference_jacobian(problem, z, eps);
    let mut worst = 0.0f64;
    for i in 0..n {
        for j in 0..n {
            let e = (jac[(i, j)] - fd[(i, j)]).abs() / jac[(i, j)].abs().max(1.0);
            worst = worst.max(e);
        }
    }
    worst
}
