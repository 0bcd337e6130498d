// The staff endpoint's settings: off by default, its limits' defaults, every bad value named.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/config/config';
import { SPARQL_DEFAULTS } from '../../src/config/sparqlConfig';
import { tempDir } from '../support';

describe('the SPARQL settings', () => {
  const users = path.join(tempDir(), 'users');
  fs.writeFileSync(users, '');

  it('leave the endpoint off, with the documented defaults', () => {
    const { sparql } = loadConfig({});
    assert.equal(sparql.users, undefined);
    assert.equal(sparql.listen, undefined);
    assert.equal(sparql.workers, 2);
    assert.equal(sparql.timeoutMs, 30_000);
    assert.equal(sparql.idleSeconds, 300);
    assert.equal(sparql.maxRows, SPARQL_DEFAULTS.maxRows);
    assert.equal(sparql.maxResultBytes, SPARQL_DEFAULTS.maxResultBytes);
    assert.equal(sparql.maxBodyBytes, SPARQL_DEFAULTS.maxBodyBytes);
    assert.equal(sparql.perUser, SPARQL_DEFAULTS.perUser);
    assert.equal(sparql.queue, SPARQL_DEFAULTS.queue);
    assert.equal(sparql.maxFailures, 10);
  });

  it('take a credentials file and a listener of its own, IPv6 included', () => {
    const { sparql } = loadConfig({ SPARQL_USERS: users, SPARQL_LISTEN: '[::1]:8081' });
    assert.equal(sparql.users, users);
    assert.deepEqual(sparql.listen, { host: '::1', port: 8081 });
    assert.deepEqual(loadConfig({ SPARQL_LISTEN: '127.0.0.1:0' }).sparql.listen, {
      host: '127.0.0.1',
      port: 0,
    });
  });

  it('name the variable of a bad value', () => {
    for (const [name, value] of [
      ['SPARQL_USERS', '/nonexistent/users'],
      ['SPARQL_USERS', path.dirname(users)],
      ['SPARQL_LISTEN', '8081'],
      ['SPARQL_LISTEN', 'host:99999'],
      ['SPARQL_LISTEN', 'a b:80'],
      ['SPARQL_WORKERS', '0'],
      ['SPARQL_WORKERS', 'two'],
      ['SPARQL_TIMEOUT_MS', '10'],
      ['SPARQL_IDLE_SECONDS', '0'],
      ['SPARQL_IDLE_SECONDS', 'soon'],
      ['SPARQL_MAX_ROWS', '0'],
      ['SPARQL_WORKER_MEMORY_MB', '1'],
    ] as const) {
      assert.throws(
        () => loadConfig({ [name]: value }),
        (e: Error) => e instanceof ConfigError && e.variable === name,
        `${name}=${value}`,
      );
    }
  });
});
