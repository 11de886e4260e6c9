//! The support block's Jacobian against central differences, and its law at a solution.

use super::*;
use crate::contact::BodyStep;
use crate::geometry::{Planar, Pose};
use crate::model::Friction;
use nalgebra::Vector3;

fn block() -> SupportBlock<Planar> {
    SupportBlock::new(Support {
        body: 0,
        friction: Friction::elliptic(0.3, 1.0, 0.8, 0.014),
        normal_force: 0.05,
    })
}

/// Every Jacobian entry against central differences over `(p, σ, ν)` at random points. The
/// rows are at most quadratic, so the differences are exact up to rounding: bound 1e-7.
#[test]
fn jacobian_matches_central_differences() {
    let b = block();
    let (h, pose) = (
        1e-3,
        Pose::<Planar>::planar(0.1, -0.2, 0.3, "disc").unwrap(),
    );
    let mut seed = 7_u64;
    let mut rand = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    for _ in 0..20 {
        let x: Vec<f64> = (0..4)
            .map(|k| rand() * 1e-4 + if k == 3 { 5.0 } else { 0.0 })
            .collect();
        let nu = Vector3::new(rand(), rand(), rand() * 10.0);
        let eval_at = |x: &[f64], nu: &Vector3<f64>| {
            let step = BodyStep::advance(&pose, nu.as_slice(), h);
            let mut e = b.new_eval();
            b.evaluate(x, &step, h, &mut e);
            e
        };
        let e0 = eval_at(&x, &nu);
        let total = b.total();
        for c in 0..7 {
            // The rows are at most quadratic: central differences are exact but for rounding,
            // so the steps are large.
            let step = if c < 4 { 1e-6 } else { 1e-3 };
            let (mut xp, mut xm, mut np, mut nm) = (x.clone(), x.clone(), nu, nu);
            if c < 4 {
                xp[c] += step;
                xm[c] -= step;
            } else {
                np[c - 4] += step;
                nm[c - 4] -= step;
            }
            let (ep, em) = (eval_at(&xp, &np), eval_at(&xm, &nm));
            for r in 0..total {
                let fd = (ep.values[r] - em.values[r]) / (2.0 * step);
                let exact = e0.jacobian[(r, c)];
                assert!(
                    (fd - exact).abs() <= 1e-7 * (1.0 + exact.abs()),
                    "row {r} column {c}: exact {exact}, central differences {fd}"
                );
            }
        }
        // The table (body 2) has no columns.
        for r in 0..total {
            for c in 7..total {
                assert_eq!(e0.jacobian[(r, c)], 0.0);
            }
        }
    }
}

/// At a sliding solution of the rows the impulse is on the ellipsoid and opposes the slip
/// through the ellipsoid's normal, `p_k = −e_k² ν_k μ p_n / σ`, with `σ = ‖e ν‖` the slip speed.
#[test]
fn sliding_solution_lies_on_the_ellipsoid() {
    let b = block();
    let h = 1e-3;
    let nu = Vector3::new(0.3, -0.1, 2.0);
    let e: [f64; 3] = [1.0, 0.8, 0.014];
    let sigma = (0..3).map(|k| (e[k] * nu[k]).powi(2)).sum::<f64>().sqrt();
    let mut x: Vec<f64> = (0..3)
        .map(|k| -e[k] * e[k] * nu[k] * b.bound(h) / sigma)
        .collect();
    x.push(sigma);
    let step = BodyStep::advance(&Pose::<Planar>::identity(), nu.as_slice(), h);
    let mut ev = b.new_eval();
    b.evaluate(&x, &step, h, &mut ev);
    for k in 0..4 {
        assert!(ev.values[k].abs() < 1e-15, "row {k}: {}", ev.values[k]);
    }
    assert!((b.norm(&x) - b.bound(h)).abs() < 1e-15);
}
