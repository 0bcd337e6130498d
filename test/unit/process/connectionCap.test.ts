// The connection cap (src/process/connectionCap.ts): at the cap a new connection closes the one
// idle the longest, and is refused only when every connection is busy or too young to close.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type http from 'node:http';
import net from 'node:net';
import { capConnections, type CapReport } from '../../../src/process/connectionCap';
import type { ServerSocket } from '../../../src/process/idle';

/** Longer than the age below which a connection is not closed for a newer one. */
const PAST_YOUNG_MS = 300;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('capConnections', () => {
  let server: http.Server;
  let refused: net.Socket[];
  let reports: CapReport[];
  const connect = (): ServerSocket => {
    const socket = new net.Socket() as ServerSocket;
    server.emit('connection', socket);
    return socket;
  };
  const busy = (socket: ServerSocket) => {
    socket._httpMessage = {} as http.ServerResponse;
  };
  beforeEach(() => {
    // Only the events the cap listens to: no port, no parser.
    server = new EventEmitter() as http.Server;
    refused = [];
    reports = [];
    capConnections(
      server,
      2,
      (socket) => refused.push(socket),
      (what) => reports.push(what),
    );
  });

  it('takes connections up to the cap', () => {
    const sockets = [connect(), connect()];
    assert.deepEqual(refused, []);
    assert.ok(sockets.every((s) => !s.destroyed));
  });

  it('closes the connection idle the longest for a new one at the cap, and says so', async () => {
    const [first, second] = [connect(), connect()];
    await pause(PAST_YOUNG_MS);
    const third = connect();
    assert.equal(first.destroyed, true);
    assert.equal(second.destroyed, false);
    assert.equal(third.destroyed, false);
    assert.deepEqual(refused, []);
    assert.deepEqual(reports, [{ max: 2, closedIdle: 1, refused: 0 }]);
  });

  it('counts a connection’s request as use: the other one is then idle the longest', async () => {
    const [first, second] = [connect(), connect()];
    await pause(PAST_YOUNG_MS);
    server.emit('request', { socket: first });
    connect();
    assert.equal(first.destroyed, false);
    assert.equal(second.destroyed, true);
  });

  it('never closes a busy connection: the new one is refused', async () => {
    const sockets = [connect(), connect()];
    sockets.forEach(busy);
    await pause(PAST_YOUNG_MS);
    const third = connect();
    assert.deepEqual(refused, [third]);
    assert.ok(sockets.every((s) => !s.destroyed));
    assert.deepEqual(reports, [{ max: 2, closedIdle: 0, refused: 1 }]);
  });

  it('refuses rather than close a connection accepted a moment ago', () => {
    const sockets = [connect(), connect()];
    const third = connect();
    assert.deepEqual(refused, [third]);
    assert.ok(sockets.every((s) => !s.destroyed));
  });

  it('makes room again once a connection closes', async () => {
    const [first] = [connect(), connect()];
    first.destroy();
    await new Promise((resolve) => first.once('close', resolve));
    connect();
    assert.deepEqual(refused, []);
  });

  it('says what it did once, then not again within its reporting interval', async () => {
    connect();
    connect();
    connect();
    connect();
    assert.equal(refused.length, 2);
    assert.deepEqual(reports, [{ max: 2, closedIdle: 0, refused: 1 }]);
  });
});
