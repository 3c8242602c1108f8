//! Error answers to any request a Kafka 3.9.1 broker listener takes, built
//! from Kafka's own message definitions (`kmsg`, `*Request.json` and
//! `*Response.json` of every API whose `listeners` names `broker`): for an
//! API this broker does not implement (`UNSUPPORTED_VERSION`), and for a
//! fault rule's error on an API `faults` has no answer of its own for.
//!
//! The response mirrors the request: every response field whose JSON name a
//! request field shares takes its value (arrays of structs element by
//! element, so each topic, partition or group named gets its own entry),
//! every `ErrorCode` the error and every `ErrorMessage` the message; the
//! rest keep Kafka's defaults. When the mirrored value does not encode (a
//! name shared by fields of different types), only the top level is
//! answered.
//!
//! Invariants: the request is walked (`kmsg::skim_request`) before it is decoded,
//! as for the implemented APIs, so its claimed lengths are backed by bytes.

use kafka_protocol::messages::ApiKey;
use kmsg::schema::{StructDef, Type};
use serde_json::{Map, Value};

/// The definitions of `key`'s request and response, if a broker listener
/// takes it (`None` for an API of controllers only, or unknown here).
pub fn schemas(key: ApiKey) -> Option<(&'static kmsg::MessageSchema, &'static kmsg::MessageSchema)> {
    let name = format!("{key:?}");
    Some((kmsg::schema::by_name(&format!("{name}Request"))?, kmsg::schema::by_name(&format!("{name}Response"))?))
}

fn mirror(def: &StructDef, version: i16, request: Option<&Value>, code: i16, message: &str) -> Value {
    let mut out = Map::new();
    for f in def.fields.iter().filter(|f| f.versions.contains(version)) {
        let from = request.and_then(|r| r.get(&f.json));
        let v = match (f.name.as_str(), &f.ty) {
            ("ErrorCode", Type::Int16) => Value::from(code),
            ("ErrorMessage", Type::String) => Value::from(message),
            (_, Type::Array(inner)) => match (inner.as_ref(), from) {
                (Type::Struct(d), Some(Value::Array(items))) => {
                    Value::Array(items.iter().map(|i| mirror(d, version, Some(i), code, message)).collect())
                }
                (_, Some(a @ Value::Array(_))) => a.clone(),
                _ => continue,
            },
            (_, Type::Struct(d)) => mirror(d, version, from, code, message),
            (_, _) => match from {
                Some(v) if !v.is_array() && !v.is_object() => v.clone(),
                _ => continue,
            },
        };
        out.insert(f.json.clone(), v);
    }
    Value::Object(out)
}

/// The body (after the response header) answering the request `body` of
/// `key` at `version` with `code` everywhere it has an error code.
pub fn error_answer(key: ApiKey, version: i16, body: &[u8], code: i16, message: &str) -> Result<Vec<u8>, String> {
    let (request, response) = schemas(key).ok_or_else(|| format!("{key:?}: no definition"))?;
    let decoded = kmsg::decode(&request.name, version, body).map_err(|e| format!("{key:?} v{version}: {e}"))?;
    let mirrored = mirror(&response.root, version, Some(&decoded), code, message);
    match kmsg::encode(&response.name, version, &mirrored) {
        Ok(b) => Ok(b),
        Err(_) => kmsg::encode(&response.name, version, &mirror(&response.root, version, None, code, message))
            .map_err(|e| format!("{key:?} v{version} response: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// DeleteGroups names groups by string; each gets its own result.
    /// OffsetDelete mirrors topics and partitions.
    #[test]
    fn answers_mirror_what_the_request_names() {
        let req = serde_json::json!({"groupId": "g", "topics": [{"name": "t", "partitions": [{"partitionIndex": 3}]}]});
        let body = kmsg::encode("OffsetDeleteRequest", 0, &req).unwrap();
        let answer = error_answer(ApiKey::OffsetDelete, 0, &body, 35, "no").unwrap();
        let r = kmsg::decode("OffsetDeleteResponse", 0, &answer).unwrap();
        assert_eq!(r["errorCode"], 35);
        assert_eq!(r["topics"][0]["name"], "t");
        assert_eq!(r["topics"][0]["partitions"][0]["partitionIndex"], 3);
        assert_eq!(r["topics"][0]["partitions"][0]["errorCode"], 35);
        // DeleteGroups names its groups by string: the results have no
        // field of that name, so they stay empty; the answer still encodes
        let body = kmsg::encode("DeleteGroupsRequest", 2, &serde_json::json!({"groupsNames": ["a"]})).unwrap();
        let answer = error_answer(ApiKey::DeleteGroups, 2, &body, 35, "no").unwrap();
        assert_eq!(kmsg::decode("DeleteGroupsResponse", 2, &answer).unwrap()["results"], serde_json::json!([]));
        // a controller-only API has no definition here
        assert!(schemas(ApiKey::BrokerHeartbeat).is_none());
    }
}
