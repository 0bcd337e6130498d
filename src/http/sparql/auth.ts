// Who may ask the staff endpoint: HTTP Basic authentication (RFC 7617) against the credentials
// file, and addresses that keep failing slowed down. A verified login is remembered for a while by
// an HMAC under a key made at start (never the password), so that each query does not pay scrypt's
// cost. A login being checked counts against its address's failures, and an address has only a
// few checked at once: a flood of guesses gets 429 at once instead of filling libuv's threads. The
// file is looked at again every second, off the serving thread, so that an added or removed user,
// or a file deleted, counts at once.
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { Request } from 'express';
import { serviceUnavailable, tooManyRequests, unauthorized as status401 } from '../errors';
import { loadUsers, NOBODY, readUsers, ScryptBusy, verify, type Hash } from './users';

export const REALM = 'ISIL staff SPARQL endpoint';
/** A login once verified is taken again without scrypt for this long. */
const REMEMBERED_MS = 5 * 60_000;
/** The window failures are counted in. */
const WINDOW_MS = 60_000;
/** Addresses whose failures are tracked, at most (the oldest are forgotten first). */
const MAX_TRACKED = 10_000;
/** How often the file's modification time is looked at. */
const STAT_EVERY_MS = 1000;
/** Logins of one address checked by scrypt at once; more get 429 at once. */
const CHECKED_AT_ONCE = 2;
/** What the file is when it is not there. */
const GONE = 'gone';
/** What tells one state of the file from another. */
const signature = (stat: fs.Stats) => `${stat.ino} ${stat.size} ${stat.mtimeMs}`;
const NO_USERS =
  'the SPARQL credentials file names no user: nobody can log in (npm run sparql-user -- add NAME)';

/** Where StaffAuth says what happened to the file (the process's logger). */
export interface AuthLog {
  error(message: string): void;
  warn(message: string): void;
}
const QUIET: AuthLog = { error: () => undefined, warn: () => undefined };

const tooMany = (seconds: number, why: string) =>
  tooManyRequests(seconds, `${why}: try again in ${seconds} s.`, { 'Cache-Control': 'no-store' });

export const unauthorized = (why: string) =>
  status401(
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
  private users: Map<string, Hash>;
  /** The file as last looked at (inode, size, modification time), or GONE. */
  private seen: string;
  private checkedAt: number;
  private looking: Promise<void> | undefined;
  private readonly key = crypto.randomBytes(32);
  /** HMACs of logins verified, with when they were. */
  private readonly remembered = new Map<string, number>();
  private readonly failures = new Map<string, Failures>();
  /** Logins being checked, by the HMAC of their credentials: the same ones wait for that check. */
  private readonly checking = new Map<string, Promise<boolean>>();
  /** Logins being checked, by address. */
  private readonly inFlight = new Map<string, number>();

  /** Reads the file (on this thread: at start); throws when it cannot, a UsersFileError if malformed. */
  constructor(
    private readonly file: string,
    private readonly maxFailures: number,
    private readonly log: AuthLog = QUIET,
    private readonly now: () => number = Date.now,
  ) {
    this.seen = signature(fs.statSync(file));
    this.users = readUsers(file);
    this.checkedAt = now();
    if (this.users.size === 0) log.warn(NO_USERS);
  }

  /**
   * The user the request authenticates as; throws 401, 429 for an address that kept failing or
   * has logins being checked already, 503 when the process checks too many logins at once.
   */
  async user(req: Request): Promise<string> {
    const address = req.socket.remoteAddress ?? 'unknown';
    const blocked = this.blocked(address);
    if (blocked !== undefined) throw tooMany(blocked, 'Too many failed logins from this address');
    const credentials = basicCredentials(req.headers.authorization);
    if (credentials === undefined) throw unauthorized('No credentials were sent.');
    await this.refresh();
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
    const right = await this.check(address, mark, password, hash);
    if (!right || hash === undefined) {
      this.fail(address);
      throw unauthorized('The user name or password is wrong.');
    }
    if (this.remembered.size > MAX_TRACKED) this.remembered.clear();
    this.remembered.set(mark, this.now());
    return name;
  }

  /**
   * scrypt on `password`, counted against `address` while it runs; the same credentials being
   * checked already share that check. Throws 429 when the address has CHECKED_AT_ONCE logins
   * being checked, or as many as it may still fail; 503 when the process has too many waiting.
   */
  private check(
    address: string,
    mark: string,
    password: string,
    hash: Hash | undefined,
  ): Promise<boolean> {
    const same = this.checking.get(mark);
    if (same) return same;
    const inFlight = this.inFlight.get(address) ?? 0;
    if (inFlight >= CHECKED_AT_ONCE || this.failed(address) + inFlight >= this.maxFailures)
      throw tooMany(1, 'Logins from this address are being checked');
    this.inFlight.set(address, inFlight + 1);
    // An unknown name costs the same scrypt as a known one: the time does not tell names apart.
    const checked = verify(password, hash ?? NOBODY)
      .catch((error: unknown) => {
        if (error instanceof ScryptBusy)
          throw serviceUnavailable(1, 'Too many logins are being checked: try again in 1 s.', {
            'Cache-Control': 'no-store',
          });
        throw error;
      })
      .finally(() => {
        this.checking.delete(mark);
        const left = (this.inFlight.get(address) ?? 1) - 1;
        if (left > 0) this.inFlight.set(address, left);
        else this.inFlight.delete(address);
      });
    this.checking.set(mark, checked);
    return checked;
  }

  /** Failures of the address in the current window. */
  private failed(address: string): number {
    const entry = this.failures.get(address);
    return entry && this.now() - entry.since < WINDOW_MS ? entry.count : 0;
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

  /** Looks at the file at most once every STAT_EVERY_MS; the requests meanwhile share the look. */
  private refresh(): Promise<void> {
    if (this.looking) return this.looking;
    if (this.now() - this.checkedAt < STAT_EVERY_MS) return Promise.resolve();
    this.checkedAt = this.now();
    this.looking = this.look().finally(() => (this.looking = undefined));
    return this.looking;
  }

  /**
   * Reads the file again when it changed, off this thread. A file deleted leaves no users (the
   * operator took everyone's access away); one that cannot be read, is malformed, is no regular
   * file or is over USERS_MAX_BYTES is an error line, and the users read before stay.
   */
  private async look(): Promise<void> {
    let now: string;
    try {
      now = signature(await fs.promises.stat(this.file));
    } catch (error) {
      now = (error as NodeJS.ErrnoException).code === 'ENOENT' ? GONE : String(error);
    }
    if (now === this.seen) return;
    this.seen = now;
    if (now === GONE) {
      this.users = new Map();
      this.remembered.clear();
      this.log.error(
        `the SPARQL credentials file ${this.file} is gone: nobody can log in until it is back`,
      );
      return;
    }
    try {
      this.users = await loadUsers(this.file);
      this.remembered.clear();
      if (this.users.size === 0) this.log.warn(NO_USERS);
    } catch (error) {
      this.log.error(
        `the SPARQL credentials file changed and cannot be read, the users read before stay: ${(error as Error).message}`,
      );
    }
  }
}
