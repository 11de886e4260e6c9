//! The compliant layer of a quasi-rigid body (paper §5): a rigid core inside a thin layer that
//! deflects like a lumped linear spring–damper until its maximum normal deflection (its
//! time integration is the step's [`crate::model::Integrator`]).

use super::error::ModelError;
use nalgebra::Matrix3;

/// A compliant layer: stiffness `K` and damping `C` on the deflections `δ = (δ_n, δ_t[, δ_o])`
/// (normal, then the tangent directions of the contact frame), and the maximum normal
/// deflection `δ_max` at which the rigid core is reached (paper eq. 33–36).
///
/// `K` and `C` are `D × D` (the top-left block of the stored `3 × 3`; the rest is zero). The
/// spring–damper impulse over a step is `p = h K δ^{ℓ+1} + C (δ^{ℓ+1} − δ^ℓ)` (paper eq. 37/49;
/// see [`crate::contact`] for the midpoint variant).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompliantLayer {
    /// `D`: 2 or 3.
    pub dim: usize,
    /// Stiffness `K` (N/m), symmetric positive-definite (`D × D` block used).
    pub stiffness: Matrix3<f64>,
    /// Damping `C` (N·s/m), symmetric positive-semidefinite (`D × D` block used).
    pub damping: Matrix3<f64>,
    /// Maximum normal deflection `δ_max > 0` (m): the depth of the layer over the core.
    pub max_deflection: f64,
}

impl CompliantLayer {
    /// A layer with diagonal stiffness and damping: `stiffness` and `damping` list the normal
    /// then the tangential entries (`D` each). Panics if the lengths differ from `dim`; call
    /// [`validate`](Self::validate) for the values.
    pub fn diagonal(stiffness: &[f64], damping: &[f64], max_deflection: f64) -> Self {
        let dim = stiffness.len();
        assert!(
            (2..=3).contains(&dim) && damping.len() == dim,
            "a layer has 2 or 3 stiffness and damping entries"
        );
        Self {
            dim,
            stiffness: Matrix3::from_fn(|i, j| if i == j && i < dim { stiffness[i] } else { 0.0 }),
            damping: Matrix3::from_fn(|i, j| if i == j && i < dim { damping[i] } else { 0.0 }),
            max_deflection,
        }
    }

    /// A layer with full `D × D` stiffness and damping (entries outside the `D × D` block are
    /// ignored and zeroed).
    pub fn full(
        dim: usize,
        stiffness: Matrix3<f64>,
        damping: Matrix3<f64>,
        max_deflection: f64,
    ) -> Self {
        let cut = |m: Matrix3<f64>| {
            Matrix3::from_fn(|i, j| if i < dim && j < dim { m[(i, j)] } else { 0.0 })
        };
        Self {
            dim,
            stiffness: cut(stiffness),
            damping: cut(damping),
            max_deflection,
        }
    }

    /// True if `K` and `C` have no normal–tangential coupling (`K_nt = K_no = C_nt = … = 0`).
    pub fn is_normal_decoupled(&self) -> bool {
        (1..self.dim).all(|j| {
            self.stiffness[(0, j)] == 0.0
                && self.stiffness[(j, 0)] == 0.0
                && self.damping[(0, j)] == 0.0
                && self.damping[(j, 0)] == 0.0
        })
    }

    /// The elastic energy `½ δᵀ K δ` stored at deflection `δ` (`D` entries).
    pub fn elastic_energy(&self, delta: &[f64]) -> f64 {
        let mut e = 0.0;
        for i in 0..self.dim {
            for j in 0..self.dim {
                e += 0.5 * delta[i] * self.stiffness[(i, j)] * delta[j];
            }
        }
        e
    }

    /// Checks the layer of body `body`: finite entries, `K` symmetric positive-definite, `C`
    /// symmetric positive-semidefinite, `δ_max` finite and `> 0`. The error names the field
    /// (`layer.stiffness`, `layer.damping`, `layer.max_deflection`).
    pub fn validate(&self, body: &str) -> Result<(), ModelError> {
        let d = self.dim;
        if !(2..=3).contains(&d) {
            return Err(ModelError::body(
                body,
                "layer",
                format!("dimension must be 2 or 3, got {d}"),
            ));
        }
        for (field, m, definite) in [
            ("layer.stiffness", &self.stiffness, true),
            ("layer.damping", &self.damping, false),
        ] {
            let block: Vec<f64> = (0..d)
                .flat_map(|i| (0..d).map(move |j| m[(i, j)]))
                .collect();
            if block.iter().any(|x| !x.is_finite()) {
                return Err(ModelError::body(
                    body,
                    field,
                    format!("not finite: {block:?}"),
                ));
            }
            let scale = block.iter().fold(0.0f64, |a, x| a.max(x.abs()));
            for i in 0..d {
                for j in 0..i {
                    if (m[(i, j)] - m[(j, i)]).abs() > 1e-12 * scale {
                        return Err(ModelError::body(
                            body,
                            field,
                            format!(
                                "must be symmetric (a spring stores ½ δᵀ K δ): entry ({i}, {j}) is {} but ({j}, {i}) is {}",
                                m[(i, j)],
                                m[(j, i)]
                            ),
                        ));
                    }
                }
            }
            // Sylvester's criterion on the leading minors (D ≤ 3): positive for K; for C the
            // eigenvalues must be ≥ 0.
            let eig = nalgebra::DMatrix::from_fn(d, d, |i, j| m[(i, j)]).symmetric_eigenvalues();
            let min = eig.iter().copied().fold(f64::INFINITY, f64::min);
            if definite && (min.is_nan() || min <= 0.0) {
                return Err(ModelError::body(
                    body,
                    field,
                    format!(
                        "must be positive-definite (every stiffness > 0), smallest eigenvalue {min}"
                    ),
                ));
            }
            if !definite && min < -1e-12 * scale {
                return Err(ModelError::body(
                    body,
                    field,
                    format!(
                        "must be positive-semidefinite (damping ≥ 0), smallest eigenvalue {min}"
                    ),
                ));
            }
        }
        if !(self.max_deflection.is_finite() && self.max_deflection > 0.0) {
            return Err(ModelError::body(
                body,
                "layer.max_deflection",
                format!("must be finite and > 0, got {}", self.max_deflection),
            ));
        }
        Ok(())
    }
}
