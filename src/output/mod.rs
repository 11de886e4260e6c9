//! Streaming writers for the output of a run, physics-free: they take plain data.
//!
//! A run writes into `<out>/<scenario name>/` (see [`RunDir`]) three files whose columns and keys
//! are a contract relied on by users' scripts (`ARCHITECTURE.md`, "Contract: output of a run"):
//!
//! * `trajectory.csv` — one row per step, the initial state as step 0, written by
//!   [`TrajectoryWriter`] from a [`TrajectoryRow`];
//! * `contacts.csv` — one row per step and contact, written by [`ContactsWriter`] from a
//!   [`ContactRow`];
//! * `summary.json` — the run's [`Summary`], accumulated step by step by a [`SummaryBuilder`].
//!
//! A scene with joints also gets `joints.csv` — one row per step and joint, written by
//! [`JointsWriter`] from a [`JointRow`] — and `solver.csv` holds each step's solve report
//! ([`SolverLogWriter`]).
//!
//! # One writer per run directory
//!
//! [`RunDir::create`] takes an exclusive advisory lock (`flock(2)` on Unix, `LockFileEx` on
//! Windows, through `std::fs::File::try_lock`) on `<run dir>/.run.lock` before it touches any
//! file of the directory, and holds it as long as the [`RunDir`] (or a clone) lives; the
//! operating system releases it when the process ends, `kill -9` and crashes included. A second
//! run into a directory whose lock is held is refused at once ([`OutputError::Busy`]) and
//! changes nothing there; [`RunDir::create_unique`] instead writes into the first of
//! `<name>`, `<name>-2`, `<name>-3`, … that is neither locked nor holds a previous run's files.
//! The lock file itself stays (removing it would race with a run taking it).
//!
//! # Crash safety
//!
//! Rows are held in memory, whole, and handed to the operating system only on request
//! (`flush`, one write per file), at `finish` (which also `fsync`s the file) and, best effort,
//! when a writer is dropped — never by a buffer that fills up on its own. The run loop flushes the
//! CSV files together at whole steps ([`crate::run`], "Flushing"), so a killed run leaves
//! files that end at the same step (within one flush if the kill falls between the files'
//! writes) and no row cut mid-line. `summary.json` is the marker of a finished run: it is written
//! last, and atomically ([`write_json_atomic`]: a temporary file in the same directory, synced,
//! then renamed over the target), so a reader sees either no summary or a whole one.
//! [`RunDir::create`] deletes the previous run's files first (under the lock), so an interrupted
//! run never leaves a summary — old or new — that looks complete next to its partial CSV files.
//! A run that stops early writes `complete: false` with a `reason`
//! ([`SummaryBuilder::incomplete`]).
//!
//! # Number format
//!
//! Every `f64` is printed with the shortest representation that parses back to the same bits
//! (Rust's `{}` for magnitudes in `[1e-5, 1e16)` and zero, `{:e}` otherwise, so that tiny gaps
//! and residuals stay short), never with fixed decimals: identical input gives byte-identical
//! files. `NaN` prints as `NaN` and infinities as `inf` / `-inf` (Python's `float` and pandas read
//! all three), except where a column documents an empty field.

mod contacts;
mod drives;
mod format;
mod joints;
mod solver_log;
mod summary;
mod trajectory;

pub use contacts::{ContactMode, ContactRow, ContactsWriter, QuasiRigidImpulses};
pub use drives::{DriveRow, DrivesWriter};
pub use format::format_f64;
pub use joints::{JointRow, JointsWriter};
pub use solver_log::{SOLVER_COLUMNS, SOLVER_FILE, SolverLogWriter};
pub use summary::{
    ContactFriction, EnergySummary, IterationStats, StepStats, Summary, SummaryBuilder, TimeStats,
    median,
};
pub use trajectory::{BodyKind, BodyState, Energy, MovingBody, TrajectoryRow, TrajectoryWriter};

use serde::Serialize;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// File name of the trajectory inside a run directory.
pub const TRAJECTORY_FILE: &str = "trajectory.csv";
/// File name of the contact table inside a run directory.
pub const CONTACTS_FILE: &str = "contacts.csv";
/// File name of the joint table inside a run directory (a scene with joints only).
pub const JOINTS_FILE: &str = "joints.csv";
/// File name of the driven bodies' table inside a run directory (a scene with driven bodies
/// only).
pub const DRIVES_FILE: &str = "drives.csv";
/// File name of the summary inside a run directory.
pub const SUMMARY_FILE: &str = "summary.json";
/// File name of the animation `run --animate` writes inside a run directory.
pub const ANIMATION_FILE: &str = "animation.gif";
/// The folder, inside a run directory, that receives `plot`'s standard figures.
pub const PLOTS_DIR: &str = "plots";

/// True for a file name of `plot`'s standard figures: `energy`, `velocity_*`, `contact_*` or
/// `newton_iterations`, as `.svg` or `.png`.
pub fn is_standard_figure(name: &str) -> bool {
    let Some(stem) = name
        .strip_suffix(".svg")
        .or_else(|| name.strip_suffix(".png"))
    else {
        return false;
    };
    stem == "energy"
        || stem == "newton_iterations"
        || stem.starts_with("velocity_")
        || stem.starts_with("contact_")
}

/// Removes `plot`'s standard figures from the folder `dir` (missing: nothing to do); other
/// files stay.
pub fn remove_standard_figures(dir: &Path) -> io::Result<()> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    for entry in entries {
        let entry = entry?;
        if is_standard_figure(&entry.file_name().to_string_lossy()) {
            fs::remove_file(entry.path())?;
        }
    }
    Ok(())
}

/// Trouble writing the output of a run. Every variant names the file (or field) at fault.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// An I/O operation on a file or directory failed.
    #[error("{}: cannot {action}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What was being done, e.g. `create the file` or `write a row`.
        action: &'static str,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// The summary could not be serialized to JSON.
    #[error("{}: cannot serialize to JSON: {source}", path.display())]
    Json {
        /// The file being written.
        path: PathBuf,
        /// The cause.
        #[source]
        source: serde_json::Error,
    },
    /// A row does not fit the columns the writer was created with (wrong body kind, wrong
    /// number of coordinates, quasi-rigid data without quasi-rigid columns…).
    #[error("{}: row of step {step} does not fit the columns: {reason}", path.display())]
    RowShape {
        /// The file being written.
        path: PathBuf,
        /// The step of the offending row.
        step: usize,
        /// What does not fit.
        reason: String,
    },
    /// Another run holds the run directory's lock: it is writing there now.
    #[error(
        "{}: another run is writing into this directory (it holds {}); nothing was changed. \
         Wait for it to end, choose another --out, or pass --unique to write into a new directory",
        path.display(),
        lock.display()
    )]
    Busy {
        /// The run directory.
        path: PathBuf,
        /// Its lock file.
        lock: PathBuf,
    },
    /// A name used to build a path or a column is unusable.
    #[error("invalid {field} {value:?}: {reason}")]
    InvalidName {
        /// The field the name comes from, e.g. `scenario name` or `body name`.
        field: &'static str,
        /// The name as given.
        value: String,
        /// Why it is refused.
        reason: String,
    },
}

impl OutputError {
    pub(crate) fn io(path: &Path, action: &'static str, source: io::Error) -> Self {
        Self::Io {
            path: path.to_path_buf(),
            action,
            source,
        }
    }
}

/// File name of the lock a run holds on its directory (see the module docs).
pub const LOCK_FILE: &str = ".run.lock";

/// The files a run writes (a directory holding one of them holds a run).
const RUN_FILES: [&str; 6] = [
    SUMMARY_FILE,
    TRAJECTORY_FILE,
    CONTACTS_FILE,
    JOINTS_FILE,
    DRIVES_FILE,
    SOLVER_FILE,
];

/// The directory of one run, `<out>/<scenario name>/`, and the lock that makes this process its
/// only writer (held until the last clone is dropped).
#[derive(Debug, Clone)]
pub struct RunDir {
    path: PathBuf,
    _lock: Arc<File>,
}

/// How taking a directory's lock went.
enum Locked {
    Yes(File),
    Busy,
}

fn try_lock_dir(path: &Path) -> Result<Locked, OutputError> {
    let lock_path = path.join(LOCK_FILE);
    let file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| OutputError::io(&lock_path, "open the lock file", e))?;
    match file.try_lock() {
        Ok(()) => Ok(Locked::Yes(file)),
        Err(fs::TryLockError::WouldBlock) => Ok(Locked::Busy),
        Err(fs::TryLockError::Error(e)) => Err(OutputError::io(&lock_path, "lock the file", e)),
    }
}

impl RunDir {
    /// Creates `<out_dir>/<scenario_name>/` (and its parents), takes its lock — refusing at once
    /// with [`OutputError::Busy`], before touching any file, if another run holds it — and
    /// deletes the output files of a previous run there (`summary.json` first, then its
    /// temporary file, `trajectory.csv`, `contacts.csv`, `joints.csv`, `solver.csv`), so that nothing in the
    /// directory looks like a finished run until this run writes its summary; a previous
    /// `animation.gif` and the figures `plot` drew of it in `plots/` go too. Other files are
    /// left alone.
    ///
    /// The scenario name becomes a single path component: it must not be empty, contain a path
    /// separator (`/` or `\`), `..`, a control character, or be `.`; the error names the field.
    pub fn create(out_dir: impl AsRef<Path>, scenario_name: &str) -> Result<Self, OutputError> {
        validate_scenario_name(scenario_name)?;
        let path = out_dir.as_ref().join(scenario_name);
        fs::create_dir_all(&path)
            .map_err(|e| OutputError::io(&path, "create the run directory", e))?;
        let lock = match try_lock_dir(&path)? {
            Locked::Yes(file) => file,
            Locked::Busy => {
                return Err(OutputError::Busy {
                    lock: path.join(LOCK_FILE),
                    path,
                });
            }
        };
        let run = Self {
            path,
            _lock: Arc::new(lock),
        };
        run.remove_previous_files()?;
        Ok(run)
    }

    /// Like [`create`](Self::create), but never reuses a directory that holds a run: the first
    /// of `<out_dir>/<name>/`, `<name>-2/`, `<name>-3/`, … that is not locked by a running run
    /// and holds none of a run's files (`summary.json`, `trajectory.csv`, `contacts.csv`,
    /// `joints.csv`, `solver.csv`). Each candidate is checked under its lock, so two runs started together
    /// get different directories.
    pub fn create_unique(
        out_dir: impl AsRef<Path>,
        scenario_name: &str,
    ) -> Result<Self, OutputError> {
        validate_scenario_name(scenario_name)?;
        for n in 1usize.. {
            let name = if n == 1 {
                scenario_name.to_string()
            } else {
                format!("{scenario_name}-{n}")
            };
            let path = out_dir.as_ref().join(&name);
            fs::create_dir_all(&path)
                .map_err(|e| OutputError::io(&path, "create the run directory", e))?;
            let Locked::Yes(lock) = try_lock_dir(&path)? else {
                continue;
            };
            if RUN_FILES.iter().any(|f| path.join(f).exists()) {
                continue; // `lock` is dropped: released
            }
            let run = Self {
                path,
                _lock: Arc::new(lock),
            };
            run.remove_previous_files()?;
            return Ok(run);
        }
        unreachable!("the candidates never run out")
    }

    fn remove_previous_files(&self) -> Result<(), OutputError> {
        for stale in [
            self.summary_path(),
            self.summary_temp_path(),
            self.trajectory_path(),
            self.contacts_path(),
            self.joints_path(),
            self.drives_path(),
            self.path.join(SOLVER_FILE),
            self.path.join(ANIMATION_FILE),
        ] {
            match fs::remove_file(&stale) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(OutputError::io(&stale, "remove the previous run's file", e)),
            }
        }
        let plots = self.path.join(PLOTS_DIR);
        remove_standard_figures(&plots)
            .map_err(|e| OutputError::io(&plots, "remove the previous run's figures", e))
    }

    /// The run directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `<run dir>/trajectory.csv`.
    pub fn trajectory_path(&self) -> PathBuf {
        self.path.join(TRAJECTORY_FILE)
    }

    /// `<run dir>/contacts.csv`.
    pub fn contacts_path(&self) -> PathBuf {
        self.path.join(CONTACTS_FILE)
    }

    /// `<run dir>/joints.csv`.
    pub fn joints_path(&self) -> PathBuf {
        self.path.join(JOINTS_FILE)
    }

    /// `<run dir>/drives.csv`.
    pub fn drives_path(&self) -> PathBuf {
        self.path.join(DRIVES_FILE)
    }

    /// `<run dir>/summary.json`.
    pub fn summary_path(&self) -> PathBuf {
        self.path.join(SUMMARY_FILE)
    }

    fn summary_temp_path(&self) -> PathBuf {
        temp_path_for(&self.summary_path())
    }

    /// Starts `trajectory.csv` in this directory, see [`TrajectoryWriter::create`].
    pub fn trajectory_writer(
        &self,
        bodies: &[MovingBody],
    ) -> Result<TrajectoryWriter, OutputError> {
        TrajectoryWriter::create(self.trajectory_path(), bodies)
    }

    /// Starts `contacts.csv` in this directory, see [`ContactsWriter::create`].
    pub fn contacts_writer(
        &self,
        kind: BodyKind,
        quasi_rigid: bool,
    ) -> Result<ContactsWriter, OutputError> {
        ContactsWriter::create(self.contacts_path(), kind, quasi_rigid)
    }

    /// Starts `joints.csv` in this directory, see [`JointsWriter::create`].
    pub fn joints_writer(&self, kind: BodyKind) -> Result<JointsWriter, OutputError> {
        JointsWriter::create(self.joints_path(), kind)
    }

    /// Starts `drives.csv` in this directory, see [`DrivesWriter::create`].
    pub fn drives_writer(&self, kind: BodyKind) -> Result<DrivesWriter, OutputError> {
        DrivesWriter::create(self.drives_path(), kind)
    }

    /// Starts `solver.csv` in this directory, see [`SolverLogWriter`].
    pub fn solver_writer(&self) -> Result<SolverLogWriter, OutputError> {
        SolverLogWriter::create(self.path.join(SOLVER_FILE))
    }

    /// Writes `summary.json` atomically ([`write_json_atomic`]). Call it last, after finishing
    /// the CSV writers: its presence says the run's files are whole.
    pub fn write_summary(&self, summary: &Summary) -> Result<(), OutputError> {
        write_json_atomic(self.summary_path(), summary)
    }
}

fn validate_scenario_name(name: &str) -> Result<(), OutputError> {
    let reason = if name.is_empty() {
        Some("it is empty")
    } else if name.len() > 255 {
        Some("it is longer than 255 bytes, a folder name's limit")
    } else if name.contains(['/', '\\']) {
        Some("it contains a path separator; the name becomes one directory")
    } else if name.contains("..") {
        Some("it contains `..`; the name becomes one directory")
    } else if name == "." {
        Some("`.` is not a directory name")
    } else if name.chars().any(char::is_control) {
        Some("it contains a control character")
    } else {
        None
    };
    match reason {
        Some(reason) => Err(OutputError::InvalidName {
            field: "scenario name",
            // Whole up to 60 characters: a refused name may be megabytes long.
            value: if name.chars().count() > 60 {
                format!("{}…", name.chars().take(60).collect::<String>())
            } else {
                name.to_string()
            },
            reason: reason.to_string(),
        }),
        None => Ok(()),
    }
}

/// The temporary file used to write `path` atomically: `.<file name>.tmp` in the same
/// directory (same file system, so the rename is atomic).
fn temp_path_for(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.tmp"))
}

/// Serializes `value` as pretty JSON (with a final newline) to `path` atomically: the text goes
/// to `.<file name>.tmp` in the same directory, which is flushed, synced and renamed over
/// `path`. On any failure the temporary file is removed and a previous file at `path` is left
/// untouched.
pub fn write_json_atomic<T: Serialize + ?Sized>(
    path: impl AsRef<Path>,
    value: &T,
) -> Result<(), OutputError> {
    let path = path.as_ref();
    let mut text = serde_json::to_vec_pretty(value).map_err(|source| OutputError::Json {
        path: path.to_path_buf(),
        source,
    })?;
    text.push(b'\n');
    write_atomic(path, &text)
}

/// Writes `text` to `path` atomically, as [`write_json_atomic`] does.
pub fn write_atomic(path: impl AsRef<Path>, text: &[u8]) -> Result<(), OutputError> {
    let path = path.as_ref();
    let temp = temp_path_for(path);
    let result = (|| {
        let file = File::create(&temp).map_err(|e| OutputError::io(&temp, "create the file", e))?;
        let mut w = BufWriter::new(file);
        w.write_all(text)
            .and_then(|()| w.flush())
            .map_err(|e| OutputError::io(&temp, "write", e))?;
        let file = w
            .into_inner()
            .map_err(|e| OutputError::io(&temp, "write", e.into_error()))?;
        file.sync_all()
            .map_err(|e| OutputError::io(&temp, "sync to disk", e))?;
        fs::rename(&temp, path).map_err(|e| OutputError::io(path, "rename the temporary file", e))
    })();
    if result.is_err() {
        // Only a regular temporary file is ours to remove.
        if fs::symlink_metadata(&temp).is_ok_and(|m| m.is_file()) {
            let _ = fs::remove_file(&temp);
        }
        return result;
    }
    // Make the rename itself durable where the platform allows syncing a directory.
    #[cfg(unix)]
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
        && let Ok(d) = File::open(dir)
    {
        let _ = d.sync_all();
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod test_dir {
    use std::path::PathBuf;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A fresh, empty directory under the system temp dir, unique per process and call.
    pub fn fresh(label: &str) -> PathBuf {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!(
            "implicit-contact-output-{}-{n}-{label}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_dir_refuses_path_like_names() {
        let out = test_dir::fresh("names");
        for bad in ["", "a/b", "a\\b", "..", "a..b", ".", "x\ny"] {
            let err = RunDir::create(&out, bad).unwrap_err();
            let msg = err.to_string();
            assert!(msg.contains("scenario name"), "{msg}");
            assert!(matches!(err, OutputError::InvalidName { .. }));
        }
        let run = RunDir::create(&out, "rolling disc").unwrap();
        assert_eq!(run.path(), out.join("rolling disc"));
        assert!(run.path().is_dir());
        let _ = fs::remove_dir_all(&out);
    }

    #[test]
    fn run_dir_removes_previous_run_files() {
        let out = test_dir::fresh("stale");
        let run = RunDir::create(&out, "case").unwrap();
        for p in [
            run.summary_path(),
            run.trajectory_path(),
            run.contacts_path(),
            run.joints_path(),
            run.path.join(SOLVER_FILE),
        ] {
            fs::write(&p, "old").unwrap();
        }
        fs::write(run.path().join("figure.svg"), "keep").unwrap();
        drop(run);
        let run = RunDir::create(&out, "case").unwrap();
        assert!(!run.summary_path().exists());
        assert!(!run.trajectory_path().exists());
        assert!(!run.contacts_path().exists());
        assert!(!run.joints_path().exists());
        assert!(run.path().join("figure.svg").exists());
        let _ = fs::remove_dir_all(&out);
    }

    #[test]
    fn a_locked_run_dir_is_refused_untouched_and_unique_goes_elsewhere() {
        let out = test_dir::fresh("lock");
        let first = RunDir::create(&out, "case").unwrap();
        fs::write(first.trajectory_path(), "first").unwrap();
        let err = RunDir::create(&out, "case").unwrap_err();
        assert!(matches!(err, OutputError::Busy { .. }), "{err}");
        let msg = err.to_string();
        assert!(
            msg.contains("another run") && msg.contains("--unique"),
            "{msg}"
        );
        assert_eq!(
            fs::read_to_string(first.trajectory_path()).unwrap(),
            "first"
        );
        // Busy first, then a directory holding a finished run: both skipped.
        fs::create_dir_all(out.join("case-2")).unwrap();
        fs::write(out.join("case-2").join(SUMMARY_FILE), "{}").unwrap();
        let third = RunDir::create_unique(&out, "case").unwrap();
        assert_eq!(third.path(), out.join("case-3"));
        // Released on drop: the directory can be taken again.
        drop(first);
        let again = RunDir::create(&out, "case").unwrap();
        assert!(!again.trajectory_path().exists());
        let _ = fs::remove_dir_all(&out);
    }

    #[test]
    fn summary_is_written_atomically_and_a_failed_write_keeps_the_previous_one() {
        let out = test_dir::fresh("atomic");
        let run = RunDir::create(&out, "case").unwrap();
        let mut first = SummaryBuilder::new("case", "implicit", 1.0).complete();
        first.steps = 1;
        run.write_summary(&first).unwrap();
        let names: Vec<_> = fs::read_dir(run.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n != LOCK_FILE)
            .collect();
        assert_eq!(
            names,
            vec![SUMMARY_FILE.to_string()],
            "no temporary file left"
        );
        let before = fs::read_to_string(run.summary_path()).unwrap();

        // Block the temporary file with a directory: the write must fail before the rename.
        let temp = run.summary_temp_path();
        fs::create_dir(&temp).unwrap();
        let second = SummaryBuilder::new("case", "implicit", 2.0).incomplete("stopped");
        let err = run.write_summary(&second).unwrap_err();
        assert!(err.to_string().contains(".summary.json.tmp"), "{err}");
        assert_eq!(fs::read_to_string(run.summary_path()).unwrap(), before);
        assert!(temp.is_dir(), "a directory that is not ours is not removed");
        fs::remove_dir(&temp).unwrap();

        run.write_summary(&second).unwrap();
        let v: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(run.summary_path()).unwrap()).unwrap();
        assert_eq!(v["complete"], serde_json::Value::Bool(false));
        assert!(!temp.exists());
        let _ = fs::remove_dir_all(&out);
    }
}
