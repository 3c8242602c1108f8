"""Non-JVM Kafka clients against a broker, as a new user tries them.

  clients.py rdkafka BOOTSTRAP       librdkafka (confluent-kafka's wheel)
  clients.py kafka-python BOOTSTRAP  kafka-python (pure Python)
  clients.py rdkafka-txn BOOTSTRAP   librdkafka's transactional producer

rdkafka: AdminClient.list_topics() (an all-topics Metadata request), topics
r-<codec> (2 partitions) made with AdminClient.create_topics, 100 records to
each from an idempotent producer with that codec (acks=all), then a consumer
of group cg-rdk subscribed to the regex ^r-.* reads all 500, checks every key,
value and header, and commits; the committed offsets are read back.

kafka-python: topic p-kpy (1 partition) made with KafkaAdminClient, 100
gzip records, then a consumer of group cg-kpy reads them and commits.

rdkafka-txn: a consume-transform-produce loop: x-in (1 partition, 20
records) read read_committed by group cg-rdk-txn; transactional producer
tx-rdk writes the first 10 transformed to x-out (2 partitions) with their
offsets (send_offsets_to_transaction) and commits, then the next 10 and
aborts; a read_committed consumer then sees the 10 committed, and the
group's committed offset is 10.

Prints one "OK" line with the counts; any failure exits 1 with the reason.
Every loop is bounded in time.
"""

import sys
import time

CODECS = ["none", "gzip", "snappy", "lz4", "zstd"]
PER_TOPIC = 100


def fail(why):
    print(f"FAILED {why}", flush=True)
    sys.exit(1)


def rdkafka(bootstrap):
    from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    # an all-topics Metadata request (what list_topics and regex
    # subscriptions send)
    before = admin.list_topics(timeout=15)
    names = [f"r-{c}" for c in CODECS]
    for name, f in admin.create_topics([NewTopic(n, num_partitions=2, replication_factor=1) for n in names]).items():
        try:
            f.result(15)
        except KafkaException as e:
            fail(f"create_topics {name}: {e}")
    produced = 0
    for codec in CODECS:
        p = Producer(
            {
                "bootstrap.servers": bootstrap,
                "enable.idempotence": True,
                "acks": "all",
                "compression.codec": codec,
                "linger.ms": 20,
            }
        )
        errors = []

        def report(err, _msg, errors=errors):
            if err is not None:
                errors.append(str(err))

        for i in range(PER_TOPIC):
            p.produce(
                f"r-{codec}",
                key=f"key-{i}".encode(),
                value=f"{codec}-value-{i}".encode(),
                headers=[("codec", codec.encode())],
                on_delivery=report,
            )
        if p.flush(30) != 0:
            fail(f"r-{codec}: records left unsent")
        if errors:
            fail(f"r-{codec}: {errors[:3]}")
        produced += PER_TOPIC
    after = admin.list_topics(timeout=15)
    for n in names:
        t = after.topics.get(n)
        if t is None or len(t.partitions) != 2:
            fail(f"list_topics: {n} missing or not 2 partitions")
    c = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "cg-rdk",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
    )
    c.subscribe(["^r-.*"])
    seen = set()
    deadline = time.time() + 90
    while len(seen) < produced and time.time() < deadline:
        m = c.poll(1.0)
        if m is None:
            continue
        if m.error():
            fail(f"consumer: {m.error()}")
        codec = m.topic()[2:]
        key = m.key().decode()
        i = int(key.split("-")[1])
        if m.value().decode() != f"{codec}-value-{i}" or m.headers() != [("codec", codec.encode())]:
            fail(f"{m.topic()} {m.partition()} {m.offset()}: {m.key()!r} {m.value()!r} {m.headers()!r}")
        seen.add((codec, i))
    if len(seen) != produced:
        fail(f"the regex subscription read {len(seen)} of {produced} records")
    positions = c.position(c.assignment())
    c.commit(offsets=positions, asynchronous=False)
    committed = c.committed([TopicPartition(n, p) for n in names for p in range(2)], timeout=15)
    total = sum(tp.offset for tp in committed)
    c.close()
    if total != produced:
        fail(f"committed offsets add up to {total}, not {produced}")
    print(f"RDKAFKA OK topics-before={len(before.topics)} produced={produced} consumed={len(seen)} committed={total}")


def kafka_python(bootstrap):
    from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
    from kafka.admin import NewTopic

    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    admin.create_topics([NewTopic("p-kpy", num_partitions=1, replication_factor=1)])
    if "p-kpy" not in admin.list_topics():
        fail("p-kpy not listed")
    admin.close()
    p = KafkaProducer(bootstrap_servers=bootstrap, acks="all", compression_type="gzip")
    futures = [p.send("p-kpy", key=f"key-{i}".encode(), value=f"kpy-{i}".encode()) for i in range(PER_TOPIC)]
    p.flush(30)
    for f in futures:
        f.get(timeout=30)
    p.close()
    c = KafkaConsumer(
        "p-kpy",
        bootstrap_servers=bootstrap,
        group_id="cg-kpy",
        auto_offset_reset="earliest",
        enable_auto_commit=False,
        consumer_timeout_ms=20000,
    )
    values = set()
    for m in c:
        values.add(m.value.decode())
        if len(values) == PER_TOPIC:
            break
    if values != {f"kpy-{i}" for i in range(PER_TOPIC)}:
        fail(f"kafka-python read {len(values)} of {PER_TOPIC} records")
    c.commit()
    committed = c.committed(TopicPartition("p-kpy", 0))
    c.close()
    if committed != PER_TOPIC:
        fail(f"kafka-python committed {committed}, not {PER_TOPIC}")
    print(f"KAFKA-PYTHON OK produced={PER_TOPIC} consumed={len(values)} committed={committed}")


def rdkafka_txn(bootstrap):
    from confluent_kafka import Consumer, Producer, TopicPartition
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    for name, f in admin.create_topics([NewTopic("x-in", 1, 1), NewTopic("x-out", 2, 1)]).items():
        f.result(15)
    plain = Producer({"bootstrap.servers": bootstrap})
    for i in range(20):
        plain.produce("x-in", key=f"k{i}".encode(), value=f"in-{i}".encode())
    if plain.flush(30) != 0:
        fail("x-in: records left unsent")
    p = Producer({"bootstrap.servers": bootstrap, "transactional.id": "tx-rdk"})
    p.init_transactions(30)
    c = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "cg-rdk-txn",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "isolation.level": "read_committed",
        }
    )
    c.assign([TopicPartition("x-in", 0)])
    read = []
    deadline = time.time() + 30
    while len(read) < 20 and time.time() < deadline:
        m = c.poll(1.0)
        if m is not None and not m.error():
            read.append(m)
    if len(read) != 20:
        fail(f"x-in: read {len(read)} of 20")
    for batch, commit in ((read[:10], True), (read[10:], False)):
        p.begin_transaction()
        for m in batch:
            p.produce("x-out", key=m.key(), value=b"out-" + m.value())
        offsets = [TopicPartition("x-in", 0, batch[-1].offset() + 1)]
        p.send_offsets_to_transaction(offsets, c.consumer_group_metadata(), 30)
        if commit:
            p.commit_transaction(30)
        else:
            p.abort_transaction(30)
    c.close()
    r = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "cg-rdk-txn-check",
            "auto.offset.reset": "earliest",
            "isolation.level": "read_committed",
            "enable.auto.commit": False,
        }
    )
    r.assign([TopicPartition("x-out", 0), TopicPartition("x-out", 1)])
    values = []
    deadline = time.time() + 10
    while time.time() < deadline:
        m = r.poll(0.5)
        if m is not None and not m.error():
            values.append(m.value().decode())
    r.close()
    if sorted(values) != sorted(f"out-in-{i}" for i in range(10)):
        fail(f"read_committed x-out: {sorted(values)}")
    g = Consumer({"bootstrap.servers": bootstrap, "group.id": "cg-rdk-txn"})
    committed = g.committed([TopicPartition("x-in", 0)], timeout=15)[0].offset
    g.close()
    if committed != 10:
        fail(f"cg-rdk-txn committed {committed}, not 10 (the aborted transaction's offsets must not count)")
    print(f"RDKAFKA-TXN OK committed=10 aborted=10 read_committed={len(values)} offset={committed}")


if __name__ == "__main__":
    modes = {"rdkafka": rdkafka, "kafka-python": kafka_python, "rdkafka-txn": rdkafka_txn}
    if len(sys.argv) != 3 or sys.argv[1] not in modes:
        sys.exit(__doc__)
    modes[sys.argv[1]](sys.argv[2])
