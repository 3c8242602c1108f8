//! Errors of every reader in this crate.
//!
//! An [`Error`] says *what* is wrong ([`ErrorKind`]), *where* (the file and the
//! absolute byte position in it), and which [`ErrorClass`] it belongs to:
//!
//! * [`ErrorClass::Truncated`]: the file ends before the structure does; the
//!   kind says how many more bytes were needed. A torn write at the end of the
//!   last segment after a crash looks like this.
//! * [`ErrorClass::Corrupt`]: the bytes are there but are not a valid structure
//!   (bad CRC, bad magic, a length out of range, a record running past the end
//!   of its batch, ...).
//! * [`ErrorClass::Io`]: the operating system failed to read.
//!
//! The error is one boxed pointer wide, so `Result<T>` stays small on hot paths.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::compression::Compression;

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong, where.
pub struct Error {
    inner: Box<Inner>,
}

struct Inner {
    kind: ErrorKind,
    position: Option<u64>,
    path: Option<PathBuf>,
}

/// The broad class of an error: torn tail, bad bytes, or failed I/O.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorClass {
    /// The data ends before the structure does.
    Truncated,
    /// The bytes are present but invalid.
    Corrupt,
    /// Reading failed.
    Io,
    /// Reading needed more memory than the budget (`--memory`) gives: the
    /// data is not judged.
    Memory,
}

impl ErrorClass {
    /// `truncated`, `corrupt` or `io`: the names used in JSON output.
    pub fn name(self) -> &'static str {
        match self {
            ErrorClass::Truncated => "truncated",
            ErrorClass::Corrupt => "corrupt",
            ErrorClass::Io => "io",
            ErrorClass::Memory => "memory",
        }
    }
}

/// The specific problem. Variants are named for what was observed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file ended `needed` bytes before `what` was complete.
    #[error("{what} is truncated: needed {needed} more byte(s) than the file holds")]
    Truncated {
        /// The structure being read.
        what: &'static str,
        /// How many more bytes it needed.
        needed: u64,
    },
    /// A structure runs `needed` bytes past the end of the structure that
    /// encloses it (e.g. a record past the end of its batch).
    #[error("{what} runs {needed} byte(s) past the end of its enclosing structure")]
    OutOfBounds {
        /// The structure being read.
        what: &'static str,
        /// How many bytes were missing.
        needed: u64,
    },
    /// A length or count field holds a value outside its valid range.
    #[error("{what} is {value}, outside the valid range {min} to {max}")]
    BadLength {
        /// The field.
        what: &'static str,
        /// The value found.
        value: i64,
        /// Smallest valid value.
        min: i64,
        /// Largest valid (or allowed, see `limits`) value.
        max: i64,
    },
    /// The magic (format version) byte is not 0, 1 or 2.
    #[error("unknown magic byte {magic} (expected 0, 1 or 2)")]
    BadMagic {
        /// The magic byte found.
        magic: i8,
    },
    /// A version field holds an unsupported value.
    #[error("unsupported {what} version {version}")]
    BadVersion {
        /// The structure whose version it is.
        what: &'static str,
        /// The version found.
        version: i64,
    },
    /// The stored checksum does not match the bytes.
    #[error("{what} CRC mismatch: stored CRC {stored} but its bytes give {computed}")]
    CrcMismatch {
        /// The structure checked.
        what: &'static str,
        /// The checksum in the file.
        stored: u32,
        /// The checksum of the bytes.
        computed: u32,
    },
    /// A varint did not end within its maximum length (5 bytes for a varint,
    /// 10 for a varlong).
    #[error("{what}: varint is too long")]
    VarintTooLong {
        /// The field.
        what: &'static str,
    },
    /// A varint's last byte sets bits beyond the width of its type.
    #[error("{what}: varint overflows its type")]
    VarintOverflow {
        /// The field.
        what: &'static str,
    },
    /// The attributes name a compression codec id that does not exist (5, 6, 7).
    #[error("unknown compression codec id {id}")]
    UnknownCompression {
        /// The codec id.
        id: u8,
    },
    /// The compressed payload could not be decompressed.
    #[error("{} payload does not decompress: {message}", codec.name())]
    Decompress {
        /// The codec.
        codec: Compression,
        /// What the decoder reported.
        message: String,
    },
    /// Decompressing would exceed the configured ceiling (a bomb, or a limit
    /// set too low).
    #[error("{} payload decompresses to more than the limit of {limit} bytes", codec.name())]
    DecompressedTooLarge {
        /// The codec.
        codec: Compression,
        /// The ceiling in bytes.
        limit: usize,
    },
    /// A batch declares a different number of records than it holds.
    #[error("batch declares {declared} record(s) but holds {found}")]
    RecordCount {
        /// The `recordsCount` field.
        declared: i32,
        /// Records actually decoded before the data ran out.
        found: i32,
    },
    /// Bytes remain after the last element of a structure.
    #[error("{bytes} unexpected byte(s) after the {what}")]
    TrailingBytes {
        /// The structure.
        what: &'static str,
        /// How many bytes remain.
        bytes: u64,
    },
    /// Any other malformation, described in words (text files, nested
    /// structures).
    #[error("malformed {what}: {detail}")]
    Malformed {
        /// The structure.
        what: &'static str,
        /// What is wrong.
        detail: String,
    },
    /// A header field outside the CRC does not fit the batch's position
    /// (see `sanity`): the batch is not trusted.
    #[error("{field}: {detail}")]
    BadHeader {
        /// The field.
        field: crate::sanity::HeaderField,
        /// What is wrong.
        detail: String,
    },
    /// Reading needed more memory than the process-wide budget gives.
    #[error("{what} needs {needed} bytes of memory, more than --memory ({budget} bytes) leaves free")]
    MemoryBudget {
        /// What needed it (a batch, a record, a zstd window, ...).
        what: &'static str,
        /// Bytes it needed.
        needed: u64,
        /// The budget's size.
        budget: u64,
    },
    /// A command declined to go on (what to do instead is in the message).
    #[error("{0}")]
    Refused(String),
    /// A path given to a command holds no Kafka log data (a usage error,
    /// like a missing file: class [`ErrorClass::Io`]).
    #[error("{0}")]
    NotKafka(String),
    /// Reading failed.
    #[error("{}", io_words(.0))]
    Io(std::io::Error),
}

/// An I/O error in words: the system's text without its number ("No such
/// file or directory", not "... (os error 2)"), what it means for a missing
/// path.
fn io_words(e: &std::io::Error) -> String {
    let text = e.to_string();
    let text = match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => text.get(..at).unwrap_or(&text).to_string(),
        _ => text,
    };
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => format!("{text} (permission denied: run as the user Kafka runs as)"),
        _ => format!("I/O error: {text}"),
    }
}

impl ErrorKind {
    /// The class of this kind.
    pub fn class(&self) -> ErrorClass {
        match self {
            ErrorKind::Truncated { .. } => ErrorClass::Truncated,
            ErrorKind::Io(_) | ErrorKind::NotKafka(_) => ErrorClass::Io,
            ErrorKind::MemoryBudget { .. } => ErrorClass::Memory,
            _ => ErrorClass::Corrupt,
        }
    }
}

impl Error {
    /// A new error of `kind` at absolute byte `position` (if known).
    #[cold]
    pub fn new(kind: ErrorKind, position: Option<u64>) -> Error {
        Error { inner: Box::new(Inner { kind, position, path: None }) }
    }

    /// A new error at `position`.
    #[cold]
    pub fn at(position: u64, kind: ErrorKind) -> Error {
        Error::new(kind, Some(position))
    }

    /// A `Truncated` error: `what` needed `needed` more bytes at `position`.
    #[cold]
    pub fn truncated(position: u64, what: &'static str, needed: u64) -> Error {
        Error::at(position, ErrorKind::Truncated { what, needed })
    }

    /// A `Malformed` error.
    #[cold]
    pub fn malformed(position: u64, what: &'static str, detail: impl Into<String>) -> Error {
        Error::at(position, ErrorKind::Malformed { what, detail: detail.into() })
    }

    /// A refusal to go on, in words that say what to do instead.
    #[cold]
    pub fn refused(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Refused(message.into()), None)
    }

    /// An I/O error, with the file it concerns.
    #[cold]
    pub fn io(err: std::io::Error, path: Option<&Path>) -> Error {
        let mut e = Error::new(ErrorKind::Io(err), None);
        e.inner.path = path.map(Path::to_path_buf);
        e
    }

    /// Attach the file this error concerns (keeps an existing one).
    #[must_use]
    pub fn with_path(mut self, path: &Path) -> Error {
        if self.inner.path.is_none() {
            self.inner.path = Some(path.to_path_buf());
        }
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.inner.kind
    }

    /// Truncated, corrupt or I/O.
    pub fn class(&self) -> ErrorClass {
        self.inner.kind.class()
    }

    /// True for [`ErrorClass::Truncated`].
    pub fn is_truncated(&self) -> bool {
        self.class() == ErrorClass::Truncated
    }

    /// The absolute byte position in the file, when known.
    pub fn position(&self) -> Option<u64> {
        self.inner.position
    }

    /// The file, when known.
    pub fn path(&self) -> Option<&Path> {
        self.inner.path.as_deref()
    }

    /// The header field found wrong, for [`ErrorKind::BadHeader`].
    pub fn header_field(&self) -> Option<crate::sanity::HeaderField> {
        match &self.inner.kind {
            ErrorKind::BadHeader { field, .. } => Some(*field),
            _ => None,
        }
    }

    /// The message without file and position.
    pub fn message(&self) -> String {
        self.inner.kind.to_string()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(p) = &self.inner.path {
            write!(f, "{}: ", p.display())?;
        }
        if let Some(pos) = self.inner.position {
            write!(f, "at byte {pos}: ")?;
        }
        write!(f, "{}", self.inner.kind)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.inner.kind)
            .field("position", &self.inner.position)
            .field("path", &self.inner.path)
            .finish()
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.inner.kind {
            ErrorKind::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Error {
        Error::io(e, None)
    }
}

// (here rather than in `util::budget`: the budget is below the formats,
// the error it becomes is theirs)
impl crate::budget::Short {
    /// The error to report when the budget refused memory for what is read
    /// at `position`.
    pub fn error(self, position: u64) -> Error {
        Error::at(position, ErrorKind::MemoryBudget { what: self.what, needed: self.needed, budget: self.total })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_is_one_pointer_wide() {
        assert_eq!(std::mem::size_of::<Error>(), std::mem::size_of::<usize>());
    }

    #[test]
    fn display_names_file_position_and_need() {
        let e = Error::truncated(42, "record batch", 7).with_path(Path::new("x.log"));
        assert_eq!(
            e.to_string(),
            "x.log: at byte 42: record batch is truncated: needed 7 more byte(s) than the file holds"
        );
        assert!(e.is_truncated());
        assert_eq!(e.class().name(), "truncated");
    }
}
