//! Draws bench/real.sh's results as a PNG: for each comparison, logtool's
//! throughput (MiB/s of the data it reads, log scale) beside its
//! reference's (`cat > /dev/null`, the page-cache floor, or
//! DumpLogSegments).
//!
//!   bench-chart RESULTS.tsv OUT.png [FONT.ttf]
//!
//! RESULTS.tsv: one line per comparison, tab-separated: what, bytes read,
//! logtool's median ms, the reference's name, its median ms. The font
//! defaults to DejaVu Sans where distributions install it.

use std::error::Error;

use plotters::prelude::*;
use plotters::style::{FontStyle, register_font};

struct Row {
    what: String,
    bytes: f64,
    ours_ms: f64,
    reference: String,
    ref_ms: f64,
}

fn mib_s(bytes: f64, ms: f64) -> f64 {
    bytes / 1_048_576.0 / (ms.max(1.0) / 1000.0)
}

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(tsv), Some(out)) = (args.get(1), args.get(2)) else {
        return Err("usage: bench-chart RESULTS.tsv OUT.png [FONT.ttf]".into());
    };
    let font = args.get(3).cloned().unwrap_or_else(|| "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf".into());
    let bytes: &'static [u8] = Box::leak(std::fs::read(&font).map_err(|e| format!("{font}: {e}"))?.into_boxed_slice());
    register_font("sans-serif", FontStyle::Normal, bytes).map_err(|_| format!("{font}: not a font"))?;

    let mut rows = Vec::new();
    for line in std::fs::read_to_string(tsv)?.lines().filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split('\t').collect();
        let [what, bytes, ours, reference, theirs] = f[..] else {
            return Err(format!("{tsv}: not 5 fields: {line}").into());
        };
        rows.push(Row {
            what: what.into(),
            bytes: bytes.parse()?,
            ours_ms: ours.parse()?,
            reference: reference.into(),
            ref_ms: theirs.parse()?,
        });
    }
    if rows.is_empty() {
        return Err(format!("{tsv}: no rows").into());
    }
    let max = rows.iter().flat_map(|r| [mib_s(r.bytes, r.ours_ms), mib_s(r.bytes, r.ref_ms)]).fold(1.0, f64::max);
    let min = rows.iter().flat_map(|r| [mib_s(r.bytes, r.ours_ms), mib_s(r.bytes, r.ref_ms)]).fold(max, f64::min);

    let n = rows.len();
    let root = BitMapBackend::new(out, (1200, 120 + 90 * n as u32)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "logtool vs its references on data a real Kafka 3.9.1 wrote (throughput, MiB/s, log scale)",
            ("sans-serif", 22),
        )
        .margin(20)
        .x_label_area_size(40)
        .y_label_area_size(330)
        .build_cartesian_2d((min / 2.0..max * 15.0).log_scale(), 0f64..n as f64)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(0)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .x_desc("MiB/s of the data read (higher is better)")
        .label_style(("sans-serif", 16))
        .draw()?;
    let ours = RGBColor(31, 119, 180);
    let theirs = RGBColor(160, 160, 160);
    for (i, r) in rows.iter().enumerate() {
        let y = (n - 1 - i) as f64;
        let a = mib_s(r.bytes, r.ours_ms);
        let b = mib_s(r.bytes, r.ref_ms);
        chart.draw_series([Rectangle::new([(min / 2.0, y + 0.52), (a, y + 0.9)], ours.filled())])?;
        chart.draw_series([Rectangle::new([(min / 2.0, y + 0.1), (b, y + 0.48)], theirs.filled())])?;
        let (_, py) = chart.backend_coord(&(min, y + 0.5));
        root.draw(&Text::new(r.what.clone(), (20, py - 8), ("sans-serif", 17).into_font()))?;
        let ratio = if r.ours_ms <= r.ref_ms {
            format!("logtool {a:.0} MiB/s: {:.1}x faster", r.ref_ms / r.ours_ms.max(1.0))
        } else {
            format!("logtool {a:.0} MiB/s: {:.2}x the time", r.ours_ms / r.ref_ms.max(1.0))
        };
        chart.draw_series([Text::new(ratio, (a * 1.05, y + 0.8), ("sans-serif", 15).into_font())])?;
        chart.draw_series([Text::new(
            format!("{} {b:.0} MiB/s", r.reference),
            (b * 1.05, y + 0.38),
            ("sans-serif", 15).into_font().color(&RGBColor(90, 90, 90)),
        )])?;
    }
    root.present()?;
    Ok(())
}
