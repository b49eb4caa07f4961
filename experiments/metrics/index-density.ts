/**
 * What the index-density experiment emits (lab/metric-catalog.ts): its charts and
 * `plan --measured` select these quantities through this declaration.
 */
import { type ChartDef, byLabel, byQuantity, chart, plot } from '../../lab/chart-spec.js';
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

/** Its charts (lab/chart-spec.ts), in report order; each plots a quantity declared above. */
export const INDEX_DENSITY_CHARTS: readonly ChartDef[] = [
  chart(
    'index-size',
    'Index bytes per GiB of log against index interval',
    'Lower is a smaller index; "dense" is an entry for every record, and each line is one ' +
      'record size.',
    plot(INDEX_DENSITY_METRICS.indexBytesPerGiB, {
      yTitle: 'index size per GiB of log',
      x: byLabel('intervalBytes', 'index interval'),
      series: ['recordSizeBytes'],
      seriesTitle: 'record size',
      mark: 'line',
    }),
  ),
  chart(
    'size-vs-lookup',
    'Index size against lookup latency, one point per index interval',
    'Lower left is better: a smaller index lies to the left, a faster lookup lower; one ' +
      'panel per cache state.',
    plot(INDEX_DENSITY_METRICS.lookupLatencyNs, {
      yTitle: 'median lookup latency',
      x: byQuantity(INDEX_DENSITY_METRICS.indexBytesPerGiB, 'index size per GiB of log'),
      series: ['recordSizeBytes'],
      seriesTitle: 'record size',
      order: 'intervalBytes',
      facet: { field: 'cache', title: 'cache' },
      mark: 'point',
    }),
  ),
  chart(
    'lookup-latency',
    'Lookup latency against index interval',
    'Lower is faster; a sparser interval (to the right) steps over more bytes per lookup.',
    plot(INDEX_DENSITY_METRICS.lookupLatencyNs, {
      yTitle: 'median lookup latency',
      x: byLabel('intervalBytes', 'index interval'),
      series: ['recordSizeBytes'],
      seriesTitle: 'record size',
      facet: { field: 'cache', title: 'cache' },
      mark: 'line',
    }),
  ),
];
