//! [`ApiError`]: the error a request, or one part of it, is answered with.
//! A leaf: every API module and the store name it, it names none of them.

use coordinator::consumer_group::Refused;
use kafka_protocol::ResponseError as E;

/// Why a request, or one part of it, is answered with an error: Kafka's
/// error code and the message the response carries (empty where Kafka
/// sends none, or where the response has no field for it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    /// Kafka's error code (never 0, `NONE`).
    pub code: i16,
    /// The error message.
    pub message: String,
}

impl ApiError {
    /// `e`, with Kafka's message.
    pub fn new(e: E, message: impl Into<String>) -> ApiError {
        ApiError { code: e.code(), message: message.into() }
    }

    /// A code the coordinators answered (they name codes as numbers: they
    /// do not depend on `kafka-protocol`), without a message.
    pub fn of_code(code: i16) -> ApiError {
        ApiError { code, message: String::new() }
    }

    /// The message, `None` when there is none (Kafka's null).
    pub fn message(&self) -> Option<&str> {
        (!self.message.is_empty()).then_some(self.message.as_str())
    }
}

impl From<E> for ApiError {
    fn from(e: E) -> ApiError {
        ApiError { code: e.code(), message: String::new() }
    }
}

impl From<Refused> for ApiError {
    fn from(r: Refused) -> ApiError {
        ApiError { code: r.code, message: r.message }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name =
            E::try_from_code(self.code).map_or_else(|| format!("error code {}", self.code), |e| format!("{e:?}"));
        match self.message() {
            Some(m) => write!(f, "{name}: {m}"),
            None => f.write_str(&name),
        }
    }
}

/// The error code a response carries for `r`: 0 (`NONE`) when it succeeded.
pub fn code_of<T>(r: &Result<T, ApiError>) -> i16 {
    r.as_ref().err().map_or(0, |e| e.code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_reads_as_kafka_names_it_and_none_is_zero() {
        let e = ApiError::new(E::UnknownTopicOrPartition, "no partition t-0");
        assert_eq!(e.code, 3);
        assert_eq!(e.to_string(), "UnknownTopicOrPartition: no partition t-0");
        assert_eq!(ApiError::from(E::ProducerFenced).message(), None);
        assert_eq!(ApiError::of_code(9999).to_string(), "Unknown(9999)");
        assert_eq!(code_of(&Ok::<(), ApiError>(())), 0);
        assert_eq!(code_of(&Err::<(), _>(ApiError::from(E::InvalidTxnState))), E::InvalidTxnState.code());
        let refused = Refused { code: 25, message: "Unknown member".into() };
        assert_eq!(ApiError::from(refused), ApiError { code: 25, message: "Unknown member".into() });
    }
}
