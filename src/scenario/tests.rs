//! Tests of the scenario layer: the paper cases load with the paper's values, every class of
//! error names the file, the field path and the reason, and a 3D scenario round-trips through
//! TOML.

use super::*;
use crate::geometry::{ContactState, ImplicitFn, ProximitySettings, proximity};
use nalgebra::{Matrix3, Vector2, Vector3};

/// A valid 2D scenario (Example 1 in miniature) that the error tests break one field at a time.
const DISC: &str = r#"
name = "disc"
dimension = 2

[simulation]
time_step = 0.01
duration = 1.0
gravity = [0.0, -9.81]

[friction]
mu = 0.4

[[body]]
name = "disc"
mass = 1.0
inertia = 0.5
position = [0.0, 1.0]
velocity = [-3.0, 0.0]
angular_velocity = 3.0
[[body.part]]
[[body.part.function]]
shape = "circle"
radius = 1.0

[[body]]
name = "ground"
fixed = true
position = [0.0, 0.0]
[[body.part]]
[[body.part.function]]
shape = "half_plane"
normal = [0.0, 1.0]
offset = 0.0
"#;

/// A valid 3D scenario: a unit sphere resting on a fixed half-space.
const BALL: &str = r#"
name = "ball"
dimension = 3

[simulation]
time_step = 0.01
duration = 1.0
gravity = [0.0, 0.0, -9.81]

[friction]
mu = 0.2
e_r = 0.3

[[body]]
name = "ball"
mass = 1.0
inertia = [0.4, 0.4, 0.4]
position = [0.0, 0.0, 1.0]
orientation = [1.0, 0.0, 0.0, 0.0]
[[body.part]]
[[body.part.function]]
shape = "sphere"
radius = 1.0

[[body]]
name = "floor"
fixed = true
position = [0.0, 0.0, 0.0]
[[body.part]]
[[body.part.function]]
shape = "half_space"
normal = [0.0, 0.0, 1.0]
offset = 0.0
"#;

const FILE: &str = "case.toml";

/// `base` with the first occurrence of `from` replaced by `to` (panics if absent, so a test
/// cannot silently test the unmodified text).
fn edit(base: &str, from: &str, to: &str) -> String {
    assert!(base.contains(from), "`{from}` not in the base text");
    base.replacen(from, to, 1)
}

/// Parses `text`, expects an error of `kind` at `field`, and checks that its message names
/// the file, the field and contains every `reason` fragment.
fn expect_error(text: &str, kind: ErrorKind, field: &str, reason: &[&str]) -> ScenarioError {
    let e = parse(text, FILE).expect_err("the scenario should be rejected");
    let msg = e.to_string();
    assert_eq!(e.kind(), Some(kind), "{msg}");
    assert_eq!(e.field(), Some(field), "{msg}");
    assert!(msg.contains(FILE), "no file name in: {msg}");
    assert!(
        msg.contains(&format!("`{field}`")),
        "no field path in: {msg}"
    );
    for r in reason {
        assert!(msg.contains(r), "no `{r}` in: {msg}");
    }
    e
}

/// Both base texts are valid: otherwise every error test below would pass for the wrong
/// reason.
#[test]
fn base_texts_are_valid() {
    let d = parse(DISC, FILE).unwrap();
    assert_eq!(d.scene.dimension(), 2);
    let b = parse(BALL, FILE).unwrap();
    assert_eq!(b.scene.dimension(), 3);
    assert_eq!(b.scene.body_names(), ["ball", "floor"]);
}

/// `simulation.energy_projection` is RATTLE's: read with it, on by default, and refused with
/// another integrator, naming the key.
#[test]
fn energy_projection_is_a_rattle_key() {
    let gravity = "gravity = [0.0, 0.0, -9.81]";
    let rattle = edit(
        BALL,
        gravity,
        &format!("{gravity}\nintegrator = \"rattle\""),
    );
    let on = parse(&rattle, FILE).unwrap();
    assert!(on.stepper_settings().energy_projection);
    let off = edit(
        &rattle,
        "integrator = \"rattle\"",
        "integrator = \"rattle\"\nenergy_projection = false",
    );
    let off = parse(&off, FILE).unwrap();
    assert!(!off.stepper_settings().energy_projection);
    assert_eq!(
        off.to_toml().matches("energy_projection = false").count(),
        1
    );
    expect_error(
        &edit(
            BALL,
            gravity,
            &format!("{gravity}\nenergy_projection = true"),
        ),
        ErrorKind::InvalidValue,
        "simulation.energy_projection",
        &["rattle"],
    );
}

/// A `simulation` key of the implicit stepper: `default` when absent (and then absent from
/// the file written back), each of `values` read when given and written back.
fn check_key<T: PartialEq + std::fmt::Debug + std::fmt::Display>(
    key: &str,
    default: T,
    values: &[T],
    setting: fn(&crate::stepper::StepperSettings) -> T,
) {
    let gravity = "gravity = [0.0, 0.0, -9.81]";
    let parsed = parse(BALL, FILE).unwrap();
    assert_eq!(setting(&parsed.stepper_settings()), default, "{key}");
    assert_eq!(parsed.to_toml().matches(key).count(), 0, "{key}");
    for v in values {
        let text = edit(BALL, gravity, &format!("{gravity}\n{key} = {v}"));
        let s = parse(&text, FILE).unwrap();
        assert_eq!(&setting(&s.stepper_settings()), v, "{key}");
        let back = parse(&s.to_toml(), FILE).unwrap();
        assert_eq!(&setting(&back.stepper_settings()), v, "{key}");
    }
}

/// `simulation.friction_continuation` is on by default, read when given, and written back.
#[test]
fn friction_continuation_key_is_read() {
    check_key("friction_continuation", true, &[false, true], |s| {
        s.friction_continuation
    });
}

/// `simulation.cones_from_start` is on by default, read when given, and written back.
#[test]
fn cones_from_start_key_is_read() {
    check_key("cones_from_start", true, &[false, true], |s| {
        s.cones_from_start
    });
}

/// `simulation.friction_centre_from_start` is off by default, read when given, and written
/// back.
#[test]
fn friction_centre_from_start_key_is_read() {
    check_key("friction_centre_from_start", false, &[false, true], |s| {
        s.friction_centre_from_start
    });
}

/// `simulation.cones_normalised` is off by default, read when given, and written back.
#[test]
fn cones_normalised_key_is_read() {
    check_key("cones_normalised", false, &[false, true], |s| {
        s.cones_normalised
    });
}

/// `simulation.cones_normalised_after` is 60 by default, read when given, and written back.
#[test]
fn cones_normalised_after_key_is_read() {
    check_key("cones_normalised_after", 60, &[0, 25, 60], |s| {
        s.cones_normalised_after
    });
}

/// `simulation.gyroscopic` is read in 3D under euler and midpoint, implicit by default, and
/// refused (naming the key and why) in 2D, under RATTLE and with the LCP stepper.
#[test]
fn gyroscopic_key_is_checked() {
    use crate::model::Gyroscopic;
    let gravity = "gravity = [0.0, 0.0, -9.81]";
    let default = parse(BALL, FILE).unwrap();
    assert_eq!(default.stepper_settings().gyroscopic, Gyroscopic::Implicit);
    for (name, g) in [
        ("explicit", Gyroscopic::Explicit),
        ("midpoint", Gyroscopic::Midpoint),
        ("implicit", Gyroscopic::Implicit),
    ] {
        let text = edit(
            BALL,
            gravity,
            &format!("{gravity}\ngyroscopic = \"{name}\""),
        );
        let s = parse(&text, FILE).unwrap();
        assert_eq!(s.stepper_settings().gyroscopic, g);
        assert_eq!(s.to_toml().matches("gyroscopic = ").count(), 1);
    }
    let rattle = format!("{gravity}\nintegrator = \"rattle\"\ngyroscopic = \"implicit\"");
    expect_error(
        &edit(BALL, gravity, &rattle),
        ErrorKind::InvalidValue,
        "simulation.gyroscopic",
        &["rattle"],
    );
    let lcp = format!("{gravity}\nstepper = \"lcp\"\ngyroscopic = \"implicit\"");
    expect_error(
        &edit(BALL, gravity, &lcp),
        ErrorKind::InvalidValue,
        "simulation.gyroscopic",
        &["lcp"],
    );
    let planar = DISC.replacen("[simulation]", "[simulation]\ngyroscopic = \"explicit\"", 1);
    expect_error(
        &planar,
        ErrorKind::InvalidValue,
        "simulation.gyroscopic",
        &["dimension = 3"],
    );
}

/// Paper Example 1 (§6.1) loads with the paper's values: unit disc, m = 1, I = 0.5, μ = 0.4,
/// g = 9.81, q0 = [0, 1, 0], ν0 = [−3, 0, 3], h = 0.01, 5 s, ground y ≤ 0 fixed.
#[test]
fn paper_disc_on_plane_loads() {
    let s = load("paper_cases/disc_on_plane.toml").unwrap();
    assert_eq!(s.name, "disc_on_plane");
    assert_eq!(s.stepper, Stepper::Implicit);
    assert_eq!((s.time_step, s.duration), (0.01, 5.0));
    assert_eq!(s.outputs, Outputs::default());
    assert_eq!(s.solver, SolveSettings::default());
    let AnyScene::Planar(scene) = &s.scene else {
        panic!("Example 1 is planar")
    };
    assert_eq!(scene.gravity, Vector2::new(0.0, -9.81));
    assert_eq!(scene.friction.mu, 0.4);
    assert_eq!(scene.step_count(), 500);
    let disc = &scene.bodies[0];
    assert_eq!((disc.name.as_str(), disc.fixed), ("disc", false));
    assert_eq!((disc.mass, disc.inertia), (1.0, 0.5));
    assert_eq!(disc.pose.position, Vector2::new(0.0, 1.0));
    assert_eq!(disc.pose.angle(), 0.0);
    assert_eq!(disc.twist.linear, Vector2::new(-3.0, 0.0));
    assert_eq!(disc.twist.angular[0], 3.0);
    let ground = &scene.bodies[1];
    assert!(ground.fixed);
    // The disc's shape is the unit circle; the ground is y ≤ 0.
    let f = &disc.shape.parts()[0].functions()[0];
    assert_eq!(f.value(&Vector2::new(1.0, 0.0)), 0.0);
    assert!(ground.shape.contains(&Vector2::new(5.0, -0.1)));
    assert!(!ground.shape.contains(&Vector2::new(5.0, 0.1)));
}

/// Paper Example 2 (§6.2) loads with the paper's values, no gravity (the applied force holds
/// the weight), and its initial configuration touches both fixed spheres: the gaps (centre
/// distance minus radii, and the proximity query's distance) are below 1e-6.
#[test]
fn paper_sphere_on_two_spheres_loads_touching_both() {
    let s = load("paper_cases/sphere_on_two_spheres.toml").unwrap();
    assert_eq!((s.time_step, s.duration), (0.01, 4.0));
    let AnyScene::Spatial(scene) = &s.scene else {
        panic!("Example 2 is spatial")
    };
    assert_eq!(scene.gravity, Vector3::zeros());
    let f = scene.friction;
    assert_eq!((f.mu, f.e_t, f.e_o, f.e_r), (0.2, 1.0, 1.0, 0.3));
    let small = &scene.bodies[0];
    assert_eq!(small.mass, 1.0);
    assert_eq!(small.inertia, Matrix3::identity() * 0.4);
    let c = Vector3::new(0.0, 6.62105263157895, 8.78417110772903);
    assert_eq!(small.pose.position, c);
    assert_eq!(small.pose.rotation, nalgebra::UnitQuaternion::identity());
    assert_eq!(small.twist, crate::model::Twist::zero());
    assert_eq!(small.external_wrench.force, Vector3::new(1.0, 2.6, -9.81));
    assert_eq!(small.external_wrench.torque, Vector3::zeros());
    let (big, medium) = (&scene.bodies[1], &scene.bodies[2]);
    assert!(big.fixed && medium.fixed);
    assert_eq!(medium.pose.position, Vector3::new(0.0, 11.4, 0.0));
    for (other, radius) in [(big, 10.0), (medium, 9.0)] {
        let centre_gap = (c - other.pose.position).norm() - radius - 1.0;
        let p = proximity(
            &small.shape.parts()[0],
            &small.pose,
            &other.shape.parts()[0],
            &other.pose,
            &ProximitySettings::default(),
        )
        .unwrap();
        println!(
            "initial gap small–{}: centre distance − radii = {centre_gap:e}, proximity {:?} \
             distance {:e}",
            other.name, p.state, p.distance
        );
        assert!(centre_gap.abs() < 1e-6);
        assert_eq!(p.state, ContactState::Touching);
        assert!(p.distance < 1e-6);
    }
}

/// Invalid TOML: the parser's message with the file, line and column.
#[test]
fn syntax_error_names_file_line_and_column() {
    let text = edit(DISC, "mass = 1.0", "mass = = 1.0");
    let e = parse(&text, FILE).unwrap_err();
    let ScenarioError::Syntax { location, .. } = &e else {
        panic!("{e}")
    };
    let line = text.lines().position(|l| l.contains("mass = =")).unwrap() + 1;
    assert_eq!(location.line, line);
    assert!(e.to_string().starts_with(&format!("{FILE}:{line}:")), "{e}");
    assert!(e.to_string().contains("TOML syntax error"), "{e}");
}

/// A misspelt key deep in the file is rejected (deny_unknown_fields) with its full path and
/// the line it is on.
#[test]
fn unknown_key_has_full_path_and_line() {
    let text = edit(DISC, "radius = 1.0", "radiuss = 1.0");
    let e = expect_error(
        &text,
        ErrorKind::UnknownKey,
        "body[0].part[0].function[0].radiuss",
        &["unknown field"],
    );
    let line = text.lines().position(|l| l.contains("radiuss")).unwrap() + 1;
    assert!(e.to_string().contains(&format!("{FILE}:{line}:")), "{e}");
    // At the top level and in [simulation] too.
    expect_error(
        &format!("colour = 1\n{DISC}"),
        ErrorKind::UnknownKey,
        "colour",
        &["unknown field"],
    );
    expect_error(
        &edit(DISC, "duration = 1.0", "duration = 1.0\nsubsteps = 2"),
        ErrorKind::UnknownKey,
        "simulation.substeps",
        &["unknown field"],
    );
}

/// A key that exists in the schema but not for this shape or part kind is an unknown key
/// there (an exponent on a circle would otherwise be silently ignored).
#[test]
fn key_that_does_not_apply_is_rejected() {
    expect_error(
        &edit(DISC, "radius = 1.0", "radius = 1.0\nexponent = 4.0"),
        ErrorKind::UnknownKey,
        "body[0].part[0].function[0].exponent",
        &["does not apply to a `circle`"],
    );
}

/// Required keys: one serde knows (time step) and ones only a moving body needs (mass,
/// inertia), and a shape's own (a circle's radius).
#[test]
fn missing_keys_are_named() {
    expect_error(
        &edit(DISC, "time_step = 0.01\n", ""),
        ErrorKind::MissingKey,
        "simulation.time_step",
        &["missing"],
    );
    expect_error(
        &edit(DISC, "mass = 1.0\n", ""),
        ErrorKind::MissingKey,
        "body[0].mass",
        &["missing", "moving body"],
    );
    expect_error(
        &edit(DISC, "inertia = 0.5\n", ""),
        ErrorKind::MissingKey,
        "body[0].inertia",
        &["missing"],
    );
    expect_error(
        &edit(DISC, "radius = 1.0\n", ""),
        ErrorKind::MissingKey,
        "body[0].part[0].function[0].radius",
        &["missing", "circle"],
    );
}

/// Vectors must have one entry per dimension; 3D rotations have four.
#[test]
fn wrong_lengths_say_what_was_expected() {
    expect_error(
        &edit(DISC, "position = [0.0, 1.0]", "position = [0.0, 1.0, 0.0]"),
        ErrorKind::WrongLength,
        "body[0].position",
        &["has 3 entries but the scene is 2D"],
    );
    expect_error(
        &edit(
            BALL,
            "gravity = [0.0, 0.0, -9.81]",
            "gravity = [0.0, -9.81]",
        ),
        ErrorKind::WrongLength,
        "simulation.gravity",
        &["has 2 entries but the scene is 3D"],
    );
    expect_error(
        &edit(
            BALL,
            "orientation = [1.0, 0.0, 0.0, 0.0]",
            "orientation = [1.0, 0.0, 0.0]",
        ),
        ErrorKind::WrongLength,
        "body[0].orientation",
        &["has 3 entries", "quaternion"],
    );
    // A 2D-style scalar where 3D wants a list.
    expect_error(
        &edit(BALL, "inertia = [0.4, 0.4, 0.4]", "inertia = 0.4"),
        ErrorKind::WrongType,
        "body[0].inertia",
        &["3D"],
    );
}

/// Wrong TOML types and unknown names of enumerations.
#[test]
fn wrong_types_and_unknown_names() {
    expect_error(
        &edit(DISC, "mass = 1.0", "mass = \"one\""),
        ErrorKind::WrongType,
        "body[0].mass",
        &["invalid type"],
    );
    expect_error(
        &edit(DISC, "duration = 1.0", "duration = 1.0\nstepper = \"rk4\""),
        ErrorKind::InvalidValue,
        "simulation.stepper",
        &["unknown variant `rk4`", "implicit"],
    );
    // "lcp" is accepted and stored.
    let s = parse(
        &edit(DISC, "duration = 1.0", "duration = 1.0\nstepper = \"lcp\""),
        FILE,
    );
    assert_eq!(s.unwrap().stepper, Stepper::Lcp);
    expect_error(
        &edit(DISC, "shape = \"circle\"", "shape = \"sphere\""),
        ErrorKind::InvalidValue,
        "body[0].part[0].function[0].shape",
        &["3D shape but the scene is 2D", "use `circle`"],
    );
}

/// Non-physical values: each through the checked constructor of the layer that owns it, the
/// error wrapped with the field path.
#[test]
fn non_physical_values_are_rejected() {
    expect_error(
        &edit(DISC, "mass = 1.0", "mass = -1.0"),
        ErrorKind::InvalidValue,
        "body[0].mass",
        &["must be finite and > 0, got -1"],
    );
    expect_error(
        &edit(DISC, "mass = 1.0", "mass = 0.0"),
        ErrorKind::InvalidValue,
        "body[0].mass",
        &["> 0"],
    );
    expect_error(
        &edit(DISC, "radius = 1.0", "radius = -2.0"),
        ErrorKind::InvalidValue,
        "body[0].part[0].function[0].radius",
        &["radius", "> 0"],
    );
    let superellipse = "shape = \"superellipse\"\nsemi_axes = [1.0, 1.0]\nexponent = 1.5";
    expect_error(
        &edit(DISC, "shape = \"circle\"\nradius = 1.0", superellipse),
        ErrorKind::InvalidValue,
        "body[0].part[0].function[0].exponent",
        &["exponent", "1.5"],
    );
    expect_error(
        &edit(DISC, "time_step = 0.01", "time_step = 0.0"),
        ErrorKind::InvalidValue,
        "simulation.time_step",
        &["must be > 0"],
    );
    expect_error(
        &edit(DISC, "mu = 0.4", "mu = -0.4"),
        ErrorKind::InvalidValue,
        "friction.mu",
        &["≥ 0"],
    );
    expect_error(
        &edit(
            BALL,
            "inertia = [0.4, 0.4, 0.4]",
            "inertia = [0.1, 0.1, 1.0]",
        ),
        ErrorKind::InvalidValue,
        "body[0].inertia",
        &["triangle inequality"],
    );
    expect_error(
        &edit(
            BALL,
            "inertia = [0.4, 0.4, 0.4]",
            "inertia = [[0.4, 0.1, 0.0], [0.0, 0.4, 0.0], [0.0, 0.0, 0.4]]",
        ),
        ErrorKind::InvalidValue,
        "body[0].inertia",
        &["not symmetric"],
    );
    expect_error(
        &edit(
            BALL,
            "orientation = [1.0, 0.0, 0.0, 0.0]",
            "orientation = [1.0, 0.1, 0.0, 0.0]",
        ),
        ErrorKind::InvalidValue,
        "body[0].orientation",
        &["quaternion has norm", "expected 1"],
    );
    expect_error(
        &edit(DISC, "dimension = 2", "dimension = 4"),
        ErrorKind::InvalidValue,
        "dimension",
        &["must be 2 or 3"],
    );
    expect_error(
        &edit(DISC, "name = \"disc\"", "name = \"../disc\""),
        ErrorKind::InvalidValue,
        "name",
        &["output folder"],
    );
    // A fixed body cannot be given a velocity.
    expect_error(
        &edit(DISC, "fixed = true", "fixed = true\nvelocity = [1.0, 0.0]"),
        ErrorKind::InvalidValue,
        "body[1].velocity",
        &["fixed body never moves"],
    );
}

/// TOML's `nan` and `inf` are valid floats; a scenario rejects them wherever they are, with the
/// path and the line.
#[test]
fn nan_and_inf_are_rejected_anywhere() {
    expect_error(
        &edit(DISC, "mass = 1.0", "mass = nan"),
        ErrorKind::NotFinite,
        "body[0].mass",
        &["`nan`"],
    );
    let text = edit(DISC, "gravity = [0.0, -9.81]", "gravity = [0.0, -inf]");
    let e = expect_error(
        &text,
        ErrorKind::NotFinite,
        "simulation.gravity[1]",
        &["`-inf`"],
    );
    let line = text.lines().position(|l| l.contains("-inf")).unwrap() + 1;
    assert!(e.to_string().contains(&format!("{FILE}:{line}:")), "{e}");
    expect_error(
        &edit(DISC, "mu = 0.4", "mu = 0.4\n[solver]\ntolerance = inf"),
        ErrorKind::NotFinite,
        "solver.tolerance",
        &["inf"],
    );
    // Built from Rust (no TOML scan), the build pass catches it too.
    let mut file = parse(DISC, FILE).unwrap().source;
    file.body[0].velocity = Some(vec![f64::NAN, 0.0]);
    let e = file.build("rust").unwrap_err();
    assert_eq!(e.field(), Some("body[0].velocity[0]"), "{e}");
    assert_eq!(e.kind(), Some(ErrorKind::NotFinite));
}

/// Names key output columns and [[pair]] entries, so they must be unique; a [[pair]] must name
/// bodies that exist.
#[test]
fn duplicate_and_unknown_body_names() {
    expect_error(
        &edit(DISC, "name = \"ground\"", "name = \"disc\""),
        ErrorKind::DuplicateName,
        "body[1].name",
        &["`disc` is already the name of body[0]"],
    );
    let pair = "\n[[pair]]\nbody1 = \"disc\"\nbody2 = \"grund\"\nmu = 0.1\n";
    expect_error(
        &format!("{DISC}{pair}"),
        ErrorKind::UnknownBody,
        "pair[0].body2",
        &["no body is named `grund`", "`ground`"],
    );
    let pair = "\n[[pair]]\nbody1 = \"disc\"\nbody2 = \"ground\"\nmu = 0.1\n";
    let s = parse(&format!("{DISC}{pair}"), FILE).unwrap();
    let AnyScene::Planar(scene) = &s.scene else {
        panic!()
    };
    assert_eq!(scene.friction_between(0, 1).mu, 0.1);
}

/// Bodies overlapping at t = 0 are an error naming both; touching (the disc resting on the
/// ground, as in the paper) is fine, as is a gap. Two fixed bodies may overlap (no contact is
/// ever computed between them).
#[test]
fn overlap_at_start_is_an_error_touching_is_not() {
    expect_error(
        &edit(DISC, "position = [0.0, 1.0]", "position = [0.0, 0.5]"),
        ErrorKind::Overlap,
        "body[0].position",
        &["`disc`", "`ground`", "overlap at t = 0"],
    );
    // The depth is the penetration in metres: the unit disc's centre 0.5 m above the ground
    // overlaps it by 0.5 m (the depth problem's own variable would say 0.75 here).
    expect_error(
        &edit(DISC, "position = [0.0, 1.0]", "position = [0.0, 0.5]"),
        ErrorKind::Overlap,
        "body[0].position",
        &["by about 0.5 m (penetration depth)"],
    );
    // Two unit spheres 1.5 m apart overlap by 0.5 m.
    let second_ball = "\n[[body]]\nname = \"ball2\"\nmass = 1.0\ninertia = [0.4, 0.4, 0.4]\n\
        position = [1.5, 0.0, 1.0]\n[[body.part]]\n[[body.part.function]]\nshape = \"sphere\"\n\
        radius = 1.0\n";
    let e = parse(&format!("{BALL}{second_ball}"), FILE).unwrap_err();
    assert!(e.to_string().contains("by about 0.5 m"), "{e}");
    assert!(
        parse(
            &edit(DISC, "position = [0.0, 1.0]", "position = [0.0, 1.5]"),
            FILE
        )
        .is_ok()
    );
    let second_ground = "\n[[body]]\nname = \"slab\"\nfixed = true\nposition = [0.0, -2.0]\n\
        [[body.part]]\nkind = \"box\"\nhalf_extents = [1.0, 1.0]\n";
    // The slab (y from −3 to −1) lies inside the fixed ground, clear of the disc.
    if let Err(e) = parse(&format!("{DISC}{second_ground}"), FILE) {
        panic!("{e}");
    }
}

/// Model-layer checks come back with the field path too (here the friction of a body).
#[test]
fn wrapped_model_error_has_the_path() {
    expect_error(
        &edit(
            DISC,
            "angular_velocity = 3.0",
            "angular_velocity = 3.0\nfriction = { mu = 0.3, e_r = 0.0 }",
        ),
        ErrorKind::InvalidValue,
        "body[0].friction.e_r",
        &["friction of body `disc`", "e_r", "> 0"],
    );
}

/// The command-line overrides rebuild and re-check.
#[test]
fn time_step_and_duration_overrides() {
    let s = parse(DISC, FILE).unwrap();
    let t = s.with_time_step(0.001).unwrap().with_duration(2.0).unwrap();
    assert_eq!((t.time_step, t.duration), (0.001, 2.0));
    let AnyScene::Planar(scene) = &t.scene else {
        panic!()
    };
    assert_eq!((scene.time_step, scene.duration), (0.001, 2.0));
    let e = s.with_time_step(-1.0).unwrap_err();
    assert_eq!(e.field(), Some("simulation.time_step"));
}

/// A run takes `duration / time_step` whole steps: a duration that is not a multiple of the
/// step is refused where it is written (the run would otherwise end at another time), decimal
/// inputs whose quotient is whole up to rounding are not, and `duration = 0` is.
#[test]
fn duration_must_be_a_whole_number_of_steps() {
    let e = expect_error(
        &edit(DISC, "duration = 1.0", "duration = 0.005"),
        ErrorKind::InvalidValue,
        "simulation.duration",
        &[
            "not a whole number of time steps",
            "0.5 steps",
            "e.g. 0 or 0.01 s",
        ],
    );
    assert!(e.to_string().starts_with("case.toml:7:12: "), "{e}");
    let e = expect_error(
        &edit(DISC, "time_step = 0.01", "time_step = 10.0"),
        ErrorKind::InvalidValue,
        "simulation.duration",
        &["e.g. 0 or 10 s"],
    );
    assert!(e.to_string().contains("case.toml:7:"), "{e}");
    for (h, t, n) in [
        ("0.01", "5.0", 500),
        ("1e-4", "1.5", 15000),
        ("0.1", "0.3", 3),
    ] {
        let text = edit(
            &edit(DISC, "time_step = 0.01", &format!("time_step = {h}")),
            "duration = 1.0",
            &format!("duration = {t}"),
        );
        let s = parse(&text, FILE).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.step_count(), n, "{h} {t}");
    }
    let zero = parse(&edit(DISC, "duration = 1.0", "duration = 0.0"), FILE).unwrap();
    assert_eq!(zero.step_count(), 0);
    // An override is checked too, and points at the key it replaces.
    let s = parse(DISC, FILE).unwrap();
    // Together, a step and a duration that fit each other (but not the file's) are accepted.
    let both = s.with_timing(Some(0.3), Some(0.6)).unwrap();
    assert_eq!(both.step_count(), 2);
    assert!(s.with_time_step(0.3).is_err());
    let e = s.with_duration(0.125).unwrap_err();
    assert_eq!(e.field(), Some("simulation.duration"));
    assert!(e.to_string().starts_with("case.toml:7:"), "{e}");
}

/// `[output]`: the stride and the size limit are checked, and a run expected to write more
/// than the limit is refused (at `simulation.duration`) unless the limit is raised or fewer
/// rows are written.
#[test]
fn output_keys_and_the_size_guard() {
    expect_error(
        &format!("{DISC}\n[output]\nevery = 0\n"),
        ErrorKind::InvalidValue,
        "output.every",
        &["≥ 1"],
    );
    expect_error(
        &format!("{DISC}\n[output]\nmax_output_mb = 0\n"),
        ErrorKind::InvalidValue,
        "output.max_output_mb",
        &["≥ 1"],
    );
    let s = parse(DISC, FILE).unwrap();
    assert_eq!(s.outputs, Outputs::default());
    assert!(s.check_output_size().is_ok());
    // 1e6 s at 0.01 s: 1e8 rows of ~40 fields, about 80 GB.
    let long = edit(DISC, "duration = 1.0", "duration = 1e6");
    let e = parse(&long, FILE).unwrap().check_output_size().unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.starts_with("case.toml:7:12: field `simulation.duration`"),
        "{msg}"
    );
    assert!(
        msg.contains("100000000 steps") && msg.contains("500 MB"),
        "{msg}"
    );
    assert!(
        msg.contains("--force") && msg.contains("every = K"),
        "{msg}"
    );
    let big = s.with_duration(1e6).unwrap().expected_output_bytes();
    assert!((5e10..2e11).contains(&big), "{big}");
    // Writing every 1000th step, or raising the limit, lets it run.
    let sparse = parse(&format!("{long}\n[output]\nevery = 1000\n"), FILE).unwrap();
    assert!(sparse.check_output_size().is_ok());
    let allowed = parse(
        &format!("{long}\n[output]\nmax_output_mb = 1000000\n"),
        FILE,
    )
    .unwrap();
    assert!(allowed.check_output_size().is_ok());
    // Files turned off count for nothing.
    let none = parse(
        &format!("{long}\n[output]\ntrajectory = false\ncontacts = false\nsolver = false\n"),
        FILE,
    )
    .unwrap();
    assert_eq!(none.expected_output_bytes(), 0.0);
}

/// `e_r` left out is relative to the bodies' size in 3D: `0.3 ×` the smaller bounding radius
/// (a 0.1 m ball on the ground gets 0.03 m, the paper's ratio); a given one is kept, and in 2D
/// (no torsion) it stays 1.
#[test]
fn torsion_semi_axis_defaults_to_the_bodies_size() {
    let small = edit(
        &edit(
            &edit(BALL, "e_r = 0.3\n", ""),
            "radius = 1.0",
            "radius = 0.1",
        ),
        "position = [0.0, 0.0, 1.0]",
        "position = [0.0, 0.0, 0.1]",
    );
    let s = parse(&small, FILE).unwrap();
    let AnyScene::Spatial(scene) = &s.scene else {
        panic!("3D")
    };
    assert!((scene.friction_between(0, 1).e_r - 0.03).abs() < 1e-15);
    assert_eq!(scene.friction_between(0, 1).mu, 0.2, "μ untouched");
    // Given: kept.
    let s = parse(BALL, FILE).unwrap();
    let AnyScene::Spatial(scene) = &s.scene else {
        panic!("3D")
    };
    assert_eq!(scene.friction_between(0, 1).e_r, 0.3);
    // A body default without e_r is completed the same way; a pair's given e_r wins.
    let body_default = edit(
        &edit(BALL, "e_r = 0.3\n", ""),
        "orientation = [1.0, 0.0, 0.0, 0.0]",
        "orientation = [1.0, 0.0, 0.0, 0.0]\nfriction = { mu = 0.5 }",
    );
    let AnyScene::Spatial(scene) = parse(&body_default, FILE).unwrap().scene else {
        panic!("3D")
    };
    assert_eq!(
        (
            scene.friction_between(0, 1).mu,
            scene.friction_between(0, 1).e_r
        ),
        (0.5, 0.3)
    );
    let pair =
        format!("{BALL}\n[[pair]]\nbody1 = \"ball\"\nbody2 = \"floor\"\nmu = 0.1\ne_r = 0.05\n");
    let AnyScene::Spatial(scene) = parse(&pair, FILE).unwrap().scene else {
        panic!("3D")
    };
    assert_eq!(scene.friction_between(1, 0).e_r, 0.05);
    let AnyScene::Planar(scene) = parse(DISC, FILE).unwrap().scene else {
        panic!("2D")
    };
    assert_eq!(scene.friction_between(0, 1).e_r, 1.0);
}

/// A contact has one compliant side: two layered bodies are refused at the second layer, with
/// its line and column.
#[test]
fn two_layers_are_refused_with_their_place() {
    let layer = "layer = { stiffness = [1000.0, 1000.0], max_deflection = 0.05 }\n";
    let text = edit(
        &edit(
            DISC,
            "angular_velocity = 3.0\n",
            &format!("angular_velocity = 3.0\n{layer}"),
        ),
        "fixed = true\n",
        &format!("fixed = true\n{layer}"),
    );
    let e = expect_error(
        &text,
        ErrorKind::InvalidValue,
        "body[1].layer",
        &[
            "`disc` (body[0]) has a compliant layer too",
            "one compliant side",
        ],
    );
    assert!(e.to_string().starts_with("case.toml:29:9: "), "{e}");
}

/// A stepper given on the command line is checked with the file's places: under `lcp` an
/// ellipse meeting the ground (neither has vertices) is refused at the ellipse's part.
#[test]
fn lcp_refusal_names_the_moving_part_and_its_line() {
    let ellipse = edit(
        &edit(
            DISC,
            "shape = \"circle\"\nradius = 1.0",
            "shape = \"ellipse\"\nsemi_axes = [1.0, 0.5]",
        ),
        "position = [0.0, 1.0]",
        "position = [0.0, 0.5]",
    );
    let s = parse(&ellipse, FILE).unwrap();
    let e = s.with_stepper(Stepper::Lcp).unwrap_err();
    assert_eq!(e.field(), Some("body[0].part[0]"), "{e}");
    assert!(e.to_string().starts_with("case.toml:20:1: "), "{e}");
    assert!(e.to_string().contains("neither side is a polytope"), "{e}");
}

/// A huge name is never echoed whole (a 1 MB scenario name, a 1 MB unknown stepper).
#[test]
fn long_names_are_cut_in_messages() {
    let long = "é".repeat(1 << 20);
    let e = parse(
        &edit(DISC, "name = \"disc\"", &format!("name = \"{long}/\"")),
        FILE,
    )
    .unwrap_err();
    let msg = e.to_string();
    assert_eq!(e.field(), Some("name"), "{msg}");
    assert!(
        msg.len() < 600 && msg.contains("1048577 characters"),
        "{}",
        &msg[..200]
    );
    let e = parse(
        &edit(
            DISC,
            "gravity = [0.0, -9.81]",
            &format!("gravity = [0.0, -9.81]\nstepper = \"{long}\""),
        ),
        FILE,
    )
    .unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.len() < 1200 && msg.contains("message cut"),
        "{}",
        &msg[..200]
    );
    assert_eq!(e.field(), Some("simulation.stepper"), "{msg}");
    // A name of valid characters but too long for a folder is refused before any folder is
    // made (the OS would refuse it, echoing the path).
    let e = parse(
        &edit(
            DISC,
            "name = \"disc\"",
            &format!("name = \"{}\"", "x".repeat(1 << 20)),
        ),
        FILE,
    )
    .unwrap_err();
    let msg = e.to_string();
    assert_eq!(e.field(), Some("name"), "{msg}");
    assert!(
        msg.len() < 600 && msg.contains("at most 255 bytes"),
        "{}",
        &msg[..200]
    );
}

fn sphere(radius: f64, position: Option<Vec<f64>>) -> FunctionSpec {
    FunctionSpec {
        shape: ShapeKind::Sphere,
        radius: Some(radius),
        semi_axes: None,
        exponent: None,
        normal: None,
        offset: None,
        position,
        orientation: None,
    }
}

fn part(function: Vec<FunctionSpec>) -> PartSpec {
    PartSpec {
        kind: PartKind::Intersection,
        half_extents: None,
        vertices: None,
        planes: None,
        radius: None,
        half_height: None,
        sides: None,
        position: None,
        orientation: None,
        function,
    }
}

/// A 3D scenario built in Rust with a union body (a sphere, a placed and rotated box, and an
/// intersection of a sphere and a half-space) round-trips: written to TOML and parsed back it
/// is the same file and builds the same scene (same bodies, poses, twists, and shapes that
/// agree at sample points). This is what lets a run record its exact input.
#[test]
fn spatial_union_scene_round_trips_through_toml() {
    let s = 0.5f64.sqrt();
    let mut half = sphere(0.6, Some(vec![0.0, 0.0, 0.2]));
    half.orientation = Some(Numbers::List(vec![s, 0.0, s, 0.0]));
    let cut = FunctionSpec {
        shape: ShapeKind::HalfSpace,
        normal: Some(vec![0.0, 0.0, 1.0]),
        offset: Some(0.1),
        radius: None,
        ..sphere(1.0, None)
    };
    let mut cut_part = part(vec![half, cut]);
    cut_part.position = Some(vec![0.0, 0.0, 0.3]);
    let box_part = PartSpec {
        kind: PartKind::Box,
        half_extents: Some(vec![0.2, 0.1, 0.7]),
        position: Some(vec![0.5, 0.0, 0.0]),
        orientation: Some(Numbers::List(vec![s, 0.0, 0.0, s])),
        ..part(vec![])
    };
    let body = BodySpec {
        name: "gadget".into(),
        fixed: false,
        driven: false,
        drive: None,
        mass: Some(2.0),
        inertia: Some(Numbers::Matrix(vec![
            vec![0.5, 0.01, 0.0],
            vec![0.01, 0.6, 0.0],
            vec![0.0, 0.0, 0.4],
        ])),
        position: vec![0.0, 0.0, 3.0],
        orientation: Some(Numbers::List(vec![s, s, 0.0, 0.0])),
        velocity: Some(vec![0.1, -0.2, 0.3]),
        angular_velocity: Some(Numbers::List(vec![1.0, 2.0, 3.0])),
        force: Some(vec![0.0, 1.0, 0.0]),
        torque: Some(Numbers::List(vec![0.0, 0.0, 0.5])),
        friction: Some(FrictionSpec {
            mu: 0.3,
            e_t: 1.0,
            e_o: 0.8,
            e_r: Some(0.2),
        }),
        layer: None,
        part: vec![part(vec![sphere(0.5, None)]), box_part, cut_part],
    };
    let floor = BodySpec {
        name: "floor".into(),
        fixed: true,
        driven: false,
        drive: None,
        mass: None,
        inertia: None,
        position: vec![0.0, 0.0, 0.0],
        orientation: None,
        velocity: None,
        angular_velocity: None,
        force: None,
        torque: None,
        friction: None,
        layer: Some(LayerSpec {
            stiffness: Numbers::List(vec![1000.0, 500.0, 500.0]),
            damping: Some(Numbers::Matrix(vec![
                vec![2.0, 0.0, 0.0],
                vec![0.0, 1.0, 0.1],
                vec![0.0, 0.1, 1.0],
            ])),
            max_deflection: 0.01,
        }),
        part: vec![PartSpec {
            kind: PartKind::Polyhedron,
            planes: Some(
                [
                    [1.0, 0.0, 0.0],
                    [-1.0, 0.0, 0.0],
                    [0.0, 1.0, 0.0],
                    [0.0, -1.0, 0.0],
                ]
                .iter()
                .map(|n| PlaneSpec {
                    normal: n.to_vec(),
                    offset: 5.0,
                })
                .chain([
                    PlaneSpec {
                        normal: vec![0.0, 0.0, 1.0],
                        offset: 0.0,
                    },
                    PlaneSpec {
                        normal: vec![0.0, 0.0, -1.0],
                        offset: 1.0,
                    },
                ])
                .collect(),
            ),
            ..part(vec![])
        }],
    };
    let file = ScenarioFile {
        name: "round_trip".into(),
        dimension: 3,
        description: "a union body above a slab".into(),
        simulation: SimulationSpec {
            time_step: 0.005,
            duration: 0.5,
            stepper: Stepper::Implicit,
            gravity: vec![0.0, 0.0, -9.81],
            integrator: IntegratorSpec::Midpoint,
            energy_projection: None,
            gyroscopic: Some(GyroscopicSpec::Midpoint),
            closest_points: Some(crate::contact::ClosestPoints::Paper),
            friction_continuation: Some(false),
            cones_from_start: Some(false),
            cones_normalised: None,
            cones_normalised_after: None,
            friction_centre_from_start: None,
        },
        solver: Some(SolveSettings::default().with_tolerance(1e-11).unwrap()),
        friction: FrictionSpec {
            mu: 0.2,
            e_t: 1.0,
            e_o: 1.0,
            e_r: Some(0.3),
        },
        body: vec![body, floor],
        pair: vec![PairSpec {
            body1: "floor".into(),
            body2: "gadget".into(),
            mu: 0.25,
            e_t: 1.0,
            e_o: 1.0,
            e_r: None,
        }],
        joint: vec![JointSpec {
            name: None,
            kind: JointKindSpec::Ball,
            body1: None,
            body2: "gadget".into(),
            anchor: vec![0.0, 0.0, 4.0],
            axis: None,
            actuator: None,
            limits: None,
            friction: None,
        }],
        support: vec![],
        no_collision: vec![],
        output: Outputs {
            trajectory: true,
            contacts: false,
            joints: false,
            drives: false,
            solver: false,
            every: 10,
            max_output_mb: Some(2),
        },
        lcp: None,
    };
    let built = file.build("rust").unwrap();
    let text = built.to_toml();
    let back = parse(&text, "written.toml").unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(back.source, file, "{text}");
    assert_eq!(back.solver.tolerance, 1e-11);
    assert!(!back.outputs.contacts);
    let (AnyScene::Spatial(a), AnyScene::Spatial(b)) = (&built.scene, &back.scene) else {
        panic!("3D")
    };
    assert_eq!(a.pair_friction, b.pair_friction);
    assert_eq!(a.joints, b.joints);
    assert_eq!(b.joints.len(), 1);
    for (x, y) in a.bodies.iter().zip(&b.bodies) {
        assert_eq!(x.name, y.name);
        assert_eq!((x.mass, x.inertia, x.fixed), (y.mass, y.inertia, y.fixed));
        assert_eq!((x.pose, x.twist), (y.pose, y.twist));
        assert_eq!(x.external_wrench, y.external_wrench);
        assert_eq!(x.friction, y.friction);
        assert_eq!(x.shape.parts().len(), y.shape.parts().len());
        for (pa, pb) in x.shape.parts().iter().zip(y.shape.parts()) {
            assert_eq!(pa.len(), pb.len());
            for k in 0..40 {
                let t = k as f64;
                let xi = Vector3::new((0.7 * t).sin(), (1.3 * t).cos(), 0.05 * t - 1.0);
                assert_eq!(pa.value(&xi), pb.value(&xi));
            }
        }
    }
    // The union really is three parts, the box placed and turned: its long axis (body z) stays
    // along z after the 90° turn about z, its x half-extent 0.2 becomes a y half-extent.
    let gadget = &b.bodies[0];
    assert_eq!(gadget.shape.parts().len(), 3);
    let boxed = &gadget.shape.parts()[1];
    assert!(boxed.contains(&Vector3::new(0.5, 0.19, 0.69)));
    assert!(!boxed.contains(&Vector3::new(0.5, 0.0, 0.75)));
    assert!(!boxed.contains(&Vector3::new(0.69, 0.0, 0.0)));
}

/// A valid 2D scene with joints: a rod pinned to the world at its left end, and a disc welded
/// to the rod's right end (their parts overlap there: jointed bodies do not collide).
const PENDULUM: &str = r#"
name = "pendulum"
dimension = 2

[simulation]
time_step = 0.01
duration = 0.1
gravity = [0.0, -9.81]

[friction]
mu = 0.0

[[body]]
name = "rod"
mass = 1.0
inertia = 0.0842
position = [0.5, 0.0]
[[body.part]]
kind = "box"
half_extents = [0.5, 0.05]

[[body]]
name = "bob"
mass = 0.5
inertia = 0.0025
position = [1.0, 0.0]
[[body.part]]
[[body.part.function]]
shape = "circle"
radius = 0.1

[[joint]]
name = "pin"
kind = "revolute"
body1 = "world"
body2 = "rod"
anchor = [0.0, 0.0]

[[joint]]
kind = "fixed"
body1 = "rod"
body2 = "bob"
anchor = [1.0, 0.0]
"#;

/// A valid 3D scene with joints: a door on a hinge about the world's z axis, a handle on a
/// ball joint and a bolt sliding along x in the door.
const DOOR: &str = r#"
name = "door"
dimension = 3

[simulation]
time_step = 0.01
duration = 0.1
gravity = [0.0, 0.0, -9.81]

[friction]
mu = 0.0

[[body]]
name = "door"
mass = 10.0
inertia = [1.0, 1.0, 1.0]
position = [0.5, 0.0, 1.0]
[[body.part]]
kind = "box"
half_extents = [0.5, 0.02, 1.0]

[[body]]
name = "handle"
mass = 0.2
inertia = [0.001, 0.001, 0.001]
position = [0.9, 0.1, 1.0]
[[body.part]]
[[body.part.function]]
shape = "sphere"
radius = 0.03

[[body]]
name = "bolt"
mass = 0.1
inertia = [0.001, 0.001, 0.001]
position = [0.8, -0.1, 1.5]
[[body.part]]
[[body.part.function]]
shape = "sphere"
radius = 0.02

[[joint]]
name = "hinge"
kind = "revolute"
body2 = "door"
anchor = [0.0, 0.0, 1.0]
axis = [0.0, 0.0, 2.0]

[[joint]]
kind = "ball"
body1 = "door"
body2 = "handle"
anchor = [0.9, 0.05, 1.0]

[[joint]]
kind = "prismatic"
body1 = "door"
body2 = "bolt"
anchor = [0.8, -0.1, 1.5]
axis = [1.0, 0.0, 0.0]
"#;

/// The line (from 1) of the first line of `text` after line `after` that contains `needle`.
fn line_of(text: &str, needle: &str, after: usize) -> usize {
    text.lines()
        .enumerate()
        .skip(after)
        .find(|(_, l)| l.contains(needle))
        .map(|(i, _)| i + 1)
        .unwrap_or_else(|| panic!("`{needle}` not in the text"))
}

/// Both joint scenes build: every joint with its kind, its bodies (body 1 `None` for the
/// world, also by default), its name (given or `joint<i>`), and its anchor in each body's
/// frame; the welded disc overlapping the rod is not an overlap error; the scenes round-trip
/// through TOML.
#[test]
fn joint_scenarios_build_in_2d_and_3d() {
    use crate::model::JointKind;
    let s = parse(PENDULUM, FILE).unwrap_or_else(|e| panic!("{e}"));
    let AnyScene::Planar(scene) = &s.scene else {
        panic!("2D")
    };
    assert_eq!(scene.joints.len(), 2);
    let (pin, weld) = (&scene.joints[0], &scene.joints[1]);
    assert_eq!((pin.name.as_str(), pin.kind), ("pin", JointKind::Revolute));
    assert_eq!((pin.body1, pin.body2), (None, 0));
    assert_eq!(pin.anchor[0], Vector2::new(0.0, 0.0), "world frame");
    assert_eq!(pin.anchor[1], Vector2::new(-0.5, 0.0), "the rod's left end");
    assert_eq!(
        (weld.name.as_str(), weld.kind),
        ("joint1", JointKind::Fixed)
    );
    assert_eq!((weld.body1, weld.body2), (Some(0), 1));
    assert!(scene.jointed(0, 1) && scene.jointed(1, 0));
    let back = parse(&s.to_toml(), "written.toml").unwrap();
    assert_eq!(back.source, s.source);

    let s = parse(DOOR, FILE).unwrap_or_else(|e| panic!("{e}"));
    let AnyScene::Spatial(scene) = &s.scene else {
        panic!("3D")
    };
    let kinds: Vec<_> = scene
        .joints
        .iter()
        .map(|j| (j.kind, j.body1, j.body2))
        .collect();
    assert_eq!(
        kinds,
        [
            (JointKind::Revolute, None, 0),
            (JointKind::Ball, Some(0), 1),
            (JointKind::Prismatic, Some(0), 2),
        ]
    );
    let hinge = &scene.joints[0];
    assert_eq!(hinge.body1, None, "body1 defaults to the world");
    assert_eq!(
        hinge.axes[0][0],
        Vector3::z(),
        "the axis is a unit direction"
    );
    assert_eq!(hinge.anchor[1], Vector3::new(-0.5, 0.0, 0.0));
    let names: Vec<&str> = scene.joints.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["hinge", "joint1", "joint2"]);
    let back = parse(&s.to_toml(), "written.toml").unwrap();
    assert_eq!(back.source, s.source);

    // Without the weld the disc and the rod do overlap.
    let unwelded = &PENDULUM[..PENDULUM.rfind("[[joint]]").unwrap()];
    expect_error(
        unwelded,
        ErrorKind::Overlap,
        "body[1].position",
        &["`rod`", "`bob`"],
    );
}

/// Every refusal of a `[[joint]]` names the file, the line, the field and the reason.
#[test]
fn joint_refusals_name_their_line_and_field() {
    let joints_at = line_of(PENDULUM, "[[joint]]", 0);
    // Structure: an unknown key, a missing body2, an unknown kind.
    let e = expect_error(
        &edit(PENDULUM, "anchor = [0.0, 0.0]", "anchr = [0.0, 0.0]"),
        ErrorKind::UnknownKey,
        "joint[0].anchr",
        &["unknown field"],
    );
    let line = line_of(PENDULUM, "anchor = [0.0, 0.0]", 0);
    assert!(e.to_string().starts_with(&format!("{FILE}:{line}:")), "{e}");
    expect_error(
        &edit(PENDULUM, "body2 = \"rod\"\n", ""),
        ErrorKind::MissingKey,
        "joint[0].body2",
        &["missing", "body2"],
    );
    expect_error(
        &edit(PENDULUM, "kind = \"revolute\"", "kind = \"hinge\""),
        ErrorKind::InvalidValue,
        "joint[0].kind",
        &["hinge", "revolute", "prismatic", "fixed", "ball"],
    );
    // Bodies: unknown names, the world as body2, one body twice, two fixed bodies.
    let e = expect_error(
        &edit(PENDULUM, "body2 = \"rod\"", "body2 = \"rood\""),
        ErrorKind::UnknownBody,
        "joint[0].body2",
        &["no body is named `rood`", "`rod`, `bob`"],
    );
    let line = line_of(PENDULUM, "body2 = \"rod\"", joints_at);
    assert!(e.to_string().starts_with(&format!("{FILE}:{line}:")), "{e}");
    expect_error(
        &edit(PENDULUM, "body1 = \"rod\"", "body1 = \"Rod\""),
        ErrorKind::UnknownBody,
        "joint[1].body1",
        &["no body is named `Rod`", "or `world`"],
    );
    expect_error(
        &edit(PENDULUM, "body2 = \"rod\"", "body2 = \"world\""),
        ErrorKind::InvalidValue,
        "joint[0].body2",
        &["the world can be body1 only"],
    );
    expect_error(
        &edit(PENDULUM, "body2 = \"bob\"", "body2 = \"rod\""),
        ErrorKind::InvalidValue,
        "joint[1].body2",
        &["two bodies", "`rod` twice"],
    );
    let fixed_bob = edit(
        PENDULUM,
        "name = \"bob\"\n",
        "name = \"bob\"\nfixed = true\n",
    );
    let fixed_bob = edit(&fixed_bob, "body1 = \"rod\"", "body1 = \"world\"");
    expect_error(
        &fixed_bob,
        ErrorKind::InvalidValue,
        "joint[1].body2",
        &["both bodies are fixed"],
    );
    let world_body = edit(PENDULUM, "name = \"bob\"", "name = \"world\"");
    expect_error(
        &edit(&world_body, "body2 = \"bob\"", "body2 = \"world\""),
        ErrorKind::InvalidValue,
        "joint[0].body1",
        &["`world` is ambiguous", "body[1]"],
    );
    // Names: unique, also against a default name, and not empty.
    expect_error(
        &edit(
            PENDULUM,
            "kind = \"fixed\"",
            "name = \"pin\"\nkind = \"fixed\"",
        ),
        ErrorKind::DuplicateName,
        "joint[1].name",
        &["`pin` is already the name of joint[0]"],
    );
    let e = expect_error(
        &edit(PENDULUM, "name = \"pin\"", "name = \"joint1\""),
        ErrorKind::DuplicateName,
        "joint[1].name",
        &["`joint1` (this joint's default name; give it a `name`)"],
    );
    let second = line_of(PENDULUM, "[[joint]]", joints_at);
    assert!(
        e.to_string().starts_with(&format!("{FILE}:{second}:")),
        "{e}"
    );
    expect_error(
        &edit(PENDULUM, "name = \"pin\"", "name = \" \""),
        ErrorKind::InvalidValue,
        "joint[0].name",
        &["must not be empty"],
    );
    // The anchor: its length and finite entries.
    expect_error(
        &edit(PENDULUM, "anchor = [0.0, 0.0]", "anchor = [0.0, 0.0, 0.0]"),
        ErrorKind::WrongLength,
        "joint[0].anchor",
        &["has 3 entries but the scene is 2D"],
    );
    expect_error(
        &edit(PENDULUM, "anchor = [0.0, 0.0]", "anchor = [0.0, nan]"),
        ErrorKind::NotFinite,
        "joint[0].anchor[1]",
        &["must be finite"],
    );
    // The axis: not used by a 2D pin or a weld, required by a slider, never zero.
    expect_error(
        &edit(
            PENDULUM,
            "anchor = [0.0, 0.0]",
            "anchor = [0.0, 0.0]\naxis = [0.0, 1.0]",
        ),
        ErrorKind::UnknownKey,
        "joint[0].axis",
        &["2D `revolute`", "not used"],
    );
    expect_error(
        &edit(
            PENDULUM,
            "anchor = [1.0, 0.0]",
            "anchor = [1.0, 0.0]\naxis = [0.0, 1.0]",
        ),
        ErrorKind::UnknownKey,
        "joint[1].axis",
        &["`fixed` joint has no axis", "not used"],
    );
    let slider = edit(PENDULUM, "kind = \"fixed\"", "kind = \"prismatic\"");
    expect_error(
        &slider,
        ErrorKind::MissingKey,
        "joint[1].axis",
        &["missing", "`prismatic` joint in 2D"],
    );
    let slider = edit(
        &slider,
        "anchor = [1.0, 0.0]",
        "anchor = [1.0, 0.0]\naxis = [0.0, 0.0]",
    );
    let e = expect_error(
        &slider,
        ErrorKind::InvalidValue,
        "joint[1].axis",
        &["must not be zero"],
    );
    let line = line_of(&slider, "axis = [0.0, 0.0]", 0);
    assert!(e.to_string().starts_with(&format!("{FILE}:{line}:")), "{e}");
    expect_error(
        &edit(&slider, "axis = [0.0, 0.0]", "axis = [1.0]"),
        ErrorKind::WrongLength,
        "joint[1].axis",
        &["has 1 entries but the scene is 2D"],
    );
    expect_error(
        &edit(&slider, "axis = [0.0, 0.0]", "axis = [1.0, inf]"),
        ErrorKind::NotFinite,
        "joint[1].axis[1]",
        &["must be finite"],
    );
    assert!(
        parse(
            &edit(&slider, "axis = [0.0, 0.0]", "axis = [3.0, 0.0]"),
            FILE
        )
        .is_ok()
    );
    // A ball is 3D only; a 3D hinge needs its axis, with three entries.
    expect_error(
        &edit(PENDULUM, "kind = \"revolute\"", "kind = \"ball\""),
        ErrorKind::InvalidValue,
        "joint[0].kind",
        &["only in 3D", "`revolute`"],
    );
    expect_error(
        &edit(DOOR, "axis = [0.0, 0.0, 2.0]\n", ""),
        ErrorKind::MissingKey,
        "joint[0].axis",
        &["`revolute` joint in 3D"],
    );
    expect_error(
        &edit(DOOR, "axis = [0.0, 0.0, 2.0]", "axis = [0.0, 2.0]"),
        ErrorKind::WrongLength,
        "joint[0].axis",
        &["has 2 entries but the scene is 3D"],
    );
    expect_error(
        &edit(
            DOOR,
            "kind = \"ball\"",
            "kind = \"ball\"\naxis = [1.0, 0.0, 0.0]",
        ),
        ErrorKind::UnknownKey,
        "joint[1].axis",
        &["`ball` joint has no axis"],
    );
}

/// The LCP stepper has no joints: a scene with joints is refused under it, from the file or
/// the command line, at the first joint's line.
#[test]
fn lcp_refuses_joints_at_the_first_joint() {
    let s = parse(PENDULUM, FILE).unwrap();
    let e = s.with_stepper(Stepper::Lcp).unwrap_err();
    assert_eq!(e.field(), Some("joint[0]"), "{e}");
    let line = line_of(PENDULUM, "[[joint]]", 0);
    assert!(e.to_string().starts_with(&format!("{FILE}:{line}:")), "{e}");
    assert!(e.to_string().contains("joint `pin`"), "{e}");
    assert!(e.to_string().contains("stepper = \"implicit\""), "{e}");
    let lcp = edit(
        PENDULUM,
        "gravity = [0.0, -9.81]",
        "gravity = [0.0, -9.81]\nstepper = \"lcp\"",
    );
    expect_error(
        &lcp,
        ErrorKind::InvalidValue,
        "joint[0]",
        &["LCP stepper has no joints"],
    );
}

/// `joints.csv` counts in the output-size estimate and `[output] joints = false` drops it.
#[test]
fn joints_count_in_the_output_estimate() {
    let with = parse(PENDULUM, FILE).unwrap();
    let without = parse(&format!("{PENDULUM}\n[output]\njoints = false\n"), FILE).unwrap();
    assert!(!without.outputs.joints && with.outputs.joints);
    let rows = (with.step_count() + 2) as f64;
    // Two joints of 16 fields per 2D row.
    let joints = rows * 2.0 * 16.0 * BYTES_PER_FIELD;
    let difference = with.expected_output_bytes() - without.expected_output_bytes();
    assert!(
        (difference - joints).abs() < 1e-6 * joints,
        "{difference} vs {joints}"
    );
}

/// `[[support]]` and `[[no_collision]]`: the 2.5D support of a planar body and a pair left out
/// of collision; bad entries name their field.
#[test]
fn support_and_no_collision_entries() {
    let support = "\n[[support]]\nbody = \"disc\"\nmu = 0.3\ne_r = 0.5\n";
    let pair = "\n[[no_collision]]\nbody1 = \"disc\"\nbody2 = \"ground\"\n";
    let ok = parse(&format!("{DISC}{support}{pair}"), FILE).unwrap();
    let AnyScene::Planar(scene) = &ok.scene else {
        panic!("planar")
    };
    assert_eq!(scene.supports.len(), 1);
    let s = scene.supports[0];
    assert_eq!((s.body, s.friction.mu, s.friction.e_r), (0, 0.3, 0.5));
    assert!((s.normal_force - 9.81).abs() < 1e-12, "default m g");
    assert!(!scene.may_collide(0, 1) && !scene.may_collide(1, 0));
    expect_error(
        &format!("{DISC}{}", edit(support, "\"disc\"", "\"puck\"")),
        ErrorKind::UnknownBody,
        "support[0].body",
        &["puck", "`disc`, `ground`"],
    );
    expect_error(
        &format!("{DISC}{support}normal_force = -1.0\n"),
        ErrorKind::InvalidValue,
        "support[0].normal_force",
        &["> 0"],
    );
    expect_error(
        &format!("{DISC}{}", edit(support, "mu = 0.3", "mu = -0.3")),
        ErrorKind::InvalidValue,
        "support[0].mu",
        &["≥ 0"],
    );
    expect_error(
        &format!("{DISC}{}", edit(support, "\"disc\"", "\"ground\"")),
        ErrorKind::InvalidValue,
        "support[0].body",
        &["fixed"],
    );
    expect_error(
        &format!("{BALL}{}", edit(support, "\"disc\"", "\"ball\"")),
        ErrorKind::InvalidValue,
        "support[0].body",
        &["2.5D"],
    );
    expect_error(
        &format!("{DISC}{}", edit(pair, "\"ground\"", "\"disc\"")),
        ErrorKind::InvalidValue,
        "no_collision[0].body2",
        &["twice"],
    );
}

/// `limits = [lo, hi]` and `friction = F` on a joint: kept on the scene's joint; a bad value
/// is refused at its line and field (two entries, finite, `lo < hi`, the start `q = 0` within
/// them, a revolute joint's within (−π, π), `F > 0`, only on a joint with a free coordinate).
#[test]
fn joint_limits_and_friction_are_checked_at_their_line() {
    let with = |keys: &str| {
        edit(
            PENDULUM,
            "anchor = [0.0, 0.0]",
            &format!("anchor = [0.0, 0.0]\n{keys}"),
        )
    };
    let ok = parse(&with("limits = [-1.0, 0.5]\nfriction = 0.25"), FILE).unwrap();
    let AnyScene::Planar(scene) = &ok.scene else {
        panic!("planar")
    };
    assert_eq!(scene.joints[0].limits, Some([-1.0, 0.5]));
    assert_eq!(scene.joints[0].friction, Some(0.25));
    assert_eq!(
        (scene.joints[1].limits, scene.joints[1].friction),
        (None, None)
    );
    let back = parse(&ok.to_toml(), "written.toml").unwrap();
    assert_eq!(back.source, ok.source);
    let cases: [(&str, ErrorKind, &str, &[&str]); 7] = [
        (
            "limits = [0.5, 0.2]",
            ErrorKind::InvalidValue,
            "limits",
            &["below the upper"],
        ),
        (
            "limits = [0.1, 0.5]",
            ErrorKind::InvalidValue,
            "limits",
            &["initial configuration", "outside"],
        ),
        (
            "limits = [-4.0, 1.0]",
            ErrorKind::InvalidValue,
            "limits",
            &["(−π, π)"],
        ),
        (
            "limits = [-1.0, nan]",
            ErrorKind::NotFinite,
            "limits[1]",
            &["must be finite"],
        ),
        (
            "limits = [0.1]",
            ErrorKind::WrongLength,
            "limits",
            &["2 entries", "got 1"],
        ),
        (
            "friction = 0.0",
            ErrorKind::InvalidValue,
            "friction",
            &["finite and > 0"],
        ),
        (
            "friction = inf",
            ErrorKind::NotFinite,
            "friction",
            &["must be finite"],
        ),
    ];
    for (keys, kind, key, reason) in cases {
        let text = with(keys);
        let e = expect_error(&text, kind, &format!("joint[0].{key}"), reason);
        let line = line_of(&text, keys, 0);
        assert!(e.to_string().starts_with(&format!("{FILE}:{line}:")), "{e}");
    }
    // A weld has no free coordinate.
    for (keys, key) in [
        ("limits = [-1.0, 1.0]", "limits"),
        ("friction = 1.0", "friction"),
    ] {
        let text = edit(
            PENDULUM,
            "anchor = [1.0, 0.0]",
            &format!("anchor = [1.0, 0.0]\n{keys}"),
        );
        let e = expect_error(
            &text,
            ErrorKind::InvalidValue,
            &format!("joint[1].{key}"),
            &["no free coordinate"],
        );
        let line = line_of(&text, keys, 0);
        assert!(e.to_string().starts_with(&format!("{FILE}:{line}:")), "{e}");
    }
}

/// A regular polygon part (`kind = "regular_polygon"`, `radius`, `sides`): built by
/// `ConvexPart::regular_polygon` itself, so a file reproduces a scene that used it bit for bit;
/// its errors name the part and the reason.
#[test]
fn regular_polygon_parts_are_read_and_checked() {
    let hexagon = edit(
        DISC,
        "[[body.part]]\n[[body.part.function]]\nshape = \"circle\"\nradius = 1.0\n",
        "[[body.part]]\nkind = \"regular_polygon\"\nradius = 1.0\nsides = 6\n",
    );
    let s = parse(&hexagon, FILE).unwrap();
    let AnyScene::Planar(scene) = &s.scene else {
        panic!("2D")
    };
    let part = &scene.bodies[0].shape.parts()[0];
    let built = crate::geometry::ConvexPart::regular_polygon(1.0, 6).unwrap();
    for p in [
        Vector2::new(0.3, -0.2),
        Vector2::new(0.0, -1.0),
        Vector2::new(0.9, 0.5),
    ] {
        assert_eq!(part.value(&p), built.value(&p));
    }
    expect_error(
        &edit(&hexagon, "sides = 6\n", "sides = 2\n"),
        ErrorKind::InvalidValue,
        "body[0].part[0].sides",
        &["between 3 and"],
    );
    expect_error(
        &edit(&hexagon, "sides = 6\n", ""),
        ErrorKind::MissingKey,
        "body[0].part[0].sides",
        &["missing"],
    );
    let ball = edit(
        BALL,
        "[[body.part]]\n[[body.part.function]]\nshape = \"sphere\"\nradius = 1.0\n",
        "[[body.part]]\nkind = \"regular_polygon\"\nradius = 1.0\nsides = 6\n",
    );
    expect_error(
        &ball,
        ErrorKind::InvalidValue,
        "body[0].part[0].kind",
        &["only in 2D"],
    );
}
