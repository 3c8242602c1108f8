//! The command libraries: what `logtool`'s commands answer, built on the
//! layers below (`rules` above all: they ask it, never re-derive it) -
//! [`verify`], [`offsets`], [`stats`], [`groups`], [`txns`], [`compact`],
//! [`dump`], the internal topics' decoders ([`internal`]) and the
//! scheduler of partition work ([`schedule`]). The top layer: nothing below
//! names it.

pub mod compact;
pub mod dump;
pub mod groups;
pub mod internal;
pub mod offsets;
pub mod schedule;
pub mod stats;
pub mod txns;
pub mod verify;
