//! Figures on plotters: time series (several curves, legends, axis labels with units, titles,
//! log axes, one shared style) as SVG and PNG, the standard figures of a run, the paper's
//! figures, and animations.
//!
//! * [`figure`]: the builder — a [`Figure`] is a title, a shared x axis and one or more stacked
//!   [`Panel`]s, each holding named [`Series`]; [`save`] writes `<stem>.svg` and `<stem>.png`,
//!   [`render`] one file chosen by its extension. Other modules (parameter studies, the
//!   quasi-rigid cases) build their figures with it.
//! * [`run_data`]: a run directory's files read back by column name ([`RunData`]).
//! * [`standard`]: `implicit-contact plot RUN_DIR`, the standard figures of any run
//!   ([`plot_run`]).
//! * [`paper_figures`]: the paper's figures from the runs of its examples.
//! * [`animate`]: `run --animate`, a GIF of the bodies' outlines with contact points and normals.
//!
//! # Fonts
//!
//! Text is laid out and rasterised with the DejaVu Sans font embedded in the binary
//! (`assets/fonts/`, Bitstream Vera licence), registered with plotters' `ab_glyph` backend as
//! `sans-serif`: no system font, fontconfig or freetype is needed. SVG files name the family
//! `sans-serif`, so viewers draw them with their own sans-serif font.
//!
//! # Determinism
//!
//! The same data gives byte-identical SVG, PNG and GIF files: nothing depends on the clock or on
//! the machine's fonts.

pub mod animate;
pub mod figure;
pub mod grasp_map;
pub mod paper_figures;
pub mod run_data;
pub mod standard;
mod style;

pub use animate::{AnimationRecorder, MAX_FRAMES};
pub use figure::{Figure, Legend, LineKind, Panel, Scale, Series, render, save};
pub use run_data::{RunData, Table};
pub use standard::{PlotReport, plot_run};

use std::path::{Path, PathBuf};

/// Why a figure could not be made. Every variant names the file at fault.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// An I/O operation failed.
    #[error("{}: cannot {action}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What was being done, e.g. `read the file`.
        action: &'static str,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A run's input file is malformed (bad CSV, missing column, unparsable number, bad JSON).
    #[error("{}{}: {reason}", path.display(), line.map_or(String::new(), |l| format!(":{l}")))]
    Malformed {
        /// The file.
        path: PathBuf,
        /// The 1-based line, when known.
        line: Option<u64>,
        /// What is wrong.
        reason: String,
    },
    /// plotters failed to draw or encode a figure.
    #[error("{}: cannot draw: {reason}", path.display())]
    Draw {
        /// The figure's file.
        path: PathBuf,
        /// plotters' message.
        reason: String,
    },
    /// The output file's extension is not `svg`, `png` or `gif`.
    #[error("{}: unknown figure format (use .svg or .png)", path.display())]
    Format {
        /// The file asked for.
        path: PathBuf,
    },
}

impl PlotError {
    pub(crate) fn io(path: &Path, action: &'static str, source: std::io::Error) -> Self {
        Self::Io {
            path: path.to_path_buf(),
            action,
            source,
        }
    }

    pub(crate) fn malformed(path: &Path, line: Option<u64>, reason: impl Into<String>) -> Self {
        Self::Malformed {
            path: path.to_path_buf(),
            line,
            reason: reason.into(),
        }
    }

    pub(crate) fn draw(path: &Path, reason: impl ToString) -> Self {
        Self::Draw {
            path: path.to_path_buf(),
            reason: reason.to_string(),
        }
    }
}

/// Turns a name (a body, a contact) into a file-name component: letters, digits, `-` and `_`
/// kept, anything else `_`.
pub fn file_stem(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() { "_".into() } else { s }
}
