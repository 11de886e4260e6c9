//! Friction parameters of a contact: the elliptic dry-friction law of the paper's eq. 5,
//! `(p_t/e_t)² + (p_o/e_o)² + (p_r/e_r)² ≤ μ² p_n²`.

use super::error::ModelError;

/// The coefficient of friction `μ` and the semi-axes `e_t`, `e_o`, `e_r` of the friction
/// ellipsoid (paper eq. 5). `e_r` (torsion about the normal, a length) only matters in 3D.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Friction {
    /// The coefficient of friction `μ ≥ 0`.
    pub mu: f64,
    /// The semi-axis `e_t > 0` along the first tangent direction.
    pub e_t: f64,
    /// The semi-axis `e_o > 0` along the second tangent direction (3D).
    pub e_o: f64,
    /// The semi-axis `e_r > 0` of the torsional moment about the normal (3D).
    pub e_r: f64,
}

impl Friction {
    /// Isotropic Coulomb friction with coefficient `μ`: `e_t = e_o = e_r = 1`.
    pub fn coulomb(mu: f64) -> Self {
        Self {
            mu,
            e_t: 1.0,
            e_o: 1.0,
            e_r: 1.0,
        }
    }

    /// The elliptic law with all four parameters (paper §6.2: `μ = 0.2`, `e_t = e_o = 1`,
    /// `e_r = 0.3`).
    pub fn elliptic(mu: f64, e_t: f64, e_o: f64, e_r: f64) -> Self {
        Self { mu, e_t, e_o, e_r }
    }

    /// Checks `μ` finite and `≥ 0` and `e_t`, `e_o`, `e_r` finite and `> 0`; `owner` names the
    /// entry in the error (e.g. ``body `disc` ``).
    pub fn validate(&self, owner: &str) -> Result<(), ModelError> {
        let err = |field: &str, reason: String| ModelError::InvalidFriction {
            owner: owner.to_string(),
            field: field.to_string(),
            reason,
        };
        if !(self.mu.is_finite() && self.mu >= 0.0) {
            return Err(err(
                "mu",
                format!("must be finite and ≥ 0, got {}", self.mu),
            ));
        }
        for (field, e) in [("e_t", self.e_t), ("e_o", self.e_o), ("e_r", self.e_r)] {
            if !(e.is_finite() && e > 0.0) {
                return Err(err(field, format!("must be finite and > 0, got {e}")));
            }
        }
        Ok(())
    }

    /// The friction of a contact between two bodies that each give their own default: the
    /// geometric mean of each parameter (symmetric; equal to both when they agree; zero `μ`
    /// if either surface is frictionless).
    pub fn combine(&self, other: &Friction) -> Friction {
        Friction {
            mu: (self.mu * other.mu).sqrt(),
            e_t: (self.e_t * other.e_t).sqrt(),
            e_o: (self.e_o * other.e_o).sqrt(),
            e_r: (self.e_r * other.e_r).sqrt(),
        }
    }
}
