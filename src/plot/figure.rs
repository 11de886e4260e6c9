//! Time-series figures: a builder and its SVG/PNG rendering.
//!
//! ```no_run
//! use implicit_contact::plot::{self, Figure, Panel, Series};
//!
//! let t: Vec<f64> = (0..=100).map(|k| k as f64 * 0.01).collect();
//! let fig = Figure::new("Kinetic energy of the rolling disc")
//!     .panel(
//!         Panel::new("kinetic energy (J)")
//!             .series(Series::line("implicit", t.iter().map(|&t| (t, 6.75)).collect()))
//!             .series(Series::dashed("LCP, 100 edges", t.iter().map(|&t| (t, 6.75 - t)).collect())),
//!     )
//!     .panel(
//!         Panel::new("relative drift")
//!             .log_y()
//!             .series(Series::points("implicit", t.iter().map(|&t| (t, 1e-16 + t * 1e-15)).collect())),
//!     );
//! // plots/fig1a_rolling_disc_energy.svg and .png
//! plot::save(&fig, std::path::Path::new("plots"), "fig1a_rolling_disc_energy").unwrap();
//! ```
//!
//! Non-finite points (a separated contact's slip speed) break a curve instead of joining across
//! the gap; on a log axis non-positive values do the same. An axis range is taken from the data
//! unless given; a flat curve gets a range of ±5 % about its value, so it reads as flat instead of
//! magnifying rounding noise.

use super::PlotError;
use super::style::{self, FAMILY};
use plotters::coord::Shift;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// An axis scale.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scale {
    /// Linear.
    #[default]
    Linear,
    /// Base-10 logarithmic; non-positive values are left out.
    Log,
}

/// How a series is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LineKind {
    /// A solid line.
    #[default]
    Solid,
    /// A dashed line (drawn over solid ones: bounds, references, μ·p_n).
    Dashed,
    /// Markers only (per-step counts).
    Points,
}

/// Where a panel's legend goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Legend {
    /// The corner (or the middle right) that covers the fewest curve points (the default).
    #[default]
    Auto,
    /// Top right.
    UpperRight,
    /// Top left.
    UpperLeft,
    /// Middle right.
    MiddleRight,
    /// Bottom right.
    LowerRight,
    /// Bottom left.
    LowerLeft,
    /// Outside the plot, in a column to its right: never over a curve. Every panel of a figure
    /// with one such legend keeps the column (empty where unused), so the panels' x axes stay
    /// aligned.
    Outside,
}

impl Legend {
    fn position(self) -> SeriesLabelPosition {
        match self {
            Self::Auto | Self::UpperRight | Self::Outside => SeriesLabelPosition::UpperRight,
            Self::UpperLeft => SeriesLabelPosition::UpperLeft,
            Self::MiddleRight => SeriesLabelPosition::MiddleRight,
            Self::LowerRight => SeriesLabelPosition::LowerRight,
            Self::LowerLeft => SeriesLabelPosition::LowerLeft,
        }
    }
}

/// One named curve.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// The legend entry; empty for no entry.
    pub label: String,
    /// `(x, y)` in data units.
    pub points: Vec<(f64, f64)>,
    /// Line, dashes or markers.
    pub kind: LineKind,
    /// Palette index; `None`: the series' position in its panel.
    pub color: Option<usize>,
}

impl Series {
    /// A solid line.
    pub fn line(label: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Self {
            label: label.into(),
            points,
            kind: LineKind::Solid,
            color: None,
        }
    }

    /// A dashed line.
    pub fn dashed(label: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Self {
            kind: LineKind::Dashed,
            ..Self::line(label, points)
        }
    }

    /// Markers only.
    pub fn points(label: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Self {
            kind: LineKind::Points,
            ..Self::line(label, points)
        }
    }

    /// `y` against `x`, paired up to the shorter of the two.
    pub fn from_xy(label: impl Into<String>, x: &[f64], y: &[f64]) -> Self {
        Self::line(label, x.iter().copied().zip(y.iter().copied()).collect())
    }

    /// The same series with palette colour `index` (0 blue, 1 vermillion, 2 green, 3 purple,
    /// 4 orange, 5 sky blue, 6 black, 7 grey).
    pub fn with_color(mut self, index: usize) -> Self {
        self.color = Some(index);
        self
    }

    /// The same series drawn as `kind`.
    pub fn with_kind(mut self, kind: LineKind) -> Self {
        self.kind = kind;
        self
    }
}

/// One chart of a figure: a y axis and its curves, sharing the figure's x axis.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Panel {
    /// The y axis' label, with its unit, e.g. `normal impulse (N·s)`.
    pub y_label: String,
    /// A heading above the panel (optional).
    pub subtitle: Option<String>,
    /// The curves.
    pub series: Vec<Series>,
    /// The y scale.
    pub y_scale: Scale,
    /// The y range; `None`: from the data.
    pub y_range: Option<(f64, f64)>,
    /// Whether the automatic y range includes 0.
    pub include_zero: bool,
    /// Where the legend goes.
    pub legend: Legend,
}

impl Panel {
    /// An empty panel whose y axis reads `y_label`.
    pub fn new(y_label: impl Into<String>) -> Self {
        Self {
            y_label: y_label.into(),
            ..Self::default()
        }
    }

    /// Adds a curve.
    pub fn series(mut self, series: Series) -> Self {
        self.series.push(series);
        self
    }

    /// A heading above the panel.
    pub fn subtitle(mut self, text: impl Into<String>) -> Self {
        self.subtitle = Some(text.into());
        self
    }

    /// A log-10 y axis.
    pub fn log_y(mut self) -> Self {
        self.y_scale = Scale::Log;
        self
    }

    /// A fixed y range.
    pub fn y_range(mut self, lo: f64, hi: f64) -> Self {
        self.y_range = Some((lo, hi));
        self
    }

    /// Puts the legend at `corner`.
    pub fn legend(mut self, corner: Legend) -> Self {
        self.legend = corner;
        self
    }

    /// The automatic y range includes 0 (impulses, speeds).
    pub fn from_zero(mut self) -> Self {
        self.include_zero = true;
        self
    }
}

/// A figure: a title and stacked panels sharing one x axis.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// The title above the panels.
    pub title: String,
    /// The x axis' label, with its unit; `t (s)` by default.
    pub x_label: String,
    /// The x scale.
    pub x_scale: Scale,
    /// The x range; `None`: from the data.
    pub x_range: Option<(f64, f64)>,
    /// The panels, top to bottom.
    pub panels: Vec<Panel>,
    /// Width in pixels (SVG user units).
    pub width: u32,
    /// Height of each panel in pixels.
    pub panel_height: u32,
    /// The PNG is drawn this many times larger than the SVG's user units (everything scaled:
    /// fonts, lines, margins), for a print resolution; 1 by default.
    pub png_scale: f64,
    /// The PNG's resolution in dots per inch, written in its `pHYs` chunk (a layout program
    /// then places it at `width × png_scale / dpi` inches); `None`: not written.
    pub png_dpi: Option<u32>,
    /// Text (and the bands that hold it: title, tick labels, legend) this many times the
    /// style's sizes; 1 by default, larger for a figure printed small.
    pub text_scale: f64,
}

impl Figure {
    /// A figure without panels, titled `title`, x axis `t (s)`.
    pub fn new(title: impl Into<String>) -> Self {
        Self {
            title: title.into(),
            x_label: "t (s)".into(),
            x_scale: Scale::Linear,
            x_range: None,
            panels: Vec::new(),
            width: style::WIDTH,
            panel_height: style::PANEL_HEIGHT,
            png_scale: 1.0,
            png_dpi: None,
            text_scale: 1.0,
        }
    }

    /// Text `factor` times the style's sizes (see [`text_scale`](Self::text_scale)).
    pub fn text_scale(mut self, factor: f64) -> Self {
        self.text_scale = factor;
        self
    }

    /// Width in SVG units (900 by default).
    pub fn width(mut self, width: u32) -> Self {
        self.width = width;
        self
    }

    /// A PNG for print: drawn `scale` times the SVG's size, marked as `dpi` dots per inch.
    pub fn print_png(mut self, scale: f64, dpi: u32) -> Self {
        self.png_scale = scale;
        self.png_dpi = Some(dpi);
        self
    }

    /// Adds a panel below the others.
    pub fn panel(mut self, panel: Panel) -> Self {
        self.panels.push(panel);
        self
    }

    /// The x axis' label.
    pub fn x_label(mut self, label: impl Into<String>) -> Self {
        self.x_label = label.into();
        self
    }

    /// A log-10 x axis.
    pub fn log_x(mut self) -> Self {
        self.x_scale = Scale::Log;
        self
    }

    /// A fixed x range.
    pub fn x_range(mut self, lo: f64, hi: f64) -> Self {
        self.x_range = Some((lo, hi));
        self
    }

    /// Each panel `pixels` high (300 by default).
    pub fn panel_height(mut self, pixels: u32) -> Self {
        self.panel_height = pixels;
        self
    }

    /// The image size in pixels (SVG user units).
    pub fn size(&self) -> (u32, u32) {
        (
            self.width,
            self.title_height() + self.panel_height * self.panels.len().max(1) as u32,
        )
    }

    fn title_height(&self) -> u32 {
        (style::TITLE_HEIGHT as f64 * self.text_scale).round() as u32
    }

    /// The PNG's size in pixels: [`size`](Self::size) times [`png_scale`](Self::png_scale).
    pub fn png_size(&self) -> (u32, u32) {
        let (w, h) = self.size();
        (
            (w as f64 * self.png_scale).round() as u32,
            (h as f64 * self.png_scale).round() as u32,
        )
    }
}

/// Pixel sizes of one rendering: the style's, times the rendering's scale.
#[derive(Clone, Copy)]
pub(crate) struct Px(pub(crate) f64);

impl Px {
    pub(crate) fn i(self, v: f64) -> i32 {
        (v * self.0).round() as i32
    }
    pub(crate) fn u(self, v: f64) -> u32 {
        (v * self.0).round().max(1.0) as u32
    }
    pub(crate) fn f(self, v: f64) -> f64 {
        v * self.0
    }
}

/// Writes `fig` to `path`, SVG or PNG by the extension (`.svg`, `.png`).
pub fn render(fig: &Figure, path: &Path) -> Result<(), PlotError> {
    style::ensure_font();
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let size = fig.size();
    match ext.as_deref() {
        Some("svg") => {
            // Drawn into a string and written at once, so an I/O error names the file clearly.
            let mut text = String::new();
            {
                let root = SVGBackend::with_string(&mut text, size).into_drawing_area();
                draw_figure(&root, fig, Px(1.0)).map_err(|e| PlotError::draw(path, e))?;
                root.present().map_err(|e| PlotError::draw(path, e))?;
            }
            std::fs::write(path, text).map_err(|e| PlotError::io(path, "write the figure", e))
        }
        Some("png") => {
            let size = fig.png_size();
            let mut buffer = vec![0u8; size.0 as usize * size.1 as usize * 3];
            {
                let root = BitMapBackend::with_buffer(&mut buffer, size).into_drawing_area();
                draw_figure(&root, fig, Px(fig.png_scale)).map_err(|e| PlotError::draw(path, e))?;
                root.present().map_err(|e| PlotError::draw(path, e))?;
            }
            write_png(path, size, &buffer, fig.png_dpi)
        }
        _ => Err(PlotError::Format {
            path: path.to_path_buf(),
        }),
    }
}

/// Writes an RGB buffer as PNG (through the `image` encoder plotters already builds on).
pub(crate) fn write_png(
    path: &Path,
    size: (u32, u32),
    rgb: &[u8],
    dpi: Option<u32>,
) -> Result<(), PlotError> {
    // Same as plotters' own PNG output, but with the error naming the file.
    let file =
        std::fs::File::create(path).map_err(|e| PlotError::io(path, "create the figure", e))?;
    let mut w = std::io::BufWriter::new(file);
    let mut enc = png::Encoder::new(&mut w, size.0, size.1);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    // The PNGs are committed as the README's gallery: smallest files, still deterministic.
    enc.set_compression(png::Compression::Best);
    if let Some(dpi) = dpi {
        // pHYs counts pixels per metre.
        let per_metre = (dpi as f64 / 0.0254).round() as u32;
        enc.set_pixel_dims(Some(png::PixelDimensions {
            xppu: per_metre,
            yppu: per_metre,
            unit: png::Unit::Meter,
        }));
    }
    let mut writer = enc
        .write_header()
        .map_err(|e| PlotError::draw(path, format!("PNG header: {e}")))?;
    writer
        .write_image_data(rgb)
        .map_err(|e| PlotError::draw(path, format!("PNG data: {e}")))?;
    writer
        .finish()
        .map_err(|e| PlotError::draw(path, format!("PNG end: {e}")))?;
    std::io::Write::flush(&mut w).map_err(|e| PlotError::io(path, "write the figure", e))
}

/// Writes `dir/<stem>.svg` and `dir/<stem>.png` (creating `dir`); returns both paths.
pub fn save(fig: &Figure, dir: &Path, stem: &str) -> Result<Vec<PathBuf>, PlotError> {
    std::fs::create_dir_all(dir).map_err(|e| PlotError::io(dir, "create the directory", e))?;
    let mut written = Vec::with_capacity(2);
    for ext in ["svg", "png"] {
        let path = dir.join(format!("{stem}.{ext}"));
        render(fig, &path)?;
        written.push(path);
    }
    Ok(written)
}

type DrawResult = Result<(), String>;

/// The width in SVG units of the legend column of a figure with [`Legend::Outside`] panels (0
/// without): the longest label's estimated width plus the sample line.
fn outside_legend_width(fig: &Figure) -> u32 {
    fig.panels
        .iter()
        .filter(|p| p.legend == Legend::Outside)
        .flat_map(|p| p.series.iter().map(|s| s.label.chars().count()))
        .max()
        .map_or(0, |chars| {
            (chars as f64 * 0.56 * style::LEGEND_SIZE * fig.text_scale + 48.0) as u32
        })
}

fn draw_figure<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    fig: &Figure,
    px: Px,
) -> DrawResult {
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let (w, h) = root.dim_in_pixel();
    let ts = fig.text_scale;
    let (title_area, body) = root.split_vertically(px.u(fig.title_height() as f64).min(h));
    title_area
        .titled(
            &fig.title,
            (FAMILY, px.f(style::TITLE_SIZE * ts)).into_font(),
        )
        .map_err(|e| e.to_string())?;
    if fig.panels.is_empty() {
        return Ok(());
    }
    let column = px.u(outside_legend_width(fig) as f64).min(w / 2);
    let (body, legends) = if column > 0 {
        let (b, l) = body.split_horizontally(w - column);
        (b, Some(l.split_evenly((fig.panels.len(), 1))))
    } else {
        (body, None)
    };
    let areas = body.split_evenly((fig.panels.len(), 1));
    let x = fig
        .x_range
        .unwrap_or_else(|| auto_range(fig.panels.iter().flat_map(x_values), fig.x_scale, false));
    for (area, panel) in areas.iter().zip(&fig.panels) {
        let y = panel.y_range.unwrap_or_else(|| {
            auto_range(
                panel
                    .series
                    .iter()
                    .flat_map(|s| s.points.iter().map(|p| p.1)),
                panel.y_scale,
                panel.include_zero,
            )
        });
        let x_log = fig.x_scale == Scale::Log;
        let y_log = panel.y_scale == Scale::Log;
        let mut y = y;
        let legend = match panel.legend {
            Legend::Outside => {
                if let Some(columns) = &legends {
                    let k = fig.panels.iter().position(|p| std::ptr::eq(p, panel));
                    if let Some(area) = k.and_then(|k| columns.get(k)) {
                        draw_outside_legend(area, panel, px, ts)?;
                    }
                }
                Legend::Outside
            }
            Legend::Auto => {
                let (place, covered, height) = auto_legend(panel, fig, x, y);
                if covered > 0 && !y_log && panel.y_range.is_none() && height < 0.6 {
                    // No free corner: raise the top of the axis so the legend sits above the
                    // curves instead of over them.
                    y.1 += (y.1 - y.0) * height / (1.0 - height);
                    Legend::UpperRight
                } else {
                    place
                }
            }
            chosen => chosen,
        };
        let xr = x.0..x.1;
        let yr = y.0..y.1;
        let l = legend;
        match (x_log, y_log) {
            (false, false) => draw_panel(area, fig, panel, l, px, xr, yr),
            (false, true) => draw_panel(area, fig, panel, l, px, xr, yr.log_scale()),
            (true, false) => draw_panel(area, fig, panel, l, px, xr.log_scale(), yr),
            (true, true) => draw_panel(area, fig, panel, l, px, xr.log_scale(), yr.log_scale()),
        }?;
    }
    Ok(())
}

/// A legend beside the plot (for [`Legend::Outside`]): one entry per labelled series, its
/// sample (line, dashes or marker) and its label, from the top of the panel's plotting area.
fn draw_outside_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    panel: &Panel,
    px: Px,
    ts: f64,
) -> DrawResult {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let size = style::LEGEND_SIZE * ts;
    let font = (FAMILY, px.f(size)).into_font();
    let step = px.i(size + 9.0);
    let mut y = px.i(26.0) + step / 2;
    for (i, s) in panel.series.iter().enumerate() {
        if s.label.is_empty() {
            continue;
        }
        let color = style::color(s.color.unwrap_or(i));
        let line = ShapeStyle::from(&color).stroke_width(px.u(style::LINE_WIDTH as f64));
        let x = px.i(6.0);
        match s.kind {
            LineKind::Solid => area
                .draw(&PathElement::new(vec![(x, y), (x + px.i(26.0), y)], line))
                .map_err(err)?,
            LineKind::Dashed => {
                for (a, b) in [(0.0, 9.0), (15.0, 24.0)] {
                    area.draw(&PathElement::new(
                        vec![(x + px.i(a), y), (x + px.i(b), y)],
                        line,
                    ))
                    .map_err(err)?;
                }
            }
            LineKind::Points => area
                .draw(&Circle::new(
                    (x + px.i(13.0), y),
                    px.u(3.5),
                    ShapeStyle::from(&color).filled(),
                ))
                .map_err(err)?,
        }
        area.draw(&Text::new(
            s.label.clone(),
            (x + px.i(34.0), y - px.i(size * 0.55)),
            font.clone(),
        ))
        .map_err(err)?;
        y += step;
    }
    Ok(())
}

fn x_values(p: &Panel) -> impl Iterator<Item = f64> + '_ {
    p.series.iter().flat_map(|s| s.points.iter().map(|q| q.0))
}

/// A range covering the finite (and, on a log axis, positive) values, padded by 5 %; on a log
/// axis widened to whole decades.
fn auto_range(values: impl Iterator<Item = f64>, scale: Scale, include_zero: bool) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values {
        if v.is_finite() && (scale == Scale::Linear || v > 0.0) {
            lo = lo.min(v);
            hi = hi.max(v);
        }
    }
    match scale {
        Scale::Log => {
            if lo > hi {
                return (1e-16, 1.0);
            }
            let lo = 10f64.powf(lo.log10().floor());
            let mut hi = 10f64.powf(hi.log10().ceil());
            if hi <= lo {
                hi = lo * 10.0;
            }
            (lo, hi)
        }
        Scale::Linear => {
            if lo > hi {
                return (0.0, 1.0);
            }
            if include_zero {
                lo = lo.min(0.0);
                hi = hi.max(0.0);
            }
            let span = hi - lo;
            let scale = lo.abs().max(hi.abs());
            if include_zero && lo == 0.0 && hi == 0.0 {
                // All zero (a contact that never slid): the axis starts at zero all the same.
                return (0.0, 1.0);
            }
            if span <= 1e-9 * scale || span == 0.0 {
                // Flat: ±5 % about the value (or ±1 about zero).
                let pad = if scale > 0.0 { 0.05 * scale } else { 1.0 };
                return (lo - pad, hi + pad);
            }
            let pad = 0.05 * span;
            let lo = if include_zero && lo == 0.0 {
                0.0
            } else {
                lo - pad
            };
            let hi = if include_zero && hi == 0.0 {
                0.0
            } else {
                hi + pad
            };
            (lo, hi)
        }
    }
}

/// The legend place that covers the fewest points of the panel's curves (sampled along their
/// segments), from the axis ranges and an estimate of the legend box's size in pixels.
fn auto_legend(panel: &Panel, fig: &Figure, x: (f64, f64), y: (f64, f64)) -> (Legend, usize, f64) {
    let (x_log, y_log) = (fig.x_scale == Scale::Log, panel.y_scale == Scale::Log);
    let norm = |v: f64, (lo, hi): (f64, f64), log: bool| {
        if log {
            (v.log10() - lo.log10()) / (hi.log10() - lo.log10())
        } else {
            (v - lo) / (hi - lo)
        }
    };
    let labels: Vec<&Series> = panel
        .series
        .iter()
        .filter(|s| !s.label.is_empty())
        .collect();
    let chars = labels
        .iter()
        .map(|s| s.label.chars().count())
        .max()
        .unwrap_or(0);
    let plot_w = (fig.width as f64 - 120.0).max(100.0);
    let plot_h = (fig.panel_height as f64 - 60.0).max(60.0);
    let (bw, bh) = (
        ((chars as f64) * 7.0 + 50.0) / plot_w,
        (labels.len() as f64 * (style::LEGEND_SIZE + 4.0) + 14.0) / plot_h,
    );
    let right = (1.0 - bw, 1.0);
    let left = (0.0, bw);
    let candidates = [
        (Legend::UpperRight, right, (1.0 - bh, 1.0)),
        (Legend::UpperLeft, left, (1.0 - bh, 1.0)),
        (Legend::LowerRight, right, (0.0, bh)),
        (Legend::LowerLeft, left, (0.0, bh)),
        (Legend::MiddleRight, right, (0.5 - bh / 2.0, 0.5 + bh / 2.0)),
    ];
    let mut counts = [0usize; 5];
    for s in &panel.series {
        for seg in segments(&s.points, x_log, y_log) {
            let pts: Vec<(f64, f64)> = seg
                .iter()
                .map(|&(px, py)| (norm(px, x, x_log), norm(py, y, y_log)))
                .collect();
            for w in pts.windows(2).chain(std::iter::once(&pts[pts.len() - 1..])) {
                let (a, b) = (w[0], w[w.len() - 1]);
                for k in 0..4 {
                    let f = k as f64 / 4.0;
                    let p = (a.0 + f * (b.0 - a.0), a.1 + f * (b.1 - a.1));
                    for (c, (_, xs, ys)) in counts.iter_mut().zip(&candidates) {
                        if (xs.0..=xs.1).contains(&p.0) && (ys.0..=ys.1).contains(&p.1) {
                            *c += 1;
                        }
                    }
                }
            }
        }
    }
    // The first of the least covered, in the order above.
    let best = (0..candidates.len())
        .min_by_key(|&i| (counts[i], i))
        .unwrap_or(0);
    (candidates[best].0, counts[best], bh)
}

/// Splits a series into runs of drawable points (finite; positive on log axes).
fn segments(points: &[(f64, f64)], x_log: bool, y_log: bool) -> Vec<Vec<(f64, f64)>> {
    let ok = |(x, y): (f64, f64)| {
        x.is_finite() && y.is_finite() && (!x_log || x > 0.0) && (!y_log || y > 0.0)
    };
    let mut out: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut current = Vec::new();
    for &p in points {
        if ok(p) {
            current.push(p);
        } else if !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

fn draw_panel<'a, DB, X, Y>(
    area: &'a DrawingArea<DB, Shift>,
    fig: &Figure,
    panel: &Panel,
    legend: Legend,
    px: Px,
    x: X,
    y: Y,
) -> DrawResult
where
    DB: DrawingBackend + 'a,
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let ts = fig.text_scale;
    let mut builder = ChartBuilder::on(area);
    builder
        .margin_left(px.i(12.0))
        .margin_right(px.i(24.0))
        .margin_top(px.i(8.0))
        .margin_bottom(px.i(6.0))
        .x_label_area_size(px.i(46.0 * ts))
        .y_label_area_size(px.i(84.0 * ts));
    if let Some(sub) = &panel.subtitle {
        builder.caption(sub, (FAMILY, px.f(style::SUBTITLE_SIZE * ts)).into_font());
    }
    let mut chart = builder.build_cartesian_2d(x, y).map_err(err)?;
    let x_log = fig.x_scale == Scale::Log;
    let y_log = panel.y_scale == Scale::Log;
    let x_fmt = move |v: &f64| {
        if x_log {
            style::log_tick_label(*v)
        } else {
            style::tick_label(*v)
        }
    };
    let y_fmt = move |v: &f64| {
        if y_log {
            style::log_tick_label(*v)
        } else {
            style::tick_label(*v)
        }
    };
    chart
        .configure_mesh()
        .x_desc(fig.x_label.as_str())
        .y_desc(panel.y_label.as_str())
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .x_labels(10)
        .y_labels(8)
        .label_style((FAMILY, px.f(style::TICK_SIZE * ts)).into_font())
        .axis_desc_style((FAMILY, px.f(style::AXIS_DESC_SIZE * ts)).into_font())
        .light_line_style(RGBColor(246, 246, 246))
        .bold_line_style(RGBColor(210, 210, 210))
        .draw()
        .map_err(err)?;

    // Solid curves first, dashed and markers over them (μ·p_n over the friction magnitude).
    let order = |k: LineKind| match k {
        LineKind::Solid => 0,
        LineKind::Dashed => 1,
        LineKind::Points => 2,
    };
    let mut indexed: Vec<(usize, &Series)> = panel.series.iter().enumerate().collect();
    indexed.sort_by_key(|(i, s)| (order(s.kind), *i));
    let mut labelled = false;
    for (i, s) in indexed {
        let color = style::color(s.color.unwrap_or(i));
        let line = ShapeStyle::from(&color).stroke_width(px.u(style::LINE_WIDTH as f64));
        let mut legend_pending = !s.label.is_empty() && legend != Legend::Outside;
        let parts = segments(&s.points, x_log, y_log);
        // A series with nothing drawable still gets its legend entry, so it is not silently
        // missing (e.g. slip speed of a contact that never touched).
        let parts = if parts.is_empty() {
            vec![Vec::new()]
        } else {
            parts
        };
        for part in parts {
            let anno = match s.kind {
                LineKind::Solid => chart.draw_series(LineSeries::new(part, line)),
                LineKind::Dashed => chart.draw_series(DashedLineSeries::new(
                    part,
                    px.u(9.0),
                    px.u(6.0),
                    line.stroke_width(px.u(2.0)),
                )),
                LineKind::Points => chart.draw_series(
                    part.into_iter()
                        .map(|p| Circle::new(p, px.u(2.0), ShapeStyle::from(&color).filled())),
                ),
            }
            .map_err(err)?;
            if legend_pending {
                legend_pending = false;
                labelled = true;
                anno.label(s.label.clone());
                let line = ShapeStyle::from(&color).stroke_width(px.u(style::LINE_WIDTH as f64));
                let (d8, d14, d22, d11) = (px.i(8.0), px.i(14.0), px.i(22.0), px.i(11.0));
                let r = px.u(3.0);
                match s.kind {
                    LineKind::Solid => anno
                        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + d22, y)], line)),
                    LineKind::Dashed => anno.legend(move |(x, y)| {
                        EmptyElement::at((x, y))
                            + PathElement::new(vec![(0, 0), (d8, 0)], line)
                            + PathElement::new(vec![(d14, 0), (d22, 0)], line)
                    }),
                    LineKind::Points => anno.legend(move |(x, y)| {
                        Circle::new((x + d11, y), r, ShapeStyle::from(&color).filled())
                    }),
                };
            }
        }
    }
    if labelled {
        chart
            .configure_series_labels()
            .position(legend.position())
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(180, 180, 180))
            .label_font((FAMILY, px.f(style::LEGEND_SIZE * ts)).into_font())
            .draw()
            .map_err(err)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_break_at_gaps_and_non_positive_log_values() {
        let pts = [
            (0.0, 1.0),
            (1.0, f64::NAN),
            (2.0, 2.0),
            (3.0, 3.0),
            (4.0, 0.0),
        ];
        assert_eq!(segments(&pts, false, false).len(), 2);
        let log = segments(&pts, false, true);
        assert_eq!(log, vec![vec![(0.0, 1.0)], vec![(2.0, 2.0), (3.0, 3.0)]]);
    }

    #[test]
    fn automatic_ranges() {
        // A flat curve reads as flat: ±5 %, not a magnified rounding error.
        let (lo, hi) = auto_range([6.75, 6.75 + 1e-15].into_iter(), Scale::Linear, false);
        assert!((lo - 6.4125).abs() < 1e-12 && (hi - 7.0875).abs() < 1e-12);
        // Log axes: whole decades over the positive values.
        let (lo, hi) = auto_range([0.0, 3e-12, 2e-3].into_iter(), Scale::Log, false);
        assert_eq!((lo, hi), (1e-12, 1e-2));
        let (lo, hi) = auto_range([0.5, 2.0].into_iter(), Scale::Linear, true);
        assert_eq!(lo, 0.0);
        assert!((hi - 2.1).abs() < 1e-12);
        assert_eq!(
            auto_range(std::iter::empty(), Scale::Linear, false),
            (0.0, 1.0)
        );
    }
}
