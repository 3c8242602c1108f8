//! Responses whose records are sent from the segment files: a Fetch
//! response's record parts go from the page cache to the socket
//! (`sendfile`), as Kafka's `FileRecords.writeTo` sends them
//! (`transferTo`), so a response of 55 MiB holds only its few other bytes
//! in memory.
//!
//! The response is encoded by `kafka-protocol` as usual, each partition's
//! records standing in as a [`placeholder`] that names its [`FileSlice`];
//! [`splice`] then cuts the encoding at the placeholders and puts each
//! slice, with its length prefix, in its place. Invariants: the bytes sent
//! are exactly those of encoding the response with each slice's bytes as
//! its records (`tests::spliced_equals_encoded_with_the_records`, every
//! Fetch version); a placeholder is accepted only where it is the whole
//! records field and each exactly once, else [`splice`] refuses and the
//! caller encodes the records read into memory instead.

use std::fs::File;
use std::io;

use bytes::{BufMut, Bytes, BytesMut};

/// Bytes of a segment to send: `len` from `position` of the open `file`.
pub struct FileSlice {
    /// The segment, open (readable even once deleted or replaced).
    pub file: File,
    /// The first byte.
    pub position: u64,
    /// How many bytes.
    pub len: u64,
}

/// One part of a response on the wire.
pub enum Part {
    /// Bytes in memory.
    Bytes(Bytes),
    /// Bytes sent from a file.
    File(FileSlice),
}

/// A response's bytes after its size: parts sent one after another.
pub struct Response {
    /// In order.
    pub parts: Vec<Part>,
}

impl Response {
    /// A response all in memory.
    pub fn from_bytes(b: Bytes) -> Response {
        Response { parts: vec![Part::Bytes(b)] }
    }

    /// Its size on the wire.
    pub fn len(&self) -> u64 {
        self.parts
            .iter()
            .map(|p| match p {
                Part::Bytes(b) => b.len() as u64,
                Part::File(f) => f.len,
            })
            .fold(0u64, u64::saturating_add)
    }

    /// The bytes it holds in memory.
    #[cfg(test)]
    pub fn in_memory(&self) -> usize {
        self.parts
            .iter()
            .map(|p| match p {
                Part::Bytes(b) => b.len(),
                Part::File(_) => 0,
            })
            .fold(0usize, usize::saturating_add)
    }
}

/// The first bytes of every placeholder, chosen at random once. Other
/// bytes of a response that spell it make [`splice`] refuse, never send
/// wrong bytes.
const MAGIC: [u8; 16] =
    [0xf3, 0x9c, 0x01, 0xe7, 0x5a, 0xd2, 0x88, 0x3b, 0xc4, 0x17, 0x6e, 0xa9, 0xfe, 0x20, 0x4d, 0xb1];

/// A placeholder's size: [`MAGIC`] and the slice's index (u64).
const PLACEHOLDER_LEN: usize = MAGIC.len() + 8;

/// What stands in for the records of slice `index` in the encoding.
pub fn placeholder(index: usize) -> Bytes {
    let mut b = BytesMut::with_capacity(PLACEHOLDER_LEN);
    b.put_slice(&MAGIC);
    b.put_u64(index as u64);
    b.freeze()
}

/// The slice a records field names, if it is a placeholder.
pub fn placeholder_index(records: &[u8]) -> Option<usize> {
    let rest = records.strip_prefix(&MAGIC)?;
    let index: [u8; 8] = rest.try_into().ok()?;
    usize::try_from(u64::from_be_bytes(index)).ok()
}

/// `encoded` with each placeholder of `expected` (the slice indexes the
/// encoded response holds) and its length prefix replaced by slice's
/// length prefix and bytes: `flexible`, a compact bytes field (an unsigned
/// varint of the length + 1), else a 4-byte length. `None` when the
/// placeholders found are not exactly `expected`, each once, each prefixed
/// by its length (the caller then encodes the records from memory).
pub fn splice(
    encoded: Bytes,
    slices: &mut [Option<FileSlice>],
    expected: &[usize],
    flexible: bool,
) -> Option<Response> {
    let (prefix, prefix_len): (&[u8], usize) =
        if flexible { (&[(PLACEHOLDER_LEN + 1) as u8], 1) } else { (&(PLACEHOLDER_LEN as u32).to_be_bytes(), 4) };
    // every check first: nothing is taken from `slices` unless it splices
    let mut found: Vec<(usize, usize, usize)> = Vec::with_capacity(expected.len());
    let mut at = 0usize;
    while let Some(p) = find(encoded.get(at..)?, &MAGIC).map(|p| p.saturating_add(at)) {
        let index = placeholder_index(encoded.get(p..p.checked_add(PLACEHOLDER_LEN)?)?)?;
        let start = p.checked_sub(prefix_len)?;
        let fits = slices.get(index)?.as_ref().is_some_and(|s| i32::try_from(s.len).is_ok());
        if start < at
            || encoded.get(start..p)? != prefix
            || !fits
            || found.iter().any(|f| f.2 == index)
            || !expected.contains(&index)
        {
            return None;
        }
        at = p.checked_add(PLACEHOLDER_LEN)?;
        found.push((start, at, index));
    }
    if found.len() != expected.len() {
        return None;
    }
    let mut parts = Vec::with_capacity(found.len().saturating_mul(2).saturating_add(1));
    let mut cut = 0usize;
    for (start, end, index) in found {
        let Some(slice) = slices.get_mut(index).and_then(Option::take) else { continue };
        let mut head = BytesMut::from(encoded.get(cut..start).unwrap_or_default());
        if flexible {
            put_unsigned_varint(&mut head, slice.len.saturating_add(1));
        } else {
            head.put_i32(i32::try_from(slice.len).unwrap_or(i32::MAX));
        }
        parts.push(Part::Bytes(head.freeze()));
        parts.push(Part::File(slice));
        cut = end;
    }
    parts.push(Part::Bytes(encoded.slice(cut..)));
    Some(Response { parts })
}

/// Where `needle` first occurs in `hay`.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// An unsigned varint, as Kafka's `ByteUtils.writeUnsignedVarint`.
fn put_unsigned_varint(out: &mut BytesMut, mut v: u64) {
    while v >= 0x80 {
        out.put_u8((v as u8) | 0x80);
        v >>= 7;
    }
    out.put_u8(v as u8);
}

/// Send `s` on `stream` from the file, without copying it through
/// memory (`sendfile`); an error if the file ends before the slice does.
#[cfg(target_os = "linux")]
pub async fn send_file(stream: &tokio::net::TcpStream, s: &FileSlice) -> io::Result<()> {
    let mut offset = s.position;
    let end = s.position.saturating_add(s.len);
    while offset < end {
        let want = usize::try_from(end.saturating_sub(offset)).unwrap_or(usize::MAX).min(1 << 30);
        stream.writable().await?;
        let sent = stream.try_io(tokio::io::Interest::WRITABLE, || {
            rustix::fs::sendfile(stream, &s.file, Some(&mut offset), want).map_err(io::Error::from)
        });
        match sent {
            Ok(0) => return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the segment ends before the slice")),
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Send `s` on `stream`, read through a small buffer (no `sendfile` here).
#[cfg(not(target_os = "linux"))]
pub async fn send_file(stream: &tokio::net::TcpStream, s: &FileSlice) -> io::Result<()> {
    use std::os::unix::fs::FileExt;
    let mut buf = vec![0u8; 64 * 1024];
    let mut offset = s.position;
    let end = s.position.saturating_add(s.len);
    while offset < end {
        let n = usize::try_from(end.saturating_sub(offset)).unwrap_or(usize::MAX).min(buf.len());
        let chunk = buf.get_mut(..n).unwrap_or_default();
        s.file.read_exact_at(chunk, offset)?;
        let mut done = 0;
        while done < n {
            stream.writable().await?;
            match stream.try_write(chunk.get(done..).unwrap_or_default()) {
                Ok(w) => done = done.saturating_add(w),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
        }
        offset = offset.saturating_add(n as u64);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use kafka_protocol::messages::fetch_response::{FetchableTopicResponse, PartitionData};
    use kafka_protocol::messages::{ApiKey, FetchResponse, TopicName};
    use kafka_protocol::protocol::{Encodable, StrBytes};
    use std::io::Write;

    /// A segment-like file of `len` bytes of `fill`, and the slice of all of it.
    fn slice_of(dir: &std::path::Path, name: &str, len: usize, fill: u8) -> (FileSlice, Vec<u8>) {
        let path = dir.join(name);
        let bytes: Vec<u8> = (0..len).map(|i| fill.wrapping_add(i as u8)).collect();
        let mut f = File::create(&path).unwrap();
        f.write_all(b"before").unwrap();
        f.write_all(&bytes).unwrap();
        (FileSlice { file: File::open(&path).unwrap(), position: 6, len: len as u64 }, bytes)
    }

    fn response(records: &[Option<Bytes>]) -> FetchResponse {
        let mut r = FetchResponse::default();
        let mut t = FetchableTopicResponse::default();
        t.topic = TopicName(StrBytes::from_static_str("t"));
        for (i, rec) in records.iter().enumerate() {
            let mut p = PartitionData::default();
            p.partition_index = i as i32;
            p.records = rec.clone();
            t.partitions.push(p);
        }
        r.responses.push(t);
        r
    }

    fn flatten(r: Response) -> Vec<u8> {
        let mut out = Vec::new();
        for p in r.parts {
            match p {
                Part::Bytes(b) => out.extend_from_slice(&b),
                Part::File(f) => {
                    use std::os::unix::fs::FileExt;
                    let mut b = vec![0u8; f.len as usize];
                    f.file.read_exact_at(&mut b, f.position).unwrap();
                    out.extend_from_slice(&b);
                }
            }
        }
        out
    }

    #[test]
    fn spliced_equals_encoded_with_the_records() {
        let dir = std::env::temp_dir().join(format!("logtool-zerocopy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // lengths around the varint's byte boundaries, and none
        let lens = [1usize, 126, 127, 128, 16_383, 16_384, 70_000];
        for version in 0..=17i16 {
            let flexible = ApiKey::Fetch.response_header_version(version) >= 1;
            let mut slices = Vec::new();
            let mut data = Vec::new();
            for (i, len) in lens.iter().enumerate() {
                let (s, b) = slice_of(&dir, &format!("{i}"), *len, i as u8);
                slices.push(Some(s));
                data.push(b);
            }
            let mut with_data: Vec<Option<Bytes>> = data.iter().map(|b| Some(Bytes::from(b.clone()))).collect();
            let mut with_holes: Vec<Option<Bytes>> = (0..lens.len()).map(|i| Some(placeholder(i))).collect();
            // a partition without records between them
            with_data.insert(2, Some(Bytes::new()));
            with_holes.insert(2, Some(Bytes::new()));
            let mut want = BytesMut::new();
            if response(&with_data).encode(&mut want, version).is_err() {
                // kafka-protocol encodes v4 on (the broker answers no older)
                assert!(version < 4, "v{version}");
                continue;
            }
            let mut encoded = BytesMut::new();
            response(&with_holes).encode(&mut encoded, version).unwrap();
            let expected: Vec<usize> = (0..lens.len()).collect();
            let spliced = splice(encoded.freeze(), &mut slices, &expected, flexible).expect("spliced");
            assert_eq!(spliced.len() as usize, want.len(), "v{version}");
            assert_eq!(spliced.in_memory(), want.len() - lens.iter().sum::<usize>(), "v{version}");
            assert_eq!(flatten(spliced), want.to_vec(), "v{version}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_placeholder_found_twice_or_missing_or_unexpected_is_refused() {
        let dir = std::env::temp_dir().join(format!("logtool-zerocopy-refused-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fresh =
            || -> Vec<Option<FileSlice>> { (0..2).map(|i| Some(slice_of(&dir, &format!("{i}"), 10, 0).0)).collect() };
        let encode = |records: &[Option<Bytes>]| {
            let mut b = BytesMut::new();
            response(records).encode(&mut b, 12).unwrap();
            b.freeze()
        };
        let twice = encode(&[Some(placeholder(0)), Some(placeholder(0))]);
        assert!(splice(twice, &mut fresh(), &[0, 1], true).is_none());
        let missing = encode(&[Some(placeholder(0)), Some(Bytes::new())]);
        assert!(splice(missing, &mut fresh(), &[0, 1], true).is_none());
        let unexpected = encode(&[Some(placeholder(0)), Some(placeholder(1))]);
        assert!(splice(unexpected, &mut fresh(), &[0], true).is_none());
        // inside other bytes, not a whole records field
        let mut inside = placeholder(1).to_vec();
        inside.push(0);
        let inside = encode(&[Some(placeholder(0)), Some(Bytes::from(inside))]);
        assert!(splice(inside, &mut fresh(), &[0, 1], true).is_none());
        let fine = encode(&[Some(placeholder(0)), Some(placeholder(1))]);
        assert!(splice(fine, &mut fresh(), &[0, 1], true).is_some());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
