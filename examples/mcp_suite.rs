//! Runs the MCP solver (`McpSolver`: path search first, then the fallbacks) with the default
//! settings on every case of the reference suite (`mcp::test_problems::suite`) and prints one
//! row per problem and starting point: name, start, n, status, the solver that produced the
//! answer, major iterations, pivots, natural residual and time.
//!
//! Usage: `cargo run --release --example mcp_suite`. The time is the fastest of 20 repeated
//! solves with a reused solver (workspaces allocated once, as in a time stepper); the
//! benchmarks (`cargo bench --bench mcp`) give proper statistics. Everything but the time
//! column is deterministic; the exit code is 1 if any case did not converge.

use implicit_contact::mcp::test_problems::print_suite_table;

fn main() {
    let stdout = std::io::stdout();
    let (solved, total) = print_suite_table(&mut stdout.lock()).expect("writing to stdout failed");
    if solved != total {
        std::process::exit(1);
    }
}
