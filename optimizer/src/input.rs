//! Reading the user's input files — task YAML, catalogs, configuration,
//! credential files — so that no file can hang or exhaust a launch.
//!
//! Every read goes through [`read_regular`]: the file is opened without
//! blocking (a FIFO with no writer would otherwise block the open forever),
//! must be a regular file (`/dev/zero` or a FIFO would be read forever), and
//! may not be larger than a cap chosen per kind of input. Anything else is
//! an [`InputError`] whose message names the file and what is wrong.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// Largest task YAML (SkyPilot task files are a few kB; 1 MiB leaves room
/// for long inline `run:` scripts).
pub const MAX_TASK_FILE_BYTES: u64 = 1 << 20;
/// Largest catalog CSV (SkyPilot's AWS `vms.csv`, the biggest, is ~5 MB).
pub const MAX_CATALOG_FILE_BYTES: u64 = 64 << 20;
/// Largest configuration or credential file (`~/.sky/config.yaml`,
/// kubeconfig, AWS shared files, ADC JSON).
pub const MAX_CONFIG_FILE_BYTES: u64 = 4 << 20;

/// Why an input file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// Opening or reading failed (missing, permission, I/O).
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// The path is a FIFO, device, socket or directory.
    #[error("cannot read {}: it is {kind}, not a regular file", path.display())]
    NotRegular {
        /// The file.
        path: PathBuf,
        /// What it is instead (`a FIFO`, `a character device`, ...).
        kind: &'static str,
    },
    /// The file is larger than its cap.
    #[error("cannot read {}: larger than {limit} bytes", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The cap.
        limit: u64,
    },
}

impl InputError {
    /// What is wrong, without the path (for messages that name it already).
    pub fn cause(&self) -> String {
        match self {
            InputError::Io { source, .. } => source.to_string(),
            InputError::NotRegular { kind, .. } => format!("it is {kind}, not a regular file"),
            InputError::TooLarge { limit, .. } => format!("larger than {limit} bytes"),
        }
    }

    /// The underlying I/O error kind (`NotFound` for a missing file).
    pub fn io_kind(&self) -> Option<io::ErrorKind> {
        match self {
            InputError::Io { source, .. } => Some(source.kind()),
            _ => None,
        }
    }
}

fn kind_of(ft: std::fs::FileType) -> &'static str {
    if ft.is_dir() {
        "a directory"
    } else if ft.is_fifo() {
        "a FIFO"
    } else if ft.is_char_device() {
        "a character device"
    } else if ft.is_block_device() {
        "a block device"
    } else if ft.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

/// Reads a regular file of at most `limit` bytes (symlinks are followed:
/// it is the target that must be regular).
pub fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, InputError> {
    let (file, meta) = open_regular(path, limit)?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // The file may grow between the stat and the read: read one byte past
    // the cap to notice.
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| InputError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    if bytes.len() as u64 > limit {
        return Err(InputError::TooLarge {
            path: path.to_path_buf(),
            limit,
        });
    }
    Ok(bytes)
}

/// [`read_regular`], handing the bytes to `piece` as they are read (at
/// most `piece_bytes` at a time) instead of holding them: for a reader that
/// parses as it reads. The checks and errors are [`read_regular`]'s; a file
/// that grows past the cap while read is refused after `piece` has seen
/// `limit` bytes of it.
pub fn read_regular_pieces(
    path: &Path,
    limit: u64,
    piece_bytes: usize,
    mut piece: impl FnMut(&[u8]),
) -> Result<(), InputError> {
    let io = |source| InputError::Io {
        path: path.to_path_buf(),
        source,
    };
    let (file, _) = open_regular(path, limit)?;
    let mut file = file.take(limit + 1);
    let mut buf = vec![0u8; piece_bytes.max(1)];
    let mut total = 0u64;
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io(e)),
        };
        total += n as u64;
        if total > limit {
            return Err(InputError::TooLarge {
                path: path.to_path_buf(),
                limit,
            });
        }
        piece(&buf[..n]);
    }
}

/// Opens a regular file of at most `limit` bytes (its `stat` says), without
/// blocking on a FIFO.
fn open_regular(path: &Path, limit: u64) -> Result<(File, std::fs::Metadata), InputError> {
    let io = |source| InputError::Io {
        path: path.to_path_buf(),
        source,
    };
    // O_NONBLOCK: opening a FIFO for reading otherwise waits for a writer.
    // It has no effect on the reads of a regular file.
    let file = File::options()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(path)
        .map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if !meta.file_type().is_file() {
        return Err(InputError::NotRegular {
            path: path.to_path_buf(),
            kind: kind_of(meta.file_type()),
        });
    }
    if meta.len() > limit {
        return Err(InputError::TooLarge {
            path: path.to_path_buf(),
            limit,
        });
    }
    Ok((file, meta))
}

/// [`read_regular`], as UTF-8 text.
pub fn read_regular_text(path: &Path, limit: u64) -> Result<String, InputError> {
    let bytes = read_regular(path, limit)?;
    String::from_utf8(bytes).map_err(|e| InputError::Io {
        path: path.to_path_buf(),
        source: io::Error::new(io::ErrorKind::InvalidData, e.utf8_error()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_fifos_directories_and_big_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
        )
        .unwrap();
        let started = std::time::Instant::now();
        for (path, want) in [
            (Path::new("/dev/zero"), "a character device"),
            (fifo.as_path(), "a FIFO"),
            (dir.path(), "a directory"),
        ] {
            let err = read_regular(path, 1 << 20).unwrap_err();
            assert!(
                err.to_string().contains(want)
                    && err.to_string().contains(&path.display().to_string()),
                "{err}"
            );
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
        let big = dir.path().join("big");
        std::fs::write(&big, vec![b'a'; 1025]).unwrap();
        assert!(matches!(
            read_regular(&big, 1024),
            Err(InputError::TooLarge { limit: 1024, .. })
        ));
        assert_eq!(read_regular(&big, 1025).unwrap().len(), 1025);
        let missing = read_regular(&dir.path().join("nope"), 10).unwrap_err();
        assert_eq!(missing.io_kind(), Some(io::ErrorKind::NotFound));
    }
}
