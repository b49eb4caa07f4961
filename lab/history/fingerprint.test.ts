import { describe, expect, it } from 'vitest';
import { sampleResults } from '../../test/fixtures/sample-results.js';
import type { Environment } from '../results.js';
import {
  describeMachine,
  fingerprintOf,
  machineDifferences,
  machineFields,
} from './fingerprint.js';

const GiB = 1024 ** 3;
const base: Environment = {
  ...sampleResults().environment,
  memoryBytes: 24 * GiB,
  kernel: '6.1.0-13-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.55-1 (2023-09-29)',
};
const fingerprint = (environment: Environment) => fingerprintOf(machineFields(environment));

describe('the machine fingerprint', () => {
  it('is the same for another host name, data directory, Node.js, free space or build date', () => {
    const sameMachine: Environment = {
      ...base,
      hostname: 'runner-7f3a',
      dir: '/tmp/loglab-other',
      nodeVersion: 'v20.99.0',
      freeBytes: 12345,
      memoryBytes: 24 * GiB - 37 * 1024 ** 2,
      kernel: '6.1.0-13-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.55-1 (2023-10-02)',
      filesystem: { ...base.filesystem, mountOptions: 'rw,noatime' },
    };
    expect(fingerprint(sameMachine)).toBe(fingerprint(base));
    expect(fingerprint(base)).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each<[string, Environment, string]>([
    ['kernel release', { ...base, kernel: '6.18.44 #1' }, 'kernel 6.1.0-13-amd64 → 6.18.44'],
    ['memory', { ...base, memoryBytes: 16 * GiB }, 'memory GiB 24 → 16'],
    ['CPU', { ...base, cpuCores: 8 }, 'cores 2 → 8'],
    ['disk', { ...base, device: { ...base.device, name: 'nvme0n1' } }, 'device vda → nvme0n1'],
    [
      'filesystem',
      { ...base, filesystem: { ...base.filesystem, type: 'xfs' } },
      'filesystem ext4 → xfs',
    ],
  ])('differs with the %s, and says how', (_, other, difference) => {
    expect(fingerprint(other)).not.toBe(fingerprint(base));
    expect(machineDifferences(machineFields(base), machineFields(other))).toEqual([difference]);
  });

  it('describes the machine in one line', () => {
    expect(describeMachine(machineFields(base))).toBe(
      'x64 · 2 × cpu · 24 GiB · Linux 6.1.0-13-amd64 · vda ext4',
    );
  });
});
