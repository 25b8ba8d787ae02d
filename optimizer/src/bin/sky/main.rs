//! The `sky` command-line interface.
fn main() {}
