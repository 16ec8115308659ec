// The API dialect the local cloud answers in. `seed` is spec.md's, the one the handlers produce;
// `current` is what the real API answers now (the vendor's OpenAPI document; behaviour.md, "The
// vendor's current answers").
import { z } from 'zod';

export const Dialect = z.enum(['seed', 'current']);
export type Dialect = z.infer<typeof Dialect>;
