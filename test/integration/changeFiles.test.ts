// The change files beside a version's dumps: the version's own changes and those of its last 1,
// 7 and 31 days, as JSON Lines equal to the log's events (descriptions compared as graphs) and as
// N-Triples of the descriptions created or updated; listed in /dumps/ with size and SHA-256, and
// in VoID. On each adapter the run has.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import request from 'supertest';
import type { Express } from 'express';
import { DataFactory, Parser, type Quad } from 'n3';
import { isMemento, type History, type HistoryEvent } from '../../src/history/model';
import type { DumpFile } from '../../src/documents/versionDumps';
import type { Service } from '../../src/documents/service';
import { ADAPTERS, sameGraph, tempDir } from '../support';
import {
  historyApp,
  registryVersions,
  writeHistory,
  type HistoryFixture,
} from '../support/history';

const DAY = 86_400;
const PERIODS = { version: undefined, '1d': 1, '7d': 7, '31d': 31 } as const;

interface Line {
  time: string;
  version: string;
  isil: string;
  kind: string;
  hashBefore: string | null;
  hashAfter: string | null;
  successors?: string[];
  description?: string;
}

const triples = (text: string): Quad[] =>
  new Parser({ format: 'N-Triples' })
    .parse(text)
    .map((q) => DataFactory.quad(q.subject, q.predicate, q.object));

/** The hash an ISIL's documents served just before `event`, read from its own events. */
function servedBefore(history: History, event: HistoryEvent): string | null {
  const events = history.events(event.isil);
  // By time: a version that returns to earlier data has that version's name again.
  const previous = events[events.findIndex((e) => e.time === event.time) - 1];
  return previous && isMemento(previous) ? previous.hash! : null;
}

/**
 * The registry's five versions on days 0, 10, 25, 29 and 30: at the last, its day holds its own
 * changes only, its 7 days three versions', its 31 days all five's.
 */
const TIMES = [0, 10, 25, 29, 30].map((day) => Date.UTC(2025, 2, 1 + day, 12) / 1000);

let fixture: HistoryFixture;
before(async function () {
  this.timeout(120_000);
  fixture = await writeHistory(registryVersions(20), 0, TIMES);
});

for (const adapter of ADAPTERS)
  describe(`change files (${adapter})`, function () {
    this.timeout(180_000);
    let app: Express;
    let service: Service;
    let history: History;
    let dir: string;
    let files: DumpFile[];

    before(async () => {
      dir = tempDir();
      ({ app, service } = await historyApp(fixture, { DUMPS_DIR: dir }, adapter));
      history = service.current!.dataset.history;
      await service.dumps.ensure();
      files = [...service.dumps.list()[0]!.files];
    });
    after(() => {
      service.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    const read = (file: DumpFile) =>
      zlib.gunzipSync(fs.readFileSync(path.join(dir, file.name))).toString('utf8');
    const fileOf = (period: string, format: string) =>
      files.find((f) => f.period === period && f.format === format)!;

    /** The log's events a period holds, oldest first. */
    const eventsOf = (period: keyof typeof PERIODS): HistoryEvent[] => {
      const last = history.versions.at(-1)!;
      const days = PERIODS[period];
      return [...history.all()].filter((e) =>
        days === undefined ? e.time === last.time : e.time > last.time - days * DAY,
      );
    };

    it('each period holds the versions its window does', () =>
      assert.deepEqual(
        (Object.keys(PERIODS) as (keyof typeof PERIODS)[]).map(
          (p) => new Set(eventsOf(p).map((e) => e.time)).size,
        ),
        [1, 1, 3, 5],
      ));

    it("makes two files for each of the four periods, in the version's set", () =>
      assert.deepEqual(
        files
          .filter((f) => f.period)
          .map((f) => `${f.period} ${f.format} ${f.name.replace(/^.*?\./, '')}`),
        Object.keys(PERIODS).flatMap((p) => {
          const stem = p === 'version' ? 'changes' : `changes-${p}`;
          return [`${p} changes ${stem}.jsonl.gz`, `${p} changes-nt ${stem}.nt.gz`];
        }),
      ));

    for (const period of Object.keys(PERIODS) as (keyof typeof PERIODS)[]) {
      it(`${period}: a JSON line for each of the log's events, as the log has it`, async () => {
        const events = eventsOf(period);
        assert.ok(events.length > 0);
        const lines = read(fileOf(period, 'changes'))
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Line);
        assert.deepEqual(
          lines.map(({ description: _, ...line }) => line),
          events.map((e) => ({
            time: new Date(e.time * 1000).toISOString().replace('.000Z', 'Z'),
            version: e.version,
            isil: e.isil,
            kind: e.kind,
            hashBefore: servedBefore(history, e),
            hashAfter: e.hash ?? null,
            ...(e.successors ? { successors: [...e.successors] } : {}),
          })),
        );
        for (const [i, event] of events.entries()) {
          const line = lines[i]!;
          if (!isMemento(event)) assert.equal(line.description, undefined);
          else
            assert.ok(
              sameGraph(triples(line.description!), triples(await history.description(event))),
            );
        }
      });

      it(`${period}: N-Triples of the descriptions served after the changes`, async () => {
        const last = new Map(eventsOf(period).map((e) => [e.isil, e]));
        const expected: Quad[] = [];
        for (const event of last.values())
          if (isMemento(event)) expected.push(...triples(await history.description(event)));
        assert.ok(expected.length > 0);
        assert.ok(sameGraph(triples(read(fileOf(period, 'changes-nt'))), expected));
      });
    }

    it('lists each in /dumps/ with its size and SHA-256, and serves it so', async () => {
      const list = await request(app).get('/dumps/').set('Accept', 'application/json').expect(200);
      const listed = (list.body.dumps[0].files as DumpFile[]).filter((f) => f.period);
      assert.equal(listed.length, 8);
      for (const file of listed) {
        const res = await request(app)
          .get(`/dumps/${file.name}`)
          .buffer(true)
          .parse((r, done) => {
            const chunks: Buffer[] = [];
            r.on('data', (c: Buffer) => chunks.push(c));
            r.on('end', () => done(null, Buffer.concat(chunks)));
          })
          .expect(200);
        const body = res.body as Buffer;
        assert.equal(body.length, file.bytes);
        assert.equal(createHash('sha256').update(body).digest('hex'), file.sha256);
      }
      const html = await request(app).get('/dumps/?lang=en').expect(200);
      assert.match(
        html.text,
        /Changes of the last 7 days, JSON lines \(gzip\)<\/a>: [\d,]+ Bytes, SHA-256/,
      );
    });

    it('names each in VoID, beside the dumps and not as one', async () => {
      const res = await request(app)
        .get('/.well-known/void')
        .set('Accept', 'text/turtle')
        .expect(200);
      const quads = new Parser().parse(res.text);
      const seeAlso = quads
        .filter((q) => q.predicate.value === 'http://www.w3.org/2000/01/rdf-schema#seeAlso')
        .map((q) => q.object.value);
      const dataDumps = quads
        .filter((q) => q.predicate.value === 'http://rdfs.org/ns/void#dataDump')
        .map((q) => q.object.value);
      for (const file of files.filter((f) => f.period)) {
        assert.ok(
          seeAlso.some((url) => url.endsWith(`/dumps/${file.name}`)),
          file.name,
        );
        assert.ok(!dataDumps.some((url) => url.endsWith(`/dumps/${file.name}`)), file.name);
      }
      assert.equal(dataDumps.length, files.filter((f) => !f.period).length);
    });
  });
