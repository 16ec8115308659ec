// The shape of bench/results/bench.json: every figure with its reference, the machine it ran on,
// and each goal judged.
import type { CliStartupResult } from '../cli-startup';
import type { FleetResult } from '../fleet';
import type { HistoryResult } from '../history-cost';
import type { OverheadResult } from '../overhead';
import type { ThroughputResult } from '../throughput';
import type { WaitLengthResult } from '../wait-economy';

export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  platform: string;
  /** 1/5/15-minute load averages when the benchmark began and ended. */
  loadAverageStart: number[];
  loadAverageEnd: number[];
}

export interface GoalCheck {
  figure: string;
  goal: string;
  measured: string;
  met: boolean;
}

export interface BenchResults {
  generatedAt: string;
  durationSeconds: number;
  machine: MachineInfo;
  overhead: OverheadResult[];
  throughput: ThroughputResult[];
  waits: WaitLengthResult[];
  history: HistoryResult[];
  cli: CliStartupResult | null;
  /** Absent in results measured before the fleet figure existed. */
  fleet?: FleetResult[];
  goals: GoalCheck[];
}
