//! `joints.csv`: one row per step and joint (written only for a scene with joints).

use super::OutputError;
use super::format::{CsvFile, push_f64, push_text};
use super::trajectory::BodyKind;
use std::path::{Path, PathBuf};

/// One row of `joints.csv`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointRow<'a> {
    /// Step number.
    pub step: usize,
    /// Time at the end of the step.
    pub t: f64,
    /// The joint's index in the scene (file order of `[[joint]]`).
    pub joint: usize,
    /// The joint's name.
    pub name: &'a str,
    /// Body 1's name, `world` for the world.
    pub body1: &'a str,
    /// Body 2's name.
    pub body2: &'a str,
    /// The joint's impulse on body 2 over the step, world frame (2 or 3 entries, N·s); body 1
    /// receives its opposite.
    pub impulse: &'a [f64],
    /// The joint's angular impulse on body 2 about the anchor over the step (1 entry in 2D,
    /// 3 in 3D, N·m·s).
    pub moment: &'a [f64],
    /// The joint's largest constraint row `|Θ|` at the end of the step (m, or the sine of an
    /// angle for the rows that hold a direction).
    pub drift: f64,
    /// The step's length `h` (s): forces are impulses divided by it.
    pub time_step: f64,
    /// The joint actuator's force (N) or torque (N·m) at the end of the step (`None`: no
    /// actuator; an empty field).
    pub actuator: Option<f64>,
    /// The limits' generalised impulse `λ_lo − λ_hi` along the joint's coordinate over the
    /// step (N·s or N·m·s; positive: the lower stop pushes; `None`: no limits, an empty field).
    pub limit_impulse: Option<f64>,
    /// Joint friction's generalised impulse along the coordinate over the step (N·s or N·m·s,
    /// within `±F h`; `None`: no joint friction, an empty field).
    pub friction_impulse: Option<f64>,
}

/// Streams `joints.csv`: the header at creation, then one row per call to
/// [`JointsWriter::write_row`].
///
/// Columns: `step, t, joint, name, body1, body2, impulse_x, impulse_y, [impulse_z]`, then the
/// angular impulse `moment` (2D) or `moment_x, moment_y, moment_z` (3D), `drift`, and, as
/// `contacts.csv` does after its impulses, the mean force and torque over the step (impulse /
/// `h`): `force_x, force_y, [force_z]` (N) and `torque` (2D) or `torque_x, torque_y, torque_z`
/// (3D, N·m), then `actuator` (the joint actuator's force or torque at the end of the step;
/// empty without one), `limit_impulse` (the limits' `λ_lo − λ_hi` along the joint's coordinate,
/// positive when the lower stop pushes) and `friction_impulse` (joint friction's impulse along
/// the coordinate), each empty for a joint without them. Impulses are on body 2 (body 1, or the world, receives their opposite), in the
/// world frame, the angular ones about the joint's anchor. Names are quoted (RFC 4180) only if
/// they contain a comma, a quote, a line break or edge spaces.
#[derive(Debug)]
pub struct JointsWriter {
    csv: CsvFile,
    kind: BodyKind,
}

/// The angular entries of a dimension: 1 in 2D, 3 in 3D.
fn angular_dim(kind: BodyKind) -> usize {
    if kind.dim() == 2 { 1 } else { 3 }
}

impl JointsWriter {
    /// Creates (or truncates) the file at `path` and writes the header for a planar or a
    /// spatial scene.
    pub fn create(path: impl Into<PathBuf>, kind: BodyKind) -> Result<Self, OutputError> {
        let csv = CsvFile::create(path.into(), &Self::header(kind))?;
        Ok(Self { csv, kind })
    }

    /// The header's columns.
    pub fn header(kind: BodyKind) -> Vec<String> {
        let mut columns: Vec<String> = ["step", "t", "joint", "name", "body1", "body2"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let axes = &["x", "y", "z"][..kind.dim()];
        let angular = |name: &str| -> Vec<String> {
            if kind.dim() == 2 {
                vec![name.to_string()]
            } else {
                ["x", "y", "z"]
                    .iter()
                    .map(|a| format!("{name}_{a}"))
                    .collect()
            }
        };
        columns.extend(axes.iter().map(|a| format!("impulse_{a}")));
        columns.extend(angular("moment"));
        columns.push("drift".to_string());
        columns.extend(axes.iter().map(|a| format!("force_{a}")));
        columns.extend(angular("torque"));
        columns.push("actuator".to_string());
        columns.extend(["limit_impulse", "friction_impulse"].map(String::from));
        columns
    }

    /// The file being written.
    pub fn path(&self) -> &Path {
        self.csv.path()
    }

    /// Writes one row. Fails if the impulse or the moment has the wrong number of entries
    /// (nothing is written then).
    pub fn write_row(&mut self, row: &JointRow<'_>) -> Result<(), OutputError> {
        let (dim, ang) = (self.kind.dim(), angular_dim(self.kind));
        for (what, v, n) in [("impulse", row.impulse, dim), ("moment", row.moment, ang)] {
            if v.len() != n {
                return Err(self.csv.shape_error(
                    row.step,
                    format!(
                        "joint {}: {what} has {} entries, the scene's have {n}",
                        row.joint,
                        v.len()
                    ),
                ));
            }
        }
        let line = &mut self.csv.line;
        line.push_str(&row.step.to_string());
        line.push(',');
        push_f64(line, row.t);
        line.push(',');
        line.push_str(&row.joint.to_string());
        for text in [row.name, row.body1, row.body2] {
            line.push(',');
            push_text(line, text);
        }
        for &x in row.impulse.iter().chain(row.moment) {
            line.push(',');
            push_f64(line, x);
        }
        line.push(',');
        push_f64(line, row.drift);
        let h = row.time_step;
        for &x in row.impulse.iter().chain(row.moment) {
            line.push(',');
            push_f64(line, x / h);
        }
        for value in [row.actuator, row.limit_impulse, row.friction_impulse] {
            line.push(',');
            if let Some(a) = value {
                push_f64(line, a);
            }
        }
        line.push('\n');
        self.csv.write_line()
    }

    /// Bytes of rows held in memory, not yet handed to the operating system.
    pub fn buffered(&self) -> usize {
        self.csv.buffered()
    }

    /// Hands the rows held to the operating system, in one write (see
    /// [`super::ContactsWriter::flush`]).
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
    fn headers_are_the_contract() {
        let dir = test_dir::fresh("joints-header");
        for (kind, expected) in [
            (
                BodyKind::Planar,
                "step,t,joint,name,body1,body2,impulse_x,impulse_y,moment,drift,force_x,\
                 force_y,torque,actuator,limit_impulse,friction_impulse\n",
            ),
            (
                BodyKind::Spatial,
                "step,t,joint,name,body1,body2,impulse_x,impulse_y,impulse_z,moment_x,\
                 moment_y,moment_z,drift,force_x,force_y,force_z,torque_x,torque_y,torque_z,actuator,\
                 limit_impulse,friction_impulse\n",
            ),
        ] {
            let path = dir.join("joints.csv");
            JointsWriter::create(&path, kind).unwrap().finish().unwrap();
            assert_eq!(fs::read_to_string(&path).unwrap(), expected);
        }
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn rows_round_trip_and_wrong_shapes_are_refused() {
        let dir = test_dir::fresh("joints-rows");
        let path = dir.join("joints.csv");
        let mut w = JointsWriter::create(&path, BodyKind::Planar).unwrap();
        let impulse = [0.1 + 0.2, -1.0 / 3.0];
        let moment = [2.5e-17];
        let row = JointRow {
            step: 4,
            t: 0.04,
            joint: 1,
            name: "pin, top",
            body1: "world",
            body2: "rod",
            impulse: &impulse,
            moment: &moment,
            drift: 1e-13 / 3.0,
            time_step: 0.01,
            actuator: None,
            limit_impulse: None,
            friction_impulse: Some(-0.25),
        };
        w.write_row(&row).unwrap();
        let bad = JointRow {
            moment: &impulse,
            ..row
        };
        let err = w.write_row(&bad).unwrap_err();
        assert!(err.to_string().contains("moment has 2 entries"), "{err}");
        w.finish().unwrap();
        let text = fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "the refused row is not written");
        let (head, tail) = lines[1].split_once(",\"pin, top\",").unwrap();
        assert_eq!(head, "4,0.04,1");
        let f: Vec<&str> = tail.split(',').collect();
        assert_eq!(&f[..2], ["world", "rod"]);
        let num = |s: &str| s.parse::<f64>().unwrap();
        assert_eq!(num(f[2]).to_bits(), impulse[0].to_bits());
        assert_eq!(num(f[3]).to_bits(), impulse[1].to_bits());
        assert_eq!(num(f[4]).to_bits(), moment[0].to_bits());
        assert_eq!(num(f[5]).to_bits(), (1e-13f64 / 3.0).to_bits());
        assert_eq!(num(f[6]), impulse[0] / 0.01);
        assert_eq!(num(f[7]), impulse[1] / 0.01);
        assert_eq!(num(f[8]), moment[0] / 0.01);
        // No actuator, no limits: empty fields; the friction impulse.
        assert_eq!(f[9], "");
        assert_eq!(f[10], "");
        assert_eq!(num(f[11]), -0.25);
        assert_eq!(f.len(), 12);
        let _ = fs::remove_dir_all(&dir);
    }
}
