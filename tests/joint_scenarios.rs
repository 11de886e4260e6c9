//! Scenarios with `[[joint]]` entries on the command line: `joints.csv` and its columns, the
//! `[output]` switch and stride, `max_joint_drift` in `summary.json` and the result line, a
//! rerun that cleans the old `joints.csv`, and the LCP stepper's refusal at the joint's line.

use std::path::{Path, PathBuf};
use std::process::Output;

mod common;
use common::{bin, text};

/// A rod of 1 m pinned to the world at its left end, released horizontal (1 s, h = 0.01 s).
const PENDULUM: &str = r#"name = "pendulum"
dimension = 2

[simulation]
time_step = 0.01
duration = 1.0
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

[[joint]]
name = "pin"
kind = "revolute"
body2 = "rod"
anchor = [0.0, 0.0]
"#;

/// A 3D door on a hinge about the world's z axis, pushed at its free edge.
const DOOR: &str = r#"name = "door"
dimension = 3

[simulation]
time_step = 0.01
duration = 0.2
gravity = [0.0, 0.0, -9.81]

[friction]
mu = 0.0

[[body]]
name = "door"
mass = 10.0
inertia = [3.3, 0.8, 2.5]
position = [0.5, 0.0, 1.0]
force = [0.0, 5.0, 0.0]
[[body.part]]
kind = "box"
half_extents = [0.5, 0.02, 1.0]

[[joint]]
kind = "revolute"
body1 = "world"
body2 = "door"
anchor = [0.0, 0.0, 1.0]
axis = [0.0, 0.0, 1.0]
"#;

fn write(dir: &Path, name: &str, content: &str) -> PathBuf {
    let file = dir.join(name);
    std::fs::write(&file, content).unwrap();
    file
}

fn run(out: &Path, file: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "run",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    bin().args(args).output().unwrap()
}

fn summary(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
}

/// The header and the rows of a CSV file (no quoted fields here).
fn csv(file: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let content = std::fs::read_to_string(file).unwrap();
    let mut lines = content.lines();
    let split = |l: &str| l.split(',').map(str::to_string).collect::<Vec<_>>();
    let header = split(lines.next().unwrap());
    (header, lines.map(split).collect())
}

fn column(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
}

/// The pendulum writes one `joints.csv` row per step from step 1: the world as body 1, the
/// joint's force at the first step that of a rod pivoting at its end (`m g (1 − m (L/2)² /
/// I_pivot)`, upward), the forces the impulses over `h`, no drift beyond 1e-9; the summary and
/// the result line give the largest drift.
#[test]
fn a_pendulum_run_writes_joints_csv_and_the_largest_drift() {
    let out = common::temp_dir("joint-scenarios", "pendulum");
    let file = write(&out, "pendulum.toml", PENDULUM);
    let o = run(&out, &file, &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let stdout = text(&o.stdout);
    assert!(stdout.contains("; max joint drift "), "{stdout}");
    let dir = out.join("pendulum");
    let (header, rows) = csv(&dir.join("joints.csv"));
    assert_eq!(
        header.join(","),
        "step,t,joint,name,body1,body2,impulse_x,impulse_y,moment,drift,force_x,force_y,torque,actuator,limit_impulse,friction_impulse"
    );
    assert_eq!(rows.len(), 100);
    let steps: Vec<usize> = rows.iter().map(|r| r[0].parse().unwrap()).collect();
    assert_eq!(steps, (1..=100).collect::<Vec<_>>());
    let num = |r: &[String], c: &str| -> f64 { r[column(&header, c)].parse().unwrap() };
    for r in &rows {
        assert_eq!(&r[2..6], ["0", "pin", "world", "rod"]);
        assert!(num(r, "drift") <= 1e-9, "{r:?}");
        assert_eq!(num(r, "moment"), 0.0, "a pin holds no moment");
        for (force, impulse) in [("force_x", "impulse_x"), ("force_y", "impulse_y")] {
            let (f, p) = (num(r, force), num(r, impulse));
            assert!((f - p / 0.01).abs() <= 1e-12 * f.abs().max(1.0), "{r:?}");
        }
    }
    let (m, g, half, i) = (1.0, 9.81, 0.5, 0.0842);
    let pivot = i + m * half * half;
    let expected = m * g * (1.0 - m * half * half / pivot);
    let first = num(&rows[0], "force_y");
    assert!(
        (first - expected).abs() < 1e-3 * expected,
        "{first} vs {expected}"
    );
    let s = summary(&dir);
    assert_eq!(s["complete"], true);
    let drift = s["max_joint_drift"].as_f64().unwrap();
    assert!((0.0..=1e-9).contains(&drift), "{drift}");
    let largest = rows.iter().map(|r| num(r, "drift")).fold(0.0, f64::max);
    assert!(drift >= largest, "{drift} < {largest}");
    let _ = std::fs::remove_dir_all(&out);
}

/// A 3D hinge: three impulse and three moment columns, the moment along the hinge zero (the
/// hinge leaves that rotation free), and the door's drift within 1e-9.
#[test]
fn a_hinge_in_3d_writes_its_moments() {
    let out = common::temp_dir("joint-scenarios", "door");
    let file = write(&out, "door.toml", DOOR);
    let o = run(&out, &file, &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let dir = out.join("door");
    let (header, rows) = csv(&dir.join("joints.csv"));
    assert_eq!(
        header.join(","),
        "step,t,joint,name,body1,body2,impulse_x,impulse_y,impulse_z,moment_x,moment_y,\
         moment_z,drift,force_x,force_y,force_z,torque_x,torque_y,torque_z,actuator,\
         limit_impulse,friction_impulse"
    );
    assert_eq!(rows.len(), 20);
    let num = |r: &[String], c: &str| -> f64 { r[column(&header, c)].parse().unwrap() };
    for r in &rows {
        assert_eq!(&r[3..6], ["joint0", "world", "door"]);
        assert!(num(r, "drift") <= 1e-9, "{r:?}");
        assert!(num(r, "moment_z").abs() <= 1e-9, "{r:?}");
        // The hinge carries the door's weight over the step.
        assert!(
            (num(r, "impulse_z") - 10.0 * 9.81 * 0.01).abs() < 1e-6,
            "{r:?}"
        );
    }
    assert!(summary(&dir)["max_joint_drift"].as_f64().unwrap() <= 1e-9);
    let _ = std::fs::remove_dir_all(&out);
}

/// `[output] every = K` writes steps K, 2K, … and the last; `joints = false` writes no
/// `joints.csv`, and the summary still has the drift of every step.
#[test]
fn the_output_stride_and_switch_apply_to_joints() {
    let out = common::temp_dir("joint-scenarios", "output");
    let file = write(
        &out,
        "pendulum.toml",
        &format!("{PENDULUM}\n[output]\nevery = 30\n"),
    );
    let o = run(&out, &file, &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let dir = out.join("pendulum");
    let (_, rows) = csv(&dir.join("joints.csv"));
    let steps: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(steps, ["30", "60", "90", "100"]);

    let file = write(
        &out,
        "pendulum.toml",
        &format!("{PENDULUM}\n[output]\njoints = false\n"),
    );
    let o = run(&out, &file, &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(!dir.join("joints.csv").exists(), "joints.csv was written");
    assert!(dir.join("contacts.csv").exists());
    assert!(summary(&dir)["max_joint_drift"].as_f64().unwrap() <= 1e-9);
    let _ = std::fs::remove_dir_all(&out);
}

/// A rerun into the same directory of a scene without joints leaves no `joints.csv` of the
/// previous run, and its summary has no `max_joint_drift`; `duration = 0` writes the header
/// alone and the initial drift.
#[test]
fn a_rerun_without_joints_removes_the_old_joints_csv() {
    let out = common::temp_dir("joint-scenarios", "rerun");
    let file = write(&out, "pendulum.toml", PENDULUM);
    let o = run(&out, &file, &["--duration", "0"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let dir = out.join("pendulum");
    let (_, rows) = csv(&dir.join("joints.csv"));
    assert!(rows.is_empty());
    assert!(summary(&dir)["max_joint_drift"].as_f64().unwrap() <= 1e-12);

    let free = &PENDULUM[..PENDULUM.find("[[joint]]").unwrap()];
    let file = write(&out, "pendulum.toml", free);
    let o = run(&out, &file, &["--duration", "0.1"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        !dir.join("joints.csv").exists(),
        "the old joints.csv stayed"
    );
    assert!(summary(&dir).get("max_joint_drift").is_none());
    assert!(!text(&o.stdout).contains("joint drift"));
    let _ = std::fs::remove_dir_all(&out);
}

/// `--stepper lcp` on a scene with joints is refused at the first joint's line, and nothing is
/// written.
#[test]
fn the_lcp_stepper_is_refused_at_the_joint() {
    let out = common::temp_dir("joint-scenarios", "lcp");
    let file = write(&out, "pendulum.toml", PENDULUM);
    let o = run(&out, &file, &["--stepper", "lcp"]);
    assert!(!o.status.success());
    let stderr = text(&o.stderr);
    let line = PENDULUM.lines().position(|l| l == "[[joint]]").unwrap() + 1;
    assert!(
        stderr.contains(&format!("pendulum.toml:{line}:1: field `joint[0]`")),
        "{stderr}"
    );
    assert!(stderr.contains("LCP stepper has no joints"), "{stderr}");
    assert!(!out.join("pendulum").join("summary.json").exists());
    let _ = std::fs::remove_dir_all(&out);
}

/// A bad actuator is refused at its line: one on a joint kind without a free coordinate, a
/// constant force beside PD keys, a PD controller without its stiffness, a negative damping.
#[test]
fn a_bad_actuator_is_refused_at_its_line() {
    let out = common::temp_dir("joint-scenarios", "actuator");
    let cases = [
        (
            "kind = \"revolute\"",
            "kind = \"fixed\"\nactuator = { force = 1.0 }",
            "joint[0].actuator",
            "no free coordinate",
        ),
        (
            "anchor = [0.0, 0.0]",
            "anchor = [0.0, 0.0]\nactuator = { force = 1.0, stiffness = 5.0 }",
            "joint[0].actuator.force",
            "not both",
        ),
        (
            "anchor = [0.0, 0.0]",
            "anchor = [0.0, 0.0]\nactuator = { target = 0.3, max = 5.0 }",
            "joint[0].actuator.stiffness",
            "needs `stiffness` and `max`",
        ),
        (
            "anchor = [0.0, 0.0]",
            "anchor = [0.0, 0.0]\nactuator = { stiffness = 5.0, damping = -1.0, max = 5.0 }",
            "joint[0].actuator",
            "damping must be finite and ≥ 0",
        ),
    ];
    for (k, (from, to, field, reason)) in cases.into_iter().enumerate() {
        let content = PENDULUM.replace(from, to);
        let file = write(&out, &format!("bad{k}.toml"), &content);
        let o = run(&out, &file, &[]);
        assert!(!o.status.success(), "case {k}");
        let stderr = text(&o.stderr);
        let line = content
            .lines()
            .position(|l| l.starts_with("actuator"))
            .unwrap()
            + 1;
        assert!(
            stderr.contains(&format!("bad{k}.toml:{line}:")) && stderr.contains(field),
            "case {k}: {stderr}"
        );
        assert!(stderr.contains(reason), "case {k}: {stderr}");
    }
    let _ = std::fs::remove_dir_all(&out);
}

/// A driven body is refused at its line when it is also fixed or has an applied force.
#[test]
fn a_bad_driven_body_is_refused_at_its_line() {
    let out = common::temp_dir("joint-scenarios", "driven");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/bead_on_spinning_rod_2d.toml");
    let base = std::fs::read_to_string(path).unwrap();
    for (k, (extra, field, reason)) in [
        (
            "fixed = true",
            "body[0].driven",
            "fixed or driven, not both",
        ),
        (
            "force = [1.0, 0.0]",
            "body[0].force",
            "no applied force or torque",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let content = base.replace("driven = true\n", &format!("driven = true\n{extra}\n"));
        let file = write(&out, &format!("driven{k}.toml"), &content);
        let o = run(&out, &file, &[]);
        assert!(!o.status.success(), "case {k}");
        let stderr = text(&o.stderr);
        let key = field.rsplit('.').next().unwrap();
        let line = content.lines().position(|l| l.starts_with(key)).unwrap() + 1;
        assert!(
            stderr.contains(&format!("driven{k}.toml:{line}:")) && stderr.contains(field),
            "case {k}: {stderr}"
        );
        assert!(stderr.contains(reason), "case {k}: {stderr}");
    }
    let _ = std::fs::remove_dir_all(&out);
}

/// The limit and friction examples run from the command line: `joints.csv`'s `limit_impulse`
/// is empty before the pendulum reaches its stop and, at rest on it, holds gravity's torque
/// about the pin over the step (`m g (L/2) cos 1 h`, to 1e-9 N·m·s); the slider's
/// `friction_impulse` is `−F h` at every step, its `limit_impulse` empty (no limits); the
/// other joints' new columns are empty (the pendulum above).
#[test]
fn the_limit_and_friction_examples_write_their_impulses() {
    let out = common::temp_dir("joint-scenarios", "limits");
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let file = examples.join("pendulum_limit_2d.toml");
    let o = run(&out, &file, &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let (header, rows) = csv(&out.join("pendulum_limit_2d").join("joints.csv"));
    assert_eq!(rows.len(), 1000);
    let (limit, friction) = (
        column(&header, "limit_impulse"),
        column(&header, "friction_impulse"),
    );
    assert_eq!((limit, friction), (header.len() - 2, header.len() - 1));
    let last: f64 = rows[999][limit].parse().unwrap();
    let expected = 2.0 * 9.81 * 0.5 * 1f64.cos() * 1e-3;
    assert!((last - expected).abs() < 1e-9, "{last} vs {expected}");
    let first: f64 = rows[0][limit].parse().unwrap();
    assert!(first.abs() < 1e-9, "{first}");
    assert!(rows.iter().all(|r| r[friction].is_empty()));

    let file = examples.join("slider_friction_2d.toml");
    let o = run(&out, &file, &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let (header, rows) = csv(&out.join("slider_friction_2d").join("joints.csv"));
    assert_eq!(rows.len(), 100);
    let (limit, friction) = (
        column(&header, "limit_impulse"),
        column(&header, "friction_impulse"),
    );
    for r in &rows {
        assert!(r[limit].is_empty(), "{r:?}");
        let p: f64 = r[friction].parse().unwrap();
        assert!((p + 2.0 * 0.01).abs() < 1e-12, "{r:?}");
    }

    let file = write(&out, "pendulum.toml", PENDULUM);
    let o = run(&out, &file, &["--duration", "0.05"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let (header, rows) = csv(&out.join("pendulum").join("joints.csv"));
    let (limit, friction) = (
        column(&header, "limit_impulse"),
        column(&header, "friction_impulse"),
    );
    assert!(
        rows.iter()
            .all(|r| r[limit].is_empty() && r[friction].is_empty())
    );
    let _ = std::fs::remove_dir_all(&out);
}
