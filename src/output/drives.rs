//! `drives.csv`: one row per step and driven body (written only for a scene with driven
//! bodies, which `trajectory.csv` does not list): its pose and twist at the end of the step,
//! and the wrench its drive exerted over the step to keep it on its prescribed motion.

use super::OutputError;
use super::format::{CsvFile, push_f64, push_text};
use super::trajectory::{BodyKind, BodyState};
use std::path::{Path, PathBuf};

/// One row of `drives.csv`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DriveRow<'a> {
    /// Step number (from 1).
    pub step: usize,
    /// Time at the end of the step.
    pub t: f64,
    /// The driven body's name.
    pub body: &'a str,
    /// Its pose and twist at the end of the step.
    pub state: BodyState,
    /// The required force (N, world frame; 2 or 3 entries).
    pub force: &'a [f64],
    /// The required torque about the body's origin (N·m; 1 entry in 2D, 3 in 3D).
    pub torque: &'a [f64],
}

/// Streams `drives.csv`. Columns: `step, t, body`, the body's state as in `trajectory.csv`
/// without the name prefix (`x, y, theta, vx, vy, w` in 2D; `x, y, z, qw, qx, qy, qz, vx, vy,
/// vz, wx, wy, wz` in 3D), then the required force `force_x, force_y, [force_z]` and torque
/// about the body's origin, `torque` (2D) or `torque_x, torque_y, torque_z` (3D): what the
/// drive exerts, the opposite of the contacts', joints' and actuators' mean wrench on the body
/// over the step (its own mass and weight are not modelled).
#[derive(Debug)]
pub struct DrivesWriter {
    csv: CsvFile,
    kind: BodyKind,
}

impl DrivesWriter {
    /// Creates (or truncates) the file at `path` with the header for `kind`.
    pub fn create(path: impl Into<PathBuf>, kind: BodyKind) -> Result<Self, OutputError> {
        let csv = CsvFile::create(path.into(), &Self::header(kind))?;
        Ok(Self { csv, kind })
    }

    /// The header's columns.
    pub fn header(kind: BodyKind) -> Vec<String> {
        let axes = &["x", "y", "z"][..kind.dim()];
        let mut columns: Vec<String> = ["step", "t", "body"]
            .iter()
            .chain(kind.state_columns())
            .map(|s| s.to_string())
            .collect();
        columns.extend(axes.iter().map(|a| format!("force_{a}")));
        match kind {
            BodyKind::Planar => columns.push("torque".into()),
            BodyKind::Spatial => columns.extend(axes.iter().map(|a| format!("torque_{a}"))),
        }
        columns
    }

    /// The file being written.
    pub fn path(&self) -> &Path {
        self.csv.path()
    }

    /// Writes one row; fails (writing nothing) if the row's shapes are not the scene's.
    pub fn write_row(&mut self, row: &DriveRow<'_>) -> Result<(), OutputError> {
        let dim = self.kind.dim();
        let ang = if dim == 2 { 1 } else { 3 };
        if row.state.kind() != self.kind || row.force.len() != dim || row.torque.len() != ang {
            return Err(self.csv.shape_error(
                row.step,
                format!(
                    "drive `{}`: a {:?} state, {} force and {} torque entries for a {dim}D scene",
                    row.body,
                    row.state.kind(),
                    row.force.len(),
                    row.torque.len()
                ),
            ));
        }
        let line = &mut self.csv.line;
        line.push_str(&row.step.to_string());
        line.push(',');
        push_f64(line, row.t);
        line.push(',');
        push_text(line, row.body);
        row.state.push_columns(line);
        let mut push = |x: f64| {
            line.push(',');
            push_f64(line, x);
        };
        row.force.iter().chain(row.torque).for_each(|&x| push(x));
        line.push('\n');
        self.csv.write_line()
    }

    /// Bytes of rows held in memory, not yet handed to the operating system.
    pub fn buffered(&self) -> usize {
        self.csv.buffered()
    }

    /// Hands the rows held to the operating system, in one write.
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

    #[test]
    fn headers_are_the_contract() {
        assert_eq!(
            DrivesWriter::header(BodyKind::Planar).join(","),
            "step,t,body,x,y,theta,vx,vy,w,force_x,force_y,torque"
        );
        assert_eq!(
            DrivesWriter::header(BodyKind::Spatial).join(","),
            "step,t,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz,force_x,force_y,force_z,torque_x,\
             torque_y,torque_z"
        );
    }
}
