//! The `implicit-contact` command line: thin, it parses and calls the library.

use clap::{Parser, Subcommand};
use implicit_contact::model::Dynamics;
use implicit_contact::output::RunDir;
use implicit_contact::paper;
use implicit_contact::plot::{self, AnimationRecorder};
use implicit_contact::run::{self, Recordable};
use implicit_contact::scenario::{self, AnyScene, Stepper};
use implicit_contact::stepper::{
    ImplicitStepper, LcpSettings, LcpStepper, StepperError, TimeStepper,
};
use implicit_contact::study::grasp_study;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Geometrically implicit time-stepping for rigid bodies in intermittent contact.
///
/// With no command: the main job, the paper cases (Examples 1, 2 and 3) from `paper_cases/`,
/// their runs written under `runs/`, their figures under `plots/` (both in the current
/// directory, announced before anything is written), and a table of the paper's claims against
/// what is measured (`paper main`; `paper all` adds Figure 1's LCP study and Example 4's grasp
/// study).
#[derive(Parser)]
#[command(version, about, after_help = EXAMPLES)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

/// One example per command, shown by `--help`.
const EXAMPLES: &str = "\
Examples:
  implicit-contact                                        the main job (= paper main): runs/ and plots/ here
  implicit-contact run paper_cases/disc_on_plane.toml --duration 1 --out runs
  implicit-contact plot runs/disc_on_plane
  implicit-contact paper sphere_on_two_spheres --out runs --plots plots
  implicit-contact study rolling-disc --out plots
  implicit-contact study grasp --step-mm 2 --trials 4 --out runs/grasp
  implicit-contact study grasp --merge shards/* --out runs/grasp
  implicit-contact mcp-suite
  implicit-contact soak --seeds 0..10 --threads 2
  implicit-contact soak --seeds 132 --write-scenarios soak && implicit-contact run soak/soak_132.toml
  implicit-contact suite pyramid_10 stack --time-limit 30
  implicit-contact paired pile_50.toml pile_50_other_solver.toml --out runs";

#[derive(Subcommand)]
enum Command {
    /// Run a scenario file and write trajectory.csv, contacts.csv, joints.csv (scenes with
    /// joints), solver.csv and summary.json.
    ///
    /// One run at a time writes into a run directory: a run holds a lock on
    /// DIR/<scenario name>/.run.lock (released when it ends, also by a crash or kill), and a
    /// second run into the same directory is refused at once, without touching its files,
    /// unless --unique sends it elsewhere.
    Run {
        /// The scenario (TOML).
        scenario: PathBuf,
        /// Output folder; the run goes to DIR/<scenario name>/ (replacing a previous run there).
        #[arg(long, default_value = "runs")]
        out: PathBuf,
        /// Never replace or wait for another run: if DIR/<scenario name>/ is in use or holds a
        /// run, write into the first free DIR/<scenario name>-2/, -3/, … instead (the directory
        /// used is printed).
        #[arg(long)]
        unique: bool,
        /// Simulated duration in seconds (overrides the file).
        #[arg(long)]
        duration: Option<f64>,
        /// Time step in seconds (overrides the file).
        #[arg(long)]
        time_step: Option<f64>,
        /// Also write animation.gif in the run directory: the bodies' outlines over time
        /// (3D: projected), contact points and normals; at most 150 frames.
        #[arg(long)]
        animate: bool,
        /// The formulation (overrides the file's `simulation.stepper`): implicit or lcp.
        #[arg(long, value_parser = ["implicit", "lcp"])]
        stepper: Option<String>,
        /// No progress bar (it is drawn on stderr only when stderr is a terminal).
        #[arg(long)]
        quiet: bool,
        /// Run even if the run's expected output exceeds `[output] max_output_mb` (default
        /// 500 MB).
        #[arg(long)]
        force: bool,
    },
    /// Write the standard figures of a run (energy, velocities, per-contact impulses, slip,
    /// gap, Newton iterations) into RUN_DIR/plots/ as SVG and PNG.
    Plot {
        /// A run directory (with trajectory.csv, contacts.csv, solver.csv, summary.json).
        run_dir: PathBuf,
    },
    /// Run the paper's cases, write the paper's figures and print their claims against the
    /// measurements.
    Paper {
        /// `all`; `main` (all but the rolling-disc and grasp studies: what runs with no
        /// command); or one case: disc_on_plane, sphere_on_two_spheres, quasi_rigid_disc,
        /// rolling_disc (the LCP study of Figure 1, about 10 s on 2 cores), grasp (Example 4's
        /// success map, fig10b: drawn from OUT/grasp/grasp_success.csv if it exists, e.g. a
        /// cluster study merged there; otherwise a reduced study, 2 mm steps and 4 trials per
        /// cell, is run into OUT/grasp first, about a minute on 2 cores).
        #[arg(default_value = "all")]
        case: String,
        /// Where the scenario files are.
        #[arg(long, default_value = default_cases())]
        cases: PathBuf,
        /// Output folder of the runs.
        #[arg(long, default_value = "runs")]
        out: PathBuf,
        /// Output folder of the figures (fig<number><letter>_<name>.svg and .png).
        #[arg(long, default_value = "plots")]
        plots: PathBuf,
    },
    /// Solve the MCP reference suite and print a table (solver status, iterations, time).
    McpSuite,
    /// Run a parameter study: `rolling-disc` (the paper's Figure 1: kinetic energy of a
    /// polygonal disc under the LCP stepper against the implicit circle), `rocking` (energy
    /// and convergence of rocking and rolling bodies under the euler and rattle integrators;
    /// `--duration` defaults to 10 s there) or `grasp` (Example 4's Monte-Carlo study: the
    /// success rate of the grasp over the fingertips' start; writes grasp_success.csv,
    /// grasp_trials.csv, fig10b_grasp_success.svg/.png and, last, grasp_study.json into
    /// --out, and prints a summary and the study's claims).
    ///
    /// The grasp study's flags (--step-mm, --trials, --seed, --shard, --model, --x-range-mm,
    /// --y-range-mm, --merge) apply to it alone. Its files are the same on any number of
    /// threads, and its shards merged (`--merge`) give the unsharded tables byte for byte.
    Study {
        /// The study.
        #[arg(value_parser = ["rolling-disc", "rocking", "grasp"])]
        name: String,
        /// Where the scenario files are (rolling-disc uses disc_on_plane.toml) [default: the
        /// crate's paper_cases/].
        #[arg(long)]
        cases: Option<PathBuf>,
        /// Output folder: of the tables (fig1_*.csv) and figures (fig1a_*, fig1b_*) for
        /// rolling-disc and rocking [default: plots]; of the grasp study's files [default:
        /// runs/grasp].
        #[arg(long)]
        out: Option<PathBuf>,
        /// Simulated duration in seconds (default: the paper's 5 s; rocking: 10 s).
        #[arg(long)]
        duration: Option<f64>,
        /// Worker threads (0: one per core).
        #[arg(long, default_value_t = 0)]
        threads: usize,
        #[command(flatten)]
        grasp: GraspArgs,
    },
    /// Run random valid scenes from fixed seeds under the implicit stepper and print a table
    /// per seed (outcome, failed steps, worst residual, penetration, cone violation, energy
    /// created, time); fails if a seed fails, times out or breaks a law.
    Soak {
        /// The seeds, `A..B` (B excluded) or one seed.
        #[arg(long, default_value = "0..100")]
        seeds: String,
        /// Worker threads.
        #[arg(long, default_value_t = 2)]
        threads: usize,
        /// Any shape against any shape: each body a polytope with probability ½ (boxes and
        /// polygons meet each other), instead of at most one polytope per scene.
        #[arg(long)]
        every_pair: bool,
        /// The default scenes with consecutive bodies linked into chains by joints (pins in
        /// 2D, ball joints and hinges about random axes in 3D, at the midpoints between the
        /// bodies).
        #[arg(long, conflicts_with = "every_pair")]
        chains: bool,
        /// Each scene's torsional friction semi-axis e_r drawn (half of the time the scenario
        /// format's default, 0.3 × the smaller body's radius; otherwise log-uniform in
        /// [5 mm, 1 m]) instead of 1 m; the other draws unchanged. Combines with either of
        /// the above.
        #[arg(long)]
        drawn_torsion: bool,
        /// Wall-time limit per seed in seconds.
        #[arg(long, default_value_t = 60.0)]
        time_limit: f64,
        /// Also write each seed's scene as a scenario file, DIR/soak_<seed>.toml
        /// (soak_<seed>_every_pair.toml with --every-pair, soak_<seed>_chains.toml with
        /// --chains, a further _torsion with --drawn-torsion), before the seeds run:
        /// `implicit-contact run` on it steps the seed bit for bit as the soak does.
        #[arg(long, value_name = "DIR")]
        write_scenarios: Option<PathBuf>,
    },
    /// Run the many-body suite (pyramids, disc pyramids, stacks, piles, struck rows, a mixed
    /// heap) one scene after another and print a table per scene: outcome, Newton iterations
    /// (median/p99/max), time per step (median, p99, max), contacts and µs per contact per
    /// step, and the laws (residual, penetration, cone in N·s, energy created); fails if a
    /// scene fails, times out or breaks a law.
    Suite {
        /// Scenes to run, by name or name prefix (e.g. `pyramid_10 disc_pyramid`); all when
        /// none is given. `--list` names them.
        scenes: Vec<String>,
        /// List the suite's scenes and stop.
        #[arg(long)]
        list: bool,
        /// Wall-time limit per scene in seconds (also each solve's time limit).
        #[arg(long, default_value_t = 60.0)]
        time_limit: f64,
        /// Write the chosen scenes as scenario files, DIR/<scene>.toml, and stop: `implicit-contact
        /// run` on one runs the scene as the suite does (with its CSV files and plots).
        #[arg(long, value_name = "DIR")]
        write_scenarios: Option<PathBuf>,
    },
    /// Compare two settings of the implicit stepper step by step, from the same states: A's
    /// run drives the trajectory, and each of its steps is also solved, from the same state,
    /// under B's settings. Writes DIR/<A>_vs_<B>/paired.csv (a row per step) and prints the
    /// totals.
    ///
    /// A and B must describe the same run: they may differ only in `[solver]` and in
    /// simulation.energy_projection, gyroscopic, friction_continuation, cones_from_start,
    /// cones_normalised, cones_normalised_after and friction_centre_from_start (and their
    /// names, descriptions and outputs). A many-body scene is chaotic under rounding,
    /// so two separate runs compare two trajectories; this compares the two settings on the
    /// same steps.
    Paired {
        /// Scenario A (TOML): its run is the one that goes on.
        a: PathBuf,
        /// Scenario B (TOML): the same scene with other solver settings.
        b: PathBuf,
        /// Output folder; the table goes to DIR/<A>_vs_<B>/paired.csv.
        #[arg(long, default_value = "runs")]
        out: PathBuf,
        /// Simulated time in seconds (overrides both files' `simulation.duration`).
        #[arg(long)]
        duration: Option<f64>,
    },
}

/// The flags of `study grasp`.
#[derive(clap::Args)]
struct GraspArgs {
    /// grasp: the grid's spacing in mm [default: 1].
    #[arg(long, value_name = "S")]
    step_mm: Option<f64>,
    /// grasp: trials per cell [default: 10].
    #[arg(long, value_name = "N")]
    trials: Option<usize>,
    /// grasp: the seed of the friction draws [default: 1].
    #[arg(long, value_name = "K")]
    seed: Option<u64>,
    /// grasp: run only the cells whose index mod N is I (0-based), e.g. one task of a
    /// cluster's job array; merge the shards with --merge.
    #[arg(long, value_name = "I/N", value_parser = grasp_study::Shard::parse)]
    shard: Option<grasp_study::Shard>,
    /// grasp: the model, a TOML file of the grasp model's fields (SI units; any left out keep
    /// their defaults, e.g. `jaw_force = 3.0`).
    #[arg(long, value_name = "FILE.toml")]
    model: Option<PathBuf>,
    /// grasp: the x range of the fingertips' centre in mm [default: -10,10].
    #[arg(long, value_name = "LO,HI", allow_hyphen_values = true, value_parser = grasp_study::parse_range_mm)]
    x_range_mm: Option<[f64; 2]>,
    /// grasp: the y range in mm [default: -20,0].
    #[arg(long, value_name = "LO,HI", allow_hyphen_values = true, value_parser = grasp_study::parse_range_mm)]
    y_range_mm: Option<[f64; 2]>,
    /// grasp: instead of running, join the shard directories DIR... of one study (all of its
    /// shards, the same seed, grid, trials and model) into --out.
    #[arg(long, value_name = "DIR", num_args = 1..)]
    merge: Vec<PathBuf>,
}

impl GraspArgs {
    /// The flags given that set up a run (and so make no sense for a merge or another study).
    fn run_flags(&self) -> Vec<&'static str> {
        [
            ("--step-mm", self.step_mm.is_some()),
            ("--trials", self.trials.is_some()),
            ("--seed", self.seed.is_some()),
            ("--shard", self.shard.is_some()),
            ("--model", self.model.is_some()),
            ("--x-range-mm", self.x_range_mm.is_some()),
            ("--y-range-mm", self.y_range_mm.is_some()),
        ]
        .into_iter()
        .filter_map(|(flag, given)| given.then_some(flag))
        .collect()
    }
}

fn default_cases() -> &'static str {
    concat!(env!("CARGO_MANIFEST_DIR"), "/paper_cases")
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        None => main_job(),
        Some(Command::Paper {
            case,
            cases,
            out,
            plots,
        }) => paper_cases(&case, &cases, &out, &plots),
        Some(Command::Plot { run_dir }) => plot_run(&run_dir),
        Some(Command::Run {
            scenario,
            out,
            unique,
            duration,
            time_step,
            animate,
            stepper,
            quiet,
            force,
        }) => run_scenario(
            &scenario,
            &out,
            RunFlags {
                unique,
                animate,
                quiet,
                force,
            },
            duration,
            time_step,
            stepper.as_deref(),
        ),
        Some(Command::McpSuite) => mcp_suite(),
        Some(Command::Study {
            name,
            cases,
            out,
            duration,
            threads,
            grasp,
        }) => study(&name, cases, out, duration, threads, grasp),
        Some(Command::Soak {
            seeds,
            threads,
            every_pair,
            chains,
            drawn_torsion,
            time_limit,
            write_scenarios,
        }) => soak(
            &seeds,
            threads,
            implicit_contact::study::soak::SceneKind {
                shapes: if chains {
                    implicit_contact::study::soak::Shapes::Chains
                } else if every_pair {
                    implicit_contact::study::soak::Shapes::EveryPair
                } else {
                    implicit_contact::study::soak::Shapes::OnePolytope
                },
                drawn_torsion,
            },
            time_limit,
            write_scenarios.as_deref(),
        ),
        Some(Command::Suite {
            scenes,
            list,
            time_limit,
            write_scenarios,
        }) => suite(&scenes, list, time_limit, write_scenarios.as_deref()),
        Some(Command::Paired {
            a,
            b,
            out,
            duration,
        }) => paired(&a, &b, &out, duration),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("implicit-contact: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The job run with no arguments: `paper main` into `runs/` and `plots/` of the current
/// directory, said before anything is written there.
fn main_job() -> Result<(), String> {
    let here = std::env::current_dir()
        .map(|d| d.display().to_string())
        .unwrap_or_else(|_| ".".into());
    eprintln!(
        "implicit-contact: no command given: running the main job (`implicit-contact paper \
         main`), writing runs into {here}/runs/ and figures into {here}/plots/ (about 20 MB). \
         `implicit-contact --help` lists the commands."
    );
    paper_cases(
        "main",
        Path::new(default_cases()),
        Path::new("runs"),
        Path::new("plots"),
    )
}

fn paper_cases(case: &str, cases: &Path, out: &Path, plots: &Path) -> Result<(), String> {
    let mut claims = match case {
        "all" | "main" => paper::rigid_cases(cases, out).and_then(|mut c| {
            c.extend(paper::example_3(cases, out)?);
            Ok(c)
        }),
        "quasi_rigid_disc" => paper::example_3(cases, out),
        "disc_on_plane" => paper::example_1(cases, out),
        "sphere_on_two_spheres" => paper::example_2(cases, out),
        "rolling_disc" | "grasp" => Ok(Vec::new()),
        other => {
            return Err(format!(
                "unknown paper case `{other}` (known: all, main, disc_on_plane, sphere_on_two_spheres, quasi_rigid_disc, rolling_disc, grasp)"
            ));
        }
    }
    .map_err(|e| e.to_string())?;
    let mut figures = Vec::new();
    if matches!(case, "all" | "main" | "sphere_on_two_spheres") {
        figures.extend(
            plot::paper_figures::example_2(&out.join("sphere_on_two_spheres"), plots)
                .map_err(|e| e.to_string())?,
        );
    }
    if matches!(case, "all" | "main" | "quasi_rigid_disc") {
        figures.extend(plot::paper_figures::example_3(out, plots).map_err(|e| e.to_string())?);
    }
    if matches!(case, "all" | "rolling_disc") {
        use implicit_contact::study::RollingDiscConfig;
        eprintln!("Running the rolling-disc study (Figure 1, 5 s, 10 configurations)…");
        let config = RollingDiscConfig {
            progress: true,
            ..RollingDiscConfig::default()
        };
        let data = paper::rolling_disc(cases, config).map_err(|e| e.to_string())?;
        data.write_csv(plots).map_err(|e| e.to_string())?;
        claims.extend(paper::rolling_disc_claims(&data));
        figures.extend(plot::paper_figures::figure_1(&data, plots).map_err(|e| e.to_string())?);
    }
    let mut grasp_claims = None;
    if matches!(case, "all" | "grasp") {
        let done = paper_grasp(out, plots)?;
        figures.extend(done.figures);
        grasp_claims = Some(done.claims);
    }
    if case != "grasp" {
        println!(
            "The paper's claims (Chakraborty, Berard, Akella & Trinkle, §6) against this run:"
        );
        print!("{}", paper::format_claims(&claims));
    }
    if let Some(g) = &grasp_claims {
        println!("The grasp study's claims (Example 4, §6.4; reported, not asserted):");
        print!("{}", grasp_study::format_claims(g));
    }
    if case != "rolling_disc" {
        println!("Runs written under {}/.", out.display());
    }
    let names: Vec<String> = figures
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "svg"))
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect();
    println!(
        "Figures written under {}/ (.svg and .png): {}.",
        plots.display(),
        names.join(", ")
    );
    if claims.iter().all(|c| c.holds) {
        Ok(())
    } else {
        Err("some of the paper's claims do not hold (see the table)".into())
    }
}

/// `paper grasp`: the success map from OUT/grasp, run there first (reduced) if absent.
fn paper_grasp(out: &Path, plots: &Path) -> Result<grasp_study::PaperGrasp, String> {
    let table = out.join("grasp").join(grasp_study::SUCCESS_FILE);
    if table.exists() {
        eprintln!(
            "The grasp study (Example 4): drawing the success map from {}.",
            table.display()
        );
    } else {
        eprintln!(
            "The grasp study (Example 4): no {} yet, running the reduced study (2 mm steps, 4 trials per cell, seed 1) into {}…",
            table.display(),
            out.join("grasp").display()
        );
    }
    let bar = trial_bar(0);
    let done = grasp_study::paper(out, plots, 0, |done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    });
    bar.finish_and_clear();
    let done = done.map_err(|e| e.to_string())?;
    if let Some(study) = &done.ran {
        println!("{}", study.summary());
    }
    Ok(done)
}

/// A progress bar over `total` trials with the rate and the time left, drawn on stderr only
/// when stderr is a terminal.
fn trial_bar(total: usize) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total as u64);
    if let Ok(style) = ProgressStyle::with_template(
        "grasp [{bar:30}] {pos}/{len} trials, {per_sec}, {elapsed} elapsed, ETA {eta}",
    ) {
        bar.set_style(style);
    }
    bar
}

/// `study NAME`: the grasp study's flags are refused for the others, and the others' for it.
fn study(
    name: &str,
    cases: Option<PathBuf>,
    out: Option<PathBuf>,
    duration: Option<f64>,
    threads: usize,
    grasp: GraspArgs,
) -> Result<(), String> {
    if name == "grasp" {
        let other: Vec<&str> = [
            ("--cases", cases.is_some()),
            ("--duration", duration.is_some()),
        ]
        .into_iter()
        .filter_map(|(flag, given)| given.then_some(flag))
        .collect();
        if !other.is_empty() {
            return Err(format!(
                "{} do{} not apply to `study grasp` (its model is set with --model FILE.toml)",
                other.join(", "),
                if other.len() == 1 { "es" } else { "" }
            ));
        }
        return grasp_study_command(
            &grasp,
            &out.unwrap_or_else(|| PathBuf::from("runs/grasp")),
            threads,
        );
    }
    let mut given = grasp.run_flags();
    if !grasp.merge.is_empty() {
        given.push("--merge");
    }
    if !given.is_empty() {
        return Err(format!(
            "{} appl{} only to `study grasp`, not to `study {name}`",
            given.join(", "),
            if given.len() == 1 { "ies" } else { "y" }
        ));
    }
    let cases = cases.unwrap_or_else(|| PathBuf::from(default_cases()));
    let out = out.unwrap_or_else(|| PathBuf::from("plots"));
    if name == "rocking" {
        rocking_study(&out, duration.unwrap_or(10.0))
    } else {
        rolling_disc_study(&cases, &out, duration.unwrap_or(5.0), threads)
    }
}

/// `study grasp`: run (or, with --merge, join the shards of) the grasp study into `out`.
fn grasp_study_command(args: &GraspArgs, out: &Path, threads: usize) -> Result<(), String> {
    let study = if args.merge.is_empty() {
        let defaults = grasp_study::GraspStudyConfig::default();
        let model = match &args.model {
            Some(path) => grasp_study::load_model(path).map_err(|e| e.to_string())?,
            None => defaults.model,
        };
        let config = grasp_study::GraspStudyConfig {
            model,
            grid: grasp_study::Grid {
                step_mm: args.step_mm.unwrap_or(defaults.grid.step_mm),
                x_range_mm: args.x_range_mm.unwrap_or(defaults.grid.x_range_mm),
                y_range_mm: args.y_range_mm.unwrap_or(defaults.grid.y_range_mm),
            },
            trials: args.trials.unwrap_or(defaults.trials),
            seed: args.seed.unwrap_or(defaults.seed),
            threads,
            shard: args.shard.unwrap_or(defaults.shard),
        };
        config.validate().map_err(|e| e.to_string())?;
        let cells = config.shard_cells().len();
        let total = cells * config.trials;
        let shard = if config.shard.count > 1 {
            format!(" (shard {} of {})", config.shard, config.grid.cells())
        } else {
            String::new()
        };
        eprintln!(
            "grasp study: {cells} cell{}{shard} × {} trial{} = {total} trials, seed {}, into {}",
            if cells == 1 { "" } else { "s" },
            config.trials,
            if config.trials == 1 { "" } else { "s" },
            config.seed,
            out.display()
        );
        let bar = trial_bar(total);
        let study = grasp_study::run_study(&config, |done, _| bar.set_position(done as u64));
        bar.finish_and_clear();
        study
    } else {
        let given = args.run_flags();
        if !given.is_empty() {
            return Err(format!(
                "--merge takes the study's settings from its shards: drop {}",
                given.join(", ")
            ));
        }
        eprintln!(
            "grasp study: merging {} shard directories into {}",
            args.merge.len(),
            out.display()
        );
        grasp_study::merge(&args.merge)
    }
    .map_err(|e| e.to_string())?;
    let written = study.write(out).map_err(|e| e.to_string())?;
    println!("{}", study.summary());
    println!("Claims about the success map (reported, not asserted):");
    print!("{}", grasp_study::format_claims(&study.claims()));
    let names: Vec<String> = written
        .iter()
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    println!("Written into {}: {}.", out.display(), names.join(", "));
    Ok(())
}

/// The switches of `run`.
#[derive(Clone, Copy)]
struct RunFlags {
    unique: bool,
    animate: bool,
    quiet: bool,
    force: bool,
}

fn run_scenario(
    path: &Path,
    out: &Path,
    flags: RunFlags,
    duration: Option<f64>,
    time_step: Option<f64>,
    stepper: Option<&str>,
) -> Result<(), String> {
    let mut scenario = scenario::load(path).map_err(|e| e.to_string())?;
    if let Some(name) = stepper {
        let kind = if name == "lcp" {
            Stepper::Lcp
        } else {
            Stepper::Implicit
        };
        scenario = scenario.with_stepper(kind).map_err(|e| e.to_string())?;
    }
    if time_step.is_some() || duration.is_some() {
        // Both at once: each alone may not divide the other's old value.
        scenario = scenario
            .with_timing(time_step, duration)
            .map_err(|e| override_refusal(e, time_step, duration))?;
    }
    if !flags.force {
        scenario.check_output_size().map_err(|e| e.to_string())?;
    }
    let settings = scenario.stepper_settings();
    let lcp = scenario.lcp.clone();
    // A stepper that refuses the scene says which bodies; the refusal points at them in the file.
    let refused = {
        let scenario = scenario.clone();
        move |e: StepperError| stepper_refusal(&scenario, e)
    };
    let job = RunJob {
        out,
        flags,
        steps: scenario.step_count(),
        options: run::OutputOptions::from(scenario.outputs),
    };
    match (scenario.stepper, scenario.scene) {
        (Stepper::Implicit, AnyScene::Planar(scene)) => run_scene(
            ImplicitStepper::new(scene, settings).map_err(&refused)?,
            &job,
        ),
        (Stepper::Implicit, AnyScene::Spatial(scene)) => run_scene(
            ImplicitStepper::new(scene, settings).map_err(&refused)?,
            &job,
        ),
        (Stepper::Lcp, AnyScene::Planar(scene)) => run_scene(lcp_stepper(scene, lcp)?, &job),
        (Stepper::Lcp, AnyScene::Spatial(scene)) => run_scene(lcp_stepper(scene, lcp)?, &job),
    }
}

/// `paired A B`: A's run, each step also solved under B's settings from the same state.
fn paired(a: &Path, b: &Path, out: &Path, duration: Option<f64>) -> Result<(), String> {
    use implicit_contact::study::paired;
    let load = |path: &Path| -> Result<scenario::Scenario, String> {
        let sc = scenario::load(path).map_err(|e| e.to_string())?;
        match duration {
            Some(t) => sc
                .with_duration(t)
                .map_err(|e| override_refusal(e, None, Some(t))),
            None => Ok(sc),
        }
    };
    let (sa, sb) = (load(a)?, load(b)?);
    if sa.stepper != Stepper::Implicit {
        return Err(format!(
            "{}: paired compares settings of the implicit stepper (simulation.stepper is `lcp`)",
            a.display()
        ));
    }
    if let Some(part) = paired::fixed_difference(&sa.source, &sb.source) {
        return Err(format!(
            "{} and {} differ in `{part}`: a paired comparison needs the same run, differing \
             only in [solver] and simulation.energy_projection, gyroscopic, \
             friction_continuation, cones_from_start, cones_normalised, \
             cones_normalised_after or friction_centre_from_start",
            a.display(),
            b.display()
        ));
    }
    let dir = out.join(format!("{}_vs_{}", sa.name, sb.name));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let done = dir.join("paired.csv");
    let partial = dir.join("paired.csv.partial");
    let _ = std::fs::remove_file(&done);
    let file =
        std::fs::File::create(&partial).map_err(|e| format!("{}: {e}", partial.display()))?;
    let mut w = std::io::BufWriter::new(file);
    let io = |e: std::io::Error| format!("{}: {e}", partial.display());
    use std::io::Write;
    writeln!(
        w,
        "step,t,contacts,newton_iterations_a,newton_iterations_b,pivots_a,pivots_b,\
         wall_time_a_s,wall_time_b_s,converged_a,converged_b,residual_a,residual_b,velocity_gap"
    )
    .map_err(io)?;
    let (settings_a, settings_b) = (sa.stepper_settings(), sb.stepper_settings());
    let steps = sa.step_count();
    let refused = |e: StepperError| stepper_refusal(&sa, e);
    let mut row = |r: &paired::PairedStep| -> Result<(), PairedFailure> {
        writeln!(
            w,
            "{},{},{},{},{},{},{},{:e},{:e},{},{},{:e},{:e},{:e}",
            r.step,
            r.t,
            r.contacts,
            r.a.newton_iterations,
            r.b.newton_iterations,
            r.a.pivots,
            r.b.pivots,
            r.a.wall_time,
            r.b.wall_time,
            r.a.converged,
            r.b.converged,
            r.a.residual,
            r.b.residual,
            r.velocity_gap
        )
        .map_err(|e| PairedFailure::Message(io(e)))
    };
    let summary = match sa.scene.clone() {
        AnyScene::Planar(scene) => paired::pair(scene, settings_a, settings_b, steps, &mut row),
        AnyScene::Spatial(scene) => paired::pair(scene, settings_a, settings_b, steps, &mut row),
    }
    .map_err(|e: PairedFailure| match e {
        PairedFailure::Stepper(e) => refused(e),
        PairedFailure::Message(m) => m,
    })?;
    w.flush().map_err(io)?;
    drop(w);
    std::fs::rename(&partial, &done).map_err(|e| format!("{}: {e}", done.display()))?;
    let (na, ma, wa) = summary.newton(false);
    let (nb, mb, wb) = summary.newton(true);
    println!(
        "{} steps of {} from the same states: Newton iterations A {na} (median {ma}, worst {wa}), \
         B {nb} (median {mb}, worst {wb}); B fewer in {} steps, more in {}, failed {}; wall \
         time A {:.3} s, B {:.3} s; largest velocity gap {:.2e}",
        summary.steps,
        sa.name,
        summary.b_fewer,
        summary.b_more,
        summary.b_failed,
        summary.wall_a,
        summary.wall_b,
        summary.largest_gap
    );
    println!("Written to {}.", done.display());
    match summary.a_failure {
        Some(reason) => Err(format!("A stopped the run: {reason}")),
        None => Ok(()),
    }
}

/// Why a paired run stopped: the stepper refused a scene or settings, or the table could not
/// be written.
enum PairedFailure {
    Stepper(StepperError),
    Message(String),
}

impl From<StepperError> for PairedFailure {
    fn from(e: StepperError) -> Self {
        PairedFailure::Stepper(e)
    }
}

/// A refusal of the timing set by `--time-step` / `--duration`: the file's line would point at
/// a value the file does not hold, so the message names the flags instead.
fn override_refusal(
    e: scenario::ScenarioError,
    time_step: Option<f64>,
    duration: Option<f64>,
) -> String {
    match e {
        scenario::ScenarioError::Invalid {
            file,
            field,
            reason,
            ..
        } if field.starts_with("simulation.") => {
            let flags: Vec<String> = [("--time-step", time_step), ("--duration", duration)]
                .iter()
                .filter_map(|(flag, v)| v.map(|v| format!("{flag} {v}")))
                .collect();
            format!(
                "{file}: field `{field}` as set on the command line ({}): {reason}",
                flags.join(", ")
            )
        }
        other => other.to_string(),
    }
}

/// The implicit stepper's refusal of `scenario`'s scene, placed at the body it names (the
/// second one of the pair: the first is usually the ground).
fn stepper_refusal(scenario: &scenario::Scenario, e: StepperError) -> String {
    let names = scenario.scene.body_names();
    let index = |name: &str| names.iter().position(|n| *n == name);
    let field = match &e {
        StepperError::Proximity { body2, .. } | StepperError::Contact { body2, .. } => {
            index(body2).map(|i| format!("body[{i}]"))
        }
        StepperError::Settings(_) => Some("solver".to_string()),
        StepperError::Unsupported(_) => Some("simulation.integrator".to_string()),
    };
    match field {
        Some(field) => scenario.refusal(&field, e.to_string()).to_string(),
        None => e.to_string(),
    }
}

/// What `run` does with a stepper once it is built.
struct RunJob<'a> {
    out: &'a Path,
    flags: RunFlags,
    steps: usize,
    options: run::OutputOptions,
}

/// A duration in seconds with a unit that suits it.
/// The result line of a run stopped by a step that did not converge, from the summary it
/// wrote (the steps done and their times; the reason follows as the error).
fn print_stopped_line(name: &str, dir: &Path) {
    let path = dir.join(implicit_contact::output::SUMMARY_FILE);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return;
    };
    let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else {
        return;
    };
    let time = |k: &str| {
        v["wall_time_per_step_s"][k]
            .as_f64()
            .map_or("-".to_string(), seconds)
    };
    println!(
        "{name} ({}): stopped after {} steps at t = {} s, Newton iterations median {} max {}; time per step median {}, mean {}, max {}; the failed step took {}; written to {}",
        v["stepper"].as_str().unwrap_or("?"),
        v["steps"],
        v["final_time"],
        v["newton_iterations"]["median"],
        v["newton_iterations"]["max"],
        time("median"),
        time("mean"),
        time("max"),
        v["failed_step_wall_time_s"]
            .as_f64()
            .map_or("-".to_string(), seconds),
        dir.display()
    );
}

fn seconds(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 1e-3 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{:.1} µs", s * 1e6)
    }
}

fn lcp_stepper<S: Dynamics>(
    scene: implicit_contact::model::Scene<S>,
    settings: LcpSettings,
) -> Result<LcpStepper<S>, String> {
    LcpStepper::new(scene, settings).map_err(|e| e.to_string())
}

fn run_scene<S: Dynamics + Recordable, T: TimeStepper<S>>(
    mut stepper: T,
    job: &RunJob,
) -> Result<(), String> {
    let RunJob {
        out,
        flags,
        steps,
        options,
    } = *job;
    let name = stepper.scene().name.clone();
    // The lock first: nothing in the directory is touched unless this run may write there.
    let dir = if flags.unique {
        RunDir::create_unique(out, &name)
    } else {
        RunDir::create(out, &name)
    }
    .map_err(|e| e.to_string())?;
    // indicatif draws on stderr only when it is a terminal, so logs and pipes stay clean.
    let bar = if flags.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(steps as u64)
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{msg} [{bar:30}] {pos}/{len} steps, {rate} steps/s, {elapsed} elapsed, {eta} left",
        )
        .map_err(|e| e.to_string())?
        .with_key(
            "rate",
            |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.0}", state.per_sec());
            },
        ),
    );
    bar.set_message(name.clone());
    let mut recorder = flags
        .animate
        .then(|| AnimationRecorder::new(steps, stepper.scene().time_step));
    if let Some(r) = &mut recorder {
        r.record(0, &stepper);
    }
    let mut last_draw = std::time::Instant::now();
    let result = run::run_with(&mut stepper, steps, &dir, &options, |step, s| {
        // Every 16th step, or at once after a slow one, so fast runs pay nothing for the bar
        // and slow ones never look stuck.
        if step % 16 == 0 || last_draw.elapsed().as_millis() >= 100 {
            bar.set_position(step as u64);
            last_draw = std::time::Instant::now();
        }
        if let Some(r) = &mut recorder {
            r.record(step, s);
        }
    });
    bar.finish_and_clear();
    // A failed run is animated up to its failure: that is when the picture helps most.
    if let Some(r) = &recorder
        && !matches!(result, Err(run::RunError::Output(_)))
    {
        let gif = dir.path().join(implicit_contact::output::ANIMATION_FILE);
        r.write_gif(stepper.scene(), &gif)
            .map_err(|e| e.to_string())?;
        println!(
            "{name}: {} frames written to {}",
            r.frame_count(),
            gif.display()
        );
    }
    if let Err(run::RunError::StepFailed(_)) = &result {
        print_stopped_line(&name, dir.path());
    }
    let result = result.map_err(|e| e.to_string())?;
    let summary = &result.summary;
    let time = &summary.wall_time_per_step_s;
    let worst = match result.slowest_step {
        Some(w) => format!(
            "; slowest step {} took {} and {} Newton iterations",
            w.step,
            seconds(w.wall_time_s),
            w.newton_iterations
        ),
        None => String::new(),
    };
    let joints = match summary.max_joint_drift {
        Some(d) => format!("; max joint drift {d:.1e}"),
        None => String::new(),
    };
    println!(
        "{name} ({}): {} steps to t = {} s, Newton iterations median {} max {}; time per step median {}, mean {}, max {}{worst}; max residual {:.1e}{joints}; written to {}",
        summary.stepper,
        summary.steps,
        implicit_contact::output::format_f64(summary.final_time),
        summary.newton_iterations.median,
        summary.newton_iterations.max,
        seconds(time.median),
        seconds(time.mean),
        seconds(time.max),
        summary.max_residual,
        dir.path().display()
    );
    Ok(())
}

fn plot_run(run_dir: &Path) -> Result<(), String> {
    let report = plot::plot_run(run_dir).map_err(|e| e.to_string())?;
    for note in &report.notes {
        eprintln!("implicit-contact: note: {note}");
    }
    println!(
        "{} figures written to {}",
        report.written.len(),
        run_dir.join(plot::standard::PLOTS_DIR).display()
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

fn rocking_study(out: &Path, duration: f64) -> Result<(), String> {
    let start = std::time::Instant::now();
    let rows = implicit_contact::study::rocking::study(out, duration)?;
    println!("Rocking and rolling bodies: energy over {duration} s and trajectory error over 1 s");
    println!(
        "{:<15} {:<18} {:>8} {:>14} {:>12}",
        "shape", "integrator", "h", "drift (rel.)", "traj. error"
    );
    for r in &rows {
        println!(
            "{:<15} {:<18} {:>8} {:>14.3e} {:>12.3e}",
            r.shape.name(),
            r.scheme.name(),
            r.time_step,
            r.energy_drift_relative,
            r.trajectory_error
        );
    }
    println!(
        "Written {} and the rocking_energy_*/rocking_convergence_* figures in {:.1} s.",
        out.join("rocking_energy.csv").display(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

fn rolling_disc_study(
    cases: &Path,
    out: &Path,
    duration: f64,
    threads: usize,
) -> Result<(), String> {
    use implicit_contact::study::rolling_disc::{RollingDiscConfig, rolling_disc};
    let start = std::time::Instant::now();
    let scenario = scenario::load(cases.join("disc_on_plane.toml")).map_err(|e| e.to_string())?;
    let AnyScene::Planar(scene) = scenario.scene else {
        return Err("disc_on_plane.toml must be a 2D scene".into());
    };
    let config = RollingDiscConfig {
        duration,
        threads,
        progress: true,
        solver: scenario.solver.clone(),
        lcp: scenario.lcp.clone(),
        ..RollingDiscConfig::default()
    };
    let data = rolling_disc(&scene, &config).map_err(|e| e.to_string())?;
    data.write_csv(out).map_err(|e| e.to_string())?;
    let figures = plot::paper_figures::figure_1(&data, out).map_err(|e| e.to_string())?;
    println!("Rolling disc (paper Figure 1): kinetic energy lost in {duration} s");
    print!("{}", data.table());
    println!("The paper's claims about Figure 1 against this study:");
    print!(
        "{}",
        paper::format_claims(&paper::rolling_disc_claims(&data))
    );
    let names: Vec<String> = figures
        .iter()
        .filter_map(|p| p.file_name().map(|s| s.to_string_lossy().into_owned()))
        .collect();
    println!(
        "Written {}, {} and {} in {:.1} s.",
        out.join("fig1_energy_loss.csv").display(),
        out.join("fig1_kinetic_energy.csv").display(),
        names.join(", "),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

fn suite(
    names: &[String],
    list: bool,
    time_limit: f64,
    write_scenarios: Option<&Path>,
) -> Result<(), String> {
    use implicit_contact::study::suite;
    let chosen = suite::select(names)?;
    if let Some(dir) = write_scenarios {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let settings = implicit_contact::stepper::StepperSettings::default();
        for s in &chosen {
            let scene = s.build().map_err(|e| format!("{}: {e}", s.name))?;
            let written = scenario::write::any_scenario_file(&scene, &settings, s.name)
                .map_err(|e| format!("{}: {e}", s.name))?;
            for what in &written.inexact {
                eprintln!("{}: {what} may come back an ulp away", s.name);
            }
            let path = dir.join(format!("{}.toml", s.name));
            implicit_contact::output::write_atomic(&path, written.file.to_toml().as_bytes())
                .map_err(|e| e.to_string())?;
        }
        eprintln!(
            "wrote {} scenario files to {} (`implicit-contact run FILE` runs a scene)",
            chosen.len(),
            dir.display()
        );
        return Ok(());
    }
    if list {
        for s in &chosen {
            println!("{:<22} {}", s.name, s.what);
        }
        return Ok(());
    }
    if !(time_limit.is_finite() && time_limit > 0.0) {
        return Err(format!(
            "--time-limit must be finite and > 0, got {time_limit}"
        ));
    }
    let limit = std::time::Duration::from_secs_f64(time_limit);
    // One scene at a time: the time columns are the point, and a second scene on the other
    // core would share the memory bandwidth.
    let mut outcomes = Vec::with_capacity(chosen.len());
    for s in &chosen {
        let o = suite::run(s, limit);
        eprintln!(
            "{}: {} in {:.1} s",
            o.name,
            o.run.outcome.word(),
            o.run.wall_time.as_secs_f64()
        );
        outcomes.push(o);
    }
    print!("{}", suite::table(&outcomes));
    match suite::problems(&outcomes) {
        None => Ok(()),
        Some(problems) => Err(problems),
    }
}

fn soak(
    seeds: &str,
    threads: usize,
    shapes: implicit_contact::study::soak::SceneKind,
    time_limit: f64,
    write_scenarios: Option<&Path>,
) -> Result<(), String> {
    use implicit_contact::study::soak;
    let seeds = soak::parse_seeds(seeds)?;
    if !(time_limit.is_finite() && time_limit > 0.0) {
        return Err(format!(
            "--time-limit must be finite and > 0, got {time_limit}"
        ));
    }
    let limit = std::time::Duration::from_secs_f64(time_limit);
    if let Some(dir) = write_scenarios {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        for seed in seeds.clone() {
            let file = soak::random_scene_with(seed, shapes).file;
            let path = dir.join(format!("{}.toml", file.name));
            implicit_contact::output::write_atomic(&path, file.to_toml().as_bytes())
                .map_err(|e| e.to_string())?;
        }
        eprintln!(
            "wrote {} scenario files to {} (`implicit-contact run FILE` runs a seed)",
            seeds.end - seeds.start,
            dir.display()
        );
    }
    let outcomes = soak::soak_with_progress(seeds, threads, limit, shapes, |o| {
        eprintln!(
            "seed {}: {} in {:.1} s",
            o.seed,
            o.outcome.word(),
            o.wall_time.as_secs_f64()
        )
    });
    print!("{}", soak::table(&outcomes));
    match soak::problems(&outcomes, &soak::Tolerances::default()) {
        None => Ok(()),
        Some(problems) => {
            let (flag, suffix) = (shapes.flags(), shapes.suffix());
            let hint = match write_scenarios {
                Some(dir) => format!(
                    "each seed's scenario is {}/soak_<seed>{suffix}.toml (`implicit-contact run` \
                     reruns it)",
                    dir.display()
                ),
                None => format!(
                    "to rerun seed N as a scenario: `implicit-contact soak --seeds N{flag} \
                     --write-scenarios DIR`, then `implicit-contact run DIR/soak_N{suffix}.toml`"
                ),
            };
            Err(format!("{problems}\n{hint}"))
        }
    }
}
