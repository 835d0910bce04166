import { TaskService, type TaskMessageDeps } from "@axiom-lattice/agent";
import { type Logger, ProjectTaskAdmissionNotifier, ProjectTaskExecutionMutex, TaskLifecycleNotifier } from "@axiom-lattice/core";
import type { GatewayConfig } from "../config";
import type { GatewayStores } from "../stores/gatewayStores";
import { TASK_MACHINE_REQUEST_WAIT_MS } from "../defaults";

/** A gateway's task service, with the notifiers and the machine it announces and serialises with. */
export interface GatewayTasks {
  service: TaskService;
  /** Task events: heard by local listeners, carried to peers by the outbox. */
  notifiers: { taskLifecycle: TaskLifecycleNotifier; projectTaskAdmission: ProjectTaskAdmissionNotifier };
  /** Serialises the work on each project task machine, in this process and across replicas. */
  machine: ProjectTaskExecutionMutex;
}

/**
 * The task service on a gateway's stores: the one the gateway serves and the one `task:recover`
 * converges with. `wake` wakes a thread's processor once its run is queued.
 */
export function createGatewayTasks(config: Pick<GatewayConfig, "replicaId" | "runLeaseMs">, stores: GatewayStores, logger: Logger, wake: TaskMessageDeps["wake"]): GatewayTasks {
  const { replicaId } = config;
  const notifiers = {
    taskLifecycle: new TaskLifecycleNotifier({ outbox: stores.outbox, replicaId, logger }),
    projectTaskAdmission: new ProjectTaskAdmissionNotifier({ outbox: stores.outbox, replicaId, logger }),
  };
  // Its FIFO lock serialises this process's work on a machine, its lease the cluster's. Its lease lives
  // as long as a thread's run lease (renewed while held): a dead holder frees the machine as soon as its threads.
  const machine = new ProjectTaskExecutionMutex({ leaseStore: stores.lease, replicaId, logger, ttlMs: config.runLeaseMs });
  const service = new TaskService({
    stores: { tasks: stores.tasks, projects: stores.projects, assistants: stores.assistants, leases: stores.lease, queue: stores.queue, unitOfWork: stores },
    lifecycle: notifiers.taskLifecycle,
    admissions: notifiers.projectTaskAdmission,
    machine,
    wake,
    replicaId,
    logger,
    threadRunTtlMs: config.runLeaseMs,
    requestMachineWaitMs: TASK_MACHINE_REQUEST_WAIT_MS,
  });
  return { service, notifiers, machine };
}
