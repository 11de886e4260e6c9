//! The standard figures of a run (`implicit-contact plot RUN_DIR`), written into
//! `RUN_DIR/plots/`, each as `.svg` and `.png`:
//!
//! | file | content |
//! | --- | --- |
//! | `energy` | kinetic, potential and total energy against time; below, the total energy's change `E − E₀` (signed, linear: a gain is told from a loss) and its size `|E − E₀|` on a log axis |
//! | `velocity_<body>` | per moving body: linear velocity components (m/s), and angular velocity (rad/s) |
//! | `contact_<k>` | per contact: normal and friction impulse with `μ·p_n` dashed over the friction magnitude (N·s), spring and core impulses for quasi-rigid contacts; torsional impulse in 3D on its own axis (N·m·s); slip speed (m/s); gap on a log axis (m), or linear and labelled "closed" for a contact whose gap never opens |
//! | `newton_iterations` | Newton iterations and retries per step; the step's natural residual on a log axis |
//!
//! `μ` comes from `summary.json` (`contacts[].mu`); without it (a run interrupted before its
//! summary, or one written before that key existed) the `μ·p_n` curve is left out and the
//! report says so. Likewise without rows in `solver.csv` there is no `newton_iterations`
//! figure, and without `contacts.csv` no contact figure: an interrupted run is drawn from its
//! complete rows. The figures of a previous `plot` of the same run (the files named above) are
//! removed first, so `plots/` never mixes two runs.

use super::figure::{Figure, Panel, Series, save};
use super::run_data::RunData;
use super::{PlotError, file_stem};
use std::path::{Path, PathBuf};

pub use crate::output::PLOTS_DIR;

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

/// The standard figures of `run`, written into `out` (after removing those of a previous plot).
pub fn plot_run_data(run: &RunData, out: &Path) -> Result<PlotReport, PlotError> {
    let mut report = PlotReport {
        notes: run.notes.clone(),
        ..PlotReport::default()
    };
    // A rerun of the run may have fewer bodies or contacts: their old figures would look
    // current.
    crate::output::remove_standard_figures(out)
        .map_err(|e| PlotError::io(out, "remove the previous figures", e))?;
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
    // Without solver rows `RunData::notes` already says why there is no such figure.
    if run.solver.is_some() {
        report
            .written
            .extend(save(&solver_figure(run, &name)?, out, "newton_iterations")?);
    }
    Ok(report)
}

/// Energies against time, and the total energy's drift.
pub fn energy_figure(run: &RunData, name: &str) -> Result<Figure, PlotError> {
    let ke = run.trajectory_series("kinetic_energy")?;
    let pe = run.trajectory_series("potential_energy")?;
    let te = run.trajectory_series("total_energy")?;
    let e0 = te.first().map_or(f64::NAN, |p| p.1);
    let change: Vec<(f64, f64)> = te.iter().map(|&(t, e)| (t, e - e0)).collect();
    let drift: Vec<(f64, f64)> = change.iter().map(|&(t, d)| (t, d.abs())).collect();
    Ok(Figure::new(format!("{name}: energy"))
        .panel(
            Panel::new("energy (J)")
                .series(Series::line("kinetic", ke))
                .series(Series::line("potential", pe))
                .series(Series::dashed("total", te).with_color(6)),
        )
        .panel(
            Panel::new("E − E₀ (J)")
                .subtitle("total energy change: > 0 gained, < 0 lost")
                .series(Series::line("E − E₀", change).with_color(6)),
        )
        .panel(
            Panel::new("|E − E₀| (J)")
                .log_y()
                .series(Series::line("|E − E₀| (0 not shown)", drift).with_color(6)),
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
        .series(Series::line("normal pₙ", pn.clone()))
        .series(Series::line("friction ‖pₜ‖", pf));
    if let Some(mu) = mu {
        let bound = pn.iter().map(|&(t, p)| (t, mu * p)).collect();
        impulses = impulses.series(Series::dashed(format!("μ·pₙ (μ = {mu})"), bound).with_color(6));
    }
    // Torsion is a moment (N·m·s): its own axis, not the impulses' N·s.
    let mut torsion = None;
    if run.contacts.has("torsion_impulse") {
        let pr = run.contact_series(k, "torsion_impulse")?;
        if pr.iter().any(|p| p.1 != 0.0 && p.1.is_finite()) {
            torsion = Some(
                Panel::new("torsion (N·m·s)")
                    .series(Series::line("torsional impulse pᵣ", pr).with_color(3)),
            );
        }
    }
    // Quasi-rigid contacts: the spring and rigid-core parts of the normal impulse.
    for (column, label, color) in [
        ("spring_impulse", "spring pₙₛ", 4),
        ("core_impulse", "core pₙᵣ", 5),
    ] {
        if run.contacts.has(column) {
            let series = run.contact_series(k, column)?;
            if series.iter().any(|p| p.1.is_finite()) {
                impulses = impulses.series(Series::dashed(label, series).with_color(color));
            }
        }
    }
    let mut fig = Figure::new(format!("{name}: contact {k} ({body1} – {body2})")).panel(impulses);
    if let Some(torsion) = torsion {
        fig = fig.panel(torsion);
    }
    Ok(fig
        .panel(
            Panel::new("slip speed (m/s)")
                .from_zero()
                .series(Series::line(
                    "slip speed",
                    run.contact_series(k, "slip_speed")?,
                )),
        )
        .panel(gap_panel(run.contact_series(k, "gap")?)))
}

/// Gaps up to this (m) are a touching contact's rounding (Example 1's rolling disc: +3e-16 m
/// in some steps, −6e-13 m in others), not an opening.
const CLOSED_GAP: f64 = 1e-12;

/// The gap on a log axis while it opens; a contact whose gap never rises above
/// [`CLOSED_GAP`] (closed, or compressed into its layer) has nothing to show on a log axis, so
/// its signed gap is drawn on a linear one, labelled as closed.
fn gap_panel(gap: Vec<(f64, f64)>) -> Panel {
    if gap.iter().any(|&(_, g)| g > CLOSED_GAP && g.is_finite()) {
        Panel::new("gap (m, log; ≤ 0 not shown)")
            .log_y()
            .series(Series::line("gap", gap).with_color(2))
    } else {
        Panel::new("gap (m)")
            .subtitle(
                "closed throughout: the gap never opens beyond 1e-12 m (≤ 0: overlap or layer \
                 compression)",
            )
            .series(Series::line("signed gap", gap).with_color(2))
    }
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
