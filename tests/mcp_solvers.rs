//! The MCP solvers on the reference suite and on random P-matrix LCPs: every case solved to the
//! default tolerance, non-finite input reported, problems without solution never "converged".

#![allow(clippy::needless_range_loop)] // index loops mirror w = Mz + q

use implicit_contact::mcp::lemke::{Lemke, solve_lcp};
use implicit_contact::mcp::test_problems::{random_p_lcp_with_solution, suite};
use implicit_contact::mcp::{
    ClosureMcp, FbNewtonSolver, FbSettings, LinearMcp, LmSettings, LmSolver, McpProblem, McpSolver,
    PathSettings, PathSolver, SolveReport, SolveSettings, SolverKind, Status, natural_residual,
    solve,
};
use nalgebra::DMatrix;
use proptest::prelude::*;

/// The default convergence tolerance of the crate (natural residual, ∞-norm).
const TOL: f64 = 1e-10;

fn residual_at<P: McpProblem + ?Sized>(p: &mut P, z: &[f64]) -> f64 {
    let mut f = vec![0.0; z.len()];
    p.function(z, &mut f);
    natural_residual(z, &f, p.lower_bounds(), p.upper_bounds())
}

#[test]
fn path_search_alone_solves_every_suite_case() {
    let mut solver = PathSolver::default();
    let mut failures = Vec::new();
    for mut case in suite() {
        let mut z = case.start.clone();
        let r = solver.solve(case.problem.as_mut(), &mut z, TOL, &PathSettings::default());
        // The report's residual must be the true residual at the returned point.
        let check = residual_at(case.problem.as_mut(), &z);
        if !r.converged() || r.residual > TOL || check > TOL {
            failures.push(format!(
                "{}/{}: {r} (recomputed {check:e})",
                case.name, case.start_label
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn solve_entry_point_solves_every_suite_case_with_the_path_search() {
    let mut solver = McpSolver::new(SolveSettings::default()).unwrap();
    for mut case in suite() {
        let mut z = case.start.clone();
        let r = solver.solve(case.problem.as_mut(), &mut z);
        assert!(r.converged(), "{}/{}: {r}", case.name, case.start_label);
        assert_eq!(
            r.solver,
            SolverKind::PathSearch,
            "{}/{}",
            case.name,
            case.start_label
        );
        assert!(residual_at(case.problem.as_mut(), &z) <= TOL);
    }
}

/// The Fischer–Burmeister Newton method and Levenberg–Marquardt are fallbacks: a merit-function
/// method can stop at a local minimum of `‖Φ‖²` that is not a solution (Kojima–Shindo and Josephy
/// from some MCPLIB starts), which is why the path search comes first. They must never claim a
/// residual they do not have, and must keep solving what they solve today (measured: FB 33 of
/// 36 cases, LM 26 of 36; the floors below leave room for harmless changes of path).
#[test]
fn fallback_solvers_report_truthfully_and_solve_most_cases() {
    let mut fb = FbNewtonSolver::default();
    let mut lm = LmSolver::default();
    let (mut fb_solved, mut lm_solved, mut total) = (0, 0, 0);
    for mut case in suite() {
        total += 1;
        let mut z = case.start.clone();
        let r = fb.solve(case.problem.as_mut(), &mut z, TOL, &FbSettings::default());
        let check = residual_at(case.problem.as_mut(), &z);
        assert!(
            (r.residual - check).abs() <= 1e-12 * check.max(1.0),
            "fb {}: {r}",
            case.name
        );
        if r.converged() {
            assert!(
                check <= TOL,
                "fb {}/{}: claims {r}",
                case.name,
                case.start_label
            );
            fb_solved += 1;
        }
        let mut z = case.start.clone();
        let r = lm.solve(case.problem.as_mut(), &mut z, TOL, &LmSettings::default());
        let check = residual_at(case.problem.as_mut(), &z);
        if r.converged() {
            assert!(
                check <= TOL,
                "lm {}/{}: claims {r}",
                case.name,
                case.start_label
            );
            lm_solved += 1;
        }
    }
    assert!(fb_solved >= 31, "fb solved {fb_solved} of {total}");
    assert!(lm_solved >= 24, "lm solved {lm_solved} of {total}");
}

#[test]
fn solver_order_is_respected_and_reported() {
    let mut case = suite()
        .into_iter()
        .find(|c| c.name == "nash-harker-5")
        .unwrap();
    for kind in [
        SolverKind::PathSearch,
        SolverKind::FischerBurmeister,
        SolverKind::LevenbergMarquardt,
    ] {
        let mut z = case.start.clone();
        let r = solve(
            case.problem.as_mut(),
            &mut z,
            &SolveSettings::default().only(kind),
        );
        assert!(r.converged(), "{kind}: {r}");
        assert_eq!(r.solver, kind);
        assert_eq!(r.attempts().count(), 1);
    }
}

#[test]
fn an_unsolvable_problem_tries_every_solver_and_is_never_converged() {
    // F(z) = −1 − z < 0 on z ≥ 0: no solution.
    let mut p = ClosureMcp::ncp(
        1,
        |z: &[f64], f: &mut [f64]| f[0] = -1.0 - z[0],
        |_z: &[f64], j: &mut DMatrix<f64>| j[(0, 0)] = -1.0,
    );
    let mut z = [0.3];
    let r = solve(&mut p, &mut z, &SolveSettings::default());
    assert!(!r.converged(), "{r}");
    assert_eq!(r.attempts().count(), 3, "{r:?}");
    assert!(
        r.residual >= 0.5 - 1e-12,
        "the smallest natural residual is 0.5: {r}"
    );
}

#[test]
fn non_finite_input_and_function_values_give_a_status() {
    let good = |z: &[f64], f: &mut [f64]| f[0] = z[0] - 1.0;
    let jac = |_z: &[f64], j: &mut DMatrix<f64>| j[(0, 0)] = 1.0;
    for kind in [
        SolverKind::PathSearch,
        SolverKind::FischerBurmeister,
        SolverKind::LevenbergMarquardt,
    ] {
        let settings = SolveSettings::default().only(kind);
        let mut p = ClosureMcp::ncp(1, good, jac);
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let r = solve(&mut p, &mut [bad], &settings);
            assert_eq!(r.status, Status::NonFiniteInput, "{kind} z = {bad}");
        }
        let mut nan_f = ClosureMcp::ncp(1, |_z: &[f64], f: &mut [f64]| f[0] = f64::NAN, jac);
        let r = solve(&mut nan_f, &mut [0.5], &settings);
        assert_eq!(r.status, Status::NonFiniteFunction, "{kind}: {r}");
        let mut inf_j = ClosureMcp::ncp(
            1,
            |z: &[f64], f: &mut [f64]| f[0] = z[0] + 1.0,
            |_z: &[f64], j: &mut DMatrix<f64>| j[(0, 0)] = f64::INFINITY,
        );
        let r = solve(&mut inf_j, &mut [0.5], &settings);
        assert!(
            !r.converged(),
            "{kind}: infinite Jacobian must not converge: {r}"
        );
    }
    // NaN in the bounds is refused when the problem is built.
    assert!(ClosureMcp::new(vec![f64::NAN], vec![1.0], good, jac).is_err());
    assert!(ClosureMcp::new(vec![2.0], vec![1.0], good, jac).is_err());
    // ... and by the solver when a problem type skips that check.
    let mut lin = LinearMcp {
        m: DMatrix::identity(1, 1),
        q: vec![1.0],
        lower: vec![0.0],
        upper: vec![f64::NAN],
    };
    let r = solve(&mut lin, &mut [0.0], &SolveSettings::default());
    assert_eq!(r.status, Status::NonFiniteInput);
    let r = Lemke::default().solve(&lin, &mut [0.0]);
    assert_eq!(r.status, Status::NonFiniteInput);
}

#[test]
fn infeasible_lcp_ends_on_a_ray_and_the_path_search_does_not_converge() {
    // w1 = z2 − 1 ≥ 0 and w2 = −z1 − 1 ≥ 0 cannot both hold for z ≥ 0; M is positive
    // semidefinite (skew), hence copositive-plus, so Lemke's ray proves infeasibility.
    let m = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, -1.0, 0.0]);
    let q = [-1.0, -1.0];
    let mut z = [0.0; 2];
    let r = solve_lcp(&m, &q, &mut z);
    assert_eq!(r.status, Status::RayTermination, "{r}");
    let mut p = LinearMcp::lcp(m, q.to_vec());
    let mut z = [0.0; 2];
    let r = PathSolver::default().solve(&mut p, &mut z, TOL, &PathSettings::default());
    assert!(!r.converged(), "{r}");
}

#[test]
fn murty_lcp_is_solved_by_lemke_in_exponentially_many_pivots() {
    // Murty (1978): Lemke's method with covering vector e pivots 2ⁿ times on this LCP.
    for n in [4usize, 6, 8] {
        let m = DMatrix::from_fn(n, n, |i, j| match i.cmp(&j) {
            std::cmp::Ordering::Equal => 1.0,
            std::cmp::Ordering::Greater => 2.0,
            std::cmp::Ordering::Less => 0.0,
        });
        let q = vec![-1.0; n];
        let mut z = vec![0.0; n];
        let r = solve_lcp(&m, &q, &mut z);
        assert!(r.converged(), "{r}");
        assert_eq!(r.pivots, 1 << n, "n = {n}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random P-matrix LCPs have exactly one solution: Lemke's method and the path search must
    /// both find it, with complementarity to 1e-10 (the requirement; rounding in a
    /// 30×30 solve of these well-conditioned matrices is ~1e-14).
    #[test]
    fn random_p_matrix_lcps_are_solved(n in 1usize..30, seed in any::<u64>()) {
        let (lcp, solution) = random_p_lcp_with_solution(n, seed);
        let mut z = vec![0.0; n];
        let r = Lemke::default().solve(&lcp, &mut z);
        prop_assert!(r.converged(), "lemke: {}", r);
        let mut w = lcp.q.clone();
        for j in 0..n {
            for i in 0..n {
                w[i] += lcp.m[(i, j)] * z[j];
            }
        }
        for i in 0..n {
            prop_assert!(z[i] >= 0.0 && w[i] >= -1e-10 && (z[i] * w[i]).abs() <= 1e-10);
            prop_assert!((z[i] - solution[i]).abs() <= 1e-8, "unique solution");
        }
        let mut p = lcp.clone();
        let mut z = vec![0.0; n];
        let r = PathSolver::default().solve(&mut p, &mut z, TOL, &PathSettings::default());
        prop_assert!(r.converged(), "path: {}", r);
        for i in 0..n {
            prop_assert!((z[i] - solution[i]).abs() <= 1e-8, "unique solution");
        }
    }
}

/// The sparse factorisations (threshold 0: every problem goes through them) solve every suite
/// case, and on the random P-matrix LCPs, whose solution is unique, find the same point as the
/// dense ones (to 1e-8: both solve to a natural residual of 1e-10 and the matrices are
/// conditioned below 1e2).
#[test]
fn path_search_with_sparse_factorisations_solves_every_suite_case() {
    use implicit_contact::mcp::test_problems::WithPattern;
    let sparse = PathSettings {
        sparse_threshold: 0,
        ..PathSettings::default()
    };
    let mut solver = PathSolver::default();
    let mut failures = Vec::new();
    for mut case in suite() {
        let mut z_dense = case.start.clone();
        let dense = solver.solve(
            case.problem.as_mut(),
            &mut z_dense,
            TOL,
            &PathSettings::default(),
        );
        let mut z = case.start.clone();
        let start = case.start.clone();
        let mut problem = WithPattern::sampled(case.problem.as_mut(), &start, 7);
        let r = solver.solve(&mut problem, &mut z, TOL, &sparse);
        let check = residual_at(case.problem.as_mut(), &z);
        if !r.converged() || check > TOL {
            failures.push(format!(
                "{}/{}: {r} (recomputed {check:e})",
                case.name, case.start_label
            ));
        }
        if case.name.starts_with("random-p-lcp") && dense.converged() {
            let diff = z
                .iter()
                .zip(&z_dense)
                .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
            if diff > 1e-8 {
                failures.push(format!(
                    "{}: sparse and dense differ by {diff:e}",
                    case.name
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The dense solvers' work is capped at `dense_fallback_work / n³` factorisations (for
/// Levenberg–Marquardt, whose budget the crate counts in multiples of `n + 1` evaluations, at
/// least one such multiple), so that a fallback that cannot solve a large step gives up soon and
/// after the same count on every machine.
#[test]
fn dense_solvers_stop_at_their_work_budget() {
    fn run(p: &mut dyn McpProblem, kind: SolverKind, work: Option<f64>) -> SolveReport {
        let mut settings = SolveSettings::default().only(kind);
        if let Some(w) = work {
            settings.dense_fallback_work = w;
        }
        let mut z = vec![0.3; p.dim()];
        solve(p, &mut z, &settings)
    }
    let n = 40;
    // F_i(z) = −1 − z_i + 0.1 sin(z_{i+1}) < 0 on z ≥ 0: no solution, and a coupled Jacobian.
    let mut p = ClosureMcp::ncp(
        n,
        move |z: &[f64], f: &mut [f64]| {
            for i in 0..n {
                f[i] = -1.0 - z[i] + 0.1 * z[(i + 1) % n].sin();
            }
        },
        move |z: &[f64], j: &mut DMatrix<f64>| {
            j.fill(0.0);
            for i in 0..n {
                j[(i, i)] = -1.0;
                j[(i, (i + 1) % n)] += 0.1 * z[(i + 1) % n].cos();
            }
        },
    );
    let cube = (n as f64).powi(3);
    let free = run(&mut p, SolverKind::FischerBurmeister, None);
    let capped = run(&mut p, SolverKind::FischerBurmeister, Some(5.0 * cube));
    assert!(!free.converged() && !capped.converged(), "{free}\n{capped}");
    assert!(capped.major_iterations <= 5, "{capped}");
    assert!(free.major_iterations > 5, "{free}");

    // Levenberg–Marquardt stops early on that one (a stationary point of ‖Φ‖²); it creeps on a
    // free system with a triple root, F_i = (z_i − 1)³, whose Newton steps shrink the error by
    // only a third: 19 iterations to the tolerance.
    let n = 4;
    let mut q = ClosureMcp::new(
        vec![f64::NEG_INFINITY; n],
        vec![f64::INFINITY; n],
        |z: &[f64], f: &mut [f64]| {
            for (fi, zi) in f.iter_mut().zip(z) {
                *fi = (zi - 1.0).powi(3);
            }
        },
        |z: &[f64], j: &mut DMatrix<f64>| {
            j.fill(0.0);
            for (i, zi) in z.iter().enumerate() {
                j[(i, i)] = 3.0 * (zi - 1.0).powi(2);
            }
        },
    )
    .unwrap();
    let cube = (n as f64).powi(3);
    let free = run(&mut q, SolverKind::LevenbergMarquardt, None);
    let capped = run(&mut q, SolverKind::LevenbergMarquardt, Some(5.0 * cube));
    assert!(free.converged(), "{free}");
    assert!(free.function_evaluations > 2 * (n + 1), "{free}");
    assert!(!capped.converged(), "{capped}");
    assert!(capped.function_evaluations <= 2 * (n + 1), "{capped}");
}
