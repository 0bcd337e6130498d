// The query editor staff get when a browser opens /sparql: YASGUI (@zazuko/yasgui), served by this
// service from its npm package, with the example queries of queries/examples/ as its tabs and the
// autocompleters that would ask other hosts (prefix.cc, LOV) turned off: the page loads nothing
// from anywhere else.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { QUERY_DIR } from '../../util/paths';
import { escapeHtml } from '../../pages/escape';
import { ICON_LINK } from '../../pages/frame';

export const EDITOR_ASSETS = {
  'yasgui.min.js': 'application/javascript;charset=utf-8',
  'yasgui.min.css': 'text/css;charset=utf-8',
} as const;

export type AssetName = keyof typeof EDITOR_ASSETS;

export interface Asset {
  readonly body: Buffer;
  readonly etag: string;
  readonly type: string;
}

/** The file of the package's build, read once. */
export function editorAsset(name: AssetName): Asset {
  const dir = path.dirname(require.resolve('@zazuko/yasgui'));
  const body = fs.readFileSync(path.join(dir, name));
  const etag = `"${crypto.createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  return { body, etag, type: EDITOR_ASSETS[name] };
}

export interface Example {
  /** The file's name without `.rq`. */
  readonly name: string;
  /** Its first comment line: what it asks. */
  readonly title: string;
  readonly text: string;
}

export const EXAMPLES_DIR = path.join(QUERY_DIR, 'examples');

/** The example queries, in the order of their file names. */
export function loadExamples(dir = EXAMPLES_DIR): Example[] {
  return fs
    .readdirSync(dir)
    .filter((file) => file.endsWith('.rq'))
    .sort()
    .map((file) => {
      const text = fs.readFileSync(path.join(dir, file), 'utf8');
      const title = /^#\s*(.+)$/m.exec(text)?.[1]?.trim() ?? file;
      return { name: file.slice(0, -3), title, text };
    });
}

/** JSON in a <script> element: nothing in it can close the element. */
const scriptJson = (value: unknown) =>
  JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');

/** The editor's page, written once but for the user's name, which each request fills in. */
export function editorPage(
  endpoint: string,
  examples: readonly Example[],
): (user: string) => string {
  const tabs = examples.map(({ title, text }) => ({ title, text }));
  const [before, after] = page(endpoint, tabs).split(USER);
  return (user) => `${before}${escapeHtml(user)}${after}`;
}

/** Where the user's name goes in the page: no example's text or title can hold it. */
const USER = '\u0000user\u0000';

/** The page's own style. */
const STYLE =
  'body{margin:0;font-family:system-ui,sans-serif}header{padding:.5rem 1rem;background:#1f3b57;color:#fff;display:flex;justify-content:space-between;align-items:baseline}header a{color:#cde}';

/** The script that starts YASGUI with the examples as tabs, allowed by its hash. */
function script(endpoint: string): string {
  return `
(function () {
  var examples = JSON.parse(document.getElementById('examples').textContent);
  var endpoint = new URL(${scriptJson(endpoint)}, location.href).href;
  Yasgui.Yasqe.defaults.autocompleters = [];
  var yasgui = new Yasgui(document.getElementById('yasgui'), {
    requestConfig: { endpoint: endpoint, method: 'POST' },
    copyEndpointOnNewTab: true,
    endpointCatalogueOptions: { getData: function () { return [{ endpoint: endpoint }]; } },
    persistenceId: null,
    yasqe: { autocompleters: [] }
  });
  // The first example in the tab YASGUI opens with; each other one in a tab of its own, given
  // whole (a tab not shown yet has no editor to set a query in).
  var first = yasgui.getTab();
  examples.forEach(function (example, i) {
    if (i === 0 && first) {
      first.setName(example.title);
      first.setQuery(example.text);
      return;
    }
    yasgui.addTab(false, Object.assign(Yasgui.Tab.getDefaults(), {
      name: example.title,
      yasqe: { value: example.text },
      requestConfig: { endpoint: endpoint, method: 'POST' }
    }));
  });
})();
`;
}

const hashOf = (text: string) =>
  `'sha256-${crypto.createHash('sha256').update(text).digest('base64')}'`;

/**
 * The editor's Content-Security-Policy: this host's scripts and the page's own script by its hash
 * (CSP Level 3 hash sources); styles inline too, since YASGUI's bundle writes a `<style>` element of
 * its own at run time; the queries go to this host alone.
 */
export function editorPolicy(endpoint: string): string {
  return [
    "default-src 'none'",
    `script-src 'self' ${hashOf(script(endpoint))}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
  ].join('; ');
}

function page(endpoint: string, tabs: readonly { title: string; text: string }[]): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>SPARQL – ISIL Linked Data (staff)</title>
${ICON_LINK}
<link rel="stylesheet" href="${escapeHtml(endpoint)}/editor/yasgui.min.css">
<style>${STYLE}</style>
</head>
<body>
<header><strong>ISIL Linked Data: staff SPARQL endpoint</strong><span>${USER} · read-only · <a href="/">service</a></span></header>
<div id="yasgui"></div>
<script src="${escapeHtml(endpoint)}/editor/yasgui.min.js"></script>
<script id="examples" type="application/json">${scriptJson(tabs)}</script>
<script>${script(endpoint)}</script>
</body>
</html>
`;
}
