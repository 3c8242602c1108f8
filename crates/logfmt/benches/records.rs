//! Micro-benchmarks of the per-batch hot paths: CRC-32C, record iteration
//! (what `dump --deep` does) and `summarize` (what `verify` does).
//!
//! `cargo bench -p logfmt --bench records`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use logfmt::Limits;
use logfmt::batch::RecordBatch;
use logfmt::write::batch::{BatchBuilder, NewRecord};

/// 64 batches of ~16 KiB: 100-byte values, a header on every tenth record.
fn batches() -> (Vec<Vec<u8>>, u64) {
    let value: Vec<u8> = (0..100).map(|i| b"kafka segment offset "[i % 21]).collect();
    let mut out = Vec::new();
    let mut offset = 0i64;
    for _ in 0..64 {
        let mut b = BatchBuilder::new(offset);
        for _ in 0..130 {
            let key = format!("key-{offset}");
            let headers: &[(&[u8], Option<&[u8]>)] = if offset % 10 == 0 { &[(b"trace", Some(b"abc"))] } else { &[] };
            b.push(&NewRecord {
                timestamp: 1_800_000_000_000 + offset,
                key: Some(key.as_bytes()),
                value: Some(&value),
                headers,
            });
            offset += 1;
        }
        out.push(b.build());
    }
    (out, offset as u64)
}

fn bench(c: &mut Criterion) {
    let (batches, records) = batches();
    let bytes: u64 = batches.iter().map(|b| b.len() as u64).sum();
    let limits = Limits::default();
    let mut g = c.benchmark_group("batch");
    g.throughput(Throughput::Elements(records));
    g.bench_function("iterate_records", |b| {
        let mut scratch = Vec::new();
        b.iter(|| {
            let mut n = 0u64;
            for raw in &batches {
                let batch = RecordBatch::parse(raw, 0).unwrap();
                for r in batch.records(&mut scratch, &limits).unwrap() {
                    n += r.unwrap().value.map_or(0, |v| v.len() as u64);
                }
            }
            n
        })
    });
    g.bench_function("summarize", |b| {
        let mut scratch = Vec::new();
        b.iter(|| {
            let mut n = 0i64;
            for raw in &batches {
                let batch = RecordBatch::parse(raw, 0).unwrap();
                n += i64::from(batch.records(&mut scratch, &limits).unwrap().summarize().unwrap().count);
            }
            n
        })
    });
    g.throughput(Throughput::Bytes(bytes));
    g.bench_function("crc32c", |b| {
        b.iter(|| batches.iter().filter(|raw| RecordBatch::parse(raw, 0).unwrap().is_valid()).count())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
