//! The `logtool` binary: glue between the command line and the libraries.
//! Parses arguments, runs one command, maps its outcome to an exit code
//! (see `exit.rs`). A closed stdout (`logtool dump ... | head`) ends quietly.

mod args;
mod cmd;
mod exit;
mod output;
mod progress;
mod redact;

use std::process::ExitCode;

use clap::Parser;

use crate::exit::Status;

fn main() -> ExitCode {
    let cli = cmd::Cli::parse();
    let format = cli.global.format;
    match cmd::run(cli) {
        Ok(status) => status.code(),
        Err(err) => {
            if err
                .chain()
                .any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe))
            {
                return Status::Clean.code();
            }
            let message = exit::message(&err);
            eprintln!("logtool: error: {message}");
            if format == args::Format::Json {
                // a script reading stdout sees the failure too (docs/json.md)
                let message = serde_json::Value::String(message);
                println!("{{\"type\":\"command_error\",\"message\":{message}}}");
            }
            Status::Error.code()
        }
    }
}
