// The loader's size (a script, not a test): the files of src/load/, their lines of code with
// comments and blank lines left out (TypeScript's own scanner tells a comment from code, as cloc
// would), and its worker kinds (modules that answer a thread's requests with `serve`).
// Run: `npx tsx test/bench/loaderSize.ts [folder]` (default src/load).
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { PROJECT_ROOT } from '../../src/util/paths';

/** The lines of `text` that hold a token other than a comment (a literal: every line it spans). */
export function codeLines(text: string): number {
  const source = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true);
  const lines = new Set<number>();
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line;
  const visit = (node: ts.Node) => {
    // A doc comment is a node of the tree too: a comment all the same.
    if (node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode)
      return;
    const children = node.getChildren(source);
    if (children.length > 0 && node.kind !== ts.SyntaxKind.NoSubstitutionTemplateLiteral) {
      children.forEach(visit);
      return;
    }
    if (node.kind === ts.SyntaxKind.EndOfFileToken) return;
    for (let line = lineOf(node.getStart(source)); line <= lineOf(node.getEnd()); line++)
      lines.add(line);
  };
  visit(source);
  return lines.size;
}

export function loaderSize(folder = path.join(PROJECT_ROOT, 'src', 'load')) {
  const files = fs
    .readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => path.join(folder, name));
  let code = 0;
  let all = 0;
  const workers: string[] = [];
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8');
    code += codeLines(text);
    all += text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (/^serve(<[^>]*>)?\(/m.test(text)) workers.push(path.relative(folder, file));
  }
  return { files: files.length, code, all, workers };
}

if (require.main === module) {
  const { files, code, all, workers } = loaderSize(process.argv[2]);
  process.stdout.write(
    `files: ${files}\nlines of code (no comments, no blank lines): ${code}\nlines in all: ${all}\n` +
      `worker kinds: ${workers.length} (${workers.join(', ')})\n`,
  );
}
