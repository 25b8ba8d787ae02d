//! The `--trace` file, created only once the signal handlers are in place.
//!
//! Tracing starts first thing in `main`, so the trace covers the whole
//! process; but a file created then could be left empty by a SIGINT that
//! arrives before the handlers exist (the default action kills the process
//! mid-write). Until [`TraceFile::open`] the trace is kept in memory; after
//! it, an interrupt goes through the clean exit and the trace is complete.

use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

enum State {
    /// Not created yet: what was written so far.
    Pending {
        path: PathBuf,
        buffer: Vec<u8>,
    },
    Open(std::io::BufWriter<std::fs::File>),
    /// The file could not be created (said once); writes are dropped.
    Failed,
}

/// A cloneable writer for the Chrome layer (its writer thread holds one).
#[derive(Clone)]
pub struct TraceFile(Arc<Mutex<State>>);

impl TraceFile {
    /// A trace to be written to `path` once [`TraceFile::open`] is called.
    pub fn new(path: PathBuf) -> TraceFile {
        TraceFile(Arc::new(Mutex::new(State::Pending {
            path,
            buffer: Vec::new(),
        })))
    }

    /// Creates the file and writes what was kept; a failure is one line on
    /// stderr and the trace is dropped.
    pub fn open(&self) {
        let mut state = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let State::Pending { path, buffer } = &mut *state else {
            return;
        };
        let opened = std::fs::File::create(&*path).and_then(|file| {
            let mut file = std::io::BufWriter::new(file);
            file.write_all(buffer)?;
            Ok(file)
        });
        *state = match opened {
            Ok(file) => State::Open(file),
            Err(e) => {
                eprintln!("sky: cannot write the trace {}: {e}", path.display());
                State::Failed
            }
        };
    }
}

impl Write for TraceFile {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let mut state = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        match &mut *state {
            State::Pending { buffer, .. } => {
                buffer.extend_from_slice(bytes);
                Ok(bytes.len())
            }
            State::Open(file) => file.write(bytes),
            State::Failed => Ok(bytes.len()),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let mut state = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        match &mut *state {
            State::Open(file) => file.flush(),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_exists_until_opened_then_everything_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trace.json");
        let trace = TraceFile::new(path.clone());
        let mut writer = trace.clone();
        writer.write_all(b"[\n{}").unwrap();
        assert!(!path.exists());
        trace.open();
        writer.write_all(b",{}]").unwrap();
        writer.flush().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"[\n{},{}]");
    }

    #[test]
    fn an_uncreatable_file_drops_the_trace() {
        let dir = tempfile::tempdir().unwrap();
        let trace = TraceFile::new(dir.path().join("no/such/dir/trace.json"));
        trace.open();
        let mut writer = trace.clone();
        writer.write_all(b"x").unwrap();
        writer.flush().unwrap();
    }
}
