//! One module per subcommand. Each takes its typed options and the global
//! ones, writes [`crate::output::Line`]s, and returns a [`Status`].

mod broker;
mod dump;
mod fixture;
mod groups;
mod offsets;
mod partition_of;
mod repair;
mod replicas;
mod txns;
mod verify;

use crate::args::{Cli, Command};
use crate::exit::Status;

pub fn run(cli: Cli) -> anyhow::Result<Status> {
    crate::output::set_color(cli.global.color.resolve());
    match cli.command {
        Command::PartitionOf(args) => partition_of::run(&cli.global, &args),
        Command::Completions(args) => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(args.shell, &mut cmd, "logtool", &mut std::io::stdout());
            Ok(Status::Clean)
        }
        Command::Man(args) => {
            std::fs::create_dir_all(&args.out)?;
            clap_mangen::generate_to(<Cli as clap::CommandFactory>::command(), &args.out)?;
            Ok(Status::Clean)
        }
        Command::Dump(args) => dump::run(&cli.global, &args),
        Command::Verify(args) => verify::run(&cli.global, &args),
        Command::Recover(args) => repair::recover(&cli.global, &args),
        Command::TruncateToHw(args) => repair::truncate_to_hw(&cli.global, &args),
        Command::Truncate(args) => repair::truncate(&cli.global, &args),
        Command::Reindex(args) => repair::reindex(&cli.global, &args),
        Command::Retain(args) => repair::retain(&cli.global, &args),
        Command::OffsetForTime(args) => offsets::run(&cli.global, &args),
        Command::DiffReplicas(args) => replicas::diff(&cli.global, &args),
        Command::Digest(args) => replicas::digest(&cli.global, &args),
        Command::Undo(args) => repair::undo(&cli.global, &args),
        Command::Fixture(args) => fixture::run(&cli.global, &args),
        Command::Groups(args) => groups::run(&cli.global, &args),
        Command::Broker(args) => broker::run(&args),
        Command::Txns(args) => txns::run(&cli.global, &args),
    }
}
