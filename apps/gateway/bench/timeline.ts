// Where a concurrency-1 request's time goes, read from a loopback capture: every packet that carries
// bytes or a SYN/FIN between the customer, the proxy, the tunnel and the target, in order, one
// request per customer SYN; for the most common sequence, the median time of each step.
//   capture: taskset -c 1 tcpdump -i lo -s 96 --time-stamp-precision=nano -w F.pcap tcp
//            (while bench.mjs --tests rate --rate-conc 1 runs)
//   usage:   node apps/gateway/bench/timeline.ts F.pcap SOCKS_PORT TUNNEL_PORT TARGET_PORT
// Labels: C customer to proxy, S proxy to customer, A agent to gateway, G gateway to agent,
// T agent (or ssh client) to target, R target to agent; then the payload length, `syn` or `fin`.
// For the `ssh -R` peer, TUNNEL_PORT is sshd's port (12222) and the ssh client plays the agent.
import { execFileSync } from 'node:child_process';

interface Packet {
  us: number;
  label: string;
}

const [file, socksPort, tunnelPort, targetPort] = process.argv.slice(2);
if (!file || !socksPort || !tunnelPort || !targetPort) {
  console.error('usage: node timeline.ts F.pcap SOCKS_PORT TUNNEL_PORT TARGET_PORT');
  process.exit(2);
}

const ROLES: [string, string, string][] = [
  ['dst', socksPort, 'C'],
  ['src', socksPort, 'S'],
  ['dst', tunnelPort, 'A'],
  ['src', tunnelPort, 'G'],
  ['dst', targetPort, 'T'],
  ['src', targetPort, 'R'],
];
const LINE =
  /^(\d+)\.(\d+) IP 127\.\d+\.\d+\.\d+\.(\d+) > 127\.\d+\.\d+\.\d+\.(\d+): Flags \[([^\]]*)\].*length (\d+)/;

/** The capture's packets that matter, as labels with microsecond times. */
function readPackets(): Packet[] {
  const text = execFileSync('tcpdump', ['-r', file!, '-nn', '-tt', '--nano'], {
    maxBuffer: 1 << 30,
    stdio: ['ignore', 'pipe', 'ignore'],
  }).toString();
  const packets: Packet[] = [];
  for (const line of text.split('\n')) {
    const m = LINE.exec(line);
    if (!m) continue;
    const [, sec, nsec, src, dst, flags, len] = m as unknown as string[];
    const role = ROLES.find(([side, port]) => (side === 'src' ? src : dst) === port);
    if (!role || flags === 'S.') continue;
    const us = (Number(sec) % 100_000) * 1e6 + Number(nsec) / 1e3;
    if (flags === 'S') packets.push({ us, label: `${role[2]}syn` });
    if (Number(len) > 0) packets.push({ us, label: role[2] + len });
    if (flags!.includes('F')) packets.push({ us, label: `${role[2]}fin` });
  }
  return packets;
}

/** One list per customer connection, from its SYN to the next one's. */
function splitRequests(packets: Packet[]): Packet[][] {
  const requests: Packet[][] = [];
  let current: Packet[] | null = null;
  for (const p of packets) {
    if (p.label === 'Csyn') {
      if (current) requests.push(current);
      current = [p];
    } else current?.push(p);
  }
  return requests;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? Number.NaN;

const requests = splitRequests(readPackets());
const bySequence = new Map<string, Packet[][]>();
for (const r of requests) {
  const key = r.map((p) => p.label).join(' ');
  const list = bySequence.get(key);
  if (list) list.push(r);
  else bySequence.set(key, [r]);
}
const ranked = [...bySequence.entries()].sort((a, b) => b[1].length - a[1].length);
if (!ranked.length) {
  console.error('no customer SYN on that port in the capture');
  process.exit(1);
}
for (const [key, list] of ranked.slice(0, 3)) console.log(`${list.length} requests: ${key}`);
const [, common] = ranked[0]!;
const first = common[0]!;
for (let i = 1; i < first.length; i++) {
  const step = median(common.map((r) => r[i]!.us - r[i - 1]!.us));
  console.log(
    `${first[i - 1]!.label.padEnd(6)} -> ${first[i]!.label.padEnd(6)} ${step.toFixed(1).padStart(7)} µs`,
  );
}
const span = (r: Packet[]) => r[r.length - 1]!.us - r[0]!.us;
console.log(
  `first to last packet: median ${median(common.map(span)).toFixed(1)} µs (${requests.length} requests)`,
);
