//! The `implicit-contact` command line: thin, it parses and calls the library.

use clap::{Parser, Subcommand};
use implicit_contact::model::Dynamics;
use implicit_contact::paper;
use implicit_contact::run::{self, Recordable};
use implicit_contact::scenario::{self, AnyScene, Stepper};
use implicit_contact::stepper::{ImplicitStepper, StepperSettings};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Geometrically implicit time-stepping for rigid bodies in intermittent contact.
///
/// With no command: the main job, the paper cases (Examples 1, 2 and 3) from `paper_cases/`,
/// their runs written under `runs/`, and a table of the paper's claims against what is measured.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario file and write trajectory.csv, contacts.csv and summary.json.
    Run {
        /// The scenario (TOML).
        scenario: PathBuf,
        /// Output folder; the run goes to DIR/<scenario name>/.
        #[arg(long, default_value = "runs")]
        out: PathBuf,
        /// Simulated duration in seconds (overrides the file).
        #[arg(long)]
        duration: Option<f64>,
        /// Time step in seconds (overrides the file).
        #[arg(long)]
        time_step: Option<f64>,
        /// Write an animation (not available yet).
        #[arg(long)]
        animate: bool,
    },
    /// Run the paper's cases and print their claims against the measurements.
    Paper {
        /// `all`, or a case name (disc_on_plane, sphere_on_two_spheres).
        #[arg(default_value = "all")]
        case: String,
        /// Where the scenario files are.
        #[arg(long, default_value = default_cases())]
        cases: PathBuf,
        /// Output folder of the runs.
        #[arg(long, default_value = "runs")]
        out: PathBuf,
    },
    /// Solve the MCP reference suite and print a table (solver status, iterations, time).
    McpSuite,
}

fn default_cases() -> &'static str {
    concat!(env!("CARGO_MANIFEST_DIR"), "/paper_cases")
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        None => paper_cases("all", Path::new(default_cases()), Path::new("runs")),
        Some(Command::Paper { case, cases, out }) => paper_cases(&case, &cases, &out),
        Some(Command::Run {
            scenario,
            out,
            duration,
            time_step,
            animate,
        }) => run_scenario(&scenario, &out, duration, time_step, animate),
        Some(Command::McpSuite) => mcp_suite(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("implicit-contact: {message}");
            ExitCode::FAILURE
        }
    }
}

fn paper_cases(case: &str, cases: &Path, out: &Path) -> Result<(), String> {
    let claims = match case {
        "all" => paper::rigid_cases(cases, out).and_then(|mut c| {
            c.extend(paper::example_3(cases, out)?);
            Ok(c)
        }),
        "quasi_rigid_disc" => paper::example_3(cases, out),
        "disc_on_plane" => paper::example_1(cases, out),
        "sphere_on_two_spheres" => paper::example_2(cases, out),
        other => {
            return Err(format!(
                "unknown paper case `{other}` (known: all, disc_on_plane, sphere_on_two_spheres, quasi_rigid_disc)"
            ));
        }
    }
    .map_err(|e| e.to_string())?;
    println!("The paper's claims (Chakraborty, Berard, Akella & Trinkle, §6) against this run:");
    print!("{}", paper::format_claims(&claims));
    println!("Runs written under {}/.", out.display());
    if claims.iter().all(|c| c.holds) {
        Ok(())
    } else {
        Err("some of the paper's claims do not hold (see the table)".into())
    }
}

fn run_scenario(
    path: &Path,
    out: &Path,
    duration: Option<f64>,
    time_step: Option<f64>,
    animate: bool,
) -> Result<(), String> {
    if animate {
        return Err("--animate is not available yet".into());
    }
    let mut scenario = scenario::load(path).map_err(|e| e.to_string())?;
    if let Some(h) = time_step {
        scenario = scenario.with_time_step(h).map_err(|e| e.to_string())?;
    }
    if let Some(t) = duration {
        scenario = scenario.with_duration(t).map_err(|e| e.to_string())?;
    }
    if scenario.stepper != Stepper::Implicit {
        return Err(format!(
            "{}: stepper `{:?}` is not available yet; use \"implicit\"",
            scenario.file, scenario.stepper
        ));
    }
    let settings = StepperSettings {
        solver: scenario.solver.clone(),
        integrator: scenario.integrator,
        ..StepperSettings::default()
    };
    match scenario.scene {
        AnyScene::Planar(scene) => run_scene(scene, settings, out),
        AnyScene::Spatial(scene) => run_scene(scene, settings, out),
    }
}

fn run_scene<S: Dynamics + Recordable>(
    scene: implicit_contact::model::Scene<S>,
    settings: StepperSettings,
    out: &Path,
) -> Result<(), String> {
    let steps = (scene.duration / scene.time_step - 1e-9).ceil() as usize;
    let name = scene.name.clone();
    let mut stepper = ImplicitStepper::new(scene, settings).map_err(|e| e.to_string())?;
    let bar = ProgressBar::new(steps as u64);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} steps, {eta} left")
            .map_err(|e| e.to_string())?,
    );
    bar.set_message(name.clone());
    let result = run::run(&mut stepper, steps, out, |step, _| {
        if step % 16 == 0 {
            bar.set_position(step as u64);
        }
    });
    bar.finish_and_clear();
    let summary = result.map_err(|e| e.to_string())?;
    println!(
        "{name}: {} steps, median {} Newton iterations, {:.1} µs per step, max residual {:.1e}; written to {}",
        summary.steps,
        summary.newton_iterations.median,
        summary.wall_time_per_step_s.median * 1e6,
        summary.max_residual,
        out.join(&name).display()
    );
    Ok(())
}

fn mcp_suite() -> Result<(), String> {
    let stdout = std::io::stdout();
    let (solved, total) =
        implicit_contact::mcp::test_problems::print_suite_table(&mut stdout.lock())
            .map_err(|e| e.to_string())?;
    if solved == total {
        Ok(())
    } else {
        Err(format!("{} of {total} suite cases failed", total - solved))
    }
}
