//! `logtool partition-of`: the partition Kafka's default partitioner gives a
//! key (`inspect::groups::partition_for_key`).

use std::io::{self, BufWriter};

use clap::Args;

use logfmt::report::{Report, Shown};
use serde::Serialize;

use crate::args::GlobalOpts;
use crate::exit::Status;
use crate::output::Output;

pub fn run(global: &GlobalOpts, args: &PartitionOfArgs) -> anyhow::Result<Status> {
    let mut out = Output::new(BufWriter::new(io::stdout().lock()), global.format);
    for key in &args.keys {
        let bytes = if args.hex { parse_hex(key)? } else { key.as_bytes().to_vec() };
        let partition = inspect::groups::partition_for_key(&bytes, args.partitions);
        out.report(&(PartitionOfLine { key: key.clone(), partitions: args.partitions, partition }))?;
    }
    out.finish()?;
    Ok(Status::Clean)
}

fn parse_hex(s: &str) -> anyhow::Result<Vec<u8>> {
    let s = s.trim();
    if !s.len().is_multiple_of(2) {
        anyhow::bail!("{s:?}: an odd number of hex digits");
    }
    (0..s.len())
        .step_by(2)
        .map(|i| {
            s.get(i..i + 2)
                .and_then(|d| u8::from_str_radix(d, 16).ok())
                .ok_or_else(|| anyhow::anyhow!("{s:?} is not hex"))
        })
        .collect()
}

#[derive(Args, Debug)]
pub struct PartitionOfArgs {
    /// The topic's partition count.
    #[arg(long, value_name = "N", value_parser = crate::args::parse_partitions)]
    pub partitions: i32,
    /// The keys are hex (the bytes a key serializer wrote), not UTF-8 text.
    #[arg(long)]
    pub hex: bool,
    /// The keys.
    #[arg(required = true, value_name = "KEY")]
    pub keys: Vec<String>,
    #[command(flatten)]
    pub reads_nothing: crate::args::ReadsNothing,
}

/// `partition-of`: a key and the partition Kafka's default partitioner gives it.
#[derive(Serialize)]
pub struct PartitionOfLine {
    pub key: String,
    pub partitions: i32,
    pub partition: i32,
}

impl Report for PartitionOfLine {
    const TYPE: &'static str = "partition_of";

    fn show(&self) -> Shown {
        let p = self;
        Shown::Row(
            &["KEY", "PARTITIONS", "PARTITION"],
            vec![p.key.clone(), p.partitions.to_string(), p.partition.to_string()],
        )
    }
}
