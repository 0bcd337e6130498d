// The staff endpoint's credentials file: one user a line, `name:scrypt$N$r$p$salt$hash` (salt and
// hash in base64), written by `npm run sparql-user` and read by the endpoint. Passwords are never
// stored, logged or compared as text: scrypt (node:crypto) and a constant-time comparison.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (
  password: crypto.BinaryLike,
  salt: crypto.BinaryLike,
  keylen: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;

/** scrypt's cost: about 50 ms a hash here; 16 MiB of memory (128 · N · r). */
const COST = { N: 16_384, r: 8, p: 1 } as const;
const KEY_BYTES = 32;
const SALT_BYTES = 16;
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

export function readUsers(file: string): Map<string, Hash> {
  return parseUsers(fs.readFileSync(file, 'utf8'), file);
}

/** Whether `password` is the one `hash` was made of; constant time in what it compares. */
export async function verify(password: string, hash: Hash): Promise<boolean> {
  const key = await scrypt(password, hash.salt, hash.key.length || KEY_BYTES, {
    N: hash.N,
    r: hash.r,
    p: hash.p,
    maxmem: 256 * 1024 ** 2,
  });
  return key.length === hash.key.length && crypto.timingSafeEqual(key, hash.key);
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
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
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
