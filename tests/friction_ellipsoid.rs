//! The friction ellipsoid's coupling of sliding and spinning (paper eq. 5, maximum dissipation):
//! a puck sliding and spinning on flat ground, `examples/disc_spinning_sliding.toml`, run by
//! the implicit stepper (backward Euler, the default integrator).
//!
//! With slip `v`, spin `ω` about the normal and `S = √(e_t² v² + e_r² ω²)`, the law gives
//! `p_t = −μ p_n e_t² v/S` and `p_r = −μ p_n e_r² ω/S`. A puck lying flat carries
//! `p_n = m g h`, so backward Euler reads
//!
//! ```text
//! v_{k+1} (1 + a_k) = v_k,   ω_{k+1} (1 + κ a_k) = ω_k,   a_k = h μ g e_t² / S_{k+1},
//! κ = m e_r² / (I_z e_t²),
//! ```
//!
//! whose continuous limit is `ω/ω₀ = (v/v₀)^κ`. For `κ = 1` the ratio `ω/v` is kept exactly in
//! every step, `S = v √(e_t² + e_r² c²)` (`c = ω₀/v₀`) and the speed falls by the constant
//! `Δ = h μ g e_t² / √(e_t² + e_r² c²)` per step; for `κ ≠ 1` the discrete law is
//! `ln(ω_k/ω₀) = −Σ ln(1 + κ a)`, which approaches `κ ln(v_k/v₀)` at first order in `h`.
//!
//! Tolerances follow from the step's MCP, solved to `τ = 1e-10` in its rows' own units:
//!
//! * The friction law's rows FR (`e_k² μ p_n s_k + p_k σ = 0`) give `p_t` and `p_r` the same
//!   `σ`, so the two updates share `a_k` whatever `σ` the solve finds; only FR's and the
//!   momentum rows' final residuals, `τ (1 + 1/σ)` of impulse, could move them off the law
//!   (measured: `ω/v` kept to 8e-15 at `κ = 1`; at `κ = 2`, `h = 1e-3` the per-step law holds
//!   to 2e-8 m/s near the stop, where `1/σ` is large).
//! * The cone row CS, `μ² p_n² − Σ p_k²/e_k² ≥ 0 ⊥ σ ≥ 0`, is solved in N·s²: a sliding
//!   contact's friction may lie inside the ellipsoid by `τ`, a relative deficit of up to
//!   `ε = τ / (2 μ² p_n²)` of both impulses (3.2e-6 here, `p_n = 9.81e-3` N·s; measured
//!   8.0e-7 per step, a CS residual of 2.5e-11, so the speed ends 8.0e-7 m/s above the closed
//!   form after 390 steps). The speed's closed form is compared to `k Δ ε` (plus the residuals)
//!   after `k` steps.
//! * A sticking step ends with slip `|s_k| ≤ τ / (e_k² μ p_n)` (FR with `σ = 0`).

use implicit_contact::geometry::Spatial;
use implicit_contact::scenario::{self, Scenario};
use implicit_contact::stepper::{ContactState, ImplicitStepper};
use nalgebra::Vector3;

/// The puck's parameters, read from the scenario.
#[derive(Debug, Clone, Copy)]
struct Puck {
    mu: f64,
    e_t: f64,
    e_r: f64,
    m: f64,
    i_z: f64,
    i_x: f64,
    g: f64,
    h: f64,
    /// The solver's tolerance `τ`.
    tol: f64,
}

impl Puck {
    fn kappa(&self) -> f64 {
        self.m * self.e_r * self.e_r / (self.i_z * self.e_t * self.e_t)
    }

    /// The normal impulse of a step, `m g h`.
    fn p_n(&self) -> f64 {
        self.m * self.g * self.h
    }

    /// The largest relative deficit of the friction impulses a CS residual `τ` allows.
    fn cone_deficit(&self) -> f64 {
        self.tol / (2.0 * (self.mu * self.p_n()).powi(2))
    }
}

/// The puck's state after one step.
struct Record {
    v: Vector3<f64>,
    w: Vector3<f64>,
    position: Vector3<f64>,
    /// The sine of the angle between the puck's axis and the vertical.
    tilt: f64,
    /// The rotation about the vertical (rad).
    yaw: f64,
    contacts: Vec<ContactState>,
}

fn record(st: &ImplicitStepper<Spatial>) -> Record {
    let b = &st.scene.bodies[1];
    let axis = b.pose.rotation * Vector3::z();
    Record {
        v: b.twist.linear,
        w: b.twist.angular,
        position: b.pose.position,
        tilt: axis.cross(&Vector3::z()).norm(),
        yaw: b.pose.rotation.euler_angles().2,
        contacts: st.contacts(),
    }
}

fn load() -> Scenario {
    let path = format!(
        "{}/examples/disc_spinning_sliding.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    scenario::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// The scenario rebuilt after `edit` changed its file.
fn edited(sc: &Scenario, edit: impl FnOnce(&mut scenario::ScenarioFile)) -> Scenario {
    let mut file = sc.source.clone();
    edit(&mut file);
    file.build("edited disc_spinning_sliding")
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Runs the whole scenario (no step may be halved); the puck's parameters, its initial state
/// and its record after every step (`records[k]` after step `k + 1`).
fn run(sc: &Scenario) -> (Puck, Record, Vec<Record>) {
    let scenario::AnyScene::Spatial(scene) = sc.scene.clone() else {
        panic!("a 3D scenario");
    };
    let friction = scene.friction_between(0, 1);
    assert_eq!(
        friction.e_o, friction.e_t,
        "the closed forms assume e_o = e_t"
    );
    let body = &scene.bodies[1];
    let puck = Puck {
        mu: friction.mu,
        e_t: friction.e_t,
        e_r: friction.e_r,
        m: body.mass,
        i_z: body.inertia[(2, 2)],
        i_x: body.inertia[(0, 0)].min(body.inertia[(1, 1)]),
        g: -scene.gravity[2],
        h: scene.time_step,
        tol: sc.solver.tolerance,
    };
    let mut st = ImplicitStepper::new(scene, sc.stepper_settings()).unwrap();
    let start = record(&st);
    let records = (0..sc.step_count())
        .map(|k| {
            let r = st.step();
            assert!(r.converged, "step {}: {:?}", k + 1, r.failure);
            assert_eq!(r.retries, 0, "step {} was halved", k + 1);
            record(&st)
        })
        .collect();
    (puck, start, records)
}

fn speed(r: &Record) -> f64 {
    r.v.xy().norm()
}

/// One backward-Euler step of the law for a puck whose centre of mass lies at height `b` above
/// the contact plane, as the stepper writes it: `p_n = m g h`, no tilt (so the equivalent
/// contact point sits where the moments about the horizontal axes balance, `d = −b P / p_n =
/// μ b e_t² u/σ` from the centre, `P` the friction impulse), slip `u = v⁺ + ω⁺ ẑ × d` at that
/// point and `σ = √(e_t² |u|² + e_r² ω⁺²)`. With `A = h μ g e_t²/σ` and `λ = ω⁺ b A/(g h)`, in
/// complex numbers (`ẑ ×` is `i`): `u = v/(1 + A − iλ)`, `v⁺ = (1 − iλ) u`, `ω⁺ = ω/(1 + κ A)`;
/// `σ` is the one root of `σ = √(e_t² |u(σ)|² + e_r² ω⁺(σ)²)` (the right side over `σ`
/// decreases), found by bisection. Returns `(v⁺, ω⁺)`, zero when the contact sticks.
fn law_step(p: &Puck, b: f64, v: [f64; 2], w: f64) -> ([f64; 2], f64) {
    let k = p.h * p.mu * p.g * p.e_t * p.e_t;
    let kappa = p.kappa();
    let eval = |sigma: f64| {
        let a = k / sigma;
        let w1 = w / (1.0 + kappa * a);
        let lambda = w1 * b * a / (p.g * p.h);
        let (re, im) = (1.0 + a, -lambda);
        let den = re * re + im * im;
        // u = v / (re + i im)
        let u = [(v[0] * re + v[1] * im) / den, (v[1] * re - v[0] * im) / den];
        let v1 = [u[0] + lambda * u[1], u[1] - lambda * u[0]];
        let rhs = (p.e_t * p.e_t * (u[0] * u[0] + u[1] * u[1]) + p.e_r * p.e_r * w1 * w1).sqrt();
        (rhs, v1, w1)
    };
    // Sticking: as σ → 0 the right side over σ tends to √(e_t²|v|²/k² + e_r²ω²/(κk)²).
    let limit = ((p.e_t / k).powi(2) * (v[0] * v[0] + v[1] * v[1])
        + (p.e_r * w / (kappa * k)).powi(2))
    .sqrt();
    if limit <= 1.0 {
        return ([0.0, 0.0], 0.0);
    }
    let (mut lo, mut hi) = (
        0.0,
        (p.e_t * p.e_t * (v[0] * v[0] + v[1] * v[1]) + p.e_r * p.e_r * w * w).sqrt(),
    );
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if eval(mid).0 > mid {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let (_, v1, w1) = eval(hi);
    (v1, w1)
}

/// The law's state after a step: velocity, spin, position of the centre (horizontal) and yaw.
#[derive(Debug, Clone, Copy)]
struct LawState {
    v: [f64; 2],
    w: f64,
    x: [f64; 2],
    yaw: f64,
}

/// The law integrated from the puck's start for `steps` steps (positions `x += h v⁺`, as the
/// stepper's end-of-step poses).
fn law(p: &Puck, b: f64, start: &Record, steps: usize) -> Vec<LawState> {
    let mut s = LawState {
        v: [start.v[0], start.v[1]],
        w: start.w[2],
        x: [start.position[0], start.position[1]],
        yaw: start.yaw,
    };
    (0..steps)
        .map(|_| {
            let (v, w) = law_step(p, b, s.v, s.w);
            s = LawState {
                v,
                w,
                x: [s.x[0] + p.h * v[0], s.x[1] + p.h * v[1]],
                yaw: s.yaw + p.h * w,
            };
            s
        })
        .collect()
}

/// The first step (from 1) whose slip and spin both lie within what a sticking solve leaves,
/// `τ / (e_k² μ p_n)`: the step in which the contact sticks.
fn stop_step(p: &Puck, records: &[Record]) -> usize {
    let (v_stick, w_stick) = sticking_slip(p);
    records
        .iter()
        .position(|r| speed(r) <= v_stick && r.w[2].abs() <= w_stick)
        .expect("the puck stops")
        + 1
}

/// The slip and spin a sticking step may leave: FR's residual `τ` over `e_k² μ p_n`.
fn sticking_slip(p: &Puck) -> (f64, f64) {
    let f = p.mu * p.p_n();
    (p.tol / (p.e_t * p.e_t * f), p.tol / (p.e_r * p.e_r * f))
}

/// Compares the stepper with the law integrated by [`law`] step by step: the same sticking
/// step, and velocities, spins and positions within what the solve's tolerance allows,
/// accumulated over the steps (each step's friction may fall short by the cone deficit `ε`
/// of its largest values `μ e_t p_n`, `μ e_r p_n`, and the rows FR and momentum leave `τ (1 +
/// 1/σ)` of impulse). Returns the largest differences (speed, spin, position).
fn compare_with_law(p: &Puck, records: &[Record], law: &[LawState]) -> [f64; 3] {
    let stop = stop_step(p, records);
    let law_stop = law.iter().position(|s| s.v == [0.0, 0.0]).unwrap() + 1;
    assert_eq!(
        stop, law_stop,
        "the stepper and the law stick in the same step"
    );
    let eps = p.cone_deficit();
    let (mut bound_v, mut bound_w, mut bound_x) = (0.0, 0.0, 0.0);
    let mut worst = [0.0f64; 3];
    for (k, (r, l)) in records.iter().zip(law).enumerate().take(stop - 1) {
        let residual = p.tol * (1.0 + 1.0 / r.contacts[0].sigma);
        bound_v += eps * p.mu * p.e_t * p.g * p.h + residual / p.m;
        bound_w += eps * p.mu * p.e_r * p.p_n() / p.i_z + residual / p.i_z;
        bound_x += p.h * bound_v;
        let dv = (r.v.xy() - nalgebra::Vector2::from(l.v)).norm();
        let dw = (r.w[2] - l.w).abs();
        let dx = (r.position.xy() - nalgebra::Vector2::from(l.x)).norm();
        assert!(
            dv <= bound_v,
            "step {}: velocity off the law by {dv:e} > {bound_v:e}",
            k + 1
        );
        assert!(
            dw <= bound_w,
            "step {}: spin off the law by {dw:e} > {bound_w:e}",
            k + 1
        );
        assert!(
            dx <= bound_x,
            "step {}: position off the law by {dx:e} > {bound_x:e}",
            k + 1
        );
        worst = [worst[0].max(dv), worst[1].max(dw), worst[2].max(dx)];
    }
    worst
}

/// No tipping: the puck's axis stays vertical and it neither rises nor sinks. A tilt could only
/// come from the angular momentum rows' residuals, `|ω_x|, |ω_y| ≤ k τ / I_x` after `k` steps,
/// so a tilt of at most `h τ k (k + 1) / (2 I_x)` (7.6e-7 rad after the example's 391 sliding
/// steps, so below 1e-6 rad while it slides; 1.3e-6 after its 500): asserted at every step,
/// with `v_z ≤ k τ / m` (measured over the three tests: tilt ≤ 1.2e-21, `|ω_xy|` ≤ 4.2e-18,
/// `|v_z|` ≤ 2.0e-15).
fn assert_flat(p: &Puck, records: &[Record]) {
    for (k, r) in records.iter().enumerate() {
        let steps = (k + 1) as f64;
        let tilt_bound = p.h * p.tol * steps * (steps + 1.0) / (2.0 * p.i_x);
        assert!(r.tilt <= tilt_bound, "step {}: tilt {:e}", k + 1, r.tilt);
        let w_xy = r.w.xy().norm();
        assert!(
            w_xy <= steps * p.tol / p.i_x,
            "step {}: ω_xy {w_xy:e}",
            k + 1
        );
        assert!(
            r.v[2].abs() <= steps * p.tol / p.m,
            "step {}: v_z {:e}",
            k + 1,
            r.v[2]
        );
        for c in &r.contacts {
            assert!(
                (c.normal[2] - 1.0).abs() <= 1e-12,
                "step {}: normal {:?}",
                k + 1,
                c.normal
            );
        }
    }
}

/// `κ = 1`, the example as written: in every sliding step `ω_k / v_k = ω₀ / v₀ = c` and the
/// speed falls by the constant `Δ = h μ g e_t² / √(e_t² + e_r² c²)`, so the puck sticks — slip
/// and spin together — in step `K = ⌊v₀/Δ⌋ + 1` (391), after `Σ_{k<K} h (v₀ − k Δ)` and a turn
/// of `c` times that.
///
/// Tolerances:
/// * ratio, relative 1e-8: both rows share `σ`, so the ratio moves only with the rows' own
///   residuals. A priori those (≤ τ) would allow a relative change of `τ (1 + 1/σ) (1/(m v) +
///   1/(I_z ω))` per step, 1e-9 at the start but 1e-2 at the last sliding step; measured, the
///   ratio holds to 8e-15 at every step, so 1e-8 is six decades above what the stepper does
///   and far below a desynchronised law (the centre-at-mid-height puck below is off by 2.4e-4).
/// * speed: `k Δ ε + Σ τ (1 + 1/σ_j) / m` after `k` steps (the cone deficit `ε` of each
///   step's friction, 3.2e-6, and the rows' residuals); measured 8.0e-7 against 3.8e-6.
/// * stop: step `K` leaves the slip a sticking solve may, `τ / (e_k² μ p_n)` (4.0e-8 m/s,
///   2.0e-6 rad/s; measured 1.5e-9 and 7.3e-9, still in the ratio `c`); step `K + 1` starts from
///   that and ends at rounding, so both first fall below 1e-10 in that same step (measured 5.7e-15
///   and 2.9e-14) and stay there (measured ≤ 1e-18).
/// * distance and turn: the speed's bound summed over the steps (`h Σ`), the turn `c` times it.
#[test]
fn kappa_one_keeps_spin_over_slip_and_stops_both_in_one_step() {
    let sc = load();
    let (p, start, records) = run(&sc);
    assert!((p.kappa() - 1.0).abs() <= 1e-12, "κ = {}", p.kappa());
    assert_eq!([start.v[1], start.v[2]], [0.0, 0.0], "v₀ along x");
    let (v0, w0) = (start.v[0], start.w[2]);
    let c = w0 / v0;
    let delta = p.h * p.mu * p.g * p.e_t * p.e_t / (p.e_t * p.e_t + (p.e_r * c).powi(2)).sqrt();
    let stop = (v0 / delta).floor() as usize + 1;
    assert_eq!(stop, 391, "the example's header");
    let eps = p.cone_deficit();
    // The stop step is not moved by the deficit: v₀/Δ is 0.15 from a whole number, the
    // deficit moves it by at most K ε.
    let frac = v0 / delta - (v0 / delta).floor();
    assert!(frac.min(1.0 - frac) > 2.0 * stop as f64 * eps);

    assert_flat(&p, &records);
    let (v_stick, w_stick) = sticking_slip(&p);
    let (mut bound, mut distance, mut distance_bound) = (0.0, 0.0, 0.0);
    let (mut worst_ratio, mut worst_speed) = (0.0f64, 0.0f64);
    for (k, r) in records.iter().enumerate().take(stop - 1) {
        let k1 = (k + 1) as f64;
        let c_k = &r.contacts[0];
        bound += delta * eps + p.tol * (1.0 + 1.0 / c_k.sigma) / p.m;
        let v = v0 - k1 * delta;
        distance += p.h * v;
        distance_bound += p.h * bound;
        let ratio = r.w[2] / speed(r) / c - 1.0;
        assert!(
            ratio.abs() <= 1e-8,
            "step {}: ω/v off c by {ratio:e}",
            k + 1
        );
        assert!(
            (speed(r) - v).abs() <= bound,
            "step {}: speed {} vs {v} (bound {bound:e})",
            k + 1,
            speed(r)
        );
        assert!(
            r.v[1].abs() <= k1 * p.tol / p.m,
            "step {}: v_y {:e}",
            k + 1,
            r.v[1]
        );
        assert!(speed(r) > v_stick, "step {}: still sliding", k + 1);
        // The equivalent contact point stays under the centre: its lever balances `b P = 0`
        // to the moment rows' residual, `|d| ≤ τ / p_n` (1e-8 m).
        let d = (c_k.a2[0] - r.position[0]).hypot(c_k.a2[1] - r.position[1]);
        assert!(
            d <= p.tol / p.p_n(),
            "step {}: contact point {d:e} off",
            k + 1
        );
        // p_n = m g h: the vertical momentum row to τ, plus m times the change of v_z.
        assert!((c_k.normal_impulse - p.p_n()).abs() <= p.tol + 2.0 * k1 * p.tol);
        worst_ratio = worst_ratio.max(ratio.abs());
        worst_speed = worst_speed.max((speed(r) - v).abs());
    }
    let measured_stop = stop_step(&p, &records);
    assert_eq!(measured_stop, stop, "slip and spin stick in step K");
    let at_stop = &records[stop - 1];
    assert!(speed(at_stop) <= v_stick && at_stop.w[2].abs() <= w_stick);
    let first_v = records.iter().position(|r| speed(r) <= 1e-10).unwrap() + 1;
    let first_w = records.iter().position(|r| r.w[2].abs() <= 1e-10).unwrap() + 1;
    assert_eq!(
        first_v, first_w,
        "slip and spin reach zero in the same step"
    );
    assert!(
        first_v == stop || first_v == stop + 1,
        "{first_v} vs K = {stop}"
    );
    for (k, r) in records.iter().enumerate().skip(first_v - 1) {
        assert!(
            speed(r) <= 1e-10 && r.w[2].abs() <= 1e-10,
            "step {}: {:?} {:?}",
            k + 1,
            r.v,
            r.w
        );
    }
    let end = records.last().unwrap();
    let dx = end.position[0] - distance;
    let dyaw = end.yaw - c * distance;
    assert!(
        dx.abs() <= distance_bound,
        "distance {} vs {distance}",
        end.position[0]
    );
    assert!(end.position[1].abs() <= records.len() as f64 * p.h * records.len() as f64 * p.tol);
    let yaw_bound =
        c * distance_bound + 1e-8 * c * distance + p.h * (w_stick + records.len() as f64 * 1e-10);
    assert!(
        dyaw.abs() <= yaw_bound,
        "turn {} vs {}",
        end.yaw,
        c * distance
    );
    println!(
        "κ = 1: stop step {measured_stop} (closed form {stop}), first ≤ 1e-10 at step \
         {first_v}; worst ratio error {worst_ratio:.1e}; worst speed error {worst_speed:.2e} \
         (bound {bound:.2e}); \
         slip/spin at K {:.2e}/{:.2e}, at K+1 {:.2e}/{:.2e}; distance {:.10} vs {distance:.10} \
         ({dx:.1e}, bound {distance_bound:.1e}), turn {:.10} vs {:.10} ({dyaw:.1e})",
        speed(at_stop),
        at_stop.w[2],
        speed(&records[stop]),
        records[stop].w[2],
        end.position[0],
        end.yaw,
        c * distance,
    );
}

/// `κ = 2` (`e_r = e_t √(2 I_z/m)`), at `h` = 4e-3, 2e-3 and 1e-3:
///
/// * every sliding step obeys the discrete law with the stepper's own `a_k = h μ g e_t²/σ_k`,
///   `v_k (1 + a_k) = v_{k−1}` and `ω_k (1 + κ a_k) = ω_{k−1}`, to the rows' residuals: `τ (1 +
///   1/σ_k)` of impulse, over `m` and `I_z` (FR's residual over `σ`, the momentum row's;
///   measured ≤ 3e-14 m/s at the two larger steps, 2.1e-8 m/s at `h = 1e-3` near the stop);
/// * the stepper follows the law integrated here ([`law`]) step by step and sticks in the
///   same step (92, 183, 366), within the accumulated bounds of [`compare_with_law`]
///   (measured ≤ 1.1e-6 m/s and 3.0e-6 rad/s at `h = 1e-3`, the cone deficit's);
/// * `ln(ω/ω₀) / ln(v/v₀)` at `t = 0.2 s` tends to `κ = 2` at first order: the error
///   `≈ −κ(κ−1)/2 · Σa²/Σa` is negative and halves with `h` (measured −1.469e-2, −7.394e-3,
///   −3.710e-3, ratios 1.986 and 1.993: asserted within 0.05 of 2, the `O(h)` correction of
///   the ratio itself halving too).
#[test]
fn kappa_two_follows_the_discrete_law_and_tends_to_the_power_law_at_first_order() {
    let base = load();
    let mut errors = Vec::new();
    for h in [4e-3, 2e-3, 1e-3] {
        let sc = edited(&base, |f| {
            let (m, i_z): (f64, f64) = (1.0, 0.02);
            f.friction.e_r = Some(f.friction.e_t * (2.0 * i_z / m).sqrt());
            f.simulation.time_step = h;
        });
        let (p, start, records) = run(&sc);
        assert!(
            (p.m, p.i_z) == (1.0, 0.02),
            "the edit above assumes the example's puck"
        );
        assert!((p.kappa() - 2.0).abs() <= 1e-12, "κ = {}", p.kappa());
        assert_flat(&p, &records);
        let stop = stop_step(&p, &records);
        let (mut prev_v, mut prev_w) = (speed(&start), start.w[2]);
        let mut worst_step = [0.0f64; 2];
        for (k, r) in records.iter().enumerate().take(stop - 1) {
            let sigma = r.contacts[0].sigma;
            let a = p.h * p.mu * p.g * p.e_t * p.e_t / sigma;
            let residual = p.tol * (1.0 + 1.0 / sigma);
            let rv = speed(r) * (1.0 + a) - prev_v;
            let rw = r.w[2] * (1.0 + p.kappa() * a) - prev_w;
            assert!(
                rv.abs() <= residual / p.m,
                "step {}: v law off by {rv:e}",
                k + 1
            );
            assert!(
                rw.abs() <= residual / p.i_z,
                "step {}: ω law off by {rw:e}",
                k + 1
            );
            worst_step = [worst_step[0].max(rv.abs()), worst_step[1].max(rw.abs())];
            (prev_v, prev_w) = (speed(r), r.w[2]);
        }
        let recursion = law(&p, 0.0, &start, records.len());
        let worst = compare_with_law(&p, &records, &recursion);
        let at = (0.2 / h).round() as usize - 1;
        assert!(at + 1 < stop, "still sliding at 0.2 s");
        let r = &records[at];
        let e = (r.w[2] / start.w[2]).ln() / (speed(r) / speed(&start)).ln() - 2.0;
        let l = &recursion[at];
        let e_law = (l.w / start.w[2]).ln() / (l.v[0].hypot(l.v[1]) / speed(&start)).ln() - 2.0;
        println!(
            "κ = 2, h = {h}: ln ω/ln v − 2 at 0.2 s = {e:.6e} (law integrated here {e_law:.6e}); \
             stop step {stop}; per-step law residual {:.1e} m/s, {:.1e} rad/s; off the law by \
             {:.1e} m/s, {:.1e} rad/s, {:.1e} m",
            worst_step[0], worst_step[1], worst[0], worst[1], worst[2]
        );
        assert!(e < 0.0, "h = {h}: {e}");
        errors.push(e);
    }
    for pair in errors.windows(2) {
        let ratio = pair[0] / pair[1];
        assert!(
            (ratio - 2.0).abs() <= 0.05,
            "error ratio {ratio} when h halves: {errors:?}"
        );
    }
}

/// The same puck with its centre of mass at mid-height `b = 5 mm` (the cylinder's own centre),
/// the law's assumption broken: sliding friction `P` at the ground now has a lever `b`, and
/// since the puck does not tip, its equivalent contact point leads the centre by `d = −b P/p_n
/// = μ b e_t² u/σ` (1.31 mm here). Spinning, that point's slip `u = v + ω ẑ × d` turns away
/// from `v` by `atan λ`, `λ = ω μ b e_t²/σ` (6.5e-3, constant while `ω/v` is): the friction
/// pulls sideways, the path curves (6.4e-4 m to the right of a left-spinning puck) and the
/// slip is smaller than `v`, so `d ln ω / d ln v = 1 + λ²` instead of `κ = 1`: `ω/v` falls below
/// `c` by `≈ λ² ln(v₀/v)` (2.4e-4 at the last sliding step).
///
/// Asserted: no tilt; the contact point's lead balances the moments, `|d p_n + b P| ≤ τ` (the
/// horizontal moment rows) plus the change of `I_x ω_xy` (measured ≤ 3.5e-19 N·m·s); the
/// stepper follows the law with the lever ([`law`], `b` = 5 mm) within [`compare_with_law`]'s
/// bounds, so its ratio error at the last sliding step is the lever law's to the relative
/// `δv/v + δω/ω` those bounds allow there (measured 3e-5 of it); the law without the lever
/// keeps the ratio (to 1e-12), and the departure from it is far above the `κ = 1` test's
/// tolerances: ratio error < −1e-4 (measured −2.41e-4) and a sideways offset < −1e-4 m
/// (measured −6.35e-4 m, the lever law's within [`compare_with_law`]'s position bound).
#[test]
fn a_puck_with_its_centre_at_mid_height_curves_and_loses_the_ratio() {
    let base = load();
    let b = 0.005;
    let sc = edited(&base, |f| {
        f.body[1].position = vec![0.0, 0.0, b];
        f.body[1].part[0].position = None;
        assert_eq!(f.body[1].part[0].half_height, Some(b));
    });
    let (p, start, records) = run(&sc);
    assert_flat(&p, &records);
    let stop = stop_step(&p, &records);
    for (k, r) in records.iter().enumerate().take(stop - 1) {
        let c = &r.contacts[0];
        let dw = if k == 0 {
            r.w - start.w
        } else {
            r.w - records[k - 1].w
        };
        for i in 0..2 {
            let d = c.a2[i] - r.position[i];
            // The lever's height is the centre's at the end of the step (b + h v_z).
            let balance = d * c.normal_impulse + r.position[2] * c.friction[i];
            let bound = p.tol + p.i_x * dw.xy().norm();
            assert!(
                balance.abs() <= bound,
                "step {}: lever balance {balance:e}",
                k + 1
            );
        }
    }
    let recursion = law(&p, b, &start, records.len());
    let worst = compare_with_law(&p, &records, &recursion);
    let plain = law(&p, 0.0, &start, records.len());
    let c = start.w[2] / speed(&start);
    let last = &records[stop - 2];
    let ratio = last.w[2] / speed(last) / c - 1.0;
    let l = &recursion[stop - 2];
    let ratio_law = l.w / l.v[0].hypot(l.v[1]) / c - 1.0;
    let q = &plain[stop - 2];
    let ratio_plain = q.w / q.v[0].hypot(q.v[1]) / c - 1.0;
    let end = records.last().unwrap();
    let y_law = recursion.last().unwrap().x[1];
    println!(
        "centre at mid-height: ω/v/c − 1 at the last sliding step {ratio:.4e} (lever law \
         {ratio_law:.4e}, law without lever {ratio_plain:.1e}); sideways {:.4e} m (lever law \
         {y_law:.4e}); stop step {stop}; off the lever law by {:.1e} m/s, {:.1e} rad/s, {:.1e} m; \
         ratio minus the lever law {:.1e}",
        end.position[1],
        worst[0],
        worst[1],
        worst[2],
        ratio - ratio_law
    );
    assert!(ratio_plain.abs() <= 1e-12, "the plain law keeps the ratio");
    let relative = worst[0] / l.v[0].hypot(l.v[1]) + worst[1] / l.w;
    assert!(
        (ratio - ratio_law).abs() <= (1.0 + ratio_law) * relative,
        "{ratio:e} vs {ratio_law:e} (allowed {relative:e})"
    );
    assert!(ratio < -1e-4, "the lever breaks the ratio: {ratio:e}");
    assert!(
        end.position[1] < -1e-4,
        "the path curves: {:e}",
        end.position[1]
    );
}
