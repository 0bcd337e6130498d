// The change feed's page for people (`GET /feed` asked for as HTML): what the feed is, the formats a
// client gets it in, and how to follow it with the reference client. Machines get the feed itself.
import { escapeHtml } from './escape';
import { layout } from './frame';
import type { PageLanguage } from './language';

const LDES = 'https://w3id.org/ldes/specification';

/** `feed`: the feed's absolute URL on the host the reader asked (the commands name it). */
export function feedPage(feed: string, language: PageLanguage): string {
  const de = language.lang === 'de';
  const url = escapeHtml(feed);
  const title = de
    ? 'Änderungen als Linked Data Event Stream'
    : 'Changes as a Linked Data Event Stream';
  const body = `<h1>${title}</h1>
<p>${
    de
      ? `Dieser Feed ist die Geschichte der Daten als <a href="${LDES}">Linked Data Event Stream</a> (LDES 1.0): jede Anlage, Änderung und Löschung einer Einrichtung ist ein Mitglied, in Seiten je Datenversion. Ein Client, der ihn einmal liest, hat jede Änderung; kommt er wieder, liest er nur die neuen Seiten.`
      : `This feed is the data's history as a <a href="${LDES}">Linked Data Event Stream</a> (LDES 1.0): every creation, update and deletion of an institution is a member, in pages per dataset version. A client that reads it once has every change; coming back, it reads only the new pages.`
  }</p>
<h2>${de ? 'Formate' : 'Formats'}</h2>
<p>${
    de
      ? 'Nach dem <code>Accept</code>-Header der Anfrage: TriG (Vorgabe), JSON-LD, Turtle, N-Quads oder N-Triples. Ein Browser bekommt diese Seite.'
      : 'By the request\u2019s <code>Accept</code> header: TriG (the default), JSON-LD, Turtle, N-Quads or N-Triples. A browser gets this page.'
  }</p>
<pre><code>curl -H 'Accept: application/trig' ${url}</code></pre>
<h2>${de ? 'Folgen mit dem Referenz-Client' : 'Following it with the reference client'}</h2>
<p>${
    de
      ? 'Der Client <a href="https://www.npmjs.com/package/ldes-client"><code>ldes-client</code></a> (npm) liest den Feed und folgt ihm:'
      : 'The client <a href="https://www.npmjs.com/package/ldes-client"><code>ldes-client</code></a> (npm) reads the feed and follows it:'
  }</p>
<pre><code># ${de ? 'Der aktuelle Stand: jede Einrichtung einmal, gelöschte ISIL als as:Delete' : 'The current state: each institution once, deleted ISILs as as:Delete'}
npx ldes-client --materialize --last-version-only ${url}

# ${de ? 'Jede Änderung nach einem Zeitpunkt, dann weiter folgen' : 'Every change after a time, then keep following'}
npx ldes-client --after 2025-03-03T12:00:00Z --follow ${url}</code></pre>`;
  return layout({ language, title, body, self: '/feed' });
}
