// The Compose files do what docs/docker.md and docs/scaling.md say: `docker compose up -d --build`
// starts the single service with no variable set, the scale-out topology of its own file asks for
// Virtuoso's password, and every folder they mount is in the repository. No engine runs here, so
// the files are read as YAML, and their `${…}` interpolations as Compose reads them.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_SCHEMA, Type, load } from 'js-yaml';
import { PROJECT_ROOT } from '../../src/util/paths';

type Mapping = Record<string, unknown>;
interface Service extends Mapping {
  readonly profiles?: string[];
  readonly extends?: { readonly file?: string; readonly service: string };
  readonly environment?: Mapping;
  readonly volumes?: unknown;
  readonly ports?: unknown;
}
interface ComposeFile {
  readonly services: Record<string, Service>;
}

/** Compose's merge tags (`!reset`, `!override`), kept as what they hold with the tag beside it. */
interface Tagged {
  readonly tag: string;
  readonly value: unknown;
}
const TAGS = ['!reset', '!override'].flatMap((tag) =>
  (['scalar', 'sequence', 'mapping'] as const).map(
    (kind) => new Type(tag, { kind, construct: (value): Tagged => ({ tag, value }) }),
  ),
);
const SCHEMA = DEFAULT_SCHEMA.extend(TAGS);

const text = (file: string) => fs.readFileSync(path.join(PROJECT_ROOT, file), 'utf8');
const parse = (file: string) => load(text(file), { schema: SCHEMA }) as ComposeFile;
const untag = (value: unknown): unknown =>
  value && typeof value === 'object' && 'tag' in value ? (value as Tagged).value : value;

/** Every string of `value` (keys and values, any depth), as Compose interpolates them. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([key, each]) => [key, ...strings(each)]);
  return [];
}

/**
 * The interpolations of `file` as `${NAME…}` with what follows the name: `$$` is a literal `$`;
 * `:-`/`-` give a default, `:?`/`?` make the variable required, none leaves it blank when unset.
 */
function interpolations(file: string): { name: string; modifier: string }[] {
  const found: { name: string; modifier: string }[] = [];
  for (const each of strings(parse(file)))
    for (const match of each.matchAll(/\$(\$|\{([A-Za-z_]\w*)([^}]*)\}|[A-Za-z_]\w*)/g))
      if (match[1] !== '$')
        found.push({ name: match[2] ?? match[1]!, modifier: (match[3] ?? '').slice(0, 2) });
  return found;
}

/** `name` of `file` with what it `extends` merged in: Compose's rules for the keys used here. */
function resolved(file: string, name: string): Service {
  const own = parse(file).services[name];
  assert.ok(own, `${file} has no service ${name}`);
  if (!own.extends) return own;
  const base = resolved(own.extends.file ?? file, own.extends.service);
  const merged: Mapping = { ...base };
  for (const [key, value] of Object.entries(own)) {
    if (key === 'extends') continue;
    const tag = value && typeof value === 'object' && 'tag' in value ? (value as Tagged).tag : '';
    if (tag === '!reset') delete merged[key];
    else if (key === 'environment') merged[key] = { ...base.environment, ...(value as Mapping) };
    else merged[key] = untag(value);
  }
  return merged as Service;
}

/** The host paths a service bind-mounts (`./x:/y[:ro]`), relative to the project. */
function bindSources(service: Service): string[] {
  const volumes = (untag(service.volumes) ?? []) as unknown[];
  return volumes
    .filter((v): v is string => typeof v === 'string' && v.startsWith('.'))
    .map((v) => v.split(':')[0]!);
}

const DEFAULT = 'docker-compose.yml';
const SCALE = 'docker-compose.scale.yml';

describe('the Compose files', () => {
  describe(`${DEFAULT}: docker compose up -d --build`, () => {
    it('asks for no variable: every interpolation has a default', () => {
      // Compose interpolates every service, those of inactive profiles too, before it drops them:
      // a required variable anywhere in the file stopped `up` with nothing set.
      const needed = interpolations(DEFAULT).filter((i) => !['-', ':-'].includes(i.modifier));
      assert.deepEqual(needed, []);
    });

    it('starts the single service alone', () => {
      const started = Object.entries(parse(DEFAULT).services)
        .filter(([, service]) => !service.profiles)
        .map(([name]) => name);
      assert.deepEqual(started, ['isil-ld']);
    });
  });

  describe(`${SCALE}: the scale-out topology`, () => {
    it("asks for Virtuoso's password and the replicas' token key, and for nothing else", () => {
      const needed = interpolations(SCALE).filter((i) => !['-', ':-'].includes(i.modifier));
      assert.deepEqual(needed, [
        { name: 'VIRTUOSO_DBA_PASSWORD', modifier: ':?' },
        { name: 'OAI_TOKEN_KEY', modifier: ':?' },
      ]);
      assert.match(text(SCALE), /DBA_PASSWORD: \$\{VIRTUOSO_DBA_PASSWORD:\?/);
      assert.match(text(SCALE), /OAI_TOKEN_KEY: \$\{OAI_TOKEN_KEY:\?/);
    });

    it("runs the replicas with the single service's settings, on the remote store, unpublished", () => {
      const replica = resolved(SCALE, 'isil-ld-remote');
      const single = parse(DEFAULT).services['isil-ld']!;
      assert.deepEqual(Object.keys(replica.environment!), Object.keys(single.environment!));
      assert.equal(replica.environment!.STORE, 'remote');
      assert.equal(replica.environment!.SPARQL_ENDPOINT, 'http://virtuoso:8890/sparql');
      assert.equal(replica.ports, undefined);
      assert.equal(replica.volumes, undefined);
    });

    it("loads with the loader's settings into the remote store, never at `up`", () => {
      const loader = resolved(SCALE, 'loader-remote');
      assert.equal(loader.environment!.STORE, 'remote');
      assert.equal(loader.environment!.BASE_IRI, 'https://ld.zdb-services.de');
      assert.deepEqual(loader.profiles, ['load']);
      assert.deepEqual(bindSources(loader), ['./import']);
    });
  });

  for (const file of [DEFAULT, SCALE])
    it(`${file}: every folder and file it mounts is in the repository`, () => {
      const sources = Object.keys(parse(file).services).flatMap((name) =>
        bindSources(resolved(file, name)),
      );
      assert.ok(sources.includes('./import'), sources.join(', '));
      for (const source of sources)
        assert.ok(fs.existsSync(path.join(PROJECT_ROOT, source)), `${source} does not exist`);
    });
});
