import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePageReportingOn } from './free-page-reporting.js';

function sysWithBalloon(features: string | null): string {
  const sys = fs.mkdtempSync(path.join(os.tmpdir(), 'loglab-sys-'));
  const driver = path.join(sys, 'bus/virtio/drivers/virtio_balloon');
  fs.mkdirSync(driver, { recursive: true });
  fs.writeFileSync(path.join(driver, 'bind'), '');
  if (features !== null) {
    fs.mkdirSync(path.join(driver, 'virtio0'));
    fs.writeFileSync(path.join(driver, 'virtio0', 'features'), `${features}\n`);
  }
  return sys;
}

describe('freePageReportingOn', () => {
  it('is true when the balloon negotiated feature bit 5', () => {
    expect(freePageReportingOn(sysWithBalloon('0110010100000000100'))).toBe(true);
  });

  it('is false for a balloon without reporting, an unbound driver or no balloon at all', () => {
    expect(freePageReportingOn(sysWithBalloon('0110000100000000100'))).toBe(false);
    expect(freePageReportingOn(sysWithBalloon(null))).toBe(false);
    expect(freePageReportingOn(fs.mkdtempSync(path.join(os.tmpdir(), 'loglab-sys-')))).toBe(false);
  });
});
