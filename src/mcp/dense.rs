//! Dense LU factorisation with partial pivoting on column-major slices, allocation-free, for the
//! small systems (tens of unknowns) of one time step. nalgebra's `lu()` allocates per call, which
//! the step loop must not.

/// An `n × n` LU factorisation `P A = L U` stored in place (column-major, leading dimension `n`).
#[derive(Debug, Default, Clone)]
pub(crate) struct Lu {
    n: usize,
    a: Vec<f64>,
    piv: Vec<usize>,
}

/// Relative size below which a pivot counts as zero.
const SINGULAR_RATIO: f64 = 1e-14;

impl Lu {
    /// Resizes the storage for `n × n` and returns the matrix buffer to fill (column-major).
    pub fn buffer(&mut self, n: usize) -> &mut [f64] {
        self.n = n;
        self.a.resize(n * n, 0.0);
        self.piv.resize(n, 0);
        &mut self.a
    }

    /// Grows the storage to hold an `n × n` factorisation without allocating.
    pub fn reserve(&mut self, n: usize) {
        self.a.reserve((n * n).saturating_sub(self.a.len()));
        self.piv.reserve(n.saturating_sub(self.piv.len()));
    }

    /// The body of [`Lu::factor`], compiled for the baseline and for AVX2.
    #[inline(always)]
    fn factor_kernel(&mut self) -> bool {
        let n = self.n;
        let a = &mut self.a;
        if n == 0 {
            return true;
        }
        let mut scale = 0.0f64;
        for k in 0..n {
            let mut p = k;
            let mut best = a[k * n + k].abs();
            for i in k + 1..n {
                let v = a[k * n + i].abs();
                if v > best {
                    best = v;
                    p = i;
                }
            }
            self.piv[k] = p;
            scale = scale.max(best);
            if best <= scale * SINGULAR_RATIO * (n as f64) || best.is_nan() {
                return false;
            }
            if p != k {
                for j in 0..n {
                    a.swap(j * n + k, j * n + p);
                }
            }
            let inv = 1.0 / a[k * n + k];
            for v in &mut a[k * n + k + 1..k * n + n] {
                *v *= inv;
            }
            // Rank-1 update of the trailing block, column by column (contiguous, vectorisable).
            let (left, right) = a.split_at_mut((k + 1) * n);
            let colk = &left[k * n + k + 1..k * n + n];
            for colj in right.chunks_exact_mut(n) {
                let akj = colj[k];
                if akj != 0.0 {
                    for (x, &l) in colj[k + 1..].iter_mut().zip(colk) {
                        *x -= l * akj;
                    }
                }
            }
        }
        true
    }

    /// The body of [`Lu::solve`].
    #[inline(always)]
    fn solve_kernel(&self, b: &mut [f64]) {
        let n = self.n;
        let a = &self.a;
        for k in 0..n {
            let p = self.piv[k];
            if p != k {
                b.swap(k, p);
            }
        }
        // L y = b (unit lower triangle), column-oriented.
        for k in 0..n {
            let bk = b[k];
            if bk != 0.0 {
                let col = &a[k * n + k + 1..k * n + n];
                for (x, &l) in b[k + 1..n].iter_mut().zip(col) {
                    *x -= l * bk;
                }
            }
        }
        // U x = y.
        for k in (0..n).rev() {
            let col = &a[k * n..k * n + k + 1];
            b[k] /= col[k];
            let bk = b[k];
            if bk != 0.0 {
                for (x, &u) in b[..k].iter_mut().zip(col) {
                    *x -= u * bk;
                }
            }
        }
    }

    /// The body of [`Lu::solve_transpose`].
    #[inline(always)]
    fn solve_transpose_kernel(&self, b: &mut [f64]) {
        let n = self.n;
        let a = &self.a;
        // Uᵀ y = b.
        for k in 0..n {
            let col = &a[k * n..k * n + k + 1];
            let s: f64 = col[..k].iter().zip(&b[..k]).map(|(u, x)| u * x).sum();
            b[k] = (b[k] - s) / col[k];
        }
        // Lᵀ x = y.
        for k in (0..n).rev() {
            let col = &a[k * n + k + 1..k * n + n];
            let s: f64 = col.iter().zip(&b[k + 1..n]).map(|(l, x)| l * x).sum();
            b[k] -= s;
        }
        for k in (0..n).rev() {
            let p = self.piv[k];
            if p != k {
                b.swap(k, p);
            }
        }
    }
}

/// The kernels compiled a second time with AVX2 enabled, chosen at run time on CPUs that have
/// it. Only the vector width changes: no fused multiply-add, no reassociation, so results are
/// bit-identical to the baseline build (determinism across machines is kept).
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::Lu;

    #[target_feature(enable = "avx2")]
    pub(super) fn factor(lu: &mut Lu) -> bool {
        lu.factor_kernel()
    }
    #[target_feature(enable = "avx2")]
    pub(super) fn solve(lu: &Lu, b: &mut [f64]) {
        lu.solve_kernel(b)
    }
    #[target_feature(enable = "avx2")]
    pub(super) fn solve_transpose(lu: &Lu, b: &mut [f64]) {
        lu.solve_transpose_kernel(b)
    }
}

#[cfg(target_arch = "x86_64")]
fn has_avx2() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

impl Lu {
    /// Factorises the matrix written into [`Lu::buffer`] (which must hold finite values: the
    /// callers check `J` once). Returns `false` if a pivot is zero relative to the largest pivot
    /// met so far (numerically singular).
    pub fn factor(&mut self) -> bool {
        #[cfg(target_arch = "x86_64")]
        if has_avx2() {
            // SAFETY: the CPU supports AVX2 (checked just above).
            return unsafe { avx2::factor(self) };
        }
        self.factor_kernel()
    }

    /// Solves `A x = b` in place.
    pub fn solve(&self, b: &mut [f64]) {
        #[cfg(target_arch = "x86_64")]
        if has_avx2() {
            // SAFETY: the CPU supports AVX2 (checked just above).
            return unsafe { avx2::solve(self, b) };
        }
        self.solve_kernel(b)
    }

    /// Solves `Aᵀ x = b` in place.
    pub fn solve_transpose(&self, b: &mut [f64]) {
        #[cfg(target_arch = "x86_64")]
        if has_avx2() {
            // SAFETY: the CPU supports AVX2 (checked just above).
            return unsafe { avx2::solve_transpose(self, b) };
        }
        self.solve_transpose_kernel(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix(n: usize, seed: u64) -> Vec<f64> {
        let mut s = seed;
        (0..n * n)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((s >> 11) as f64 / (1u64 << 53) as f64) - 0.5
            })
            .collect()
    }

    #[test]
    fn solves_and_transpose_solves_random_systems() {
        for n in [1, 2, 5, 17, 40] {
            let m = matrix(n, n as u64);
            let mut lu = Lu::default();
            lu.buffer(n).copy_from_slice(&m);
            assert!(lu.factor());
            let x: Vec<f64> = (0..n).map(|i| i as f64 - 1.5).collect();
            let mut b = vec![0.0; n];
            let mut bt = vec![0.0; n];
            for j in 0..n {
                for i in 0..n {
                    b[i] += m[j * n + i] * x[j];
                    bt[j] += m[j * n + i] * x[i];
                }
            }
            lu.solve(&mut b);
            lu.solve_transpose(&mut bt);
            // Random matrices of this size have condition numbers below ~1e4, so 1e-9 leaves
            // a wide margin over the ~1e-12 rounding error.
            for i in 0..n {
                assert!((b[i] - x[i]).abs() < 1e-9, "n={n} i={i}");
                assert!((bt[i] - x[i]).abs() < 1e-9, "n={n} i={i} (transpose)");
            }
        }
    }

    /// The AVX2 build of the kernels must give the same bits as the baseline build, so runs are
    /// identical on machines with and without AVX2.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_kernels_are_bit_identical_to_the_baseline() {
        if !has_avx2() {
            return;
        }
        for n in [3, 13, 26, 40] {
            let m = matrix(n, 7 + n as u64);
            let (mut base, mut wide) = (Lu::default(), Lu::default());
            base.buffer(n).copy_from_slice(&m);
            wide.buffer(n).copy_from_slice(&m);
            assert_eq!(base.factor_kernel(), unsafe { avx2::factor(&mut wide) });
            assert_eq!(base.a, wide.a, "n = {n}: factors differ");
            let b: Vec<f64> = (0..n).map(|i| (i as f64).sin()).collect();
            let (mut x1, mut x2) = (b.clone(), b.clone());
            base.solve_kernel(&mut x1);
            unsafe { avx2::solve(&wide, &mut x2) };
            assert_eq!(x1, x2);
            let (mut y1, mut y2) = (b.clone(), b);
            base.solve_transpose_kernel(&mut y1);
            unsafe { avx2::solve_transpose(&wide, &mut y2) };
            assert_eq!(y1, y2);
        }
    }

    #[test]
    fn reports_singular_matrices() {
        let mut lu = Lu::default();
        lu.buffer(2).copy_from_slice(&[1.0, 2.0, 2.0, 4.0]);
        assert!(!lu.factor());
    }
}
