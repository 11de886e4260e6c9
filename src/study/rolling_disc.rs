//! The rolling-disc energy study of the paper's Figure 1 (§1, §6.1).
//!
//! A unit disc (`m = 1`, `I = 0.5`, `μ = 0.4`, `g = 9.81`) starts rolling without slip,
//! `q₀ = (0, 1, 0)`, `ν₀ = (−3, 0, 3)`. The exact solution rolls at constant speed for ever.
//! The study runs the same scene
//!
//! * **(a)** at `h = 0.01` with the disc as a regular `N`-gon under the Stewart–Trinkle LCP
//!   stepper, `N = 10, 100, 1000, 10000`, and as the implicit circle under the implicit stepper;
//! * **(b)** with `N = 1000` at `h = 0.01, 0.005, 0.001, 0.0005, 0.0001`,
//!
//! and records the kinetic energy against time and the fraction of the initial kinetic energy
//! lost at the end ([`Series::energy_lost_fraction`]; the duration is 5 s by default, hence
//! the `energy_lost_fraction_5s` column of `fig1_energy_loss.csv`).
//!
//! What to expect (5 s; the README has the table): the implicit circle loses nothing (~1e-16);
//! 1000 and 10000 vertices lose the same at `h = 0.01`; with 1000 vertices the loss falls with
//! `h` and saturates from `h = 0.001`, all as in the paper. Unlike the paper's description, at
//! `h = 0.01` the 100-gon loses less than the 1000-gon: the loss has two sources, the vertex
//! impacts (falling with `N`) and the linearised gap of vertices within the arc `2hω` ahead
//! of the contact (which `ψ/h + W_nᵀν ≥ 0` forces the disc to lift over); the second needs a
//! vertex spacing below `2hω`, which 1000 vertices have at `h = 0.01` and 100 barely have.
//!
//! Configurations run in parallel on scoped threads; each result is stored at its
//! configuration's index, so the data (and the files) do not depend on thread scheduling.
//! Figures are drawn by the plot layer from [`RollingDiscData::figure_a`] and
//! [`RollingDiscData::figure_b`].

use crate::geometry::Planar;
use crate::mcp::SolveSettings;
use crate::model::Scene;
use crate::output::format_f64;
use crate::stepper::{ImplicitStepper, LcpSettings, LcpStepper, StepperSettings, TimeStepper};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Which formulation runs a configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Formulation {
    /// The geometrically implicit stepper with the implicit circle.
    Implicit,
    /// The Stewart–Trinkle LCP stepper with the disc as a regular polygon of `vertices`.
    Lcp {
        /// Vertices of the polygon.
        vertices: usize,
    },
}

impl Formulation {
    /// `implicit` or `lcp` (the `formulation` column).
    pub fn name(&self) -> &'static str {
        match self {
            Formulation::Implicit => "implicit",
            Formulation::Lcp { .. } => "lcp",
        }
    }

    /// The polygon's vertex count (`None` for the implicit circle).
    pub fn vertices(&self) -> Option<usize> {
        match self {
            Formulation::Implicit => None,
            Formulation::Lcp { vertices } => Some(*vertices),
        }
    }
}

/// One run of the study: a formulation at a time step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Configuration {
    /// The formulation (and polygon resolution).
    pub formulation: Formulation,
    /// The time step `h` (s).
    pub time_step: f64,
}

impl Configuration {
    /// A short label, e.g. `lcp N=1000 h=0.001` or `implicit h=0.01`.
    pub fn label(&self) -> String {
        match self.formulation {
            Formulation::Implicit => format!("implicit h={}", self.time_step),
            Formulation::Lcp { vertices } => format!("lcp N={vertices} h={}", self.time_step),
        }
    }

    /// The canonical order: implicit first, then by vertex count, then by decreasing `h`.
    fn order(&self, other: &Self) -> std::cmp::Ordering {
        self.formulation
            .cmp(&other.formulation)
            .then(other.time_step.total_cmp(&self.time_step))
    }
}

/// What the study runs.
#[derive(Debug, Clone, PartialEq)]
pub struct RollingDiscConfig {
    /// Simulated duration (s); the paper's 5 s by default.
    pub duration: f64,
    /// Figure 1a: the polygon resolutions at [`figure_a_time_step`](Self::figure_a_time_step).
    pub figure_a_vertices: Vec<usize>,
    /// Figure 1a's time step (0.01 s); the implicit stepper runs at it too.
    pub figure_a_time_step: f64,
    /// Figure 1b: the polygon resolution (1000).
    pub figure_b_vertices: usize,
    /// Figure 1b: the time steps.
    pub figure_b_time_steps: Vec<f64>,
    /// The kinetic energy is kept every this many seconds (rounded to whole steps; every step
    /// if `h` is larger), and at the end.
    pub sample_interval: f64,
    /// The LCP stepper's settings (its `vertices` is set per configuration).
    pub lcp: LcpSettings,
    /// The implicit stepper's solver settings.
    pub solver: SolveSettings,
    /// Worker threads (`0`: one per available core).
    pub threads: usize,
    /// Show progress bars on stderr.
    pub progress: bool,
}

impl Default for RollingDiscConfig {
    fn default() -> Self {
        Self {
            duration: 5.0,
            figure_a_vertices: vec![10, 100, 1000, 10000],
            figure_a_time_step: 0.01,
            figure_b_vertices: 1000,
            figure_b_time_steps: vec![0.01, 0.005, 0.001, 0.0005, 0.0001],
            sample_interval: 0.01,
            lcp: LcpSettings::default(),
            solver: SolveSettings::default(),
            threads: 0,
            progress: false,
        }
    }
}

impl RollingDiscConfig {
    /// The configurations, each once, in the canonical order (implicit first, then by vertex
    /// count, then by decreasing time step).
    pub fn configurations(&self) -> Vec<Configuration> {
        let mut list = vec![Configuration {
            formulation: Formulation::Implicit,
            time_step: self.figure_a_time_step,
        }];
        for &n in &self.figure_a_vertices {
            list.push(Configuration {
                formulation: Formulation::Lcp { vertices: n },
                time_step: self.figure_a_time_step,
            });
        }
        for &h in &self.figure_b_time_steps {
            list.push(Configuration {
                formulation: Formulation::Lcp {
                    vertices: self.figure_b_vertices,
                },
                time_step: h,
            });
        }
        list.sort_by(|a, b| a.order(b));
        list.dedup();
        list
    }
}

/// The result of one configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// What ran.
    pub configuration: Configuration,
    /// Sample times (s), from 0 to the duration.
    pub time: Vec<f64>,
    /// Kinetic energy at the sample times (J).
    pub kinetic_energy: Vec<f64>,
    /// `(KE(0) − KE(T)) / KE(0)` at the end `T` of the run.
    pub energy_lost_fraction: f64,
    /// Steps taken.
    pub steps: usize,
    /// Worst solver residual over the run (for the LCP: its complementarity error).
    pub max_residual: f64,
    /// Largest LCP of the run (0 for the implicit stepper).
    pub max_lcp_size: usize,
    /// Deepest penetration after any step ([`TimeStepper::penetration`]).
    pub max_penetration: f64,
    /// Wall time of the run (not part of the files: it varies between runs).
    pub wall_time: Duration,
}

/// Everything the study measured, in the canonical configuration order.
#[derive(Debug, Clone, PartialEq)]
pub struct RollingDiscData {
    /// The configuration it ran.
    pub config: RollingDiscConfig,
    /// One series per configuration, sorted (see [`RollingDiscConfig::configurations`]).
    pub series: Vec<Series>,
}

/// Why the study failed.
#[derive(Debug, thiserror::Error)]
pub enum StudyError {
    /// A stepper refused the scene.
    #[error("{configuration}: {reason}")]
    Setup {
        /// The configuration's label.
        configuration: String,
        /// Why.
        reason: String,
    },
    /// A step failed.
    #[error("{configuration}: step {step} (t = {time:.6} s) failed: {reason}")]
    StepFailed {
        /// The configuration's label.
        configuration: String,
        /// The step.
        step: usize,
        /// Time of the last accepted state.
        time: f64,
        /// The solver report.
        reason: String,
    },
    /// Writing a file failed.
    #[error("writing {path}: {reason}")]
    Write {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
    /// The study's own settings are unusable.
    #[error("rolling-disc study: {0}")]
    Config(String),
}

impl RollingDiscData {
    /// The series of a formulation at a time step (exact match of `h`).
    pub fn find(&self, formulation: Formulation, time_step: f64) -> Option<&Series> {
        self.series.iter().find(|s| {
            s.configuration.formulation == formulation && s.configuration.time_step == time_step
        })
    }

    /// Figure 1a: the implicit series and the LCP polygons at the figure's time step, in order
    /// of vertex count.
    pub fn figure_a(&self) -> Vec<&Series> {
        let h = self.config.figure_a_time_step;
        let mut out: Vec<&Series> = self.find(Formulation::Implicit, h).into_iter().collect();
        out.extend(
            self.config
                .figure_a_vertices
                .iter()
                .filter_map(|&n| self.find(Formulation::Lcp { vertices: n }, h)),
        );
        out
    }

    /// Figure 1b: the LCP polygon of the figure's resolution at each time step, in the
    /// configured order.
    pub fn figure_b(&self) -> Vec<&Series> {
        let f = Formulation::Lcp {
            vertices: self.config.figure_b_vertices,
        };
        self.config
            .figure_b_time_steps
            .iter()
            .filter_map(|&h| self.find(f, h))
            .collect()
    }

    /// `fig1_energy_loss.csv`: `formulation, vertices, time_step, energy_lost_fraction_5s`
    /// (vertices empty for `implicit`), one row per configuration.
    pub fn energy_loss_csv(&self) -> String {
        let mut s = String::from("formulation,vertices,time_step,energy_lost_fraction_5s\n");
        for r in &self.series {
            let c = &r.configuration;
            let _ = writeln!(
                s,
                "{},{},{},{}",
                c.formulation.name(),
                c.formulation
                    .vertices()
                    .map(|n| n.to_string())
                    .unwrap_or_default(),
                format_f64(c.time_step),
                format_f64(r.energy_lost_fraction)
            );
        }
        s
    }

    /// `fig1_kinetic_energy.csv`, long format: `formulation, vertices, time_step, t,
    /// kinetic_energy`, the samples of every configuration.
    pub fn kinetic_energy_csv(&self) -> String {
        let mut s = String::from("formulation,vertices,time_step,t,kinetic_energy\n");
        for r in &self.series {
            let c = &r.configuration;
            let vertices = c
                .formulation
                .vertices()
                .map(|n| n.to_string())
                .unwrap_or_default();
            let h = format_f64(c.time_step);
            for (t, ke) in r.time.iter().zip(&r.kinetic_energy) {
                let _ = writeln!(
                    s,
                    "{},{vertices},{h},{},{}",
                    c.formulation.name(),
                    format_f64(*t),
                    format_f64(*ke)
                );
            }
        }
        s
    }

    /// Writes `fig1_energy_loss.csv` and `fig1_kinetic_energy.csv` into `dir` (created if
    /// needed).
    pub fn write_csv(&self, dir: &Path) -> Result<(), StudyError> {
        let err = |p: &Path, e: std::io::Error| StudyError::Write {
            path: p.display().to_string(),
            reason: e.to_string(),
        };
        std::fs::create_dir_all(dir).map_err(|e| err(dir, e))?;
        for (name, text) in [
            ("fig1_energy_loss.csv", self.energy_loss_csv()),
            ("fig1_kinetic_energy.csv", self.kinetic_energy_csv()),
        ] {
            let path = dir.join(name);
            std::fs::write(&path, text).map_err(|e| err(&path, e))?;
        }
        Ok(())
    }

    /// The table printed by `implicit-contact study rolling-disc`.
    pub fn table(&self) -> String {
        let mut s = format!(
            "{:<10} {:>8} {:>9} {:>24} {:>8} {:>9} {:>10} {:>12} {:>9}\n",
            "formulation",
            "vertices",
            "h (s)",
            format!("energy lost in {} s", self.config.duration),
            "steps",
            "max LCP",
            "residual",
            "penetration",
            "wall (s)"
        );
        for r in &self.series {
            let c = &r.configuration;
            let _ = writeln!(
                s,
                "{:<10} {:>8} {:>9} {:>24.4e} {:>8} {:>9} {:>10.1e} {:>12.1e} {:>9.2}",
                c.formulation.name(),
                c.formulation
                    .vertices()
                    .map(|n| n.to_string())
                    .unwrap_or_else(|| "-".into()),
                c.time_step,
                r.energy_lost_fraction,
                r.steps,
                r.max_lcp_size,
                r.max_residual,
                r.max_penetration,
                r.wall_time.as_secs_f64()
            );
        }
        s
    }
}

/// Runs the study on `scene` (the disc on the plane; its time step and duration are replaced
/// by each configuration's). Results are in the canonical order whatever the thread count.
pub fn rolling_disc(
    scene: &Scene<Planar>,
    config: &RollingDiscConfig,
) -> Result<RollingDiscData, StudyError> {
    if !(config.duration.is_finite() && config.duration > 0.0) {
        return Err(StudyError::Config(format!(
            "duration must be finite and > 0, got {}",
            config.duration
        )));
    }
    if !(config.sample_interval.is_finite() && config.sample_interval >= 0.0) {
        return Err(StudyError::Config(format!(
            "sample_interval must be finite and ≥ 0, got {}",
            config.sample_interval
        )));
    }
    let configurations = config.configurations();
    if let Some(c) = configurations
        .iter()
        .find(|c| !(c.time_step.is_finite() && c.time_step > 0.0))
    {
        return Err(StudyError::Config(format!(
            "time step must be finite and > 0, got {}",
            c.time_step
        )));
    }
    let threads = if config.threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        config.threads
    }
    .min(configurations.len())
    .max(1);
    let bars = MultiProgress::with_draw_target(if config.progress {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    });
    let style = ProgressStyle::with_template("{msg:>24} [{bar:30}] {pos}/{len} steps, {eta} left")
        .expect("valid template");
    // Longest runs first, so the slowest configurations start at once.
    let mut queue: Vec<usize> = (0..configurations.len()).collect();
    queue.sort_by_key(|&i| {
        let c = &configurations[i];
        std::cmp::Reverse(
            (config.duration / c.time_step) as u64 * c.formulation.vertices().unwrap_or(1) as u64,
        )
    });
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<Series, StudyError>>>> =
        Mutex::new((0..configurations.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let k = next.fetch_add(1, Ordering::SeqCst);
                    let Some(&i) = queue.get(k) else { break };
                    let c = configurations[i];
                    let steps = step_count(config.duration, c.time_step);
                    let bar = bars.add(ProgressBar::new(steps as u64));
                    bar.set_style(style.clone());
                    bar.set_message(c.label());
                    let result = run_configuration(scene, config, c, &bar);
                    bar.finish_and_clear();
                    results.lock().expect("no worker panics")[i] = Some(result);
                }
            });
        }
    });
    let mut series = Vec::with_capacity(configurations.len());
    for r in results.into_inner().expect("no worker panics") {
        series.push(r.expect("every configuration ran")?);
    }
    Ok(RollingDiscData {
        config: config.clone(),
        series,
    })
}

/// `⌈T/h⌉` with a relative slack of `10⁻⁹` (5 s at 0.01 s is 500 steps).
fn step_count(duration: f64, h: f64) -> usize {
    (duration / h * (1.0 - 1e-9)).ceil() as usize
}

fn run_configuration(
    scene: &Scene<Planar>,
    config: &RollingDiscConfig,
    c: Configuration,
    bar: &ProgressBar,
) -> Result<Series, StudyError> {
    let mut scene = scene.clone();
    scene.time_step = c.time_step;
    scene.duration = config.duration;
    let setup = |reason: String| StudyError::Setup {
        configuration: c.label(),
        reason,
    };
    match c.formulation {
        Formulation::Implicit => {
            let settings = StepperSettings {
                solver: config.solver.clone(),
                ..StepperSettings::default()
            };
            let stepper =
                ImplicitStepper::new(scene, settings).map_err(|e| setup(e.to_string()))?;
            run_series(stepper, config, c, bar, |_| 0)
        }
        Formulation::Lcp { vertices } => {
            let settings = LcpSettings {
                vertices,
                ..config.lcp.clone()
            };
            let stepper = LcpStepper::new(scene, settings).map_err(|e| setup(e.to_string()))?;
            run_series(stepper, config, c, bar, |s: &LcpStepper<Planar>| {
                s.last_lcp_size()
            })
        }
    }
}

fn run_series<T: TimeStepper<Planar>>(
    mut stepper: T,
    config: &RollingDiscConfig,
    c: Configuration,
    bar: &ProgressBar,
    lcp_size: impl Fn(&T) -> usize,
) -> Result<Series, StudyError> {
    let start = Instant::now();
    let steps = step_count(config.duration, c.time_step);
    let stride = ((config.sample_interval / c.time_step).round() as usize).max(1);
    let ke0 = stepper.scene().kinetic_energy();
    let mut time = vec![0.0];
    let mut kinetic_energy = vec![ke0];
    let (mut max_residual, mut max_lcp_size, mut max_penetration) = (0.0f64, 0usize, 0.0f64);
    for step in 1..=steps {
        let report = stepper.step();
        if !report.converged {
            return Err(StudyError::StepFailed {
                configuration: c.label(),
                step,
                time: stepper.time(),
                reason: report.solve.to_string(),
            });
        }
        max_residual = max_residual.max(report.residual);
        max_lcp_size = max_lcp_size.max(lcp_size(&stepper));
        max_penetration = max_penetration.max(stepper.penetration());
        if step % stride == 0 || step == steps {
            time.push(stepper.time());
            kinetic_energy.push(stepper.scene().kinetic_energy());
        }
        if step % 64 == 0 {
            bar.set_position(step as u64);
        }
    }
    let ke = *kinetic_energy.last().expect("at least the initial sample");
    Ok(Series {
        configuration: c,
        time,
        kinetic_energy,
        energy_lost_fraction: (ke0 - ke) / ke0,
        steps,
        max_residual,
        max_lcp_size,
        max_penetration,
        wall_time: start.elapsed(),
    })
}
