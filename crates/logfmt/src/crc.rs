//! CRC-32C (Castagnoli, "CRC-32/ISCSI"): the checksum of v2 record batches
//! (Kafka's `DefaultRecordBatch`, through `org.apache.kafka.common.utils.Crc32C`)
//! and of producer snapshots (`ProducerStateManager`). Every CRC-32C in the
//! workspace is computed here.
//!
//! The work is `crc-fast`'s: it picks at run time the fastest of the CPU's
//! paths (on x86-64 with AVX-512 VPCLMULQDQ, carry-less multiplication folding
//! 64 bytes at a time beside the `crc32` instruction), about twice the
//! `crc32c` crate's three-way `crc32q` on the batches `verify` checks (16 KiB
//! from memory: 27 vs 14 GB/s a core, on the 2-core benchmark VM). The `crc32c`
//! crate stays as the tests' oracle.
//!
//! Invariant: `crc32c_append(crc32c(a), b) == crc32c(a ++ b)`, for any split.

use crc_fast::{CrcAlgorithm, Digest};

/// The CRC-32C of `data`.
#[inline]
pub fn crc32c(data: &[u8]) -> u32 {
    crc_fast::crc32_iscsi(data)
}

/// The CRC-32C of the bytes `crc` is the CRC-32C of, followed by `data`.
#[inline]
pub fn crc32c_append(crc: u32, data: &[u8]) -> u32 {
    // the running state is the finished CRC with its final XOR undone
    let mut digest = Digest::new_with_init_state(CrcAlgorithm::Crc32Iscsi, u64::from(!crc));
    digest.update(data);
    // a CRC-32's state has 32 bits: the high half of the u64 is always zero
    (digest.finalize() & u64::from(u32::MAX)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_check_value_of_crc32c() {
        // the catalogue's check value for CRC-32/ISCSI
        assert_eq!(crc32c(b"123456789"), 0xe306_9283);
        assert_eq!(crc32c(b""), 0);
        assert_eq!(crc32c_append(crc32c(b"1234"), b"56789"), 0xe306_9283);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// Every length from empty to past the SIMD paths' block sizes, split
        /// anywhere, agrees with the `crc32c` crate.
        #[test]
        fn agrees_with_the_crc32c_crate(data in proptest::collection::vec(any::<u8>(), 0..5000), at in any::<prop::sample::Index>()) {
            let split = at.index(data.len() + 1);
            prop_assert_eq!(crc32c(&data), ::crc32c::crc32c(&data));
            let (a, b) = data.split_at(split);
            prop_assert_eq!(crc32c_append(crc32c(a), b), ::crc32c::crc32c(&data));
            prop_assert_eq!(crc32c_append(::crc32c::crc32c(a), b), ::crc32c::crc32c_append(::crc32c::crc32c(a), b));
        }
    }
}
