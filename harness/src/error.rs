//! The harness library's one error type.

use std::path::PathBuf;

/// Everything that can go wrong while loading a scenario, running launches or
/// writing a report. Bad input is reported here (naming the file and field),
/// never by panicking.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HarnessError {
    /// No scenario of that name (or path) exists.
    #[error("no scenario `{name}`: looked for {}", looked.display())]
    ScenarioNotFound {
        /// The name as given.
        name: String,
        /// The file that was expected.
        looked: PathBuf,
    },
    /// The scenario file does not parse (the message names line, column and field).
    #[error("{}: {message}", path.display())]
    ScenarioSyntax {
        /// The scenario file.
        path: PathBuf,
        /// The TOML/serde message.
        message: String,
    },
    /// The scenario file parses but a field holds an unusable value.
    #[error("{}: field `{field}`: {reason}", path.display())]
    ScenarioField {
        /// The scenario file.
        path: PathBuf,
        /// Dotted path of the field, e.g. `request.cloud_timeout_s`.
        field: String,
        /// What is wrong.
        reason: String,
    },
    /// The mocks could not be started.
    #[error("starting the mocks: {0}")]
    Mocks(#[from] mocks::MockError),
    /// The optimizer's configuration was refused.
    #[error("optimizer configuration: {0}")]
    Optimizer(String),
    /// The `sky` binary is not where it was expected.
    #[error("the `sky` binary is missing at {}; build it first: cargo build -p optimizer --bin sky{}", path.display(), if *release { " --release" } else { "" })]
    SkyMissing {
        /// Where it was looked for.
        path: PathBuf,
        /// Whether the harness runs from a release build.
        release: bool,
    },
    /// A launch ended in a way no scenario expects (crash, usage error, no cloud).
    #[error("launch failed ({what}): {detail}")]
    Launch {
        /// Mode and run.
        what: String,
        /// Exit status and the end of stderr.
        detail: String,
    },
    /// A file or directory could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The SkyPilot engine could not be set up or made no launch.
    #[error("SkyPilot engine: {0}")]
    SkyPilot(String),
    /// Profiling or rendering failed.
    #[error("{what}: {detail}")]
    Render {
        /// Which artefact.
        what: String,
        /// Why.
        detail: String,
    },
}

impl HarnessError {
    /// An [`HarnessError::Io`] for `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        HarnessError::Io {
            path: path.into(),
            source,
        }
    }
}

/// Result with [`HarnessError`].
pub type Result<T, E = HarnessError> = std::result::Result<T, E>;
