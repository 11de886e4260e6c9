//! A run directory never lies (issue 21): one writer at a time, files that end together when a
//! run is killed, summaries that do not depend on the wall clock, gaps in metres.

use std::path::Path;
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{bin, case, text};

fn run(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

/// Starts a run of Example 1 long enough to be still running when the test is done with it.
fn start_long_run(out: &Path) -> Child {
    bin()
        .args([
            "run",
            case("disc_on_plane.toml").to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--duration",
            "100000",
            // 10⁷ steps exceed the output guard: this run is meant to be killed long before.
            "--force",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Waits until `path` holds at least `lines` whole lines (the run is under way).
fn wait_for_lines(path: &Path, lines: usize, child: &mut Child) {
    let start = Instant::now();
    loop {
        let n = std::fs::read(path).map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count());
        if n >= lines {
            return;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before writing {lines} lines"
        );
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{} never reached {lines} lines",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The step of the last whole row of a CSV file (None: header only). A last line without its
/// newline is not a row: the kernel may stop a write at a page boundary when it kills the
/// process, and readers (`plot`) leave such a line out.
fn last_step(path: &Path) -> Option<usize> {
    let text = String::from_utf8(std::fs::read(path).unwrap()).unwrap();
    let whole = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
    let last = whole.lines().skip(1).last()?;
    Some(last.split(',').next().unwrap().parse().unwrap())
}

#[test]
fn a_second_run_into_a_busy_directory_is_refused_at_once_and_unique_goes_elsewhere() {
    let out = common::temp_dir("run-dir", "lock");
    let dir = out.join("disc_on_plane");
    let mut first = start_long_run(&out);
    wait_for_lines(&dir.join("trajectory.csv"), 200, &mut first);

    let start = Instant::now();
    let second = run(&[
        "run",
        case("disc_on_plane.toml").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--duration",
        "0.05",
    ]);
    let refused_in = start.elapsed();
    let err = text(&second.stderr);
    assert!(!second.status.success(), "the second run must be refused");
    assert!(err.contains("another run is writing"), "{err}");
    assert!(err.contains("--unique"), "{err}");
    assert!(err.contains("disc_on_plane"), "{err}");
    // At once: it does not wait for the first run (which has hours to go).
    assert!(refused_in < Duration::from_secs(5), "{refused_in:?}");
    // The first run's files are intact and still growing: nothing was truncated or removed.
    assert!(first.try_wait().unwrap().is_none(), "the first run goes on");
    let before = std::fs::metadata(dir.join("trajectory.csv")).unwrap().len();
    assert!(before > 0);
    wait_for_lines(&dir.join("trajectory.csv"), 400, &mut first);
    let text_now = std::fs::read_to_string(dir.join("trajectory.csv")).unwrap();
    assert!(text_now.starts_with("step,t,disc.x"));
    assert_eq!(
        text_now.lines().nth(1).unwrap().split(',').next(),
        Some("0")
    );
    assert!(!dir.join("summary.json").exists());

    // --unique: the same run goes to disc_on_plane-2/ and completes.
    let third = run(&[
        "run",
        case("disc_on_plane.toml").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--duration",
        "0.05",
        "--unique",
    ]);
    assert!(third.status.success(), "{}", text(&third.stderr));
    let elsewhere = out.join("disc_on_plane-2");
    assert!(
        text(&third.stdout).contains("disc_on_plane-2"),
        "{}",
        text(&third.stdout)
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(elsewhere.join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["complete"], true);
    assert_eq!(summary["steps"], 5);
    assert!(!dir.join("summary.json").exists());

    first.kill().unwrap();
    first.wait().unwrap();
    // The lock went with the process: the directory can be written again.
    let fourth = run(&[
        "run",
        case("disc_on_plane.toml").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--duration",
        "0.05",
    ]);
    assert!(fourth.status.success(), "{}", text(&fourth.stderr));
    assert_eq!(last_step(&dir.join("trajectory.csv")), Some(5));
    let _ = std::fs::remove_dir_all(&out);
}

/// Steps between flushes of fast steps (`run::FLUSH_EVERY`).
const FLUSH_EVERY: usize = implicit_contact::run::FLUSH_EVERY;

#[test]
fn a_killed_run_leaves_files_that_end_together_and_plot() {
    // A directory per round: a run started into the last round's directory may be replacing
    // its files while the wait below already counts the old trajectory's lines.
    let rounds: Vec<_> = (0..5)
        .map(|round| common::temp_dir("run-dir", &format!("kill{round}")))
        .collect();
    for (round, out) in rounds.iter().enumerate() {
        let dir = out.join("disc_on_plane");
        let mut child = start_long_run(out);
        // Kill at a different point of the run each round (well within its first second, so
        // the only flushes are those every FLUSH_EVERY steps, unless a step is slow).
        wait_for_lines(&dir.join("trajectory.csv"), 500 + 1500 * round, &mut child);
        std::thread::sleep(Duration::from_millis(3 * round as u64));
        child.kill().unwrap(); // SIGKILL on Unix
        child.wait().unwrap();
        assert!(!dir.join("summary.json").exists(), "no summary: not a run");
        // Example 1's disc rolls: one contact row every step from step 1 (no row: step 0).
        let [t, c, s] = ["trajectory.csv", "contacts.csv", "solver.csv"]
            .map(|f| last_step(&dir.join(f)).unwrap_or(0));
        // The files end at the same step or, when the kill fell during the three writes of one
        // flush (made in this order), within that flush's steps.
        assert!(
            t >= c && c >= s && t - s <= FLUSH_EVERY,
            "round {round}: trajectory, contacts and solver end at steps {t}, {c}, {s}"
        );
    }
    let dir = rounds[rounds.len() - 1].join("disc_on_plane");
    let o = run(&["plot", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("figures written"),
        "{}",
        text(&o.stdout)
    );
    assert!(dir.join("plots").is_dir());
    for out in &rounds {
        let _ = std::fs::remove_dir_all(out);
    }
}

/// A sphere-like ellipsoid dropped with spin onto a floor, with a Newton budget too small for
/// its first impact: it fails at the same step every time.
const STARVED_DROP: &str = r#"
name = "drop"
dimension = 3

[simulation]
time_step = 0.01
duration = 1.0
gravity = [0.0, 0.0, -9.81]

[friction]
mu = 0.3
e_r = 0.3

[solver]
order = ["path_search"]
[solver.path]
major_iteration_limit = 2
restart_limit = 0

[[body]]
name = "ball"
mass = 1.0
inertia = [0.1, 0.1, 0.1]
position = [0.0, 0.0, 0.8]
orientation = [1.0, 0.0, 0.0, 0.0]
velocity = [1.0, 0.5, 0.0]
angular_velocity = [3.0, -2.0, 1.0]
[[body.part]]
[[body.part.function]]
shape = "ellipsoid"
semi_axes = [0.5, 0.3, 0.4]

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

/// `summary.json` without the fields named for wall times.
fn without_timings(mut v: serde_json::Value) -> serde_json::Value {
    let obj = v.as_object_mut().unwrap();
    assert!(obj.remove("wall_time_per_step_s").is_some());
    obj.retain(|k, _| !k.contains("wall_time"));
    v
}

#[test]
fn the_same_failing_scenario_gives_the_same_summary_but_for_timings() {
    let out = common::temp_dir("run-dir", "repro");
    let file = out.join("drop.toml");
    std::fs::write(&file, STARVED_DROP).unwrap();
    let mut summaries = Vec::new();
    for k in 0..2 {
        let to = out.join(format!("out{k}"));
        let o = run(&["run", file.to_str().unwrap(), "--out", to.to_str().unwrap()]);
        assert!(!o.status.success(), "the run must fail");
        let text_json = std::fs::read_to_string(to.join("drop").join("summary.json")).unwrap();
        summaries.push(text_json);
    }
    let v: Vec<serde_json::Value> = summaries
        .iter()
        .map(|s| serde_json::from_str(s).unwrap())
        .collect();
    assert_eq!(v[0]["complete"], false);
    assert!(
        v[0]["steps"].as_u64().unwrap() > 0,
        "it fails after some steps"
    );
    let reason = v[0]["reason"].as_str().unwrap();
    assert!(reason.contains("did not converge"), "{reason}");
    assert!(
        !reason.contains("µs") && !reason.contains(" ms"),
        "{reason}"
    );
    assert!(v[0]["failed_step_wall_time_s"].is_f64());
    // Byte-identical once the timing fields are blanked in the text itself.
    let blank = |s: &str| -> String {
        let mut out = String::new();
        let mut in_wall = 0usize;
        for line in s.lines() {
            if line.contains("\"wall_time_per_step_s\"") {
                in_wall = 4; // the key line and its three entries (median, max, mean)
            }
            if in_wall > 0 {
                in_wall -= 1;
                continue;
            }
            if line.contains("\"failed_step_wall_time_s\"") {
                continue;
            }
            out.push_str(line);
            out.push('\n');
        }
        out
    };
    assert_eq!(blank(&summaries[0]), blank(&summaries[1]));
    assert_eq!(without_timings(v[0].clone()), without_timings(v[1].clone()));
    let _ = std::fs::remove_dir_all(&out);
}

/// An ellipsoid standing on its long axis (semi-axes 0.25, 0.25, 1) above a floor: its function
/// `(m/2)(Σ(ξᵢ/aᵢ)² − 1)`, `m = 0.25`, is a quarter of the distance near the tip, so a gap or a
/// penetration taken from the function value would be four times too small.
fn egg(height: f64, gravity: f64, duration: f64, tolerance: Option<f64>) -> String {
    let mut s = format!(
        r#"
name = "egg"
dimension = 3

[simulation]
time_step = 0.01
duration = {duration}
gravity = [0.0, 0.0, {gravity}]

[friction]
mu = 0.3

[[body]]
name = "egg"
mass = 1.0
inertia = [0.1, 0.1, 0.1]
position = [0.0, 0.0, {height}]
orientation = [1.0, 0.0, 0.0, 0.0]
[[body.part]]
[[body.part.function]]
shape = "ellipsoid"
semi_axes = [0.25, 0.25, 1.0]

[[body]]
name = "floor"
fixed = true
position = [0.0, 0.0, 0.0]
[[body.part]]
[[body.part.function]]
shape = "half_space"
normal = [0.0, 0.0, 1.0]
offset = 0.0
"#
    );
    if let Some(tol) = tolerance {
        s += &format!("\n[solver]\ntolerance = {tol:e}\n");
    }
    s
}

fn column(path: &Path, name: &str) -> Vec<f64> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let k = header.iter().position(|h| *h == name).unwrap();
    lines
        .map(|l| l.split(',').nth(k).unwrap().parse().unwrap())
        .collect()
}

#[test]
fn gap_and_max_penetration_are_in_metres() {
    let out = common::temp_dir("run-dir", "metres");
    // Apart: 1 cm between the tip and the floor, no gravity.
    let file = out.join("apart.toml");
    std::fs::write(&file, egg(1.01, 0.0, 0.03, None)).unwrap();
    let o = run(&[
        "run",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let gaps = column(&out.join("egg").join("contacts.csv"), "gap");
    assert_eq!(gaps.len(), 3);
    // Tolerance: the closest points are solved to a natural residual of 1e-10 in f's units
    // (a quarter of a metre's scale at the tip).
    for g in gaps {
        assert!((g - 0.01).abs() < 1e-9, "gap {g}, expected 0.01 m");
    }

    // Overlapping: resting on its tip under gravity, solved loosely (1e-6) so that it sinks
    // (4.9e-10 m over the run since a resting contact starts at its load; 2e-8 m before, from
    // zero impulse). The penetration is the depth of the tip, 1 − z, in metres.
    let file = out.join("resting.toml");
    std::fs::write(&file, egg(1.0, -9.81, 0.2, Some(1e-6))).unwrap();
    let o = run(&[
        "run",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let dir = out.join("egg");
    let depth = column(&dir.join("trajectory.csv"), "egg.z")
        .iter()
        .fold(0.0f64, |m, z| m.max(1.0 - z));
    let min_gap = column(&dir.join("contacts.csv"), "gap")
        .iter()
        .fold(f64::INFINITY, |m, &g| m.min(g));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    let max_penetration = summary["max_penetration"].as_f64().unwrap();
    assert!(depth > 1e-10, "the case must penetrate measurably: {depth}");
    // Signed: negative when overlapping, and the summary's penetration is the deepest of them.
    assert!(min_gap < 0.0);
    assert_eq!(max_penetration, -min_gap);
    // In metres: the tip's depth, not a quarter of it (f's value). The gap comes from the
    // contact points and the depth from the body's pose of the same solution (they agree to
    // about 1e-5 relative); 1% is far from the factor 4 of the function's scale.
    assert!(
        (max_penetration - depth).abs() < 0.01 * depth,
        "max_penetration {max_penetration} m, tip depth {depth} m"
    );
    let _ = std::fs::remove_dir_all(&out);
}
