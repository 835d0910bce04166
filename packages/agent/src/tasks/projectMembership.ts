import { readAllPages } from "@axiom-lattice/core";
import type { ProjectStore } from "@axiom-lattice/protocols";

/** Whether the assistant is a bot of the project: a task in a project is only an assistant's who is. */
export async function isProjectBot(projects: Pick<ProjectStore, "listBots">, tenantId: string, projectId: string, assistantId: string): Promise<boolean> {
  const bots = await readAllPages((page) => projects.listBots(tenantId, projectId, page));
  return bots.some((bot) => bot.assistantId === assistantId);
}
