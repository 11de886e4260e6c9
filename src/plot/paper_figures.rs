//! The paper's figures (Chakraborty, Berard, Akella & Trinkle, §6), drawn from the files of the
//! runs of its examples and written as `fig<number><letter>_<short name>.svg` and `.png`:
//!
//! | file | paper | content |
//! | --- | --- | --- |
//! | `fig1a_rolling_disc_energy` | Fig. 1a, LCP study | kinetic energy of the rolling disc at h = 0.01: the implicit circle and the N-gons (N = 10 … 10000) under the LCP stepper; below, the relative change of K on a log axis against the paper's 1e-6 ([`figure_1`]) |
//! | `fig1b_rolling_disc_time_step` | Fig. 1b, LCP study | the 1000-gon at h = 0.01 … 0.0001, the same two panels |
//! | `fig4b_sphere_velocity` | Fig. 4b, Example 2 | the small sphere's generalized velocity `ν = (v, ω)` |
//! | `fig5a_contact1_forces` | Fig. 5a, Example 2 | contact 1 (with the radius-10 sphere): normal force, friction magnitude and `μ·λ_n` dashed over it; sliding speed |
//! | `fig5b_contact2_forces` | Fig. 5b, Example 2 | contact 2 (with the radius-9 sphere), the same |
//! | `fig7a_core_force` … `fig7e_energy` | Fig. 7, Example 3, δ_max = 0.05 | core (non-penetration) force, spring force, position `(x, y, θ)`, velocity `(ẋ, ẏ, ω)` (dashed lines at the first touch and the core impact), energies ([`example_3`]) |
//! | `fig8a_energy` … `fig8d_velocity` | Fig. 8, Example 3, δ_max = 1 | energies, normal force (spring and core), position, velocity |
//!
//! The energy figures (7e, 8a) show both integrators, the paper's `euler` as lines and
//! `midpoint` as markers on them, with the accumulated energy change apart from the core impact on a log axis against
//! the paper's 1e-5 J. Curves of Example 3 (15001 samples) are thinned to the lowest and
//! highest sample of each of 600 buckets ([`decimate`]), which keeps one-step spikes.
//!
//! Forces are the recorded impulses divided by the step (the mean force over the step), as the
//! paper plots forces.
//!
//! # For print
//!
//! The figures are laid out to be printed one column wide ([`for_print`]): 700 SVG units wide
//! with text 1.25 times the screen style, the PNG drawn 1.5 times larger (1050 px) and marked
//! 300 dpi, so it prints 3.5 in wide with tick labels of about 6 pt and axis labels of about
//! 7 pt. Legends sit in a column beside the plot ([`Legend::Outside`]), never over a curve;
//! axis ranges follow the data. A curve that coincides with another (Fig. 1a's N = 10000 on
//! N = 1000, a time step on its neighbour in Fig. 1b, Example 3's midpoint energies on the
//! paper's) is drawn as markers over it, and the panel says so.

use super::PlotError;
use super::figure::{Figure, Legend, LineKind, Panel, Series, save};
use super::run_data::RunData;
use std::path::{Path, PathBuf};

/// Width of a paper figure in SVG units (see "For print").
pub const PRINT_WIDTH: u32 = 700;

/// A paper figure laid out for one printed column (see "For print").
pub fn for_print(fig: Figure) -> Figure {
    fig.width(PRINT_WIDTH).text_scale(1.25).print_png(1.5, 300)
}

/// About `count` evenly spaced points of `points`, for markers that stay apart.
fn every_nth(points: &[(f64, f64)], count: usize) -> Vec<(f64, f64)> {
    every_nth_from(points, count, 0.0)
}

/// [`every_nth`] starting `phase` (in `[0, 1)`) of a spacing in: two marker series on the same
/// curve interleave instead of covering each other.
fn every_nth_from(points: &[(f64, f64)], count: usize, phase: f64) -> Vec<(f64, f64)> {
    let step = (points.len() / count.max(1)).max(1);
    let start = ((phase * step as f64) as usize).min(points.len());
    points[start..].iter().step_by(step).copied().collect()
}

/// True if `a` and `b` (the same sample times) differ nowhere by more than `tol`: drawn as lines
/// they would be one.
fn coincide(a: &[(f64, f64)], b: &[(f64, f64)], tol: f64) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(p, q)| (p.1 - q.1).abs() <= tol)
}

/// `|K − K₀| / K₀` of a kinetic-energy series (the fraction lost, or gained, since the start).
fn relative_change(s: &Series) -> Series {
    let k0 = s.points.first().map_or(f64::NAN, |p| p.1);
    Series::line(
        s.label.clone(),
        s.points
            .iter()
            .map(|&(t, k)| (t, ((k - k0) / k0).abs()))
            .collect(),
    )
}

/// Kinetic energy against time (top) and its relative change on a log axis (bottom; the curves
/// keep the top panel's colours and legend), with the paper's 1e-6 tolerance when `tolerance`;
/// the first curve solid, the others dashed when `dash_others`.
fn energy_loss_figure(
    title: &str,
    curves: &[Series],
    dash_others: bool,
    tolerance: bool,
) -> Figure {
    let t0 = curves
        .iter()
        .filter_map(|s| s.points.first().map(|p| p.0))
        .fold(f64::INFINITY, f64::min);
    let t_end = curves
        .iter()
        .filter_map(|s| s.points.last().map(|p| p.0))
        .fold(f64::NEG_INFINITY, f64::max);
    let (t0, t_end) = if t0 < t_end { (t0, t_end) } else { (0.0, 1.0) };
    let k_max = curves
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .filter(|k| k.is_finite())
        .fold(0.0f64, f64::max);
    let mut energy = Panel::new("kinetic energy (J)")
        .legend(Legend::Outside)
        .y_range(0.0, if k_max > 0.0 { 1.05 * k_max } else { 1.0 });
    let mut loss = Panel::new("|K − K₀| / K₀").legend(Legend::Outside).log_y();
    if tolerance {
        loss = loss.y_range(1e-17, 10.0);
    }
    let mut as_markers = Vec::new();
    for (i, s) in curves.iter().enumerate() {
        // Within 0.5 % of the largest energy of a curve drawn before: a line would hide
        // under it, so this one is drawn as markers.
        let under = curves[..i]
            .iter()
            .find(|c| coincide(&c.points, &s.points, 5e-3 * k_max));
        let mut change = relative_change(s).with_color(i);
        change.label.clear();
        if under.is_some() {
            let phase = as_markers.len() as f64 / 2.0 % 1.0;
            as_markers.push(s.label.clone());
            let mut shown = s.clone();
            shown.label = format!("{} (markers)", s.label);
            shown.points = every_nth_from(&s.points, 40, phase);
            energy = energy.series(shown.with_kind(LineKind::Points).with_color(i));
            change.points = every_nth_from(&change.points, 40, phase);
            loss = loss.series(change.with_kind(LineKind::Points));
            continue;
        }
        let kind = if i > 0 && dash_others {
            LineKind::Dashed
        } else {
            LineKind::Solid
        };
        energy = energy.series(s.clone().with_kind(kind).with_color(i));
        loss = loss.series(change);
    }
    if !as_markers.is_empty() {
        energy = energy.subtitle("markers: a curve on another");
    }
    if tolerance {
        loss = loss
            .series(Series::dashed("paper's 1e-6", vec![(t0, 1e-6), (t_end, 1e-6)]).with_color(6));
    }
    for_print(Figure::new(title).panel(energy).panel(loss))
}

/// Fig. 1a: kinetic energy of the rolling disc against time. `implicit` is this method's curve
/// (from [`kinetic_energy`] or the study's implicit series); `others` are the LCP study's
/// polygonal discs, drawn dashed. A second panel shows each curve's relative change
/// `|K − K₀| / K₀` on a log axis with the paper's tolerance 1e-6.
pub fn fig1a(implicit: Series, others: Vec<Series>) -> Figure {
    let mut curves = vec![implicit];
    curves.extend(others);
    energy_loss_figure("Fig. 1a — rolling disc, h = 0.01 s", &curves, true, true)
}

/// Fig. 1b: kinetic energy of the `N`-gon (the study's 1000) under the LCP stepper at each
/// time step, with the relative change on a log axis below.
pub fn fig1b(vertices: usize, curves: Vec<Series>) -> Figure {
    energy_loss_figure(
        &format!("Fig. 1b — {vertices}-gon, LCP stepper"),
        &curves,
        false,
        false,
    )
}

/// Writes Fig. 1a and 1b of the rolling-disc study into `plots` as
/// `fig1a_rolling_disc_energy` and `fig1b_rolling_disc_time_step`.
pub fn figure_1(
    data: &crate::study::rolling_disc::RollingDiscData,
    plots: &Path,
) -> Result<Vec<PathBuf>, PlotError> {
    use crate::study::rolling_disc::Formulation;
    let series = |s: &crate::study::rolling_disc::Series, label: String| {
        Series::from_xy(label, &s.time, &s.kinetic_energy)
    };
    let mut implicit = None;
    let mut others = Vec::new();
    for s in data.figure_a() {
        match s.configuration.formulation {
            Formulation::Implicit => {
                implicit = Some(series(s, "implicit circle".into()));
            }
            Formulation::Lcp { vertices } => {
                others.push(series(s, format!("N = {vertices}")));
            }
        }
    }
    let implicit = implicit.ok_or_else(|| {
        PlotError::malformed(
            plots,
            None,
            "the rolling-disc study has no implicit run at Figure 1a's time step",
        )
    })?;
    let mut written = save(&fig1a(implicit, others), plots, "fig1a_rolling_disc_energy")?;
    let b: Vec<Series> = data
        .figure_b()
        .into_iter()
        .map(|s| series(s, format!("h = {} s", s.configuration.time_step)))
        .collect();
    written.extend(save(
        &fig1b(data.config.figure_b_vertices, b),
        plots,
        "fig1b_rolling_disc_time_step",
    )?);
    Ok(written)
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
    // Components 1, 2, 3 along the world x, y, z axes (Unicode has no subscript y).
    Ok(for_print(
        Figure::new("Fig. 4b — velocity ν of the small sphere")
            .panel_height(420)
            .panel(
                Panel::new("ν (m/s, rad/s)")
                    .subtitle("components 1, 2, 3 along world x, y, z")
                    .legend(Legend::Outside)
                    .series(Series::line("v₁", col("vx")?))
                    .series(Series::line("v₂", col("vy")?))
                    .series(Series::line("v₃", col("vz")?))
                    .series(Series::line("ω₁", col("wx")?))
                    .series(Series::line("ω₂", col("wy")?))
                    .series(Series::line("ω₃", col("wz")?).with_color(7)),
            ),
    ))
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
    Ok(for_print(
        Figure::new(format!("Fig. 5{letter} — contact {number}, Example 2"))
            .panel(
                Panel::new("force (N)")
                    .from_zero()
                    .legend(Legend::Outside)
                    .series(Series::line(format!("normal λ{n}ₙ"), normal).with_color(0))
                    .series(Series::line("friction", friction).with_color(1))
                    .series(Series::dashed(format!("μ·λ{n}ₙ (μ = {mu})"), bound).with_color(6)),
            )
            .panel(
                Panel::new("sliding speed (m/s)")
                    .from_zero()
                    .legend(Legend::Outside)
                    .series(Series::line("sliding speed", slip).with_color(2)),
            ),
    ))
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

/// At most about `2 × buckets` points of a curve sampled in order: per bucket of consecutive
/// points its lowest and highest (in their order), plus the first and last point, so that a
/// spike one step wide (the core impact) survives. Deterministic.
pub fn decimate(points: &[(f64, f64)], buckets: usize) -> Vec<(f64, f64)> {
    let buckets = buckets.max(1);
    if points.len() <= 2 * buckets + 2 {
        return points.to_vec();
    }
    let size = points.len().div_ceil(buckets);
    let mut out = vec![points[0]];
    for chunk in points.chunks(size) {
        let (mut lo, mut hi) = (0, 0);
        for (i, p) in chunk.iter().enumerate() {
            if p.1 < chunk[lo].1 || chunk[lo].1.is_nan() {
                lo = i;
            }
            if p.1 > chunk[hi].1 || chunk[hi].1.is_nan() {
                hi = i;
            }
        }
        let (a, b) = (lo.min(hi), lo.max(hi));
        out.push(chunk[a]);
        if b != a {
            out.push(chunk[b]);
        }
    }
    let last = points[points.len() - 1];
    if out.last() != Some(&last) {
        out.push(last);
    }
    out
}

/// Points kept per curve of Fig. 7 and 8 (15001 samples each): `2 × 600`.
const QUASI_BUCKETS: usize = 600;

/// The four runs of Example 3 (written by `paper` under its `--out`).
pub const EXAMPLE_3_RUNS: [&str; 4] = [
    "quasi_rigid_disc_core_impact",
    "quasi_rigid_disc_core_impact_midpoint",
    "quasi_rigid_disc_no_core_impact",
    "quasi_rigid_disc_no_core_impact_midpoint",
];

/// A run of Example 3 with what its figures need.
struct QuasiRun {
    run: RunData,
    /// Core impulse summed over each step's contacts, by step.
    core: std::collections::HashMap<u64, f64>,
}

impl QuasiRun {
    fn read(dir: &Path) -> Result<Self, PlotError> {
        let run = RunData::read(dir)?;
        let steps = run.contacts.numbers("step")?;
        let p = run.contacts.numbers("core_impulse")?;
        let mut core = std::collections::HashMap::new();
        for (s, p) in steps.iter().zip(&p) {
            *core.entry(*s as u64).or_insert(0.0) += if p.is_finite() { *p } else { 0.0 };
        }
        Ok(Self { run, core })
    }

    fn column(&self, column: &str) -> Result<Vec<(f64, f64)>, PlotError> {
        Ok(decimate(
            &self.run.trajectory_series(column)?,
            QUASI_BUCKETS,
        ))
    }

    fn force(&self, column: &str) -> Result<Vec<(f64, f64)>, PlotError> {
        Ok(decimate(
            &force_series(&self.run, 0, column)?,
            QUASI_BUCKETS,
        ))
    }

    /// The accumulated change of the total energy over the steps without a core impulse,
    /// `|Σ ΔE|` (the quantity of the paper's 1e-5 J claim; the CSV's ten significant digits
    /// floor it near 1e-9 J).
    fn drift(&self) -> Result<Vec<(f64, f64)>, PlotError> {
        let t = self.run.trajectory.numbers("t")?;
        let step = self.run.trajectory.numbers("step")?;
        let e = self.run.trajectory.numbers("total_energy")?;
        let mut acc = 0.0f64;
        let mut out = Vec::with_capacity(t.len());
        for i in 1..t.len() {
            if self.core.get(&(step[i] as u64)).copied().unwrap_or(0.0) <= 1e-12 {
                acc += e[i] - e[i - 1];
            }
            out.push((t[i], acc.abs()));
        }
        Ok(decimate(&out, QUASI_BUCKETS))
    }

    /// The first time the layer is deflected and the first core impulse, if any.
    fn events(&self) -> Result<(Option<f64>, Option<f64>), PlotError> {
        let t = self.run.contacts.numbers("t")?;
        let d = self.run.contacts.numbers("deflection")?;
        let p = self.run.contacts.numbers("core_impulse")?;
        let touch = t.iter().zip(&d).find(|(_, d)| **d > 0.0).map(|(t, _)| *t);
        let core = t.iter().zip(&p).find(|(_, p)| **p > 1e-12).map(|(t, _)| *t);
        Ok((touch, core))
    }
}

/// Fig. 7c / 8c: the disc's centre `q = (x, y, θ)`.
fn quasi_position(run: &QuasiRun, title: String) -> Result<Figure, PlotError> {
    Ok(for_print(
        Figure::new(title).panel(
            Panel::new("position (m), angle (rad)")
                .legend(Legend::Outside)
                .series(Series::line("x", run.column("disc.x")?).with_color(0))
                .series(Series::line("y", run.column("disc.y")?).with_color(1))
                .series(Series::dashed("θ", run.column("disc.theta")?).with_color(2)),
        ),
    ))
}

/// Fig. 7d / 8d: the disc's velocity `ν = (v_x, v_y, ω)`; with `events`, dashed vertical lines
/// at the first touch of the layer and the core impact (the paper's demarcation in Fig. 7d).
fn quasi_velocity(run: &QuasiRun, title: String, events: bool) -> Result<Figure, PlotError> {
    let vy = run.column("disc.vy")?;
    let mut panel = Panel::new("velocity (m/s, rad/s)")
        .legend(Legend::Outside)
        .series(Series::line("ẋ", run.column("disc.vx")?).with_color(0))
        .series(Series::line("ẏ", vy.clone()).with_color(1))
        .series(Series::dashed("ω", run.column("disc.w")?).with_color(2));
    if events {
        let lo = vy.iter().map(|p| p.1).fold(0.0f64, f64::min);
        let hi = vy.iter().map(|p| p.1).fold(0.0f64, f64::max);
        let (touch, core) = run.events()?;
        for (t, label, color) in [(touch, "touch", 7), (core, "core", 6)] {
            if let Some(t) = t {
                panel = panel.series(
                    Series::dashed(format!("{label}, {t:.4} s"), vec![(t, lo), (t, hi)])
                        .with_color(color),
                );
            }
        }
        panel = panel.subtitle("dashed: touch of the layer; core impact");
    }
    Ok(for_print(Figure::new(title).panel(panel)))
}

/// Fig. 7e / 8a: kinetic, potential (gravity and the layer's spring) and total energy under
/// both integrators (the paper's `euler` solid, `midpoint` dashed); below, the accumulated
/// energy change apart from the core impact on a log axis with the paper's 1e-5 J.
fn quasi_energy(euler: &QuasiRun, midpoint: &QuasiRun, title: String) -> Result<Figure, PlotError> {
    let top = [euler, midpoint]
        .iter()
        .map(|r| r.run.trajectory.numbers("total_energy"))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .flatten()
        .filter(|e| e.is_finite())
        .fold(0.0f64, f64::max);
    // The midpoint curves lie on the paper's within the line width: markers over them.
    let mut energy = Panel::new("energy (J)")
        .legend(Legend::Outside)
        .subtitle("lines: euler; markers: midpoint")
        .y_range(0.0, 1.05 * top.max(1e-9));
    for (i, (column, name)) in [
        ("kinetic_energy", "kinetic"),
        ("potential_energy", "potential"),
        ("total_energy", "total"),
    ]
    .into_iter()
    .enumerate()
    {
        energy = energy
            .series(Series::line(name, euler.column(column)?).with_color(i))
            .series(Series::points("", every_nth(&midpoint.column(column)?, 60)).with_color(i));
    }
    let de = euler.drift()?;
    let (t0, t1) = (
        de.first().map_or(0.0, |p| p.0),
        de.last().map_or(1.0, |p| p.0),
    );
    // Fig. 8 (δ_max = 1) has no core impact to leave out.
    let impact = euler.events()?.1.is_some() || midpoint.events()?.1.is_some();
    let drift = Panel::new("|ΔE| (J)")
        .subtitle(if impact {
            "accumulated change apart from the core impact"
        } else {
            "accumulated change (no core impact)"
        })
        .legend(Legend::Outside)
        .log_y()
        .series(Series::line("euler", de).with_color(0))
        .series(Series::line("midpoint", midpoint.drift()?).with_color(3))
        .series(Series::dashed("paper's 1e-5 J", vec![(t0, 1e-5), (t1, 1e-5)]).with_color(6));
    Ok(for_print(Figure::new(title).panel(energy).panel(drift)))
}

/// Writes Fig. 7a–e (δ_max = 0.05: the core is reached) and Fig. 8a–d (δ_max = 1: it is not)
/// from the four runs of Example 3 under `out` ([`EXAMPLE_3_RUNS`]) into `plots`. Forces are
/// impulses over the step; positions, velocities and forces are the paper's scheme (`euler`),
/// the energy figures show both integrators.
pub fn example_3(out: &Path, plots: &Path) -> Result<Vec<PathBuf>, PlotError> {
    let [core, core_mid, free, free_mid] = EXAMPLE_3_RUNS.map(|name| out.join(name));
    let (core, core_mid) = (QuasiRun::read(&core)?, QuasiRun::read(&core_mid)?);
    let (free, free_mid) = (QuasiRun::read(&free)?, QuasiRun::read(&free_mid)?);
    let c7 = "δₘₐₓ = 0.05 m";
    let c8 = "δₘₐₓ = 1 m";
    let mut written = Vec::new();
    let mut put = |fig: Figure, stem: &str| -> Result<(), PlotError> {
        written.extend(save(&fig, plots, stem)?);
        Ok(())
    };
    put(
        for_print(
            Figure::new(format!("Fig. 7a — core force, {c7}")).panel(
                Panel::new("force (N)")
                    .from_zero()
                    .legend(Legend::Outside)
                    .series(Series::line("pₙᵣ / h", core.force("core_impulse")?).with_color(1)),
            ),
        ),
        "fig7a_core_force",
    )?;
    put(
        for_print(
            Figure::new(format!("Fig. 7b — spring force, {c7}")).panel(
                Panel::new("force (N)")
                    .from_zero()
                    .legend(Legend::Outside)
                    .series(Series::line("pₙₛ / h", core.force("spring_impulse")?).with_color(0)),
            ),
        ),
        "fig7b_spring_force",
    )?;
    put(
        quasi_position(&core, format!("Fig. 7c — disc's centre, {c7}"))?,
        "fig7c_position",
    )?;
    put(
        quasi_velocity(&core, format!("Fig. 7d — velocity, {c7}"), true)?,
        "fig7d_velocity",
    )?;
    put(
        quasi_energy(&core, &core_mid, format!("Fig. 7e — energy, {c7}"))?,
        "fig7e_energy",
    )?;
    put(
        quasi_energy(&free, &free_mid, format!("Fig. 8a — energy, {c8}"))?,
        "fig8a_energy",
    )?;
    put(
        for_print(
            Figure::new(format!("Fig. 8b — normal force, {c8}")).panel(
                Panel::new("force (N)")
                    .from_zero()
                    .legend(Legend::Outside)
                    .series(
                        Series::line("spring pₙₛ / h", free.force("spring_impulse")?).with_color(0),
                    )
                    .series(
                        Series::dashed("core pₙᵣ / h", free.force("core_impulse")?).with_color(1),
                    ),
            ),
        ),
        "fig8b_normal_force",
    )?;
    put(
        quasi_position(&free, format!("Fig. 8c — disc's centre, {c8}"))?,
        "fig8c_position",
    )?;
    put(
        quasi_velocity(&free, format!("Fig. 8d — velocity, {c8}"), false)?,
        "fig8d_velocity",
    )?;
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::decimate;

    #[test]
    fn decimate_bounds_the_points_and_keeps_a_one_sample_spike() {
        let mut pts: Vec<(f64, f64)> = (0..15001).map(|i| (i as f64 * 1e-4, 0.0)).collect();
        pts[3356].1 = 27000.0;
        let d = decimate(&pts, 600);
        assert!(d.len() <= 2 * 600 + 2, "{} points", d.len());
        assert_eq!(d.first(), pts.first());
        assert_eq!(d.last(), pts.last());
        assert!(d.contains(&pts[3356]), "the spike is lost");
        // In order (the first sample may be repeated as its bucket's lowest).
        assert!(d.windows(2).all(|w| w[0].0 <= w[1].0), "out of order");
        // Short curves are kept as they are.
        assert_eq!(decimate(&pts[..100], 600), pts[..100].to_vec());
    }
}
