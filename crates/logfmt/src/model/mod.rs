//! The partition model: a partition dir sorted out, with what its log
//! dir's checkpoints and metadata log say about it - one type every rule and
//! command takes ([`partition`]). Names `format` and `util`.

pub mod partition;
