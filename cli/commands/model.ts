/** `loglab model`: the course's arithmetic, computed line by line from a disk model. */
import type { Command } from 'commander';
import { parseChoice } from '../arguments.js';
import { DISK_PRESETS, type DiskModel } from '../../lab/models/models.js';
import { hddCourseLines, ssdCourseLines } from '../../lab/models/course-arithmetic.js';

function linesFor(model: DiskModel): string[] {
  const lines = model.kind === 'hdd' ? hddCourseLines(model) : ssdCourseLines(model);
  return [...lines, ...model.sources.map((source) => `  source: ${source}`)];
}

export function registerModelCommand(program: Command): void {
  program
    .command('model')
    .description("print the course's arithmetic for a modelled disk (all presets by default)")
    .option('--disk <preset>', `the disk model: ${Object.keys(DISK_PRESETS).join(', ')}`)
    .action((options: { disk?: string }) => {
      const { disk } = options;
      const ids = Object.keys(DISK_PRESETS);
      const chosen = disk === undefined ? ids : [parseChoice('--disk', disk, ids)];
      const models = Object.values(DISK_PRESETS).filter((model) => chosen.includes(model.id));
      const blocks = models.map((model) => linesFor(model).join('\n'));
      process.stdout.write(`${blocks.join('\n\n')}\n`);
    });
}
