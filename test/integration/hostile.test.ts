// Hostile requests, over a real socket to the real server: each gets its defined 4xx (or the normal
// answer where the contract defines one), never a 5xx, and the server answers normally afterwards.
import assert from 'node:assert/strict';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type http from 'node:http';
import { inProcessStore } from '../../src/store/embedded/inProcessStore';
import { createLogger } from '../../src/util/logger';
import { loadInto } from '../../src/process/reloader';
import { startServer } from '../../src/process/listen';
import { testConfig } from '../support';

interface Answer {
  readonly status: number;
  readonly head: string;
  readonly body: string;
  header(name: string): string | undefined;
}

/** Sends `raw` bytes as they are (no client library normalises them) and reads one answer. */
function send(port: number, raw: string | Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(raw));
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      const head = split < 0 ? text : text.slice(0, split);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      resolve({
        status,
        head,
        body: split < 0 ? '' : text.slice(split + 4),
        header: (name) => new RegExp(`^${name}: (.*)$`, 'im').exec(head)?.[1]?.trim(),
      });
    });
  });
}

/** The origin the requests ask (their Host), which the URLs answered are on: no PUBLIC_URL. */
const ASKED = 'http://localhost';
const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
  `${method} ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;

interface Row {
  readonly name: string;
  readonly raw: string | Buffer;
  /** The defined status, or the set of statuses the contract allows. */
  readonly status: number | readonly number[];
  /** The body must say that the ISIL is not well-formed. */
  readonly malformed?: boolean;
  /** Answered from Node's parser before the app (by the server's `clientError` handler). */
  readonly fromParser?: boolean;
  readonly check?: (a: Answer) => void;
}

/** Whether every status a row allows is a 4xx: a hostile request refused, not answered. */
const expectsClientError = (row: Row) =>
  (typeof row.status === 'number' ? [row.status] : row.status).every((s) => s >= 400 && s < 500);

const TTL = '/data/organisations/DE-1a.ttl';

/** The answer is DE-1a's Turtle document, as the plain origin-form request gets it. */
const servedAsTtl = (a: Answer) => assert.equal(a.header('Content-Location'), TTL);
const long = (n: number) => 'A'.repeat(n);

const ROWS: Row[] = [
  // Path traversal
  { name: 'traversal with ..', raw: get('/data/organisations/../../../etc/passwd'), status: 404 },
  {
    name: 'traversal with encoded slashes',
    raw: get('/data/organisations/..%2F..%2Fetc%2Fpasswd'),
    status: 404,
    malformed: true,
  },
  {
    name: 'encoded dots',
    raw: get('/resource/organisations/%2e%2e/x'),
    status: 404,
    malformed: true,
  },
  { name: '/isil/..', raw: get('/isil/..'), status: 404, malformed: true },
  {
    name: 'backslash traversal',
    raw: get('/resource/organisations/..\\..\\etc'),
    status: 404,
    malformed: true,
  },
  {
    name: 'traversal into the project',
    raw: get('/data/organisations/DE-1a/../../package.json'),
    status: 404,
    malformed: true,
  },
  // Encoded slashes and NULs
  {
    name: 'encoded slash after the ISIL',
    raw: get('/resource/organisations/DE-1a%2Fx'),
    status: 404,
    malformed: true,
  },
  {
    name: 'an encoded slash alone',
    raw: get('/resource/organisations/%2F'),
    status: 404,
    malformed: true,
  },
  {
    name: 'encoded NUL after the ISIL',
    raw: get('/resource/organisations/DE-1a%00'),
    status: 404,
    malformed: true,
  },
  {
    name: 'encoded NUL before the extension',
    raw: get('/data/organisations/DE-1a%00.ttl'),
    status: 404,
    malformed: true,
  },
  {
    name: 'encoded NUL as the ISIL',
    raw: get('/data/organisations/%00.ttl'),
    status: 404,
    malformed: true,
  },
  {
    name: 'raw NUL in the path',
    raw: get('/resource/organisations/DE-1a\u0000'),
    status: 400,
    fromParser: true,
  },
  {
    name: 'invalid percent-encoding',
    raw: get('/resource/organisations/%zz'),
    status: 404,
    malformed: true,
  },
  // Overlong and odd ISILs
  {
    name: '17 characters',
    raw: get(`/resource/organisations/DE-${long(14)}`),
    status: 404,
    malformed: true,
  },
  {
    name: '1,000 characters',
    raw: get(`/resource/organisations/DE-${long(997)}`),
    status: 404,
    malformed: true,
    // The error page is a page of the site: the path is echoed, cut short, never whole.
    check: (a) => assert.ok(!a.body.includes(long(600)), 'the echo is cut short'),
  },
  {
    name: 'an 8,000-character path',
    raw: get(`/data/organisations/${long(8000)}.ttl`),
    status: 404,
    malformed: true,
  },
  { name: 'empty ISIL', raw: get('/resource/organisations/'), status: 404, malformed: true },
  {
    name: 'no ISIL and no slash',
    raw: get('/resource/organisations'),
    status: 404,
    malformed: true,
  },
  {
    name: 'trailing slash',
    raw: get('/resource/organisations/DE-1a/'),
    status: 404,
    malformed: true,
  },
  {
    name: 'non-ASCII, percent-encoded',
    raw: get('/resource/organisations/DE-%C3%A4'),
    status: 404,
    malformed: true,
  },
  {
    name: 'U+2011 hyphen, percent-encoded',
    raw: get('/resource/organisations/DE%E2%80%911a'),
    status: 404,
    malformed: true,
  },
  {
    name: 'emoji, percent-encoded',
    raw: get('/resource/organisations/DE-%F0%9F%93%9A'),
    status: 404,
    malformed: true,
  },
  {
    name: 'raw Latin-1 bytes in the path',
    raw: Buffer.concat([
      Buffer.from('GET /resource/organisations/DE-'),
      Buffer.from([0xe4, 0xf6]),
      Buffer.from(' HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
    ]),
    status: 400,
    fromParser: true,
  },
  {
    name: 'a tab in the path',
    raw: get('/resource/organisations/DE\t1a'),
    status: 400,
    fromParser: true,
  },
  {
    name: 'markup in the path, as a browser asks',
    raw: get('/resource/organisations/<script>alert(1)</script>', { Accept: 'text/html' }),
    status: 404,
    malformed: true,
    // The page's own scripts are there; the path's markup is not, but escaped.
    check: (a) => {
      assert.ok(!a.body.includes('<script>alert'), 'escaped');
      assert.ok(a.body.includes('&#60;script&#62;alert'), 'echoed escaped');
    },
  },
  { name: 'upper-case extension', raw: get('/data/organisations/DE-1a.TTL'), status: 404 },
  {
    name: 'double extension',
    raw: get('/data/organisations/DE-1a.ttl.ttl'),
    status: 404,
    malformed: true,
  },
  { name: 'unknown extension', raw: get('/data/organisations/DE-1a.pdf'), status: 404 },
  { name: 'empty extension', raw: get('/data/organisations/DE-1a.'), status: 404 },
  { name: 'an unknown ISIL', raw: get('/resource/organisations/DE-99999'), status: 404 },
  {
    name: 'a case twin redirects, it does not leak',
    raw: get('/resource/organisations/de-1A'),
    status: 301,
    check: (a) => assert.equal(a.header('Location'), `${ASKED}/resource/organisations/DE-1a`),
  },
  {
    name: 'junk query string',
    raw: get('/resource/organisations/DE-1a?x=<script>&y=%00&z=../../'),
    status: 303,
  },
  {
    name: 'absolute-form target: the path counts, the Location stays on the Host asked',
    raw: get('http://evil.example/resource/organisations/DE-1a'),
    status: 303,
    check: (a) => assert.equal(a.header('Location'), `${ASKED}/data/organisations/DE-1a.html`),
  },
  {
    name: 'a Host no URL carries as it is: the Location on BASE_IRI’s origin',
    raw: "GET /resource/organisations/DE-1a HTTP/1.1\r\nHost: a'b\r\nConnection: close\r\n\r\n",
    status: 303,
    check: (a) =>
      assert.equal(
        a.header('Location'),
        'https://ld.zdb-services.de/data/organisations/DE-1a.html',
      ),
  },
  {
    name: 'absolute-form target of a document: served as the origin-form one',
    raw: get('http://evil.example/data/organisations/DE-1a.ttl'),
    status: 200,
    check: servedAsTtl,
  },
  {
    name: 'a doubled slash before the ISIL',
    raw: get('/data/organisations//DE-1a.ttl'),
    status: 404,
    malformed: true,
  },
  {
    name: 'a doubled slash before the ISIL of a page',
    raw: get('/isil//DE-1a'),
    status: 404,
    malformed: true,
  },
  {
    name: 'a query on a document: the path counts',
    raw: get('/data/organisations/DE-1a.ttl?format=rdf&x=%00'),
    status: 200,
    check: servedAsTtl,
  },
  {
    name: 'a fragment mark in the target: what follows it is no part of the path',
    raw: get('/data/organisations/DE-1a.ttl#.rdf'),
    status: 200,
    check: servedAsTtl,
  },
  {
    name: 'an encoded fragment mark is part of the path',
    raw: get('/data/organisations/DE-1a.ttl%23x'),
    status: 404,
  },
  {
    name: 'absolute-form target of another scheme: the path counts, as for http',
    raw: get('x://h/data/organisations/DE-1a.ttl'),
    status: 200,
    check: servedAsTtl,
  },
  {
    name: 'absolute-form target of another scheme that ends at the mount point',
    raw: get('x://h/data/organisations'),
    status: 404,
    malformed: true,
  },
  { name: 'an unknown top-level path', raw: get('/admin'), status: 404 },
  // Methods
  {
    name: 'POST',
    raw: get('/resource/organisations/DE-1a', { 'Content-Length': '2' }, 'POST').replace(
      /\r\n\r\n$/,
      '\r\n\r\n{}',
    ),
    status: 405,
    check: (a) => assert.equal(a.header('Allow'), 'GET, HEAD, OPTIONS'),
  },
  { name: 'PUT', raw: get(TTL, { 'Content-Length': '0' }, 'PUT'), status: 405 },
  { name: 'DELETE', raw: get(TTL, {}, 'DELETE'), status: 405 },
  { name: 'PATCH', raw: get(TTL, {}, 'PATCH'), status: 405 },
  { name: 'TRACE', raw: get(TTL, {}, 'TRACE'), status: 405 },
  { name: 'PROPFIND', raw: get(TTL, {}, 'PROPFIND'), status: 405 },
  {
    name: 'a made-up method (Node does not know it either)',
    raw: get(TTL, {}, 'BREW'),
    status: 405,
    fromParser: true,
    check: (a) => assert.equal(a.header('Allow'), 'GET, HEAD, OPTIONS'),
  },
  {
    name: 'a made-up method on /resource',
    raw: get('/resource/organisations/DE-1a', {}, 'SPARQL'),
    status: 405,
    fromParser: true,
    check: (a) => assert.equal(a.header('Allow'), 'GET, HEAD, OPTIONS'),
  },
  {
    name: 'a lower-case get (methods are case-sensitive, RFC 9110 §9.1)',
    raw: get(TTL, {}, 'get'),
    status: 405,
    fromParser: true,
  },
  { name: 'DELETE on /isil/', raw: get('/isil/DE-1a', {}, 'DELETE'), status: 405 },
  {
    name: 'POST with a SPARQL update as its body',
    raw: `POST /resource/organisations/DE-1a HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/sparql-update\r\nContent-Length: 26\r\n\r\nDELETE WHERE { ?s ?p ?o }\n`,
    status: 405,
  },
  {
    name: 'a method with a character no token has',
    raw: get(TTL, {}, 'G(ET'),
    status: 400,
    fromParser: true,
  },
  {
    name: 'a request line without a target',
    raw: 'GET HTTP/1.1\r\nHost: localhost\r\n\r\n',
    status: 400,
    fromParser: true,
  },
  {
    name: 'a header line without a colon',
    raw: `GET ${TTL} HTTP/1.1\r\nHost: localhost\r\nno colon here\r\n\r\n`,
    status: 400,
    fromParser: true,
  },
  {
    name: 'Content-Length and Transfer-Encoding together (request smuggling, RFC 9112 §6.1)',
    raw: `POST ${TTL} HTTP/1.1\r\nHost: localhost\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    status: 400,
    fromParser: true,
  },
  {
    name: 'CONNECT',
    raw: 'CONNECT localhost:22 HTTP/1.1\r\nHost: localhost:22\r\n\r\n',
    status: 405,
    fromParser: true,
    check: (a) => assert.equal(a.header('Allow'), 'GET, HEAD, OPTIONS'),
  },
  // Accept
  {
    name: 'Accept: garbage',
    raw: get('/resource/organisations/DE-1a', { Accept: 'garbage' }),
    status: 303,
    check: (a) => assert.equal(a.header('Location'), `${ASKED}/data/organisations/DE-1a.html`),
  },
  {
    name: 'Accept: 5,000 characters',
    raw: get('/resource/organisations/DE-1a', {
      Accept: `text/turtle;q=0.5,${'x/y,'.repeat(1250)}`,
    }),
    status: 303,
  },
  {
    name: 'Accept: only commas',
    raw: get('/resource/organisations/DE-1a', { Accept: ',,,,,,,,' }),
    status: 303,
  },
  {
    name: 'Accept: q=abc',
    raw: get('/resource/organisations/DE-1a', { Accept: '*/*;q=abc' }),
    status: 303,
  },
  {
    name: 'Accept: image/png',
    raw: get('/resource/organisations/DE-1a', { Accept: 'image/png' }),
    status: 406,
  },
  {
    name: 'Accept with a NUL byte',
    raw: get('/resource/organisations/DE-1a', { Accept: 'text/turtle\u0000' }),
    status: 400,
    fromParser: true,
  },
  // Validators and ranges
  { name: 'If-None-Match: garbage', raw: get(TTL, { 'If-None-Match': 'garbage' }), status: 200 },
  { name: 'If-None-Match: unquoted', raw: get(TTL, { 'If-None-Match': 'abc, def' }), status: 200 },
  { name: 'If-None-Match: W/ alone', raw: get(TTL, { 'If-None-Match': 'W/' }), status: 200 },
  {
    name: 'If-None-Match: 5,000 characters',
    raw: get(TTL, { 'If-None-Match': `"${long(5000)}"` }),
    status: 200,
  },
  {
    name: 'If-None-Match: * matches any current document',
    raw: get(TTL, { 'If-None-Match': '*' }),
    status: 304,
  },
  {
    name: 'If-Modified-Since: garbage',
    raw: get(TTL, { 'If-Modified-Since': 'next tuesday' }),
    status: 200,
  },
  {
    name: 'If-Modified-Since: far future',
    raw: get(TTL, { 'If-Modified-Since': 'Fri, 01 Jan 9999 00:00:00 GMT' }),
    status: 304,
  },
  {
    name: 'If-Modified-Since: 1970',
    raw: get(TTL, { 'If-Modified-Since': 'Thu, 01 Jan 1970 00:00:00 GMT' }),
    status: 200,
  },
  {
    name: 'Range: bytes=0-10 is ignored',
    raw: get(TTL, { Range: 'bytes=0-10' }),
    status: 200,
    check: (a) => assert.ok(a.body.length > 100),
  },
  { name: 'Range past the end is ignored', raw: get(TTL, { Range: 'bytes=999999-' }), status: 200 },
  { name: 'Range: garbage is ignored', raw: get(TTL, { Range: 'garbage' }), status: 200 },
  // Other headers
  { name: 'Accept-Encoding: garbage', raw: get(TTL, { 'Accept-Encoding': '@@@;;;' }), status: 200 },
  {
    name: 'Accept-Encoding: everything refused',
    raw: get(TTL, { 'Accept-Encoding': 'br;q=0, gzip;q=0' }),
    status: 200,
    check: (a) => assert.equal(a.header('Content-Encoding'), undefined),
  },
  {
    name: 'Accept-Encoding: identity;q=0',
    raw: get(TTL, { 'Accept-Encoding': 'identity;q=0' }),
    status: 200,
  },
  {
    name: 'two Host headers (RFC 9112 §3.2; Node would keep the first)',
    raw: `GET ${TTL} HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n`,
    status: 400,
    check: (a) => assert.match(a.body, /Host/),
  },
  {
    name: 'two Host headers, the same value in other cases of the name',
    raw: `GET ${TTL} HTTP/1.1\r\nHost: a\r\nConnection: close\r\nhOST: a\r\n\r\n`,
    status: 400,
  },
  {
    name: 'two Host headers in HTTP/1.0 (any request message, RFC 9112 §3.2)',
    raw: `GET ${TTL} HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n`,
    status: 400,
  },
  {
    name: 'a Host value that is no host (a space, a slash): 400 (RFC 9112 §3.2)',
    raw: `GET ${TTL} HTTP/1.1\r\nHost: a b/c\r\nConnection: close\r\n\r\n`,
    status: 400,
    check: (a) => assert.match(a.body, /Host/),
  },
  {
    name: 'a Host of an IPv6 literal with a port is answered',
    raw: `GET ${TTL} HTTP/1.1\r\nHost: [::1]:8080\r\nConnection: close\r\n\r\n`,
    status: 200,
  },
  {
    name: 'one Host header among headers of four characters is answered',
    raw: get(TTL, { Date: 'Tue, 01 Dec 2026 00:00:00 GMT', From: 'a@example.org', Via: '1.1 p' }),
    status: 200,
  },
  {
    name: 'X-Request-Id of 500 characters is not echoed',
    raw: get(TTL, { 'X-Request-Id': long(500) }),
    status: 200,
    check: (a) => assert.ok((a.header('X-Request-Id') ?? '').length < 64),
  },
  {
    name: 'X-Request-Id with markup is not echoed',
    raw: get(TTL, { 'X-Request-Id': '<b>id</b>' }),
    status: 200,
    check: (a) => assert.ok(!a.header('X-Request-Id')?.includes('<')),
  },
  {
    name: 'a 16 KB header',
    raw: get(TTL, { 'X-Big': long(16 * 1024) }),
    status: 431,
    fromParser: true,
  },
  {
    name: 'a 20 KB request target',
    raw: `GET /data/organisations/DE-${long(20 * 1024)}.ttl HTTP/1.1\r\nHost: x\r\n\r\n`,
    status: 414,
    fromParser: true,
  },
  { name: 'not HTTP at all', raw: 'HELLO\r\n\r\n', status: 400, fromParser: true },
  {
    name: 'HTTP/1.1 without Host (RFC 9112 §3.2)',
    raw: `GET ${TTL} HTTP/1.1\r\nConnection: close\r\n\r\n`,
    status: 400,
    check: (a) => assert.match(a.body, /Host/),
  },
  {
    name: 'HTTP/1.0 without Host is answered (Host is HTTP/1.1)',
    raw: `GET ${TTL} HTTP/1.0\r\n\r\n`,
    status: 200,
  }, // Versions (RFC 9110 §15.6.6): Node's parser takes HTTP/2.0 and HTTP/0.9 to the app, refuses
  // the others; either way the answer is 505. A malformed version is a bad request line.
  ...['HTTP/2.0', 'HTTP/3.0', 'HTTP/1.2', 'HTTP/0.9', 'HTTP/9.9'].map((version): Row => ({
    name: `a ${version} request line answers 505`,
    raw: `GET ${TTL} ${version}\r\nHost: localhost\r\n\r\n`,
    status: 505,
    check: (a) => {
      assert.match(a.body, /HTTP\/1\.1/);
      assert.equal(a.header('Connection'), 'close');
    },
  })),
  {
    name: 'the HTTP/2 preface (h2c with prior knowledge) answers 505',
    raw: 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
    status: 505,
    fromParser: true,
  },
  {
    name: 'a version without its minor digit',
    raw: `GET ${TTL} HTTP/2\r\nHost: x\r\n\r\n`,
    status: 400,
  },
  {
    name: 'a version of two minor digits',
    raw: `GET ${TTL} HTTP/1.10\r\nHost: x\r\n\r\n`,
    status: 400,
  },
];

describe('hostile requests', () => {
  let server: http.Server;
  let port: number;
  let before_: Answer;

  before(async () => {
    const config = testConfig({ PUBLIC_URL: '' });
    const started = startServer(config, createLogger('silent'), {
      storeHealth: inProcessStore.health,
    });
    server = started.server;
    await loadInto(started.service, createLogger('silent'), inProcessStore);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    before_ = await send(port, get(TTL));
    assert.equal(before_.status, 200);
  });

  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it(`the table has at least 50 rows that expect a 4xx (${ROWS.filter(expectsClientError).length})`, () =>
    assert.ok(ROWS.filter(expectsClientError).length >= 50));

  for (const row of ROWS) {
    it(row.name, async () => {
      const answer = await send(port, row.raw);
      const allowed = typeof row.status === 'number' ? [row.status] : row.status;
      assert.ok(
        allowed.includes(answer.status),
        `status ${answer.status}, expected ${allowed.join(' or ')}`,
      );
      // 505 is the one 5xx defined for a request: the server does not speak its version.
      assert.ok(answer.status < 500 || answer.status === 505, 'never a 5xx but 505');
      if (answer.status >= 400) {
        for (const leak of ['    at ', '/work/', 'node_modules', 'Error:', '.ts:'])
          assert.ok(!answer.body.includes(leak), `the body shows ${JSON.stringify(leak)}`);
        assert.equal(answer.header('Access-Control-Allow-Origin'), '*');
      }
      if (row.malformed) assert.match(answer.body, /not a well-formed ISIL/);
      row.check?.(answer);
    });
  }

  it('answers normally afterwards, with the same document', async () => {
    const after_ = await send(port, get(TTL));
    assert.equal(after_.status, 200);
    assert.equal(after_.body, before_.body);
    assert.equal(after_.header('ETag'), before_.header('ETag'));
  });
});
