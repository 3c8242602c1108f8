//! Topic configs as a Kafka controller validates them before it writes a
//! `ConfigRecord` (`ControllerConfigurationValidator` ->
//! `LogConfig.validate`): every name must be a topic config
//! (`LogConfig.validateNames`), every value must parse as its type and pass
//! its validator (`ConfigDef.parse`, in definition order: the first failure
//! is the answer), then the checks across values (`validateValues`,
//! `validateTopicLogConfigValues`). Messages are Kafka's, word for word
//! (`ConfigException`: "Invalid value V for configuration N: why").
//!
//! One place for this rule: `logtool broker`'s CreateTopics and `logtool
//! fixture`'s specs both ask [`validate`].
//!
//! The definitions are Kafka 3.9's `LogConfig.CONFIG` (storage module);
//! Kafka 4.x differs in what [`Version`] says. A broker whose tiered storage
//! is off (as every log dir logtool writes) refuses `remote.storage.enable`.

use std::collections::BTreeMap;

/// The Kafka release whose rules apply: a row of
/// [`super::release::RELEASES`] (in the same order), which says what
/// differs by release.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash, PartialOrd, Ord)]
pub enum Version {
    /// Kafka 3.9 (3.9.1 checked; what logtool writes by default).
    #[default]
    Kafka3_9,
    /// Kafka 4.0 (4.0.2): the 4.x configs removed (KIP-724, KIP-937), a
    /// `segment.bytes` of 14 still taken.
    Kafka4_0,
    /// Kafka 4.1 (4.1.2): `segment.bytes` at least 1 MiB (KIP-1030).
    Kafka4_1,
    /// Kafka 4.2 (4.2.2).
    Kafka4_2,
    /// Kafka 4.3 (4.3.1; what `--kafka-version 4.3` writes).
    Kafka4_3,
    /// Kafka 4.4 (4.4.0).
    Kafka4_4,
}

impl Version {
    /// Every version, in the order of [`super::release::RELEASES`].
    pub const ALL: [Version; 6] = [
        Version::Kafka3_9,
        Version::Kafka4_0,
        Version::Kafka4_1,
        Version::Kafka4_2,
        Version::Kafka4_3,
        Version::Kafka4_4,
    ];

    /// Its row of the release table.
    pub fn release(self) -> &'static super::release::Release {
        super::release::RELEASES.get(self as usize).unwrap_or_else(|| super::release::newest())
    }

    /// The newest release logtool knows (the last of [`Version::ALL`]).
    pub fn newest() -> Version {
        Version::Kafka4_4
    }

    /// The least `segment.bytes` the version takes.
    pub fn min_segment_bytes(self) -> i64 {
        self.release().min_segment_bytes
    }

    /// The release, as people write it ("3.9", "4.4").
    pub fn name(self) -> &'static str {
        self.release().name
    }

    /// Whether it is a Kafka 4.x (ZooKeeper gone, the 4.x protocol floor).
    pub fn is_4x(self) -> bool {
        self >= Version::Kafka4_0
    }

    /// "4.4" or "4.4.0" (any patch release of a minor one logtool knows);
    /// `None` for any other.
    pub fn parse(s: &str) -> Option<Version> {
        let minor = match s.matches('.').count() {
            1 => s,
            2 => s.rsplit_once('.').filter(|(_, patch)| patch.parse::<u32>().is_ok())?.0,
            _ => return None,
        };
        Version::ALL.into_iter().find(|v| v.name() == minor)
    }

    /// The names of every release logtool knows ("3.9, 4.0, ...").
    pub fn known() -> String {
        Version::ALL.iter().map(|v| v.name()).collect::<Vec<_>>().join(", ")
    }

    /// The release a cluster whose `metadata.version` is `level` implies:
    /// the oldest that runs it in production; the newest for a level above
    /// them all ([`super::release::implied_index`]).
    pub fn of_metadata_version(level: i16) -> Version {
        Version::ALL.get(super::release::implied_index(level)).copied().unwrap_or_else(Version::newest)
    }

    /// Whether `name` is a topic config of this version.
    pub fn has_config(self, name: &str) -> bool {
        self.release().has_topic_config(name)
    }
}

/// A value Kafka refuses: its config (when one is at fault) and Kafka's
/// message. CreateTopics answers it as `INVALID_CONFIG`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ConfigError {
    /// The config at fault, if one is.
    pub name: Option<String>,
    /// Kafka's message.
    pub message: String,
}

#[derive(Clone, Copy, Debug)]
enum Type {
    Int,
    Long,
    Double,
    Boolean,
    String,
    List,
}

impl Type {
    fn java(self) -> &'static str {
        match self {
            Type::Int => "INT",
            Type::Long => "LONG",
            Type::Double => "DOUBLE",
            Type::Boolean => "BOOLEAN",
            Type::String => "STRING",
            Type::List => "LIST",
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Valid {
    Any,
    AtLeast(i64),
    Between(i64, i64),
    /// `segment.bytes`: at least the version's minimum.
    SegmentBytes,
    /// `CompressionType.GZIP.levelValidator`.
    GzipLevel,
    OneOf(&'static [&'static str]),
    ListOf(&'static [&'static str]),
    /// `MetadataVersionValidator`.
    MetadataVersion,
    /// `ThrottledReplicaListValidator`.
    ThrottledReplicas,
}

/// One topic config: its name, type, default (as Kafka's broker defaults
/// give it) and validator.
#[derive(Clone, Copy, Debug)]
pub struct ConfigDef {
    /// The topic config's name.
    pub name: &'static str,
    ty: Type,
    /// Its default, as text.
    pub default: &'static str,
    valid: Valid,
}

const fn def(name: &'static str, ty: Type, default: &'static str, valid: Valid) -> ConfigDef {
    ConfigDef { name, ty, default, valid }
}

/// Kafka's broker defaults logtool needs as numbers (each checked against
/// Kafka 3.9.1's own definition in `broker-configs-3.9.jsonl` by a test of
/// `coordinator::config`):
/// `offsets.topic.num.partitions`.
pub const OFFSETS_TOPIC_PARTITIONS: i32 = 50;
/// `transaction.state.log.num.partitions`.
pub const TRANSACTION_STATE_PARTITIONS: i32 = 50;
/// `num.partitions`.
pub const NUM_PARTITIONS: i32 = 1;
/// `group.initial.rebalance.delay.ms`.
pub const GROUP_INITIAL_REBALANCE_DELAY_MS: u64 = 3000;
/// `message.max.bytes` (a topic's `max.message.bytes` default).
pub const MESSAGE_MAX_BYTES: usize = 1_048_588;

const LONG_MAX: &str = "9223372036854775807";
const COMPRESSION_TYPES: &[&str] = &["uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"];

/// Kafka 3.9's topic configs, in `LogConfig.CONFIG`'s definition order.
pub const TOPIC_CONFIGS: &[ConfigDef] = &[
    def("segment.bytes", Type::Int, "1073741824", Valid::SegmentBytes),
    def("segment.ms", Type::Long, "604800000", Valid::AtLeast(1)),
    def("segment.jitter.ms", Type::Long, "0", Valid::AtLeast(0)),
    def("segment.index.bytes", Type::Int, "10485760", Valid::AtLeast(4)),
    def("flush.messages", Type::Long, LONG_MAX, Valid::AtLeast(1)),
    def("flush.ms", Type::Long, LONG_MAX, Valid::AtLeast(0)),
    def("retention.bytes", Type::Long, "-1", Valid::Any),
    def("retention.ms", Type::Long, "604800000", Valid::AtLeast(-1)),
    def("max.message.bytes", Type::Int, "1048588", Valid::AtLeast(0)),
    def("index.interval.bytes", Type::Int, "4096", Valid::AtLeast(0)),
    def("delete.retention.ms", Type::Long, "86400000", Valid::AtLeast(0)),
    def("min.compaction.lag.ms", Type::Long, "0", Valid::AtLeast(0)),
    def("max.compaction.lag.ms", Type::Long, LONG_MAX, Valid::AtLeast(1)),
    def("file.delete.delay.ms", Type::Long, "60000", Valid::AtLeast(0)),
    def("min.cleanable.dirty.ratio", Type::Double, "0.5", Valid::Between(0, 1)),
    def("cleanup.policy", Type::List, "delete", Valid::ListOf(&["compact", "delete"])),
    def("unclean.leader.election.enable", Type::Boolean, "false", Valid::Any),
    def("min.insync.replicas", Type::Int, "1", Valid::AtLeast(1)),
    def("compression.type", Type::String, "producer", Valid::OneOf(COMPRESSION_TYPES)),
    def("compression.gzip.level", Type::Int, "-1", Valid::GzipLevel),
    def("compression.lz4.level", Type::Int, "9", Valid::Between(1, 17)),
    def("compression.zstd.level", Type::Int, "3", Valid::Between(-131072, 22)),
    def("preallocate", Type::Boolean, "false", Valid::Any),
    def("message.format.version", Type::String, "3.0-IV1", Valid::MetadataVersion),
    def("message.timestamp.type", Type::String, "CreateTime", Valid::OneOf(&["CreateTime", "LogAppendTime"])),
    def("message.timestamp.difference.max.ms", Type::Long, LONG_MAX, Valid::AtLeast(0)),
    def("message.timestamp.before.max.ms", Type::Long, LONG_MAX, Valid::AtLeast(0)),
    def("message.timestamp.after.max.ms", Type::Long, LONG_MAX, Valid::AtLeast(0)),
    def("leader.replication.throttled.replicas", Type::List, "", Valid::ThrottledReplicas),
    def("follower.replication.throttled.replicas", Type::List, "", Valid::ThrottledReplicas),
    def("message.downconversion.enable", Type::Boolean, "true", Valid::Any),
    def("remote.storage.enable", Type::Boolean, "false", Valid::Any),
    def("local.retention.ms", Type::Long, "-2", Valid::AtLeast(-2)),
    def("local.retention.bytes", Type::Long, "-2", Valid::AtLeast(-2)),
    def("remote.log.copy.disable", Type::Boolean, "false", Valid::Any),
    def("remote.log.delete.on.disable", Type::Boolean, "false", Valid::Any),
];

/// The definition of topic config `name`.
pub fn topic_config(name: &str) -> Option<&'static ConfigDef> {
    TOPIC_CONFIGS.iter().find(|d| d.name == name)
}

/// A parsed value.
#[derive(Clone, Debug, PartialEq)]
enum Value {
    Long(i64),
    Double(f64),
    Boolean(bool),
    Text(String),
    List(Vec<String>),
}

fn invalid(name: &str, value: &str, why: impl std::fmt::Display) -> ConfigError {
    ConfigError {
        name: Some(name.to_string()),
        message: format!("Invalid value {value} for configuration {name}: {why}"),
    }
}

/// `Double.toString`: "2.0", "0.5", "1.0E-4".
fn java_double(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity".into() } else { "-Infinity".into() };
    }
    let a = x.abs();
    if a == 0.0 || (1e-3..1e7).contains(&a) {
        let s = format!("{x}");
        if s.contains('.') { s } else { format!("{s}.0") }
    } else {
        let s = format!("{x:e}");
        let (mantissa, exp) = s.split_once('e').unwrap_or((s.as_str(), "0"));
        let mantissa = if mantissa.contains('.') { mantissa.to_string() } else { format!("{mantissa}.0") };
        format!("{mantissa}E{exp}")
    }
}

/// `ConfigDef.parseType` of `raw` (trimmed first, as Kafka trims).
fn parse(d: &ConfigDef, raw: &str) -> Result<Value, ConfigError> {
    let t = raw.trim();
    let nan = || invalid(d.name, raw, format_args!("Not a number of type {}", d.ty.java()));
    Ok(match d.ty {
        Type::Int => Value::Long(i64::from(t.parse::<i32>().map_err(|_| nan())?)),
        Type::Long => Value::Long(t.parse::<i64>().map_err(|_| nan())?),
        Type::Double => {
            let x = t.strip_suffix(['d', 'D', 'f', 'F']).unwrap_or(t);
            Value::Double(x.parse::<f64>().map_err(|_| nan())?)
        }
        Type::Boolean => match t.to_ascii_lowercase().as_str() {
            "true" => Value::Boolean(true),
            "false" => Value::Boolean(false),
            _ => return Err(invalid(d.name, raw, "Expected value to be either true or false")),
        },
        Type::String => Value::Text(t.to_string()),
        // COMMA_WITH_WHITESPACE.split(trimmed, -1): trailing empties kept
        Type::List if t.is_empty() => Value::List(Vec::new()),
        Type::List => Value::List(t.split(',').map(|s| s.trim().to_string()).collect()),
    })
}

/// `MetadataVersion.fromVersionString`, loosely: "M.m", "M.m.p" or with
/// "-IVn".
fn metadata_version_like(s: &str) -> bool {
    let base = s.split_once("-IV").map_or(s, |(b, iv)| if iv.bytes().all(|c| c.is_ascii_digit()) { b } else { "" });
    let parts: Vec<&str> = base.split('.').collect();
    (2..=3).contains(&parts.len()) && parts.iter().all(|p| !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit()))
}

/// The validator of `d` over its parsed `v`.
fn check(d: &ConfigDef, v: &Value, version: Version) -> Result<(), ConfigError> {
    let shown = |v: &Value| match v {
        Value::Long(x) => x.to_string(),
        Value::Double(x) => java_double(*x),
        Value::Boolean(b) => b.to_string(),
        Value::Text(s) => s.clone(),
        Value::List(l) => format!("[{}]", l.join(", ")),
    };
    let number = match v {
        Value::Long(x) => Some(*x as f64),
        Value::Double(x) => Some(*x),
        _ => None,
    };
    let range = |min: Option<i64>, max: Option<i64>| -> Result<(), ConfigError> {
        let Some(n) = number else { return Ok(()) };
        if let Some(m) = min.filter(|&m| n < m as f64) {
            return Err(invalid(d.name, &shown(v), format_args!("Value must be at least {m}")));
        }
        if let Some(m) = max.filter(|&m| n > m as f64) {
            return Err(invalid(d.name, &shown(v), format_args!("Value must be no more than {m}")));
        }
        Ok(())
    };
    match d.valid {
        Valid::Any => Ok(()),
        Valid::AtLeast(min) => range(Some(min), None),
        Valid::Between(min, max) => range(Some(min), Some(max)),
        Valid::SegmentBytes => range(Some(version.min_segment_bytes()), None),
        Valid::GzipLevel => match v {
            Value::Long(l) if *l > 9 || (*l < 1 && *l != -1) => {
                Err(invalid(d.name, &shown(v), "Value must be between 1 and 9 or equal to -1"))
            }
            _ => Ok(()),
        },
        Valid::OneOf(allowed) => match v {
            Value::Text(s) if !allowed.contains(&s.as_str()) => {
                Err(invalid(d.name, s, format_args!("String must be one of: {}", allowed.join(", "))))
            }
            _ => Ok(()),
        },
        Valid::ListOf(allowed) => match v {
            Value::List(items) => match items.iter().find(|s| !allowed.contains(&s.as_str())) {
                Some(s) => Err(invalid(d.name, s, format_args!("String must be one of: {}", allowed.join(", ")))),
                None => Ok(()),
            },
            _ => Ok(()),
        },
        Valid::MetadataVersion => match v {
            Value::Text(s) if !metadata_version_like(s) => {
                Err(invalid(d.name, s, format_args!("Unknown metadata.version '{s}'.")))
            }
            _ => Ok(()),
        },
        Valid::ThrottledReplicas => match v {
            Value::List(items) => {
                let replica = |s: &str| {
                    s.is_empty()
                        || s.split_once(':').is_some_and(|(p, b)| {
                            !p.is_empty()
                                && !b.is_empty()
                                && p.bytes().all(|c| c.is_ascii_digit())
                                && b.bytes().all(|c| c.is_ascii_digit())
                        })
                };
                if items.iter().all(|s| replica(s.trim())) || items.concat() == "*" {
                    Ok(())
                } else {
                    Err(invalid(
                        d.name,
                        &shown(v),
                        format_args!(
                            "{} must be the literal '*' or a list of replicas in the following format: [partitionId]:[brokerId],[partitionId]:[brokerId],...",
                            d.name
                        ),
                    ))
                }
            }
            _ => Ok(()),
        },
    }
}

/// Check a new topic's configs as Kafka `version`'s controller does before
/// it creates the topic: unknown names, then each value in definition
/// order, then the checks across values. `Ok` means Kafka takes them.
pub fn validate(configs: &BTreeMap<String, String>, version: Version) -> Result<(), ConfigError> {
    if let Some(name) = configs.keys().find(|n| !version.has_config(n)) {
        return Err(ConfigError { name: Some(name.clone()), message: format!("Unknown topic config name: {name}") });
    }
    let mut values: BTreeMap<&str, Value> = BTreeMap::new();
    for d in TOPIC_CONFIGS {
        let raw = configs.get(d.name).map_or(d.default, String::as_str);
        let v = parse(d, raw)?;
        check(d, &v, version)?;
        values.insert(d.name, v);
    }
    let long = |name: &str| match values.get(name) {
        Some(Value::Long(x)) => *x,
        _ => 0,
    };
    let flag = |name: &str| matches!(values.get(name), Some(Value::Boolean(true)));
    // LogConfig.validateValues
    let (min_lag, max_lag) = (long("min.compaction.lag.ms"), long("max.compaction.lag.ms"));
    if min_lag > max_lag {
        return Err(ConfigError {
            name: Some("min.compaction.lag.ms".into()),
            message: format!(
                "conflict topic config setting min.compaction.lag.ms ({min_lag}) > max.compaction.lag.ms ({max_lag})"
            ),
        });
    }
    // validateTopicLogConfigValues: tiered storage is off on this broker
    if flag("remote.storage.enable") {
        return Err(ConfigError {
            name: Some("remote.storage.enable".into()),
            message: "Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage.".into(),
        });
    }
    Ok(())
}

/// Whether Kafka `version` can load a topic with these configs when it
/// starts (`LogConfig` built from them, `ConfigDef.parse`): each value it
/// knows is parsed and validated, in definition order; names it does not
/// know are ignored, and the checks across values are not made (checked
/// with Kafka 3.9.1's and 4.3.1's `new LogConfig(map)`). The first value
/// refused, with Kafka's `ConfigException` message.
pub fn check_at_start(configs: &BTreeMap<String, String>, version: Version) -> Result<(), ConfigError> {
    for d in TOPIC_CONFIGS.iter().filter(|d| version.has_config(d.name)) {
        if let Some(raw) = configs.get(d.name) {
            check(d, &parse(d, raw)?, version)?;
        }
    }
    Ok(())
}

/// Whether topic config `name` is a list (APPEND and SUBTRACT take it), and
/// its default: what `coordinator::config::incremental_alter` needs of a topic's schema.
pub fn topic_list_default(name: &str) -> Option<&'static str> {
    topic_config(name).filter(|d| matches!(d.ty, Type::List)).map(|d| d.default)
}

/// Kafka's topic name rule (`Topic.validate`), with its message.
pub fn validate_topic_name(name: &str) -> Result<(), String> {
    const MAX: usize = 249;
    let why = if name.is_empty() {
        "the empty string is not allowed".to_string()
    } else if name == "." {
        "'.' is not allowed".to_string()
    } else if name == ".." {
        "'..' is not allowed".to_string()
    } else if name.chars().count() > MAX {
        format!("the length of '{name}' is longer than the max allowed length {MAX}")
    } else if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-') {
        format!("'{name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'")
    } else {
        return Ok(());
    };
    Err(format!("Topic name is invalid: {why}"))
}

/// The name two topics collide on (`Topic.unifyCollisionChars`: '.' and
/// '_' are one character in metric names), and whether `name` has either.
pub fn collision_key(name: &str) -> Option<String> {
    (name.contains('.') || name.contains('_')).then(|| name.replace('.', "_"))
}

/// The existing topic `name` collides with, if any
/// (`ReplicationControlManager.validateNewTopicNames`).
pub fn colliding_topic<'a>(name: &str, existing: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let key = collision_key(name)?;
    existing.into_iter().find(|e| *e != name && collision_key(e).as_deref() == Some(key.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(k: &str, v: &str) -> Result<(), ConfigError> {
        validate(&BTreeMap::from([(k.to_string(), v.to_string())]), Version::Kafka3_9)
    }

    fn msg(k: &str, v: &str) -> String {
        one(k, v).unwrap_err().message
    }

    /// Each variant names its own row of the release table.
    #[test]
    fn versions_are_the_rows_of_the_release_table() {
        assert_eq!(Version::ALL.len(), super::super::release::RELEASES.len());
        assert_eq!(Version::ALL.map(Version::name), ["3.9", "4.0", "4.1", "4.2", "4.3", "4.4"]);
        assert_eq!(Version::newest(), Version::ALL[Version::ALL.len() - 1]);
        assert_eq!(Version::parse("4.4.0"), Some(Version::Kafka4_4));
        assert_eq!(Version::parse("4.1"), Some(Version::Kafka4_1));
        assert_eq!(Version::parse("4.5"), None);
        assert_eq!(Version::parse("4.4.x"), None);
    }

    #[test]
    fn kafka_messages_word_for_word() {
        assert_eq!(
            msg("retention.ms", "abc"),
            "Invalid value abc for configuration retention.ms: Not a number of type LONG"
        );
        assert_eq!(
            msg("cleanup.policy", "bogus"),
            "Invalid value bogus for configuration cleanup.policy: String must be one of: compact, delete"
        );
        assert_eq!(
            msg("max.message.bytes", "-5"),
            "Invalid value -5 for configuration max.message.bytes: Value must be at least 0"
        );
        assert_eq!(msg("segment.byte", "65536"), "Unknown topic config name: segment.byte");
        assert_eq!(
            msg("min.cleanable.dirty.ratio", "2"),
            "Invalid value 2.0 for configuration min.cleanable.dirty.ratio: Value must be no more than 1"
        );
        assert_eq!(
            msg("preallocate", "yes"),
            "Invalid value yes for configuration preallocate: Expected value to be either true or false"
        );
        assert_eq!(
            msg("segment.bytes", "3000000000"),
            "Invalid value 3000000000 for configuration segment.bytes: Not a number of type INT"
        );
        assert_eq!(
            msg("compression.type", "brotli"),
            "Invalid value brotli for configuration compression.type: String must be one of: uncompressed, zstd, lz4, snappy, gzip, producer"
        );
        assert_eq!(
            msg("compression.gzip.level", "0"),
            "Invalid value 0 for configuration compression.gzip.level: Value must be between 1 and 9 or equal to -1"
        );
    }

    #[test]
    fn what_kafka_takes() {
        for (k, v) in [
            ("retention.ms", "-1"),
            ("retention.bytes", "-5"),
            ("cleanup.policy", "compact,delete"),
            ("cleanup.policy", " compact , delete "),
            ("cleanup.policy", ""),
            ("segment.bytes", "14"),
            ("segment.bytes", " 1048576 "),
            ("min.cleanable.dirty.ratio", "0.01"),
            ("compression.type", "zstd"),
            ("message.timestamp.type", "LogAppendTime"),
            ("preallocate", "TRUE"),
            ("leader.replication.throttled.replicas", "*"),
            ("leader.replication.throttled.replicas", "0:1,1:1"),
            ("message.format.version", "2.8-IV1"),
        ] {
            assert_eq!(one(k, v), Ok(()), "{k}={v}");
        }
        assert!(one("segment.bytes", "13").is_err());
        assert!(one("leader.replication.throttled.replicas", "x").is_err());
        let both = BTreeMap::from([
            ("min.compaction.lag.ms".to_string(), "10".to_string()),
            ("max.compaction.lag.ms".to_string(), "5".to_string()),
        ]);
        assert_eq!(
            validate(&both, Version::Kafka3_9).unwrap_err().message,
            "conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5)"
        );
        assert!(one("remote.storage.enable", "true").is_err());
    }

    #[test]
    fn kafka4_refuses_small_segments() {
        let small = BTreeMap::from([("segment.bytes".to_string(), "16384".to_string())]);
        assert_eq!(validate(&small, Version::Kafka3_9), Ok(()));
        assert_eq!(
            validate(&small, Version::Kafka4_3).unwrap_err().message,
            "Invalid value 16384 for configuration segment.bytes: Value must be at least 1048576"
        );
    }

    #[test]
    fn java_doubles() {
        assert_eq!(java_double(2.0), "2.0");
        assert_eq!(java_double(1.5), "1.5");
        assert_eq!(java_double(0.0001), "1.0E-4");
        assert_eq!(java_double(1e10), "1.0E10");
    }

    #[test]
    fn collisions() {
        assert_eq!(colliding_topic("x_y", ["x.y", "a"]), Some("x.y"));
        assert_eq!(colliding_topic("x.y", ["x_y"]), Some("x_y"));
        assert_eq!(colliding_topic("xy", ["x_y"]), None);
        assert_eq!(colliding_topic("x.y", ["x.y"]), None);
    }
}
