// Bench steps of the hardening, run by bench.ts against a server it started: a pipelined
// flood of uncached documents while another client asks for a cached one, and the response
// cache's real memory against its bound after every document was asked for in every format and
// content coding.
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The process's resident memory in MB (Linux). */
export function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024);
}

/** The value at quantile `q` of `xs` (nearest rank). */
function quantile(xs: readonly number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN;
}

/**
 * Writes `paths` pipelined on one connection, as fast as the socket takes them, and resolves with
 * the number of answers once every one came (or the connection ended).
 */
function pipelined(host: string, port: number, paths: readonly string[]): Promise<number> {
  return new Promise((resolve) => {
    const socket = net.connect(port, host);
    let answered = 0;
    let pending: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
      for (;;) {
        const head = pending.indexOf('\r\n\r\n');
        if (head < 0) break;
        const headers = pending.subarray(0, head).toString('latin1');
        const length = Number(/content-length: *(\d+)/i.exec(headers)?.[1] ?? 0);
        if (pending.length < head + 4 + length) break;
        pending = pending.subarray(head + 4 + length);
        answered++;
      }
      if (answered === paths.length) socket.end();
    });
    socket.on('close', () => resolve(answered));
    socket.on('error', () => undefined);
    // In slices of a few hundred requests, each written when the socket has taken the last: a
    // server that stops reading (as it should) holds the client back, not the client's memory.
    let at = 0;
    const write = () => {
      while (at < paths.length) {
        const slice = paths.slice(at, at + 500);
        at += slice.length;
        const text = slice.map((p) => `GET ${p} HTTP/1.1\r\nHost: bench\r\n\r\n`).join('');
        if (!socket.write(text)) return void socket.once('drain', write);
      }
    };
    socket.once('connect', write);
  });
}

export interface FloodResult {
  readonly requests: number;
  readonly answered: number;
  readonly seconds: number;
  /** Latencies of the separate client's cached requests, ms. */
  readonly probes: number;
  readonly probeP50: number;
  readonly probeP99: number;
  readonly peakRssMb: number;
}

/**
 * `connections` connections pipelining `requests` GETs in all for `paths` (round robin), while a
 * separate client asks for `probe` (a cached document) one request after the other; the server's
 * RSS is sampled every 50 ms.
 */
export async function pipelinedFlood(options: {
  host: string;
  port: number;
  pid: number;
  paths: readonly string[];
  probe: string;
  connections?: number;
  requests?: number;
}): Promise<FloodResult> {
  const { host, port, pid, paths, probe } = options;
  const connections = options.connections ?? 8;
  const requests = options.requests ?? 50_000;
  let peak = rssOf(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 50);
  const started = performance.now();
  const each = Math.ceil(requests / connections);
  const floods = Array.from({ length: connections }, (_, c) =>
    pipelined(
      host,
      port,
      Array.from({ length: each }, (_, i) => paths[(c * each + i) % paths.length]!),
    ),
  );
  let flooding = true;
  const latencies: number[] = [];
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const probing = (async () => {
    while (flooding) {
      const t = performance.now();
      await new Promise<void>((resolve) => {
        const req = http.get({ host, port, path: probe, agent }, (res) => {
          res.resume();
          res.on('end', resolve);
        });
        req.on('error', () => resolve());
      });
      latencies.push(performance.now() - t);
      await sleep(5);
    }
  })();
  const answered = (await Promise.all(floods)).reduce((a, b) => a + b, 0);
  flooding = false;
  await probing;
  agent.destroy();
  clearInterval(sampler);
  return {
    requests: each * connections,
    answered,
    seconds: (performance.now() - started) / 1000,
    probes: latencies.length,
    probeP50: quantile(latencies, 0.5),
    probeP99: quantile(latencies, 0.99),
    peakRssMb: peak,
  };
}

/**
 * Asks for every one of `paths` in each content coding, `concurrency` requests at a time over
 * keep-alive connections, bodies discarded; resolves with the statuses counted.
 */
export async function everyDocument(options: {
  host: string;
  port: number;
  paths: readonly string[];
  concurrency?: number;
}): Promise<Map<number, number>> {
  const { host, port, paths } = options;
  const concurrency = options.concurrency ?? 16;
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const codings = ['identity', 'gzip', 'br'];
  const statuses = new Map<number, number>();
  let next = 0;
  const total = paths.length * codings.length;
  const worker = async () => {
    while (next < total) {
      const n = next++;
      const path = paths[n % paths.length]!;
      const coding = codings[Math.floor(n / paths.length)]!;
      const status = await new Promise<number>((resolve) => {
        const req = http.get(
          { host, port, path, agent, headers: { 'Accept-Encoding': coding } },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', () => resolve(0));
      });
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  agent.destroy();
  return statuses;
}
