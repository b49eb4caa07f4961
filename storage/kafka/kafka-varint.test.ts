import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isStorageError } from '../errors.js';
import {
  VarintCursor,
  varintSizeBytes,
  varlongSizeBytes,
  writeVarint,
  writeVarlong,
} from './kafka-varint.js';

function varintHex(value: number): string {
  const buffer = Buffer.alloc(5);
  return buffer.subarray(0, writeVarint(buffer, value, 0)).toString('hex');
}

function varlongHex(value: number): string {
  const buffer = Buffer.alloc(10);
  return buffer.subarray(0, writeVarlong(buffer, value, 0)).toString('hex');
}

function cursorOf(hex: string): VarintCursor {
  const bytes = Buffer.from(hex, 'hex');
  return new VarintCursor(bytes, 0, bytes.length, 'test bytes');
}

describe('kafka varints', () => {
  it('zigzag-encode small values the way Kafka ByteUtils does', () => {
    expect(varintHex(0)).toBe('00');
    expect(varintHex(-1)).toBe('01');
    expect(varintHex(1)).toBe('02');
    expect(varintHex(63)).toBe('7e');
    expect(varintHex(64)).toBe('8001');
    expect(varintHex(-65)).toBe('8101');
    expect(varintHex(2 ** 31 - 1)).toBe('feffffff0f');
    expect(varintHex(-(2 ** 31))).toBe('ffffffff0f');
  });

  it('encode varlongs past 32 bits and past 2^48 exactly', () => {
    expect(varlongHex(2 ** 31)).toBe('8080808010');
    expect(cursorOf(varlongHex(2 ** 50)).readVarlong()).toBe(2 ** 50);
    expect(cursorOf(varlongHex(-(2 ** 53) + 1)).readVarlong()).toBe(-(2 ** 53) + 1);
    expect(varlongHex(Number.MAX_SAFE_INTEGER).length / 2).toBe(
      varlongSizeBytes(Number.MAX_SAFE_INTEGER),
    );
  });

  it('read back every int32 and safe integer they write, in the size they predict', () => {
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), (value) => {
        const hex = varintHex(value);
        expect(hex.length / 2).toBe(varintSizeBytes(value));
        expect(cursorOf(hex).readVarint()).toBe(value);
      }),
    );
    fc.assert(
      fc.property(fc.maxSafeInteger(), (value) => {
        const hex = varlongHex(value);
        expect(hex.length / 2).toBe(varlongSizeBytes(value));
        expect(cursorOf(hex).readVarlong()).toBe(value);
      }),
    );
  });

  it('refuse a varint that runs past its range or past five bytes as CORRUPT_BATCH', () => {
    for (const hex of ['80', '8080', 'ffffffffff01']) {
      let caught: unknown;
      try {
        cursorOf(hex).readVarint();
      } catch (error) {
        caught = error;
      }
      expect(isStorageError(caught, 'CORRUPT_BATCH')).toBe(true);
    }
  });

  it('refuse a varlong beyond 2^53 rather than round it', () => {
    const buffer = Buffer.from('ffffffffffffffffff01', 'hex');
    const cursor = new VarintCursor(buffer, 0, buffer.length, 'test bytes');
    expect(() => cursor.readVarlong()).toThrow(/beyond 2\^53/);
  });
});
