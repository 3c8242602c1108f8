//! `--redact`: keys, values and header values replaced by a keyed hash, so
//! that output can be sent to a vendor or a colleague without customer data.
//!
//! Equal bytes give equal tokens within a run (and across runs given the same
//! `--redact-key`), so "the same key in both replicas" or "one key written
//! a thousand times" still shows; sizes and offsets are kept. The hash is
//! BLAKE3 in keyed mode with a key derived from the secret text, so a token
//! cannot be reversed or checked against a guess without the secret. Without
//! `--redact-key` the secret is random and printed once, on stderr (never on
//! stdout, which is what gets shared).

use clap::Args;

/// The `--redact` flags.
#[derive(Args, Debug, Clone, Default)]
pub struct RedactArgs {
    /// Replace keys, values and header values with keyed-hash tokens
    /// ("redacted:<16 hex digits>": equal bytes, equal tokens; sizes and offsets
    /// kept). Internal topics' records are then not decoded.
    #[arg(long, help_heading = "Redaction")]
    pub redact: bool,
    /// The secret of --redact's hash: the same secret gives the same tokens in
    /// another run [default: a random one, printed on stderr].
    #[arg(long, value_name = "SECRET", requires = "redact", help_heading = "Redaction")]
    pub redact_key: Option<String>,
}

/// BLAKE3 key-derivation context: tokens change if this does.
const CONTEXT: &str = "logtool 2026-11-24 --redact tokens";

pub struct Redactor {
    key: [u8; 32],
}

impl Redactor {
    /// The redactor `args` ask for, if any; a random secret is printed on
    /// stderr.
    pub fn from_args(args: &RedactArgs) -> anyhow::Result<Option<Redactor>> {
        if !args.redact {
            return Ok(None);
        }
        let secret = match &args.redact_key {
            Some(s) => s.clone(),
            None => {
                let mut bytes = [0u8; 16];
                let mut filled = 0;
                while filled < bytes.len() {
                    let rest = bytes.get_mut(filled..).unwrap_or_default();
                    filled += rustix::rand::getrandom(rest, rustix::rand::GetRandomFlags::empty())?;
                }
                let secret: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
                eprintln!(
                    "logtool: --redact secret for this run: {secret} (--redact-key {secret} gives the same tokens)"
                );
                secret
            }
        };
        Ok(Some(Redactor::new(&secret)))
    }

    pub fn new(secret: &str) -> Redactor {
        Redactor { key: blake3::derive_key(CONTEXT, secret.as_bytes()) }
    }

    /// The token of `bytes`.
    pub fn token(&self, bytes: &[u8]) -> String {
        let h = blake3::keyed_hash(&self.key, bytes);
        let mut s = String::with_capacity(25);
        s.push_str("redacted:");
        for b in h.as_bytes().iter().take(8) {
            s.push_str(&format!("{b:02x}"));
        }
        s
    }

    /// A 32-bit keyed hash of a number (a checksum that would otherwise
    /// let a short value be guessed).
    pub fn hash_u32(&self, v: u32) -> u32 {
        let h = blake3::keyed_hash(&self.key, &v.to_be_bytes());
        let b = h.as_bytes();
        u32::from_be_bytes([b[0], b[1], b[2], b[3]])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens() {
        let r = Redactor::new("s");
        assert_eq!(r.token(b"k"), r.token(b"k"));
        assert_ne!(r.token(b"k"), r.token(b"l"));
        assert_ne!(r.token(b"k"), Redactor::new("t").token(b"k"));
        assert_eq!(r.token(b"k").len(), 25);
        assert!(r.token(b"secret").starts_with("redacted:"));
    }
}
