//! Time per step on the many-body suite (issue 15; criterion, reported, never asserted): the
//! pyramids of 4 and 10 spheres, the 2D disc pyramid of 6 at μ on both sides of its standing
//! threshold, and a stack of 10 spheres. Each sample steps through the whole 2 s run (cold
//! first step included), starting over from the initial state when it ends.
//!
//! `cargo bench --bench suite`. Target (issue 15): the pyramid of 10 spheres' 200 steps in
//! ≤ 0.2 s, i.e. ≤ 1 ms per step on average.
//!
//! `cargo bench --bench suite -- pile_100_start` (issue 19, scaling): the first 40 steps of the
//! suite's pile of 100 spheres (0.4 s: the layers land, up to about 115 contacts), on the
//! sparse path and on the dense one (`solver.path.sparse_threshold` beyond any step); the run
//! report prints the µs per contact per step of one whole run of each.

mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use implicit_contact::model::{Dynamics, Scene};
use implicit_contact::scenes::{disc_pyramid, sphere_pile, sphere_pyramid, sphere_stack};
use implicit_contact::stepper::{ImplicitStepper, StepperSettings};
use std::time::Duration;

fn bench_scene<S: Dynamics>(c: &mut Criterion, scene: Scene<S>) {
    let name = scene.name.clone();
    let steps = (scene.duration / scene.time_step).round() as usize;
    let fresh = || ImplicitStepper::new(scene.clone(), StepperSettings::default()).unwrap();
    common::report_run(&name, steps, fresh());
    common::bench_steps(c, &name, steps, fresh);
}

fn suite(c: &mut Criterion) {
    bench_scene(c, sphere_pyramid(2, 0.5).unwrap());
    bench_scene(c, sphere_pyramid(3, 0.5).unwrap());
    bench_scene(c, disc_pyramid(3, 0.2).unwrap());
    bench_scene(c, disc_pyramid(3, 0.6).unwrap());
    bench_scene(c, sphere_stack(10, 0.5).unwrap());
}

/// The pile of 100's first 40 steps, sparse and dense (see the module docs).
fn pile_start(c: &mut Criterion) {
    let mut scene = sphere_pile(100, 0.5, 1).unwrap();
    scene.duration = 0.4;
    let steps = (scene.duration / scene.time_step).round() as usize;
    for (label, threshold) in [("sparse", None), ("dense", Some(usize::MAX))] {
        let mut settings = StepperSettings::default();
        if let Some(t) = threshold {
            settings.solver.path.sparse_threshold = t;
        }
        let name = format!("pile_100_start_{label}");
        let fresh = || ImplicitStepper::new(scene.clone(), settings.clone()).unwrap();
        let (mean, contacts) = common::report_run_contacts(&name, steps, fresh());
        eprintln!(
            "{name}: {:.0} µs per contact per step over the run",
            mean * 1e6 / contacts
        );
        common::bench_steps(c, &name, steps, fresh);
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(3)).sample_size(10);
    targets = suite
}
criterion_group! {
    name = pile;
    config = Criterion::default().measurement_time(Duration::from_secs(60)).sample_size(10);
    targets = pile_start
}
criterion_main!(benches, pile);
