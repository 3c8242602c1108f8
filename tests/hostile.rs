//! Hostile inputs (issue 16): each is checked with `verify` and `dump --deep`
//! (JSON): a clear finding or error line naming the file, the absolute byte
//! position and a kind, the documented exit code, no panic, and a peak RSS of
//! the logtool process (its own `wait4` rusage) under [`CEILING_KIB`].

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::util::{batch, fix_crc};

/// Peak RSS allowed to logtool on any of these inputs.
const CEILING_KIB: i64 = 128 * 1024;

struct Run {
    code: i32,
    lines: Vec<Value>,
    stderr: String,
    peak_kib: i64,
}

/// Run logtool with `--format json` in a helper process (this test binary,
/// [`rss_helper`]) whose only child it is, so that the helper's
/// `getrusage(RUSAGE_CHILDREN)` peak RSS is logtool's own.
fn run(args: &[&str]) -> Run {
    let tmp = tempfile::tempdir().unwrap();
    let status = Command::new(std::env::current_exe().unwrap())
        .args(["--ignored", "--exact", "hostile::rss_helper", "--test-threads", "1", "-q"])
        .env("LOGTOOL_RSS_ARGS", serde_json::to_string(args).unwrap())
        .env("LOGTOOL_RSS_DIR", tmp.path())
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "the helper failed for {args:?}");
    let read = |n: &str| std::fs::read_to_string(tmp.path().join(n)).unwrap();
    let result = read("result");
    let (code, peak) = result.trim().split_once(' ').unwrap();
    let code: i32 = code.parse().unwrap();
    let stderr = read("err");
    assert!(code >= 0, "{args:?}: killed by a signal: {stderr}");
    crate::util::in_our_words(args, &read("out"), &stderr);
    let lines = read("out").lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}"))).collect();
    Run { code, lines, stderr, peak_kib: peak.parse().unwrap() }
}

/// The helper of [`run`]: runs logtool once, writes its output, exit code
/// (-1: killed by a signal) and peak RSS. Does nothing when not called so.
#[test]
#[ignore = "run by the other tests of this module, as a helper process"]
fn rss_helper() {
    let (Ok(args), Some(dir)) = (std::env::var("LOGTOOL_RSS_ARGS"), std::env::var_os("LOGTOOL_RSS_DIR")) else {
        return;
    };
    let dir = PathBuf::from(dir);
    let args: Vec<String> = serde_json::from_str(&args).unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_logtool"))
        .arg("--format")
        .arg("json")
        .args(&args)
        .env_clear()
        .stdout(std::fs::File::create(dir.join("out")).unwrap())
        .stderr(std::fs::File::create(dir.join("err")).unwrap())
        .status()
        .unwrap();
    let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN).unwrap();
    let code = status.code().unwrap_or(-1);
    std::fs::write(dir.join("result"), format!("{code} {}", usage.max_rss())).unwrap();
}

/// A partition dir `t-0` in a fresh log dir, with `files` written into it.
fn partition(files: &[(&str, Vec<u8>)]) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("t-0");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, bytes) in files {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    (tmp, dir)
}

/// A batch whose records region is `records` (count `count`), CRC valid.
fn batch_with_records(base: i64, count: i32, records: &[u8]) -> Vec<u8> {
    let mut b = batch(base, 1);
    b.truncate(61);
    b.extend_from_slice(records);
    let len = (b.len() - 12) as i32;
    b[8..12].copy_from_slice(&len.to_be_bytes());
    b[57..61].copy_from_slice(&count.to_be_bytes());
    fix_crc(&mut b);
    b
}

/// Both commands on `path`, each walking every record (its payloads are
/// what is hostile): exit codes `codes` (verify --deep, which fails on
/// errors, and dump --deep), under the ceiling; with `within` (a byte range of the file
/// named `file`), a finding of verify and an error line of dump there,
/// naming the file, an absolute position in the range and a kind.
fn check(path: &Path, codes: (i32, i32), file: &str, within: Option<std::ops::Range<u64>>) {
    let p = path.to_str().unwrap();
    for (cmd, kind, code) in [("verify", "finding", codes.0), ("dump", "error", codes.1)] {
        let args: Vec<&str> = if cmd == "dump" { vec!["dump", "--deep", p] } else { vec!["verify", "--deep", p] };
        let r = run(&args);
        let brief: Vec<String> = r.lines.iter().filter(|l| l["type"] == kind).map(|l| l.to_string()).collect();
        assert_eq!(r.code, code, "{cmd} {p}: {brief:#?} {}", r.stderr);
        assert!(r.peak_kib < CEILING_KIB, "{cmd} {p}: peak RSS {} KiB", r.peak_kib);
        if let Some(range) = &within {
            let hit = r.lines.iter().any(|l| {
                l["type"] == kind
                    && l["file"].as_str().is_some_and(|f| f.ends_with(file))
                    && l["position"].as_u64().is_some_and(|p| range.contains(&p))
                    && l["kind"].is_string()
            });
            assert!(hit, "{cmd} {p}: no {kind} in {file} at {range:?}: {brief:#?}");
        }
    }
}

const SEG: &str = "00000000000000000000.log";

#[test]
fn batch_length_of_2_pow_31_minus_1_and_negative() {
    for len in [i32::MAX, -1, i32::MIN] {
        let good = batch(0, 3);
        let mut bad = batch(3, 3);
        bad[8..12].copy_from_slice(&len.to_be_bytes());
        let at = good.len() as u64;
        let (_t, dir) = partition(&[(SEG, [good, bad].concat())]);
        check(&dir, (1, 1), SEG, Some(at..at + 1));
    }
}

#[test]
fn record_count_of_2_pow_31_minus_1_with_a_valid_crc() {
    let mut b = batch(0, 3);
    b[57..61].copy_from_slice(&i32::MAX.to_be_bytes());
    fix_crc(&mut b);
    let size = b.len() as u64;
    let (_t, dir) = partition(&[(SEG, b)]);
    // (dump says where the missing records would start: the batch's end)
    check(&dir, (1, 1), SEG, Some(0..size + 1));
}

#[test]
fn ten_byte_and_overlong_varints_and_records_longer_than_their_batch() {
    for records in [
        // a record length of 10 varint bytes
        vec![0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0, 0, 0],
        // an int32 varint of 6 bytes
        vec![0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0, 0, 0],
        // a record claiming 1000 bytes in a batch of a few
        vec![0xd0, 0x0f, 0, 0, 0, 0, 0],
    ] {
        let b = batch_with_records(0, 1, &records);
        let size = b.len() as u64;
        let (_t, dir) = partition(&[(SEG, b)]);
        check(&dir, (1, 1), SEG, Some(0..size));
    }
}

#[test]
fn index_files_sparse_huge_odd_sized_and_pointing_past_the_segment() {
    let log = [batch(0, 3), batch(3, 3)].concat();
    // a 4 GiB index of zeros (sparse)
    let (_t, dir) = partition(&[(SEG, log.clone()), ("00000000000000000000.timeindex", Vec::new())]);
    let f = std::fs::File::create(dir.join("00000000000000000000.index")).unwrap();
    f.set_len(4 << 30).unwrap();
    drop(f);
    // (zeros after the entries: the preallocated tail of an unclean shutdown)
    check(&dir, (0, 0), "00000000000000000000.index", None);
    // odd-sized
    let (_t, dir) = partition(&[(SEG, log.clone()), ("00000000000000000000.index", vec![0; 13])]);
    let r = run(&["verify", dir.to_str().unwrap()]);
    assert!(r.peak_kib < CEILING_KIB);
    assert!(r.lines.iter().any(|l| l["kind"] == "index_partial_entry" && l["position"] == 8), "{:#?}", r.lines);
    // (verify: a warning; dump: a corrupt tail, exit 1)
    check(&dir, (0, 1), "00000000000000000000.index", Some(8..9));
    // an entry (offset 3) pointing past the end of the segment
    let mut e = 3i32.to_be_bytes().to_vec();
    e.extend(1_000_000i32.to_be_bytes());
    let (_t, dir) = partition(&[(SEG, log), ("00000000000000000000.index", e)]);
    check(&dir, (1, 0), "00000000000000000000.index", None);
}

#[test]
fn symlink_loops_dangling_links_and_a_directory_named_like_a_segment() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs");
    let dir = logs.join("t-0");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(SEG), batch(0, 3)).unwrap();
    std::os::unix::fs::symlink(logs.join("loop-0"), logs.join("loop-0")).unwrap();
    std::os::unix::fs::symlink(logs.join("nowhere"), logs.join("dangling-0")).unwrap();
    std::os::unix::fs::symlink("00000000000000000099.log", dir.join("00000000000000000099.log")).unwrap();
    std::fs::create_dir(dir.join("00000000000000000003.log")).unwrap();
    let p = logs.to_str().unwrap();
    for args in [vec!["verify", p], vec!["dump", "--deep", p]] {
        let r = run(&args);
        assert!(r.code <= 2, "{args:?}: {}", r.stderr);
        assert!(r.peak_kib < CEILING_KIB);
        // the sound segment is still read
        assert!(
            r.lines.iter().any(|l| l["file"].as_str().is_some_and(|f| f.ends_with(SEG))),
            "{args:?}: {:#?} {}",
            r.lines,
            r.stderr
        );
    }
}

/// `n` empty partition dirs: memory stays small, time linear.
fn empty_partitions(n: usize) {
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs");
    for i in 0..n {
        std::fs::create_dir_all(logs.join(format!("t-{i}"))).unwrap();
    }
    let p = logs.to_str().unwrap();
    for args in [vec!["verify", p], vec!["dump", p]] {
        let start = std::time::Instant::now();
        let r = run(&args);
        assert!(r.code <= 1, "{args:?}: {}", r.stderr);
        assert!(r.peak_kib < CEILING_KIB, "{args:?}: peak RSS {} KiB", r.peak_kib);
        // (not a benchmark: a bound far above what linear work takes)
        assert!(start.elapsed().as_secs() < 120, "{args:?}: {:?}", start.elapsed());
    }
}

#[test]
fn a_log_dir_of_10_000_empty_partitions() {
    empty_partitions(10_000);
}

/// (Making 100,000 directories takes the filesystem tens of seconds: `.ci/run`
/// runs this once.)
#[test]
#[ignore = "slow to set up: .ci/run runs it"]
fn a_log_dir_of_100_000_empty_partitions() {
    empty_partitions(100_000);
}

/// A segment that shrinks while it is read (a broker truncating it): a
/// clear I/O error naming the file, exit code 2, no panic; verify says the
/// same. (`--max-rate` holds the read back until the cut is made.)
#[test]
fn a_segment_that_shrinks_while_it_is_read() {
    let src = crate::util::fixtures_4().join("kafka4/logs/plain-0/00000000000000000000.log");
    for cmd in ["dump", "verify"] {
        let (_tmp, dir) = partition(&[("00000000000000000000.log", std::fs::read(&src).unwrap())]);
        let seg = dir.join("00000000000000000000.log");
        let args: Vec<String> =
            ["--max-rate", "64K", cmd, seg.to_str().unwrap()].iter().map(|s| s.to_string()).collect();
        let reader = std::thread::spawn(move || {
            let a: Vec<&str> = args.iter().map(String::as_str).collect();
            run(&a)
        });
        std::thread::sleep(std::time::Duration::from_millis(1000));
        std::fs::OpenOptions::new().write(true).open(&seg).unwrap().set_len(20_000).unwrap();
        let r = reader.join().unwrap();
        assert!(!r.stderr.contains("panicked"), "{cmd}: {}", r.stderr);
        let text = format!("{:?}{}", r.lines, r.stderr);
        assert!(text.contains("became shorter"), "{cmd}: {text}");
        assert!(text.contains("00000000000000000000.log"), "{cmd}: {text}");
        assert_eq!(r.code, 2, "{cmd}: {text}");
        assert!(r.peak_kib < CEILING_KIB, "{cmd}: {} KiB", r.peak_kib);
    }
}

/// An unreadable segment (no read permission): verify reports it as an
/// `io_error` naming the file (exit 2) and judges nothing against the log
/// end it hides; dump reports the same and goes on with the next file. As
/// root (CI), logtool runs as `nobody` (`setpriv`), for whom the mode holds.
#[test]
fn an_unreadable_segment() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let (tmp, dir) = partition(&[(SEG, batch(0, 3)), ("00000000000000000003.log", batch(3, 3))]);
    let unreadable = dir.join("00000000000000000003.log");
    for p in [tmp.path(), dir.as_path()] {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::set_permissions(dir.join(SEG), std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::set_permissions(&unreadable, std::fs::Permissions::from_mode(0o000)).unwrap();
    let root = std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0);
    let bin = env!("CARGO_BIN_EXE_logtool");
    let logtool = |args: &[&str]| -> Option<(i32, Vec<Value>)> {
        let mut cmd = if root {
            let mut c = Command::new("setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups", bin]);
            c
        } else {
            Command::new(bin)
        };
        let out = cmd.arg("--format").arg("json").args(args).output().ok()?;
        if root && String::from_utf8_lossy(&out.stderr).contains("setpriv") {
            return None;
        }
        let lines = String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        Some((out.status.code().unwrap_or(-1), lines))
    };
    let p = dir.to_str().unwrap();
    let Some((code, lines)) = logtool(&["verify", p]) else {
        eprintln!("skipped: setpriv cannot drop to nobody here");
        return;
    };
    assert_eq!(code, 2, "{lines:#?}");
    let names_it = |l: &&Value| l["file"].as_str().is_some_and(|f| f.ends_with("00000000000000000003.log"));
    let io: Vec<&Value> = lines.iter().filter(|l| l["kind"] == "io_error").filter(names_it).collect();
    assert_eq!(io.len(), 1, "{lines:#?}");
    assert!(io[0]["message"].as_str().unwrap().contains("ermission"), "{io:#?}");
    for knock_on in ["leader_epoch_beyond_log_end", "producer_snapshot_beyond_log_end", "index_beyond_log_end"] {
        assert!(!lines.iter().any(|l| l["kind"] == knock_on), "{knock_on}: {lines:#?}");
    }
    let (code, lines) = logtool(&["dump", p]).unwrap();
    assert_eq!(code, 2, "{lines:#?}");
    assert!(lines.iter().any(|l| l["type"] == "error" && l["kind"] == "io" && names_it(&l)), "{lines:#?}");
    assert!(lines.iter().any(|l| l["type"] == "batch" && l["file"].as_str().unwrap().ends_with(SEG)), "{lines:#?}");
}

/// A segment whose file name is not UTF-8: dump reads it as a segment (and
/// says its name is not Kafka's), verify reports the name Kafka's loading
/// fails on; neither skips it nor fails to open it.
#[test]
fn a_segment_name_that_is_not_utf8() {
    use std::os::unix::ffi::OsStrExt;
    let src = crate::util::fixtures().join("clean/logs/plain-0/00000000000000000000.log");
    let (_tmp, dir) = partition(&[]);
    let name = std::ffi::OsStr::from_bytes(b"0000000000000000\xff000.log");
    std::fs::copy(&src, dir.join(name)).unwrap();
    let r = run(&["dump", dir.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{:?} {}", r.lines, r.stderr);
    assert!(!crate::util::of_type(&r.lines, "batch").is_empty(), "{:?}", r.lines);
    let r = run(&["verify", dir.to_str().unwrap()]);
    assert_eq!(r.code, 1, "{:?} {}", r.lines, r.stderr);
    assert!(
        crate::util::of_type(&r.lines, "finding").iter().any(|f| f["kind"] == "segment_name_invalid"),
        "{:?}",
        r.lines
    );
}

/// The target (docs/robustness.md) for decompression: memory of `dump --deep` and
/// `verify` whatever a batch inflates to, at any `-j`.
const STREAMING_KIB: i64 = 64 * 1024;

use logfmt::compression::Compression;

/// A batch at `base` whose records region is `payload`, compressed by
/// `codec` and declaring `count` records, with a valid CRC.
fn compressed_batch(base: i64, count: i32, codec: Compression, payload: &[u8]) -> Vec<u8> {
    let mut b = batch_with_records(base, count, payload);
    let attributes = (i16::from_be_bytes([b[21], b[22]]) & !7) | i16::from(codec.id());
    b[21..23].copy_from_slice(&attributes.to_be_bytes());
    fix_crc(&mut b);
    b
}

/// One small record, as its batch's records region holds it.
fn one_record() -> Vec<u8> {
    batch(0, 1)[61..].to_vec()
}

/// The records region `prefix` followed by 1 GiB of zeros, compressed by
/// `codec` in a few KiB (zstd: RLE blocks), 1 MiB (gzip: members), 4 MiB
/// (lz4: 4 MiB blocks) or 48 MiB (snappy: 64 KiB chunks; snappy cannot do
/// better than about 21:1). Made without compressing 1 GiB.
fn bomb(codec: Compression, prefix: &[u8]) -> Vec<u8> {
    const GIB: usize = 1 << 30;
    match codec {
        Compression::Zstd => {
            // frame header: no checksum, no content size, a 128 KiB window
            let mut f = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, (17 - 10) << 3];
            let block = |f: &mut Vec<u8>, last: bool, kind: u32, size: usize| {
                let h = u32::from(last) | (kind << 1) | ((size as u32) << 3);
                f.extend(&h.to_le_bytes()[..3]);
            };
            block(&mut f, false, 0, prefix.len());
            f.extend(prefix);
            let n = GIB / (128 << 10);
            for i in 0..n {
                block(&mut f, i == n - 1, 1, 128 << 10);
                f.push(0);
            }
            f
        }
        Compression::Gzip => {
            let member = |data: &[u8]| {
                let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
                std::io::Write::write_all(&mut e, data).unwrap();
                e.finish().unwrap()
            };
            let zeros = member(&vec![0; 1 << 20]);
            let mut out = member(prefix);
            for _ in 0..GIB >> 20 {
                out.extend(&zeros);
            }
            out
        }
        Compression::Lz4 => {
            // Kafka's frame descriptor with 4 MiB blocks
            let (flg, bd) = (0x60u8, 0x70u8);
            let hc = ((xxhash_rust::xxh32::xxh32(&[flg, bd], 0) >> 8) & 0xff) as u8;
            let mut out = vec![0x04, 0x22, 0x4d, 0x18, flg, bd, hc];
            out.extend((prefix.len() as u32 | 0x8000_0000).to_le_bytes());
            out.extend(prefix);
            let zeros = lz4_flex::block::compress(&vec![0; 4 << 20]);
            for _ in 0..GIB >> 22 {
                out.extend((zeros.len() as u32).to_le_bytes());
                out.extend(&zeros);
            }
            out.extend(0u32.to_le_bytes());
            out
        }
        Compression::Snappy => {
            let mut out = vec![0x82, b'S', b'N', b'A', b'P', b'P', b'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1];
            let chunk = |data: &[u8], out: &mut Vec<u8>| {
                let block = snap::raw::Encoder::new().compress_vec(data).unwrap();
                out.extend((block.len() as i32).to_be_bytes());
                out.extend(block);
            };
            chunk(prefix, &mut out);
            let mut zeros = Vec::new();
            chunk(&vec![0; 64 << 10], &mut zeros);
            for _ in 0..GIB >> 16 {
                out.extend(&zeros);
            }
            out
        }
        Compression::None => unreachable!(),
    }
}

/// A log dir `logs` of `n` partitions `t-0..`, each one batch of 1 record
/// followed by a 1 GiB bomb (codecs in turn; valid CRCs).
fn bomb_log_dir(codecs: &[Compression]) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs");
    for (i, &codec) in codecs.iter().enumerate() {
        let dir = logs.join(format!("t-{i}"));
        std::fs::create_dir_all(&dir).unwrap();
        let b = compressed_batch(0, 1, codec, &bomb(codec, &one_record()));
        std::fs::write(dir.join(SEG), b).unwrap();
    }
    (tmp, logs)
}

const ALL_CODECS: [Compression; 4] = [Compression::Gzip, Compression::Snappy, Compression::Lz4, Compression::Zstd];

/// A decompression bomb of every codec: its record is read, the rest is
/// reported where the payload starts (the decompressed size passes the
/// limit), and memory stays under the streaming target: the payload is
/// never held, only read through. With the limit raised past 1 GiB, all of
/// it streams through and the zeros are reported as bytes after the last
/// record.
#[test]
fn a_decompression_bomb_of_every_codec() {
    for codec in ALL_CODECS {
        let (_t, logs) = bomb_log_dir(&[codec]);
        let dir = logs.join("t-0");
        let p = dir.to_str().unwrap();
        check(&dir, (1, 1), SEG, Some(61..62));
        for args in [vec!["verify", "--deep", p], vec!["dump", "--deep", p]] {
            let r = run(&args);
            assert!(r.peak_kib < STREAMING_KIB, "{codec:?} {args:?}: peak RSS {} KiB", r.peak_kib);
            let text = format!("{:?}", r.lines);
            assert!(text.contains("more than the limit"), "{codec:?} {args:?}: {text}");
        }
        if codec == Compression::Zstd || codec == Compression::Lz4 {
            // the whole GiB through the decoder
            let r = run(&["verify", "--deep", "--max-decompressed-size", "2G", p]);
            assert!(r.peak_kib < STREAMING_KIB, "{codec:?}: peak RSS {} KiB", r.peak_kib);
            let text = format!("{:?}", r.lines);
            assert!(text.contains(&format!("{} unexpected byte(s)", 1u64 << 30)), "{codec:?}: {text}");
        }
    }
}

/// Eight bomb partitions checked by eight threads: memory still under the
/// target (the budget is shared; a partition it refuses is checked again
/// alone), and every partition reported.
#[test]
fn eight_bombs_at_eight_threads() {
    let codecs: Vec<Compression> = (0..8).map(|i| ALL_CODECS[i % 4]).collect();
    let (_t, logs) = bomb_log_dir(&codecs);
    let p = logs.to_str().unwrap();
    for args in [vec!["verify", "--deep", "-j", "8", p], vec!["stats", "-j", "8", p], vec!["dump", "--deep", p]] {
        let r = run(&args);
        assert!(r.code <= 1, "{args:?}: {}", r.stderr);
        assert!(r.peak_kib < STREAMING_KIB, "{args:?}: peak RSS {} KiB", r.peak_kib);
        if args[0] == "verify" {
            for i in 0..8 {
                let hit = r.lines.iter().any(|l| {
                    l["type"] == "finding"
                        && l["kind"] == "decompression_failed"
                        && l["file"].as_str().is_some_and(|f| f.contains(&format!("t-{i}/")))
                });
                assert!(hit, "t-{i}: {:#?}", r.lines);
            }
            assert!(!format!("{:?}", r.lines).contains("memory_budget"), "{:#?}", r.lines);
        }
    }
}

/// `n` records of `size`-byte values (a repeating pattern), compressed by
/// `codec` a record at a time (gzip members, zstd frames, lz4 64 KiB blocks,
/// snappy 32 KiB chunks), so that making them holds one record.
fn expanded(codec: Compression, n: usize, size: usize) -> Vec<u8> {
    use logfmt::builder::{BatchBuilder, NewRecord};
    let value: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
    let mut out = match codec {
        Compression::Lz4 => vec![0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x82],
        Compression::Snappy => vec![0x82, b'S', b'N', b'A', b'P', b'P', b'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1],
        _ => Vec::new(),
    };
    for i in 0..n {
        let mut b = BatchBuilder::new(0);
        // (offset deltas count up: one record per builder, deltas patched below)
        b.push(&NewRecord { timestamp: 1_800_000_000_000, key: Some(b"k"), value: Some(&value), headers: &[] });
        let mut rec = b.build()[61..].to_vec();
        // the record's offsetDelta varint is 0 (1 byte); re-encode with i
        let len_bytes = {
            let mut c = 0;
            while rec[c] & 0x80 != 0 {
                c += 1;
            }
            c + 1
        };
        let body = &rec[len_bytes..];
        let mut new_body = vec![body[0], body[1]];
        logfmt::builder::put_varint(&mut new_body, i as i32);
        new_body.extend(&body[3..]);
        rec.clear();
        logfmt::builder::put_varint(&mut rec, new_body.len() as i32);
        rec.extend(new_body);
        match codec {
            Compression::Gzip => {
                let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                std::io::Write::write_all(&mut e, &rec).unwrap();
                out.extend(e.finish().unwrap());
            }
            Compression::Zstd => out.extend(zstd::encode_all(&rec[..], 1).unwrap()),
            Compression::Lz4 => {
                for c in rec.chunks(64 << 10) {
                    let block = lz4_flex::block::compress(c);
                    out.extend((block.len() as u32).to_le_bytes());
                    out.extend(block);
                }
            }
            Compression::Snappy => {
                for c in rec.chunks(32 << 10) {
                    let block = snap::raw::Encoder::new().compress_vec(c).unwrap();
                    out.extend((block.len() as i32).to_be_bytes());
                    out.extend(block);
                }
            }
            Compression::None => out.extend(rec),
        }
    }
    if codec == Compression::Lz4 {
        out.extend(0u32.to_le_bytes());
    }
    out
}

/// A legitimate batch that inflates to 200 MiB (200 records of 1 MiB), in
/// every codec: verify finds nothing wrong, dump prints every record, and
/// memory stays under the target (it follows the largest record, not the
/// batch's decompressed size).
#[test]
fn a_batch_that_inflates_to_200_mib() {
    for codec in ALL_CODECS {
        let (_t, dir) = partition(&[]);
        let mut b = compressed_batch(0, 200, codec, &expanded(codec, 200, 1 << 20));
        b[23..27].copy_from_slice(&199i32.to_be_bytes()); // lastOffsetDelta
        fix_crc(&mut b);
        std::fs::write(dir.join(SEG), b).unwrap();
        let p = dir.to_str().unwrap();
        let r = run(&["verify", p]);
        assert!(r.peak_kib < STREAMING_KIB, "{codec:?} verify: peak RSS {} KiB", r.peak_kib);
        let bad: Vec<&Value> = r.lines.iter().filter(|l| l["type"] == "finding" && l["severity"] != "info").collect();
        assert!(bad.iter().all(|f| f["kind"].as_str().unwrap().contains("missing")), "{codec:?}: {bad:#?}");
        let r = run(&["dump", "--deep", "--payload", "none", p]);
        assert_eq!(r.code, 0, "{codec:?}: {}", r.stderr);
        assert!(r.peak_kib < STREAMING_KIB, "{codec:?} dump: peak RSS {} KiB", r.peak_kib);
        assert_eq!(crate::util::of_type(&r.lines, "record").len(), 200, "{codec:?}");
    }
}

/// A record larger than the memory budget: verify checks it as it streams
/// past (nothing wrong), dump reports it (exit 2, the kind `memory`) and
/// prints the records around it; with a larger budget dump prints it.
#[test]
fn a_record_larger_than_the_memory_budget() {
    use logfmt::builder::{BatchBuilder, NewRecord};
    let big = vec![7u8; 24 << 20];
    let mut b = BatchBuilder::new(0);
    b.compression = Compression::Gzip;
    for v in [&b"small"[..], &big, b"after"] {
        b.push(&NewRecord { timestamp: 1_800_000_000_000, key: None, value: Some(v), headers: &[] });
    }
    let (_t, dir) = partition(&[(SEG, b.build())]);
    let p = dir.to_str().unwrap();
    let r = run(&["verify", "--memory", "16M", p]);
    assert_eq!(r.code, 0, "{:#?}", r.lines);
    let kinds = format!("{:?}", r.lines);
    assert!(!kinds.contains("record_invalid") && !kinds.contains("memory_budget"), "{:#?}", r.lines);
    assert_eq!(crate::util::of_type(&r.lines, "summary")[0]["records"], 3);
    assert!(r.peak_kib < STREAMING_KIB, "verify: {} KiB", r.peak_kib);
    let r = run(&["dump", "--deep", "--memory", "16M", "--payload", "none", p]);
    assert_eq!(r.code, 2, "{:#?}", r.lines);
    let errors = crate::util::of_type(&r.lines, "error");
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(errors[0]["kind"], "memory");
    assert_eq!(errors[0]["position"], 61);
    assert!(errors[0]["message"].as_str().unwrap().contains("--memory"), "{errors:#?}");
    let offsets: Vec<i64> =
        crate::util::of_type(&r.lines, "record").iter().map(|l| l["offset"].as_i64().unwrap()).collect();
    assert_eq!(offsets, vec![0, 2]);
    let r = run(&["dump", "--deep", "--memory", "64M", "--payload", "none", p]);
    assert_eq!(r.code, 0, "{:#?}", r.lines);
    assert_eq!(crate::util::of_type(&r.lines, "record").len(), 3);
}

/// Writes the inputs `bench/memory.sh` measures into `$LOGTOOL_MEMORY_INPUTS`
/// (made by the helpers above): a bomb partition per codec, a log dir of 8
/// bombs, a 200 MiB-inflating batch per codec, a 24 MiB record.
#[test]
#[ignore = "run by bench/memory.sh"]
fn memory_inputs() {
    let Some(out) = std::env::var_os("LOGTOOL_MEMORY_INPUTS") else { return };
    let out = PathBuf::from(out);
    let _ = std::fs::remove_dir_all(&out);
    let write = |dir: PathBuf, seg: Vec<u8>| {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(SEG), seg).unwrap();
    };
    for codec in ALL_CODECS {
        let name = codec.name();
        write(out.join(format!("bomb-{name}/t-0")), compressed_batch(0, 1, codec, &bomb(codec, &one_record())));
        write(out.join(format!("bombs/t-{}", codec.id())), compressed_batch(0, 1, codec, &bomb(codec, &one_record())));
        write(out.join(format!("bombs/u-{}", codec.id())), compressed_batch(0, 1, codec, &bomb(codec, &one_record())));
        let mut b = compressed_batch(0, 200, codec, &expanded(codec, 200, 1 << 20));
        b[23..27].copy_from_slice(&199i32.to_be_bytes());
        fix_crc(&mut b);
        write(out.join(format!("expanded-{name}/t-0")), b);
    }
    let mut b = logfmt::builder::BatchBuilder::new(0);
    b.compression = Compression::Gzip;
    let big = vec![7u8; 24 << 20];
    for v in [&b"small"[..], &big, b"after"] {
        b.push(&logfmt::builder::NewRecord { timestamp: 1_800_000_000_000, key: None, value: Some(v), headers: &[] });
    }
    write(out.join("record-24m/t-0"), b.build());
}

/// zstd frames with a 32 MiB history window (legal: Kafka's decoder takes
/// up to 2^27), two partitions of them: at `-j 2` with the default
/// `--memory` the two cannot decode at once, and a partition the budget
/// refuses is checked again alone, so nothing is reported; with `--memory
/// 32M` not even one fits: `memory_budget` (exit 2), never a guess.
#[test]
fn frames_with_a_window_the_budget_cannot_give_twice() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs");
    for p in 0..2 {
        let dir = logs.join(format!("t-{p}"));
        std::fs::create_dir_all(&dir).unwrap();
        let mut seg = Vec::new();
        for i in 0..50 {
            let mut e = zstd::stream::Encoder::new(Vec::new(), 1).unwrap();
            e.set_parameter(zstd::zstd_safe::CParameter::WindowLog(25)).unwrap();
            e.include_contentsize(false).unwrap();
            std::io::Write::write_all(&mut e, &batch(i, 1)[61..]).unwrap();
            seg.extend(compressed_batch(i, 1, Compression::Zstd, &e.finish().unwrap()));
        }
        std::fs::write(dir.join(SEG), seg).unwrap();
    }
    let p = logs.to_str().unwrap();
    let r = run(&["verify", "--deep", "-j", "2", p]);
    assert_eq!(r.code, 0, "{:#?}", r.lines);
    let kinds: Vec<&str> = r.lines.iter().filter_map(|l| l["kind"].as_str()).collect();
    assert!(!kinds.iter().any(|k| *k == "memory_budget" || *k == "decompression_failed"), "{kinds:?}");
    assert_eq!(crate::util::of_type(&r.lines, "summary")[0]["records"], 100);
    assert!(r.peak_kib < STREAMING_KIB, "{} KiB", r.peak_kib);
    let r = run(&["verify", "--deep", "-j", "2", "--memory", "32M", p]);
    assert_eq!(r.code, 2, "{:#?}", r.lines);
    // (each batch: none is judged)
    let refused = r.lines.iter().filter(|l| l["kind"] == "memory_budget").count();
    assert_eq!(refused, 100, "{:#?}", r.lines);
    let r = run(&["stats", "-j", "2", p]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

/// ZooKeeper's data dir (`--zookeeper-data`) as a crash or a hostile hand
/// leaves it: a snapshot cut short, lengths of 2^31-1 in a snapshot and in
/// a transaction log entry. The damaged file is named with its byte, the
/// rest is read, and memory stays under the ceiling.
#[test]
fn a_zookeeper_data_dir_truncated_or_with_huge_lengths() {
    let zk = test_support::committed_fixtures().join("zookeeper-sigkill/zookeeper-data/version-2");
    let part = test_support::committed_fixtures().join("zookeeper-sigkill/logs/zk-fine-0");
    let snapshot = std::fs::read(zk.join("snapshot.51")).unwrap();
    let log = std::fs::read(zk.join("log.52")).unwrap();
    let with = |files: &[(&str, &[u8])]| {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("version-2")).unwrap();
        for (n, b) in files {
            std::fs::write(tmp.path().join("version-2").join(n), b).unwrap();
        }
        tmp
    };
    let stats = |dir: &Path| run(&["stats", "--zookeeper-data", dir.to_str().unwrap(), part.to_str().unwrap()]);
    // a snapshot cut short, alone: nothing to read, said with the file and its byte
    let cut = with(&[("snapshot.51", &snapshot[..snapshot.len() / 2])]);
    let r = stats(cut.path());
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("snapshot.51") && r.stderr.contains("truncated"), "{}", r.stderr);
    assert!(r.peak_kib < CEILING_KIB, "peak RSS {} KiB", r.peak_kib);
    // a znode's data length of 2^31-1 (the first znode, "", right after the
    // empty session and ACL maps would be at a fixed place: find the path of
    // a kept znode and make its data length huge)
    let at = snapshot.windows(13).position(|w| w == b"/config/topic").unwrap();
    let len_at = at + i32::from_be_bytes(snapshot[at - 4..at].try_into().unwrap()) as usize;
    let mut huge = snapshot.clone();
    huge[len_at..len_at + 4].copy_from_slice(&i32::MAX.to_be_bytes());
    let dir = with(&[("snapshot.51", &huge)]);
    let r = stats(dir.path());
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("outside the valid range"), "{}", r.stderr);
    assert!(r.peak_kib < CEILING_KIB, "peak RSS {} KiB", r.peak_kib);
    // a transaction log entry of 2^31-1 bytes after a good snapshot: the log
    // ends there (a torn tail), the snapshot's configs are read
    let mut bad_log = log.clone();
    bad_log[16 + 8..16 + 12].copy_from_slice(&i32::MAX.to_be_bytes());
    let dir = with(&[("snapshot.51", &snapshot), ("log.52", &bad_log)]);
    let r = stats(dir.path());
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.peak_kib < CEILING_KIB, "peak RSS {} KiB", r.peak_kib);
    let s = r.lines.iter().find(|l| l["type"] == "stats").unwrap();
    assert_eq!(s["reclaimable"]["cleanup_policy"], "delete");
}
