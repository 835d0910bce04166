// The plugin catalog's cache and writes, on the in-memory settings store: a failed announcement
// leaves the setting as it was, and a load that an invalidation overtook is not kept.
import { ToolRegistry } from "@axiom-lattice/agent";
import { InMemoryPluginSettingStore } from "@axiom-lattice/core";
import type { Page, PageRequest, PluginSetting, PluginSettingStore } from "@axiom-lattice/protocols";
import { recordingLogger } from "@axiom-lattice/testing";
import { describe, expect, it } from "vitest";
import { PluginCatalog } from "../src/plugins/pluginCatalog";

const TENANT = "tenant-a";

/** The in-memory store, whose reads can be held back after they have read (a slow read). */
class HeldBackReads implements PluginSettingStore {
  readonly inner = new InMemoryPluginSettingStore();
  held: Promise<void> = Promise.resolve();

  async list(tenantId: string, page: PageRequest): Promise<Page<PluginSetting>> {
    const read = await this.inner.list(tenantId, page);
    await this.held;
    return read;
  }

  set(tenantId: string, name: string, enabled: boolean): Promise<PluginSetting> {
    return this.inner.set(tenantId, name, enabled);
  }
}

function catalogOn(settings: PluginSettingStore, announce: () => Promise<void> = async () => {}) {
  const { logger, entries } = recordingLogger();
  const tools = new ToolRegistry();
  return { catalog: new PluginCatalog({ settings, registeredTools: () => tools.list(), mcpTools: () => new Map(), announce, logger }), logs: entries };
}

const echoOf = async (catalog: PluginCatalog) => (await catalog.entries(TENANT)).find((entry) => entry.name === "echo")?.enabled;

describe("PluginCatalog", () => {
  it("puts the earlier setting back when the peers cannot be told, and throws", async () => {
    const settings = new InMemoryPluginSettingStore();
    let outboxDown = false;
    const { catalog } = catalogOn(settings, async () => {
      if (outboxDown) throw new Error("outbox unreachable");
    });
    await catalog.setEnabled(TENANT, "clock", false);
    outboxDown = true;
    await expect(catalog.setEnabled(TENANT, "echo", false)).rejects.toThrow("outbox unreachable");
    await expect(catalog.setEnabled(TENANT, "clock", true)).rejects.toThrow("outbox unreachable");
    expect(await echoOf(catalog)).toBe(true);
    expect((await settings.list(TENANT, { limit: 100 })).items.map(({ name, enabled }) => [name, enabled])).toEqual([
      ["clock", false],
      ["echo", true],
    ]);
  });

  it("does not keep a load an invalidation overtook: the next read sees the change", async () => {
    const settings = new HeldBackReads();
    const { catalog } = catalogOn(settings);
    let release = () => {};
    settings.held = new Promise((resolve) => (release = resolve));
    const slow = catalog.entries(TENANT);
    // A peer's change arrives while the read is under way.
    await settings.inner.set(TENANT, "echo", false);
    catalog.invalidate(TENANT);
    release();
    expect((await slow).find((entry) => entry.name === "echo")?.enabled).toBe(true);
    expect(await echoOf(catalog)).toBe(false);
  });

  it("answers null for a name not in the catalog, writing nothing", async () => {
    const settings = new InMemoryPluginSettingStore();
    const { catalog } = catalogOn(settings);
    expect(await catalog.setEnabled(TENANT, "teleport", false)).toBeNull();
    expect((await settings.list(TENANT, { limit: 100 })).items).toEqual([]);
  });
});
