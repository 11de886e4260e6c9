//! Time per step of the implicit stepper on the paper's quasi-rigid Example 3 (criterion;
//! reported, never asserted): the disc falling onto the compliant half-plane with core impact
//! (δ_max = 0.05 m), under the paper's integrator, the midpoint one and RATTLE (issue 8:
//! ≤ 1.5× the paper's; the case's file with `integrator = "rattle"`). Each sample steps
//! through the whole 1.5 s run (15 000 steps: free fall, spring, core impact, bouncing),
//! starting over from the initial state when it ends, so the mean covers every phase.
//!
//! `cargo bench --bench quasi`. Target (issue 5): ≤ 5 µs per step.

mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use implicit_contact::model::Integrator;
use implicit_contact::scenario::{self, AnyScene};
use implicit_contact::stepper::ImplicitStepper;
use std::path::Path;
use std::time::Duration;

fn bench_case(c: &mut Criterion, file: &str, integrator: Option<Integrator>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("paper_cases")
        .join(file);
    let scenario = scenario::load(path).expect("paper case loads");
    let AnyScene::Planar(scene) = scenario.scene.clone() else {
        panic!("{file} is 2D")
    };
    let steps = scene.step_count();
    let mut settings = scenario.stepper_settings();
    let mut name = scenario.name.clone();
    if let Some(integrator) = integrator {
        settings.integrator = integrator;
        name = format!(
            "{}_{}",
            name.trim_end_matches("_midpoint"),
            integrator.as_str()
        );
    }
    let fresh = || ImplicitStepper::new(scene.clone(), settings.clone()).unwrap();
    common::report_run(&name, steps, fresh());
    common::bench_steps(c, &name, steps, fresh);
}

fn example_3(c: &mut Criterion) {
    bench_case(c, "quasi_rigid_disc_core_impact.toml", None);
    bench_case(c, "quasi_rigid_disc_core_impact_midpoint.toml", None);
    bench_case(
        c,
        "quasi_rigid_disc_core_impact_midpoint.toml",
        Some(Integrator::Rattle),
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    targets = example_3
}
criterion_main!(benches);
