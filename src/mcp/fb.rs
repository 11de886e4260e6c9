//! Semismooth Newton on the Fischer–Burmeister reformulation of the MCP.
//!
//! With the Fischer–Burmeister function (Fischer 1992)
//!
//! ```text
//! φ(a, b) = a + b − √(a² + b²),      φ(a, b) = 0  ⇔  a ≥ 0, b ≥ 0, a·b = 0,
//! ```
//!
//! the MCP is the square nonsmooth system `Φ(z) = 0` with, per component (Billups 1995),
//!
//! ```text
//! l_i, u_i finite:   Φ_i = φ(z_i − l_i, −φ(u_i − z_i, −F_i))
//! only l_i finite:   Φ_i = φ(z_i − l_i, F_i)
//! only u_i finite:   Φ_i = −φ(u_i − z_i, −F_i)
//! both infinite:     Φ_i = F_i
//! ```
//!
//! (Check of the nested case: at `z_i = l_i < u_i` the inner `ψ = −φ(u_i − l_i, −F_i)` has the
//! sign of `F_i`, so `Φ_i = φ(0, ψ) = 0 ⇔ F_i ≥ 0`; for `l_i < z_i < u_i`, `Φ_i = 0 ⇔ ψ = 0 ⇔
//! F_i = 0`; at `z_i = u_i`, `ψ = −φ(0, −F_i) = 0 ⇔ F_i ≤ 0`.) Every `Φ_i` is nondecreasing in
//! `z_i` and in `F_i`.
//!
//! `Φ` is semismooth; an element of its generalized Jacobian is `H = D_a + D_b J` with diagonal
//! `D_a, D_b` from the chain rule through the nested `φ`, where `∂φ/∂a = 1 − a/r`,
//! `∂φ/∂b = 1 − b/r`, `r = √(a² + b²)`, and at the kink `a = b = 0` the element
//! `(1 − 1/√2, 1 − 1/√2)` (direction `(1, 1)/√2`, De Luca, Facchinei & Kanzow 1996).
//!
//! The method minimises the merit function `Ψ = ½‖Φ‖²` (continuously differentiable,
//! `∇Ψ = Hᵀ Φ`): the Newton direction `H d = −Φ` is used when it is a descent direction with
//! `∇Ψ·d ≤ −ρ‖d‖^p`, otherwise the steepest-descent direction `d = −∇Ψ`, followed by an Armijo
//! backtracking line search (De Luca, Facchinei & Kanzow 1996; Munson, Facchinei, Ferris,
//! Fischer & Kanzow 2001).
//!
//! References: A. Fischer, "A special Newton-type optimization method", Optimization 24 (1992);
//! S. C. Billups, "Algorithms for complementarity problems and generalized equations", PhD
//! thesis, University of Wisconsin–Madison (1995); T. De Luca, F. Facchinei & C. Kanzow, "A
//! semismooth equation approach to the solution of nonlinear complementarity problems", Math.
//! Programming 75 (1996).

use super::{
    FbSettings, McpProblem, SolveReport, SolverKind, Status, check_input, natural_residual, project,
};
use nalgebra::DMatrix;
use std::time::Instant;

/// `1 − 1/√2`: both partial derivatives of `φ` at the kink, direction `(1, 1)/√2`.
const KINK_DERIVATIVE: f64 = 1.0 - std::f64::consts::FRAC_1_SQRT_2;

/// `φ(a, b)` and its partial derivatives `(∂φ/∂a, ∂φ/∂b)`, cancellation- and overflow-safe.
#[inline]
fn phi(a: f64, b: f64) -> (f64, f64, f64) {
    let r = a.hypot(b);
    if r == 0.0 {
        return (0.0, KINK_DERIVATIVE, KINK_DERIVATIVE);
    }
    let s = a + b;
    // For a + b > 0, a + b − r = 2ab / (a + b + r) avoids cancellation.
    let value = if s > 0.0 {
        2.0 * (a / (s + r)) * b
    } else {
        s - r
    };
    (value, 1.0 - a / r, 1.0 - b / r)
}

/// One component of the reformulation: `(Φ_i, D_a,i, D_b,i)` with `∂Φ_i = D_a,i e_i + D_b,i ∇F_i`.
#[inline]
fn component(z: f64, f: f64, l: f64, u: f64) -> (f64, f64, f64) {
    match (l.is_finite(), u.is_finite()) {
        (true, true) => {
            // ψ = −φ(u − z, −F): dψ = φ_a(u − z, −F) dz + φ_b(u − z, −F) dF.
            let (p, pa, pb) = phi(u - z, -f);
            let psi = -p;
            let (v, qa, qb) = phi(z - l, psi);
            (v, qa + qb * pa, qb * pb)
        }
        (true, false) => phi(z - l, f),
        (false, true) => {
            let (p, pa, pb) = phi(u - z, -f);
            (-p, pa, pb)
        }
        (false, false) => (f, 0.0, 1.0),
    }
}

/// Writes `Φ(z)` (given `F(z)`) into `phi` and returns `Ψ = ½‖Φ‖²`.
pub(crate) fn fb_residual(
    z: &[f64],
    f: &[f64],
    lower: &[f64],
    upper: &[f64],
    phi: &mut [f64],
) -> f64 {
    let mut psi = 0.0;
    for i in 0..z.len() {
        let (v, _, _) = component(z[i], f[i], lower[i], upper[i]);
        phi[i] = v;
        psi += v * v;
    }
    0.5 * psi
}

/// Writes `Φ(z)` into `phi`, turns `jac` from `J(z)` into `H = D_a + D_b J` in place, returns `Ψ`.
pub(crate) fn fb_system(
    z: &[f64],
    f: &[f64],
    lower: &[f64],
    upper: &[f64],
    phi: &mut [f64],
    jac: &mut DMatrix<f64>,
) -> f64 {
    let n = z.len();
    let mut psi = 0.0;
    for i in 0..n {
        let (v, da, db) = component(z[i], f[i], lower[i], upper[i]);
        phi[i] = v;
        psi += v * v;
        let mut row = jac.row_mut(i);
        row *= db;
        row[i] += da;
    }
    0.5 * psi
}

/// True if every entry is finite.
fn all_finite(v: &[f64]) -> bool {
    v.iter().all(|x| x.is_finite())
}

/// In-place LU with partial pivoting of the column-major `n × n` matrix `a`; `false` if a pivot
/// is below `n·ε·max|a|` (numerically singular) or the matrix is not finite.
#[allow(clippy::needless_range_loop)]
fn lu_factor(a: &mut [f64], n: usize, perm: &mut [usize]) -> bool {
    let scale = a.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    if !(scale > 0.0 && scale.is_finite()) {
        return false;
    }
    let tiny = scale * f64::EPSILON * n as f64;
    for k in 0..n {
        let mut p = k;
        let mut pmax = a[k + k * n].abs();
        for i in k + 1..n {
            let v = a[i + k * n].abs();
            if v > pmax {
                p = i;
                pmax = v;
            }
        }
        if pmax <= tiny {
            return false;
        }
        perm[k] = p;
        if p != k {
            for j in 0..n {
                a.swap(k + j * n, p + j * n);
            }
        }
        let inv = 1.0 / a[k + k * n];
        for i in k + 1..n {
            a[i + k * n] *= inv;
        }
        for j in k + 1..n {
            let akj = a[k + j * n];
            if akj != 0.0 {
                let (left, right) = a.split_at_mut(j * n);
                let lcol = &left[k * n..k * n + n];
                let col = &mut right[..n];
                for i in k + 1..n {
                    col[i] -= lcol[i] * akj;
                }
            }
        }
    }
    true
}

/// Solves `A x = b` in place with the factors of [`lu_factor`].
#[allow(clippy::needless_range_loop)]
fn lu_solve(a: &[f64], n: usize, perm: &[usize], b: &mut [f64]) {
    for k in 0..n {
        b.swap(k, perm[k]);
    }
    for j in 0..n {
        let bj = b[j];
        if bj != 0.0 {
            for i in j + 1..n {
                b[i] -= a[i + j * n] * bj;
            }
        }
    }
    for j in (0..n).rev() {
        b[j] /= a[j + j * n];
        let bj = b[j];
        if bj != 0.0 {
            for i in 0..j {
                b[i] -= a[i + j * n] * bj;
            }
        }
    }
}

/// Semismooth Newton method on the Fischer–Burmeister reformulation of the MCP.
///
/// Holds its workspaces: repeated solves of problems of the same size allocate nothing.
#[derive(Debug, Default, Clone)]
pub struct FbNewtonSolver {
    f: Vec<f64>,
    phi: Vec<f64>,
    grad: Vec<f64>,
    dir: Vec<f64>,
    z_trial: Vec<f64>,
    f_trial: Vec<f64>,
    phi_trial: Vec<f64>,
    perm: Vec<usize>,
    jac: DMatrix<f64>,
    lu: DMatrix<f64>,
    /// When set, the solve stops with [`Status::TimeLimit`] once this instant has passed.
    pub(crate) deadline: Option<std::time::Instant>,
}

/// Outcome of one Armijo line search.
enum LineSearch {
    /// Sufficient decrease; the merit value at the accepted point.
    Accepted(f64),
    /// Step below `min_step` without sufficient decrease.
    Failed,
    /// `F` was not finite at a trial point.
    NonFinite,
}

impl FbNewtonSolver {
    fn resize(&mut self, n: usize) {
        for v in [
            &mut self.f,
            &mut self.phi,
            &mut self.grad,
            &mut self.dir,
            &mut self.z_trial,
            &mut self.f_trial,
            &mut self.phi_trial,
        ] {
            v.resize(n, 0.0);
        }
        self.perm.resize(n, 0);
        if self.jac.shape() != (n, n) {
            self.jac = DMatrix::zeros(n, n);
        }
        if self.lu.shape() != (n, n) {
            self.lu = DMatrix::zeros(n, n);
        }
    }

    /// Solves `problem` from `z` to natural residual `tolerance`.
    ///
    /// On return `z` holds the last accepted iterate (if it lies outside the box, its projection
    /// replaces it when that does not increase the natural residual) and the report's `residual`
    /// is the natural residual there. A non-finite `F` or `J` ends the solve with
    /// [`Status::NonFiniteFunction`], leaving `z` at the last iterate where `F` was finite.
    pub fn solve<P: McpProblem + ?Sized>(
        &mut self,
        problem: &mut P,
        z: &mut [f64],
        tolerance: f64,
        settings: &FbSettings,
    ) -> SolveReport {
        let start = Instant::now();
        let mut report = SolveReport::new(SolverKind::FischerBurmeister);
        if let Some(status) = check_input(problem, z) {
            report.status = status;
            report.wall_time = start.elapsed();
            return report;
        }
        let n = problem.dim();
        self.resize(n);

        problem.function(z, &mut self.f);
        report.function_evaluations += 1;
        if !all_finite(&self.f) {
            report.status = Status::NonFiniteFunction;
            report.wall_time = start.elapsed();
            return report;
        }
        let mut psi = fb_residual(
            z,
            &self.f,
            problem.lower_bounds(),
            problem.upper_bounds(),
            &mut self.phi,
        );
        let mut residual =
            natural_residual(z, &self.f, problem.lower_bounds(), problem.upper_bounds());

        let status = loop {
            if residual <= tolerance {
                break Status::Converged;
            }
            if report.major_iterations >= settings.iteration_limit {
                break Status::IterationLimit;
            }
            if self
                .deadline
                .is_some_and(|d| std::time::Instant::now() >= d)
            {
                break Status::TimeLimit;
            }

            // H = D_a + D_b J and ∇Ψ = Hᵀ Φ.
            problem.jacobian(z, &mut self.jac);
            report.jacobian_evaluations += 1;
            if !all_finite(self.jac.as_slice()) {
                break Status::NonFiniteFunction;
            }
            fb_system(
                z,
                &self.f,
                problem.lower_bounds(),
                problem.upper_bounds(),
                &mut self.phi,
                &mut self.jac,
            );
            for (j, g) in self.grad.iter_mut().enumerate() {
                *g = dot(&self.jac.as_slice()[j * n..(j + 1) * n], &self.phi);
            }

            // Newton direction H d = −Φ, accepted if it is a sufficient descent direction.
            self.lu.copy_from(&self.jac);
            let mut newton = lu_factor(self.lu.as_mut_slice(), n, &mut self.perm);
            if newton {
                for (d, p) in self.dir.iter_mut().zip(&self.phi) {
                    *d = -p;
                }
                lu_solve(self.lu.as_slice(), n, &self.perm, &mut self.dir);
                let slope = dot(&self.grad, &self.dir);
                let norm = dot(&self.dir, &self.dir).sqrt();
                newton = slope.is_finite()
                    && norm.is_finite()
                    && slope <= -settings.descent_rho * norm.powf(settings.descent_power);
            }

            let mut outcome = LineSearch::Failed;
            if newton {
                outcome = self.line_search(problem, z, psi, settings, &mut report);
            }
            if matches!(outcome, LineSearch::Failed) {
                // Steepest descent on Ψ (also the retry when the Newton search fails).
                if dot(&self.grad, &self.grad) == 0.0 {
                    break Status::Stalled;
                }
                for (d, g) in self.dir.iter_mut().zip(&self.grad) {
                    *d = -g;
                }
                outcome = self.line_search(problem, z, psi, settings, &mut report);
            }
            match outcome {
                LineSearch::Accepted(trial) => psi = trial,
                LineSearch::Failed => break Status::Stalled,
                LineSearch::NonFinite => break Status::NonFiniteFunction,
            }
            report.major_iterations += 1;
            z.copy_from_slice(&self.z_trial);
            std::mem::swap(&mut self.f, &mut self.f_trial);
            std::mem::swap(&mut self.phi, &mut self.phi_trial);
            residual = natural_residual(z, &self.f, problem.lower_bounds(), problem.upper_bounds());
        };

        // FB iterates need not be feasible; project when that does not worsen the residual.
        let (l, u) = (problem.lower_bounds(), problem.upper_bounds());
        if z.iter()
            .zip(l.iter().zip(u))
            .any(|(x, (a, b))| x < a || x > b)
        {
            self.z_trial.copy_from_slice(z);
            project(&mut self.z_trial, l, u);
            problem.function(&self.z_trial, &mut self.f_trial);
            report.function_evaluations += 1;
            if all_finite(&self.f_trial) {
                let projected = natural_residual(
                    &self.z_trial,
                    &self.f_trial,
                    problem.lower_bounds(),
                    problem.upper_bounds(),
                );
                if projected <= residual {
                    z.copy_from_slice(&self.z_trial);
                    residual = projected;
                }
            }
        }

        report.status =
            if status == Status::Converged && (residual > tolerance || residual.is_nan()) {
                Status::Stalled
            } else {
                status
            };
        report.residual = residual;
        report.wall_time = start.elapsed();
        report
    }

    /// Armijo backtracking along `self.dir` from `z`: on success `z_trial`, `f_trial`,
    /// `phi_trial` hold the accepted point.
    fn line_search<P: McpProblem + ?Sized>(
        &mut self,
        problem: &mut P,
        z: &[f64],
        psi: f64,
        settings: &FbSettings,
        report: &mut SolveReport,
    ) -> LineSearch {
        let slope = dot(&self.grad, &self.dir);
        let mut alpha = 1.0;
        while alpha >= settings.min_step {
            for ((t, x), d) in self.z_trial.iter_mut().zip(z).zip(&self.dir) {
                *t = x + alpha * d;
            }
            problem.function(&self.z_trial, &mut self.f_trial);
            report.function_evaluations += 1;
            if !all_finite(&self.f_trial) {
                return LineSearch::NonFinite;
            }
            let trial = fb_residual(
                &self.z_trial,
                &self.f_trial,
                problem.lower_bounds(),
                problem.upper_bounds(),
                &mut self.phi_trial,
            );
            if trial <= psi + settings.armijo * alpha * slope {
                return LineSearch::Accepted(trial);
            }
            alpha *= settings.backtrack;
        }
        LineSearch::Failed
    }
}

/// Dot product of two slices.
fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::test_problems::Josephy;
    use crate::mcp::test_support::standard_cases;
    use crate::mcp::{ClosureMcp, DenseJacobian};

    const INF: f64 = f64::INFINITY;

    /// Small deterministic pseudo-random numbers in `[0, 1)` (xorshift).
    fn rng(state: &mut u64) -> f64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        (*state >> 11) as f64 / (1u64 << 53) as f64
    }

    #[test]
    fn phi_cases() {
        // Zero exactly on the complementarity set, nonzero off it; stable for tiny b.
        assert_eq!(phi(0.0, 3.0).0, 0.0);
        assert_eq!(phi(2.0, 0.0).0, 0.0);
        assert!(phi(1.0, 1.0).0 > 0.0);
        assert!(phi(-1.0, 2.0).0 < 0.0);
        assert!((phi(1.0, 1e-20).0 - 1e-20).abs() < 1e-35);
        assert!(phi(1e300, 1e300).0.is_finite());
        // Component signs: lower-bound, upper-bound and free cases.
        assert_eq!(component(0.0, 2.0, 0.0, 1.0).0, 0.0); // at l with F ≥ 0
        assert_eq!(component(1.0, -2.0, 0.0, 1.0).0, 0.0); // at u with F ≤ 0
        assert!(component(0.0, -2.0, 0.0, 1.0).0 < 0.0); // at l with F < 0
        assert!(component(1.0, 2.0, 0.0, 1.0).0 > 0.0); // at u with F > 0
        assert_eq!(component(1.0, -2.0, -INF, 1.0).0, 0.0);
        assert_eq!(component(0.0, 2.0, 0.0, INF).0, 0.0);
        assert_eq!(component(0.3, 2.0, -INF, INF).0, 2.0);
    }

    /// `H` against central differences of `Φ` at random points away from the kinks, one
    /// variable of each bound type (lower, upper, both, none).
    #[test]
    fn h_matches_finite_differences() {
        let lower = vec![0.0, -INF, -1.0, -INF];
        let upper = vec![INF, 2.0, 1.5, INF];
        let mut problem = ClosureMcp::new(
            lower.clone(),
            upper.clone(),
            |z: &[f64], f: &mut [f64]| {
                f[0] = z[0] * z[1] + z[2] - 0.3;
                f[1] = z[1] * z[1] - z[3] + 0.2 * z[0];
                f[2] = z[2].sin() + z[0] * z[3] - 0.1;
                f[3] = z[3] * z[3] * z[3] + z[1] - z[2];
            },
            |z: &[f64], j: &mut DenseJacobian| {
                j.fill(0.0);
                j[(0, 0)] = z[1];
                j[(0, 1)] = z[0];
                j[(0, 2)] = 1.0;
                j[(1, 0)] = 0.2;
                j[(1, 1)] = 2.0 * z[1];
                j[(1, 3)] = -1.0;
                j[(2, 0)] = z[3];
                j[(2, 2)] = z[2].cos();
                j[(2, 3)] = z[0];
                j[(3, 1)] = 1.0;
                j[(3, 2)] = -1.0;
                j[(3, 3)] = 3.0 * z[3] * z[3];
            },
        )
        .unwrap();
        let n = 4;
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let eval_phi = |p: &mut dyn McpProblem, z: &[f64]| {
            let mut f = vec![0.0; n];
            let mut v = vec![0.0; n];
            p.function(z, &mut f);
            fb_residual(z, &f, &lower, &upper, &mut v);
            v
        };
        for _ in 0..50 {
            let z: Vec<f64> = (0..n).map(|_| 4.0 * rng(&mut state) - 2.0).collect();
            let mut f = vec![0.0; n];
            problem.function(&z, &mut f);
            let mut h = DMatrix::zeros(n, n);
            problem.jacobian(&z, &mut h);
            let mut v = vec![0.0; n];
            fb_system(&z, &f, &lower, &upper, &mut v, &mut h);
            // Central differences have O(h²) truncation and O(ε/h) rounding error: with
            // h = 1e-6 both are ≲ 1e-9 unless a kink lies within h, hence the 1e-6 bound (the
            // random points are at distance ≫ 1e-6 from the kinks with overwhelming odds).
            let step = 1e-6;
            for j in 0..n {
                let mut zp = z.clone();
                zp[j] += step;
                let vp = eval_phi(&mut problem, &zp);
                zp[j] = z[j] - step;
                let vm = eval_phi(&mut problem, &zp);
                for i in 0..n {
                    let fd = (vp[i] - vm[i]) / (2.0 * step);
                    assert!(
                        (fd - h[(i, j)]).abs() <= 1e-6 * h[(i, j)].abs().max(1.0),
                        "H[{i},{j}] = {} vs finite difference {fd} at z = {z:?}",
                        h[(i, j)]
                    );
                }
            }
        }
    }

    /// FB Newton converges quadratically where H is nonsingular, so the crate's default
    /// tolerance 1e-10 is reachable on every shared case.
    const TOL: f64 = 1e-10;

    #[test]
    fn solves_the_shared_cases() {
        let mut solver = FbNewtonSolver::default();
        standard_cases(|p, z| solver.solve(p, z, TOL, &FbSettings::default()), TOL);
    }

    #[test]
    fn workspaces_are_reused() {
        let mut solver = FbNewtonSolver::default();
        let mut p = Josephy::new();
        let mut z = vec![0.0; 4];
        solver.solve(&mut p, &mut z, TOL, &FbSettings::default());
        let (jac, f) = (solver.jac.as_ptr(), solver.f.capacity());
        let mut z = vec![1.0; 4];
        let r = solver.solve(&mut p, &mut z, TOL, &FbSettings::default());
        assert!(r.converged());
        assert_eq!(jac, solver.jac.as_ptr());
        assert_eq!(f, solver.f.capacity());
    }
}
