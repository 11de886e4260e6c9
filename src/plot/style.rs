//! The shared style: the embedded font, the colours, the sizes.

use plotters::style::{FontStyle, RGBColor};
use std::sync::Once;

/// The family every text element asks for; [`ensure_font`] registers the embedded font under it.
pub(crate) const FAMILY: &str = "sans-serif";

static FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// Registers the embedded DejaVu Sans with plotters (once per process). Every drawing function
/// calls it first: without it plotters' `ab_glyph` backend has no font and text fails to draw.
pub(crate) fn ensure_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The bytes are a valid TrueType file compiled into the binary; a failure here is a
        // broken build, caught by every test that draws.
        if plotters::style::register_font(FAMILY, FontStyle::Normal, FONT).is_err() {
            panic!("the embedded font assets/fonts/DejaVuSans.ttf does not parse");
        }
    });
}

/// A colour-blind-safe palette (Okabe & Ito), black last; series take colours in this order.
pub(crate) const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),   // blue
    RGBColor(213, 94, 0),    // vermillion
    RGBColor(0, 158, 115),   // bluish green
    RGBColor(204, 121, 167), // reddish purple
    RGBColor(230, 159, 0),   // orange
    RGBColor(86, 180, 233),  // sky blue
    RGBColor(0, 0, 0),       // black
    RGBColor(153, 153, 153), // grey
];

/// The palette colour for index `i` (wrapping).
pub(crate) fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// Figure width in pixels (SVG user units and PNG pixels alike).
pub(crate) const WIDTH: u32 = 900;
/// Height of one panel.
pub(crate) const PANEL_HEIGHT: u32 = 300;
/// Height of the title band above the panels.
pub(crate) const TITLE_HEIGHT: u32 = 44;
/// Font sizes.
pub(crate) const TITLE_SIZE: f64 = 22.0;
pub(crate) const SUBTITLE_SIZE: f64 = 17.0;
pub(crate) const AXIS_DESC_SIZE: f64 = 16.0;
pub(crate) const TICK_SIZE: f64 = 13.0;
pub(crate) const LEGEND_SIZE: f64 = 14.0;
/// Stroke width of curves.
pub(crate) const LINE_WIDTH: u32 = 2;

/// A tick label: short, never with float noise (`0.30000000000000004`), scientific for very
/// large or small magnitudes.
pub(crate) fn tick_label(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        return "0".into();
    }
    if !(1e-3..1e5).contains(&a) {
        let s = format!("{v:.1e}");
        // 1.0e-10 → 1e-10
        return s.replace(".0e", "e");
    }
    let s = format!("{v:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.into() }
}

/// A log-axis tick label: powers of ten as `1e-10`, others in [`tick_label`] form.
pub(crate) fn log_tick_label(v: f64) -> String {
    let e = v.log10();
    if (e - e.round()).abs() < 1e-9 {
        let e = e.round() as i32;
        match e {
            0 => "1".into(),
            1 => "10".into(),
            -1 => "0.1".into(),
            _ => format!("1e{e}"),
        }
    } else {
        tick_label(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_labels_are_short() {
        assert_eq!(tick_label(0.1 + 0.2), "0.3");
        assert_eq!(tick_label(6.75), "6.75");
        assert_eq!(tick_label(-0.0), "0");
        assert_eq!(tick_label(1e-10), "1e-10");
        assert_eq!(tick_label(2.5e6), "2.5e6");
        assert_eq!(log_tick_label(1e-12), "1e-12");
        assert_eq!(log_tick_label(10.0), "10");
    }
}
