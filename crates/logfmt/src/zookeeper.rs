//! ZooKeeper's data dir, read side: what a ZooKeeper-mode Kafka cluster
//! keeps of its topics there (topic configs, topic ids, assignments,
//! dynamic broker configs, the KIP-866 migration state), offline.
//!
//! A ZooKeeper server (3.5 to 3.9: Kafka 3.x ships 3.8) keeps
//! `dataDir/version-2/`:
//! * `snapshot.<zxid hex>` (`FileSnap`): a `FileHeader` (magic `ZKSN`,
//!   version 2, dbid), the sessions, the ACL cache, then every znode as
//!   (path, `DataNode`: data, acl, `StatPersisted`) up to the path `/`;
//!   then the Adler-32 of all that and `/` (`SnapStream.sealStream`), and,
//!   optionally, a zxid digest and a last processed zxid each sealed the
//!   same way. A name ending `.gz` is gzip'd (`SnapStream`).
//! * `log.<zxid hex>` (`FileTxnLog`): a `FileHeader` (magic `ZKLG`), then
//!   entries of (Adler-32 of the entry, the entry as a jute buffer, `B`):
//!   a `TxnHeader` and the transaction's record (`SerializeUtils.deserializeTxn`),
//!   maybe a digest after it. The file is preallocated with zeros: an
//!   entry of length 0 ends it.
//!
//! Everything is jute's `BinaryInputArchive`: big-endian ints and longs,
//! strings and buffers as an int length (-1: null) then the bytes, vectors
//! as an int count. [`read_data_dir`] loads the newest snapshot that reads
//! whole (as `FileSnap.deserialize` does, newest first) and replays the
//! transaction logs after it (`FileTxnSnapLog.restore`); a log's torn or
//! zero tail ends that log, as ZooKeeper truncates it.
//!
//! Bounds: every length is checked against what the file holds and against
//! [`MAX_BUFFER`]; only the znodes Kafka's configs need are kept
//! ([`kept`]), each at most [`MAX_BUFFER`], in all at most [`MAX_KEPT`]; a
//! snapshot's other znodes are skipped without being held.
//!
//! Invariant: nothing here panics on any input, and nothing is written.

use std::collections::BTreeMap;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use crate::error::{Error, ErrorKind, Result};
use crate::metadata::{ClusterMetadata, MetadataStore, PartitionState, RESOURCE_BROKER, RESOURCE_TOPIC};
use crate::uuid::Uuid;

/// The largest jute buffer or string read: ZooKeeper's own `jute.maxbuffer`
/// default is 1 MiB (0xfffff); Kafka deployments raise it to a few MiB.
pub const MAX_BUFFER: usize = 16 << 20;
/// The most znode data kept in all (a config and an assignment per topic:
/// a cluster of 100,000 topics keeps well under this).
pub const MAX_KEPT: usize = 256 << 20;
/// The most snapshots tried, newest first (`FileSnap.deserialize`'s 100).
pub const MAX_SNAPSHOTS_TRIED: usize = 100;

/// `FileSnap.SNAP_MAGIC`: "ZKSN".
const SNAP_MAGIC: i32 = 0x5a4b_534e;
/// `FileTxnLog.TXNLOG_MAGIC`: "ZKLG".
const TXNLOG_MAGIC: i32 = 0x5a4b_4c47;
/// The end-of-record byte after each transaction log entry (`Util.writeTxnBytes`).
const EOR: u8 = b'B';

/// ZooKeeper's op codes (`ZooDefs.OpCode`) that change the tree.
mod op {
    pub const CREATE: i32 = 1;
    pub const DELETE: i32 = 2;
    pub const SET_DATA: i32 = 5;
    pub const MULTI: i32 = 14;
    pub const CREATE2: i32 = 15;
    pub const CREATE_CONTAINER: i32 = 19;
    pub const DELETE_CONTAINER: i32 = 20;
    pub const CREATE_TTL: i32 = 21;
}

/// Whether a znode is one Kafka's configs, ids and migration state are
/// read from (every other znode is skipped).
pub fn kept(path: &str) -> bool {
    const PREFIXES: [&str; 4] = ["/config/", "/brokers/topics/", "/admin/delete_topics/", "/brokers/ids/"];
    const EXACT: [&str; 4] = ["/cluster/id", "/controller", "/controller_epoch", "/migration"];
    PREFIXES.iter().any(|p| path.starts_with(p)) || EXACT.contains(&path)
}

/// The znodes [`kept`] of a ZooKeeper data dir, as its newest snapshot and
/// the transaction logs after it leave them.
#[derive(Clone, Debug, Default)]
pub struct ZkTree {
    /// Path to data (`None`: a znode without data).
    pub nodes: BTreeMap<String, Option<Vec<u8>>>,
    /// The snapshot loaded, if any.
    pub snapshot: Option<PathBuf>,
    /// The transaction log files replayed.
    pub logs: Vec<PathBuf>,
    /// The last zxid applied.
    pub zxid: i64,
    /// Transactions applied from the logs.
    pub transactions: u64,
    /// Snapshots that did not read whole (newer than the one loaded), with why.
    pub skipped_snapshots: Vec<(PathBuf, String)>,
    /// Where a log stopped before its end: the file, the byte and why (a
    /// torn tail, as a crash leaves it; ZooKeeper truncates it on start).
    pub torn: Vec<(PathBuf, u64, String)>,
    kept_bytes: usize,
}

impl ZkTree {
    /// The data of `path`, as UTF-8 text.
    pub fn text(&self, path: &str) -> Option<&str> {
        self.nodes.get(path)?.as_deref().and_then(|d| std::str::from_utf8(d).ok())
    }

    /// The names of the children of `path` among the kept znodes.
    pub fn children<'a>(&'a self, path: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        let prefix = format!("{path}/");
        self.nodes.range(prefix.clone()..).take_while(move |(k, _)| k.starts_with(&prefix)).filter_map(move |(k, _)| {
            let rest = k.get(path.len().saturating_add(1)..)?;
            (!rest.contains('/')).then_some(rest)
        })
    }

    fn put(&mut self, path: String, data: Option<Vec<u8>>) -> Result<()> {
        let len = data.as_ref().map_or(0, Vec::len);
        if let Some(Some(old)) = self.nodes.get(&path) {
            self.kept_bytes = self.kept_bytes.saturating_sub(old.len());
        }
        self.kept_bytes = self.kept_bytes.saturating_add(len).saturating_add(path.len());
        if self.kept_bytes > MAX_KEPT {
            return Err(Error::new(
                ErrorKind::BadLength {
                    what: "ZooKeeper data kept (Kafka's znodes)",
                    value: self.kept_bytes as i64,
                    min: 0,
                    max: MAX_KEPT as i64,
                },
                None,
            ));
        }
        self.nodes.insert(path, data);
        Ok(())
    }

    fn delete(&mut self, path: &str) {
        if let Some(Some(old)) = self.nodes.remove(path) {
            self.kept_bytes = self.kept_bytes.saturating_sub(old.len().saturating_add(path.len()));
        }
    }
}

/// What a KRaft controller's migration left in ZooKeeper (KIP-866): the
/// `/migration` znode (`ZkMigrationLeadershipState`) and `/controller` held
/// by a KRaft controller (`kraftControllerEpoch`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ZkMigration {
    /// `/migration` exists: a KRaft controller has started (or finished)
    /// copying the metadata out.
    pub migration_znode: bool,
    /// `/controller` names a KRaft controller (its `kraftControllerEpoch`
    /// is not -1, what a ZooKeeper controller writes).
    pub kraft_controller: bool,
}

impl ZkTree {
    /// The topics, their ids, assignments and leaders, their configs and the
    /// dynamic broker configs, as a metadata image holds them (what
    /// `KafkaZkClient` reads: `/brokers/topics/<t>` with its
    /// `partitions/<n>/state`, `/config/topics/<t>`, `/config/brokers/<id>`
    /// and `/config/brokers/<default>`). A znode whose JSON does not parse is
    /// counted in `undecodable`.
    pub fn cluster_metadata(&self) -> ClusterMetadata {
        let mut m = ClusterMetadata { store: MetadataStore::ZooKeeper, ..ClusterMetadata::default() };
        for topic in self.children("/brokers/topics") {
            let path = format!("/brokers/topics/{topic}");
            let Some(v) = self.json(&path, &mut m) else { continue };
            // KIP-516: topics created by a 2.8+ controller carry their id
            let Some(id) = v.get("topic_id").and_then(|i| i.as_str()).and_then(Uuid::parse) else { continue };
            m.topics.insert(topic.to_string(), id);
            let Some(parts) = v.get("partitions").and_then(|p| p.as_object()) else { continue };
            for (n, replicas) in parts {
                let Ok(n) = n.parse::<i32>() else { continue };
                let replicas: Vec<i32> = replicas
                    .as_array()
                    .map(|r| r.iter().filter_map(|x| x.as_i64().and_then(|x| i32::try_from(x).ok())).collect())
                    .unwrap_or_default();
                let mut state = PartitionState { replicas, leader: -1, ..PartitionState::default() };
                if let Some(s) = self.json(&format!("{path}/partitions/{n}/state"), &mut m) {
                    let int = |k: &str| s.get(k).and_then(|x| x.as_i64()).and_then(|x| i32::try_from(x).ok());
                    state.leader = int("leader").unwrap_or(-1);
                    state.leader_epoch = int("leader_epoch").unwrap_or(0);
                    state.isr = s
                        .get("isr")
                        .and_then(|x| x.as_array())
                        .map(|r| r.iter().filter_map(|x| x.as_i64().and_then(|x| i32::try_from(x).ok())).collect())
                        .unwrap_or_default();
                }
                let count = m.partition_counts.entry(id).or_insert(0);
                *count = (*count).max(n.saturating_add(1));
                m.partitions.entry(id).or_default().insert(n, state);
            }
        }
        for (kind, dir) in [(RESOURCE_TOPIC, "/config/topics"), (RESOURCE_BROKER, "/config/brokers")] {
            for name in self.children(dir) {
                let Some(v) = self.json(&format!("{dir}/{name}"), &mut m) else { continue };
                let Some(config) = v.get("config").and_then(|c| c.as_object()) else { continue };
                // the cluster-wide dynamic default is <default> in ZooKeeper, "" in KRaft
                let name = if kind == RESOURCE_BROKER && name == "<default>" { "" } else { name };
                let c: BTreeMap<String, String> =
                    config.iter().filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string()))).collect();
                m.configs.insert((kind, name.to_string()), c);
            }
        }
        m.sources = self.snapshot.iter().chain(&self.logs).cloned().collect();
        m
    }

    /// What the migration to KRaft left here.
    pub fn migration(&self) -> ZkMigration {
        let kraft_controller = self
            .text("/controller")
            .and_then(|t| serde_json::from_str::<serde_json::Value>(t).ok())
            .is_some_and(|v| v.get("kraftControllerEpoch").and_then(|e| e.as_i64()).is_some_and(|e| e >= 0));
        ZkMigration { migration_znode: self.nodes.contains_key("/migration"), kraft_controller }
    }

    fn json(&self, path: &str, m: &mut ClusterMetadata) -> Option<serde_json::Value> {
        let v = self.text(path).and_then(|t| serde_json::from_str(t).ok());
        if v.is_none() && self.nodes.get(path).is_some_and(Option::is_some) {
            m.undecodable = m.undecodable.saturating_add(1);
        }
        v
    }
}

/// jute's `BinaryInputArchive` over a stream, counting the absolute position
/// and (for a snapshot) the Adler-32 of what it read.
struct Jute<R: Read> {
    inner: R,
    pos: u64,
    adler: adler2::Adler32,
}

impl<R: Read> Jute<R> {
    fn new(inner: R) -> Jute<R> {
        Jute { inner, pos: 0, adler: adler2::Adler32::new() }
    }

    fn fill(&mut self, buf: &mut [u8], what: &'static str) -> Result<()> {
        let mut got = 0;
        while got < buf.len() {
            match self.inner.read(buf.get_mut(got..).unwrap_or_default()) {
                Ok(0) => {
                    return Err(Error::truncated(
                        self.pos.saturating_add(got as u64),
                        what,
                        buf.len().saturating_sub(got) as u64,
                    ));
                }
                Ok(n) => got = got.saturating_add(n),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::io(e, None)),
            }
        }
        self.adler.write_slice(buf);
        self.pos = self.pos.saturating_add(buf.len() as u64);
        Ok(())
    }

    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N]> {
        let mut b = [0u8; N];
        self.fill(&mut b, what)?;
        Ok(b)
    }

    fn i32(&mut self, what: &'static str) -> Result<i32> {
        self.array::<4>(what).map(i32::from_be_bytes)
    }

    fn i64(&mut self, what: &'static str) -> Result<i64> {
        self.array::<8>(what).map(i64::from_be_bytes)
    }

    fn u8(&mut self, what: &'static str) -> Result<u8> {
        self.array::<1>(what).map(|b| b[0])
    }

    /// A length of a buffer, string or vector: -1 (null) or 0 to `max`.
    fn len(&mut self, what: &'static str, max: usize) -> Result<Option<usize>> {
        let at = self.pos;
        let n = self.i32(what)?;
        if n == -1 {
            return Ok(None);
        }
        match usize::try_from(n) {
            Ok(n) if n <= max => Ok(Some(n)),
            _ => Err(Error::at(at, ErrorKind::BadLength { what, value: n.into(), min: -1, max: max as i64 })),
        }
    }

    /// A buffer (or string's bytes), read into memory.
    fn buffer(&mut self, what: &'static str) -> Result<Option<Vec<u8>>> {
        let Some(n) = self.len(what, MAX_BUFFER)? else { return Ok(None) };
        // filled as it is read: a length larger than the file costs what
        // the file holds, not the length
        let mut out = Vec::new();
        let mut chunk = [0u8; 8192];
        let mut left = n;
        while left > 0 {
            let take = left.min(chunk.len());
            let piece = chunk.get_mut(..take).unwrap_or_default();
            self.fill(piece, what)?;
            out.extend_from_slice(piece);
            left = left.saturating_sub(take);
        }
        Ok(Some(out))
    }

    /// A buffer skipped (not held).
    fn skip_buffer(&mut self, what: &'static str) -> Result<()> {
        let Some(mut left) = self.len(what, MAX_BUFFER)? else { return Ok(()) };
        let mut chunk = [0u8; 8192];
        while left > 0 {
            let take = left.min(chunk.len());
            self.fill(chunk.get_mut(..take).unwrap_or_default(), what)?;
            left = left.saturating_sub(take);
        }
        Ok(())
    }

    fn string(&mut self, what: &'static str) -> Result<Option<String>> {
        let at = self.pos;
        match self.buffer(what)? {
            None => Ok(None),
            Some(b) => String::from_utf8(b).map(Some).map_err(|_| Error::malformed(at, what, "not UTF-8")),
        }
    }
}

/// The files of a data dir's `version-2/`: snapshots and logs with their
/// zxid (from the name), each sorted by it.
/// Files with the zxid of their name.
type ByZxid = Vec<(i64, PathBuf)>;

fn files_of(dir: &Path) -> Result<(ByZxid, ByZxid)> {
    let v2 = if dir.file_name().is_some_and(|n| n == "version-2") { dir.to_path_buf() } else { dir.join("version-2") };
    let rd = std::fs::read_dir(&v2).map_err(|e| Error::io(e, Some(&v2)))?;
    let (mut snaps, mut logs) = (Vec::new(), Vec::new());
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let zxid = |rest: &str| i64::from_str_radix(rest.split('.').next().unwrap_or(""), 16).ok();
        if let Some(z) = name.strip_prefix("snapshot.").and_then(zxid) {
            snaps.push((z, e.path()));
        } else if let Some(z) = name.strip_prefix("log.").and_then(zxid) {
            logs.push((z, e.path()));
        }
    }
    if snaps.is_empty() && logs.is_empty() {
        return Err(Error::refused(format!(
            "{}: no ZooKeeper snapshot.* or log.* files: give ZooKeeper's dataDir (the dir holding version-2/)",
            v2.display()
        )));
    }
    snaps.sort();
    logs.sort();
    Ok((snaps, logs))
}

/// Read ZooKeeper's data dir `dir` (its `dataDir`, or `version-2/` itself).
pub fn read_data_dir(dir: &Path) -> Result<ZkTree> {
    let (snaps, logs) = files_of(dir)?;
    let mut tree = ZkTree::default();
    let mut skipped = Vec::new();
    let mut snap_zxid = -1;
    for (zxid, path) in snaps.iter().rev().take(MAX_SNAPSHOTS_TRIED) {
        let mut t = ZkTree::default();
        match read_snapshot(path, &mut t) {
            Ok(()) => {
                tree = t;
                tree.snapshot = Some(path.clone());
                snap_zxid = *zxid;
                break;
            }
            Err(e) => skipped.push((path.clone(), e.with_path(path).to_string())),
        }
    }
    tree.skipped_snapshots = skipped;
    tree.zxid = snap_zxid;
    // FileTxnLog.getLogFiles: the last log starting at or before the
    // snapshot's zxid, and every later one
    let first = logs.iter().rposition(|(z, _)| *z <= snap_zxid).unwrap_or(0);
    for (_, path) in logs.get(first..).unwrap_or_default() {
        tree.logs.push(path.clone());
        replay_log(path, &mut tree)?;
    }
    Ok(tree)
}

fn open(path: &Path) -> Result<Box<dyn Read>> {
    let f = std::fs::File::open(path).map_err(|e| Error::io(e, Some(path)))?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if name.ends_with(".gz") {
        Ok(Box::new(flate2::read::GzDecoder::new(BufReader::new(f))))
    } else if name.ends_with(".snappy") {
        Err(Error::refused(format!("{}: a snappy-compressed snapshot is not read", path.display())))
    } else {
        Ok(Box::new(BufReader::with_capacity(64 << 10, f)))
    }
}

fn header<R: Read>(j: &mut Jute<R>, magic: i32, what: &'static str) -> Result<()> {
    let at = j.pos;
    let m = j.i32(what)?;
    if m != magic {
        return Err(Error::malformed(at, what, format!("magic {m:#x}, not {magic:#x}")));
    }
    let at = j.pos;
    let version = j.i32("file header version")?;
    if version != 2 {
        return Err(Error::at(at, ErrorKind::BadVersion { what, version: version.into() }));
    }
    j.i64("file header dbid")?;
    Ok(())
}

/// One snapshot into `tree` (`FileSnap.deserialize`), its seal checked.
fn read_snapshot(path: &Path, tree: &mut ZkTree) -> Result<()> {
    let mut j = Jute::new(open(path)?);
    header(&mut j, SNAP_MAGIC, "snapshot file header")?;
    // sessions: (id, timeout) pairs
    let sessions = j.len("session count", usize::MAX >> 1)?.unwrap_or(0);
    for _ in 0..sessions {
        j.i64("session id")?;
        j.i32("session timeout")?;
    }
    // the ACL cache: (id, vector of (perms, scheme, id))
    let acls = j.len("ACL cache size", usize::MAX >> 1)?.unwrap_or(0);
    for _ in 0..acls {
        j.i64("ACL cache id")?;
        let n = j.len("ACL list length", usize::MAX >> 1)?.unwrap_or(0);
        for _ in 0..n {
            j.i32("ACL perms")?;
            j.skip_buffer("ACL scheme")?;
            j.skip_buffer("ACL id")?;
        }
    }
    loop {
        let Some(p) = j.string("znode path")? else {
            return Err(Error::malformed(j.pos, "znode path", "null"));
        };
        if p == "/" {
            break;
        }
        if kept(&p) {
            let data = j.buffer("znode data")?;
            tree.put(p, data).map_err(|e| e.with_path(path))?;
        } else {
            j.skip_buffer("znode data")?;
        }
        j.i64("znode acl")?;
        // StatPersisted: czxid mzxid ctime mtime version cversion aversion ephemeralOwner pzxid
        j.array::<60>("znode stat")?;
    }
    seal(&mut j)
}

/// `SnapStream.checkSealIntegrity`: the Adler-32 of all before it, then `/`.
fn seal<R: Read>(j: &mut Jute<R>) -> Result<()> {
    let computed = j.adler.checksum();
    let at = j.pos;
    let stored = j.i64("snapshot checksum")?;
    if stored != i64::from(computed) {
        return Err(Error::at(
            at,
            ErrorKind::CrcMismatch { what: "snapshot Adler-32", stored: stored as u32, computed },
        ));
    }
    match j.string("snapshot seal")? {
        Some(s) if s == "/" => Ok(()),
        _ => Err(Error::malformed(at.saturating_add(8), "snapshot seal", "not \"/\"")),
    }
}

/// Replay one transaction log's entries after `tree.zxid`.
fn replay_log(path: &Path, tree: &mut ZkTree) -> Result<()> {
    let mut j = Jute::new(open(path)?);
    if let Err(e) = header(&mut j, TXNLOG_MAGIC, "transaction log file header") {
        tree.torn.push((path.to_path_buf(), 0, e.message()));
        return Ok(());
    }
    loop {
        let at = j.pos;
        let entry = (|| -> Result<Option<(i64, Vec<u8>)>> {
            let crc = j.i64("transaction entry checksum")?;
            let Some(bytes) = j.buffer("transaction entry")? else { return Ok(None) };
            if bytes.is_empty() {
                return Ok(None);
            }
            let eor = j.u8("end of record")?;
            if eor != EOR {
                return Err(Error::malformed(j.pos.saturating_sub(1), "end of record", format!("{eor:#x}, not 'B'")));
            }
            Ok(Some((crc, bytes)))
        })();
        let (crc, bytes) = match entry {
            Ok(Some(e)) => e,
            // the preallocated zeros (or the end of the file): the log ends
            Ok(None) => return Ok(()),
            Err(e) if e.is_truncated() && at == j.pos => return Ok(()),
            Err(e) => {
                tree.torn.push((path.to_path_buf(), at, e.message()));
                return Ok(());
            }
        };
        let mut a = adler2::Adler32::new();
        a.write_slice(&bytes);
        if i64::from(a.checksum()) != crc {
            tree.torn.push((path.to_path_buf(), at, "transaction entry: Adler-32 mismatch (a torn write)".into()));
            return Ok(());
        }
        let body = at.saturating_add(12);
        apply_txn(&bytes, body, tree).map_err(|e| e.with_path(path))?;
    }
}

/// A cursor over one entry's bytes (jute over a slice, positions absolute).
fn slice_jute(bytes: &[u8], base: u64) -> Jute<&[u8]> {
    let mut j = Jute::new(bytes);
    j.pos = base;
    j
}

fn apply_txn(bytes: &[u8], base: u64, tree: &mut ZkTree) -> Result<()> {
    let mut j = slice_jute(bytes, base);
    // TxnHeader: clientId cxid zxid time type
    j.i64("txn client id")?;
    j.i32("txn cxid")?;
    let zxid = j.i64("txn zxid")?;
    j.i64("txn time")?;
    let kind = j.i32("txn type")?;
    if zxid <= tree.zxid {
        return Ok(());
    }
    tree.zxid = zxid;
    tree.transactions = tree.transactions.saturating_add(1);
    if kind == op::MULTI {
        let n = j.len("multi txn count", bytes.len())?.unwrap_or(0);
        for _ in 0..n {
            let sub = j.i32("multi sub-txn type")?;
            let at = j.pos.saturating_add(4);
            let Some(data) = j.buffer("multi sub-txn")? else { continue };
            apply_op(sub, &mut slice_jute(&data, at), tree)?;
        }
        Ok(())
    } else {
        apply_op(kind, &mut j, tree)
    }
}

/// One change to the tree (`DataTree.processTxn`); a type that changes no
/// data (sessions, errors, checks, ACLs) is nothing here.
fn apply_op(kind: i32, j: &mut Jute<&[u8]>, tree: &mut ZkTree) -> Result<()> {
    match kind {
        op::CREATE | op::CREATE2 | op::CREATE_CONTAINER | op::CREATE_TTL => {
            let path = j.string("create path")?.unwrap_or_default();
            let data = j.buffer("create data")?;
            if kept(&path) {
                tree.put(path, data)?;
            }
        }
        op::SET_DATA => {
            let path = j.string("setData path")?.unwrap_or_default();
            let data = j.buffer("setData data")?;
            if kept(&path) {
                tree.put(path, data)?;
            }
        }
        op::DELETE | op::DELETE_CONTAINER => {
            let path = j.string("delete path")?.unwrap_or_default();
            tree.delete(&path);
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// jute writer for the tests: what ZooKeeper's `BinaryOutputArchive` writes.
    #[derive(Default)]
    struct W(Vec<u8>);
    impl W {
        fn i32(&mut self, v: i32) -> &mut W {
            self.0.extend_from_slice(&v.to_be_bytes());
            self
        }
        fn i64(&mut self, v: i64) -> &mut W {
            self.0.extend_from_slice(&v.to_be_bytes());
            self
        }
        fn buf(&mut self, b: &[u8]) -> &mut W {
            self.i32(b.len() as i32);
            self.0.extend_from_slice(b);
            self
        }
    }

    fn snapshot(nodes: &[(&str, &[u8])]) -> Vec<u8> {
        let mut w = W::default();
        w.i32(SNAP_MAGIC).i32(2).i64(0).i32(0).i32(0);
        for (p, d) in nodes {
            w.buf(p.as_bytes()).buf(d).i64(-1);
            w.0.extend_from_slice(&[0u8; 60]);
        }
        w.buf(b"/");
        let mut a = adler2::Adler32::new();
        a.write_slice(&w.0);
        w.i64(a.checksum().into()).buf(b"/");
        w.0
    }

    fn entry(w: &mut W, zxid: i64, kind: i32, body: &[u8]) {
        let mut e = W::default();
        e.i64(1).i32(0).i64(zxid).i64(0).i32(kind);
        e.0.extend_from_slice(body);
        let mut a = adler2::Adler32::new();
        a.write_slice(&e.0);
        w.i64(a.checksum().into()).buf(&e.0);
        w.0.push(EOR);
    }

    fn dir_with(files: &[(&str, Vec<u8>)]) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("version-2")).unwrap();
        for (n, b) in files {
            std::fs::write(d.path().join("version-2").join(n), b).unwrap();
        }
        d
    }

    #[test]
    fn snapshot_then_log() {
        let snap = snapshot(&[("", b""), ("/config", b""), ("/config/topics/a", b"{\"config\":{}}"), ("/other", b"x")]);
        let mut log = W::default();
        log.i32(TXNLOG_MAGIC).i32(2).i64(0);
        // zxid 3 is in the snapshot already (a fuzzy snapshot): skipped
        let mut set = W::default();
        set.buf(b"/config/topics/a").buf(b"old").i32(0);
        entry(&mut log, 3, op::SET_DATA, &set.0);
        let mut set = W::default();
        set.buf(b"/config/topics/a").buf(b"{\"version\":1,\"config\":{\"x\":\"y\"}}").i32(1);
        entry(&mut log, 5, op::SET_DATA, &set.0);
        // a multi: create b, delete nothing kept
        let mut create = W::default();
        create.buf(b"/config/topics/b").buf(b"{}").i32(0).0.push(0);
        create.i32(0);
        let mut multi = W::default();
        multi.i32(1).i32(op::CREATE).buf(&create.0);
        entry(&mut log, 6, op::MULTI, &multi.0);
        log.0.extend_from_slice(&[0u8; 64]);
        let d = dir_with(&[("snapshot.4", snap), ("log.1", log.0)]);
        let t = read_data_dir(d.path()).unwrap();
        assert_eq!(t.text("/config/topics/a"), Some("{\"version\":1,\"config\":{\"x\":\"y\"}}"));
        assert_eq!(t.text("/config/topics/b"), Some("{}"));
        assert!(!t.nodes.contains_key("/other"));
        assert_eq!((t.zxid, t.transactions), (6, 2));
        assert!(t.torn.is_empty());
        assert_eq!(t.children("/config/topics").collect::<Vec<_>>(), ["a", "b"]);
    }

    #[test]
    fn a_damaged_snapshot_falls_back_to_an_older_one_and_huge_lengths_are_refused() {
        let good = snapshot(&[("", b""), ("/config/topics/a", b"1")]);
        let mut bad = snapshot(&[("", b""), ("/config/topics/a", b"2")]);
        let n = bad.len();
        bad[n - 10] ^= 1;
        let mut huge = W::default();
        huge.i32(SNAP_MAGIC).i32(2).i64(0).i32(0).i32(0).i32(i32::MAX);
        let d = dir_with(&[("snapshot.1", good), ("snapshot.2", bad), ("snapshot.3", huge.0)]);
        let t = read_data_dir(d.path()).unwrap();
        assert_eq!(t.text("/config/topics/a"), Some("1"));
        assert_eq!(t.skipped_snapshots.len(), 2);
        assert!(t.skipped_snapshots[0].1.contains("outside the valid range"), "{:?}", t.skipped_snapshots);
        assert!(t.skipped_snapshots[1].1.contains("Adler-32"), "{:?}", t.skipped_snapshots);
    }

    /// What Kafka 3.9.1 wrote into ZooKeeper 3.8.4 (fixtures/generate.sh
    /// zookeeper): the topic configs Workload.java gave, and the topic ids
    /// the broker wrote into each partition.metadata.
    #[test]
    fn reads_what_kafka_wrote_into_zookeeper() {
        let root = test_support::committed_fixtures();
        for scenario in ["zookeeper", "zookeeper-sigkill"] {
            let t = read_data_dir(&root.join(scenario).join("zookeeper-data")).unwrap();
            assert!(t.torn.is_empty() && t.skipped_snapshots.is_empty(), "{scenario}: {t:?}");
            let m = t.cluster_metadata();
            assert_eq!(m.undecodable, 0);
            let config = |topic: &str, k: &str| m.configs.get(&(RESOURCE_TOPIC, topic.to_string()))?.get(k).cloned();
            assert_eq!(config("zk-compact", "cleanup.policy").as_deref(), Some("compact"), "{scenario}");
            assert_eq!(config("zk-both", "cleanup.policy").as_deref(), Some("compact,delete"));
            assert_eq!(config("zk-fine", "index.interval.bytes").as_deref(), Some("256"));
            assert_eq!(config("zk-plain", "index.interval.bytes").as_deref(), Some("1024"));
            assert_eq!(config("zk-txn", "index.interval.bytes"), None);
            for (topic, parts) in [("zk-plain", 2), ("zk-fine", 1), ("__consumer_offsets", 1)] {
                let id = m.topics[topic];
                assert_eq!(m.partition_count(topic), Some(parts));
                assert_eq!(m.partitions[&id][&0].replicas, [1]);
                let pm = root.join(scenario).join(format!("logs/{topic}-0/partition.metadata"));
                let on_disk = crate::properties::parse_partition_metadata(&std::fs::read(pm).unwrap()).unwrap();
                assert_eq!(on_disk.topic_id, id, "{scenario} {topic}");
            }
            assert_eq!(t.migration(), ZkMigration::default());
        }
    }

    #[test]
    fn a_torn_log_tail_ends_the_log() {
        let mut log = W::default();
        log.i32(TXNLOG_MAGIC).i32(2).i64(0);
        let mut set = W::default();
        set.buf(b"/config/topics/a").buf(b"1").i32(0);
        entry(&mut log, 1, op::CREATE, &set.0);
        let keep = log.0.len();
        entry(&mut log, 2, op::SET_DATA, &set.0);
        log.0.truncate(keep + 20);
        let d = dir_with(&[("log.1", log.0)]);
        let t = read_data_dir(d.path()).unwrap();
        assert_eq!(t.text("/config/topics/a"), Some("1"));
        assert_eq!(t.torn.len(), 1);
        assert_eq!(t.torn[0].1, keep as u64);
    }
}
