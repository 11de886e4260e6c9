//! Small MCPs with known answers and the checks every nonlinear solver must pass, shared by
//! the solvers' unit tests (the literature problems live in [`super::test_problems`]).

use super::test_problems::Josephy;
use super::{ClosureMcp, DenseJacobian, McpProblem, SolveReport, Status, natural_residual};

/// 2×2 NCP with a nonlinear term; solution `(√2 − 1, 0)`.
pub(crate) fn ncp2() -> impl McpProblem {
    ClosureMcp::ncp(
        2,
        |z: &[f64], f: &mut [f64]| {
            f[0] = 2.0 * z[0] + z[1] + z[0] * z[0] - 1.0;
            f[1] = z[0] + 3.0 * z[1] + 2.0;
        },
        |z: &[f64], j: &mut DenseJacobian| {
            j[(0, 0)] = 2.0 + 2.0 * z[0];
            j[(0, 1)] = 1.0;
            j[(1, 0)] = 1.0;
            j[(1, 1)] = 3.0;
        },
    )
}

/// Box problem: solution `z = (1, (√3 − 1)/2, −1)`: `z_0` at its upper bound with `F_0 = −3`,
/// `z_1` interior, `z_2` at its lower bound with `F_2 = 1`.
pub(crate) fn box3() -> impl McpProblem {
    ClosureMcp::new(
        vec![0.0, 0.0, -1.0],
        vec![1.0, 2.0, 1.0],
        |z: &[f64], f: &mut [f64]| {
            f[0] = z[0] * z[0] * z[0] + z[0] - 5.0;
            f[1] = z[1] * z[1] + z[1] + 0.5 * z[0] - 1.0;
            f[2] = z[2] + 1.0 + z[0];
        },
        |z: &[f64], j: &mut DenseJacobian| {
            j.fill(0.0);
            j[(0, 0)] = 3.0 * z[0] * z[0] + 1.0;
            j[(1, 0)] = 0.5;
            j[(1, 1)] = 2.0 * z[1] + 1.0;
            j[(2, 0)] = 1.0;
            j[(2, 2)] = 1.0;
        },
    )
    .unwrap()
}

/// Square system `z_0² + z_1² = 4`, `e^{z_0} + z_1 = 1` (all bounds infinite).
pub(crate) fn square2() -> impl McpProblem {
    ClosureMcp::equations(
        2,
        |z: &[f64], f: &mut [f64]| {
            f[0] = z[0] * z[0] + z[1] * z[1] - 4.0;
            f[1] = z[0].exp() + z[1] - 1.0;
        },
        |z: &[f64], j: &mut DenseJacobian| {
            j[(0, 0)] = 2.0 * z[0];
            j[(0, 1)] = 2.0 * z[1];
            j[(1, 0)] = z[0].exp();
            j[(1, 1)] = 1.0;
        },
    )
}

/// NCP `0 ≤ z ⊥ −1 − z ≥ 0`: no solution (`F < 0` on the whole feasible set).
pub(crate) fn unsolvable() -> impl McpProblem {
    ClosureMcp::ncp(
        1,
        |z: &[f64], f: &mut [f64]| f[0] = -1.0 - z[0],
        |_z: &[f64], j: &mut DenseJacobian| j[(0, 0)] = -1.0,
    )
}

/// NCP whose `F` is NaN everywhere.
pub(crate) fn nan_function() -> impl McpProblem {
    ClosureMcp::ncp(
        2,
        |_z: &[f64], f: &mut [f64]| f.fill(f64::NAN),
        |_z: &[f64], j: &mut DenseJacobian| j.fill(0.0),
    )
}

/// Checks a converged report against the natural residual recomputed at `z`.
pub(crate) fn check(problem: &mut dyn McpProblem, z: &[f64], report: &SolveReport, tol: f64) {
    assert!(report.converged(), "{report}");
    let mut f = vec![0.0; z.len()];
    problem.function(z, &mut f);
    let r = natural_residual(z, &f, problem.lower_bounds(), problem.upper_bounds());
    assert!(r <= tol && report.residual <= tol, "{r} {report}");
    assert!(report.function_evaluations > 0);
}

/// Runs the shared cases through `solve` (a solver with its settings): the 2×2 NCP, the box
/// problem with one variable at each kind of bound, the square system, Josephy's NCP from 0 and 1, non-finite input and function values, and the unsolvable NCP.
pub(crate) fn standard_cases(
    mut solve: impl FnMut(&mut dyn McpProblem, &mut [f64]) -> SolveReport,
    tol: f64,
) {
    let mut p = ncp2();
    let mut z = vec![0.0, 0.0];
    let r = solve(&mut p, &mut z);
    check(&mut p, &z, &r, tol);
    assert!((z[0] - (2f64.sqrt() - 1.0)).abs() < 1e-9);

    let mut p = box3();
    let mut z = vec![0.5, 0.5, 0.0];
    let r = solve(&mut p, &mut z);
    check(&mut p, &z, &r, tol);
    // z_0 = u_0 and z_2 = l_2 are active; the natural residual bounds their distance to it.
    assert!(
        (z[0] - 1.0).abs() <= 1e-9 && (z[2] + 1.0).abs() <= 1e-9,
        "{z:?}"
    );

    let mut p = square2();
    let mut z = vec![1.0, 1.0];
    let r = solve(&mut p, &mut z);
    check(&mut p, &z, &r, tol);

    for start in [0.0, 1.0] {
        let mut p = Josephy::new();
        let mut z = vec![start; 4];
        let r = solve(&mut p, &mut z);
        check(&mut p, &z, &r, tol);
    }

    let mut p = ncp2();
    for bad in [f64::NAN, f64::INFINITY] {
        let mut z = vec![0.0, bad];
        assert_eq!(solve(&mut p, &mut z).status, Status::NonFiniteInput);
    }
    let mut p = nan_function();
    let mut z = vec![0.0, 0.0];
    let r = solve(&mut p, &mut z);
    assert_eq!(r.status, Status::NonFiniteFunction, "{r}");

    let mut p = unsolvable();
    let mut z = vec![1.0];
    let r = solve(&mut p, &mut z);
    assert!(!r.converged(), "{r}");
    // The natural residual |z − max(0, 2z + 1)| is at least 1/2 (attained at z = −1/2).
    assert!(r.residual >= 0.5 - 1e-12, "{r}");
}
