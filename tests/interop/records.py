#!/usr/bin/env python3
"""The records a consumer should read from a log dir, from logtool's own dump.

Reads `logtool dump --deep --payload hex --format json LOGDIR` on stdin and
prints one line per data record of every non-internal topic, at or after the
partition's log start offset (from log-start-offset-checkpoint), in the form
Workload.java prints them. Control records (transaction markers) are left
out: consumers never see them. Lines are sorted.

  records.py                 `topic partition offset key value` (`consume-all`)
  records.py --full          `topic partition offset timestamp key value headers`
                             (`consume-full`); headers `key=hexvalue` joined
                             by `,` (`-` for none, `key=null` for a null value)
  records.py --full --committed
                             what a read_committed consumer reads: records of
                             aborted transactions left out, and nothing from
                             the first still-open transaction on (the LSO)
"""
import json
import os
import re
import sys

PARTITION_DIR = re.compile(r"^(.+)-(\d+)$")


def main() -> None:
    full = "--full" in sys.argv
    committed = "--committed" in sys.argv
    log_start = {}
    records = []
    # read_committed: per partition, each producer's open transaction's records
    batch = None
    pending = {}  # (topic, partition, producer) -> [record tuples]
    first_open = {}  # (topic, partition, producer) -> first offset of its open transaction
    for line in sys.stdin:
        v = json.loads(line)
        t = v.get("type")
        if t == "checkpoint_entry" and v["file"].endswith("log-start-offset-checkpoint"):
            log_start[(v["topic"], v["partition"])] = v["offset"]
        elif t == "batch":
            batch = v
        elif t == "record":
            m = PARTITION_DIR.match(os.path.basename(os.path.dirname(v["file"])))
            if not m or m.group(1).startswith("__"):
                continue
            tp = (m.group(1), int(m.group(2)))
            txn = batch is not None and batch["is_transactional"] and committed
            if "control" in v:
                if txn:
                    key = tp + (batch["producer_id"],)
                    done = pending.pop(key, [])
                    first_open.pop(key, None)
                    if v["control"].get("type") == "commit":
                        records.extend(done)
                continue
            key = v["key"] if v["key"] is not None else "null"
            value = v["value"] if v["value"] is not None else "null"
            rec = (tp[0], tp[1], v["offset"], key, value)
            if full:
                headers = ",".join(
                    f"{h['key']}={h['value'] if h['value'] is not None else 'null'}" for h in v["headers"]
                ) or "-"
                rec = (tp[0], tp[1], v["offset"], v["timestamp"], key, value, headers)
            if txn:
                k = tp + (batch["producer_id"],)
                pending.setdefault(k, []).append(rec)
                first_open.setdefault(k, v["offset"])
            else:
                records.append(rec)
    # read_committed stops at the last stable offset: the first open transaction
    lso = {}
    for (t, p, _), first in first_open.items():
        lso[(t, p)] = min(first, lso.get((t, p), first))
    out = sorted(
        " ".join(str(x) for x in r)
        for r in records
        if r[2] >= log_start.get((r[0], r[1]), 0) and r[2] < lso.get((r[0], r[1]), 1 << 62)
    )
    sys.stdout.write("".join(line + "\n" for line in out))


if __name__ == "__main__":
    main()
