package main

import (
	"context"
	"log"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/IBM/sarama"
)

// sarama at its default protocol version (V2_1_0_0: old request versions,
// ListOffsets v2 among them) for admin, producing and the consumer group,
// and at V2_5_0_0 for transactions (as an application turns them on).
func saramaRun(ctx context.Context, bootstrap, topic string) {
	addrs := []string{bootstrap}
	if os.Getenv("SARAMA_LOG") != "" {
		sarama.Logger = log.New(os.Stderr, "sarama: ", log.Lmicroseconds)
	}
	cfg := sarama.NewConfig()
	cfg.ClientID = "goclients-sarama"
	cfg.Producer.Return.Successes = true
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	cfg.Consumer.Offsets.AutoCommit.Enable = false
	cfg.Metadata.AllowAutoTopicCreation = false
	admin, err := sarama.NewClusterAdmin(addrs, cfg)
	if err != nil {
		die("sarama admin: %v", err)
	}
	defer admin.Close()
	txTopic := topic + "-tx"
	retention := "604800000"
	for _, t := range []string{topic, txTopic} {
		detail := &sarama.TopicDetail{NumPartitions: 3, ReplicationFactor: 1,
			ConfigEntries: map[string]*string{"retention.ms": &retention}}
		if err := admin.CreateTopic(t, detail, false); err != nil {
			die("create %s: %v", t, err)
		}
		say("CREATED %s", t)
	}
	// (a broker learns of a created topic shortly after CreateTopics
	// answers, as Kafka's do: asked again for up to 10 s)
	var topics map[string]sarama.TopicDetail
	for tries := 0; ; tries++ {
		topics, err = admin.ListTopics()
		if err != nil {
			die("list topics: %v", err)
		}
		_, a := topics[topic]
		_, b := topics[txTopic]
		if (a && b) || tries >= 100 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, t := range []string{topic, txTopic} {
		d, ok := topics[t]
		if !ok {
			die("list topics: %s missing", t)
		}
		say("TOPIC %s partitions=%d replicas=%d", t, d.NumPartitions, d.ReplicationFactor)
	}
	entries, err := admin.DescribeConfig(sarama.ConfigResource{Type: sarama.TopicResource, Name: topic})
	if err != nil {
		die("describe configs: %v", err)
	}
	for _, e := range entries {
		if e.Name == "retention.ms" || e.Name == "cleanup.policy" || e.Name == "min.insync.replicas" {
			say("CONFIG %s %s=%s source=%s", topic, e.Name, e.Value, e.Source)
		}
	}

	step("admin")
	// produce in each codec sarama has
	total := 0
	for _, codec := range []struct {
		name string
		c    sarama.CompressionCodec
	}{
		{"none", sarama.CompressionNone}, {"gzip", sarama.CompressionGZIP}, {"snappy", sarama.CompressionSnappy},
		{"lz4", sarama.CompressionLZ4}, {"zstd", sarama.CompressionZSTD},
	} {
		pcfg := *cfg
		pcfg.Producer.Compression = codec.c
		if codec.c == sarama.CompressionZSTD {
			pcfg.Version = sarama.V2_1_0_0 // zstd needs Produce v7
		}
		p, err := sarama.NewSyncProducer(addrs, &pcfg)
		if err != nil {
			die("producer %s: %v", codec.name, err)
		}
		keys, values := payloads(codec.name)
		var msgs []*sarama.ProducerMessage
		for i := range keys {
			msgs = append(msgs, &sarama.ProducerMessage{Topic: topic, Key: sarama.StringEncoder(keys[i]),
				Value: sarama.StringEncoder(values[i])})
		}
		if err := p.SendMessages(msgs); err != nil {
			die("produce %s: %v", codec.name, err)
		}
		total += len(msgs)
		p.Close()
	}

	step("produced")
	// a consumer group from the oldest offset, committing what it read
	group := topic + "-g"
	cg, err := sarama.NewConsumerGroup(addrs, group, cfg)
	if err != nil {
		die("consumer group: %v", err)
	}
	h := &handler{want: total, done: make(chan struct{})}
	cctx, stop := context.WithCancel(ctx)
	go func() {
		for cctx.Err() == nil {
			if err := cg.Consume(cctx, []string{topic}, h); err != nil && cctx.Err() == nil {
				die("consume: %v", err)
			}
		}
	}()
	select {
	case <-h.done:
	case <-ctx.Done():
		die("consumed %d of %d", h.count(), total)
	}
	step("group consumed all")
	stop()
	if err := cg.Close(); err != nil {
		die("close group: %v", err)
	}
	read := h.records()
	report(read)
	step("group read")
	parts := []int32{0, 1, 2}
	committed, err := admin.ListConsumerGroupOffsets(group, map[string][]int32{topic: parts})
	if err != nil {
		die("fetch offsets: %v", err)
	}
	for _, p := range parts {
		b := committed.GetBlock(topic, p)
		if b == nil || b.Err != sarama.ErrNoError {
			die("offset %s-%d: %v", topic, p, b)
		}
		say("COMMITTED %s %s %d %d", group, topic, p, b.Offset)
	}
	client, err := sarama.NewClient(addrs, cfg)
	if err != nil {
		die("client: %v", err)
	}
	byTime(read, func(ts int64) map[int32]int64 {
		got := map[int32]int64{}
		for _, p := range parts {
			o, err := client.GetOffset(topic, p, ts)
			if err != nil {
				die("list offsets %s-%d: %v", topic, p, err)
			}
			got[p] = o
		}
		return got
	})
	client.Close()

	step("by time")
	// transactions: one committed, one aborted; read_committed sees the first
	tcfg := *cfg
	tcfg.Version = sarama.V2_5_0_0
	tcfg.Producer.Idempotent = true
	tcfg.Producer.Transaction.ID = topic + "-txid"
	tcfg.Net.MaxOpenRequests = 1
	tp, err := sarama.NewSyncProducer(addrs, &tcfg)
	if err != nil {
		die("transactional producer: %v", err)
	}
	for _, commit := range []bool{true, false} {
		if err := tp.BeginTxn(); err != nil {
			die("begin: %v", err)
		}
		keys, values := txnPayloads(commit)
		var msgs []*sarama.ProducerMessage
		for i := range keys {
			msgs = append(msgs, &sarama.ProducerMessage{Topic: txTopic, Key: sarama.StringEncoder(keys[i]),
				Value: sarama.StringEncoder(values[i])})
		}
		if err := tp.SendMessages(msgs); err != nil {
			die("produce in a transaction: %v", err)
		}
		if commit {
			err = tp.CommitTxn()
		} else {
			err = tp.AbortTxn()
		}
		if err != nil {
			die("end transaction: %v", err)
		}
	}
	tp.Close()
	step("transactions")
	rcfg := tcfg
	rcfg.Producer.Transaction.ID = ""
	rcfg.Producer.Idempotent = false
	rcfg.Net.MaxOpenRequests = 5
	rcfg.Consumer.IsolationLevel = sarama.ReadCommitted
	consumer, err := sarama.NewConsumer(addrs, &rcfg)
	if err != nil {
		die("read_committed consumer: %v", err)
	}
	var values []string
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, p := range parts {
		pc, err := consumer.ConsumePartition(txTopic, p, sarama.OffsetOldest)
		if err != nil {
			die("consume %s-%d: %v", txTopic, p, err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			idle := time.NewTimer(3 * time.Second)
			for {
				select {
				case m := <-pc.Messages():
					mu.Lock()
					values = append(values, string(m.Value))
					mu.Unlock()
					idle.Reset(3 * time.Second)
				case <-idle.C:
					pc.Close()
					return
				}
			}
		}()
	}
	wg.Wait()
	consumer.Close()
	sort.Strings(values)
	for _, v := range values {
		say("TXN_READ %s", v)
	}
}

// A consumer group handler: marks and commits every message, and says when
// `want` were read.
type handler struct {
	mu   sync.Mutex
	read []record
	want int
	done chan struct{}
	once sync.Once
}

func (h *handler) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h *handler) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func (h *handler) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for m := range claim.Messages() {
		h.mu.Lock()
		h.read = append(h.read, record{m.Topic, m.Partition, m.Offset, string(m.Key), string(m.Value), m.Timestamp.UnixMilli()})
		n := len(h.read)
		h.mu.Unlock()
		sess.MarkMessage(m, "")
		// (a commit a message takes sarama ~0.2 s each, against Kafka too)
		if n%25 == 0 || n >= h.want {
			sess.Commit()
		}
		if n >= h.want {
			h.once.Do(func() { close(h.done) })
		}
	}
	return nil
}

func (h *handler) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.read)
}

func (h *handler) records() []record {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]record(nil), h.read...)
}
