//! Write a synthetic, uncompressed v2 segment for benchmarks.
//!
//! `cargo run --release -p logfmt --example gen_segment -- OUT.log MIB [VALUE_BYTES]`
//!
//! Batches of ~16 KiB (a Java producer's default batch.size), keys
//! `key-<n>`, printable values of VALUE_BYTES (default 100), one header on
//! every tenth record, CreateTime timestamps one millisecond apart.
#![allow(clippy::restriction, missing_docs)] // test code: [workspace.lints] is for library code

use std::io::{BufWriter, Write};

use logfmt::builder::{BatchBuilder, NewRecord};

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let (Some(out), Some(mib)) = (args.next(), args.next()) else {
        eprintln!("usage: gen_segment OUT.log MIB [VALUE_BYTES]");
        std::process::exit(2);
    };
    let target: u64 = mib.parse::<u64>().expect("MIB") << 20;
    let value_len: usize = args.next().map_or(100, |v| v.parse().expect("VALUE_BYTES"));
    let value: Vec<u8> = (0..value_len).map(|i| b"kafka segment offset leader epoch "[i % 34]).collect();
    let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(&out)?);
    let (mut written, mut offset, mut records) = (0u64, 0i64, 0u64);
    let ts0 = 1_800_000_000_000i64;
    while written < target {
        let mut b = BatchBuilder::new(offset);
        let mut bytes = 0;
        while bytes < 16 << 10 {
            let key = format!("key-{offset}");
            let headers: &[(&[u8], Option<&[u8]>)] = if offset % 10 == 0 { &[(b"trace", Some(b"abc"))] } else { &[] };
            b.push(&NewRecord { timestamp: ts0 + offset, key: Some(key.as_bytes()), value: Some(&value), headers });
            bytes += key.len() + value.len() + 10;
            offset += 1;
            records += 1;
        }
        let batch = b.build();
        w.write_all(&batch)?;
        written += batch.len() as u64;
    }
    w.flush()?;
    println!("{out}: {written} bytes, {records} records");
    Ok(())
}
