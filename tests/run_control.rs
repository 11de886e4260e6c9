//! What a user meets first on the command line: which files a run writes and how often, the
//! output-size guard, `duration = 0`, the result line, the contact forces, `--help` and the
//! command-less main job.

use std::path::{Path, PathBuf};
use std::process::Output;

mod common;
use common::{bin, case, text};

fn run_in(dir: &Path, args: &[&str]) -> Output {
    bin().current_dir(dir).args(args).output().unwrap()
}

/// `implicit-contact run paper_cases/<name> <extra>` in `dir`.
fn run_case(dir: &Path, name: &str, extra: &[&str]) -> Output {
    let file = case(name);
    let mut args = vec!["run", file.to_str().unwrap()];
    args.extend_from_slice(extra);
    run_in(dir, &args)
}

/// `paper_cases/<name>` with its `[output]` table (its last) replaced by `extra`, written into
/// `dir`.
fn scenario_with(dir: &Path, name: &str, extra: &str) -> PathBuf {
    let original = std::fs::read_to_string(case(name)).unwrap();
    let end = original.find("[output]").unwrap_or(original.len());
    let text_in = format!("{}{extra}", &original[..end]);
    let file = dir.join(name);
    std::fs::write(&file, text_in).unwrap();
    file
}

fn summary(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
}

/// The `step` column of a CSV file.
fn steps_of(file: &Path) -> Vec<usize> {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().parse().unwrap())
        .collect()
}

#[test]
fn output_switches_skip_their_files_and_the_summary_still_covers_every_step() {
    let out = common::temp_dir("run-control", "switches");
    let file = scenario_with(
        &out,
        "disc_on_plane.toml",
        "\n[output]\ntrajectory = false\ncontacts = false\nsolver = false\n",
    );
    let o = run_in(&out, &["run", file.to_str().unwrap(), "--duration", "0.5"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let dir = out.join("runs").join("disc_on_plane");
    for f in ["trajectory.csv", "contacts.csv", "solver.csv"] {
        assert!(!dir.join(f).exists(), "{f} was written");
    }
    let s = summary(&dir);
    assert_eq!(
        (s["steps"].as_u64(), s["complete"].as_bool()),
        (Some(50), Some(true))
    );
    assert!(s["newton_iterations"]["median"].is_number());
}

#[test]
fn every_k_writes_every_kth_step_and_the_last() {
    let out = common::temp_dir("run-control", "every");
    let file = scenario_with(&out, "disc_on_plane.toml", "\n[output]\nevery = 7\n");
    let o = run_in(&out, &["run", file.to_str().unwrap(), "--duration", "0.5"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let dir = out.join("runs").join("disc_on_plane");
    let written: Vec<usize> = (0..=49).step_by(7).chain([50]).collect();
    assert_eq!(steps_of(&dir.join("trajectory.csv")), written);
    assert_eq!(steps_of(&dir.join("solver.csv")), written[1..]);
    assert_eq!(steps_of(&dir.join("contacts.csv")), written[1..]);
    // The summary's statistics are over all 50 steps.
    let s = summary(&dir);
    assert_eq!(s["steps"], 50);
    assert_eq!(s["final_time"], 0.5);
}

#[test]
fn a_run_expected_to_write_too_much_is_refused_unless_forced() {
    let out = common::temp_dir("run-control", "guard");
    // 10 000 steps of Example 1 write about 9 MB (estimated), over a 1 MB limit.
    let file = scenario_with(
        &out,
        "disc_on_plane.toml",
        "\n[output]\nmax_output_mb = 1\n",
    );
    let args = ["run", file.to_str().unwrap(), "--duration", "100"];
    let o = run_in(&out, &args);
    assert!(!o.status.success(), "the run must be refused");
    let err = text(&o.stderr);
    assert!(
        err.contains("disc_on_plane.toml:11:12: field `simulation.duration`"),
        "{err}"
    );
    assert!(
        err.contains("more than the limit of 1 MB") && err.contains("--force"),
        "{err}"
    );
    assert!(
        !out.join("runs").exists(),
        "nothing written for a refused run"
    );
    let o = run_in(&out, &[&args[..], &["--force"]].concat());
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        summary(&out.join("runs").join("disc_on_plane"))["steps"],
        10000
    );
}

#[test]
fn duration_zero_writes_the_initial_state_and_clean_statistics() {
    let out = common::temp_dir("run-control", "zero");
    let o = run_case(&out, "sphere_on_two_spheres.toml", &["--duration", "0"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let dir = out.join("runs").join("sphere_on_two_spheres");
    assert_eq!(steps_of(&dir.join("trajectory.csv")), [0]);
    let raw = std::fs::read_to_string(dir.join("summary.json")).unwrap();
    assert!(!raw.contains("null") && !raw.contains("NaN"), "{raw}");
    let s = summary(&dir);
    assert_eq!(
        (s["steps"].as_u64(), s["final_time"].as_f64()),
        (Some(0), Some(0.0))
    );
    let line = text(&o.stdout);
    assert!(
        line.contains("0 steps to t = 0 s") && !line.contains("NaN"),
        "{line}"
    );
}

#[test]
fn a_duration_that_is_no_whole_number_of_steps_is_refused() {
    let out = common::temp_dir("run-control", "partial");
    let file = scenario_with(&out, "disc_on_plane.toml", "");
    let text_in = std::fs::read_to_string(&file)
        .unwrap()
        .replace("time_step = 0.01 ", "time_step = 10.0 ")
        .replace("duration = 5.0", "duration = 0.5");
    std::fs::write(&file, text_in).unwrap();
    let o = run_in(&out, &["run", file.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(
        err.contains("disc_on_plane.toml:11:12: field `simulation.duration`"),
        "{err}"
    );
    assert!(err.contains("not a whole number of time steps"), "{err}");
    assert!(!out.join("runs").exists());
}

/// The result line has the median, mean and max step time and the slowest step; no progress bar
/// is drawn when stderr is not a terminal (here a pipe).
#[test]
fn result_line_reports_step_times_and_no_bar_off_a_terminal() {
    let out = common::temp_dir("run-control", "line");
    let o = run_case(&out, "sphere_on_two_spheres.toml", &["--duration", "0.5"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let line = text(&o.stdout);
    for part in [
        "50 steps to t = 0.5 s",
        "median",
        "mean",
        "max",
        "slowest step",
        "Newton iterations",
    ] {
        assert!(line.contains(part), "no `{part}` in {line}");
    }
    assert_eq!(text(&o.stderr), "", "nothing on a non-terminal stderr");
    let quiet = run_case(
        &out,
        "disc_on_plane.toml",
        &["--duration", "0.1", "--quiet"],
    );
    assert!(quiet.status.success() && quiet.stderr.is_empty());
}

/// Each contact row's added columns: a unit normal, the friction vector whose length is
/// `friction_impulse`, and forces that are the impulses divided by h = 0.01 s.
#[test]
fn contacts_have_normals_friction_vectors_and_forces() {
    let out = common::temp_dir("run-control", "forces");
    let o = run_case(&out, "sphere_on_two_spheres.toml", &["--duration", "0.5"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let raw = std::fs::read_to_string(out.join("runs/sphere_on_two_spheres/contacts.csv")).unwrap();
    let mut lines = raw.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let h = 0.01;
    let mut rows = 0;
    for line in lines {
        let f: Vec<f64> = line
            .split(',')
            .map(|x| x.parse().unwrap_or(f64::NAN))
            .collect();
        let v = |names: [&str; 3]| names.map(|n| f[col(n)]);
        let norm = |x: [f64; 3]| x.iter().map(|a| a * a).sum::<f64>().sqrt();
        let n = v(["normal_x", "normal_y", "normal_z"]);
        assert!((norm(n) - 1.0).abs() < 1e-12, "{line}");
        let p = v(["friction_x", "friction_y", "friction_z"]);
        let magnitude = f[col("friction_impulse")];
        assert!(
            (norm(p) - magnitude).abs() <= 1e-12 * magnitude.max(1e-3),
            "{line}"
        );
        // The friction is tangential.
        let along: f64 = (0..3).map(|k| n[k] * p[k]).sum();
        assert!(along.abs() <= 1e-12, "{line}");
        assert_eq!(f[col("normal_force")], f[col("normal_impulse")] / h);
        assert_eq!(f[col("friction_force_y")], p[1] / h);
        assert_eq!(f[col("torsion_torque")], f[col("torsion_impulse")] / h);
        rows += 1;
    }
    assert_eq!(rows, 100, "two contacts in each of 50 steps");
}

#[test]
fn help_lists_every_command_with_an_example() {
    let o = bin().arg("--help").output().unwrap();
    assert!(o.status.success());
    let help = text(&o.stdout);
    for command in ["run", "plot", "paper", "mcp-suite", "study", "soak"] {
        assert!(
            help.contains(&format!("  implicit-contact {command}")),
            "no example of `{command}` in:\n{help}"
        );
    }
}

/// With no command the main job runs into `runs/` and `plots/` of the current directory and
/// says so first.
#[test]
fn no_command_announces_where_it_writes() {
    let here = common::temp_dir("run-control", "main-job");
    let o = run_in(&here, &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(err.contains("runs/") && err.contains("plots/"), "{err}");
    assert!(here.join("runs/disc_on_plane/summary.json").exists());
    assert!(here.join("plots/fig4b_sphere_velocity.svg").exists());
    let _ = std::fs::remove_dir_all(&here);
}

/// A scene the implicit stepper cannot take (the midpoint integrator on a layer with
/// normal–tangential coupling: the layer's law is checked when the contact is built) is refused
/// at the body with the file's line and column, and nothing is written.
#[test]
fn a_stepper_refusal_names_the_place_in_the_file() {
    let out = common::temp_dir("run-control", "boxes");
    let file = out.join("boxes.toml");
    std::fs::write(
        &file,
        r#"name = "boxes"
dimension = 2

[simulation]
time_step = 0.01
duration = 0.1
gravity = [0.0, -9.81]
integrator = "midpoint"

[friction]
mu = 0.5

[[body]]
name = "table"
fixed = true
position = [0.0, -1.0]
[[body.part]]
kind = "box"
half_extents = [5.0, 1.0]

[[body]]
name = "crate"
mass = 1.0
inertia = 0.1
position = [0.0, 0.5]
layer = { stiffness = [[1000.0, 50.0], [50.0, 800.0]], damping = [0.0, 0.0], max_deflection = 0.05 }
[[body.part]]
kind = "box"
half_extents = [0.5, 0.5]
"#,
    )
    .unwrap();
    let o = run_in(&out, &["run", file.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(err.contains("boxes.toml:21:1: field `body[1]`"), "{err}");
    assert!(err.contains("coupling"), "{err}");
    assert!(!out.join("runs").exists());
}

/// The LCP stepper's contacts are rigid: a scene with a compliant layer is refused at the
/// layer's line (also when `--stepper lcp` overrides the file), instead of running as if the
/// layer were not there.
#[test]
fn the_lcp_stepper_refuses_a_compliant_layer_at_its_line() {
    let out = common::temp_dir("run-control", "lcp-layer");
    let o = run_case(
        &out,
        "quasi_rigid_disc_core_impact.toml",
        &["--stepper", "lcp"],
    );
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(
        err.contains("quasi_rigid_disc_core_impact.toml:38:9: field `body[1].layer`"),
        "{err}"
    );
    assert!(err.contains("rigid"), "{err}");
    assert!(!out.join("runs").exists());
}

/// A timing refused as set by `--time-step` / `--duration` names the flag, not the file's line
/// (which holds another value).
#[test]
fn a_refused_override_names_the_flag() {
    let out = common::temp_dir("run-control", "override");
    let o = run_case(&out, "disc_on_plane.toml", &["--duration", "nan"]);
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(
        err.contains("disc_on_plane.toml: field `simulation.duration` as set on the command line (--duration NaN)"),
        "{err}"
    );
    let o = run_case(&out, "disc_on_plane.toml", &["--time-step", "0.3"]);
    let err = text(&o.stderr);
    assert!(
        err.contains("(--time-step 0.3)") && err.contains("4.8 or 5.1 s"),
        "{err}"
    );
    assert!(!out.join("runs").exists());
}

/// A run stopped by a step that does not converge still prints its result line (steps done,
/// step times, the failed step's time) before the reason.
#[test]
fn a_stopped_run_prints_its_result_line() {
    let out = common::temp_dir("run-control", "stopped");
    // One step of 1e308 s: its values are not finite, so the step fails at once.
    let o = run_case(
        &out,
        "disc_on_plane.toml",
        &["--time-step", "1e308", "--duration", "1e308", "--quiet"],
    );
    assert!(!o.status.success());
    let line = text(&o.stdout);
    assert!(
        line.contains("disc_on_plane (implicit): stopped after 0 steps at t = 0")
            && line.contains("the failed step took"),
        "{line}"
    );
    assert!(text(&o.stderr).contains("did not converge"));
}

/// `soak --write-scenarios DIR` writes each seed's scene as a scenario file before the seeds
/// run, and `run` takes it: the seed's run, with the soak's step count and outcome (that the
/// two runs are the same bit for bit is `tests/soak.rs`'s
/// `a_seeds_scenario_file_runs_the_seed_bit_for_bit`).
#[test]
fn a_soak_seed_is_written_as_a_scenario_that_runs() {
    let out = common::temp_dir("run-control", "soak-scenarios");
    let dir = out.join("scenarios");
    let o = bin()
        .args([
            "soak",
            "--seeds",
            "7..9",
            "--time-limit",
            "30",
            "--write-scenarios",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let table = text(&o.stdout);
    for seed in [7, 8] {
        // The soak's row: seed dim bodies integrator h mu outcome steps failed retried residual
        // penetration cone sep.fr. energy rel.energy newton(median/max) time shapes.
        let row: Vec<&str> = table
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>())
            .find(|f| f.first() == Some(&seed.to_string().as_str()))
            .unwrap_or_else(|| panic!("no row for seed {seed} in:\n{table}"));
        let steps: usize = row[7].split('/').next().unwrap().parse().unwrap();
        let newton_max: f64 = row[16].split('/').nth(1).unwrap().parse().unwrap();
        let summary = run_written(&dir, &format!("soak_{seed}"), &out);
        assert_eq!(summary["complete"], true);
        assert_eq!(summary["steps"], steps);
        assert_eq!(summary["newton_iterations"]["max"], newton_max);
        let residual = summary["max_residual"].as_f64().unwrap();
        assert_eq!(format!("{residual:.2e}"), row[10], "seed {seed}");
    }
    assert!(!dir.join("soak_9.toml").exists());
    let _ = std::fs::remove_dir_all(&out);
}

/// `suite --write-scenarios DIR` writes the chosen scenes as scenario files and runs nothing;
/// `run` takes them (that they are the suite's scenes bit for bit is `tests/suite.rs`'s
/// `the_suite_scenes_written_as_scenario_files_run_bit_for_bit`).
#[test]
fn suite_scenes_are_written_as_scenarios_that_run() {
    let out = common::temp_dir("run-control", "suite-scenarios");
    let dir = out.join("scenarios");
    let o = bin()
        .args(["suite", "pyramid_4", "stack_5", "--write-scenarios"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).is_empty(), "no table: nothing ran");
    for (name, steps) in [("pyramid_4", 200), ("stack_5", 200)] {
        let summary = run_written(&dir, name, &out);
        assert_eq!(summary["complete"], true);
        assert_eq!(summary["steps"], steps);
    }
    let _ = std::fs::remove_dir_all(&out);
}

/// `run DIR/NAME.toml --out OUT/runs`, which must succeed; its `summary.json`.
fn run_written(dir: &Path, name: &str, out: &Path) -> serde_json::Value {
    let o = bin()
        .arg("run")
        .arg(dir.join(format!("{name}.toml")))
        .arg("--out")
        .arg(out.join("runs"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{name}: {}", text(&o.stderr));
    let summary = std::fs::read_to_string(out.join(format!("runs/{name}/summary.json"))).unwrap();
    serde_json::from_str(&summary).unwrap()
}
