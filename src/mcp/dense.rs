//! Dense linear algebra on column-major slices, allocation-free.
