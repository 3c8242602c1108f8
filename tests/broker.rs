//! `logtool broker` spoken to over TCP, as a client would, with requests
//! encoded by the same generated codec (`kafka-protocol`): ApiVersions
//! (and its answer to a version it does not know), CreateTopics, Metadata,
//! Produce with Kafka's producer-state answers (duplicate, out of order,
//! corrupt), Fetch returning the producer's bytes, a request that claims more
//! than it holds, and a clean stop that `verify` finds clean. Kafka's own
//! clients and a real Kafka on the dir are in tests/interop/broker.sh.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

use bytes::{Bytes, BytesMut};
use kafka_protocol::messages::*;
use kafka_protocol::protocol::{Decodable, Encodable, HeaderVersion, Request, StrBytes};
use logfmt::write::batch::{BatchBuilder, NewRecord};

use crate::util::run;

struct Broker {
    child: Child,
    addr: String,
    logs: std::path::PathBuf,
}

impl Broker {
    fn start(dir: &tempfile::TempDir, extra: &[&str]) -> Broker {
        let logs = dir.path().join("logs");
        let mut child = Command::new(env!("CARGO_BIN_EXE_logtool"))
            .args(["broker", "--log-dir", logs.to_str().unwrap(), "--listen", "127.0.0.1:0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let addr = line.trim().strip_prefix("listening on ").unwrap_or_else(|| panic!("{line:?}")).to_string();
        Broker { child, addr, logs }
    }

    fn connect(&self) -> TcpStream {
        TcpStream::connect(&self.addr).unwrap()
    }

    /// SIGTERM, and the exit code.
    fn stop(&mut self) -> i32 {
        Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status().unwrap();
        self.child.wait().unwrap().code().unwrap_or(-1)
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Send a request, read the response body (after its header).
fn call<Req: Request>(s: &mut TcpStream, version: i16, req: &Req) -> Bytes {
    let mut header = RequestHeader::default();
    header.request_api_key = Req::KEY;
    header.request_api_version = version;
    header.correlation_id = 7;
    header.client_id = Some(StrBytes::from_static_str("test"));
    let mut buf = BytesMut::new();
    header.encode(&mut buf, Req::header_version(version)).unwrap();
    req.encode(&mut buf, version).unwrap();
    s.write_all(&(buf.len() as i32).to_be_bytes()).unwrap();
    s.write_all(&buf).unwrap();
    let mut size = [0u8; 4];
    s.read_exact(&mut size).unwrap();
    let mut body = vec![0u8; i32::from_be_bytes(size) as usize];
    s.read_exact(&mut body).unwrap();
    let mut body = Bytes::from(body);
    let key = ApiKey::try_from(Req::KEY).unwrap();
    let h = ResponseHeader::decode(&mut body, key.response_header_version(version)).unwrap();
    assert_eq!(h.correlation_id, 7);
    body
}

/// Metadata of every topic (a null topic list).
fn all_topics() -> MetadataRequest {
    let mut r = MetadataRequest::default();
    r.topics = None;
    r
}

fn name(s: &str) -> TopicName {
    TopicName(StrBytes::from_string(s.to_string()))
}

fn batch(seq: i32, n: usize) -> Vec<u8> {
    let mut b = BatchBuilder::new(0);
    b.producer_id = 0;
    b.producer_epoch = 0;
    b.base_sequence = seq;
    for i in 0..n {
        let v = format!("value-{seq}-{i}");
        b.push(&NewRecord { timestamp: 1_700_000_000_000, key: None, value: Some(v.as_bytes()), headers: &[] });
    }
    b.build()
}

fn create_topic(s: &mut TcpStream, topic: &str) {
    let mut t = create_topics_request::CreatableTopic::default();
    t.name = name(topic);
    t.num_partitions = 1;
    t.replication_factor = 1;
    let mut req = CreateTopicsRequest::default();
    req.topics = vec![t];
    req.timeout_ms = 30_000;
    let r = CreateTopicsResponse::decode(&mut call(s, 7, &req), 7).unwrap();
    assert_eq!(r.topics[0].error_code, 0);
}

fn produce(s: &mut TcpStream, records: Vec<u8>) -> (i16, i64) {
    let mut p = produce_request::PartitionProduceData::default();
    p.index = 0;
    p.records = Some(Bytes::from(records));
    let mut t = produce_request::TopicProduceData::default();
    t.name = name("t");
    t.partition_data = vec![p];
    let mut req = ProduceRequest::default();
    req.acks = -1;
    req.timeout_ms = 30_000;
    req.topic_data = vec![t];
    let mut body = call(s, 9, &req);
    let r = ProduceResponse::decode(&mut body, 9).unwrap();
    let pr = &r.responses[0].partition_responses[0];
    (pr.error_code, pr.base_offset)
}

#[test]
fn a_client_creates_produces_fetches_and_the_stop_is_clean() {
    let dir = tempfile::tempdir().unwrap();
    let mut b = Broker::start(&dir, &[]);
    let mut s = b.connect();

    // ApiVersions: Kafka 3.9.1's ranges
    let mut body = call(&mut s, 3, &ApiVersionsRequest::default());
    let r = ApiVersionsResponse::decode(&mut body, 3).unwrap();
    assert_eq!(r.error_code, 0);
    let produce_range = r.api_keys.iter().find(|k| k.api_key == 0).unwrap();
    assert_eq!((produce_range.min_version, produce_range.max_version), (0, 11));

    // CreateTopics, then Metadata names it with a topic id
    let mut t = create_topics_request::CreatableTopic::default();
    t.name = name("t");
    t.num_partitions = 2;
    t.replication_factor = 1;
    let mut req = CreateTopicsRequest::default();
    req.topics = vec![t.clone()];
    req.timeout_ms = 30_000;
    let r = CreateTopicsResponse::decode(&mut call(&mut s, 7, &req), 7).unwrap();
    assert_eq!(r.topics[0].error_code, 0);
    let r = CreateTopicsResponse::decode(&mut call(&mut s, 7, &req), 7).unwrap();
    assert_eq!(r.topics[0].error_code, 36, "TOPIC_ALREADY_EXISTS");
    let r = MetadataResponse::decode(&mut call(&mut s, 12, &all_topics()), 12).unwrap();
    assert_eq!(r.topics.len(), 1);
    assert!(!r.topics[0].topic_id.is_nil());
    assert_eq!(r.topics[0].partitions.len(), 2);

    // Produce: appended at 0; the same batch again is a duplicate (its first
    // offsets again, nothing appended); a gap in sequences is refused; a
    // flipped byte fails the CRC
    let first = batch(0, 5);
    assert_eq!(produce(&mut s, first.clone()), (0, 0));
    assert_eq!(produce(&mut s, first.clone()), (0, 0));
    assert_eq!(produce(&mut s, batch(5, 3)), (0, 5));
    assert_eq!(produce(&mut s, batch(20, 1)).0, 45, "OUT_OF_ORDER_SEQUENCE_NUMBER");
    let mut corrupt = batch(8, 1);
    let last = corrupt.len() - 1;
    corrupt[last] ^= 0xff;
    assert_eq!(produce(&mut s, corrupt).0, 2, "CORRUPT_MESSAGE");

    // Fetch from 0: the producer's bytes, as sent (its base offset was 0)
    let mut fp = fetch_request::FetchPartition::default();
    fp.partition = 0;
    fp.fetch_offset = 0;
    fp.partition_max_bytes = 1 << 20;
    fp.current_leader_epoch = -1;
    fp.last_fetched_epoch = -1;
    fp.log_start_offset = -1;
    let mut ft = fetch_request::FetchTopic::default();
    ft.topic = name("t");
    ft.partitions = vec![fp];
    let mut req = FetchRequest::default();
    req.replica_id = BrokerId(-1);
    req.max_wait_ms = 100;
    req.min_bytes = 1;
    req.max_bytes = 50 << 20;
    req.topics = vec![ft];
    let r = FetchResponse::decode(&mut call(&mut s, 12, &req), 12).unwrap();
    let p = &r.responses[0].partitions[0];
    assert_eq!((p.error_code, p.high_watermark), (0, 8));
    let records = p.records.clone().unwrap();
    assert_eq!(&records[..first.len()], &first[..], "the first batch comes back byte for byte");

    // a request claiming 2^31 topics closes its connection, and nothing else
    let mut g = b.connect();
    let mut bad = vec![0, 3, 0, 1, 0, 0, 0, 9, 0, 1, b'x'];
    bad.extend(0x7fff_ffffi32.to_be_bytes());
    g.write_all(&(bad.len() as i32).to_be_bytes()).unwrap();
    g.write_all(&bad).unwrap();
    let mut rest = Vec::new();
    assert_eq!(g.read_to_end(&mut rest).unwrap(), 0, "closed without an answer");
    let r = MetadataResponse::decode(&mut call(&mut s, 12, &all_topics()), 12).unwrap();
    assert_eq!(r.topics.len(), 1);

    // ApiVersions newer than known: answered in v0 with UNSUPPORTED_VERSION
    // (the codec writes no v9 request: the frame by hand, header v2, no body)
    let mut frame = vec![0, 18, 0, 9, 0, 0, 0, 7, 0, 4];
    frame.extend(b"test");
    frame.push(0);
    s.write_all(&(frame.len() as i32).to_be_bytes()).unwrap();
    s.write_all(&frame).unwrap();
    let mut size = [0u8; 4];
    s.read_exact(&mut size).unwrap();
    let mut body = vec![0u8; i32::from_be_bytes(size) as usize];
    s.read_exact(&mut body).unwrap();
    assert_eq!(&body[..4], &7i32.to_be_bytes(), "response header v0: the correlation id");
    let r = ApiVersionsResponse::decode(&mut Bytes::from(body).slice(4..), 0).unwrap();
    assert_eq!(r.error_code, 35);
    assert!(!r.api_keys.is_empty());

    drop(s);
    assert_eq!(b.stop(), 0);
    let logs = b.logs.clone();
    assert!(logs.join(".kafka_cleanshutdown").exists());
    let (code, out, _) = run(&["verify", "--fail-on", "warning", logs.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn fault_rules_fail_drop_and_delay_what_they_name() {
    let dir = tempfile::tempdir().unwrap();
    let control = dir.path().join("faults");
    std::fs::write(&control, "# none yet\n").unwrap();
    let mut b = Broker::start(
        &dir,
        &[
            "--fault",
            "produce:NOT_LEADER_OR_FOLLOWER:every=2",
            "--fault",
            "list-offsets:drop:nth=1",
            "--fault-file",
            control.to_str().unwrap(),
        ],
    );
    let mut s = b.connect();
    create_topic(&mut s, "t");
    // every second Produce fails with NOT_LEADER_OR_FOLLOWER and appends nothing
    assert_eq!(produce(&mut s, batch(0, 2)), (0, 0));
    assert_eq!(produce(&mut s, batch(2, 2)).0, 6);
    assert_eq!(produce(&mut s, batch(2, 2)), (0, 2));
    // the first ListOffsets loses its connection
    let mut lp = list_offsets_request::ListOffsetsPartition::default();
    lp.partition_index = 0;
    lp.timestamp = -1;
    lp.current_leader_epoch = -1;
    let mut lt = list_offsets_request::ListOffsetsTopic::default();
    lt.name = name("t");
    lt.partitions = vec![lp];
    let mut req = ListOffsetsRequest::default();
    req.replica_id = BrokerId(-1);
    req.topics = vec![lt];
    let mut lost = b.connect();
    let mut header = RequestHeader::default();
    header.request_api_key = ListOffsetsRequest::KEY;
    header.request_api_version = 7;
    header.correlation_id = 1;
    let mut buf = BytesMut::new();
    header.encode(&mut buf, ListOffsetsRequest::header_version(7)).unwrap();
    req.encode(&mut buf, 7).unwrap();
    lost.write_all(&(buf.len() as i32).to_be_bytes()).unwrap();
    lost.write_all(&buf).unwrap();
    assert_eq!(lost.read_to_end(&mut Vec::new()).unwrap(), 0, "dropped");
    let r = ListOffsetsResponse::decode(&mut call(&mut s, 7, &req), 7).unwrap();
    assert_eq!(r.topics[0].partitions[0].offset, 4, "the second is answered: 4 records");
    // the control file, changed while the broker runs: Metadata waits
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&control, "metadata:delay=300\n").unwrap();
    let t = std::time::Instant::now();
    MetadataResponse::decode(&mut call(&mut s, 12, &all_topics()), 12).unwrap();
    assert!(t.elapsed() >= std::time::Duration::from_millis(300), "{:?}", t.elapsed());
    drop(s);
    assert_eq!(b.stop(), 0);
}
