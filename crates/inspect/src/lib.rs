//! What `logtool`'s reading commands answer, built on `logfmt`'s readers
//! and rules (the rules above all: these ask them, never re-derive them):
//! [`verify`] (findings), [`stats`], [`dump`] (batches and records, lines
//! of every file), [`groups`] and [`txns`] (the coordinators' state as
//! their internal topics hold it), [`offsets`] (how `offset-for-time` shows
//! a ListOffsets answer), and [`schedule`], the pool that spreads partition
//! work over threads. Only the `logtool` binary and the fuzzers use it: a
//! writer, the broker or `repl-check` cannot name a command's report.
//!
//! Every line a command reports implements `logfmt::report::Report` (a table
//! row and a `--format json` line); nothing here writes to a log dir.
#![cfg_attr(test, allow(clippy::arithmetic_side_effects))]

/// The Kafka release whose rules a command applies (`--kafka-version`).
pub use logrules::KafkaVersion;

pub mod dump;
pub mod groups;
pub mod offsets;
pub mod schedule;
pub mod stats;
pub mod txns;
pub mod verify;
