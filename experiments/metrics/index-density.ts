/**
 * What the index-density experiment emits (lab/metric-catalog.ts): its charts and
 * `plan --measured` select these quantities through this declaration.
 */
import { declareMetrics } from '../../lab/metric-catalog.js';

const SETTING = ['intervalBytes', 'recordSizeBytes'];
const TIMED = [...SETTING, 'cache', 'mode'];
const FILE_SEARCH = [...SETTING, 'search', 'targets'];

export const INDEX_DENSITY_METRICS = declareMetrics('index-density', {
  indexBytesPerGiB: { unit: 'B', class: 'counter', direction: 'lower', labels: SETTING },
  appendMsgsPerSec: { unit: 'msgs/s', class: 'timing', direction: 'higher', labels: [...SETTING, 'mode'] },
  lookupLatencyNs: { unit: 'ns', class: 'timing', direction: 'lower', labels: TIMED },
  comparisons: { unit: 'count', class: 'counter', direction: 'lower', labels: SETTING },
  stepForwardBytes: { unit: 'B', class: 'counter', direction: 'lower', labels: SETTING },
  pagesPerLookup: { unit: 'pages', class: 'counter', direction: 'lower', labels: SETTING },
  readBytesPerLookup: { unit: 'B', class: 'measurement', direction: 'lower', labels: SETTING },
  deviceReadBytesPerLookup: {
    unit: 'B', class: 'measurement', direction: 'lower', labels: [...SETTING, 'cache'],
  },
  indexPagesPerSearch: { unit: 'pages', class: 'counter', direction: 'lower', labels: FILE_SEARCH },
  probesPerSearch: { unit: 'count', class: 'counter', direction: 'lower', labels: FILE_SEARCH },
  indexSearchNs: {
    unit: 'ns', class: 'timing', direction: 'lower', labels: [...FILE_SEARCH, 'cache', 'mode'],
  },
});
