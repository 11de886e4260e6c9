//! Checks of the reference problem suite (`implicit_contact::mcp::test_problems`): analytic
//! Jacobians against central differences, known solutions against the natural residual, and
//! the P-matrix property of `random_p_lcp`.

use implicit_contact::mcp::test_problems::{
    Case, KojimaShindo, Mathiesen, SplitMix64, StepLike, box_qp, random_p_lcp,
    random_p_lcp_with_solution, suite,
};
use implicit_contact::mcp::{McpProblem, jacobian_check, natural_residual, validate_bounds};
use nalgebra::DMatrix;
use proptest::prelude::*;

/// Finite-difference step (relative: `h = EPS · max(1, |z_j|)`, see `finite_difference_jacobian`).
const EPS: f64 = 1e-6;

/// Tolerance of `jacobian_check` (error relative to `max(1, |J_ij|)`).
///
/// Central differences have truncation error `h²/6 · |∂³F|` ≈ 1e-12 · |∂³F| and rounding error
/// about `ε_mach · |F| / h` ≈ 1e-10 · |F| (both relative to `max(1, |z_j|)`-scaled steps). The
/// largest `|F|` met at the test points is ~1e5 (Kojima–Shindo at z = 100, where however
/// `h = 1e-4` and `|J| ~ 600`), giving errors below ~1e-8; third derivatives are O(10) at the
/// sampled points (which stay away from the poles of the Mathiesen and Nash functions). A wrong
/// analytic entry shows up as an O(1) relative error, so 1e-6 separates the two by orders of
/// magnitude.
const JAC_TOL: f64 = 1e-6;

fn residual(case: &mut Case, z: &[f64]) -> f64 {
    let mut f = vec![0.0; z.len()];
    case.problem.function(z, &mut f);
    natural_residual(
        z,
        &f,
        case.problem.lower_bounds(),
        case.problem.upper_bounds(),
    )
}

/// A random point in the box, away from its faces and, for infinite bounds, in a window of
/// width 4 (`[l, l + 4]`, `[u − 4, u]` or `[−2, 2]`), shrunk by 10 % on each side.
fn random_point(case: &Case, rng: &mut SplitMix64) -> Vec<f64> {
    let (l, u) = (case.problem.lower_bounds(), case.problem.upper_bounds());
    (0..l.len())
        .map(|i| {
            let (lo, hi) = match (l[i].is_finite(), u[i].is_finite()) {
                (true, true) => (l[i], u[i]),
                (true, false) => (l[i], l[i] + 4.0),
                (false, true) => (u[i] - 4.0, u[i]),
                (false, false) => (-2.0, 2.0),
            };
            let w = hi - lo;
            rng.uniform(lo + 0.1 * w, hi - 0.1 * w)
        })
        .collect()
}

#[test]
fn suite_is_well_formed() {
    let cases = suite();
    assert!(cases.len() >= 30, "only {} cases", cases.len());
    let mut keys = std::collections::HashSet::new();
    for case in &cases {
        let n = case.dim();
        let (l, u) = (case.problem.lower_bounds(), case.problem.upper_bounds());
        assert_eq!(l.len(), n, "{}", case.name);
        assert_eq!(u.len(), n, "{}", case.name);
        validate_bounds(l, u).unwrap();
        assert_eq!(case.start.len(), n, "{} {}", case.name, case.start_label);
        for i in 0..n {
            assert!(
                l[i] <= case.start[i] && case.start[i] <= u[i],
                "{} {}: start outside the box at {i}",
                case.name,
                case.start_label
            );
        }
        assert!(!case.known_solutions.is_empty(), "{}", case.name);
        assert!(
            keys.insert((case.name, case.start_label)),
            "duplicate case {} {}",
            case.name,
            case.start_label
        );
    }
    // The suite is deterministic: building it twice gives the same data.
    let again = suite();
    for (a, b) in cases.iter().zip(&again) {
        assert_eq!(a.start, b.start);
        assert_eq!(a.known_solutions, b.known_solutions);
    }
}

#[test]
fn jacobians_match_central_differences_at_starts() {
    for mut case in suite() {
        let z = case.start.clone();
        let err = jacobian_check(case.problem.as_mut(), &z, EPS);
        assert!(
            err <= JAC_TOL,
            "{} at start {}: Jacobian error {err:e}",
            case.name,
            case.start_label
        );
    }
}

#[test]
fn jacobians_match_central_differences_at_random_points() {
    for (k, mut case) in suite().into_iter().enumerate() {
        let mut rng = SplitMix64::new(1000 + k as u64);
        for trial in 0..4 {
            let z = random_point(&case, &mut rng);
            let err = jacobian_check(case.problem.as_mut(), &z, EPS);
            assert!(
                err <= JAC_TOL,
                "{} (trial {trial}) at {z:?}: Jacobian error {err:e}",
                case.name
            );
        }
    }
}

#[test]
fn jacobians_match_central_differences_at_known_solutions() {
    for mut case in suite() {
        for z in case.known_solutions.clone() {
            // Kojima–Shindo etc. sit on z_i = 0; central differences step outside the box,
            // which is fine: every F here is smooth across the faces of the box.
            let err = jacobian_check(case.problem.as_mut(), &z, EPS);
            assert!(
                err <= JAC_TOL,
                "{} at {z:?}: Jacobian error {err:e}",
                case.name
            );
        }
    }
}

/// Every stored solution is in the box and has natural residual ≤ the case's tolerance
/// (1e-12 everywhere: the exact solutions are exact up to one rounding of irrational entries
/// like √6/2, and the Nash and Powell solutions were computed by Newton's method to full double
/// precision; their residuals are ~1e-14).
#[test]
fn known_solutions_have_zero_natural_residual() {
    for mut case in suite() {
        let tol = case.solution_tolerance;
        assert!(tol <= 1e-12, "{}", case.name);
        for z in case.known_solutions.clone() {
            let (l, u) = (case.problem.lower_bounds(), case.problem.upper_bounds());
            for i in 0..z.len() {
                assert!(
                    l[i] <= z[i] && z[i] <= u[i],
                    "{}: solution outside box",
                    case.name
                );
            }
            let r = residual(&mut case, &z);
            assert!(r <= tol, "{}: residual {r:e} at {z:?}", case.name);
        }
    }
}

#[test]
fn kojima_shindo_degenerate_and_nondegenerate() {
    let mut p = KojimaShindo::new();
    let mut f = [0.0; 4];
    p.function(&KojimaShindo::degenerate_solution(), &mut f);
    // z3 = 0 and F3 = 0: degenerate.
    assert!(f[2].abs() < 1e-14, "{f:?}");
    assert!(f[1] > 1.0);
    p.function(&KojimaShindo::nondegenerate_solution(), &mut f);
    // (1, 0, 3, 0): F = (0, 31, 0, 4), strictly complementary.
    assert_eq!(f, [0.0, 31.0, 0.0, 4.0]);
}

#[test]
fn mathiesen_jacobian_is_singular_along_the_solution_ray() {
    let mut p = Mathiesen::new();
    let mut j = DMatrix::zeros(4, 4);
    for lambda in [0.1, 1.0, 3.0] {
        let z = Mathiesen::solution(lambda);
        p.jacobian(&z, &mut j);
        let d = nalgebra::DVector::from_column_slice(&[0.0, 6.0, 1.0, 5.0]);
        let jd = &j * d;
        assert!(jd.amax() < 1e-12, "J·(0, p) = {jd:?}");
    }
    let mut q = Mathiesen::numeraire();
    let mut j3 = DMatrix::zeros(3, 3);
    q.jacobian(&Mathiesen::numeraire_solution(), &mut j3);
    assert!((j3.determinant() - 10.8).abs() < 1e-12);
}

#[test]
fn box_qp_has_lower_upper_and_interior_components() {
    let (mut p, z) = box_qp();
    let mut f = vec![0.0; 6];
    p.function(&z, &mut f);
    assert_eq!(f, vec![2.0, -1.0, 0.0, 3.0, -2.0, 0.0]);
    let (l, u) = (p.lower.clone(), p.upper.clone());
    assert!(z[0] == l[0] && z[3] == l[3]);
    assert!(z[1] == u[1] && z[4] == u[4]);
    assert!(l[2] < z[2] && z[2] < u[2] && l[5] < z[5] && z[5] < u[5]);
    assert!(u.iter().all(|v| v.is_finite()));
}

#[test]
fn step_like_structure() {
    let mut p = StepLike::new(7);
    assert_eq!(p.dim(), 30);
    let z = p.solution().to_vec();
    let mut j = DMatrix::zeros(30, 30);
    p.jacobian(&z, &mut j);
    // The near-singular 2×2 block of the free pair y = z[12..14].
    let block = j.view((12, 12), (2, 2)).into_owned();
    let sv = block.singular_values();
    let cond = sv.max() / sv.min();
    assert!((1e7..1e9).contains(&cond), "condition {cond:e}");
    // Finite upper bounds on the friction-like variables.
    assert_eq!(
        p.upper_bounds().iter().filter(|u| u.is_finite()).count(),
        2 * p.contacts()
    );
    // Different seeds give different data, the same seed the same.
    assert_eq!(StepLike::new(7).solution(), p.solution());
    assert_ne!(StepLike::new(8).solution(), p.solution());
}

#[test]
fn random_p_lcp_known_solution() {
    for (n, seed) in [(1, 0), (5, 3), (20, 4), (40, 5)] {
        let (mut p, z) = random_p_lcp_with_solution(n, seed);
        let mut f = vec![0.0; n];
        p.function(&z, &mut f);
        let r = natural_residual(&z, &f, &p.lower, &p.upper);
        assert!(r <= 1e-12, "n = {n}: residual {r:e}");
        assert_eq!(random_p_lcp(n, seed).m, p.m);
    }
}

/// All `2ⁿ − 1` principal minors of `m`.
fn principal_minors(m: &DMatrix<f64>) -> Vec<f64> {
    let n = m.nrows();
    (1u32..(1 << n))
        .map(|mask| {
            let idx: Vec<usize> = (0..n).filter(|i| mask & (1 << i) != 0).collect();
            let sub = DMatrix::from_fn(idx.len(), idx.len(), |a, b| m[(idx[a], idx[b])]);
            sub.determinant()
        })
        .collect()
}

proptest! {
    /// `random_p_lcp` gives P-matrices: every principal minor is positive. (The construction
    /// bounds each minor below by the matching minor of the symmetric part, ≥ 0.1^k.)
    #[test]
    fn random_p_lcp_is_a_p_matrix(n in 1usize..=6, seed in any::<u64>()) {
        let p = random_p_lcp(n, seed);
        for d in principal_minors(&p.m) {
            prop_assert!(d > 0.0, "minor {d:e}");
        }
    }
}
