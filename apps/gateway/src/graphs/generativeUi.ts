import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ConfigError } from "../configError";
import type { LanggraphDeployment } from "./langgraphConfig";

/** A built file of a graph's UI: its name and contents. */
export interface UiFile {
  basename: string;
  contents: Buffer;
}

/** The deployment's generative UI (its `ui`), bundled: each name's files. */
export class GenerativeUi {
  constructor(private readonly files: ReadonlyMap<string, readonly UiFile[]>) {}

  /**
   * Bundles the deployment's `ui` components once, when the gateway starts, with LangGraph's own
   * bundler (`@langchain/langgraph-ui`: esbuild, React and the SDK left to the page that renders
   * them), as `langgraph dev` and the platform do. Every replica builds the same files. A component
   * that does not build stops the gateway, naming it.
   */
  static async build(deployment: Pick<LanggraphDeployment, "path" | "ui" | "uiConfig">): Promise<GenerativeUi | undefined> {
    if (Object.keys(deployment.ui).length === 0) return undefined;
    const { build } = await import("@langchain/langgraph-ui");
    const output = await mkdtemp(join(tmpdir(), "axiom-ui-"));
    try {
      await build({ output, cwd: dirname(deployment.path), defs: deployment.ui, ...(deployment.uiConfig ? { config: deployment.uiConfig } : {}) });
      const files = new Map<string, UiFile[]>();
      for (const name of Object.keys(deployment.ui)) {
        const folder = join(output, "public", name);
        const basenames = await readdir(folder).catch(() => []);
        files.set(name, await Promise.all(basenames.map(async (basename) => ({ basename, contents: await readFile(join(folder, basename)) }))));
      }
      return new GenerativeUi(files);
    } catch (error) {
      throw new ConfigError("AXIOM_LANGGRAPH_CONFIG", `ui: ${(error as Error).message.split("\n")[0]}`);
    } finally {
      await rm(output, { recursive: true, force: true });
    }
  }

  /** The files built for `name`; none when it is not a UI of the deployment. */
  filesOf(name: string): readonly UiFile[] {
    return this.files.get(name) ?? [];
  }
}
