//! Dynamic group configs (Kafka 4.x: `kafka-configs --entity-type groups`),
//! as Kafka 4.3.1 validates, describes and applies them.
//!
//! * [`validate`]: `ControllerConfigurationValidator` -> `GroupConfig.validate`
//!   with the broker's bounds: the group's configs over the broker-level
//!   defaults (`GroupCoordinatorConfig.extractGroupConfigMap`), unknown names,
//!   then each value parsed and checked in `GroupConfig.CONFIG_DEF`'s order,
//!   then `validateValues`' bounds (`group.share.min.record.lock.duration.ms`
//!   ...) and the session-over-heartbeat checks. Messages are Kafka's.
//! * [`describe`]: `ConfigHelper.createGroupConfigEntry` - the value (the
//!   group's, else the broker's, else the definition's default), its source
//!   (GROUP_CONFIG, STATIC_BROKER_CONFIG or DEFAULT_CONFIG) and synonyms.
//! * [`ShareAutoOffsetReset`]: `share.auto.offset.reset`, where a share
//!   partition without state starts (`SharePartition.startOffsetDuringInitialization`).
//! * Applied: [`Timing`] (the session timeout and heartbeat interval of a
//!   consumer or share group's members) and [`share_limits`] (a share
//!   partition's delivery count limit, record locks, lock duration and
//!   isolation level): the group's setting, else the broker's
//!   `group.<name>`, read at each use as Kafka reads them. Stored and
//!   described but not applied: `consumer.assignment.interval.ms`,
//!   `share.assignment.interval.ms`, `share.renew.acknowledge.enable` and the
//!   `streams.*` configs (logtool broker has no streams groups).
//!
//! The group's configs are `ConfigRecord`s of resource type GROUP (32) in the
//! metadata log; `logtool broker` writes and reads them there.

use std::collections::BTreeMap;

use crate::config::{ConfigSource, DescribedConfig, Synonym};
use crate::share_partition::Limits;
use logrules::config::ConfigError;

/// `ConfigResource.Type.GROUP`.
pub const RESOURCE_GROUP: i8 = 32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    Int,
    String,
    Boolean,
}

#[derive(Clone, Copy, Debug)]
enum Check {
    AtLeast(i64),
    OneOf(&'static [&'static str]),
    AutoOffsetReset,
    Any,
}

/// Where a group config's default comes from.
#[derive(Clone, Copy, Debug)]
enum Default {
    /// Its broker-level synonym `group.<name>` (`GroupConfig.ALL_GROUP_CONFIG_SYNONYMS`:
    /// every synonym is so named), an INT: Kafka's default is the broker
    /// config's ([`BROKER_DEFAULTS`]); `copied`: the broker's own setting is
    /// the group's default too (`GroupCoordinatorConfig.extractGroupConfigMap`).
    Broker { copied: bool },
    /// No broker synonym: this default.
    Own(Ty, &'static str),
}

/// One group config (`GroupConfig.CONFIG_DEF`, in its order).
#[derive(Clone, Copy, Debug)]
struct Def {
    name: &'static str,
    check: Check,
    default: Default,
}

impl Def {
    fn ty(&self) -> Ty {
        match self.default {
            Default::Broker { .. } => Ty::Int,
            Default::Own(ty, _) => ty,
        }
    }

    /// Its broker-level synonym, if it has one.
    fn synonym(&self) -> Option<String> {
        matches!(self.default, Default::Broker { .. }).then(|| format!("group.{}", self.name))
    }

    /// The definition's default (`CONFIG_DEF`).
    fn default_value(&self) -> String {
        match (self.default, self.synonym()) {
            (Default::Own(_, d), _) => d.to_string(),
            (_, Some(b)) => broker_value(&BTreeMap::new(), &b).to_string(),
            (_, None) => String::new(),
        }
    }

    /// The group's default with the broker running with `broker`: the
    /// broker's value where `extractGroupConfigMap` copies it, else the
    /// definition's default.
    fn default_with(&self, broker: &BTreeMap<String, String>) -> String {
        match (self.default, self.synonym()) {
            (Default::Broker { copied: true }, Some(b)) => broker_value(broker, &b).to_string(),
            _ => self.default_value(),
        }
    }
}

/// A config with a broker synonym `group.<name>`.
const fn synonym(name: &'static str, min: i64, copied: bool) -> Def {
    Def { name, check: Check::AtLeast(min), default: Default::Broker { copied } }
}

/// A config without one.
const fn own(name: &'static str, ty: Ty, default: &'static str, check: Check) -> Def {
    Def { name, check, default: Default::Own(ty, default) }
}

/// Kafka 4.3.1's group configs, in `GroupConfig.CONFIG_DEF`'s order.
const DEFS: &[Def] = &[
    synonym("consumer.session.timeout.ms", 1, true),
    synonym("consumer.heartbeat.interval.ms", 1, true),
    synonym("consumer.assignment.interval.ms", 0, false),
    synonym("share.session.timeout.ms", 1, true),
    synonym("share.heartbeat.interval.ms", 1, true),
    synonym("share.record.lock.duration.ms", 1000, true),
    synonym("share.delivery.count.limit", 2, true),
    synonym("share.partition.max.record.locks", 100, true),
    own("share.auto.offset.reset", Ty::String, "latest", Check::AutoOffsetReset),
    own("share.isolation.level", Ty::String, "read_uncommitted", Check::OneOf(&["read_committed", "read_uncommitted"])),
    own("share.renew.acknowledge.enable", Ty::Boolean, "true", Check::Any),
    synonym("share.assignment.interval.ms", 0, false),
    synonym("streams.session.timeout.ms", 1, true),
    synonym("streams.heartbeat.interval.ms", 1, true),
    synonym("streams.num.standby.replicas", 0, true),
    synonym("streams.initial.rebalance.delay.ms", 0, true),
    synonym("streams.assignment.interval.ms", 0, false),
];

/// The broker configs the checks read, with Kafka 4.3.1's defaults
/// (`GroupCoordinatorConfig`, `ShareGroupConfig`).
const BROKER_DEFAULTS: &[(&str, i64)] = &[
    ("group.consumer.session.timeout.ms", 45000),
    ("group.consumer.min.session.timeout.ms", 45000),
    ("group.consumer.max.session.timeout.ms", 60000),
    ("group.consumer.heartbeat.interval.ms", 5000),
    ("group.consumer.min.heartbeat.interval.ms", 5000),
    ("group.consumer.max.heartbeat.interval.ms", 15000),
    ("group.consumer.assignment.interval.ms", 1000),
    ("group.consumer.min.assignment.interval.ms", 0),
    ("group.consumer.max.assignment.interval.ms", 15000),
    ("group.share.session.timeout.ms", 45000),
    ("group.share.min.session.timeout.ms", 45000),
    ("group.share.max.session.timeout.ms", 60000),
    ("group.share.heartbeat.interval.ms", 5000),
    ("group.share.min.heartbeat.interval.ms", 5000),
    ("group.share.max.heartbeat.interval.ms", 15000),
    ("group.share.assignment.interval.ms", 1000),
    ("group.share.min.assignment.interval.ms", 0),
    ("group.share.max.assignment.interval.ms", 15000),
    ("group.share.record.lock.duration.ms", 30000),
    ("group.share.min.record.lock.duration.ms", 15000),
    ("group.share.max.record.lock.duration.ms", 60000),
    ("group.share.delivery.count.limit", 5),
    ("group.share.min.delivery.count.limit", 2),
    ("group.share.max.delivery.count.limit", 10),
    ("group.share.partition.max.record.locks", 2000),
    ("group.share.min.partition.max.record.locks", 100),
    ("group.share.max.partition.max.record.locks", 4000),
    ("group.streams.session.timeout.ms", 45000),
    ("group.streams.min.session.timeout.ms", 45000),
    ("group.streams.max.session.timeout.ms", 60000),
    ("group.streams.heartbeat.interval.ms", 5000),
    ("group.streams.min.heartbeat.interval.ms", 5000),
    ("group.streams.max.heartbeat.interval.ms", 15000),
    ("group.streams.num.standby.replicas", 0),
    ("group.streams.max.standby.replicas", 2),
    ("group.streams.initial.rebalance.delay.ms", 3000),
    ("group.streams.assignment.interval.ms", 1000),
    ("group.streams.min.assignment.interval.ms", 0),
    ("group.streams.max.assignment.interval.ms", 15000),
];

/// The broker's static setting of `name`, if it sets it.
fn broker_static<'a>(broker: &'a BTreeMap<String, String>, name: &str) -> Option<&'a str> {
    broker.get(name).map(|v| v.trim())
}

/// The value of broker config `name` (its static setting, else Kafka's
/// default).
fn broker_value(broker: &BTreeMap<String, String>, name: &str) -> i64 {
    broker_static(broker, name)
        .and_then(|v| v.parse().ok())
        .or_else(|| BROKER_DEFAULTS.iter().find(|(n, _)| *n == name).map(|(_, d)| *d))
        .unwrap_or(0)
}

fn invalid(name: &str, value: &str, why: impl std::fmt::Display) -> ConfigError {
    ConfigError {
        name: Some(name.to_string()),
        message: format!("Invalid value {value} for configuration {name}: {why}"),
    }
}

fn error(name: &str, message: String) -> ConfigError {
    ConfigError { name: Some(name.to_string()), message }
}

/// Where a share partition without state starts
/// (`ShareGroupAutoOffsetResetStrategy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShareAutoOffsetReset {
    /// `earliest`: the log start offset.
    Earliest,
    /// `latest`: the high watermark (the default).
    Latest,
    /// `by_duration:<ISO 8601>`: the first offset at or after now minus
    /// this many milliseconds.
    ByDuration(i64),
}

impl ShareAutoOffsetReset {
    /// `AutoOffsetResetStrategy.fromString` as a share group takes it
    /// (`none` refused); `None` where Kafka refuses the text.
    pub fn parse(s: &str) -> Option<ShareAutoOffsetReset> {
        match s {
            "earliest" => Some(ShareAutoOffsetReset::Earliest),
            "latest" => Some(ShareAutoOffsetReset::Latest),
            _ => {
                let d = s.strip_prefix("by_duration:")?;
                let ms = java_duration_ms(d)?;
                (ms >= 0).then_some(ShareAutoOffsetReset::ByDuration(ms))
            }
        }
    }
}

/// `java.time.Duration.parse` of `PnDTnHnMn.nS` (signs allowed on the
/// whole and on each part, letters in either case), in milliseconds
/// (fractions of a millisecond dropped); `None` where Java refuses it.
fn java_duration_ms(s: &str) -> Option<i64> {
    let (negative, rest) = match s.as_bytes().first()? {
        b'-' => (true, s.get(1..)?),
        b'+' => (false, s.get(1..)?),
        _ => (false, s),
    };
    let rest = rest.strip_prefix(['P', 'p'])?;
    let (days, time) = match rest.find(['T', 't']) {
        Some(i) => (rest.get(..i)?, Some(rest.get(i.checked_add(1)?..)?)),
        None => (rest, None),
    };
    let mut total: i128 = 0;
    let mut any = false;
    let number = |t: &str| -> Option<i128> {
        let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || digits.len() > 19 {
            return None;
        }
        t.parse::<i128>().ok()
    };
    if !days.is_empty() {
        let n = number(days.strip_suffix(['D', 'd'])?)?;
        total = total.checked_add(n.checked_mul(86_400_000)?)?;
        any = true;
    }
    if let Some(mut t) = time {
        if t.is_empty() {
            return None;
        }
        for (unit, scale) in [(['H', 'h'], 3_600_000i128), (['M', 'm'], 60_000)] {
            if let Some(i) = t.find(unit) {
                total = total.checked_add(number(t.get(..i)?)?.checked_mul(scale)?)?;
                t = t.get(i.checked_add(1)?..)?;
                any = true;
            }
        }
        if !t.is_empty() {
            let secs = t.strip_suffix(['S', 's'])?;
            let (whole, frac) = match secs.find(['.', ',']) {
                Some(i) => (secs.get(..i)?, secs.get(i.checked_add(1)?..)?),
                None => (secs, ""),
            };
            if frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let w = number(whole)?;
            let millis: i128 = format!("{frac:0<3}").get(..3)?.parse().ok()?;
            let signed = if whole.starts_with('-') { millis.checked_neg()? } else { millis };
            total = total.checked_add(w.checked_mul(1000)?)?.checked_add(signed)?;
            any = true;
        }
    }
    if !any {
        return None;
    }
    let total = if negative { total.checked_neg()? } else { total };
    i64::try_from(total).ok()
}

/// A parsed value.
#[derive(Clone, Debug, PartialEq)]
enum Value {
    Int(i64),
    Text(String),
    Boolean(bool),
}

/// `ConfigDef.parseType` and the definition's validator.
fn parse(d: &Def, raw: &str) -> Result<Value, ConfigError> {
    let t = raw.trim();
    let v = match d.ty() {
        Ty::Int => {
            Value::Int(i64::from(t.parse::<i32>().map_err(|_| invalid(d.name, raw, "Not a number of type INT"))?))
        }
        Ty::Boolean => match t.to_ascii_lowercase().as_str() {
            "true" => Value::Boolean(true),
            "false" => Value::Boolean(false),
            _ => return Err(invalid(d.name, raw, "Expected value to be either true or false")),
        },
        Ty::String => Value::Text(t.to_string()),
    };
    match (&d.check, &v) {
        (Check::AtLeast(min), Value::Int(n)) if n < min => {
            Err(invalid(d.name, &n.to_string(), format_args!("Value must be at least {min}")))
        }
        (Check::OneOf(allowed), Value::Text(s)) if !allowed.contains(&s.as_str()) => {
            Err(invalid(d.name, s, format_args!("String must be one of: {}", allowed.join(", "))))
        }
        (Check::AutoOffsetReset, Value::Text(s)) if ShareAutoOffsetReset::parse(s).is_none() => Err(invalid(
            d.name,
            s,
            format_args!(
                "Invalid value `{s}` for configuration {}. The value must be either 'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS>'.",
                d.name
            ),
        )),
        _ => Ok(v),
    }
}

/// Check the configs a group would have (`configs`: every one set on it
/// after the change) as Kafka 4.3.1's controller does, the broker running
/// with `broker` (its static configs). `Ok` means Kafka takes them; the
/// error is answered as `INVALID_CONFIG` with its message.
pub fn validate(configs: &BTreeMap<String, String>, broker: &BTreeMap<String, String>) -> Result<(), ConfigError> {
    if let Some(name) = configs.keys().find(|n| !DEFS.iter().any(|d| d.name == n.as_str())) {
        return Err(ConfigError { name: Some(name.clone()), message: format!("Unknown group config name: {name}") });
    }
    // the group's over the broker-level defaults, parsed in definition order
    let mut ints: BTreeMap<&str, i64> = BTreeMap::new();
    for d in DEFS {
        let raw = configs.get(d.name).cloned().unwrap_or_else(|| d.default_with(broker));
        if let Value::Int(n) = parse(d, &raw)? {
            ints.insert(d.name, n);
        }
    }
    let get = |name: &str| ints.get(name).copied().unwrap_or(0);
    // `name`'s broker bounds: `group.<kind>.min.<rest>` and `group.<kind>.max.<rest>`
    let bound = |name: &'static str| -> Result<(), ConfigError> {
        let n = get(name);
        let (kind, rest) = name.split_once('.').unwrap_or((name, name));
        let (min, max) = (format!("group.{kind}.min.{rest}"), format!("group.{kind}.max.{rest}"));
        if BROKER_DEFAULTS.iter().any(|(b, _)| *b == min) && n < broker_value(broker, &min) {
            return Err(error(name, format!("{name} must be greater than or equal to {min}")));
        }
        if n > broker_value(broker, &max) {
            return Err(error(name, format!("{name} must be less than or equal to {max}")));
        }
        Ok(())
    };
    bound("consumer.heartbeat.interval.ms")?;
    bound("consumer.session.timeout.ms")?;
    if configs.contains_key("consumer.assignment.interval.ms") {
        bound("consumer.assignment.interval.ms")?;
    }
    bound("share.heartbeat.interval.ms")?;
    bound("share.session.timeout.ms")?;
    bound("share.record.lock.duration.ms")?;
    bound("share.delivery.count.limit")?;
    bound("share.partition.max.record.locks")?;
    if configs.contains_key("share.assignment.interval.ms") {
        bound("share.assignment.interval.ms")?;
    }
    bound("streams.heartbeat.interval.ms")?;
    bound("streams.session.timeout.ms")?;
    if get("streams.num.standby.replicas") > broker_value(broker, "group.streams.max.standby.replicas") {
        return Err(error(
            "streams.num.standby.replicas",
            "streams.num.standby.replicas must be less than or equal to group.streams.max.standby.replicas".into(),
        ));
    }
    if configs.contains_key("streams.assignment.interval.ms") {
        bound("streams.assignment.interval.ms")?;
    }
    for kind in ["consumer", "share", "streams"] {
        let (session, heartbeat) = (format!("{kind}.session.timeout.ms"), format!("{kind}.heartbeat.interval.ms"));
        if get(&session) <= get(&heartbeat) {
            return Err(error(&session, format!("{session} must be greater than {heartbeat}")));
        }
    }
    Ok(())
}

/// The type id DescribeConfigs gives (BOOLEAN 1, STRING 2, INT 3).
fn type_id(ty: Ty) -> i8 {
    match ty {
        Ty::Boolean => 1,
        Ty::String => 2,
        Ty::Int => 3,
    }
}

/// Every group config of a group with `configs` set on it, as Kafka 4.3.1
/// with `broker` (its static configs) describes them
/// (`ConfigHelper.createGroupConfigEntry`, in name order): the value is the
/// group's, else the broker's (for those `extractGroupConfigMap` copies),
/// else the definition's default; synonyms the group's own (GROUP_CONFIG),
/// then the broker synonym's static setting and default, or, for a config
/// without one, the definition's default (DEFAULT_CONFIG); the source is
/// the first synonym's. Documentation is not given.
pub fn describe(configs: &BTreeMap<String, String>, broker: &BTreeMap<String, String>) -> Vec<DescribedConfig> {
    let mut out: Vec<DescribedConfig> = DEFS
        .iter()
        .map(|d| {
            let shown = |raw: &str| match parse(d, raw) {
                Ok(Value::Int(n)) => n.to_string(),
                Ok(Value::Boolean(b)) => b.to_string(),
                Ok(Value::Text(s)) => s,
                Err(_) => raw.to_string(),
            };
            let mut synonyms = Vec::new();
            let own = configs.get(d.name).map(|v| shown(v));
            if let Some(v) = &own {
                synonyms.push(Synonym {
                    name: d.name.to_string(),
                    value: Some(v.clone()),
                    source: ConfigSource::Group,
                });
            }
            // the broker synonym's static setting, then its default; or,
            // without one, the definition's default
            let b = d.synonym();
            if let Some(v) = b.as_deref().and_then(|b| broker_static(broker, b)) {
                synonyms.push(Synonym {
                    name: b.clone().unwrap_or_default(),
                    value: Some(v.to_string()),
                    source: ConfigSource::StaticBroker,
                });
            }
            synonyms.push(Synonym {
                name: b.unwrap_or_else(|| d.name.to_string()),
                value: Some(d.default_value()),
                source: ConfigSource::Default,
            });
            let value = own.clone().unwrap_or_else(|| d.default_with(broker));
            DescribedConfig {
                name: d.name.to_string(),
                value: Some(value),
                given: own,
                source: synonyms.first().map_or(ConfigSource::Default, |s| s.source),
                synonyms,
                config_type: type_id(d.ty()),
                documentation: String::new(),
                read_only: false,
                sensitive: false,
            }
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// The group's `share.auto.offset.reset` (its setting, else `latest`).
pub fn share_auto_offset_reset(configs: &BTreeMap<String, String>) -> ShareAutoOffsetReset {
    configs
        .get("share.auto.offset.reset")
        .and_then(|v| ShareAutoOffsetReset::parse(v.trim()))
        .unwrap_or(ShareAutoOffsetReset::Latest)
}

/// A group's int config as the coordinator reads it
/// (`GroupConfigManager.groupConfig(id).map(GroupConfig::x).orElse(config.x)`,
/// `ShareGroupConfigProvider.xOrDefault`): the group's setting, else the
/// broker's `group.<name>` (its static setting, else Kafka's default).
/// `name` is one of the group configs with a broker synonym.
fn group_int(configs: &BTreeMap<String, String>, broker: &BTreeMap<String, String>, name: &str) -> i64 {
    configs
        .get(name)
        .and_then(|v| v.trim().parse::<i32>().ok())
        .map_or_else(|| broker_value(broker, &format!("group.{name}")), i64::from)
}

fn group_i32(configs: &BTreeMap<String, String>, broker: &BTreeMap<String, String>, name: &str) -> i32 {
    i32::try_from(group_int(configs, broker, name)).unwrap_or(i32::MAX)
}

/// The timing a group's members heartbeat by, from its configs
/// (`GroupMetadataManager.consumerGroupSessionTimeoutMs`,
/// `consumerGroupHeartbeatIntervalMs`, `shareGroupSessionTimeoutMs`,
/// `shareGroupHeartbeatIntervalMs`): read at each heartbeat, so a change
/// holds from the members' next one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timing {
    /// A member not heard from for this long is fenced.
    pub session_timeout_ms: i32,
    /// What the heartbeat answer tells the member.
    pub heartbeat_interval_ms: i32,
}

impl std::default::Default for Timing {
    /// Kafka's defaults, for either group type (45 s, 5 s).
    fn default() -> Timing {
        Timing::consumer(&BTreeMap::new(), &BTreeMap::new())
    }
}

impl Timing {
    /// A consumer group's (`consumer.session.timeout.ms`,
    /// `consumer.heartbeat.interval.ms`).
    pub fn consumer(configs: &BTreeMap<String, String>, broker: &BTreeMap<String, String>) -> Timing {
        Timing {
            session_timeout_ms: group_i32(configs, broker, "consumer.session.timeout.ms"),
            heartbeat_interval_ms: group_i32(configs, broker, "consumer.heartbeat.interval.ms"),
        }
    }

    /// A share group's (`share.session.timeout.ms`,
    /// `share.heartbeat.interval.ms`).
    pub fn share(configs: &BTreeMap<String, String>, broker: &BTreeMap<String, String>) -> Timing {
        Timing {
            session_timeout_ms: group_i32(configs, broker, "share.session.timeout.ms"),
            heartbeat_interval_ms: group_i32(configs, broker, "share.heartbeat.interval.ms"),
        }
    }
}

/// What a share group's configs say of its share partitions
/// (`SharePartition.maxDeliveryCount`, `maxInFlightRecords`,
/// `recordLockDurationMsOrDefault`): `share.delivery.count.limit`,
/// `share.partition.max.record.locks` and `share.record.lock.duration.ms`,
/// each the group's, else the broker's; and the group's
/// `share.isolation.level` (`KafkaApis.handleShareFetchRequest`:
/// read_uncommitted unless set).
pub fn share_limits(configs: &BTreeMap<String, String>, broker: &BTreeMap<String, String>) -> Limits {
    Limits {
        delivery_count_limit: i16::try_from(group_int(configs, broker, "share.delivery.count.limit"))
            .unwrap_or(i16::MAX),
        max_in_flight: group_int(configs, broker, "share.partition.max.record.locks"),
        lock_ms: group_int(configs, broker, "share.record.lock.duration.ms"),
        read_committed: configs.get("share.isolation.level").is_some_and(|v| v.trim() == "read_committed"),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn map(kv: &[(&str, &str)]) -> BTreeMap<String, String> {
        kv.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn validation_is_kafkas() {
        let none = BTreeMap::new();
        assert!(validate(&map(&[("share.auto.offset.reset", "earliest")]), &none).is_ok());
        assert!(validate(&map(&[("share.auto.offset.reset", "by_duration:PT1H")]), &none).is_ok());
        let refused = [
            ("nope", "1", "Unknown group config name: nope"),
            (
                "share.auto.offset.reset",
                "none",
                "Invalid value none for configuration share.auto.offset.reset: Invalid value `none` for configuration share.auto.offset.reset. The value must be either 'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS>'.",
            ),
            (
                "share.record.lock.duration.ms",
                "999",
                "Invalid value 999 for configuration share.record.lock.duration.ms: Value must be at least 1000",
            ),
            (
                "share.record.lock.duration.ms",
                "10000",
                "share.record.lock.duration.ms must be greater than or equal to group.share.min.record.lock.duration.ms",
            ),
            (
                "consumer.session.timeout.ms",
                "70000",
                "consumer.session.timeout.ms must be less than or equal to group.consumer.max.session.timeout.ms",
            ),
            (
                "share.isolation.level",
                "x",
                "Invalid value x for configuration share.isolation.level: String must be one of: read_committed, read_uncommitted",
            ),
            (
                "share.delivery.count.limit",
                "abc",
                "Invalid value abc for configuration share.delivery.count.limit: Not a number of type INT",
            ),
        ];
        for (name, value, message) in refused {
            assert_eq!(validate(&map(&[(name, value)]), &none).unwrap_err().message, message);
        }
        // the broker's bounds
        let wide = map(&[("group.share.min.record.lock.duration.ms", "1000")]);
        assert!(validate(&map(&[("share.record.lock.duration.ms", "10000")]), &wide).is_ok());
    }

    #[test]
    fn durations_parse_as_java_does() {
        assert_eq!(java_duration_ms("PT1H"), Some(3_600_000));
        assert_eq!(java_duration_ms("P1DT2M3.5S"), Some(86_400_000 + 120_000 + 3_500));
        assert_eq!(java_duration_ms("pt10s"), Some(10_000));
        assert_eq!(java_duration_ms("-PT1S"), Some(-1000));
        assert_eq!(java_duration_ms("PT"), None);
        assert_eq!(java_duration_ms("P"), None);
        assert_eq!(java_duration_ms("1H"), None);
        assert_eq!(ShareAutoOffsetReset::parse("by_duration:-PT1S"), None);
        assert_eq!(ShareAutoOffsetReset::parse("by_duration:PT0S"), Some(ShareAutoOffsetReset::ByDuration(0)));
        assert_eq!(ShareAutoOffsetReset::parse("by_duration"), None);
    }

    #[test]
    fn description_names_the_group_then_the_broker() {
        let broker = map(&[("group.share.record.lock.duration.ms", "20000")]);
        let d = describe(&map(&[("share.auto.offset.reset", "earliest")]), &broker);
        assert_eq!(d.len(), DEFS.len());
        let reset = d.iter().find(|c| c.name == "share.auto.offset.reset").unwrap();
        assert_eq!(reset.value.as_deref(), Some("earliest"));
        assert_eq!(reset.source, ConfigSource::Group);
        assert_eq!(reset.synonyms.len(), 2);
        assert_eq!(reset.synonyms[1].source, ConfigSource::Default);
        let lock = d.iter().find(|c| c.name == "share.record.lock.duration.ms").unwrap();
        assert_eq!(lock.value.as_deref(), Some("20000"));
        assert_eq!(lock.source, ConfigSource::StaticBroker);
        let assign = d.iter().find(|c| c.name == "consumer.assignment.interval.ms").unwrap();
        assert_eq!(assign.source, ConfigSource::Default);
        assert_eq!(assign.synonyms[0].name, "group.consumer.assignment.interval.ms");
    }

    #[test]
    fn the_lock_duration_is_the_groups_else_the_brokers() {
        let none = BTreeMap::new();
        assert_eq!(share_limits(&none, &none).lock_ms, 30_000);
        let broker = map(&[("group.share.record.lock.duration.ms", "40000")]);
        assert_eq!(share_limits(&none, &broker).lock_ms, 40_000);
        assert_eq!(share_limits(&map(&[("share.record.lock.duration.ms", "20000")]), &broker).lock_ms, 20_000);
    }

    #[test]
    fn timing_and_share_limits_are_the_groups_else_the_brokers() {
        let none = BTreeMap::new();
        assert_eq!(Timing::default(), Timing { session_timeout_ms: 45_000, heartbeat_interval_ms: 5_000 });
        assert_eq!(share_limits(&none, &none), Limits::default());
        let group = map(&[
            ("consumer.heartbeat.interval.ms", "7000"),
            ("share.session.timeout.ms", "50000"),
            ("share.delivery.count.limit", "2"),
        ]);
        let broker =
            map(&[("group.share.heartbeat.interval.ms", "6000"), ("group.share.partition.max.record.locks", "300")]);
        assert_eq!(
            Timing::consumer(&group, &broker),
            Timing { session_timeout_ms: 45_000, heartbeat_interval_ms: 7_000 }
        );
        assert_eq!(Timing::share(&group, &broker), Timing { session_timeout_ms: 50_000, heartbeat_interval_ms: 6_000 });
        assert_eq!(
            share_limits(&group, &broker),
            Limits { delivery_count_limit: 2, max_in_flight: 300, lock_ms: 30_000, read_committed: false }
        );
    }
}
