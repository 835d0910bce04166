import type { Migration } from "./migration";

// The API's bodies became snake_case, and an `agent-message` schedule keeps its payload as the API
// took it: `{ assistant_id, thread_id, message }`. Schedules stored before keep firing, renamed so.
export const agentMessagePayloadKeysMigration: Migration = {
  version: 213,
  name: "lattice_scheduled_tasks_agent_message_payload_keys",
  sql: `
    UPDATE lattice_scheduled_tasks
       SET payload = (payload - 'assistantId' - 'threadId')
                     || jsonb_build_object('assistant_id', payload -> 'assistantId', 'thread_id', payload -> 'threadId')
     WHERE task_type = 'agent-message'
       AND payload ? 'assistantId'
       AND payload ? 'threadId';
  `,
};
