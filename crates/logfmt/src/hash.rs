//! Kafka's `Utils.murmur2`, which its producer's default partitioner and
//! tiered storage's metadata partitioner (`RemoteLogMetadataTopicPartitioner`)
//! hash with.

/// Kafka's `Utils.murmur2`: the hash the Java producer's default
/// partitioner takes of a record's serialized key.
pub fn murmur2(data: &[u8]) -> i32 {
    const M: u32 = 0x5bd1e995;
    let len = data.len();
    // (Kafka's int arithmetic: the length as an int, wrapping multiplies)
    let mut h: u32 = 0x9747_b28c ^ (len as u32);
    let mut chunks = data.chunks_exact(4);
    for c in &mut chunks {
        let &[b0, b1, b2, b3] = c else { continue };
        let mut k = u32::from_le_bytes([b0, b1, b2, b3]);
        k = k.wrapping_mul(M);
        k ^= k >> 24;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M) ^ k;
    }
    let rest = chunks.remainder();
    if let Some(&b) = rest.get(2) {
        h ^= u32::from(b) << 16;
    }
    if let Some(&b) = rest.get(1) {
        h ^= u32::from(b) << 8;
    }
    if let Some(&b) = rest.first() {
        h ^= u32::from(b);
        h = h.wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^= h >> 15;
    h as i32
}
