//! Contact between two intersections of convex functions (boxes on boxes, issue 16): the
//! scenario files under `examples/`, each run by the implicit stepper and compared with its
//! closed form.
//!
//! Tolerances: the step's MCP is solved to a natural residual of 1e-10 (the proximal outer
//! iteration stops at that residual of the paper's rows), so impulses and velocities are exact
//! to about 1e-10 per step; positions integrate velocities of that size over the run. Closed
//! forms of the discrete (implicit Euler) motion are compared to 1e-9; the tipping case
//! compares the first step's angular acceleration with the continuous one, which the scheme
//! reproduces to `O(h)` (measured 0.3 % at `h = 1e-3`).

use implicit_contact::model::{Dynamics, Integrator};
use implicit_contact::scenario::{self, AnyScene};
use implicit_contact::stepper::{ContactState, ImplicitStepper};

/// One step's state: each body's pose coordinates and twist (by body, as
/// `[position…, angle or quaternion…]`, `[v…, ω…]`) and the contacts.
struct Record {
    position: Vec<Vec<f64>>,
    twist: Vec<Vec<f64>>,
    contacts: Vec<ContactState>,
}

fn record<S: Dynamics>(st: &ImplicitStepper<S>) -> Record {
    let bodies = &st.scene.bodies;
    Record {
        position: bodies
            .iter()
            .map(|b| (0..S::DIM).map(|i| b.pose.position[i]).collect())
            .collect(),
        twist: bodies
            .iter()
            .map(|b| {
                let mut v: Vec<f64> = (0..S::DIM).map(|i| b.twist.linear[i]).collect();
                v.extend((0..S::ANGULAR_DIM).map(|i| b.twist.angular[i]));
                v
            })
            .collect(),
        contacts: st.contacts(),
    }
}

fn run_stepper<S: Dynamics>(st: ImplicitStepper<S>, steps: usize) -> Vec<Record> {
    run_halving(st, steps, 0)
}

/// [`run_stepper`] allowing each step `halvings` halvings.
fn run_halving<S: Dynamics>(
    mut st: ImplicitStepper<S>,
    steps: usize,
    halvings: usize,
) -> Vec<Record> {
    let mut out = vec![record(&st)];
    for k in 0..steps {
        let r = st.step();
        assert!(r.converged, "step {k}: {:?}", r.failure);
        assert!(
            r.retries <= halvings,
            "step {k} was halved {} times",
            r.retries
        );
        out.push(record(&st));
    }
    out
}

/// Runs `examples/<name>.toml` for `steps` steps (all of them if `None`); the record of every
/// step, the first being the start.
fn run(name: &str, steps: Option<usize>) -> Vec<Record> {
    let path = format!("{}/examples/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    let sc = scenario::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let steps = steps.unwrap_or(sc.step_count());
    let settings = sc.stepper_settings();
    match sc.scene {
        AnyScene::Planar(s) => run_stepper(ImplicitStepper::new(s, settings).unwrap(), steps),
        AnyScene::Spatial(s) => run_stepper(ImplicitStepper::new(s, settings).unwrap(), steps),
    }
}

const G: f64 = 9.81;

fn close(a: f64, b: f64, tol: f64, what: &str) {
    assert!((a - b).abs() <= tol, "{what}: {a} vs {b} (tolerance {tol})");
}

/// 10⁴ steps at rest, 2D and 3D: no motion, the equivalent contact point under the centre
/// of mass, the normal impulse `m g h`, no penetration.
#[test]
fn a_box_rests_on_a_box() {
    for name in ["box_on_box_2d", "box_on_box_3d"] {
        let records = run(name, Some(10_000));
        for (k, r) in records.iter().enumerate().skip(1) {
            let v = &r.twist[1];
            assert!(v.iter().all(|x| x.abs() <= 1e-10), "{name} step {k}: {v:?}");
            assert_eq!(r.contacts.len(), 1, "{name} step {k}");
            let c = &r.contacts[0];
            close(c.normal_impulse, G * 0.01, 1e-12, "p_n = m g h");
            for i in 0..c.a1.len() - 1 {
                close(
                    c.a1[i],
                    r.position[1][i],
                    1e-9,
                    "contact point under the centre",
                );
            }
            assert!(c.penetration <= 1e-9, "{name} step {k}: {}", c.penetration);
            assert!(c.friction_impulse <= 1e-12, "{name} step {k}");
        }
    }
}

/// A constant force `(2, 1, 0)` N at the cube's centre, below sliding and tipping: the cube
/// stays, friction balances the push, and the contact point moves by `F b / (m g)` so that
/// the moments balance (`b = 0.5` m).
#[test]
fn a_pushed_box_moves_its_contact_point_not_itself() {
    let records = run("box_pushed_3d", None);
    for r in &records[1..] {
        assert!(
            r.twist[1].iter().all(|x| x.abs() <= 1e-10),
            "{:?}",
            r.twist[1]
        );
        let c = &r.contacts[0];
        close(c.a1[0], 2.0 * 0.5 / G, 1e-9, "contact point x");
        close(c.a1[1], 1.0 * 0.5 / G, 1e-9, "contact point y");
        close(
            c.friction_impulse,
            0.01 * 5f64.sqrt(),
            1e-10,
            "friction = push",
        );
        close(c.normal_impulse, G * 0.01, 1e-10, "p_n");
    }
}

/// Above the tipping force the square pivots about its leading corner: the contact point is
/// the corner and the first step's angular acceleration is the rigid pivot's,
/// `(F b − m g a) / (I + m (a² + b²))`, to `O(h)`.
#[test]
fn a_box_pushed_above_the_tipping_force_pivots_about_its_edge() {
    let records = run("box_tipping_2d", None);
    let (f, a, b, inertia, h) = (12.0, 0.5, 0.5, 1.0 / 6.0, 1e-3);
    let alpha = (f * b - G * a) / (inertia + a * a + b * b);
    let measured = -records[1].twist[1][2] / h;
    close(measured, alpha, 5e-3 * alpha, "angular acceleration");
    for r in &records[1..] {
        let c = &r.contacts[0];
        assert!(c.a1[0] > 0.5 - 1e-9, "the pivot is the corner: {:?}", c.a1);
        assert!(r.twist[1][2] < 0.0, "tipping forward");
    }
    // Still pivoting: the square turns faster every step.
    let w: Vec<f64> = records.iter().map(|r| -r.twist[1][2]).collect();
    assert!(w.windows(2).all(|p| p[1] > p[0]), "{w:?}");
}

/// Euler's discrete sliding: the speed falls by `μ g h` per step exactly, the square sticks in
/// the step after its speed drops below `μ g h` and stays, the distance is `Σ h vₖ`, the
/// contact point leads the centre by `μ b` while sliding, and the square does not tip.
#[test]
fn a_box_slides_on_a_box_with_eulers_deceleration() {
    let records = run("box_sliding_2d", None);
    let (mu, h, v0, b) = (0.5, 0.01, 1.0, 0.5);
    let dv = mu * G * h;
    let stop = (v0 / dv).floor() as usize + 1;
    assert_eq!(stop, 21);
    let mut x = 0.0;
    for (k, r) in records.iter().enumerate().skip(1) {
        let v = if k < stop { v0 - k as f64 * dv } else { 0.0 };
        x += h * v;
        close(r.twist[1][0], v, 1e-9, &format!("speed at step {k}"));
        close(r.position[1][0], x, 1e-9, &format!("distance at step {k}"));
        assert!(r.twist[1][2].abs() <= 1e-10, "no tipping: {:?}", r.twist[1]);
        if k < stop {
            let c = &r.contacts[0];
            close(
                c.a1[0] - r.position[1][0],
                mu * b,
                1e-9,
                "contact point lead",
            );
        }
    }
}

/// A cube launched diagonally slides along a straight line and stops at the discrete
/// distance `Σ h vₖ` (speeds falling by `μ g h`), the continuous `|v₀|²/(2 μ g)` to `O(h)`.
#[test]
fn a_cube_sliding_diagonally_stops_on_a_straight_line() {
    let records = run("cube_sliding_diagonal", None);
    let (mu, h) = (0.4, 0.01);
    let dv = mu * G * h;
    let stop = (1.0 / dv).floor() as usize + 1;
    let distance: f64 = (1..stop).map(|k| h * (1.0 - k as f64 * dv)).sum();
    let end = &records.last().unwrap().position[1];
    close(end[0], 0.6 * distance, 1e-9, "x");
    close(end[1], 0.8 * distance, 1e-9, "y");
    close(end[2], 0.5, 1e-9, "z");
    assert!((distance - 1.0 / (2.0 * mu * G)).abs() < 0.05 * distance);
    for r in &records {
        let p = &r.position[1];
        close(0.8 * p[0], 0.6 * p[1], 1e-9, "on the line");
    }
}

/// A cube spinning on a box slows by `μ m g e_r / I_z` under the torsion law.
#[test]
fn a_spinning_cube_slows_under_the_torsion_law() {
    let records = run("cube_spinning", None);
    let (mu, e_r, iz, h) = (0.5, 0.2, 1.0 / 6.0, 0.01);
    let dw = mu * G * e_r / iz * h;
    let stop = (2.0 / dw).floor() as usize + 1;
    for (k, r) in records.iter().enumerate().skip(1) {
        let w = if k < stop { 2.0 - k as f64 * dw } else { 0.0 };
        close(r.twist[1][5], w, 1e-9, &format!("spin at step {k}"));
        assert!(r.twist[1][..5].iter().all(|x| x.abs() <= 1e-9));
    }
}

/// Five cubes stacked on a table rest: each contact carries the weight above it, `k m g h`.
#[test]
fn a_stack_of_five_boxes_rests() {
    let records = run("box_stack_5", None);
    let last = records.last().unwrap();
    for (b, v) in last.twist.iter().enumerate().skip(1) {
        assert!(v.iter().all(|x| x.abs() <= 1e-9), "box {b}: {v:?}");
        close(last.position[b][2], b as f64 - 0.5, 1e-9, "height");
    }
    let mut loads: Vec<f64> = last
        .contacts
        .iter()
        .map(|c| c.normal_impulse)
        .filter(|p| *p > 0.0)
        .collect();
    loads.sort_by(f64::total_cmp);
    assert_eq!(loads.len(), 5);
    for (k, p) in loads.iter().enumerate() {
        close(*p, (k + 1) as f64 * G * 0.01, 1e-8, "load");
    }
}

/// Crossed edges of two cubes: the upper cube lands on the one point where its lower edge
/// crosses the fixed cube's upper edge, above the centres (`z = √2/2`), and rests there,
/// balanced by symmetry, with `p_n = m g h`.
#[test]
fn crossed_edges_meet_at_one_point() {
    let records = run("cubes_crossed_edges", None);
    let last = records.last().unwrap();
    let c = &last.contacts[0];
    close(c.a1[0], 0.0, 1e-9, "x");
    close(c.a1[1], 0.0, 1e-9, "y");
    close(c.a1[2], 0.5f64.sqrt(), 1e-9, "z");
    close(c.normal_impulse, G * 0.01, 1e-9, "p_n");
    close(
        last.position[1][2],
        2f64.sqrt(),
        1e-9,
        "upper cube's centre",
    );
    assert!(
        last.twist[1].iter().all(|v| v.abs() <= 1e-9),
        "{:?}",
        last.twist[1]
    );
}

/// A tower of four cubes knocked over by a rolling sphere: every step solves without
/// halving, nothing penetrates and the total energy never rises by more than rounding
/// (1e-8 J against 23 J).
#[test]
fn a_tower_of_boxes_is_knocked_over_by_a_sphere() {
    let path = format!(
        "{}/examples/box_tower_knocked.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let sc = scenario::load(&path).unwrap();
    let AnyScene::Spatial(scene) = sc.scene.clone() else {
        panic!("3D")
    };
    let mut st = ImplicitStepper::new(scene, sc.stepper_settings()).unwrap();
    let mut energy = st.scene.kinetic_energy() + st.scene.potential_energy();
    for k in 0..sc.step_count() {
        let r = st.step();
        assert!(r.converged, "step {k}: {:?}", r.failure);
        for c in st.contacts() {
            assert!(c.penetration <= 1e-9, "step {k}: {}", c.penetration);
        }
        let e = st.scene.kinetic_energy() + st.scene.potential_energy();
        assert!(e <= energy + 1e-8, "step {k}: {energy} → {e}");
        energy = e;
    }
    let z = |name: &str| {
        st.scene.bodies[st.scene.body_index(name).unwrap()]
            .pose
            .position[2]
    };
    let toppled = (0..4).filter(|k| z(&format!("cube{k}")) < 0.5).count();
    assert!(z("cube3") < 0.2, "the top cube fell: {}", z("cube3"));
    assert!(toppled >= 3, "{toppled}");
}

/// The closed form of a rigid, perfectly inelastic impact of a square's corner (lever `r`
/// from the centre) on a fixed flat box, at velocity `v`, without spin: frictionless, the
/// normal impulse stops the corner's normal velocity; sticking, the whole corner velocity
/// stops (`K P = −u`, `K` the corner's inverse inertia). Returns `(P_t, P_n, v_x, v_y, ω)`.
fn corner_impact(r: [f64; 2], v: [f64; 2], m: f64, i: f64, sticking: bool) -> [f64; 5] {
    let u = v;
    let (pt, pn) = if sticking {
        let k = [
            [1.0 / m + r[1] * r[1] / i, -r[0] * r[1] / i],
            [-r[0] * r[1] / i, 1.0 / m + r[0] * r[0] / i],
        ];
        let det = k[0][0] * k[1][1] - k[0][1] * k[1][0];
        (
            (-u[0] * k[1][1] + u[1] * k[0][1]) / det,
            (-u[1] * k[0][0] + u[0] * k[1][0]) / det,
        )
    } else {
        (0.0, -u[1] / (1.0 / m + r[0] * r[0] / i))
    };
    let w = (r[0] * pn - r[1] * pt) / i;
    [pt, pn, v[0] + pt / m, v[1] + pn / m, w]
}

/// One step of `examples/<file>.toml` at `h` (each step allowed `halvings` halvings): the
/// largest difference from `expected` of `(P_t, P_n, v_x, v_y, ω)` (the friction impulse on
/// the square, body 1, is the contact's `−P`).
fn corner_impact_error(file: &str, h: f64, halvings: usize, expected: &[f64; 5]) -> f64 {
    corner_impact_error_with(file, h, halvings, expected, None)
}

/// [`corner_impact_error`] under `integrator` (`None`: the file's).
fn corner_impact_error_with(
    file: &str,
    h: f64,
    halvings: usize,
    expected: &[f64; 5],
    integrator: Option<Integrator>,
) -> f64 {
    let path = format!("{}/examples/{file}.toml", env!("CARGO_MANIFEST_DIR"));
    let sc = scenario::load(&path).unwrap();
    let sc = if h > sc.time_step {
        sc.with_duration(h).unwrap().with_time_step(h).unwrap()
    } else {
        sc.with_time_step(h).unwrap().with_duration(h).unwrap()
    };
    let AnyScene::Planar(scene) = sc.scene.clone() else {
        panic!("2D")
    };
    let mut settings = sc.stepper_settings();
    if let Some(integrator) = integrator {
        settings.integrator = integrator;
    }
    let st = ImplicitStepper::new(scene, settings).unwrap();
    let records = run_halving(st, 1, halvings);
    let (rec, c) = (&records[1], &records[1].contacts[0]);
    let got = [
        -c.friction[0],
        c.normal_impulse,
        rec.twist[1][0],
        rec.twist[1][1],
        rec.twist[1][2],
    ];
    let err = got
        .iter()
        .zip(expected)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    eprintln!("{file} at h = {h} ({integrator:?}): {got:?}, error {err:.2e}");
    err
}

/// The lever of the lowest corner of a unit square turned by 30°.
fn corner_lever() -> [f64; 2] {
    let (s, c) = 30f64.to_radians().sin_cos();
    [-0.5 * c + 0.5 * s, -0.5 * s - 0.5 * c]
}

/// A unit square striking a box corner-first at 30°, frictionless: one step against the
/// rigid-impact closed form. The step imposes non-penetration at its end, on the corner's
/// end-of-step position, so the impulse differs from the instantaneous impact's by `O(h)`:
/// 2.3e-4 at `h = 1e-4`, tenfold less at `h = 1e-5` (first order); 3–5 Newton iterations.
#[test]
fn a_square_striking_a_box_corner_first_matches_the_rigid_impact() {
    let expected = corner_impact(corner_lever(), [0.5, -1.0], 1.0, 1.0 / 6.0, false);
    let file = "square_corner_impact_mu00";
    let coarse = corner_impact_error(file, 1e-4, 0, &expected);
    let fine = corner_impact_error(file, 1e-5, 0, &expected);
    assert!(
        coarse < 5.0 * 1e-4 && fine < 0.2 * coarse,
        "{coarse:.2e} {fine:.2e}"
    );
}

/// The same impact at μ = 0.5, above the sticking impulses' ratio 0.044: the corner sticks
/// and the step matches the sticking closed form to first order in `h` (7.6e-5 at `h = 1e-4`,
/// 7.6e-6 at `1e-5`), without halving (3 Newton iterations). Before the closing contact's start impulse
/// (`stepper::implicit::impact`) the step at `1e-4` converged only after four halvings (1376
/// iterations) and the one at `1e-5` not at all: the path search crept in the valley of the
/// overlap's near-solution, whose residual is only `v h`.
#[test]
fn a_square_striking_a_box_corner_first_sticks_above_the_impulse_ratio() {
    let expected = corner_impact(corner_lever(), [0.5, -1.0], 1.0, 1.0 / 6.0, true);
    assert!(expected[0].abs() < 0.5 * expected[1], "μ above the ratio");
    for h in [1e-4, 1e-5] {
        let err = corner_impact_error("square_corner_impact_mu05", h, 0, &expected);
        assert!(err < 10.0 * h, "h = {h}: {err:.2e}");
    }
}

/// The sticking impact under the other integrators, whose MCPs carry the contact impulse at
/// full weight as Euler's does, so the closing contact starts at the impulse that stops it
/// under them too. Both match the sticking closed form to first order, without halving (3
/// Newton iterations): RATTLE 4.2e-5 at `h = 1e-4` and 4.2e-6 at `1e-5` (its projection stops
/// the corner at the end-of-step configuration), midpoint 7.6e-5 and 7.6e-6. Without that
/// start RATTLE's step at `1e-4` converged only after four halvings (1399 iterations) and the
/// one at `1e-5` not at all.
#[test]
fn the_sticking_corner_impact_needs_no_halving_under_rattle_and_midpoint() {
    let expected = corner_impact(corner_lever(), [0.5, -1.0], 1.0, 1.0 / 6.0, true);
    for integrator in [Integrator::Rattle, Integrator::Midpoint] {
        for h in [1e-4, 1e-5] {
            let err = corner_impact_error_with(
                "square_corner_impact_mu05",
                h,
                0,
                &expected,
                Some(integrator),
            );
            assert!(err < 10.0 * h, "{integrator:?}, h = {h}: {err:.2e}");
        }
    }
}

/// A compliant layer (paper §5) on a contact between two intersections, on either side: a
/// square settling on a box whose layer is on the fixed side `G`, and a cube with its own layer
/// (the moving side `F`, an intersection of six functions) on a rigid box. Critically damped,
/// both come to rest at implicit Euler's closed form `h k δ_n = m g h`: the centre `m g / k`
/// (9.81 mm) below where the rigid boxes would touch, the contact point under it, `p_n = m g h`.
/// After 5 s (the transient decays as `e^{−ω t}`, `ω = 31.6 rad/s`) only the solve's 1e-10 is
/// left, hence 1e-9.
#[test]
fn a_box_settles_on_a_compliant_layer_at_m_g_over_k() {
    for (name, up) in [
        ("box_on_compliant_box_2d", 1),
        ("compliant_cube_on_box_3d", 2),
    ] {
        let records = run(name, None);
        let last = records.last().unwrap();
        let deflection = G * 1.0 / 1000.0;
        close(
            last.position[1][up],
            0.5 - deflection,
            1e-9,
            &format!("{name}: height"),
        );
        assert!(
            last.twist[1].iter().all(|v| v.abs() <= 1e-9),
            "{name}: {:?}",
            last.twist[1]
        );
        assert_eq!(last.contacts.len(), 1, "{name}");
        let c = &last.contacts[0];
        let q = c.quasi_rigid.expect("a quasi-rigid contact");
        close(q.deflection, deflection, 1e-9, &format!("{name}: δ_n"));
        close(c.normal_impulse, G * 0.01, 1e-9, &format!("{name}: p_n"));
        for i in 0..up {
            close(
                c.a1[i],
                last.position[1][i],
                1e-9,
                "contact point under the centre",
            );
        }
        for (k, r) in records.iter().enumerate() {
            for c in &r.contacts {
                assert!(c.penetration <= 1e-9, "{name} step {k}: {}", c.penetration);
            }
        }
    }
}

/// A cube dropped from 0.1 m onto a box with an undamped layer, under the energy-consistent
/// midpoint integrator: the total energy (kinetic, gravity, layer) is constant to the solve's
/// tolerance at every step (measured 5.8e-10 J; allowed 2e-8 J: 1e-10 N·s per step at speeds up
/// to 1.4 m/s over some 110 contact steps), the deepest compression is the energy balance's
/// `m g (0.1 + δ) = ½ k δ²` and the cube bounces back to its starting height. The extremes are
/// sampled at steps of 1 ms, so they are compared to `a h² / 2`: 1e-5 m at the bottom (`a ≈ 45
/// m/s²`), 2e-6 m at the top.
#[test]
fn a_cube_bounces_on_a_compliant_box_and_keeps_its_energy() {
    let path = format!(
        "{}/examples/box_drop_compliant_midpoint_3d.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let sc = scenario::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let steps = sc.step_count();
    let settings = sc.stepper_settings();
    let AnyScene::Spatial(scene) = sc.scene else {
        panic!("a 3D scenario")
    };
    let mut st = ImplicitStepper::new(scene, settings).unwrap();
    let energy = |s: &ImplicitStepper<_>| {
        s.scene.kinetic_energy() + s.scene.potential_energy() + s.elastic_energy()
    };
    let e0 = energy(&st);
    let (mut lowest, mut highest_after) = (f64::INFINITY, f64::NEG_INFINITY);
    for k in 0..steps {
        let r = st.step();
        assert!(r.converged && r.retries == 0, "step {k}: {:?}", r.failure);
        let drift = energy(&st) - e0;
        assert!(
            drift.abs() <= 2e-8,
            "step {k}: energy changed by {drift:.3e} J"
        );
        let z = st.scene.bodies[1].pose.position[2];
        lowest = lowest.min(z);
        if k > steps / 2 {
            highest_after = highest_after.max(z);
        }
    }
    let (m, k) = (1.0, 1000.0);
    let delta = (m * G + ((m * G).powi(2) + 2.0 * k * m * G * 0.1).sqrt()) / k;
    close(lowest, 0.5 - delta, 1e-5, "deepest compression");
    close(highest_after, 0.6, 2e-6, "rebound height");
}

/// Under `integrator = "midpoint"` the end velocity keeps the second half of the gravity kick
/// past a rigid contact the MCP held at full weight: the crate of `box_on_box_2d`, at rest,
/// ends its first step moving at `½ h g` into the table, `⅛ m h² g²` of kinetic energy gained
/// from rest at every halving. The step is refused (no energy from nowhere) and the reason says
/// why and which integrators suit rigid contacts.
#[test]
fn a_resting_box_under_the_midpoint_rule_fails_with_the_reason() {
    let path = format!("{}/examples/box_on_box_2d.toml", env!("CARGO_MANIFEST_DIR"));
    let sc = scenario::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let mut settings = sc.stepper_settings();
    settings.integrator = Integrator::Midpoint;
    let AnyScene::Planar(scene) = sc.scene else {
        panic!("a 2D scene")
    };
    let mut st = ImplicitStepper::new(scene, settings).unwrap();
    let report = st.step();
    assert!(!report.converged);
    let why = report.failure.unwrap();
    // The last halving's step, h / 2⁴.
    let h = 0.01 / 16.0;
    let gain = G * G * h * h / 8.0;
    assert!(why.contains(&format!("{gain:.3e} J")), "{why}");
    assert!(why.contains("\"rattle\""), "{why}");
}
