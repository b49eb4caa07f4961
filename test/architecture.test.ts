/**
 * The import rules of docs/architecture.md, checked from the code's own imports:
 *
 *   cli/ ──> lab/ ──> storage/        experiments/ ──> lab/, storage's two entry points
 *   cli/ ──> experiments/, reports/   reports/ ──> the results contract of lab/, lab/format.ts
 *
 * and inside storage/, its parts (STORAGE_PARTS): dump/ ──> kafka/, log/ ──> record/, segments/
 * ──> io/, queue/ ──> log/, and so on, each folder's README.md saying the same.
 *
 * Every non-test .ts file under the five folders is read; each relative import specifier
 * (`import … from`, `export … from`, `import '…'`, `import('…')`, type-only ones too) is
 * resolved to a path and held against its folder's rule. Packages (`node:fs`, `zod`) are not
 * judged. Tests and test/fixtures/ may import anything. A deliberate exception is listed below
 * with its reason, and an exception the code no longer needs fails too, so the list only
 * shrinks. No import circle may run through storage/ or lab/.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FOLDERS = ['storage', 'lab', 'cli', 'experiments', 'reports'] as const;
type Folder = (typeof FOLDERS)[number];

/**
 * What experiments may import of storage/: the public entry and the testing entry (file surgery
 * and format internals), nothing else, so that an outside program can do what they do.
 */
const STORAGE_ENTRIES: readonly string[] = ['storage/index.ts', 'storage/testing/index.ts'];

/** Files at storage/'s top that every part uses; they import only each other. */
const STORAGE_SHARED: readonly string[] = [
  'storage/errors.ts',
  'storage/units.ts',
  'storage/big-endian.ts',
  'storage/config-checks.ts',
];

/**
 * storage/'s parts, one folder each, and the other parts its files may import (besides its own
 * folder and the shared files). storage/index.ts, the public face, may import every part but
 * sim/ and testing/; nothing but testing/ imports those two (tests may).
 */
const STORAGE_PARTS: Readonly<Record<string, readonly string[]>> = {
  io: [],
  record: ['io'],
  segments: ['io'],
  log: ['io', 'record', 'segments'],
  kafka: ['io', 'segments'],
  queue: ['io', 'record', 'segments', 'log'],
  dump: ['io', 'record', 'segments', 'log', 'kafka'],
  sim: ['io'],
  testing: ['io', 'record', 'segments', 'log', 'kafka', 'queue', 'dump', 'sim'],
};

/** The part a file of storage/ is in (`log` for storage/log/log.ts); null at storage/'s top. */
function storagePartOf(file: string): string | null {
  const parts = file.split('/');
  return parts.length > 2 ? parts[1]! : null;
}

function storageAllows(from: string, target: string): boolean {
  if (!target.startsWith('storage/')) return false;
  if (STORAGE_SHARED.includes(target)) return true;
  const part = storagePartOf(from);
  const targetPart = storagePartOf(target);
  if (part === null) {
    return (
      from === 'storage/index.ts' && targetPart !== null && !['sim', 'testing'].includes(targetPart)
    );
  }
  return targetPart === part || (targetPart !== null && STORAGE_PARTS[part]!.includes(targetPart));
}

/**
 * What each folder's files may import, by the imported file's path from the repository root
 * (and, in storage/, the importing file's).
 */
const RULES: Readonly<Record<Folder, (target: string, from: string) => boolean>> = {
  storage: (target, from) => storageAllows(from, target),
  lab: (target) => target.startsWith('lab/') || target.startsWith('storage/'),
  cli: () => true,
  experiments: (target) =>
    ['experiments/', 'lab/'].some((folder) => target.startsWith(folder)) ||
    STORAGE_ENTRIES.includes(target),
  // The results contract: the document's types and reader, the chart declarations documents
  // carry, the experiments' declarations a caller may hand in for older documents, and the
  // trend document a results history hands in (data only, never the history's database); and
  // lab/format.ts, which imports nothing, so that a figure reads the same in the report as in
  // the CLI. No experiment's own file: a report draws what the documents declare.
  reports: (target) =>
    target.startsWith('reports/') ||
    [
      'lab/results.ts',
      'lab/chart-spec.ts',
      'lab/results-declarations.ts',
      'lab/history/trend-document.ts',
      'lab/format.ts',
    ].includes(target),
};

interface Exception {
  readonly from: string;
  readonly to: RegExp;
  readonly why: string;
}

/** Imports that break their folder's rule on purpose. */
const EXCEPTIONS: readonly Exception[] = [
  {
    from: 'lab/plan/plan-measured.ts',
    to: /^experiments\/metrics\/(index-density|recovery|scan-vs-lookup|segment-size)\.ts$/,
    why:
      "`loglab plan --measured` selects this machine's figures through the declared metrics " +
      'of the four experiments it reads, never by the middle of a metric name',
  },
  {
    from: 'reports/glance-plan.ts',
    to: /^lab\/(plan\/[^/]+|models\/models)\.ts$/,
    why:
      "the report's plan glance calls the functions `loglab plan` calls, on figures read " +
      'from the results documents; nothing is measured (docs/report-contract.md)',
  },
  {
    from: 'reports/glance-puzzle.ts',
    to: /^experiments\/metrics\/puzzle\.ts$/,
    why:
      "the first screen answers the puzzle, whatever else ran: it finds the puzzle's figures " +
      'through their declarations, never by the middle of a metric name',
  },
];

interface Import {
  readonly from: string;
  readonly to: string;
}

/** The specifiers a module imports, read from its text: comment lines are skipped. */
function importSpecifiers(text: string): string[] {
  const code = text
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\/\*|\*)/.test(line))
    .join('\n');
  const patterns = [
    /^(?:import|export)\b[^;]*?\bfrom\s*(['"])([^'"\n]+)\1/gm,
    /^import\s*(['"])([^'"\n]+)\1/gm,
    /(?<![\w.])import\(\s*(['"])([^'"\n]+)\1\s*\)/g,
  ];
  return patterns.flatMap((pattern) => [...code.matchAll(pattern)].map((match) => match[2]!));
}

/** The repository path a relative specifier names: `../lab/results.js` → `lab/results.ts`. */
function resolveSpecifier(from: string, specifier: string): string {
  const joined = posix.normalize(posix.join(posix.dirname(from), specifier));
  return joined.replace(/\.js$/, '.ts');
}

function sourceFiles(folder: Folder): string[] {
  return readdirSync(`${ROOT}${folder}`, { recursive: true, encoding: 'utf8' })
    .map((name) => posix.join(folder, name.split('\\').join('/')))
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .sort();
}

function importsOf(file: string): Import[] {
  return importSpecifiers(readFileSync(`${ROOT}${file}`, 'utf8'))
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => ({ from: file, to: resolveSpecifier(file, specifier) }));
}

function folderOf(file: string): Folder {
  const folder = FOLDERS.find((name) => file.startsWith(`${name}/`));
  if (folder === undefined) throw new Error(`architecture: ${file} is in none of ${FOLDERS}`);
  return folder;
}

function exceptionFor(edge: Import): Exception | undefined {
  return EXCEPTIONS.find((exception) => exception.from === edge.from && exception.to.test(edge.to));
}

const edges = FOLDERS.flatMap(sourceFiles).flatMap(importsOf);

describe('the import rules', () => {
  it("reads every folder's source files and finds their imports", () => {
    for (const folder of FOLDERS) {
      expect(sourceFiles(folder).length, folder).toBeGreaterThan(0);
      expect(
        edges.some((edge) => edge.from.startsWith(`${folder}/`)),
        folder,
      ).toBe(true);
    }
  });

  it('finds import, export-from, side-effect and dynamic imports, and skips comments', () => {
    const text = [
      "import type { A } from './a.js';",
      'import {',
      '  B,',
      "} from '../b.js';",
      "export { C } from './c.js';",
      "import './d.js';",
      "type E = import('./e.js').E;",
      " * import { F } from './f.js';",
      "// import { G } from './g.js';",
    ].join('\n');
    expect(importSpecifiers(text).sort()).toEqual([
      '../b.js',
      './a.js',
      './c.js',
      './d.js',
      './e.js',
    ]);
  });

  it('lets each folder import only what its rule allows, apart from the listed exceptions', () => {
    const broken = edges
      .filter(
        (edge) =>
          !RULES[folderOf(edge.from)](edge.to, edge.from) && exceptionFor(edge) === undefined,
      )
      .map((edge) => `${edge.from} -> ${edge.to}`);
    expect(broken, "imports that break docs/architecture.md's rules").toEqual([]);
  });

  it('lists no exception the code no longer needs', () => {
    const stale = EXCEPTIONS.filter(
      (exception) =>
        !edges.some(
          (edge) =>
            edge.from === exception.from &&
            exception.to.test(edge.to) &&
            !RULES[folderOf(edge.from)](edge.to, edge.from),
        ),
    );
    expect(stale.map((exception) => exception.from)).toEqual([]);
  });

  it('leaves cli/ imported by no other folder', () => {
    const intoCli = edges.filter(
      (edge) => edge.to.startsWith('cli/') && !edge.from.startsWith('cli/'),
    );
    expect(intoCli.map((edge) => `${edge.from} -> ${edge.to}`)).toEqual([]);
  });
});

describe("storage/'s parts", () => {
  it('holds at its top only the public face and the shared files, the rest in part folders', () => {
    const top = sourceFiles('storage').filter((file) => storagePartOf(file) === null);
    expect(top).toEqual(['storage/index.ts', ...STORAGE_SHARED].sort());
    const parts = sourceFiles('storage').map(storagePartOf);
    const folders = new Set(parts.filter((part) => part !== null));
    expect([...folders].sort()).toEqual(Object.keys(STORAGE_PARTS).sort());
  });

  it('lets a part import its own folder and the parts its rule names, never another', () => {
    expect(storageAllows('storage/log/log.ts', 'storage/record/record.ts')).toBe(true);
    expect(storageAllows('storage/log/log.ts', 'storage/errors.ts')).toBe(true);
    expect(storageAllows('storage/log/log.ts', 'storage/queue/queue.ts')).toBe(false);
    expect(storageAllows('storage/log/log.ts', 'storage/sim/sim-disk.ts')).toBe(false);
    expect(storageAllows('storage/errors.ts', 'storage/io/file-io.ts')).toBe(false);
    expect(storageAllows('storage/index.ts', 'storage/testing/index.ts')).toBe(false);
    expect(storageAllows('storage/index.ts', 'storage/queue/queue.ts')).toBe(true);
  });

  it("says in each folder's README.md what the part may import, as its rule does", () => {
    for (const [part, allowed] of Object.entries(STORAGE_PARTS)) {
      const readme = readFileSync(`${ROOT}storage/${part}/README.md`, 'utf8');
      const at = readme.indexOf('\nMay import:');
      expect(at, `storage/${part}/README.md says what it may import`).toBeGreaterThan(0);
      const paragraph = readme.slice(at + 1).split('\n\n')[0]!;
      const named = [...paragraph.matchAll(/`([a-z]+)\/`/g)].map((match) => match[1]!);
      expect(named.sort(), part).toEqual([...allowed].sort());
    }
  });
});

/** Each folder's import graph: a non-test file to the files of the same folder it imports. */
function importGraph(folder: Folder): Map<string, string[]> {
  const files = new Set(sourceFiles(folder));
  const local = (file: string): string[] =>
    importsOf(file)
      .map((edge) => edge.to)
      .filter((to) => files.has(to));
  return new Map([...files].map((file) => [file, local(file)]));
}

/**
 * The import circles of `graph`: each the files that reach one another through imports (a
 * strongly connected component of two files or more, or a file that imports itself), sorted.
 */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (file: string): void => {
    order.set(file, order.size);
    low.set(file, order.get(file)!);
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!order.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(file, Math.min(low.get(file)!, order.get(next)!));
    }
    if (low.get(file) !== order.get(file)) return;
    const circle = stack.splice(stack.indexOf(file));
    if (circle.length > 1 || (graph.get(file) ?? []).includes(file)) found.push(circle.sort());
  };
  for (const file of graph.keys()) if (!order.has(file)) visit(file);
  return found;
}

describe('import circles', () => {
  it('finds a circle, type-only imports included, and nothing else', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', []],
      ['e.ts', ['e.ts']],
    ]);
    expect(circles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['e.ts']]);
    expect(importSpecifiers("import type { Log } from './log.js';")).toEqual(['./log.js']);
  });

  for (const folder of ['storage', 'lab'] as const) {
    it(`finds none in ${folder}/`, () => {
      expect(circles(importGraph(folder))).toEqual([]);
    });
  }
});
