/**
 * The crash trials' machinery (apps/server/src/crash*.int.test.ts): a runner process
 * (`crash-runner.ts`) fed work files, killed with SIGKILL at a random moment of its work and started
 * again on the same work; `trials` runs one kind of work that way and records its figures.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from '@pm/testkit';

const RUNNER = fileURLToPath(new URL('./crash-runner.ts', import.meta.url));

/** Per kind: trials, kills that landed before the work was finished, one batch's duration, the kind's wall time. */
export type CrashFigures = Record<
  string,
  { trials: number; killedMidWork: number; workMs: number; wallMs: number }
>;

/** A running crash-runner process. */
export interface Runner {
  child: ChildProcess;
  ready: Promise<void>;
  /** Sends a work file; resolves when the runner printed `finished` for it (never, when killed first). */
  send(file: string): Promise<void>;
  /** `done` lines printed since the last send. */
  dones(): number;
  exited: Promise<{ code: number | null; stderr: string }>;
}

/** Starts a runner on the database (and the payments settings file, for crediting). */
export function startRunner(databaseUrl: string, paymentsFile?: string): Runner {
  const child = spawn(process.execPath, [RUNNER, databaseUrl, ...(paymentsFile ? [paymentsFile] : [])], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let buffered = '';
  let stderr = '';
  let onReady = () => {};
  const ready = new Promise<void>((resolve) => {
    onReady = resolve;
  });
  const waiting: (() => void)[] = [];
  let dones = 0;
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) {
      if (line === 'ready') onReady();
      if (line === 'finished') waiting.shift()?.();
      if (line.startsWith('done ')) dones++;
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  // A write to a killed runner's stdin is expected: the error is not the test's.
  child.stdin!.on('error', () => {});
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, stderr })),
  );
  return {
    child,
    ready: Promise.race([ready, exited.then(() => {})]),
    send(file) {
      const finished = new Promise<void>((resolve) => waiting.push(resolve));
      dones = 0;
      child.stdin!.write(`${file}\n`);
      return finished;
    },
    dones: () => dones,
    exited,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms)); // sleeps: the random kill point below

/** Trials of `o.trials` kills per kind, their work files under `o.dir`. */
export function createCrashTrials(o: { dir: string; trials: number }) {
  const figures: CrashFigures = {};

  /**
   * One kind's trials. Each seeds its work and hands it to the running runner, kills that with
   * SIGKILL at a uniformly random moment within the work's measured duration, starts a new runner
   * that first does the same work again (finishing what the kill interrupted), and checks. The first
   * batch is not interrupted: it measures the duration. The last runner is shut down cleanly.
   */
  async function trials(
    kind: string,
    databaseUrl: string,
    seed: (trial: number) => Promise<object>,
    check: (trial: number, work: object) => Promise<void>,
    paymentsFile?: string,
  ): Promise<void> {
    const started = Date.now();
    let killedMidWork = 0;
    const fail = async (runner: Runner, what: string) => {
      const { code, stderr } = await runner.exited;
      return new Error(`${kind} ${what}: the runner exited with ${code}\n${stderr}`);
    };
    const finish = async (runner: Runner, file: string, what: string) => {
      const died = runner.exited.then(() => 'exited' as const);
      if ((await Promise.race([runner.send(file).then(() => 'finished' as const), died])) === 'exited') {
        throw await fail(runner, what);
      }
    };
    const write = async (trial: number) => {
      const work = await seed(trial);
      const file = join(o.dir, `${kind}-${trial}.json`);
      writeFileSync(file, JSON.stringify(work));
      return { work, file };
    };
    let runner = startRunner(databaseUrl, paymentsFile);
    await runner.ready;
    const first = await write(0);
    const t0 = Date.now();
    await finish(runner, first.file, 'trial 0');
    const workMs = Math.max(20, Date.now() - t0);
    const steps = Math.max(1, runner.dones());
    await check(0, first.work);
    for (let trial = 1; trial <= o.trials; trial++) {
      const { work, file } = await write(trial);
      let finishedFirst = false;
      void runner.send(file).then(() => {
        finishedFirst = true;
      });
      // The kill point: after a random number of committed steps, a random moment into the next one.
      const after = Math.floor(Math.random() * steps);
      // Past 10 s it is killed wherever it is.
      await waitFor(() => runner.dones() >= after || finishedFirst, {
        timeoutMs: 10_000,
        intervalMs: 5,
      }).catch(() => {});
      await sleep(Math.random() * (workMs / steps)); // sleeps: a random moment into the next step
      runner.child.kill('SIGKILL');
      const killed = await runner.exited;
      assert.equal(
        killed.code,
        null,
        `${kind} trial ${trial}: the runner failed before the kill\n${killed.stderr}`,
      );
      if (!finishedFirst) killedMidWork++;
      runner = startRunner(databaseUrl, paymentsFile);
      await runner.ready;
      await finish(runner, file, `trial ${trial} restart`);
      await check(trial, work);
    }
    runner.child.stdin!.end();
    const { code, stderr } = await runner.exited;
    assert.equal(code, 0, stderr);
    figures[kind] = { trials: o.trials, killedMidWork, workMs, wallMs: Date.now() - started };
    // Most kills must land inside the work, or the trials prove little.
    assert.ok(
      killedMidWork >= o.trials / 2,
      `${kind}: ${killedMidWork} of ${o.trials} kills landed mid-work`,
    );
  }

  return { trials, figures };
}
