//! The paper's figures (Chakraborty, Berard, Akella & Trinkle, §6), drawn from the files of the
//! runs of its examples and written as `fig<number><letter>_<short name>.svg` and `.png`:
//!
//! | file | paper | content |
//! | --- | --- | --- |
//! | `fig1a_rolling_disc_energy` | Fig. 1a, Example 1 | kinetic energy of the rolling disc (the implicit curve; the LCP study adds its polygonal discs through [`fig1a`]); below, its relative drift on a log axis against the paper's 1e-6 tolerance |
//! | `fig4b_sphere_velocity` | Fig. 4b, Example 2 | the small sphere's generalized velocity `ν = (v, ω)` |
//! | `fig5a_contact1_forces` | Fig. 5a, Example 2 | contact 1 (with the radius-10 sphere): normal force, friction magnitude and `μ·λ_n` dashed over it; sliding speed |
//! | `fig5b_contact2_forces` | Fig. 5b, Example 2 | contact 2 (with the radius-9 sphere), the same |
//!
//! Forces are the recorded impulses divided by the step (the mean force over the step), as the
//! paper plots forces.

use super::PlotError;
use super::figure::{Figure, Panel, Series, save};
use super::run_data::RunData;
use std::path::{Path, PathBuf};

/// Fig. 1a: kinetic energy of the rolling disc against time. `implicit` is this method's curve
/// (from [`kinetic_energy`]); `others` are further curves (the LCP study's polygonal discs),
/// drawn dashed. A second panel shows each curve's relative drift `|K − K₀| / K₀` on a log axis
/// with the paper's tolerance 1e-6.
pub fn fig1a(implicit: Series, others: Vec<Series>) -> Figure {
    let drift = |s: &Series| {
        let k0 = s.points.first().map_or(f64::NAN, |p| p.1);
        Series::line(
            s.label.clone(),
            s.points
                .iter()
                .map(|&(t, k)| (t, ((k - k0) / k0).abs()))
                .collect(),
        )
    };
    let t_end = implicit.points.last().map_or(1.0, |p| p.0);
    let t0 = implicit.points.first().map_or(0.0, |p| p.0);
    let k_max = std::iter::once(&implicit)
        .chain(&others)
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .filter(|k| k.is_finite())
        .fold(0.0f64, f64::max);
    let mut energy = Panel::new("kinetic energy (J)")
        .legend(super::Legend::LowerRight)
        .y_range(0.0, if k_max > 0.0 { 1.15 * k_max } else { 1.0 })
        .series(implicit.clone().with_color(0));
    let mut drifts = Panel::new("|K − K₀| / K₀")
        .legend(super::Legend::MiddleRight)
        .log_y()
        .y_range(1e-17, 1e-4)
        .series(drift(&implicit).with_color(0));
    for (i, s) in others.iter().enumerate() {
        energy = energy.series(
            s.clone()
                .with_kind(super::LineKind::Dashed)
                .with_color(i + 1),
        );
        drifts = drifts.series(drift(s).with_color(i + 1));
    }
    drifts = drifts.series(
        Series::dashed("paper's tolerance 1e-6", vec![(t0, 1e-6), (t_end, 1e-6)]).with_color(6),
    );
    Figure::new("Fig. 1a — kinetic energy of the disc rolling on a plane (Example 1)")
        .panel(energy)
        .panel(drifts)
}

/// The kinetic energy of a run as a series labelled `label`.
pub fn kinetic_energy(run: &RunData, label: &str) -> Result<Series, PlotError> {
    Ok(Series::line(
        label,
        run.trajectory_series("kinetic_energy")?,
    ))
}

/// Fig. 4b: the generalized velocity of body `body` (spatial) against time.
pub fn fig4b(run: &RunData, body: &str) -> Result<Figure, PlotError> {
    let col = |c: &str| run.trajectory_series(&format!("{body}.{c}"));
    Ok(
        Figure::new("Fig. 4b — generalized velocity of the small sphere (Example 2)")
            .panel_height(420)
            .panel(
                Panel::new("ν (m/s, rad/s)")
                    .legend(super::Legend::LowerLeft)
                    .series(Series::line("v_x", col("vx")?))
                    .series(Series::line("v_y", col("vy")?))
                    .series(Series::line("v_z", col("vz")?))
                    .series(Series::line("ω_x", col("wx")?))
                    .series(Series::line("ω_y", col("wy")?))
                    .series(Series::line("ω_z", col("wz")?).with_color(7)),
            ),
    )
}

/// Column `column` of contact `k` divided by each row's step: the mean force over the step.
fn force_series(run: &RunData, k: usize, column: &str) -> Result<Vec<(f64, f64)>, PlotError> {
    let h = run.step_lengths()?;
    let steps = run.contacts.numbers("step")?;
    let idx = run.contacts.numbers("contact")?;
    let t = run.contacts.numbers("t")?;
    let v = run.contacts.numbers(column)?;
    Ok((0..v.len())
        .filter(|&r| idx[r] == k as f64)
        .map(|r| {
            let h = h.get(&(steps[r] as u64)).copied().unwrap_or(f64::NAN);
            (t[r], v[r] / h)
        })
        .collect())
}

/// Fig. 5a/5b: forces and sliding speed at contact `k`, the paper's contact `number` (1 or 2).
pub fn fig5(
    run: &RunData,
    k: usize,
    number: usize,
    letter: char,
    mu: f64,
) -> Result<Figure, PlotError> {
    let normal = force_series(run, k, "normal_impulse")?;
    let friction = force_series(run, k, "friction_impulse")?;
    let bound: Vec<(f64, f64)> = normal.iter().map(|&(t, f)| (t, mu * f)).collect();
    let slip: Vec<(f64, f64)> = run
        .contact_series(k, "slip_speed")?
        .into_iter()
        // The paper draws zero after separation; the run leaves the field empty there.
        .map(|(t, s)| (t, if s.is_finite() { s } else { 0.0 }))
        .collect();
    let sub = ['₀', '₁', '₂', '₃', '₄', '₅', '₆', '₇', '₈', '₉'];
    let n = sub.get(number).copied().unwrap_or('ᵢ');
    Ok(Figure::new(format!(
        "Fig. 5{letter} — forces and sliding speed at contact {number} (Example 2)"
    ))
    .panel(
        Panel::new("force (N)")
            .from_zero()
            .series(Series::line(format!("normal force λ{n}ₙ"), normal).with_color(0))
            .series(Series::line("friction magnitude", friction).with_color(1))
            .series(Series::dashed(format!("μ·λ{n}ₙ (μ = {mu})"), bound).with_color(6)),
    )
    .panel(
        Panel::new("sliding speed (m/s)")
            .from_zero()
            .series(Series::line("sliding speed", slip).with_color(2)),
    ))
}

/// Writes Fig. 1a from the run of Example 1 in `run_dir` into `plots`.
pub fn example_1(run_dir: &Path, plots: &Path) -> Result<Vec<PathBuf>, PlotError> {
    let run = RunData::read(run_dir)?;
    let fig = fig1a(
        kinetic_energy(&run, "implicit disc (this method)")?,
        Vec::new(),
    );
    save(&fig, plots, "fig1a_rolling_disc_energy")
}

/// Writes Fig. 4b, 5a and 5b from the run of Example 2 in `run_dir` into `plots`. Contact 1 is
/// the one with body `big`, contact 2 the one with `medium` (as in the scenario file).
pub fn example_2(run_dir: &Path, plots: &Path) -> Result<Vec<PathBuf>, PlotError> {
    let run = RunData::read(run_dir)?;
    let contacts = run.contact_list()?;
    let find = |body: &str| {
        contacts
            .iter()
            .find(|c| c.body1 == body || c.body2 == body)
            .ok_or_else(|| {
                PlotError::malformed(
                    run.contacts.path(),
                    None,
                    format!("no contact with body `{body}` (Example 2 has `big` and `medium`)"),
                )
            })
    };
    let (c1, c2) = (find("big")?, find("medium")?);
    let mu_of = |c: &super::run_data::ContactInfo| {
        c.mu.ok_or_else(|| {
            PlotError::malformed(
                &run.dir.join(crate::output::SUMMARY_FILE),
                None,
                format!(
                    "no friction coefficient for contact {} (key `contacts`)",
                    c.index
                ),
            )
        })
    };
    let mut written = save(&fig4b(&run, "small")?, plots, "fig4b_sphere_velocity")?;
    written.extend(save(
        &fig5(&run, c1.index, 1, 'a', mu_of(c1)?)?,
        plots,
        "fig5a_contact1_forces",
    )?);
    written.extend(save(
        &fig5(&run, c2.index, 2, 'b', mu_of(c2)?)?,
        plots,
        "fig5b_contact2_forces",
    )?);
    Ok(written)
}
