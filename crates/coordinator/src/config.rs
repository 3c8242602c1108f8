//! Configs as the broker describes and changes them: what DescribeConfigs
//! answers for a topic and for the broker (`ConfigHelper`: value, source,
//! synonyms, type, read-only, sensitive, documentation), from Kafka 3.9.1's
//! own definitions (`topic-configs-3.9.jsonl`, `broker-configs-3.9.jsonl`,
//! written by `crates/coordinator/update-configs.sh`), and the changes
//! IncrementalAlterConfigs' operations make
//! (`ConfigurationControlManager.incrementalAlterConfigResource`). Which
//! configs a controller takes is `logrules::config`'s (`validate`).

use std::collections::BTreeMap;

pub use logrules::config::topic_list_default;

/// An IncrementalAlterConfigs operation (`AlterConfigOp.OpType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AlterOp {
    /// SET (0): the value given.
    Set,
    /// DELETE (1): back to the default.
    Delete,
    /// APPEND (2): the given items added to a list.
    Append,
    /// SUBTRACT (3): the given items taken from a list.
    Subtract,
}

impl AlterOp {
    /// The operation of wire id `id`.
    pub fn from_id(id: i8) -> Option<AlterOp> {
        match id {
            0 => Some(AlterOp::Set),
            1 => Some(AlterOp::Delete),
            2 => Some(AlterOp::Append),
            3 => Some(AlterOp::Subtract),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            AlterOp::Set => "SET",
            AlterOp::Delete => "DELETE",
            AlterOp::Append => "APPEND",
            AlterOp::Subtract => "SUBTRACT",
        }
    }
}

/// The config changes IncrementalAlterConfigs' `ops` make to a resource
/// whose configs are `current`, as Kafka's controller computes them
/// (`ConfigurationControlManager.incrementalAlterConfigResource`): for each
/// op in turn the new value - SET's, none for DELETE, or the list with
/// APPEND's items added (each once) or SUBTRACT's removed (an unset list
/// starts from its default) - and a change only where the value differs.
/// `list_default(name)` is `Some(default)` for a list config (APPEND and
/// SUBTRACT take only those: Kafka's message otherwise, INVALID_CONFIG).
pub fn incremental_alter(
    current: &BTreeMap<String, String>,
    ops: &[(String, AlterOp, Option<String>)],
    list_default: impl Fn(&str) -> Option<&'static str>,
) -> Result<Vec<(String, Option<String>)>, String> {
    let mut changes = Vec::new();
    for (key, op, value) in ops {
        let current_value = current.get(key).cloned();
        let new_value = match op {
            AlterOp::Set => value.clone(),
            AlterOp::Delete => None,
            AlterOp::Append | AlterOp::Subtract => {
                let Some(default) = list_default(key) else {
                    return Err(format!("Can't {} to key {key} because its type is not LIST.", op.name()));
                };
                let base = current_value.clone().unwrap_or_else(|| default.to_string());
                let mut parts: Vec<String> = base.split(',').filter(|p| !p.is_empty()).map(str::to_string).collect();
                let given = value.clone().unwrap_or_default();
                // String.split(","): trailing empty items dropped (all of
                // them but for an empty string, which is one item)
                let mut items: Vec<&str> = given.split(',').collect();
                while items.len() > 1 && items.last() == Some(&"") {
                    items.pop();
                }
                if items.iter().all(|i| i.is_empty()) && !given.is_empty() {
                    items.clear();
                }
                for item in items {
                    if *op == AlterOp::Append {
                        if !parts.iter().any(|p| p == item) {
                            parts.push(item.to_string());
                        }
                    } else if let Some(i) = parts.iter().position(|p| p == item) {
                        parts.remove(i);
                    }
                }
                Some(parts.join(","))
            }
        };
        if current_value != new_value {
            changes.push((key.clone(), new_value));
        }
    }
    Ok(changes)
}

/// `configs` with `changes` applied (a `None` value removes the config).
pub fn with_changes(
    configs: &BTreeMap<String, String>,
    changes: &[(String, Option<String>)],
) -> BTreeMap<String, String> {
    let mut out = configs.clone();
    for (k, v) in changes {
        match v {
            Some(v) => {
                out.insert(k.clone(), v.clone());
            }
            None => {
                out.remove(k);
            }
        }
    }
    out
}

/// Where a described config's value comes from
/// (`DescribeConfigsResponse.ConfigSource`, its ids on the wire).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfigSource {
    /// `TOPIC_CONFIG` (1): set on the topic (Admin clients say
    /// DYNAMIC_TOPIC_CONFIG).
    TopicConfig,
    /// `STATIC_BROKER_CONFIG` (4): the broker's own configuration.
    StaticBroker,
    /// `DEFAULT_CONFIG` (5): Kafka's default.
    Default,
    /// `GROUP_CONFIG` (8): set on the group (Admin clients say
    /// DYNAMIC_GROUP_CONFIG; `coordinator::group_config`).
    Group,
}

impl ConfigSource {
    /// Its id in DescribeConfigs and CreateTopics responses.
    pub fn id(self) -> i8 {
        match self {
            ConfigSource::TopicConfig => 1,
            ConfigSource::StaticBroker => 4,
            ConfigSource::Default => 5,
            ConfigSource::Group => 8,
        }
    }
}

/// One synonym of a described config: a name whose value would apply,
/// in the order Kafka looks (the topic's own first, then the broker's).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Synonym {
    /// `retention.ms`, `log.retention.hours`, ...
    pub name: String,
    /// Its value (`None`: sensitive).
    pub value: Option<String>,
    /// Where it is set.
    pub source: ConfigSource,
}

/// One topic or broker config as Kafka 3.9's DescribeConfigs describes it
/// (`ConfigHelper.createTopicConfigEntry`, `createBrokerConfigEntry`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DescribedConfig {
    /// The topic config's name.
    pub name: String,
    /// Its value as Kafka prints it (`ConfigDef.convertToString` of the
    /// parsed value: `compact,delete`, `0.5`, `true`); `None`: a broker
    /// config with no value, or sensitive.
    pub value: Option<String>,
    /// The topic's own value as it was set (CreateTopics answers it so),
    /// if set.
    pub given: Option<String>,
    /// Where the value comes from: its first synonym's source.
    pub source: ConfigSource,
    /// Every synonym (the topic's own value when set, then the broker
    /// configs it falls back to that have a value).
    pub synonyms: Vec<Synonym>,
    /// `DescribeConfigsResponse.ConfigType` id (BOOLEAN 1, STRING 2, INT 3,
    /// SHORT 4, LONG 5, DOUBLE 6, LIST 7, CLASS 8, PASSWORD 9).
    pub config_type: i8,
    /// Kafka's documentation of it.
    pub documentation: String,
    /// Read-only (never, for a topic config; a broker config not
    /// changeable without a restart).
    pub read_only: bool,
    /// Sensitive: a password (no topic config is).
    pub sensitive: bool,
}

/// A topic config's definition as Kafka 3.9.1 has it, from
/// `topic-configs-3.9.jsonl` (written by `crates/logrules/update-configs.sh`
/// from the release's own classes).
#[derive(serde::Deserialize)]
struct TopicConfigInfo {
    name: String,
    #[serde(rename = "type")]
    ty: String,
    default: Option<String>,
    synonyms: Vec<SynonymInfo>,
    documentation: String,
}

#[derive(serde::Deserialize)]
struct SynonymInfo {
    name: String,
    default: Option<String>,
}

fn topic_config_infos() -> &'static [TopicConfigInfo] {
    static INFOS: std::sync::OnceLock<Vec<TopicConfigInfo>> = std::sync::OnceLock::new();
    INFOS.get_or_init(|| {
        include_str!("topic-configs-3.9.jsonl").lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
    })
}

/// `value` of a config of type `ty` as Kafka prints it after parsing it
/// (`ConfigDef.convertToString(ConfigDef.parseType(...))`); left as given
/// where it does not parse (a value validation refused first).
fn as_kafka_prints(ty: &str, value: &str) -> String {
    let t = value.trim();
    match ty {
        "LONG" | "INT" | "SHORT" => t.parse::<i64>().map_or_else(|_| value.to_string(), |n| n.to_string()),
        "BOOLEAN" => t.to_ascii_lowercase(),
        "DOUBLE" => match t.parse::<f64>() {
            // Java's Double.toString: an integral value keeps ".0"
            Ok(d) if d.is_finite() && d.fract() == 0.0 && d.abs() < 1e7 => format!("{d:.1}"),
            Ok(d) => d.to_string(),
            Err(_) => value.to_string(),
        },
        "LIST" => t.split(',').map(str::trim).filter(|s| !s.is_empty()).collect::<Vec<_>>().join(","),
        _ => t.to_string(),
    }
}

fn config_type_id(ty: &str) -> i8 {
    match ty {
        "BOOLEAN" => 1,
        "STRING" => 2,
        "INT" => 3,
        "SHORT" => 4,
        "LONG" => 5,
        "DOUBLE" => 6,
        "LIST" => 7,
        "CLASS" => 8,
        "PASSWORD" => 9,
        _ => 0,
    }
}

/// Every topic config of a topic with `overrides` set on it, as a Kafka 3.9
/// broker with no topic-related settings of its own describes them
/// (`ConfigHelper.createTopicConfigEntry`, sorted by name): the override
/// where set (source TOPIC_CONFIG), else Kafka's default (DEFAULT_CONFIG);
/// synonyms the override, then the broker synonyms that have a default
/// when the primary one has (checked against a live Kafka 3.9.1 by
/// tests/interop/pure.sh).
/// `logtool broker` answers DescribeConfigs and CreateTopics (v5+) from it.
pub fn describe_topic(overrides: &BTreeMap<String, String>) -> Vec<DescribedConfig> {
    topic_config_infos()
        .iter()
        .map(|info| {
            let set = overrides.get(&info.name).map(|v| as_kafka_prints(&info.ty, v));
            let mut synonyms: Vec<Synonym> = Vec::new();
            if let Some(v) = &set {
                synonyms.push(Synonym {
                    name: info.name.clone(),
                    value: Some(v.clone()),
                    source: ConfigSource::TopicConfig,
                });
            }
            // the broker's synonyms that have a value, from the primary one
            // on (`ConfigHelper.configSynonyms`' dropWhile: when the primary
            // (`log.retention.ms`) has none, none is listed)
            if info.synonyms.first().is_some_and(|p| p.default.is_some()) {
                for s in &info.synonyms {
                    if let Some(d) = &s.default {
                        synonyms.push(Synonym {
                            name: s.name.clone(),
                            value: Some(d.clone()),
                            source: ConfigSource::Default,
                        });
                    }
                }
            }
            DescribedConfig {
                given: overrides.get(&info.name).cloned(),
                name: info.name.clone(),
                value: Some(set.or_else(|| info.default.clone()).unwrap_or_default()),
                source: synonyms.first().map_or(ConfigSource::Default, |s| s.source),
                synonyms,
                config_type: config_type_id(&info.ty),
                documentation: info.documentation.clone(),
                read_only: false,
                sensitive: false,
            }
        })
        .collect()
}

/// A broker config's definition as Kafka 3.9.1 has it, from
/// `broker-configs-3.9.jsonl` (written by `crates/logrules/update-configs.sh`).
#[derive(serde::Deserialize)]
struct BrokerConfigInfo {
    name: String,
    #[serde(rename = "type")]
    ty: String,
    default: Option<String>,
    read_only: bool,
    synonyms: Vec<String>,
    documentation: String,
}

fn broker_config_infos() -> &'static [BrokerConfigInfo] {
    static INFOS: std::sync::OnceLock<Vec<BrokerConfigInfo>> = std::sync::OnceLock::new();
    INFOS.get_or_init(|| {
        include_str!("broker-configs-3.9.jsonl").lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
    })
}

/// Every config of a Kafka 3.9 broker whose server.properties holds
/// `statics`, as its DescribeConfigs describes the broker
/// (`ConfigHelper.createBrokerConfigEntry`, sorted by name): the value set
/// (source STATIC_BROKER_CONFIG) or Kafka's default (DEFAULT_CONFIG, no
/// value where it has none); sensitive (a password: no value) and read-only
/// (not dynamically changeable) as Kafka says; synonyms the names the
/// config falls back to (`DynamicBrokerConfig.brokerConfigSynonyms`),
/// those set first, then those with a default, from the config's own name
/// on. `logtool broker` describes itself from it (tests/interop/pure.sh
/// compares it with a live Kafka 3.9.1).
pub fn describe_broker(statics: &BTreeMap<String, String>) -> Vec<DescribedConfig> {
    broker_config_infos()
        .iter()
        .map(|info| {
            let sensitive = info.ty == "PASSWORD";
            let shown = |v: &str| (!sensitive).then(|| as_kafka_prints(&info.ty, v));
            let mut synonyms: Vec<Synonym> = Vec::new();
            for n in &info.synonyms {
                if let Some(v) = statics.get(n) {
                    let value = (!sensitive).then(|| v.clone());
                    synonyms.push(Synonym { name: n.clone(), value, source: ConfigSource::StaticBroker });
                }
            }
            for n in &info.synonyms {
                let default = broker_config_infos().iter().find(|i| i.name == *n).and_then(|i| i.default.clone());
                if let Some(d) = default {
                    let value = (!sensitive).then_some(d);
                    synonyms.push(Synonym { name: n.clone(), value, source: ConfigSource::Default });
                }
            }
            // `configSynonyms`' dropWhile: from the config's own name on
            let from = synonyms.iter().position(|y| y.name == info.name).unwrap_or(synonyms.len());
            synonyms.drain(..from);
            let value = match statics.get(&info.name) {
                Some(v) => shown(v),
                // (a default is already as Kafka prints it)
                None => info.default.clone().filter(|_| !sensitive),
            };
            DescribedConfig {
                given: None,
                name: info.name.clone(),
                value,
                source: synonyms.first().map_or(ConfigSource::Default, |y| y.source),
                synonyms,
                config_type: config_type_id(&info.ty),
                documentation: info.documentation.clone(),
                read_only: info.read_only,
                sensitive,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use logrules::config::{
        GROUP_INITIAL_REBALANCE_DELAY_MS, MESSAGE_MAX_BYTES, NUM_PARTITIONS, OFFSETS_TOPIC_PARTITIONS, TOPIC_CONFIGS,
        TRANSACTION_STATE_PARTITIONS, topic_config,
    };

    /// Every topic config of Kafka 3.9.1 described: 36, each with its
    /// documentation; an override first among the synonyms, printed as
    /// Kafka prints the parsed value.
    #[test]
    fn topics_are_described_as_kafka_describes_them() {
        let d = describe_topic(&BTreeMap::new());
        assert_eq!(d.len(), 36);
        assert_eq!(d.len(), TOPIC_CONFIGS.len());
        assert!(d.iter().all(|c| TOPIC_CONFIGS.iter().any(|t| t.name == c.name) && !c.documentation.is_empty()));
        let retention = d.iter().find(|c| c.name == "retention.ms").unwrap();
        assert_eq!(
            (retention.value.as_deref(), retention.source, retention.config_type),
            (Some("604800000"), ConfigSource::Default, 5)
        );
        // (log.retention.ms, the primary synonym, has no default: none listed)
        assert!(retention.synonyms.is_empty());
        let policy = d.iter().find(|c| c.name == "cleanup.policy").unwrap();
        assert_eq!(policy.synonyms.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["log.cleanup.policy"]);
        let set: BTreeMap<String, String> = [("cleanup.policy", "compact, delete"), ("min.cleanable.dirty.ratio", "1")]
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .into();
        let d = describe_topic(&set);
        let policy = d.iter().find(|c| c.name == "cleanup.policy").unwrap();
        assert_eq!((policy.value.as_deref(), policy.source), (Some("compact,delete"), ConfigSource::TopicConfig));
        assert_eq!(policy.given.as_deref(), Some("compact, delete"));
        assert_eq!(policy.synonyms.len(), 2);
        assert_eq!(d.iter().find(|c| c.name == "min.cleanable.dirty.ratio").unwrap().value.as_deref(), Some("1.0"));
    }

    /// The broker's configs: 314 of Kafka 3.9.1, a setting first among the
    /// synonyms, a password never shown.
    #[test]
    fn the_broker_is_described_as_kafka_describes_it() {
        let statics: BTreeMap<String, String> = [("num.partitions", "3"), ("log.retention.hours", "24")]
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .into();
        let d = describe_broker(&statics);
        assert_eq!(d.len(), 314);
        let np = d.iter().find(|c| c.name == "num.partitions").unwrap();
        assert_eq!((np.value.as_deref(), np.source, np.read_only), (Some("3"), ConfigSource::StaticBroker, true));
        assert_eq!(np.synonyms.len(), 2);
        let hours = d.iter().find(|c| c.name == "log.retention.hours").unwrap();
        assert_eq!(
            hours.synonyms.iter().map(|y| (y.name.as_str(), y.source)).collect::<Vec<_>>(),
            [("log.retention.hours", ConfigSource::StaticBroker), ("log.retention.hours", ConfigSource::Default)]
        );
        let ms = d.iter().find(|c| c.name == "log.retention.ms").unwrap();
        // (its synonyms before its own name are dropped, as Kafka drops them)
        assert_eq!((ms.value.as_deref(), ms.source), (None, ConfigSource::Default));
        assert!(d.iter().filter(|c| c.sensitive).all(|c| c.value.is_none()));
    }

    /// The broker defaults logtool uses as numbers are Kafka's.
    #[test]
    fn broker_defaults_are_kafkas() {
        let default =
            |name: &str| broker_config_infos().iter().find(|i| i.name == name).and_then(|i| i.default.clone());
        for (name, ours) in [
            ("offsets.topic.num.partitions", OFFSETS_TOPIC_PARTITIONS.to_string()),
            ("transaction.state.log.num.partitions", TRANSACTION_STATE_PARTITIONS.to_string()),
            ("num.partitions", NUM_PARTITIONS.to_string()),
            ("group.initial.rebalance.delay.ms", GROUP_INITIAL_REBALANCE_DELAY_MS.to_string()),
            ("message.max.bytes", MESSAGE_MAX_BYTES.to_string()),
        ] {
            assert_eq!(default(name).as_deref(), Some(ours.as_str()), "{name}");
        }
        assert_eq!(topic_config("max.message.bytes").map(|d| d.default), Some("1048588"));
    }

    #[test]
    fn incremental_alter_is_the_controllers() {
        let current: BTreeMap<String, String> = [("retention.ms".to_string(), "1000".to_string())].into();
        let op = |k: &str, o: AlterOp, v: Option<&str>| (k.to_string(), o, v.map(str::to_string));
        let changes = incremental_alter(
            &current,
            &[
                op("retention.ms", AlterOp::Set, Some("1000")),
                op("segment.ms", AlterOp::Set, Some("5")),
                op("cleanup.policy", AlterOp::Append, Some("compact")),
                op("max.message.bytes", AlterOp::Delete, None),
            ],
            topic_list_default,
        )
        .unwrap();
        // the same value is no change; an unset list starts from its default
        assert_eq!(
            changes,
            vec![
                ("segment.ms".to_string(), Some("5".to_string())),
                ("cleanup.policy".to_string(), Some("delete,compact".to_string()))
            ]
        );
        let after = with_changes(&current, &changes);
        let sub =
            incremental_alter(&after, &[op("cleanup.policy", AlterOp::Subtract, Some("delete"))], topic_list_default);
        assert_eq!(sub.unwrap(), vec![("cleanup.policy".to_string(), Some("compact".to_string()))]);
        let e = incremental_alter(&current, &[op("retention.ms", AlterOp::Append, Some("1"))], topic_list_default);
        assert_eq!(e.unwrap_err(), "Can't APPEND to key retention.ms because its type is not LIST.");
    }
}
