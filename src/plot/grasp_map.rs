//! The grasp study's success map (the paper's Example 4, written as `fig10b_grasp_success`): a
//! heat map of the success rate over the fingertips' start `(x, y)` in millimetres, one square
//! per grid cell coloured by `P = successes / (trials − solver failures)` on the viridis scale
//! (a colour bar beside it), the experiment's sweet spot marked and the square around it
//! outlined. Cells without a valid trial (all solver failures) are grey.
//!
//! The figure knows nothing of the study: [`SuccessMap`] is plain data
//! ([`crate::study::grasp_study`] builds it). Laid out for one printed column as the other
//! paper figures: 700 SVG units wide, text 1.25 times the screen style, the PNG drawn 1.5 times
//! larger and marked 300 dpi. The same map gives byte-identical files.

use super::PlotError;
use super::figure::Px;
use super::style::{self, FAMILY};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::{Path, PathBuf};

/// One cell of the map: its centre (mm) and its counts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MapCell {
    /// The cell's centre, `x` (mm).
    pub x_mm: f64,
    /// The cell's centre, `y` (mm).
    pub y_mm: f64,
    /// Trials run, solver failures included.
    pub trials: u64,
    /// Successful grasps.
    pub successes: u64,
    /// Trials the solver could not simulate.
    pub solver_failures: u64,
}

impl MapCell {
    /// `successes / (trials − solver_failures)`; `None` without a valid trial.
    pub fn success_rate(&self) -> Option<f64> {
        let valid = self.trials.saturating_sub(self.solver_failures);
        (valid > 0).then(|| self.successes as f64 / valid as f64)
    }
}

/// What the figure shows.
#[derive(Debug, Clone, PartialEq)]
pub struct SuccessMap {
    /// The title.
    pub title: String,
    /// A line under the title (trials, seed, how `P` is counted); may be empty.
    pub subtitle: String,
    /// The grid's spacing (mm): each cell is a square this wide.
    pub step_mm: f64,
    /// The axes' extent, from the first to the last grid point (mm); the squares reach half a
    /// step beyond.
    pub x_range_mm: [f64; 2],
    /// The `y` extent (mm).
    pub y_range_mm: [f64; 2],
    /// The cells run (a partial grid leaves the others white).
    pub cells: Vec<MapCell>,
    /// The point marked (mm); `None`: no marker.
    pub sweet_spot_mm: Option<[f64; 2]>,
    /// Half the side of the square outlined around the marked point (mm); 0: none.
    pub box_half_mm: f64,
}

/// Figure width (SVG units) and the right-hand column holding the colour bar and the legend.
const WIDTH: f64 = 700.0;
const COLUMN: f64 = 180.0;
/// Text scale and PNG scale and resolution, as the other paper figures.
const TEXT: f64 = 1.25;
const PNG_SCALE: f64 = 1.5;
const PNG_DPI: u32 = 300;
/// The chart's margins and label areas (SVG units, before the text scale for the label areas).
const MARGIN: (f64, f64, f64, f64) = (12.0, 16.0, 10.0, 6.0); // left, right, top, bottom
const Y_LABEL_AREA: f64 = 64.0;
const X_LABEL_AREA: f64 = 46.0;
/// Grey for cells without a valid trial.
const NO_DATA: RGBColor = RGBColor(170, 170, 170);

/// Viridis (van der Walt & Smith), the colour of `t` in `[0, 1]` (clamped): perceptually
/// uniform, readable in grey and by colour-blind readers. Nine stops, linear between them.
pub fn viridis(t: f64) -> RGBColor {
    const STOPS: [(u8, u8, u8); 9] = [
        (68, 1, 84),
        (71, 44, 122),
        (59, 81, 139),
        (44, 113, 142),
        (33, 144, 141),
        (39, 173, 129),
        (92, 200, 99),
        (170, 220, 50),
        (253, 231, 37),
    ];
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let f = t * (STOPS.len() - 1) as f64;
    let k = (f.floor() as usize).min(STOPS.len() - 2);
    let u = f - k as f64;
    let mix = |a: u8, b: u8| (a as f64 + u * (b as f64 - a as f64)).round() as u8;
    let (a, b) = (STOPS[k], STOPS[k + 1]);
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// Black or white, whichever reads on `c`.
fn text_color(c: RGBColor) -> RGBColor {
    let luminance = 0.2126 * c.0 as f64 + 0.7152 * c.1 as f64 + 0.0722 * c.2 as f64;
    if luminance > 128.0 { BLACK } else { WHITE }
}

/// Half a cell's side (mm).
fn half_step(map: &SuccessMap) -> f64 {
    if map.step_mm.is_finite() && map.step_mm > 0.0 {
        0.5 * map.step_mm
    } else {
        0.5
    }
}

/// The padded data ranges of the axes: the grid's extent plus half a step on each side.
fn ranges(map: &SuccessMap) -> ((f64, f64), (f64, f64)) {
    let half = half_step(map);
    let span = |[lo, hi]: [f64; 2]| {
        if lo.is_finite() && hi.is_finite() && lo <= hi {
            (lo - half, hi + half)
        } else {
            (-1.0, 1.0)
        }
    };
    (span(map.x_range_mm), span(map.y_range_mm))
}

fn title_height(map: &SuccessMap) -> f64 {
    let title = style::TITLE_SIZE * TEXT + 14.0;
    if map.subtitle.is_empty() {
        title
    } else {
        title + style::LEGEND_SIZE * TEXT + 8.0
    }
}

/// The image size in SVG units: the plot's squares are square.
pub fn size(map: &SuccessMap) -> (u32, u32) {
    let ((x0, x1), (y0, y1)) = ranges(map);
    let plot_w = WIDTH - COLUMN - MARGIN.0 - MARGIN.1 - Y_LABEL_AREA * TEXT;
    let plot_h = (plot_w * (y1 - y0) / (x1 - x0)).clamp(240.0, 900.0);
    let h = title_height(map) + MARGIN.2 + MARGIN.3 + X_LABEL_AREA * TEXT + plot_h;
    (WIDTH as u32, h.round() as u32)
}

/// Writes the map to `path`, SVG or PNG by its extension.
pub fn render(map: &SuccessMap, path: &Path) -> Result<(), PlotError> {
    style::ensure_font();
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let (w, h) = size(map);
    match ext.as_deref() {
        Some("svg") => {
            let mut text = String::new();
            {
                let root = SVGBackend::with_string(&mut text, (w, h)).into_drawing_area();
                draw(&root, map, Px(1.0)).map_err(|e| PlotError::draw(path, e))?;
                root.present().map_err(|e| PlotError::draw(path, e))?;
            }
            std::fs::write(path, text).map_err(|e| PlotError::io(path, "write the figure", e))
        }
        Some("png") => {
            let size = (
                (w as f64 * PNG_SCALE).round() as u32,
                (h as f64 * PNG_SCALE).round() as u32,
            );
            let mut buffer = vec![0u8; size.0 as usize * size.1 as usize * 3];
            {
                let root = BitMapBackend::with_buffer(&mut buffer, size).into_drawing_area();
                draw(&root, map, Px(PNG_SCALE)).map_err(|e| PlotError::draw(path, e))?;
                root.present().map_err(|e| PlotError::draw(path, e))?;
            }
            super::figure::write_png(path, size, &buffer, Some(PNG_DPI))
        }
        _ => Err(PlotError::Format {
            path: path.to_path_buf(),
        }),
    }
}

/// Writes `dir/<stem>.svg` and `dir/<stem>.png` (creating `dir`); returns both paths.
pub fn save(map: &SuccessMap, dir: &Path, stem: &str) -> Result<Vec<PathBuf>, PlotError> {
    std::fs::create_dir_all(dir).map_err(|e| PlotError::io(dir, "create the directory", e))?;
    let mut written = Vec::with_capacity(2);
    for ext in ["svg", "png"] {
        let path = dir.join(format!("{stem}.{ext}"));
        render(map, &path)?;
        written.push(path);
    }
    Ok(written)
}

type DrawResult = Result<(), String>;

fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, map: &SuccessMap, px: Px) -> DrawResult {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(err)?;
    let (w, h) = root.dim_in_pixel();
    let (head, body) = root.split_vertically(px.u(title_height(map)).min(h));
    head.draw(&Text::new(
        map.title.clone(),
        (px.i(WIDTH / 2.0), px.i(8.0)),
        TextStyle::from((FAMILY, px.f(style::TITLE_SIZE * TEXT)).into_font())
            .pos(Pos::new(HPos::Center, VPos::Top)),
    ))
    .map_err(err)?;
    if !map.subtitle.is_empty() {
        head.draw(&Text::new(
            map.subtitle.clone(),
            (px.i(WIDTH / 2.0), px.i(style::TITLE_SIZE * TEXT + 14.0)),
            TextStyle::from((FAMILY, px.f(style::LEGEND_SIZE * TEXT)).into_font())
                .pos(Pos::new(HPos::Center, VPos::Top)),
        ))
        .map_err(err)?;
    }
    let (plot, column) = body.split_horizontally(w.saturating_sub(px.u(COLUMN)));
    draw_map(&plot, map, px)?;
    draw_column(&column, map, px)
}

/// The heat map, the marker and the square.
fn draw_map<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    map: &SuccessMap,
    px: Px,
) -> DrawResult {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let ((x0, x1), (y0, y1)) = ranges(map);
    let mut chart = ChartBuilder::on(area)
        .margin_left(px.i(MARGIN.0))
        .margin_right(px.i(MARGIN.1))
        .margin_top(px.i(MARGIN.2))
        .margin_bottom(px.i(MARGIN.3))
        .x_label_area_size(px.i(X_LABEL_AREA * TEXT))
        .y_label_area_size(px.i(Y_LABEL_AREA * TEXT))
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(err)?;
    let fmt = |v: &f64| style::tick_label(*v);
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("x (mm), fingertips' centre from the gear's centre")
        .y_desc("y (mm)")
        .x_label_formatter(&fmt)
        .y_label_formatter(&fmt)
        .x_labels(11)
        .y_labels(11)
        .label_style((FAMILY, px.f(style::TICK_SIZE * TEXT)).into_font())
        .axis_desc_style((FAMILY, px.f(style::AXIS_DESC_SIZE * TEXT)).into_font())
        .draw()
        .map_err(err)?;
    let half = half_step(map);
    chart
        .draw_series(map.cells.iter().map(|c| {
            let color = c.success_rate().map_or(NO_DATA, viridis);
            Rectangle::new(
                [
                    (c.x_mm - half, c.y_mm - half),
                    (c.x_mm + half, c.y_mm + half),
                ],
                color.filled(),
            )
        }))
        .map_err(err)?;
    // The rates written in the cells when they are large enough to hold them.
    let cell_px = {
        let a = chart.backend_coord(&(x0, y0));
        let b = chart.backend_coord(&(x0 + 2.0 * half, y0));
        (b.0 - a.0).abs() as f64
    };
    if cell_px >= px.f(34.0) {
        let size = px.f(style::TICK_SIZE * 0.9 * TEXT).min(cell_px * 0.4);
        let texts: Vec<_> = map
            .cells
            .iter()
            .filter_map(|c| {
                let p = c.success_rate()?;
                let at = rate_position(map, c, size, px, |v| chart.backend_coord(&v))?;
                let style = (FAMILY, size)
                    .into_font()
                    .color(&text_color(viridis(p)))
                    .pos(Pos::new(HPos::Center, VPos::Center));
                Some(Text::new(format!("{p:.2}"), at, style))
            })
            .collect();
        chart.draw_series(texts).map_err(err)?;
    }
    let inside = |x: f64, y: f64| (x0..=x1).contains(&x) && (y0..=y1).contains(&y);
    if let Some([sx, sy]) = map.sweet_spot_mm {
        let b = map.box_half_mm;
        if b > 0.0 {
            // Clipped to the plot, drawn with a white halo under black so that it reads on
            // every colour of the scale.
            let (bx0, bx1) = ((sx - b).max(x0), (sx + b).min(x1));
            let (by0, by1) = ((sy - b).max(y0), (sy + b).min(y1));
            if bx0 < bx1 && by0 < by1 {
                for (color, width) in HALO {
                    chart
                        .plotting_area()
                        .draw(&Rectangle::new(
                            [(bx0, by0), (bx1, by1)],
                            ShapeStyle::from(&color).stroke_width(px.u(width)),
                        ))
                        .map_err(err)?;
                }
            }
        }
        if inside(sx, sy) {
            for (color, width) in HALO {
                let (ring, across, down) = marker_parts(color, width, px);
                chart
                    .plotting_area()
                    .draw(&(EmptyElement::at((sx, sy)) + ring + across + down))
                    .map_err(err)?;
            }
        }
    }
    Ok(())
}

/// Where a cell's rate is written (mm): its centre, moved a quarter step away from an edge of
/// the square that crosses it there; `None` where the sweet spot's marker would cover it.
fn rate_position(
    map: &SuccessMap,
    c: &MapCell,
    size: f64,
    px: Px,
    to_pixels: impl Fn((f64, f64)) -> (i32, i32),
) -> Option<(f64, f64)> {
    let half = half_step(map);
    let mut y = c.y_mm;
    let Some([sx, sy]) = map.sweet_spot_mm else {
        return Some((c.x_mm, y));
    };
    let b = map.box_half_mm;
    if b > 0.0 && c.x_mm + half > sx - b && c.x_mm - half < sx + b {
        for edge in [sy - b, sy + b] {
            if (edge - c.y_mm).abs() < 0.3 * half * 2.0 {
                y = c.y_mm
                    + if edge <= c.y_mm {
                        0.5 * half
                    } else {
                        -0.5 * half
                    };
            }
        }
    }
    let (p, m) = (to_pixels((c.x_mm, y)), to_pixels((sx, sy)));
    let reach = px.f(16.0);
    let covered = ((p.0 - m.0).abs() as f64) < 1.2 * size + reach
        && ((p.1 - m.1).abs() as f64) < 0.5 * size + reach;
    (!covered).then_some((c.x_mm, y))
}

/// The outlines' strokes: a wide white one under a black one.
const HALO: [(RGBColor, f64); 2] = [(WHITE, 5.0), (BLACK, 2.0)];

/// The marker's strokes: a ring and two arms.
type Marker = (
    Circle<(i32, i32), u32>,
    PathElement<(i32, i32)>,
    PathElement<(i32, i32)>,
);

/// The sweet spot's marker about the origin (pixels): a ring and a cross through it.
fn marker_parts(color: RGBColor, width: f64, px: Px) -> Marker {
    let s = ShapeStyle::from(&color).stroke_width(px.u(width));
    let arm = px.i(13.0);
    (
        Circle::new((0, 0), px.u(8.0), s),
        PathElement::new(vec![(-arm, 0), (arm, 0)], s),
        PathElement::new(vec![(0, -arm), (0, arm)], s),
    )
}

/// A coordinate in millimetres as printed: short, with a typographic minus.
fn mm(v: f64) -> String {
    style::tick_label(v).replace('-', "\u{2212}")
}

/// The colour bar (0 at the bottom, 1 at the top) and the legend below it.
fn draw_column<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    map: &SuccessMap,
    px: Px,
) -> DrawResult {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let (_, h) = area.dim_in_pixel();
    let font = |size: f64| TextStyle::from((FAMILY, px.f(size * TEXT)).into_font());
    let left = px.i(16.0);
    let bar_w = px.i(20.0);
    let top = px.i(MARGIN.2 + 4.0);
    area.draw(&Text::new(
        "P(success)",
        (left, top),
        font(style::LEGEND_SIZE).pos(Pos::new(HPos::Left, VPos::Top)),
    ))
    .map_err(err)?;
    let plot_h = h as f64 - px.f(MARGIN.2 + MARGIN.3 + X_LABEL_AREA * TEXT);
    let bar_top = top + px.i(30.0);
    let bar_h = (0.5 * plot_h).min(px.f(280.0)).max(px.f(60.0)).round() as i32;
    let bar_bottom = bar_top + bar_h;
    const SLICES: i32 = 64;
    for k in 0..SLICES {
        let (a, b) = (
            bar_bottom - bar_h * k / SLICES,
            bar_bottom - bar_h * (k + 1) / SLICES,
        );
        let t = (k as f64 + 0.5) / SLICES as f64;
        area.draw(&Rectangle::new(
            [(left, b), (left + bar_w, a)],
            viridis(t).filled(),
        ))
        .map_err(err)?;
    }
    area.draw(&Rectangle::new(
        [(left, bar_top), (left + bar_w, bar_bottom)],
        ShapeStyle::from(&RGBColor(120, 120, 120)).stroke_width(1),
    ))
    .map_err(err)?;
    for k in 0..=4 {
        let v = k as f64 / 4.0;
        let y = bar_bottom - (bar_h as f64 * v).round() as i32;
        area.draw(&PathElement::new(
            vec![(left + bar_w, y), (left + bar_w + px.i(5.0), y)],
            ShapeStyle::from(&BLACK).stroke_width(1),
        ))
        .map_err(err)?;
        area.draw(&Text::new(
            style::tick_label(v),
            (left + bar_w + px.i(9.0), y),
            font(style::TICK_SIZE).pos(Pos::new(HPos::Left, VPos::Center)),
        ))
        .map_err(err)?;
    }
    // The legend: sample, then one or two lines of text.
    let line = px.i(style::LEGEND_SIZE * TEXT + 5.0);
    let text_x = left + bar_w + px.i(12.0);
    let mut y = bar_bottom + px.i(40.0);
    let label = |y: i32, lines: &[String]| -> DrawResult {
        for (k, l) in lines.iter().enumerate() {
            area.draw(&Text::new(
                l.clone(),
                (text_x, y + line * k as i32),
                font(style::LEGEND_SIZE).pos(Pos::new(HPos::Left, VPos::Center)),
            ))
            .map_err(err)?;
        }
        Ok(())
    };
    let centre = (left + bar_w / 2, 0);
    if let Some([sx, sy]) = map.sweet_spot_mm {
        for (color, width) in HALO {
            let (ring, across, down) = marker_parts(color, width, px);
            area.draw(&(EmptyElement::at((centre.0, y)) + ring + across + down))
                .map_err(err)?;
        }
        label(
            y,
            &["sweet spot".into(), format!("({}, {}) mm", mm(sx), mm(sy))],
        )?;
        y += 2 * line + px.i(16.0);
        if map.box_half_mm > 0.0 {
            let r = px.i(10.0);
            for (color, width) in HALO {
                area.draw(&Rectangle::new(
                    [(centre.0 - r, y - r), (centre.0 + r, y + r)],
                    ShapeStyle::from(&color).stroke_width(px.u(width)),
                ))
                .map_err(err)?;
            }
            label(
                y,
                &[
                    format!("\u{b1}{} mm", mm(map.box_half_mm)),
                    "around it".into(),
                ],
            )?;
            y += 2 * line + px.i(16.0);
        }
    }
    if map.cells.iter().any(|c| c.success_rate().is_none()) {
        let r = px.i(10.0);
        area.draw(&Rectangle::new(
            [(centre.0 - r, y - r), (centre.0 + r, y + r)],
            NO_DATA.filled(),
        ))
        .map_err(err)?;
        label(y, &["no valid trial".into(), "(solver failures)".into()])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map() -> SuccessMap {
        let mut cells = Vec::new();
        for iy in 0..3 {
            for ix in 0..3 {
                cells.push(MapCell {
                    x_mm: -10.0 + 10.0 * ix as f64,
                    y_mm: -20.0 + 10.0 * iy as f64,
                    trials: 4,
                    successes: (ix + iy) as u64 % 5,
                    solver_failures: if ix == 2 && iy == 2 { 4 } else { 0 },
                });
            }
        }
        SuccessMap {
            title: "Grasp success".into(),
            subtitle: "4 trials per cell".into(),
            step_mm: 10.0,
            x_range_mm: [-10.0, 10.0],
            y_range_mm: [-20.0, 0.0],
            cells,
            sweet_spot_mm: Some([0.0, -11.0]),
            box_half_mm: 3.0,
        }
    }

    #[test]
    fn viridis_ends_and_clamps() {
        assert_eq!(viridis(0.0), RGBColor(68, 1, 84));
        assert_eq!(viridis(1.0), RGBColor(253, 231, 37));
        assert_eq!(viridis(2.0), viridis(1.0));
        assert_eq!(viridis(f64::NAN), viridis(0.0));
    }

    #[test]
    fn the_figure_is_well_formed_and_deterministic() {
        let dir = std::env::temp_dir().join(format!("grasp-map-{}", std::process::id()));
        let first = save(&map(), &dir, "a").unwrap();
        let second = save(&map(), &dir, "b").unwrap();
        for (a, b) in first.iter().zip(&second) {
            assert_eq!(std::fs::read(a).unwrap(), std::fs::read(b).unwrap());
        }
        let svg = std::fs::read_to_string(&first[0]).unwrap();
        roxmltree::Document::parse(&svg).unwrap();
        assert!(svg.contains("P(success)") && svg.contains("sweet spot"));
        let (w, h) = size(&map());
        assert_eq!(w, 700);
        assert!(h > 300 && h < 1200, "{h}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
