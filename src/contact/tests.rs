//! Finite-difference checks of the whole block Jacobian, and consistency with the proximity
//! query's closest points.

use super::*;
use crate::geometry::{
    Ball, ConvexPart, Ellipsoid, HalfSpace, Placed, Planar, Pose, ProximitySettings, Spatial,
    Superellipse, proximity,
};
use crate::model::{Dynamics, Friction};
use nalgebra::{DMatrix, UnitQuaternion, Vector2, Vector3};

/// A small deterministic generator (xorshift64*), so failures reproduce.
pub(super) struct Rng(pub(super) u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D);
        (x >> 11) as f64 / (1u64 << 53) as f64
    }
    pub(super) fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next()
    }
}

/// Anisotropic friction, so every ellipsoid axis enters with its own weight.
pub(super) fn friction() -> Friction {
    Friction {
        mu: 0.4,
        e_t: 1.0,
        e_o: 0.7,
        e_r: 0.3,
    }
}

/// One configuration: the block, the two start poses, which body is fixed, the time step.
pub(super) struct Case<S: Dynamics> {
    pub(super) block: Contact<S>,
    pub(super) start1: Pose<S>,
    pub(super) start2: Pose<S>,
    pub(super) fixed1: bool,
    pub(super) fixed2: bool,
    pub(super) h: f64,
}

impl<S: Dynamics> Case<S> {
    fn step(&self, start: &Pose<S>, fixed: bool, nu: &[f64]) -> BodyStep<S> {
        if fixed {
            BodyStep::fixed(*start)
        } else {
            BodyStep::advance(start, nu, self.h)
        }
    }

    /// Values and Jacobian at `z = [local; ν₁; ν₂]`, the end poses formed as the stepper forms
    /// them (`BodyStep::advance`: `c + h v`, `exp(h ω) ∘ R`).
    fn eval(&self, z: &[f64]) -> ContactEval {
        let l = self.block.layout();
        let b1 = self.step(&self.start1, self.fixed1, &z[l.nu1..l.nu2]);
        let b2 = self.step(&self.start2, self.fixed2, &z[l.nu2..l.total]);
        let mut out = self.block.new_eval();
        self.block.evaluate(&z[..l.local_count], &b1, &b2, &mut out);
        out
    }

    /// The rows alone ([`Contact::evaluate_values`], the stepper's function evaluations) are
    /// those of the whole evaluation `whole` bit for bit, into a buffer that held another
    /// point's evaluation (a stale Jacobian must not reach them).
    fn check_values_only(&self, z: &[f64], whole: &ContactEval, label: &str) {
        let l = self.block.layout();
        let mut other = z.to_vec();
        for v in &mut other[l.nu1..] {
            *v += 0.25;
        }
        let mut out = self.eval(&other);
        let b1 = self.step(&self.start1, self.fixed1, &z[l.nu1..l.nu2]);
        let b2 = self.step(&self.start2, self.fixed2, &z[l.nu2..l.total]);
        self.block
            .evaluate_values(&z[..l.local_count], &b1, &b2, &mut out);
        let same = out
            .values
            .iter()
            .zip(&whole.values)
            .all(|(a, b)| a.to_bits() == b.to_bits());
        assert!(
            same,
            "{label}: the rows alone {:?} differ from the whole evaluation's {:?}",
            out.values, whole.values
        );
    }

    /// Central differences of every value along every column of `z`.
    fn finite_difference(&self, z: &[f64]) -> DMatrix<f64> {
        let n = z.len();
        let eps = 1e-6;
        let mut fd = DMatrix::zeros(n, n);
        for c in 0..n {
            let (mut zp, mut zm) = (z.to_vec(), z.to_vec());
            zp[c] += eps;
            zm[c] -= eps;
            let (vp, vm) = (self.eval(&zp).values, self.eval(&zm).values);
            for r in 0..n {
                fd[(r, c)] = (vp[r] - vm[r]) / (2.0 * eps);
            }
        }
        fd
    }

    /// A random state: points within `spread` of the given world points, multipliers and
    /// impulses of both signs where free, velocities up to 2.
    pub(super) fn random_state(
        &self,
        rng: &mut Rng,
        near1: S::Vector,
        near2: S::Vector,
        spread: f64,
    ) -> Vec<f64> {
        let l = self.block.layout();
        let mut z = vec![0.0; l.total];
        for i in 0..S::DIM {
            z[l.a1 + i] = near1[i] + rng.uniform(-spread, spread);
            z[l.a2 + i] = near2[i] + rng.uniform(-spread, spread);
        }
        z[l.l1] = rng.uniform(0.0, 1.0);
        for j in 0..l.g_count {
            z[l.l2 + j] = rng.uniform(0.0, 1.0);
        }
        if l.f_count > 0 {
            // The free scale t of either sign, the normal source ĝ, F's multipliers.
            z[l.l1] = rng.uniform(-0.5, 1.0);
            for i in 0..S::DIM {
                z[l.normal_source + i] = rng.uniform(-1.0, 1.0);
            }
            for k in 0..l.f_count {
                z[l.lf + k] = rng.uniform(0.0, 1.0);
            }
        }
        z[l.normal] = rng.uniform(0.0, 2.0);
        for k in 0..l.friction_count {
            z[l.friction + k] = rng.uniform(-1.0, 1.0);
        }
        z[l.sigma] = rng.uniform(0.0, 1.0);
        for i in l.nu1..l.total {
            z[i] = rng.uniform(-2.0, 2.0);
        }
        z
    }

    /// Analytic Jacobian against central differences, every row and column.
    ///
    /// Tolerance `1e-6 (1 + |J|)`: with step `ε = 1e-6` the truncation error is
    /// `ε²/6 · |third derivative|` (≲ 1e-10 for these smooth, unit-sized shapes) and rounding
    /// `≈ 1e-16 |value| / ε ≈ 1e-10`; a wrong sign, factor or missing term is `O(1)`.
    pub(super) fn check(&self, z: &[f64], label: &str) {
        let out = self.eval(z);
        assert!(
            out.values.iter().all(|v| v.is_finite()),
            "{label}: values not finite"
        );
        self.check_values_only(z, &out, label);
        let fd = self.finite_difference(z);
        let l = self.block.layout();
        for r in 0..l.total {
            for c in 0..l.total {
                let (a, b) = (out.jacobian[(r, c)], fd[(r, c)]);
                assert!(
                    (a - b).abs() <= 1e-6 * (1.0 + a.abs()),
                    "{label}: J[{r},{c}] analytic {a} vs finite difference {b} (layout {l:?})"
                );
            }
        }
    }
}

impl<S: Dynamics> Case<S> {
    /// [`Self::check`] with the slip rows' trapezoidal lever of the second-order integrator
    /// ([`ContactBlock::set_start_levers`] with `levers`), which must change the slip row's
    /// value (the check is not vacuous); the levers are cleared afterwards.
    pub(super) fn check_with_levers(
        &mut self,
        z: &[f64],
        levers: (S::Vector, S::Vector),
        label: &str,
    ) {
        let plain = self.eval(z).values;
        self.block.kernel_mut().set_start_levers(Some(levers));
        let l = self.block.layout();
        let lever = self.eval(z).values;
        assert!(
            (plain[l.friction] - lever[l.friction]).abs() > 1e-6,
            "{label}: the levers do not reach the slip row"
        );
        self.check(z, &format!("{label} (trapezoidal levers)"));
        self.block.kernel_mut().set_start_levers(None);
    }
}

impl<S: Dynamics> Case<S> {
    /// The cached evaluation `cached`, refreshed for the block's current law rows
    /// ([`ContactBlock::refresh_law_rows`]), is a fresh evaluation at `z`, bit for bit.
    fn assert_refreshed(&mut self, z: &[f64], cached: &mut ContactEval, label: &str) {
        let x = &z[..self.block.layout().local_count];
        assert!(
            self.block.refresh_law_rows(x, cached),
            "{label}: not refreshed"
        );
        assert_eq!(*cached, self.eval(z), "{label}: refreshed");
    }

    /// [`Self::check`] with proximal terms on the impulses and `σ` ([`ContactBlock::set_proximal`]),
    /// which must change the rows C3, FR and CS (the check is not vacuous); cleared afterwards.
    pub(super) fn check_with_proximal(&mut self, z: &[f64], label: &str) {
        let plain = self.eval(z).values;
        let weights = [0.3, 0.2, 0.1];
        self.block.kernel_mut().set_proximal(Proximal {
            weights,
            center: [0.0; 5],
        });
        let l = self.block.layout();
        // An evaluation refreshed for a new centre (the same weights) is the evaluation, bit
        // for bit (the stepper keeps it instead of evaluating the geometry again).
        let mut cached = self.eval(z);
        self.block.kernel_mut().set_proximal(Proximal {
            weights,
            center: [0.1, -0.2, 0.05, 0.03, 0.4],
        });
        let x = &z[..l.local_count];
        let refreshed = self.block.refresh_law_rows(x, &mut cached);
        if refreshed {
            assert_eq!(
                cached,
                self.eval(z),
                "{label}: refreshed for the proximal centre"
            );
        }
        let prox = self.eval(z).values;
        for row in [l.normal, l.friction, l.sigma] {
            assert!(
                (plain[row] - prox[row]).abs() > 1e-6,
                "{label}: the proximal terms do not reach row {row}"
            );
        }
        self.check(z, &format!("{label} (proximal)"));
        // The row CS written in N·s (a factor frozen for the solve): the same row times it.
        self.block.kernel_mut().set_cone_scale(7.5);
        if refreshed {
            self.assert_refreshed(z, &mut cached, &format!("{label}: cone scale"));
        }
        let scaled = self.eval(z).values;
        assert!((scaled[l.sigma] - 7.5 * prox[l.sigma]).abs() <= 1e-12 * scaled[l.sigma].abs());
        self.check(z, &format!("{label} (proximal, cone row scaled)"));
        // Divided by the current load instead (`c` of the impulses' order, so that both
        // parts of the load's derivative are exercised).
        self.block.kernel_mut().set_cone_normalised(0.3);
        if refreshed {
            self.assert_refreshed(z, &mut cached, &format!("{label}: cone row normalised"));
        }
        self.check(z, &format!("{label} (proximal, cone row normalised)"));
        self.block.kernel_mut().set_cone_scale(1.0);
        self.block.kernel_mut().set_proximal(Proximal::default());
    }
}

impl<S: Dynamics> Case<S> {
    /// [`Self::check`] in the signed-gap form ([`ClosestPoints::SignedGap`]), at `z` and with
    /// `l₁` negative (the bodies overlapping), which must change C3 only: the other rows are
    /// the paper's bit for bit. The paper's form is set back afterwards.
    pub(super) fn check_signed_gap(&mut self, z: &[f64], label: &str) {
        let l = self.block.layout();
        let paper = self.eval(z).values;
        self.block
            .kernel_mut()
            .set_closest_points(ClosestPoints::SignedGap);
        let (lo, _) = self.block.bounds();
        assert_eq!(lo[l.l1], f64::NEG_INFINITY, "{label}: l1 free");
        let signed = self.eval(z).values;
        for (i, (a, b)) in paper.iter().zip(&signed).enumerate() {
            if i == l.normal {
                assert!((a - b).abs() > 1e-9, "{label}: C3 unchanged");
            } else {
                assert_eq!(a.to_bits(), b.to_bits(), "{label}: row {i}");
            }
        }
        self.check(z, &format!("{label} (signed gap)"));
        let mut overlap = z.to_vec();
        overlap[l.l1] = -0.7 * z[l.l1] - 0.05;
        assert!(self.eval(&overlap).values[l.normal] < 0.0);
        self.check(&overlap, &format!("{label} (signed gap, l1 < 0)"));
        self.block
            .kernel_mut()
            .set_closest_points(ClosestPoints::Paper);
    }
}

pub(super) const CONFIGS: [(bool, bool); 3] = [(false, true), (true, false), (false, false)];

pub(super) fn planar_pose(x: f64, y: f64, th: f64) -> Pose<Planar> {
    Pose::<Planar>::planar(x, y, th, "test").unwrap()
}

pub(super) fn spatial_pose(c: Vector3<f64>, axis_angle: Vector3<f64>) -> Pose<Spatial> {
    Pose {
        position: c,
        rotation: UnitQuaternion::from_scaled_axis(axis_angle),
    }
}

#[test]
fn layout_and_bounds() {
    let g = ConvexPart::<Planar>::cuboid(Vector2::new(1.0, 0.5)).unwrap();
    let f = Placed::at_origin(Ball::<Planar>::new(0.5).unwrap());
    let block = ContactBlock::new(f, g, friction()).unwrap();
    let l = block.layout();
    // a1 (2), a2 (2), l1, l2 (4), p_n, p_t, σ.
    assert_eq!((l.local_count, l.sigma, l.total), (12, 11, 18));
    let (lo, hi) = block.bounds();
    let expected: Vec<f64> = (0..12)
        .map(|i| {
            if (4..10).contains(&i) || i == 11 {
                0.0
            } else {
                f64::NEG_INFINITY
            }
        })
        .collect();
    assert_eq!(lo, expected);
    assert!(hi.iter().all(|u| *u == f64::INFINITY));
    // The signed-gap form frees l1 (index 4) only.
    let mut signed = block.clone();
    signed.set_closest_points(ClosestPoints::SignedGap);
    assert_eq!(signed.closest_points(), ClosestPoints::SignedGap);
    let (lo_signed, _) = signed.bounds();
    for (i, (a, b)) in lo_signed.iter().zip(&expected).enumerate() {
        assert_eq!(*a, if i == 4 { f64::NEG_INFINITY } else { *b }, "bound {i}");
    }
    let g3 = ConvexPart::<Spatial>::cuboid(Vector3::new(1.0, 0.5, 0.3)).unwrap();
    let f3 = Placed::at_origin(Ball::<Spatial>::new(0.5).unwrap());
    let l3 = ContactBlock::new(f3, g3, friction()).unwrap().layout();
    // a1 (3), a2 (3), l1, l2 (6), p_n, p_t, p_o, p_r, σ.
    assert_eq!((l3.local_count, l3.friction_count, l3.total), (18, 3, 30));
    for bad in [
        Friction::coulomb(-0.1),
        Friction::elliptic(0.5, 1.0, 1.0, 0.0),
        Friction::coulomb(f64::NAN),
    ] {
        let g = ConvexPart::<Planar>::cuboid(Vector2::new(1.0, 0.5)).unwrap();
        let f = Placed::at_origin(Ball::<Planar>::new(0.5).unwrap());
        assert!(ContactBlock::new(f, g, bad).is_err(), "{bad:?}");
    }
}

#[test]
fn jacobian_2d_disc_vs_half_plane() {
    let mut rng = Rng(0x1234_5678);
    // The disc sits off its body's origin, so lever arms and placement both matter.
    let disc = Placed::new(
        Ball::<Planar>::new(0.5).unwrap(),
        planar_pose(0.1, -0.05, 0.3),
    );
    let ground = ConvexPart::single(
        "ground",
        HalfSpace::<Planar>::new(Vector2::new(0.1, 1.0), 0.05).unwrap(),
    )
    .unwrap();
    for (fixed1, fixed2) in CONFIGS {
        let mut case = Case {
            block: ContactBlock::new(disc.clone(), ground.clone(), friction())
                .unwrap()
                .into(),
            start1: planar_pose(0.2, 0.6, 0.4),
            start2: planar_pose(-0.1, 0.02, -0.2),
            fixed1,
            fixed2,
            h: 0.1,
        };
        for trial in 0..4 {
            let z = case.random_state(
                &mut rng,
                Vector2::new(0.3, 0.1),
                Vector2::new(0.3, 0.0),
                0.2,
            );
            let label = format!("disc/half-plane fixed=({fixed1},{fixed2}) trial {trial}");
            case.check(&z, &label);
            case.check_with_proximal(&z, &label);
            case.check_signed_gap(&z, &label);
        }
    }
}

/// Also with the second-order integrator's trapezoidal levers in the slip rows.
#[test]
fn jacobian_2d_superellipse_vs_box() {
    let mut rng = Rng(0x9e37_79b9);
    let tooth = Placed::new(
        Superellipse::new(Vector2::new(1.0, 0.6), 4.0).unwrap(),
        planar_pose(-0.2, 0.1, 0.5),
    );
    let block_part = ConvexPart::<Planar>::cuboid(Vector2::new(0.8, 0.4)).unwrap();
    for (fixed1, fixed2) in CONFIGS {
        let mut case = Case {
            block: ContactBlock::new(tooth.clone(), block_part.clone(), friction())
                .unwrap()
                .into(),
            start1: planar_pose(0.0, 1.2, -0.3),
            start2: planar_pose(0.3, -0.1, 0.2),
            fixed1,
            fixed2,
            h: 0.1,
        };
        for trial in 0..4 {
            let z = case.random_state(
                &mut rng,
                Vector2::new(0.1, 0.6),
                Vector2::new(0.2, 0.3),
                0.3,
            );
            let label = format!("superellipse/box fixed=({fixed1},{fixed2}) trial {trial}");
            case.check(&z, &label);
            case.check_signed_gap(&z, &label);
            let levers = (Vector2::new(0.1, -0.4), Vector2::new(-0.2, 0.3));
            case.check_with_levers(&z, levers, &label);
        }
    }
}

#[test]
fn jacobian_3d_sphere_vs_half_space() {
    let mut rng = Rng(0xdead_beef);
    let ball = Placed::new(
        Ball::<Spatial>::new(0.5).unwrap(),
        spatial_pose(Vector3::new(0.05, -0.1, 0.02), Vector3::new(0.2, -0.1, 0.3)),
    );
    let ground = ConvexPart::single(
        "ground",
        HalfSpace::<Spatial>::new(Vector3::new(0.1, -0.05, 1.0), 0.0).unwrap(),
    )
    .unwrap();
    for (fixed1, fixed2) in CONFIGS {
        let mut block = ContactBlock::new(ball.clone(), ground.clone(), friction()).unwrap();
        block
            .set_tangent_reference(Vector3::new(0.8, 0.3, -0.1))
            .unwrap();
        let mut case = Case {
            block: block.into(),
            start1: spatial_pose(Vector3::new(0.1, 0.2, 0.6), Vector3::new(0.3, 0.5, -0.2)),
            start2: spatial_pose(Vector3::new(0.0, 0.0, -0.05), Vector3::new(-0.1, 0.2, 0.1)),
            fixed1,
            fixed2,
            h: 0.1,
        };
        for trial in 0..3 {
            let z = case.random_state(
                &mut rng,
                Vector3::new(0.1, 0.2, 0.1),
                Vector3::new(0.1, 0.2, 0.0),
                0.2,
            );
            let label = format!("sphere/half-space fixed=({fixed1},{fixed2}) trial {trial}");
            case.check(&z, &label);
            case.check_with_proximal(&z, &label);
            case.check_signed_gap(&z, &label);
        }
    }
}

/// Also with the second-order integrator's trapezoidal levers in the slip rows.
#[test]
fn jacobian_3d_ellipsoid_vs_box() {
    let mut rng = Rng(0x0bad_cafe);
    let egg = Placed::new(
        Ellipsoid::<Spatial>::new(Vector3::new(0.6, 0.4, 0.3)).unwrap(),
        spatial_pose(Vector3::new(-0.1, 0.05, 0.0), Vector3::new(0.0, 0.4, 0.2)),
    );
    let brick = ConvexPart::<Spatial>::cuboid(Vector3::new(0.5, 0.4, 0.3)).unwrap();
    for (fixed1, fixed2) in CONFIGS {
        let mut block = ContactBlock::new(egg.clone(), brick.clone(), friction()).unwrap();
        block
            .set_tangent_reference(Vector3::new(0.2, 0.9, 0.3))
            .unwrap();
        let mut case = Case {
            block: block.into(),
            start1: spatial_pose(Vector3::new(0.0, 0.1, 0.8), Vector3::new(-0.4, 0.1, 0.6)),
            start2: spatial_pose(Vector3::new(0.1, 0.0, 0.0), Vector3::new(0.1, 0.3, -0.2)),
            fixed1,
            fixed2,
            h: 0.1,
        };
        for trial in 0..3 {
            let z = case.random_state(
                &mut rng,
                Vector3::new(0.0, 0.1, 0.5),
                Vector3::new(0.1, 0.0, 0.3),
                0.2,
            );
            let label = format!("ellipsoid/box fixed=({fixed1},{fixed2}) trial {trial}");
            case.check(&z, &label);
            case.check_signed_gap(&z, &label);
            let levers = (
                Vector3::new(0.05, -0.2, -0.3),
                Vector3::new(-0.1, 0.15, 0.25),
            );
            case.check_with_levers(&z, levers, &label);
        }
    }
}

/// At the closest points of two separated parts (from [`proximity`], eq. 24–27) the
/// closest-point rows vanish with `l₁ = l̂₁ = distance/‖∇f(a₁)‖` and `l₂ⱼ = l̂ⱼ/l̂₁`
/// (Proposition 3's change of variables).
///
/// Tolerance `1e-7`: proximity solves its MCP to a natural residual of `1e-10` in
/// unit-sized coordinates; after dividing by `l̂₁ ≈ distance/‖∇f‖ ≈ 0.1–0.5` and
/// multiplying by gradients of size `≲ 2`, errors stay well below `1e-8`.
fn check_closest_point_consistency<S: Dynamics>(
    part_a: &ConvexPart<S>,
    pose_a: Pose<S>,
    part_b: &ConvexPart<S>,
    pose_b: Pose<S>,
) {
    let prox = proximity(
        part_a,
        &pose_a,
        part_b,
        &pose_b,
        &ProximitySettings::default(),
    )
    .unwrap();
    assert!(
        prox.distance > 0.05,
        "parts must be separated: {}",
        prox.distance
    );
    let block =
        ContactBlock::new(part_a.functions()[0].clone(), part_b.clone(), friction()).unwrap();
    let l = block.layout();
    let (b1, b2) = (BodyStep::fixed(pose_a), BodyStep::fixed(pose_b));
    let grad = crate::geometry::world_eval(&part_a.functions()[0], &pose_a, &prox.point_a).gradient;
    let l1 = prox.distance / S::norm(&grad);
    assert!(
        (l1 - prox.multipliers_a[0]).abs() < 1e-7,
        "l1 {l1} vs {:?}",
        prox.multipliers_a
    );
    let mut x = vec![0.0; l.local_count];
    for i in 0..S::DIM {
        x[l.a1 + i] = prox.point_a[i];
        x[l.a2 + i] = prox.point_b[i];
    }
    x[l.l1] = l1;
    for j in 0..l.g_count {
        x[l.l2 + j] = prox.multipliers_b[j] / prox.multipliers_a[0];
    }
    let mut out = block.new_eval();
    block.evaluate(&x, &b1, &b2, &mut out);
    let r = out.residual();
    for i in 0..2 * S::DIM {
        assert!(r[i].abs() < 1e-7, "R1/R2 row {i} = {} ({r:?})", r[i]);
    }
    assert!(r[l.l1].abs() < 1e-7, "C1 = {}", r[l.l1]);
    for j in 0..l.g_count {
        // 0 ≤ l₂ⱼ ⊥ −gⱼ ≥ 0: the natural residual min(l₂ⱼ, −gⱼ) vanishes.
        let nat = x[l.l2 + j].min(r[l.l2 + j]);
        assert!(
            nat.abs() < 1e-7,
            "C2[{j}]: l2 = {}, −g = {}",
            x[l.l2 + j],
            r[l.l2 + j]
        );
    }
    // Separated: a₂ is outside F.
    assert!(r[l.normal] > 0.0);
    // The signed-gap form at the same point: C1 the same equation, C3 the gap l₁ ‖∇f(a₁)‖²,
    // positive as f(a₂) is.
    let c1 = r[l.l1];
    let mut signed = block.clone();
    signed.set_closest_points(ClosestPoints::SignedGap);
    signed.evaluate(&x, &b1, &b2, &mut out);
    let rs = out.residual();
    assert_eq!(rs[l.l1].to_bits(), c1.to_bits());
    let gap = l1 * S::norm(&grad).powi(2);
    assert!(rs[l.normal] > 0.0 && (rs[l.normal] - gap).abs() <= 1e-14 * gap);
}

#[test]
fn closest_points_satisfy_the_rows_2d() {
    let tooth = ConvexPart::single(
        "tooth",
        Superellipse::new(Vector2::new(1.0, 0.6), 4.0).unwrap(),
    )
    .unwrap();
    let brick = ConvexPart::<Planar>::cuboid(Vector2::new(0.8, 0.4)).unwrap();
    // Face contact and a corner-nearest configuration.
    check_closest_point_consistency(
        &tooth,
        planar_pose(0.0, 1.3, 0.1),
        &brick,
        planar_pose(0.2, 0.0, 0.0),
    );
    check_closest_point_consistency(
        &tooth,
        planar_pose(1.9, 1.2, 0.3),
        &brick,
        planar_pose(0.0, 0.0, 0.0),
    );
    let disc = ConvexPart::single("disc", Ball::<Planar>::new(0.5).unwrap()).unwrap();
    check_closest_point_consistency(
        &disc,
        planar_pose(0.1, 1.3, 0.0),
        &brick,
        planar_pose(0.0, 0.0, 0.4),
    );
}

#[test]
fn closest_points_satisfy_the_rows_3d() {
    let egg = ConvexPart::single(
        "egg",
        Ellipsoid::<Spatial>::new(Vector3::new(0.6, 0.4, 0.3)).unwrap(),
    )
    .unwrap();
    let brick = ConvexPart::<Spatial>::cuboid(Vector3::new(0.5, 0.4, 0.3)).unwrap();
    check_closest_point_consistency(
        &egg,
        spatial_pose(Vector3::new(0.1, 0.0, 0.9), Vector3::new(0.2, 0.1, 0.0)),
        &brick,
        spatial_pose(Vector3::zeros(), Vector3::new(0.0, 0.0, 0.3)),
    );
    check_closest_point_consistency(
        &egg,
        spatial_pose(Vector3::new(1.0, 0.9, 0.8), Vector3::new(0.3, -0.2, 0.5)),
        &brick,
        spatial_pose(Vector3::zeros(), Vector3::zeros()),
    );
}

/// The 3D step map: `BodyStep::advance`'s `drot_domega = h J_l(hω)` is the world-frame
/// derivative of `exp(hω) R` (central differences of the rotation; tolerance as in
/// [`Case::check`]).
#[test]
fn rotation_derivative_is_the_left_jacobian() {
    let start = spatial_pose(Vector3::zeros(), Vector3::new(0.3, -0.4, 0.2));
    let nu = [0.0, 0.0, 0.0, 1.5, -2.0, 3.0];
    let h = 0.2;
    let step = BodyStep::<Spatial>::advance(&start, &nu, h);
    let eps = 1e-6;
    for c in 0..3 {
        let (mut p, mut m) = (nu, nu);
        p[3 + c] += eps;
        m[3 + c] -= eps;
        let rp = BodyStep::<Spatial>::advance(&start, &p, h)
            .pose_end
            .rotation;
        let rm = BodyStep::<Spatial>::advance(&start, &m, h)
            .pose_end
            .rotation;
        // World-frame increment: rp = exp(δθ) rm ⇒ δθ = log(rp rm⁻¹).
        let dtheta = (rp * rm.inverse()).scaled_axis() / (2.0 * eps);
        for r in 0..3 {
            let a = step.drot_domega[(r, c)];
            assert!(
                (a - dtheta[r]).abs() < 1e-6 * (1.0 + a.abs()),
                "({r},{c}): {a} vs {}",
                dtheta[r]
            );
        }
    }
}

/// The two wrenches are equal and opposite impulses at `a₂` and `a₁`: the forces cancel and the
/// total moment about the world origin is `(a₂ − a₁) × P` (the torsion `±p_r n` cancels).
/// Tolerance `1e-12`: a few products of unit-sized numbers.
fn check_wrench_balance<S: Dynamics>(case: &Case<S>, z: &[f64]) {
    let l = case.block.layout();
    let out = case.eval(z);
    let (w1, w2) = (out.wrench1(), out.wrench2());
    let b1 = case.step(&case.start1, case.fixed1, &z[l.nu1..l.nu2]);
    let b2 = case.step(&case.start2, case.fixed2, &z[l.nu2..l.total]);
    let f1 = S::vector_from_fn(|i| w1[i]);
    let f2 = S::vector_from_fn(|i| w2[i]);
    assert!(S::norm(&(f1 + f2)) < 1e-12);
    let a1 = S::vector_from_fn(|i| z[l.a1 + i]);
    let a2 = S::vector_from_fn(|i| z[l.a2 + i]);
    let total = S::cross(&b1.pose_end.position, &f1) + S::cross(&b2.pose_end.position, &f2);
    let expected = S::cross(&(a2 - a1), &f2);
    for i in 0..S::ANGULAR_DIM {
        let m = w1[S::DIM + i] + w2[S::DIM + i] + total[i];
        assert!(
            (m - expected[i]).abs() < 1e-12,
            "moment {i}: {m} vs {}",
            expected[i]
        );
    }
    // P · n = p_n: the normal part of the impulse on body 2.
    let grad =
        crate::geometry::world_eval(case.block.kernel().function_f(), &b1.pose_end, &a1).gradient;
    let pn = S::dot(&f2, &grad) / S::norm(&grad);
    assert!((pn - z[l.normal]).abs() < 1e-12);
}

#[test]
fn wrenches_are_equal_and_opposite() {
    let mut rng = Rng(42);
    let disc = Placed::new(
        Ball::<Planar>::new(0.5).unwrap(),
        planar_pose(0.1, -0.05, 0.3),
    );
    let brick = ConvexPart::<Planar>::cuboid(Vector2::new(0.8, 0.4)).unwrap();
    let case = Case {
        block: ContactBlock::new(disc, brick, friction()).unwrap().into(),
        start1: planar_pose(0.2, 0.9, 0.4),
        start2: planar_pose(-0.1, 0.0, -0.2),
        fixed1: false,
        fixed2: false,
        h: 0.1,
    };
    let z = case.random_state(
        &mut rng,
        Vector2::new(0.3, 0.5),
        Vector2::new(0.3, 0.4),
        0.1,
    );
    check_wrench_balance(&case, &z);
    let egg = Placed::new(
        Ellipsoid::<Spatial>::new(Vector3::new(0.6, 0.4, 0.3)).unwrap(),
        spatial_pose(Vector3::new(-0.1, 0.05, 0.0), Vector3::new(0.0, 0.4, 0.2)),
    );
    let brick = ConvexPart::<Spatial>::cuboid(Vector3::new(0.5, 0.4, 0.3)).unwrap();
    let case = Case {
        block: ContactBlock::new(egg, brick, friction()).unwrap().into(),
        start1: spatial_pose(Vector3::new(0.0, 0.1, 0.8), Vector3::new(-0.4, 0.1, 0.6)),
        start2: spatial_pose(Vector3::new(0.1, 0.0, 0.0), Vector3::new(0.1, 0.3, -0.2)),
        fixed1: false,
        fixed2: false,
        h: 0.1,
    };
    let z = case.random_state(
        &mut rng,
        Vector3::new(0.0, 0.1, 0.5),
        Vector3::new(0.1, 0.0, 0.3),
        0.1,
    );
    check_wrench_balance(&case, &z);
}

/// A disc of radius 0.5 cut by a half-plane: a flat-sided curved intersection (its rows RG
/// carry a Hessian).
pub(super) fn cut_disc() -> ConvexPart<Planar> {
    ConvexPart::new_with_interior(
        "cut disc",
        vec![
            Placed::new(
                Ball::<Planar>::new(0.5).unwrap(),
                planar_pose(0.05, 0.0, 0.0),
            ),
            Placed::at_origin(HalfSpace::<Planar>::new(Vector2::new(0.3, -1.0), 0.2).unwrap()),
        ],
        Vector2::new(0.0, 0.0),
    )
    .unwrap()
}

/// A ball of radius 0.5 cut by two half-spaces (a capped-cylinder-like intersection).
pub(super) fn cut_ball() -> ConvexPart<Spatial> {
    ConvexPart::new_with_interior(
        "cut ball",
        vec![
            Placed::new(
                Ball::<Spatial>::new(0.5).unwrap(),
                spatial_pose(Vector3::new(0.02, -0.03, 0.0), Vector3::zeros()),
            ),
            Placed::at_origin(
                HalfSpace::<Spatial>::new(Vector3::new(0.1, 0.2, -1.0), 0.25).unwrap(),
            ),
            Placed::at_origin(
                HalfSpace::<Spatial>::new(Vector3::new(-0.1, 0.0, 1.0), 0.3).unwrap(),
            ),
        ],
        Vector3::zeros(),
    )
    .unwrap()
}

/// `F` an intersection too: a flat-sided disc (a disc cut by a half-plane, so the rows RG carry
/// a Hessian) against a box, and a box against a box; both layouts and bounds.
#[test]
fn jacobian_2d_two_intersections() {
    let mut rng = Rng(0x5eed_0002);
    let cut_disc = cut_disc();
    let square = ConvexPart::<Planar>::cuboid(Vector2::new(0.4, 0.3)).unwrap();
    let bar = ConvexPart::<Planar>::cuboid(Vector2::new(0.8, 0.2)).unwrap();
    let block = ContactBlock::between(square.clone(), bar.clone(), friction()).unwrap();
    let l = block.layout();
    // a1 (2), a2 (2), t, l2 (4), ĝ (2), l_F (4), p_n, p_t, σ.
    assert_eq!((l.f_count, l.normal_source, l.lf, l.normal), (4, 9, 11, 15));
    assert_eq!((l.local_count, l.total), (18, 24));
    let (lo, _) = block.bounds();
    for (i, b) in lo.iter().enumerate() {
        let nonnegative = (5..9).contains(&i) || (11..16).contains(&i) || i == l.sigma;
        assert_eq!(*b == 0.0, nonnegative, "bound of {i}: {b}");
    }
    for (f, g, name) in [
        (&cut_disc, &bar, "cut disc/bar"),
        (&square, &bar, "square/bar"),
    ] {
        for (fixed1, fixed2) in CONFIGS {
            let mut case = Case {
                block: ContactBlock::between(f.clone(), g.clone(), friction())
                    .unwrap()
                    .into(),
                start1: planar_pose(0.1, 0.7, 0.3),
                start2: planar_pose(-0.1, 0.0, -0.2),
                fixed1,
                fixed2,
                h: 0.1,
            };
            for trial in 0..4 {
                let z = case.random_state(
                    &mut rng,
                    Vector2::new(0.2, 0.4),
                    Vector2::new(0.1, 0.2),
                    0.2,
                );
                let label = format!("{name} fixed=({fixed1},{fixed2}) trial {trial}");
                case.check(&z, &label);
                case.check_with_proximal(&z, &label);
                let levers = (Vector2::new(0.1, -0.3), Vector2::new(-0.2, 0.2));
                case.check_with_levers(&z, levers, &label);
            }
        }
    }
}

/// Two intersections in 3D: a capped cylinder-like part (a ball cut by two half-spaces)
/// against a box, and a box against a box, with torsion, anisotropic friction, proximal
/// terms and trapezoidal levers.
#[test]
fn jacobian_3d_two_intersections() {
    let mut rng = Rng(0x5eed_0003);
    let cut_ball = cut_ball();
    let cube = ConvexPart::<Spatial>::cuboid(Vector3::new(0.3, 0.25, 0.2)).unwrap();
    let slab = ConvexPart::<Spatial>::cuboid(Vector3::new(0.8, 0.6, 0.15)).unwrap();
    for (f, g, name) in [
        (&cut_ball, &slab, "cut ball/slab"),
        (&cube, &slab, "cube/slab"),
    ] {
        for (fixed1, fixed2) in CONFIGS {
            let mut block = ContactBlock::between(f.clone(), g.clone(), friction()).unwrap();
            block
                .set_tangent_reference(Vector3::new(0.3, 0.8, 0.2))
                .unwrap();
            let mut case = Case {
                block: block.into(),
                start1: spatial_pose(Vector3::new(0.1, 0.0, 0.6), Vector3::new(0.3, -0.2, 0.4)),
                start2: spatial_pose(Vector3::new(0.0, 0.1, 0.0), Vector3::new(-0.1, 0.2, 0.1)),
                fixed1,
                fixed2,
                h: 0.1,
            };
            for trial in 0..3 {
                let z = case.random_state(
                    &mut rng,
                    Vector3::new(0.1, 0.0, 0.35),
                    Vector3::new(0.0, 0.1, 0.15),
                    0.2,
                );
                let label = format!("{name} fixed=({fixed1},{fixed2}) trial {trial}");
                case.check(&z, &label);
                case.check_with_proximal(&z, &label);
                let levers = (
                    Vector3::new(0.05, -0.2, -0.3),
                    Vector3::new(-0.1, 0.15, 0.25),
                );
                case.check_with_levers(&z, levers, &label);
            }
        }
    }
}

/// Every local row has the name of its group in the module docs' table, each group as many
/// rows as it has unknowns: one function or an intersection on either side, 2D and 3D.
#[test]
fn every_row_is_named_after_its_equation() {
    let names = |l: ContactLayout| -> Vec<&'static str> {
        (0..l.local_count)
            .map(|i| l.row_name(i).split(' ').next().unwrap())
            .collect()
    };
    let count = |names: &[&str], name: &str| names.iter().filter(|n| **n == name).count();
    // F one function, G a box (four or six functions).
    let planar = names(ContactLayout::new::<Planar>(4));
    assert_eq!(
        planar,
        [
            "R1", "R1", "R2", "R2", "C1", "C2", "C2", "C2", "C2", "C3", "FR", "CS"
        ]
    );
    let spatial = names(ContactLayout::new::<Spatial>(6));
    for (name, n) in [
        ("R1", 3),
        ("R2", 3),
        ("C1", 1),
        ("C2", 6),
        ("C3", 1),
        ("FR", 3),
        ("CS", 1),
    ] {
        assert_eq!(count(&spatial, name), n, "{name} in {spatial:?}");
    }
    // F an intersection of five functions: `t`'s row, the normal source, F's multipliers.
    let two_sided = ContactLayout::two_sided::<Spatial>(5, 6);
    let names2 = names(two_sided);
    assert_eq!(
        two_sided.row_name(two_sided.l1),
        "the multipliers of F sum to one"
    );
    for (name, n) in [("RG", 3), ("CF", 5), ("C2", 6), ("C3", 1), ("CS", 1)] {
        assert_eq!(count(&names2, name), n, "{name} in {names2:?}");
    }
    // A compliant layer's own rows come after σ.
    let layered = ContactLayout::new::<Planar>(1).extended(2);
    assert_eq!(names(layered)[layered.sigma + 1..], ["law", "law"]);
}

/// The tangent reference is the coordinate axis least aligned with the normal, and axes
/// aligned with it alike to within rounding go to the first: a contact on the ground, whose
/// normal is `e_z` up to rounding in either tangent component, takes `e_x` whichever way the
/// rounding went (it used to take `e_y` when `|n_y| < |n_x|` by 1e-18).
#[test]
fn the_tangent_reference_does_not_depend_on_rounding() {
    let e = |x: f64, y: f64, z: f64| tangent_reference_for::<Spatial>(&Vector3::new(x, y, z));
    assert_eq!(e(1e-17, 1e-18, 1.0), Vector3::x());
    assert_eq!(e(1e-18, 1e-17, 1.0), Vector3::x());
    assert_eq!(e(-3e-16, 0.0, -1.0), Vector3::x());
    // Axes genuinely less aligned are chosen as before.
    assert_eq!(e(0.3, 0.1, 0.9), Vector3::y());
    assert_eq!(e(0.3, 0.5, 0.1), Vector3::z());
    assert_eq!(e(0.6, 0.6 + 1e-6, 0.5), Vector3::z());
    assert_eq!(e(0.7, 0.7 - 1e-6, 0.1), Vector3::z());
    assert_eq!(e(0.1, 0.1 - 1e-6, 0.99), Vector3::y());
}
