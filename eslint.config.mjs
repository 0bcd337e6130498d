// Lint configuration: typescript-eslint's recommended rules over the sources, the command line and
// the tests, and the architecture's rules (docs/architecture.md), so that a wrong arrow fails
// `npm run lint`:
//
//   cli/ (command line) ─→ src/
//   main.ts, process/ ─→ http/ ─→ documents/ ─→ pages/ ─→ oai/, search/ ─→ record/ ─→ history/ ─→ store/ ─→ rdf/
//   update/ ─→ load/ ─→ mapping/ ─→ rdf/;   store/embedded/ ─→ load/ ─→ store/ (the port), history/
//   everything ─→ config/, util/, threads/
//   in load/: loadSources.ts, servedSnapshot.ts ─→ commit/ ─→ snapshot/ ─→ describe/
//             ─→ place/ ─→ read/ ─→ limits, reading, loadError, report (types of any stage)
//
// Nothing in src/ imports cli/; nothing above store/ knows which store adapter it talks to, but
// the one function that chooses them from the settings (src/process/adapters.ts).
// Errors become answers in one place: only src/http/errors.ts constructs an HttpError.
import tseslint from 'typescript-eslint';

/** An import of a sibling folder of src/ named in `folders`, from anywhere below src/. */
const into = (folders, message) => ({
  regex: `^\\.{1,2}/(\\.\\./)*(${folders.join('|')})(/|$)`,
  message,
});
const CLI = into(['cli'], 'src/ never imports the command-line scripts of cli/.');
const ADAPTER = {
  regex: '(^|/)(embedded|store/remote|store/oxigraph)(/|$)',
  message:
    'Above the store port, nothing knows which adapter it talks to: import src/store/store (src/process/adapters.ts chooses them).',
};
/** The layer rule for files matching `files`: which folders of src/ they must not import. */
const layer = (files, folders, why, extra = []) => ({
  files,
  rules: {
    'no-restricted-imports': [
      'error',
      { patterns: [CLI, ...(folders.length ? [into(folders, why)] : []), ...extra] },
    ],
  },
});

/** The loader's stages in order, the modules above them all, and those every stage shares. */
const LOAD_STAGES = ['read', 'place', 'describe', 'snapshot', 'commit'];
const LOAD_TOP = ['loadSources', 'servedSnapshot'];
const LOAD_SHARED = ['limits', 'reading', 'loadError', 'report'];
/**
 * Files matching `files` import no module or folder of src/load/ named in `later`, but its types
 * and the modules `allowed` names (a path below src/load/).
 */
const stageRule = (files, later, allowed = []) => ({
  files,
  rules: {
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: `^\\.{1,2}/(\\.\\./)*(?!${allowed.map((a) => `${a}$`).join('|') || '$^'})(${later.join('|')})(/|$)`,
            allowTypeImports: true,
            message:
              'A stage of the loader imports nothing of a later one (read → place → describe → snapshot → commit → loadSources): pass it in from loadSources.ts, or import its type only.',
          },
        ],
      },
    ],
  },
});

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.bench/', 'data/'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  { files: ['**/*.cjs'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
  // One job per file, one screen per function.
  {
    files: ['src/**/*.ts', 'cli/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 400 }],
      'max-lines-per-function': ['error', { max: 80 }],
    },
  },
  // One place turns errors into answers: the helpers and the error table of src/http/errors.ts.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/http/errors.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='HttpError']",
          message:
            'Answer with a helper of src/http/errors.ts (badRequest(…), notFound(…), …), or add the error to its table.',
        },
      ],
    },
  },
  // The layers, each listing what it must not import.
  layer(['src/**/*.ts'], [], ''),
  layer(
    ['src/util/**/*.ts'],
    [
      'config',
      'http',
      'documents',
      'pages',
      'oai',
      'search',
      'record',
      'history',
      'store',
      'rdf',
      'load',
      'update',
      'mapping',
      'process',
      'threads',
    ],
    'util/ is a leaf.',
  ),
  layer(
    ['src/threads/**/*.ts'],
    [
      'config',
      'http',
      'documents',
      'pages',
      'oai',
      'search',
      'record',
      'history',
      'store',
      'rdf',
      'load',
      'update',
      'mapping',
      'process',
    ],
    'threads/ is a leaf.',
  ),
  layer(
    ['src/rdf/**/*.ts'],
    [
      'config',
      'http',
      'documents',
      'pages',
      'oai',
      'search',
      'record',
      'history',
      'store',
      'load',
      'update',
      'mapping',
      'process',
    ],
    'rdf/ is the bottom layer.',
  ),
  // config/: the settings, read once at start; it may know the types of what it configures.
  layer(
    ['src/config/**/*.ts'],
    ['http', 'documents', 'pages', 'search', 'record', 'store', 'update', 'process'],
    'config/ reads the settings; it knows no layer above load/ and oai/.',
  ),
  // The store port and the remote adapter know rdf/ below them, and history/ (the port its types).
  layer(
    ['src/store/*.ts', 'src/store/remote/**/*.ts'],
    [
      'http',
      'documents',
      'pages',
      'oai',
      'search',
      'record',
      'load',
      'update',
      'mapping',
      'process',
    ],
    'store/ imports only history/ and rdf/ below it.',
    [
      { regex: '^\\./(embedded|remote)(/|$)', message: 'The port knows no adapter.' },
      { regex: '^\\.\\./embedded(/|$)', message: 'One adapter knows nothing of the other.' },
    ],
  ),
  // The port sits below history/: a dataset version ends a history, but the port only knows its
  // type. The adapters above it write and read histories (store/embedded/embeddedHistory.ts,
  // store/remote/remoteHistory.ts) and may use history/'s code.
  {
    files: ['src/store/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../history/*'],
              allowTypeImports: true,
              message: 'The store port is below history/: import its types only (import type).',
            },
          ],
        },
      ],
    },
  },
  // store/embedded/ is the adapter that runs the loader in its threads, below documents/.
  layer(
    ['src/store/embedded/**/*.ts'],
    ['http', 'documents', 'pages', 'oai', 'search', 'record', 'update', 'process'],
    'store/embedded/ is the store adapter over the loader: below documents/.',
    [{ regex: '^\\.\\./remote(/|$)', message: 'One adapter knows nothing of the other.' }],
  ),
  // history/: the registry's past (docs/history.md), read by documents/ and http/, written by load/
  // and store/embedded/; it reads versions through the store port and serves nothing.
  layer(
    ['src/history/**/*.ts'],
    [
      'http',
      'documents',
      'pages',
      'oai',
      'search',
      'record',
      'load',
      'update',
      'mapping',
      'process',
    ],
    'history/ is below documents/ and load/: it knows the store port and rdf/ only.',
    [ADAPTER],
  ),
  layer(
    ['src/load/**/*.ts'],
    ['http', 'documents', 'pages', 'oai', 'search', 'record', 'update', 'process'],
    'load/ writes stores; it serves nothing, and runs in the embedded adapter, not above it.',
    [
      {
        regex: '(^|/)store/remote(/|$)',
        message: 'load/ fills the embedded store; cli/ writes the remote one.',
      },
    ],
  ),
  // The loader's stages, in the order a load runs them: a stage imports nothing of a later one
  // (their types excepted), so that the folders read as the pipeline (docs/loading.md).
  // Two arrows go the other way, named here: a snapshot is a source too, so reading one knows its
  // format (snapshot/snapshot.ts), and the canonical reading makes the snapshot's pieces in its
  // order as it reads (snapshot/snapshotPieces.ts).
  ...LOAD_STAGES.map((stage, i) =>
    stageRule(
      [`src/load/${stage}/**/*.ts`],
      [...LOAD_STAGES.slice(i + 1), ...LOAD_TOP],
      ['snapshot/snapshot', ...(stage === 'describe' ? ['snapshot/snapshotPieces'] : [])],
    ),
  ),
  stageRule(
    LOAD_SHARED.map((name) => `src/load/${name}.ts`),
    [...LOAD_STAGES, ...LOAD_TOP],
  ),
  // mapping/: a source's record (PICA+) mapped to the published model, for the loader and the
  // harvesters; it knows rdf/ only.
  layer(
    ['src/mapping/**/*.ts'],
    [
      'http',
      'documents',
      'pages',
      'oai',
      'search',
      'record',
      'history',
      'store',
      'load',
      'update',
      'process',
    ],
    'mapping/ maps a source record to N-Triples: it knows rdf/ and util/ only.',
  ),
  // update/: a harvest applied over the current version, with the loader's stages; the remote
  // store's update is cli/'s, as its load is.
  layer(
    ['src/update/**/*.ts'],
    ['http', 'documents', 'pages', 'oai', 'search', 'record', 'process'],
    'update/ writes a version as load/ does; it serves nothing.',
    [
      {
        regex: '(^|/)(store/remote|embedded)(/|$)',
        message: "update/ writes the embedded store's files; cli/ updates the remote one.",
      },
    ],
  ),
  layer(
    ['src/record/**/*.ts'],
    ['http', 'documents', 'pages', 'oai', 'search', 'load', 'update', 'process'],
    'record/ is the flat record every reader shares: below search/, oai/ and pages/.',
    [ADAPTER],
  ),
  layer(
    ['src/search/**/*.ts'],
    ['http', 'documents', 'pages', 'oai', 'load', 'update', 'process'],
    'search/ reads descriptions through the store port, below documents/.',
    [ADAPTER],
  ),
  layer(
    ['src/oai/**/*.ts'],
    ['http', 'documents', 'pages', 'search', 'load', 'update', 'process'],
    'oai/ answers OAI-PMH from the dataset and its history, below http/.',
    [ADAPTER],
  ),
  layer(
    ['src/pages/**/*.ts'],
    ['http', 'documents', 'load', 'update', 'process'],
    'pages/ writes the HTML of pages for people, below documents/ and http/.',
    [ADAPTER],
  ),
  layer(
    ['src/documents/**/*.ts'],
    ['http', 'load', 'update', 'process'],
    'documents/ is below http/.',
    [ADAPTER],
  ),
  layer(
    ['src/http/**/*.ts'],
    ['load', 'update', 'process'],
    'http/ is below the process (src/process/).',
    [ADAPTER],
  ),
  // The process sees the ports too: one function chooses the adapters from the settings.
  layer(['src/*.ts', 'src/process/**/*.ts'], [], '', [ADAPTER]),
  layer(['src/process/adapters.ts'], [], ''),
);
