//! Integration tests: one binary, modules per area.
