//! Lemke's method for linear complementarity problems and linear MCPs.
//!
//! For the LCP `0 ≤ z ⊥ w = M z + q ≥ 0` this is the textbook method (Lemke 1965; Cottle, Pang &
//! Stone, *The Linear Complementarity Problem*, sec. 4.4): an artificial variable `s` with
//! covering vector `d` (default `e`), the almost-complementary path from
//! `z = 0, s = max_i(−q_i / d_i)` down to `s = 0`, and lexicographic resolution of degenerate
//! ties (sec. 4.9). It ends either at a solution or on a secondary ray; for copositive-plus `M`
//! (P-matrices, positive semidefinite matrices) a ray proves that no solution exists.
//!
//! Linear MCPs with general bounds (free variables, finite upper bounds) use the same engine from
//! a starting point where every bounded variable sits at a bound with a strictly positive (or
//! negative, at an upper bound) `w`, free variables are basic, and the covering vector is chosen
//! so that this point lies on the path at `s = 1`.
//!
//! The pivoting engine is shared with the path search ([`super::PathSolver`]).

use super::pivot::{Affine, MatRef, Outcome, Pivoter, Start, TraceLimits};
use super::{LinearMcp, SolveReport, SolverKind, Status, natural_residual, validate_bounds};
use nalgebra::DMatrix;
use std::time::Instant;

/// Settings of Lemke's method.
#[derive(Debug, Clone, PartialEq)]
pub struct LemkeSettings {
    /// Pivots allowed (Murty's example needs `2ⁿ`).
    pub pivot_limit: usize,
    /// Natural residual a solution must reach to be reported converged.
    pub tolerance: f64,
}

impl Default for LemkeSettings {
    fn default() -> Self {
        Self {
            pivot_limit: 100_000,
            tolerance: 1e-10,
        }
    }
}

/// A reusable Lemke solver (keeps its workspace between solves).
#[derive(Debug, Default)]
pub struct Lemke {
    /// Settings.
    pub settings: LemkeSettings,
    pivoter: Pivoter,
    d: Vec<f64>,
    z0: Vec<f64>,
    w0: Vec<f64>,
    start: Vec<Start>,
    f: Vec<f64>,
    q: Vec<f64>,
}

fn finish(report: &mut SolveReport, t0: Instant) -> SolveReport {
    report.wall_time = t0.elapsed();
    report.clone()
}

impl Lemke {
    /// A solver with the given settings.
    pub fn new(settings: LemkeSettings) -> Self {
        Self {
            settings,
            ..Self::default()
        }
    }

    /// Solves the LCP `0 ≤ z ⊥ M z + q ≥ 0` with covering vector `e`; `z` receives the answer.
    pub fn solve_lcp(&mut self, m: &DMatrix<f64>, q: &[f64], z: &mut [f64]) -> SolveReport {
        let n = q.len();
        let lower = vec![0.0; n];
        let upper = vec![f64::INFINITY; n];
        self.solve_box(m, q, &lower, &upper, z)
    }

    /// Solves a linear MCP (bounds as in the problem); `z` receives the answer.
    pub fn solve(&mut self, problem: &LinearMcp, z: &mut [f64]) -> SolveReport {
        self.solve_box(&problem.m, &problem.q, &problem.lower, &problem.upper, z)
    }

    fn solve_box(
        &mut self,
        m: &DMatrix<f64>,
        q: &[f64],
        lower: &[f64],
        upper: &[f64],
        z: &mut [f64],
    ) -> SolveReport {
        let t0 = Instant::now();
        let mut report = SolveReport::new(SolverKind::Lemke);
        let n = q.len();
        if m.nrows() != n
            || m.ncols() != n
            || z.len() != n
            || validate_bounds(lower, upper).is_err()
            || lower.len() != n
        {
            report.status = Status::NonFiniteInput;
            return finish(&mut report, t0);
        }
        if m.iter().chain(q.iter()).any(|v| !v.is_finite()) {
            report.status = Status::NonFiniteInput;
            return finish(&mut report, t0);
        }
        self.d.resize(n, 0.0);
        self.z0.resize(n, 0.0);
        self.w0.resize(n, 0.0);
        self.start.resize(n, Start::Basic);
        self.f.resize(n, 0.0);
        self.q.clear();
        self.q.extend_from_slice(q);

        let is_lcp = lower.iter().all(|&l| l == 0.0) && upper.iter().all(|&u| u == f64::INFINITY);
        let s0;
        if is_lcp {
            // Textbook start: z = 0, all w basic, s = max(−q_i / d_i) with d = e.
            self.d.fill(1.0);
            s0 = q.iter().fold(0.0f64, |acc, &qi| acc.max(-qi));
            if s0 == 0.0 {
                z.fill(0.0);
                report.status = Status::Converged;
                report.residual = 0.0;
                return finish(&mut report, t0);
            }
            self.z0.fill(0.0);
            for i in 0..n {
                self.start[i] = Start::AtLower;
                self.w0[i] = q[i] + s0;
            }
        } else {
            // General bounds: bounded variables start at a bound with |w| ≥ 1, free variables
            // are basic at 0, and d makes this the solution at s = 1.
            s0 = 1.0;
            for i in 0..n {
                if lower[i] > f64::NEG_INFINITY {
                    self.start[i] = Start::AtLower;
                    self.z0[i] = lower[i];
                } else if upper[i] < f64::INFINITY {
                    self.start[i] = Start::AtUpper;
                    self.z0[i] = upper[i];
                } else {
                    self.start[i] = Start::Basic;
                    self.z0[i] = 0.0;
                }
            }
            for i in 0..n {
                let mut fi = q[i];
                for j in 0..n {
                    fi += m[(i, j)] * self.z0[j];
                }
                self.w0[i] = match self.start[i] {
                    Start::AtLower => 1.0 + fi.abs(),
                    Start::AtUpper => -(1.0 + fi.abs()),
                    Start::Basic => 0.0,
                };
                self.d[i] = self.w0[i] - fi;
            }
        }
        let affine = Affine {
            m: MatRef::Dense(m),
            q: &self.q,
            lower,
            upper,
            d: &self.d,
        };
        let outcome = self.pivoter.trace(
            &affine,
            s0,
            &self.z0,
            &self.w0,
            &self.start,
            false,
            TraceLimits {
                pivots: self.settings.pivot_limit,
                // Lemke's covering variable may rise and fall on its way to zero.
                behind_start: usize::MAX,
            },
        );
        report.pivots = self.pivoter.pivots;
        report.major_iterations = 1;
        z.copy_from_slice(&self.pivoter.z);
        for i in 0..n {
            let mut fi = q[i];
            for j in 0..n {
                fi += m[(i, j)] * z[j];
            }
            self.f[i] = fi;
        }
        report.residual = natural_residual(z, &self.f, lower, upper);
        report.status = match outcome {
            Outcome::Solved if report.residual <= self.settings.tolerance => Status::Converged,
            Outcome::Solved | Outcome::Singular => Status::Singular,
            Outcome::Ray => Status::RayTermination,
            Outcome::PivotLimit | Outcome::BehindStart => Status::IterationLimit,
        };
        finish(&mut report, t0)
    }
}

/// Solves the LCP `0 ≤ z ⊥ M z + q ≥ 0` with default settings; `z` receives the answer.
pub fn solve_lcp(m: &DMatrix<f64>, q: &[f64], z: &mut [f64]) -> SolveReport {
    Lemke::default().solve_lcp(m, q, z)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn residual_of(m: &DMatrix<f64>, q: &[f64], z: &[f64]) -> f64 {
        let n = q.len();
        let f: Vec<f64> = (0..n)
            .map(|i| q[i] + (0..n).map(|j| m[(i, j)] * z[j]).sum::<f64>())
            .collect();
        natural_residual(z, &f, &vec![0.0; n], &vec![f64::INFINITY; n])
    }

    #[test]
    fn solves_a_small_lcp() {
        let m = DMatrix::from_row_slice(2, 2, &[2.0, 1.0, 1.0, 2.0]);
        let q = [-5.0, -6.0];
        let mut z = [0.0; 2];
        let r = solve_lcp(&m, &q, &mut z);
        assert!(r.converged(), "{r}");
        // Exact solution (4/3, 7/3): both w = 0; rounding of a 2×2 solve is ~1e-15.
        assert!((z[0] - 4.0 / 3.0).abs() < 1e-12 && (z[1] - 7.0 / 3.0).abs() < 1e-12);
        assert!(residual_of(&m, &q, &z) < 1e-12);
    }

    #[test]
    fn trivial_lcp_needs_no_pivot() {
        let m = DMatrix::identity(3, 3);
        let mut z = [1.0; 3];
        let r = solve_lcp(&m, &[1.0, 0.0, 2.0], &mut z);
        assert!(r.converged());
        assert_eq!(r.pivots, 0);
        assert_eq!(z, [0.0; 3]);
    }

    #[test]
    fn infeasible_lcp_ends_on_a_ray() {
        // w = -z - 1 ≥ 0 has no solution with z ≥ 0; M = -1 is copositive-plus? No, but Lemke
        // must still not claim a solution.
        let m = DMatrix::from_row_slice(1, 1, &[-1.0]);
        let mut z = [0.0];
        let r = solve_lcp(&m, &[-1.0], &mut z);
        assert_eq!(r.status, Status::RayTermination, "{r}");

        // Copositive-plus (PSD) M with infeasible q: z1 − z2 = ... ; M = [[0,1],[-1,0]] skew.
        let m = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, -1.0, 0.0]);
        let mut z = [0.0; 2];
        let r = solve_lcp(&m, &[-1.0, -1.0], &mut z);
        // w1 = z2 − 1 ≥ 0, w2 = −z1 − 1 ≥ 0 is infeasible.
        assert_eq!(r.status, Status::RayTermination, "{r}");
    }

    #[test]
    fn box_mcp_with_free_and_upper_bounded_variables() {
        // F = M z + q with z0 free, z1 ∈ [0, 1], z2 ∈ [-1, 2].
        let m = DMatrix::from_row_slice(3, 3, &[4.0, 1.0, 0.0, 1.0, 3.0, 1.0, 0.0, 1.0, 2.0]);
        let problem = LinearMcp {
            m: m.clone(),
            q: vec![-1.0, -10.0, 8.0],
            lower: vec![f64::NEG_INFINITY, 0.0, -1.0],
            upper: vec![f64::INFINITY, 1.0, 2.0],
        };
        let mut z = [0.0; 3];
        let r = Lemke::default().solve(&problem, &mut z);
        assert!(r.converged(), "{r}");
        // z1 at its upper bound (F1 < 0), z2 at its lower bound (F2 > 0), z0 solves its row.
        assert!(
            (z[1] - 1.0).abs() < 1e-12 && (z[2] + 1.0).abs() < 1e-12,
            "{z:?}"
        );
        assert!((4.0 * z[0] + 1.0 - 1.0).abs() < 1e-12);
    }
}
