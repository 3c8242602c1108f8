//! Errors: a file, where in it, and whether its data ended early
//! (truncated) or is wrong (corrupt); or a failure of the format library.

use std::path::PathBuf;

/// Truncated versus corrupt, as in `logfmt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// The file ends before the structure does.
    Truncated,
    /// The bytes are present but wrong.
    Corrupt,
}

impl std::fmt::Display for Class {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Class::Truncated => "truncated",
            Class::Corrupt => "corrupt",
        })
    }
}

/// What went wrong.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading a Kafka file failed (the error carries path and position).
    #[error(transparent)]
    Format(#[from] logfmt::Error),
    /// A digest file is damaged or not a digest.
    #[error("{path}: at byte {position} of the decompressed digest: {message} ({class})")]
    Digest {
        /// The digest file.
        path: PathBuf,
        /// Position in the decompressed stream.
        position: u64,
        /// Truncated or corrupt.
        class: Class,
        /// Details.
        message: String,
    },
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The inputs cannot be compared.
    #[error("{0}")]
    Input(String),
}

/// Results of this crate.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub(crate) fn io(path: &std::path::Path, source: std::io::Error) -> Error {
        Error::Io { path: path.to_path_buf(), source }
    }
}
