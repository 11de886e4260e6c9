//! CSV field formatting shared by the writers: numbers that round-trip bit for bit, text fields
//! quoted only when they must be (RFC 4180).

use super::OutputError;
use std::fmt::Write as _;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A CSV file being streamed: whole rows are held in memory and handed to the operating system
/// only by [`CsvFile::flush`] (one `write` of all the rows held), never by a buffer that fills
/// up on its own, so that the run loop decides at which step every file ends (see
/// [`crate::run`], "Flushing"). A writer dropped without [`CsvFile::finish`] still writes the
/// rows it holds (best effort).
#[derive(Debug)]
pub(crate) struct CsvFile {
    path: PathBuf,
    /// `None` only after `finish` (so that `Drop` has nothing left to do).
    file: Option<File>,
    /// Whole rows not yet written.
    pending: Vec<u8>,
    /// The line being built; cleared after each row so rows allocate nothing.
    pub(crate) line: String,
}

impl CsvFile {
    /// Creates (or truncates) `path` and writes `header` as its first line (at once: a file
    /// that exists has its header).
    pub(crate) fn create(path: PathBuf, header: &[String]) -> Result<Self, OutputError> {
        let file = File::create(&path).map_err(|e| OutputError::io(&path, "create the file", e))?;
        let mut csv = Self {
            path,
            file: Some(file),
            pending: Vec::with_capacity(64 * 1024),
            line: String::with_capacity(256),
        };
        push_header(&mut csv.line, header);
        csv.write_line()?;
        csv.flush()?;
        Ok(csv)
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The error for a row of step `step` that does not fit this file's columns.
    pub(crate) fn shape_error(&self, step: usize, reason: String) -> OutputError {
        OutputError::RowShape {
            path: self.path.clone(),
            step,
            reason,
        }
    }

    /// Adds the line buffer (which must end in a newline) to the rows held, and clears it.
    pub(crate) fn write_line(&mut self) -> Result<(), OutputError> {
        self.pending.extend_from_slice(self.line.as_bytes());
        self.line.clear();
        Ok(())
    }

    /// Bytes of rows held, not yet written.
    pub(crate) fn buffered(&self) -> usize {
        self.pending.len()
    }

    /// Hands the rows held to the operating system in one write (no `fsync`: what the
    /// operating system holds survives the end of the process, `kill -9` included).
    pub(crate) fn flush(&mut self) -> Result<(), OutputError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let Some(file) = self.file.as_mut() else {
            return Ok(());
        };
        let result = file.write_all(&self.pending);
        self.pending.clear();
        result.map_err(|e| OutputError::io(&self.path, "write rows", e))
    }

    /// Flushes and syncs the file to disk.
    pub(crate) fn finish(mut self) -> Result<(), OutputError> {
        self.flush()?;
        let file = self.file.take().expect("finish is called once");
        file.sync_all()
            .map_err(|e| OutputError::io(&self.path, "sync to disk", e))
    }
}

impl Drop for CsvFile {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

/// Appends `x` to `out` in the shortest form that parses back (`str::parse::<f64>`, Python's
/// `float`) to the same bits: positional notation (Rust's `{}`) for zero and magnitudes in
/// `[1e-5, 1e16)`, scientific notation (`{:e}`) otherwise. `-0.0` keeps its sign; `NaN`, `inf`
/// and `-inf` print as such.
pub(crate) fn push_f64(out: &mut String, x: f64) {
    let a = x.abs();
    // Writing to a String cannot fail.
    let _ = if a == 0.0 || !a.is_finite() || (1e-5..1e16).contains(&a) {
        write!(out, "{x}")
    } else {
        write!(out, "{x:e}")
    };
}

/// Formats `x` as written in the CSV files (see [`crate::output`], "Number format").
pub fn format_f64(x: f64) -> String {
    let mut s = String::new();
    push_f64(&mut s, x);
    s
}

/// Appends `x`, or nothing (an empty field) when `x` is NaN.
pub(crate) fn push_f64_or_empty(out: &mut String, x: f64) {
    if !x.is_nan() {
        push_f64(out, x);
    }
}

/// Appends a text field, quoted (with inner quotes doubled) only if it contains a comma, a
/// quote, a line break or leading/trailing spaces.
pub(crate) fn push_text(out: &mut String, s: &str) {
    let needs_quotes = s.contains([',', '"', '\n', '\r']) || s.starts_with(' ') || s.ends_with(' ');
    if needs_quotes {
        out.push('"');
        for c in s.chars() {
            if c == '"' {
                out.push('"');
            }
            out.push(c);
        }
        out.push('"');
    } else {
        out.push_str(s);
    }
}

/// Appends a header line (comma-separated, no spaces, newline-terminated).
pub(crate) fn push_header(out: &mut String, columns: &[String]) {
    for (i, c) in columns.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_text(out, c);
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_round_trip_bit_for_bit() {
        let mut specials = vec![
            0.0,
            -0.0,
            1.0,
            -1.5,
            0.1,
            1e-5,
            1e-5_f64.next_down(),
            1e16,
            1e16_f64.next_down(),
            f64::MIN_POSITIVE,
            f64::MIN_POSITIVE / 3.0, // subnormal
            f64::MAX,
            f64::MIN,
            f64::EPSILON,
            f64::INFINITY,
            f64::NEG_INFINITY,
            std::f64::consts::PI,
        ];
        // A deterministic stream of arbitrary bit patterns (xorshift64).
        let mut s: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..200_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            specials.push(f64::from_bits(s));
        }
        for x in specials.into_iter().filter(|x| !x.is_nan()) {
            let text = format_f64(x);
            let back: f64 = text.parse().unwrap();
            assert_eq!(back.to_bits(), x.to_bits(), "{x:e} printed as {text}");
            assert!(text.len() <= 24, "{text} is not short");
        }
        assert_eq!(format_f64(f64::NAN), "NaN");
        assert_eq!(format_f64(0.25), "0.25");
        assert_eq!(format_f64(2.0), "2");
        assert_eq!(format_f64(1e-10), "1e-10");
        assert_eq!(format_f64(-0.0), "-0");
    }

    #[test]
    fn text_is_quoted_only_when_needed() {
        let mut s = String::new();
        push_text(&mut s, "ball");
        s.push('|');
        push_text(&mut s, "a,\"b\"");
        assert_eq!(s, "ball|\"a,\"\"b\"\"\"");
    }
}
