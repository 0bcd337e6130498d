// The scale-out topology of docker-compose.scale.yml started from the project's own scripts, for
// CI (which has no Docker): N service replicas (node processes on free ports, all on one store),
// Debian's nginx balancing over them and Debian's Varnish caching in front, each with the
// configuration from docs/scale/ that compose mounts, its host names and ports written in.
// The tests start it in test/system/remote/scaleTopology.test.ts, the bench in test/bench/scaleOut.ts.
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/util/paths';

export const NGINX = '/usr/sbin/nginx';
export const VARNISHD = '/usr/sbin/varnishd';

export const topologyInstalled = (): boolean => fs.existsSync(NGINX) && fs.existsSync(VARNISHD);

export interface Topology {
  /** Varnish: what clients ask. */
  readonly cache: string;
  /** nginx: the replicas behind the balancer, uncached. */
  readonly balancer: string;
  /** Each replica, asked directly. */
  readonly replicas: readonly { readonly url: string; readonly process: ChildProcess }[];
  /** Sends every replica SIGHUP: each reloads the version its store marks current. */
  reload(): void;
  stop(): Promise<void>;
}

/** The key the topology's replicas share (OAI_TOKEN_KEY), made once a run. */
const TOPOLOGY_TOKEN_KEY = crypto.randomBytes(32).toString('base64');

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once `url` answers 200, or rejects after `ms`. */
export async function answering(url: string, ms: number, what: string): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.ok) return;
    } catch {
      // not yet
    }
    if (Date.now() > until) throw new Error(`${what} did not answer 200 at ${url} within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** docs/scale/nginx.conf with the replicas' addresses and its own port written in. */
export function nginxConf(replicas: readonly number[], port: number): string {
  const text = fs.readFileSync(path.join(PROJECT_ROOT, 'docs', 'scale', 'nginx.conf'), 'utf8');
  const servers = replicas.map((p) => `server 127.0.0.1:${p} max_fails=3 fail_timeout=5s;`);
  return text
    .replace(/server isil-ld-remote:8080[^;]*;/, servers.join('\n    '))
    .replace('listen 8080;', `listen 127.0.0.1:${port};`);
}

/** docs/scale/default.vcl with the balancer's address written in. */
export function varnishVcl(balancer: number): string {
  const text = fs.readFileSync(path.join(PROJECT_ROOT, 'docs', 'scale', 'default.vcl'), 'utf8');
  return text
    .replace('.host = "balancer";', '.host = "127.0.0.1";')
    .replace('.port = "8080";', `.port = "${balancer}";`);
}

/**
 * Starts `replicas` service processes with `env` (STORE and its settings), waits until each is
 * ready, then nginx and Varnish in front of them.
 */
export async function startTopology(
  replicas: number,
  env: Record<string, string>,
  ms = 60_000,
  command: readonly string[] = ['--import', 'tsx', path.join(PROJECT_ROOT, 'src', 'main.ts')],
): Promise<Topology> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'isil-ld-topology-'));
  fs.chmodSync(dir, 0o755);
  const children: ChildProcess[] = [];
  const stop = async () => {
    for (const child of children.reverse())
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await Promise.all(
      children.map((child) =>
        child.exitCode === null && child.signalCode === null
          ? new Promise((resolve) => {
              const killed = setTimeout(() => child.kill('SIGKILL'), 10_000);
              child.once('exit', () => resolve(clearTimeout(killed)));
            })
          : undefined,
      ),
    );
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', () => children.forEach((c) => c.kill('SIGKILL')));
  try {
    const ports = await Promise.all(Array.from({ length: replicas }, freePort));
    const list = ports.map((port) => {
      const child = spawn(process.execPath, [...command], {
        cwd: PROJECT_ROOT,
        env: {
          ...process.env,
          HOST: '127.0.0.1',
          PORT: String(port),
          DATASET: '',
          LOG_LEVEL: 'warn',
          // Each replica's dumps in the topology's folder, which `stop` removes: never the project's.
          DUMPS_DIR: path.join(dir, `dumps-${port}`),
          // The replicas share their resumption tokens' key, as docker-compose.scale.yml has them.
          OAI_TOKEN_KEY: TOPOLOGY_TOKEN_KEY,
          ...env,
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      children.push(child);
      return { url: `http://127.0.0.1:${port}`, process: child };
    });
    await Promise.all(list.map((r) => answering(`${r.url}/readyz`, ms, 'a replica')));
    const balancerPort = await freePort();
    fs.writeFileSync(path.join(dir, 'nginx.conf'), nginxConf(ports, balancerPort));
    children.push(
      spawn(NGINX, ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-g', 'daemon off;'], {
        stdio: ['ignore', 'ignore', 'inherit'],
      }),
    );
    const balancer = `http://127.0.0.1:${balancerPort}`;
    await answering(`${balancer}/healthz`, ms, 'nginx');
    const cachePort = await freePort();
    const vcl = path.join(dir, 'default.vcl');
    fs.writeFileSync(vcl, varnishVcl(balancerPort));
    fs.chmodSync(vcl, 0o644);
    children.push(
      spawn(
        VARNISHD,
        [
          '-F',
          '-a',
          `127.0.0.1:${cachePort}`,
          '-f',
          vcl,
          '-n',
          path.join(dir, 'varnish'),
          '-s',
          'malloc,256m',
        ],
        { stdio: 'ignore' },
      ),
    );
    const cache = `http://127.0.0.1:${cachePort}`;
    await answering(`${cache}/healthz`, ms, 'Varnish');
    return {
      cache,
      balancer,
      replicas: list,
      reload: () => list.forEach((r) => r.process.kill('SIGHUP')),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
