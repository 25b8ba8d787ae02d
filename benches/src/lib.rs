//! Shared setup for the criterion benchmarks.
