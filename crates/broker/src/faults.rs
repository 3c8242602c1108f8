//! Fault injection for client tests: rules that make chosen requests fail
//! with a Kafka error, wait, or lose their connection — what a mock broker
//! is for and a real Kafka cannot do on demand.
//!
//! A rule is `API:ACTION[:WHEN]` (syntax in GUIDE.md, "Broker mode"):
//! * API: a Kafka API name in any case, with or without `-`/`_`
//!   (`produce`, `Fetch`, `list-offsets`, `OFFSET_COMMIT`), or `*`;
//! * ACTION: a Kafka error name (`NOT_LEADER_OR_FOLLOWER`) or code (`6`):
//!   the request is answered with that error and not carried out;
//!   `drop`: the connection closes without an answer; `delay=MS`: the
//!   answer comes MS ms later;
//! * WHEN: `every=N` (the N-th, 2N-th, ... matching request), `nth=N` (only
//!   the N-th), `fraction=F` (a seeded pseudo-random share); every
//!   matching request when absent.
//!
//! Rules come from `--fault` and from a control file (`--fault-file`),
//! re-read whenever it changes, so a running broker's faults can change.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use kafka_protocol::error::ParseResponseErrorCode;
use kafka_protocol::messages::ApiKey;

/// What a rule does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Answer with this error code, without carrying the request out.
    Error(i16),
    /// Close the connection without an answer.
    Drop,
    /// Answer this much later.
    Delay(Duration),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum When {
    Always,
    Every(u64),
    Nth(u64),
    Fraction(f64),
}

/// One rule and how many requests it has seen.
#[derive(Clone, Debug)]
pub struct Rule {
    api: Option<ApiKey>,
    action: Action,
    when: When,
    seen: u64,
}

fn squash(s: &str) -> String {
    s.chars().filter(|c| c.is_ascii_alphanumeric()).map(|c| c.to_ascii_lowercase()).collect()
}

/// The error code named `name` (Kafka's name, or a number).
fn error_code(name: &str) -> Option<i16> {
    if let Ok(n) = name.parse::<i16>() {
        return Some(n);
    }
    (-1i16..=200).find(|c| c.err().is_some_and(|e| squash(&format!("{e:?}")) == squash(name)))
}

fn api_key(name: &str) -> Option<ApiKey> {
    (0i16..=100).filter_map(|k| ApiKey::try_from(k).ok()).find(|k| squash(&format!("{k:?}")) == squash(name))
}

impl Rule {
    /// Parse a rule (see the module docs).
    pub fn parse(text: &str) -> Result<Rule, String> {
        let mut parts = text.trim().splitn(3, ':');
        let (api, action) = (parts.next().unwrap_or_default(), parts.next().unwrap_or_default());
        let api = match api {
            "*" => None,
            a => Some(api_key(a).ok_or_else(|| format!("{text}: no Kafka API is called {a:?}"))?),
        };
        let action = if action.eq_ignore_ascii_case("drop") {
            Action::Drop
        } else if let Some(ms) = action.strip_prefix("delay=") {
            Action::Delay(Duration::from_millis(
                ms.parse().map_err(|_| format!("{text}: delay=MS takes milliseconds"))?,
            ))
        } else {
            match error_code(action) {
                Some(0) | None => return Err(format!("{text}: {action:?} is not a Kafka error, drop or delay=MS")),
                Some(c) => Action::Error(c),
            }
        };
        let when = match parts.next() {
            None => When::Always,
            Some(w) => {
                let (k, v) =
                    w.split_once('=').ok_or_else(|| format!("{text}: WHEN is every=N, nth=N or fraction=F"))?;
                let n = || {
                    v.parse::<u64>()
                        .ok()
                        .filter(|n| *n > 0)
                        .ok_or_else(|| format!("{text}: {k} takes a count of at least 1"))
                };
                match k {
                    "every" => When::Every(n()?),
                    "nth" => When::Nth(n()?),
                    "fraction" => When::Fraction(
                        v.parse::<f64>()
                            .ok()
                            .filter(|f| (0.0..=1.0).contains(f))
                            .ok_or_else(|| format!("{text}: fraction takes 0..1"))?,
                    ),
                    _ => return Err(format!("{text}: WHEN is every=N, nth=N or fraction=F")),
                }
            }
        };
        Ok(Rule { api, action, when, seen: 0 })
    }
}

/// The rules in force.
#[derive(Debug, Default)]
pub struct Faults {
    fixed: Vec<Rule>,
    file: Option<PathBuf>,
    file_rules: Vec<Rule>,
    file_seen: Option<SystemTime>,
    /// xorshift state for fractions (seeded: the same run, the same faults)
    rng: u64,
}

impl Faults {
    /// The rules of `--fault` and the control file `file`.
    pub fn new(rules: &[String], file: Option<PathBuf>) -> Result<Faults, String> {
        let fixed = rules.iter().map(|r| Rule::parse(r)).collect::<Result<_, _>>()?;
        let mut f = Faults { fixed, file, file_rules: Vec::new(), file_seen: None, rng: 0x9e37_79b9_7f4a_7c15 };
        f.reload();
        Ok(f)
    }

    /// Re-read the control file if it changed (bad lines are reported and
    /// skipped).
    fn reload(&mut self) {
        let Some(path) = &self.file else { return };
        let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok();
        if modified == self.file_seen {
            return;
        }
        self.file_seen = modified;
        let text = std::fs::read_to_string(path).unwrap_or_default();
        self.file_rules = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .filter_map(|l| Rule::parse(l).map_err(|e| eprintln!("logtool broker: fault file: {e}")).ok())
            .collect();
    }

    /// The action for the next request of `key`, if a rule fires.
    pub fn check(&mut self, key: ApiKey) -> Option<Action> {
        self.reload();
        let mut rng = self.rng;
        let mut fired = None;
        for r in self.fixed.iter_mut().chain(self.file_rules.iter_mut()) {
            if r.api.is_some_and(|a| a != key) {
                continue;
            }
            r.seen = r.seen.saturating_add(1);
            let fire = match r.when {
                When::Always => true,
                When::Every(n) => r.seen.checked_rem(n) == Some(0),
                When::Nth(n) => r.seen == n,
                When::Fraction(f) => {
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    ((rng >> 11) as f64 / ((1u64 << 53) as f64)) < f
                }
            };
            if fire && fired.is_none() {
                fired = Some(r.action);
            }
        }
        self.rng = rng;
        fired
    }
}

/// The answer to `request` when a rule makes it fail with `code`: every
/// partition, topic or group it names gets the error (none is carried
/// out). `None` for an API without one here.
pub fn error_response(
    request: &kafka_protocol::messages::RequestKind,
    code: i16,
) -> Option<kafka_protocol::messages::ResponseKind> {
    use kafka_protocol::messages::RequestKind as Q;
    use kafka_protocol::messages::ResponseKind as A;
    use kafka_protocol::messages::*;
    Some(match request {
        Q::Produce(r) => A::Produce(produce_error(r, code)),
        Q::Fetch(r) => A::Fetch(fetch_error(r, code)),
        Q::ListOffsets(r) => A::ListOffsets(list_offsets_error(r, code)),
        Q::Metadata(r) => {
            let mut out = MetadataResponse::default();
            for t in r.topics.iter().flatten() {
                let mut mt = metadata_response::MetadataResponseTopic::default();
                mt.name = t.name.clone();
                mt.topic_id = t.topic_id;
                mt.error_code = code;
                out.topics.push(mt);
            }
            A::Metadata(out)
        }
        Q::OffsetCommit(r) => A::OffsetCommit(offset_commit_error(r, code)),
        Q::OffsetFetch(r) => {
            let mut out = OffsetFetchResponse::default();
            out.error_code = code;
            for g in &r.groups {
                let mut gr = offset_fetch_response::OffsetFetchResponseGroup::default();
                gr.group_id = g.group_id.clone();
                gr.error_code = code;
                out.groups.push(gr);
            }
            A::OffsetFetch(out)
        }
        Q::FindCoordinator(r) => A::FindCoordinator(find_coordinator_error(r, code)),
        Q::JoinGroup(r) => {
            let mut out = JoinGroupResponse::default();
            out.error_code = code;
            out.generation_id = -1;
            out.member_id = r.member_id.clone();
            A::JoinGroup(out)
        }
        Q::SyncGroup(_) => {
            let mut out = SyncGroupResponse::default();
            out.error_code = code;
            A::SyncGroup(out)
        }
        Q::Heartbeat(_) => {
            let mut out = HeartbeatResponse::default();
            out.error_code = code;
            A::Heartbeat(out)
        }
        Q::LeaveGroup(_) => {
            let mut out = LeaveGroupResponse::default();
            out.error_code = code;
            A::LeaveGroup(out)
        }
        Q::InitProducerId(_) => {
            let mut out = InitProducerIdResponse::default();
            out.error_code = code;
            out.producer_id = ProducerId(-1);
            out.producer_epoch = -1;
            A::InitProducerId(out)
        }
        _ => return None,
    })
}

/// Every partition of a Produce request failing with `code`.
fn produce_error(r: &kafka_protocol::messages::ProduceRequest, code: i16) -> kafka_protocol::messages::ProduceResponse {
    use kafka_protocol::messages::*;
    let mut out = ProduceResponse::default();
    for t in &r.topic_data {
        let mut tr = produce_response::TopicProduceResponse::default();
        tr.name = t.name.clone();
        for p in &t.partition_data {
            let mut pr = produce_response::PartitionProduceResponse::default();
            pr.index = p.index;
            pr.error_code = code;
            pr.base_offset = -1;
            pr.log_append_time_ms = -1;
            pr.log_start_offset = -1;
            tr.partition_responses.push(pr);
        }
        out.responses.push(tr);
    }
    out
}

/// Every partition of a Fetch request failing with `code`.
fn fetch_error(r: &kafka_protocol::messages::FetchRequest, code: i16) -> kafka_protocol::messages::FetchResponse {
    use kafka_protocol::messages::*;
    let mut out = FetchResponse::default();
    for t in &r.topics {
        let mut tr = fetch_response::FetchableTopicResponse::default();
        tr.topic = t.topic.clone();
        tr.topic_id = t.topic_id;
        for p in &t.partitions {
            let mut pd = fetch_response::PartitionData::default();
            pd.partition_index = p.partition;
            pd.error_code = code;
            pd.high_watermark = -1;
            pd.last_stable_offset = -1;
            pd.log_start_offset = -1;
            pd.preferred_read_replica = BrokerId(-1);
            pd.records = Some(bytes::Bytes::new());
            tr.partitions.push(pd);
        }
        out.responses.push(tr);
    }
    out
}

/// Every partition of a ListOffsets request failing with `code`.
fn list_offsets_error(
    r: &kafka_protocol::messages::ListOffsetsRequest,
    code: i16,
) -> kafka_protocol::messages::ListOffsetsResponse {
    use kafka_protocol::messages::*;
    let mut out = ListOffsetsResponse::default();
    for t in &r.topics {
        let mut tr = list_offsets_response::ListOffsetsTopicResponse::default();
        tr.name = t.name.clone();
        for p in &t.partitions {
            let mut pr = list_offsets_response::ListOffsetsPartitionResponse::default();
            pr.partition_index = p.partition_index;
            pr.error_code = code;
            pr.offset = -1;
            pr.timestamp = -1;
            pr.leader_epoch = -1;
            tr.partitions.push(pr);
        }
        out.topics.push(tr);
    }
    out
}

/// Every partition of a OffsetCommit request failing with `code`.
fn offset_commit_error(
    r: &kafka_protocol::messages::OffsetCommitRequest,
    code: i16,
) -> kafka_protocol::messages::OffsetCommitResponse {
    use kafka_protocol::messages::*;
    let mut out = OffsetCommitResponse::default();
    for t in &r.topics {
        let mut tr = offset_commit_response::OffsetCommitResponseTopic::default();
        tr.name = t.name.clone();
        for p in &t.partitions {
            let mut pr = offset_commit_response::OffsetCommitResponsePartition::default();
            pr.partition_index = p.partition_index;
            pr.error_code = code;
            tr.partitions.push(pr);
        }
        out.topics.push(tr);
    }
    out
}

/// Every partition of a FindCoordinator request failing with `code`.
fn find_coordinator_error(
    r: &kafka_protocol::messages::FindCoordinatorRequest,
    code: i16,
) -> kafka_protocol::messages::FindCoordinatorResponse {
    use kafka_protocol::messages::*;
    let mut out = FindCoordinatorResponse::default();
    out.error_code = code;
    out.node_id = BrokerId(-1);
    out.port = -1;
    for k in &r.coordinator_keys {
        let mut c = find_coordinator_response::Coordinator::default();
        c.key = k.clone();
        c.error_code = code;
        c.node_id = BrokerId(-1);
        c.port = -1;
        out.coordinators.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_parse_and_fire_as_written() {
        let r = Rule::parse("produce:NOT_LEADER_OR_FOLLOWER:every=5").unwrap();
        assert_eq!((r.api, r.action), (Some(ApiKey::Produce), Action::Error(6)));
        assert_eq!(Rule::parse("list-offsets:drop").unwrap().api, Some(ApiKey::ListOffsets));
        assert_eq!(Rule::parse("*:delay=250").unwrap().action, Action::Delay(Duration::from_millis(250)));
        for bad in ["produce", "nosuchapi:drop", "produce:NOT_AN_ERROR", "produce:drop:every=0", "fetch:drop:sometimes"]
        {
            assert!(Rule::parse(bad).is_err(), "{bad}");
        }
        let mut f =
            Faults::new(&["produce:NOT_LEADER_OR_FOLLOWER:every=3".into(), "fetch:drop:nth=2".into()], None).unwrap();
        let produce: Vec<_> = (0..6).map(|_| f.check(ApiKey::Produce)).collect();
        assert_eq!(produce.iter().filter(|a| a.is_some()).count(), 2);
        assert_eq!(produce[2], Some(Action::Error(6)));
        assert_eq!(
            (f.check(ApiKey::Fetch), f.check(ApiKey::Fetch), f.check(ApiKey::Fetch)),
            (None, Some(Action::Drop), None)
        );
        assert_eq!(f.check(ApiKey::Metadata), None);
    }
}
