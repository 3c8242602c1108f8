//! Every codec's decoder on arbitrary bytes, under a ceiling: never more
//! than the limit comes out, and nothing panics.
#![no_main]
use libfuzzer_sys::fuzz_target;
use logfmt::compression::{Compression, decompress};

fuzz_target!(|data: &[u8]| {
    let Some((&which, input)) = data.split_first() else { return };
    let Some(codec) = Compression::from_id(which % 5) else { return };
    let mut out = Vec::new();
    if decompress(codec, input, (which >> 3) as i8 % 3, 1 << 20, &mut out).is_ok() {
        assert!(out.len() <= 1 << 20);
    }
});
