//! A run directory's files read back by column name: `trajectory.csv` and `contacts.csv`
//! (required), `solver.csv` and `summary.json` (used when present: a run interrupted before its
//! end has no summary).

use super::PlotError;
use crate::output::{CONTACTS_FILE, SOLVER_FILE, SUMMARY_FILE, TRAJECTORY_FILE};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A CSV file held in memory, its columns found by header name.
#[derive(Debug, Clone)]
pub struct Table {
    path: PathBuf,
    header: Vec<String>,
    index: HashMap<String, usize>,
    rows: Vec<csv::StringRecord>,
}

impl Table {
    /// Reads `path`: a header line, then rows with as many fields (RFC 4180 quoting). Errors
    /// name the file, the line and the reason. A last line without its newline is a row cut
    /// short by an interrupted run (the writers only ever write whole lines) and is left out.
    pub fn read(path: &Path) -> Result<Self, PlotError> {
        let mut bytes = std::fs::read(path).map_err(|e| PlotError::io(path, "open the file", e))?;
        if bytes.last().is_some_and(|&b| b != b'\n') {
            let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            if whole > 0 {
                bytes.truncate(whole);
            }
        }
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .flexible(false)
            .from_reader(bytes.as_slice());
        let csv_error = |e: csv::Error| {
            let line = e.position().map(|p| p.line());
            let reason = match e.kind() {
                csv::ErrorKind::UnequalLengths {
                    expected_len, len, ..
                } => format!("a row has {len} fields, the header {expected_len}"),
                csv::ErrorKind::Io(io) => format!("cannot read: {io}"),
                _ => e.to_string(),
            };
            PlotError::malformed(path, line, reason)
        };
        let header: Vec<String> = reader
            .headers()
            .map_err(csv_error)?
            .iter()
            .map(str::to_string)
            .collect();
        if header.iter().all(|h| h.is_empty()) {
            return Err(PlotError::malformed(path, Some(1), "no header line"));
        }
        let mut index = HashMap::with_capacity(header.len());
        for (i, h) in header.iter().enumerate() {
            if index.insert(h.clone(), i).is_some() {
                return Err(PlotError::malformed(
                    path,
                    Some(1),
                    format!("column `{h}` appears twice in the header"),
                ));
            }
        }
        let rows = reader
            .records()
            .collect::<Result<Vec<_>, _>>()
            .map_err(csv_error)?;
        Ok(Self {
            path: path.to_path_buf(),
            header,
            index,
            rows,
        })
    }

    /// Like [`read`](Self::read), but `None` for a file that is missing, empty, or cut before
    /// the end of its header line: what a run interrupted early (or one whose `[output]` turned
    /// the file off) leaves. A file with a whole header is read as [`read`](Self::read) does.
    pub fn read_if_whole(path: &Path) -> Result<Option<Self>, PlotError> {
        match std::fs::read(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(PlotError::io(path, "open the file", e)),
            Ok(bytes) if !bytes.contains(&b'\n') => Ok(None),
            Ok(_) => Self::read(path).map(Some),
        }
    }

    /// A table of `path` with `header` and no rows.
    pub fn empty(path: &Path, header: &[String]) -> Self {
        Self {
            path: path.to_path_buf(),
            header: header.to_vec(),
            index: header
                .iter()
                .enumerate()
                .map(|(i, h)| (h.clone(), i))
                .collect(),
            rows: Vec::new(),
        }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The column names, in order.
    pub fn header(&self) -> &[String] {
        &self.header
    }

    /// Number of rows (the header not counted).
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// True without rows.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// True if the header has `name`.
    pub fn has(&self, name: &str) -> bool {
        self.index.contains_key(name)
    }

    fn col(&self, name: &str) -> Result<usize, PlotError> {
        self.index
            .get(name)
            .copied()
            .ok_or_else(|| PlotError::malformed(&self.path, Some(1), format!("no column `{name}`")))
    }

    /// Column `name` as numbers; an empty field is NaN (the output's "not available"). Fails
    /// naming the file, line and column for a missing column or a field that is not a number.
    pub fn numbers(&self, name: &str) -> Result<Vec<f64>, PlotError> {
        let c = self.col(name)?;
        self.rows
            .iter()
            .enumerate()
            .map(|(r, row)| {
                let field = row.get(c).unwrap_or("").trim();
                if field.is_empty() {
                    return Ok(f64::NAN);
                }
                field.parse::<f64>().map_err(|_| {
                    PlotError::malformed(
                        &self.path,
                        Some(line_of(row, r)),
                        format!("column `{name}`: `{field}` is not a number"),
                    )
                })
            })
            .collect()
    }

    /// Column `name` as text.
    pub fn text(&self, name: &str) -> Result<Vec<&str>, PlotError> {
        let c = self.col(name)?;
        Ok(self
            .rows
            .iter()
            .map(|row| row.get(c).unwrap_or(""))
            .collect())
    }
}

fn line_of(row: &csv::StringRecord, r: usize) -> u64 {
    row.position().map_or(r as u64 + 2, |p| p.line())
}

/// A moving body found in `trajectory.csv` (from its `<body>.vx` column).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrajectoryBody {
    /// The body's name.
    pub name: String,
    /// True for a spatial body (`<body>.vz` present).
    pub spatial: bool,
}

/// A contact of `contacts.csv`: its index and bodies.
#[derive(Debug, Clone, PartialEq)]
pub struct ContactInfo {
    /// The `contact` index.
    pub index: usize,
    /// `body1`, holding `a1`.
    pub body1: String,
    /// `body2`.
    pub body2: String,
    /// The friction coefficient, from `summary.json` (`contacts[].mu`), if recorded.
    pub mu: Option<f64>,
}

/// The files of one run, read back.
#[derive(Debug, Clone)]
pub struct RunData {
    /// The run directory.
    pub dir: PathBuf,
    /// `trajectory.csv`.
    pub trajectory: Table,
    /// `contacts.csv`; empty (no rows) when the run wrote none (interrupted before its header,
    /// or `[output] contacts = false`), see [`RunData::notes`].
    pub contacts: Table,
    /// `solver.csv`, if present with a whole header line.
    pub solver: Option<Table>,
    /// What was missing or cut and left out, for the user to read.
    pub notes: Vec<String>,
    /// `summary.json`, if present.
    pub summary: Option<serde_json::Value>,
}

impl RunData {
    /// Reads the run in `dir`: the complete rows of each file (a last line cut by an
    /// interrupted run is left out). `trajectory.csv` must have at least the initial state;
    /// `contacts.csv` and `solver.csv` missing, empty or cut inside their header count as
    /// having no rows (an interrupted run, or `[output]` turning them off: [`RunData::notes`]
    /// says so); `summary.json` is read if present. Malformed files are refused, naming the
    /// file, the line and the reason.
    pub fn read(dir: &Path) -> Result<Self, PlotError> {
        if !dir.is_dir() {
            let reason = if dir.exists() {
                "not a directory"
            } else {
                "no such directory"
            };
            return Err(PlotError::malformed(
                dir,
                None,
                format!(
                    "{reason} (expected a run directory with {TRAJECTORY_FILE}, {CONTACTS_FILE}, {SUMMARY_FILE})"
                ),
            ));
        }
        let trajectory = Table::read(&dir.join(TRAJECTORY_FILE))?;
        if trajectory.is_empty() {
            return Err(PlotError::malformed(
                trajectory.path(),
                None,
                "no rows: the run wrote not even its initial state",
            ));
        }
        for col in ["t", "kinetic_energy", "potential_energy", "total_energy"] {
            trajectory.numbers(col)?;
        }
        let mut notes = Vec::new();
        let contacts_path = dir.join(CONTACTS_FILE);
        let contacts = match Table::read_if_whole(&contacts_path)? {
            Some(t) => t,
            None => {
                notes.push(format!(
                    "{}: missing, empty or cut inside its header: no contact figures",
                    contacts_path.display()
                ));
                Table::empty(
                    &contacts_path,
                    &crate::output::ContactsWriter::header(crate::output::BodyKind::Planar, false),
                )
            }
        };
        for col in [
            "t",
            "contact",
            "gap",
            "normal_impulse",
            "friction_impulse",
            "slip_speed",
        ] {
            contacts.numbers(col)?;
        }
        contacts.text("body1")?;
        contacts.text("body2")?;
        let solver_path = dir.join(SOLVER_FILE);
        let solver = match Table::read_if_whole(&solver_path)? {
            Some(t) if !t.is_empty() => {
                t.numbers("t")?;
                t.numbers("newton_iterations")?;
                Some(t)
            }
            Some(_) => {
                notes.push(format!(
                    "{}: no complete row: no newton_iterations figure",
                    solver_path.display()
                ));
                None
            }
            None => {
                notes.push(format!(
                    "{}: missing, empty or cut inside its header: no newton_iterations figure",
                    solver_path.display()
                ));
                None
            }
        };
        let summary_path = dir.join(SUMMARY_FILE);
        let summary = if summary_path.exists() {
            let text = std::fs::read_to_string(&summary_path)
                .map_err(|e| PlotError::io(&summary_path, "read the file", e))?;
            let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
                PlotError::malformed(
                    &summary_path,
                    Some(e.line() as u64),
                    format!("not valid JSON: {e}"),
                )
            })?;
            if !v.is_object() {
                return Err(PlotError::malformed(
                    &summary_path,
                    None,
                    "not a JSON object",
                ));
            }
            Some(v)
        } else {
            None
        };
        Ok(Self {
            dir: dir.to_path_buf(),
            trajectory,
            contacts,
            solver,
            summary,
            notes,
        })
    }

    /// The scenario's name: `summary.json`'s `scenario`, else the directory's name.
    pub fn name(&self) -> String {
        self.summary
            .as_ref()
            .and_then(|s| s["scenario"].as_str())
            .map(str::to_string)
            .unwrap_or_else(|| {
                self.dir
                    .file_name()
                    .map_or("run".into(), |n| n.to_string_lossy().into_owned())
            })
    }

    /// The moving bodies, in column order.
    pub fn bodies(&self) -> Vec<TrajectoryBody> {
        self.trajectory
            .header()
            .iter()
            .filter_map(|h| h.strip_suffix(".vx"))
            .map(|name| TrajectoryBody {
                name: name.to_string(),
                spatial: self.trajectory.has(&format!("{name}.vz")),
            })
            .collect()
    }

    /// The contacts, by index, with their bodies (from their first row) and friction
    /// coefficient (from `summary.json` when recorded).
    pub fn contact_list(&self) -> Result<Vec<ContactInfo>, PlotError> {
        let idx = self.contacts.numbers("contact")?;
        let b1 = self.contacts.text("body1")?;
        let b2 = self.contacts.text("body2")?;
        let mut out: Vec<ContactInfo> = Vec::new();
        for (r, &k) in idx.iter().enumerate() {
            if !(k >= 0.0 && k.fract() == 0.0) {
                return Err(PlotError::malformed(
                    self.contacts.path(),
                    Some(r as u64 + 2),
                    format!("column `contact`: `{k}` is not a contact index"),
                ));
            }
            let k = k as usize;
            if !out.iter().any(|c| c.index == k) {
                out.push(ContactInfo {
                    index: k,
                    body1: b1[r].to_string(),
                    body2: b2[r].to_string(),
                    mu: self.mu_of(k),
                });
            }
        }
        out.sort_by_key(|c| c.index);
        Ok(out)
    }

    fn mu_of(&self, k: usize) -> Option<f64> {
        self.summary
            .as_ref()?
            .get("contacts")?
            .as_array()?
            .iter()
            .find(|c| c["contact"].as_u64() == Some(k as u64))?
            .get("mu")?
            .as_f64()
    }

    /// Column `column` of `contacts.csv` for contact `k`, as `(t, value)` pairs.
    pub fn contact_series(&self, k: usize, column: &str) -> Result<Vec<(f64, f64)>, PlotError> {
        let idx = self.contacts.numbers("contact")?;
        let t = self.contacts.numbers("t")?;
        let v = self.contacts.numbers(column)?;
        Ok(idx
            .iter()
            .zip(t.iter().zip(&v))
            .filter(|(i, _)| **i == k as f64)
            .map(|(_, (&t, &v))| (t, v))
            .collect())
    }

    /// Column `column` of `trajectory.csv` against `t`.
    pub fn trajectory_series(&self, column: &str) -> Result<Vec<(f64, f64)>, PlotError> {
        let t = self.trajectory.numbers("t")?;
        let v = self.trajectory.numbers(column)?;
        Ok(t.into_iter().zip(v).collect())
    }

    /// The length of each step, by step number: its `t` minus the previous row's in
    /// `trajectory.csv` (an impulse over it is the step's mean force), divided by the steps
    /// between the two rows when the run wrote every K-th step only (`[output] every`; all
    /// steps of a run have the same length).
    pub fn step_lengths(&self) -> Result<HashMap<u64, f64>, PlotError> {
        let t = self.trajectory.numbers("t")?;
        let step = self.trajectory.numbers("step")?;
        let mut out = HashMap::with_capacity(t.len());
        for i in 1..t.len() {
            let between = step[i] - step[i - 1];
            out.insert(step[i] as u64, (t[i] - t[i - 1]) / between);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_file(name: &str, text: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "implicit-contact-run-data-{}-{name}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    /// A run written every 7th step (`[output] every = 7`) still has steps of 0.01 s, and a
    /// run without contacts.csv (`[output] contacts = false`) is read with a note.
    #[test]
    fn step_lengths_with_a_stride_and_no_contacts_file() {
        let path = temp_file(
            "trajectory.csv",
            "step,t,kinetic_energy,potential_energy,total_energy\n\
             0,0,1,0,1\n7,0.07,1,0,1\n14,0.14,1,0,1\n15,0.15,1,0,1\n",
        );
        let dir = path.parent().unwrap();
        let run = RunData::read(dir).unwrap();
        let h = run.step_lengths().unwrap();
        for step in [7, 14, 15] {
            assert!((h[&step] - 0.01).abs() < 1e-15, "step {step}: {}", h[&step]);
        }
        assert!(run.contacts.is_empty());
        assert!(run.notes.iter().any(|n| n.contains("contacts.csv")));
    }

    #[test]
    fn a_last_line_cut_by_a_killed_run_is_left_out() {
        // The kernel may stop a killed process's write at a page boundary: "2,0.0" is not a
        // row (its `t` would read as 0 instead of 0.02).
        let path = temp_file("cut.csv", "step,t\n0,0\n1,0.01\n2,0.0");
        let t = Table::read(&path).unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(t.numbers("t").unwrap(), vec![0.0, 0.01]);
    }

    #[test]
    fn columns_by_name_with_quoting_and_empty_fields() {
        let path = temp_file(
            "contacts.csv",
            "step,t,body1,slip_speed\n1,0.01,\"disc, left\",0.5\n2,0.02,floor,\n",
        );
        let t = Table::read(&path).unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(t.text("body1").unwrap(), vec!["disc, left", "floor"]);
        let slip = t.numbers("slip_speed").unwrap();
        assert_eq!(slip[0], 0.5);
        assert!(slip[1].is_nan(), "an empty field is NaN");
        let err = t.numbers("gap").unwrap_err().to_string();
        assert!(
            err.contains("contacts.csv:1") && err.contains("no column `gap`"),
            "{err}"
        );
    }

    #[test]
    fn bad_files_are_refused_with_file_line_and_reason() {
        let dup = temp_file("dup.csv", "t,t\n1,2\n");
        let err = Table::read(&dup).unwrap_err().to_string();
        assert!(
            err.contains("dup.csv:1") && err.contains("appears twice"),
            "{err}"
        );
        let short = temp_file("short.csv", "a,b\n1,2\n3\n");
        let err = Table::read(&short).unwrap_err().to_string();
        assert!(
            err.contains("short.csv:3") && err.contains("1 fields, the header 2"),
            "{err}"
        );
        let nan = temp_file("text.csv", "a\n1\nx\n");
        let err = Table::read(&nan)
            .unwrap()
            .numbers("a")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("text.csv:3") && err.contains("`x` is not a number"),
            "{err}"
        );
    }
}
