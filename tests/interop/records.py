#!/usr/bin/env python3
"""The records a consumer should read from a log dir, from logtool's own dump.

Reads `logtool dump --deep --payload hex --format json LOGDIR` on stdin and
prints one line per data record of every non-internal topic, at or after the
partition's log start offset (from log-start-offset-checkpoint), in the form
Workload.java's `consume-all` prints: `topic partition offset key value`, with
payloads in hex or `null`. Control records (transaction markers) are left out:
consumers never see them. Lines are sorted.
"""
import json
import os
import re
import sys

PARTITION_DIR = re.compile(r"^(.+)-(\d+)$")


def main() -> None:
    log_start = {}
    records = []
    for line in sys.stdin:
        v = json.loads(line)
        t = v.get("type")
        if t == "checkpoint_entry" and v["file"].endswith("log-start-offset-checkpoint"):
            log_start[(v["topic"], v["partition"])] = v["offset"]
        elif t == "record" and "control" not in v:
            m = PARTITION_DIR.match(os.path.basename(os.path.dirname(v["file"])))
            if not m or m.group(1).startswith("__"):
                continue
            key = v["key"] if v["key"] is not None else "null"
            value = v["value"] if v["value"] is not None else "null"
            records.append((m.group(1), int(m.group(2)), v["offset"], key, value))
    out = sorted(
        f"{t} {p} {o} {k} {val}" for (t, p, o, k, val) in records if o >= log_start.get((t, p), 0)
    )
    sys.stdout.write("".join(line + "\n" for line in out))


if __name__ == "__main__":
    main()
