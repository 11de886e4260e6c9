//! Complementary pivoting engine.
