//! The error every request parser returns: SkyPilot's exception kind and
//! its message.

/// The kind of error SkyPilot raises; rendered as `<kind>: <message>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum ErrorKind {
    /// Python `ValueError`.
    ValueError,
    /// Python `AssertionError`.
    AssertionError,
    /// Python `AttributeError` (SkyPilot tripping over a NaN from a catalog).
    AttributeError,
    /// `sky.exceptions.ResourcesMismatchError`.
    ResourcesMismatch,
    /// `sky.exceptions.ResourcesUnavailableError`.
    ResourcesUnavailable,
    /// `sky.exceptions.NoCloudAccessError`.
    NoCloudAccess,
    /// `sky.exceptions.InvalidSkyPilotConfigError` (task schema violations).
    InvalidConfig,
    /// The task YAML could not be read (an `OSError` in Python; `sky` names
    /// the file and the cause, without a prefix).
    Unreadable,
    /// `sky.exceptions.NotSupportedError` (`Cloud.check_features_are_supported`
    /// while a `Resources` is validated: a docker image or ports on a cloud
    /// without them).
    NotSupported,
    /// `sky.exceptions.VolumeNotFoundError`.
    VolumeNotFound,
    /// `sky.exceptions.VolumeTopologyConflictError`.
    VolumeTopologyConflict,
    /// A usage error of SkyPilot's CLI (click's `UsageError`), printed as
    /// `Error: <message>`.
    Usage,
}

impl ErrorKind {
    /// The exception name as SkyPilot's CLI prints it.
    pub fn python_name(self) -> &'static str {
        match self {
            ErrorKind::ValueError => "ValueError",
            ErrorKind::AssertionError => "AssertionError",
            ErrorKind::AttributeError => "AttributeError",
            ErrorKind::ResourcesMismatch => "sky.exceptions.ResourcesMismatchError",
            ErrorKind::ResourcesUnavailable => "sky.exceptions.ResourcesUnavailableError",
            ErrorKind::NoCloudAccess => "sky.exceptions.NoCloudAccessError",
            ErrorKind::InvalidConfig => "sky.exceptions.InvalidSkyPilotConfigError",
            ErrorKind::Unreadable => "OSError",
            ErrorKind::NotSupported => "sky.exceptions.NotSupportedError",
            ErrorKind::VolumeNotFound => "sky.exceptions.VolumeNotFoundError",
            ErrorKind::VolumeTopologyConflict => "sky.exceptions.VolumeTopologyConflictError",
            ErrorKind::Usage => "Error",
        }
    }
}

/// A request that SkyPilot would reject, with SkyPilot's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct RequestError {
    /// The exception kind.
    pub kind: ErrorKind,
    /// The message (may contain ANSI colour codes, as SkyPilot's do).
    pub message: String,
}

impl RequestError {
    /// A `ValueError`.
    pub fn value(message: impl Into<String>) -> Self {
        RequestError {
            kind: ErrorKind::ValueError,
            message: message.into(),
        }
    }

    /// An error of the given kind.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        RequestError {
            kind,
            message: message.into(),
        }
    }

    /// The task YAML could not be read; `message` names it and the cause.
    pub fn unreadable_entrypoint(message: impl Into<String>) -> Self {
        RequestError::new(ErrorKind::Unreadable, message)
    }
}
