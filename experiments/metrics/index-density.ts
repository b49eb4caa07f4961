/**
 * What the index-density experiment emits (lab/metric-catalog.ts): its charts and
 * `plan --measured` select these quantities through this declaration.
 */
import { declareMetrics } from '../../lab/metric-catalog.js';

const SETTING = ['intervalBytes', 'recordSizeBytes'];
const TIMED = [...SETTING, 'cache', 'mode'];
const FILE_SEARCH = [...SETTING, 'search', 'targets'];

export const INDEX_DENSITY_METRICS = declareMetrics('index-density', {
  indexBytesPerGiB: {
    unit: 'B',
    class: 'counter',
    direction: 'lower',
    labels: SETTING,
    title: 'index size per GiB of log',
  },
  appendMsgsPerSec: {
    unit: 'msgs/s',
    class: 'timing',
    direction: 'higher',
    labels: [...SETTING, 'mode'],
    title: 'append throughput',
  },
  lookupLatencyNs: {
    unit: 'ns',
    class: 'timing',
    direction: 'lower',
    labels: TIMED,
    title: 'lookup latency',
  },
  comparisons: {
    unit: 'count',
    class: 'counter',
    direction: 'lower',
    labels: SETTING,
    title: 'index comparisons per lookup',
  },
  stepForwardBytes: {
    unit: 'B',
    class: 'counter',
    direction: 'lower',
    labels: SETTING,
    title: 'bytes stepped forward per lookup',
  },
  pagesPerLookup: {
    unit: 'pages',
    class: 'counter',
    direction: 'lower',
    labels: SETTING,
    title: 'pages touched per lookup',
  },
  readBytesPerLookup: {
    unit: 'B',
    class: 'measurement',
    direction: 'lower',
    labels: SETTING,
    title: 'bytes read per lookup',
  },
  deviceReadBytesPerLookup: {
    unit: 'B',
    class: 'measurement',
    direction: 'lower',
    labels: [...SETTING, 'cache'],
    title: 'device bytes read per lookup',
  },
  indexPagesPerSearch: {
    unit: 'pages',
    class: 'counter',
    direction: 'lower',
    labels: FILE_SEARCH,
    title: 'index pages per search',
  },
  probesPerSearch: {
    unit: 'count',
    class: 'counter',
    direction: 'lower',
    labels: FILE_SEARCH,
    title: 'probes per search',
  },
  indexSearchNs: {
    unit: 'ns',
    class: 'timing',
    direction: 'lower',
    labels: [...FILE_SEARCH, 'cache', 'mode'],
    title: 'index file search time',
  },
});
