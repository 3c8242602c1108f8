"""N librdkafka consumers (confluent-kafka), each in its own group, read
TOPIC from the start at once, each asking for 100 MiB per fetch
(fetch.max.bytes and max.partition.fetch.bytes): what bench/broker.sh
measures a broker's peak RSS under.

  many_consumers.py BOOTSTRAP TOPIC RECORDS N

Prints the seconds until all N have read RECORDS records; exits 1 when one
has not within 120 s.
"""

import sys
import threading
import time

from confluent_kafka import Consumer

bootstrap, topic, records, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
HUNDRED_MIB = 100 << 20
failed = []


def consume(i):
    c = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"many-{i}",
            "auto.offset.reset": "earliest",
            "fetch.max.bytes": HUNDRED_MIB,
            "max.partition.fetch.bytes": HUNDRED_MIB,
            "receive.message.max.bytes": 2 * HUNDRED_MIB,
            "queued.max.messages.kbytes": 2097151,
        }
    )
    c.subscribe([topic])
    got, t0 = 0, time.time()
    while got < records and time.time() - t0 < 120:
        got += len([m for m in c.consume(10000, 1.0) if not m.error()])
    c.close()
    if got < records:
        failed.append(f"consumer {i} read {got} of {records}")


t0 = time.time()
threads = [threading.Thread(target=consume, args=(i,)) for i in range(n)]
for t in threads:
    t.start()
for t in threads:
    t.join()
if failed:
    sys.exit("; ".join(failed))
print(f"{time.time() - t0:.1f}")
