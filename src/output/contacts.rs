//! `contacts.csv`: one row per step and contact.

use super::OutputError;
use super::format::{CsvFile, push_f64, push_f64_or_empty, push_text};
use super::trajectory::BodyKind;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The state of a contact at the end of a step, the `mode` column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContactMode {
    /// No normal impulse: the bodies are apart (or just touching without pushing).
    Separated,
    /// Normal impulse and no slip: sticking (static friction).
    Rolling,
    /// Normal impulse and slip: the friction impulse is on the friction limit.
    Sliding,
}

impl ContactMode {
    /// The text in the `mode` column: `separated`, `rolling` or `sliding`.
    pub fn as_str(self) -> &'static str {
        match self {
            ContactMode::Separated => "separated",
            ContactMode::Rolling => "rolling",
            ContactMode::Sliding => "sliding",
        }
    }
}

impl fmt::Display for ContactMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ContactMode {
    type Err = String;

    /// Parses the text of the `mode` column.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "separated" => Ok(ContactMode::Separated),
            "rolling" => Ok(ContactMode::Rolling),
            "sliding" => Ok(ContactMode::Sliding),
            other => Err(format!(
                "unknown contact mode `{other}` (expected separated, rolling or sliding)"
            )),
        }
    }
}

/// The quasi-rigid columns of a contact: `deflection, spring_impulse, core_impulse`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct QuasiRigidImpulses {
    /// Deflection of the compliant layer.
    pub deflection: f64,
    /// Impulse of the spring, the paper's `p_ns`.
    pub spring_impulse: f64,
    /// Impulse of the rigid core, the paper's `p_nr`.
    pub core_impulse: f64,
}

/// One row of `contacts.csv`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactRow<'a> {
    /// Step number.
    pub step: usize,
    /// Time at the end of the step.
    pub t: f64,
    /// The contact's index, stable over the run (one per candidate pair of parts).
    pub contact: usize,
    /// The body holding `a1` (the paper's object F).
    pub body1: &'a str,
    /// The body holding `a2` (the paper's object G).
    pub body2: &'a str,
    /// Signed gap (negative: penetration).
    pub gap: f64,
    /// Normal impulse `p_n` (for quasi-rigid contacts `p_ns + p_nr`).
    pub normal_impulse: f64,
    /// Magnitude of the tangential friction impulse.
    pub friction_impulse: f64,
    /// Torsional friction impulse (0 where the model has none).
    pub torsion_impulse: f64,
    /// Tangential slip speed at the contact; NaN where it is meaningless (separated contacts)
    /// is written as an empty field.
    pub slip_speed: f64,
    /// Separated, rolling or sliding.
    pub mode: ContactMode,
    /// Closest point `a1` on body 1, world frame: 2 coordinates for planar, 3 for spatial.
    pub a1: &'a [f64],
    /// Closest point `a2` on body 2, world frame.
    pub a2: &'a [f64],
    /// Quasi-rigid data; `None` for a rigid contact (empty fields if the writer has
    /// quasi-rigid columns).
    pub quasi_rigid: Option<QuasiRigidImpulses>,
    /// The unit contact normal, from body 1 towards body 2 (2 or 3 coordinates).
    pub normal: &'a [f64],
    /// The friction impulse vector received by body 2 (2 or 3 coordinates, N·s).
    pub friction: &'a [f64],
    /// The step's length `h` (s): forces are impulses divided by it.
    pub time_step: f64,
}

/// Streams `contacts.csv`: the header at creation, then one row per call to
/// [`ContactsWriter::write_row`].
///
/// Columns: `step, t, contact, body1, body2, gap, normal_impulse, friction_impulse,
/// torsion_impulse, slip_speed, mode, a1_x, a1_y, [a1_z], a2_x, a2_y, [a2_z]`, then, if created
/// with quasi-rigid columns, `deflection, spring_impulse, core_impulse`, then (added after the
/// contract's columns, so that scripts reading by position keep working) `normal_x, normal_y,
/// [normal_z], friction_x, friction_y, [friction_z], normal_force, friction_force_x,
/// friction_force_y, [friction_force_z]` and in 3D `torsion_torque`: the unit normal, the friction
/// impulse vector on body 2 (N·s), and the forces `impulse / h` (N; the torque about the normal
/// in N·m). Units and meanings are listed in the README ("Output files"). Body names are quoted
/// (RFC 4180) only if they contain a comma, a quote, a line break or edge spaces.
#[derive(Debug)]
pub struct ContactsWriter {
    csv: CsvFile,
    kind: BodyKind,
    quasi_rigid: bool,
}

impl ContactsWriter {
    /// Creates (or truncates) the file at `path` and writes the header: points with 2
    /// coordinates for a planar scene, 3 for a spatial one, and the quasi-rigid columns if
    /// `quasi_rigid`.
    pub fn create(
        path: impl Into<PathBuf>,
        kind: BodyKind,
        quasi_rigid: bool,
    ) -> Result<Self, OutputError> {
        let csv = CsvFile::create(path.into(), &Self::header(kind, quasi_rigid))?;
        Ok(Self {
            csv,
            kind,
            quasi_rigid,
        })
    }

    /// The header's columns.
    pub fn header(kind: BodyKind, quasi_rigid: bool) -> Vec<String> {
        let mut columns: Vec<String> = [
            "step",
            "t",
            "contact",
            "body1",
            "body2",
            "gap",
            "normal_impulse",
            "friction_impulse",
            "torsion_impulse",
            "slip_speed",
            "mode",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let axes = &["x", "y", "z"][..kind.dim()];
        for point in ["a1", "a2"] {
            columns.extend(axes.iter().map(|a| format!("{point}_{a}")));
        }
        if quasi_rigid {
            columns.extend(
                ["deflection", "spring_impulse", "core_impulse"]
                    .iter()
                    .map(|s| s.to_string()),
            );
        }
        for vector in ["normal", "friction"] {
            columns.extend(axes.iter().map(|a| format!("{vector}_{a}")));
        }
        columns.push("normal_force".to_string());
        columns.extend(axes.iter().map(|a| format!("friction_force_{a}")));
        if kind.dim() == 3 {
            columns.push("torsion_torque".to_string());
        }
        columns
    }

    /// The file being written.
    pub fn path(&self) -> &Path {
        self.csv.path()
    }

    /// Writes one row. Fails if a point has the wrong number of coordinates or if the row
    /// carries quasi-rigid data the writer has no columns for (nothing is written then).
    pub fn write_row(&mut self, row: &ContactRow<'_>) -> Result<(), OutputError> {
        let dim = self.kind.dim();
        for (name, p) in [
            ("a1", row.a1),
            ("a2", row.a2),
            ("normal", row.normal),
            ("friction", row.friction),
        ] {
            if p.len() != dim {
                return Err(self.csv.shape_error(
                    row.step,
                    format!(
                        "contact {}: {name} has {} coordinates, the scene has {dim}",
                        row.contact,
                        p.len()
                    ),
                ));
            }
        }
        if row.quasi_rigid.is_some() && !self.quasi_rigid {
            return Err(self.csv.shape_error(
                row.step,
                format!(
                    "contact {} carries quasi-rigid data but the writer has no quasi-rigid columns",
                    row.contact
                ),
            ));
        }
        let line = &mut self.csv.line;
        line.push_str(&row.step.to_string());
        line.push(',');
        push_f64(line, row.t);
        line.push(',');
        line.push_str(&row.contact.to_string());
        line.push(',');
        push_text(line, row.body1);
        line.push(',');
        push_text(line, row.body2);
        for x in [
            row.gap,
            row.normal_impulse,
            row.friction_impulse,
            row.torsion_impulse,
        ] {
            line.push(',');
            push_f64(line, x);
        }
        line.push(',');
        push_f64_or_empty(line, row.slip_speed);
        line.push(',');
        line.push_str(row.mode.as_str());
        for &x in row.a1.iter().chain(row.a2) {
            line.push(',');
            push_f64(line, x);
        }
        if self.quasi_rigid {
            match row.quasi_rigid {
                Some(q) => {
                    for x in [q.deflection, q.spring_impulse, q.core_impulse] {
                        line.push(',');
                        push_f64(line, x);
                    }
                }
                None => line.push_str(",,,"),
            }
        }
        for &x in row.normal.iter().chain(row.friction) {
            line.push(',');
            push_f64(line, x);
        }
        let h = row.time_step;
        line.push(',');
        push_f64(line, row.normal_impulse / h);
        for &x in row.friction {
            line.push(',');
            push_f64(line, x / h);
        }
        if dim == 3 {
            line.push(',');
            push_f64(line, row.torsion_impulse / h);
        }
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

    fn header_of(kind: BodyKind, quasi_rigid: bool) -> String {
        let dir = test_dir::fresh("contacts-header");
        let path = dir.join("contacts.csv");
        ContactsWriter::create(&path, kind, quasi_rigid)
            .unwrap()
            .finish()
            .unwrap();
        let text = fs::read_to_string(&path).unwrap();
        let _ = fs::remove_dir_all(&dir);
        text
    }

    #[test]
    fn headers_are_the_contract() {
        let base = "step,t,contact,body1,body2,gap,normal_impulse,friction_impulse,\
                    torsion_impulse,slip_speed,mode,";
        let added2 = "normal_x,normal_y,friction_x,friction_y,normal_force,friction_force_x,\
                      friction_force_y";
        let added3 = "normal_x,normal_y,normal_z,friction_x,friction_y,friction_z,normal_force,\
                      friction_force_x,friction_force_y,friction_force_z,torsion_torque";
        assert_eq!(
            header_of(BodyKind::Planar, false),
            format!("{base}a1_x,a1_y,a2_x,a2_y,{added2}\n")
        );
        assert_eq!(
            header_of(BodyKind::Spatial, false),
            format!("{base}a1_x,a1_y,a1_z,a2_x,a2_y,a2_z,{added3}\n")
        );
        assert_eq!(
            header_of(BodyKind::Spatial, true),
            format!(
                "{base}a1_x,a1_y,a1_z,a2_x,a2_y,a2_z,deflection,spring_impulse,core_impulse,\
                 {added3}\n"
            )
        );
    }

    #[test]
    fn modes_print_and_parse() {
        for m in [
            ContactMode::Separated,
            ContactMode::Rolling,
            ContactMode::Sliding,
        ] {
            assert_eq!(m.to_string().parse::<ContactMode>(), Ok(m));
        }
        assert_eq!(ContactMode::Rolling.to_string(), "rolling");
        assert!("stuck".parse::<ContactMode>().is_err());
    }

    #[test]
    fn rows_round_trip_and_nan_slip_is_empty() {
        let dir = test_dir::fresh("contacts-rows");
        let path = dir.join("contacts.csv");
        let mut w = ContactsWriter::create(&path, BodyKind::Planar, true).unwrap();
        let a1 = [0.1 + 0.2, -1.0 / 3.0];
        let a2 = [1e-300, 2.5e17];
        let normal = [0.6, 0.8];
        let friction = [-0.8 * 0.3, 0.6 * 0.3];
        let sliding = ContactRow {
            step: 3,
            t: 0.003,
            contact: 1,
            body1: "floor",
            body2: "disc, left",
            gap: -1e-9 / 7.0,
            normal_impulse: 0.7,
            friction_impulse: 0.1 * 3.0,
            torsion_impulse: 0.0,
            slip_speed: 2.0 / 3.0,
            mode: ContactMode::Sliding,
            a1: &a1,
            a2: &a2,
            quasi_rigid: Some(QuasiRigidImpulses {
                deflection: 1e-4 / 3.0,
                spring_impulse: 0.3,
                core_impulse: 0.4,
            }),
            normal: &normal,
            friction: &friction,
            time_step: 0.01,
        };
        w.write_row(&sliding).unwrap();
        let separated = ContactRow {
            mode: ContactMode::Separated,
            slip_speed: f64::NAN,
            quasi_rigid: None,
            gap: 0.5,
            ..sliding
        };
        w.write_row(&separated).unwrap();
        w.finish().unwrap();

        let text = fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        // body2 is quoted because of its comma; split the quoted field out by hand.
        let (head, tail) = lines[1].split_once(",\"disc, left\",").unwrap();
        assert_eq!(head, "3,0.003,1,floor");
        let f: Vec<&str> = tail.split(',').collect();
        let num = |s: &str| s.parse::<f64>().unwrap().to_bits();
        assert_eq!(num(f[0]), sliding.gap.to_bits());
        assert_eq!(num(f[1]), sliding.normal_impulse.to_bits());
        assert_eq!(num(f[2]), sliding.friction_impulse.to_bits());
        assert_eq!(num(f[3]), 0.0f64.to_bits());
        assert_eq!(num(f[4]), sliding.slip_speed.to_bits());
        assert_eq!(f[5], "sliding");
        let points: Vec<u64> = f[6..10].iter().map(|s| num(s)).collect();
        let expected: Vec<u64> = a1.iter().chain(&a2).map(|x| x.to_bits()).collect();
        assert_eq!(points, expected);
        assert_eq!(num(f[10]), (1e-4f64 / 3.0).to_bits());
        let added: Vec<f64> = f[13..].iter().map(|s| s.parse().unwrap()).collect();
        assert_eq!(added[..4], [0.6, 0.8, -0.8 * 0.3, 0.6 * 0.3]);
        // Forces: impulse / h, in newtons.
        assert_eq!(added[4], 0.7 / 0.01);
        assert_eq!(added[5..], [-0.8 * 0.3 / 0.01, 0.6 * 0.3 / 0.01]);
        assert_eq!(f.len(), 13 + 7);

        let (_, tail) = lines[2].split_once(",\"disc, left\",").unwrap();
        let f: Vec<&str> = tail.split(',').collect();
        assert_eq!(f[4], "", "NaN slip speed is an empty field");
        assert_eq!(f[5], "separated");
        assert_eq!(
            &f[10..13],
            ["", "", ""],
            "rigid contact: empty quasi-rigid fields"
        );
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn mismatched_rows_are_refused() {
        let dir = test_dir::fresh("contacts-bad");
        let path = dir.join("contacts.csv");
        let mut w = ContactsWriter::create(&path, BodyKind::Spatial, false).unwrap();
        let p2 = [0.0, 0.0];
        let p3 = [0.0, 0.0, 0.0];
        let row = ContactRow {
            step: 4,
            t: 0.0,
            contact: 0,
            body1: "a",
            body2: "b",
            gap: 0.0,
            normal_impulse: 0.0,
            friction_impulse: 0.0,
            torsion_impulse: 0.0,
            slip_speed: f64::NAN,
            mode: ContactMode::Separated,
            a1: &p2,
            a2: &p3,
            quasi_rigid: None,
            normal: &p3,
            friction: &p3,
            time_step: 0.01,
        };
        let msg = w.write_row(&row).unwrap_err().to_string();
        assert!(msg.contains("contacts.csv") && msg.contains("a1"), "{msg}");
        let qr = ContactRow {
            a1: &p3,
            quasi_rigid: Some(QuasiRigidImpulses::default()),
            ..row
        };
        let msg = w.write_row(&qr).unwrap_err().to_string();
        assert!(msg.contains("quasi-rigid"), "{msg}");
        w.finish().unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap().lines().count(), 1);
        let _ = fs::remove_dir_all(&dir);
    }
}
