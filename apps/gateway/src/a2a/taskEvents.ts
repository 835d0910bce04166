import type { StreamChunk } from "@axiom-lattice/agent";
import { MessageChunkTypes, endsChunkStream } from "@axiom-lattice/protocols";
import { type StreamResponse, type Task, type TaskStatus, TaskState } from "@a2a-js/sdk";
import { answerArtifact } from "./taskView";

const statusUpdate = (task: Task, status: TaskStatus): StreamResponse => ({
  payload: { $case: "statusUpdate", value: { taskId: task.id, contextId: task.contextId, status, metadata: undefined } },
});

/**
 * A task's events while its current run goes on, from that run's chunks (followed wherever it runs):
 * `working` once it starts, the answer's text as it is streamed (with `deltas`), then, read with
 * `ended` once the run ended, the answer whole and the task's final status. Chunks that stop before
 * the end (this replica closing) end the events without it: the client subscribes again, on a
 * replica that stays, and gets the end there, once.
 */
export async function* taskEvents(task: Task, chunks: AsyncIterable<StreamChunk>, { deltas, ended }: { deltas: boolean; ended: () => Promise<Task> }): AsyncGenerator<StreamResponse> {
  let working = task.status?.state === TaskState.TASK_STATE_WORKING;
  for await (const chunk of chunks) {
    if (endsChunkStream(chunk)) {
      const final = await ended();
      for (const artifact of final.artifacts) {
        yield { payload: { $case: "artifactUpdate", value: { taskId: task.id, contextId: task.contextId, artifact, append: false, lastChunk: true, metadata: undefined } } };
      }
      yield statusUpdate(final, final.status!);
      return;
    }
    if (!working) {
      working = true;
      yield statusUpdate(task, { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: new Date().toISOString() });
    }
    const text = chunk.type === MessageChunkTypes.MESSAGE_CHUNK ? (chunk.data as { content?: unknown }).content : undefined;
    if (deltas && typeof text === "string" && text !== "") {
      yield { payload: { $case: "artifactUpdate", value: { taskId: task.id, contextId: task.contextId, artifact: answerArtifact(text), append: true, lastChunk: false, metadata: undefined } } };
    }
  }
}
