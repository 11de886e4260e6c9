//! What the stepper benchmarks share: a criterion benchmark of one stepper's time per step,
//! stepping through whole runs (starting over from a fresh stepper when a run ends, so the mean
//! covers every phase of the run), and a report of the Newton iterations per step.

use criterion::Criterion;
use implicit_contact::model::Dynamics;
use implicit_contact::stepper::TimeStepper;
use std::time::{Duration, Instant};

/// Benchmarks `step` on the steppers `fresh` makes, `steps` steps per run, as `step/{name}`.
pub fn bench_steps<S: Dynamics, T: TimeStepper<S>>(
    c: &mut Criterion,
    name: &str,
    steps: usize,
    fresh: impl Fn() -> T,
) {
    c.bench_function(&format!("step/{name}"), |b| {
        let mut stepper = fresh();
        let mut done = 0;
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                if done == steps {
                    stepper = fresh();
                    done = 0;
                }
                let t = Instant::now();
                let report = stepper.step();
                total += t.elapsed();
                assert!(report.converged, "{name}: {}", report.solve);
                done += 1;
            }
            total
        })
    });
}

/// One whole run of `steps` steps: prints the Newton iterations per step (median, worst) and
/// the mean contacts per step, and returns the mean wall time per step in seconds.
#[allow(dead_code)] // not every bench prints the run summary
pub fn report_run<S: Dynamics, T: TimeStepper<S>>(name: &str, steps: usize, stepper: T) -> f64 {
    report_run_contacts(name, steps, stepper).0
}

/// [`report_run`], returning the mean contacts per step beside the mean wall time per step.
#[allow(dead_code)] // not every bench prints the run summary
pub fn report_run_contacts<S: Dynamics, T: TimeStepper<S>>(
    name: &str,
    steps: usize,
    mut stepper: T,
) -> (f64, f64) {
    let mut contacts = 0;
    let t = Instant::now();
    let mut iterations: Vec<usize> = (0..steps)
        .map(|_| {
            let report = stepper.step();
            contacts += report.contacts;
            report.newton_iterations
        })
        .collect();
    let mean = t.elapsed().as_secs_f64() / steps as f64;
    iterations.sort_unstable();
    eprintln!(
        "{name}: {steps} steps, {:.1} contacts per step, Newton iterations per step median {} \
         worst {}",
        contacts as f64 / steps as f64,
        iterations[steps / 2],
        iterations[steps - 1]
    );
    (mean, contacts as f64 / steps as f64)
}
