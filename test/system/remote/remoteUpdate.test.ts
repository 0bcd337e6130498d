// `load --update` into a remote store (Virtuoso, through its bulk loader): a day's changes
// (created, updated, withdrawn, deleted) applied over the store's current version give the
// documents, the version and the events a full load of the merged sources gives, while only the
// changed descriptions cross the network (the others are copied inside the store); an update
// made over a version that is no longer the store's current one is refused, the store and the
// snapshot left as they were.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { isomorphic } from 'rdf-isomorphic';
import { loadRemote, transportOf } from '../../../cli/remote';
import { updateRemote } from '../../../cli/remoteUpdate';
import { commitVersion, type Committed } from '../../../src/load/commit/commitVersion';
import { loadSources } from '../../../src/load/loadSources';
import { prepareUpdate } from '../../../src/update/applyUpdate';
import type { Dataset } from '../../../src/store/dataset';
import { listVersions } from '../../../src/store/remote/registry';
import { readStoredHistory } from '../../../src/store/remote/remoteHistory';
import { SparqlStore } from '../../../src/store/remote/sparqlStore';
import type { Written } from '../../../src/store/remote/versionWriter';
import { bulkTarget, sharedVirtuoso, type Virtuoso } from '../../servers/virtuoso';
import { BASE, needsStore, tempDir } from '../../support';
import { updateSet } from '../../support/updateSet';

const COUNT = 600;
const FIRST = new Date('2026-11-30T10:00:00Z');
const SECOND = new Date('2026-12-01T10:00:00Z');

/** A full load into an embedded snapshot (with its change log) at `dir`. */
async function fullLoad(file: string, dir: string, now: Date): Promise<Committed> {
  const loaded = await loadSources([file], { baseIri: BASE, validate: true });
  try {
    const target = {
      dataset: path.join(dir, 'dataset.nq'),
      baseIri: BASE,
      historyDir: dir,
      historyKeepVersions: 0,
    };
    return await commitVersion(loaded, target, { now });
  } finally {
    loaded.dataset.free();
  }
}

/** The update of `file` over the snapshot `dataset` into `virtuoso`. */
async function update(
  file: string,
  dataset: string,
  virtuoso: Virtuoso,
): Promise<Written & { triples: number }> {
  const prepared = await prepareUpdate([file], dataset, { baseIri: BASE, validate: true });
  try {
    const config = { baseIri: BASE, dataset };
    return await updateRemote(prepared, config, bulkTarget(virtuoso), [file], SECOND);
  } finally {
    prepared.loaded.canonical?.snapshot?.discard();
    prepared.loaded.dataset.free();
  }
}

describe('load --update into a remote store', function () {
  before(needsStore('remote'));
  this.timeout(300_000);
  const set = updateSet(COUNT);
  let virtuoso: Virtuoso;
  let dir: string;
  let files: { base: string; update: string; merged: string; other: string };
  let full: Committed;
  let written: Written & { triples: number };
  let embedded: Dataset;
  let remote: Dataset;
  let store: SparqlStore;

  before(async () => {
    virtuoso = await sharedVirtuoso();
    dir = tempDir();
    files = {
      base: path.join(dir, 'base.pica'),
      update: path.join(dir, 'update.xml'),
      merged: path.join(dir, 'merged.pica'),
      other: path.join(dir, 'other.xml'),
    };
    fs.writeFileSync(files.base, set.base);
    fs.writeFileSync(files.update, set.update);
    fs.writeFileSync(files.merged, set.merged);
    fs.writeFileSync(files.other, updateSet(COUNT, undefined, 7, 'anders').update);
    // The base as the operator loads it: a snapshot, then that snapshot into the store.
    await fullLoad(files.base, path.join(dir, 'base'), FIRST);
    fs.cpSync(path.join(dir, 'base'), path.join(dir, 'full'), { recursive: true });
    fs.cpSync(path.join(dir, 'base'), path.join(dir, 'updated'), { recursive: true });
    const dataset = path.join(dir, 'updated', 'dataset.nq');
    await loadRemote(
      [dataset],
      { baseIri: BASE },
      { baseIri: BASE },
      bulkTarget(virtuoso),
      () => {},
      FIRST,
    );
    full = await fullLoad(files.merged, path.join(dir, 'full'), SECOND);
    written = await update(files.update, dataset, virtuoso);
    embedded = (await loadSources([path.join(dir, 'full', 'dataset.nq')], { baseIri: BASE }))
      .dataset;
    store = new SparqlStore(
      { endpoint: virtuoso.endpoint, connections: 4, deadlineMs: 30_000 },
      BASE,
    );
    remote = (await store.open()).dataset;
  });
  after(async () => {
    embedded?.free();
    remote?.free();
    await store?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('makes the version a full load of the merged sources makes, and marks it current', async () => {
    assert.equal(written.version, full.version);
    assert.equal(remote.version, full.version);
    const { client, transport } = transportOf(bulkTarget(virtuoso));
    try {
      assert.equal((await listVersions(client)).current?.version, full.version);
    } finally {
      await transport.close();
      client.close();
    }
  });

  it('serves the same institutions, withdrawn ISILs and triples', () => {
    const isils = (d: Dataset) => [...d.institutions()].map((i) => i.isil).sort();
    assert.deepEqual(isils(remote), isils(embedded));
    assert.equal(remote.withdrawnCount, embedded.withdrawnCount);
    assert.equal(remote.tripleCount, embedded.tripleCount);
  });

  it('serves every description as that full load does (compared as graphs)', async () => {
    const differ: string[] = [];
    for (const institution of embedded.institutions()) {
      const found = remote.lookup(institution.isil);
      assert.equal(found.kind, 'found', institution.isil);
      const here = (await embedded.describe(institution)).quads;
      const there = (await remote.describe(found.institution)).quads;
      if (!isomorphic([...there], [...here])) differ.push(institution.isil);
    }
    assert.deepEqual(differ, []);
  });

  it('sends the changed descriptions only', () => {
    const changed =
      set.isils.created.length + set.isils.updated.length + set.isils.withdrawn.length;
    assert.ok(
      written.quads > 0 && written.quads < written.triples / 4,
      `${written.quads} of ${written.triples} quads sent`,
    );
    // Each changed record's description and its events: at most twice an institution's share of
    // the full load's triples (the full fields included), whatever the generator writes.
    const perInstitution = embedded.tripleCount / embedded.institutionCount;
    assert.ok(
      written.quads < changed * perInstitution * 2,
      `${written.quads} quads for ${changed} records, ${perInstitution.toFixed(1)} triples each`,
    );
  });

  it("adds that full load's events to the store's history", async () => {
    const { client, transport } = transportOf(bulkTarget(virtuoso));
    try {
      const history = await readStoredHistory(client);
      const step = history.timeline.at(-1)!;
      assert.equal(step.version, full.version);
      const events = history.events
        .filter((e) => e.time === step.time)
        .map(({ kind, isil, hash, successors }) => ({ kind, isil, hash, successors }));
      const expected = (full.changes ?? []).map(({ kind, isil, hash, successors }) => ({
        kind,
        isil,
        hash,
        successors,
      }));
      const key = (e: { isil: string }) => e.isil;
      assert.deepEqual(
        [...events].sort((a, b) => key(a).localeCompare(key(b))),
        [...expected].sort((a, b) => key(a).localeCompare(key(b))),
      );
      assert.ok(events.length >= 90);
    } finally {
      await transport.close();
      client.close();
    }
  });

  it('refuses an update made over a version no longer current, leaving store and snapshot as they were', async () => {
    const stale = path.join(dir, 'base', 'dataset.nq');
    const before = fs.readFileSync(stale);
    const { client, transport } = transportOf(bulkTarget(virtuoso));
    try {
      const stored = (await transport.stored()).sort();
      await assert.rejects(
        update(files.other, stale, virtuoso),
        /the update was made over version [0-9a-f]{12}, but the remote store's current version is [0-9a-f]{12}: another load happened meanwhile/,
      );
      assert.equal((await listVersions(client)).current?.version, full.version);
      assert.deepEqual((await transport.stored()).sort(), stored);
      assert.ok(fs.readFileSync(stale).equals(before));
    } finally {
      await transport.close();
      client.close();
    }
  });
});
