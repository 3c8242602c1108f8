//! The file formats: the bytes of every file in a Kafka log dir, read (each
//! reader bounds-checked, streaming where a file is large) and encoded
//! ([`builder`], [`emit`]), and where each file is ([`naming`], [`logdir`]).
//! Nothing here knows Kafka's behaviour beyond a file's layout and the
//! header-sanity invariants its reader needs ([`sanity`]). Names only
//! `util`.

pub mod batch;
pub mod builder;
pub mod checkpoint;
pub mod compression;
pub mod control;
pub mod cursor;
pub mod emit;
pub mod error;
pub mod index;
pub mod journal;
pub mod legacy;
pub mod lock;
pub mod log;
pub mod logdir;
pub mod metadata;
pub mod naming;
pub mod properties;
pub mod sanity;
pub mod snapshot;
pub mod spec;
pub mod uuid;
