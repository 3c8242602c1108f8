//! Micro-benchmarks of the hot paths: the batch header, CRC-32C, record
//! iteration (what `dump --deep` does), `summarize` (what `verify` does) and
//! an offset index lookup (what `offset-for-time` and `dump --offset` do).
//! The JSON record writer is measured end to end by `bench/real.sh` (it is
//! the binary's).
//!
//! `cargo bench -p logfmt-bench`
#![allow(clippy::restriction, missing_docs)] // test code: [workspace.lints] is for library code

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use logfmt::Limits;
use logfmt::batch::{BatchHeader, RecordBatch};
use logfmt::builder::{BatchBuilder, NewRecord};
use logfmt::cursor::{Cursor, End};

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
                let mut records = batch.records(&mut scratch, &limits).unwrap();
                while let Some(r) = records.next_record() {
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
    g.throughput(Throughput::Elements(batches.len() as u64));
    g.bench_function("header", |b| {
        b.iter(|| {
            batches
                .iter()
                .map(|raw| BatchHeader::read(&mut Cursor::new(raw, 0, End::File)).unwrap().last_offset_delta)
                .sum::<i32>()
        })
    });
    g.finish();

    // the offset index of a full 1 GiB segment at Kafka's default interval
    // (4096 bytes): 262,144 entries, 2 MiB
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("00000000000000000000.index");
    let mut bytes = Vec::new();
    for i in 0..262_144i32 {
        logfmt::emit::offset_index_entry(&mut bytes, i * 37, i * 4096);
    }
    std::fs::write(&index, &bytes).unwrap();
    let mut g = c.benchmark_group("index");
    let mut target = 0i64;
    g.bench_function("lookup_offset", |b| {
        b.iter(|| {
            target = (target + 7_919_993) % (262_144 * 37);
            logfmt::index::lookup_offset(&index, 0, target).unwrap().unwrap().position
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
