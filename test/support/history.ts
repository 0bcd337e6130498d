// A registry with a past, for the tests of everything that reads history (Memento, the feed,
// OAI-PMH): versions of generated institutions written by the loader's own commit step into a
// snapshot and its change log, at fixed times, and an app serving the last with its history.
import fs from 'node:fs';
import path from 'node:path';
import { createLogger } from '../../src/log';
import { createApp } from '../../src/http/app';
import { embeddedHistory } from '../../src/embedded/history';
import { generate } from '../../src/load/generated';
import { loadSources } from '../../src/load/loadSources';
import { commitVersion, type Committed } from '../../src/load/commitVersion';
import { PREFIXES } from '../../src/rdf/namespaces';
import { Service } from '../../src/serving/service';
import { tempDir, testConfig } from '../support';

export const HISTORY_BASE = 'https://ld.zdb-services.de';

/** The ISIL of a generated institution's N-Triples. */
export const isilOf = (block: string): string => /organisations\/([^>]+)>/.exec(block)![1]!;

const renamed = (block: string, mark: string) =>
  block.replace('(synthetisch)"', `(synthetisch) ${mark}"`);

/** `block` withdrawn, naming `successor`'s institution. */
function withdrawn(block: string, successor: string): string {
  const iri = `<${HISTORY_BASE}/resource/organisations/${isilOf(block)}>`;
  const next = `<${HISTORY_BASE}/resource/organisations/${isilOf(successor)}>`;
  return (
    `${block}${iri} <${PREFIXES.owl}deprecated> "true"^^<http://www.w3.org/2001/XMLSchema#boolean> .\n` +
    `${iri} <${PREFIXES.dcterms}isReplacedBy> ${next} .\n`
  );
}

/**
 * Five versions of `count` generated institutions (N-Triples, one string each), each a kind of
 * change: (1) all created; (2) the third renamed, the fifth deleted, one created; (3) the seventh
 * withdrawn with the eighth as successor, the first renamed; (4) the third renamed again; (5) a
 * rollback to the sources of (2).
 */
export function registryVersions(count = 40): string[] {
  const all = [...generate({ count: count + 1, seed: 11, base: HISTORY_BASE })];
  const base = all.slice(0, count);
  const extra = all[count]!;
  const v1 = base;
  const v2 = base
    .map((b, i) => (i === 2 ? renamed(b, '(umbenannt)') : b))
    .filter((_, i) => i !== 4)
    .concat(extra);
  const v3 = v2.map((b, i) => (i === 0 ? renamed(b, '(neu)') : i === 5 ? withdrawn(b, v2[6]!) : b));
  const v4 = v3.map((b, i) => (i === 2 ? b.replace('(umbenannt)"', '(wieder umbenannt)"') : b));
  return [v1, v2, v3, v4, v2].map((blocks) => blocks.join(''));
}

/** The times of the versions: a day apart, from 1 March 2025 at noon (UTC). */
export const VERSION_TIMES = [0, 1, 2, 3, 4].map((day) => Date.UTC(2025, 2, 1 + day, 12) / 1000);

export interface HistoryFixture {
  readonly dir: string;
  /** The snapshot of the last version, and the folder of its change log. */
  readonly dataset: string;
  readonly historyDir: string;
  /** What each version's commit made. */
  readonly committed: readonly Committed[];
}

/**
 * The versions written one after another, as `npm run load` writes them, at VERSION_TIMES; the log
 * keeps `keepVersions` versions (0: all).
 */
export async function writeHistory(
  versions = registryVersions(),
  keepVersions = 0,
): Promise<HistoryFixture> {
  const dir = tempDir();
  const dataset = path.join(dir, 'dataset.nq');
  const historyDir = path.join(dir, 'history');
  const target = { dataset, baseIri: HISTORY_BASE, historyDir, historyKeepVersions: keepVersions };
  const committed: Committed[] = [];
  for (const [i, text] of versions.entries()) {
    const source = path.join(dir, `v${i + 1}.nt`);
    fs.writeFileSync(source, text);
    const loaded = await loadSources([source], { baseIri: HISTORY_BASE });
    try {
      committed.push(
        await commitVersion(loaded, target, { now: new Date(VERSION_TIMES[i]! * 1000) }),
      );
    } finally {
      loaded.dataset.free();
    }
  }
  return { dir, dataset, historyDir, committed };
}

/** The app serving the fixture's last version with its history, as the server would. */
export async function historyApp(fixture: HistoryFixture, env: Record<string, string> = {}) {
  const config = testConfig({
    BASE_IRI: HISTORY_BASE,
    DATASET: fixture.dataset,
    HISTORY_DIR: fixture.historyDir,
    ...env,
  });
  const { dataset } = await loadSources([fixture.dataset], { baseIri: HISTORY_BASE });
  dataset.history = await embeddedHistory(
    config,
    { sources: [fixture.dataset], options: { baseIri: HISTORY_BASE }, snapshot: true },
    dataset,
  );
  const service = new Service(config);
  service.use(dataset);
  const app = createApp({ service, logger: createLogger('silent') });
  return { app, service, config, dataset };
}
