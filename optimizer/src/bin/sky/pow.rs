//! `pow`, the one C math function `sky` calls (`f64::powf` in the AWS
//! SDK's retry rate limiter and indicatif's rate estimates; nothing on a
//! launch's path), defined here from the `libm` crate. With no symbol left
//! to take from `libm.so.6`, the link drops it (`--as-needed`), and the
//! dynamic loader no longer opens, maps and relocates it on every start:
//! 8 system calls and 9 page faults of a warm launch.

/// C's `pow(x, y)`: `x` raised to the power `y` (musl's algorithm, as the
/// `libm` crate ports it).
#[allow(unsafe_code)] // `no_mangle`: this definition answers calls to the C symbol `pow`.
#[unsafe(no_mangle)]
pub extern "C" fn pow(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}
