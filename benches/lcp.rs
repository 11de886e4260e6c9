//! Time per step of the Stewart–Trinkle LCP stepper on the rolling disc of Example 1 as a
//! regular polygon (N = 100 and 1000 vertices), against the implicit stepper on the same disc
//! (criterion; reported, never asserted). Each sample steps through the 5 s run, starting over
//! when it ends, so the mean covers the whole roll. The ratios LCP / implicit are printed at
//! the end.
//!
//! `cargo bench --bench lcp`.

mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use implicit_contact::geometry::Planar;
use implicit_contact::model::Scene;
use implicit_contact::scenario::{self, AnyScene};
use implicit_contact::stepper::{
    ImplicitStepper, LcpSettings, LcpStepper, StepperSettings, TimeStepper,
};
use std::time::Duration;

fn disc() -> Scene<Planar> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/paper_cases/disc_on_plane.toml"
    );
    match scenario::load(path).expect("paper case loads").scene {
        AnyScene::Planar(s) => s,
        AnyScene::Spatial(_) => unreachable!("Example 1 is 2D"),
    }
}

/// Benchmarks one stepper and returns its mean time per step (from a separate timed pass over
/// a whole run, so the ratio does not depend on criterion's internals).
fn bench_stepper<T: TimeStepper<Planar>>(
    c: &mut Criterion,
    name: &str,
    fresh: impl Fn() -> T,
) -> f64 {
    let steps = fresh().scene().step_count();
    common::bench_steps(c, name, steps, &fresh);
    common::report_run(name, steps, fresh())
}

fn rolling_disc(c: &mut Criterion) {
    let scene = disc();
    let implicit = bench_stepper(c, "implicit/disc_on_plane", || {
        ImplicitStepper::new(scene.clone(), StepperSettings::default()).unwrap()
    });
    let mut lines = vec![format!("implicit: {:.2} µs per step", implicit * 1e6)];
    for n in [100, 1000] {
        let settings = LcpSettings {
            vertices: n,
            ..LcpSettings::default()
        };
        let lcp = bench_stepper(c, &format!("lcp/disc_on_plane/N={n}"), || {
            LcpStepper::new(scene.clone(), settings.clone()).unwrap()
        });
        lines.push(format!(
            "lcp N={n}: {:.2} µs per step, {:.1}× the implicit step",
            lcp * 1e6,
            lcp / implicit
        ));
    }
    eprintln!("\nrolling disc, mean over a 5 s run:");
    for l in lines {
        eprintln!("  {l}");
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    targets = rolling_disc
}
criterion_main!(benches);
