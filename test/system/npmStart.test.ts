// `npm start` as a user runs it, and the signals an operator sends to the pid they see: SIGHUP to
// the server's pid (the `listening` line's) reloads; SIGTERM to npm's reaches the server, which
// stops, and npm with it; SIGHUP to npm's, which npm does not pass on and dies of, stops the server
// too instead of leaving it orphaned. Before, npm ran a shell and tsx's wrapper in front of the
// server: a SIGHUP to npm or to the wrapper killed the wrapper and orphaned the server.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { startServerProcess, type ServerProcess } from '../support/serverProcess';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether a process with the pid is alive (a zombie is not: it has exited). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^State:\s+Z/m.test(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

/** Waits up to `ms` for `pid` to be gone. */
async function gone(pid: number, ms: number): Promise<boolean> {
  for (let t = 0; t < ms; t += 50) {
    if (!alive(pid)) return true;
    await sleep(50);
  }
  return !alive(pid);
}

const npmStart = () => startServerProcess({ command: ['npm', 'start'] });

describe('npm start and the signals', function () {
  this.timeout(60_000);

  describe('SIGHUP to the server, then SIGTERM to npm', () => {
    let server: ServerProcess;
    before(async () => {
      server = await npmStart();
    });
    after(() => {
      if (alive(server.pid)) process.kill(server.pid, 'SIGKILL');
    });

    it('the server is npm’s own child: no shell, no wrapper between them', () => {
      assert.notEqual(server.pid, server.child.pid);
      const status = fs.readFileSync(`/proc/${server.pid}/status`, 'utf8');
      assert.equal(Number(/^PPid:\s+(\d+)/m.exec(status)![1]), server.child.pid);
    });

    it('SIGHUP to the pid of the listening line reloads, and npm and the server stay', async () => {
      process.kill(server.pid, 'SIGHUP');
      await server.line((l) => l.msg === 'reload finished', 20_000);
      assert.ok(alive(server.pid) && alive(server.child.pid!));
    });

    it('SIGTERM to npm stops the server gracefully, and npm exits with it', async () => {
      process.kill(server.child.pid!, 'SIGTERM');
      const stopping = await server.line((l) => l.msg === 'stopped', 20_000);
      assert.ok(stopping);
      assert.ok(
        server.lines.some(
          (l) => String(l.msg).startsWith('shutting down') && l.signal === 'SIGTERM',
        ),
      );
      assert.ok(await gone(server.pid, 10_000), 'the server still runs');
      await server.exit;
    });
  });

  it('SIGHUP to npm: npm dies of it, and the server stops instead of running on orphaned', async () => {
    const server = await npmStart();
    try {
      process.kill(server.child.pid!, 'SIGHUP');
      await server.exit;
      const said = await server.line(
        (l) => String(l.msg).startsWith('npm, which started the server, is gone'),
        10_000,
      );
      assert.equal(said.pid, server.pid);
      assert.ok(await gone(server.pid, 15_000), 'the server runs on, orphaned');
      assert.ok(server.lines.some((l) => l.msg === 'stopped'));
    } finally {
      if (alive(server.pid)) process.kill(server.pid, 'SIGKILL');
    }
  });
});
