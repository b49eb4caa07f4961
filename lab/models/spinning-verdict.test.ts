import { describe, expect, it } from 'vitest';
import { FASTEST_HALF_TURN_MS, spinningVerdict } from './spinning-verdict.js';

describe('spinningVerdict', () => {
  it('calls a non-rotational disk not spinning at 0.95 ms quiet and at 1.52 ms under load', () => {
    for (const medianMs of [0.95, 1.52]) {
      const verdict = spinningVerdict({ rotational: false, medianMs, roundMediansMs: [medianMs] });
      expect(verdict.spins).toBe(false);
      expect(verdict.sentence).toContain('virtual or solid-state');
    }
  });

  it('never calls a non-rotational disk spinning, however slow under load', () => {
    const verdict = spinningVerdict({ rotational: false, medianMs: 9, roundMediansMs: [8, 9, 10] });
    expect(verdict).toMatchObject({ spins: false, basis: 'rotational' });
  });

  it('gives the same verdict quiet and loaded for a disk claiming to spin below the floor', () => {
    const quiet = spinningVerdict({ rotational: true, medianMs: 0.95, roundMediansMs: [0.9, 1] });
    const loaded = spinningVerdict({
      rotational: true,
      medianMs: 1.52,
      roundMediansMs: [1.4, 1.6],
    });
    for (const verdict of [quiet, loaded]) {
      expect(verdict).toMatchObject({ spins: false, basis: 'physics' });
      expect(verdict.sentence).toContain('queue/rotational = 1');
    }
  });

  it('trusts one fast round over a slow median: load only slows a disk down', () => {
    const verdict = spinningVerdict({ rotational: true, medianMs: 3, roundMediansMs: [1.2, 3, 4] });
    expect(verdict).toMatchObject({ spins: false, basis: 'physics' });
    expect(verdict.sentence).toContain('fastest round');
  });

  it('calls a rotational disk spinning when its writes are as slow as a turn', () => {
    const verdict = spinningVerdict({ rotational: true, medianMs: 8.3, roundMediansMs: [8, 8.6] });
    expect(verdict).toMatchObject({ spins: true, basis: 'rotational' });
  });

  it('calls an unknown disk not spinning below the 15,000 rpm half turn', () => {
    const verdict = spinningVerdict({
      rotational: null,
      medianMs: FASTEST_HALF_TURN_MS * 0.99,
      roundMediansMs: [],
    });
    expect(verdict).toMatchObject({ spins: false, basis: 'physics' });
  });

  it('says an unknown disk looks spinning when every round is slow and steady', () => {
    const verdict = spinningVerdict({ rotational: null, medianMs: 8, roundMediansMs: [7, 8, 9] });
    expect(verdict).toMatchObject({ spins: true, basis: 'latency' });
    expect(verdict.sentence).toContain('Looks like a spinning disk');
  });

  it('cannot tell for an unknown disk whose slow rounds disagree, as a busy one does', () => {
    const verdict = spinningVerdict({ rotational: null, medianMs: 5, roundMediansMs: [2.5, 5, 9] });
    expect(verdict.spins).toBeNull();
    expect(verdict.sentence).toContain('Cannot tell');
  });

  it('cannot tell for an unknown disk with no rounds to judge consistency by', () => {
    expect(spinningVerdict({ rotational: null, medianMs: 5, roundMediansMs: [] }).spins).toBeNull();
  });
});
