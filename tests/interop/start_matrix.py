"""The damages of tests/interop/start_matrix.sh, and the comparison of what
Kafka's start and `logtool recover --execute` made of them.

  start_matrix.py damage LOGDIR ROWS_OUT [DONE [kafka]]
      damage LOGDIR in place, one row of the start table per data partition
      (a row whose shape no partition has is left out, and so is a row named
      in the file DONE: an earlier round's); write "row partition base"
      lines to ROWS_OUT. With kafka, a row of AS_IF gets its other row's
      damage (the copy Kafka starts on)
  start_matrix.py refuse LOGDIR ROW
      damage LOGDIR in place the way of refusal ROW (one of REFUSALS, or a
      row of ROWS the release refuses: REFUSED_FROM; each stops Kafka's
      start, so each has a start of its own); print the damaged file's path
      relative to LOGDIR
  start_matrix.py refusals
      the refusal rows of the release START_RELEASE names (3.9 by default)
  start_matrix.py starts
      the rows of STARTS: a log dir damaged as a whole that Kafka starts on
  start_matrix.py save BASE DIR NAME DEST
      keep DIR/NAME (a partition dir, or a log dir's file) as a difference
      from BASE/NAME: DEST/NAME.list names its files, DEST/NAME/ holds
      those whose bytes are not BASE's (for cargo test: tests/start_matrix.rs)
  start_matrix.py compare BASE CONTROL KAFKA LOGTOOL ROWS
      BASE the undamaged dir, CONTROL it after a Kafka start and clean stop
      (restart noise), KAFKA the damaged copy after the same, LOGTOOL the
      damaged copy after `logtool recover --execute`. Exit 1 with the
      differences when logtool did not do what Kafka did.

A file Kafka's control start changed (a leader epoch bumped, a stray
snapshot deleted, a .deleted leftover removed) is noise: logtool may leave it
as it was or do what Kafka did (a leader-epoch-checkpoint: what its load
left, the first entries of Kafka's). Every other file of a data partition is the
same in KAFKA and LOGTOOL (an empty .txnindex counts as absent, as Kafka
creates it lazily; a .deleted file Kafka deleted may be left, as Kafka
deletes it on any start); the log dir's checkpoints hold the same entries
where the damaged start moved one, and BASE's elsewhere.
"""
import hashlib
import os
import sys

INDEX, TIME, TXN, LOG = ".index", ".timeindex", ".txnindex", ".log"


def segments(pdir):
    return sorted(int(f[: -len(LOG)]) for f in os.listdir(pdir) if f.endswith(LOG) and f[: -len(LOG)].isdigit())


def seg(pdir, base, suffix):
    return os.path.join(pdir, "%020d%s" % (base, suffix))


def data_partitions(logdir):
    out = []
    for name in sorted(os.listdir(logdir)):
        path = os.path.join(logdir, name)
        if not os.path.isdir(path) or name.startswith("__") or "." in name:
            continue
        out.append(name)
    return out


def nonempty(pdir, base):
    return os.path.getsize(seg(pdir, base, LOG)) > 0


# Each row: (name, applies(pdir, bases) -> base or None, damage(pdir, base)).
# The rows of the table in GUIDE ("what Kafka does on start") that damage one
# partition's segment files.
def middle(pdir, bases):
    mids = [b for b in bases[1:-1] if nonempty(pdir, b)]
    return mids[0] if mids else None


def first_rolled(pdir, bases):
    return bases[0] if len(bases) >= 2 and nonempty(pdir, bases[0]) else None


def last(pdir, bases):
    return bases[-1] if bases and nonempty(pdir, bases[-1]) else None


def with_txn_index(pdir, bases):
    for b in bases[:-1]:
        if os.path.exists(seg(pdir, b, TXN)) and os.path.getsize(seg(pdir, b, TXN)) > 0:
            return b
    return None


def rm(*paths):
    for p in paths:
        if os.path.exists(p):
            os.remove(p)


def snapshots(pdir):
    return sorted(int(f[:-9]) for f in os.listdir(pdir) if f.endswith(".snapshot") and f[:-9].isdigit())


def snap(pdir, offset):
    return os.path.join(pdir, "%020d.snapshot" % offset)


def latest_snapshot(pdir, bases):
    s = snapshots(pdir)
    # one with producers in it, and one below it to load instead
    return s[-1] if len(s) >= 2 and os.path.getsize(snap(pdir, s[-1])) > 10 else None


def middle_snapshot(pdir, bases):
    s = snapshots(pdir)
    return s[-2] if len(s) >= 3 else None


def overwrite(path, data):
    with open(path, "wb") as f:
        f.write(data)


def copy(src, dst):
    with open(src, "rb") as f:
        overwrite(dst, f.read())


def flip_middle(path):
    data = bytearray(open(path, "rb").read())
    data[len(data) // 2] ^= 0xFF
    overwrite(path, bytes(data))


def zero_fill(path):
    overwrite(path, b"\0" * os.path.getsize(path))


def txn_index_above_0(pdir, bases):
    for b in bases[1:]:
        if os.path.exists(seg(pdir, b, TXN)) and os.path.getsize(seg(pdir, b, TXN)) > 0:
            return b
    return None


ROWS = [
    # a lost .index in a rolled segment: Kafka recovers that segment alone
    ("index_lost_middle", middle, lambda d, b: rm(seg(d, b, INDEX))),
    ("index_lost_compacted", first_rolled, lambda d, b: rm(seg(d, b, INDEX))),
    # ...and a byte flipped in the middle of that segment's records: the
    # cut stays inside it, the later segments are kept
    ("index_lost_crc_middle", first_rolled, lambda d, b: (rm(seg(d, b, INDEX)), flip_middle(seg(d, b, LOG)))),
    ("index_and_timeindex_lost_first", first_rolled, lambda d, b: rm(seg(d, b, INDEX), seg(d, b, TIME))),
    # the txn index is rebuilt with it
    ("index_lost_txn", with_txn_index, lambda d, b: rm(seg(d, b, INDEX))),
    # the active segment: recovered alone too; the log end stays
    ("index_lost_active", last, lambda d, b: rm(seg(d, b, INDEX))),
    # a lost .timeindex beside its .index: created empty, not rebuilt
    ("timeindex_lost_rolled", first_rolled, lambda d, b: rm(seg(d, b, TIME))),
    # the latest producer snapshot lost, empty or garbage: the load takes
    # the one below it, scans on and writes it again
    ("snapshot_lost_latest", latest_snapshot, lambda d, o: rm(snap(d, o))),
    ("snapshot_empty_latest", latest_snapshot, lambda d, o: overwrite(snap(d, o), b"")),
    ("snapshot_garbage_latest", latest_snapshot, lambda d, o: overwrite(snap(d, o), b"\x00\x01garbage" * 3)),
    # a zero-filled .txnindex (an entry ending at 0, below the segment):
    # the segment is recovered alone
    ("txnindex_zeroed", txn_index_above_0, lambda d, b: zero_fill(seg(d, b, TXN))),
    # leftovers of interrupted work: a cleaning's output is deleted, and so
    # are scheduled deletions (which recover may leave to Kafka)
    ("cleaned_leftover", first_rolled, lambda d, b: copy(seg(d, b, LOG), seg(d, b, LOG) + ".cleaned")),
    ("deleted_leftover", first_rolled, lambda d, b: copy(seg(d, b, INDEX), seg(d, b, INDEX) + ".deleted")),
    # a .txnindex entry of version 1: Kafka 3.9.1 to 4.3.1 read only the
    # version's first byte (0), load the log and keep the file; 4.4.0 reads
    # the whole version and halts (REFUSED_FROM)
    ("txnindex_version_unknown", with_txn_index, lambda d, b: bump_version(seg(d, b, TXN))),
    # an interrupted swap (a cleaning or split killed between writing its
    # .swap files and renaming them): the load deletes what it replaces and
    # renames it in
    ("swap_interrupted", first_rolled, lambda d, b: swap_copy(d, b)),
    # what Kafka's load does not look at after a clean shutdown (it skips the
    # offset and time index sanity checks, and reads only the latest
    # snapshot): kept as they are, by Kafka and by recover
    ("index_empty_rolled", first_rolled, lambda d, b: overwrite(seg(d, b, INDEX), b"")),
    ("index_garbage_rolled", first_rolled, lambda d, b: overwrite(seg(d, b, INDEX), b"\x7f" * 24)),
    ("timeindex_garbage_rolled", first_rolled, lambda d, b: overwrite(seg(d, b, TIME), b"\x7f" * 24)),
    ("snapshot_lost_middle", middle_snapshot, lambda d, o: rm(snap(d, o))),
    ("snapshot_garbage_middle", middle_snapshot, lambda d, o: overwrite(snap(d, o), b"\x00\x01garbage" * 3)),
    # the active segment's indexes, and a partition's leader epochs lost
    ("index_empty_active", last, lambda d, b: overwrite(seg(d, b, INDEX), b"")),
    ("index_garbage_active", last, lambda d, b: overwrite(seg(d, b, INDEX), b"\x7f" * 24)),
    ("timeindex_lost_active", last, lambda d, b: rm(seg(d, b, TIME))),
    ("timeindex_garbage_active", last, lambda d, b: overwrite(seg(d, b, TIME), b"\x7f" * 24)),
    ("leader_epoch_checkpoint_lost", last, lambda d, b: rm(os.path.join(d, "leader-epoch-checkpoint"))),
]
# rows whose damage Kafka's start keeps (and so does recover): verify still
# reports it after the repair (a cut inside a rolled segment leaves a gap)
KEPT = {
    "index_lost_crc_middle",
    "txnindex_version_unknown",
    "index_empty_rolled",
    "index_garbage_rolled",
    "timeindex_garbage_rolled",
    "snapshot_lost_middle",
    "snapshot_garbage_middle",
    "leader_epoch_checkpoint_lost",
    "index_empty_active",
    "timeindex_garbage_active",
}
# rows that want a partition of their own kind first
PREFER = {
    "index_lost_middle": "plain",
    "index_lost_compacted": "compacted",
    "index_lost_txn": "txn",
    "txnindex_zeroed": "txn",
    "txnindex_version_unknown": "txn",
}


# Rows of ROWS a release and every later one refuse to start on (where the
# older ones start): a refusal row of theirs (start_matrix.sh's refusal).
# (Each damages its segment's .txnindex, the file refuse names.)
REFUSED_FROM = {"txnindex_version_unknown": (4, 4)}


def release():
    return tuple(int(x) for x in os.environ.get("START_RELEASE", "3.9").split("."))


def refused_here(row):
    return row in REFUSED_FROM and release() >= REFUSED_FROM[row]


# Rows where recover departs from Kafka's start, and the row whose start it
# does instead: a garbage .index of the last segment makes Kafka's clean
# load hide the records (start_matrix.sh's hidden_row shows it); recover
# rebuilds it as Kafka rebuilds a lost one. The Kafka copy of a round gets
# the other row's damage.
AS_IF = {"index_garbage_active": "index_lost_active"}


def damage(logdir, rows_out, done_path=None, kafka=False):
    free = data_partitions(logdir)
    done = []
    earlier = set()
    if done_path and os.path.exists(done_path):
        earlier = {l.split()[0] for l in open(done_path) if l.strip()}
    for name, applies, hurt in ROWS:
        if name in earlier or refused_here(name):
            continue
        want = PREFER.get(name)
        order = [p for p in free if want and p.startswith(want)] + [p for p in free if not (want and p.startswith(want))]
        for part in order:
            pdir = os.path.join(logdir, part)
            base = applies(pdir, segments(pdir))
            if base is None:
                continue
            if kafka and name in AS_IF:
                hurt = next(r[2] for r in ROWS if r[0] == AS_IF[name])
            hurt(pdir, base)
            free.remove(part)
            done.append((name, part, base))
            break
    with open(rows_out, "w") as f:
        for name, part, base in done:
            f.write("%s %s %d\n" % (name, part, base))
    for name, part, base in done:
        print("  damaged: %-32s %s at segment %d" % (name, part, base))


def digest(path):
    if not os.path.isfile(path):
        return None
    if path.endswith(TXN) and os.path.getsize(path) == 0:
        return None
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def epochs(path):
    if not os.path.isfile(path):
        return None
    return [l.split() for l in open(path).read().splitlines()[2:]]


def epochs_prefix(mine, theirs):
    a, b = epochs(mine), epochs(theirs)
    return a is not None and b is not None and b[: len(a)] == a


def files(pdir):
    return set(os.listdir(pdir)) if os.path.isdir(pdir) else set()


CHECKPOINTS = [
    "recovery-point-offset-checkpoint",
    "replication-offset-checkpoint",
    "log-start-offset-checkpoint",
    "cleaner-offset-checkpoint",
]


def checkpoint(path):
    out = {}
    if not os.path.exists(path):
        return out
    lines = open(path).read().splitlines()
    for line in lines[2:]:
        parts = line.split()
        if len(parts) == 3:
            out[(parts[0], parts[1])] = parts[2]
    return out


def compare(base, control, kafka, logtool, rows_path):
    rows = [l.split() for l in open(rows_path).read().splitlines() if l.strip()]
    damaged = {r[1]: r[0] for r in rows}
    bad = []
    for part in data_partitions(base):
        b, c, k, l = (os.path.join(x, part) for x in (base, control, kafka, logtool))
        for name in sorted(files(b) | files(c) | files(k) | files(l)):
            hb, hc, hk, hl = (digest(os.path.join(x, name)) for x in (b, c, k, l))
            noise = hc != hb
            if part not in damaged:
                # logtool leaves an undamaged partition as it was
                if hl != hb:
                    bad.append("%s/%s: untouched by the damage, changed by logtool" % (part, name))
                continue
            if name.endswith(".deleted") and hk is None:
                # a scheduled deletion: Kafka deletes it on any start, recover leaves it to Kafka
                continue
            if name == "leader-epoch-checkpoint" and damaged[part] == "leader_epoch_checkpoint_lost" and hl is None:
                # Kafka's load starts with no epochs (the file created
                # empty); recover leaves the file to it
                continue
            if noise and name == "leader-epoch-checkpoint" and epochs_prefix(os.path.join(l, name), os.path.join(k, name)):
                # the epochs of Kafka's load (truncateFromEnd at the log end)
                # before the new leader epoch its start then adds
                continue
            if noise:
                if hl not in (hb, hk):
                    bad.append("%s/%s (%s): restart noise, but logtool made a third version" % (part, name, damaged[part]))
            elif hl != hk:
                what = {None: "absent"}
                bad.append(
                    "%s/%s (%s): Kafka's start left %s, logtool %s (before: %s)"
                    % (part, name, damaged[part], what.get(hk, hk), what.get(hl, hl), what.get(hb, hb))
                )
    lost = set().union(*(LOST_CHECKPOINTS.get(r[0], set()) for r in rows))
    for cp in CHECKPOINTS:
        if cp in lost:
            # Kafka creates a lost one empty at start: recover leaves it absent
            if os.path.exists(os.path.join(logtool, cp)):
                bad.append("%s: lost, and logtool wrote it" % cp)
            continue
        vb, vc, vk, vl = (checkpoint(os.path.join(x, cp)) for x in (base, control, kafka, logtool))
        for key in sorted(set(vb) | set(vk) | set(vl)):
            if key[0].startswith("__"):
                continue
            want = vk.get(key) if vk.get(key) != vc.get(key) else vb.get(key)
            if vl.get(key) != want:
                bad.append("%s %s-%s: logtool %s, expected %s" % (cp, key[0], key[1], vl.get(key), want))
    if bad:
        print("\n".join("  " + x for x in bad))
        return 1
    print("  every file of %d damaged partition(s) as Kafka's start left it, the others untouched" % len(damaged))
    return 0


def save(base, src, name, dest):
    path = os.path.join(src, name)
    os.makedirs(dest, exist_ok=True)
    if os.path.isfile(path):
        with open(path, "rb") as f, open(os.path.join(dest, name), "wb") as o:
            o.write(f.read())
        return
    names = sorted(os.listdir(path))
    with open(os.path.join(dest, name + ".list"), "w") as f:
        f.write("".join(n + "\n" for n in names))
    for n in names:
        mine = os.path.join(path, n)
        theirs = os.path.join(base, name, n)
        with open(mine, "rb") as f:
            data = f.read()
        if os.path.isfile(theirs) and open(theirs, "rb").read() == data:
            continue
        os.makedirs(os.path.join(dest, name), exist_ok=True)
        with open(os.path.join(dest, name, n), "wb") as o:
            o.write(data)


GARBAGE = b"garbage\x00\x01\n"


def first_with(logdir, name):
    for part in data_partitions(logdir):
        if os.path.exists(os.path.join(logdir, part, name)):
            return os.path.join(part, name)
    return None


def swap_copy(pdir, base):
    for suffix in (LOG, INDEX, TIME):
        if os.path.exists(seg(pdir, base, suffix)):
            copy(seg(pdir, base, suffix), seg(pdir, base, suffix) + ".swap")


def bump_version(path):
    data = bytearray(open(path, "rb").read())
    data[1] = 1
    overwrite(path, bytes(data))


# Each: (row, the file it damages (relative to the log dir), how).
REFUSALS = [
    ("recovery_point_checkpoint_garbage", lambda d: "recovery-point-offset-checkpoint", "garbage"),
    ("replication_checkpoint_garbage", lambda d: "replication-offset-checkpoint", "garbage"),
    ("log_start_checkpoint_garbage", lambda d: "log-start-offset-checkpoint", "garbage"),
    ("cleaner_checkpoint_garbage", lambda d: "cleaner-offset-checkpoint", "garbage"),
    ("leader_epoch_checkpoint_garbage", lambda d: first_with(d, "leader-epoch-checkpoint"), "garbage"),
    ("partition_metadata_garbage", lambda d: first_with(d, "partition.metadata"), "garbage"),
    ("meta_properties_missing", lambda d: "meta.properties", "remove"),
    ("meta_properties_node_id_wrong", lambda d: "meta.properties", "node_id"),
    # a KRaft voter's directory.id lost (a dynamic quorum: a VotersRecord
    # names it; a static quorum's Kafka starts, and the row is left out)
    ("meta_properties_directory_id_missing", lambda d: "meta.properties" if voter_dir(d) else None, "directory_id"),
]
# Starts on a log dir damaged as a whole (start_matrix.sh's dir_row): Kafka
# starts, changes no partition beyond restart noise, and so does recover.
STARTS = [
    ("checkpoints_lost", lambda d: ".", "checkpoints"),
    ("cluster_id_changed", lambda d: "meta.properties", "cluster_id"),
]
# the log dir checkpoints a row loses
LOST_CHECKPOINTS = {
    "checkpoints_lost": set(CHECKPOINTS),
    "recovery_point_and_marker_lost": {"recovery-point-offset-checkpoint"},
}
# not a refusal (the dir is set aside): start_matrix.sh's stray_row
OTHER = [("partition_metadata_missing", lambda d: first_with(d, "partition.metadata"), "remove")]


def voter_dir(logdir):
    """Whether the dir's directory.id is a KRaft voter's: its 16 bytes are
    in the bootstrap snapshot, which holds the VotersRecord of a quorum
    formatted with --standalone (and no directory id otherwise)."""
    import base64
    props = dict(l.split("=", 1) for l in open(os.path.join(logdir, "meta.properties")).read().splitlines() if "=" in l)
    d = props.get("directory.id")
    snap = os.path.join(logdir, "__cluster_metadata-0", "00000000000000000000-0000000000.checkpoint")
    if d is None or not os.path.exists(snap):
        return False
    return base64.urlsafe_b64decode(d + "==") in open(snap, "rb").read()


def set_property(path, key, value):
    lines = open(path).read().splitlines()
    overwrite(path, ("\n".join(key + "=" + value if l.startswith(key + "=") else l for l in lines) + "\n").encode())


def refuse(logdir, row):
    for name, applies, hurt in ROWS:
        if name != row:
            continue
        for part in data_partitions(logdir):
            pdir = os.path.join(logdir, part)
            base = applies(pdir, segments(pdir))
            if base is not None:
                hurt(pdir, base)
                print(os.path.join(part, "%020d%s" % (base, TXN)))
                return
        return
    for name, target, how in REFUSALS + OTHER + STARTS:
        if name != row:
            continue
        rel = target(logdir)
        if rel is None:
            return
        path = os.path.join(logdir, rel)
        if how == "garbage":
            overwrite(path, GARBAGE)
        elif how == "node_id":
            set_property(path, "node.id", "2")
        elif how == "directory_id":
            lines = open(path).read().splitlines()
            overwrite(path, ("\n".join(l for l in lines if not l.startswith("directory.id=")) + "\n").encode())
        elif how == "cluster_id":
            set_property(path, "cluster.id", "AAAAAAAAAAAAAAAAAAAAAA")
        elif how == "checkpoints":
            rm(*(os.path.join(logdir, cp) for cp in CHECKPOINTS))
        else:
            rm(path)
        print(rel)
        return
    sys.exit("no refusal row " + row)


if __name__ == "__main__":
    if sys.argv[1] == "damage":
        damage(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None, sys.argv[5:6] == ["kafka"])
    elif sys.argv[1] == "kept":
        # the partitions of ROWS whose damage stays
        for l in open(sys.argv[2]):
            if l.split()[0] in KEPT:
                print(l.split()[1])
    elif sys.argv[1] == "refuse":
        refuse(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "refusals":
        print("\n".join([r[0] for r in REFUSALS] + [r[0] for r in ROWS if refused_here(r[0])]))
    elif sys.argv[1] == "starts":
        print("\n".join(r[0] for r in STARTS))
    elif sys.argv[1] == "save":
        save(*sys.argv[2:6])
    elif sys.argv[1] == "compare":
        sys.exit(compare(*sys.argv[2:7]))
    else:
        sys.exit("usage: start_matrix.py damage LOGDIR ROWS_OUT | compare BASE CONTROL KAFKA LOGTOOL ROWS")
