package main

import (
	"context"
	"sort"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// franz-go: kadm for admin, kgo to produce (gzip, snappy, lz4, zstd and
// none), consume in a group and run transactions.
func franz(ctx context.Context, bootstrap, topic string) {
	seed := kgo.SeedBrokers(bootstrap)
	cl, err := kgo.NewClient(seed)
	if err != nil {
		die("franz client: %v", err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	txTopic := topic + "-tx"
	created, err := adm.CreateTopics(ctx, 3, 1, map[string]*string{"retention.ms": kadm.StringPtr("604800000")}, topic, txTopic)
	if err != nil {
		die("create topics: %v", err)
	}
	for _, c := range created.Sorted() {
		if c.Err != nil {
			die("create %s: %v", c.Topic, c.Err)
		}
		say("CREATED %s", c.Topic)
	}
	// (asked again for up to 10 s: see sarama.go)
	listed, err := adm.ListTopics(ctx, topic)
	for tries := 0; err == nil && listed.Error() != nil && tries < 100; tries++ {
		time.Sleep(100 * time.Millisecond)
		listed, err = adm.ListTopics(ctx, topic)
	}
	if err != nil {
		die("list topics: %v", err)
	}
	if e := listed.Error(); e != nil {
		die("list topics: %v", e)
	}
	for _, d := range listed.Sorted() {
		say("TOPIC %s partitions=%d replicas=%d", d.Topic, len(d.Partitions), d.Partitions.NumReplicas())
	}
	configs, err := adm.DescribeTopicConfigs(ctx, topic)
	if err != nil {
		die("describe configs: %v", err)
	}
	for _, rc := range configs {
		if rc.Err != nil {
			die("describe configs %s: %v", rc.Name, rc.Err)
		}
		for _, c := range rc.Configs {
			if c.Key == "retention.ms" || c.Key == "cleanup.policy" || c.Key == "min.insync.replicas" {
				say("CONFIG %s %s=%s source=%s", rc.Name, c.Key, (&c).MaybeValue(), c.Source)
			}
		}
	}

	step("admin")
	// produce: one client per codec, each record acknowledged (acks=all,
	// idempotent, franz-go's defaults)
	total := 0
	for _, codec := range []struct {
		name string
		c    kgo.CompressionCodec
	}{
		{"none", kgo.NoCompression()}, {"gzip", kgo.GzipCompression()}, {"snappy", kgo.SnappyCompression()},
		{"lz4", kgo.Lz4Compression()}, {"zstd", kgo.ZstdCompression()},
	} {
		p, err := kgo.NewClient(seed, kgo.ProducerBatchCompression(codec.c), kgo.DefaultProduceTopic(topic))
		if err != nil {
			die("producer %s: %v", codec.name, err)
		}
		keys, values := payloads(codec.name)
		var recs []*kgo.Record
		for i := range keys {
			recs = append(recs, &kgo.Record{Key: []byte(keys[i]), Value: []byte(values[i])})
		}
		if err := p.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			die("produce %s: %v", codec.name, err)
		}
		total += len(recs)
		p.Close()
	}

	step("produced")
	// a consumer group from the start, committing what it polled
	group := topic + "-g"
	c, err := kgo.NewClient(seed, kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DisableAutoCommit())
	if err != nil {
		die("consumer: %v", err)
	}
	var read []record
	for len(read) < total {
		fetches := c.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			die("consumed %d of %d: %v", len(read), total, err)
		}
		fetches.EachError(func(t string, p int32, err error) { die("fetch %s-%d: %v", t, p, err) })
		fetches.EachRecord(func(r *kgo.Record) {
			read = append(read, record{r.Topic, r.Partition, r.Offset, string(r.Key), string(r.Value), r.Timestamp.UnixMilli()})
		})
		if err := c.CommitUncommittedOffsets(ctx); err != nil {
			die("commit: %v", err)
		}
	}
	c.Close()
	step("group read")
	report(read)
	offsets, err := adm.FetchOffsets(ctx, group)
	if err != nil {
		die("fetch offsets: %v", err)
	}
	offsets.Each(func(o kadm.OffsetResponse) {
		if o.Err != nil {
			die("offset %s-%d: %v", o.Topic, o.Partition, o.Err)
		}
		say("COMMITTED %s %s %d %d", group, o.Topic, o.Partition, o.At)
	})
	byTime(read, func(ts int64) map[int32]int64 {
		listed, err := adm.ListOffsetsAfterMilli(ctx, ts, topic)
		if err != nil {
			die("list offsets: %v", err)
		}
		got := map[int32]int64{}
		listed.Each(func(l kadm.ListedOffset) {
			if l.Err != nil {
				die("list offsets %s-%d: %v", l.Topic, l.Partition, l.Err)
			}
			got[l.Partition] = l.Offset
		})
		return got
	})

	step("by time")
	// transactions: one committed, one aborted; read_committed sees the first
	tx, err := kgo.NewClient(seed, kgo.TransactionalID(topic+"-txid"), kgo.DefaultProduceTopic(txTopic))
	if err != nil {
		die("transactional producer: %v", err)
	}
	for _, commit := range []bool{true, false} {
		if err := tx.BeginTransaction(); err != nil {
			die("begin: %v", err)
		}
		keys, values := txnPayloads(commit)
		var recs []*kgo.Record
		for i := range keys {
			recs = append(recs, &kgo.Record{Key: []byte(keys[i]), Value: []byte(values[i])})
		}
		if err := tx.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			die("produce in a transaction: %v", err)
		}
		if err := tx.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
			die("end transaction: %v", err)
		}
	}
	tx.Close()
	step("transactions")
	rc, err := kgo.NewClient(seed, kgo.ConsumeTopics(txTopic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if err != nil {
		die("read_committed consumer: %v", err)
	}
	var values []string
	for len(values) < 10 {
		fetches := rc.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			die("read_committed read %d of 10: %v", len(values), err)
		}
		fetches.EachRecord(func(r *kgo.Record) { values = append(values, string(r.Value)) })
	}
	// (anything after the committed ten would be the aborted ones)
	last, cancelLast := shortly(ctx)
	more := rc.PollFetches(last)
	cancelLast()
	more.EachRecord(func(r *kgo.Record) { values = append(values, string(r.Value)) })
	rc.Close()
	sort.Strings(values)
	for _, v := range values {
		say("TXN_READ %s", v)
	}
}
