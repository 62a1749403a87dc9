/**
 * Diagnostics of `fleet.ts` (FLEET_PROFILE=file.cpuprofile): a CPU profile of the node over its
 * idle window, taken through its inspector (the node then runs with `--inspect=127.0.0.1:PORT`),
 * saved for Chrome DevTools, and the functions with the most samples printed. The profiler costs CPU
 * itself: a profiled run's idle CPU is not a figure for docs/benchmarks.md.
 */
import { writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

/** Sends CDP commands over one WebSocket, answers by id. */
async function connect(port: number): Promise<{ call(method: string): Promise<unknown>; close(): void }> {
  const list = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  const ws = new WebSocket(list[0]!.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  const waiting = new Map<number, (result: unknown) => void>();
  ws.onmessage = (e) => {
    const msg = JSON.parse(String(e.data)) as { id?: number; result?: unknown };
    if (msg.id !== undefined) waiting.get(msg.id)?.(msg.result);
  };
  let next = 1;
  return {
    call: (method) =>
      new Promise((resolve) => {
        const id = next++;
        waiting.set(id, resolve);
        ws.send(JSON.stringify({ id, method }));
      }),
    close: () => ws.close(),
  };
}

/** Profiles the process behind inspector `port` for `seconds`, writes `file`, prints the top functions. */
export async function profileNode(port: number, seconds: number, file: string): Promise<void> {
  const cdp = await connect(port);
  await cdp.call('Profiler.enable');
  await cdp.call('Profiler.start');
  await sleep(seconds * 1000);
  const { profile } = (await cdp.call('Profiler.stop')) as { profile: { nodes: ProfileNode[] } };
  cdp.close();
  writeFileSync(file, JSON.stringify(profile));
  const self = new Map<string, number>();
  let total = 0;
  for (const n of profile.nodes) {
    const hits = n.hitCount ?? 0;
    total += hits;
    const where = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber + 1}`;
    self.set(where, (self.get(where) ?? 0) + hits);
  }
  const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, 25);
  console.log(`CPU profile of the idle node (${total} samples), ${file}:`);
  for (const [where, hits] of top)
    console.log(`  ${((hits / total) * 100).toFixed(1).padStart(5)} %  ${where}`);
}
