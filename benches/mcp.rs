//! MCP solver timings (criterion): the reference suite with the path search and the
//! Fischer–Burmeister Newton method, the 30-variable time-step-shaped problem (target: under
//! 20 µs warm-started, path search), the argmin-driven path search on the same problem (its
//! overhead), and Lemke's method. Timings are reported, never asserted.
//!
//! `cargo bench --bench mcp` (all), `cargo bench --bench mcp -- step-like` (a subset).

use argmin::core::Executor;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use implicit_contact::mcp::test_problems::{StepLike, murty_lcp, random_p_lcp, suite};
use implicit_contact::mcp::{
    ArgminPath, FbNewtonSolver, FbSettings, McpProblem, PathSettings, PathSolver, lemke,
};
use std::hint::black_box;
use std::time::Duration;

const TOL: f64 = 1e-10;

fn step_like(c: &mut Criterion) {
    for contacts in [4, 2] {
        step_like_group(c, contacts);
    }
}

/// `StepLike` with `contacts` contacts: n = 14 + 4·contacts (30 for the suite's four).
fn step_like_group(c: &mut Criterion, contacts: usize) {
    let mut p = StepLike::with_contacts(7, contacts);
    let n = p.dim();
    let mut g = c.benchmark_group(format!("step-like-{n}"));
    let warm = p.warm_start(1e-2, 11);
    let cold = vec![0.0; n];
    for (label, start) in [("warm", &warm), ("cold", &cold)] {
        let mut path = PathSolver::default();
        let settings = PathSettings::default();
        let mut z = start.clone();
        let r = path.solve(&mut p, &mut z, TOL, &settings);
        eprintln!("step-like-{n} {label} path: {r}");
        g.bench_function(BenchmarkId::new("path", label), |b| {
            b.iter(|| {
                z.copy_from_slice(start);
                black_box(path.solve(&mut p, &mut z, TOL, &settings))
            })
        });
        let mut fb = FbNewtonSolver::default();
        let fbs = FbSettings::default();
        z.copy_from_slice(start);
        let r = fb.solve(&mut p, &mut z, TOL, &fbs);
        eprintln!("step-like-{n} {label} fb-newton: {r}");
        g.bench_function(BenchmarkId::new("fb-newton", label), |b| {
            b.iter(|| {
                z.copy_from_slice(start);
                black_box(fb.solve(&mut p, &mut z, TOL, &fbs))
            })
        });
        for observer_values in [false, true] {
            let name = if observer_values {
                "argmin-path-kv"
            } else {
                "argmin-path"
            };
            g.bench_function(BenchmarkId::new(name, label), |b| {
                b.iter(|| {
                    let mut driver = ArgminPath::new(TOL, PathSettings::default());
                    driver.observer_values = observer_values;
                    let result = Executor::new(&mut p, driver)
                        .configure(|s| s.param(start.clone()).max_iters(500))
                        .run()
                        .unwrap();
                    black_box(result.state.get_cost())
                })
            });
        }
    }
    g.finish();
}

fn reference_suite(c: &mut Criterion) {
    let mut g = c.benchmark_group("suite");
    for mut case in suite() {
        let id = format!("{}/{}", case.name, case.start_label);
        let mut path = PathSolver::default();
        let settings = PathSettings::default();
        let mut z = case.start.clone();
        let problem = case.problem.as_mut();
        let r = path.solve(problem, &mut z, TOL, &settings);
        eprintln!("{id} path: {r}");
        g.bench_function(BenchmarkId::new("path", &id), |b| {
            b.iter(|| {
                z.copy_from_slice(&case.start);
                black_box(path.solve(problem, &mut z, TOL, &settings))
            })
        });
        let mut fb = FbNewtonSolver::default();
        let fbs = FbSettings::default();
        z.copy_from_slice(&case.start);
        let r = fb.solve(problem, &mut z, TOL, &fbs);
        eprintln!("{id} fb-newton: {r}");
        g.bench_function(BenchmarkId::new("fb-newton", &id), |b| {
            b.iter(|| {
                z.copy_from_slice(&case.start);
                black_box(fb.solve(problem, &mut z, TOL, &fbs))
            })
        });
    }
    g.finish();
}

fn lemke_lcp(c: &mut Criterion) {
    let mut g = c.benchmark_group("lemke");
    for n in [10, 30] {
        let p = random_p_lcp(n, 3);
        let mut solver = lemke::Lemke::default();
        let mut z = vec![0.0; n];
        eprintln!("lemke random-p-{n}: {}", solver.solve(&p, &mut z));
        g.bench_function(BenchmarkId::new("random-p", n), |b| {
            b.iter(|| black_box(solver.solve(&p, &mut z)))
        });
    }
    let (p, _) = murty_lcp(8);
    let mut solver = lemke::Lemke::default();
    let mut z = vec![0.0; 8];
    eprintln!("lemke murty-8: {}", solver.solve(&p, &mut z));
    g.bench_function("murty-8", |b| {
        b.iter(|| black_box(solver.solve(&p, &mut z)))
    });
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .sample_size(30)
}

criterion_group! {
    name = benches;
    config = config();
    targets = step_like, reference_suite, lemke_lcp
}
criterion_main!(benches);
