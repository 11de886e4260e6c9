//! Every TOML block of the documentation parses and runs to its end as written: the scenario
//! format's complete example (`src/scenario/mod.rs`) and the README's. A documented example
//! that does not run is worse than none.

use implicit_contact::model::Dynamics;
use implicit_contact::output::RunDir;
use implicit_contact::run::{self, OutputOptions, Recordable};
use implicit_contact::scenario::{self, AnyScene, Scenario, Stepper};
use implicit_contact::stepper::{ImplicitStepper, LcpStepper, TimeStepper};
use std::path::Path;

mod common;

/// The ```toml blocks of `text`, whose lines start with `prefix` (`//! ` in module docs).
fn toml_blocks(text: &str, prefix: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        let Some(line) = line.strip_prefix(prefix.trim_end()) else {
            continue;
        };
        let line = line.strip_prefix(' ').unwrap_or(line);
        match (&mut current, line.trim()) {
            (None, "```toml") => current = Some(String::new()),
            (Some(block), "```") => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            (Some(block), _) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, _) => {}
        }
    }
    assert!(current.is_none(), "an unclosed ```toml block");
    blocks
}

fn run_to_end<S: Dynamics + Recordable, T: TimeStepper<S>>(
    mut stepper: T,
    scenario: &Scenario,
    out: &Path,
) -> implicit_contact::output::Summary {
    let dir = RunDir::create(out, &scenario.name).unwrap();
    let options = OutputOptions::from(scenario.outputs);
    run::run_with(
        &mut stepper,
        scenario.step_count(),
        &dir,
        &options,
        |_, _| {},
    )
    .unwrap_or_else(|e| panic!("{}: {e}", scenario.file))
    .summary
}

/// Parses `block` and runs it as `run` would, to its end.
fn parse_and_run(block: &str, origin: &str, out: &Path) {
    let sc = scenario::parse(block, origin).unwrap_or_else(|e| panic!("{e}\n{block}"));
    sc.check_output_size().unwrap();
    let settings = sc.stepper_settings();
    let summary = match (sc.stepper, sc.scene.clone()) {
        (Stepper::Implicit, AnyScene::Planar(s)) => {
            run_to_end(ImplicitStepper::new(s, settings).unwrap(), &sc, out)
        }
        (Stepper::Implicit, AnyScene::Spatial(s)) => {
            run_to_end(ImplicitStepper::new(s, settings).unwrap(), &sc, out)
        }
        (Stepper::Lcp, AnyScene::Planar(s)) => {
            run_to_end(LcpStepper::new(s, sc.lcp.clone()).unwrap(), &sc, out)
        }
        (Stepper::Lcp, AnyScene::Spatial(s)) => {
            run_to_end(LcpStepper::new(s, sc.lcp.clone()).unwrap(), &sc, out)
        }
    };
    assert!(summary.complete, "{origin}: {:?}", summary.reason);
    assert_eq!(summary.steps, sc.step_count(), "{origin}");
    assert_eq!(summary.final_time, sc.duration, "{origin}");
}

#[test]
fn every_toml_block_of_the_docs_parses_and_runs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = common::temp_dir("docs", "examples");
    let mut count = 0;
    for (file, prefix) in [("src/scenario/mod.rs", "//! "), ("README.md", "")] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        let blocks = toml_blocks(&text, prefix);
        assert!(!blocks.is_empty(), "no ```toml block in {file}");
        for (k, block) in blocks.iter().enumerate() {
            parse_and_run(block, &format!("{file} block {k}"), &out);
            count += 1;
        }
    }
    assert!(count >= 2);
    let _ = std::fs::remove_dir_all(&out);
}

/// The scenario format's complete example also runs as a user varies it: under each
/// integrator it offers (`gyroscopic` applies to euler and midpoint only), and ten times
/// longer. Under `midpoint` and `rattle` a layered contact's `δ_n` is tracked while apart too,
/// so the dumbbell's box and superellipsoid parts, paired with the ground while far above it,
/// once stopped these runs at steps 2–12; the 20 s Euler run stopped at step 217.
#[test]
fn the_complete_example_runs_under_every_integrator_and_for_longer() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = common::temp_dir("docs", "variants");
    let text = std::fs::read_to_string(root.join("src/scenario/mod.rs")).unwrap();
    let example = toml_blocks(&text, "//! ").remove(0);
    let set = |block: &str, key: &str, value: &str| -> String {
        block
            .lines()
            .map(|l| {
                if l.starts_with(&format!("{key} ")) {
                    format!("{key} = {value}")
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let without = |block: &str, key: &str| -> String {
        block
            .lines()
            .filter(|l| !l.starts_with(&format!("{key} ")))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let midpoint = set(&example, "integrator", "\"midpoint\"");
    let rattle = without(&set(&example, "integrator", "\"rattle\""), "gyroscopic");
    let long = set(&example, "duration", "20.0");
    for (name, block) in [("midpoint", midpoint), ("rattle", rattle), ("20 s", long)] {
        parse_and_run(&block, &format!("complete example, {name}"), &out);
    }
    let _ = std::fs::remove_dir_all(&out);
}
