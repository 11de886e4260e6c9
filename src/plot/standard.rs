//! The standard figures of a run (`implicit-contact plot RUN_DIR`), written into
//! `RUN_DIR/plots/`, each as `.svg` and `.png`:
//!
//! | file | content |
//! | --- | --- |
//! | `energy` | kinetic, potential and total energy against time; below, the total energy's drift `|E − E₀|` on a log axis |
//! | `velocity_<body>` | per moving body: linear velocity components (m/s), and angular velocity (rad/s) |
//! | `contact_<k>` | per contact: normal and friction impulse with `μ·p_n` dashed over the friction magnitude (N·s), torsion in 3D, spring and core impulses for quasi-rigid contacts; slip speed (m/s); gap on a log axis (m) |
//! | `newton_iterations` | Newton iterations and retries per step; the step's natural residual on a log axis |
//!
//! `μ` comes from `summary.json` (`contacts[].mu`); without it (a run interrupted before its
//! summary, or one written before that key existed) the `μ·p_n` curve is left out and the
//! report says so. Likewise without `solver.csv` there is no `newton_iterations` figure.

use super::figure::{Figure, Panel, Series, save};
use super::run_data::RunData;
use super::{PlotError, file_stem};
use std::path::{Path, PathBuf};

/// The name of the folder, inside the run directory, that receives the standard figures.
pub const PLOTS_DIR: &str = "plots";

/// At most this many contacts get a figure each (a pile of bodies has thousands); the report
/// says how many were left out.
pub const MAX_CONTACT_FIGURES: usize = 32;

/// What [`plot_run`] wrote, and what it could not draw (for the user to read).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PlotReport {
    /// The files written.
    pub written: Vec<PathBuf>,
    /// Figures or curves left out, and why.
    pub notes: Vec<String>,
}

/// Reads the run in `run_dir` and writes its standard figures into `run_dir/plots/`.
pub fn plot_run(run_dir: &Path) -> Result<PlotReport, PlotError> {
    let run = RunData::read(run_dir)?;
    plot_run_data(&run, &run_dir.join(PLOTS_DIR))
}

/// The standard figures of `run`, written into `out`.
pub fn plot_run_data(run: &RunData, out: &Path) -> Result<PlotReport, PlotError> {
    let mut report = PlotReport::default();
    let name = run.name();
    report
        .written
        .extend(save(&energy_figure(run, &name)?, out, "energy")?);
    for body in run.bodies() {
        let fig = velocity_figure(run, &name, &body.name, body.spatial)?;
        report.written.extend(save(
            &fig,
            out,
            &format!("velocity_{}", file_stem(&body.name)),
        )?);
    }
    let contacts = run.contact_list()?;
    let mut missing_mu = Vec::new();
    for c in contacts.iter().take(MAX_CONTACT_FIGURES) {
        if c.mu.is_none() {
            missing_mu.push(c.index.to_string());
        }
        let fig = contact_figure(run, &name, c.index, &c.body1, &c.body2, c.mu)?;
        report
            .written
            .extend(save(&fig, out, &format!("contact_{}", c.index))?);
    }
    if contacts.len() > MAX_CONTACT_FIGURES {
        report.notes.push(format!(
            "{} contacts: figures for the first {MAX_CONTACT_FIGURES} only",
            contacts.len()
        ));
    }
    if !missing_mu.is_empty() {
        report.notes.push(format!(
            "{}: no friction coefficient for contact(s) {} (summary.json missing or without `contacts`): μ·p_n not drawn",
            run.dir.display(),
            missing_mu.join(", ")
        ));
    }
    match &run.solver {
        Some(_) => {
            report
                .written
                .extend(save(&solver_figure(run, &name)?, out, "newton_iterations")?)
        }
        None => report.notes.push(format!(
            "{}: no solver.csv: no newton_iterations figure",
            run.dir.display()
        )),
    }
    Ok(report)
}

/// Energies against time, and the total energy's drift.
pub fn energy_figure(run: &RunData, name: &str) -> Result<Figure, PlotError> {
    let ke = run.trajectory_series("kinetic_energy")?;
    let pe = run.trajectory_series("potential_energy")?;
    let te = run.trajectory_series("total_energy")?;
    let e0 = te.first().map_or(f64::NAN, |p| p.1);
    let drift: Vec<(f64, f64)> = te.iter().map(|&(t, e)| (t, (e - e0).abs())).collect();
    Ok(Figure::new(format!("{name}: energy"))
        .panel(
            Panel::new("energy (J)")
                .series(Series::line("kinetic", ke))
                .series(Series::line("potential", pe))
                .series(Series::dashed("total", te).with_color(6)),
        )
        .panel(
            Panel::new("|E − E₀| (J)")
                .log_y()
                .series(Series::line("total energy drift", drift).with_color(6)),
        ))
}

/// A moving body's linear and angular velocity.
pub fn velocity_figure(
    run: &RunData,
    name: &str,
    body: &str,
    spatial: bool,
) -> Result<Figure, PlotError> {
    let col = |c: &str| run.trajectory_series(&format!("{body}.{c}"));
    let mut linear = Panel::new("velocity (m/s)")
        .series(Series::line("vx", col("vx")?))
        .series(Series::line("vy", col("vy")?));
    let mut angular = Panel::new("angular velocity (rad/s)");
    if spatial {
        linear = linear.series(Series::line("vz", col("vz")?));
        angular = angular
            .series(Series::line("ωx", col("wx")?))
            .series(Series::line("ωy", col("wy")?))
            .series(Series::line("ωz", col("wz")?));
    } else {
        angular = angular.series(Series::line("ω", col("w")?));
    }
    Ok(Figure::new(format!("{name}: velocity of {body}"))
        .panel(linear)
        .panel(angular))
}

/// One contact's impulses (with `μ·p_n` over the friction magnitude when `mu` is known), slip
/// speed and gap.
pub fn contact_figure(
    run: &RunData,
    name: &str,
    k: usize,
    body1: &str,
    body2: &str,
    mu: Option<f64>,
) -> Result<Figure, PlotError> {
    let pn = run.contact_series(k, "normal_impulse")?;
    let pf = run.contact_series(k, "friction_impulse")?;
    let mut impulses = Panel::new("impulse (N·s)")
        .from_zero()
        .series(Series::line("normal p_n", pn.clone()))
        .series(Series::line("friction ‖p_t‖", pf));
    if let Some(mu) = mu {
        let bound = pn.iter().map(|&(t, p)| (t, mu * p)).collect();
        impulses =
            impulses.series(Series::dashed(format!("μ·p_n (μ = {mu})"), bound).with_color(6));
    }
    if run.contacts.has("torsion_impulse") {
        let pr = run.contact_series(k, "torsion_impulse")?;
        if pr.iter().any(|p| p.1 != 0.0 && p.1.is_finite()) {
            impulses = impulses.series(Series::line("torsion p_r (N·m·s)", pr).with_color(3));
        }
    }
    // Quasi-rigid contacts: the spring and rigid-core parts of the normal impulse.
    for (column, label, color) in [
        ("spring_impulse", "spring p_ns", 4),
        ("core_impulse", "core p_nr", 5),
    ] {
        if run.contacts.has(column) {
            let series = run.contact_series(k, column)?;
            if series.iter().any(|p| p.1.is_finite()) {
                impulses = impulses.series(Series::dashed(label, series).with_color(color));
            }
        }
    }
    Ok(
        Figure::new(format!("{name}: contact {k} ({body1} – {body2})"))
            .panel(impulses)
            .panel(
                Panel::new("slip speed (m/s)")
                    .from_zero()
                    .series(Series::line(
                        "slip speed",
                        run.contact_series(k, "slip_speed")?,
                    )),
            )
            .panel(
                Panel::new("gap (m; 0 not shown)")
                    .log_y()
                    .series(Series::line("gap", run.contact_series(k, "gap")?).with_color(2)),
            ),
    )
}

/// Newton iterations and retries per step, and the residual of each step's solve.
pub fn solver_figure(run: &RunData, name: &str) -> Result<Figure, PlotError> {
    let Some(solver) = &run.solver else {
        return Err(PlotError::malformed(&run.dir, None, "no solver.csv"));
    };
    let t = solver.numbers("t")?;
    let pair = |col: &str| -> Result<Vec<(f64, f64)>, PlotError> {
        Ok(t.iter().copied().zip(solver.numbers(col)?).collect())
    };
    let mut counts = Panel::new("per step").from_zero().series(Series::points(
        "Newton iterations",
        pair("newton_iterations")?,
    ));
    if solver.has("retries") {
        counts =
            counts.series(Series::points("retries (halvings)", pair("retries")?).with_color(1));
    }
    let mut fig = Figure::new(format!("{name}: Newton iterations per step")).panel(counts);
    if solver.has("residual") {
        fig = fig.panel(
            Panel::new("natural residual")
                .log_y()
                .series(Series::points("residual", pair("residual")?).with_color(2)),
        );
    }
    Ok(fig)
}
