// The part of js-yaml 4 (a dependency of ESLint's and mocha's, without types of its own) that the
// Compose files' test uses.
declare module 'js-yaml' {
  export class Type {
    constructor(
      tag: string,
      options: { kind: 'scalar' | 'sequence' | 'mapping'; construct(data: unknown): unknown },
    );
  }
  export interface Schema {
    extend(types: Type[]): Schema;
  }
  export const DEFAULT_SCHEMA: Schema;
  export function load(text: string, options?: { schema?: Schema }): unknown;
}
