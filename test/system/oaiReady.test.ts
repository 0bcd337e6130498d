// The OAI-PMH provider of a real server process answers as soon as /readyz says ready, and right
// after a reload (SIGHUP): the kinds its lists need are read before a version is served, and an
// error at /oai is XML, never an HTML page (docs/history.md, "Harvesting by OAI-PMH").
import assert from 'node:assert/strict';
import {
  generatedSnapshot,
  startServerProcess,
  type ServerProcess,
} from '../support/serverProcess';
import { needsXmllint, oaiSchemaErrors } from '../support/oaiSchema';
import { readOai } from '../support/oaiXml';

/** Enough institutions that reading their kinds takes longer than a list used to wait for them. */
const INSTITUTIONS = 3000;

interface Asked {
  readonly status: number;
  readonly type: string;
  readonly text: string;
}

async function ask(server: ServerProcess, query: string): Promise<Asked> {
  const res = await fetch(`http://127.0.0.1:${server.port}/oai?${query}`);
  return {
    status: res.status,
    type: res.headers.get('content-type') ?? '',
    text: await res.text(),
  };
}

/** Asserts `asked` is a 200 OAI-PMH answer, valid against the schemas, without an error. */
function assertAnswered(asked: Asked): void {
  assert.equal(asked.status, 200, asked.text.slice(0, 300));
  assert.match(asked.type, /^text\/xml/);
  assert.equal(oaiSchemaErrors(asked.text), '');
  assert.deepEqual(readOai(asked.text).errors, []);
}

describe('OAI-PMH as soon as the server is ready (a real process)', function () {
  this.timeout(240_000);
  let server: ServerProcess;

  before(async function () {
    needsXmllint.call(this);
    server = await startServerProcess({ env: { DATASET: generatedSnapshot(INSTITUTIONS) } });
  });
  after(async () => {
    server?.child.kill('SIGTERM');
    await server?.exit;
  });

  it('answers ListIdentifiers right after /readyz says ready', async () => {
    const asked = await ask(server, 'verb=ListIdentifiers&metadataPrefix=oai_dc');
    assertAnswered(asked);
    assert.equal(readOai(asked.text).headers.length > 0, true);
  });

  it('answers ListSets and a list of a type: set', async () => {
    assertAnswered(await ask(server, 'verb=ListSets'));
    const typed = await ask(server, 'verb=ListIdentifiers&metadataPrefix=oai_dc&set=type:library');
    assert.equal(typed.status, 200);
    assert.equal(oaiSchemaErrors(typed.text), '');
  });

  it('answers at once after a reload (SIGHUP)', async () => {
    server.child.kill('SIGHUP');
    await server.line((l) => l.msg === 'reload finished', 120_000);
    assertAnswered(await ask(server, 'verb=ListIdentifiers&metadataPrefix=oai_dc'));
    assertAnswered(await ask(server, 'verb=ListSets'));
  });

  it('answers an HTTP error at /oai in XML, not HTML', async () => {
    const res = await fetch(`http://127.0.0.1:${server.port}/oai`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'text/html' },
      body: '{"verb":"Identify"}',
    });
    const text = await res.text();
    assert.equal(res.status, 415);
    assert.match(res.headers.get('content-type') ?? '', /^text\/xml/);
    assert.equal(oaiSchemaErrors(text), '');
    assert.deepEqual(
      readOai(text).errors.map((e) => e.code),
      ['badArgument'],
    );
  });
});
