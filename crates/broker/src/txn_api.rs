//! The transaction APIs, answered as Kafka 3.9's `TransactionCoordinator`
//! and `KafkaApis` answer them (transaction version 1, error codes
//! included): InitProducerId with a transactional id, AddPartitionsToTxn,
//! AddOffsetsToTxn, TxnOffsetCommit, EndTxn, DescribeTransactions,
//! ListTransactions, and the coordinator's abort of transactions past
//! their timeout. State is `store::State::txns`; every change is written to
//! `__transaction_state` before it is answered; markers go to every
//! partition of the transaction at once (`store::State::write_marker`).

use std::collections::BTreeSet;

use kafka_protocol::ResponseError as E;
use kafka_protocol::messages::*;
use kafka_protocol::protocol::StrBytes;

use crate::Shared;
use crate::error::{ApiError, code_of};
use crate::store::{self, State, now_ms};
use logrules::transactions::{self as txn_rules, version};

use coordinator::transaction::{self as txn, Status, Txn};

/// A topic partition named by a request.
type TopicPartition = (String, i32);

fn s(text: impl Into<String>) -> StrBytes {
    StrBytes::from_string(text.into())
}

/// End the transaction of `id` (`Ongoing`, a `Prepare*` left by an
/// earlier failure, or with transaction version 2 an abort of one that
/// added no partition): the `Prepare*` state written, a marker on every
/// partition, then `Complete*` (`TransactionCoordinator.endTransaction`,
/// the markers as `TransactionMarkerChannelManager` has them written). A
/// TV2 client's EndTxn (`bump`) bumps the epoch in the `Prepare*` state
/// (`prepareAbortOrCommit`), so the markers carry the new epoch; an epoch
/// it exhausts moves the producer to a new id at `Complete*`
/// (`prepareComplete`). Returns the completed state.
fn end(store: &mut State, id: &str, commit: bool, bump: Option<Bump>) -> Result<Txn, ApiError> {
    let Some(mut t) = store.txns.ids.get(id).cloned() else {
        return Err(ApiError::new(E::InvalidTxnState, format!("no transaction of {id}")));
    };
    let now = now_ms();
    t.prev_producer_id = t.producer_id;
    if let Some(b) = bump {
        let exhausted = version::epoch_exhausted(t.producer_epoch);
        if t.producer_epoch != i16::MAX || commit {
            t.producer_epoch = t.producer_epoch.saturating_add(1);
        }
        t.next_producer_id = if exhausted { store.allocate_producer_id() } else { -1 };
        t.client_version = version::EPOCH_BUMP;
        if b.no_partition_added {
            t.start_ms = now;
        }
    }
    t.status = if commit { Status::PrepareCommit } else { Status::PrepareAbort };
    t.last_update_ms = now;
    store.write_txn(id, &t)?;
    store.txns.ids.insert(id.to_string(), t.clone());
    let epoch = store.coordinator_epoch(id);
    for (topic, p) in &t.partitions {
        store.write_marker(topic, *p, t.producer_id, t.producer_epoch, commit, epoch)?;
    }
    if bump.is_some() && t.next_producer_id != -1 {
        t.producer_id = t.next_producer_id;
        t.producer_epoch = 0;
    }
    t.next_producer_id = -1;
    t.status = if commit { Status::CompleteCommit } else { Status::CompleteAbort };
    t.partitions = BTreeSet::new();
    t.last_update_ms = now_ms();
    store.write_txn(id, &t)?;
    store.txns.ids.insert(id.to_string(), t.clone());
    Ok(t)
}

/// A transaction version 2 EndTxn's epoch bump.
#[derive(Clone, Copy)]
struct Bump {
    /// The transaction added no partition (an abort TV2 allows).
    no_partition_added: bool,
}

/// Abort the open transaction of `id` after bumping its epoch, so the
/// producer that had it is fenced (`prepareFenceProducerEpoch`): what a
/// timeout and a new InitProducerId do. On a cluster of transaction
/// version 2 the coordinator ends it as a TV2 EndTxn (the server's version,
/// `endTransaction` with `isEpochFence`): the one bump is
/// `prepareAbortOrCommit`'s, and the records carry client version 2.
fn fence_and_abort(store: &mut State, id: &str) -> Result<(), ApiError> {
    if store.transaction_version() >= version::EPOCH_BUMP {
        return end(store, id, false, Some(Bump { no_partition_added: false })).map(|_| ());
    }
    if let Some(t) = store.txns.ids.get_mut(id)
        && let Some(e) = txn::next_epoch(t.producer_epoch)
    {
        t.producer_epoch = e;
    }
    end(store, id, false, None).map(|_| ())
}

/// InitProducerId with a transactional id (`handleInitProducerId`): a new
/// id starts at epoch 0; a known one gets its epoch bumped (a new producer
/// id when the epoch is exhausted); an open transaction is first aborted
/// with the producer fenced, and the client is told
/// `CONCURRENT_TRANSACTIONS` to retry.
pub fn init_producer_id(sh: &Shared, req: &InitProducerIdRequest) -> InitProducerIdResponse {
    let mut r = InitProducerIdResponse::default();
    r.producer_id = ProducerId(-1);
    r.producer_epoch = -1;
    let Some(id) = req.transactional_id.as_ref().map(|t| t.0.to_string()) else { return r };
    if id.is_empty() {
        r.error_code = E::InvalidRequest.code();
        return r;
    }
    if req.transaction_timeout_ms <= 0 || req.transaction_timeout_ms > txn::MAX_TIMEOUT_MS {
        r.error_code = E::InvalidTransactionTimeout.code();
        return r;
    }
    let mut store = sh.lock();
    if let Err(ApiError { code, message: m }) = store.transaction_partition(&id) {
        eprintln!("logtool broker: transactional id {id}: {m}");
        r.error_code = code;
        return r;
    }
    let now = now_ms();
    let next = match store.txns.ids.get(&id).cloned() {
        None => Txn {
            producer_id: -1,
            producer_epoch: 0,
            timeout_ms: req.transaction_timeout_ms,
            status: Status::Empty,
            partitions: BTreeSet::new(),
            start_ms: -1,
            last_update_ms: now,
            prev_producer_id: -1,
            next_producer_id: -1,
            client_version: 0,
        },
        Some(t) => {
            // KIP-360: a producer naming itself must be the current one
            if req.producer_id.0 != -1 && (req.producer_id.0 != t.producer_id || req.producer_epoch != t.producer_epoch)
            {
                r.error_code = E::ProducerFenced.code();
                return r;
            }
            match t.status {
                Status::PrepareCommit | Status::PrepareAbort => {
                    // markers not all written: finish, then have it retry
                    let _ = end(&mut store, &id, t.status == Status::PrepareCommit, None);
                    r.error_code = E::ConcurrentTransactions.code();
                    return r;
                }
                Status::Ongoing => {
                    if let Err(ApiError { message: m, .. }) = fence_and_abort(&mut store, &id) {
                        eprintln!("logtool broker: aborting the transaction of {id}: {m}");
                    }
                    r.error_code = E::ConcurrentTransactions.code();
                    return r;
                }
                _ => {}
            }
            let (producer_id, producer_epoch) = match txn::next_epoch(t.producer_epoch) {
                Some(e) => (t.producer_id, e),
                None => (store.allocate_producer_id(), 0),
            };
            Txn {
                producer_id,
                producer_epoch,
                timeout_ms: req.transaction_timeout_ms,
                status: Status::Empty,
                partitions: BTreeSet::new(),
                start_ms: -1,
                last_update_ms: now,
                prev_producer_id: t.producer_id,
                next_producer_id: -1,
                client_version: t.client_version,
            }
        }
    };
    let next = if next.producer_id == -1 {
        // a new id's metadata is made with its producer id (`prevProducerId`)
        let producer_id = store.allocate_producer_id();
        Txn { producer_id, prev_producer_id: producer_id, ..next }
    } else {
        next
    };
    if let Err(ApiError { code, message: m }) = store.write_txn(&id, &next) {
        eprintln!("logtool broker: transactional id {id}: {m}");
        r.error_code = code;
        return r;
    }
    r.producer_id = ProducerId(next.producer_id);
    r.producer_epoch = next.producer_epoch;
    store.txns.ids.insert(id, next);
    r
}

/// The checks every call of a transaction's producer passes
/// (`TransactionCoordinator`, transaction version 1): the producer id it
/// was given, its current epoch, no markers being written.
fn check_producer(store: &State, id: &str, producer_id: i64, producer_epoch: i16) -> Result<Txn, ApiError> {
    let Some(t) = store.txns.ids.get(id) else { return Err(E::InvalidProducerIdMapping.into()) };
    if t.producer_id != producer_id {
        return Err(E::InvalidProducerIdMapping.into());
    }
    if t.producer_epoch != producer_epoch {
        return Err(E::ProducerFenced.into());
    }
    if matches!(t.status, Status::PrepareCommit | Status::PrepareAbort) {
        return Err(E::ConcurrentTransactions.into());
    }
    Ok(t.clone())
}

/// Add `partitions` to the transaction of `id` (`handleAddPartitionsToTransaction`):
/// it becomes `Ongoing` (started now if it was not).
pub fn add_partitions(
    store: &mut State,
    id: &str,
    (producer_id, producer_epoch): (i64, i16),
    partitions: &[(String, i32)],
    client_version: i16,
) -> Result<(), ApiError> {
    let mut t = check_producer(store, id, producer_id, producer_epoch)?;
    if t.status == Status::Ongoing && partitions.iter().all(|p| t.partitions.contains(p)) {
        return Ok(());
    }
    let now = now_ms();
    if t.status != Status::Ongoing {
        t.start_ms = now;
        t.partitions = BTreeSet::new();
    }
    t.status = Status::Ongoing;
    t.partitions.extend(partitions.iter().cloned());
    t.last_update_ms = now;
    t.prev_producer_id = t.producer_id;
    t.client_version = client_version;
    store.write_txn(id, &t).inspect_err(|e| {
        eprintln!("logtool broker: transactional id {id}: {}", e.message);
    })?;
    store.txns.ids.insert(id.to_string(), t);
    Ok(())
}

/// The partitions asked for that exist, or the per-partition errors when
/// one does not (`UNKNOWN_TOPIC_OR_PARTITION` for it,
/// `OPERATION_NOT_ATTEMPTED` for the rest, as `KafkaApis` answers).
fn existing(
    store: &State,
    topics: &[add_partitions_to_txn_request::AddPartitionsToTxnTopic],
) -> Result<Vec<TopicPartition>, Vec<(TopicPartition, i16)>> {
    let asked: Vec<(String, i32)> =
        topics.iter().flat_map(|t| t.partitions.iter().map(|p| (t.name.0.to_string(), *p))).collect();
    let known = |(t, p): &(String, i32)| {
        store.topics().get(t).is_some_and(|ts| usize::try_from(*p).is_ok_and(|p| p < ts.topic.partitions.len()))
    };
    if asked.iter().all(known) {
        return Ok(asked);
    }
    Err(asked
        .into_iter()
        .map(|tp| {
            let code = if known(&tp) { E::OperationNotAttempted.code() } else { E::UnknownTopicOrPartition.code() };
            (tp, code)
        })
        .collect())
}

fn topic_results(
    topics: &[add_partitions_to_txn_request::AddPartitionsToTxnTopic],
    code_of: impl Fn(&str, i32) -> i16,
) -> Vec<add_partitions_to_txn_response::AddPartitionsToTxnTopicResult> {
    topics
        .iter()
        .map(|t| {
            let mut tr = add_partitions_to_txn_response::AddPartitionsToTxnTopicResult::default();
            tr.name = t.name.clone();
            tr.results_by_partition = t
                .partitions
                .iter()
                .map(|p| {
                    let mut pr = add_partitions_to_txn_response::AddPartitionsToTxnPartitionResult::default();
                    pr.partition_index = *p;
                    pr.partition_error_code = code_of(t.name.0.as_str(), *p);
                    pr
                })
                .collect();
            tr
        })
        .collect()
}

/// One transaction's AddPartitionsToTxn: its per-topic results.
fn add_for(
    store: &mut State,
    id: &str,
    producer_id: i64,
    producer_epoch: i16,
    (verify_only, client_version): (bool, i16),
    topics: &[add_partitions_to_txn_request::AddPartitionsToTxnTopic],
) -> Vec<add_partitions_to_txn_response::AddPartitionsToTxnTopicResult> {
    let partitions = match existing(store, topics) {
        Ok(p) => p,
        Err(errors) => {
            return topic_results(topics, |t, p| {
                errors.iter().find(|((et, ep), _)| et == t && *ep == p).map_or(0, |(_, c)| *c)
            });
        }
    };
    let code = if verify_only {
        // a broker asking whether the partitions are in the transaction
        match check_producer(store, id, producer_id, producer_epoch) {
            Ok(t) if t.status == Status::Ongoing && partitions.iter().all(|p| t.partitions.contains(p)) => 0,
            Ok(_) => E::InvalidTxnState.code(),
            Err(e) => e.code,
        }
    } else {
        code_of(&add_partitions(store, id, (producer_id, producer_epoch), &partitions, client_version))
    };
    topic_results(topics, |_, _| code)
}

/// AddPartitionsToTxn: v0-3 from a producer (one transaction), v4-5 a
/// batch of transactions (from brokers, `verify_only`, or a producer).
pub fn add_partitions_to_txn(sh: &Shared, version: i16, req: &AddPartitionsToTxnRequest) -> AddPartitionsToTxnResponse {
    let mut r = AddPartitionsToTxnResponse::default();
    let mut store = sh.lock();
    if version <= 3 {
        r.results_by_topic_v3_and_below = add_for(
            &mut store,
            req.v3_and_below_transactional_id.0.as_str(),
            req.v3_and_below_producer_id.0,
            req.v3_and_below_producer_epoch,
            (false, version::of_add_partitions(version)),
            &req.v3_and_below_topics,
        );
        return r;
    }
    for t in &req.transactions {
        let mut res = add_partitions_to_txn_response::AddPartitionsToTxnResult::default();
        res.transactional_id = t.transactional_id.clone();
        res.topic_results = add_for(
            &mut store,
            t.transactional_id.0.as_str(),
            t.producer_id.0,
            t.producer_epoch,
            (t.verify_only, version::of_add_partitions(version)),
            &t.topics,
        );
        r.results_by_transaction.push(res);
    }
    r
}

/// AddOffsetsToTxn: the group's `__consumer_offsets` partition joins the
/// transaction (`handleAddOffsetsToTxnRequest`).
pub fn add_offsets_to_txn(sh: &Shared, req: &AddOffsetsToTxnRequest) -> AddOffsetsToTxnResponse {
    let mut r = AddOffsetsToTxnResponse::default();
    let mut store = sh.lock();
    let partition = match store.offsets_partition(req.group_id.0.as_str()) {
        Ok(p) => p,
        Err(ApiError { code, .. }) => {
            r.error_code = code;
            return r;
        }
    };
    let tp = [(store::OFFSETS_TOPIC.to_string(), partition)];
    r.error_code = code_of(&add_partitions(
        &mut store,
        req.transactional_id.0.as_str(),
        (req.producer_id.0, req.producer_epoch),
        &tp,
        0,
    ));
    r
}

/// TxnOffsetCommit: the offsets are written to `__consumer_offsets` in the
/// producer's transaction and become the group's committed offsets with its
/// COMMIT marker (`GroupCoordinator.handleTxnCommitOffsets`). The group's
/// partition must be in the transaction (AddOffsetsToTxn first).
pub fn txn_offset_commit(sh: &Shared, version: i16, req: &TxnOffsetCommitRequest) -> TxnOffsetCommitResponse {
    let mut r = TxnOffsetCommitResponse::default();
    let group = req.group_id.0.to_string();
    let mut store = sh.lock();
    let code = code_of(&(|| -> Result<(), ApiError> {
        let partition = store.offsets_partition(&group)?;
        if version::txn_offset_commit_adds_partition(version) {
            // a TV2 client: the group's partition joins the transaction here
            // (`addPartition` through the coordinator, as AddOffsetsToTxn did)
            let tp = [(store::OFFSETS_TOPIC.to_string(), partition)];
            let ids = (req.producer_id.0, req.producer_epoch);
            add_partitions(&mut store, req.transactional_id.0.as_str(), ids, &tp, version::EPOCH_BUMP)?;
        }
        let t =
            store.txns.ids.get(req.transactional_id.0.as_str()).ok_or(ApiError::from(E::InvalidProducerIdMapping))?;
        if t.producer_id != req.producer_id.0 {
            return Err(E::InvalidProducerIdMapping.into());
        }
        if t.producer_epoch != req.producer_epoch {
            return Err(E::ProducerFenced.into());
        }
        if t.status != Status::Ongoing || !t.partitions.contains(&(store::OFFSETS_TOPIC.to_string(), partition)) {
            return Err(E::InvalidTxnState.into());
        }
        if !req.member_id.is_empty()
            && let Some(g) = store.groups.classic.get(&group)
        {
            g.check_member(req.member_id.as_str(), req.generation_id).map_err(ApiError::of_code)?;
        }
        let now = now_ms();
        let offsets = req
            .topics
            .iter()
            .flat_map(|t| {
                t.partitions.iter().map(move |p| {
                    (
                        t.name.0.to_string(),
                        p.partition_index,
                        coordinator::classic::Committed {
                            offset: p.committed_offset,
                            leader_epoch: p.committed_leader_epoch,
                            metadata: p.committed_metadata.as_ref().map(|m| m.to_string()).unwrap_or_default(),
                            commit_timestamp: now,
                        },
                    )
                })
            })
            .collect();
        store.append_txn_offsets(&group, req.producer_id.0, req.producer_epoch, offsets).inspect_err(|e| {
            eprintln!("logtool broker: transactional offset commit of {group}: {}", e.message);
        })
    })());

    for t in &req.topics {
        let mut tr = txn_offset_commit_response::TxnOffsetCommitResponseTopic::default();
        tr.name = t.name.clone();
        tr.partitions = t
            .partitions
            .iter()
            .map(|p| {
                let mut pr = txn_offset_commit_response::TxnOffsetCommitResponsePartition::default();
                pr.partition_index = p.partition_index;
                pr.error_code = code;
                pr
            })
            .collect();
        r.topics.push(tr);
    }
    r
}

/// EndTxn (`handleEndTransaction`): an `Ongoing` transaction is committed
/// or aborted; a retry of a completed one is answered as it was; anything
/// else is `INVALID_TXN_STATE`. From v5 the client uses transaction
/// version 2 (`rules::transactions::end_txn_v2`): the epoch is bumped, and
/// the answer names the producer id and epoch to use next.
pub fn end_txn(sh: &Shared, version: i16, req: &EndTxnRequest) -> EndTxnResponse {
    let mut r = EndTxnResponse::default();
    r.producer_id = ProducerId(-1);
    r.producer_epoch = -1;
    let id = req.transactional_id.0.to_string();
    let mut store = sh.lock();
    let Some(t) = store.txns.ids.get(&id).cloned() else {
        r.error_code = E::InvalidProducerIdMapping.code();
        return r;
    };
    let ended = |store: &mut State, bump| {
        end(store, &id, req.committed, bump).inspect_err(|e| {
            eprintln!("logtool broker: ending the transaction of {id}: {}", e.message);
        })
    };
    if version::of_end_txn(version) >= version::EPOCH_BUMP {
        let cur = txn_rules::Current {
            state: t.status,
            producer_id: t.producer_id,
            prev_producer_id: t.prev_producer_id,
            producer_epoch: t.producer_epoch,
        };
        let done = match txn_rules::end_txn_v2(&cur, req.producer_id.0, req.producer_epoch, req.committed) {
            Ok(txn_rules::EndTxn::Done) => Ok(t),
            Ok(txn_rules::EndTxn::Prepare { no_partition_added, .. }) => {
                ended(&mut store, Some(Bump { no_partition_added }))
            }
            Err(e) => Err(end_txn_error(e)),
        };
        match done {
            Ok(t) => {
                r.producer_id = ProducerId(t.producer_id);
                r.producer_epoch = t.producer_epoch;
            }
            Err(e) => r.error_code = e.code,
        }
        return r;
    }
    r.error_code = if t.producer_id != req.producer_id.0 {
        E::InvalidProducerIdMapping.code()
    } else if t.producer_epoch != req.producer_epoch {
        E::ProducerFenced.code()
    } else {
        match (t.status, req.committed) {
            (Status::Ongoing, _) => code_of(&ended(&mut store, None)),
            (Status::CompleteCommit, true) | (Status::CompleteAbort, false) => 0,
            (Status::PrepareCommit, true) | (Status::PrepareAbort, false) => E::ConcurrentTransactions.code(),
            _ => E::InvalidTxnState.code(),
        }
    };
    r
}

fn end_txn_error(e: txn_rules::EndTxnError) -> ApiError {
    ApiError::from(match e {
        txn_rules::EndTxnError::InvalidProducerIdMapping => E::InvalidProducerIdMapping,
        txn_rules::EndTxnError::ProducerFenced => E::ProducerFenced,
        txn_rules::EndTxnError::ConcurrentTransactions => E::ConcurrentTransactions,
        txn_rules::EndTxnError::InvalidTxnState => E::InvalidTxnState,
    })
}

/// Abort every `Ongoing` transaction past its timeout, fencing its
/// producer (`TransactionCoordinator.abortTimedOutTransactions`).
pub fn abort_timed_out(sh: &Shared) {
    let mut store = sh.lock();
    let now = now_ms();
    let due: Vec<String> = store
        .txns
        .ids
        .iter()
        .filter(|(_, t)| t.status == Status::Ongoing && t.start_ms.saturating_add(i64::from(t.timeout_ms)) < now)
        .map(|(id, _)| id.clone())
        .collect();
    for id in due {
        if let Err(ApiError { message: m, .. }) = fence_and_abort(&mut store, &id) {
            eprintln!("logtool broker: aborting the timed-out transaction of {id}: {m}");
        }
    }
}

/// A transaction version 2 client's Produce (v12+) adds its partition to
/// the transaction itself: the broker asks the coordinator
/// (`ReplicaManager.maybeSendPartitionsToTransactionCoordinator` with
/// `addPartition`, an AddPartitionsToTxn v5 of TV2) before it appends.
pub fn implicit_add(
    store: &mut State,
    version: i16,
    transactional_id: &str,
    ids: (i64, i16),
    (topic, partition): (&str, i32),
) -> Result<(), ApiError> {
    if !version::produce_adds_partitions(version) {
        return Ok(());
    }
    let tp = [(topic.to_string(), partition)];
    add_partitions(store, transactional_id, ids, &tp, version::EPOCH_BUMP).map_err(|e| ApiError {
        code: e.code,
        message: format!("{topic}-{partition} could not join the transaction of {transactional_id}"),
    })
}

/// Whether a transactional producer's batch may be written to
/// `topic`-`partition`: the partition is in its `Ongoing` transaction
/// (AddPartitionsToTxn first), and its epoch is the transaction's
/// (`INVALID_PRODUCER_EPOCH` for a fenced producer).
pub fn check_produce(
    store: &State,
    transactional_id: &str,
    producer_id: i64,
    producer_epoch: i16,
    topic: &str,
    partition: i32,
) -> Result<(), ApiError> {
    let Some(t) = store.txns.ids.get(transactional_id) else {
        return Err(ApiError::new(E::InvalidProducerIdMapping, format!("no transactional id {transactional_id}")));
    };
    if t.producer_id != producer_id {
        return Err(ApiError::new(E::InvalidProducerIdMapping, "the producer id is not the transactional id's"));
    }
    if producer_epoch < t.producer_epoch {
        return Err(ApiError::new(
            E::InvalidProducerEpoch,
            format!("producer epoch {producer_epoch} is older than {}", t.producer_epoch),
        ));
    }
    if t.status != Status::Ongoing || !t.partitions.contains(&(topic.to_string(), partition)) {
        return Err(ApiError::new(
            E::InvalidTxnState,
            format!("{topic}-{partition} is not in an ongoing transaction of {transactional_id}"),
        ));
    }
    Ok(())
}

/// DescribeTransactions (`handleDescribeTransactions`).
pub fn describe_transactions(sh: &Shared, req: &DescribeTransactionsRequest) -> DescribeTransactionsResponse {
    let mut r = DescribeTransactionsResponse::default();
    let store = sh.lock();
    for id in &req.transactional_ids {
        let mut st = describe_transactions_response::TransactionState::default();
        st.transactional_id = id.clone();
        st.producer_id = ProducerId(-1);
        st.producer_epoch = -1;
        st.transaction_start_time_ms = -1;
        match store.txns.ids.get(id.0.as_str()) {
            None => st.error_code = E::TransactionalIdNotFound.code(),
            Some(t) => {
                st.transaction_state = s(t.status.name());
                st.transaction_timeout_ms = t.timeout_ms;
                st.transaction_start_time_ms = t.start_ms;
                st.producer_id = ProducerId(t.producer_id);
                st.producer_epoch = t.producer_epoch;
                st.topics = t
                    .partitions_by_topic()
                    .map(|(topic, ps)| {
                        let mut d = describe_transactions_response::TopicData::default();
                        d.topic = TopicName(s(topic));
                        d.partitions = ps;
                        d
                    })
                    .collect();
            }
        }
        r.transaction_states.push(st);
    }
    r
}

/// ListTransactions (`handleListTransactions`): by state, producer id and
/// (v1) how long they have run.
pub fn list_transactions(sh: &Shared, req: &ListTransactionsRequest) -> ListTransactionsResponse {
    let mut r = ListTransactionsResponse::default();
    let store = sh.lock();
    let known = |n: &str| Status::from_name(n).is_some();
    r.unknown_state_filters = req.state_filters.iter().filter(|f| !known(f.as_str())).cloned().collect();
    let now = now_ms();
    for (id, t) in &store.txns.ids {
        if !req.state_filters.is_empty() && !req.state_filters.iter().any(|f| f.as_str() == t.status.name()) {
            continue;
        }
        if !req.producer_id_filters.is_empty() && !req.producer_id_filters.iter().any(|p| p.0 == t.producer_id) {
            continue;
        }
        if req.duration_filter >= 0 && (t.start_ms < 0 || now.saturating_sub(t.start_ms) < req.duration_filter) {
            continue;
        }
        let mut st = list_transactions_response::TransactionState::default();
        st.transactional_id = TransactionalId(s(id.clone()));
        st.producer_id = ProducerId(t.producer_id);
        st.transaction_state = s(t.status.name());
        r.transaction_states.push(st);
    }
    r
}
