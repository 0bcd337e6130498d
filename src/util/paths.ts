// Where the project's own files are, whether it runs from src/ (tsx) or from dist/ (compiled).
import fs from 'node:fs';
import path from 'node:path';

function findRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'queries')))
      return dir;
    if (path.dirname(dir) === dir)
      throw new Error(`no project root (package.json and queries/) above ${start}`);
  }
}

export const PROJECT_ROOT = findRoot(__dirname);
export const QUERY_DIR = path.join(PROJECT_ROOT, 'queries');
