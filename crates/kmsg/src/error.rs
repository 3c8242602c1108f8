//! Errors of the codec.

/// What went wrong reading or writing a message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The bytes end inside the message.
    #[error("truncated at byte {at} of the message")]
    Truncated {
        /// Where (from the start of the message's bytes).
        at: usize,
    },
    /// The bytes are not a valid message.
    #[error("invalid at byte {at}: {what}")]
    Invalid {
        /// Where.
        at: usize,
        /// What.
        what: String,
    },
    /// A definition that cannot be used.
    #[error("schema: {0}")]
    Schema(String),
    /// A value that does not fit its field.
    #[error("{0}")]
    Value(String),
}

impl Error {
    pub(crate) fn schema(what: String) -> Error {
        Error::Schema(what)
    }

    pub(crate) fn value(what: String) -> Error {
        Error::Value(what)
    }

    /// Name the field a value error is in.
    pub(crate) fn within(self, field: &str) -> Error {
        match self {
            Error::Value(s) => Error::Value(format!("{field}: {s}")),
            e => e,
        }
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
