/**
 * Runs a module of loglab in a child Node process, with variables added to its environment: its
 * TypeScript source through tsx, as the CLI runs in the repository, or its built JavaScript with
 * plain node, as the installed package runs (which has no tsx). An experiment needs this when a
 * setting only takes effect at process start: libuv reads UV_THREADPOOL_SIZE and
 * UV_USE_IO_URING once, when its loop and thread pool are first used.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { assert } from '../storage/errors.js';
import { LabError } from './errors.js';

/** The tsx loader, resolved from here so the child finds it whatever its working directory. */
function tsxLoaderUrl(): string {
  return pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
}

/** Node's arguments before the script: the tsx loader for TypeScript, nothing for JavaScript. */
function loaderArgs(script: string): string[] {
  return /\.[cm]?ts$/.test(script) ? ['--import', tsxLoaderUrl()] : [];
}

/** Resolves to the child's standard output; rejects with its last lines of standard error. */
export function runTypeScriptChild(
  script: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  timeoutMs: number,
): Promise<string> {
  assert(Number.isSafeInteger(timeoutMs), `timeoutMs must be an integer: ${timeoutMs}`);
  assert(timeoutMs > 0, `timeoutMs must be positive: ${timeoutMs}`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...loaderArgs(script), script, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: timeoutMs,
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) return resolve(Buffer.concat(stdout).toString('utf8'));
      const tail = Buffer.concat(stderr).toString('utf8').trim().split('\n').slice(-5).join('\n');
      const how = signal === null ? `exited with ${code}` : `was stopped by ${signal}`;
      reject(
        new LabError(
          'CHECK_FAILED',
          `child ${script} ${how}: ${tail}; ` +
            'run it by hand with the same arguments to see the whole error',
        ),
      );
    });
  });
}
