// The in-memory state of the local cloud: projects, VPCs (with their peerings) and services (with
// their replica sets), indexed by project. Every read advances the record to the clock's now.
import type { Clock } from './clock';
import { advancePeering, advanceService } from './lifecycle';
import type { PersistedState, ProjectRecord, ServiceRecord, VpcRecord } from './state';

export class Store {
  private readonly projectsById = new Map<string, ProjectRecord>();
  private readonly vpcsByProject = new Map<string, Map<string, VpcRecord>>();
  private readonly servicesByProject = new Map<string, Map<string, ServiceRecord>>();
  /** IDs ever handed out, across all kinds and projects, so a generated ID is never reused. */
  private readonly usedIds = new Set<string>();
  private readonly listeners: Array<() => void> = [];

  constructor(private readonly clock: Clock) {}

  /** Called after every change that should be persisted. */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  changed(): void {
    for (const listener of this.listeners) listener();
  }

  isIdUsed(id: string): boolean {
    return this.usedIds.has(id);
  }

  // --- projects ---------------------------------------------------------------------------------

  addProject(project: ProjectRecord): void {
    this.projectsById.set(project.id, project);
    this.usedIds.add(project.id);
  }

  projects(): ProjectRecord[] {
    return [...this.projectsById.values()];
  }

  project(id: string): ProjectRecord | undefined {
    return this.projectsById.get(id);
  }

  // --- VPCs and peerings ------------------------------------------------------------------------

  addVpc(vpc: VpcRecord): void {
    this.mapFor(this.vpcsByProject, vpc.projectId).set(vpc.id, vpc);
    this.usedIds.add(vpc.id);
    this.changed();
  }

  vpc(projectId: string, vpcId: string): VpcRecord | undefined {
    const vpc = this.vpcsByProject.get(projectId)?.get(vpcId);
    if (vpc) this.advanceVpc(vpc);
    return vpc;
  }

  vpcs(projectId: string): VpcRecord[] {
    const vpcs = [...(this.vpcsByProject.get(projectId)?.values() ?? [])];
    for (const vpc of vpcs) this.advanceVpc(vpc);
    return vpcs;
  }

  removeVpc(projectId: string, vpcId: string): void {
    this.vpcsByProject.get(projectId)?.delete(vpcId);
    this.changed();
  }

  noteId(id: string): void {
    this.usedIds.add(id);
  }

  private advanceVpc(vpc: VpcRecord): void {
    const now = this.clock.now();
    for (const peering of vpc.peerings) advancePeering(peering, now);
  }

  // --- services and replica sets ----------------------------------------------------------------

  addService(service: ServiceRecord): void {
    this.mapFor(this.servicesByProject, service.projectId).set(service.id, service);
    this.usedIds.add(service.id);
    this.changed();
  }

  service(projectId: string, serviceId: string): ServiceRecord | undefined {
    const services = this.servicesByProject.get(projectId);
    const service = services?.get(serviceId);
    if (!service) return undefined;
    if (advanceService(service, this.clock.now()) === 'removed') {
      services!.delete(serviceId);
      this.changed();
      return undefined;
    }
    return service;
  }

  services(projectId: string): ServiceRecord[] {
    const services = this.servicesByProject.get(projectId);
    if (!services) return [];
    return [...services.keys()].flatMap((id) => this.service(projectId, id) ?? []);
  }

  // --- whole state ------------------------------------------------------------------------------

  /** Forgets every VPC and service (projects stay). */
  clearResources(): void {
    this.vpcsByProject.clear();
    this.servicesByProject.clear();
    this.changed();
  }

  /** Every record, advanced to now, as plain data (for the state file and `GET /__sim/state`). */
  snapshot(): Omit<PersistedState, 'version' | 'savedAt' | 'idRandomState' | 'retiredIds'> {
    const projectIds = new Set([...this.vpcsByProject.keys(), ...this.servicesByProject.keys()]);
    const vpcs: VpcRecord[] = [];
    const services: ServiceRecord[] = [];
    for (const projectId of projectIds) {
      vpcs.push(...this.vpcs(projectId));
      services.push(...this.services(projectId));
    }
    return { projects: this.projects(), vpcs, services };
  }

  /** IDs handed out that none of the given (live) records carries any more: deleted resources'. */
  retiredIds(live: Pick<PersistedState, 'projects' | 'vpcs' | 'services'>): string[] {
    const present = new Set<string>();
    for (const project of live.projects) present.add(project.id);
    for (const vpc of live.vpcs) {
      present.add(vpc.id);
      for (const peering of vpc.peerings) present.add(peering.id);
    }
    for (const service of live.services) {
      present.add(service.id);
      for (const set of service.replicaSets) present.add(set.id);
    }
    return [...this.usedIds].filter((id) => !present.has(id));
  }

  /** Loads records from a state file. Projects are handled by the caller. */
  restoreResources(state: Pick<PersistedState, 'vpcs' | 'services' | 'retiredIds'>): void {
    for (const id of state.retiredIds) this.usedIds.add(id);
    for (const vpc of state.vpcs) {
      this.mapFor(this.vpcsByProject, vpc.projectId).set(vpc.id, vpc);
      this.usedIds.add(vpc.id);
      for (const peering of vpc.peerings) this.usedIds.add(peering.id);
    }
    for (const service of state.services) {
      this.mapFor(this.servicesByProject, service.projectId).set(service.id, service);
      this.usedIds.add(service.id);
      for (const set of service.replicaSets) this.usedIds.add(set.id);
    }
  }

  private mapFor<T>(index: Map<string, Map<string, T>>, projectId: string): Map<string, T> {
    let map = index.get(projectId);
    if (!map) {
      map = new Map();
      index.set(projectId, map);
    }
    return map;
  }
}
