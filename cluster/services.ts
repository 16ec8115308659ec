// The services of the native cluster's Temporal server, by name: shared by the code that starts
// them (server.ts) and the code that probes them (service-readiness.ts).

/** In start order: the frontend and the worker service need history and matching in the ring. */
export const SERVICES = ['history', 'matching', 'frontend', 'worker'] as const;
export type ServiceName = (typeof SERVICES)[number];
