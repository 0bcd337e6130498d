// A mirror by OAI-PMH (docs/operations.md "A mirror of another instance"): a second instance, made
// from a full harvest of the first's own /oai (rdf), follows three versions of the first (each
// with creations, updates, withdrawals and deletions) by `npm run update --metadata-prefix rdf`,
// each run harvesting only what that version changed; after each, both serve the same
// Dataset-Version and, for every ISIL either ever had, the same answer and the same graph.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Parser, type Quad } from 'n3';
import { generateHistory, sourceFile } from '../../cli/generateHistory';
import { snapshotPointer } from '../../src/load/commit/commitVersion';
import { PROJECT_ROOT } from '../../src/util/paths';
import { BASE, sameGraph, tempDir } from '../support';
import { needsXmllint, oaiSchemaErrors } from '../support/oaiSchema';
import { startServerProcess, type ServerProcess } from '../support/serverProcess';

/** More than a page of records (100), so the first harvest takes a resumption token. */
const COUNT = 150;
const VERSIONS = 4;
const REPOSITORY = 'oai:ld.zdb-services.de:';

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** What one version's load logged as its events (the loader's `change log:` line). */
interface Events {
  readonly created: number;
  readonly updated: number;
  readonly withdrawn: number;
  readonly deleted: number;
}

function eventsOf(stdout: string): Events {
  const m = /(\d+) created, (\d+) updated, (\d+) withdrawn, (\d+) deleted/.exec(stdout);
  assert.ok(m, stdout);
  const [created, updated, withdrawn, deleted] = m.slice(1).map(Number);
  return { created: created!, updated: updated!, withdrawn: withdrawn!, deleted: deleted! };
}

describe('a mirror by OAI-PMH follows three versions of the first', function () {
  this.timeout(600_000);
  let dir: string;
  let first: ServerProcess;
  let mirror: ServerProcess;
  /** Every ISIL of every version's sources: what both are asked for. */
  const isils = new Set<string>();
  const noteIsils = (source: string) => {
    for (const m of fs.readFileSync(source, 'utf8').matchAll(/organisations\/([^>]+)>/g))
      isils.add(m[1]!);
  };
  const instance = (name: 'first' | 'mirror') => ({
    DATASET: path.join(dir, name, 'dataset.nq'),
    HISTORY_DIR: path.join(dir, name),
    BASE_IRI: BASE,
  });
  // Not spawnSync: the servers' logs are read on this process's event loop meanwhile.
  const run = (script: string, args: string[], env: Record<string, string>) =>
    new Promise<Run>((resolve) => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', path.join(PROJECT_ROOT, 'cli', script), ...args],
        { cwd: PROJECT_ROOT, env: { ...process.env, LOG_LEVEL: 'silent', ...env } },
      );
      let [stdout, stderr] = ['', ''];
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.once('close', (status) => resolve({ status, stdout, stderr }));
    });
  const oai = () => `http://127.0.0.1:${first.port}/oai`;
  const versionOf = async (server: ServerProcess) =>
    ((await (await fetch(`http://127.0.0.1:${server.port}/readyz`)).json()) as { version: string })
      .version;
  /** Waits until `server` serves the version the snapshot of `name` now names. */
  const reloaded = async (server: ServerProcess, name: 'first' | 'mirror') => {
    const { version } = snapshotPointer(instance(name).DATASET, BASE)!;
    await server.line((l) => l.msg === 'reload finished' && l.version === version, 120_000);
  };

  /** Loads version `n` of the sources into the first, and has the first serve it. */
  async function firstLoads(n: number): Promise<Events> {
    const source = sourceFile(path.join(dir, 'sources'), n);
    noteIsils(source);
    const loaded = await run('loadCommand.ts', ['--quiet', source], instance('first'));
    assert.equal(loaded.status, 0, loaded.stderr);
    process.kill(first.pid, 'SIGHUP');
    await reloaded(first, 'first');
    return eventsOf(loaded.stdout);
  }

  /** The mirror's `npm run update` against the first, once the mirror serves its version. */
  async function mirrorUpdates(): Promise<Run> {
    const updated = await run(
      'update.ts',
      [
        ...['--oai', oai(), '--metadata-prefix', 'rdf', '--overlap', '0', '--rate', '100'],
        ...['--out', path.join(dir, 'mirror', 'update.rdf'), '--pid', String(mirror.pid)],
        '--quiet',
      ],
      instance('mirror'),
    );
    assert.equal(updated.status, 0, updated.stderr + updated.stdout);
    await reloaded(mirror, 'mirror');
    return updated;
  }

  /** Each ISIL's `.nt` answer of `server`: its status, where it leads, and its graph. */
  async function answers(server: ServerProcess) {
    const found = new Map<string, { status: number; location: string | null; quads: Quad[] }>();
    for (const isil of [...isils].sort()) {
      const res = await fetch(`http://127.0.0.1:${server.port}/data/organisations/${isil}.nt`, {
        redirect: 'manual',
      });
      const text = await res.text();
      const quads = res.headers.get('content-type')?.startsWith('application/n-triples')
        ? new Parser({ format: 'N-Triples' }).parse(text)
        : [];
      const location = res.headers.get('location');
      // Each names its own origin: where it leads is the path.
      found.set(isil, {
        status: res.status,
        location: location && new URL(location).pathname,
        quads,
      });
    }
    return found;
  }

  /** The first's answers, as last compared. */
  let served: Awaited<ReturnType<typeof answers>>;

  async function assertSame(): Promise<void> {
    assert.equal(await versionOf(mirror), await versionOf(first));
    const [ours, theirs] = [await answers(mirror), await answers(first)];
    served = theirs;
    for (const [isil, expected] of theirs) {
      const actual = ours.get(isil)!;
      assert.equal(actual.status, expected.status, isil);
      assert.equal(actual.location, expected.location, isil);
      assert.ok(sameGraph(actual.quads, expected.quads), `${isil}: another graph`);
    }
  }

  const rounds: { events: Events; update: Run }[] = [];

  before(async () => {
    dir = tempDir();
    const scratch = path.join(dir, 'generated');
    fs.mkdirSync(scratch);
    for (const name of ['first', 'mirror', 'sources']) fs.mkdirSync(path.join(dir, name));
    // A share high enough that each version withdraws and deletes some.
    generateHistory({
      count: COUNT,
      seed: 3,
      base: BASE,
      versions: VERSIONS,
      change: 0.2,
      snapshot: path.join(scratch, 'dataset.nq'),
      historyDir: scratch,
      sourcesDir: path.join(dir, 'sources'),
    });
    const source = sourceFile(path.join(dir, 'sources'), 1);
    noteIsils(source);
    const loaded = await run('loadCommand.ts', ['--quiet', source], instance('first'));
    assert.equal(loaded.status, 0, loaded.stderr);
    first = await startServerProcess({ env: instance('first') });
    // The mirror starts from a full harvest of the first, loaded in full.
    const whole = path.join(dir, 'mirror', 'whole.rdf');
    const harvested = await run(
      'harvest.ts',
      ['--oai', oai(), '--metadata-prefix', 'rdf', '--out', whole, '--rate', '100', '--quiet'],
      {},
    );
    assert.equal(harvested.status, 0, harvested.stderr);
    const mirrored = await run('loadCommand.ts', ['--quiet', whole], instance('mirror'));
    assert.equal(mirrored.status, 0, mirrored.stderr);
    mirror = await startServerProcess({ env: instance('mirror') });
  });

  after(async () => {
    for (const server of [first, mirror]) {
      server?.child.kill('SIGTERM');
      await server?.exit;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('starts equal to the first, from a full harvest', assertSame);

  for (const n of [2, 3, 4])
    describe(`version ${n} of the first`, () => {
      before(async () => {
        const events = await firstLoads(n);
        rounds.push({ events, update: await mirrorUpdates() });
      });

      it('changes institutions, and withdraws and deletes some', () => {
        const { events } = rounds.at(-1)!;
        assert.ok(
          events.updated > 0 && events.withdrawn > 0 && events.deleted > 0,
          `${JSON.stringify(events)}`,
        );
      });

      it('the mirror harvests exactly what it changed', () => {
        const { events, update } = rounds.at(-1)!;
        const { created, updated, withdrawn, deleted } = events;
        assert.match(
          update.stdout,
          new RegExp(
            `^harvested ${created + updated + withdrawn} records and ${deleted} deletions `,
            'm',
          ),
        );
      });

      it('the mirror serves the same version, answers and graphs', assertSame);
    });

  describe('after the three versions', () => {
    it('the last compared answers hold live, withdrawn (301) and gone (410) ISILs', () => {
      const statuses = new Set([...served.values()].map((a) => a.status));
      assert.deepEqual([...statuses].sort(), [200, 301, 410]);
    });

    it('sends a withdrawn ISIL as a record naming its successor, a deleted one as a header', async function () {
      needsXmllint.call(this);
      const getRecord = async (isil: string, prefix: string) => {
        const res = await fetch(
          `${oai()}?verb=GetRecord&metadataPrefix=${prefix}&identifier=${REPOSITORY}${isil}`,
        );
        const xml = await res.text();
        assert.equal(oaiSchemaErrors(xml), '', xml);
        return xml;
      };
      const answered = [...served];
      const [withdrawn, answer] = answered.find(([, a]) => a.status === 301)!;
      const successor = /\/organisations\/([^/]+)\.nt$/.exec(answer.location!)![1]!;
      const record = await getRecord(withdrawn, 'rdf');
      assert.doesNotMatch(record, /status="deleted"/);
      assert.match(record, /deprecated/);
      assert.match(
        record,
        new RegExp(`isReplacedBy rdf:resource="[^"]*/organisations/${successor}"`),
      );
      assert.doesNotMatch(await getRecord(withdrawn, 'oai_dc'), /status="deleted"/);
      const deleted = answered.find(([, a]) => a.status === 410 && a.quads.length === 0)![0];
      assert.match(await getRecord(deleted, 'rdf'), /<header status="deleted">/);
    });
  });
});
