/**
 * Whether this machine hands the memory it frees back to its host: a virtio balloon that offers
 * free page reporting (VIRTIO_BALLOON_F_REPORTING, feature bit 5). On such a virtual machine a
 * page that was free for a while is no longer backed by the host, and the next first touch of it
 * (a page-cache write, say) faults on the host: tens of microseconds that land on whichever
 * measurement happens to get that memory. Benches settle memory before page-cache rounds
 * (lab/memory-settle.ts) and the environment records this.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const BALLOON_DRIVER = 'bus/virtio/drivers/virtio_balloon';
const REPORTING_FEATURE_BIT = 5;

/** True when a bound virtio balloon device negotiated free page reporting. */
export function freePageReportingOn(sysRoot = '/sys'): boolean {
  const driver = path.join(sysRoot, BALLOON_DRIVER);
  let entries: string[];
  try {
    entries = fs.readdirSync(driver).filter((name) => name.startsWith('virtio'));
  } catch {
    return false;
  }
  return entries.some((device) => {
    try {
      // One character per feature bit, bit 0 first.
      const bits = fs.readFileSync(path.join(driver, device, 'features'), 'utf8');
      return bits[REPORTING_FEATURE_BIT] === '1';
    } catch {
      return false;
    }
  });
}
