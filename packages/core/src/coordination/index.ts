export { LeaseArgumentError, isLeaseToken, validateLeaseArguments, validateLeaseListOptions } from "./leaseArguments";
export { FencedOutError, assertFenceHolds, validateFence, writeUnderFence, type FenceCheck, type FencedTenure } from "./leaseFence";
export { InMemoryLeaseStore } from "./inMemoryLeaseStore";
export { LeaseLostError, startLeaseHeartbeat, type LeaseHeartbeat } from "./leaseHeartbeat";
export { acquireLease, type AcquireLeaseOptions, type HeldLease, type ReplicaLeaseOptions } from "./heldLease";
export { holderLabel, uniqueHolder } from "./holder";
export { LeaseAcquireTimeoutError, withLease, type LeaseContext, type WithLeaseOptions } from "./withLease";
export { runAsLeader, type LeaderOutcome, type RunAsLeaderOptions } from "./leaderGate";
export { LeaderLoop, leaderLeaseKey, type LeaderLoopOptions, type LeaderTenure } from "./leaderLoop";
export {
  MAINTENANCE_LEADERSHIP,
  MAINTENANCE_LEASE_KEY,
  MaintenanceLoop,
  type MaintenanceLoopOptions,
  type MaintenanceTask,
} from "./maintenanceLoop";
export {
  getThreadRunOwner,
  ownedThreadRunKeys,
  queueScopeOf,
  threadRunLeaseKey,
  tryAcquireThreadRun,
  type ThreadRunHandle,
  type ThreadRunScope,
} from "./threadRun";
export { createTaskRunLiveness, taskRunLeaseKey, type TaskRunLiveness, type TaskRunRef } from "./taskRunLiveness";
