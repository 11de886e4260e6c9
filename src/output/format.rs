//! CSV field formatting shared by the writers: numbers that round-trip bit for bit, text fields
//! quoted only when they must be (RFC 4180).

use super::OutputError;
use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// A CSV file being streamed: a buffered writer plus a reusable line buffer.
#[derive(Debug)]
pub(crate) struct CsvFile {
    path: PathBuf,
    out: BufWriter<File>,
    /// The line being built; cleared after each write so rows allocate nothing.
    pub(crate) line: String,
}

impl CsvFile {
    /// Creates (or truncates) `path` and writes `header` as its first line.
    pub(crate) fn create(path: PathBuf, header: &[String]) -> Result<Self, OutputError> {
        let file = File::create(&path).map_err(|e| OutputError::io(&path, "create the file", e))?;
        let mut csv = Self {
            path,
            out: BufWriter::new(file),
            line: String::with_capacity(256),
        };
        push_header(&mut csv.line, header);
        csv.write_line()?;
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

    /// Writes the line buffer (which must end in a newline) and clears it.
    pub(crate) fn write_line(&mut self) -> Result<(), OutputError> {
        let result = self.out.write_all(self.line.as_bytes());
        self.line.clear();
        result.map_err(|e| OutputError::io(&self.path, "write a row", e))
    }

    /// Hands buffered rows to the operating system.
    pub(crate) fn flush(&mut self) -> Result<(), OutputError> {
        self.out
            .flush()
            .map_err(|e| OutputError::io(&self.path, "flush", e))
    }

    /// Flushes and syncs the file to disk.
    pub(crate) fn finish(self) -> Result<(), OutputError> {
        let path = self.path;
        let file = self
            .out
            .into_inner()
            .map_err(|e| OutputError::io(&path, "flush", e.into_error()))?;
        file.sync_all()
            .map_err(|e| OutputError::io(&path, "sync to disk", e))
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
