//! One module per subcommand. Each takes its typed options and the global
//! ones, writes [`crate::output::Line`]s, and returns a [`Status`].

mod dump;
mod verify;

use crate::args::{Cli, Command};
use crate::exit::Status;

pub fn run(cli: Cli) -> anyhow::Result<Status> {
    match cli.command {
        Command::Dump(args) => dump::run(&cli.global, &args),
        Command::Verify(args) => verify::run(&cli.global, &args),
    }
}
