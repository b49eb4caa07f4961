/**
 * The storage core's public face: what a program outside this repository may rely on when it
 * imports `loglab` (package.json `exports["."]`). Everything else under storage/ is internal and
 * may change without notice: the simulated disk, the crash-test helpers, segment and index files'
 * classes, the durability engine. What experiments and tests do beneath this face on purpose
 * (tearing a tail, dropping a recovery point, the record codec) they take from the testing entry,
 * storage/testing/index.ts, which is no stable API either.
 *
 * One shape throughout: what may wait for the disk returns a promise (`append`, `appendBatch`,
 * `flush`, `close`, a queue's `send`, `delete`, `flush`, `close` and `receiveWait`), and no
 * fdatasync holds the event loop for more than the default `syncMode`'s 0.5 ms budget a turn
 * (`thread-pool`: none at all; `inline`: every one). Reads (`read`, readers, lookups by time) are
 * synchronous positional reads, as in better-sqlite3: from the page cache they take microseconds,
 * and a promise per read would cost more than the read. Opening recovers synchronously (the scan
 * is bounded by the recovery point). The default durability is `group`: nothing is acknowledged
 * before an fdatasync covered it (docs/storage.md says why).
 */

// ---- The log ----

/**
 * An append-only log of records in a directory: segments named by base offset, each with an
 * offset index and a time index, recovered (torn tail cut, indexes rebuilt) when opened, and
 * trimmed from the start by `deleteSegmentsBelow`. `Log.open(dir, options)` creates or recovers
 * it and takes the directory's writer lock; `await append(body)` resolves with the record's
 * offset once the durability policy allows answering OK (`appendNoWait` returns the offset at
 * once and `acknowledged(offset)` waits, for callers that pipeline); `appendBatch` stores many
 * records all or nothing, `appendEachNoWait` one at a time up to the first that fails, its error
 * saying which it stored (`stored`, `recordIndex`); `read(offset)` looks a record up through the index,
 * `reader(fromOffset)` reads in order, `offsetForTime` finds an offset by time. Call `close()`
 * when done: it syncs and releases the lock.
 */
export { Log } from './log/log.js';

/**
 * Options of `Log.open`: durability policy and its group-commit tuning, segment size, index
 * density, the largest record, preallocation, the clock, a `FileIO` to count or fault the log's
 * calls, and `readOnly` for readers beside a writer. Every field is optional and checked when the
 * log opens (INVALID_CONFIG names the field and its limits).
 */
export type { LogOptions } from './log/log-config.js';

/**
 * The options a log was opened with, every default filled in (`log.config`): what an experiment
 * or a tool records beside its figures so a run can be repeated.
 */
export type { LogConfig } from './log/log-config.js';

/**
 * One record as `Log.read` and `LogReader.next` return it: its offset, body and attributes, and
 * where it lies (segment base offset, byte position and size), for tools that show the layout.
 */
export type { LogRecord } from './log/log-reader.js';

/** One segment file of a log (`log.segments()`): its base offset, path and size in bytes. */
export type { SegmentInfo } from './log/log.js';

/**
 * The optional fields a record may carry beside its body: a due time (delayed delivery), a group
 * id and a sequence id. They are stored in the record and covered by its CRC.
 */
export type { RecordAttributes } from './record/record.js';

/**
 * What opening a log found and repaired (`log.recovery`): where the scan started and why, bytes
 * and records scanned, the torn tail cut (with what it held), segments removed after the cut,
 * index entries rebuilt, and warnings about damage left in place.
 */
export type { RecoveryReport } from './log/recovery-report.js';

/** The torn tail an open cut away, inside `RecoveryReport.truncation`; null when none was. */
export type { TruncationReport } from './log/recovery-report.js';

/**
 * A sequential reader from `log.reader(fromOffset)`: `next()` returns the following record, or
 * null at the end (call it again after more appends). A damaged record throws CORRUPT_RECORD
 * once, and the reader has already moved past it, so one bad record costs only that record.
 */
export type { LogReader } from './log/log-reader.js';

/**
 * How a lookup walked (`log.explainLookup(offset)`): the segment, the index entry it started
 * from and the bytes it stepped over to reach the record.
 */
export type { LookupWalk } from './log/segment-lookup.js';

/**
 * A logical record number. Branded so it cannot be mixed up with a byte position by accident;
 * the log returns `Offset`s and accepts plain numbers where it reads.
 */
export type { Offset } from './units.js';

/**
 * Makes an `Offset` of a number; an integer outside [0, 2^53] is a programmer mistake and throws
 * an assertion `Error`.
 */
export { asOffset } from './units.js';

/** 1,024 bytes. loglab writes sizes with these: `64 * MiB`, `4 * KiB`. */
export { KiB } from './units.js';

/** 1,048,576 bytes (1,024 KiB). */
export { MiB } from './units.js';

/** 1,073,741,824 bytes (1,024 MiB). */
export { GiB } from './units.js';

/**
 * Bytes every record adds to its body on disk (length, CRC-32C and id: 4 + 4 + 8), for sizing
 * segments and disks; `recordSizeBytes` gives a whole record's size.
 */
export { RECORD_HEADER_BYTES } from './record/record.js';

/** The bytes a record with `bodyBytes` of body (and the given attributes) takes in a segment. */
export { recordSizeBytes } from './record/record.js';

/** The largest record a log takes unless `maxRecordBytes` says otherwise: 1 MiB. */
export { DEFAULT_MAX_RECORD_BYTES } from './record/record.js';

/** A new log's segment size unless `segmentBytes` says otherwise: 64 MiB. */
export { DEFAULT_SEGMENT_BYTES } from './log/log-config.js';

/** Bytes between two offset-index entries unless `indexIntervalBytes` says otherwise: 4 KiB. */
export { DEFAULT_INDEX_INTERVAL_BYTES } from './log/log-config.js';

/** The block a direct write (`directWrites`) starts and ends on: 512 bytes. */
export { DIRECT_BLOCK_BYTES } from './io/direct-write.js';

/** `Log.directWrites`: off, on, or refused by the system (the log then writes through the cache). */
export type { DirectWritesState } from './io/direct-write.js';

// ---- Durability ----

/**
 * When an append, send or delete may be acknowledged: `none` once written to the page cache (a
 * power cut can lose about 30 s of them), `always` after an fdatasync of its own, `group` after
 * one fdatasync shared by everything waiting (the same guarantee as `always`, far fewer syncs).
 * Every policy syncs on a clean close; docs/storage.md has the table and the measurements.
 */
export type { DurabilityPolicy } from './io/durability.js';

/** The three policies in order of strength, for option parsers and for runs over all of them. */
export { DURABILITY_POLICIES } from './io/durability.js';

/**
 * Checks a policy name given as text (a flag, an environment variable); throws INVALID_CONFIG
 * naming the three accepted values.
 */
export { parseDurabilityPolicy } from './io/durability.js';

/**
 * Where the fdatasyncs of `always` and `group` run: `adaptive` (the default: a sync of one write
 * on the event loop while the syncs of this turn of it stay within 0.5 ms, on the thread pool
 * otherwise),
 * `thread-pool` (the event loop stays free while the disk flushes) or `inline` on the event loop
 * (two thread hand-offs fewer per sync, for a process that does nothing but append).
 */
export type { SyncMode } from './io/durability.js';

/** The sync modes, for option parsers; the one a log gets when none is chosen. */
export { DEFAULT_SYNC_MODE, SYNC_MODES } from './io/durability.js';

/** The policy a log or queue gets when none is chosen: `group`. */
export { DEFAULT_DURABILITY } from './io/durability.js';

// ---- Queues ----

/**
 * The queue contract both designs keep. Both open the same way (`open(dir, options)`: a
 * directory, created durably when missing), take the same `QueueOptions` and limits (bodies up
 * to `maxBodyBytes`, 1 KiB by default) and throw the same codes. `send` resolves once the
 * message survives a restart as the durability policy defines; `receive` hands out a ready
 * message for a visibility timeout (30 s unless told) or null at once; `receiveWait` waits up
 * to `waitMs` for one; `delete` acknowledges it; `flush` syncs; `stats` and `counters` count;
 * `close` syncs, releases the directory and resolves every waiting receive with null. Delivery is
 * at least once: after a restart every message not deleted is ready again.
 */
export type { Queue } from './queue/queue.js';

/** A received message: id (for `delete`), body, when it becomes visible again, attempt number. */
export type { QueueMessage } from './queue/queue.js';

/** Counts a queue reports: ready, in flight, delayed, its offsets, disk bytes, corrupt skipped. */
export type { QueueStats } from './queue/queue.js';

/** Options of `send`: `delayMs`, how long before the message may be delivered. */
export type { SendOptions } from './queue/queue.js';

/**
 * Options of `receive`: `visibilityTimeoutMs`, how long the receiver holds the message before it
 * is ready again (default `DEFAULT_VISIBILITY_TIMEOUT_MS`).
 */
export type { ReceiveOptions } from './queue/queue.js';

/**
 * Options of `receiveWait`: `waitMs`, how long to wait for a message before resolving with null
 * (0 to `LONGEST_RECEIVE_WAIT_MS`), and the receive's `visibilityTimeoutMs`. A waiting receive
 * resolves as soon as a message is ready: a send, a visibility timeout that ran out, a delayed
 * message coming due. Waiters are served in the order they asked.
 */
export type { ReceiveWaitOptions } from './queue/queue.js';

/**
 * The options both queue designs take: durability and its group-commit tuning (`durability`,
 * `groupMaxDelayMs`, `groupMaxBytes`, `syncMode`), the clock, a `FileIO`, and `maxBodyBytes`,
 * the largest body `send` takes. Each is checked when the queue opens (INVALID_CONFIG).
 */
export type { QueueOptions } from './queue/queue.js';

/**
 * The clock deadlines and due times are read from (`nowMs()`, ms since the epoch by default,
 * since due times are stored); pass another to drive time in a test, with `setTimer` so that
 * `receiveWait`'s waits follow it.
 */
export type { QueueClock } from './queue/queue.js';

/** How long a received message stays invisible when `receive` names no timeout: 30 s (SQS's). */
export { DEFAULT_VISIBILITY_TIMEOUT_MS } from './queue/queue.js';

/** The largest body a queue takes unless `maxBodyBytes` says otherwise: 1,024 bytes. */
export { DEFAULT_MAX_BODY_BYTES } from './queue/queue.js';

/**
 * The largest `maxBodyBytes` either design takes: 1 MiB less 28 bytes, what design A's largest
 * slot holds beside its header and a due time.
 */
export { MAX_BODY_BYTES_LIMIT } from './queue/queue.js';

/** The longest `waitMs` of `receiveWait`: 2^31 - 1 ms (about 24.8 days), Node's longest timer. */
export { LONGEST_RECEIVE_WAIT_MS } from './queue/queue.js';

/**
 * Design B: a queue on a log in a directory (`LogQueue.open(dir, options)`). Sends append,
 * receives read at a cursor, deletes move a head whose checkpoint lets whole segments be
 * deleted, so the disk stops growing while consumers keep up. The log is the queue's own and is
 * not exposed: nothing may append behind the queue's back.
 */
export { LogQueue } from './queue/log-queue.js';

/**
 * Options of `LogQueue.open`: the queue options plus the log's segment size, index density and
 * how often the head is saved.
 */
export type { LogQueueOptions } from './queue/log-queue.js';

/**
 * Design A: a queue in one file of fixed-size slots updated in place, `<dir>/slots`
 * (`SlotFileQueue.open(dir, options)`). A send writes one slot, a delete one state byte; the
 * file grows in preallocated chunks. Slots are sized for `maxBodyBytes` unless `slotBytes` is
 * given (2,048 bytes for the default 1 KiB body).
 */
export { SlotFileQueue } from './queue/slot-file.js';

/** Options of `SlotFileQueue.open`: the queue options plus slot size and growth chunk. */
export type { SlotFileOptions } from './queue/slot-file.js';

/**
 * The slot size `SlotFileQueue` picks for a `maxBodyBytes`: header, due time and body rounded up
 * to a power of two, so that no slot straddles a 4 KiB page.
 */
export { slotBytesFor } from './queue/slot-sizes.js';

/** Design A's slot size when neither `slotBytes` nor `maxBodyBytes` is given: 2,048 bytes. */
export { DEFAULT_SLOT_BYTES } from './queue/slot-sizes.js';

// ---- Kafka batches ----

/**
 * Kafka's storage layout beside loglab's log: a partition directory of v2 record batches, each
 * encoded (and compressed) once and written with one write, readable by Kafka's own tools.
 * `BatchedLog.open(dir, options)`, then `appendBatch(records, { compression })` resolves with
 * the batch's place once acknowledged; `read`, `lookup` and `lookupByTime` find records;
 * `close()` syncs and releases the lock.
 */
export { BatchedLog } from './kafka/batched-log.js';

/** Options of `BatchedLog.open`: as `LogOptions`, with Kafka's names for batch and index sizes. */
export type { BatchedLogOptions } from './kafka/batched-log-config.js';

/** One record handed to `BatchedLog.appendBatch`: value, optional key, headers and timestamp. */
export type { BatchedRecordInput } from './kafka/batched-log-records.js';

/** Options of `BatchedLog.appendBatch`: the batch's compression codec. */
export type { AppendBatchOptions } from './kafka/batched-log-records.js';

/** Where an appended batch lies: segment, byte position, size and its first and last offsets. */
export type { BatchLocation } from './kafka/batched-log-records.js';

/** A record read from the batched log, with its timestamp, key, value, headers and batch. */
export type { BatchedLogRecord } from './kafka/batched-log-records.js';

/** What opening a batched log found and repaired (`batchedLog.recovery`). */
export type { BatchedRecoveryReport } from './kafka/batched-log-loader.js';

/**
 * Encodes one Kafka v2 record batch (async, since zstd's compressor is): the bytes a producer
 * sends and a broker stores, CRC-32C included, byte for byte what Kafka writes.
 */
export { encodeBatch } from './kafka/kafka-batch.js';

/**
 * Decodes and checks a whole batch: magic, lengths, CRC, every varint and the record count; any
 * failure throws CORRUPT_BATCH with a `reason`. Keys and values are views, not copies.
 */
export { decodeBatch } from './kafka/kafka-batch.js';

/** Decodes and checks a batch's 61-byte header only, without its records. */
export { decodeBatchHeader } from './kafka/kafka-batch.js';

/**
 * Bytes of a v2 batch's header (61): what every batch adds to its records, for sizing and for
 * telling a batch's compressed payload from its header.
 */
export { BATCH_HEADER_BYTES } from './kafka/kafka-batch.js';

/** What `encodeBatch` takes; fields left out get the defaults a Kafka producer writes. */
export type { KafkaBatchInput } from './kafka/kafka-batch.js';

/** A decoded batch: its header fields, records and size on disk. */
export type { KafkaBatch } from './kafka/kafka-batch.js';

/** A batch's header fields, as `decodeBatchHeader` returns them. */
export type { KafkaBatchHeader } from './kafka/kafka-batch.js';

/** One record inside a batch: timestamp and offset deltas, key, value and headers. */
export type { KafkaRecord } from './kafka/kafka-batch.js';

/** One record header: a key and a value (null allowed). */
export type { KafkaHeader } from './kafka/kafka-batch.js';

/** Limits `decodeBatch` enforces: the longest batch, the largest decompressed size. */
export type { DecodeBatchOptions } from './kafka/kafka-batch.js';

/** A batch's compression codec: `none`, `gzip`, `snappy`, `lz4` or `zstd`. */
export type { KafkaCompression } from './kafka/kafka-batch.js';

/** Every codec, for option parsers and runs over all of them. */
export { KAFKA_COMPRESSIONS } from './kafka/kafka-compression.js';

// ---- Reading files for people ----

/**
 * The segments `dumpLog` walks: every segment of a log directory, or the one a `.log`/`.index`/
 * `.timeindex` file belongs to. Throws INVALID_SEGMENT_FILE when the path is neither.
 */
export { segmentsToDump } from './dump/dump.js';

/**
 * Walks segment files without opening the log (no lock, nothing repaired), as `loglab dump`
 * does: yields every record with its position, size, CRC and validity, index and time-index
 * entries, zero tails and, with `verify`, index entries that miss their record and breaks in
 * the segment chain. Pass `new NodeFileIO()` as `io`.
 */
export { dumpLog } from './dump/dump.js';

/** What `dumpLog` walks: records, indexes, or both, and whether index entries are verified. */
export type { DumpOptions } from './dump/dump.js';

/** The directory and segment base offsets `segmentsToDump` chose. */
export type { DumpTarget } from './dump/dump.js';

/** One entry `dumpLog` yields, told apart by its `type` field. */
export type { DumpEntry } from './dump/dump-entries.js';

// ---- Errors ----

/**
 * Every failure the storage core reports on purpose: I/O errors, corruption, refused
 * configuration, records too large, a fenced, closed or locked log. `code` is stable and meant to
 * be switched on; `context` carries the file, position, sizes and cause; the message says what
 * failed and what to do. Programmer mistakes (a broken assertion) are plain `Error`s instead.
 */
export { StorageError } from './errors.js';

/** The literal codes a `StorageError` carries, each documented where it is declared. */
export type { StorageErrorCode } from './errors.js';

/**
 * Context a `StorageError` may carry: file, position, offsets, sizes, lock holder, cause, and for
 * an append of several records that stopped, the record (`recordIndex`) and what it stored.
 */
export type { StorageErrorContext, OffsetRange } from './errors.js';

/** True when `error` is a `StorageError` (of `code`, when one is given): for catch blocks. */
export { isStorageError } from './errors.js';

// ---- File I/O ----

/**
 * The file calls the log and queues make (open, positional read and write, fdatasync, rename,
 * directory fsync, lock), behind one interface, with counters of calls and bytes. Pass one as
 * `io` to count what a workload costs, to trace writes or to inject faults.
 */
export type { FileIO } from './io/file-io.js';

/**
 * An open file as a `FileIO` hands it out (`open`, `openReadOnly`) and takes it back: a number
 * branded so that it cannot be mixed up with a byte count or a position.
 */
export type { FileHandle } from './io/file-io.js';

/**
 * The exclusive lock `FileIO.lockExclusive` returns (the log's writer lock): `writeHolder` says
 * who holds it, `release` unlocks. Needed to implement a `FileIO` of one's own.
 */
export type { FileLock } from './io/file-io.js';

/** Calls and bytes a `FileIO` has made: writes, reads, fdatasyncs and directory fsyncs. */
export type { FileIOCounters } from './io/file-io.js';

/**
 * What `FileIO.inspect` says of a directory entry, a symbolic link not followed: its kind, links
 * and identity. The log refuses entries under its files' names that it would not write safely
 * (UNSAFE_ENTRY, docs/storage.md). Needed to implement a `FileIO` of one's own.
 */
export type { EntryKind, EntryStat } from './io/file-io.js';

/** The `FileIO` on node:fs that everything uses by default. */
export { NodeFileIO } from './io/node-file-io.js';

/** A `FileIO` that passes every call to another: extend it to observe or alter some calls. */
export { DelegatingFileIO } from './io/delegating-file-io.js';
