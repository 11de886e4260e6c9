use implicit_contact::mcp::*;
use implicit_contact::mcp::test_problems::*;
use std::time::Instant;
fn main() {
    let mut p = StepLike::new(7);
    let n = p.dim();
    let warm = p.warm_start(1e-2, 11);
    let mut f = vec![0.0; n];
    let mut j = nalgebra::DMatrix::zeros(n, n);
    let t = Instant::now();
    for _ in 0..10000 { p.function(&warm, &mut f); }
    println!("F: {:.2} us", t.elapsed().as_secs_f64() * 1e6 / 10000.0);
    let t = Instant::now();
    for _ in 0..10000 { p.jacobian(&warm, &mut j); }
    println!("J: {:.2} us", t.elapsed().as_secs_f64() * 1e6 / 10000.0);
    let mut solver = PathSolver::default();
    let settings = PathSettings::default();
    let mut rep = None;
    let t = Instant::now();
    for _ in 0..2000 { let mut z = warm.clone(); rep = Some(solver.solve(&mut p, &mut z, 1e-10, &settings)); }
    println!("solve warm: {:.2} us  {}", t.elapsed().as_secs_f64() * 1e6 / 2000.0, rep.clone().unwrap());
    let mut s2 = settings.clone(); s2.crash_iteration_limit = 0;
    let t = Instant::now();
    for _ in 0..2000 { let mut z = warm.clone(); rep = Some(solver.solve(&mut p, &mut z, 1e-10, &s2)); }
    println!("solve warm nocrash: {:.2} us  {}", t.elapsed().as_secs_f64() * 1e6 / 2000.0, rep.clone().unwrap());
    for seed in 0..5 {
        let mut q = StepLike::new(seed);
        let w = q.warm_start(1e-3, 3);
        let mut z = w.clone();
        let r = solver.solve(&mut q, &mut z, 1e-10, &settings);
        println!("seed {seed} 1e-3: {r}");
        let mut z = vec![0.0; n];
        let r = solver.solve(&mut q, &mut z, 1e-10, &settings);
        println!("seed {seed} cold: {r}");
    }
    let (mut jp, _) = (Josephy::new(), 0);
    for c in suite() { if c.name == "josephy" && c.start_label == "mcplib-6" { println!("start {:?}", c.start);
        let mut z = c.start.clone();
        let r = solver.solve(&mut jp, &mut z, 1e-10, &settings); println!("josephy6 {r} z={z:?}"); } }
}
