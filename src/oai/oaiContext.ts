// What every OAI-PMH answer is made of (the provider's settings, the dataset served with the
// history it ends, the time) and how a verb refuses a request with the protocol's errors.
import type { History } from '../history/model';
import type { Dataset } from '../store/dataset';
import type { OaiError } from './request';
import type { TokenKey } from './token';

export interface OaiSettings {
  /** The repository's base URL (`<BASE_IRI>/oai`). */
  readonly baseUrl: string;
  readonly repositoryName: string;
  /** The `oai-identifier` repository identifier (src/oai/identifiers.ts). */
  readonly repository: string;
  readonly adminEmail: string;
  /** What resumption tokens are signed with (OAI_TOKEN_KEY). */
  readonly tokenKey: TokenKey;
}

/** What an answer is made of: the dataset served (with its history) and the time of the answer. */
export interface OaiContext {
  readonly settings: OaiSettings;
  readonly dataset: Dataset;
  /** Seconds since the epoch (UTC). */
  readonly now: number;
}

/** Thrown inside a verb: answered as the protocol's error, the request's arguments named. */
export class Refusal extends Error {
  constructor(readonly errors: readonly OaiError[]) {
    super(errors[0]!.message);
  }
}

export const refuse = (code: OaiError['code'], message: string) => new Refusal([{ code, message }]);

export const historyOf = (context: OaiContext): History => context.dataset.history;
