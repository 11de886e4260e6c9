//! Runs `implicit_contact::mcp::solve` with the default settings on every case of the reference
//! suite (`mcp::test_problems::suite`) and prints one row per problem and starting point.
//!
//! Usage: `cargo run --release --example mcp_suite`. The output is deterministic apart from the
//! time column; the exit code is 1 if any case did not converge, so the example doubles as a
//! check.

use implicit_contact::mcp::test_problems::suite;
use implicit_contact::mcp::{SolveSettings, solve};

fn main() {
    let settings = SolveSettings::default();
    let cases = suite();
    let total = cases.len();
    let mut solved = 0;
    println!(
        "{:<22} {:<10} {:>3}  {:<26} {:<19} {:>6} {:>7} {:>10} {:>10}",
        "problem", "start", "n", "status", "solver", "major", "pivots", "residual", "time_us"
    );
    for mut case in cases {
        let mut z = case.start.clone();
        let report = solve(case.problem.as_mut(), &mut z, &settings);
        if report.converged() {
            solved += 1;
        }
        println!(
            "{:<22} {:<10} {:>3}  {:<26} {:<19} {:>6} {:>7} {:>10.3e} {:>10.1}",
            case.name,
            case.start_label,
            case.dim(),
            report.status.to_string(),
            report.solver.to_string(),
            report.major_iterations,
            report.pivots,
            report.residual,
            report.wall_time.as_secs_f64() * 1e6
        );
    }
    println!("{solved} solved of {total}");
    if solved != total {
        std::process::exit(1);
    }
}
