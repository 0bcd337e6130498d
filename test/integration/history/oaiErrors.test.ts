// The OAI-PMH provider's refusals and hostile input: every error condition of the protocol, each
// answer valid against the schemas; resumption tokens malformed, edited, expired, past the end, of
// another list or of another history; GET and form POST alike; the HTTP methods.
import assert from 'node:assert/strict';
import request from 'supertest';
import type { Express } from 'express';
import {
  historyApp,
  registryVersions,
  reloadHistory,
  VERSION_TIMES,
  writeHistory,
  type HistoryFixture,
} from '../../support/history';
import { needsThirdParty, testConfig } from '../../support';
import { needsXmllint, oaiSchemaErrors } from '../../support/oaiSchema';
import { readOai } from '../../support/oaiXml';
import { ask, COUNT, id, ODD, ODD_BLOCK, oaiFixture, stamp } from '../../support/oaiApp';
import { decodeToken, encodeToken, TokenKey, type Token } from '../../../src/oai/token';
import { createApp } from '../../../src/http/app';
import { createLogger } from '../../../src/util/logger';
import { Service } from '../../../src/documents/service';

/** The providers' key in these tests: replicas are given the same one. */
const KEY = 'the-replicas-shared-secret-0123456789';

/** Asserts that an HTTP error at /oai is an OAI-PMH answer with `badArgument`, not a page. */
function assertBadArgumentXml(res: request.Response): void {
  assert.match(res.headers['content-type']!, /^text\/xml/);
  assert.equal(oaiSchemaErrors(res.text), '');
  assert.deepEqual(
    readOai(res.text).errors.map((e) => e.code),
    ['badArgument'],
  );
}

describe('OAI-PMH provider (/oai): errors and hostile input', function () {
  this.timeout(180_000);
  let fixture: HistoryFixture;
  let app: Express;
  let service: Service;
  let key: TokenKey;
  let base: string[];
  /** The first token of the whole ListRecords list, and the page it answers. */
  let token: string;
  let second: string[];

  const codes = async (query: string) => (await ask(app, query)).errors.map((e) => e.code);

  before(async function () {
    needsThirdParty.call(this);
    needsXmllint.call(this);
    ({ fixture, base } = await oaiFixture());
    let config;
    ({ app, service, config } = await historyApp(fixture, { OAI_TOKEN_KEY: KEY }));
    key = config.oaiTokenKey;
    token = (await ask(app, 'verb=ListRecords&metadataPrefix=oai_dc')).token!.value;
    second = (
      await ask(app, `verb=ListRecords&resumptionToken=${encodeURIComponent(token)}`)
    ).headers.map((h) => h.identifier);
  });

  const cases: [string, string, string][] = [
    ['no verb', '', 'badVerb'],
    ['an unknown verb', 'verb=Harvest', 'badVerb'],
    ['a repeated verb', 'verb=Identify&verb=Identify', 'badVerb'],
    ['an argument Identify does not take', 'verb=Identify&set=country:DE', 'badArgument'],
    ['a missing metadataPrefix', 'verb=ListRecords', 'badArgument'],
    [
      'a repeated argument',
      'verb=ListRecords&metadataPrefix=oai_dc&metadataPrefix=rdf',
      'badArgument',
    ],
    ['GetRecord without identifier', 'verb=GetRecord&metadataPrefix=oai_dc', 'badArgument'],
    ['a malformed from', 'verb=ListRecords&metadataPrefix=oai_dc&from=yesterday', 'badArgument'],
    [
      'a day that does not exist',
      'verb=ListRecords&metadataPrefix=oai_dc&from=2025-02-30',
      'badArgument',
    ],
    ['a huge year', 'verb=ListRecords&metadataPrefix=oai_dc&until=99999-01-01', 'badArgument'],
    [
      'a finer granularity',
      'verb=ListRecords&metadataPrefix=oai_dc&from=2025-03-01T12:00:00.000Z',
      'badArgument',
    ],
    [
      'a time without Z',
      'verb=ListRecords&metadataPrefix=oai_dc&from=2025-03-01T12:00:00',
      'badArgument',
    ],
    [
      'from after until',
      'verb=ListRecords&metadataPrefix=oai_dc&from=2025-03-05&until=2025-03-01',
      'badArgument',
    ],
    [
      'two granularities',
      'verb=ListRecords&metadataPrefix=oai_dc&from=2025-03-01&until=2025-03-05T00:00:00Z',
      'badArgument',
    ],
    [
      'a set that is not a setSpec',
      'verb=ListRecords&metadataPrefix=oai_dc&set=a%20b',
      'badArgument',
    ],
    [
      'a token with other arguments',
      'verb=ListRecords&metadataPrefix=oai_dc&resumptionToken=x',
      'badArgument',
    ],
    ['an argument too long', `verb=ListRecords&resumptionToken=${'a'.repeat(5000)}`, 'badArgument'],
    ['an unknown format', 'verb=ListRecords&metadataPrefix=marc21', 'cannotDisseminateFormat'],
    [
      'an unknown identifier',
      `verb=GetRecord&metadataPrefix=oai_dc&identifier=${id('DE-Nope')}`,
      'idDoesNotExist',
    ],
    [
      'an identifier that is no URI',
      'verb=GetRecord&metadataPrefix=oai_dc&identifier=DE-1',
      'badArgument',
    ],
    [
      'nothing after until',
      'verb=ListIdentifiers&metadataPrefix=oai_dc&until=2000-01-01',
      'noRecordsMatch',
    ],
    ['a malformed token', 'verb=ListRecords&resumptionToken=garbage', 'badResumptionToken'],
  ];
  for (const [what, query, code] of cases)
    it(`${code}: ${what}`, async () => assert.deepEqual(await codes(query), [code]));

  it('badVerb and badArgument name no argument in the request element', async () => {
    for (const query of ['verb=Harvest', 'verb=ListRecords&from=x'])
      assert.deepEqual((await ask(app, query)).request, {});
  });
  it('other errors name the request’s arguments', async () => {
    const answer = await ask(app, 'verb=ListRecords&metadataPrefix=marc21');
    assert.deepEqual(answer.request, { verb: 'ListRecords', metadataPrefix: 'marc21' });
  });
  it('several errors at once', async () =>
    assert.deepEqual(await codes('verb=ListRecords&metadataPrefix=%25&set=%25'), [
      'badArgument',
      'badArgument',
    ]));
  it('text XML cannot hold in an argument is answered, the answer well-formed', async () => {
    const answer = await ask(
      app,
      `verb=GetRecord&metadataPrefix=oai_dc&identifier=oai:x:%01%3C%26`,
    );
    assert.deepEqual(
      answer.errors.map((e) => e.code),
      ['badArgument'],
    );
  });

  describe('resumption tokens', () => {
    const resume = (t: string, verb = 'ListRecords') =>
      codes(`verb=${verb}&resumptionToken=${encodeURIComponent(t)}`);
    it('a token answers the next part', () => assert.equal(second.length > 0, true));
    it('a token answers the same part again', async () => {
      const again = await ask(app, `verb=ListRecords&resumptionToken=${encodeURIComponent(token)}`);
      assert.deepEqual(
        again.headers.map((h) => h.identifier),
        second,
      );
    });
    const sameAs = async (other: Express) =>
      (
        await ask(other, `verb=ListRecords&resumptionToken=${encodeURIComponent(token)}`)
      ).headers.map((h) => h.identifier);
    it('after a reload of the same version, the same part', async () => {
      await reloadHistory(service, fixture);
      assert.deepEqual(await sameAs(app), second);
    });
    it('on a replica (or after a restart) with the same OAI_TOKEN_KEY, the same part', async () =>
      assert.deepEqual(
        await sameAs((await historyApp(fixture, { OAI_TOKEN_KEY: KEY })).app),
        second,
      ));
    it('a replica with another OAI_TOKEN_KEY refuses it', async () => {
      const other = await historyApp(fixture, { OAI_TOKEN_KEY: `${KEY}-other` });
      assert.deepEqual(
        (
          await ask(other.app, `verb=ListRecords&resumptionToken=${encodeURIComponent(token)}`)
        ).errors.map((e) => e.code),
        ['badResumptionToken'],
      );
    });
    it('without OAI_TOKEN_KEY, the tokens of one process are refused by another', async () => {
      const [one, two] = [await historyApp(fixture), await historyApp(fixture)];
      const first = (await ask(one.app, 'verb=ListRecords&metadataPrefix=oai_dc')).token!.value;
      const resumed = `verb=ListRecords&resumptionToken=${encodeURIComponent(first)}`;
      assert.equal((await ask(one.app, resumed)).errors.length, 0);
      assert.deepEqual(
        (await ask(two.app, resumed)).errors.map((e) => e.code),
        ['badResumptionToken'],
      );
    });
    // What a forger without the key would send: a later expiry, another cursor, another version.
    const forgeries: [string, (t: Token) => Token][] = [
      ['a later expiry', (t) => ({ ...t, expires: t.expires + 365 * 86_400 })],
      ['another cursor', (t) => ({ ...t, cursor: t.cursor + 10 })],
      ['an expired token made to live again', (t) => ({ ...t, expires: 4_102_444_800 })],
    ];
    for (const [what, forge] of forgeries)
      it(`a token forged without the key (${what}) is refused`, async () => {
        const forged = forge(decodeToken(token, key)!);
        assert.deepEqual(await resume(encodeToken(forged, TokenKey.random())), [
          'badResumptionToken',
        ]);
        // The same token signed with the key is taken: only the key was missing.
        assert.deepEqual(await resume(encodeToken(forged, key)), []);
      });
    it('a token of another list is refused (ListIdentifiers)', async () =>
      assert.deepEqual(await resume(token, 'ListIdentifiers'), ['badResumptionToken']));
    it('an edited token is refused', async () => {
      const edited = `${token.slice(0, 10)}${token[10] === 'A' ? 'B' : 'A'}${token.slice(11)}`;
      assert.deepEqual(await resume(edited), ['badResumptionToken']);
    });
    it('a token cut short is refused', async () =>
      assert.deepEqual(await resume(token.slice(0, -3)), ['badResumptionToken']));
    it('an expired token is refused', async () => {
      const expired = encodeToken({ ...decodeToken(token, key)!, expires: VERSION_TIMES[0]! }, key);
      assert.deepEqual(await resume(expired), ['badResumptionToken']);
    });
    it('a token past the end is refused', async () => {
      const past = encodeToken({ ...decodeToken(token, key)!, cursor: 1_000_000 }, key);
      assert.deepEqual(await resume(past), ['badResumptionToken']);
    });
    it('a token naming an invalid list is refused', async () => {
      const invalid = encodeToken({ ...decodeToken(token, key)!, from: 'yesterday' }, key);
      assert.deepEqual(await resume(invalid), ['badResumptionToken']);
    });
    it('a token of another history (a version served since) is refused', async () => {
      // The same first four versions, and a fifth that adds an institution: another version.
      const versions = registryVersions(COUNT).map((v) => v + ODD_BLOCK);
      versions[4] += ODD_BLOCK.replaceAll(ODD, 'DE-Odd2');
      const later = await writeHistory(versions);
      const { app: other } = await historyApp(later, { OAI_TOKEN_KEY: KEY });
      assert.deepEqual(
        (
          await ask(other, `verb=ListRecords&resumptionToken=${encodeURIComponent(token)}`)
        ).errors.map((e) => e.code),
        ['badResumptionToken'],
      );
    });
    it('a deep-paging flood: every request answered, none with another list', async () => {
      const t = encodeURIComponent(token);
      const answers = await Promise.all(
        Array.from({ length: 50 }, () =>
          request(app).get(`/oai?verb=ListRecords&resumptionToken=${t}`),
        ),
      );
      for (const res of answers) {
        assert.equal(res.status, 200);
        assert.deepEqual(
          readOai(res.text).headers.map((h) => h.identifier),
          second,
        );
      }
    });
  });

  it('the key is never logged, whatever is asked', async () => {
    let logged = '';
    const logger = createLogger('trace', { write: (line: string) => void (logged += line) });
    const { app: logging } = await historyApp(fixture, { OAI_TOKEN_KEY: KEY }, 'embedded', logger);
    const forged = encodeToken(decodeToken(token, key)!, TokenKey.random());
    for (const query of [
      'verb=Identify',
      'verb=ListRecords&metadataPrefix=oai_dc',
      `verb=ListRecords&resumptionToken=${encodeURIComponent(token)}`,
      `verb=ListRecords&resumptionToken=${encodeURIComponent(forged)}`,
      'verb=ListRecords&resumptionToken=garbage',
    ])
      await request(logging).get(`/oai?${query}`);
    await request(logging).post('/oai').type('json').send('{}');
    assert.match(logged, /resumptionToken/, 'the requests were logged');
    for (const shown of [
      KEY,
      Buffer.from(KEY).toString('base64'),
      Buffer.from(KEY).toString('hex'),
    ])
      assert.ok(!logged.includes(shown.slice(0, 16)));
  });

  describe('HTTP', () => {
    it('a form POST answers as the GET', async () => {
      const query = `verb=GetRecord&metadataPrefix=oai_dc&identifier=${id(base[1]!)}`;
      // Asked on one host: the baseURL both name is on it.
      const get = await request(app).get(`/oai?${query}`).set('Host', 'oai.test');
      const post = await request(app).post('/oai').set('Host', 'oai.test').type('form').send(query);
      assert.equal(post.status, 200);
      assert.equal(oaiSchemaErrors(post.text), '');
      const strip = (xml: string) => xml.replace(/<responseDate>[^<]*<\/responseDate>/, '');
      assert.equal(strip(post.text), strip(get.text));
    });
    it('a POST errors as the GET', async () => {
      const post = await request(app).post('/oai').type('form').send('verb=Nope');
      assert.deepEqual(
        readOai(post.text).errors.map((e) => e.code),
        ['badVerb'],
      );
    });
    it('a POST that is not a form: 415', async () => {
      const post = await request(app).post('/oai').type('json').send('{"verb":"Identify"}');
      assert.equal(post.status, 415);
      assertBadArgumentXml(post);
    });
    it('HEAD: the headers, no body', async () => {
      const head = await request(app).head('/oai?verb=Identify');
      assert.equal(head.status, 200);
      assert.match(head.headers['content-type']!, /^text\/xml/);
    });
    it('another method: 405 with Allow', async () => {
      const put = await request(app).put('/oai?verb=Identify');
      assert.equal(put.status, 405);
      assert.equal(put.headers.allow, 'GET, HEAD, POST, OPTIONS');
      assertBadArgumentXml(put);
    });
    it('before a dataset is served: 503 with Retry-After, in XML even to a browser', async () => {
      const loading = createApp({
        service: new Service(testConfig()),
        logger: createLogger('silent'),
      });
      const res = await request(loading).get('/oai?verb=Identify').set('Accept', 'text/html');
      assert.equal(res.status, 503);
      assert.ok(Number(res.headers['retry-after']) > 0);
      assert.match(res.headers['content-type']!, /^text\/xml/);
      assert.match(res.text, /^<\?xml [^>]*\?>\n<error status="503">[^<]+<\/error>\n$/);
    });
    it('OPTIONS: a CORS preflight that allows POST', async () => {
      const options = await request(app).options('/oai');
      assert.equal(options.status, 204);
      assert.match(options.headers['access-control-allow-methods']!, /POST/);
    });
    it('CORS on answers', async () => {
      const res = await request(app).get('/oai?verb=Identify');
      assert.equal(res.headers['access-control-allow-origin'], '*');
    });
    it('below /oai: 404', async () => {
      const res = await request(app).get('/oai/x').set('Accept', 'text/html');
      assert.equal(res.status, 404);
      assertBadArgumentXml(res);
    });
    it('the time of a datestamp is the version’s', async () =>
      assert.equal(
        (await ask(app, `verb=GetRecord&metadataPrefix=oai_dc&identifier=${id(base[1]!)}`))
          .headers[0]!.datestamp,
        stamp(VERSION_TIMES[0]!),
      ));
  });
});
