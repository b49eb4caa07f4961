import { describe, expect, it } from 'vitest';
import { DEFAULT_PAGE_BYTES, checkPageBytes, pageFillBytes } from './page-fill.js';
import { errorOf } from '../../test/fixtures/storage-error.js';

const PAGE = 4096;
const FILE = 64 * PAGE;

describe('the page fill', () => {
  it('fills to the end of the last page when the write covers that page from its start', () => {
    // A record crossing into page 1: page 1 is covered from its start, so it is filled.
    expect(pageFillBytes(PAGE - 100, 1040, FILE, PAGE)).toBe(2 * PAGE - (PAGE - 100 + 1040));
    // A record starting a page.
    expect(pageFillBytes(PAGE, 1040, FILE, PAGE)).toBe(PAGE - 1040);
    // A write spanning pages: only its last page matters, the ones before it are whole.
    expect(pageFillBytes(0, 3 * PAGE + 10, FILE, PAGE)).toBe(PAGE - 10);
  });

  it('fills nothing inside a page an earlier write reached, at a page end, or at the end of the file', () => {
    expect(pageFillBytes(1040, 1040, FILE, PAGE)).toBe(0);
    expect(pageFillBytes(PAGE - 1040, 1040, FILE, PAGE)).toBe(0);
    expect(pageFillBytes(FILE - 1040, 1040, FILE, PAGE)).toBe(0);
    expect(pageFillBytes(FILE - 1040, 2000, FILE, PAGE)).toBe(0);
    expect(pageFillBytes(0, 1040, FILE, 0)).toBe(0);
  });

  it('never fills past the end of the file', () => {
    const fileBytes = PAGE + 2000;
    expect(pageFillBytes(PAGE, 1000, fileBytes, PAGE)).toBe(1000);
  });

  it('takes 0 or a power of two from 512 bytes to 1 MiB as the page size', () => {
    expect(DEFAULT_PAGE_BYTES).toBe(4096);
    for (const ok of [0, 512, 4096, 16384, 65536, 1 << 20]) expect(checkPageBytes(ok)).toBe(ok);
    for (const bad of [1, 256, 1000, 4095, 2 << 20, -4096, 4096.5, Number.NaN]) {
      const error = errorOf(() => checkPageBytes(bad));
      expect(error.code).toBe('INVALID_CONFIG');
      expect(error.message).toMatch(/pageBytes must be 0 \(no page fill\) or a power of two/);
    }
  });
});
