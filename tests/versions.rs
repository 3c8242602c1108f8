//! Every (API, version) pair `logtool broker` advertises, asked and
//! answered (issue 38): for each API in its ApiVersions answer and each
//! version in the range, a request with every field the version has set
//! (to a value that means something to the broker where one does: the
//! topic `t`, its partition 0, the group `g`), built from Kafka's own
//! message definition (`kmsg`) and checked to be exactly what the
//! `kafka-protocol` crate's types encode. The answer must decode at that
//! version (with `kafka-protocol`, every byte) and say what the answer at
//! the newest version says, field for field where both versions have the
//! field (less what legitimately changes between two requests: offsets
//! appended, producer ids handed out, member ids). Before, ListOffsets
//! v1-v3 answers could not be encoded and the connection was closed.

use std::io::{Read, Write};
use std::net::TcpStream;

use bytes::{Bytes, BytesMut};
use kafka_protocol::messages::{ApiKey, RequestKind, ResponseHeader, ResponseKind};
use kafka_protocol::protocol::{Decodable, Encodable};
use kmsg::schema::{Field, StructDef, Type};
use serde_json::{Value, json};

use crate::broker::{Broker, create_topic, produce};

/// What the requests name.
struct Ctx {
    /// The topic `t`'s id (base64url, as kmsg spells a UUID).
    topic_id: String,
    /// A v2 batch of 2 records (no producer id).
    records: String,
    /// The group of this (API, version): JoinGroup's own per version, so a
    /// join never waits for members of another version's.
    group: String,
}

/// The value a request field takes: by its name (and its struct's), else
/// a non-default one of its type.
fn sample(api: ApiKey, def: &StructDef, f: &Field, version: i16, ctx: &Ctx) -> Value {
    let s = def.name.as_str();
    let n = f.name.as_str();
    let named = match (api, s, n) {
        // names of things that exist: the topic t, the group g
        (ApiKey::DeleteTopics, _, "Name" | "TopicNames") => Some(json!("gone")),
        (_, _, "TopicId") => Some(json!(ctx.topic_id)),
        (_, s, "Name") if s.contains("Protocol") => Some(json!("range")),
        (_, s, "Name") if s.contains("Config") => Some(json!("retention.ms")),
        (_, s, "Value") if s.contains("Config") => Some(json!("604800000")),
        (_, _, "Name" | "Topic" | "ResourceName" | "TopicName") => Some(json!("t")),
        (_, _, "GroupId" | "Key" | "CoordinatorKeys" | "Groups") => Some(json!(ctx.group)),
        (_, _, "TransactionalId" | "TransactionalIds") => Some(json!("tx")),
        (_, _, "MemberId") => Some(json!(if api == ApiKey::JoinGroup { "" } else { "m" })),
        (_, _, "GroupInstanceId") => Some(json!("gi")),
        (_, _, "ProtocolType") => Some(json!("consumer")),
        (_, _, "ProtocolName") => Some(json!("range")),
        (_, _, "ClientSoftwareName") => Some(json!("version-sweep")),
        (_, _, "ClientSoftwareVersion") => Some(json!("1.0")),
        (_, _, "RackId") => Some(json!("r")),
        (_, _, "Reason") => Some(json!("sweep")),
        (_, _, "Records") => Some(json!(ctx.records)),
        (_, _, "StatesFilter") => Some(json!(["PreparingRebalance", "CompletingRebalance", "Stable", "Dead", "Empty"])),
        (_, _, "TypesFilter") => Some(json!(["classic", "consumer"])),
        (_, _, "StateFilters") => Some(json!(["Ongoing"])),
        (_, _, "ConfigurationKeys") => Some(Value::Null),
        (_, _, "CommittedMetadata" | "Metadata" | "Assignment") => {
            Some(json!(if matches!(f.ty, Type::Bytes) { "AA==" } else { "m" }))
        }
        // numbers with a meaning
        (_, _, "PartitionIndex" | "Partition" | "Index" | "PartitionIndexes" | "Partitions") if !matches!(f.ty, Type::Array(ref t) if matches!(**t, Type::Struct(_))) => {
            Some(if matches!(f.ty, Type::Array(_)) { json!([0]) } else { json!(0) })
        }
        (_, _, "ReplicaId" | "CurrentLeaderEpoch" | "LastFetchedEpoch" | "LogStartOffset" | "ProducerId") => {
            Some(json!(-1))
        }
        (_, _, "ProducerEpoch" | "GenerationId" | "GenerationIdOrMemberEpoch" | "MemberEpoch") => Some(json!(-1)),
        (_, _, "SessionEpoch" | "CommittedLeaderEpoch" | "CommitTimestamp" | "RetentionTimeMs") => Some(json!(-1)),
        (_, _, "DurationFilter") => Some(json!(-1)),
        (ApiKey::ListOffsets, _, "Timestamp") => Some(json!(-1)),
        (_, _, "Acks") => Some(json!(-1)),
        (_, _, "MaxWaitMs" | "MinBytes" | "SessionId" | "FetchOffset" | "Offset" | "KeyType") => Some(json!(0)),
        (_, _, "MaxBytes" | "PartitionMaxBytes") => Some(json!(1 << 20)),
        (_, _, "IsolationLevel" | "NumPartitions" | "ReplicationFactor" | "Count") => Some(json!(1)),
        (_, _, "ResourceType") => Some(json!(2)),
        (_, _, "CommittedOffset") => Some(json!(1)),
        (_, _, "TimeoutMs" | "TransactionTimeoutMs") => Some(json!(30_000)),
        (_, _, "SessionTimeoutMs" | "RebalanceTimeoutMs") => Some(json!(10_000)),
        (_, _, "BrokerIds" | "Assignments" | "ProducerIdFilters" | "ForgottenTopicsData") => Some(json!([])),
        (_, _, "ClusterId") => Some(Value::Null),
        _ => None,
    };
    if let Some(v) = named {
        // (a list of names: that one name)
        return match (&f.ty, v) {
            (Type::Array(_), v @ (Value::String(_) | Value::Number(_))) => json!([v]),
            (_, v) => v,
        };
    }
    match &f.ty {
        Type::Bool => json!(true),
        Type::Int8 | Type::Int16 | Type::Uint16 | Type::Int32 | Type::Uint32 | Type::Int64 => json!(1),
        Type::Float64 => json!(1.0),
        Type::String => json!("x"),
        Type::Bytes | Type::Records => json!("AA=="),
        Type::Uuid => json!(ctx.topic_id),
        Type::Array(elem) => json!([sample_type(api, def, f, elem, version, ctx)]),
        Type::Struct(d) => fill(api, d, version, ctx),
    }
}

/// One element of an array field.
fn sample_type(api: ApiKey, def: &StructDef, f: &Field, ty: &Type, version: i16, ctx: &Ctx) -> Value {
    match ty {
        Type::Struct(d) => fill(api, d, version, ctx),
        Type::String => json!("x"),
        Type::Array(e) => json!([sample_type(api, def, f, e, version, ctx)]),
        _ => {
            let scalar = Field { ty: ty.clone(), ..f.clone() };
            sample(api, def, &scalar, version, ctx)
        }
    }
}

/// Every field of `def` that `version` has.
fn fill(api: ApiKey, def: &StructDef, version: i16, ctx: &Ctx) -> Value {
    let mut o = serde_json::Map::new();
    for f in def.fields.iter().filter(|f| f.versions.contains(version)) {
        o.insert(f.json.clone(), sample(api, def, f, version, ctx));
    }
    Value::Object(o)
}

/// Fields that legitimately differ between two requests, by API.
fn volatile(api: ApiKey) -> &'static [&'static str] {
    match api {
        ApiKey::Produce => &["baseOffset", "logAppendTimeMs"],
        ApiKey::InitProducerId => &["producerId", "producerEpoch"],
        ApiKey::JoinGroup => &["memberId", "generationId", "leader", "members"],
        _ => &[],
    }
}

/// An answer in the terms every version uses: LeaveGroup v3+ answers each
/// member (KIP-345) where v0-v2 answer the one member at the top.
fn normalize(key: ApiKey, version: i16, mut value: Value) -> Value {
    if key == ApiKey::LeaveGroup && version >= 3 && value["errorCode"] == 0 {
        value["errorCode"] = value["members"][0]["errorCode"].clone();
    }
    value
}

/// Where `a` (the answer at `version`) and `b` (at `newest`) differ in a
/// field both versions have.
fn differences(
    def: &StructDef,
    version: i16,
    newest: i16,
    a: &Value,
    b: &Value,
    skip: &[&str],
    at: &str,
) -> Vec<String> {
    let mut out = Vec::new();
    for f in def.fields.iter() {
        if !f.versions.contains(version) || !f.versions.contains(newest) || f.json == "throttleTimeMs" {
            continue;
        }
        if skip.contains(&f.json.as_str()) {
            continue;
        }
        let (x, y) = (a.get(&f.json).unwrap_or(&Value::Null), b.get(&f.json).unwrap_or(&Value::Null));
        let here = format!("{at}.{}", f.json);
        match &f.ty {
            Type::Struct(d) if x.is_object() && y.is_object() => {
                out.extend(differences(d, version, newest, x, y, skip, &here));
            }
            Type::Array(e) => match (&**e, x.as_array(), y.as_array()) {
                (Type::Struct(d), Some(xs), Some(ys)) if xs.len() == ys.len() => {
                    for (i, (x, y)) in xs.iter().zip(ys).enumerate() {
                        out.extend(differences(d, version, newest, x, y, skip, &format!("{here}[{i}]")));
                    }
                }
                _ if x != y => out.push(format!("{here}: {x} at v{version}, {y} at v{newest}")),
                _ => {}
            },
            _ if x != y => out.push(format!("{here}: {x} at v{version}, {y} at v{newest}")),
            _ => {}
        }
    }
    out
}

/// Send `body` (a request at `version`), return the response body or
/// `None` when the broker closed the connection.
fn exchange(s: &mut TcpStream, key: ApiKey, version: i16, body: &[u8]) -> Option<Bytes> {
    let mut header = kafka_protocol::messages::RequestHeader::default();
    header.request_api_key = key as i16;
    header.request_api_version = version;
    header.correlation_id = 11;
    header.client_id = Some(kafka_protocol::protocol::StrBytes::from_static_str("version-sweep"));
    let mut buf = BytesMut::new();
    header.encode(&mut buf, key.request_header_version(version)).unwrap();
    buf.extend_from_slice(body);
    s.write_all(&(buf.len() as i32).to_be_bytes()).ok()?;
    s.write_all(&buf).ok()?;
    let mut size = [0u8; 4];
    s.read_exact(&mut size).ok()?;
    let mut resp = vec![0u8; i32::from_be_bytes(size) as usize];
    s.read_exact(&mut resp).ok()?;
    let mut resp = Bytes::from(resp);
    let h = ResponseHeader::decode(&mut resp, key.response_header_version(version)).unwrap();
    assert_eq!(h.correlation_id, 11);
    Some(resp)
}

/// Whether kafka-protocol reads `key` at `version`: DescribeShareGroupOffsets
/// v1 (the lag) is past it, and the broker reads and answers it by
/// Kafka's definitions.
fn codec_knows(key: ApiKey, version: i16) -> bool {
    !(key == ApiKey::DescribeShareGroupOffsets && version >= 1)
}

/// The request of `key` at `version`: kmsg's bytes, which must be what
/// kafka-protocol's types encode (where it knows the version).
fn request(key: ApiKey, version: i16, ctx: &Ctx) -> Vec<u8> {
    let name = format!("{key:?}Request");
    let schema = kmsg::schema::by_name(&name).unwrap_or_else(|| panic!("no definition {name}"));
    let value = fill(key, &schema.root, version, ctx);
    let bytes = kmsg::encode(&name, version, &value).unwrap_or_else(|e| panic!("{name} v{version}: {e}"));
    if !codec_knows(key, version) {
        return bytes;
    }
    let typed = RequestKind::decode(key, &mut Bytes::from(bytes.clone()), version)
        .unwrap_or_else(|e| panic!("{name} v{version}: kafka-protocol cannot read it: {e}"));
    let mut again = BytesMut::new();
    typed.encode(&mut again, version).unwrap();
    assert_eq!(&again[..], &bytes[..], "{name} v{version}: kafka-protocol's types encode it otherwise");
    bytes
}

#[test]
fn every_advertised_api_answers_at_every_version() {
    let av = sweep(&[]);
    // GUIDE.md's table of APIs and versions is this answer
    guide_table(&av);
}

/// A Kafka 4.3 cluster (`--kafka-version 4.3`) advertises the newer
/// versions of transaction version 2 (Produce v12, EndTxn v5,
/// TxnOffsetCommit v5): every pair answered as well.
#[test]
fn every_advertised_api_answers_at_every_version_as_kafka_4() {
    let av = sweep(&["--kafka-version", "4.3"]);
    let max = |key: ApiKey| {
        av["apiKeys"].as_array().unwrap().iter().find(|k| k["apiKey"] == key as i16).unwrap()["maxVersion"].clone()
    };
    assert_eq!((max(ApiKey::Produce), max(ApiKey::EndTxn)), (json!(12), json!(5)));
}

/// Every (API, version) pair a broker started with `extra` advertises,
/// asked and compared with the newest version's answer; its ApiVersions
/// answer.
fn sweep(extra: &[&str]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let mut args =
        vec!["--group-initial-rebalance-delay-ms", "0", "--offsets-partitions", "1", "--transaction-partitions", "1"];
    args.extend_from_slice(extra);
    let mut b = Broker::start(&dir, &args);
    let mut s = b.connect();
    create_topic(&mut s, "t");
    assert_eq!(produce(&mut s, test_support::idempotent_batch(0, -1, 0, 3)).0, 0);
    // the topic's id, from Metadata
    let meta = kmsg::encode("MetadataRequest", 12, &json!({"topics": [{"name": "t"}]})).unwrap();
    let r = exchange(&mut s, ApiKey::Metadata, 12, &meta).unwrap();
    let r = kmsg::decode("MetadataResponse", 12, &r).unwrap();
    let topic_id = r["topics"][0]["topicId"].as_str().unwrap().to_string();
    use base64::Engine;
    let records = base64::engine::general_purpose::STANDARD.encode(test_support::idempotent_batch(0, -1, 0, 2));
    // what it advertises
    let av =
        exchange(&mut s, ApiKey::ApiVersions, 3, &kmsg::encode("ApiVersionsRequest", 3, &json!({})).unwrap()).unwrap();
    let av = kmsg::decode("ApiVersionsResponse", 3, &av).unwrap();
    let mut pairs = 0;
    let mut failures: Vec<String> = Vec::new();
    for k in av["apiKeys"].as_array().unwrap() {
        let key = ApiKey::try_from(k["apiKey"].as_i64().unwrap() as i16).unwrap();
        let (min, max) = (k["minVersion"].as_i64().unwrap() as i16, k["maxVersion"].as_i64().unwrap() as i16);
        let resp_name = format!("{key:?}Response");
        let resp_schema = kmsg::schema::by_name(&resp_name).unwrap();
        let mut newest: Option<Value> = None;
        for version in (min..=max).rev() {
            pairs += 1;
            let group = if key == ApiKey::JoinGroup { format!("join-v{version}") } else { "g".to_string() };
            let ctx = Ctx { topic_id: topic_id.clone(), records: records.clone(), group };
            let body = request(key, version, &ctx);
            let Some(resp) = exchange(&mut s, key, version, &body) else {
                failures.push(format!("{key:?} v{version}: the broker closed the connection"));
                s = b.connect();
                continue;
            };
            let mut typed = resp.clone();
            if codec_knows(key, version) {
                if let Err(e) = ResponseKind::decode(key, &mut typed, version) {
                    failures.push(format!("{key:?} v{version}: the answer does not decode: {e}"));
                    continue;
                }
                assert!(typed.is_empty(), "{key:?} v{version}: {} bytes after the answer", typed.len());
            }
            let value = normalize(key, version, kmsg::decode(&resp_name, version, &resp).unwrap());
            if key == ApiKey::JoinGroup && version == 4 {
                // v4 has no group.instance.id: a new member is asked to
                // join again with the id it is given (KIP-394); v5+ as
                // static members (KIP-345) and v0-v3 join at once
                assert_eq!(value["errorCode"], 79, "JoinGroup v4: {value}");
                continue;
            }
            match &newest {
                None => newest = Some(value),
                Some(n) => {
                    let d = differences(&resp_schema.root, version, max, &value, n, volatile(key), &format!("{key:?}"));
                    failures.extend(d.into_iter().map(|d| format!("v{version} vs v{max}: {d}")));
                }
            }
        }
    }
    assert!(pairs >= 150, "only {pairs} (API, version) pairs advertised");
    assert!(failures.is_empty(), "{} of {pairs} pairs:\n{}", failures.len(), failures.join("\n"));
    drop(s);
    assert_eq!(b.stop(), 0);
    av
}

/// GUIDE.md's table of the APIs and versions `logtool broker` advertises,
/// between its markers, must be the ApiVersions answer's (so it is never
/// written by hand): `LOGTOOL_WRITE_GUIDE=1` writes it.
fn guide_table(av: &Value) {
    let mut t = String::from("| API (key) | versions | Kafka 3.9.1 |\n|---|---|---|\n");
    for k in av["apiKeys"].as_array().unwrap() {
        let id = k["apiKey"].as_i64().unwrap() as i16;
        let key = ApiKey::try_from(id).unwrap();
        let s = ::broker::SUPPORTED.iter().find(|s| s.key == key).unwrap();
        let (min, max) = (k["minVersion"].as_i64().unwrap(), k["maxVersion"].as_i64().unwrap());
        t.push_str(&format!("| {key:?} ({id}) | {min}-{max} | {}-{} |\n", s.kafka_min, s.max));
    }
    let (open, close) = ("<!-- api-versions: tests/versions.rs writes this table -->\n", "<!-- /api-versions -->");
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("GUIDE.md");
    let guide = std::fs::read_to_string(&path).unwrap();
    let (Some(a), Some(b)) = (guide.find(open), guide.find(close)) else {
        panic!("GUIDE.md has no api-versions markers")
    };
    let now = &guide[a + open.len()..b];
    if now != t {
        if std::env::var_os("LOGTOOL_WRITE_GUIDE").is_some() {
            std::fs::write(&path, format!("{}{t}{}", &guide[..a + open.len()], &guide[b..])).unwrap();
        } else {
            panic!(
                "GUIDE.md's table of API versions is not the broker's answer (LOGTOOL_WRITE_GUIDE=1 writes it):\n{t}"
            );
        }
    }
}
