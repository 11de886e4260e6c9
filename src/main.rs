//! The `implicit-contact` command line: thin, it parses and calls the library.
//!
//! With no arguments it runs the main job. Until the time-stepper lands (the paper cases and
//! their figures), the main job is the MCP solver's reference suite.

use std::process::ExitCode;

const USAGE: &str = "usage: implicit-contact [mcp-suite]
  (no arguments)  the main job: for now the MCP reference suite
  mcp-suite       solve every problem of the MCP reference suite and print a table";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None | Some("mcp-suite") => mcp_suite(),
        Some("-h" | "--help") => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Some(other) => {
            eprintln!("implicit-contact: unknown command `{other}`\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn mcp_suite() -> ExitCode {
    println!("MCP reference suite (path search with fallbacks, tolerance 1e-10):");
    let stdout = std::io::stdout();
    match implicit_contact::mcp::test_problems::print_suite_table(&mut stdout.lock()) {
        Ok((solved, total)) if solved == total => ExitCode::SUCCESS,
        Ok((solved, total)) => {
            eprintln!(
                "implicit-contact: {} of {total} suite cases failed",
                total - solved
            );
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("implicit-contact: cannot write the table: {e}");
            ExitCode::FAILURE
        }
    }
}
