//! logtool's integration tests: one binary, a module per concern.

// `logtool broker` spoken to as a client does
mod broker;
// `logtool dump` behaviour: walking order, options, exit codes, damage
mod dump;
// faults: I/O errors at every step, kills mid-commit, lock races, relative paths, a full disk
mod faults;
// `logtool fixture`: log dirs written from specs
mod fixture;
// GUIDE.md's worked examples reproduce, piped and at 80 columns
mod guide;
// `logtool groups` and `txns` against a live broker's answers, `dump --decode`
mod incident;
// hostile inputs: clear errors, exit codes, no panic, bounded memory
mod hostile;
// every command at every path level: the log dir's answer, or exit 2
mod levels;
// `logtool dump` against Kafka's DumpLogSegments on the real-Kafka fixtures
mod kafka_oracle;
// what a new user meets first: errors, exit codes, widths, units, specs
mod newcomer;
// `logtool offset-for-time` against a live broker's ListOffsets answers
mod offsets;
// `logtool diff-replicas` and `digest` against Kafka's own reconciliation
mod replicas;
// the commands that write: plans, locks, crash safety, undo
mod repair;
// arbitrary records through the writer and `dump --format json`, exactly
mod roundtrip;
// `recover` against what Kafka's start did on damaged copies (kept by the interop's start_matrix.sh)
mod start_matrix;
// `logtool stats` against dump's counts; its charts
mod stats;
// the operator's stories end to end: space back, one line per record, filters, errors first
mod stories;
// shared helpers
mod util;
// `logtool broker`: every advertised API at every version
mod versions;
// ZooKeeper-mode log dirs: the mode, configs from ZooKeeper's data dir, what Kafka did
mod zookeeper;
// `logtool verify` on real-Kafka fixtures and real corruptions of them
mod verify;
