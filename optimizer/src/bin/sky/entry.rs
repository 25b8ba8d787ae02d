//! `sky`'s C entry point (the crate is `no_main`): what Rust's own start-up
//! does that `sky` needs, then [`crate::sky_main`].
//!
//! Rust's `lang_start` also finds the main thread's stack guard, and
//! glibc answers that (`pthread_getattr_np`) by reading and parsing
//! `/proc/self/maps`; it also maps an alternate signal stack. A warm
//! 22-cloud launch (callgrind, strace -c): ~93,000 instructions (2.7 %)
//! and 19 of its 264 system calls, for a better message on a stack
//! overflow. Here
//! a stack overflow is the kernel's `SIGSEGV` instead of Rust's "has
//! overflowed its stack" line before the abort: the process dies either
//! way, and the parsers of nested input (YAML, JSON) refuse depth before
//! it could overflow (`just stress`). Kept from `lang_start`: `SIGPIPE` ignored (a closed
//! pipe is a write error, not a silent death), the standard descriptors
//! opened on `/dev/null` when the parent closed them, and standard output
//! flushed at the end. `std::env::args_os` needs nothing: glibc passes the
//! words to std's `.init_array` hook.

/// The process's entry point: called by glibc's `__libc_start_main`.
#[allow(unsafe_code)] // `no_mangle`: this definition is the C symbol `main`.
#[unsafe(no_mangle)]
extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    runtime_basics();
    let code = crate::sky_main();
    // `lang_start`'s `rt::cleanup`: what is still buffered is written.
    let _ = std::io::Write::flush(&mut std::io::stdout());
    std::ffi::c_int::from(code)
}

/// `SIGPIPE` ignored and the standard descriptors made valid, as Rust's
/// start-up does (`std::sys::pal::unix::init`).
#[allow(unsafe_code)] // C calls on plain values; no Rust memory crosses them.
fn runtime_basics() {
    // SAFETY: `poll` reads and writes the three `pollfd`s of a live local
    // array; `open` takes a NUL-terminated literal; `signal` changes one
    // disposition before any thread exists.
    unsafe {
        let mut fds = [0, 1, 2].map(|fd| libc::pollfd {
            fd,
            events: 0,
            revents: 0,
        });
        if libc::poll(fds.as_mut_ptr(), 3, 0) != -1 {
            for fd in fds {
                if fd.revents & libc::POLLNVAL != 0 {
                    // The lowest free descriptor: the closed one.
                    libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
                }
            }
        }
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
}
