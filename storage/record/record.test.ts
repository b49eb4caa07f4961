import { crc32c } from '@node-rs/crc32';
import { describe, expect, it } from 'vitest';
import { isStorageError } from '../errors.js';
import {
  ATTRIBUTES_FLAG,
  RECORD_HEADER_BYTES,
  checkRecord,
  decodeRecord,
  encodeRecord,
  frameSizeAt,
} from './record.js';

const ASHA_BODY = Buffer.from('{"order":4127,"email":"confirmation"}');
const ASHA_ID = 1_268_410;
const ASHA_HEX =
  '00000031' +
  '4405f473' +
  '0000000000135aba' +
  '7b226f72646572223a343132372c2265' +
  '6d61696c223a22636f6e6669726d6174' +
  '696f6e227d';

function expectCorrupt(bytes: Uint8Array): string {
  try {
    decodeRecord(bytes);
  } catch (error) {
    expect(isStorageError(error, 'CORRUPT_RECORD')).toBe(true);
    return (error as Error).message;
  }
  throw new Error('a corrupt record was decoded');
}

describe('record format', () => {
  it("encodes Asha's confirmation to exactly the 53 bytes printed in the course", () => {
    const record = encodeRecord(ASHA_ID, ASHA_BODY);
    expect(record.length).toBe(53);
    expect(record.toString('hex')).toBe(ASHA_HEX);
    expect(record.readUInt32BE(0)).toBe(0x31);
    expect(record.readUInt32BE(4)).toBe(0x4405f473);
  });

  it('decodes it back to the same id and body', () => {
    const decoded = decodeRecord(Buffer.from(ASHA_HEX, 'hex'));
    expect(decoded.id).toBe(ASHA_ID);
    expect(decoded.body.equals(ASHA_BODY)).toBe(true);
    expect(decoded.attributes).toBeUndefined();
  });

  it('reports corruption, never the body, when the lowest bit of byte 25 flips', () => {
    const damaged = Buffer.from(ASHA_HEX, 'hex');
    damaged[25] = damaged[25]! ^ 0x01;
    expect(String.fromCharCode(damaged[25]!)).toBe('5');
    expect(crc32c(damaged.subarray(8))).toBe(0xe6107f47);
    expect(expectCorrupt(damaged)).toMatch(/crc mismatch/);
  });

  it('detects every single-bit flip anywhere in the record', () => {
    const original = Buffer.from(ASHA_HEX, 'hex');
    for (let bit = 0; bit < original.length * 8; bit++) {
      const damaged = Buffer.from(original);
      damaged[bit >> 3] = damaged[bit >> 3]! ^ (1 << (bit & 7));
      expectCorrupt(damaged);
    }
  });

  it('detects a flipped attributes bit, whose body would otherwise pass as attributes', () => {
    // A body that starts with 0x00 reads as an empty flags byte once the bit is set.
    const plain = encodeRecord(9, Buffer.from([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]));
    plain[0] = plain[0]! ^ 0x80;
    expect(expectCorrupt(plain)).toMatch(/crc mismatch/);
    const withAttributes = encodeRecord(9, Buffer.from('due'), { dueTimeMs: 5 });
    withAttributes[0] = withAttributes[0]! ^ 0x80;
    expect(expectCorrupt(withAttributes)).toMatch(/crc mismatch/);
  });

  it('detects every single-bit flip in records with attributes or a zero first body byte', () => {
    const records = [
      encodeRecord(3, Buffer.alloc(12)),
      encodeRecord(4, Buffer.from('late'), { dueTimeMs: 1_790_650_248_460, sequenceId: 42n }),
    ];
    for (const original of records) {
      for (let bit = 0; bit < original.length * 8; bit++) {
        const damaged = Buffer.from(original);
        damaged[bit >> 3] = damaged[bit >> 3]! ^ (1 << (bit & 7));
        expectCorrupt(damaged);
      }
    }
  });

  it('round-trips attributes and marks them with the top bit of the length', () => {
    const attributes = { dueTimeMs: 1_790_650_248_460, groupId: 2n ** 63n + 5n, sequenceId: 42n };
    const record = encodeRecord(7, Buffer.from('late'), attributes);
    expect(record.readUInt32BE(0) & ATTRIBUTES_FLAG).not.toBe(0);
    expect(record.length).toBe(RECORD_HEADER_BYTES + 1 + 24 + 4);
    const decoded = decodeRecord(record);
    expect(decoded.attributes).toEqual(attributes);
    expect(decoded.body.toString()).toBe('late');
  });

  it('keeps each attribute optional', () => {
    const decoded = decodeRecord(encodeRecord(1, Buffer.alloc(0), { sequenceId: 3n }));
    expect(decoded.attributes).toEqual({ sequenceId: 3n });
    expect(decoded.body.length).toBe(0);
  });

  it('treats a length above the maximum record size as corruption', () => {
    const record = encodeRecord(1, Buffer.alloc(100));
    expect(frameSizeAt(record, 0, 64)).toBe('length above maximum');
    expect(() => decodeRecord(record, 64)).toThrow(/length above maximum/);
  });

  it('treats a length below a header as corruption (a zero-filled tail)', () => {
    expect(frameSizeAt(Buffer.alloc(16), 0, 1024)).toBe('length below minimum');
  });
});

describe('an attributes section that the encoder never writes', () => {
  /** A record with the attributes bit, `section` after the id, and a matching CRC. */
  function crafted(section: Buffer, body: Buffer): Buffer {
    const size = RECORD_HEADER_BYTES + section.length + body.length;
    const bytes = Buffer.alloc(size);
    bytes.writeUInt32BE(((size - 4) | ATTRIBUTES_FLAG) >>> 0, 0);
    bytes.writeUInt32BE(7, 12);
    section.copy(bytes, RECORD_HEADER_BYTES);
    body.copy(bytes, RECORD_HEADER_BYTES + section.length);
    bytes.writeUInt32BE(crc32c(bytes.subarray(8), crc32c(Buffer.of(0x01))), 4);
    return bytes;
  }

  it('is damage when there is no room for its flags byte, or no field is set', () => {
    for (const bytes of [
      crafted(Buffer.alloc(0), Buffer.alloc(0)),
      crafted(Buffer.of(0x00), Buffer.from('hello')),
    ]) {
      expect(checkRecord(bytes, 0, bytes.length)).toBe('bad attributes');
      expect(() => decodeRecord(bytes)).toThrow(
        expect.objectContaining({ code: 'CORRUPT_RECORD' }),
      );
    }
  });
});
