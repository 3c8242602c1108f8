//! `logwrite` changes Kafka log dirs: it writes them ([`mod@write`]: partitions
//! and whole log dirs, as a Kafka 3.9 broker writes them) and repairs them
//! ([`repair`]: plans, a journal with a quarantine, undo).
//!
//! The layer above `logfmt` and `logrules`: every format and encoding comes
//! from `logfmt` (`logfmt::builder`, `logfmt::emit`), every Kafka rule from
//! `logrules`, and neither can name anything here, so read-side code cannot
//! write.
#![cfg_attr(test, allow(clippy::arithmetic_side_effects))]

pub mod lock;
pub mod repair;
pub mod write;
