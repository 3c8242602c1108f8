//! Named ceilings for every length read from a file.
//!
//! Files come from crashed disks: a length field can hold anything. Every
//! length is checked against the bytes that remain *and* against one of these
//! limits before anything is allocated, so a damaged file costs at most the
//! limit in memory, never the value it claims.

/// Limits applied while reading. `Limits::default()` suits any real broker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest record batch (or legacy message) accepted, in bytes including
    /// the 12-byte offset+length prefix. Kafka's own ceiling is the topic's
    /// `max.message.bytes` (default 1 MiB); operators rarely go beyond tens of
    /// MiB. A batch up to [`crate::log::SPILL_OVER`] is held in memory while
    /// it is decoded (its bytes come from [`Limits::budget`]); a larger v2
    /// batch read by path is read from its file as needed.
    pub max_batch_size: u32,
    /// Largest decompressed payload of one batch, in bytes. Records are
    /// decoded as they come out of the decompressor, so this bounds the work
    /// a decompression bomb costs, not memory.
    pub max_decompressed_size: usize,
    /// Largest text file (checkpoints, properties, JSON state files) read.
    pub max_text_file_size: u64,
    /// Largest producer-state snapshot read (46 bytes per producer).
    pub max_snapshot_size: u64,
    /// The process-wide memory budget every data-sized buffer is taken from
    /// ([`crate::budget`]).
    pub budget: &'static crate::budget::Budget,
}

/// Default for [`Limits::max_batch_size`]: 128 MiB.
pub const DEFAULT_MAX_BATCH_SIZE: u32 = 128 << 20;
/// Default for [`Limits::max_decompressed_size`]: 256 MiB.
pub const DEFAULT_MAX_DECOMPRESSED_SIZE: usize = 256 << 20;
/// Default for [`Limits::max_text_file_size`]: 64 MiB (a checkpoint line per
/// partition; a million partitions fit).
pub const DEFAULT_MAX_TEXT_FILE_SIZE: u64 = 64 << 20;
/// Default for [`Limits::max_snapshot_size`]: 256 MiB (over 5 million producers).
pub const DEFAULT_MAX_SNAPSHOT_SIZE: u64 = 256 << 20;
/// Largest zstd window accepted, as a power of two (zstd's own default limit,
/// which is also what Kafka's zstd-jni decoder accepts).
pub const ZSTD_WINDOW_LOG_MAX: u32 = 27;

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_batch_size: DEFAULT_MAX_BATCH_SIZE,
            max_decompressed_size: DEFAULT_MAX_DECOMPRESSED_SIZE,
            max_text_file_size: DEFAULT_MAX_TEXT_FILE_SIZE,
            max_snapshot_size: DEFAULT_MAX_SNAPSHOT_SIZE,
            budget: &crate::budget::DEFAULT,
        }
    }
}
