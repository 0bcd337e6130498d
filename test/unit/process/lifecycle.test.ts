// Stopping without losing a request (src/process/lifecycle.ts, `Connections`): answers begun
// after the stop close their connection, and a connection is closed only once it stayed idle.
import assert from 'node:assert/strict';
import type http from 'node:http';
import net from 'node:net';
import { Connections } from '../../../src/process/lifecycle';
import type { ServerSocket } from '../../../src/process/idle';

type Response = http.ServerResponse & { shouldKeepAlive: boolean };

/** Longer than a connection must stay idle, while stopping, before it is closed. */
const PAST_LINGER_MS = 800;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Connections', () => {
  let server: http.Server;
  let connections: Connections;
  const connect = (): ServerSocket => {
    const socket = new net.Socket() as ServerSocket;
    server.emit('connection', socket);
    return socket;
  };
  const request = (socket: ServerSocket, headersSent = false): Response => {
    const res = { headersSent, shouldKeepAlive: true } as Response;
    server.emit('request', { socket }, res);
    return res;
  };
  const stopped = () => new Promise<void>((resolve) => connections.stop(resolve));
  beforeEach(() => {
    // A listener that never listened: the connection events are emitted by the test.
    server = new net.Server() as unknown as http.Server;
    connections = new Connections(server);
  });

  it('lets answers keep their connection until the stop', () => {
    const res = request(connect());
    assert.equal(res.shouldKeepAlive, true);
  });

  it('closes the connection of an answer not begun at the stop, once sent', async () => {
    const res = request(connect());
    await stopped();
    assert.equal(res.shouldKeepAlive, false);
  });

  it('leaves an answer whose head went out before the stop as it was', async () => {
    const res = request(connect(), true);
    await stopped();
    assert.equal(res.shouldKeepAlive, true);
  });

  it('closes the connection of every answer begun after the stop', async () => {
    const socket = connect();
    await stopped();
    assert.equal(request(socket).shouldKeepAlive, false);
  });

  it('closes an idle connection once it stayed idle, and never a busy one', async () => {
    const idle = connect();
    const busy = connect();
    busy._httpMessage = {} as http.ServerResponse;
    await stopped();
    // Closed as `destroySoon` closes: its side ended, the socket destroyed once that is sent.
    assert.equal(idle.writableEnded, false, 'not at the instant of the stop');
    await pause(PAST_LINGER_MS);
    assert.equal(idle.writableEnded, true);
    assert.equal(busy.writableEnded, false);
    idle.destroy();
    busy.destroy();
  });
});
