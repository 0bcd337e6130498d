// The dumps' worker thread (src/documents/dumpWriting.ts): one set at a time, written as the serving
// thread hands it the descriptions; the thread ends when the set is written, and its heap with it.
import { serve } from '../threads/serve';
import { DumpWriting, type DumpItem } from './dumpWriting';

export type DumpRequest =
  | { readonly kind: 'open'; readonly paths: [string, string, string]; readonly contextUrl: string }
  | { readonly kind: 'add'; readonly items: readonly DumpItem[] }
  | { readonly kind: 'close' }
  | { readonly kind: 'abandon' };

export type DumpAnswer =
  | { readonly institutions: number; readonly triples: number }
  | { readonly files: { bytes: number; sha256: string }[] }
  | null;

let writing: DumpWriting | undefined;

serve<DumpRequest, DumpAnswer>(async (request) => {
  switch (request.kind) {
    case 'open':
      writing?.abandon();
      writing = new DumpWriting(request.paths, request.contextUrl);
      await writing.begin();
      return null;
    case 'add': {
      if (!writing) throw new Error('no set is open');
      for (const item of request.items) await writing.add(item);
      return { institutions: writing.institutions, triples: writing.triples };
    }
    case 'close': {
      if (!writing) throw new Error('no set is open');
      const files = await writing.close();
      writing = undefined;
      return { files };
    }
    case 'abandon':
      writing?.abandon();
      writing = undefined;
      return null;
  }
});
