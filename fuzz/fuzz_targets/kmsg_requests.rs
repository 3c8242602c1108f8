//! Request bodies walked by Kafka's own definitions (`kmsg::skim_request`,
//! what `logtool broker` runs on every request before decoding it), then
//! the walked bytes decoded: any API a broker listener takes, any version.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&[which, version], body)) = data.split_first_chunk::<2>().map(|(h, b)| (h, b)) else { return };
    let names: Vec<&str> = kmsg::schema::names().into_iter().filter(|n| n.ends_with("Request")).collect();
    let Some(name) = names.get(usize::from(which) % names.len().max(1)) else { return };
    let version = i16::from(version % 20);
    if let Ok((_, len)) = kmsg::skim_request(name, version, body) {
        let _ = kmsg::decode(name, version, body.get(..len).unwrap_or_default());
    }
});
