// `npm run sparql-user -- add NAME` / `remove NAME` / `list`: keeps the staff endpoint's
// credentials file (SPARQL_USERS, or --file PATH). The password is read from standard input (one
// line; typed without echo on a terminal), never from the command line, where `ps` would show it.
import process from 'node:process';
import { USER_NAME, hashPassword, readUsers, writeUser } from '../src/http/sparql/users';

const USAGE =
  'usage: npm run sparql-user -- add NAME | remove NAME | list  [--file PATH] (default: $SPARQL_USERS)';

/** One line of standard input, without echo when it is a terminal. */
async function readPassword(): Promise<string> {
  const input = process.stdin;
  if (input.isTTY) {
    process.stderr.write('password: ');
    input.setRawMode(true);
  }
  const chunks: Buffer[] = [];
  for await (const chunk of input) {
    chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    if (/[\r\n\u0004]/.test(text)) break;
  }
  if (input.isTTY) {
    input.setRawMode(false);
    process.stderr.write('\n');
  }
  input.pause();
  return (
    Buffer.concat(chunks)
      .toString('utf8')
      .split(/[\r\n\u0004]/)[0] ?? ''
  );
}

async function main(argv: readonly string[]): Promise<number> {
  const args = [...argv];
  const at = args.indexOf('--file');
  const file = at >= 0 ? args.splice(at, 2)[1] : process.env.SPARQL_USERS;
  const [command, name] = args;
  if (!file) {
    process.stderr.write(`no credentials file: set SPARQL_USERS or pass --file\n${USAGE}\n`);
    return 2;
  }
  if (command === 'list' && name === undefined) {
    for (const user of readUsers(file).keys()) process.stdout.write(`${user}\n`);
    return 0;
  }
  if ((command !== 'add' && command !== 'remove') || name === undefined || args.length !== 2) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  if (!USER_NAME.test(name)) {
    process.stderr.write(`${JSON.stringify(name)}: a name is 1 to 64 letters, digits and ._@-\n`);
    return 2;
  }
  if (command === 'remove') {
    const found = writeUser(file, name, undefined);
    process.stderr.write(found ? `removed ${name} from ${file}\n` : `${name} is not in ${file}\n`);
    return found ? 0 : 1;
  }
  const password = await readPassword();
  if (password.length < 8) {
    process.stderr.write('a password has at least 8 characters; nothing was written\n');
    return 2;
  }
  const replaced = writeUser(file, name, await hashPassword(password));
  process.stderr.write(`${replaced ? 'changed the password of' : 'added'} ${name} in ${file}\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`sparql-user: ${(error as Error).message}\n`);
    process.exit(1);
  },
);
