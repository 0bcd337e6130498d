// Lint configuration: typescript-eslint's recommended rules over the sources, loader and tests,
// and the architecture's rules (docs/architecture.md), so that a wrong arrow fails `npm run lint`:
//
//   loader/ (command line) ─→ src/
//   src/server/, main.ts, config.ts (composition) ─→ http/ ─→ serving/ ─→ search/ ─→ store/ ─→ rdf/
//   embedded/ ─→ load/ ─→ store/ ─→ rdf/;   everything ─→ util/, threads/
//
// Nothing in src/ imports loader/; nothing above store/ knows which store adapter it talks to, but
// the one function that chooses them from the settings (src/server/adapters.ts).
// Errors become answers in one place: only src/http/errors.ts constructs an HttpError.
import tseslint from 'typescript-eslint';

/** An import of a sibling folder of src/ named in `folders`, from anywhere below src/. */
const into = (folders, message) => ({
  regex: `^\\.{1,2}/(\\.\\./)*(${folders.join('|')})(/|$)`,
  message,
});
const LOADER = into(['loader'], 'src/ never imports the command-line scripts of loader/.');
const ADAPTER = {
  regex: '(^|/)(embedded|store/remote|store/oxigraph)(/|$)',
  message:
    'Above the store port, nothing knows which adapter it talks to: import src/store/store (src/server/adapters.ts chooses them).',
};
/** The layer rule for files matching `files`: which folders of src/ they must not import. */
const layer = (files, folders, why, extra = []) => ({
  files,
  rules: {
    'no-restricted-imports': [
      'error',
      { patterns: [LOADER, ...(folders.length ? [into(folders, why)] : []), ...extra] },
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
    files: ['src/**/*.ts', 'loader/**/*.ts'],
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
    ['http', 'serving', 'search', 'store', 'rdf', 'load', 'embedded', 'server', 'threads'],
    'util/ is a leaf.',
  ),
  layer(
    ['src/threads/**/*.ts'],
    ['http', 'serving', 'store', 'rdf', 'load', 'embedded', 'server'],
    'threads/ is a leaf.',
  ),
  layer(
    ['src/rdf/**/*.ts'],
    ['http', 'serving', 'search', 'store', 'load', 'embedded', 'server'],
    'rdf/ is the bottom layer.',
  ),
  // embedded/ → load/ → store/: the embedded adapter runs the loader in its threads; the loader
  // fills the Oxigraph store (store/oxigraph/); the store knows neither.
  layer(
    ['src/store/**/*.ts'],
    ['http', 'serving', 'search', 'load', 'embedded', 'server'],
    'store/ imports only rdf/ below it.',
  ),
  // The port's own files know no adapter either.
  layer(
    ['src/store/*.ts'],
    ['http', 'serving', 'search', 'load', 'embedded', 'server'],
    'store/ imports only rdf/ below it.',
    [{ regex: '^\\./(oxigraph|remote)(/|$)', message: 'The port knows no adapter.' }],
  ),
  // history/: the registry's past (docs/history.md), read by serving/ and http/, written by load/
  // and embedded/; it reads versions through the store port and serves nothing.
  layer(
    ['src/history/**/*.ts'],
    ['http', 'serving', 'search', 'load', 'embedded', 'server'],
    'history/ is below serving/ and load/: it knows the store port and rdf/ only.',
    [ADAPTER],
  ),
  layer(
    ['src/load/**/*.ts'],
    ['http', 'serving', 'search', 'embedded', 'server'],
    'load/ writes stores; it serves nothing, and runs in the embedded adapter, not above it.',
  ),
  layer(
    ['src/embedded/**/*.ts'],
    ['http', 'serving', 'search', 'server'],
    'embedded/ is the store adapter over the loader: below serving/.',
  ),
  layer(
    ['src/search/**/*.ts'],
    ['http', 'serving', 'load', 'server'],
    'search/ reads descriptions through the store port, below serving/.',
    [ADAPTER],
  ),
  layer(['src/serving/**/*.ts'], ['http', 'load', 'server'], 'serving/ is below http/.', [ADAPTER]),
  layer(
    ['src/oai/**/*.ts'],
    ['http', 'serving', 'load', 'embedded', 'server'],
    'oai/ answers OAI-PMH from the dataset and its history, below http/.',
    [ADAPTER],
  ),
  layer(['src/http/**/*.ts'], ['load', 'server'], 'http/ is below the process (src/server/).', [
    ADAPTER,
  ]),
  // The process sees the ports too: one function chooses the adapters from the settings.
  layer(['src/*.ts', 'src/server/**/*.ts'], [], '', [ADAPTER]),
  layer(['src/server/adapters.ts'], [], ''),
);
