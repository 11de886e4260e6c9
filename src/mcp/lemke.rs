//! Lemke LCP.
