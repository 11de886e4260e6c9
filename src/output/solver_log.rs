//! `solver.csv`: one row per step with the report of the step's solve, its counts summed over
//! every solve of the step ([`StepReport::work`]: sub-steps, cold starts, continuations), its
//! status the last solve's (an extension of the run's files; the contract's three files are
//! unchanged):
//! `step, t, status, solver, newton_iterations, crash_iterations, pivots,
//! function_evaluations, jacobian_evaluations, restarts, retries, residual, wall_time_s,
//! energy_projection_j, first_order_substeps, cold_starts, friction_continuations,
//! simplified_steps` (the kinetic energy RATTLE's energy projection changed in the step, 0
//! otherwise; the sub-steps RATTLE took first order, the sub-steps solved again from a cold
//! start and those then solved by continuation in `μ`, [`crate::stepper::StepReport`]; the
//! simplified Newton steps on a kept factorisation, [`SolveReport::simplified_steps`]).

use super::OutputError;
use super::format::{CsvFile, push_f64, push_text};
use crate::mcp::SolveReport;
use crate::stepper::StepReport;
use std::fmt::Write as _;
use std::path::PathBuf;

/// The file name of the solver log.
pub const SOLVER_FILE: &str = "solver.csv";

/// The columns of `solver.csv`.
pub const SOLVER_COLUMNS: [&str; 18] = [
    "step",
    "t",
    "status",
    "solver",
    "newton_iterations",
    "crash_iterations",
    "pivots",
    "function_evaluations",
    "jacobian_evaluations",
    "restarts",
    "retries",
    "residual",
    "wall_time_s",
    "energy_projection_j",
    "first_order_substeps",
    "cold_starts",
    "friction_continuations",
    "simplified_steps",
];

/// Streams `solver.csv`.
#[derive(Debug)]
pub struct SolverLogWriter {
    csv: CsvFile,
}

impl SolverLogWriter {
    /// Creates (or truncates) `path` and writes the header.
    pub fn create(path: impl Into<PathBuf>) -> Result<Self, OutputError> {
        let header: Vec<String> = SOLVER_COLUMNS.iter().map(|c| c.to_string()).collect();
        Ok(Self {
            csv: CsvFile::create(path.into(), &header)?,
        })
    }

    /// Writes the row of step `step` ending at time `t`: `report` is the step's solve (its
    /// counts over all attempts when the step was halved), `step_report` the step's (its
    /// halvings, wall time, energy projection, first-order sub-steps and cold starts).
    pub fn write_row(
        &mut self,
        step: usize,
        t: f64,
        report: &SolveReport,
        step_report: &StepReport,
    ) -> Result<(), OutputError> {
        let line = &mut self.csv.line;
        let _ = write!(line, "{step},");
        push_f64(line, t);
        line.push(',');
        push_text(line, &report.status.to_string());
        line.push(',');
        push_text(line, &report.solver.to_string());
        let _ = write!(
            line,
            ",{},{},{},{},{},{},{},",
            report.major_iterations,
            report.crash_iterations,
            report.pivots,
            report.function_evaluations,
            report.jacobian_evaluations,
            report.restarts,
            step_report.retries
        );
        push_f64(line, report.residual);
        line.push(',');
        push_f64(line, step_report.wall_time.as_secs_f64());
        line.push(',');
        push_f64(line, step_report.energy_projection);
        let _ = write!(
            line,
            ",{},{},{},{}",
            step_report.first_order_substeps,
            step_report.cold_starts,
            step_report.friction_continuations,
            report.simplified_steps
        );
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

    /// Flushes and syncs the file to disk.
    pub fn finish(self) -> Result<(), OutputError> {
        self.csv.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::{SolverKind, Status};

    #[test]
    fn header_and_a_row_round_trip() {
        let dir = std::env::temp_dir().join(format!("ic-solver-log-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(SOLVER_FILE);
        let mut w = SolverLogWriter::create(&path).unwrap();
        let mut r = SolveReport::new(SolverKind::PathSearch);
        r.status = Status::Converged;
        r.major_iterations = 3;
        r.pivots = 5;
        r.residual = 1.25e-11;
        let mut step = StepReport::new(SolverKind::PathSearch);
        step.retries = 1;
        step.wall_time = std::time::Duration::from_micros(25);
        step.energy_projection = -1.5e-7;
        step.first_order_substeps = 2;
        step.cold_starts = 3;
        w.write_row(7, 0.07, &r, &step).unwrap();
        w.finish().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next().unwrap(), SOLVER_COLUMNS.join(","));
        let row: Vec<&str> = lines.next().unwrap().split(',').collect();
        assert_eq!(row.len(), SOLVER_COLUMNS.len());
        assert_eq!(&row[..5], &["7", "0.07", "converged", "path", "3"]);
        assert_eq!(row[6], "5");
        assert_eq!(row[10], "1");
        // Shortest round-trip formatting: the residual reads back to the same bits.
        assert_eq!(row[11].parse::<f64>().unwrap(), 1.25e-11);
        assert_eq!(row[12].parse::<f64>().unwrap(), 2.5e-5);
        assert_eq!(row[13].parse::<f64>().unwrap(), -1.5e-7);
        assert_eq!(row[14], "2");
        assert_eq!(row[15], "3");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
