// Command line: `npm run versions -- [list | use VERSION | prune --replicas URL,…]` manages the
// dataset versions of a remote store (STORE=remote, docs/scaling.md). `list` shows them, the
// current one marked; `use` marks another listed version current (a rollback: replicas switch on
// their next reload), its difference from the current one added to the history as a new version at
// its own time; `prune` drops every version but the current one, and the graphs killed loads
// left, once every replica named serves the current version (a replica still on an old version
// would lose its data). The history stays whole: its events, and every description they name.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../src/config/config';
import { diff, statesAfterEvents, versionTime } from '../src/history/model';
import { listTimeline, listVersions } from '../src/store/remote/registry';
import { eventsGraph, hashGraph, type VersionEntry } from '../src/store/remote/layout';
import {
  eventTriples,
  historyGraphs,
  readStoredHistory,
  unlistedEvents,
} from '../src/store/remote/remoteHistory';
import type { SparqlClient } from '../src/store/remote/sparqlClient';
import type { Transport } from '../src/store/remote/versionWriter';
import { transportOf } from './remote';
import { remoteVia } from './remoteCommand';

const USAGE = `usage: npm run versions -- list
       npm run versions -- use VERSION        [--graph-store URL | --virtuoso-bulk DIR]
       npm run versions -- prune --replicas URL,…  [--graph-store URL | --virtuoso-bulk DIR]
With STORE=remote and SPARQL_ENDPOINT set (docs/scaling.md). prune asks each replica's /readyz
which version it serves, and drops nothing unless every one serves the current version.`;

/** The version each replica's /readyz says it serves, or why it could not say. */
async function servedBy(replicas: readonly string[]): Promise<Map<string, string>> {
  const served = new Map<string, string>();
  await Promise.all(
    replicas.map(async (replica) => {
      try {
        const res = await fetch(new URL('/readyz', replica), {
          signal: AbortSignal.timeout(10_000),
        });
        const body = (await res.json()) as { version?: string; status?: string };
        served.set(replica, body.version ?? `not ready (${body.status ?? res.status})`);
      } catch (error) {
        served.set(replica, `no answer (${(error as Error).message})`);
      }
    }),
  );
  return served;
}

/**
 * Marks `chosen` current. When the history knows it, the difference from the history's last version
 * to it is added as a new version at its own time (never before the last one's): a rollback is a
 * change like any other, and history never runs backwards.
 */
export async function useVersion(
  transport: Transport,
  client: SparqlClient,
  chosen: VersionEntry,
  now = new Date(),
): Promise<{ events: number | undefined }> {
  const { entries } = await listVersions(client);
  const { timeline, events } = await readStoredHistory(client);
  const last = timeline.at(-1);
  let at = -1;
  timeline.forEach((step, i) => {
    if (step.version === chosen.version) at = i;
  });
  if (last === undefined || at === -1 || last.version === chosen.version) {
    // A version the history never had (loaded before the store kept history) is only marked.
    await transport.writeRegistry(entries, chosen.version, timeline);
    return { events: last?.version === chosen.version ? 0 : undefined };
  }
  const until = timeline[at]!.time;
  const target = statesAfterEvents(events.filter((e) => e.time <= until));
  const changes = diff(statesAfterEvents(events), target);
  let institutions = 0;
  for (const state of target.values()) if (state.status === 'live') institutions++;
  const step = {
    version: chosen.version,
    time: versionTime(now, last.time),
    institutions,
    withdrawn: target.size - institutions,
    events: changes.length,
  };
  const stale = await unlistedEvents(client, last.time);
  if (stale.length > 0) await transport.dropGraphs(stale);
  // Every description the changes name is in the store already: an earlier event named it.
  if (changes.length > 0)
    await transport.writeGraphs(new Map([[eventsGraph(step.time), eventTriples(step, changes)]]));
  await transport.writeRegistry(entries, chosen.version, [...timeline, step]);
  return { events: changes.length };
}

/**
 * The history's graphs nothing references: description graphs no event of a listed version names,
 * events graphs of versions never listed (killed loads).
 */
export async function unreferenced(client: SparqlClient): Promise<string[]> {
  const { timeline, events } = await readStoredHistory(client);
  const listed = new Set(timeline.map((step) => eventsGraph(step.time) as string));
  const named = new Set<string>();
  for (const e of events) if (e.hash) named.add(hashGraph(e.hash));
  const stored = await historyGraphs(client);
  return [
    ...stored.descriptions.filter((g) => !named.has(g)),
    ...stored.events.filter((g) => !listed.has(g)),
  ];
}

/** Drops every version but the current one, once every replica serves it; returns the exit code. */
export async function prune(
  transport: Transport,
  client: SparqlClient,
  current: VersionEntry | undefined,
  list: string | undefined,
): Promise<number> {
  if (!current) {
    process.stderr.write('no current version in the store: nothing is pruned\n');
    return 1;
  }
  const replicas = (list ?? '').split(',').filter(Boolean);
  if (replicas.length === 0) {
    process.stderr.write(
      `prune needs --replicas URL,…: every replica must serve ${current.version} first\n`,
    );
    return 2;
  }
  const behind = [...(await servedBy(replicas))].filter(([, v]) => v !== current.version);
  if (behind.length > 0) {
    for (const [replica, v] of behind)
      process.stderr.write(`${replica} serves ${v}, not ${current.version}\n`);
    process.stderr.write('nothing pruned: reload those replicas first (SIGHUP)\n');
    return 1;
  }
  // The registry first: a version is unlisted before its graphs go. The history's versions stay.
  await transport.writeRegistry([current], current.version, await listTimeline(client));
  const dropped = (await transport.stored()).filter((v) => v !== current.version);
  for (const version of dropped) await transport.drop(version);
  const history = await unreferenced(client);
  await transport.dropGraphs(history);
  process.stdout.write(
    `pruned ${dropped.length} versions and ${history.length} history graphs nothing references; ${current.version} is kept\n`,
  );
  return 0;
}

export async function main(argv: readonly string[]): Promise<number> {
  const options = {
    replicas: { type: 'string' },
    'graph-store': { type: 'string' },
    'virtuoso-bulk': { type: 'string' },
    help: { type: 'boolean' },
  } as const;
  let args: ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>;
  try {
    args = parseArgs({ args: [...argv], options, allowPositionals: true });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const [command = 'list', argument] = args.positionals;
  if (args.values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  try {
    const config = loadConfig();
    if (config.store.kind !== 'remote')
      throw new ConfigError(
        'STORE',
        'versions are kept in a remote store: set STORE=remote and SPARQL_ENDPOINT',
      );
    const { endpoint, user, password } = config.store;
    const writes = command !== 'list';
    const via = writes
      ? remoteVia(args.values['graph-store'], args.values['virtuoso-bulk'])
      : { kind: 'graph-store' as const, url: endpoint };
    const { transport, client } = transportOf({ endpoint, user, password, via });
    try {
      const { entries, current } = await listVersions(client);
      if (command === 'list') {
        for (const e of entries)
          process.stdout.write(
            `${e.version === current?.version ? '*' : ' '} ${e.version}\t${e.created}\t${e.triples} triples\t${e.baseIri}\t${e.sources}\n`,
          );
        if (entries.length === 0) process.stdout.write(`no version in ${endpoint}\n`);
        return 0;
      }
      if (command === 'use') {
        const chosen = entries.find((e) => e.version === argument);
        if (!chosen) {
          process.stderr.write(
            `${JSON.stringify(argument ?? '')} is not a version of ${endpoint} (npm run versions -- list)\n`,
          );
          return 1;
        }
        const { events } = await useVersion(transport, client, chosen);
        process.stdout.write(
          `version ${chosen.version} is current${events === undefined ? ' (the history does not know it: none added)' : `, ${events} events added to the history`}: replicas switch on their next reload\n`,
        );
        return 0;
      }
      if (command === 'prune') return await prune(transport, client, current, args.values.replicas);
      process.stderr.write(`unknown command ${JSON.stringify(command)}\n${USAGE}\n`);
      return 2;
    } finally {
      await transport.close();
      client.close();
    }
  } catch (error) {
    process.stderr.write(`versions: ${(error as Error).message}\n`);
    return error instanceof ConfigError ? 2 : 1;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => (process.exitCode = code));
}
