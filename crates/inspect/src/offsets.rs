//! How `offset-for-time` shows a ListOffsets answer (`rules::offsets`
//! answers it): one line per partition and time asked.

/// What `offset-for-time` asks of `logrules::offsets`.
pub use logrules::offsets::{Answer, PartitionOffsets, RemoteLog, Spec, pending_markers, read_remote_log};

/// The line of `answer` of `p` to the time asked as `query` (`spec`).
pub fn line(p: &PartitionOffsets, query: &str, spec: Spec, answer: Answer) -> OffsetLine {
    OffsetLine {
        topic: p.topic.clone(),
        partition: p.partition,
        dir: p.dir.display().to_string(),
        query: query.to_string(),
        time: spec.kafka_value(),
        offset: answer.offset,
        timestamp: answer.timestamp,
        leader_epoch: answer.leader_epoch,
        segment: answer.segment.map(|s| s.display().to_string()),
        position: answer.position,
        detail: answer.detail,
    }
}

/// One ListOffsets answer (`offset`).
#[derive(serde::Serialize)]
pub struct OffsetLine {
    /// Topic.
    pub topic: String,
    /// Partition.
    pub partition: i32,
    /// The partition dir.
    pub dir: String,
    /// The time asked, as given.
    pub query: String,
    /// The time as Kafka's ListOffsets takes it (-2 earliest, -1 latest, ...).
    pub time: i64,
    /// The offset Kafka answers (none: -1).
    pub offset: Option<i64>,
    /// The record's timestamp.
    pub timestamp: Option<i64>,
    /// The leader epoch Kafka reports with it.
    pub leader_epoch: Option<i32>,
    /// The segment holding that offset's batch.
    pub segment: Option<String>,
    /// That batch's byte position in it.
    pub position: Option<u64>,
    /// Where the answer came from, or why there is none.
    pub detail: Option<String>,
}

impl logfmt::report::Report for OffsetLine {
    const TYPE: &'static str = "offset";

    fn show(&self) -> logfmt::report::Shown {
        let o = self;
        // (the partition as Kafka names its dir: topic-partition)
        const OFFSET: &[&str] = &["PARTITION", "TIME", "OFFSET", "TIMESTAMP", "EPOCH", "SEGMENT", "POSITION", "DETAIL"];
        let opt = |v: Option<String>| v.unwrap_or_else(|| "-".into());
        let segment = o
            .segment
            .as_deref()
            .map(|s| std::path::Path::new(s).file_name().map_or(s.to_string(), |f| f.to_string_lossy().into_owned()));
        logfmt::report::Shown::Row(
            OFFSET,
            vec![
                format!("{}-{}", o.topic, o.partition),
                o.query.clone(),
                opt(o.offset.map(|v| v.to_string())),
                opt(o.timestamp.map(logfmt::report::time_text)),
                opt(o.leader_epoch.map(|v| v.to_string())),
                opt(segment),
                opt(o.position.map(|v| v.to_string())),
                opt(o.detail.clone()),
            ],
        )
    }
}
