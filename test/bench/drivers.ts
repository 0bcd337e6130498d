// The load generators of the bench scripts (bench.ts, staffLoad.ts): wrk where it is installed,
// autocannon otherwise, each driving random paths (and headers) from a list and giving the same
// figures.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { PROJECT_ROOT } from '../../src/util/paths';
import { fetchThirdParty, FETCH_COMMAND, thirdPartyDir } from '../../src/util/thirdParty';

/** The defaults runtime.sh gives (`: "${NAME:=value}"`), by name. */
export function runtimeDefaults(): Record<string, string> {
  const script = fs.readFileSync(path.join(PROJECT_ROOT, 'runtime.sh'), 'utf8');
  return Object.fromEntries(
    [...script.matchAll(/^: "\$\{(\w+):=([^}]*)\}"$/gm)].map(([, name, value]) => [name!, value!]),
  );
}

/**
 * What the service's own launcher (runtime.sh: the image's entry point, `npm start`) sets in a
 * server's environment beyond its settings: every bench starts its servers and loads with it, so
 * that they measure the service as it is run (docs/operations.md).
 */
export const AS_DEPLOYED: Readonly<Record<string, string>> = runtimeDefaults();

/**
 * A folder of its own for a bench server's dumps (DUMPS_DIR), removed when the bench exits: a bench
 * server makes the dumps a deployed one makes, and writes nothing into the project.
 */
export function benchDumps(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'isil-ld-bench-dumps-'));
  // One listener for them all: a bench starting a server a turn would add one a turn.
  if (dumpFolders.length === 0)
    process.once('exit', () => {
      for (const folder of dumpFolders) fs.rmSync(folder, { recursive: true, force: true });
    });
  dumpFolders.push(dir);
  return dir;
}
const dumpFolders: string[] = [];

/**
 * The third-party files the benches read (the bundled dataset, the real lists), fetched as
 * `npm run fetch-data` does, from THIRD_PARTY_DIR or their origins; a bench that cannot have them
 * stops with one line saying which and how to fetch them.
 */
export async function thirdPartyForBench(): Promise<void> {
  const from = thirdPartyDir();
  const outcomes = await fetchThirdParty(from ? { from } : {});
  const failed = outcomes.flatMap((o) => (o.outcome === 'failed' ? [o.reason] : []));
  if (failed.length === 0) return;
  process.stderr.write(
    `bench: ${failed.length} third-party files missing (${failed[0]}): ${FETCH_COMMAND}, or THIRD_PARTY_DIR=<folder>, fetches them\n`,
  );
  process.exit(2);
}

export interface Target {
  readonly path: string;
  readonly headers?: Record<string, string>;
  /** GET unless said: a POST carries `body`. */
  readonly method?: 'GET' | 'POST';
  readonly body?: string;
}

export interface Result {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly errors: number;
  readonly requests: number;
}

export const hasWrk = spawnSync('sh', ['-c', 'command -v wrk']).status === 0;

/** autocannon for `seconds`, or for `amount` requests. */
export async function driveAutocannon(
  base: string,
  targets: readonly Target[],
  seconds: number,
  connections: number,
  amount?: number,
): Promise<Result> {
  const result = await autocannon({
    url: base,
    connections,
    ...(amount === undefined ? { duration: seconds } : { amount }),
    requests: [
      {
        setupRequest: (req) => {
          const t = targets[Math.floor(Math.random() * targets.length)]!;
          return {
            ...req,
            path: t.path,
            headers: { ...req.headers, ...t.headers },
            ...(t.method ? { method: t.method } : {}),
            ...(t.body === undefined ? {} : { body: t.body }),
          };
        },
      },
    ],
  });
  const statusOk = result['2xx'] + result['3xx'];
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx - result['3xx'],
    requests: statusOk + result.non2xx,
  };
}

/** wrk (two threads) for `seconds`, its Lua list of targets written to `listFile`. */
export function driveWrk(
  base: string,
  targets: readonly Target[],
  seconds: number,
  connections: number,
  listFile: string,
): Result {
  // No `response` callback: wrk counts answers of status 400 and above in `errors.status` by
  // itself, and with the callback it builds a Lua table of every answer's headers, which on a
  // two-core machine takes CPU from the server in proportion to the headers it sends (a document's
  // fifteen against the baselines' three), so the load generator measured itself.
  // LuaJIT takes at most 65,536 constants in one function: the list is one table literal.
  if (targets.length > 60_000)
    throw new Error(`wrk: at most 60,000 targets in one list, not ${targets.length}`);
  const lua = (text: string) => JSON.stringify(text);
  const rows = targets.map((t) => {
    const headers = Object.entries(t.headers ?? {}).map(([k, v]) => `[${lua(k)}] = ${lua(v)}`);
    return `{${lua(t.path)}, {${headers.join(', ')}}, ${lua(t.method ?? 'GET')}, ${t.body === undefined ? 'nil' : lua(t.body)}}`;
  });
  fs.writeFileSync(
    listFile,
    `local targets = {${rows.join(',\n')}}
request = function()
  local t = targets[math.random(#targets)]
  return wrk.format(t[3], t[1], t[2], t[4])
end
done = function(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout
  io.write(string.format("RESULT %f %f %f %d %d\\n", summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(99) / 1000, errors, summary.requests))
end
`,
  );
  const out = execFileSync(
    'wrk',
    [
      ...['-t', String(Math.min(2, connections)), '-c', String(connections), '-d', `${seconds}s`],
      ...['--timeout', '5s', '-s', listFile, base],
    ],
    { encoding: 'utf8', timeout: (seconds + 30) * 1000 },
  );
  const [rps, p50, p99, errors, requests] = /RESULT (\S+) (\S+) (\S+) (\d+) (\d+)/
    .exec(out)!
    .slice(1)
    .map(Number) as [number, number, number, number, number];
  return { rps, p50, p99, errors, requests };
}
