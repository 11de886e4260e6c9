use implicit_contact::mcp::*;
use implicit_contact::mcp::test_problems::*;
fn main() {
    let mut p = StepLike::new(7);
    let warm = p.warm_start(1e-2, 11);
    let mut solver = PathSolver::default();
    let settings = PathSettings::default();
    for _ in 0..30000 { let mut z = warm.clone(); solver.solve(&mut p, &mut z, 1e-10, &settings); }
}
