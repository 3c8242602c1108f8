//! The Kafka releases logtool knows, one row each ([`RELEASES`]), and the
//! `metadata.version` levels they define: what each release's own jars say
//! (`fixtures/kafka/Releases.java`, run by `fixtures/kafka/releases.sh`
//! into `releases.jsonl` beside this file, which a test holds this table
//! to). [`super::config::Version`] names a row; every rule that differs by
//! release asks its row rather than comparing versions.
//!
//! | column | Kafka |
//! |---|---|
//! | `metadata.version` levels a production build loads | `MetadataVersion.MINIMUM_VERSION` (3.9: `MINIMUM_KRAFT_VERSION`) to `LATEST_PRODUCTION` |
//! | the levels it defines (those above `LATEST_PRODUCTION` are unstable) | `MetadataVersion.values()` |
//! | the finalized features `kafka-storage format` gives a new cluster | `Feature.PRODUCTION_FEATURES` (3.9: `Features`), `defaultLevel(LATEST_PRODUCTION)` |
//! | topic config names (as 3.9's, with those removed and added), the least `segment.bytes` | `LogConfig.configKeys()` |
//! | how a `.txnindex` entry's version is read, and which it refuses | `AbortedTxn.version`, `TransactionIndex.sanityCheck` ([`TxnIndexVersionRead`]) |
//!
//! A dir written by a Kafka newer than the newest row (a `metadata.version`
//! level above its production levels) is read with the newest row's rules
//! and said once as info ([`newer_than_known`]); it is never an error.
//!
//! Invariant: rows are in release order; each is a patch release checked.

/// One Kafka release (a minor version, checked against one patch release).
#[derive(Debug, PartialEq, Eq)]
pub struct Release {
    /// "4.4".
    pub name: &'static str,
    /// The patch release whose jars made the row ("4.4.0").
    pub checked: &'static str,
    /// The least `metadata.version` level it loads.
    pub minimum_level: i16,
    /// The greatest level a production build loads and a new cluster gets.
    pub latest_production_level: i16,
    /// The greatest level it defines (unstable above the production one).
    pub latest_known_level: i16,
    /// The least `segment.bytes` a topic may have.
    pub min_segment_bytes: i64,
    /// Its production features (`metadata.version` aside): name, the level
    /// a newly formatted cluster finalizes, the greatest production level
    /// (what a node registers as its supported maximum).
    pub features: &'static [(&'static str, i16, i16)],
    /// The topic configs of 3.9 ([`TOPIC_CONFIGS_3_9`]) it does not have.
    pub topic_configs_removed: &'static [&'static str],
    /// The topic configs it has that 3.9 does not.
    pub topic_configs_added: &'static [&'static str],
    /// How its `TransactionIndex` reads an entry's version.
    pub txn_index_version: TxnIndexVersionRead,
}

/// How a release reads the version of a `.txnindex` entry (`AbortedTxn`),
/// and so which versions its `TransactionIndex` refuses with a
/// `KafkaException` ("Unexpected aborted transaction version"): on load
/// (`LogSegment.sanityCheck`) that stops the broker. `releases.jsonl` has
/// what each release's `TransactionIndex.sanityCheck` did with versions 1,
/// 256 and -1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxnIndexVersionRead {
    /// Only its first byte (`ByteBuffer.get(0)`: 3.9 to 4.3), refused when
    /// that is above 0: version 1 reads as 0 and is loaded, 256 is refused.
    FirstByte,
    /// The whole int16 (4.4: the generated `AbortedTxn` message), refused
    /// unless 0 ("supported version range is 0 to 0").
    Short,
}

impl TxnIndexVersionRead {
    /// The version the release reads from an entry's first two bytes.
    pub fn read(self, bytes: [u8; 2]) -> i16 {
        match self {
            TxnIndexVersionRead::FirstByte => i16::from(i8::from_be_bytes([bytes[0]])),
            TxnIndexVersionRead::Short => i16::from_be_bytes(bytes),
        }
    }

    /// Whether the release refuses an entry of version `read` (as it read it).
    pub fn refuses(self, read: i16) -> bool {
        match self {
            TxnIndexVersionRead::FirstByte => read > 0,
            TxnIndexVersionRead::Short => read != 0,
        }
    }
}

impl Release {
    /// Whether `name` is one of its topic configs (`LogConfig.configKeys`).
    pub fn has_topic_config(&self, name: &str) -> bool {
        (TOPIC_CONFIGS_3_9.contains(&name) && !self.topic_configs_removed.contains(&name))
            || self.topic_configs_added.contains(&name)
    }
}

/// The topic configs Kafka 4.0 removed (KIP-724, KIP-937), gone from every
/// 4.x row.
const REMOVED_IN_4: [&str; 3] =
    ["message.downconversion.enable", "message.format.version", "message.timestamp.difference.max.ms"];

/// Kafka 3.9.1's topic config names (`LogConfig.configKeys()`), which the
/// other rows are told against.
pub const TOPIC_CONFIGS_3_9: &[&str] = &[
    "cleanup.policy",
    "compression.gzip.level",
    "compression.lz4.level",
    "compression.type",
    "compression.zstd.level",
    "delete.retention.ms",
    "file.delete.delay.ms",
    "flush.messages",
    "flush.ms",
    "follower.replication.throttled.replicas",
    "index.interval.bytes",
    "leader.replication.throttled.replicas",
    "local.retention.bytes",
    "local.retention.ms",
    "max.compaction.lag.ms",
    "max.message.bytes",
    "message.downconversion.enable",
    "message.format.version",
    "message.timestamp.after.max.ms",
    "message.timestamp.before.max.ms",
    "message.timestamp.difference.max.ms",
    "message.timestamp.type",
    "min.cleanable.dirty.ratio",
    "min.compaction.lag.ms",
    "min.insync.replicas",
    "preallocate",
    "remote.log.copy.disable",
    "remote.log.delete.on.disable",
    "remote.storage.enable",
    "retention.bytes",
    "retention.ms",
    "segment.bytes",
    "segment.index.bytes",
    "segment.jitter.ms",
    "segment.ms",
    "unclean.leader.election.enable",
];

/// Every release logtool knows, oldest first.
pub const RELEASES: &[Release] = &[
    Release {
        name: "3.9",
        checked: "3.9.1",
        minimum_level: 1,
        latest_production_level: 21,
        latest_known_level: 23,
        min_segment_bytes: 14,
        features: &[("kraft.version", 1, 1), ("transaction.version", 0, 0)],
        topic_configs_removed: &[],
        topic_configs_added: &[],
        txn_index_version: TxnIndexVersionRead::FirstByte,
    },
    Release {
        name: "4.0",
        checked: "4.0.2",
        minimum_level: 7,
        latest_production_level: 25,
        latest_known_level: 26,
        min_segment_bytes: 14,
        features: &[
            ("eligible.leader.replicas.version", 0, 1),
            ("group.version", 1, 1),
            ("kraft.version", 1, 1),
            ("transaction.version", 2, 2),
        ],
        topic_configs_removed: &REMOVED_IN_4,
        topic_configs_added: &[],
        txn_index_version: TxnIndexVersionRead::FirstByte,
    },
    Release {
        name: "4.1",
        checked: "4.1.2",
        minimum_level: 7,
        latest_production_level: 27,
        latest_known_level: 29,
        min_segment_bytes: 1048576,
        features: &[
            ("eligible.leader.replicas.version", 1, 1),
            ("group.version", 1, 1),
            ("kraft.version", 1, 1),
            ("share.version", 0, 1),
            ("streams.version", 0, 0),
            ("transaction.version", 2, 2),
        ],
        topic_configs_removed: &REMOVED_IN_4,
        topic_configs_added: &["internal.segment.bytes"],
        txn_index_version: TxnIndexVersionRead::FirstByte,
    },
    Release {
        name: "4.2",
        checked: "4.2.2",
        minimum_level: 7,
        latest_production_level: 29,
        latest_known_level: 30,
        min_segment_bytes: 1048576,
        features: &[
            ("eligible.leader.replicas.version", 1, 1),
            ("group.version", 1, 1),
            ("kraft.version", 1, 1),
            ("share.version", 1, 1),
            ("streams.version", 1, 1),
            ("transaction.version", 2, 2),
        ],
        topic_configs_removed: &REMOVED_IN_4,
        topic_configs_added: &["internal.segment.bytes", "max.decompressed.message.bytes"],
        txn_index_version: TxnIndexVersionRead::FirstByte,
    },
    Release {
        name: "4.3",
        checked: "4.3.1",
        minimum_level: 7,
        latest_production_level: 30,
        latest_known_level: 31,
        min_segment_bytes: 1048576,
        features: &[
            ("eligible.leader.replicas.version", 1, 1),
            ("group.version", 1, 1),
            ("kraft.version", 1, 1),
            ("share.version", 1, 1),
            ("streams.version", 1, 1),
            ("transaction.version", 2, 2),
        ],
        topic_configs_removed: &REMOVED_IN_4,
        topic_configs_added: &["internal.segment.bytes"],
        txn_index_version: TxnIndexVersionRead::FirstByte,
    },
    Release {
        name: "4.4",
        checked: "4.4.0",
        minimum_level: 7,
        latest_production_level: 33,
        latest_known_level: 34,
        min_segment_bytes: 1048576,
        features: &[
            ("eligible.leader.replicas.version", 1, 1),
            ("group.version", 1, 1),
            ("kraft.version", 1, 1),
            ("share.version", 2, 2),
            ("streams.version", 1, 1),
            ("transaction.version", 2, 2),
        ],
        topic_configs_removed: &REMOVED_IN_4,
        topic_configs_added: &[
            "errors.deadletterqueue.group.enable",
            "internal.segment.bytes",
            "max.decompressed.message.bytes",
            "remote.copy.lag.bytes",
            "remote.copy.lag.ms",
        ],
        txn_index_version: TxnIndexVersionRead::Short,
    },
];

/// `metadata.version` feature levels and their names (`MetadataVersion`),
/// across every release of [`RELEASES`].
const METADATA_VERSIONS: &[(i16, &str)] = &[
    (1, "3.0-IV1"),
    (2, "3.1-IV0"),
    (3, "3.2-IV0"),
    (4, "3.3-IV0"),
    (5, "3.3-IV1"),
    (6, "3.3-IV2"),
    (7, "3.3-IV3"),
    (8, "3.4-IV0"),
    (9, "3.5-IV0"),
    (10, "3.5-IV1"),
    (11, "3.5-IV2"),
    (12, "3.6-IV0"),
    (13, "3.6-IV1"),
    (14, "3.6-IV2"),
    (15, "3.7-IV0"),
    (16, "3.7-IV1"),
    (17, "3.7-IV2"),
    (18, "3.7-IV3"),
    (19, "3.7-IV4"),
    (20, "3.8-IV0"),
    (21, "3.9-IV0"),
    (22, "4.0-IV0"),
    (23, "4.0-IV1"),
    (24, "4.0-IV2"),
    (25, "4.0-IV3"),
    (26, "4.1-IV0"),
    (27, "4.1-IV1"),
    (28, "4.2-IV0"),
    (29, "4.2-IV1"),
    (30, "4.3-IV0"),
    (31, "4.4-IV0"),
    (32, "4.4-IV1"),
    (33, "4.4-IV2"),
    (34, "4.5-IV0"),
];

/// The name of `metadata.version` level `level` ("3.9-IV0"), if a release
/// logtool knows defines it.
pub fn metadata_version_name(level: i16) -> Option<&'static str> {
    METADATA_VERSIONS.iter().find(|(l, _)| *l == level).map(|(_, n)| *n)
}

/// The newest release logtool knows.
pub fn newest() -> &'static Release {
    RELEASES.last().unwrap_or(&FALLBACK)
}

/// (Never used: [`RELEASES`] is not empty.)
const FALLBACK: Release = Release {
    name: "3.9",
    checked: "3.9.1",
    minimum_level: 1,
    latest_production_level: 21,
    latest_known_level: 23,
    min_segment_bytes: 14,
    features: &[],
    topic_configs_removed: &[],
    topic_configs_added: &[],
    txn_index_version: TxnIndexVersionRead::FirstByte,
};

/// Whether a dir whose `metadata.version` is `level` was written by a Kafka
/// newer than every release logtool knows: the level is above the newest
/// row's production levels. The dir is then read with the newest row's
/// rules, and `verify` says so once (info).
pub fn newer_than_known(level: i16) -> bool {
    level > newest().latest_production_level
}

/// The index in [`RELEASES`] of the release a dir whose `metadata.version`
/// is `level` implies: the oldest that runs that level in production (what
/// formatted or last finalized it), the newest for a level above them all.
pub fn implied_index(level: i16) -> usize {
    RELEASES.iter().position(|r| level <= r.latest_production_level).unwrap_or(RELEASES.len().saturating_sub(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table is what each release's jars say (`releases.jsonl`, made by
    /// `fixtures/kafka/releases.sh`).
    #[test]
    fn rows_are_what_the_jars_say() {
        let lines: Vec<&str> = include_str!("releases.jsonl").lines().collect();
        assert_eq!(lines.len(), RELEASES.len());
        for (line, row) in lines.iter().zip(RELEASES) {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            assert_eq!(v["release"], row.checked);
            assert!(row.checked.starts_with(&format!("{}.", row.name)));
            assert_eq!(v["minimum_level"], row.minimum_level, "{}", row.name);
            assert_eq!(v["latest_production_level"], row.latest_production_level, "{}", row.name);
            let levels = v["metadata_versions"].as_array().unwrap();
            assert_eq!(levels.last().unwrap()[0], row.latest_known_level, "{}", row.name);
            for l in levels {
                let level = i16::try_from(l[0].as_i64().unwrap()).unwrap();
                assert_eq!(metadata_version_name(level), l[1].as_str(), "{} level {level}", row.name);
            }
            assert_eq!(v["segment_bytes_validator"], format!("[{},...]", row.min_segment_bytes), "{}", row.name);
            let level = |f: &serde_json::Value, k: &str| i16::try_from(f[k].as_i64().unwrap()).unwrap();
            let features: Vec<(String, i16, i16)> = v["features"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| {
                    (f["name"].as_str().unwrap().to_string(), level(f, "default_level"), level(f, "latest_production"))
                })
                .collect();
            let ours: Vec<(String, i16, i16)> =
                row.features.iter().map(|(n, d, l)| ((*n).to_string(), *d, *l)).collect();
            assert_eq!(features, ours, "{}", row.name);
            let configs: Vec<&str> =
                v["topic_configs"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
            let mut ours: Vec<&str> = TOPIC_CONFIGS_3_9
                .iter()
                .chain(row.topic_configs_added)
                .copied()
                .filter(|c| row.has_topic_config(c))
                .collect();
            ours.sort_unstable();
            assert_eq!(configs, ours, "{}", row.name);
            let refused: Vec<i64> =
                v["txn_index_versions_refused"].as_array().unwrap().iter().map(|x| x.as_i64().unwrap()).collect();
            let ours: Vec<i64> = [1i16, 256, -1]
                .into_iter()
                .filter(|&version| row.txn_index_version.refuses(row.txn_index_version.read(version.to_be_bytes())))
                .map(i64::from)
                .collect();
            assert_eq!(refused, ours, "{}: .txnindex versions refused", row.name);
        }
    }

    #[test]
    fn a_level_implies_the_oldest_release_that_runs_it() {
        let name = |l| RELEASES[implied_index(l)].name;
        assert_eq!(name(1), "3.9");
        assert_eq!(name(21), "3.9");
        assert_eq!(name(25), "4.0");
        assert_eq!(name(30), "4.3");
        assert_eq!(name(33), "4.4");
        assert_eq!(name(34), "4.4");
        assert!(newer_than_known(34) && !newer_than_known(33));
    }
}
