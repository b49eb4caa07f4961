/**
 * The storage core's testing entry: what an experiment or a test may use beside the public entry
 * (storage/index.ts) to do file surgery on purpose — tear a tail, drop a recovery point, delete
 * an index — and to look inside the formats: file names, header and entry sizes, the record
 * codec, searches of an index file on disk, the crash loop.
 *
 * None of it is part of the stable API. It follows the formats and the layout of a log
 * directory as they are today and changes with them, without notice; a program that only
 * stores and reads records needs none of it. Experiments import storage/ through this file and
 * storage/index.ts only (test/architecture.test.ts checks it), so a change of layout is made in
 * one place.
 */

// ---- Assertions ----

/**
 * The assertion the storage core uses for programmer mistakes (`assertion failed: …`, a plain
 * `Error`), so experiments fail the same way. Not part of the stable API.
 */
export { assert } from '../errors.js';

// ---- File surgery on a log directory ----

/**
 * The path of the recovery point file in a log directory, for a test that reads or damages it.
 * Not part of the stable API: the file's name and place may change.
 */
export { recoveryPointPath } from './log-surgery.js';

/**
 * The recovery point file's bytes, to be put back with `restoreRecoveryPoint` after a state that
 * moved or removed it. Throws when the log saved none. Not part of the stable API.
 */
export { saveRecoveryPoint } from './log-surgery.js';

/**
 * Puts back saved recovery point bytes, or with null leaves the log without one: the states an
 * experiment opens a log in. Not part of the stable API.
 */
export { restoreRecoveryPoint } from './log-surgery.js';

/**
 * Removes a log's recovery point, so the next open checks the whole active segment (a crash
 * whose last point is the roll's). Throws when there is none. Not part of the stable API.
 */
export { dropRecoveryPoint } from './log-surgery.js';

/**
 * The `.log`, `.index` and `.timeindex` paths of one segment of a log directory, for surgery
 * and file sizes. Not part of the stable API: the naming may change.
 */
export { segmentFilePaths } from './log-surgery.js';

/** The three paths `segmentFilePaths` returns. Not part of the stable API. */
export type { SegmentPaths } from '../segments/segment-files.js';

/**
 * The segment file names in a directory (files per GiB, a layout check); a misnamed segment
 * throws INVALID_SEGMENT_FILE. Not part of the stable API.
 */
export { segmentFileNamesIn } from './log-surgery.js';

/**
 * Bytes on disk of a log directory's `.log`, `.index` and `.timeindex` files, summed per kind:
 * what the log and its indexes take. Not part of the stable API.
 */
export { segmentFilesBytes } from './log-surgery.js';

/** The three sums `segmentFilesBytes` returns. Not part of the stable API. */
export type { SegmentFilesBytes } from './log-surgery.js';

/**
 * Hard-links one segment's three files from one log directory into another: many sealed
 * segments without writing them again. Not part of the stable API.
 */
export { linkSegmentFiles } from './log-surgery.js';

/**
 * The size on disk of one segment's offset index file: what an index density costs. Not part
 * of the stable API.
 */
export { offsetIndexFileBytes } from './log-surgery.js';

/**
 * Deletes one segment's offset index file, so the log rebuilds it on the segment's first
 * lookup. Not part of the stable API.
 */
export { dropOffsetIndex } from './log-surgery.js';

/**
 * Copies one segment's offset index file elsewhere, to search the copy on disk
 * (`searchIndexFile`) without touching the log's. Not part of the stable API.
 */
export { copyOffsetIndex } from './log-surgery.js';

/**
 * Saves the last bytes of a segment's `.log` (usually its last record), for `tearTail` and
 * `restoreTail`. Not part of the stable API.
 */
export { saveTail } from './log-surgery.js';

/** The bytes `saveTail` saved, with the file and position they came from. Not stable API. */
export type { SavedTail } from './log-surgery.js';

/**
 * Writes a saved tail back and cuts the file a number of bytes before its end: a record torn by
 * a crash in the middle of its write. Not part of the stable API.
 */
export { tearTail } from './log-surgery.js';

/** Writes a saved tail back whole and ends the file there. Not part of the stable API. */
export { restoreTail } from './log-surgery.js';

/**
 * Records a closed log directory's file names and recovery point, so `rewindLogDir` can undo an
 * operation that adds files, such as a roll timed once per round. Not part of the stable API.
 */
export { snapshotLogDir } from './log-surgery.js';

/** What `snapshotLogDir` recorded. Not part of the stable API. */
export type { LogDirSnapshot } from './log-surgery.js';

/**
 * Removes the files added since a snapshot and puts its recovery point back. Not part of the
 * stable API.
 */
export { rewindLogDir } from './log-surgery.js';

// ---- File names and sizes of the formats ----

/** The recovery point's file name in a log directory (`recovery-point`). Not stable API. */
export { RECOVERY_POINT_FILE } from '../segments/segment-files.js';

/** Suffix of a segment's log file (`.log`). Not part of the stable API. */
export { LOG_SUFFIX } from '../segments/segment-files.js';

/** Suffix of a segment's offset index file (`.index`). Not part of the stable API. */
export { INDEX_SUFFIX } from '../segments/segment-files.js';

/** Suffix of a segment's time index file (`.timeindex`). Not part of the stable API. */
export { TIME_INDEX_SUFFIX } from '../segments/segment-files.js';

/**
 * A segment file's name: its base offset in 20 digits and a suffix, as Kafka names them. Not
 * part of the stable API.
 */
export { segmentFileName } from '../segments/segment-files.js';

/**
 * The base offset and suffix a file name claims, null for a file that is not a segment's; a
 * misnamed segment throws INVALID_SEGMENT_FILE. Not part of the stable API.
 */
export { parseSegmentFileName } from '../segments/segment-files.js';

/**
 * Bytes of one offset-index entry (a 4-byte relative offset and a 4-byte position): index size
 * from an entry count. Not part of the stable API.
 */
export { OFFSET_INDEX_ENTRY_BYTES } from '../segments/offset-index.js';

/**
 * Bytes of a design-A slot's header (CRC, state, flags, length, id), for notes that size a
 * slot. Not part of the stable API.
 */
export { SLOT_HEADER_BYTES } from '../queue/slot-format.js';

/**
 * The log under a design-B queue (`LogQueue` keeps it private: records appended to it would be
 * delivered as messages), for a test or a bench that fills or inspects it on purpose. Not part
 * of the stable API.
 */
export { logOfQueueForTesting } from '../queue/log-queue.js';

// ---- The record codec ----

/**
 * Encodes one record (header, CRC-32C, body) into a new buffer, byte for byte what the log
 * writes: for raw loops that write the same bytes and for codec benchmarks. Not stable API.
 */
export { encodeRecord } from '../record/record.js';

/**
 * Encodes one record into a buffer at a position and returns its size: the log's own append
 * path, for codec benchmarks. Not part of the stable API.
 */
export { encodeRecordInto } from '../record/record.js';

/**
 * Checks one record in a buffer (length, CRC, id) and returns what is wrong, or null: the read
 * path's check, for codec benchmarks. Not part of the stable API.
 */
export { checkRecord } from '../record/record.js';

/** Decodes a record `checkRecord` passed, without checking it again. Not stable API. */
export { decodeCheckedRecord } from '../record/record.js';

/**
 * The size of the record frame at a position of a buffer, or the problem with it: counts the
 * records in a write to a `.log`. Not part of the stable API.
 */
export { frameSizeAt } from '../record/record.js';

/** What `checkRecord` and `frameSizeAt` report about a bad frame. Not stable API. */
export type { FrameProblem } from '../record/record.js';

/** A record `decodeCheckedRecord` returned: id, body, attributes. Not stable API. */
export type { DecodedRecord } from '../record/record.js';

/**
 * Encodes the records section of a Kafka v2 batch, uncompressed: the bytes a codec compresses,
 * for compression ratios. Not part of the stable API.
 */
export { encodeRecords } from '../kafka/kafka-batch.js';

// ---- Index searches ----

/**
 * Searches an offset index FILE on disk, one pread per probe, plainly or Kafka's warm section
 * first, counting probes and pages: what an index whose pages left the cache costs. Not part
 * of the stable API.
 */
export { searchIndexFile } from '../segments/offset-index.js';

/** What one `searchIndexFile` found and did. Not part of the stable API. */
export type { IndexFileSearch } from '../segments/offset-index.js';

/** Options of `searchIndexFile`: warm section and page size. Not part of the stable API. */
export type { IndexFileSearchOptions } from '../segments/offset-index.js';

/**
 * The binary search the resident indexes run (the largest slot whose key is at most a target),
 * for codec benchmarks. Not part of the stable API.
 */
export { largestLowerBoundSlot } from '../segments/index-file.js';

// ---- The crash loop ----

/**
 * Runs crash iterations with consecutive seeds on a simulated disk (the log and both queue
 * designs in turn) under one durability policy, while `keepGoing` says so; returns the counts
 * and any acknowledged data that did not survive. Not part of the stable API.
 */
export { runCrashLoop } from './crash-loop.js';

/** Options of `runCrashLoop`: policy, first seed, when to stop. Not part of the stable API. */
export type { CrashLoopOptions } from './crash-loop.js';

/** What `runCrashLoop` returns: counts and violations. Not part of the stable API. */
export type { CrashLoopResult } from './crash-loop.js';

/**
 * Counts over crash iterations: crashes, faults, acknowledged data checked and lost. Not part
 * of the stable API.
 */
export type { CrashCounts } from './crash-loop.js';
