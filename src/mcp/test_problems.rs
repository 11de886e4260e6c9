//! Reference complementarity problems from the literature, with exact analytic Jacobians.
//!
//! Every problem implements [`McpProblem`]; [`suite`] lists every problem with each of its
//! standard starting points as a [`Case`], together with the known solutions, so tests,
//! examples (`examples/mcp_suite.rs`) and benchmarks all run the same set.
//!
//! | problem | n | type | source |
//! |---|---|---|---|
//! | [`KojimaShindo`] | 4 | NCP, one degenerate and one nondegenerate solution | Kojima & Shindo (1986); MCPLIB `kojshin` |
//! | [`Josephy`] | 4 | NCP | Josephy (1979); MCPLIB `josephy` |
//! | [`Josephy::bounded`] | 4 | box MCP, solution on an upper bound | this module (variant of the above) |
//! | [`Mathiesen`] | 4 | NCP, ray of solutions, singular Jacobian at all of them | Mathiesen (1987) |
//! | [`Mathiesen::numeraire`] | 3 | NCP, one price fixed, nonsingular | Mathiesen (1987), numeraire form |
//! | [`NashCournot::harker5`] | 5 | NCP | Murphy, Sherali & Soyster (1982); Harker (1988) |
//! | [`NashCournot::mcplib10`] | 10 | NCP | MCPLIB `nash` |
//! | [`PowellBadlyScaled`] | 2 | square system | Moré, Garbow & Hillstrom (1981), problem 3 |
//! | [`box_qp`] | 6 | box-constrained LMCP (QP KKT) | this module, closed-form solution |
//! | [`degenerate_lcp`] | 3 | LCP with a degenerate unique solution | this module |
//! | [`murty_lcp`] | n | LCP, exponential for Lemke's method | Murty (1978) |
//! | [`random_p_lcp`] | n | LCP with a P-matrix, reproducible from a seed | this module |
//! | [`StepLike`] | 30 | "time-step shaped" MCP | this module, solution by construction |
//!
//! All random data comes from [`SplitMix64`], so the library needs no `rand` dependency and the
//! problems are identical on every platform.

use super::problem::{DenseJacobian, LinearMcp, McpProblem};
use nalgebra::DMatrix;

/// One problem with one starting point: an entry of [`suite`].
pub struct Case {
    /// Problem name (unique per problem, shared by all its starting points).
    pub name: &'static str,
    /// Name of the starting point (for MCPLIB problems, `mcplib-k` is the `k`-th initial point
    /// of the MCPLIB model).
    pub start_label: &'static str,
    /// The starting point (inside the box).
    pub start: Vec<f64>,
    /// Known solutions (for problems with a continuum of solutions: representatives).
    pub known_solutions: Vec<Vec<f64>>,
    /// Bound on the natural residual of the stored known solutions (their entries are rounded
    /// to `f64`, so the residual is not exactly zero).
    pub solution_tolerance: f64,
    /// The problem.
    pub problem: Box<dyn McpProblem + Send>,
}

impl Case {
    /// Dimension of the problem.
    pub fn dim(&self) -> usize {
        self.problem.dim()
    }
}

impl std::fmt::Debug for Case {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Case")
            .field("name", &self.name)
            .field("start_label", &self.start_label)
            .field("n", &self.problem.dim())
            .field("start", &self.start)
            .field("known_solutions", &self.known_solutions)
            .finish_non_exhaustive()
    }
}

// ---------------------------------------------------------------------------------------------
// Random numbers
// ---------------------------------------------------------------------------------------------

/// SplitMix64 (Steele, Lea & Flood 2014; the seeding generator of `xoshiro`): a tiny,
/// deterministic 64-bit generator, good enough for reproducible test data.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator with the given seed.
    pub fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `[a, b)`.
    pub fn uniform(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.next_f64()
    }
}

fn ncp_bounds(n: usize) -> (Vec<f64>, Vec<f64>) {
    (vec![0.0; n], vec![f64::INFINITY; n])
}

macro_rules! bounds_impl {
    () => {
        fn lower_bounds(&self) -> &[f64] {
            &self.lower
        }
        fn upper_bounds(&self) -> &[f64] {
            &self.upper
        }
    };
}

/// The eight initial points of the MCPLIB models `kojshin` and `josephy` (identical in both),
/// as listed in the AMPL translation of MCPLIB (`kojshin.mod`, `josephy.mod`: parameter
/// `xinit`, one column per point).
pub const MCPLIB_KOJSHIN_STARTS: [[f64; 4]; 8] = [
    [0.0, 0.0, 0.0, 0.0],
    [1.0, 1.0, 1.0, 1.0],
    [100.0, 100.0, 100.0, 100.0],
    [1.0, 0.0, 1.0, 0.0],
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 1.0, 0.0],
    [0.0, 1.0, 0.0, 1.0],
    [1.25, 0.0, 0.0, 0.5],
];

const MCPLIB_LABELS: [&str; 8] = [
    "mcplib-1", "mcplib-2", "mcplib-3", "mcplib-4", "mcplib-5", "mcplib-6", "mcplib-7", "mcplib-8",
];

// ---------------------------------------------------------------------------------------------
// Kojima–Shindo
// ---------------------------------------------------------------------------------------------

/// The Kojima–Shindo NCP (n = 4): `0 ≤ z ⊥ F(z) ≥ 0` with
///
/// ```text
/// F1 = 3 z1² + 2 z1 z2 + 2 z2² + z3 + 3 z4 − 6
/// F2 = 2 z1² + z1 + z2² + 10 z3 + 2 z4 − 2
/// F3 = 3 z1² + z1 z2 + 2 z2² + 2 z3 + 9 z4 − 9
/// F4 = z1² + 3 z2² + 2 z3 + 3 z4 − 3
/// ```
///
/// Two solutions: the degenerate `(√6/2, 0, 0, 1/2)` (`z3 = F3 = 0`) and the nondegenerate
/// `(1, 0, 3, 0)`. Source: M. Kojima and S. Shindo, "Extensions of Newton and quasi-Newton
/// methods to systems of PC¹ equations", J. Oper. Res. Soc. Japan 29 (1986) 352–374; MCPLIB
/// model `kojshin` (Dirkse & Ferris, "MCPLIB: a collection of nonlinear mixed complementarity
/// problems", Optim. Methods Softw. 5 (1995) 319–345), whose eight starting points are
/// [`MCPLIB_KOJSHIN_STARTS`].
#[derive(Debug, Clone)]
pub struct KojimaShindo {
    lower: Vec<f64>,
    upper: Vec<f64>,
}

impl KojimaShindo {
    /// The NCP.
    pub fn new() -> Self {
        let (lower, upper) = ncp_bounds(4);
        Self { lower, upper }
    }

    /// The degenerate solution `(√6/2, 0, 0, 1/2)`.
    pub fn degenerate_solution() -> Vec<f64> {
        vec![6f64.sqrt() / 2.0, 0.0, 0.0, 0.5]
    }

    /// The nondegenerate solution `(1, 0, 3, 0)`.
    pub fn nondegenerate_solution() -> Vec<f64> {
        vec![1.0, 0.0, 3.0, 0.0]
    }
}

impl Default for KojimaShindo {
    fn default() -> Self {
        Self::new()
    }
}

impl McpProblem for KojimaShindo {
    fn dim(&self) -> usize {
        4
    }
    bounds_impl!();
    fn function(&mut self, z: &[f64], f: &mut [f64]) {
        let (a, b, c, d) = (z[0], z[1], z[2], z[3]);
        f[0] = 3.0 * a * a + 2.0 * a * b + 2.0 * b * b + c + 3.0 * d - 6.0;
        f[1] = 2.0 * a * a + a + b * b + 10.0 * c + 2.0 * d - 2.0;
        f[2] = 3.0 * a * a + a * b + 2.0 * b * b + 2.0 * c + 9.0 * d - 9.0;
        f[3] = a * a + 3.0 * b * b + 2.0 * c + 3.0 * d - 3.0;
    }
    fn jacobian(&mut self, z: &[f64], jac: &mut DenseJacobian) {
        let (a, b) = (z[0], z[1]);
        let rows = [
            [6.0 * a + 2.0 * b, 2.0 * a + 4.0 * b, 1.0, 3.0],
            [4.0 * a + 1.0, 2.0 * b, 10.0, 2.0],
            [6.0 * a + b, a + 4.0 * b, 2.0, 9.0],
            [2.0 * a, 6.0 * b, 2.0, 3.0],
        ];
        fill(jac, &rows);
    }
}

fn fill<const N: usize>(jac: &mut DenseJacobian, rows: &[[f64; N]; N]) {
    for (i, row) in rows.iter().enumerate() {
        for (j, v) in row.iter().enumerate() {
            jac[(i, j)] = *v;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Josephy
// ---------------------------------------------------------------------------------------------

/// Josephy's NCP (n = 4), Kojima's example as used by Josephy:
///
/// ```text
/// F1 = 3 z1² + 2 z1 z2 + 2 z2² + z3 + 3 z4 − 6
/// F2 = 2 z1² + z1 + z2² + 3 z3 + 2 z4 − 2
/// F3 = 3 z1² + z1 z2 + 2 z2² + 2 z3 + 3 z4 − 1
/// F4 = z1² + 3 z2² + 2 z3 + 3 z4 − 3
/// ```
///
/// Solution `(√6/2, 0, 0, 1/2)` (nondegenerate). Source: N. H. Josephy, "Newton's method for
/// generalized equations", Technical Summary Report 1965, Mathematics Research Center, University
/// of Wisconsin (1979); MCPLIB model `josephy` (data `A`, `B`, `c` of `josephy.mod`), with the
/// starting points [`MCPLIB_KOJSHIN_STARTS`].
///
/// [`Josephy::bounded`] adds finite upper bounds `u = (6/5, 5, 5, 5)`: the solution moves to
/// `(6/5, 0, 0, 13/25)` with `z1` at its upper bound (`F1 = −3/25 < 0`), `z4` interior and
/// `z2`, `z3` at their lower bounds with `F2 = 78/25`, `F3 = 122/25` (strictly complementary).
#[derive(Debug, Clone)]
pub struct Josephy {
    lower: Vec<f64>,
    upper: Vec<f64>,
}

impl Josephy {
    /// The NCP.
    pub fn new() -> Self {
        let (lower, upper) = ncp_bounds(4);
        Self { lower, upper }
    }

    /// The box-constrained variant `0 ≤ z ≤ (6/5, 5, 5, 5)`.
    pub fn bounded() -> Self {
        Self {
            lower: vec![0.0; 4],
            upper: vec![1.2, 5.0, 5.0, 5.0],
        }
    }

    /// Solution of the NCP.
    pub fn solution() -> Vec<f64> {
        vec![6f64.sqrt() / 2.0, 0.0, 0.0, 0.5]
    }

    /// Solution of the bounded variant, `(6/5, 0, 0, 13/25)`.
    pub fn bounded_solution() -> Vec<f64> {
        vec![1.2, 0.0, 0.0, 0.52]
    }
}

impl Default for Josephy {
    fn default() -> Self {
        Self::new()
    }
}

impl McpProblem for Josephy {
    fn dim(&self) -> usize {
        4
    }
    bounds_impl!();
    fn function(&mut self, z: &[f64], f: &mut [f64]) {
        let (a, b, c, d) = (z[0], z[1], z[2], z[3]);
        f[0] = 3.0 * a * a + 2.0 * a * b + 2.0 * b * b + c + 3.0 * d - 6.0;
        f[1] = 2.0 * a * a + a + b * b + 3.0 * c + 2.0 * d - 2.0;
        f[2] = 3.0 * a * a + a * b + 2.0 * b * b + 2.0 * c + 3.0 * d - 1.0;
        f[3] = a * a + 3.0 * b * b + 2.0 * c + 3.0 * d - 3.0;
    }
    fn jacobian(&mut self, z: &[f64], jac: &mut DenseJacobian) {
        let (a, b) = (z[0], z[1]);
        let rows = [
            [6.0 * a + 2.0 * b, 2.0 * a + 4.0 * b, 1.0, 3.0],
            [4.0 * a + 1.0, 2.0 * b, 3.0, 2.0],
            [6.0 * a + b, a + 4.0 * b, 2.0, 3.0],
            [2.0 * a, 6.0 * b, 2.0, 3.0],
        ];
        fill(jac, &rows);
    }
}

// ---------------------------------------------------------------------------------------------
// Mathiesen
// ---------------------------------------------------------------------------------------------

/// Mathiesen's Walrasian equilibrium: one activity `y` turning goods 2 and 3 into good 1
/// (technology `(1, −1, −1)`), one consumer with endowments `b = (0, 5, 3)` and Cobb–Douglas
/// budget shares `s = (0.9, 0.1, 0)`. With income `I = 5 p2 + 3 p3`:
///
/// ```text
/// y  ≥ 0 ⊥ −p1 + p2 + p3              ≥ 0   (zero profit)
/// p1 ≥ 0 ⊥ y − 0.9 I / p1             ≥ 0   (market of good 1)
/// p2 ≥ 0 ⊥ 5 − y − 0.1 I / p2         ≥ 0   (market of good 2)
/// p3 ≥ 0 ⊥ 3 − y                      ≥ 0   (market of good 3)
/// ```
///
/// Variables `z = (y, p1, p2, p3)`. Prices are determined up to scale: every
/// `(3, 6λ, λ, 5λ)`, `λ > 0`, is a solution, and because `F` is positively homogeneous in `p`
/// the Jacobian is singular at each of them (`J · (0, p) = 0`). `F` is undefined at `p1 = 0` or
/// `p2 = 0` (it returns ±∞/NaN there). Source: L. Mathiesen, "An algorithm based on a sequence
/// of linear complementarity problems applied to a Walrasian equilibrium model: an example",
/// Math. Programming 37 (1987) 1–18 (data and the solution `y = 3`, `p = (6, 1, 5)` as in the
/// GAMS EMP example `mopec_mathiesen`); the MCPLIB models `mathisum`/`mathinum` are its
/// normalised and numeraire forms. The starting points used here are this module's choice.
///
/// [`Mathiesen::numeraire`] fixes `p1 = 1` and drops the (by Walras' law redundant) market of
/// good 1: `z = (y, p2, p3)`, unique solution `(3, 1/6, 5/6)` with a nonsingular Jacobian.
#[derive(Debug, Clone)]
pub struct Mathiesen {
    numeraire: bool,
    lower: Vec<f64>,
    upper: Vec<f64>,
}

impl Mathiesen {
    /// The four-variable NCP with free price level.
    pub fn new() -> Self {
        let (lower, upper) = ncp_bounds(4);
        Self {
            numeraire: false,
            lower,
            upper,
        }
    }

    /// The three-variable NCP with `p1 = 1` fixed.
    pub fn numeraire() -> Self {
        let (lower, upper) = ncp_bounds(3);
        Self {
            numeraire: true,
            lower,
            upper,
        }
    }

    /// The solution `(3, 6λ, λ, 5λ)` of the four-variable problem.
    pub fn solution(lambda: f64) -> Vec<f64> {
        vec![3.0, 6.0 * lambda, lambda, 5.0 * lambda]
    }

    /// The solution `(3, 1/6, 5/6)` of the numeraire form.
    pub fn numeraire_solution() -> Vec<f64> {
        vec![3.0, 1.0 / 6.0, 5.0 / 6.0]
    }
}

impl Default for Mathiesen {
    fn default() -> Self {
        Self::new()
    }
}

impl McpProblem for Mathiesen {
    fn dim(&self) -> usize {
        if self.numeraire { 3 } else { 4 }
    }
    bounds_impl!();
    fn function(&mut self, z: &[f64], f: &mut [f64]) {
        if self.numeraire {
            let (y, p2, p3) = (z[0], z[1], z[2]);
            let income = 5.0 * p2 + 3.0 * p3;
            f[0] = -1.0 + p2 + p3;
            f[1] = 5.0 - y - 0.1 * income / p2;
            f[2] = 3.0 - y;
        } else {
            let (y, p1, p2, p3) = (z[0], z[1], z[2], z[3]);
            let income = 5.0 * p2 + 3.0 * p3;
            f[0] = -p1 + p2 + p3;
            f[1] = y - 0.9 * income / p1;
            f[2] = 5.0 - y - 0.1 * income / p2;
            f[3] = 3.0 - y;
        }
    }
    fn jacobian(&mut self, z: &[f64], jac: &mut DenseJacobian) {
        if self.numeraire {
            let (p2, p3) = (z[1], z[2]);
            // 0.1 (5 p2 + 3 p3) / p2 = 0.5 + 0.3 p3 / p2
            let rows = [
                [0.0, 1.0, 1.0],
                [-1.0, 0.3 * p3 / (p2 * p2), -0.3 / p2],
                [-1.0, 0.0, 0.0],
            ];
            fill(jac, &rows);
        } else {
            let (p1, p2, p3) = (z[1], z[2], z[3]);
            let income = 5.0 * p2 + 3.0 * p3;
            let rows = [
                [0.0, -1.0, 1.0, 1.0],
                [1.0, 0.9 * income / (p1 * p1), -4.5 / p1, -2.7 / p1],
                [-1.0, 0.0, 0.3 * p3 / (p2 * p2), -0.3 / p2],
                [-1.0, 0.0, 0.0, 0.0],
            ];
            fill(jac, &rows);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Nash–Cournot
// ---------------------------------------------------------------------------------------------

/// Nash–Cournot oligopoly: firms choose quantities `q ≥ 0`; with total `Q = Σ q_j`, inverse
/// demand `p(Q) = (d̄/Q)^{1/γ}` and marginal cost `c_i + (L_i q_i)^{1/β_i}` (the derivative of
/// `c_i q + β_i/(1+β_i) L_i^{1/β_i} q^{(1+β_i)/β_i}`), each firm's first-order condition is the
/// NCP
///
/// ```text
/// q_i ≥ 0 ⊥ c_i + (L_i q_i)^{1/β_i} − p(Q) − q_i p'(Q) ≥ 0,   p'(Q) = −p(Q) / (γ Q).
/// ```
///
/// Sources: F. H. Murphy, H. D. Sherali and A. L. Soyster, "A mathematical programming approach
/// for determining oligopolistic market equilibrium", Math. Programming 24 (1982) 92–106;
/// P. T. Harker, "Accelerating the convergence of the diagonalization and projection algorithms
/// for finite-dimensional variational inequalities", Math. Programming 41 (1988) 29–59; MCPLIB
/// model `nash`. `F` is undefined at `Q = 0`.
#[derive(Debug, Clone)]
pub struct NashCournot {
    c: Vec<f64>,
    l: Vec<f64>,
    beta: Vec<f64>,
    gamma: f64,
    dbar: f64,
    lower: Vec<f64>,
    upper: Vec<f64>,
}

impl NashCournot {
    /// A market with the given data (`d̄ = 5000` in both classic instances).
    pub fn new(c: Vec<f64>, l: Vec<f64>, beta: Vec<f64>, gamma: f64, dbar: f64) -> Self {
        let (lower, upper) = ncp_bounds(c.len());
        Self {
            c,
            l,
            beta,
            gamma,
            dbar,
            lower,
            upper,
        }
    }

    /// The five-firm instance of Murphy–Sherali–Soyster / Harker: `c = (10, 8, 6, 4, 2)`,
    /// `L = 5`, `β = (1.2, 1.1, 1, 0.9, 0.8)`, `γ = 1.1`, `d̄ = 5000`. Standard start `q = 10`.
    pub fn harker5() -> Self {
        Self::new(
            vec![10.0, 8.0, 6.0, 4.0, 2.0],
            vec![5.0; 5],
            vec![1.2, 1.1, 1.0, 0.9, 0.8],
            1.1,
            5000.0,
        )
    }

    /// Solution of [`NashCournot::harker5`] (Newton's method to full precision; agrees with the
    /// published `(15.4293, 12.4986, 9.6635, 7.1651, 5.1326)`).
    pub fn harker5_solution() -> Vec<f64> {
        vec![
            15.429307572204468,
            12.498581730617945,
            9.66347297156873,
            7.165093512890885,
            5.132566179254104,
        ]
    }

    /// The ten-firm MCPLIB `nash` instance (also the GAMS model `nashemp`):
    /// `c = (5, 3, 8, 5, 1, 3, 7, 4, 6, 3)`, `L = 10`,
    /// `β = (1.2, 1, 0.9, 0.6, 1.5, 1, 0.7, 1.1, 0.95, 0.75)`, `γ = 1.2`, `d̄ = 5000`.
    /// Standard start `q = 1`.
    pub fn mcplib10() -> Self {
        Self::new(
            vec![5.0, 3.0, 8.0, 5.0, 1.0, 3.0, 7.0, 4.0, 6.0, 3.0],
            vec![10.0; 10],
            vec![1.2, 1.0, 0.9, 0.6, 1.5, 1.0, 0.7, 1.1, 0.95, 0.75],
            1.2,
            5000.0,
        )
    }

    /// Solution of [`NashCournot::mcplib10`] (Newton's method to full precision; every firm
    /// produces).
    pub fn mcplib10_solution() -> Vec<f64> {
        vec![
            7.441546697058735,
            4.097810447347321,
            2.5906437474389525,
            0.9353857680722274,
            17.948952342006613,
            4.097810447347321,
            1.304725757680007,
            5.590082543557631,
            3.222179453824616,
            1.6770943168393269,
        ]
    }
}

impl McpProblem for NashCournot {
    fn dim(&self) -> usize {
        self.c.len()
    }
    bounds_impl!();
    fn function(&mut self, q: &[f64], f: &mut [f64]) {
        let total: f64 = q.iter().sum();
        let p = (self.dbar / total).powf(1.0 / self.gamma);
        let k = p / (self.gamma * total);
        for i in 0..self.c.len() {
            f[i] = self.c[i] + (self.l[i] * q[i]).powf(1.0 / self.beta[i]) - p + q[i] * k;
        }
    }
    fn jacobian(&mut self, q: &[f64], jac: &mut DenseJacobian) {
        let n = self.c.len();
        let g = self.gamma;
        let total: f64 = q.iter().sum();
        let p = (self.dbar / total).powf(1.0 / g);
        // dp/dQ = −p/(γQ); d/dQ [p/(γQ)] = −p (1 + γ)/(γ² Q²).
        let dp = -p / (g * total);
        let dk = -p * (1.0 + g) / (g * g * total * total);
        let k = p / (g * total);
        for j in 0..n {
            for i in 0..n {
                jac[(i, j)] = -dp + q[i] * dk;
            }
        }
        for i in 0..n {
            let b = self.beta[i];
            let mc = if q[i] == 0.0 && b > 1.0 {
                f64::INFINITY
            } else {
                (1.0 / b) * self.l[i].powf(1.0 / b) * q[i].powf(1.0 / b - 1.0)
            };
            jac[(i, i)] += k + mc;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Powell
// ---------------------------------------------------------------------------------------------

/// Powell's badly scaled function as a square system (all bounds infinite):
///
/// ```text
/// 10⁴ x1 x2 − 1 = 0,   exp(−x1) + exp(−x2) − 1.0001 = 0,
/// ```
///
/// standard start `(0, 1)`, solution `≈ (1.0981593296997e−5, 9.106146739867)`. Source:
/// J. J. Moré, B. S. Garbow and K. E. Hillstrom, "Testing unconstrained optimization software",
/// ACM TOMS 7 (1981) 17–41, problem 3 (M. J. D. Powell, 1970).
#[derive(Debug, Clone)]
pub struct PowellBadlyScaled {
    lower: Vec<f64>,
    upper: Vec<f64>,
}

impl PowellBadlyScaled {
    /// The system.
    pub fn new() -> Self {
        Self {
            lower: vec![f64::NEG_INFINITY; 2],
            upper: vec![f64::INFINITY; 2],
        }
    }

    /// The solution with `x1 < x2` (the system is symmetric under swapping `x1`, `x2`).
    pub fn solution() -> Vec<f64> {
        vec![1.0981593296997559e-5, 9.106146739867036]
    }
}

impl Default for PowellBadlyScaled {
    fn default() -> Self {
        Self::new()
    }
}

impl McpProblem for PowellBadlyScaled {
    fn dim(&self) -> usize {
        2
    }
    bounds_impl!();
    fn function(&mut self, x: &[f64], f: &mut [f64]) {
        f[0] = 1e4 * x[0] * x[1] - 1.0;
        f[1] = (-x[0]).exp() + (-x[1]).exp() - 1.0001;
    }
    fn jacobian(&mut self, x: &[f64], jac: &mut DenseJacobian) {
        let rows = [[1e4 * x[1], 1e4 * x[0]], [-(-x[0]).exp(), -(-x[1]).exp()]];
        fill(jac, &rows);
    }
}

// ---------------------------------------------------------------------------------------------
// Linear problems
// ---------------------------------------------------------------------------------------------

/// KKT conditions of the bound-constrained QP `min ½ zᵀQz + cᵀz, l ≤ z ≤ u` as the linear MCP
/// `F(z) = Qz + c`, with `n = 6`, `Q` tridiagonal (4 on the diagonal, 1 beside it) plus
/// `Q₁₆ = Q₆₁ = 1/2` (symmetric, strictly diagonally dominant, so positive definite and the
/// solution unique), `l = (−1, −1, −1, 0, 0, 0)`, `u = (1, 1, 1, 2, 2, 2)`.
///
/// `c` is built from the closed-form solution `z* = (−1, 1, 1/2, 0, 2, 5/4)` and the multipliers
/// `F(z*) = (2, −1, 0, 3, −2, 0)`: `z1`, `z4` at their lower bounds with `F > 0`, `z2`, `z5` at
/// their upper bounds with `F < 0`, `z3`, `z6` interior with `F = 0`; `c = F(z*) − Q z*`. All data
/// are dyadic, so `F(z*)` is exact in floating point. Returns the problem and `z*`.
pub fn box_qp() -> (LinearMcp, Vec<f64>) {
    let n = 6;
    let mut q = DMatrix::zeros(n, n);
    for i in 0..n {
        q[(i, i)] = 4.0;
        if i + 1 < n {
            q[(i, i + 1)] = 1.0;
            q[(i + 1, i)] = 1.0;
        }
    }
    q[(0, 5)] = 0.5;
    q[(5, 0)] = 0.5;
    let z = vec![-1.0, 1.0, 0.5, 0.0, 2.0, 1.25];
    let w = [2.0, -1.0, 0.0, 3.0, -2.0, 0.0];
    let qz = &q * nalgebra::DVector::from_column_slice(&z);
    let c: Vec<f64> = (0..n).map(|i| w[i] - qz[i]).collect();
    let problem = LinearMcp {
        m: q,
        q: c,
        lower: vec![-1.0, -1.0, -1.0, 0.0, 0.0, 0.0],
        upper: vec![1.0, 1.0, 1.0, 2.0, 2.0, 2.0],
    };
    (problem, z)
}

/// A degenerate LCP `0 ≤ z ⊥ Mz + q ≥ 0` with
///
/// ```text
///     [2 1 0]        [−2]
/// M = [1 2 1],   q = [−1],   unique solution z* = (1, 0, 0), w* = Mz* + q = (0, 0, 1),
///     [0 1 2]        [ 1]
/// ```
///
/// `M` is symmetric positive definite, so the solution is unique, but it is degenerate:
/// `z2 = w2 = 0` (no strict complementarity; the basis at the solution is not unique, which is
/// what makes pivoting methods cycle-prone and the Newton systems of smooth reformulations
/// singular in the limit). Constructed for this suite in the style of the degenerate examples of
/// Cottle, Pang & Stone, *The Linear Complementarity Problem* (1992), §4.9. Returns the problem
/// and `z*`.
pub fn degenerate_lcp() -> (LinearMcp, Vec<f64>) {
    let m = DMatrix::from_row_slice(3, 3, &[2.0, 1.0, 0.0, 1.0, 2.0, 1.0, 0.0, 1.0, 2.0]);
    (
        LinearMcp::lcp(m, vec![-2.0, -1.0, 1.0]),
        vec![1.0, 0.0, 0.0],
    )
}

/// Murty's LCP on which Lemke's method (with the covering vector `e`) needs `2ⁿ − 1` pivots:
/// `M` upper triangular with `M_ii = 1`, `M_ij = 2` for `j > i`, `q = −e`. `M` is a P-matrix
/// (triangular with positive diagonal), so the solution is unique: `z* = e_n` (the last unit
/// vector), `w* = Mz* + q = (1, …, 1, 0)`. Source: K. G. Murty, "Computational complexity of
/// complementary pivot methods", Math. Programming Study 7 (1978) 61–73 (the exact pivot count
/// depends on the variant and on tie-breaking; the suite only checks the solution).
/// Returns the problem and `z*`.
pub fn murty_lcp(n: usize) -> (LinearMcp, Vec<f64>) {
    let mut m = DMatrix::zeros(n, n);
    for i in 0..n {
        m[(i, i)] = 1.0;
        for j in i + 1..n {
            m[(i, j)] = 2.0;
        }
    }
    let mut z = vec![0.0; n];
    if n > 0 {
        z[n - 1] = 1.0;
    }
    (LinearMcp::lcp(m, vec![-1.0; n]), z)
}

/// A reproducible LCP with a P-matrix: see [`random_p_lcp_with_solution`].
pub fn random_p_lcp(n: usize, seed: u64) -> LinearMcp {
    random_p_lcp_with_solution(n, seed).0
}

/// A reproducible LCP `0 ≤ z ⊥ Mz + q ≥ 0` with a P-matrix and its (unique) solution.
///
/// `M = AᵀA/n + I/10 + (S − Sᵀ)/2` with `A`, `S` uniform in `[−1, 1]`: its symmetric part is
/// positive definite (≥ I/10), so `xᵀMx > 0` for `x ≠ 0`, every principal submatrix has the
/// same property and hence a positive determinant — `M` is a P-matrix and the LCP has exactly
/// one solution for every `q`. The solution `z*` is drawn first (each index active with
/// probability ½: `z_i ∈ [0.1, 1]`, `w_i = 0`, otherwise `z_i = 0`, `w_i ∈ [0.1, 1]`) and then
/// `q = w − Mz*`.
pub fn random_p_lcp_with_solution(n: usize, seed: u64) -> (LinearMcp, Vec<f64>) {
    let mut rng = SplitMix64::new(seed);
    let a = DMatrix::from_fn(n, n, |_, _| rng.uniform(-1.0, 1.0));
    let s = DMatrix::from_fn(n, n, |_, _| rng.uniform(-1.0, 1.0));
    let mut m = a.transpose() * &a / (n.max(1) as f64) + (&s - s.transpose()) * 0.5;
    for i in 0..n {
        m[(i, i)] += 0.1;
    }
    let mut z = vec![0.0; n];
    let mut w = vec![0.0; n];
    for i in 0..n {
        if rng.next_f64() < 0.5 {
            z[i] = rng.uniform(0.1, 1.0);
        } else {
            w[i] = rng.uniform(0.1, 1.0);
        }
    }
    let mz = &m * nalgebra::DVector::from_column_slice(&z);
    let q = (0..n).map(|i| w[i] - mz[i]).collect();
    (LinearMcp::lcp(m, q), z)
}

// ---------------------------------------------------------------------------------------------
// Time-step shaped problem
// ---------------------------------------------------------------------------------------------

/// Number of velocity variables of [`StepLike`] (two bodies with six degrees of freedom).
pub const STEP_LIKE_VELOCITIES: usize = 12;

/// A dense MCP shaped like one time step of the simulator (`n = 12 + 2 + 4 m`; `n = 30` for the
/// default `m = 4` contacts), with a solution known by construction. Used by benchmarks.
///
/// Variables, in order:
///
/// * `ν ∈ ℝ¹²` (free): the velocities of two 6-dof bodies;
/// * `y ∈ ℝ²` (free): a pair whose 2×2 block `A = [[1, 1], [1, 1 + 4·10⁻⁸]]` has condition
///   number ≈ 10⁸ (it is coupled to `ν` only along the well-conditioned direction `(1, 1)`, so
///   the near-singularity survives in the full Jacobian);
/// * per contact `k`: the normal impulse `p_n ≥ 0`, two friction-like impulses
///   `p_t ∈ [−μ c_k, μ c_k]²` (box with a constant `c_k`, finite upper bounds) and a slip-like
///   `σ ≥ 0`.
///
/// Equations (`h` the step, `M = diag(M₁, M₂)` SPD mass-like blocks, `w_k ∈ ℝ¹²` contact
/// normals, `D_k ∈ ℝ¹²ˣ²` tangents, `P = p (1, 1)` the coupling of `y`):
///
/// ```text
/// ν:    M ν + κ φ(ν) − Σ_k (w_k p_n,k + D_k p_t,k) − P y + r_ν = 0,  φ_i(ν) = ν_i ν_{i+1 mod 12}
/// y:    A y + Pᵀ ν + r_y = 0
/// p_n:  g_k(ν) = g0_k + h w_kᵀ ν + c_g h² |ν|² ≥ 0             (nonlinear gap)
/// p_t:  D_kᵀ ν + 2 σ_k p_t,k + r_t,k                            (box complementarity)
/// σ:    μ c_k − |p_t,k|² / (μ c_k) ≥ 0                          (friction-cone-like)
/// ```
///
/// Construction: a solution `z*` is drawn first with the contacts in four roles (contact
/// `k mod 4`): 0 sticking (`p_n > 0 = g`, `p_t` interior, `σ = 0 < F_σ`), 1 sliding (`p_n > 0 = g`,
/// `p_t = (μc, 0)` with the first component at its upper bound and `F < 0`, `σ > 0 = F_σ`),
/// 2 separated (`p_n = 0 < g`, `p_t = 0`, `σ = 0`), 3 grazing, doubly degenerate
/// (`p_n = g = 0`, `p_t = (−μc, 0)` on its lower bound, `σ = F_σ = 0`). Then the constants
/// `r_ν`, `r_y`, `g0`, `r_t` are set so that `F(z*)` takes the chosen values. All other data
/// come from [`SplitMix64`] with the given seed.
#[derive(Debug, Clone)]
pub struct StepLike {
    contacts: usize,
    h: f64,
    mu: f64,
    c_gap: f64,
    kappa: f64,
    mass: DMatrix<f64>,
    normals: DMatrix<f64>,
    tangents: DMatrix<f64>,
    coupling: Vec<f64>,
    block: [[f64; 2]; 2],
    g0: Vec<f64>,
    c: Vec<f64>,
    offset: Vec<f64>,
    solution: Vec<f64>,
    lower: Vec<f64>,
    upper: Vec<f64>,
}

impl StepLike {
    /// The default instance: four contacts, `n = 30`.
    pub fn new(seed: u64) -> Self {
        Self::with_contacts(seed, 4)
    }

    /// An instance with `contacts` contacts (`n = 14 + 4·contacts`).
    pub fn with_contacts(seed: u64, contacts: usize) -> Self {
        const NV: usize = STEP_LIKE_VELOCITIES;
        let mut rng = SplitMix64::new(seed);
        let n = NV + 2 + 4 * contacts;
        let (h, mu, c_gap, kappa) = (0.01, 0.5, 0.5, 0.1);

        // Mass-like blocks M_b = B_bᵀ B_b + I (SPD), one per body.
        let mut mass = DMatrix::zeros(NV, NV);
        for body in 0..2 {
            let b = DMatrix::from_fn(6, 6, |_, _| rng.uniform(-1.0, 1.0));
            let mb = b.transpose() * &b;
            for i in 0..6 {
                for j in 0..6 {
                    mass[(6 * body + i, 6 * body + j)] =
                        mb[(i, j)] + if i == j { 1.0 } else { 0.0 };
                }
            }
        }
        let mut normals = DMatrix::from_fn(NV, contacts, |_, _| rng.uniform(-1.0, 1.0));
        for k in 0..contacts {
            let norm = normals.column(k).norm();
            normals.column_mut(k).scale_mut(1.0 / norm);
        }
        let tangents = DMatrix::from_fn(NV, 2 * contacts, |_, _| rng.uniform(-1.0, 1.0));
        let coupling: Vec<f64> = (0..NV).map(|_| rng.uniform(-0.5, 0.5)).collect();
        let block = [[1.0, 1.0], [1.0, 1.0 + 4e-8]];
        let c: Vec<f64> = (0..contacts).map(|_| rng.uniform(1.0, 2.0)).collect();

        // The solution and the values F(z*) must take.
        let mut sol = vec![0.0; n];
        let mut target = vec![0.0; n];
        for v in sol.iter_mut().take(NV + 2) {
            *v = rng.uniform(-1.0, 1.0);
        }
        let mut lower = vec![f64::NEG_INFINITY; n];
        let mut upper = vec![f64::INFINITY; n];
        for (k, &ck) in c.iter().enumerate() {
            let base = NV + 2 + 4 * k;
            let bound = mu * ck;
            lower[base] = 0.0;
            lower[base + 1] = -bound;
            lower[base + 2] = -bound;
            upper[base + 1] = bound;
            upper[base + 2] = bound;
            lower[base + 3] = 0.0;
            match k % 4 {
                0 => {
                    sol[base] = rng.uniform(0.5, 2.0);
                    sol[base + 1] = rng.uniform(-0.5, 0.5) * bound;
                    sol[base + 2] = rng.uniform(-0.5, 0.5) * bound;
                }
                1 => {
                    sol[base] = rng.uniform(0.5, 2.0);
                    sol[base + 1] = bound;
                    target[base + 1] = -rng.uniform(0.2, 1.0);
                    sol[base + 3] = rng.uniform(0.2, 1.0);
                }
                2 => {
                    target[base] = rng.uniform(0.01, 0.05);
                }
                _ => {
                    sol[base + 1] = -bound;
                    target[base + 1] = rng.uniform(0.2, 1.0);
                }
            }
        }

        let mut problem = Self {
            contacts,
            h,
            mu,
            c_gap,
            kappa,
            mass,
            normals,
            tangents,
            coupling,
            block,
            g0: vec![0.0; contacts],
            c,
            offset: vec![0.0; n],
            solution: sol.clone(),
            lower,
            upper,
        };
        // With zero constants, F(z*) = G(z*); shift every equation except the σ rows (whose
        // values at z* already have the intended signs) to hit the targets.
        let mut g = vec![0.0; n];
        problem.function(&sol, &mut g);
        for i in 0..n {
            let is_sigma = i >= NV + 2 && (i - NV - 2) % 4 == 3;
            let is_gap = i >= NV + 2 && (i - NV - 2).is_multiple_of(4);
            if is_gap {
                problem.g0[(i - NV - 2) / 4] = target[i] - g[i];
            } else if !is_sigma {
                problem.offset[i] = target[i] - g[i];
            }
        }
        problem
    }

    /// The solution the instance was built around.
    pub fn solution(&self) -> &[f64] {
        &self.solution
    }

    /// Number of contacts.
    pub fn contacts(&self) -> usize {
        self.contacts
    }

    /// A warm start: the solution perturbed by `amplitude · U[−1, 1]` per entry (seeded), then
    /// projected onto the box.
    pub fn warm_start(&self, amplitude: f64, seed: u64) -> Vec<f64> {
        let mut rng = SplitMix64::new(seed);
        self.solution
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                (v + amplitude * rng.uniform(-1.0, 1.0))
                    .max(self.lower[i])
                    .min(self.upper[i])
            })
            .collect()
    }
}

impl McpProblem for StepLike {
    fn dim(&self) -> usize {
        STEP_LIKE_VELOCITIES + 2 + 4 * self.contacts
    }
    bounds_impl!();
    fn function(&mut self, z: &[f64], f: &mut [f64]) {
        const NV: usize = STEP_LIKE_VELOCITIES;
        let nu = &z[..NV];
        let (y0, y1) = (z[NV], z[NV + 1]);
        let ysum = y0 + y1;
        let nu2: f64 = nu.iter().map(|v| v * v).sum();
        for i in 0..NV {
            let mut s = self.offset[i];
            for (j, v) in nu.iter().enumerate() {
                s += self.mass[(i, j)] * v;
            }
            s += self.kappa * nu[i] * nu[(i + 1) % NV];
            s -= self.coupling[i] * ysum;
            f[i] = s;
        }
        let pt_nu: f64 = (0..NV).map(|i| self.coupling[i] * nu[i]).sum();
        let a = self.block;
        f[NV] = a[0][0] * y0 + a[0][1] * y1 + pt_nu + self.offset[NV];
        f[NV + 1] = a[1][0] * y0 + a[1][1] * y1 + pt_nu + self.offset[NV + 1];
        for k in 0..self.contacts {
            let base = NV + 2 + 4 * k;
            let (pn, t1, t2, sigma) = (z[base], z[base + 1], z[base + 2], z[base + 3]);
            let mut wn = 0.0;
            let mut d1 = 0.0;
            let mut d2 = 0.0;
            for i in 0..NV {
                let (w, ta, tb) = (
                    self.normals[(i, k)],
                    self.tangents[(i, 2 * k)],
                    self.tangents[(i, 2 * k + 1)],
                );
                f[i] -= w * pn + ta * t1 + tb * t2;
                wn += w * nu[i];
                d1 += ta * nu[i];
                d2 += tb * nu[i];
            }
            let bound = self.mu * self.c[k];
            f[base] = self.g0[k] + self.h * wn + self.c_gap * self.h * self.h * nu2;
            f[base + 1] = d1 + 2.0 * sigma * t1 + self.offset[base + 1];
            f[base + 2] = d2 + 2.0 * sigma * t2 + self.offset[base + 2];
            f[base + 3] = bound - (t1 * t1 + t2 * t2) / bound + self.offset[base + 3];
        }
    }
    fn jacobian(&mut self, z: &[f64], jac: &mut DenseJacobian) {
        const NV: usize = STEP_LIKE_VELOCITIES;
        jac.as_mut_slice().fill(0.0);
        let nu = &z[..NV];
        for j in 0..NV {
            jac.view_mut((0, j), (NV, 1))
                .copy_from(&self.mass.view((0, j), (NV, 1)));
        }
        for i in 0..NV {
            let next = (i + 1) % NV;
            jac[(i, i)] += self.kappa * nu[next];
            jac[(i, next)] += self.kappa * nu[i];
            jac[(i, NV)] = -self.coupling[i];
            jac[(i, NV + 1)] = -self.coupling[i];
            jac[(NV, i)] = self.coupling[i];
            jac[(NV + 1, i)] = self.coupling[i];
        }
        for r in 0..2 {
            for s in 0..2 {
                jac[(NV + r, NV + s)] = self.block[r][s];
            }
        }
        let hh = 2.0 * self.c_gap * self.h * self.h;
        for k in 0..self.contacts {
            let base = NV + 2 + 4 * k;
            let (t1, t2, sigma) = (z[base + 1], z[base + 2], z[base + 3]);
            for i in 0..NV {
                let (w, ta, tb) = (
                    self.normals[(i, k)],
                    self.tangents[(i, 2 * k)],
                    self.tangents[(i, 2 * k + 1)],
                );
                jac[(i, base)] = -w;
                jac[(i, base + 1)] = -ta;
                jac[(i, base + 2)] = -tb;
                jac[(base, i)] = self.h * w + hh * nu[i];
                jac[(base + 1, i)] = ta;
                jac[(base + 2, i)] = tb;
            }
            jac[(base + 1, base + 1)] = 2.0 * sigma;
            jac[(base + 1, base + 3)] = 2.0 * t1;
            jac[(base + 2, base + 2)] = 2.0 * sigma;
            jac[(base + 2, base + 3)] = 2.0 * t2;
            let bound = self.mu * self.c[k];
            jac[(base + 3, base + 1)] = -2.0 * t1 / bound;
            jac[(base + 3, base + 2)] = -2.0 * t2 / bound;
        }
    }
}

/// A [`StepLike`] instance with the default four contacts (`n = 30`).
pub fn step_like(seed: u64) -> StepLike {
    StepLike::new(seed)
}

// ---------------------------------------------------------------------------------------------
// Registry
// ---------------------------------------------------------------------------------------------

/// Seed of the [`StepLike`] instance in [`suite`].
pub const SUITE_STEP_LIKE_SEED: u64 = 7;

/// Every problem of this module with each of its standard starting points, in a fixed order.
///
/// Starting points: MCPLIB's eight for `kojshin` and `josephy`; `q = 10` (Harker) and `q = 1`
/// (MCPLIB/GAMS `nash`) for the oligopolies; `(0, 1)` for Powell; `0` for the LCPs; this
/// module's choices elsewhere (named by their label).
pub fn suite() -> Vec<Case> {
    let mut cases = Vec::new();
    let exact = 1e-12;

    for (k, s) in MCPLIB_KOJSHIN_STARTS.iter().enumerate() {
        cases.push(Case {
            name: "kojima-shindo",
            start_label: MCPLIB_LABELS[k],
            start: s.to_vec(),
            known_solutions: vec![
                KojimaShindo::degenerate_solution(),
                KojimaShindo::nondegenerate_solution(),
            ],
            solution_tolerance: exact,
            problem: Box::new(KojimaShindo::new()),
        });
    }
    for (k, s) in MCPLIB_KOJSHIN_STARTS.iter().enumerate() {
        cases.push(Case {
            name: "josephy",
            start_label: MCPLIB_LABELS[k],
            start: s.to_vec(),
            known_solutions: vec![Josephy::solution()],
            solution_tolerance: exact,
            problem: Box::new(Josephy::new()),
        });
    }
    for (label, s) in [("zero", [0.0; 4]), ("ones", [1.0; 4])] {
        cases.push(Case {
            name: "josephy-bounded",
            start_label: label,
            start: s.to_vec(),
            known_solutions: vec![Josephy::bounded_solution()],
            solution_tolerance: exact,
            problem: Box::new(Josephy::bounded()),
        });
    }
    for (label, s) in [("ones", [1.0; 4]), ("y3-p-ones", [3.0, 1.0, 1.0, 1.0])] {
        cases.push(Case {
            name: "mathiesen",
            start_label: label,
            start: s.to_vec(),
            known_solutions: vec![
                Mathiesen::solution(1.0),
                Mathiesen::solution(1.0 / 12.0),
                Mathiesen::solution(0.25),
            ],
            solution_tolerance: exact,
            problem: Box::new(Mathiesen::new()),
        });
    }
    for (label, s) in [("ones", [1.0; 3]), ("y0-p-half", [0.0, 0.5, 0.5])] {
        cases.push(Case {
            name: "mathiesen-numeraire",
            start_label: label,
            start: s.to_vec(),
            known_solutions: vec![Mathiesen::numeraire_solution()],
            solution_tolerance: exact,
            problem: Box::new(Mathiesen::numeraire()),
        });
    }
    for (label, v) in [("q=10", 10.0), ("q=1", 1.0)] {
        cases.push(Case {
            name: "nash-harker-5",
            start_label: label,
            start: vec![v; 5],
            known_solutions: vec![NashCournot::harker5_solution()],
            solution_tolerance: exact,
            problem: Box::new(NashCournot::harker5()),
        });
    }
    for (label, v) in [("q=1", 1.0), ("q=10", 10.0)] {
        cases.push(Case {
            name: "nash-mcplib-10",
            start_label: label,
            start: vec![v; 10],
            known_solutions: vec![NashCournot::mcplib10_solution()],
            solution_tolerance: exact,
            problem: Box::new(NashCournot::mcplib10()),
        });
    }
    cases.push(Case {
        name: "powell-badly-scaled",
        start_label: "mgh",
        start: vec![0.0, 1.0],
        known_solutions: vec![
            PowellBadlyScaled::solution(),
            PowellBadlyScaled::solution().into_iter().rev().collect(),
        ],
        solution_tolerance: exact,
        problem: Box::new(PowellBadlyScaled::new()),
    });
    for (label, s) in [
        ("zero", vec![0.0; 6]),
        ("lower", vec![-1.0, -1.0, -1.0, 0.0, 0.0, 0.0]),
    ] {
        let (p, z) = box_qp();
        cases.push(Case {
            name: "box-qp-6",
            start_label: label,
            start: s,
            known_solutions: vec![z],
            solution_tolerance: exact,
            problem: Box::new(p),
        });
    }
    for (label, s) in [("zero", vec![0.0; 3]), ("ones", vec![1.0; 3])] {
        let (p, z) = degenerate_lcp();
        cases.push(Case {
            name: "degenerate-lcp-3",
            start_label: label,
            start: s,
            known_solutions: vec![z],
            solution_tolerance: exact,
            problem: Box::new(p),
        });
    }
    {
        let (p, z) = murty_lcp(8);
        cases.push(Case {
            name: "murty-lcp-8",
            start_label: "zero",
            start: vec![0.0; 8],
            known_solutions: vec![z],
            solution_tolerance: exact,
            problem: Box::new(p),
        });
    }
    for (name, n, seed) in [("random-p-lcp-10", 10, 1), ("random-p-lcp-30", 30, 2)] {
        let (p, z) = random_p_lcp_with_solution(n, seed);
        cases.push(Case {
            name,
            start_label: "zero",
            start: vec![0.0; n],
            known_solutions: vec![z],
            solution_tolerance: exact,
            problem: Box::new(p),
        });
    }
    {
        let p = StepLike::new(SUITE_STEP_LIKE_SEED);
        let warm = p.warm_start(1e-2, 11);
        let z = p.solution().to_vec();
        let n = p.dim();
        for (label, s) in [("cold", vec![0.0; n]), ("warm", warm)] {
            cases.push(Case {
                name: "step-like-30",
                start_label: label,
                start: s,
                known_solutions: vec![z.clone()],
                solution_tolerance: exact,
                problem: Box::new(p.clone()),
            });
        }
    }
    cases
}

/// Repeats per case in [`print_suite_table`]; the fastest time is printed.
const TABLE_REPEATS: usize = 20;

/// Solves every case of [`suite`] with [`super::McpSolver`] (default settings: path search,
/// then the fallbacks) and writes one row per case: name, start, n, status, the solver that
/// produced the answer, major iterations, pivots, natural residual, and the fastest wall time of
/// 20 repeated solves with the reused solver. The last line is `N solved of M`. Returns
/// `(solved, total)`. Everything but the time column is deterministic.
pub fn print_suite_table(out: &mut dyn std::io::Write) -> std::io::Result<(usize, usize)> {
    let mut solver =
        super::McpSolver::new(super::SolveSettings::default()).expect("default settings are valid");
    let cases = suite();
    let total = cases.len();
    let mut solved = 0;
    writeln!(
        out,
        "{:<22} {:<10} {:>3}  {:<18} {:<10} {:>6} {:>7} {:>10} {:>9}",
        "problem", "start", "n", "status", "solver", "major", "pivots", "residual", "time_us"
    )?;
    for mut case in cases {
        let mut z = case.start.clone();
        let mut report = solver.solve(case.problem.as_mut(), &mut z);
        let mut best = report.wall_time;
        for _ in 1..TABLE_REPEATS {
            z.copy_from_slice(&case.start);
            report = solver.solve(case.problem.as_mut(), &mut z);
            best = best.min(report.wall_time);
        }
        if report.converged() {
            solved += 1;
        }
        writeln!(
            out,
            "{:<22} {:<10} {:>3}  {:<18} {:<10} {:>6} {:>7} {:>10.3e} {:>9.1}",
            case.name,
            case.start_label,
            case.dim(),
            report.status.to_string(),
            report.solver.to_string(),
            report.major_iterations,
            report.pivots,
            report.residual,
            best.as_secs_f64() * 1e6
        )?;
    }
    writeln!(out, "{solved} solved of {total}")?;
    Ok((solved, total))
}

// ---------------------------------------------------------------------------------------------
// A declared sparsity pattern, to run the suite through the sparse factorisations
// ---------------------------------------------------------------------------------------------

/// A problem with a declared Jacobian pattern: the entries nonzero at any of a few random points
/// of the box around `centre` (a structural zero stays zero everywhere, an entry that is nonzero
/// somewhere is nonzero at a random point with probability one). Lets the suite exercise the
/// sparse factorisations of the path search ([`crate::mcp::PathSettings::sparse_threshold`]).
pub struct WithPattern<'a> {
    inner: &'a mut (dyn McpProblem + Send),
    entries: Vec<(usize, usize)>,
}

impl<'a> WithPattern<'a> {
    /// Samples the pattern of `inner` at 8 points `centre + U(−1, 1)` (projected on the box).
    pub fn sampled(inner: &'a mut (dyn McpProblem + Send), centre: &[f64], seed: u64) -> Self {
        let n = inner.dim();
        let mut rng = SplitMix64::new(seed);
        let mut jac = DMatrix::zeros(n, n);
        let mut seen = vec![false; n * n];
        for _ in 0..8 {
            let z: Vec<f64> = (0..n)
                .map(|i| {
                    let v = centre[i] + rng.uniform(-1.0, 1.0);
                    v.max(inner.lower_bounds()[i]).min(inner.upper_bounds()[i])
                })
                .collect();
            inner.jacobian(&z, &mut jac);
            for (s, v) in seen.iter_mut().zip(jac.as_slice()) {
                *s |= *v != 0.0;
            }
        }
        let entries = (0..n * n)
            .filter(|&k| seen[k])
            .map(|k| (k % n, k / n))
            .collect();
        Self { inner, entries }
    }
}

impl McpProblem for WithPattern<'_> {
    fn dim(&self) -> usize {
        self.inner.dim()
    }
    fn lower_bounds(&self) -> &[f64] {
        self.inner.lower_bounds()
    }
    fn upper_bounds(&self) -> &[f64] {
        self.inner.upper_bounds()
    }
    fn function(&mut self, z: &[f64], f: &mut [f64]) {
        self.inner.function(z, f)
    }
    fn jacobian(&mut self, z: &[f64], jac: &mut DenseJacobian) {
        self.inner.jacobian(z, jac)
    }
    fn sparse_pattern(&mut self, jac: &mut crate::mcp::SparseJacobian) -> bool {
        let mut entries = self.entries.clone();
        jac.set_pattern(self.dim(), &mut entries).is_ok()
    }
}
