//! Exit codes, decided in one place: 0 clean, 1 problems found in the data,
//! 2 usage or I/O error (clap also exits 2 on bad arguments).

use std::process::ExitCode;

/// The outcome of a command, worst wins.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Status {
    /// Nothing wrong.
    #[default]
    Clean,
    /// The data has problems (damage, bad CRCs, ...).
    Problems,
    /// A file could not be read, or the command was misused.
    Error,
}

impl Status {
    pub fn merge(self, other: Status) -> Status {
        self.max(other)
    }

    pub fn code(self) -> ExitCode {
        ExitCode::from(match self {
            Status::Clean => 0,
            Status::Problems => 1,
            Status::Error => 2,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worst_wins() {
        assert_eq!(Status::Clean.merge(Status::Problems), Status::Problems);
        assert_eq!(Status::Error.merge(Status::Problems), Status::Error);
        assert_eq!(Status::default(), Status::Clean);
    }
}
