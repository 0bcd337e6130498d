// A worker thread for the tests of src/threads/: answers through the project's own `serve`.
import { serve } from '../../src/threads/serve';

export type EchoRequest =
  | { readonly op: 'echo'; readonly text: string }
  | { readonly op: 'later'; readonly text: string; readonly ms: number }
  | { readonly op: 'fail'; readonly code: string }
  | { readonly op: 'hang' }
  | { readonly op: 'exit' };

serve<EchoRequest, string>((request) => {
  switch (request.op) {
    case 'echo':
      return request.text;
    case 'later':
      return new Promise((resolve) => setTimeout(() => resolve(request.text), request.ms));
    case 'fail':
      throw Object.assign(new Error(`failed with ${request.code}`), { code: request.code });
    case 'hang':
      return new Promise<string>(() => undefined);
    case 'exit':
      process.exit(3);
  }
});
