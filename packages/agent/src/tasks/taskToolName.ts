/**
 * The name of the `task` tool. A leaf: the scripted model and the graph name the tool without
 * importing the tool itself, which needs the runtime's stores.
 */
export const TASK_TOOL = "task";
