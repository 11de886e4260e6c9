//! Helpers shared by the integration tests: the command line, and the scenes of the scenario
//! files under `examples/`.
#![allow(dead_code)] // each test file uses its own subset

use std::path::{Path, PathBuf};
use std::process::Command;

/// The crate's binary, ready for arguments.
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_implicit-contact"))
}

/// A scenario file of `paper_cases/`.
pub fn case(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("paper_cases")
        .join(name)
}

/// A fresh, empty folder under the system temp dir, unique to the test file (`area`), the
/// test (`tag`) and this process.
pub fn temp_dir(area: &str, tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "implicit-contact-{area}-{tag}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A process's output as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The scene of `examples/<name>.toml` (2D).
pub fn example_planar(
    name: &str,
) -> implicit_contact::model::Scene<implicit_contact::geometry::Planar> {
    match example(name) {
        implicit_contact::scenario::AnyScene::Planar(s) => s,
        implicit_contact::scenario::AnyScene::Spatial(_) => panic!("{name} is 3D"),
    }
}

/// The scene of `examples/<name>.toml` (3D).
pub fn example_spatial(
    name: &str,
) -> implicit_contact::model::Scene<implicit_contact::geometry::Spatial> {
    match example(name) {
        implicit_contact::scenario::AnyScene::Spatial(s) => s,
        implicit_contact::scenario::AnyScene::Planar(_) => panic!("{name} is 2D"),
    }
}

fn example(name: &str) -> implicit_contact::scenario::AnyScene {
    let path = format!("{}/examples/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    implicit_contact::scenario::load(&path)
        .unwrap_or_else(|e| panic!("{e}"))
        .scene
}

/// Steps `stepper` `steps` times, each converged whole (no halving), and returns the largest
/// number of Newton iterations a step took and the step's index (counted from `first`).
pub fn worst_whole_step<S: implicit_contact::model::Dynamics>(
    stepper: &mut implicit_contact::stepper::ImplicitStepper<S>,
    first: usize,
    steps: usize,
) -> (usize, usize) {
    let mut worst = (0, first);
    for step in first..first + steps {
        let report = stepper.step();
        assert!(report.converged, "step {step}: {}", report.solve);
        assert_eq!(
            report.retries, 0,
            "step {step} was halved: {}",
            report.solve
        );
        worst = worst.max((report.newton_iterations, step));
    }
    worst
}

/// The state after each of `steps` steps of `scene` (up to the first that does not converge):
/// every body's pose and twist as text. `{:?}` writes each f64 in its shortest round-trip form,
/// so equal lists mean equal bits.
pub fn stepped_states<S: implicit_contact::model::Dynamics>(
    scene: implicit_contact::model::Scene<S>,
    settings: implicit_contact::stepper::StepperSettings,
    steps: usize,
) -> Vec<String> {
    use implicit_contact::stepper::TimeStepper;
    let mut stepper = implicit_contact::stepper::ImplicitStepper::new(scene, settings).unwrap();
    let mut out = Vec::new();
    for _ in 0..steps {
        let report = stepper.step();
        let state: Vec<String> = (stepper.scene().bodies.iter())
            .map(|b| format!("{:?} {:?}", b.pose, b.twist))
            .collect();
        out.push(format!("{} {state:?}", report.converged));
        if !report.converged {
            break;
        }
    }
    out
}

/// Whether two scenes of the same dimension step through the same states for `steps` steps
/// under `settings` ([`stepped_states`]); false for scenes of different dimensions.
pub fn same_runs(
    a: implicit_contact::scenario::AnyScene,
    b: implicit_contact::scenario::AnyScene,
    settings: &implicit_contact::stepper::StepperSettings,
    steps: usize,
) -> bool {
    use implicit_contact::scenario::AnyScene;
    match (a, b) {
        (AnyScene::Planar(a), AnyScene::Planar(b)) => {
            stepped_states(a, settings.clone(), steps) == stepped_states(b, settings.clone(), steps)
        }
        (AnyScene::Spatial(a), AnyScene::Spatial(b)) => {
            stepped_states(a, settings.clone(), steps) == stepped_states(b, settings.clone(), steps)
        }
        _ => false,
    }
}
