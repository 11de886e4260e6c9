//! `trajectory.csv`: one row per step, the initial state as step 0.

use super::OutputError;
use super::format::{CsvFile, push_f64};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Whether a body moves in the plane (pose `x, y, θ`, twist `vx, vy, ω`) or in space (pose
/// `x, y, z` and a unit quaternion, twist `v` and `ω` in the world frame).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BodyKind {
    /// A planar body: 3 degrees of freedom.
    Planar,
    /// A spatial body: 6 degrees of freedom.
    Spatial,
}

impl BodyKind {
    /// The number of position coordinates: 2 or 3.
    pub fn dim(self) -> usize {
        match self {
            BodyKind::Planar => 2,
            BodyKind::Spatial => 3,
        }
    }

    /// A body's state columns in file order (prefixed by its name in `trajectory.csv`).
    pub fn state_columns(self) -> &'static [&'static str] {
        match self {
            BodyKind::Planar => &["x", "y", "theta", "vx", "vy", "w"],
            BodyKind::Spatial => &[
                "x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz",
            ],
        }
    }
}

/// A moving body as it appears in `trajectory.csv`: its name prefixes its columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MovingBody {
    /// The body's name, e.g. `disc` for the columns `disc.x, disc.y, …`.
    pub name: String,
    /// Planar or spatial.
    pub kind: BodyKind,
}

impl MovingBody {
    /// A planar body.
    pub fn planar(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            kind: BodyKind::Planar,
        }
    }

    /// A spatial body.
    pub fn spatial(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            kind: BodyKind::Spatial,
        }
    }

    /// This body's columns, in file order.
    pub fn columns(&self) -> Vec<String> {
        self.kind
            .state_columns()
            .iter()
            .map(|s| format!("{}.{s}", self.name))
            .collect()
    }
}

/// The pose and twist of one moving body at the end of a step, in the order of its columns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BodyState {
    /// Columns `x, y, theta, vx, vy, w`.
    Planar {
        /// Position of the body frame's origin `(x, y)`.
        position: [f64; 2],
        /// Orientation angle θ (radians, counter-clockwise), not wrapped.
        theta: f64,
        /// Linear velocity `(vx, vy)`.
        velocity: [f64; 2],
        /// Angular velocity ω.
        omega: f64,
    },
    /// Columns `x, y, z, qw, qx, qy, qz, vx, vy, vz, wx, wy, wz`.
    Spatial {
        /// Position of the body frame's origin `(x, y, z)`.
        position: [f64; 3],
        /// Orientation as a unit quaternion `[qw, qx, qy, qz]`, scalar first (nalgebra's
        /// `Quaternion::coords` is scalar last: reorder).
        orientation: [f64; 4],
        /// Linear velocity `(vx, vy, vz)`.
        velocity: [f64; 3],
        /// Angular velocity `(wx, wy, wz)` in the world frame.
        omega: [f64; 3],
    },
}

impl BodyState {
    /// Appends its columns to a CSV line, each after a comma.
    pub(crate) fn push_columns(&self, line: &mut String) {
        let mut push = |x: f64| {
            line.push(',');
            push_f64(line, x);
        };
        match *self {
            BodyState::Planar {
                position,
                theta,
                velocity,
                omega,
            } => {
                position.into_iter().for_each(&mut push);
                push(theta);
                velocity.into_iter().for_each(&mut push);
                push(omega);
            }
            BodyState::Spatial {
                position,
                orientation,
                velocity,
                omega,
            } => position
                .into_iter()
                .chain(orientation)
                .chain(velocity)
                .chain(omega)
                .for_each(&mut push),
        }
    }

    /// Planar or spatial.
    pub fn kind(&self) -> BodyKind {
        match self {
            BodyState::Planar { .. } => BodyKind::Planar,
            BodyState::Spatial { .. } => BodyKind::Spatial,
        }
    }
}

/// The energies of the whole scene at the end of a step.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Energy {
    /// Kinetic energy of the moving bodies.
    pub kinetic: f64,
    /// Potential energy: gravity plus any stored elastic energy.
    pub potential: f64,
}

impl Energy {
    /// `kinetic + potential`, the `total_energy` column.
    pub fn total(&self) -> f64 {
        self.kinetic + self.potential
    }
}

/// One row of `trajectory.csv`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrajectoryRow<'a> {
    /// Step number, 0 for the initial state.
    pub step: usize,
    /// Time at the end of the step.
    pub t: f64,
    /// One state per moving body, in the order the writer was created with.
    pub bodies: &'a [BodyState],
    /// The scene's energies; `total_energy` is written as [`Energy::total`].
    pub energy: Energy,
}

/// Streams `trajectory.csv`: the header at creation, then one row per call to
/// [`TrajectoryWriter::write_row`].
///
/// Columns: `step, t`, then for each moving body in order its [`MovingBody::columns`], then
/// `kinetic_energy, potential_energy, total_energy`. Rows are buffered; call
/// [`TrajectoryWriter::finish`] at the end (dropping the writer flushes too, but cannot report
/// an error).
#[derive(Debug)]
pub struct TrajectoryWriter {
    csv: CsvFile,
    kinds: Vec<BodyKind>,
}

impl TrajectoryWriter {
    /// Creates (or truncates) the file at `path` and writes the header. Body names must be
    /// non-empty and distinct.
    pub fn create(path: impl Into<PathBuf>, bodies: &[MovingBody]) -> Result<Self, OutputError> {
        let mut seen = HashSet::new();
        for b in bodies {
            if b.name.is_empty() {
                return Err(OutputError::InvalidName {
                    field: "body name",
                    value: b.name.clone(),
                    reason: "it is empty".into(),
                });
            }
            if !seen.insert(b.name.as_str()) {
                return Err(OutputError::InvalidName {
                    field: "body name",
                    value: b.name.clone(),
                    reason: "two moving bodies have this name; trajectory columns must be unique"
                        .into(),
                });
            }
        }
        let csv = CsvFile::create(path.into(), &Self::header(bodies))?;
        Ok(Self {
            csv,
            kinds: bodies.iter().map(|b| b.kind).collect(),
        })
    }

    /// The header's columns for these bodies.
    pub fn header(bodies: &[MovingBody]) -> Vec<String> {
        let mut columns = vec!["step".to_string(), "t".to_string()];
        for b in bodies {
            columns.extend(b.columns());
        }
        columns.extend(
            ["kinetic_energy", "potential_energy", "total_energy"]
                .iter()
                .map(|s| s.to_string()),
        );
        columns
    }

    /// The file being written.
    pub fn path(&self) -> &Path {
        self.csv.path()
    }

    /// Writes one row. Fails if the row's bodies do not match, in number and kind, the bodies
    /// the writer was created with (nothing is written then).
    pub fn write_row(&mut self, row: &TrajectoryRow<'_>) -> Result<(), OutputError> {
        if row.bodies.len() != self.kinds.len() {
            return Err(self.csv.shape_error(
                row.step,
                format!(
                    "{} body states for {} moving bodies",
                    row.bodies.len(),
                    self.kinds.len()
                ),
            ));
        }
        if let Some(i) = (0..self.kinds.len()).find(|&i| row.bodies[i].kind() != self.kinds[i]) {
            return Err(self.csv.shape_error(
                row.step,
                format!(
                    "body {i} is {:?} but was declared {:?}",
                    row.bodies[i].kind(),
                    self.kinds[i]
                ),
            ));
        }
        let line = &mut self.csv.line;
        line.push_str(&row.step.to_string());
        line.push(',');
        push_f64(line, row.t);
        for b in row.bodies {
            b.push_columns(line);
        }
        let mut push = |x: f64| {
            line.push(',');
            push_f64(line, x);
        };
        push(row.energy.kinetic);
        push(row.energy.potential);
        push(row.energy.total());
        line.push('\n');
        self.csv.write_line()
    }

    /// Bytes of rows held in memory, not yet handed to the operating system.
    pub fn buffered(&self) -> usize {
        self.csv.buffered()
    }

    /// Hands the rows held to the operating system, in one write. Rows are never written
    /// otherwise (until `finish`, or best effort when the writer is dropped), so the caller
    /// decides at which row the file ends if the process is killed.
    pub fn flush(&mut self) -> Result<(), OutputError> {
        self.csv.flush()
    }

    /// Flushes the remaining rows and syncs the file to disk.
    pub fn finish(self) -> Result<(), OutputError> {
        self.csv.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::test_dir;
    use std::fs;

    #[test]
    fn planar_header_is_the_contract() {
        let dir = test_dir::fresh("traj-planar");
        let path = dir.join("trajectory.csv");
        TrajectoryWriter::create(&path, &[MovingBody::planar("disc")])
            .unwrap()
            .finish()
            .unwrap();
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            "step,t,disc.x,disc.y,disc.theta,disc.vx,disc.vy,disc.w,\
             kinetic_energy,potential_energy,total_energy\n"
        );
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn spatial_header_is_the_contract() {
        let dir = test_dir::fresh("traj-spatial");
        let path = dir.join("trajectory.csv");
        TrajectoryWriter::create(
            &path,
            &[MovingBody::spatial("ball"), MovingBody::planar("puck")],
        )
        .unwrap()
        .finish()
        .unwrap();
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            "step,t,ball.x,ball.y,ball.z,ball.qw,ball.qx,ball.qy,ball.qz,\
             ball.vx,ball.vy,ball.vz,ball.wx,ball.wy,ball.wz,\
             puck.x,puck.y,puck.theta,puck.vx,puck.vy,puck.w,\
             kinetic_energy,potential_energy,total_energy\n"
        );
        let _ = fs::remove_dir_all(&dir);
    }

    fn awkward(k: u64) -> f64 {
        // Values that need all 17 significant digits, tiny and huge magnitudes, negative zero.
        match k % 5 {
            0 => 0.1 + 0.2 * k as f64,
            1 => -1.0 / 3.0 * (k as f64 + 1.0),
            2 => 1e-13 * std::f64::consts::PI * k as f64,
            3 => -0.0,
            _ => 6.02214076e23 / (k as f64 + 7.0),
        }
    }

    #[test]
    fn rows_round_trip_bit_for_bit() {
        let dir = test_dir::fresh("traj-rows");
        let path = dir.join("trajectory.csv");
        let bodies = [MovingBody::planar("disc"), MovingBody::spatial("ball")];
        let mut w = TrajectoryWriter::create(&path, &bodies).unwrap();
        let mut expected = Vec::new();
        for step in 0..50u64 {
            let v = |i: u64| awkward(step * 31 + i);
            let states = [
                BodyState::Planar {
                    position: [v(0), v(1)],
                    theta: v(2),
                    velocity: [v(3), v(4)],
                    omega: v(5),
                },
                BodyState::Spatial {
                    position: [v(6), v(7), v(8)],
                    orientation: [v(9), v(10), v(11), v(12)],
                    velocity: [v(13), v(14), v(15)],
                    omega: [v(16), v(17), v(18)],
                },
            ];
            let energy = Energy {
                kinetic: v(19),
                potential: v(20),
            };
            let t = 0.001 * step as f64;
            w.write_row(&TrajectoryRow {
                step: step as usize,
                t,
                bodies: &states,
                energy,
            })
            .unwrap();
            let mut row = vec![t];
            row.extend((0..=20).map(v));
            row.push(energy.total());
            expected.push((step, row));
        }
        w.finish().unwrap();
        let text = fs::read_to_string(&path).unwrap();
        let mut lines = text.lines();
        let header = lines.next().unwrap();
        assert_eq!(header.split(',').count(), 2 + 6 + 13 + 3);
        for ((step, row), line) in expected.iter().zip(lines) {
            let mut fields = line.split(',');
            assert_eq!(fields.next().unwrap(), step.to_string());
            let parsed: Vec<f64> = fields.map(|f| f.parse().unwrap()).collect();
            assert_eq!(parsed.len(), row.len());
            for (a, b) in parsed.iter().zip(row) {
                assert_eq!(a.to_bits(), b.to_bits(), "{a} vs {b}");
            }
        }
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn dropping_the_writer_flushes_the_rows() {
        let dir = test_dir::fresh("traj-drop");
        let path = dir.join("trajectory.csv");
        {
            let mut w = TrajectoryWriter::create(&path, &[MovingBody::planar("d")]).unwrap();
            let s = [BodyState::Planar {
                position: [1.0, 2.0],
                theta: 0.5,
                velocity: [0.0, -1.0],
                omega: 3.0,
            }];
            let row = TrajectoryRow {
                step: 0,
                t: 0.0,
                bodies: &s,
                energy: Energy {
                    kinetic: 5.0,
                    potential: 0.25,
                },
            };
            w.write_row(&row).unwrap();
        }
        let text = fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().nth(1), Some("0,0,1,2,0.5,0,-1,3,5,0.25,5.25"));
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn mismatched_rows_and_bad_names_are_refused() {
        let dir = test_dir::fresh("traj-bad");
        let path = dir.join("trajectory.csv");
        let dup = [MovingBody::planar("a"), MovingBody::spatial("a")];
        let err = TrajectoryWriter::create(&path, &dup).unwrap_err();
        assert!(err.to_string().contains("body name"), "{err}");
        let mut w = TrajectoryWriter::create(&path, &[MovingBody::spatial("a")]).unwrap();
        let s = [BodyState::Planar {
            position: [0.0; 2],
            theta: 0.0,
            velocity: [0.0; 2],
            omega: 0.0,
        }];
        let row = TrajectoryRow {
            step: 7,
            t: 0.0,
            bodies: &s,
            energy: Energy::default(),
        };
        let err = w.write_row(&row).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("trajectory.csv") && msg.contains("step 7"),
            "{msg}"
        );
        w.finish().unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap().lines().count(), 1);
        let _ = fs::remove_dir_all(&dir);
    }
}
