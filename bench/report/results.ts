// The shape of bench/results/bench.json: every figure with its reference, the machine it ran on,
// and each goal judged.
import type { BaselineConcurrentResult, BaselineSingleResult } from '../baseline-compare';
import type { BaselineFleetResult } from '../baseline-fleet';
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

/** Figure 7: tideline against the hand-written Temporal workflow (bench/baseline/). */
export interface BaselineResults {
  single: BaselineSingleResult[];
  concurrent: BaselineConcurrentResult[];
  /** Empty when the fleet case was not run. */
  fleet: BaselineFleetResult[];
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
  /** Absent in results measured before the baseline figure existed. */
  baseline?: BaselineResults;
  goals: GoalCheck[];
}
