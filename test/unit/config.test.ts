// Settings: the defaults, every bad value stopping start-up with the variable's name, and a frozen result.
import assert from 'node:assert/strict';
import path from 'node:path';
import { inspect } from 'node:util';
import { ConfigError, loadConfig, maxConnections, type Config } from '../../src/config/config';
import { BUNDLED_DATASET } from '../../src/util/bundled';
import { PROJECT_ROOT } from '../../src/util/paths';

describe('loadConfig defaults', () => {
  const config = loadConfig({});
  const rows: [string, unknown, unknown][] = [
    ['PORT', config.port, 8080],
    ['HOST', config.host, '0.0.0.0'],
    ['BASE_IRI', config.baseIri, 'https://ld.zdb-services.de'],
    ['DATASET', config.dataset, path.join(PROJECT_ROOT, 'data', 'dataset.nq')],
    ['ISIL_DIRECTORY_URL', config.isilDirectoryUrl, ''],
    ['PUBLIC_URL', config.publicUrl, ''],
    ['LOG_LEVEL', config.logLevel, 'info'],
    ['CACHE_MAX_BYTES', config.cacheMaxBytes, 256 * 1024 * 1024],
    ['CACHE_MAX_AGE', config.maxAge, 3600],
    ['HEADERS_TIMEOUT_MS', config.headersTimeoutMs, 10_000],
    ['REQUEST_TIMEOUT_MS', config.requestTimeoutMs, 30_000],
    ['KEEP_ALIVE_TIMEOUT_MS', config.keepAliveTimeoutMs, 5_000],
    ['SHUTDOWN_GRACE_MS', config.shutdownGraceMs, 10_000],
    ['HEAP_GROWING_PERCENT', config.heapGrowingPercent, 100],
    ['OAI_ADMIN_EMAIL', config.oaiAdminEmail, 'webmaster@ld.zdb-services.de'],
    ['the bundled dataset', config.bundledDataset, BUNDLED_DATASET],
  ];
  for (const [name, actual, expected] of rows)
    it(`${name} = ${JSON.stringify(expected)}`, () => assert.deepEqual(actual, expected));
  it('an empty value means the default', () =>
    assert.equal(loadConfig({ PORT: '', BASE_IRI: '', LOG_LEVEL: '' }).port, 8080));
});

describe('loadConfig refuses bad values, naming the variable', () => {
  const rows: [string, string][] = [
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['PORT', '80.5'],
    ['PORT', ' 80'],
    ['BASE_IRI', 'ftp://x'],
    ['BASE_IRI', 'not a url'],
    ['BASE_IRI', 'ld.zdb-services.de'],
    ['BASE_IRI', 'https://ld.zdb-services.de/?x=1'],
    ['BASE_IRI', 'https://ld.zdb-services.de/#x'],
    ['BASE_IRI', 'https://user:secret@ld.zdb-services.de'],
    // An empty query or fragment passed the check and broke every minted IRI (`…/?/resource/…`).
    ['BASE_IRI', 'https://ld.zdb-services.de/?'],
    ['BASE_IRI', 'https://ld.zdb-services.de/#'],
    // Whitespace the URL parser drops passed the check, and the loader crashed on the typed value.
    ['BASE_IRI', 'https://ld.zdb-services.de\n'],
    ['BASE_IRI', 'https://ld.zdb-services.de '],
    ['BASE_IRI', ' https://ld.zdb-services.de'],
    ['BASE_IRI', 'https://ld.zdb-services.de/a b'],
    ['BASE_IRI', 'https://ld.zdb-services.de/a\tb'],
    ['BASE_IRI', 'https://ld.zdb-services.de/a|b'],
    ['PUBLIC_URL', 'https://staging.example.org/?'],
    ['PUBLIC_URL', 'staging.example.org'],
    ['PUBLIC_URL', 'https://user:secret@staging.example.org'],
    ['ISIL_DIRECTORY_URL', 'https://sigel.example.org/?'],
    ['ISIL_DIRECTORY_URL', 'https://sigel.example.org\n'],
    ['ISIL_DIRECTORY_URL', 'example.org'],
    ['ISIL_DIRECTORY_URL', 'javascript:alert(1)'],
    ['HOST', 'local host'],
    ['OAI_ADMIN_EMAIL', 'nobody'],
    ['OAI_ADMIN_EMAIL', 'a@localhost'],
    ['OAI_ADMIN_EMAIL', 'a b@example.org'],
    // A folder holding the third-party files: a file or a missing path is refused at once.
    ['THIRD_PARTY_DIR', '/nonexistent/shared'],
    ['THIRD_PARTY_DIR', __filename],
    ['LOG_LEVEL', 'loud'],
    ['LOG_LEVEL', 'INFO'],
    ['CACHE_MAX_BYTES', '-1'],
    ['CACHE_MAX_BYTES', '1e9'],
    ['CACHE_MAX_AGE', '31536001'],
    ['HEADERS_TIMEOUT_MS', '0'],
    ['REQUEST_TIMEOUT_MS', '600001'],
    ['KEEP_ALIVE_TIMEOUT_MS', 'soon'],
    ['SHUTDOWN_GRACE_MS', '10s'],
    ['HEAP_GROWING_PERCENT', '-1'],
    ['HEAP_GROWING_PERCENT', '1001'],
    ['HEAP_GROWING_PERCENT', '50%'],
    ['HEAP_GROWING_PERCENT', '1'],
    ['HEAP_GROWING_PERCENT', '9'],
    ['DATASET', 'fixtures'],
    ['DATASET', '.'],
    ['DUMPS_DIR', 'package.json'],
    ['HISTORY_DIR', 'package.json'],
    ['HISTORY_KEEP_VERSIONS', '-1'],
    ['HISTORY_KEEP_VERSIONS', 'all'],
    ['OAI_ADMIN_EMAIL', 'webmaster'],
    ['MAP_TILES', 'tiles.example.org/{z}/{x}/{y}.png'],
    ['MAP_TILES', 'https://tiles.example.org/{z}/{x}.png'],
    ['MAP_TILES', 'https://tiles.example.org/"><script>/{z}/{x}/{y}'],
  ];
  for (const [variable, value] of rows) {
    it(`${variable}=${JSON.stringify(value)}`, () => {
      assert.throws(
        () => loadConfig({ [variable]: value }),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.variable === variable &&
          error.message.startsWith(`${variable}:`),
      );
    });
  }
});

describe('SPARQL_ENDPOINT is read by the rule of BASE_IRI', () => {
  const remote = (endpoint: string) => loadConfig({ STORE: 'remote', SPARQL_ENDPOINT: endpoint });
  it('refuses an empty fragment, naming the variable', () =>
    assert.throws(
      () => remote('http://store.example.org:8890/sparql#'),
      (error: unknown) => error instanceof ConfigError && error.variable === 'SPARQL_ENDPOINT',
    ));
  it('normalises the host and drops the default port', () => {
    const { store } = remote('HTTP://Store.Example.org:80/sparql/');
    assert.equal(store.kind === 'remote' && store.endpoint, 'http://store.example.org/sparql');
  });
});

describe('loadConfig accepts and normalises', () => {
  const rows: [string, Record<string, string>, keyof Config, unknown][] = [
    [
      'HEAP_GROWING_PERCENT 0 leaves V8 its own',
      { HEAP_GROWING_PERCENT: '0' },
      'heapGrowingPercent',
      0,
    ],
    [
      'HEAP_GROWING_PERCENT 10, the least',
      { HEAP_GROWING_PERCENT: '10' },
      'heapGrowingPercent',
      10,
    ],
    [
      'BASE_IRI loses its trailing slash',
      { BASE_IRI: 'https://example.org/' },
      'baseIri',
      'https://example.org',
    ],
    [
      'BASE_IRI loses repeated slashes',
      { BASE_IRI: 'http://example.org/a//' },
      'baseIri',
      'http://example.org/a',
    ],
    // The value used is the one checked: normalised as the URL parser reads it.
    [
      'BASE_IRI: scheme and host in lower case',
      { BASE_IRI: 'HTTPS://LD.ZDB-Services.DE/Base' },
      'baseIri',
      'https://ld.zdb-services.de/Base',
    ],
    [
      'BASE_IRI: the default port dropped',
      { BASE_IRI: 'https://ld.zdb-services.de:443/' },
      'baseIri',
      'https://ld.zdb-services.de',
    ],
    [
      'BASE_IRI: another port kept',
      { BASE_IRI: 'http://localhost:8080' },
      'baseIri',
      'http://localhost:8080',
    ],
    [
      'BASE_IRI: dot segments resolved, encoded ones too',
      { BASE_IRI: 'https://example.org/a/./b/../c/%2e%2e/d/' },
      'baseIri',
      'https://example.org/a/d',
    ],
    [
      'BASE_IRI: an international host in its ASCII form',
      { BASE_IRI: 'https://bücher.example/' },
      'baseIri',
      'https://xn--bcher-kva.example',
    ],
    [
      'ISIL_DIRECTORY_URL normalised the same way',
      { ISIL_DIRECTORY_URL: 'HTTP://Sigel.Example.org:80/x/../' },
      'isilDirectoryUrl',
      'http://sigel.example.org',
    ],
    [
      'ISIL_DIRECTORY_URL loses its slash',
      { ISIL_DIRECTORY_URL: 'https://a.example/' },
      'isilDirectoryUrl',
      'https://a.example',
    ],
    ['PORT=0 (any free port)', { PORT: '0' }, 'port', 0],
    ['PORT=65535', { PORT: '65535' }, 'port', 65535],
    ['CACHE_MAX_BYTES=0 turns the cache off', { CACHE_MAX_BYTES: '0' }, 'cacheMaxBytes', 0],
    ['LOG_LEVEL=silent', { LOG_LEVEL: 'silent' }, 'logLevel', 'silent'],
    ['HOST as an IPv6 address', { HOST: '::1' }, 'host', '::1'],
    [
      'DATASET made absolute',
      { DATASET: 'snap/dataset.nq' },
      'dataset',
      path.resolve('snap/dataset.nq'),
    ],
  ];
  rows.push(
    ['DUMPS_DIR empty: no dumps', { DUMPS_DIR: '' }, 'dumpsDir', ''],
    ['HISTORY_DIR empty: no change log', { HISTORY_DIR: '' }, 'historyDir', ''],
    [
      'HISTORY_DIR by default: the folder of DATASET',
      { DATASET: 'snap/dataset.nq' },
      'historyDir',
      path.resolve('snap'),
    ],
    ['MAP_TILES empty: no tiles', { MAP_TILES: '' }, 'mapTiles', ''],
  );
  for (const [name, env, key, expected] of rows)
    it(name, () => assert.equal(loadConfig(env)[key], expected));
});

describe('loadConfig result', () => {
  it('is frozen', () => {
    const config = loadConfig({});
    assert.ok(Object.isFrozen(config));
    assert.throws(() => {
      (config as { port: number }).port = 1;
    }, TypeError);
    assert.equal(config.port, 8080);
  });
});

describe('MAX_CONNECTIONS', () => {
  for (const [openFiles, expected] of [
    [512, 128],
    [1024, 384],
    [20_000, 9872],
    [1_048_576, 16_384],
    [100, 16],
    [undefined, 16_384],
  ] as const)
    it(`defaults to ${expected} with an open-files limit of ${openFiles}`, () =>
      assert.equal(maxConnections({}, openFiles), expected));
  it('is refused above what the open-files limit leaves, naming the variable and the limit', () =>
    assert.throws(
      () => maxConnections({ MAX_CONNECTIONS: '300' }, 512),
      /^ConfigError: MAX_CONNECTIONS: expected at most 256 \(the open-files limit, ulimit -n, is 512/,
    ));
  it('takes a value within it', () =>
    assert.equal(maxConnections({ MAX_CONNECTIONS: '256' }, 512), 256));
});

describe('OAI_ADMIN_EMAIL', () => {
  it('is taken as given', () =>
    assert.equal(
      loadConfig({ OAI_ADMIN_EMAIL: 'isil@example.org' }).oaiAdminEmail,
      'isil@example.org',
    ));
  it('defaults to an address the schema accepts on a development BASE_IRI', () =>
    assert.equal(
      loadConfig({ BASE_IRI: 'http://localhost:8080' }).oaiAdminEmail,
      'webmaster@localhost.invalid',
    ));
});

describe('OAI_TOKEN_KEY', () => {
  const secret = 'k'.repeat(31);
  it('too short is a configuration error naming the variable, not the key', () =>
    assert.throws(
      () => loadConfig({ OAI_TOKEN_KEY: secret }),
      (error: Error) =>
        error instanceof ConfigError &&
        /^OAI_TOKEN_KEY: expected a secret of at least 32 bytes .*got 31$/.test(error.message) &&
        !error.message.includes(secret) &&
        !String(error.stack).includes(secret),
    ));
  it('32 bytes are taken', () =>
    assert.doesNotThrow(() => loadConfig({ OAI_TOKEN_KEY: `${secret}k` })));
  it('is never shown with the settings (JSON, inspect)', () => {
    const config = loadConfig({ OAI_TOKEN_KEY: `${secret}k` });
    for (const text of [JSON.stringify(config), inspect(config, { depth: 9, showHidden: true })])
      assert.ok(!text.includes(secret), text);
  });
});

describe('PUBLIC_URL', () => {
  it('is used as the URL parser reads it, without a trailing slash', () =>
    assert.equal(
      loadConfig({ PUBLIC_URL: 'HTTPS://Staging.Example.org:443/' }).publicUrl,
      'https://staging.example.org',
    ));
});
