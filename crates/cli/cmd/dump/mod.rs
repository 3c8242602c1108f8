//! `logtool dump`: print what files, partition dirs and log dirs hold.
//!
//! The walk is `inspect::dump`'s (the plan, each file read by its kind,
//! damage reported and gone past, `--follow`); this command keeps the
//! arguments, the filters' matching ([`FilterArgs`] is its
//! [`RecordFilter`]) and how payloads print ([`lines`]: UTF-8, hex,
//! base64 or redacted, and the fast JSON writer of record lines).

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use clap::Args;
use inspect::dump::{Item, Options, Outcome, Part, RecordFilter, RecordItem, Selection, Visit, Walk, Work, plan};
use logfmt::logdir::{self, Target};

use crate::args::{Decode, FilterArgs, GlobalOpts, LimitArgs, OffsetRange, Payload, parse_offset_range, parse_size};
use crate::exit::Status;
use crate::output::Output;
use crate::progress::Progress;
use crate::redact::Redactor;

mod lines;

pub fn run(global: &GlobalOpts, args: &DumpArgs) -> anyhow::Result<Status> {
    let redact = Redactor::from_args(&args.redact)?;
    let opts = Options {
        limits: args.limits.limits(),
        deep: args.deep || args.follow,
        max_bytes: args.max_bytes,
        // a redacted record is not decoded (its fields would show)
        decode: if redact.is_some() { inspect::dump::Decode::None } else { decode(args.decode) },
        records_only: args.filter.active(),
        aborted_only: args.filter.aborted,
    };
    let out = Output::new(BufWriter::with_capacity(1 << 16, io::stdout().lock()), global.format);
    if args.follow {
        let [dir] = args.paths.as_slice() else { anyhow::bail!("--follow takes one partition dir") };
        if !matches!(logdir::resolve(dir)?, Target::PartitionDir(_)) {
            anyhow::bail!("{}: --follow takes a partition dir", dir.display());
        }
        let progress = Progress::new(0, true);
        let printer = Printer::new(out, args, redact, &progress, global.format);
        let poll = std::time::Duration::from_millis(args.poll_ms.max(1));
        Walk::new(opts, &args.filter, printer).follow(dir, args.offsets, poll)?;
        return Ok(Status::Clean);
    }
    let selection = Selection {
        offsets: args.offsets,
        since: args.filter.since,
        until: args.filter.until,
        aborted: args.filter.aborted,
    };
    let mut work = Vec::new();
    for p in &args.paths {
        if (args.filter.since.is_some() || args.filter.until.is_some())
            && matches!(logdir::resolve(p), Ok(Target::File(_)))
        {
            anyhow::bail!(
                "{}: --since and --until take partition dirs or log dirs (they use the time indexes)",
                p.display()
            );
        }
        plan(p, &selection, &opts.limits, &mut work);
    }
    let total: u64 = work.iter().map(|w| if let Work::File { size, .. } = w { *size } else { 0 }).sum();
    let progress = Progress::new(total, global.quiet);
    let mut walk = Walk::new(opts, &args.filter, Printer::new(out, args, redact, &progress, global.format));
    for w in work {
        walk.work(w)?;
    }
    progress.finish();
    let (outcome, mut printer) = walk.finish()?;
    printer.out.finish()?;
    Ok(match outcome {
        // a filter that matched nothing: 1, as grep exits
        Outcome::Clean if args.filter.active() && !printer.matched => {
            if global.format != crate::args::Format::Json {
                eprintln!("logtool: no record matched the filters");
            }
            Status::Problems
        }
        Outcome::Clean => Status::Clean,
        Outcome::Problems => Status::Problems,
        Outcome::NotJudged => Status::Error,
    })
}

fn decode(d: Decode) -> inspect::dump::Decode {
    use inspect::dump::Decode as D;
    match d {
        Decode::Auto => D::Auto,
        Decode::None => D::None,
        Decode::ConsumerOffsets => D::ConsumerOffsets,
        Decode::TransactionState => D::TransactionState,
        Decode::ShareGroupState => D::ShareGroupState,
        Decode::ClusterMetadata => D::ClusterMetadata,
        Decode::RemoteLogMetadata => D::RemoteLogMetadata,
    }
}

impl RecordFilter for FilterArgs {
    fn on_records(&self) -> bool {
        FilterArgs::on_records(self)
    }

    fn batch(&self, producer_id: i64, transactional: bool) -> bool {
        FilterArgs::batch(self, producer_id, transactional)
    }

    fn record<'h>(
        &self,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        headers: &mut dyn Iterator<Item = (&'h [u8], Option<&'h [u8]>)>,
    ) -> bool {
        FilterArgs::record(self, key, value, headers)
    }
}

/// Where the walk's items are printed.
struct Printer<'a, W: Write> {
    out: Output<W>,
    payload: Payload,
    redact: Option<Redactor>,
    progress: &'a Progress,
    format: crate::args::Format,
    /// With filters: a file's header is held until something of the file
    /// is printed (files with no match are not shown), rendered.
    filtering: bool,
    held: Option<Vec<u8>>,
    /// A batch or record was printed.
    matched: bool,
    /// Buffers of parts written, for the next ones ([`Visit::part`]).
    spare: std::cell::RefCell<Vec<Vec<u8>>>,
}

/// The most the buffers of parts kept for reuse hold together (a run's
/// parts hold at most 16 MiB of lines: `inspect::dump`'s bound).
const SPARE_BYTES: usize = 16 << 20;

impl<'a, W: Write> Printer<'a, W> {
    fn new(
        out: Output<W>,
        args: &DumpArgs,
        redact: Option<Redactor>,
        progress: &'a Progress,
        format: crate::args::Format,
    ) -> Self {
        Printer {
            out,
            payload: args.payload,
            redact,
            progress,
            format,
            filtering: args.filter.active(),
            held: None,
            matched: false,
            spare: Default::default(),
        }
    }

    /// The held file header goes out (something of its file follows).
    fn release(&mut self) -> io::Result<()> {
        match self.held.take() {
            Some(bytes) => self.out.raw(&bytes),
            None => Ok(()),
        }
    }
}

impl<W: Write> Visit for Printer<'_, W> {
    fn item(&mut self, item: &Item<'_>) -> io::Result<()> {
        if self.filtering {
            match item {
                Item::File(_) => {
                    let mut bytes = Vec::new();
                    let mut o = Output::new(&mut bytes, self.format);
                    o.emit(item)?;
                    o.finish()?;
                    drop(o);
                    self.held = Some(bytes);
                    return Ok(());
                }
                Item::Summary(_) => self.held = None,
                _ => self.release()?,
            }
        }
        if matches!(item, Item::Batch(_)) {
            self.matched = true;
        }
        self.out.emit(item)
    }

    fn record(&mut self, record: &RecordItem<'_>) -> io::Result<()> {
        self.release()?;
        self.matched = true;
        self.out.emit(&lines::RecordLine::new(record, self.payload, self.redact.as_ref()))
    }

    fn progress(&mut self, bytes: u64) {
        self.progress.inc(bytes);
    }

    fn unreadable(&mut self, error: &logfmt::Error) {
        // a path that could not be read at all: said where errors go too
        eprintln!("logtool: error: {error}");
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.finish()
    }

    fn part(&self) -> Option<Box<dyn Part + '_>> {
        // JSON lines stand alone (a table's columns need every row); with
        // filters, a file's header waits for a match
        let whole = self.format == crate::args::Format::Json && !self.filtering;
        whole.then(|| {
            let buf = self.spare.borrow_mut().pop().unwrap_or_default();
            Box::new(PrinterPart { out: Output::held_json(buf), payload: self.payload, redact: self.redact.as_ref() })
                as Box<dyn Part + '_>
        })
    }

    fn append(&mut self, bytes: Vec<u8>) -> io::Result<()> {
        if !bytes.is_empty() {
            self.matched = true;
        }
        self.out.raw(&bytes)?;
        // kept for the next parts, within a bound on what the kept hold
        let mut spare = self.spare.borrow_mut();
        let kept: usize = spare.iter().map(Vec::capacity).sum();
        if kept.saturating_add(bytes.capacity()) <= SPARE_BYTES {
            spare.push(bytes);
        }
        Ok(())
    }
}

/// A [`Printer`]'s lines told on another thread (JSON, no filters): what
/// the printer would write, into memory.
struct PrinterPart<'a> {
    out: Output<Vec<u8>>,
    payload: Payload,
    redact: Option<&'a Redactor>,
}

impl Visit for PrinterPart<'_> {
    fn item(&mut self, item: &Item<'_>) -> io::Result<()> {
        self.out.emit(item)
    }

    fn record(&mut self, record: &RecordItem<'_>) -> io::Result<()> {
        self.out.emit(&lines::RecordLine::new(record, self.payload, self.redact))
    }
}

impl Part for PrinterPart<'_> {
    fn into_bytes(self: Box<Self>) -> Vec<u8> {
        self.out.into_bytes()
    }
}

#[derive(Args, Debug)]
pub struct DumpArgs {
    /// Files or directories to dump.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Also print every record of every batch.
    #[arg(long)]
    pub deep: bool,
    /// Follow one partition dir like `tail -f`: print the records a broker appends
    /// from now on (implies --deep), across segment rolls, until interrupted.
    /// With --offsets, from its start instead of the log end.
    #[arg(long, conflicts_with = "max_bytes")]
    pub follow: bool,
    /// With --follow: how often to look for new data, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 200, requires = "follow", hide_short_help = true)]
    pub poll_ms: u64,
    /// How to print keys, values and header values (utf8 is lossy: invalid bytes become U+FFFD).
    #[arg(long, value_enum, default_value_t = Payload::Utf8)]
    pub payload: Payload,
    /// Decode the records of Kafka's internal topics (auto: by topic name; KRaft .checkpoint
    /// files are cluster metadata). The decoded record is a `decoded` object in JSON.
    #[arg(long, value_enum, default_value_t = Decode::Auto)]
    pub decode: Decode,
    /// Only offsets in this range: FIRST-LAST (both included, as ranges are
    /// printed), A..B (B excluded), A.., ..B, or one offset A.
    /// Segments outside it are skipped and the offset index is used to seek.
    #[arg(long, value_name = "RANGE", value_parser = parse_offset_range)]
    pub offsets: Option<OffsetRange>,
    /// Only read batches lying entirely within the first N bytes of each .log
    /// (like kafka-dump-log's --max-bytes). Suffixes K, M, G (powers of 1024).
    #[arg(long, value_name = "N", value_parser = parse_size)]
    pub max_bytes: Option<u64>,
    #[command(flatten)]
    pub filter: FilterArgs,
    #[command(flatten)]
    pub redact: crate::redact::RedactArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}
