// What an application does with a Kafka cluster, through kafkajs (a Node.js
// client that speaks the protocol itself). Run by tests/interop/pure.sh
// against logtool broker and, as the control, a real Kafka 3.9.1:
//
//   node main.js BOOTSTRAP PREFIX
//
// The same scenario as tests/interop/goclients (its lines too): the topic
// PREFIX-kafkajs (3 partitions, a retention.ms config) created, listed and
// described; 40 keyed records in each codec kafkajs has without plugins
// (none, gzip); read back in the group PREFIX-kafkajs-g committing as it
// goes; the committed offsets; ListOffsets by time; a committed and an
// aborted transaction told apart by a read_committed consumer.
'use strict';
const { Kafka, CompressionTypes, logLevel } = require('kafkajs');

const [bootstrap, prefix] = process.argv.slice(2);
if (!bootstrap || !prefix) {
  console.error('usage: node main.js BOOTSTRAP PREFIX');
  process.exit(2);
}
const start = Date.now();
const step = (what) => console.error(`nodeclients: ${((Date.now() - start) / 1000).toFixed(1)}s ${what}`);
const out = [];
const say = (line) => out.push(line);
const kafka = new Kafka({ clientId: 'nodeclients', brokers: [bootstrap], logLevel: logLevel.ERROR });
const topic = `${prefix}-kafkajs`;
const txTopic = `${topic}-tx`;

function payloads(codec) {
  const records = [];
  for (let i = 0; i < 40; i++) records.push({ key: `k${i % 7}`, value: `${codec}-${i}` });
  return records;
}

// Read from `topics` in a group until `want` records came, and `graceMs`
// more (what should not come would come then); at most a minute.
async function readAll(consumer, topics, want, graceMs) {
  const read = [];
  await consumer.connect();
  for (const t of topics) await consumer.subscribe({ topic: t, fromBeginning: true });
  await new Promise((resolve, reject) => {
    const limit = setTimeout(resolve, 60000);
    const enough = () => {
      clearTimeout(limit);
      setTimeout(resolve, graceMs);
    };
    consumer
      .run({
        autoCommit: true,
        autoCommitThreshold: 1,
        eachMessage: async ({ topic: t, partition, message }) => {
          read.push({
            topic: t,
            partition,
            offset: Number(message.offset),
            key: message.key ? message.key.toString() : '',
            value: message.value ? message.value.toString() : '',
            timestamp: Number(message.timestamp),
          });
          if (read.length === want) enough();
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
  return read;
}

async function main() {
  const admin = kafka.admin();
  await admin.connect();
  const created = await admin.createTopics({
    waitForLeaders: true,
    topics: [topic, txTopic].map((t) => ({
      topic: t,
      numPartitions: 3,
      replicationFactor: 1,
      configEntries: [{ name: 'retention.ms', value: '604800000' }],
    })),
  });
  if (!created) throw new Error('createTopics: not created');
  say(`CREATED ${topic}`);
  say(`CREATED ${txTopic}`);
  const listed = await admin.listTopics();
  for (const t of [topic, txTopic]) if (!listed.includes(t)) throw new Error(`listTopics: ${t} missing`);
  const meta = await admin.fetchTopicMetadata({ topics: [topic, txTopic] });
  for (const t of meta.topics) {
    say(`TOPIC ${t.name} partitions=${t.partitions.length} replicas=${t.partitions[0].replicas.length}`);
  }
  const configs = await admin.describeConfigs({ resources: [{ type: 2, name: topic }], includeSynonyms: false });
  for (const r of configs.resources) {
    if (r.errorCode !== 0) throw new Error(`describeConfigs: error ${r.errorCode}`);
    for (const c of r.configEntries) {
      if (['retention.ms', 'cleanup.policy', 'min.insync.replicas'].includes(c.configName)) {
        say(`CONFIG ${topic} ${c.configName}=${c.configValue} default=${c.isDefault}`);
      }
    }
  }
  step('admin');

  let total = 0;
  for (const [name, compression] of [['none', CompressionTypes.None], ['gzip', CompressionTypes.GZIP]]) {
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const messages = payloads(name);
    await producer.send({ topic, acks: -1, compression, messages });
    total += messages.length;
    await producer.disconnect();
  }
  step('produced');

  const group = `${topic}-g`;
  const read = await readAll(kafka.consumer({ groupId: group }), [topic], total, 0);
  if (read.length < total) throw new Error(`consumed ${read.length} of ${total}`);
  read.sort((a, b) => a.partition - b.partition || a.offset - b.offset);
  for (const r of read) say(`CONSUMED ${r.topic} ${r.partition} ${r.offset} ${r.key} ${r.value}`);
  step('group read');
  for (const t of await admin.fetchOffsets({ groupId: group, topics: [topic] })) {
    for (const p of t.partitions) say(`COMMITTED ${group} ${t.topic} ${p.partition} ${p.offset}`);
  }
  // ListOffsets by time at the median timestamp read
  const ts = read.map((r) => r.timestamp).sort((a, b) => a - b)[Math.floor(read.length / 2)];
  const want = new Map();
  for (const r of read) {
    if (r.timestamp >= ts && (!want.has(r.partition) || r.offset < want.get(r.partition))) want.set(r.partition, r.offset);
  }
  for (const p of await admin.fetchTopicOffsetsByTimestamp(topic, ts)) {
    const expected = want.has(p.partition) ? want.get(p.partition) : -1;
    say(`BYTIME ${p.partition} answered=${p.offset} expected=${expected}`);
  }
  step('by time');

  const producer = kafka.producer({ transactionalId: `${topic}-txid`, idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  for (const commit of [true, false]) {
    const txn = await producer.transaction();
    const word = commit ? 'committed' : 'aborted';
    const messages = [];
    for (let i = 0; i < 10; i++) messages.push({ key: `t${i}`, value: `${word}-${i}` });
    await txn.send({ topic: txTopic, acks: -1, messages });
    if (commit) await txn.commit();
    else await txn.abort();
  }
  await producer.disconnect();
  const committed = await readAll(
    kafka.consumer({ groupId: `${topic}-rc`, readUncommitted: false }),
    [txTopic],
    10,
    2000,
  );
  for (const v of committed.map((r) => r.value).sort()) say(`TXN_READ ${v}`);
  step('transactions');
  await admin.disconnect();
  out.sort();
  console.log(out.join('\n'));
}

main().catch((e) => {
  console.error(`nodeclients: ${e.stack || e}`);
  process.exit(1);
});
