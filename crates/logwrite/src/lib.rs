//! `logwrite` changes Kafka log dirs: it writes them ([`mod@write`]: partitions
//! and whole log dirs, as a Kafka 3.9 broker writes them) and repairs them
//! ([`repair`]: plans, a journal with a quarantine, undo).
//!
//! The layer above `logfmt`: every format, encoding and Kafka rule comes
//! from there (`logfmt::builder`, `logfmt::emit`, `logfmt::rules`), and
//! `logfmt` cannot name anything here, so read-side code cannot write.
#![cfg_attr(test, allow(clippy::arithmetic_side_effects))]

pub mod repair;
pub mod write;
