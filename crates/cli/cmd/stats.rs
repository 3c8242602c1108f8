//! `logtool stats`: what partitions hold, in numbers and pictures.
//!
//! The numbers are `inspect::stats` (one bounded-memory pass per partition,
//! partitions in parallel); this module owns the command's arguments, sums
//! partitions per log dir and in total, draws the terminal charts
//! (histograms, a sparkline) and the `--chart` file (plotters: PNG or SVG).
//! It is the model of a command that owns its parts: its clap arguments are
//! here, its lines render themselves (`logfmt::report::Report`), and it is
//! registered by its variant in `cmd/mod.rs`.

use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use clap::Args;
use inspect::offsets::RemoteLog;
use inspect::schedule;
use inspect::stats::{self, Histogram, Stats, Timeline};
use logfmt::partition::{LogDir, Targets};
use logfmt::report::{grouped, human_bytes};

use crate::args::{GlobalOpts, LimitArgs};
use crate::exit::Status;
use crate::output::Output;
use crate::progress::Progress;

#[derive(Args, Debug)]
pub struct StatsArgs {
    /// Log dirs or partition dirs.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Producers listed one by one, the largest by bytes.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub top: usize,
    #[command(flatten)]
    pub zookeeper: crate::args::ZookeeperArgs,
    /// Draw the charts into FILE: .png or .svg (bytes and records over time per
    /// partition, batch sizes, each producer's share).
    #[arg(long, value_name = "FILE")]
    pub chart: Option<PathBuf>,
    /// The TrueType font of the chart's text [default: DejaVu Sans, Liberation Sans or
    /// Noto Sans where installed].
    #[arg(long, value_name = "FONT.ttf", requires = "chart")]
    pub chart_font: Option<PathBuf>,
    /// No histograms or sparklines under the table.
    #[arg(long)]
    pub no_charts: bool,
    /// Accepted for scripts that pass it to every command: stats prints no keys,
    /// values or header values (only counts, sizes, producer ids and paths).
    #[arg(long, hide_short_help = true)]
    pub redact: bool,
    /// Read this many partitions at once (default: one per core).
    #[arg(short = 'j', long, value_name = "N", value_parser = crate::args::parse_threads)]
    pub threads: Option<std::num::NonZeroUsize>,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Partitions of one path, with its log dir.
struct Group {
    path: PathBuf,
    is_log_dir: bool,
    log_dir: Arc<LogDir>,
    /// Its remote log metadata (tiered partitions).
    remote: Option<Arc<RemoteLog>>,
    dirs: Vec<PathBuf>,
}

pub fn run(global: &GlobalOpts, args: &StatsArgs) -> anyhow::Result<Status> {
    let threads = args.limits.threads(args.threads);
    let limits = args.limits.limits_for(threads);
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    let dedupe_buffer = logfmt::budget::pool_for(args.limits.memory, 1).0 / 2;
    let opts = stats::Options { top_producers: args.top, now_ms, limits, dedupe_buffer };
    // a chart that cannot be written is refused before any reading
    if let Some(file) = &args.chart {
        chart::check(file, args.chart_font.as_deref())?;
    }
    let zookeeper = args.zookeeper.read()?;
    let mut groups = Vec::new();
    for path in &args.paths {
        // what the broker serves: a -future replica (a move between log
        // dirs under way) counts in its dir, as DescribeLogDirs counts it
        let t =
            Targets::of_with(path, &limits, zookeeper.as_ref()).with_context(|| path.display().to_string())?.served();
        let remote = inspect::offsets::read_remote_log(&t.log_dir, &limits)?.map(Arc::new);
        groups.push(Group {
            path: path.clone(),
            is_log_dir: t.is_log_dir,
            log_dir: t.log_dir,
            remote,
            dirs: t.partitions,
        });
    }
    // each partition with the bytes of its segments (what the bar counts)
    type Work<'a> = (Arc<LogDir>, Option<Arc<RemoteLog>>, &'a PathBuf);
    let work: Vec<(Work<'_>, u64)> = groups
        .iter()
        .flat_map(|g| {
            g.dirs.iter().map(|d| ((Arc::clone(&g.log_dir), g.remote.clone(), d), logfmt::logdir::segment_bytes(d)))
        })
        .collect();
    let total_bytes: u64 = work.iter().map(|(_, size)| size).sum();
    let dirs: Vec<&PathBuf> = work.iter().map(|((_, _, d), _)| *d).collect();
    let progress = Progress::new(total_bytes, global.quiet);
    // on `inspect::schedule`'s pool: a partition the memory budget refused
    // while other threads held memory is read again alone, so the numbers
    // do not depend on timing
    let one = |(ld, remote, dir): &Work<'_>, pass: schedule::Pass| -> logfmt::Result<Stats> {
        let p = ld.open_partition(dir)?;
        stats::partition_stats(&p, ld, remote.as_deref(), &opts, pass.read_ahead(), &mut |n| progress.inc(n))
    };
    let results = schedule::run(work, threads, one)?;
    let mut results = results.into_iter().zip(dirs).map(|(r, dir)| r.with_context(|| dir.display().to_string()));
    progress.finish();

    let mut out = Output::new(BufWriter::new(io::stdout().lock()), global.format);
    let mut total = Stats::empty(Path::new("total"), "total");
    let mut partitions = Vec::new();
    let mut last_sum = None;
    let mut unreadable = 0usize;
    for g in &groups {
        let mut sum = Stats::empty(&g.path, "log_dir");
        for dir in &g.dirs {
            let Some(r) = results.next() else { break };
            // an unreadable partition is said and left out of the sums;
            // the others go on (exit 2 at the end, as verify's)
            let s = match r {
                Ok(s) => s,
                Err(e) => {
                    let file = dir.display().to_string();
                    let message = format!("could not be read, left out of the sums: {}", crate::exit::message(&e));
                    out.report(&crate::output::WarningLine { file: &file, message })?;
                    unreadable += 1;
                    continue;
                }
            };
            out.report(&s)?;
            sum.merge(&s, args.top);
            partitions.push(s);
        }
        if g.is_log_dir {
            out.report(&sum)?;
        }
        total.merge(&sum, args.top);
        last_sum = Some(sum);
    }
    let summary = if groups.len() > 1 {
        out.report(&total)?;
        total
    } else {
        match (last_sum, partitions.len()) {
            (Some(s), n) if n != 1 => s,
            _ => partitions.first().cloned().unwrap_or_else(|| Stats::empty(Path::new("total"), "total")),
        }
    };
    if !args.no_charts {
        out.prose(&details(&summary, crate::output::terminal_width()))?;
    }
    out.finish()?;
    if let Some(file) = &args.chart {
        chart::draw(file, args.chart_font.as_deref(), &summary, &partitions)?;
        eprintln!("chart written to {}", file.display());
    }
    let damaged = summary.damaged_bytes > 0 || summary.bad_crc_batches > 0 || summary.undecodable_batches > 0;
    Ok(if unreadable > 0 {
        Status::Error
    } else if damaged {
        Status::Problems
    } else {
        Status::Clean
    })
}

/// Eight levels of a sparkline.
const SPARKS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

fn sparkline(values: &[u64]) -> String {
    let max = values.iter().copied().max().unwrap_or(0).max(1);
    values.iter().map(|&v| if v == 0 { ' ' } else { SPARKS[((v.saturating_mul(7)) / max).min(7) as usize] }).collect()
}

fn bar(v: u64, max: u64, width: usize) -> String {
    let n = if max == 0 { 0 } else { (v as f64 / max as f64 * width as f64).ceil() as usize };
    "█".repeat(n.min(width))
}

/// The widest a bar is (the terminal's width can make it narrower).
const BAR: usize = 40;

/// How wide bars are on lines where `fixed` characters are not the bar:
/// the line fits `width` where one is known, between 10 and [`BAR`].
fn bar_width(width: Option<usize>, fixed: usize) -> usize {
    width.map_or(BAR, |w| w.saturating_sub(fixed).clamp(10, BAR))
}

/// A histogram as labelled bars, one line per bucket.
fn histogram_lines(title: &str, h: &Histogram, bytes: bool, width: Option<usize>) -> String {
    let buckets = h.buckets();
    let max = buckets.iter().map(|b| b.count).max().unwrap_or(0);
    let label = |v: u64| if bytes { human_bytes(v) } else { grouped(v) };
    let counts = buckets.iter().map(|b| grouped(b.count).chars().count()).max().unwrap_or(0);
    let w = bar_width(width, 2 + 21 + 2 + 1 + counts);
    let mut s = format!("{title}\n");
    for b in &buckets {
        let range = format!("{} - {}", label(b.from), label(b.to));
        s.push_str(&format!("  {range:>21}  {:<w$} {}\n", bar(b.count, max, w), grouped(b.count)));
    }
    s
}

fn timeline_line(t: &Timeline, width: Option<usize>) -> Option<String> {
    let points = t.points();
    let (first, last) = (points.first()?, points.last()?);
    let records: Vec<u64> = points.iter().map(|p| p.1).collect();
    // at most 100 characters, and what fits the terminal between the two
    // times (2 + 20 + 2 + marks + 2 + 20): neighbouring buckets summed
    let marks = width.map_or(100, |w| w.saturating_sub(46).clamp(10, 100));
    let per = records.len().div_ceil(marks).max(1);
    let cells: Vec<u64> = records.chunks(per).map(|c| c.iter().sum()).collect();
    let width_s = (t.width_ms as f64 * per as f64) / 1000.0;
    Some(format!(
        "records over time (by batch time, {} per mark)\n  {}  {}  {}\n",
        seconds(width_s),
        stats::utc(first.0),
        sparkline(&cells),
        stats::utc(last.0.saturating_add(t.width_ms))
    ))
}

fn seconds(s: f64) -> String {
    if s < 120.0 {
        format!("{s:.0} s")
    } else if s < 7200.0 {
        format!("{:.0} min", s / 60.0)
    } else if s < 172_800.0 {
        format!("{:.0} h", s / 3600.0)
    } else {
        format!("{:.0} days", s / 86_400.0)
    }
}

/// The terminal charts and the numbers that do not fit the table: charts
/// sized to fit `width` (the terminal's; `None` when piped), sentences
/// wrapped to it.
fn details(s: &Stats, width: Option<usize>) -> String {
    let text = details_unwrapped(s, width);
    let Some(w) = width else { return text };
    // chart lines are indented and sized above; the rest is sentences
    text.split('\n')
        .map(|l| if l.starts_with(' ') { l.to_string() } else { crate::output::wrap_line(l, w) })
        .collect::<Vec<_>>()
        .join("\n")
}

fn details_unwrapped(s: &Stats, width: Option<usize>) -> String {
    let mut out = format!("\n{} ({}, {} partition(s))\n", s.path.display(), s.scope.replace('_', " "), s.partitions);
    if let Some(t) = timeline_line(&s.timeline, width) {
        out.push_str(&t);
    }
    out.push_str(&histogram_lines("batch sizes", &s.batch_size, true, width));
    out.push_str(&histogram_lines("records per batch", &s.records_per_batch, false, width));
    let codecs: Vec<String> = s
        .codecs
        .iter()
        .map(|c| {
            let ratio = c.ratio.map(|r| format!(", {r:.2}x")).unwrap_or_default();
            format!("{} {} batches {}{ratio}", c.codec, grouped(c.batches), human_bytes(c.bytes))
        })
        .collect();
    out.push_str(&format!("codecs: {}\n", if codecs.is_empty() { "-".into() } else { codecs.join("; ") }));
    out.push_str(&format!("producers: {} with an id\n", grouped(s.producer_count)));
    let all = s.batch_bytes.max(1);
    let mut rows: Vec<(String, u64, u64)> =
        s.top_producers.iter().map(|p| (format!("producer {}", p.producer_id), p.bytes, p.records)).collect();
    let shown: u64 = s.top_producers.iter().map(|p| p.bytes).sum();
    let rest = s.batch_bytes.saturating_sub(shown);
    if rest > 0 {
        rows.push(("others / no id".into(), rest, 0));
    }
    let tail = |bytes: u64, records: u64| {
        let recs = if records > 0 { format!(", {} records", grouped(records)) } else { String::new() };
        format!("{}{recs}", human_bytes(bytes))
    };
    let tails = rows.iter().map(|(_, b, r)| tail(*b, *r).chars().count()).max().unwrap_or(0);
    let w = bar_width(width, 2 + 22 + 2 + 1 + 6 + 1 + tails);
    for (name, bytes, records) in rows {
        let pct = bytes as f64 * 100.0 / all as f64;
        out.push_str(&format!("  {name:>22}  {:<w$} {pct:5.1}% {}\n", bar(bytes, all, w), tail(bytes, records)));
    }
    let headers = if s.headers == 0 {
        "no headers".to_string()
    } else {
        format!("{} header(s) on {} record(s)", grouped(s.headers), grouped(s.records_with_headers))
    };
    out.push_str(&format!(
        "keys: ≈{} distinct, {} null; {} tombstones; {headers}\n",
        grouped(s.distinct_keys),
        grouped(s.null_keys),
        grouped(s.tombstones),
    ));
    if let (Some(a), Some(b)) = (s.min_timestamp, s.max_timestamp) {
        let order = if s.out_of_order_records == 0 {
            "every record at or after the ones appended before it".to_string()
        } else {
            format!(
                "{} record(s) older than one appended before them (by up to {})",
                grouped(s.out_of_order_records),
                logfmt::report::human_duration(s.max_timestamp_lag_ms)
            )
        };
        out.push_str(&format!(
            "timestamps: {} to {}; {order}\n",
            logfmt::report::time_text(a),
            logfmt::report::time_text(b)
        ));
    }
    out.push_str(&format!(
        "transactions: {} transactional batches, {} control batches ({} records); aborted {} records, {}\n",
        grouped(s.transactional_batches),
        grouped(s.control_batches),
        grouped(s.control_records),
        grouped(s.aborted_records),
        human_bytes(s.aborted_bytes)
    ));
    let r = &s.reclaimable;
    let mut reclaim = Vec::new();
    if let (Some(b), Some(n)) = (r.retention_bytes_reclaimable, r.retention_records_reclaimable) {
        // a value no topic or dynamic config set is Kafka's default, which
        // the broker's server.properties (in no log dir) may override
        let shown = |name: &str, v: i64, source: Option<&str>| match source {
            Some("kafka-default") => {
                format!("{name}={v} if Kafka's default holds: server.properties may set log.{name}")
            }
            _ => format!("{name}={v}"),
        };
        let cfg = match (r.retention_ms, r.retention_bytes) {
            (Some(ms), Some(by)) => format!(
                " ({}, {})",
                shown("retention.ms", ms, r.retention_ms_source),
                shown("retention.bytes", by, r.retention_bytes_source)
            ),
            _ => String::new(),
        };
        reclaim.push(format!("retention {} in {} records{cfg}", human_bytes(b), grouped(n)));
    }
    // what one cleaner pass removes now (the computation `compact` runs),
    // then all the records a later one of their key supersedes (some not
    // cleanable yet: in the active segment, above the last stable offset)
    if let (Some(b), Some(n)) = (r.compaction_bytes_reclaimable, r.compaction_records_reclaimable) {
        reclaim.push(format!("a cleaner pass {} in {} records (logtool compact)", human_bytes(b), grouped(n)));
    }
    if let (Some(n), Some(b)) = (r.superseded_records, r.superseded_bytes) {
        reclaim.push(format!(
            "{} records superseded by a later one of their key ({} uncompressed; a pass removes those it can clean)",
            grouped(n),
            human_bytes(b)
        ));
    }
    if reclaim.is_empty() {
        reclaim.push("unknown (no metadata log with the topic's configs; a ZooKeeper-mode cluster's are in ZooKeeper: --zookeeper-data)".into());
    }
    out.push_str(&format!("reclaimable now: {}\n", reclaim.join("; ")));
    if s.damaged_bytes > 0 || s.bad_crc_batches > 0 || s.undecodable_batches > 0 {
        out.push_str(&format!(
            "damage: {} bytes not batches, {} batches with a bad CRC, {} not decodable (logtool verify says where)\n",
            grouped(s.damaged_bytes),
            grouped(s.bad_crc_batches),
            grouped(s.undecodable_batches)
        ));
    }
    out
}

/// The `--chart` file.
mod chart {
    use std::path::Path;
    use std::sync::OnceLock;

    use anyhow::{anyhow, bail};
    use inspect::stats::{self, Stats};
    use logfmt::report::human_bytes;
    use plotters::coord::Shift;
    use plotters::prelude::*;
    use plotters::style::{FontStyle, register_font};

    /// Where distributions install a sans-serif TrueType font.
    const FONTS: &[&str] = &[
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/TTF/DejaVuSans.ttf",
        "/usr/share/fonts/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
        "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
        "/usr/share/fonts/liberation-sans/LiberationSans-Regular.ttf",
        "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf",
        "/usr/share/fonts/noto/NotoSans-Regular.ttf",
        "/System/Library/Fonts/Supplemental/Arial.ttf",
        "/Library/Fonts/Arial.ttf",
    ];

    static FONT: OnceLock<Result<(), String>> = OnceLock::new();

    fn load_font(given: Option<&Path>) -> anyhow::Result<()> {
        FONT.get_or_init(|| {
            let path = match given {
                Some(p) => p.to_path_buf(),
                None => FONTS.iter().map(Path::new).find(|p| p.is_file()).map(Path::to_path_buf).ok_or_else(|| {
                    "no TrueType font found for the chart's text: give one with --chart-font FILE.ttf \
                     (Debian/Ubuntu: apt install fonts-dejavu-core)"
                        .to_string()
                })?,
            };
            let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            register_font("sans-serif", FontStyle::Normal, bytes)
                .map_err(|_| format!("{}: not a TrueType font", path.display()))
        })
        .clone()
        .map_err(|e| anyhow!(e))
    }

    /// The chart's kind, from its file name.
    #[derive(Clone, Copy)]
    enum Kind {
        Png,
        Svg,
    }

    fn kind(file: &Path) -> anyhow::Result<Kind> {
        match file.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
            Some("png") => Ok(Kind::Png),
            Some("svg") => Ok(Kind::Svg),
            _ => bail!("--chart {}: the file name must end in .png or .svg", file.display()),
        }
    }

    /// Whether the chart can be drawn into `file`: its kind, a directory to
    /// write it into, a font. Asked before any partition is read.
    pub fn check(file: &Path, font: Option<&Path>) -> anyhow::Result<()> {
        kind(file)?;
        let dir = match file.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        if !dir.is_dir() {
            bail!("--chart {}: no such directory: {}", file.display(), dir.display());
        }
        if file.is_dir() {
            bail!("--chart {}: is a directory", file.display());
        }
        load_font(font)
    }

    pub fn draw(file: &Path, font: Option<&Path>, summary: &Stats, parts: &[Stats]) -> anyhow::Result<()> {
        load_font(font)?;
        let kind = kind(file)?;
        // drawn beside the target under a temporary name, renamed when
        // complete; a failed drawing leaves nothing behind
        let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let temp = file.with_file_name(format!(
            ".{name}.logtool-partial.{}",
            if matches!(kind, Kind::Png) { "png" } else { "svg" }
        ));
        let drawn = draw_into(&temp, kind, summary, parts)
            .and_then(|()| std::fs::rename(&temp, file).map_err(|e| anyhow!("cannot write {}: {e}", file.display())));
        if drawn.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
        drawn
    }

    fn draw_into(file: &Path, kind: Kind, summary: &Stats, parts: &[Stats]) -> anyhow::Result<()> {
        use plotters::drawing::DrawingAreaErrorKind as Area;
        use plotters_backend::DrawingErrorKind;
        let size: (u32, u32) = (1600, 1100);
        match kind {
            Kind::Png => {
                // RGB, 3 bytes a pixel
                let mut rgb = vec![0u8; (size.0 * size.1 * 3) as usize];
                {
                    let root = BitMapBackend::with_buffer(&mut rgb, size).into_drawing_area();
                    panels(&root, summary, parts)?;
                    root.present().map_err(|e| anyhow!("drawing: {e}"))?;
                }
                let png = encode_png(size, &rgb).map_err(|e| anyhow!("encoding the PNG: {e}"))?;
                std::fs::write(file, png).map_err(|e| anyhow!("cannot write {}: {e}", file.display()))
            }
            Kind::Svg => {
                let root = SVGBackend::new(file, size).into_drawing_area();
                panels(&root, summary, parts)?;
                root.present().map_err(|e| match e {
                    Area::BackendError(DrawingErrorKind::DrawingError(e)) => {
                        anyhow!("cannot write {}: {e}", file.display())
                    }
                    other => anyhow!("cannot write {}: {other}", file.display()),
                })
            }
        }
    }

    /// `rgb` (3 bytes a pixel) as an 8-bit RGB PNG, in memory (the file is
    /// then written in one call, so an error writing it is seen).
    fn encode_png((width, height): (u32, u32), rgb: &[u8]) -> Result<Vec<u8>, png::EncodingError> {
        let mut out = Vec::new();
        let mut png = png::Encoder::new(&mut out, width, height);
        png.set_color(png::ColorType::Rgb);
        png.set_depth(png::BitDepth::Eight);
        let mut writer = png.write_header()?;
        writer.write_image_data(rgb)?;
        writer.finish()?;
        Ok(out)
    }

    fn err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
        anyhow!("drawing: {e:?}")
    }

    /// A partition's short name (its directory's name).
    fn name(s: &Stats) -> String {
        s.path.file_name().map_or_else(|| s.path.display().to_string(), |n| n.to_string_lossy().into_owned())
    }

    fn time_label(ms: i64, span_ms: i64) -> String {
        let t = stats::utc(ms);
        // "2026-11-21 09:14:03Z": the date only when the span is long
        if span_ms > 2 * 86_400_000 {
            t.get(5..16).unwrap_or(&t).to_string()
        } else {
            t.get(11..19).unwrap_or(&t).to_string()
        }
    }

    fn panels<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, s: &Stats, parts: &[Stats]) -> anyhow::Result<()> {
        root.fill(&WHITE).map_err(err)?;
        let (title, body) = root.split_vertically(70);
        let range = match (s.min_timestamp, s.max_timestamp) {
            (Some(a), Some(b)) => format!("{} to {}", logfmt::report::time_text(a), logfmt::report::time_text(b)),
            _ => "no timestamps".into(),
        };
        title
            .draw(&Text::new(format!("logtool stats: {}", s.path.display()), (20, 12), ("sans-serif", 26).into_font()))
            .map_err(err)?;
        title
            .draw(&Text::new(
                format!(
                    "{} partition(s), {} records in {} batches, {} on disk, {}",
                    s.partitions,
                    logfmt::report::grouped(s.records),
                    logfmt::report::grouped(s.batches),
                    human_bytes(s.log_bytes),
                    range
                ),
                (20, 44),
                ("sans-serif", 17).into_font().color(&RGBColor(80, 80, 80)),
            ))
            .map_err(err)?;
        let cells = body.split_evenly((2, 2));
        let [a, b, c, d] = cells.as_slice() else { bail!("layout") };
        over_time(a, parts, true)?;
        over_time(b, parts, false)?;
        batch_sizes(c, s)?;
        producers(d, s)?;
        Ok(())
    }

    /// Where the bulk of the bytes were appended: the times below which
    /// 0.5% and above which 0.5% of all bytes lie (from every partition's
    /// own timeline, at its own resolution), so that one stray timestamp
    /// does not squeeze the picture into a corner.
    fn window(parts: &[Stats]) -> Option<(i64, i64)> {
        let mut pts: Vec<(i64, u64)> = parts
            .iter()
            .flat_map(|p| {
                let half = p.timeline.width_ms / 2;
                p.timeline.points().into_iter().map(move |(t, _, b)| (t.saturating_add(half), b))
            })
            .filter(|p| p.1 > 0)
            .collect();
        pts.sort_unstable();
        let total: u64 = pts.iter().map(|p| p.1).sum();
        let (lo_at, hi_at) = (total / 200, total.saturating_sub(total / 200));
        let mut acc = 0u64;
        let (mut lo, mut hi) = (None, None);
        for (t, b) in &pts {
            acc = acc.saturating_add(*b);
            if lo.is_none() && acc > lo_at {
                lo = Some(*t);
            }
            if hi.is_none() && acc >= hi_at {
                hi = Some(*t);
            }
        }
        let (lo, hi) = (lo?, hi?);
        let pad = ((hi - lo) / 50).max(1000);
        Some((lo - pad, hi + pad))
    }

    /// Bytes (or records) per second over time, stacked by partition (the
    /// eight largest; the rest as one), on one grid of [`GRID`] buckets.
    fn over_time<DB: DrawingBackend>(
        area: &DrawingArea<DB, Shift>,
        parts: &[Stats],
        bytes: bool,
    ) -> anyhow::Result<()> {
        const GRID: i64 = 100;
        let (x0, x1) = window(parts).unwrap_or((0, 1000));
        let width = ((x1 - x0) / GRID).max(1);
        let mut order: Vec<&Stats> = parts.iter().filter(|p| !p.timeline.points().is_empty()).collect();
        order.sort_by_key(|p| std::cmp::Reverse(p.batch_bytes));
        // per series: a value per grid bucket
        let mut series: Vec<(String, Vec<f64>)> = Vec::new();
        let mut outside = 0u64;
        for (i, p) in order.iter().enumerate() {
            if i < 8 {
                series.push((name(p), vec![0.0; GRID as usize]));
            } else if i == 8 {
                series.push((format!("{} others", order.len() - 8), vec![0.0; GRID as usize]));
            }
            let Some((_, values)) = series.last_mut() else { continue };
            let half = p.timeline.width_ms / 2;
            for (t, r, b) in p.timeline.points() {
                let mid = t.saturating_add(half);
                let v = if bytes { b } else { r };
                if mid < x0 || mid >= x0 + width * GRID {
                    outside = outside.saturating_add(v);
                    continue;
                }
                if let Some(cell) = values.get_mut(((mid - x0) / width) as usize) {
                    *cell += v as f64;
                }
            }
        }
        let secs = width as f64 / 1000.0;
        let peak = (0..GRID as usize)
            .map(|j| series.iter().map(|(_, v)| v.get(j).copied().unwrap_or(0.0)).sum::<f64>() / secs)
            .fold(0.0, f64::max);
        let (unit, scale) = if !bytes {
            ("records/s", 1.0)
        } else if peak >= 1_048_576.0 {
            ("MiB/s", 1_048_576.0)
        } else if peak >= 1024.0 {
            ("KiB/s", 1024.0)
        } else {
            ("bytes/s", 1.0)
        };
        let ymax = (peak / scale * 1.1).max(1e-9);
        let span = x1 - x0;
        let mut caption = format!("{unit} appended, by partition (batch time)");
        if outside > 0 {
            let what =
                if bytes { human_bytes(outside) } else { format!("{} records", logfmt::report::grouped(outside)) };
            caption.push_str(&format!("; {what} outside"));
        }
        let mut chart = ChartBuilder::on(area)
            .caption(caption, ("sans-serif", 19))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(70)
            .build_cartesian_2d(x0..x1, 0f64..ymax)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_labels(6)
            .y_labels(6)
            .x_label_formatter(&|t| time_label(*t, span))
            .y_label_formatter(&|v| if ymax >= 100.0 { format!("{v:.0}") } else { format!("{v:.2}") })
            .label_style(("sans-serif", 14))
            .light_line_style(RGBColor(235, 235, 235))
            .draw()
            .map_err(err)?;
        // stacked: each series drawn from 0 up to its running total, the
        // highest first
        let mut tops: Vec<Vec<f64>> = Vec::new();
        let mut acc = vec![0.0f64; GRID as usize];
        for (_, v) in &series {
            for (a, x) in acc.iter_mut().zip(v) {
                *a += x / secs / scale;
            }
            tops.push(acc.clone());
        }
        for (i, ((label, _), top)) in series.iter().zip(&tops).enumerate().rev() {
            let color = Palette99::pick(i).to_rgba();
            let pts: Vec<(i64, f64)> =
                top.iter().enumerate().map(|(j, &y)| (x0 + width * j as i64 + width / 2, y)).collect();
            chart
                .draw_series(AreaSeries::new(pts, 0.0, color.mix(0.75)).border_style(color.stroke_width(1)))
                .map_err(err)?
                .label(label.clone())
                .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 16, y + 6)], color.filled()));
        }
        if !series.is_empty() {
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.85))
                .border_style(RGBColor(200, 200, 200))
                .label_font(("sans-serif", 14))
                .position(SeriesLabelPosition::UpperRight)
                .draw()
                .map_err(err)?;
        }
        Ok(())
    }

    fn batch_sizes<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, s: &Stats) -> anyhow::Result<()> {
        let buckets = s.batch_size.buckets();
        let n = buckets.len().max(1);
        let ymax = buckets.iter().map(|b| b.count).max().unwrap_or(1).max(1);
        let labels: Vec<String> = buckets.iter().map(|b| human_bytes(b.from.max(1))).collect();
        let mut chart = ChartBuilder::on(area)
            .caption("batch sizes: batches per size range (labels: its lower bound)", ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(70)
            .build_cartesian_2d((0..n).into_segmented(), 0u64..ymax.saturating_add(ymax / 10).max(1))
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(n)
            .x_label_formatter(&|v| match v {
                SegmentValue::CenterOf(i) => labels.get(*i).cloned().unwrap_or_default(),
                _ => String::new(),
            })
            .label_style(("sans-serif", 13))
            .light_line_style(RGBColor(235, 235, 235))
            .draw()
            .map_err(err)?;
        chart
            .draw_series(
                Histogram::vertical(&chart)
                    .style(RGBColor(66, 133, 244).filled())
                    .margin(4)
                    .data(buckets.iter().enumerate().map(|(i, b)| (i, b.count))),
            )
            .map_err(err)?;
        Ok(())
    }

    fn producers<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, s: &Stats) -> anyhow::Result<()> {
        let all = s.batch_bytes.max(1) as f64;
        let mut rows: Vec<(String, u64)> =
            s.top_producers.iter().map(|p| (format!("producer {}", p.producer_id), p.bytes)).collect();
        let shown: u64 = s.top_producers.iter().map(|p| p.bytes).sum();
        let rest = s.batch_bytes.saturating_sub(shown);
        if rest > 0 {
            rows.push(("others and producers without an id".into(), rest));
        }
        let n = rows.len().max(1) as f64;
        let mut chart = ChartBuilder::on(area)
            .caption("share of bytes by producer", ("sans-serif", 19))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(20)
            .build_cartesian_2d(0f64..100f64, 0f64..n)
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .disable_y_axis()
            .x_labels(6)
            .x_label_formatter(&|v| format!("{v:.0}%"))
            .label_style(("sans-serif", 14))
            .light_line_style(RGBColor(235, 235, 235))
            .draw()
            .map_err(err)?;
        let last = rows.len().saturating_sub(1);
        for (i, (label, bytes)) in rows.iter().enumerate() {
            let pct = *bytes as f64 * 100.0 / all;
            let y = n - 1.0 - i as f64;
            let color = if i == last && rest > 0 { RGBColor(170, 170, 170) } else { RGBColor(52, 168, 83) };
            chart.draw_series([Rectangle::new([(0.0, y + 0.15), (pct, y + 0.85)], color.filled())]).map_err(err)?;
            let text = format!("{label}: {pct:.1}%, {}", human_bytes(*bytes));
            let (x, style) = if pct > 55.0 {
                (1.0, ("sans-serif", 15).into_font().color(&WHITE))
            } else {
                (pct + 1.0, ("sans-serif", 15).into_font().color(&BLACK))
            };
            chart.draw_series([Text::new(text, (x, y + 0.62), style)]).map_err(err)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparks() {
        assert_eq!(sparkline(&[0, 1, 7, 14]), " ▁▄█");
        assert_eq!(bar(5, 10, 10), "█████");
        assert_eq!(bar(0, 0, 10), "");
    }
}
