// What every handler works with: the store, ID source, pace of lifecycles, the clock and the
// services' password digests.
import type { Clock } from './clock';
import type { LogsConfig } from './config';
import type { IdFactory } from './ids';
import type { Pace } from './lifecycle';
import type { PasswordBook } from './passwords';
import type { Store } from './store';

export interface World {
  readonly store: Store;
  readonly ids: IdFactory;
  readonly pace: Pace;
  readonly clock: Clock;
  readonly defaultRegion: string;
  readonly logs: LogsConfig;
  /** Service passwords as digests, in memory only. */
  readonly passwords: PasswordBook;
}
