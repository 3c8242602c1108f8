//! Writes `records.rs`: a typed struct for each message of [`MESSAGES`],
//! generated from Kafka's own definitions (`schemas/`) as Kafka's
//! `MessageGenerator` generates its `*Data` classes: one struct per message
//! and per struct type it uses, the fields in definition order, each field's
//! default Kafka's default. Run by the test `records_rs_is_current`
//! (`KMSG_REGENERATE=1` rewrites the file).

use std::fmt::Write as _;

use serde_json::Value;

use crate::schema::{self, Field, StructDef, Type, Versions};

/// The messages logtool builds or reads by field (the rest are read and
/// printed by definition only, as JSON).
pub(crate) const MESSAGES: &[&str] = &[
    // KRaft metadata (`__cluster_metadata`, snapshots, bootstrap.checkpoint)
    "BeginTransactionRecord",
    "BrokerRegistrationChangeRecord",
    "ConfigRecord",
    "EndTransactionRecord",
    "FeatureLevelRecord",
    "LeaderChangeMessage",
    "PartitionChangeRecord",
    "PartitionRecord",
    "ProducerIdsRecord",
    "RegisterBrokerRecord",
    "RegisterControllerRecord",
    "RemoveTopicRecord",
    "SnapshotFooterRecord",
    "SnapshotHeaderRecord",
    "TopicRecord",
    "ZkMigrationStateRecord",
    // the group coordinator (`__consumer_offsets`)
    "ConsumerGroupCurrentMemberAssignmentKey",
    "ConsumerGroupCurrentMemberAssignmentValue",
    "ConsumerGroupMemberMetadataKey",
    "ConsumerGroupMemberMetadataValue",
    "ConsumerGroupMetadataKey",
    "ConsumerGroupMetadataValue",
    "ConsumerProtocolAssignment",
    "GroupMetadataKey",
    "GroupMetadataValue",
    "OffsetCommitKey",
    "OffsetCommitValue",
    "ConsumerGroupTargetAssignmentMemberKey",
    "ConsumerGroupTargetAssignmentMemberValue",
    "ConsumerGroupTargetAssignmentMetadataKey",
    "ConsumerGroupTargetAssignmentMetadataValue",
    "ConsumerGroupRegularExpressionKey",
    "ConsumerGroupRegularExpressionValue",
    "ShareGroupCurrentMemberAssignmentKey",
    "ShareGroupCurrentMemberAssignmentValue",
    "ShareGroupMemberMetadataKey",
    "ShareGroupMemberMetadataValue",
    "ShareGroupMetadataKey",
    "ShareGroupMetadataValue",
    "ShareGroupStatePartitionMetadataKey",
    "ShareGroupStatePartitionMetadataValue",
    "ShareGroupTargetAssignmentMemberKey",
    "ShareGroupTargetAssignmentMemberValue",
    "ShareGroupTargetAssignmentMetadataKey",
    "ShareGroupTargetAssignmentMetadataValue",
    "StreamsGroupCurrentMemberAssignmentKey",
    "StreamsGroupCurrentMemberAssignmentValue",
    "StreamsGroupMemberMetadataKey",
    "StreamsGroupMemberMetadataValue",
    "StreamsGroupMetadataKey",
    "StreamsGroupMetadataValue",
    "StreamsGroupTargetAssignmentMetadataKey",
    "StreamsGroupTargetAssignmentMetadataValue",
    "StreamsGroupTopologyKey",
    "StreamsGroupTopologyValue",
    // the share coordinator (`__share_group_state`)
    "ShareSnapshotKey",
    "ShareSnapshotValue",
    "ShareUpdateKey",
    "ShareUpdateValue",
    // the transaction coordinator (`__transaction_state`)
    "TransactionLogKey",
    "TransactionLogValue",
    // tiered storage (`__remote_log_metadata`)
    "RemoteLogSegmentMetadataRecord",
    "RemoteLogSegmentMetadataUpdateRecord",
    "RemotePartitionDeleteMetadataRecord",
];

/// `TopicId` -> `topic_id` (Kafka's `toSnakeCase`, lowered).
fn snake(name: &str) -> String {
    let out = crate::metadata::upper_snake(name).to_lowercase();
    match out.as_str() {
        "type" | "match" | "ref" | "move" | "mod" | "use" | "in" | "as" | "where" | "loop" => format!("r#{out}"),
        _ => out,
    }
}

fn versions(v: Versions) -> String {
    match (v.lo, v.hi) {
        (lo, hi) if lo > hi => "none".into(),
        (lo, i16::MAX) => format!("{lo}+"),
        (lo, hi) if lo == hi => format!("{lo}"),
        (lo, hi) => format!("{lo}-{hi}"),
    }
}

fn base_type(ty: &Type) -> String {
    match ty {
        Type::Bool => "bool".into(),
        Type::Int8 => "i8".into(),
        Type::Int16 => "i16".into(),
        Type::Uint16 => "u16".into(),
        Type::Int32 => "i32".into(),
        Type::Uint32 => "u32".into(),
        Type::Int64 => "i64".into(),
        Type::Float64 => "f64".into(),
        Type::String | Type::Bytes | Type::Records | Type::Uuid => "String".into(),
        Type::Array(elem) => format!("Vec<{}>", base_type(elem)),
        Type::Struct(def) => def.name.clone(),
    }
}

fn nullable(f: &Field) -> bool {
    f.nullable.lo <= f.nullable.hi
}

fn rust_type(f: &Field) -> String {
    if nullable(f) { format!("Option<{}>", base_type(&f.ty)) } else { base_type(&f.ty) }
}

fn default_expr(ty: &Type, v: &Value) -> String {
    match (ty, v) {
        (Type::Bool, Value::Bool(b)) => b.to_string(),
        (Type::Float64, Value::Number(n)) => format!("{:?}", n.as_f64().unwrap_or(0.0)),
        (_, Value::Number(n)) => n.to_string(),
        (_, Value::String(s)) => format!("String::from({s:?})"),
        (_, Value::Array(_)) => "Vec::new()".into(),
        _ => "Default::default()".into(),
    }
}

fn field_default(f: &Field) -> String {
    match (&f.default, nullable(f)) {
        (Value::Null, _) => "None".into(),
        (v, true) => format!("Some({})", default_expr(&f.ty, v)),
        (v, false) => default_expr(&f.ty, v),
    }
}

fn kind(ty: &Type) -> String {
    match ty {
        Type::Array(elem) => format!("[]{}", kind(elem)),
        Type::Struct(def) => def.name.clone(),
        Type::Bool => "bool".into(),
        Type::Int8 => "int8".into(),
        Type::Int16 => "int16".into(),
        Type::Uint16 => "uint16".into(),
        Type::Int32 => "int32".into(),
        Type::Uint32 => "uint32".into(),
        Type::Int64 => "int64".into(),
        Type::Float64 => "float64".into(),
        Type::String => "string".into(),
        Type::Bytes => "bytes (base64)".into(),
        Type::Records => "records (base64)".into(),
        Type::Uuid => "uuid (base64url)".into(),
    }
}

fn structs_of<'a>(def: &'a StructDef, out: &mut Vec<&'a StructDef>) {
    for f in &def.fields {
        let mut ty = &f.ty;
        while let Type::Array(elem) = ty {
            ty = elem;
        }
        if let Type::Struct(d) = ty
            && !out.iter().any(|s| s.name == d.name)
        {
            out.push(d);
            structs_of(d, out);
        }
    }
}

fn write_struct(out: &mut String, def: &StructDef, doc: &str) {
    let _ = writeln!(out, "    /// {doc}");
    out.push_str("    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]\n    #[serde(default)]\n");
    let _ = writeln!(out, "    pub struct {} {{", def.name);
    for f in &def.fields {
        let about = f.about.trim();
        let about = if about.is_empty() { f.name.clone() } else { about.to_string() };
        let mut notes = format!("{}, versions {}", kind(&f.ty), versions(f.versions));
        if nullable(f) {
            let _ = write!(notes, ", nullable {}", versions(f.nullable));
        }
        if let Some((tag, v)) = f.tagged {
            let _ = write!(notes, ", tag {tag} in {}", versions(v));
        }
        let _ = writeln!(out, "        /// {about} ({notes})");
        let _ = writeln!(out, "        #[serde(rename = \"{}\")]", f.json);
        let _ = writeln!(out, "        pub {}: {},", snake(&f.name), rust_type(f));
    }
    out.push_str("    }\n\n");
    let _ = writeln!(out, "    impl Default for {} {{", def.name);
    out.push_str("        fn default() -> Self {\n");
    let _ = writeln!(out, "            {} {{", def.name);
    for f in &def.fields {
        let _ = writeln!(out, "                {}: {},", snake(&f.name), field_default(f));
    }
    out.push_str("            }\n        }\n    }\n");
}

/// The text of `records.rs`.
pub(crate) fn generate() -> String {
    let mut out = String::from(
        "// Generated from Apache Kafka's message definitions (schemas/) by src/generate.rs\n\
         // (`KMSG_REGENERATE=1 cargo test -p kmsg records_rs_is_current`); do not edit.\n\
         //! Typed records: a struct for each message logtool builds or reads by\n\
         //! field, generated from Kafka's definitions. Each field is named as\n\
         //! Kafka names it (snake case; serialized under Kafka's JSON name), and\n\
         //! each `Default` is Kafka's default, so a record built with\n\
         //! `..Default::default()` is written as Kafka's generated code writes\n\
         //! it. Bytes are base64, UUIDs base64url, as the codec reads them.\n\n\
         // (every Default is written out, so that each says Kafka's default)\n\
         #![allow(clippy::derivable_impls)]\n\n",
    );
    for name in MESSAGES {
        let Some(s) = schema::by_name(name) else { continue };
        let module = snake(name);
        let _ = writeln!(out, "/// `{name}` and the structs it uses.");
        let _ = writeln!(out, "pub mod {module} {{");
        out.push_str("    use serde::{Deserialize, Serialize};\n\n");
        let doc = format!("`{name}` (versions {}).", versions(s.valid));
        write_struct(&mut out, &s.root, &doc);
        let mut nested = Vec::new();
        structs_of(&s.root, &mut nested);
        for d in nested {
            out.push('\n');
            write_struct(&mut out, d, &format!("`{}`, a part of `{name}`.", d.name));
        }
        out.push_str("}\n");
        let _ = writeln!(out, "pub use {module}::{name};\n");
        let _ = writeln!(out, "impl crate::Message for {name} {{\n    const NAME: &'static str = \"{name}\";\n}}\n");
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

#[test]
fn records_rs_is_current() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/records.rs");
    let text = generate();
    if std::env::var_os("KMSG_REGENERATE").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(on_disk == text, "src/records.rs is stale: KMSG_REGENERATE=1 cargo test -p kmsg records_rs_is_current");
}
