//! harness binary.
fn main() {}
