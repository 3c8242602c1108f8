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

/// An error in words, each fact once: a cause the message already quotes
/// (logfmt's "I/O error: ...") is not appended again, and a context that
/// only names the path its cause names too gives way to the cause.
pub fn message(err: &anyhow::Error) -> String {
    let mut message = without_errno(&err.to_string());
    for cause in err.chain().skip(1).map(|c| without_errno(&c.to_string())) {
        // (the system's text of an I/O error is said once, in our words)
        if message.contains(&cause) || message.to_lowercase().contains(&cause.to_lowercase()) {
            continue;
        }
        if cause.starts_with(&message) {
            message = cause;
        } else {
            message.push_str(": ");
            message.push_str(&cause);
        }
    }
    message
}

/// `text` without the " (os error N)" the system adds to an I/O error.
fn without_errno(text: &str) -> String {
    let mut out = text.to_string();
    while let Some(at) = out.find(" (os error ") {
        let end = out[at..].find(')').map_or(out.len(), |e| at + e + 1);
        out.replace_range(at..end, "");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_fact_once() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "No such file or directory");
        let e = anyhow::Error::new(io).context("/tmp/x: No such file or directory").context("/tmp/x");
        assert_eq!(message(&e), "/tmp/x: No such file or directory");
        let e = anyhow::anyhow!("inner").context("outer");
        assert_eq!(message(&e), "outer: inner");
    }

    #[test]
    fn worst_wins() {
        assert_eq!(Status::Clean.merge(Status::Problems), Status::Problems);
        assert_eq!(Status::Error.merge(Status::Problems), Status::Error);
        assert_eq!(Status::default(), Status::Clean);
    }
}
