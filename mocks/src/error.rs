//! The crate's one error type.

use std::path::PathBuf;

/// Everything that can go wrong while configuring, starting or checking a mock.
///
/// Bad input (an impossible latency, a status code that is not an error, a
/// missing fixture file) is reported here instead of panicking.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MockError {
    /// A [`Latency`](crate::Latency) whose parameters cannot be sampled.
    #[error("invalid latency for `{endpoint}`: {reason}")]
    InvalidLatency {
        /// Endpoint the latency belongs to.
        endpoint: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A [`Fault`](crate::Fault) whose parameters make no sense.
    #[error("invalid fault for `{endpoint}`: {reason}")]
    InvalidFault {
        /// Endpoint the fault belongs to.
        endpoint: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A mock option that is out of range (e.g. zero Kubernetes contexts with overrides).
    #[error("invalid mock option: {0}")]
    InvalidOption(String),
    /// Binding or configuring a listener failed.
    #[error("cannot listen on 127.0.0.1: {0}")]
    Listen(#[source] std::io::Error),
    /// A fixture or data file could not be read.
    #[error("cannot read `{}`", path.display())]
    ReadFile {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A file could not be written (e.g. the kubeconfig).
    #[error("cannot write `{}`", path.display())]
    WriteFile {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// An endpoint received a different number of requests than expected.
    #[error("endpoint `{endpoint}` received {actual} requests, expected {expected}")]
    CountMismatch {
        /// Endpoint name, as in [`Recording::endpoint`](crate::Recording::endpoint).
        endpoint: String,
        /// Expected request count.
        expected: usize,
        /// Recorded request count.
        actual: usize,
    },
}
