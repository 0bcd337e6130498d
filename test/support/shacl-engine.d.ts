// The part of shacl-engine (an ES module without types) that the test oracle uses (shaclEngine.ts).
declare module 'shacl-engine' {
  import type { DataFactory, Term } from 'n3';

  interface Pointer {
    readonly term: Term;
  }
  export interface ValidationResult {
    readonly shape: { readonly ptr: Pointer };
    readonly focusNode: Pointer;
    readonly value?: Pointer;
    readonly message: readonly Term[];
  }
  export class Validator {
    constructor(shapes: unknown, options: { factory: typeof DataFactory & object });
    validate(data: { dataset: unknown }): Promise<{ readonly results: ValidationResult[] }>;
  }
}
