//! The command line end to end: a run's files, determinism, bad input, a failed run.

use std::process::Output;

mod common;
use common::{bin, case, text};

fn run(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

#[test]
fn run_writes_the_contract_files() {
    let out = common::temp_dir("cli", "files");
    let o = run(&[
        "run",
        case("disc_on_plane.toml").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--duration",
        "0.5",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let dir = out.join("disc_on_plane");
    let trajectory = std::fs::read_to_string(dir.join("trajectory.csv")).unwrap();
    let lines: Vec<&str> = trajectory.lines().collect();
    assert_eq!(
        lines[0],
        "step,t,disc.x,disc.y,disc.theta,disc.vx,disc.vy,disc.w,kinetic_energy,potential_energy,total_energy"
    );
    // Step 0 (the initial state) and 50 steps of 0.01 s.
    assert_eq!(lines.len(), 1 + 51);
    let contacts = std::fs::read_to_string(dir.join("contacts.csv")).unwrap();
    assert!(contacts.starts_with(
        "step,t,contact,body1,body2,gap,normal_impulse,friction_impulse,torsion_impulse,slip_speed,mode,a1_x,a1_y,a2_x,a2_y"
    ));
    assert!(contacts.lines().skip(1).all(|l| l.contains(",rolling,")));
    // The solve report of every step (an extension of the contract's files).
    let solver = std::fs::read_to_string(dir.join("solver.csv")).unwrap();
    assert!(solver.starts_with("step,t,status,solver,newton_iterations"));
    assert_eq!(solver.lines().count(), 1 + 50);
    assert!(
        solver
            .lines()
            .skip(1)
            .all(|l| l.contains(",converged,path,"))
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["complete"], true);
    assert_eq!(summary["steps"], 50);
    assert_eq!(summary["failed_steps"], 0);
    assert!(summary["max_residual"].as_f64().unwrap() <= 1e-10);
    // The contacts and their friction (an extension of the contract's keys).
    assert_eq!(summary["contacts"][0]["contact"], 0);
    assert_eq!(summary["contacts"][0]["body1"], "disc");
    assert_eq!(summary["contacts"][0]["body2"], "ground");
    assert_eq!(summary["contacts"][0]["mu"], 0.4);
}

#[test]
fn the_same_scenario_gives_bit_identical_files() {
    let (a, b) = (
        common::temp_dir("cli", "det-a"),
        common::temp_dir("cli", "det-b"),
    );
    for out in [&a, &b] {
        let o = run(&[
            "run",
            case("sphere_on_two_spheres.toml").to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--duration",
            "0.5",
        ]);
        assert!(o.status.success(), "{}", text(&o.stderr));
    }
    for file in ["trajectory.csv", "contacts.csv"] {
        let fa = std::fs::read(a.join("sphere_on_two_spheres").join(file)).unwrap();
        let fb = std::fs::read(b.join("sphere_on_two_spheres").join(file)).unwrap();
        assert!(fa == fb, "{file} differs between two runs");
    }
}

#[test]
fn bad_input_names_the_file_and_field_and_writes_nothing() {
    let out = common::temp_dir("cli", "bad");
    let text_in = std::fs::read_to_string(case("disc_on_plane.toml"))
        .unwrap()
        .replace("mass = 1.0", "mass = -1.0");
    let file = out.join("negative_mass.toml");
    std::fs::write(&file, text_in).unwrap();
    let o = run(&[
        "run",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(err.contains("negative_mass.toml"), "{err}");
    assert!(err.contains("body[0].mass"), "{err}");
    assert!(
        !out.join("disc_on_plane").exists(),
        "no run folder for bad input"
    );
}

#[test]
fn a_run_whose_step_fails_stops_with_an_incomplete_summary() {
    let out = common::temp_dir("cli", "fail");
    // One Newton iteration and no fallback cannot solve the first contact step, even halved.
    let text_in = std::fs::read_to_string(case("sphere_on_two_spheres.toml")).unwrap()
        + "\n[solver]\norder = [\"path_search\"]\n[solver.path]\nmajor_iteration_limit = 1\nrestart_limit = 0\n";
    let file = out.join("starved.toml");
    std::fs::write(&file, text_in).unwrap();
    let o = run(&[
        "run",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success(), "the run must fail");
    assert!(
        text(&o.stderr).contains("did not converge"),
        "{}",
        text(&o.stderr)
    );
    let dir = out.join("sphere_on_two_spheres");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["complete"], false);
    assert!(
        summary["reason"]
            .as_str()
            .unwrap()
            .contains("did not converge")
    );
    // Only the initial state was written: a failed step is never written as a result.
    let trajectory = std::fs::read_to_string(dir.join("trajectory.csv")).unwrap();
    assert_eq!(trajectory.lines().count(), 2);
    // The solver log says how the failed step ended, with the work of all its attempts: each
    // (whole step, halves, cold starts) stopped after its one Newton iteration and Jacobian.
    let solver = std::fs::read_to_string(dir.join("solver.csv")).unwrap();
    assert_eq!(solver.lines().count(), 2);
    let row = solver.lines().nth(1).unwrap();
    assert!(!row.contains(",converged,"));
    let fields: Vec<&str> = row.split(',').collect();
    let (newton, jacobians): (usize, usize) =
        (fields[4].parse().unwrap(), fields[8].parse().unwrap());
    assert!(newton > 1, "{row}");
    assert_eq!(jacobians, newton, "{row}");
}

#[test]
fn paper_command_prints_the_claims_of_example_1() {
    let out = common::temp_dir("cli", "paper");
    let plots = out.join("plots");
    let o = run(&[
        "paper",
        "disc_on_plane",
        "--out",
        out.to_str().unwrap(),
        "--plots",
        plots.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let table = text(&o.stdout);
    assert!(table.contains("kinetic energy constant"), "{table}");
    assert!(!table.contains(" NO"), "{table}");
    // Fig. 1a is the LCP study's (`paper rolling_disc`, `paper all`, `study rolling-disc`):
    // Example 1's run alone draws no figure.
    assert!(!plots.join("fig1a_rolling_disc_energy.svg").exists());
}

/// `paired`: Example 2 against itself with the paper's cone rows replaced by the default
/// ones (the paper case pins `cones_from_start = false`), each step from the same state; and
/// a second file that changes the scene is refused by the part that differs, before any file
/// is written.
#[test]
fn paired_compares_two_settings_on_the_same_steps() {
    let out = common::temp_dir("cli", "paired");
    let a = case("sphere_on_two_spheres.toml");
    let source = std::fs::read_to_string(&a).unwrap();
    assert!(source.contains("cones_from_start = false"));
    let b = out.join("b.toml");
    std::fs::write(
        &b,
        source
            .replace("cones_from_start = false", "cones_from_start = true")
            .replacen(
                "name = \"sphere_on_two_spheres\"",
                "name = \"cones_in_n_s\"",
                1,
            ),
    )
    .unwrap();
    let o = run(&[
        "paired",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--duration",
        "0.2",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let table = std::fs::read_to_string(
        out.join("sphere_on_two_spheres_vs_cones_in_n_s")
            .join("paired.csv"),
    )
    .unwrap();
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].starts_with("step,t,contacts,newton_iterations_a,newton_iterations_b,"));
    assert_eq!(lines.len(), 1 + 20);
    for line in &lines[1..] {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!((f[9], f[10]), ("true", "true"), "{line}");
        // The rigid model fixes the velocities; the solves stop within the tolerance.
        let gap: f64 = f[13].parse().unwrap();
        assert!(gap < 1e-8, "{line}");
    }
    assert!(text(&o.stdout).contains("20 steps of sphere_on_two_spheres"));

    let moved = out.join("moved.toml");
    std::fs::write(&moved, source.replacen("mass = ", "mass = 2.0 # ", 1)).unwrap();
    let o = run(&[
        "paired",
        a.to_str().unwrap(),
        moved.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(err.contains("differ in `body`"), "{err}");
    assert!(
        !out.join("sphere_on_two_spheres_vs_sphere_on_two_spheres")
            .exists()
    );
}
