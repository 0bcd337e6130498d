// The one table from an error to its answer (src/http/errors.ts): each domain error's status,
// headers and log level; an HttpError as it is; a library's 4xx bare; anything else a logged 500.
import assert from 'node:assert/strict';
import {
  answerOf,
  badRequest,
  cannotWrite,
  HttpError,
  methodNotAllowed,
  notAcceptable,
  serviceUnavailable,
  tooManyRequests,
} from '../../../src/http/errors';
import { RendersBusy } from '../../../src/documents/renderQueue';
import { SearchUnavailable } from '../../../src/search/searchHolder';
import {
  CannotWrite,
  NoFormatAccepted,
  QueryAbandoned,
  QueryFailed,
  QueryTimeout,
  StaffUnavailable,
} from '../../../src/store/staff';
import { QueryRefused } from '../../../src/store/staffQuery';
import { StoreClosed, StoreTimeout, StoreUnavailable } from '../../../src/store/store';
import { testConfig } from '../../support';

const context = testConfig({ SPARQL_TIMEOUT_MS: '2500' });
const answer = (error: unknown) => {
  const { http, level, note } = answerOf(error, context);
  return { status: http.status, headers: http.headers, level, note };
};

describe('the answer to an error', () => {
  it('maps each domain error to its status, headers and log level', () => {
    const table: [Error, number, Record<string, string>, string][] = [
      [new StoreClosed('closed'), 503, { 'Retry-After': '5' }, 'info'],
      [new RendersBusy(), 503, { 'Retry-After': '1' }, 'silent'],
      [new StoreUnavailable('refused'), 503, { 'Retry-After': '5' }, 'warn'],
      [new StoreTimeout('deadline'), 503, { 'Retry-After': '5' }, 'warn'],
      [new SearchUnavailable('building'), 503, { 'Retry-After': '5' }, 'silent'],
      [new QueryTimeout(''), 503, { 'Retry-After': '3' }, 'silent'],
      [new StaffUnavailable('full', 2), 503, { 'Retry-After': '2' }, 'silent'],
      [new CannotWrite('no XML name'), 406, {}, 'silent'],
      [new QueryAbandoned('gone'), 499, {}, 'silent'],
      [new QueryRefused(403, 'an update'), 403, {}, 'silent'],
      [new NoFormatAccepted('select'), 406, {}, 'silent'],
      [new QueryFailed('unknown function'), 400, {}, 'silent'],
    ];
    for (const [error, status, headers, level] of table)
      assert.deepEqual(
        [answer(error).status, answer(error).headers, answer(error).level],
        [status, headers, level],
        error.name,
      );
  });

  it('says why a stopping service abandoned a request, and what a timed-out query ran', () => {
    assert.equal(answer(new StoreClosed('closed')).note, 'request abandoned: stopping');
    assert.equal(
      answerOf(new QueryTimeout(''), context).http.message,
      'The query ran longer than 2500 ms and was stopped.',
    );
    assert.match(answerOf(new QueryFailed('boom'), context).http.message, /cannot run.*boom/);
  });

  it('lists the formats a staff answer can be had in', () => {
    assert.ok(answerOf(new NoFormatAccepted('select'), context).http.links.length > 0);
    assert.match(answerOf(new CannotWrite('x'), context).http.message, /Ask for another format/);
  });

  it('takes an HttpError as it is, logging its cause as a warning', () => {
    const plain = badRequest('no');
    assert.equal(answerOf(plain, context).http, plain);
    assert.equal(answerOf(plain, context).level, 'silent');
    const caused = cannotWrite('RDF/XML', 'why', [], new Error('data'));
    assert.equal(answerOf(caused, context).level, 'warn');
  });

  it('answers a library’s client error bare, and anything else 500, logged as an error', () => {
    const lib = Object.assign(new Error('URI malformed'), { status: 400 });
    assert.deepEqual(
      [answer(lib).status, answerOf(lib, context).http.message],
      [400, 'Bad request.'],
    );
    assert.equal(answer(lib).level, 'silent');
    const bug = new TypeError('x is undefined');
    assert.deepEqual([answer(bug).status, answer(bug).level], [500, 'error']);
    assert.equal(answerOf(bug, context).http.message, 'Internal error.');
  });
});

describe('the status helpers', () => {
  it('give each status its headers', () => {
    assert.deepEqual(
      [tooManyRequests(7, 'slow down', { 'Cache-Control': 'no-store' })].map((e) => [
        e.status,
        e.headers,
      ]),
      [[429, { 'Retry-After': '7', 'Cache-Control': 'no-store' }]],
    );
    assert.deepEqual(serviceUnavailable(1, 'busy').headers, { 'Retry-After': '1' });
    assert.deepEqual(methodNotAllowed().headers, { Allow: 'GET, HEAD, OPTIONS' });
    assert.deepEqual(methodNotAllowed('GET, HEAD', 'files').headers, { Allow: 'GET, HEAD' });
    assert.match(notAcceptable().message, /None of the available documents/);
    assert.ok(badRequest('x') instanceof HttpError);
  });
});
