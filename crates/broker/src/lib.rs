//! `logtool broker`: a minimal Kafka broker on loopback that unmodified
//! Kafka clients produce to and fetch from, writing a real Kafka log dir
//! (Kafka 3.9's, or a 4.3 cluster's with `--kafka-version 4.3`) through
//! `logwrite`'s writer (see `store`), which a real Kafka of that release
//! starts on after a clean stop or a SIGKILL; started on a dir it or a
//! single-node Kafka left, it serves that again.
//!
//! Layers: `server` (frames, headers, dispatch; the wire messages are
//! `kafka-protocol`'s, generated from Kafka's JSON definitions),
//! `handlers` and the `*_api` modules (one function per API, one file per
//! API family; the coordinators they ask are the `coordinator` crate, with
//! no I/O; what they share is `api`, the errors they answer `error`'s
//! `ApiError`), `store` (`Store` the log dir: topics, partitions, producer
//! ids, the shutdown; `State` it and the coordinators' state), `versions`
//! (what is advertised), `zerocopy` (a Fetch's records sent from the
//! segments). One node, the controller of a static quorum and the only
//! replica of every partition.

#![cfg_attr(test, allow(clippy::arithmetic_side_effects))]

/// Kafka's defaults of the broker's settings (`rules::config`), the
/// defaults of `logtool broker`'s options.
pub mod defaults {
    pub use logrules::config::{GROUP_INITIAL_REBALANCE_DELAY_MS, NUM_PARTITIONS, OFFSETS_TOPIC_PARTITIONS};
}

mod api;
mod consumer_api;
mod error;
pub mod faults;
mod generic;
mod group_api;
mod handlers;
mod server;
mod sessions;
mod share_api;
mod store;
mod txn_api;
mod versions;
mod zerocopy;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::net::TcpListener;
use tokio::sync::Notify;

pub use store::TRANSACTION_PARTITIONS;
pub use versions::{KAFKA4_ONLY, SUPPORTED};

/// Kafka's default `socket.listen.backoff.ms`: how long the acceptor waits
/// after an accept failed (out of file handles).
const LISTEN_BACKOFF: std::time::Duration = std::time::Duration::from_millis(1000);

/// How often transactions are checked for their timeout (Kafka's
/// `transaction.abort.timed.out.transaction.cleanup.interval.ms` is 10 s;
/// sooner here, for tests).
const TXN_TIMEOUT_CHECK: std::time::Duration = std::time::Duration::from_secs(1);

/// How often a failing accept is said again.
const ACCEPT_ERROR_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

pub(crate) use coordinator::after;

/// What can stop the broker.
#[derive(Debug, thiserror::Error)]
pub enum BrokerError {
    /// Reading or writing the log dir.
    #[error(transparent)]
    Log(#[from] logfmt::Error),
    /// The network or the runtime.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// Not served (a reason in words).
    #[error("{0}")]
    Refused(String),
}

/// The broker's settings.
#[derive(Clone, Debug)]
pub struct Config {
    /// The log dir: new or empty, or one this broker or a single-node
    /// Kafka 3.9 (node 1) left (`store::State::open`).
    pub log_dir: PathBuf,
    /// Where to listen (port 0: a free one).
    pub listen: SocketAddr,
    /// `node.id` (1: the controller of the static quorum).
    pub node_id: i32,
    /// `num.partitions` for auto-created topics and CreateTopics without a count.
    pub partitions: i32,
    /// `auto.create.topics.enable`.
    pub auto_create_topics: bool,
    /// `offsets.topic.num.partitions`.
    pub offsets_partitions: i32,
    /// `transaction.state.log.num.partitions`.
    pub transaction_partitions: i32,
    /// `group.initial.rebalance.delay.ms`.
    pub initial_rebalance_delay_ms: u64,
    /// The Kafka release a new log dir's cluster is (`--kafka-version`):
    /// 3.9, or 4.3 with the features a fresh Kafka 4.3.1 finalizes
    /// (transaction version 2). A dir opened again is what it was made.
    pub kafka_version: logrules::config::Version,
    /// Fault rules (`faults`).
    pub faults: Vec<String>,
    /// A control file of fault rules, re-read when it changes.
    pub fault_file: Option<PathBuf>,
    /// The start recoveries whose quarantines are kept (for undo): after
    /// one more, the oldest beyond this many are purged.
    pub keep_recoveries: usize,
}

/// What every connection shares.
pub struct Shared {
    store: Mutex<store::State>,
    /// The memory Fetch responses may take, all together
    /// (`api::FETCH_MEMORY` bytes).
    fetch_memory: Arc<tokio::sync::Semaphore>,
    /// The bytes of requests being read (`server::QUEUED_MAX_REQUEST_BYTES`).
    request_memory: Arc<tokio::sync::Semaphore>,
    /// Woken after every append (Fetch waits on it).
    appended: Notify,
    /// Woken when a group changes (JoinGroup and SyncGroup wait on it).
    group_changed: Notify,
    initial_rebalance_delay: std::time::Duration,
    faults: Mutex<faults::Faults>,
    fetch_sessions: Mutex<sessions::FetchSessions>,
    advertised: SocketAddr,
    auto_create: bool,
    default_partitions: i32,
    /// The cluster is a Kafka 4.x one (its log dir's `metadata.version`):
    /// the versions transaction version 2 uses are advertised.
    kafka4: bool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, store::State> {
        self.store.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Run the broker until SIGTERM or SIGINT, then stop cleanly. `ready` is
/// told the address it listens on once it accepts connections.
pub fn run(config: &Config, ready: impl FnOnce(SocketAddr)) -> Result<(), BrokerError> {
    if config.node_id != logwrite::write::logdir::CONTROLLER_ID {
        return Err(BrokerError::Refused(format!(
            "node id {}: logtool broker is node {} (the controller of its static quorum)",
            config.node_id,
            logwrite::write::logdir::CONTROLLER_ID
        )));
    }
    if !config.listen.ip().is_loopback() {
        return Err(BrokerError::Refused(format!("{}: logtool broker listens on loopback only", config.listen)));
    }
    let faults = faults::Faults::new(&config.faults, config.fault_file.clone()).map_err(BrokerError::Refused)?;
    check_log_dir(&config.log_dir)?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(async {
        let listener = TcpListener::bind(config.listen).await.map_err(|e| {
            let hint = if e.kind() == std::io::ErrorKind::AddrInUse {
                " (another process listens there; --listen 127.0.0.1:0 takes a free port)"
            } else {
                ""
            };
            BrokerError::Refused(format!("cannot listen on {}: {e}{hint}", config.listen))
        })?;
        let dir = &config.log_dir;
        // one lock, taken before the dir is looked at and held until the
        // broker stops (the recovery at start runs under it)
        let made = !dir.exists();
        std::fs::create_dir_all(dir)
            .map_err(|e| BrokerError::Refused(format!("{}: cannot create the log dir: {e}", dir.display())))?;
        // relative paths, `.` and symlinks resolved: the quarantine of a
        // recovery goes beside the log dir, never inside it
        let dir = &std::fs::canonicalize(dir).map_err(|e| BrokerError::Refused(format!("{}: {e}", dir.display())))?;
        let opened = open_locked(config, dir);
        if opened.is_err() && made {
            // a failed start leaves nothing behind
            let _ = std::fs::remove_dir_all(dir);
        }
        let (mut store, _lock) = opened?;
        store.set_transaction_partitions(config.transaction_partitions);
        let advertised = listener.local_addr()?;
        store.set_broker_configs(broker_configs(config, dir, advertised));
        let kafka4 = store.kafka_version().is_4x();
        let sh = Arc::new(Shared {
            kafka4,
            store: Mutex::new(store),
            fetch_memory: Arc::new(tokio::sync::Semaphore::new(api::FETCH_MEMORY)),
            request_memory: Arc::new(tokio::sync::Semaphore::new(server::QUEUED_MAX_REQUEST_BYTES)),
            appended: Notify::new(),
            group_changed: Notify::new(),
            initial_rebalance_delay: std::time::Duration::from_millis(config.initial_rebalance_delay_ms),
            faults: Mutex::new(faults),
            fetch_sessions: Mutex::new(sessions::FetchSessions::default()),
            advertised,
            auto_create: config.auto_create_topics,
            default_partitions: config.partitions,
        });
        ready(advertised);
        let mut connections = tokio::task::JoinSet::new();
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
        // an accept that fails (out of file handles) is retried after
        // socket.listen.backoff.ms, as Kafka's Acceptor does
        // (throttleForKnownError); said at most once a minute, and that it
        // accepts again once it does
        let mut backoff: Option<std::time::Duration> = None;
        // the transaction coordinator aborts what has run past its timeout
        let mut tick = tokio::time::interval(TXN_TIMEOUT_CHECK);
        let mut said: Option<std::time::Instant> = None;
        let mut recovered = true;
        loop {
            if let Some(d) = backoff.take() {
                tokio::select! {
                    _ = tokio::time::sleep(d) => {}
                    _ = term.recv() => break,
                    _ = tokio::signal::ctrl_c() => break,
                }
            }
            tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => {
                        if !recovered {
                            eprintln!("logtool broker: accepting connections again");
                            recovered = true;
                        }
                        connections.spawn(server::connection(stream, Arc::clone(&sh)));
                    }
                    Err(e) => {
                        if said.is_none_or(|t| t.elapsed() >= ACCEPT_ERROR_EVERY) {
                            eprintln!(
                                "logtool broker: cannot accept a connection: {e} ({} open); retrying every {} ms (raise `ulimit -n`)",
                                connections.len(),
                                LISTEN_BACKOFF.as_millis()
                            );
                            said = Some(std::time::Instant::now());
                            recovered = false;
                        }
                        backoff = Some(LISTEN_BACKOFF);
                    }
                },
                Some(_) = connections.join_next(), if !connections.is_empty() => {}
                _ = tick.tick() => txn_api::abort_timed_out(&sh),
                _ = term.recv() => break,
                _ = tokio::signal::ctrl_c() => break,
            }
        }
        connections.abort_all();
        while connections.join_next().await.is_some() {}
        drop(listener);
        let sh = Arc::try_unwrap(sh).map_err(|_| BrokerError::Refused("connections still open at shutdown".into()))?;
        let store = sh.store.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        store.store.shutdown()
    })
}

/// What the log dir is, said before anything is touched: a file is not a
/// log dir; a dir another process serves (its `.lock` held, as a Kafka
/// broker or another `logtool broker` holds it) is refused naming that
/// process; a dir with files but no `meta.properties` is not a Kafka log
/// dir. A new or empty dir, or one a broker left, goes on.
/// The broker's settings as a Kafka server.properties would hold them
/// (its node, roles, listener, log dir and the options it was given), with
/// `broker.id` as Kafka copies it from `node.id`
/// (`KafkaConfig.populateSynonyms`).
fn broker_configs(
    config: &Config,
    dir: &std::path::Path,
    listen: SocketAddr,
) -> std::collections::BTreeMap<String, String> {
    [
        ("process.roles", "broker,controller".to_string()),
        ("node.id", config.node_id.to_string()),
        ("broker.id", config.node_id.to_string()),
        ("listeners", format!("PLAINTEXT://{listen}")),
        ("log.dirs", dir.display().to_string()),
        ("num.partitions", config.partitions.to_string()),
        ("auto.create.topics.enable", config.auto_create_topics.to_string()),
        ("offsets.topic.num.partitions", config.offsets_partitions.to_string()),
        ("transaction.state.log.num.partitions", config.transaction_partitions.to_string()),
        ("group.initial.rebalance.delay.ms", config.initial_rebalance_delay_ms.to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

fn check_log_dir(dir: &std::path::Path) -> Result<(), BrokerError> {
    let refused = |why: String| Err(BrokerError::Refused(format!("{}: {why}", dir.display())));
    match std::fs::metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return refused(format!("cannot read it: {e}")),
        Ok(m) if !m.is_dir() => {
            return refused(
                "not a directory (--log-dir takes a directory: new, empty, or one a Kafka broker or logtool broker left)"
                    .into(),
            );
        }
        Ok(_) => {}
    }
    if let logfmt::lock::LockState::Held(holder) = logfmt::lock::log_dir_lock(dir) {
        return refused(format!("another process, {holder}, serves this log dir (it holds its .lock): stop it first"));
    }
    // (an empty `.lock` a killed writer left is no content)
    let empty = !std::fs::read_dir(dir)
        .map_err(|e| BrokerError::Refused(format!("{}: {e}", dir.display())))?
        .any(|e| e.is_ok_and(|e| e.file_name() != logfmt::spec::names::LOCK));
    if !empty && !dir.join(logfmt::spec::names::META_PROPERTIES).is_file() {
        return refused(
            "not a Kafka log dir: it holds files but no meta.properties (give a new or empty dir, or one a Kafka broker or logtool broker left)"
                .into(),
        );
    }
    Ok(())
}

/// The log dir locked, then opened (recovered first when it was not shut
/// down cleanly) or made: refused while another process holds it, or while
/// a logtool repair of it is unfinished (its process died part way through
/// its commit: the dir is neither as before nor as repaired).
fn open_locked(
    config: &Config,
    dir: &std::path::Path,
) -> Result<(store::State, Arc<logwrite::lock::DirLock>), BrokerError> {
    let held = Arc::new(
        logwrite::lock::DirLock::acquire(dir).map_err(|e| BrokerError::Refused(format!("{}: {e}", dir.display())))?,
    );
    let unfinished = logfmt::journal::unfinished(dir).map_err(|e| BrokerError::Refused(e.to_string()))?;
    if let Some((_, m)) = unfinished.iter().find(|(_, m)| m.command != "broker") {
        return Err(BrokerError::Refused(format!("{}: {}", dir.display(), logfmt::journal::unfinished_advice(dir, m))));
    }
    let existing = std::fs::read_dir(dir)
        .map_err(|e| BrokerError::Refused(format!("{}: {e}", dir.display())))?
        .any(|e| e.is_ok_and(|e| e.file_name() != logfmt::spec::names::LOCK));
    let store = if existing {
        if !dir.join(logfmt::spec::names::CLEAN_SHUTDOWN).exists() || !unfinished.is_empty() {
            // (a recovery the broker began and did not finish is finished)
            recover_unclean(dir, &held, config.keep_recoveries)?;
        }
        store::State::open(dir, config.node_id, config.offsets_partitions)?
    } else {
        store::State::create(dir, config.node_id, config.offsets_partitions, config.kafka_version)?
    };
    Ok((store, held))
}

/// What Kafka's log loading does after an unclean shutdown
/// (`logwrite::repair::recover`, as `logtool recover --execute` runs it):
/// every byte it removes goes to the quarantine beside the log dir, with a
/// manifest `logtool undo` reads. A recovery that would cut a rolled
/// segment (losing later ones) is refused: the operator decides.
fn recover_unclean(dir: &std::path::Path, held: &Arc<logwrite::lock::DirLock>, keep: usize) -> Result<(), BrokerError> {
    use logwrite::repair::journal::{Repair, default_quarantine};
    use logwrite::repair::recover::{Interval, RecoverOptions, recover};
    let refused = |e: &dyn std::fmt::Display| {
        BrokerError::Refused(format!(
            "{}: recovery after an unclean shutdown: {e} (see `logtool recover {}`)",
            dir.display(),
            dir.display()
        ))
    };
    let quarantine = default_quarantine(dir);
    let mut repair = Repair::begin_locked(Arc::clone(held), dir, &quarantine, "broker").map_err(|e| refused(&e))?;
    let opts = RecoverOptions {
        all: false,
        interval: Interval::FromMetadata,
        metadata: None,
        zookeeper: None,
        limits: logfmt::Limits::default(),
        allow_data_loss: false,
        roll: false,
        progress: logwrite::repair::Progress::default(),
        kafka_version: None,
    };
    if let Err(e) = recover(dir, &opts, &mut repair) {
        repair.abandon().map_err(|e| refused(&e))?;
        return Err(refused(&e));
    }
    if repair.changes.is_empty() {
        repair.abandon().map_err(|e| refused(&e))?;
        return Ok(());
    }
    let changes = repair.changes.len();
    let at = repair.dir().display().to_string();
    let m = repair.commit().map_err(|e| refused(&e))?;
    eprintln!(
        "logtool broker: recovered {} after an unclean shutdown: {changes} change(s), repair {} (removed bytes kept in {at}; undo with `logtool undo {} --id {} --execute` while the broker is stopped)",
        dir.display(),
        m.id,
        dir.display(),
        m.id
    );
    // the oldest start recoveries beyond `keep` give their space back
    let mine: Vec<String> = logwrite::repair::journal::repairs(&quarantine, dir)
        .map_err(|e| refused(&e))?
        .into_iter()
        .filter(|(_, m)| m.command == "broker" && logwrite::repair::journal::purgeable(m.state))
        .map(|(_, m)| m.id)
        .collect();
    let old = mine.len().saturating_sub(keep);
    if let Some(ids) = mine.get(..old).filter(|ids| !ids.is_empty()) {
        let freed = logwrite::repair::journal::purge_locked(&quarantine, dir, ids).map_err(|e| refused(&e))?;
        eprintln!(
            "logtool broker: purged the quarantines of {} older start recover(ies) ({} freed; --keep-recoveries {keep})",
            ids.len(),
            logfmt::report::human_bytes(freed)
        );
    }
    Ok(())
}
