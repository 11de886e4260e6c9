//! The one halving policy of every stepper: a (sub-)step that fails is retried as two halves,
//! recursively, at most `max_halvings` deep; a step fails only when an attempt at the last depth
//! fails, and then the stepper is back at the state before the failed attempt. The step's
//! residual is the worst of the attempts it applied: an attempt a halving replaced is not part
//! of the step (its iterations are counted).

use super::report::StepReport;

/// A stepper's attempt at one (sub-)step, for [`advance`].
pub(crate) trait Halving {
    /// How deep a step may be halved.
    fn max_halvings(&self) -> usize;
    /// Solves and, on success, applies a (sub-)step of `h` at halving depth `depth`, adding
    /// its iterations to `report`; on failure leaves the state as it was. Returns whether it
    /// was applied and the attempt's residual (`NaN` if there is none).
    fn attempt(&mut self, h: f64, depth: usize, report: &mut StepReport) -> (bool, f64);
}

/// Advances `stepper` by `h` under the halving policy (see the module docs); true on success.
pub(crate) fn advance<T: Halving>(
    stepper: &mut T,
    h: f64,
    depth: usize,
    report: &mut StepReport,
) -> bool {
    let (applied, residual) = stepper.attempt(h, depth, report);
    let last = depth >= stepper.max_halvings();
    if applied || last {
        let residual = if residual.is_nan() {
            f64::INFINITY
        } else {
            residual
        };
        report.residual = report.residual.max(residual);
    }
    if applied || last {
        return applied;
    }
    report.retries += 1;
    advance(stepper, 0.5 * h, depth + 1, report) && advance(stepper, 0.5 * h, depth + 1, report)
}
