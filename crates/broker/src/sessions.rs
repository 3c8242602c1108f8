//! Incremental fetch sessions (KIP-227; Kafka's `FetchSession`,
//! `FetchSessionCache`, `FetchManager.newContext`).
//!
//! A consumer's first Fetch (session id 0, epoch 0) names every partition
//! and gets a new session id with a full answer. Its later Fetches (that id,
//! the next epoch) name only the partitions whose fetch position changed,
//! and the ones it no longer wants (`forgotten_topics_data`); the answer
//! holds only the partitions with something new: records, a changed high
//! watermark, last stable offset or log start, or an error
//! (`CachedPartition.maybeUpdateResponseData`). Epoch -1 ends a session (a
//! sessionless full fetch); epoch 0 with an id replaces it. An unknown id
//! is `FETCH_SESSION_ID_NOT_FOUND`, a wrong epoch
//! `INVALID_FETCH_SESSION_EPOCH`.
//!
//! Invariants: at most [`MAX_SESSIONS`] sessions
//! (`max.incremental.fetch.session.cache.slots`; the least recently used
//! one goes first); a session's partitions keep the order they were added
//! in, and each holds what its last answer told the client.

use std::collections::BTreeMap;

use kafka_protocol::ResponseError as E;
use kafka_protocol::messages::fetch_request::{FetchPartition, FetchTopic};
use kafka_protocol::messages::fetch_response::PartitionData;
use kafka_protocol::messages::{FetchRequest, FetchResponse, TopicName};

use crate::error::ApiError;

/// `max.incremental.fetch.session.cache.slots`.
pub const MAX_SESSIONS: usize = 1000;

/// `FetchMetadata.INITIAL_EPOCH` / `FINAL_EPOCH`.
const INITIAL_EPOCH: i32 = 0;
const FINAL_EPOCH: i32 = -1;

/// A partition as the request names it: the topic's name (before v13) or
/// id (v13 on), and the partition.
type Key = (String, [u8; 16], i32);

fn key(t: &FetchTopic, partition: i32) -> Key {
    (t.topic.0.to_string(), *t.topic_id.as_bytes(), partition)
}

/// One partition of a session.
#[derive(Clone, Debug)]
struct Cached {
    topic: TopicName,
    topic_id: uuid::Uuid,
    request: FetchPartition,
    /// What the last answer told the client (`None`: never answered).
    told: Option<(i64, i64, i64)>,
}

#[derive(Debug)]
struct Session {
    /// The epoch the next request must carry.
    next_epoch: i32,
    partitions: Vec<(Key, Cached)>,
    last_used: u64,
}

/// Every session (see the module docs).
#[derive(Debug, Default)]
pub struct FetchSessions {
    sessions: BTreeMap<i32, Session>,
    next_id: i32,
    clock: u64,
}

/// What a Fetch does, decided from its session fields.
pub enum Plan {
    /// Read these partitions (a full request, or a session's partitions)
    /// and answer with session `id` (0: none); `incremental` answers only
    /// what changed.
    Read { request: Box<FetchRequest>, id: i32, incremental: bool },
    /// Answer this error at the top level.
    Error(ApiError),
}

/// `nextEpoch`: 1 after `i32::MAX`.
fn next_epoch(e: i32) -> i32 {
    if e == i32::MAX { 1 } else { e.saturating_add(1) }
}

impl FetchSessions {
    fn tick(&mut self) -> u64 {
        self.clock = self.clock.saturating_add(1);
        self.clock
    }

    fn new_id(&mut self) -> i32 {
        loop {
            self.next_id =
                if self.next_id == i32::MAX || self.next_id < 1 { 1 } else { self.next_id.saturating_add(1) };
            if !self.sessions.contains_key(&self.next_id) {
                return self.next_id;
            }
        }
    }

    /// Decide what `req` (at `version`) reads (`FetchManager.newContext`).
    pub fn plan(&mut self, version: i16, req: FetchRequest) -> Plan {
        if version < 7 {
            return Plan::Read { request: Box::new(req), id: 0, incremental: false };
        }
        let (id, epoch) = (req.session_id, req.session_epoch);
        if epoch == FINAL_EPOCH {
            self.sessions.remove(&id);
            return Plan::Read { request: Box::new(req), id: 0, incremental: false };
        }
        if epoch == INITIAL_EPOCH {
            self.sessions.remove(&id);
            if self.sessions.len() >= MAX_SESSIONS
                && let Some(oldest) = self.sessions.iter().min_by_key(|(_, s)| s.last_used).map(|(k, _)| *k)
            {
                self.sessions.remove(&oldest);
            }
            let new = self.new_id();
            let mut partitions = Vec::new();
            for t in &req.topics {
                for p in &t.partitions {
                    let cached =
                        Cached { topic: t.topic.clone(), topic_id: t.topic_id, request: p.clone(), told: None };
                    partitions.push((key(t, p.partition), cached));
                }
            }
            let last_used = self.tick();
            self.sessions.insert(new, Session { next_epoch: 1, partitions, last_used });
            return Plan::Read { request: Box::new(req), id: new, incremental: false };
        }
        let now = self.tick();
        let Some(s) = self.sessions.get_mut(&id) else { return Plan::Error(E::FetchSessionIdNotFound.into()) };
        if s.next_epoch != epoch {
            return Plan::Error(E::InvalidFetchSessionEpoch.into());
        }
        s.last_used = now;
        for f in &req.forgotten_topics_data {
            for p in &f.partitions {
                let k = (f.topic.0.to_string(), *f.topic_id.as_bytes(), *p);
                s.partitions.retain(|(key, _)| *key != k);
            }
        }
        for t in &req.topics {
            for p in &t.partitions {
                let k = key(t, p.partition);
                match s.partitions.iter_mut().find(|(key, _)| *key == k) {
                    Some((_, c)) => c.request = p.clone(),
                    None => {
                        let cached =
                            Cached { topic: t.topic.clone(), topic_id: t.topic_id, request: p.clone(), told: None };
                        s.partitions.push((k, cached));
                    }
                }
            }
        }
        s.next_epoch = next_epoch(epoch);
        // the session's partitions, as one full request, in their order
        let mut full = req;
        full.topics = Vec::new();
        full.forgotten_topics_data = Vec::new();
        for (_, c) in &s.partitions {
            let same_topic =
                full.topics.last().is_some_and(|t: &FetchTopic| t.topic == c.topic && t.topic_id == c.topic_id);
            if !same_topic {
                let mut t = FetchTopic::default();
                t.topic = c.topic.clone();
                t.topic_id = c.topic_id;
                full.topics.push(t);
            }
            if let Some(t) = full.topics.last_mut() {
                t.partitions.push(c.request.clone());
            }
        }
        Plan::Read { request: Box::new(full), id, incremental: true }
    }

    /// Keep in session `id` what `response` tells each partition; for an
    /// incremental answer, leave out the partitions with nothing new.
    pub fn answered(&mut self, id: i32, incremental: bool, response: &mut FetchResponse) {
        response.session_id = id;
        let Some(s) = self.sessions.get_mut(&id) else { return };
        for t in &mut response.responses {
            let name = t.topic.0.to_string();
            let topic_id = *t.topic_id.as_bytes();
            t.partitions.retain(|p| {
                let Some((_, c)) =
                    s.partitions.iter_mut().find(|(k, _)| k.0 == name && k.1 == topic_id && k.2 == p.partition_index)
                else {
                    return true;
                };
                let now = (p.high_watermark, p.last_stable_offset, p.log_start_offset);
                let changed = c.told != Some(now) || has_records(p) || p.error_code != 0;
                c.told = Some(now);
                !incremental || changed
            });
        }
        if incremental {
            response.responses.retain(|t| !t.partitions.is_empty());
        }
    }
}

fn has_records(p: &PartitionData) -> bool {
    p.records.as_ref().is_some_and(|r| !r.is_empty())
}
