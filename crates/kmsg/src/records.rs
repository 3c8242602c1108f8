// Generated from Apache Kafka's message definitions (schemas/) by src/generate.rs
// (`KMSG_REGENERATE=1 cargo test -p kmsg records_rs_is_current`); do not edit.
//! Typed records: a struct for each message logtool builds or reads by
//! field, generated from Kafka's definitions. Each field is named as
//! Kafka names it (snake case; serialized under Kafka's JSON name), and
//! each `Default` is Kafka's default, so a record built with
//! `..Default::default()` is written as Kafka's generated code writes
//! it. Bytes are base64, UUIDs base64url, as the codec reads them.

// (every Default is written out, so that each says Kafka's default)
#![allow(clippy::derivable_impls)]

/// `BeginTransactionRecord` and the structs it uses.
pub mod begin_transaction_record {
    use serde::{Deserialize, Serialize};

    /// `BeginTransactionRecord` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct BeginTransactionRecord {
        /// An optional textual description of this transaction. (string, versions 0+, nullable 0+, tag 0 in 0+)
        #[serde(rename = "name")]
        pub name: Option<String>,
    }

    impl Default for BeginTransactionRecord {
        fn default() -> Self {
            BeginTransactionRecord {
                name: None,
            }
        }
    }
}
pub use begin_transaction_record::BeginTransactionRecord;

impl crate::Message for BeginTransactionRecord {
    const NAME: &'static str = "BeginTransactionRecord";
}

/// `BrokerRegistrationChangeRecord` and the structs it uses.
pub mod broker_registration_change_record {
    use serde::{Deserialize, Serialize};

    /// `BrokerRegistrationChangeRecord` (versions 0-3).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct BrokerRegistrationChangeRecord {
        /// The broker id. (int32, versions 0+)
        #[serde(rename = "brokerId")]
        pub broker_id: i32,
        /// The broker epoch assigned by the controller. (int64, versions 0+)
        #[serde(rename = "brokerEpoch")]
        pub broker_epoch: i64,
        /// -1 if the broker has been unfenced, 0 if no change, 1 if the broker has been fenced. (int8, versions 0+, tag 0 in 0+)
        #[serde(rename = "fenced")]
        pub fenced: i8,
        /// 0 if no change, 1 if the broker is in controlled shutdown. (int8, versions 1+, tag 1 in 1+)
        #[serde(rename = "inControlledShutdown")]
        pub in_controlled_shutdown: i8,
        /// Log directories configured in this broker which are available. ([]uuid (base64url), versions 2+, tag 2 in 2+)
        #[serde(rename = "logDirs")]
        pub log_dirs: Vec<String>,
        /// Log directories that are cordoned or null if no change. ([]uuid (base64url), versions 3+, nullable 3+, tag 3 in 3+)
        #[serde(rename = "cordonedLogDirs")]
        pub cordoned_log_dirs: Option<Vec<String>>,
    }

    impl Default for BrokerRegistrationChangeRecord {
        fn default() -> Self {
            BrokerRegistrationChangeRecord {
                broker_id: 0,
                broker_epoch: 0,
                fenced: 0,
                in_controlled_shutdown: 0,
                log_dirs: Vec::new(),
                cordoned_log_dirs: None,
            }
        }
    }
}
pub use broker_registration_change_record::BrokerRegistrationChangeRecord;

impl crate::Message for BrokerRegistrationChangeRecord {
    const NAME: &'static str = "BrokerRegistrationChangeRecord";
}

/// `ConfigRecord` and the structs it uses.
pub mod config_record {
    use serde::{Deserialize, Serialize};

    /// `ConfigRecord` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ConfigRecord {
        /// The type of resource this configuration applies to. (int8, versions 0+)
        #[serde(rename = "resourceType")]
        pub resource_type: i8,
        /// The name of the resource this configuration applies to. (string, versions 0+)
        #[serde(rename = "resourceName")]
        pub resource_name: String,
        /// The name of the configuration key. (string, versions 0+)
        #[serde(rename = "name")]
        pub name: String,
        /// The value of the configuration, or null if the it should be deleted. (string, versions 0+, nullable 0+)
        #[serde(rename = "value")]
        pub value: Option<String>,
    }

    impl Default for ConfigRecord {
        fn default() -> Self {
            ConfigRecord {
                resource_type: 0,
                resource_name: String::from(""),
                name: String::from(""),
                value: Some(String::from("")),
            }
        }
    }
}
pub use config_record::ConfigRecord;

impl crate::Message for ConfigRecord {
    const NAME: &'static str = "ConfigRecord";
}

/// `EndTransactionRecord` and the structs it uses.
pub mod end_transaction_record {
    use serde::{Deserialize, Serialize};

    /// `EndTransactionRecord` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct EndTransactionRecord {
    }

    impl Default for EndTransactionRecord {
        fn default() -> Self {
            EndTransactionRecord {
            }
        }
    }
}
pub use end_transaction_record::EndTransactionRecord;

impl crate::Message for EndTransactionRecord {
    const NAME: &'static str = "EndTransactionRecord";
}

/// `FeatureLevelRecord` and the structs it uses.
pub mod feature_level_record {
    use serde::{Deserialize, Serialize};

    /// `FeatureLevelRecord` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct FeatureLevelRecord {
        /// The feature name. (string, versions 0+)
        #[serde(rename = "name")]
        pub name: String,
        /// The current finalized feature level of this feature for the cluster, a value of 0 means feature not supported. (int16, versions 0+)
        #[serde(rename = "featureLevel")]
        pub feature_level: i16,
    }

    impl Default for FeatureLevelRecord {
        fn default() -> Self {
            FeatureLevelRecord {
                name: String::from(""),
                feature_level: 0,
            }
        }
    }
}
pub use feature_level_record::FeatureLevelRecord;

impl crate::Message for FeatureLevelRecord {
    const NAME: &'static str = "FeatureLevelRecord";
}

/// `LeaderChangeMessage` and the structs it uses.
pub mod leader_change_message {
    use serde::{Deserialize, Serialize};

    /// `LeaderChangeMessage` (versions 0-1).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct LeaderChangeMessage {
        /// The version of the leader change message. (int16, versions 0+)
        #[serde(rename = "version")]
        pub version: i16,
        /// The ID of the newly elected leader. (int32, versions 0+)
        #[serde(rename = "leaderId")]
        pub leader_id: i32,
        /// The set of voters in the quorum for this epoch. ([]Voter, versions 0+)
        #[serde(rename = "voters")]
        pub voters: Vec<Voter>,
        /// The voters who voted for the leader at the time of election. ([]Voter, versions 0+)
        #[serde(rename = "grantingVoters")]
        pub granting_voters: Vec<Voter>,
    }

    impl Default for LeaderChangeMessage {
        fn default() -> Self {
            LeaderChangeMessage {
                version: 0,
                leader_id: 0,
                voters: Vec::new(),
                granting_voters: Vec::new(),
            }
        }
    }

    /// `Voter`, a part of `LeaderChangeMessage`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct Voter {
        /// The ID of the voter. (int32, versions 0+)
        #[serde(rename = "voterId")]
        pub voter_id: i32,
        /// The directory id of the voter. (uuid (base64url), versions 1+)
        #[serde(rename = "voterDirectoryId")]
        pub voter_directory_id: String,
    }

    impl Default for Voter {
        fn default() -> Self {
            Voter {
                voter_id: 0,
                voter_directory_id: String::from("AAAAAAAAAAAAAAAAAAAAAA"),
            }
        }
    }
}
pub use leader_change_message::LeaderChangeMessage;

impl crate::Message for LeaderChangeMessage {
    const NAME: &'static str = "LeaderChangeMessage";
}

/// `PartitionChangeRecord` and the structs it uses.
pub mod partition_change_record {
    use serde::{Deserialize, Serialize};

    /// `PartitionChangeRecord` (versions 0-2).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct PartitionChangeRecord {
        /// The partition id. (int32, versions 0+)
        #[serde(rename = "partitionId")]
        pub partition_id: i32,
        /// The unique ID of this topic. (uuid (base64url), versions 0+)
        #[serde(rename = "topicId")]
        pub topic_id: String,
        /// null if the ISR didn't change; the new in-sync replicas otherwise. ([]int32, versions 0+, nullable 0+, tag 0 in 0+)
        #[serde(rename = "isr")]
        pub isr: Option<Vec<i32>>,
        /// -1 if there is now no leader; -2 if the leader didn't change; the new leader otherwise. (int32, versions 0+, tag 1 in 0+)
        #[serde(rename = "leader")]
        pub leader: i32,
        /// null if the replicas didn't change; the new replicas otherwise. ([]int32, versions 0+, nullable 0+, tag 2 in 0+)
        #[serde(rename = "replicas")]
        pub replicas: Option<Vec<i32>>,
        /// null if the removing replicas didn't change; the new removing replicas otherwise. ([]int32, versions 0+, nullable 0+, tag 3 in 0+)
        #[serde(rename = "removingReplicas")]
        pub removing_replicas: Option<Vec<i32>>,
        /// null if the adding replicas didn't change; the new adding replicas otherwise. ([]int32, versions 0+, nullable 0+, tag 4 in 0+)
        #[serde(rename = "addingReplicas")]
        pub adding_replicas: Option<Vec<i32>>,
        /// -1 if it didn't change; 0 if the leader was elected from the ISR or recovered from an unclean election; 1 if the leader that was elected using unclean leader election and it is still recovering. (int8, versions 0+, tag 5 in 0+)
        #[serde(rename = "leaderRecoveryState")]
        pub leader_recovery_state: i8,
        /// null if the log dirs didn't change; the new log directory for each replica otherwise. ([]uuid (base64url), versions 1+, nullable 1+, tag 8 in 1+)
        #[serde(rename = "directories")]
        pub directories: Option<Vec<String>>,
        /// null if the ELR didn't change; the new eligible leader replicas otherwise. ([]int32, versions 2+, nullable 2+, tag 6 in 2+)
        #[serde(rename = "eligibleLeaderReplicas")]
        pub eligible_leader_replicas: Option<Vec<i32>>,
        /// null if the LastKnownElr didn't change; the last known eligible leader replicas otherwise. ([]int32, versions 2+, nullable 2+, tag 7 in 2+)
        #[serde(rename = "lastKnownElr")]
        pub last_known_elr: Option<Vec<i32>>,
    }

    impl Default for PartitionChangeRecord {
        fn default() -> Self {
            PartitionChangeRecord {
                partition_id: -1,
                topic_id: String::from("AAAAAAAAAAAAAAAAAAAAAA"),
                isr: None,
                leader: -2,
                replicas: None,
                removing_replicas: None,
                adding_replicas: None,
                leader_recovery_state: -1,
                directories: None,
                eligible_leader_replicas: None,
                last_known_elr: None,
            }
        }
    }
}
pub use partition_change_record::PartitionChangeRecord;

impl crate::Message for PartitionChangeRecord {
    const NAME: &'static str = "PartitionChangeRecord";
}

/// `PartitionRecord` and the structs it uses.
pub mod partition_record {
    use serde::{Deserialize, Serialize};

    /// `PartitionRecord` (versions 0-2).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct PartitionRecord {
        /// The partition id. (int32, versions 0+)
        #[serde(rename = "partitionId")]
        pub partition_id: i32,
        /// The unique ID of this topic. (uuid (base64url), versions 0+)
        #[serde(rename = "topicId")]
        pub topic_id: String,
        /// The replicas of this partition, sorted by preferred order. ([]int32, versions 0+)
        #[serde(rename = "replicas")]
        pub replicas: Vec<i32>,
        /// The in-sync replicas of this partition ([]int32, versions 0+)
        #[serde(rename = "isr")]
        pub isr: Vec<i32>,
        /// The replicas that we are in the process of removing. ([]int32, versions 0+)
        #[serde(rename = "removingReplicas")]
        pub removing_replicas: Vec<i32>,
        /// The replicas that we are in the process of adding. ([]int32, versions 0+)
        #[serde(rename = "addingReplicas")]
        pub adding_replicas: Vec<i32>,
        /// The lead replica, or -1 if there is no leader. (int32, versions 0+)
        #[serde(rename = "leader")]
        pub leader: i32,
        /// 1 if the partition is recovering from an unclean leader election; 0 otherwise. (int8, versions 0+, tag 0 in 0+)
        #[serde(rename = "leaderRecoveryState")]
        pub leader_recovery_state: i8,
        /// The epoch of the partition leader. (int32, versions 0+)
        #[serde(rename = "leaderEpoch")]
        pub leader_epoch: i32,
        /// An epoch that gets incremented each time we change anything in the partition. (int32, versions 0+)
        #[serde(rename = "partitionEpoch")]
        pub partition_epoch: i32,
        /// The log directory hosting each replica, sorted in the same exact order as the Replicas field. ([]uuid (base64url), versions 1+)
        #[serde(rename = "directories")]
        pub directories: Vec<String>,
        /// The eligible leader replicas of this partition. ([]int32, versions 2+, nullable 2+, tag 1 in 2+)
        #[serde(rename = "eligibleLeaderReplicas")]
        pub eligible_leader_replicas: Option<Vec<i32>>,
        /// The last known eligible leader replicas of this partition. ([]int32, versions 2+, nullable 2+, tag 2 in 2+)
        #[serde(rename = "lastKnownElr")]
        pub last_known_elr: Option<Vec<i32>>,
    }

    impl Default for PartitionRecord {
        fn default() -> Self {
            PartitionRecord {
                partition_id: -1,
                topic_id: String::from("AAAAAAAAAAAAAAAAAAAAAA"),
                replicas: Vec::new(),
                isr: Vec::new(),
                removing_replicas: Vec::new(),
                adding_replicas: Vec::new(),
                leader: -1,
                leader_recovery_state: 0,
                leader_epoch: -1,
                partition_epoch: -1,
                directories: Vec::new(),
                eligible_leader_replicas: None,
                last_known_elr: None,
            }
        }
    }
}
pub use partition_record::PartitionRecord;

impl crate::Message for PartitionRecord {
    const NAME: &'static str = "PartitionRecord";
}

/// `ProducerIdsRecord` and the structs it uses.
pub mod producer_ids_record {
    use serde::{Deserialize, Serialize};

    /// `ProducerIdsRecord` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ProducerIdsRecord {
        /// The ID of the requesting broker (int32, versions 0+)
        #[serde(rename = "brokerId")]
        pub broker_id: i32,
        /// The epoch of the requesting broker (int64, versions 0+)
        #[serde(rename = "brokerEpoch")]
        pub broker_epoch: i64,
        /// The next producerId that will be assigned (i.e. the first producerId in the next assigned block) (int64, versions 0+)
        #[serde(rename = "nextProducerId")]
        pub next_producer_id: i64,
    }

    impl Default for ProducerIdsRecord {
        fn default() -> Self {
            ProducerIdsRecord {
                broker_id: 0,
                broker_epoch: -1,
                next_producer_id: 0,
            }
        }
    }
}
pub use producer_ids_record::ProducerIdsRecord;

impl crate::Message for ProducerIdsRecord {
    const NAME: &'static str = "ProducerIdsRecord";
}

/// `RegisterBrokerRecord` and the structs it uses.
pub mod register_broker_record {
    use serde::{Deserialize, Serialize};

    /// `RegisterBrokerRecord` (versions 0-4).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct RegisterBrokerRecord {
        /// The broker id. (int32, versions 0+)
        #[serde(rename = "brokerId")]
        pub broker_id: i32,
        /// True if the broker is a ZK broker in migration mode. Otherwise, false (bool, versions 2+)
        #[serde(rename = "isMigratingZkBroker")]
        pub is_migrating_zk_broker: bool,
        /// The incarnation ID of the broker process (uuid (base64url), versions 0+)
        #[serde(rename = "incarnationId")]
        pub incarnation_id: String,
        /// The broker epoch assigned by the controller. (int64, versions 0+)
        #[serde(rename = "brokerEpoch")]
        pub broker_epoch: i64,
        /// The endpoints that can be used to communicate with this broker. ([]BrokerEndpoint, versions 0+)
        #[serde(rename = "endPoints")]
        pub end_points: Vec<BrokerEndpoint>,
        /// The features on this broker ([]BrokerFeature, versions 0+)
        #[serde(rename = "features")]
        pub features: Vec<BrokerFeature>,
        /// The broker rack. (string, versions 0+, nullable 0+)
        #[serde(rename = "rack")]
        pub rack: Option<String>,
        /// True if the broker is fenced. (bool, versions 0+)
        #[serde(rename = "fenced")]
        pub fenced: bool,
        /// True if the broker is in controlled shutdown. (bool, versions 1+)
        #[serde(rename = "inControlledShutdown")]
        pub in_controlled_shutdown: bool,
        /// Log directories configured in this broker which are available. ([]uuid (base64url), versions 3+, tag 0 in 3+)
        #[serde(rename = "logDirs")]
        pub log_dirs: Vec<String>,
        /// Log directories that are cordoned. This is initially null before the broker starts sending the value via its heartbeats. ([]uuid (base64url), versions 4+, nullable 4+, tag 1 in 4+)
        #[serde(rename = "cordonedLogDirs")]
        pub cordoned_log_dirs: Option<Vec<String>>,
    }

    impl Default for RegisterBrokerRecord {
        fn default() -> Self {
            RegisterBrokerRecord {
                broker_id: 0,
                is_migrating_zk_broker: false,
                incarnation_id: String::from("AAAAAAAAAAAAAAAAAAAAAA"),
                broker_epoch: 0,
                end_points: Vec::new(),
                features: Vec::new(),
                rack: Some(String::from("")),
                fenced: true,
                in_controlled_shutdown: false,
                log_dirs: Vec::new(),
                cordoned_log_dirs: None,
            }
        }
    }

    /// `BrokerEndpoint`, a part of `RegisterBrokerRecord`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct BrokerEndpoint {
        /// The name of the endpoint. (string, versions 0+)
        #[serde(rename = "name")]
        pub name: String,
        /// The hostname. (string, versions 0+)
        #[serde(rename = "host")]
        pub host: String,
        /// The port. (uint16, versions 0+)
        #[serde(rename = "port")]
        pub port: u16,
        /// The security protocol. (int16, versions 0+)
        #[serde(rename = "securityProtocol")]
        pub security_protocol: i16,
    }

    impl Default for BrokerEndpoint {
        fn default() -> Self {
            BrokerEndpoint {
                name: String::from(""),
                host: String::from(""),
                port: 0,
                security_protocol: 0,
            }
        }
    }

    /// `BrokerFeature`, a part of `RegisterBrokerRecord`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct BrokerFeature {
        /// The feature name. (string, versions 0+)
        #[serde(rename = "name")]
        pub name: String,
        /// The minimum supported feature level. (int16, versions 0+)
        #[serde(rename = "minSupportedVersion")]
        pub min_supported_version: i16,
        /// The maximum supported feature level. (int16, versions 0+)
        #[serde(rename = "maxSupportedVersion")]
        pub max_supported_version: i16,
    }

    impl Default for BrokerFeature {
        fn default() -> Self {
            BrokerFeature {
                name: String::from(""),
                min_supported_version: 0,
                max_supported_version: 0,
            }
        }
    }
}
pub use register_broker_record::RegisterBrokerRecord;

impl crate::Message for RegisterBrokerRecord {
    const NAME: &'static str = "RegisterBrokerRecord";
}

/// `RegisterControllerRecord` and the structs it uses.
pub mod register_controller_record {
    use serde::{Deserialize, Serialize};

    /// `RegisterControllerRecord` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct RegisterControllerRecord {
        /// The controller id. (int32, versions 0+)
        #[serde(rename = "controllerId")]
        pub controller_id: i32,
        /// The incarnation ID of the controller process (uuid (base64url), versions 0+)
        #[serde(rename = "incarnationId")]
        pub incarnation_id: String,
        /// Set if the required configurations for ZK migration are present. (bool, versions 0+)
        #[serde(rename = "zkMigrationReady")]
        pub zk_migration_ready: bool,
        /// The endpoints that can be used to communicate with this controller. ([]ControllerEndpoint, versions 0+)
        #[serde(rename = "endPoints")]
        pub end_points: Vec<ControllerEndpoint>,
        /// The features on this controller ([]ControllerFeature, versions 0+)
        #[serde(rename = "features")]
        pub features: Vec<ControllerFeature>,
    }

    impl Default for RegisterControllerRecord {
        fn default() -> Self {
            RegisterControllerRecord {
                controller_id: 0,
                incarnation_id: String::from("AAAAAAAAAAAAAAAAAAAAAA"),
                zk_migration_ready: false,
                end_points: Vec::new(),
                features: Vec::new(),
            }
        }
    }

    /// `ControllerEndpoint`, a part of `RegisterControllerRecord`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ControllerEndpoint {
        /// The name of the endpoint. (string, versions 0+)
        #[serde(rename = "name")]
        pub name: String,
        /// The hostname. (string, versions 0+)
        #[serde(rename = "host")]
        pub host: String,
        /// The port. (uint16, versions 0+)
        #[serde(rename = "port")]
        pub port: u16,
        /// The security protocol. (int16, versions 0+)
        #[serde(rename = "securityProtocol")]
        pub security_protocol: i16,
    }

    impl Default for ControllerEndpoint {
        fn default() -> Self {
            ControllerEndpoint {
                name: String::from(""),
                host: String::from(""),
                port: 0,
                security_protocol: 0,
            }
        }
    }

    /// `ControllerFeature`, a part of `RegisterControllerRecord`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ControllerFeature {
        /// The feature name. (string, versions 0+)
        #[serde(rename = "name")]
        pub name: String,
        /// The minimum supported feature level. (int16, versions 0+)
        #[serde(rename = "minSupportedVersion")]
        pub min_supported_version: i16,
        /// The maximum supported feature level. (int16, versions 0+)
        #[serde(rename = "maxSupportedVersion")]
        pub max_supported_version: i16,
    }

    impl Default for ControllerFeature {
        fn default() -> Self {
            ControllerFeature {
                name: String::from(""),
                min_supported_version: 0,
                max_supported_version: 0,
            }
        }
    }
}
pub use register_controller_record::RegisterControllerRecord;

impl crate::Message for RegisterControllerRecord {
    const NAME: &'static str = "RegisterControllerRecord";
}

/// `RemoveTopicRecord` and the structs it uses.
pub mod remove_topic_record {
    use serde::{Deserialize, Serialize};

    /// `RemoveTopicRecord` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct RemoveTopicRecord {
        /// The topic to remove. All associated partitions will be removed as well. (uuid (base64url), versions 0+)
        #[serde(rename = "topicId")]
        pub topic_id: String,
    }

    impl Default for RemoveTopicRecord {
        fn default() -> Self {
            RemoveTopicRecord {
                topic_id: String::from("AAAAAAAAAAAAAAAAAAAAAA"),
            }
        }
    }
}
pub use remove_topic_record::RemoveTopicRecord;

impl crate::Message for RemoveTopicRecord {
    const NAME: &'static str = "RemoveTopicRecord";
}

/// `SnapshotFooterRecord` and the structs it uses.
pub mod snapshot_footer_record {
    use serde::{Deserialize, Serialize};

    /// `SnapshotFooterRecord` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct SnapshotFooterRecord {
        /// The version of the snapshot footer record. (int16, versions 0+)
        #[serde(rename = "version")]
        pub version: i16,
    }

    impl Default for SnapshotFooterRecord {
        fn default() -> Self {
            SnapshotFooterRecord {
                version: 0,
            }
        }
    }
}
pub use snapshot_footer_record::SnapshotFooterRecord;

impl crate::Message for SnapshotFooterRecord {
    const NAME: &'static str = "SnapshotFooterRecord";
}

/// `SnapshotHeaderRecord` and the structs it uses.
pub mod snapshot_header_record {
    use serde::{Deserialize, Serialize};

    /// `SnapshotHeaderRecord` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct SnapshotHeaderRecord {
        /// The version of the snapshot header record. (int16, versions 0+)
        #[serde(rename = "version")]
        pub version: i16,
        /// The append time of the last record from the log contained in this snapshot. (int64, versions 0+)
        #[serde(rename = "lastContainedLogTimestamp")]
        pub last_contained_log_timestamp: i64,
    }

    impl Default for SnapshotHeaderRecord {
        fn default() -> Self {
            SnapshotHeaderRecord {
                version: 0,
                last_contained_log_timestamp: 0,
            }
        }
    }
}
pub use snapshot_header_record::SnapshotHeaderRecord;

impl crate::Message for SnapshotHeaderRecord {
    const NAME: &'static str = "SnapshotHeaderRecord";
}

/// `TopicRecord` and the structs it uses.
pub mod topic_record {
    use serde::{Deserialize, Serialize};

    /// `TopicRecord` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct TopicRecord {
        /// The topic name. (string, versions 0+)
        #[serde(rename = "name")]
        pub name: String,
        /// The unique ID of this topic. (uuid (base64url), versions 0+)
        #[serde(rename = "topicId")]
        pub topic_id: String,
    }

    impl Default for TopicRecord {
        fn default() -> Self {
            TopicRecord {
                name: String::from(""),
                topic_id: String::from("AAAAAAAAAAAAAAAAAAAAAA"),
            }
        }
    }
}
pub use topic_record::TopicRecord;

impl crate::Message for TopicRecord {
    const NAME: &'static str = "TopicRecord";
}

/// `ZkMigrationStateRecord` and the structs it uses.
pub mod zk_migration_state_record {
    use serde::{Deserialize, Serialize};

    /// `ZkMigrationStateRecord` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ZkMigrationStateRecord {
        /// One of the possible migration states. (int8, versions 0+)
        #[serde(rename = "zkMigrationState")]
        pub zk_migration_state: i8,
    }

    impl Default for ZkMigrationStateRecord {
        fn default() -> Self {
            ZkMigrationStateRecord {
                zk_migration_state: 0,
            }
        }
    }
}
pub use zk_migration_state_record::ZkMigrationStateRecord;

impl crate::Message for ZkMigrationStateRecord {
    const NAME: &'static str = "ZkMigrationStateRecord";
}

/// `ConsumerGroupCurrentMemberAssignmentKey` and the structs it uses.
pub mod consumer_group_current_member_assignment_key {
    use serde::{Deserialize, Serialize};

    /// `ConsumerGroupCurrentMemberAssignmentKey` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ConsumerGroupCurrentMemberAssignmentKey {
        /// The group id. (string, versions 0)
        #[serde(rename = "groupId")]
        pub group_id: String,
        /// The member id. (string, versions 0)
        #[serde(rename = "memberId")]
        pub member_id: String,
    }

    impl Default for ConsumerGroupCurrentMemberAssignmentKey {
        fn default() -> Self {
            ConsumerGroupCurrentMemberAssignmentKey {
                group_id: String::from(""),
                member_id: String::from(""),
            }
        }
    }
}
pub use consumer_group_current_member_assignment_key::ConsumerGroupCurrentMemberAssignmentKey;

impl crate::Message for ConsumerGroupCurrentMemberAssignmentKey {
    const NAME: &'static str = "ConsumerGroupCurrentMemberAssignmentKey";
}

/// `ConsumerGroupCurrentMemberAssignmentValue` and the structs it uses.
pub mod consumer_group_current_member_assignment_value {
    use serde::{Deserialize, Serialize};

    /// `ConsumerGroupCurrentMemberAssignmentValue` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ConsumerGroupCurrentMemberAssignmentValue {
        /// The current member epoch that is expected from the member in the heartbeat request. (int32, versions 0+)
        #[serde(rename = "memberEpoch")]
        pub member_epoch: i32,
        /// If the last epoch bump is lost before reaching the member, the member will retry with the previous epoch. (int32, versions 0+)
        #[serde(rename = "previousMemberEpoch")]
        pub previous_member_epoch: i32,
        /// The member state. See MemberState for the possible values. (int8, versions 0+)
        #[serde(rename = "state")]
        pub state: i8,
        /// The partitions assigned to (or owned by) this member. ([]TopicPartitions, versions 0+)
        #[serde(rename = "assignedPartitions")]
        pub assigned_partitions: Vec<TopicPartitions>,
        /// The partitions that must be revoked by this member. ([]TopicPartitions, versions 0+)
        #[serde(rename = "partitionsPendingRevocation")]
        pub partitions_pending_revocation: Vec<TopicPartitions>,
    }

    impl Default for ConsumerGroupCurrentMemberAssignmentValue {
        fn default() -> Self {
            ConsumerGroupCurrentMemberAssignmentValue {
                member_epoch: 0,
                previous_member_epoch: 0,
                state: 0,
                assigned_partitions: Vec::new(),
                partitions_pending_revocation: Vec::new(),
            }
        }
    }

    /// `TopicPartitions`, a part of `ConsumerGroupCurrentMemberAssignmentValue`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct TopicPartitions {
        /// The topic Id. (uuid (base64url), versions 0+)
        #[serde(rename = "topicId")]
        pub topic_id: String,
        /// The partition Ids. ([]int32, versions 0+)
        #[serde(rename = "partitions")]
        pub partitions: Vec<i32>,
        /// The epoch at which the partition was assigned to the member. Used to fence zombie commits requests. Of the same length as Partitions. ([]int32, versions 0+, nullable 0+, tag 0 in 0+)
        #[serde(rename = "assignmentEpochs")]
        pub assignment_epochs: Option<Vec<i32>>,
    }

    impl Default for TopicPartitions {
        fn default() -> Self {
            TopicPartitions {
                topic_id: String::from("AAAAAAAAAAAAAAAAAAAAAA"),
                partitions: Vec::new(),
                assignment_epochs: Some(Vec::new()),
            }
        }
    }
}
pub use consumer_group_current_member_assignment_value::ConsumerGroupCurrentMemberAssignmentValue;

impl crate::Message for ConsumerGroupCurrentMemberAssignmentValue {
    const NAME: &'static str = "ConsumerGroupCurrentMemberAssignmentValue";
}

/// `ConsumerGroupMemberMetadataKey` and the structs it uses.
pub mod consumer_group_member_metadata_key {
    use serde::{Deserialize, Serialize};

    /// `ConsumerGroupMemberMetadataKey` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ConsumerGroupMemberMetadataKey {
        /// The group id. (string, versions 0)
        #[serde(rename = "groupId")]
        pub group_id: String,
        /// The member id. (string, versions 0)
        #[serde(rename = "memberId")]
        pub member_id: String,
    }

    impl Default for ConsumerGroupMemberMetadataKey {
        fn default() -> Self {
            ConsumerGroupMemberMetadataKey {
                group_id: String::from(""),
                member_id: String::from(""),
            }
        }
    }
}
pub use consumer_group_member_metadata_key::ConsumerGroupMemberMetadataKey;

impl crate::Message for ConsumerGroupMemberMetadataKey {
    const NAME: &'static str = "ConsumerGroupMemberMetadataKey";
}

/// `ConsumerGroupMemberMetadataValue` and the structs it uses.
pub mod consumer_group_member_metadata_value {
    use serde::{Deserialize, Serialize};

    /// `ConsumerGroupMemberMetadataValue` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ConsumerGroupMemberMetadataValue {
        /// The (optional) instance id. (string, versions 0+, nullable 0+)
        #[serde(rename = "instanceId")]
        pub instance_id: Option<String>,
        /// The (optional) rack id. (string, versions 0+, nullable 0+)
        #[serde(rename = "rackId")]
        pub rack_id: Option<String>,
        /// The client id. (string, versions 0+)
        #[serde(rename = "clientId")]
        pub client_id: String,
        /// The client host. (string, versions 0+)
        #[serde(rename = "clientHost")]
        pub client_host: String,
        /// The list of subscribed topic names. ([]string, versions 0+)
        #[serde(rename = "subscribedTopicNames")]
        pub subscribed_topic_names: Vec<String>,
        /// The subscribed topic regular expression. (string, versions 0+, nullable 0+)
        #[serde(rename = "subscribedTopicRegex")]
        pub subscribed_topic_regex: Option<String>,
        /// The rebalance timeout. (int32, versions 0+)
        #[serde(rename = "rebalanceTimeoutMs")]
        pub rebalance_timeout_ms: i32,
        /// The server assignor to use; or null if not used. (string, versions 0+, nullable 0+)
        #[serde(rename = "serverAssignor")]
        pub server_assignor: Option<String>,
        /// The classic member metadata which includes the supported protocols of the consumer if it uses the classic protocol. The metadata is null if the consumer uses the consumer protocol. (ClassicMemberMetadata, versions 0+, nullable 0+, tag 0 in 0+)
        #[serde(rename = "classicMemberMetadata")]
        pub classic_member_metadata: Option<ClassicMemberMetadata>,
    }

    impl Default for ConsumerGroupMemberMetadataValue {
        fn default() -> Self {
            ConsumerGroupMemberMetadataValue {
                instance_id: Some(String::from("")),
                rack_id: Some(String::from("")),
                client_id: String::from(""),
                client_host: String::from(""),
                subscribed_topic_names: Vec::new(),
                subscribed_topic_regex: Some(String::from("")),
                rebalance_timeout_ms: -1,
                server_assignor: Some(String::from("")),
                classic_member_metadata: Some(Default::default()),
            }
        }
    }

    /// `ClassicMemberMetadata`, a part of `ConsumerGroupMemberMetadataValue`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ClassicMemberMetadata {
        /// The session timeout if the consumer uses the classic protocol. (int32, versions 0+)
        #[serde(rename = "sessionTimeoutMs")]
        pub session_timeout_ms: i32,
        /// The list of protocols that the member supports if the consumer uses the classic protocol. ([]ClassicProtocol, versions 0+)
        #[serde(rename = "supportedProtocols")]
        pub supported_protocols: Vec<ClassicProtocol>,
    }

    impl Default for ClassicMemberMetadata {
        fn default() -> Self {
            ClassicMemberMetadata {
                session_timeout_ms: 0,
                supported_protocols: Vec::new(),
            }
        }
    }

    /// `ClassicProtocol`, a part of `ConsumerGroupMemberMetadataValue`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ClassicProtocol {
        /// The protocol name. (string, versions 0+)
        #[serde(rename = "name")]
        pub name: String,
        /// The protocol metadata. (bytes (base64), versions 0+)
        #[serde(rename = "metadata")]
        pub metadata: String,
    }

    impl Default for ClassicProtocol {
        fn default() -> Self {
            ClassicProtocol {
                name: String::from(""),
                metadata: String::from(""),
            }
        }
    }
}
pub use consumer_group_member_metadata_value::ConsumerGroupMemberMetadataValue;

impl crate::Message for ConsumerGroupMemberMetadataValue {
    const NAME: &'static str = "ConsumerGroupMemberMetadataValue";
}

/// `ConsumerGroupMetadataKey` and the structs it uses.
pub mod consumer_group_metadata_key {
    use serde::{Deserialize, Serialize};

    /// `ConsumerGroupMetadataKey` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ConsumerGroupMetadataKey {
        /// The group id. (string, versions 0)
        #[serde(rename = "groupId")]
        pub group_id: String,
    }

    impl Default for ConsumerGroupMetadataKey {
        fn default() -> Self {
            ConsumerGroupMetadataKey {
                group_id: String::from(""),
            }
        }
    }
}
pub use consumer_group_metadata_key::ConsumerGroupMetadataKey;

impl crate::Message for ConsumerGroupMetadataKey {
    const NAME: &'static str = "ConsumerGroupMetadataKey";
}

/// `ConsumerGroupMetadataValue` and the structs it uses.
pub mod consumer_group_metadata_value {
    use serde::{Deserialize, Serialize};

    /// `ConsumerGroupMetadataValue` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ConsumerGroupMetadataValue {
        /// The group epoch. (int32, versions 0+)
        #[serde(rename = "epoch")]
        pub epoch: i32,
        /// The hash of all topics in the group. (int64, versions 0+, tag 0 in 0+)
        #[serde(rename = "metadataHash")]
        pub metadata_hash: i64,
    }

    impl Default for ConsumerGroupMetadataValue {
        fn default() -> Self {
            ConsumerGroupMetadataValue {
                epoch: 0,
                metadata_hash: 0,
            }
        }
    }
}
pub use consumer_group_metadata_value::ConsumerGroupMetadataValue;

impl crate::Message for ConsumerGroupMetadataValue {
    const NAME: &'static str = "ConsumerGroupMetadataValue";
}

/// `ConsumerProtocolAssignment` and the structs it uses.
pub mod consumer_protocol_assignment {
    use serde::{Deserialize, Serialize};

    /// `ConsumerProtocolAssignment` (versions 0-3).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ConsumerProtocolAssignment {
        /// The list of topics and partitions assigned to this consumer. ([]TopicPartition, versions 0+)
        #[serde(rename = "assignedPartitions")]
        pub assigned_partitions: Vec<TopicPartition>,
        /// User data. (bytes (base64), versions 0+, nullable 0+)
        #[serde(rename = "userData")]
        pub user_data: Option<String>,
    }

    impl Default for ConsumerProtocolAssignment {
        fn default() -> Self {
            ConsumerProtocolAssignment {
                assigned_partitions: Vec::new(),
                user_data: None,
            }
        }
    }

    /// `TopicPartition`, a part of `ConsumerProtocolAssignment`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct TopicPartition {
        /// The topic name. (string, versions 0+)
        #[serde(rename = "topic")]
        pub topic: String,
        /// The list of partitions assigned to this consumer. ([]int32, versions 0+)
        #[serde(rename = "partitions")]
        pub partitions: Vec<i32>,
    }

    impl Default for TopicPartition {
        fn default() -> Self {
            TopicPartition {
                topic: String::from(""),
                partitions: Vec::new(),
            }
        }
    }
}
pub use consumer_protocol_assignment::ConsumerProtocolAssignment;

impl crate::Message for ConsumerProtocolAssignment {
    const NAME: &'static str = "ConsumerProtocolAssignment";
}

/// `GroupMetadataKey` and the structs it uses.
pub mod group_metadata_key {
    use serde::{Deserialize, Serialize};

    /// `GroupMetadataKey` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct GroupMetadataKey {
        /// The group id. (string, versions 0)
        #[serde(rename = "group")]
        pub group: String,
    }

    impl Default for GroupMetadataKey {
        fn default() -> Self {
            GroupMetadataKey {
                group: String::from(""),
            }
        }
    }
}
pub use group_metadata_key::GroupMetadataKey;

impl crate::Message for GroupMetadataKey {
    const NAME: &'static str = "GroupMetadataKey";
}

/// `GroupMetadataValue` and the structs it uses.
pub mod group_metadata_value {
    use serde::{Deserialize, Serialize};

    /// `GroupMetadataValue` (versions 0-4).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct GroupMetadataValue {
        /// The protocol type. (string, versions 0+)
        #[serde(rename = "protocolType")]
        pub protocol_type: String,
        /// The generation id. (int32, versions 0+)
        #[serde(rename = "generation")]
        pub generation: i32,
        /// The protocol name. (string, versions 0+, nullable 0+)
        #[serde(rename = "protocol")]
        pub protocol: Option<String>,
        /// The leader id. (string, versions 0+, nullable 0+)
        #[serde(rename = "leader")]
        pub leader: Option<String>,
        /// The timestamp of the last state change. (int64, versions 2+)
        #[serde(rename = "currentStateTimestamp")]
        pub current_state_timestamp: i64,
        /// The group members. ([]MemberMetadata, versions 0+)
        #[serde(rename = "members")]
        pub members: Vec<MemberMetadata>,
    }

    impl Default for GroupMetadataValue {
        fn default() -> Self {
            GroupMetadataValue {
                protocol_type: String::from(""),
                generation: 0,
                protocol: Some(String::from("")),
                leader: Some(String::from("")),
                current_state_timestamp: -1,
                members: Vec::new(),
            }
        }
    }

    /// `MemberMetadata`, a part of `GroupMetadataValue`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct MemberMetadata {
        /// The member id. (string, versions 0+)
        #[serde(rename = "memberId")]
        pub member_id: String,
        /// The group instance id. (string, versions 3+, nullable 3+)
        #[serde(rename = "groupInstanceId")]
        pub group_instance_id: Option<String>,
        /// The client id. (string, versions 0+)
        #[serde(rename = "clientId")]
        pub client_id: String,
        /// The client host. (string, versions 0+)
        #[serde(rename = "clientHost")]
        pub client_host: String,
        /// The rebalance timeout. (int32, versions 1+)
        #[serde(rename = "rebalanceTimeout")]
        pub rebalance_timeout: i32,
        /// The session timeout. (int32, versions 0+)
        #[serde(rename = "sessionTimeout")]
        pub session_timeout: i32,
        /// The subscription. (bytes (base64), versions 0+)
        #[serde(rename = "subscription")]
        pub subscription: String,
        /// The assignment. (bytes (base64), versions 0+)
        #[serde(rename = "assignment")]
        pub assignment: String,
    }

    impl Default for MemberMetadata {
        fn default() -> Self {
            MemberMetadata {
                member_id: String::from(""),
                group_instance_id: None,
                client_id: String::from(""),
                client_host: String::from(""),
                rebalance_timeout: -1,
                session_timeout: 0,
                subscription: String::from(""),
                assignment: String::from(""),
            }
        }
    }
}
pub use group_metadata_value::GroupMetadataValue;

impl crate::Message for GroupMetadataValue {
    const NAME: &'static str = "GroupMetadataValue";
}

/// `OffsetCommitKey` and the structs it uses.
pub mod offset_commit_key {
    use serde::{Deserialize, Serialize};

    /// `OffsetCommitKey` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct OffsetCommitKey {
        /// The consumer group id. (string, versions 0)
        #[serde(rename = "group")]
        pub group: String,
        /// The topic name. (string, versions 0)
        #[serde(rename = "topic")]
        pub topic: String,
        /// The topic partition index. (int32, versions 0)
        #[serde(rename = "partition")]
        pub partition: i32,
    }

    impl Default for OffsetCommitKey {
        fn default() -> Self {
            OffsetCommitKey {
                group: String::from(""),
                topic: String::from(""),
                partition: 0,
            }
        }
    }
}
pub use offset_commit_key::OffsetCommitKey;

impl crate::Message for OffsetCommitKey {
    const NAME: &'static str = "OffsetCommitKey";
}

/// `OffsetCommitValue` and the structs it uses.
pub mod offset_commit_value {
    use serde::{Deserialize, Serialize};

    /// `OffsetCommitValue` (versions 0-4).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct OffsetCommitValue {
        /// The offset that the consumer wants to store (for this partition). (int64, versions 0+)
        #[serde(rename = "offset")]
        pub offset: i64,
        /// The leader epoch of the last consumed record. (int32, versions 3+)
        #[serde(rename = "leaderEpoch")]
        pub leader_epoch: i32,
        /// Any metadata the client wants to keep. (string, versions 0+)
        #[serde(rename = "metadata")]
        pub metadata: String,
        /// The time at which the commit was added to the log. (int64, versions 0+)
        #[serde(rename = "commitTimestamp")]
        pub commit_timestamp: i64,
        /// The time at which the offset will expire. (int64, versions 1)
        #[serde(rename = "expireTimestamp")]
        pub expire_timestamp: i64,
        /// The topic id of the committed offset. (uuid (base64url), versions 4+, tag 0 in 4+)
        #[serde(rename = "topicId")]
        pub topic_id: String,
    }

    impl Default for OffsetCommitValue {
        fn default() -> Self {
            OffsetCommitValue {
                offset: 0,
                leader_epoch: -1,
                metadata: String::from(""),
                commit_timestamp: 0,
                expire_timestamp: -1,
                topic_id: String::from("AAAAAAAAAAAAAAAAAAAAAA"),
            }
        }
    }
}
pub use offset_commit_value::OffsetCommitValue;

impl crate::Message for OffsetCommitValue {
    const NAME: &'static str = "OffsetCommitValue";
}

/// `ConsumerGroupTargetAssignmentMemberKey` and the structs it uses.
pub mod consumer_group_target_assignment_member_key {
    use serde::{Deserialize, Serialize};

    /// `ConsumerGroupTargetAssignmentMemberKey` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ConsumerGroupTargetAssignmentMemberKey {
        /// The group id. (string, versions 0)
        #[serde(rename = "groupId")]
        pub group_id: String,
        /// The member id. (string, versions 0)
        #[serde(rename = "memberId")]
        pub member_id: String,
    }

    impl Default for ConsumerGroupTargetAssignmentMemberKey {
        fn default() -> Self {
            ConsumerGroupTargetAssignmentMemberKey {
                group_id: String::from(""),
                member_id: String::from(""),
            }
        }
    }
}
pub use consumer_group_target_assignment_member_key::ConsumerGroupTargetAssignmentMemberKey;

impl crate::Message for ConsumerGroupTargetAssignmentMemberKey {
    const NAME: &'static str = "ConsumerGroupTargetAssignmentMemberKey";
}

/// `ConsumerGroupTargetAssignmentMemberValue` and the structs it uses.
pub mod consumer_group_target_assignment_member_value {
    use serde::{Deserialize, Serialize};

    /// `ConsumerGroupTargetAssignmentMemberValue` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ConsumerGroupTargetAssignmentMemberValue {
        /// The assigned partitions. ([]TopicPartition, versions 0+)
        #[serde(rename = "topicPartitions")]
        pub topic_partitions: Vec<TopicPartition>,
    }

    impl Default for ConsumerGroupTargetAssignmentMemberValue {
        fn default() -> Self {
            ConsumerGroupTargetAssignmentMemberValue {
                topic_partitions: Vec::new(),
            }
        }
    }

    /// `TopicPartition`, a part of `ConsumerGroupTargetAssignmentMemberValue`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct TopicPartition {
        /// The topic id. (uuid (base64url), versions 0+)
        #[serde(rename = "topicId")]
        pub topic_id: String,
        /// The partition indexes. ([]int32, versions 0+)
        #[serde(rename = "partitions")]
        pub partitions: Vec<i32>,
    }

    impl Default for TopicPartition {
        fn default() -> Self {
            TopicPartition {
                topic_id: String::from("AAAAAAAAAAAAAAAAAAAAAA"),
                partitions: Vec::new(),
            }
        }
    }
}
pub use consumer_group_target_assignment_member_value::ConsumerGroupTargetAssignmentMemberValue;

impl crate::Message for ConsumerGroupTargetAssignmentMemberValue {
    const NAME: &'static str = "ConsumerGroupTargetAssignmentMemberValue";
}

/// `ConsumerGroupTargetAssignmentMetadataKey` and the structs it uses.
pub mod consumer_group_target_assignment_metadata_key {
    use serde::{Deserialize, Serialize};

    /// `ConsumerGroupTargetAssignmentMetadataKey` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ConsumerGroupTargetAssignmentMetadataKey {
        /// The group id. (string, versions 0)
        #[serde(rename = "groupId")]
        pub group_id: String,
    }

    impl Default for ConsumerGroupTargetAssignmentMetadataKey {
        fn default() -> Self {
            ConsumerGroupTargetAssignmentMetadataKey {
                group_id: String::from(""),
            }
        }
    }
}
pub use consumer_group_target_assignment_metadata_key::ConsumerGroupTargetAssignmentMetadataKey;

impl crate::Message for ConsumerGroupTargetAssignmentMetadataKey {
    const NAME: &'static str = "ConsumerGroupTargetAssignmentMetadataKey";
}

/// `ConsumerGroupTargetAssignmentMetadataValue` and the structs it uses.
pub mod consumer_group_target_assignment_metadata_value {
    use serde::{Deserialize, Serialize};

    /// `ConsumerGroupTargetAssignmentMetadataValue` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ConsumerGroupTargetAssignmentMetadataValue {
        /// The assignment epoch. (int32, versions 0+)
        #[serde(rename = "assignmentEpoch")]
        pub assignment_epoch: i32,
        /// The time at which the assignment calculation finished. (int64, versions 0+, tag 0 in 0+)
        #[serde(rename = "assignmentTimestamp")]
        pub assignment_timestamp: i64,
    }

    impl Default for ConsumerGroupTargetAssignmentMetadataValue {
        fn default() -> Self {
            ConsumerGroupTargetAssignmentMetadataValue {
                assignment_epoch: 0,
                assignment_timestamp: 0,
            }
        }
    }
}
pub use consumer_group_target_assignment_metadata_value::ConsumerGroupTargetAssignmentMetadataValue;

impl crate::Message for ConsumerGroupTargetAssignmentMetadataValue {
    const NAME: &'static str = "ConsumerGroupTargetAssignmentMetadataValue";
}

/// `ConsumerGroupRegularExpressionKey` and the structs it uses.
pub mod consumer_group_regular_expression_key {
    use serde::{Deserialize, Serialize};

    /// `ConsumerGroupRegularExpressionKey` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ConsumerGroupRegularExpressionKey {
        /// The group id. (string, versions 0)
        #[serde(rename = "groupId")]
        pub group_id: String,
        /// The regular expression. (string, versions 0)
        #[serde(rename = "regularExpression")]
        pub regular_expression: String,
    }

    impl Default for ConsumerGroupRegularExpressionKey {
        fn default() -> Self {
            ConsumerGroupRegularExpressionKey {
                group_id: String::from(""),
                regular_expression: String::from(""),
            }
        }
    }
}
pub use consumer_group_regular_expression_key::ConsumerGroupRegularExpressionKey;

impl crate::Message for ConsumerGroupRegularExpressionKey {
    const NAME: &'static str = "ConsumerGroupRegularExpressionKey";
}

/// `ConsumerGroupRegularExpressionValue` and the structs it uses.
pub mod consumer_group_regular_expression_value {
    use serde::{Deserialize, Serialize};

    /// `ConsumerGroupRegularExpressionValue` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ConsumerGroupRegularExpressionValue {
        /// Topics ([]string, versions 0+)
        #[serde(rename = "topics")]
        pub topics: Vec<String>,
        /// Version (int64, versions 0+)
        #[serde(rename = "version")]
        pub version: i64,
        /// Timestamp (int64, versions 0+)
        #[serde(rename = "timestamp")]
        pub timestamp: i64,
    }

    impl Default for ConsumerGroupRegularExpressionValue {
        fn default() -> Self {
            ConsumerGroupRegularExpressionValue {
                topics: Vec::new(),
                version: 0,
                timestamp: 0,
            }
        }
    }
}
pub use consumer_group_regular_expression_value::ConsumerGroupRegularExpressionValue;

impl crate::Message for ConsumerGroupRegularExpressionValue {
    const NAME: &'static str = "ConsumerGroupRegularExpressionValue";
}

/// `ShareGroupCurrentMemberAssignmentKey` and the structs it uses.
pub mod share_group_current_member_assignment_key {
    use serde::{Deserialize, Serialize};

    /// `ShareGroupCurrentMemberAssignmentKey` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ShareGroupCurrentMemberAssignmentKey {
        /// The group id. (string, versions 0)
        #[serde(rename = "groupId")]
        pub group_id: String,
        /// The member id. (string, versions 0)
        #[serde(rename = "memberId")]
        pub member_id: String,
    }

    impl Default for ShareGroupCurrentMemberAssignmentKey {
        fn default() -> Self {
            ShareGroupCurrentMemberAssignmentKey {
                group_id: String::from(""),
                member_id: String::from(""),
            }
        }
    }
}
pub use share_group_current_member_assignment_key::ShareGroupCurrentMemberAssignmentKey;

impl crate::Message for ShareGroupCurrentMemberAssignmentKey {
    const NAME: &'static str = "ShareGroupCurrentMemberAssignmentKey";
}

/// `ShareGroupCurrentMemberAssignmentValue` and the structs it uses.
pub mod share_group_current_member_assignment_value {
    use serde::{Deserialize, Serialize};

    /// `ShareGroupCurrentMemberAssignmentValue` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ShareGroupCurrentMemberAssignmentValue {
        /// The current member epoch that is expected from the member in the heartbeat request. (int32, versions 0+)
        #[serde(rename = "memberEpoch")]
        pub member_epoch: i32,
        /// If the last epoch bump is lost before reaching the member, the member will retry with the previous epoch. (int32, versions 0+)
        #[serde(rename = "previousMemberEpoch")]
        pub previous_member_epoch: i32,
        /// The member state. See MemberState for the possible values. (int8, versions 0+)
        #[serde(rename = "state")]
        pub state: i8,
        /// The partitions assigned to (or owned by) this member. ([]TopicPartitions, versions 0+)
        #[serde(rename = "assignedPartitions")]
        pub assigned_partitions: Vec<TopicPartitions>,
    }

    impl Default for ShareGroupCurrentMemberAssignmentValue {
        fn default() -> Self {
            ShareGroupCurrentMemberAssignmentValue {
                member_epoch: 0,
                previous_member_epoch: 0,
                state: 0,
                assigned_partitions: Vec::new(),
            }
        }
    }

    /// `TopicPartitions`, a part of `ShareGroupCurrentMemberAssignmentValue`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct TopicPartitions {
        /// The topic Id. (uuid (base64url), versions 0+)
        #[serde(rename = "topicId")]
        pub topic_id: String,
        /// The partition Ids. ([]int32, versions 0+)
        #[serde(rename = "partitions")]
        pub partitions: Vec<i32>,
    }

    impl Default for TopicPartitions {
        fn default() -> Self {
            TopicPartitions {
                topic_id: String::from("AAAAAAAAAAAAAAAAAAAAAA"),
                partitions: Vec::new(),
            }
        }
    }
}
pub use share_group_current_member_assignment_value::ShareGroupCurrentMemberAssignmentValue;

impl crate::Message for ShareGroupCurrentMemberAssignmentValue {
    const NAME: &'static str = "ShareGroupCurrentMemberAssignmentValue";
}

/// `ShareGroupMemberMetadataKey` and the structs it uses.
pub mod share_group_member_metadata_key {
    use serde::{Deserialize, Serialize};

    /// `ShareGroupMemberMetadataKey` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ShareGroupMemberMetadataKey {
        /// The group id. (string, versions 0)
        #[serde(rename = "groupId")]
        pub group_id: String,
        /// The member id. (string, versions 0)
        #[serde(rename = "memberId")]
        pub member_id: String,
    }

    impl Default for ShareGroupMemberMetadataKey {
        fn default() -> Self {
            ShareGroupMemberMetadataKey {
                group_id: String::from(""),
                member_id: String::from(""),
            }
        }
    }
}
pub use share_group_member_metadata_key::ShareGroupMemberMetadataKey;

impl crate::Message for ShareGroupMemberMetadataKey {
    const NAME: &'static str = "ShareGroupMemberMetadataKey";
}

/// `ShareGroupMemberMetadataValue` and the structs it uses.
pub mod share_group_member_metadata_value {
    use serde::{Deserialize, Serialize};

    /// `ShareGroupMemberMetadataValue` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ShareGroupMemberMetadataValue {
        /// The (optional) rack id. (string, versions 0+, nullable 0+)
        #[serde(rename = "rackId")]
        pub rack_id: Option<String>,
        /// The client id. (string, versions 0+)
        #[serde(rename = "clientId")]
        pub client_id: String,
        /// The client host. (string, versions 0+)
        #[serde(rename = "clientHost")]
        pub client_host: String,
        /// The list of subscribed topic names. ([]string, versions 0+)
        #[serde(rename = "subscribedTopicNames")]
        pub subscribed_topic_names: Vec<String>,
    }

    impl Default for ShareGroupMemberMetadataValue {
        fn default() -> Self {
            ShareGroupMemberMetadataValue {
                rack_id: Some(String::from("")),
                client_id: String::from(""),
                client_host: String::from(""),
                subscribed_topic_names: Vec::new(),
            }
        }
    }
}
pub use share_group_member_metadata_value::ShareGroupMemberMetadataValue;

impl crate::Message for ShareGroupMemberMetadataValue {
    const NAME: &'static str = "ShareGroupMemberMetadataValue";
}

/// `ShareGroupMetadataKey` and the structs it uses.
pub mod share_group_metadata_key {
    use serde::{Deserialize, Serialize};

    /// `ShareGroupMetadataKey` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ShareGroupMetadataKey {
        /// The group id. (string, versions 0)
        #[serde(rename = "groupId")]
        pub group_id: String,
    }

    impl Default for ShareGroupMetadataKey {
        fn default() -> Self {
            ShareGroupMetadataKey {
                group_id: String::from(""),
            }
        }
    }
}
pub use share_group_metadata_key::ShareGroupMetadataKey;

impl crate::Message for ShareGroupMetadataKey {
    const NAME: &'static str = "ShareGroupMetadataKey";
}

/// `ShareGroupMetadataValue` and the structs it uses.
pub mod share_group_metadata_value {
    use serde::{Deserialize, Serialize};

    /// `ShareGroupMetadataValue` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ShareGroupMetadataValue {
        /// The group epoch. (int32, versions 0+)
        #[serde(rename = "epoch")]
        pub epoch: i32,
        /// The hash of all topics in the group. (int64, versions 0+)
        #[serde(rename = "metadataHash")]
        pub metadata_hash: i64,
    }

    impl Default for ShareGroupMetadataValue {
        fn default() -> Self {
            ShareGroupMetadataValue {
                epoch: 0,
                metadata_hash: 0,
            }
        }
    }
}
pub use share_group_metadata_value::ShareGroupMetadataValue;

impl crate::Message for ShareGroupMetadataValue {
    const NAME: &'static str = "ShareGroupMetadataValue";
}

/// `ShareGroupStatePartitionMetadataKey` and the structs it uses.
pub mod share_group_state_partition_metadata_key {
    use serde::{Deserialize, Serialize};

    /// `ShareGroupStatePartitionMetadataKey` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ShareGroupStatePartitionMetadataKey {
        /// The group id. (string, versions 0)
        #[serde(rename = "groupId")]
        pub group_id: String,
    }

    impl Default for ShareGroupStatePartitionMetadataKey {
        fn default() -> Self {
            ShareGroupStatePartitionMetadataKey {
                group_id: String::from(""),
            }
        }
    }
}
pub use share_group_state_partition_metadata_key::ShareGroupStatePartitionMetadataKey;

impl crate::Message for ShareGroupStatePartitionMetadataKey {
    const NAME: &'static str = "ShareGroupStatePartitionMetadataKey";
}

/// `ShareGroupStatePartitionMetadataValue` and the structs it uses.
pub mod share_group_state_partition_metadata_value {
    use serde::{Deserialize, Serialize};

    /// `ShareGroupStatePartitionMetadataValue` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ShareGroupStatePartitionMetadataValue {
        /// The topic-partitions whose share-group state is being initialized. ([]TopicPartitionsInfo, versions 0+)
        #[serde(rename = "initializingTopics")]
        pub initializing_topics: Vec<TopicPartitionsInfo>,
        /// The topics with initialized share-group state. ([]TopicPartitionsInfo, versions 0+)
        #[serde(rename = "initializedTopics")]
        pub initialized_topics: Vec<TopicPartitionsInfo>,
        /// The topics whose share-group state is being deleted. ([]TopicInfo, versions 0+)
        #[serde(rename = "deletingTopics")]
        pub deleting_topics: Vec<TopicInfo>,
    }

    impl Default for ShareGroupStatePartitionMetadataValue {
        fn default() -> Self {
            ShareGroupStatePartitionMetadataValue {
                initializing_topics: Vec::new(),
                initialized_topics: Vec::new(),
                deleting_topics: Vec::new(),
            }
        }
    }

    /// `TopicPartitionsInfo`, a part of `ShareGroupStatePartitionMetadataValue`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct TopicPartitionsInfo {
        /// The topic identifier. (uuid (base64url), versions 0+)
        #[serde(rename = "topicId")]
        pub topic_id: String,
        /// The topic name. (string, versions 0+)
        #[serde(rename = "topicName")]
        pub topic_name: String,
        /// The partitions. ([]int32, versions 0+)
        #[serde(rename = "partitions")]
        pub partitions: Vec<i32>,
    }

    impl Default for TopicPartitionsInfo {
        fn default() -> Self {
            TopicPartitionsInfo {
                topic_id: String::from("AAAAAAAAAAAAAAAAAAAAAA"),
                topic_name: String::from(""),
                partitions: Vec::new(),
            }
        }
    }

    /// `TopicInfo`, a part of `ShareGroupStatePartitionMetadataValue`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct TopicInfo {
        /// The topic identifier. (uuid (base64url), versions 0+)
        #[serde(rename = "topicId")]
        pub topic_id: String,
        /// The topic name. (string, versions 0+)
        #[serde(rename = "topicName")]
        pub topic_name: String,
    }

    impl Default for TopicInfo {
        fn default() -> Self {
            TopicInfo {
                topic_id: String::from("AAAAAAAAAAAAAAAAAAAAAA"),
                topic_name: String::from(""),
            }
        }
    }
}
pub use share_group_state_partition_metadata_value::ShareGroupStatePartitionMetadataValue;

impl crate::Message for ShareGroupStatePartitionMetadataValue {
    const NAME: &'static str = "ShareGroupStatePartitionMetadataValue";
}

/// `ShareGroupTargetAssignmentMemberKey` and the structs it uses.
pub mod share_group_target_assignment_member_key {
    use serde::{Deserialize, Serialize};

    /// `ShareGroupTargetAssignmentMemberKey` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ShareGroupTargetAssignmentMemberKey {
        /// The group id. (string, versions 0)
        #[serde(rename = "groupId")]
        pub group_id: String,
        /// The member id. (string, versions 0)
        #[serde(rename = "memberId")]
        pub member_id: String,
    }

    impl Default for ShareGroupTargetAssignmentMemberKey {
        fn default() -> Self {
            ShareGroupTargetAssignmentMemberKey {
                group_id: String::from(""),
                member_id: String::from(""),
            }
        }
    }
}
pub use share_group_target_assignment_member_key::ShareGroupTargetAssignmentMemberKey;

impl crate::Message for ShareGroupTargetAssignmentMemberKey {
    const NAME: &'static str = "ShareGroupTargetAssignmentMemberKey";
}

/// `ShareGroupTargetAssignmentMemberValue` and the structs it uses.
pub mod share_group_target_assignment_member_value {
    use serde::{Deserialize, Serialize};

    /// `ShareGroupTargetAssignmentMemberValue` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ShareGroupTargetAssignmentMemberValue {
        /// The assigned partitions. ([]TopicPartition, versions 0+)
        #[serde(rename = "topicPartitions")]
        pub topic_partitions: Vec<TopicPartition>,
    }

    impl Default for ShareGroupTargetAssignmentMemberValue {
        fn default() -> Self {
            ShareGroupTargetAssignmentMemberValue {
                topic_partitions: Vec::new(),
            }
        }
    }

    /// `TopicPartition`, a part of `ShareGroupTargetAssignmentMemberValue`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct TopicPartition {
        /// The topic id. (uuid (base64url), versions 0+)
        #[serde(rename = "topicId")]
        pub topic_id: String,
        /// The partition indexes. ([]int32, versions 0+)
        #[serde(rename = "partitions")]
        pub partitions: Vec<i32>,
    }

    impl Default for TopicPartition {
        fn default() -> Self {
            TopicPartition {
                topic_id: String::from("AAAAAAAAAAAAAAAAAAAAAA"),
                partitions: Vec::new(),
            }
        }
    }
}
pub use share_group_target_assignment_member_value::ShareGroupTargetAssignmentMemberValue;

impl crate::Message for ShareGroupTargetAssignmentMemberValue {
    const NAME: &'static str = "ShareGroupTargetAssignmentMemberValue";
}

/// `ShareGroupTargetAssignmentMetadataKey` and the structs it uses.
pub mod share_group_target_assignment_metadata_key {
    use serde::{Deserialize, Serialize};

    /// `ShareGroupTargetAssignmentMetadataKey` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ShareGroupTargetAssignmentMetadataKey {
        /// The group id. (string, versions 0)
        #[serde(rename = "groupId")]
        pub group_id: String,
    }

    impl Default for ShareGroupTargetAssignmentMetadataKey {
        fn default() -> Self {
            ShareGroupTargetAssignmentMetadataKey {
                group_id: String::from(""),
            }
        }
    }
}
pub use share_group_target_assignment_metadata_key::ShareGroupTargetAssignmentMetadataKey;

impl crate::Message for ShareGroupTargetAssignmentMetadataKey {
    const NAME: &'static str = "ShareGroupTargetAssignmentMetadataKey";
}

/// `ShareGroupTargetAssignmentMetadataValue` and the structs it uses.
pub mod share_group_target_assignment_metadata_value {
    use serde::{Deserialize, Serialize};

    /// `ShareGroupTargetAssignmentMetadataValue` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ShareGroupTargetAssignmentMetadataValue {
        /// The assignment epoch. (int32, versions 0+)
        #[serde(rename = "assignmentEpoch")]
        pub assignment_epoch: i32,
        /// The time at which the assignment calculation finished. (int64, versions 0+, tag 0 in 0+)
        #[serde(rename = "assignmentTimestamp")]
        pub assignment_timestamp: i64,
    }

    impl Default for ShareGroupTargetAssignmentMetadataValue {
        fn default() -> Self {
            ShareGroupTargetAssignmentMetadataValue {
                assignment_epoch: 0,
                assignment_timestamp: 0,
            }
        }
    }
}
pub use share_group_target_assignment_metadata_value::ShareGroupTargetAssignmentMetadataValue;

impl crate::Message for ShareGroupTargetAssignmentMetadataValue {
    const NAME: &'static str = "ShareGroupTargetAssignmentMetadataValue";
}

/// `StreamsGroupCurrentMemberAssignmentKey` and the structs it uses.
pub mod streams_group_current_member_assignment_key {
    use serde::{Deserialize, Serialize};

    /// `StreamsGroupCurrentMemberAssignmentKey` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct StreamsGroupCurrentMemberAssignmentKey {
        /// The group ID. (string, versions 0)
        #[serde(rename = "groupId")]
        pub group_id: String,
        /// The member ID. (string, versions 0)
        #[serde(rename = "memberId")]
        pub member_id: String,
    }

    impl Default for StreamsGroupCurrentMemberAssignmentKey {
        fn default() -> Self {
            StreamsGroupCurrentMemberAssignmentKey {
                group_id: String::from(""),
                member_id: String::from(""),
            }
        }
    }
}
pub use streams_group_current_member_assignment_key::StreamsGroupCurrentMemberAssignmentKey;

impl crate::Message for StreamsGroupCurrentMemberAssignmentKey {
    const NAME: &'static str = "StreamsGroupCurrentMemberAssignmentKey";
}

/// `StreamsGroupCurrentMemberAssignmentValue` and the structs it uses.
pub mod streams_group_current_member_assignment_value {
    use serde::{Deserialize, Serialize};

    /// `StreamsGroupCurrentMemberAssignmentValue` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct StreamsGroupCurrentMemberAssignmentValue {
        /// The current member epoch that is expected from the member in the heartbeat request. (int32, versions 0+)
        #[serde(rename = "memberEpoch")]
        pub member_epoch: i32,
        /// If the last epoch bump is lost before reaching the member, the member will retry with the previous epoch. (int32, versions 0+)
        #[serde(rename = "previousMemberEpoch")]
        pub previous_member_epoch: i32,
        /// The member state. See StreamsGroupMember.MemberState for the possible values. (int8, versions 0+)
        #[serde(rename = "state")]
        pub state: i8,
        /// Currently assigned active tasks for this streams client. ([]TaskIds, versions 0+)
        #[serde(rename = "activeTasks")]
        pub active_tasks: Vec<TaskIds>,
        /// Currently assigned standby tasks for this streams client. ([]TaskIds, versions 0+)
        #[serde(rename = "standbyTasks")]
        pub standby_tasks: Vec<TaskIds>,
        /// Currently assigned warm-up tasks for this streams client. ([]TaskIds, versions 0+)
        #[serde(rename = "warmupTasks")]
        pub warmup_tasks: Vec<TaskIds>,
        /// The active tasks that must be revoked by this member. ([]TaskIds, versions 0+)
        #[serde(rename = "activeTasksPendingRevocation")]
        pub active_tasks_pending_revocation: Vec<TaskIds>,
        /// The standby tasks that must be revoked by this member. ([]TaskIds, versions 0+)
        #[serde(rename = "standbyTasksPendingRevocation")]
        pub standby_tasks_pending_revocation: Vec<TaskIds>,
        /// The warmup tasks that must be revoked by this member. ([]TaskIds, versions 0+)
        #[serde(rename = "warmupTasksPendingRevocation")]
        pub warmup_tasks_pending_revocation: Vec<TaskIds>,
    }

    impl Default for StreamsGroupCurrentMemberAssignmentValue {
        fn default() -> Self {
            StreamsGroupCurrentMemberAssignmentValue {
                member_epoch: 0,
                previous_member_epoch: 0,
                state: 0,
                active_tasks: Vec::new(),
                standby_tasks: Vec::new(),
                warmup_tasks: Vec::new(),
                active_tasks_pending_revocation: Vec::new(),
                standby_tasks_pending_revocation: Vec::new(),
                warmup_tasks_pending_revocation: Vec::new(),
            }
        }
    }

    /// `TaskIds`, a part of `StreamsGroupCurrentMemberAssignmentValue`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct TaskIds {
        /// The subtopology ID. (string, versions 0+)
        #[serde(rename = "subtopologyId")]
        pub subtopology_id: String,
        /// The partitions of the input topics processed by this member. ([]int32, versions 0+)
        #[serde(rename = "partitions")]
        pub partitions: Vec<i32>,
        /// The epoch at which the partition was assigned to the member. Used to fence zombie commits requests. Of the same length as Partitions. Only defined for active tasks. ([]int32, versions 0+, nullable 0+, tag 0 in 0+)
        #[serde(rename = "assignmentEpochs")]
        pub assignment_epochs: Option<Vec<i32>>,
    }

    impl Default for TaskIds {
        fn default() -> Self {
            TaskIds {
                subtopology_id: String::from(""),
                partitions: Vec::new(),
                assignment_epochs: Some(Vec::new()),
            }
        }
    }
}
pub use streams_group_current_member_assignment_value::StreamsGroupCurrentMemberAssignmentValue;

impl crate::Message for StreamsGroupCurrentMemberAssignmentValue {
    const NAME: &'static str = "StreamsGroupCurrentMemberAssignmentValue";
}

/// `StreamsGroupMemberMetadataKey` and the structs it uses.
pub mod streams_group_member_metadata_key {
    use serde::{Deserialize, Serialize};

    /// `StreamsGroupMemberMetadataKey` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct StreamsGroupMemberMetadataKey {
        /// The group ID. (string, versions 0)
        #[serde(rename = "groupId")]
        pub group_id: String,
        /// The member ID. (string, versions 0)
        #[serde(rename = "memberId")]
        pub member_id: String,
    }

    impl Default for StreamsGroupMemberMetadataKey {
        fn default() -> Self {
            StreamsGroupMemberMetadataKey {
                group_id: String::from(""),
                member_id: String::from(""),
            }
        }
    }
}
pub use streams_group_member_metadata_key::StreamsGroupMemberMetadataKey;

impl crate::Message for StreamsGroupMemberMetadataKey {
    const NAME: &'static str = "StreamsGroupMemberMetadataKey";
}

/// `StreamsGroupMemberMetadataValue` and the structs it uses.
pub mod streams_group_member_metadata_value {
    use serde::{Deserialize, Serialize};

    /// `StreamsGroupMemberMetadataValue` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct StreamsGroupMemberMetadataValue {
        /// The (optional) instance ID for static membership. (string, versions 0+, nullable 0+)
        #[serde(rename = "instanceId")]
        pub instance_id: Option<String>,
        /// The (optional) rack ID. (string, versions 0+, nullable 0+)
        #[serde(rename = "rackId")]
        pub rack_id: Option<String>,
        /// The client ID. (string, versions 0+)
        #[serde(rename = "clientId")]
        pub client_id: String,
        /// The client host. (string, versions 0+)
        #[serde(rename = "clientHost")]
        pub client_host: String,
        /// The rebalance timeout. (int32, versions 0+)
        #[serde(rename = "rebalanceTimeoutMs")]
        pub rebalance_timeout_ms: i32,
        /// The epoch of the topology. (int32, versions 0+)
        #[serde(rename = "topologyEpoch")]
        pub topology_epoch: i32,
        /// Identity of the streams instance that may have multiple consumers. (string, versions 0+)
        #[serde(rename = "processId")]
        pub process_id: String,
        /// User-defined endpoint for running interactive queries on this instance. (Endpoint, versions 0+, nullable 0+)
        #[serde(rename = "userEndpoint")]
        pub user_endpoint: Option<Endpoint>,
        /// Used for rack-aware assignment algorithm. ([]KeyValue, versions 0+)
        #[serde(rename = "clientTags")]
        pub client_tags: Vec<KeyValue>,
    }

    impl Default for StreamsGroupMemberMetadataValue {
        fn default() -> Self {
            StreamsGroupMemberMetadataValue {
                instance_id: Some(String::from("")),
                rack_id: Some(String::from("")),
                client_id: String::from(""),
                client_host: String::from(""),
                rebalance_timeout_ms: -1,
                topology_epoch: 0,
                process_id: String::from(""),
                user_endpoint: None,
                client_tags: Vec::new(),
            }
        }
    }

    /// `Endpoint`, a part of `StreamsGroupMemberMetadataValue`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct Endpoint {
        /// The host of the endpoint. (string, versions 0+)
        #[serde(rename = "host")]
        pub host: String,
        /// The port of the endpoint. (uint16, versions 0+)
        #[serde(rename = "port")]
        pub port: u16,
    }

    impl Default for Endpoint {
        fn default() -> Self {
            Endpoint {
                host: String::from(""),
                port: 0,
            }
        }
    }

    /// `KeyValue`, a part of `StreamsGroupMemberMetadataValue`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct KeyValue {
        /// The key of the config. (string, versions 0+)
        #[serde(rename = "key")]
        pub key: String,
        /// the value of the config. (string, versions 0+)
        #[serde(rename = "value")]
        pub value: String,
    }

    impl Default for KeyValue {
        fn default() -> Self {
            KeyValue {
                key: String::from(""),
                value: String::from(""),
            }
        }
    }
}
pub use streams_group_member_metadata_value::StreamsGroupMemberMetadataValue;

impl crate::Message for StreamsGroupMemberMetadataValue {
    const NAME: &'static str = "StreamsGroupMemberMetadataValue";
}

/// `StreamsGroupMetadataKey` and the structs it uses.
pub mod streams_group_metadata_key {
    use serde::{Deserialize, Serialize};

    /// `StreamsGroupMetadataKey` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct StreamsGroupMetadataKey {
        /// The group ID. (string, versions 0)
        #[serde(rename = "groupId")]
        pub group_id: String,
    }

    impl Default for StreamsGroupMetadataKey {
        fn default() -> Self {
            StreamsGroupMetadataKey {
                group_id: String::from(""),
            }
        }
    }
}
pub use streams_group_metadata_key::StreamsGroupMetadataKey;

impl crate::Message for StreamsGroupMetadataKey {
    const NAME: &'static str = "StreamsGroupMetadataKey";
}

/// `StreamsGroupMetadataValue` and the structs it uses.
pub mod streams_group_metadata_value {
    use serde::{Deserialize, Serialize};

    /// `StreamsGroupMetadataValue` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct StreamsGroupMetadataValue {
        /// The group epoch. (int32, versions 0+)
        #[serde(rename = "epoch")]
        pub epoch: i32,
        /// The hash of all topics in the group. (int64, versions 0+)
        #[serde(rename = "metadataHash")]
        pub metadata_hash: i64,
        /// The topology epoch whose topics are validated to be present in a valid configuration in the metadata. (int32, versions 0+, tag 0 in 0+)
        #[serde(rename = "validatedTopologyEpoch")]
        pub validated_topology_epoch: i32,
        /// The last used configuration parameters as key-value pairs. ([]LastAssignmentConfig, versions 0+, nullable 0+, tag 1 in 0+)
        #[serde(rename = "lastAssignmentConfigs")]
        pub last_assignment_configs: Option<Vec<LastAssignmentConfig>>,
    }

    impl Default for StreamsGroupMetadataValue {
        fn default() -> Self {
            StreamsGroupMetadataValue {
                epoch: 0,
                metadata_hash: 0,
                validated_topology_epoch: -1,
                last_assignment_configs: Some(Vec::new()),
            }
        }
    }

    /// `LastAssignmentConfig`, a part of `StreamsGroupMetadataValue`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct LastAssignmentConfig {
        /// Key of the config. (string, versions 0+)
        #[serde(rename = "key")]
        pub key: String,
        /// Value of the config. (string, versions 0+)
        #[serde(rename = "value")]
        pub value: String,
    }

    impl Default for LastAssignmentConfig {
        fn default() -> Self {
            LastAssignmentConfig {
                key: String::from(""),
                value: String::from(""),
            }
        }
    }
}
pub use streams_group_metadata_value::StreamsGroupMetadataValue;

impl crate::Message for StreamsGroupMetadataValue {
    const NAME: &'static str = "StreamsGroupMetadataValue";
}

/// `StreamsGroupTargetAssignmentMetadataKey` and the structs it uses.
pub mod streams_group_target_assignment_metadata_key {
    use serde::{Deserialize, Serialize};

    /// `StreamsGroupTargetAssignmentMetadataKey` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct StreamsGroupTargetAssignmentMetadataKey {
        /// The group ID. (string, versions 0)
        #[serde(rename = "groupId")]
        pub group_id: String,
    }

    impl Default for StreamsGroupTargetAssignmentMetadataKey {
        fn default() -> Self {
            StreamsGroupTargetAssignmentMetadataKey {
                group_id: String::from(""),
            }
        }
    }
}
pub use streams_group_target_assignment_metadata_key::StreamsGroupTargetAssignmentMetadataKey;

impl crate::Message for StreamsGroupTargetAssignmentMetadataKey {
    const NAME: &'static str = "StreamsGroupTargetAssignmentMetadataKey";
}

/// `StreamsGroupTargetAssignmentMetadataValue` and the structs it uses.
pub mod streams_group_target_assignment_metadata_value {
    use serde::{Deserialize, Serialize};

    /// `StreamsGroupTargetAssignmentMetadataValue` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct StreamsGroupTargetAssignmentMetadataValue {
        /// The assignment epoch. (int32, versions 0+)
        #[serde(rename = "assignmentEpoch")]
        pub assignment_epoch: i32,
        /// The time at which the assignment calculation finished. (int64, versions 0+, tag 0 in 0+)
        #[serde(rename = "assignmentTimestamp")]
        pub assignment_timestamp: i64,
    }

    impl Default for StreamsGroupTargetAssignmentMetadataValue {
        fn default() -> Self {
            StreamsGroupTargetAssignmentMetadataValue {
                assignment_epoch: 0,
                assignment_timestamp: 0,
            }
        }
    }
}
pub use streams_group_target_assignment_metadata_value::StreamsGroupTargetAssignmentMetadataValue;

impl crate::Message for StreamsGroupTargetAssignmentMetadataValue {
    const NAME: &'static str = "StreamsGroupTargetAssignmentMetadataValue";
}

/// `StreamsGroupTopologyKey` and the structs it uses.
pub mod streams_group_topology_key {
    use serde::{Deserialize, Serialize};

    /// `StreamsGroupTopologyKey` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct StreamsGroupTopologyKey {
        /// The group ID. (string, versions 0)
        #[serde(rename = "groupId")]
        pub group_id: String,
    }

    impl Default for StreamsGroupTopologyKey {
        fn default() -> Self {
            StreamsGroupTopologyKey {
                group_id: String::from(""),
            }
        }
    }
}
pub use streams_group_topology_key::StreamsGroupTopologyKey;

impl crate::Message for StreamsGroupTopologyKey {
    const NAME: &'static str = "StreamsGroupTopologyKey";
}

/// `StreamsGroupTopologyValue` and the structs it uses.
pub mod streams_group_topology_value {
    use serde::{Deserialize, Serialize};

    /// `StreamsGroupTopologyValue` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct StreamsGroupTopologyValue {
        /// The epoch of the topology. (int32, versions 0+)
        #[serde(rename = "epoch")]
        pub epoch: i32,
        /// The sub-topologies of the streams application. ([]Subtopology, versions 0+)
        #[serde(rename = "subtopologies")]
        pub subtopologies: Vec<Subtopology>,
    }

    impl Default for StreamsGroupTopologyValue {
        fn default() -> Self {
            StreamsGroupTopologyValue {
                epoch: 0,
                subtopologies: Vec::new(),
            }
        }
    }

    /// `Subtopology`, a part of `StreamsGroupTopologyValue`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct Subtopology {
        /// String to uniquely identify the subtopology. (string, versions 0+)
        #[serde(rename = "subtopologyId")]
        pub subtopology_id: String,
        /// The topics the topology reads from. ([]string, versions 0+)
        #[serde(rename = "sourceTopics")]
        pub source_topics: Vec<String>,
        /// Regular expressions identifying topics the subtopology reads from. ([]string, versions 0+)
        #[serde(rename = "sourceTopicRegex")]
        pub source_topic_regex: Vec<String>,
        /// The set of state changelog topics associated with this subtopology. ([]TopicInfo, versions 0+)
        #[serde(rename = "stateChangelogTopics")]
        pub state_changelog_topics: Vec<TopicInfo>,
        /// The repartition topics the subtopology writes to. ([]string, versions 0+)
        #[serde(rename = "repartitionSinkTopics")]
        pub repartition_sink_topics: Vec<String>,
        /// The set of source topics that are internally created repartition topics. ([]TopicInfo, versions 0+)
        #[serde(rename = "repartitionSourceTopics")]
        pub repartition_source_topics: Vec<TopicInfo>,
        /// A subset of source topics that must be copartitioned. ([]CopartitionGroup, versions 0+)
        #[serde(rename = "copartitionGroups")]
        pub copartition_groups: Vec<CopartitionGroup>,
    }

    impl Default for Subtopology {
        fn default() -> Self {
            Subtopology {
                subtopology_id: String::from(""),
                source_topics: Vec::new(),
                source_topic_regex: Vec::new(),
                state_changelog_topics: Vec::new(),
                repartition_sink_topics: Vec::new(),
                repartition_source_topics: Vec::new(),
                copartition_groups: Vec::new(),
            }
        }
    }

    /// `TopicInfo`, a part of `StreamsGroupTopologyValue`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct TopicInfo {
        /// The name of the topic. (string, versions 0+)
        #[serde(rename = "name")]
        pub name: String,
        /// The number of partitions in the topic. Can be 0 if no specific number of partitions is enforced. Always 0 for changelog topics. (int32, versions 0+)
        #[serde(rename = "partitions")]
        pub partitions: i32,
        /// The replication factor of the topic. Can be 0 if the default replication factor should be used. (int16, versions 0+)
        #[serde(rename = "replicationFactor")]
        pub replication_factor: i16,
        /// Topic-level configurations as key-value pairs. ([]TopicConfig, versions 0+)
        #[serde(rename = "topicConfigs")]
        pub topic_configs: Vec<TopicConfig>,
    }

    impl Default for TopicInfo {
        fn default() -> Self {
            TopicInfo {
                name: String::from(""),
                partitions: 0,
                replication_factor: 0,
                topic_configs: Vec::new(),
            }
        }
    }

    /// `TopicConfig`, a part of `StreamsGroupTopologyValue`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct TopicConfig {
        /// The key of the topic-level configuration. (string, versions 0+)
        #[serde(rename = "key")]
        pub key: String,
        /// The value of the topic-level configuration. (string, versions 0+)
        #[serde(rename = "value")]
        pub value: String,
    }

    impl Default for TopicConfig {
        fn default() -> Self {
            TopicConfig {
                key: String::from(""),
                value: String::from(""),
            }
        }
    }

    /// `CopartitionGroup`, a part of `StreamsGroupTopologyValue`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct CopartitionGroup {
        /// The topics the topology reads from. Index into the array on the subtopology level. ([]int16, versions 0+)
        #[serde(rename = "sourceTopics")]
        pub source_topics: Vec<i16>,
        /// Regular expressions identifying topics the subtopology reads from. Index into the array on the subtopology level. ([]int16, versions 0+)
        #[serde(rename = "sourceTopicRegex")]
        pub source_topic_regex: Vec<i16>,
        /// The set of source topics that are internally created repartition topics. Index into the array on the subtopology level. ([]int16, versions 0+)
        #[serde(rename = "repartitionSourceTopics")]
        pub repartition_source_topics: Vec<i16>,
    }

    impl Default for CopartitionGroup {
        fn default() -> Self {
            CopartitionGroup {
                source_topics: Vec::new(),
                source_topic_regex: Vec::new(),
                repartition_source_topics: Vec::new(),
            }
        }
    }
}
pub use streams_group_topology_value::StreamsGroupTopologyValue;

impl crate::Message for StreamsGroupTopologyValue {
    const NAME: &'static str = "StreamsGroupTopologyValue";
}

/// `ShareSnapshotKey` and the structs it uses.
pub mod share_snapshot_key {
    use serde::{Deserialize, Serialize};

    /// `ShareSnapshotKey` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ShareSnapshotKey {
        /// The group id. (string, versions 0)
        #[serde(rename = "groupId")]
        pub group_id: String,
        /// The topic id. (uuid (base64url), versions 0)
        #[serde(rename = "topicId")]
        pub topic_id: String,
        /// The partition index. (int32, versions 0)
        #[serde(rename = "partition")]
        pub partition: i32,
    }

    impl Default for ShareSnapshotKey {
        fn default() -> Self {
            ShareSnapshotKey {
                group_id: String::from(""),
                topic_id: String::from("AAAAAAAAAAAAAAAAAAAAAA"),
                partition: 0,
            }
        }
    }
}
pub use share_snapshot_key::ShareSnapshotKey;

impl crate::Message for ShareSnapshotKey {
    const NAME: &'static str = "ShareSnapshotKey";
}

/// `ShareSnapshotValue` and the structs it uses.
pub mod share_snapshot_value {
    use serde::{Deserialize, Serialize};

    /// `ShareSnapshotValue` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ShareSnapshotValue {
        /// The snapshot epoch. (int32, versions 0+)
        #[serde(rename = "snapshotEpoch")]
        pub snapshot_epoch: i32,
        /// The state epoch for this share-partition. (int32, versions 0+)
        #[serde(rename = "stateEpoch")]
        pub state_epoch: i32,
        /// The leader epoch of the share-partition. (int32, versions 0+)
        #[serde(rename = "leaderEpoch")]
        pub leader_epoch: i32,
        /// The share-partition start offset. (int64, versions 0+)
        #[serde(rename = "startOffset")]
        pub start_offset: i64,
        /// The number of offsets greater than or equal to share-partition start offset for which delivery has been completed. (int32, versions 0+, tag 0 in 0+)
        #[serde(rename = "deliveryCompleteCount")]
        pub delivery_complete_count: i32,
        /// The time at which the state was created. (int64, versions 0+)
        #[serde(rename = "createTimestamp")]
        pub create_timestamp: i64,
        /// The time at which the state was written or rewritten. (int64, versions 0+)
        #[serde(rename = "writeTimestamp")]
        pub write_timestamp: i64,
        /// The state batches. ([]StateBatch, versions 0+)
        #[serde(rename = "stateBatches")]
        pub state_batches: Vec<StateBatch>,
    }

    impl Default for ShareSnapshotValue {
        fn default() -> Self {
            ShareSnapshotValue {
                snapshot_epoch: 0,
                state_epoch: 0,
                leader_epoch: 0,
                start_offset: 0,
                delivery_complete_count: -1,
                create_timestamp: 0,
                write_timestamp: 0,
                state_batches: Vec::new(),
            }
        }
    }

    /// `StateBatch`, a part of `ShareSnapshotValue`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct StateBatch {
        /// The first offset of this state batch. (int64, versions 0+)
        #[serde(rename = "firstOffset")]
        pub first_offset: i64,
        /// The last offset of this state batch. (int64, versions 0+)
        #[serde(rename = "lastOffset")]
        pub last_offset: i64,
        /// The delivery state - 0:Available,2:Acked,4:Archived. (int8, versions 0+)
        #[serde(rename = "deliveryState")]
        pub delivery_state: i8,
        /// The delivery count. (int16, versions 0+)
        #[serde(rename = "deliveryCount")]
        pub delivery_count: i16,
    }

    impl Default for StateBatch {
        fn default() -> Self {
            StateBatch {
                first_offset: 0,
                last_offset: 0,
                delivery_state: 0,
                delivery_count: 0,
            }
        }
    }
}
pub use share_snapshot_value::ShareSnapshotValue;

impl crate::Message for ShareSnapshotValue {
    const NAME: &'static str = "ShareSnapshotValue";
}

/// `ShareUpdateKey` and the structs it uses.
pub mod share_update_key {
    use serde::{Deserialize, Serialize};

    /// `ShareUpdateKey` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ShareUpdateKey {
        /// The group id. (string, versions 0)
        #[serde(rename = "groupId")]
        pub group_id: String,
        /// The topic id. (uuid (base64url), versions 0)
        #[serde(rename = "topicId")]
        pub topic_id: String,
        /// The partition index. (int32, versions 0)
        #[serde(rename = "partition")]
        pub partition: i32,
    }

    impl Default for ShareUpdateKey {
        fn default() -> Self {
            ShareUpdateKey {
                group_id: String::from(""),
                topic_id: String::from("AAAAAAAAAAAAAAAAAAAAAA"),
                partition: 0,
            }
        }
    }
}
pub use share_update_key::ShareUpdateKey;

impl crate::Message for ShareUpdateKey {
    const NAME: &'static str = "ShareUpdateKey";
}

/// `ShareUpdateValue` and the structs it uses.
pub mod share_update_value {
    use serde::{Deserialize, Serialize};

    /// `ShareUpdateValue` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct ShareUpdateValue {
        /// The snapshot epoch. (int32, versions 0+)
        #[serde(rename = "snapshotEpoch")]
        pub snapshot_epoch: i32,
        /// The leader epoch of the share-partition. (int32, versions 0+)
        #[serde(rename = "leaderEpoch")]
        pub leader_epoch: i32,
        /// The share-partition start offset, or -1 if the start offset is not being updated. (int64, versions 0+)
        #[serde(rename = "startOffset")]
        pub start_offset: i64,
        /// The number of offsets greater than or equal to share-partition start offset for which delivery has been completed. (int32, versions 0+, tag 0 in 0+)
        #[serde(rename = "deliveryCompleteCount")]
        pub delivery_complete_count: i32,
        /// The state batches that have been updated. ([]StateBatch, versions 0+)
        #[serde(rename = "stateBatches")]
        pub state_batches: Vec<StateBatch>,
    }

    impl Default for ShareUpdateValue {
        fn default() -> Self {
            ShareUpdateValue {
                snapshot_epoch: 0,
                leader_epoch: 0,
                start_offset: 0,
                delivery_complete_count: -1,
                state_batches: Vec::new(),
            }
        }
    }

    /// `StateBatch`, a part of `ShareUpdateValue`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct StateBatch {
        /// The first offset of this state batch. (int64, versions 0+)
        #[serde(rename = "firstOffset")]
        pub first_offset: i64,
        /// The last offset of this state batch. (int64, versions 0+)
        #[serde(rename = "lastOffset")]
        pub last_offset: i64,
        /// The delivery state - 0:Available,2:Acked,4:Archived. (int8, versions 0+)
        #[serde(rename = "deliveryState")]
        pub delivery_state: i8,
        /// The delivery count. (int16, versions 0+)
        #[serde(rename = "deliveryCount")]
        pub delivery_count: i16,
    }

    impl Default for StateBatch {
        fn default() -> Self {
            StateBatch {
                first_offset: 0,
                last_offset: 0,
                delivery_state: 0,
                delivery_count: 0,
            }
        }
    }
}
pub use share_update_value::ShareUpdateValue;

impl crate::Message for ShareUpdateValue {
    const NAME: &'static str = "ShareUpdateValue";
}

/// `TransactionLogKey` and the structs it uses.
pub mod transaction_log_key {
    use serde::{Deserialize, Serialize};

    /// `TransactionLogKey` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct TransactionLogKey {
        /// The transactional id of the transaction. (string, versions 0)
        #[serde(rename = "transactionalId")]
        pub transactional_id: String,
    }

    impl Default for TransactionLogKey {
        fn default() -> Self {
            TransactionLogKey {
                transactional_id: String::from(""),
            }
        }
    }
}
pub use transaction_log_key::TransactionLogKey;

impl crate::Message for TransactionLogKey {
    const NAME: &'static str = "TransactionLogKey";
}

/// `TransactionLogValue` and the structs it uses.
pub mod transaction_log_value {
    use serde::{Deserialize, Serialize};

    /// `TransactionLogValue` (versions 0-1).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct TransactionLogValue {
        /// Producer id in use by the transactional id. (int64, versions 0+)
        #[serde(rename = "producerId")]
        pub producer_id: i64,
        /// Producer id used by the last committed transaction. (int64, versions 1+, tag 0 in 1+)
        #[serde(rename = "previousProducerId")]
        pub previous_producer_id: i64,
        /// Latest producer ID sent to the producer for the given transactional id. (int64, versions 1+, tag 1 in 1+)
        #[serde(rename = "nextProducerId")]
        pub next_producer_id: i64,
        /// Epoch associated with the producer id. (int16, versions 0+)
        #[serde(rename = "producerEpoch")]
        pub producer_epoch: i16,
        /// Producer epoch associated with the NextProducerId (int16, versions 1+, tag 3 in 1+)
        #[serde(rename = "nextProducerEpoch")]
        pub next_producer_epoch: i16,
        /// Transaction timeout in milliseconds. (int32, versions 0+)
        #[serde(rename = "transactionTimeoutMs")]
        pub transaction_timeout_ms: i32,
        /// TransactionState the transaction is in. (int8, versions 0+)
        #[serde(rename = "transactionStatus")]
        pub transaction_status: i8,
        /// Partitions involved in the transaction. ([]PartitionsSchema, versions 0+, nullable 0+)
        #[serde(rename = "transactionPartitions")]
        pub transaction_partitions: Option<Vec<PartitionsSchema>>,
        /// Time the transaction was last updated. (int64, versions 0+)
        #[serde(rename = "transactionLastUpdateTimestampMs")]
        pub transaction_last_update_timestamp_ms: i64,
        /// Time the transaction was started. (int64, versions 0+)
        #[serde(rename = "transactionStartTimestampMs")]
        pub transaction_start_timestamp_ms: i64,
        /// The transaction version used by the client. (int16, versions 1+, tag 2 in 1+)
        #[serde(rename = "clientTransactionVersion")]
        pub client_transaction_version: i16,
    }

    impl Default for TransactionLogValue {
        fn default() -> Self {
            TransactionLogValue {
                producer_id: 0,
                previous_producer_id: -1,
                next_producer_id: -1,
                producer_epoch: 0,
                next_producer_epoch: -1,
                transaction_timeout_ms: 0,
                transaction_status: 0,
                transaction_partitions: Some(Vec::new()),
                transaction_last_update_timestamp_ms: 0,
                transaction_start_timestamp_ms: 0,
                client_transaction_version: 0,
            }
        }
    }

    /// `PartitionsSchema`, a part of `TransactionLogValue`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct PartitionsSchema {
        /// Topic involved in the transaction. (string, versions 0+)
        #[serde(rename = "topic")]
        pub topic: String,
        /// Partition ids involved in the transaction. ([]int32, versions 0+)
        #[serde(rename = "partitionIds")]
        pub partition_ids: Vec<i32>,
    }

    impl Default for PartitionsSchema {
        fn default() -> Self {
            PartitionsSchema {
                topic: String::from(""),
                partition_ids: Vec::new(),
            }
        }
    }
}
pub use transaction_log_value::TransactionLogValue;

impl crate::Message for TransactionLogValue {
    const NAME: &'static str = "TransactionLogValue";
}

/// `RemoteLogSegmentMetadataRecord` and the structs it uses.
pub mod remote_log_segment_metadata_record {
    use serde::{Deserialize, Serialize};

    /// `RemoteLogSegmentMetadataRecord` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct RemoteLogSegmentMetadataRecord {
        /// Unique representation of the remote log segment. (RemoteLogSegmentIdEntry, versions 0+)
        #[serde(rename = "remoteLogSegmentId")]
        pub remote_log_segment_id: RemoteLogSegmentIdEntry,
        /// Start offset  of the segment. (int64, versions 0+)
        #[serde(rename = "startOffset")]
        pub start_offset: i64,
        /// End offset  of the segment. (int64, versions 0+)
        #[serde(rename = "endOffset")]
        pub end_offset: i64,
        /// Broker id from which this event is generated. (int32, versions 0+)
        #[serde(rename = "brokerId")]
        pub broker_id: i32,
        /// Maximum timestamp in milliseconds with in this segment. (int64, versions 0+)
        #[serde(rename = "maxTimestampMs")]
        pub max_timestamp_ms: i64,
        /// Epoch time in milliseconds at which this event is generated. (int64, versions 0+)
        #[serde(rename = "eventTimestampMs")]
        pub event_timestamp_ms: i64,
        /// Leader epoch to start-offset mappings for the records with in this segment. ([]SegmentLeaderEpochEntry, versions 0+)
        #[serde(rename = "segmentLeaderEpochs")]
        pub segment_leader_epochs: Vec<SegmentLeaderEpochEntry>,
        /// Segment size in bytes. (int32, versions 0+)
        #[serde(rename = "segmentSizeInBytes")]
        pub segment_size_in_bytes: i32,
        /// Custom metadata. (bytes (base64), versions 0+, nullable 0+)
        #[serde(rename = "customMetadata")]
        pub custom_metadata: Option<String>,
        /// State identifier of the remote log segment, which is RemoteLogSegmentState.id(). (int8, versions 0+)
        #[serde(rename = "remoteLogSegmentState")]
        pub remote_log_segment_state: i8,
        /// Flag to indicate if the transaction index is empty. (bool, versions 0+, tag 0 in 0+)
        #[serde(rename = "txnIndexEmpty")]
        pub txn_index_empty: bool,
    }

    impl Default for RemoteLogSegmentMetadataRecord {
        fn default() -> Self {
            RemoteLogSegmentMetadataRecord {
                remote_log_segment_id: Default::default(),
                start_offset: 0,
                end_offset: 0,
                broker_id: 0,
                max_timestamp_ms: 0,
                event_timestamp_ms: 0,
                segment_leader_epochs: Vec::new(),
                segment_size_in_bytes: 0,
                custom_metadata: None,
                remote_log_segment_state: 0,
                txn_index_empty: false,
            }
        }
    }

    /// `RemoteLogSegmentIdEntry`, a part of `RemoteLogSegmentMetadataRecord`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct RemoteLogSegmentIdEntry {
        /// Represents unique topic partition. (TopicIdPartitionEntry, versions 0+)
        #[serde(rename = "topicIdPartition")]
        pub topic_id_partition: TopicIdPartitionEntry,
        /// Unique identifier of the remote log segment. (uuid (base64url), versions 0+)
        #[serde(rename = "id")]
        pub id: String,
    }

    impl Default for RemoteLogSegmentIdEntry {
        fn default() -> Self {
            RemoteLogSegmentIdEntry {
                topic_id_partition: Default::default(),
                id: String::from("AAAAAAAAAAAAAAAAAAAAAA"),
            }
        }
    }

    /// `TopicIdPartitionEntry`, a part of `RemoteLogSegmentMetadataRecord`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct TopicIdPartitionEntry {
        /// Topic name. (string, versions 0+)
        #[serde(rename = "name")]
        pub name: String,
        /// Unique identifier of the topic. (uuid (base64url), versions 0+)
        #[serde(rename = "id")]
        pub id: String,
        /// Partition number. (int32, versions 0+)
        #[serde(rename = "partition")]
        pub partition: i32,
    }

    impl Default for TopicIdPartitionEntry {
        fn default() -> Self {
            TopicIdPartitionEntry {
                name: String::from(""),
                id: String::from("AAAAAAAAAAAAAAAAAAAAAA"),
                partition: 0,
            }
        }
    }

    /// `SegmentLeaderEpochEntry`, a part of `RemoteLogSegmentMetadataRecord`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct SegmentLeaderEpochEntry {
        /// Leader epoch (int32, versions 0+)
        #[serde(rename = "leaderEpoch")]
        pub leader_epoch: i32,
        /// Start offset for the leader epoch. (int64, versions 0+)
        #[serde(rename = "offset")]
        pub offset: i64,
    }

    impl Default for SegmentLeaderEpochEntry {
        fn default() -> Self {
            SegmentLeaderEpochEntry {
                leader_epoch: 0,
                offset: 0,
            }
        }
    }
}
pub use remote_log_segment_metadata_record::RemoteLogSegmentMetadataRecord;

impl crate::Message for RemoteLogSegmentMetadataRecord {
    const NAME: &'static str = "RemoteLogSegmentMetadataRecord";
}

/// `RemoteLogSegmentMetadataUpdateRecord` and the structs it uses.
pub mod remote_log_segment_metadata_update_record {
    use serde::{Deserialize, Serialize};

    /// `RemoteLogSegmentMetadataUpdateRecord` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct RemoteLogSegmentMetadataUpdateRecord {
        /// Unique representation of the remote log segment. (RemoteLogSegmentIdEntry, versions 0+)
        #[serde(rename = "remoteLogSegmentId")]
        pub remote_log_segment_id: RemoteLogSegmentIdEntry,
        /// Broker id from which this event is generated. (int32, versions 0+)
        #[serde(rename = "brokerId")]
        pub broker_id: i32,
        /// Epoch time in milliseconds at which this event is generated. (int64, versions 0+)
        #[serde(rename = "eventTimestampMs")]
        pub event_timestamp_ms: i64,
        /// Custom metadata. (bytes (base64), versions 0+, nullable 0+)
        #[serde(rename = "customMetadata")]
        pub custom_metadata: Option<String>,
        /// State identifier of the remote log segment, which is RemoteLogSegmentState.id(). (int8, versions 0+)
        #[serde(rename = "remoteLogSegmentState")]
        pub remote_log_segment_state: i8,
    }

    impl Default for RemoteLogSegmentMetadataUpdateRecord {
        fn default() -> Self {
            RemoteLogSegmentMetadataUpdateRecord {
                remote_log_segment_id: Default::default(),
                broker_id: 0,
                event_timestamp_ms: 0,
                custom_metadata: None,
                remote_log_segment_state: 0,
            }
        }
    }

    /// `RemoteLogSegmentIdEntry`, a part of `RemoteLogSegmentMetadataUpdateRecord`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct RemoteLogSegmentIdEntry {
        /// Represents unique topic partition. (TopicIdPartitionEntry, versions 0+)
        #[serde(rename = "topicIdPartition")]
        pub topic_id_partition: TopicIdPartitionEntry,
        /// Unique identifier of the remote log segment. (uuid (base64url), versions 0+)
        #[serde(rename = "id")]
        pub id: String,
    }

    impl Default for RemoteLogSegmentIdEntry {
        fn default() -> Self {
            RemoteLogSegmentIdEntry {
                topic_id_partition: Default::default(),
                id: String::from("AAAAAAAAAAAAAAAAAAAAAA"),
            }
        }
    }

    /// `TopicIdPartitionEntry`, a part of `RemoteLogSegmentMetadataUpdateRecord`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct TopicIdPartitionEntry {
        /// Topic name. (string, versions 0+)
        #[serde(rename = "name")]
        pub name: String,
        /// Unique identifier of the topic. (uuid (base64url), versions 0+)
        #[serde(rename = "id")]
        pub id: String,
        /// Partition number. (int32, versions 0+)
        #[serde(rename = "partition")]
        pub partition: i32,
    }

    impl Default for TopicIdPartitionEntry {
        fn default() -> Self {
            TopicIdPartitionEntry {
                name: String::from(""),
                id: String::from("AAAAAAAAAAAAAAAAAAAAAA"),
                partition: 0,
            }
        }
    }
}
pub use remote_log_segment_metadata_update_record::RemoteLogSegmentMetadataUpdateRecord;

impl crate::Message for RemoteLogSegmentMetadataUpdateRecord {
    const NAME: &'static str = "RemoteLogSegmentMetadataUpdateRecord";
}

/// `RemotePartitionDeleteMetadataRecord` and the structs it uses.
pub mod remote_partition_delete_metadata_record {
    use serde::{Deserialize, Serialize};

    /// `RemotePartitionDeleteMetadataRecord` (versions 0).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct RemotePartitionDeleteMetadataRecord {
        /// Represents unique topic partition. (TopicIdPartitionEntry, versions 0+)
        #[serde(rename = "topicIdPartition")]
        pub topic_id_partition: TopicIdPartitionEntry,
        /// Broker (controller or leader) id from which this event is created. DELETE_PARTITION_MARKED is sent by the controller. DELETE_PARTITION_STARTED and DELETE_PARTITION_FINISHED are sent by remote log metadata topic partition leader. (int32, versions 0+)
        #[serde(rename = "brokerId")]
        pub broker_id: i32,
        /// Epoch time in milliseconds at which this event is generated. (int64, versions 0+)
        #[serde(rename = "eventTimestampMs")]
        pub event_timestamp_ms: i64,
        /// Deletion state identifier of the remote partition, which is RemotePartitionDeleteState.id(). (int8, versions 0+)
        #[serde(rename = "remotePartitionDeleteState")]
        pub remote_partition_delete_state: i8,
    }

    impl Default for RemotePartitionDeleteMetadataRecord {
        fn default() -> Self {
            RemotePartitionDeleteMetadataRecord {
                topic_id_partition: Default::default(),
                broker_id: 0,
                event_timestamp_ms: 0,
                remote_partition_delete_state: 0,
            }
        }
    }

    /// `TopicIdPartitionEntry`, a part of `RemotePartitionDeleteMetadataRecord`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct TopicIdPartitionEntry {
        /// Topic name. (string, versions 0+)
        #[serde(rename = "name")]
        pub name: String,
        /// Unique identifier of the topic. (uuid (base64url), versions 0+)
        #[serde(rename = "id")]
        pub id: String,
        /// Partition number. (int32, versions 0+)
        #[serde(rename = "partition")]
        pub partition: i32,
    }

    impl Default for TopicIdPartitionEntry {
        fn default() -> Self {
            TopicIdPartitionEntry {
                name: String::from(""),
                id: String::from("AAAAAAAAAAAAAAAAAAAAAA"),
                partition: 0,
            }
        }
    }
}
pub use remote_partition_delete_metadata_record::RemotePartitionDeleteMetadataRecord;

impl crate::Message for RemotePartitionDeleteMetadataRecord {
    const NAME: &'static str = "RemotePartitionDeleteMetadataRecord";
}
