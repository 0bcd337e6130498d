// Whether a server's connection is between requests (src/process/idle.ts): the test the stop and
// the connection cap share before they close a connection.
import assert from 'node:assert/strict';
import type http from 'node:http';
import net from 'node:net';
import { isIdle, type ServerSocket } from '../../../src/process/idle';

/** A socket as Node leaves it: `bytesRead` and the parser's `duration()` say what was read. */
const socket = (bytesRead: number, duration?: number, answering = false): ServerSocket =>
  ({
    bytesRead,
    ...(duration === undefined ? {} : { parser: { duration: () => duration } }),
    ...(answering ? { _httpMessage: {} as http.ServerResponse } : {}),
  }) as ServerSocket;

describe('isIdle', () => {
  it('takes a connection that sent nothing yet for idle', () => {
    assert.equal(isIdle(new net.Socket() as ServerSocket), true);
  });

  it('takes a connection between requests for idle', () => {
    assert.equal(isIdle(socket(120, 0)), true);
  });

  it('never takes a connection whose answer is being made or written for idle', () => {
    assert.equal(isIdle(socket(0, 0, true)), false);
    assert.equal(isIdle(socket(120, 0, true)), false);
  });

  it('never takes a connection with a request partly read for idle', () => {
    assert.equal(isIdle(socket(120, 5)), false);
  });

  it('never takes a connection that read bytes but has no parser for idle', () => {
    assert.equal(isIdle(socket(120)), false);
  });
});
