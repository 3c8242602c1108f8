//! The network side: one task per connection reading size-prefixed frames
//! (at most `socket.request.max.bytes`), one request at a time, answered
//! in order. A frame that cannot be a request of a supported API and
//! version closes its connection with a log line (as Kafka closes it on an
//! `InvalidRequestException`), except ApiVersions at a version newer than
//! known, which is answered in v0 with `UNSUPPORTED_VERSION` and the table
//! (`RequestContext.isUnsupportedApiVersionsRequest`), and APIs a Kafka
//! broker listener takes that this broker does not implement, which get
//! `UNSUPPORTED_VERSION` (`generic`). A request's body is read only once
//! its size is granted from `QUEUED_MAX_REQUEST_BYTES` (so unfinished
//! requests cannot take the broker's memory). A request is read as Kafka reads one:
//! bytes after its last field are ignored (`walk`).

use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use kafka_protocol::messages::{ApiKey, FetchResponse, RequestHeader, RequestKind, ResponseHeader, ResponseKind};
use kafka_protocol::protocol::{Decodable, Encodable};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::OwnedSemaphorePermit;

use crate::zerocopy::{self, Part, Response};
use crate::{Shared, consumer_api, faults, generic, group_api, handlers, share_api, txn_api, versions};

/// Kafka's default `socket.request.max.bytes` (100 MiB).
pub const MAX_REQUEST_BYTES: usize = 104_857_600;

/// The bytes of requests being read, at most (Kafka's
/// `queued.max.request.bytes`, which is unbounded by default; here 100 MiB,
/// one request of the largest size): a connection reads a request's body
/// only once its size is granted from this pool (Kafka's `MemoryPool`), and
/// gives it back when the request is answered. Connections past it wait
/// with their bytes unread in the socket.
pub const QUEUED_MAX_REQUEST_BYTES: usize = MAX_REQUEST_BYTES;

/// Values (array elements, structs) a request may hold: each becomes a
/// struct of the decoder (at most a few hundred bytes), so this bounds what
/// decoding one request allocates (a Fetch of every partition of 200 000
/// has about this many).
pub const MAX_REQUEST_VALUES: u64 = 1_000_000;

/// Why a connection was closed.
fn close(peer: &str, why: impl std::fmt::Display) {
    eprintln!("logtool broker: closing the connection from {peer}: {why}");
}

/// Serve one connection until it closes.
pub async fn connection(mut stream: TcpStream, sh: Arc<Shared>) {
    let peer = stream.peer_addr().map_or_else(|_| "?".to_string(), |a| a.to_string());
    let _ = stream.set_nodelay(true);
    loop {
        let size = match stream.read_i32().await {
            Ok(n) => n,
            Err(_) => return,
        };
        let Some(size) = usize::try_from(size).ok().filter(|n| *n <= MAX_REQUEST_BYTES) else {
            close(&peer, format!("a request of {size} bytes (socket.request.max.bytes is {MAX_REQUEST_BYTES})"));
            return;
        };
        // the request's bytes granted before they are read, held until it
        // is answered (what its decoded form holds is bounded by its size)
        let Ok(permits) = u32::try_from(size) else { return };
        let Ok(_request_memory) = Arc::clone(&sh.request_memory).acquire_many_owned(permits).await else { return };
        // grows as the bytes arrive: a claimed size costs nothing until sent
        let mut frame = Vec::with_capacity(size.min(64 * 1024));
        match (&mut stream).take(size as u64).read_to_end(&mut frame).await {
            Ok(n) if n == size => {}
            _ => return,
        }
        // `_memory`: what the response holds of the fetch budget, given
        // back once it is sent
        let (response, _memory) = match handle(&sh, Bytes::from(frame), &peer).await {
            Ok(Some(r)) => r,
            Ok(None) => continue,
            Err(why) => {
                close(&peer, why);
                return;
            }
        };
        let len = match i32::try_from(response.len()) {
            Ok(n) => n,
            Err(_) => return,
        };
        if stream.write_i32(len).await.is_err() {
            return;
        }
        for part in &response.parts {
            let sent = match part {
                Part::Bytes(b) => stream.write_all(b).await,
                Part::File(f) => zerocopy::send_file(&stream, f).await,
            };
            if let Err(e) = sent {
                if e.kind() == std::io::ErrorKind::UnexpectedEof {
                    close(&peer, e);
                }
                return;
            }
        }
    }
}

fn i16_at(frame: &[u8], at: usize) -> Option<i16> {
    Some(i16::from_be_bytes(frame.get(at..at.checked_add(2)?)?.try_into().ok()?))
}

fn i32_at(frame: &[u8], at: usize) -> Option<i32> {
    Some(i32::from_be_bytes(frame.get(at..at.checked_add(4)?)?.try_into().ok()?))
}

/// Walk the request body `buf` by Kafka's definition (`kmsg`) as a Kafka
/// broker reads it: bytes after the message are ignored, as
/// `AbstractRequest.parseRequest` ignores them, and cut off here. Returns
/// the values it holds.
fn walk(schema: &str, key: ApiKey, version: i16, buf: &mut Bytes) -> Result<u64, String> {
    let (values, len) = kmsg::skim_request(schema, version, buf).map_err(|e| format!("{key:?} v{version}: {e}"))?;
    buf.truncate(len);
    Ok(values)
}

fn encode(key: ApiKey, version: i16, correlation_id: i32, body: &ResponseKind) -> Result<Bytes, String> {
    let mut out = BytesMut::new();
    let mut header = ResponseHeader::default();
    header.correlation_id = correlation_id;
    header.encode(&mut out, key.response_header_version(version)).map_err(|e| e.to_string())?;
    body.encode(&mut out, version).map_err(|e| e.to_string())?;
    Ok(out.freeze())
}

/// A response header for `key` at `version`, then `body`.
fn with_header(key: ApiKey, version: i16, correlation_id: i32, body: &[u8]) -> Result<Bytes, String> {
    let mut out = BytesMut::new();
    let mut header = ResponseHeader::default();
    header.correlation_id = correlation_id;
    header.encode(&mut out, key.response_header_version(version)).map_err(|e| e.to_string())?;
    out.extend_from_slice(body);
    Ok(out.freeze())
}

/// The fault rule of `key`, if one matches: the error answer it makes,
/// after the delay it asks, or the connection dropped (`Err`).
async fn fault(
    sh: &Shared,
    (key, version, correlation_id): (ApiKey, i16, i32),
    request: &RequestKind,
    body: &[u8],
) -> Result<Option<Bytes>, String> {
    let fault = sh.faults.lock().unwrap_or_else(std::sync::PoisonError::into_inner).check(key);
    match fault {
        None => Ok(None),
        Some(faults::Action::Drop) => Err(format!("{key:?}: dropped by a fault rule")),
        Some(faults::Action::Delay(d)) => {
            tokio::time::sleep(d).await;
            Ok(None)
        }
        Some(faults::Action::Error(code)) => {
            if let Some(answer) = faults::error_response(request, code) {
                return encode(key, version, correlation_id, &answer).map(Some);
            }
            let answer = generic::error_answer(key, version, body, code, "injected by a logtool broker fault rule")?;
            with_header(key, version, correlation_id, &answer).map(Some)
        }
    }
}

/// DescribeShareGroupOffsets, read and answered by Kafka's definitions
/// (`kmsg`): v1, with the lag, is past the codec.
fn share_offsets(sh: &Shared, version: i16, correlation_id: i32, body: &[u8]) -> Result<Bytes, String> {
    let key = ApiKey::DescribeShareGroupOffsets;
    let request = kmsg::decode("DescribeShareGroupOffsetsRequest", version, body)
        .map_err(|e| format!("{key:?} v{version}: {e}"))?;
    let answer = share_api::describe_share_group_offsets(sh, version, &request);
    let bytes = kmsg::encode("DescribeShareGroupOffsetsResponse", version, &answer)
        .map_err(|e| format!("{key:?} v{version} response: {e}"))?;
    with_header(key, version, correlation_id, &bytes)
}

/// A request of an API a Kafka 3.9.1 broker listener takes but this broker
/// does not implement (it does not advertise it either): answered with
/// `UNSUPPORTED_VERSION` wherever its response has an error code
/// (`generic`), after the same walk as every request. An API no broker
/// listener takes, or a version Kafka 3.9.1 does not know, closes the
/// connection, as Kafka closes it (`SocketServer.parseRequestHeader`).
fn unimplemented(key: ApiKey, version: i16, correlation_id: i32, frame: Bytes) -> Result<Bytes, String> {
    let Some((request, _)) = generic::schemas(key) else {
        return Err(format!("{key:?} is not taken by a broker listener"));
    };
    if !request.valid.contains(version) {
        return Err(format!("{key:?} v{version} is not a version Kafka 3.9.1 knows"));
    }
    let mut buf = frame;
    RequestHeader::decode(&mut buf, key.request_header_version(version)).map_err(|e| format!("{key:?} header: {e}"))?;
    let values = walk(request.name.as_str(), key, version, &mut buf)?;
    if values > MAX_REQUEST_VALUES {
        return Err(format!("{key:?} v{version}: {values} values (at most {MAX_REQUEST_VALUES})"));
    }
    let code = kafka_protocol::ResponseError::UnsupportedVersion.code();
    let answer =
        generic::error_answer(key, version, &buf, code, &format!("logtool broker does not implement {key:?}"))?;
    with_header(key, version, correlation_id, &answer)
}

/// A response (after the size), and the fetch memory it holds until it is
/// sent.
type Answer = (Response, Option<OwnedSemaphorePermit>);

/// One request: its response bytes (after the size), `None` when none is
/// sent (acks=0), or why the connection closes.
async fn handle(sh: &Shared, frame: Bytes, peer: &str) -> Result<Option<Answer>, String> {
    let (Some(api_key), Some(version), Some(correlation_id)) =
        (i16_at(&frame, 0), i16_at(&frame, 2), i32_at(&frame, 4))
    else {
        return Err("a request shorter than its header".into());
    };
    let key = ApiKey::try_from(api_key).map_err(|_| format!("unknown API key {api_key}"))?;
    let Some(supported) = versions::supported(key, sh.kafka4) else {
        return unimplemented(key, version, correlation_id, frame).map(|b| Some((Response::from_bytes(b), None)));
    };
    if key == ApiKey::ApiVersions && version > supported.max {
        let body = ResponseKind::ApiVersions(handlers::api_versions(
            sh,
            kafka_protocol::ResponseError::UnsupportedVersion.code(),
        ));
        return encode(key, 0, correlation_id, &body).map(|b| Some((Response::from_bytes(b), None)));
    }
    if version < supported.min || version > supported.max {
        return Err(format!(
            "{key:?} v{version} (logtool broker reads v{}-v{}{})",
            supported.min,
            supported.max,
            if version < supported.min && version >= supported.kafka_min {
                ", as Kafka 4.x: Kafka 4.0 removed the older versions (KIP-896)"
            } else {
                ""
            }
        ));
    }
    let mut buf = frame;
    let header = RequestHeader::decode(&mut buf, key.request_header_version(version))
        .map_err(|e| format!("{key:?} header: {e}"))?;
    let client_id = header.client_id.as_ref().map(|c| c.to_string()).unwrap_or_default();
    // Kafka's clientHost: "/" and the peer's address
    let host = format!("/{}", peer.rsplit_once(':').map_or(peer, |(h, _)| h));
    // walked by Kafka's definition first: a claimed array length the bytes
    // do not back never reaches the decoder's allocation
    let values = walk(supported.schema, key, version, &mut buf)?;
    if values > MAX_REQUEST_VALUES {
        return Err(format!("{key:?} v{version}: {values} values (at most {MAX_REQUEST_VALUES})"));
    }
    let body = buf.clone();
    if key == ApiKey::DescribeShareGroupOffsets {
        return share_offsets(sh, version, correlation_id, &body).map(|b| Some((Response::from_bytes(b), None)));
    }
    let request = RequestKind::decode(key, &mut buf, version).map_err(|e| format!("{key:?} v{version}: {e}"))?;
    if let Some(answer) = fault(sh, (key, version, correlation_id), &request, &body).await? {
        return Ok(Some((Response::from_bytes(answer), None)));
    }
    let mut memory = None;
    let response = match request {
        RequestKind::ApiVersions(_) => ResponseKind::ApiVersions(handlers::api_versions(sh, 0)),
        RequestKind::Metadata(r) => ResponseKind::Metadata(handlers::metadata(sh, version, r)),
        RequestKind::CreateTopics(r) => ResponseKind::CreateTopics(handlers::create_topics(sh, version, r)),
        RequestKind::FindCoordinator(r) => ResponseKind::FindCoordinator(group_api::find_coordinator(sh, version, r)),
        RequestKind::JoinGroup(r) => {
            ResponseKind::JoinGroup(group_api::join_group(sh, version, r, &client_id, &host).await)
        }
        RequestKind::SyncGroup(r) => ResponseKind::SyncGroup(group_api::sync_group(sh, version, r).await),
        RequestKind::Heartbeat(r) => ResponseKind::Heartbeat(group_api::heartbeat(sh, version, r)),
        RequestKind::LeaveGroup(r) => ResponseKind::LeaveGroup(group_api::leave_group(sh, version, r)),
        RequestKind::OffsetCommit(r) => ResponseKind::OffsetCommit(group_api::offset_commit(sh, version, r)),
        RequestKind::OffsetFetch(r) => ResponseKind::OffsetFetch(group_api::offset_fetch(sh, version, r)),
        RequestKind::ListGroups(r) => ResponseKind::ListGroups(group_api::list_groups(sh, version, r)),
        RequestKind::DescribeGroups(r) => ResponseKind::DescribeGroups(group_api::describe_groups(sh, version, r)),
        RequestKind::ConsumerGroupHeartbeat(r) => ResponseKind::ConsumerGroupHeartbeat(
            consumer_api::consumer_group_heartbeat(sh, version, r, &client_id, &host),
        ),
        RequestKind::ConsumerGroupDescribe(r) => {
            ResponseKind::ConsumerGroupDescribe(consumer_api::consumer_group_describe(sh, version, r))
        }
        RequestKind::ShareGroupHeartbeat(r) => {
            ResponseKind::ShareGroupHeartbeat(share_api::share_group_heartbeat(sh, r, &client_id, &host))
        }
        RequestKind::ShareGroupDescribe(r) => ResponseKind::ShareGroupDescribe(share_api::share_group_describe(sh, r)),
        RequestKind::ShareFetch(r) => {
            let (r, held) = share_api::share_fetch(sh, r).await;
            memory = held;
            ResponseKind::ShareFetch(r)
        }
        RequestKind::ShareAcknowledge(r) => ResponseKind::ShareAcknowledge(share_api::share_acknowledge(sh, r)),
        RequestKind::InitProducerId(r) => ResponseKind::InitProducerId(handlers::init_producer_id(sh, version, r)),
        RequestKind::Produce(r) => match handlers::produce(sh, version, r) {
            Some(r) => ResponseKind::Produce(r),
            None => return Ok(None),
        },
        RequestKind::DescribeConfigs(r) => ResponseKind::DescribeConfigs(handlers::describe_configs(sh, version, r)),
        RequestKind::IncrementalAlterConfigs(r) => {
            ResponseKind::IncrementalAlterConfigs(handlers::incremental_alter_configs(sh, version, r))
        }
        RequestKind::DeleteRecords(r) => ResponseKind::DeleteRecords(handlers::delete_records(sh, version, r)),
        RequestKind::DeleteTopics(r) => ResponseKind::DeleteTopics(handlers::delete_topics(sh, version, r)),
        RequestKind::CreatePartitions(r) => ResponseKind::CreatePartitions(handlers::create_partitions(sh, version, r)),
        RequestKind::ListOffsets(r) => ResponseKind::ListOffsets(handlers::list_offsets(sh, version, r)),
        RequestKind::AddPartitionsToTxn(r) => {
            ResponseKind::AddPartitionsToTxn(txn_api::add_partitions_to_txn(sh, version, &r))
        }
        RequestKind::AddOffsetsToTxn(r) => ResponseKind::AddOffsetsToTxn(txn_api::add_offsets_to_txn(sh, &r)),
        RequestKind::TxnOffsetCommit(r) => ResponseKind::TxnOffsetCommit(txn_api::txn_offset_commit(sh, version, &r)),
        RequestKind::EndTxn(r) => ResponseKind::EndTxn(txn_api::end_txn(sh, version, &r)),
        RequestKind::DescribeTransactions(r) => {
            ResponseKind::DescribeTransactions(txn_api::describe_transactions(sh, &r))
        }
        RequestKind::ListTransactions(r) => ResponseKind::ListTransactions(txn_api::list_transactions(sh, &r)),
        RequestKind::Fetch(r) => {
            let fetched = handlers::fetch(sh, version, r).await;
            return fetch_answer(sh, (key, version, correlation_id), fetched).await.map(Some);
        }
        other => return Err(format!("{:?} is not supported by logtool broker", std::mem::discriminant(&other))),
    };
    let bytes = encode(key, version, correlation_id, &response)?;
    // the records were read into `response` and are freed with it: the
    // response keeps what its encoding takes
    drop(response);
    if let Some(m) = &mut memory {
        drop(m.split(m.num_permits().saturating_sub(bytes.len())));
    }
    Ok(Some((Response::from_bytes(bytes), memory)))
}

/// A Fetch response: encoded with its records' placeholders, which are then
/// spliced for the segment bytes they stand for (`zerocopy`); holding, until
/// it is sent, fetch memory for what it holds in memory. When the encoding
/// does not splice (other bytes that spell a placeholder), the records are
/// read into memory and encoded with it (reserving twice them of the fetch
/// memory, at most all of it).
async fn fetch_answer(
    sh: &Shared,
    (key, version, correlation_id): (ApiKey, i16, i32),
    mut fetched: handlers::Fetched,
) -> Result<Answer, String> {
    let flexible = key.response_header_version(version) >= 1;
    let expected: Vec<usize> = fetched_records(&fetched.response).filter_map(zerocopy::placeholder_index).collect();
    let reserve = |bytes: usize| {
        Arc::clone(&sh.fetch_memory).acquire_many_owned(u32::try_from(bytes.min(crate::api::FETCH_MEMORY)).unwrap_or(0))
    };
    let encoded = encode(key, version, correlation_id, &ResponseKind::Fetch(fetched.response.clone()))?;
    let memory = reserve(encoded.len()).await.ok();
    if let Some(r) = zerocopy::splice(encoded, &mut fetched.slices, &expected, flexible) {
        return Ok((r, memory));
    }
    drop(memory);
    let read: usize = fetched.slices.iter().flatten().map(|s| usize::try_from(s.len).unwrap_or(usize::MAX)).sum();
    let memory = reserve(read.saturating_mul(2)).await.ok();
    for p in fetched.response.responses.iter_mut().flat_map(|t| t.partitions.iter_mut()) {
        let Some(i) = p.records.as_deref().and_then(zerocopy::placeholder_index) else { continue };
        let s = fetched.slices.get(i).and_then(Option::as_ref).ok_or("Fetch: a placeholder without its records")?;
        let bytes = crate::store::read_slice(s).map_err(|e| format!("Fetch: reading a segment: {e}"))?;
        p.records = Some(Bytes::from(bytes));
    }
    let bytes = encode(key, version, correlation_id, &ResponseKind::Fetch(fetched.response))?;
    Ok((Response::from_bytes(bytes), memory))
}

/// The records fields of a Fetch response.
fn fetched_records(r: &FetchResponse) -> impl Iterator<Item = &[u8]> {
    r.responses.iter().flat_map(|t| t.partitions.iter()).filter_map(|p| p.records.as_deref())
}
