//! Harness library.
