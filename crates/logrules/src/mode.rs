//! Which mode a log dir's node ran in - ZooKeeper, a ZooKeeper broker in
//! the migration to KRaft (KIP-866), KRaft - and whether it is a
//! controller's dir, decided from what the dir holds, as Kafka decides;
//! and what the next start of a given release makes of it.
//!
//! | rule | Kafka |
//! |---|---|
//! | a KRaft node's metadata is its metadata log; a ZooKeeper broker has none (one in the migration replicates it) | `KafkaRaftServer`, `KafkaServer` (3.9: a `RaftManager` when `zookeeper.metadata.migration.enable`) |
//! | `meta.properties` version 0 (`broker.id`) is what a ZooKeeper broker writes, and stays through the migration (Kafka adds `directory.id`) | `MetaPropertiesEnsemble`, `MetaProperties` |
//! | the migration's state: the last `ZkMigrationStateRecord` | `ZkMigrationState` (none 0, pre-migration 2, migration 1, post-migration 3) |
//! | a ZooKeeper broker in the migration registers with `isMigratingZkBroker` | `BrokerRegistration` |
//! | Kafka 4.x runs KRaft only: on a dir without a metadata log it bootstraps an empty one, and every partition's topic id is then unknown (stray) | `KafkaRaftServer`, `LogManager.isStrayReplica` |
//! | a controller has no `LogManager` of topic partitions: the topic configs a broker's load refuses do not stop it | `ControllerServer` |
//!
//! Invariant: nothing here reads files; callers pass what they read.

use logfmt::metadata::ClusterMetadata;

use crate::config::Version;

/// The mode a log dir's node ran in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// ZooKeeper mode: no metadata log here and `meta.properties` version 0
    /// (`broker.id`). Topic configs live in ZooKeeper only.
    ZooKeeper,
    /// A ZooKeeper-mode broker in the migration (dual-write): it replicates
    /// the metadata log and registered as a migrating ZooKeeper broker.
    ZooKeeperMigrating,
    /// KRaft (its metadata log is here), with the migration's state if the
    /// cluster came from ZooKeeper (`ZkMigrationStateRecord`).
    KRaft {
        /// The last migration state the metadata log holds.
        migration: Option<i8>,
    },
    /// `meta.properties` version 1 and no metadata log here: a KRaft node
    /// whose `metadata.log.dir` is another dir.
    KRaftMetadataElsewhere,
    /// Neither a metadata log nor a `meta.properties` that says.
    Unknown,
}

/// A migration state's name (`ZkMigrationState`).
pub fn migration_state_name(state: i8) -> &'static str {
    match state {
        0 => "NONE",
        1 => "MIGRATION",
        2 => "PRE_MIGRATION",
        3 => "POST_MIGRATION",
        4 => "ZK",
        _ => "unknown",
    }
}

/// What the dir says of its node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirMode {
    /// The mode.
    pub mode: Mode,
    /// The dir is a controller's only (KRaft): its metadata log and no
    /// partition of a topic, the node registered as a controller (or a
    /// voter) and never as a broker.
    pub controller_only: bool,
    /// What decided it, in words.
    pub from: String,
}

impl DirMode {
    /// Decide from `meta_version` (`meta.properties`' `version`, if it
    /// reads), the metadata log held in the dir (`metadata`, `None` without
    /// one), whether the dir holds partitions of topics (`data`), and its
    /// node id.
    pub fn of(
        meta_version: Option<&str>,
        metadata: Option<&ClusterMetadata>,
        data: bool,
        node: Option<i32>,
    ) -> DirMode {
        let v = meta_version.map(str::trim);
        let Some(meta) = metadata else {
            return match v {
                Some("0") => DirMode {
                    mode: Mode::ZooKeeper,
                    controller_only: false,
                    from: "meta.properties version 0 (broker.id) and no metadata log: a ZooKeeper-mode broker's dir (unless its metadata.log.dir is another dir)".into(),
                },
                Some("1") => DirMode {
                    mode: Mode::KRaftMetadataElsewhere,
                    controller_only: false,
                    from: "meta.properties version 1 (node.id) and no metadata log here: a KRaft node whose metadata.log.dir is another dir".into(),
                },
                _ => DirMode {
                    mode: Mode::Unknown,
                    controller_only: false,
                    from: "no metadata log and no meta.properties that says which mode".into(),
                },
            };
        };
        let registered_broker = node.is_some_and(|n| meta.broker_log_dirs.contains_key(&n));
        let controller = node.is_some_and(|n| {
            meta.controllers.contains(&n) || meta.voters.as_ref().is_some_and(|vs| vs.iter().any(|(id, _)| *id == n))
        });
        let controller_only = !data && controller && !registered_broker;
        if node.is_some_and(|n| meta.migrating_zk_brokers.contains(&n)) {
            return DirMode {
                mode: Mode::ZooKeeperMigrating,
                controller_only: false,
                from: format!(
                    "a metadata log whose broker registration of node {} is a migrating ZooKeeper broker's (isMigratingZkBroker): dual-write mode",
                    node.unwrap_or(-1)
                ),
            };
        }
        let migration = meta.zk_migration_state;
        let what = if controller_only { "a KRaft controller's dir" } else { "a KRaft node's dir" };
        let from = match migration {
            Some(s) if s != 0 => format!(
                "its metadata log: {what}, migrated from ZooKeeper (ZkMigrationState {})",
                migration_state_name(s)
            ),
            _ => format!("its metadata log: {what}"),
        };
        DirMode { mode: Mode::KRaft { migration }, controller_only, from }
    }

    /// The mode in a word, for summaries and JSON.
    pub fn name(&self) -> &'static str {
        match self.mode {
            Mode::ZooKeeper => "zookeeper",
            Mode::ZooKeeperMigrating => "zookeeper-migrating",
            Mode::KRaft { migration: Some(1 | 2) } => "kraft-migrating",
            Mode::KRaft { .. } if self.controller_only => "kraft-controller",
            Mode::KRaft { .. } => "kraft",
            Mode::KRaftMetadataElsewhere => "kraft",
            Mode::Unknown => "unknown",
        }
    }

    /// Whether the dir's topic configs are in ZooKeeper only (no metadata
    /// log here holds them).
    pub fn configs_in_zookeeper(&self) -> bool {
        self.mode == Mode::ZooKeeper
    }
}

/// What the next start of Kafka `version` makes of a dir in this mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextStart {
    /// It loads the dir as the ZooKeeper-mode broker it is (Kafka 3.x with a
    /// ZooKeeper config: the mode the dir was written in).
    ZooKeeperBroker,
    /// A KRaft node on a dir that has no metadata log: it bootstraps an
    /// empty one, knows no topic, and sets every partition dir aside as
    /// stray (`the topicId ... does not exist in the metadata image`).
    KRaftWithoutMetadata,
    /// A KRaft node on its metadata log (the usual case).
    KRaft,
    /// The migration is not finalized and `version` (4.x) has no migration:
    /// finalize it on 3.9 first.
    MigrationUnfinished,
}

impl NextStart {
    /// Decide for `mode` and release `version`.
    pub fn of(mode: &DirMode, version: Version) -> NextStart {
        match mode.mode {
            Mode::ZooKeeper if version.is_4x() => NextStart::KRaftWithoutMetadata,
            Mode::ZooKeeper => NextStart::ZooKeeperBroker,
            Mode::ZooKeeperMigrating | Mode::KRaft { migration: Some(1 | 2) } if version.is_4x() => {
                NextStart::MigrationUnfinished
            }
            Mode::ZooKeeperMigrating => NextStart::ZooKeeperBroker,
            _ => NextStart::KRaft,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_as_kafka_decides_them() {
        let zk = DirMode::of(Some("0"), None, true, Some(1));
        assert_eq!(zk.mode, Mode::ZooKeeper);
        assert_eq!(NextStart::of(&zk, Version::Kafka4_4), NextStart::KRaftWithoutMetadata);
        assert_eq!(NextStart::of(&zk, Version::Kafka3_9), NextStart::ZooKeeperBroker);
        assert_eq!(DirMode::of(Some("1"), None, true, Some(1)).mode, Mode::KRaftMetadataElsewhere);
        // version 0 stays through the migration: the metadata log decides
        let mut meta = ClusterMetadata { zk_migration_state: Some(3), ..ClusterMetadata::default() };
        meta.broker_log_dirs.insert(1, vec![]);
        let migrated = DirMode::of(Some("0"), Some(&meta), true, Some(1));
        assert_eq!((migrated.mode, migrated.controller_only), (Mode::KRaft { migration: Some(3) }, false));
        assert_eq!(NextStart::of(&migrated, Version::Kafka4_4), NextStart::KRaft);
        meta.migrating_zk_brokers.insert(1);
        let dual = DirMode::of(Some("0"), Some(&meta), true, Some(1));
        assert_eq!(dual.mode, Mode::ZooKeeperMigrating);
        assert_eq!(NextStart::of(&dual, Version::Kafka4_4), NextStart::MigrationUnfinished);
        // a controller: registered as one, never as a broker, no topic partitions
        let mut c = ClusterMetadata::default();
        c.controllers.insert(3000);
        c.broker_log_dirs.insert(1, vec![]);
        assert!(DirMode::of(Some("1"), Some(&c), false, Some(3000)).controller_only);
        assert!(!DirMode::of(Some("1"), Some(&c), false, Some(1)).controller_only);
    }
}
