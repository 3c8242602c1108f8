//! Kafka's UUIDs (topic ids, directory ids, cluster ids): 16 bytes, written as
//! 22 characters of URL-safe base64 without padding (`Uuid.java`).

use std::fmt;

use base64::Engine;
use base64::engine::general_purpose::{URL_SAFE, URL_SAFE_NO_PAD};

/// A 128-bit id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Uuid(pub [u8; 16]);

impl Uuid {
    /// Parse Kafka's base64url form (padding optional, as Java's URL decoder).
    pub fn parse(s: &str) -> Option<Uuid> {
        if s.len() > 24 {
            return None;
        }
        let bytes = URL_SAFE_NO_PAD.decode(s).or_else(|_| URL_SAFE.decode(s)).ok()?;
        Some(Uuid(bytes.try_into().ok()?))
    }

    /// The all-zero UUID (invalid as a topic id).
    pub fn is_zero(&self) -> bool {
        self.0 == [0; 16]
    }
}

impl fmt::Display for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&URL_SAFE_NO_PAD.encode(self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let u = Uuid::parse("AAAAAAAAAAAAAAAAAAAAAQ").unwrap();
        assert_eq!(u.0[15], 1);
        assert_eq!(u.to_string(), "AAAAAAAAAAAAAAAAAAAAAQ");
        assert!(Uuid::parse("short").is_none());
    }
}
