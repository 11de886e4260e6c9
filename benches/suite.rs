//! Time per step on the many-body suite (issue 15; criterion, reported, never asserted): the
//! pyramids of 4 and 10 spheres, the 2D disc pyramid of 6 at μ on both sides of its standing
//! threshold, and a stack of 10 spheres. Each sample steps through the whole 2 s run (cold
//! first step included), starting over from the initial state when it ends.
//!
//! `cargo bench --bench suite`. Target (issue 15): the pyramid of 10 spheres' 200 steps in
//! ≤ 0.2 s, i.e. ≤ 1 ms per step on average.

mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use implicit_contact::model::{Dynamics, Scene};
use implicit_contact::scenes::{disc_pyramid, sphere_pyramid, sphere_stack};
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

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(3)).sample_size(10);
    targets = suite
}
criterion_main!(benches);
