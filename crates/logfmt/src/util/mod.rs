//! The lowest layer: what every other uses and that names nothing else of
//! the crate - the process's memory budget ([`budget`]), the ceilings on
//! every length read ([`limits`]), Kafka's murmur2 ([`hash`]), page-cache
//! and live-broker helpers
//! ([`live`]), and the lines commands print with their text helpers
//! ([`report`]).

pub mod budget;
pub mod hash;
pub mod limits;
pub mod live;
pub mod report;
