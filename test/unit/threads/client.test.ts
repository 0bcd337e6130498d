// One request/reply client for every worker thread (src/threads/client.ts, serve.ts): answers
// matched to their requests, errors with their code, and a thread that ends or hangs failing what
// it owes instead of leaving it waiting.
import assert from 'node:assert/strict';
import path from 'node:path';
import { WorkerClient, type ClientOptions } from '../../../src/threads/client';
import { PROJECT_ROOT } from '../../../src/util/paths';
import type { EchoRequest } from '../../support/echoWorker';

const ECHO = path.join(PROJECT_ROOT, 'test', 'support', 'echoWorker.ts');

describe('the worker request/reply client', function () {
  this.timeout(20_000);
  const clients: WorkerClient<EchoRequest, string>[] = [];
  const start = (options: Partial<ClientOptions> = {}) => {
    const client = new WorkerClient<EchoRequest, string>(ECHO, { name: 'the echo', ...options });
    clients.push(client);
    return client;
  };
  afterEach(async () => {
    await Promise.all(clients.map((c) => c.terminate(new Error('test over'))));
    clients.length = 0;
  });

  it('matches each answer to its request, late answers included', async () => {
    const client = start();
    const answers = await Promise.all([
      client.ask({ op: 'later', text: 'slow', ms: 50 }),
      client.ask({ op: 'echo', text: 'quick' }),
      client.ask({ op: 'echo', text: 'quick too' }),
    ]);
    assert.deepEqual(answers, ['slow', 'quick', 'quick too']);
    assert.equal(client.owing, 0);
  });

  it('an error thrown in the thread arrives with its message, name and code', async () => {
    const error = (await start()
      .ask({ op: 'fail', code: 'EACCES' })
      .catch((e: unknown) => e)) as NodeJS.ErrnoException;
    assert.ok(error instanceof Error);
    assert.equal(error.message, 'failed with EACCES');
    assert.equal(error.code, 'EACCES');
  });

  it('a thread that exits fails what it owes and tells onEnd; later requests fail at once', async () => {
    let ended: Error | undefined;
    const client = start({ onEnd: (error) => (ended = error) });
    const owed = client.ask({ op: 'hang' });
    await assert.rejects(client.ask({ op: 'exit' }), /the echo stopped \(exit code 3\)/);
    await assert.rejects(owed, /the echo stopped/);
    assert.match(String(ended), /exit code 3/);
    await assert.rejects(client.ask({ op: 'echo', text: 'x' }), /the echo stopped/);
    assert.equal(client.alive, false);
  });

  it('a request past its deadline ends the thread and fails', async () => {
    const client = start({ timeoutMs: 300 });
    await assert.rejects(client.ask({ op: 'hang' }), /the echo did not answer within 300 ms/);
    await client.ended;
  });

  it('a retired thread answers what it owes, then ends without telling onEnd', async () => {
    let told = false;
    const client = start({ onEnd: () => (told = true) });
    const owed = client.ask({ op: 'later', text: 'last', ms: 50 });
    client.retire(new Error('freed'));
    assert.equal(await owed, 'last');
    await client.ended;
    assert.equal(told, false);
    await assert.rejects(client.ask({ op: 'echo', text: 'later' }), /freed/);
  });
});
