// The staff endpoint's credentials file: one user a line, `name:scrypt$N$r$p$salt$hash` (salt and
// hash in base64), written by `npm run sparql-user` and read by the endpoint. Passwords are never
// stored, logged or compared as text: scrypt (node:crypto) and a constant-time comparison. The
// server reads the file off its serving thread and only up to a bound, and runs only a few
// scrypts at once, so that a flood of logins cannot take the threads file reads need.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (
  password: crypto.BinaryLike,
  salt: crypto.BinaryLike,
  keylen: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;

/** scrypt's cost (docs/benchmark.md, "scrypt"); 16 MiB of memory (128 · N · r). */
const COST = { N: 16_384, r: 8, p: 1 } as const;
const KEY_BYTES = 32;
const SALT_BYTES = 16;
/**
 * The most bytes a credentials file may have: about 10,000 users at ~100 bytes a line. A larger
 * file is not read (docs/benchmark.md, "scrypt": a huge one held the serving thread and its
 * memory).
 */
export const USERS_MAX_BYTES = 1024 * 1024;
/**
 * scrypt runs at once in the process. Each holds one of libuv's threads (4 unless
 * UV_THREADPOOL_SIZE says more) and a core while it hashes; file reads (the dumps), zlib and DNS
 * need the other threads, and the serving thread a core (two at once slowed a bystander during a
 * flood of logins: docs/benchmark.md, "scrypt"). One at a time is plenty for staff, whose verified
 * logins are remembered.
 */
export const SCRYPT_AT_ONCE = 1;
/** scrypt runs waiting for a turn, at most (under a second's wait); past it `verify` throws. */
export const SCRYPT_WAITING = 16;
/** A user name: what Basic authentication can carry (no `:`) and a log line can show. */
export const USER_NAME = /^[A-Za-z0-9._@-]{1,64}$/;

export interface Hash {
  readonly N: number;
  readonly r: number;
  readonly p: number;
  readonly salt: Buffer;
  readonly key: Buffer;
}

export class UsersFileError extends Error {
  override name = 'UsersFileError';
}

/** Too many passwords are being checked already: the caller should try again a moment later. */
export class ScryptBusy extends Error {
  override name = 'ScryptBusy';
}

/** The hash of `password` as a line of the file writes it (without the name). */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(SALT_BYTES);
  const key = await scrypt(password, salt, KEY_BYTES, { ...COST, maxmem: 64 * 1024 ** 2 });
  return `scrypt$${COST.N}$${COST.r}$${COST.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

function parseHash(text: string, where: string): Hash {
  const parts = text.split('$');
  const [scheme, N, r, p, salt, key] = parts;
  const numbers = [N, r, p].map(Number);
  if (
    parts.length !== 6 ||
    scheme !== 'scrypt' ||
    numbers.some((n) => !Number.isSafeInteger(n) || n < 1)
  )
    throw new UsersFileError(`${where}: not an scrypt hash as npm run sparql-user writes it`);
  const [cost, blocks, parallel] = numbers as [number, number, number];
  // A cost beyond what the writer uses would let an edited file make each login take seconds.
  if (cost > 1 << 20 || blocks > 32 || parallel > 16 || (cost & (cost - 1)) !== 0)
    throw new UsersFileError(`${where}: scrypt parameters out of range`);
  return {
    N: cost,
    r: blocks,
    p: parallel,
    salt: Buffer.from(salt!, 'base64'),
    key: Buffer.from(key!, 'base64'),
  };
}

/** The users of the file's text, by name. Throws a UsersFileError naming the line at fault. */
export function parseUsers(text: string, file: string): Map<string, Hash> {
  const users = new Map<string, Hash>();
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const where = `${file}:${index + 1}`;
    const colon = line.indexOf(':');
    const name = line.slice(0, colon);
    if (colon < 0 || !USER_NAME.test(name))
      throw new UsersFileError(
        `${where}: expected name:hash, with a name of letters, digits and ._@-`,
      );
    if (users.has(name)) throw new UsersFileError(`${where}: the user ${name} is listed twice`);
    users.set(name, parseHash(line.slice(colon + 1), where));
  });
  return users;
}

/**
 * Opened without blocking (a FIFO put in the file's place would hold the thread until written to),
 * then a regular file of at most USERS_MAX_BYTES is read: one byte more shows that it grew past.
 */
const OPEN_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NONBLOCK;

/** Why a file of `stat` is not read as a credentials file, or undefined. */
function refusal(stat: fs.Stats, file: string): UsersFileError | undefined {
  if (!stat.isFile()) return new UsersFileError(`${file} is not a regular file: not read`);
  if (stat.size > USERS_MAX_BYTES) return tooLarge(file, stat.size);
  return undefined;
}

const tooLarge = (file: string, size: number) =>
  new UsersFileError(
    `${file} has ${size} bytes or more, over ${USERS_MAX_BYTES} bytes, the most a credentials file may have: not read`,
  );

/** The text of `file`, read on this thread (at start, and by the command line). */
function readText(file: string): string {
  const fd = fs.openSync(file, OPEN_FLAGS);
  try {
    const wrong = refusal(fs.fstatSync(fd), file);
    if (wrong) throw wrong;
    const buffer = Buffer.alloc(USERS_MAX_BYTES + 1);
    let length = 0;
    for (let n = -1; n !== 0 && length < buffer.length; length += n)
      n = fs.readSync(fd, buffer, length, buffer.length - length, null);
    if (length > USERS_MAX_BYTES) throw tooLarge(file, length);
    return buffer.toString('utf8', 0, length);
  } finally {
    fs.closeSync(fd);
  }
}

/** The users of `file`, read on this thread (at start, and by the command line). */
export function readUsers(file: string): Map<string, Hash> {
  return parseUsers(readText(file), file);
}

/** The users of `file`, read off the serving thread (libuv's pool), as the server reads it again. */
export async function loadUsers(file: string): Promise<Map<string, Hash>> {
  const handle = await fs.promises.open(file, OPEN_FLAGS);
  try {
    const wrong = refusal(await handle.stat(), file);
    if (wrong) throw wrong;
    const buffer = Buffer.alloc(USERS_MAX_BYTES + 1);
    let length = 0;
    for (let n = -1; n !== 0 && length < buffer.length; length += n)
      ({ bytesRead: n } = await handle.read(buffer, length, buffer.length - length, null));
    if (length > USERS_MAX_BYTES) throw tooLarge(file, length);
    return parseUsers(buffer.toString('utf8', 0, length), file);
  } finally {
    await handle.close();
  }
}

let running = 0;
const waiting: (() => void)[] = [];

/** `run` once fewer than SCRYPT_AT_ONCE runs are going; throws ScryptBusy when too many wait. */
async function inTurn<T>(run: () => Promise<T>): Promise<T> {
  if (running < SCRYPT_AT_ONCE) running++;
  else if (waiting.length >= SCRYPT_WAITING)
    throw new ScryptBusy(`${SCRYPT_WAITING} password checks are waiting already`);
  else await new Promise<void>((resolve) => waiting.push(resolve));
  try {
    return await run();
  } finally {
    // The turn passes to the next waiting, or is given back.
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

/**
 * Whether `password` is the one `hash` was made of; constant time in what it compares. At most
 * SCRYPT_AT_ONCE run at once in the process, the others wait their turn (ScryptBusy past
 * SCRYPT_WAITING).
 */
export function verify(password: string, hash: Hash): Promise<boolean> {
  return inTurn(async () => {
    const key = await scrypt(password, hash.salt, hash.key.length || KEY_BYTES, {
      N: hash.N,
      r: hash.r,
      p: hash.p,
      maxmem: 256 * 1024 ** 2,
    });
    return key.length === hash.key.length && crypto.timingSafeEqual(key, hash.key);
  });
}

/** A hash no password matches, checked for an unknown user so that it takes as long as a known one. */
export const NOBODY: Hash = {
  ...COST,
  salt: crypto.randomBytes(SALT_BYTES),
  key: crypto.randomBytes(KEY_BYTES),
};

/**
 * Writes the file with `name` set to `line` (or removed when `line` is undefined), keeping every
 * other line, atomically (a temporary file renamed over it) and readable by its owner only.
 * Returns whether the user was there before.
 */
export function writeUser(file: string, name: string, line: string | undefined): boolean {
  const text = fs.existsSync(file) ? readText(file) : '';
  parseUsers(text, file);
  let found = false;
  const kept = text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .filter((l) => {
      const mine = l.trim().startsWith(`${name}:`);
      found ||= mine;
      return !mine;
    });
  if (line !== undefined) kept.push(`${name}:${line}`);
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, kept.length ? `${kept.join('\n')}\n` : '', { mode: 0o600 });
  fs.renameSync(temporary, file);
  return found;
}
