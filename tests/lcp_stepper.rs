//! The Stewart–Trinkle LCP stepper on analytic cases (release mode; each test says why its
//! tolerance).

use implicit_contact::model::{Dynamics, Scene};
use implicit_contact::run;
use implicit_contact::scenario::{self, AnyScene};
use implicit_contact::stepper::{LcpSettings, LcpStepper};

/// Lemke's result is accepted at a natural residual `max_i |min(z_i, (Mz + q)_i)|` of 1e-10
/// (the project's MCP tolerance); every step of every test checks it.
const COMPLEMENTARITY: f64 = 1e-10;

fn block(dim: usize, v0: f64, mu: f64, h: f64, duration: f64) -> String {
    let (g, pos, vel, half, normal) = if dim == 2 {
        (
            "[0.0, -9.81]",
            "[0.0, 0.25]",
            format!("[{v0}, 0.0]"),
            "[0.5, 0.25]",
            "[0.0, 1.0]",
        )
    } else {
        (
            "[0.0, 0.0, -9.81]",
            "[0.0, 0.0, 0.25]",
            format!("[{v0}, 0.0, 0.0]"),
            "[0.5, 0.4, 0.25]",
            "[0.0, 0.0, 1.0]",
        )
    };
    let (inertia, ground) = if dim == 2 {
        ("0.1", "half_plane")
    } else {
        ("[0.1, 0.1, 0.1]", "half_space")
    };
    format!(
        r#"
name = "block"
dimension = {dim}
[simulation]
time_step = {h}
duration = {duration}
stepper = "lcp"
gravity = {g}
[friction]
mu = {mu}
[[body]]
name = "block"
mass = 2.0
inertia = {inertia}
position = {pos}
velocity = {vel}
[[body.part]]
kind = "box"
half_extents = {half}
[[body]]
name = "ground"
fixed = true
position = {zero}
[[body.part]]
[[body.part.function]]
shape = "{ground}"
normal = {normal}
offset = 0.0
"#,
        zero = if dim == 2 {
            "[0.0, 0.0]"
        } else {
            "[0.0, 0.0, 0.0]"
        }
    )
}

fn stepper<S: Dynamics>(scene: Scene<S>, settings: LcpSettings) -> LcpStepper<S> {
    LcpStepper::new(scene, settings).expect("the scene suits the LCP stepper")
}

/// Runs to the end, checking every step's complementarity; returns the stepper.
fn run_to_end<S: Dynamics>(mut s: LcpStepper<S>) -> LcpStepper<S> {
    let steps = s.scene.step_count();
    for k in 1..=steps {
        let r = s.step();
        assert!(r.converged, "step {k}: {}", r.solve);
        assert!(
            r.residual <= COMPLEMENTARITY,
            "step {k}: residual {}",
            r.residual
        );
        // The same in the contacts' terms: w_n = (linearised end-of-step gap)/h is
        // non-negative and complementary to p_n, to the tolerance.
        let h = s.scene.time_step;
        for c in s.contacts() {
            assert!(c.gap >= -h * COMPLEMENTARITY, "step {k}: gap {}", c.gap);
            assert!(
                (c.gap / h).min(c.normal_impulse) <= COMPLEMENTARITY,
                "step {k}: gap {} and impulse {}",
                c.gap,
                c.normal_impulse
            );
        }
    }
    s
}

/// A block sliding on a plane with `v0` stops after `v0²/(2 μ g)`. The stepper's velocity
/// drops by exactly `μ g h` per step (the cone's direction along the slip is exact in 2D and
/// for 8 directions in 3D) and the position advances with the end-of-step velocity, so the
/// discrete distance is `h Σ_k (v0 − k μ g h)`: short of the closed form by `v0 h/2` plus at
/// most one step's travel `μ g h²`. The tolerance `v0 h` covers both.
#[test]
fn sliding_block_stops_at_the_closed_form_distance() {
    let (v0, mu, g, h): (f64, f64, f64, f64) = (2.0, 0.3, 9.81, 1e-3);
    let exact = v0 * v0 / (2.0 * mu * g);
    // Whole steps (a scenario's duration is a multiple of its step) past 1.2× the stopping time.
    let duration = (1.2 * v0 / (mu * g) / h).ceil() * h;
    for dim in [2, 3] {
        let sc = scenario::parse(&block(dim, v0, mu, h, duration), "block").unwrap();
        let (x, rest, tilt) = match sc.scene {
            AnyScene::Planar(scene) => {
                let s = run_to_end(stepper(scene, sc.lcp.clone()));
                let b = &s.scene.bodies[0];
                (
                    b.pose.position.x,
                    b.twist.linear.norm(),
                    b.pose.angle().abs(),
                )
            }
            AnyScene::Spatial(scene) => {
                let s = run_to_end(stepper(scene, sc.lcp.clone()));
                let b = &s.scene.bodies[0];
                (
                    b.pose.position.x,
                    b.twist.linear.norm(),
                    b.pose.rotation.angle(),
                )
            }
        };
        assert!(
            (x - exact).abs() <= v0 * h,
            "{dim}D: stopped at {x}, closed form {exact}, tolerance {}",
            v0 * h
        );
        // At rest: the sticking LCP gives zero velocity up to the solve's rounding.
        assert!(rest < 1e-9, "{dim}D: still moving at {rest}");
        // The wide, flat block does not tip (no rotation beyond rounding).
        assert!(tilt < 1e-9, "{dim}D: tilted by {tilt}");
    }
}

/// A disc resting on the ground as a 100-gon stays at rest: gravity is balanced by the
/// normal impulse of its lowest vertex exactly (residual 1e-10 on impulses of order m g h).
#[test]
fn polygonal_disc_rests() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/paper_cases/disc_on_plane.toml"
    ))
    .unwrap()
    .replace("velocity = [-3.0, 0.0]", "velocity = [0.0, 0.0]")
    .replace("angular_velocity = 3.0", "angular_velocity = 0.0")
    .replace("duration = 5.0", "duration = 0.5");
    let sc = scenario::parse(&text, "rest").unwrap();
    let AnyScene::Planar(scene) = sc.scene else {
        panic!("2D")
    };
    let s = run_to_end(stepper(scene, LcpSettings::default()));
    let b = &s.scene.bodies[0];
    assert!(
        (b.pose.position.y - 1.0).abs() < 1e-12,
        "{}",
        b.pose.position.y
    );
    assert!(b.twist.linear.norm() < 1e-12);
    let c = s.contacts();
    assert_eq!(
        c.len(),
        1,
        "the lowest vertex only (its neighbours are 2e-3 above)"
    );
    // p_n = m g h.
    assert!((c[0].normal_impulse - 9.81 * 0.01).abs() < 1e-12);
}

/// A step whose LCP fails is reported, never applied: with no pivots allowed Lemke cannot
/// solve the contact LCP of a falling block; the scene stays where it was and the run loop
/// stops with `complete: false` and the reason.
#[test]
fn a_failed_lcp_is_reported_and_not_applied() {
    let sc = scenario::parse(&block(2, 1.0, 0.3, 0.01, 0.1), "block").unwrap();
    let AnyScene::Planar(scene) = sc.scene else {
        panic!("2D")
    };
    let mut settings = LcpSettings::default();
    settings.lemke.pivot_limit = 0;
    settings.max_halvings = 1;
    let mut s = stepper(scene, settings);
    let before = s.scene.bodies[0].pose;
    let r = s.step();
    assert!(!r.converged);
    assert_eq!(r.retries, 1);
    assert_eq!(s.time, 0.0);
    assert_eq!(s.scene.bodies[0].pose, before);
    let out = std::env::temp_dir().join(format!("lcp-failure-{}", std::process::id()));
    let err = run::run(&mut s, 3, &out, |_, _| {}).unwrap_err();
    assert!(err.to_string().contains("did not converge"), "{err}");
    let summary = std::fs::read_to_string(out.join("block/summary.json")).unwrap();
    assert!(summary.contains("\"complete\": false"), "{summary}");
    assert!(summary.contains("\"stepper\": \"lcp\""), "{summary}");
    let _ = std::fs::remove_dir_all(&out);
}

/// The scenario's `[lcp]` keys are checked and reach the stepper; a curved part that has no
/// polygonal approximation is refused by field.
#[test]
fn lcp_keys_are_checked() {
    let base = block(3, 1.0, 0.3, 0.01, 0.1);
    let sc = scenario::parse(
        &format!("{base}\n[lcp]\nvertices = 500\nfriction_directions = 6\nmargin = 2e-3\n"),
        "ok",
    )
    .unwrap();
    assert_eq!(sc.lcp.vertices, 500);
    assert_eq!(sc.lcp.friction_directions, Some(6));
    assert_eq!(sc.lcp.margin, 2e-3);
    let e = scenario::parse(&format!("{base}\n[lcp]\nfriction_directions = 2\n"), "bad")
        .unwrap_err()
        .to_string();
    assert!(e.contains("lcp.friction_directions"), "{e}");
    let e = scenario::parse(&format!("{base}\n[lcp]\nmargin = -1.0\n"), "bad")
        .unwrap_err()
        .to_string();
    assert!(e.contains("lcp.margin"), "{e}");
    let ellipse = block(2, 1.0, 0.3, 0.01, 0.1).replace(
        "kind = \"box\"\nhalf_extents = [0.5, 0.25]",
        "[[body.part.function]]\nshape = \"ellipse\"\nsemi_axes = [0.5, 0.25]",
    );
    let e = scenario::parse(&ellipse, "bad").unwrap_err().to_string();
    assert!(
        e.contains("body[0].part[0]") && e.contains("polytope"),
        "{e}"
    );
}

/// 3D: a ball as an icosphere (642 vertices for `vertices = 200`) rolling off on a plane with
/// 8 friction directions; every LCP is solved to the tolerance and the ball stays on the
/// plane: its centre stays within 1e-2 of the height 1 (the icosphere lies between the
/// sphere and its faces, all at least 0.999 from the centre for this level).
#[test]
fn icosphere_rolls_on_a_plane() {
    let text = r#"
name = "ball"
dimension = 3
[simulation]
time_step = 0.01
duration = 0.3
stepper = "lcp"
gravity = [0.0, 0.0, -9.81]
[friction]
mu = 0.5
[[body]]
name = "ball"
mass = 1.0
inertia = [0.4, 0.4, 0.4]
position = [0.0, 0.0, 1.0]
velocity = [1.0, 0.5, 0.0]
[[body.part]]
[[body.part.function]]
shape = "sphere"
radius = 1.0
[[body]]
name = "ground"
fixed = true
position = [0.0, 0.0, 0.0]
[[body.part]]
[[body.part.function]]
shape = "half_space"
normal = [0.0, 0.0, 1.0]
offset = 0.0
[lcp]
vertices = 200
"#;
    let sc = scenario::parse(text, "ball").unwrap();
    let AnyScene::Spatial(scene) = sc.scene else {
        panic!("3D")
    };
    let s = stepper(scene, sc.lcp.clone());
    assert_eq!(s.part_vertices(0, 0).unwrap().len(), 642);
    let s = run_to_end(s);
    let b = &s.scene.bodies[0];
    assert!(
        (b.pose.position.z - 1.0).abs() < 1e-2,
        "{}",
        b.pose.position.z
    );
    // It moved the way it was pushed (friction slows it, never reverses it).
    assert!(b.pose.position.x > 0.0 && b.pose.position.y > 0.0);
}
