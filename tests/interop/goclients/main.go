// What an application does with a Kafka cluster, through a Go client that
// speaks the protocol itself (no librdkafka): franz-go or sarama. Run by
// tests/interop/pure.sh against logtool broker and, as the control, a real
// Kafka 3.9.1:
//
//	goclients BOOTSTRAP franz|sarama PREFIX
//
// It creates the topic PREFIX-<client> (3 partitions, a retention.ms
// config), lists and describes it, produces 40 keyed records in each codec
// the client has, reads them back in the consumer group PREFIX-<client>-g
// committing as it goes, reads the group's committed offsets, asks each
// partition's offset for the timestamp of its 5th record, and runs a
// committed and an aborted transaction that a read_committed consumer
// tells apart. It prints what it saw, one fact a line (sorted by the
// script), and exits non-zero on the first error.
package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
)

// A record as read back.
type record struct {
	topic     string
	partition int32
	offset    int64
	key       string
	value     string
	timestamp int64
}

var out []string

func say(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }

var start = time.Now()

// A step done, on stderr with the seconds since the start.
func step(what string) {
	fmt.Fprintf(os.Stderr, "goclients: %5.1fs %s\n", time.Since(start).Seconds(), what)
}

func die(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "goclients: "+format+"\n", args...)
	os.Exit(1)
}

// The records to produce: 40 per codec, keys spread over partitions.
func payloads(codec string) (keys, values []string) {
	for i := 0; i < 40; i++ {
		keys = append(keys, fmt.Sprintf("k%d", i%7))
		values = append(values, fmt.Sprintf("%s-%d", codec, i))
	}
	return
}

// The records of the committed (`commit`) or the aborted transaction: 10,
// keys t0-t9, values committed-N or aborted-N.
func txnPayloads(commit bool) (keys, values []string) {
	word := map[bool]string{true: "committed", false: "aborted"}[commit]
	for i := 0; i < 10; i++ {
		keys = append(keys, fmt.Sprintf("t%d", i))
		values = append(values, fmt.Sprintf("%s-%d", word, i))
	}
	return
}

// What every client reports of what it read: each record, and per
// partition the first offset whose timestamp is at least the 5th record's
// (what ListOffsets by time must answer).
func report(records []record) map[int32]int64 {
	sort.Slice(records, func(i, j int) bool {
		if records[i].partition != records[j].partition {
			return records[i].partition < records[j].partition
		}
		return records[i].offset < records[j].offset
	})
	by := map[int32][]record{}
	for _, r := range records {
		say("CONSUMED %s %d %d %s %s", r.topic, r.partition, r.offset, r.key, r.value)
		by[r.partition] = append(by[r.partition], r)
	}
	times := map[int32]int64{}
	for p, rs := range by {
		if len(rs) >= 5 {
			times[p] = rs[4].timestamp
		}
	}
	return times
}

// ListOffsets by time, asked through `ask` at the median timestamp of what
// was read: each partition's answer beside the one the records read say
// it must be (the first offset with a timestamp at or after it), printed
// as BYTIME lines that the script checks pairwise (timestamps differ
// from run to run, so these are not compared with the control's).
func byTime(records []record, ask func(ts int64) map[int32]int64) {
	if len(records) == 0 {
		return
	}
	ts := make([]int64, 0, len(records))
	for _, r := range records {
		ts = append(ts, r.timestamp)
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
	at := ts[len(ts)/2]
	want := map[int32]int64{}
	for _, r := range records {
		if r.timestamp >= at {
			if o, ok := want[r.partition]; !ok || r.offset < o {
				want[r.partition] = r.offset
			}
		}
	}
	got := ask(at)
	parts := map[int32]bool{}
	for p := range got {
		parts[p] = true
	}
	for p := range want {
		parts[p] = true
	}
	for p := range parts {
		w, ok := want[p]
		if !ok {
			w = -1
		}
		g, ok := got[p]
		if !ok {
			g = -2
		}
		say("BYTIME %d answered=%d expected=%d", p, g, w)
	}
}

// A context that ends a second from now (a last poll for what should not
// come), and its cancel.
func shortly(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, time.Second)
}

func main() {
	if len(os.Args) != 4 {
		die("usage: goclients BOOTSTRAP franz|sarama PREFIX")
	}
	bootstrap, client, prefix := os.Args[1], os.Args[2], os.Args[3]
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	topic := prefix + "-" + client
	switch client {
	case "franz":
		franz(ctx, bootstrap, topic)
	case "sarama":
		saramaRun(ctx, bootstrap, topic)
	default:
		die("unknown client %q", client)
	}
	sort.Strings(out)
	fmt.Println(strings.Join(out, "\n"))
}
