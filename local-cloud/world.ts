// What every handler works with: the store, ID source, pace of lifecycles and the clock.
import type { Clock } from './clock';
import type { LogsConfig } from './config';
import type { IdFactory } from './ids';
import type { Pace } from './lifecycle';
import type { Store } from './store';

export interface World {
  readonly store: Store;
  readonly ids: IdFactory;
  readonly pace: Pace;
  readonly clock: Clock;
  readonly defaultRegion: string;
  readonly logs: LogsConfig;
}
