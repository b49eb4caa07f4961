import { describe, expect, it } from 'vitest';
import { experiments } from '../experiments/index.js';
import { runMain } from '../test/fixtures/main-in-process.js';

describe('loglab CLI', () => {
  it('prints help for the program and for each command', async () => {
    const help = await runMain(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/list.*\n[\s\S]*run[\s\S]*model/);
    for (const command of ['list', 'run', 'model']) {
      const commandHelp = await runMain([command, '--help']);
      expect(commandHelp.code).toBe(0);
      expect(commandHelp.stdout).toMatch(new RegExp(`Usage: loglab ${command}`));
    }
  });

  it('lists the registered experiments with the question each answers', async () => {
    const list = await runMain(['list']);
    expect(list).toMatchObject({ code: 0, stderr: '' });
    for (const experiment of experiments) {
      expect(list.stdout).toMatch(new RegExp(`^${experiment.id} +${experiment.question}`, 'm'));
    }
    const json = await runMain(['list', '--json']);
    expect(JSON.parse(json.stdout).map((row: { id: string }) => row.id))
      .toEqual(experiments.map((experiment) => experiment.id));
  });

  it("prints the seed's arithmetic for every preset, or for the one asked for", async () => {
    const all = await runMain(['model']);
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/Exos X20[\s\S]*990 PRO/);
    const exos = await runMain(['model', '--disk', 'exos-x20']);
    expect(exos.stdout).toMatch(/one turn .*8\.33 ms/);
    expect(exos.stdout).toMatch(/design A at QD16 .*275 messages a second/);
    expect(exos.stdout).not.toMatch(/990 PRO/);
    const ssd = await runMain(['model', '--disk', '990-pro']);
    expect(ssd.stdout).toMatch(/gap .*= 21 times/);
  });

  it('refuses to run an experiment it does not know, naming those it does', async () => {
    const run = await runMain(['run', 'no-such-experiment', '--quick']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^loglab: UNKNOWN_EXPERIMENT: run: unknown experiment 'no-such-experiment'; known: puzzle,/);
  });

  it.each([
    [['model', '--disk', 'floppy'], /--disk: expected one of exos-x20, 990-pro, got 'floppy'/],
    [['run', '--seconds', '0'], /--seconds: expected a number of seconds in \(0, 86400\], got '0'/],
    [['run', '--seconds', 'abc'], /--seconds: expected .* in \(0, 86400\], got 'abc'/],
    [['run', '--bogus'], /unknown option '--bogus'/],
    [['frobnicate'], /unknown command 'frobnicate'/],
  ])('answers %j with one line naming the argument and exit code 2', async (args, message) => {
    const run = await runMain(args);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(message);
  });
});
