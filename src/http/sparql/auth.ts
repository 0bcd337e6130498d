// Who may ask the staff endpoint: HTTP Basic authentication (RFC 7617) against the credentials
// file, and addresses that keep failing slowed down. A verified login is remembered for a while by
// an HMAC under a key made at start (never the password), so that each query does not pay scrypt's
// 50 ms; the file is read again when it changes, so an added or removed user counts at once.
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { Request } from 'express';
import { HttpError } from '../errors';
import { NOBODY, readUsers, verify, type Hash } from './users';

export const REALM = 'ISIL staff SPARQL endpoint';
/** A login once verified is taken again without scrypt for this long. */
const REMEMBERED_MS = 5 * 60_000;
/** The window failures are counted in. */
const WINDOW_MS = 60_000;
/** Addresses whose failures are tracked, at most (the oldest are forgotten first). */
const MAX_TRACKED = 10_000;
/** How often the file's modification time is looked at. */
const STAT_EVERY_MS = 1000;

export const unauthorized = (why: string) =>
  new HttpError(
    401,
    `${why} This endpoint is for the agency's staff: HTTP Basic authentication with a user of the credentials file (docs/sparql.md).`,
    {
      'WWW-Authenticate': `Basic realm="${REALM}", charset="UTF-8"`,
      'Cache-Control': 'no-store',
    },
  );

/** Name and password of a Basic `Authorization` header, or undefined when it has none. */
export function basicCredentials(
  header: string | undefined,
): { name: string; password: string } | undefined {
  if (header === undefined) return undefined;
  const match = /^Basic[ ]+([A-Za-z0-9+/]+={0,2})[ ]*$/i.exec(header);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { name: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

interface Failures {
  since: number;
  count: number;
}

export class StaffAuth {
  private users = new Map<string, Hash>();
  private mtimeMs = -1;
  private checkedAt = 0;
  private readonly key = crypto.randomBytes(32);
  /** HMACs of logins verified, with when they were. */
  private readonly remembered = new Map<string, number>();
  private readonly failures = new Map<string, Failures>();

  constructor(
    private readonly file: string,
    private readonly maxFailures: number,
    /** Told when the file changed and cannot be read: the users read before stay. */
    private readonly warn: (message: string) => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {
    this.refresh(true);
  }

  /** How many users the file names (none: nobody can log in; the process says so at start). */
  get userCount(): number {
    return this.users.size;
  }

  /** The user the request authenticates as; throws 401, or 429 for an address that kept failing. */
  async user(req: Request): Promise<string> {
    const address = req.socket.remoteAddress ?? 'unknown';
    const blocked = this.blocked(address);
    if (blocked !== undefined)
      throw new HttpError(
        429,
        `Too many failed logins from this address: try again in ${blocked} s.`,
        { 'Retry-After': String(blocked), 'Cache-Control': 'no-store' },
      );
    const credentials = basicCredentials(req.headers.authorization);
    if (credentials === undefined) throw unauthorized('No credentials were sent.');
    this.refresh(false);
    const { name, password } = credentials;
    const mark = crypto
      .createHmac('sha256', this.key)
      .update(name)
      .update('\0')
      .update(password)
      .digest('base64');
    const at = this.remembered.get(mark);
    const hash = this.users.get(name);
    if (hash !== undefined && at !== undefined && this.now() - at < REMEMBERED_MS) return name;
    // An unknown name costs the same scrypt as a known one: the time does not tell names apart.
    const right = await verify(password, hash ?? NOBODY);
    if (!right || hash === undefined) {
      this.fail(address);
      throw unauthorized('The user name or password is wrong.');
    }
    if (this.remembered.size > MAX_TRACKED) this.remembered.clear();
    this.remembered.set(mark, this.now());
    return name;
  }

  /** Seconds the address must wait, or undefined when it may try. */
  private blocked(address: string): number | undefined {
    const entry = this.failures.get(address);
    if (entry === undefined) return undefined;
    const left = entry.since + WINDOW_MS - this.now();
    if (left <= 0) {
      this.failures.delete(address);
      return undefined;
    }
    return entry.count >= this.maxFailures ? Math.ceil(left / 1000) : undefined;
  }

  private fail(address: string): void {
    const entry = this.failures.get(address);
    if (entry && this.now() - entry.since < WINDOW_MS) entry.count++;
    else {
      this.failures.delete(address);
      if (this.failures.size >= MAX_TRACKED)
        this.failures.delete(this.failures.keys().next().value!);
      this.failures.set(address, { since: this.now(), count: 1 });
    }
  }

  /** Reads the file again when it changed; a file that became unreadable keeps the last users. */
  private refresh(first: boolean): void {
    const now = this.now();
    if (!first && now - this.checkedAt < STAT_EVERY_MS) return;
    this.checkedAt = now;
    let stat: fs.Stats;
    try {
      stat = fs.statSync(this.file);
    } catch (error) {
      if (first) throw error;
      return;
    }
    const { mtimeMs } = stat;
    if (mtimeMs === this.mtimeMs) return;
    // Read only a regular file: a FIFO put in its place would hold this thread until written to.
    if (!stat.isFile()) {
      this.mtimeMs = mtimeMs;
      this.warn(
        `the SPARQL credentials file ${this.file} is no longer a regular file; the users read before stay`,
      );
      return;
    }
    if (mtimeMs === this.mtimeMs) return;
    try {
      this.users = readUsers(this.file);
      this.mtimeMs = mtimeMs;
      this.remembered.clear();
    } catch (error) {
      if (first) throw error;
      this.mtimeMs = mtimeMs;
      this.warn(
        `the SPARQL credentials file changed and cannot be read, the users read before stay: ${(error as Error).message}`,
      );
    }
  }
}
