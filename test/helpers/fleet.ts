// Fleets of services for the fleet test: the fleet benchmark's seeding and history measuring
// (bench/lib/fleet.ts), shared so both measure the same way.
export { runFootprint, seedFleet, type HistorySize, type RunFootprint } from '../../bench/lib/fleet';
